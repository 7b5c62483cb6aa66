//! The server's text frames, encoded here and written straight to the socket rather than through
//! tungstenite's write buffer: that buffer is a `Vec` that keeps the capacity of the largest burst a
//! connection ever wrote (a view with its legal moves, a snapshot) for the connection's life, and
//! tens of thousands of mostly idle connections must stay small (docs/benchmarks.md). A burst is
//! encoded into one temporary buffer, written with one write and freed. tungstenite still reads
//! the client's frames and writes the control frames (pings, pongs, the close).

/// Appends `text` as one final, unmasked text frame (RFC 6455 §5.2; a server never masks).
pub fn push(buf: &mut Vec<u8>, text: &str) {
    const FIN_TEXT: u8 = 0x80 | 0x1;
    let len = text.len();
    buf.reserve(len + 10);
    buf.push(FIN_TEXT);
    if len < 126 {
        buf.push(len as u8);
    } else if let Ok(len) = u16::try_from(len) {
        buf.push(126);
        buf.extend_from_slice(&len.to_be_bytes());
    } else {
        buf.push(127);
        buf.extend_from_slice(&(len as u64).to_be_bytes());
    }
    buf.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

    use super::*;

    #[test]
    fn frames_are_the_ones_tungstenite_writes() {
        // Each length encoding and its edges: 7 bits, 16 bits, 64 bits.
        for len in [0, 1, 125, 126, 127, 65_535, 65_536, 70_000] {
            let text = "x".repeat(len);
            let mut ours = Vec::new();
            push(&mut ours, &text);
            let mut theirs = Vec::new();
            Frame::message(text.clone(), OpCode::Data(Data::Text), true)
                .format(&mut theirs)
                .unwrap();
            assert_eq!(ours, theirs, "length {len}");
        }
    }

    #[test]
    fn a_burst_is_its_frames_one_after_another() {
        let mut burst = Vec::new();
        push(&mut burst, "ab");
        push(&mut burst, "c");
        assert_eq!(burst, [0x81, 2, b'a', b'b', 0x81, 1, b'c']);
    }
}
