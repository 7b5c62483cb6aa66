//! A lingering close. Closing a socket that still holds bytes the client sent makes the kernel answer
//! with a reset, and a client that was still writing (an oversized frame, a flood) then sees a broken
//! connection instead of the answer the server gave it (a WebSocket close code, a 429). So after its
//! last word the server shuts its write side (the client reads the answer, then an orderly end) and
//! reads and drops what the client still sends, until the client closes too, or a bound is reached.
//! The caller bounds the time; the bytes are bounded here.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Bytes read per call while draining: allocated only while a socket lingers.
const CHUNK: usize = 16 * 1024;

/// How a lingering close ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lingered {
    /// The client closed its side (or the socket failed): nothing is left to reset.
    Closed,
    /// `max_bytes` were read and the client was still sending: closing now may reset it.
    BytesSpent,
}

/// Shuts the write side of `io`, then reads and drops up to `max_bytes` until the client closes.
pub async fn shut_and_drain<S>(io: &mut S, max_bytes: usize) -> Lingered
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    // A failed shutdown means the connection is gone already; the read below then ends at once.
    let _ = io.shutdown().await;
    let mut sink = vec![0u8; CHUNK.min(max_bytes.max(1))];
    let mut left = max_bytes;
    while left > 0 {
        let want = sink.len().min(left);
        match io.read(&mut sink[..want]).await {
            Ok(0) | Err(_) => return Lingered::Closed,
            Ok(n) => left -= n,
        }
    }
    Lingered::BytesSpent
}
