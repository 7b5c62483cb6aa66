//! One HTTP/1.1 request per connection (`Connection: close`): the request is written whole, the
//! answer read to the end of the stream, a chunked body put back together. No pooling, no TLS, no
//! name resolution: the servers under test are on literal IP addresses.

use std::io;
use std::net::SocketAddr;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

/// What the server answered.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    /// The status line and the headers, as sent.
    pub head: String,
    /// The body (de-chunked).
    pub body: String,
}

impl Response {
    /// The value of the first header called `name` (in any case), trimmed.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (n, value) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

/// One request to `addr` with an optional bearer token and a JSON body (empty: none).
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> io::Result<Response> {
    let stream = TcpStream::connect(addr).await?;
    request_over(stream, addr, method, path, token, body).await
}

/// [`request`] over a connection the caller opened (e.g. from a chosen source address).
pub async fn request_over<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    host: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> io::Result<Response> {
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    parse(String::from_utf8(raw).map_err(|e| invalid(e.to_string()))?)
}

fn invalid(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

fn parse(raw: String) -> io::Result<Response> {
    let (head, rest) = raw
        .split_once("\r\n\r\n")
        .ok_or_else(|| invalid(format!("no response head in {raw:?}")))?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid(format!("no status in {head:?}")))?;
    let mut response = Response {
        status,
        head: head.to_owned(),
        body: String::new(),
    };
    response.body = match response.header("transfer-encoding") {
        Some(te) if te.eq_ignore_ascii_case("chunked") => dechunk(rest)?,
        _ => rest.to_owned(),
    };
    Ok(response)
}

fn dechunk(mut s: &str) -> io::Result<String> {
    let mut out = String::new();
    loop {
        let (size, rest) = s
            .split_once("\r\n")
            .ok_or_else(|| invalid("a chunk without its size line"))?;
        let n = usize::from_str_radix(size.trim(), 16)
            .map_err(|_| invalid(format!("a chunk size {size:?}")))?;
        if n == 0 {
            return Ok(out);
        }
        let chunk = rest
            .get(..n)
            .ok_or_else(|| invalid("a chunk shorter than its size"))?;
        out.push_str(chunk);
        s = rest.get(n + 2..).unwrap_or("");
    }
}

/// `http://host:port/...` or `ws://host:port/...` (what a node puts in `Location` and in a WebSocket
/// `redirect`): the address, and the path with its query. Only literal IP addresses.
pub fn split_url(url: &str) -> Option<(SocketAddr, String)> {
    let rest = ["http://", "ws://", "https://", "wss://"]
        .iter()
        .find_map(|scheme| url.strip_prefix(scheme))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    Some((host.parse().ok()?, path.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_address_and_path() {
        let (addr, path) = split_url("ws://127.0.0.1:9001/ws").unwrap();
        assert_eq!(addr, "127.0.0.1:9001".parse().unwrap());
        assert_eq!(path, "/ws");
        let (addr, path) = split_url("http://10.77.1.2:80/rooms/ab/join?x=1").unwrap();
        assert_eq!(addr, "10.77.1.2:80".parse().unwrap());
        assert_eq!(path, "/rooms/ab/join?x=1");
        assert_eq!(split_url("ws://10.0.0.1:5").unwrap().1, "/");
        assert!(split_url("ws://example.org/ws").is_none());
        assert!(split_url("/rooms/ab").is_none());
    }

    #[test]
    fn answers_parse_with_plain_or_chunked_bodies() {
        let plain = parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".into()).unwrap();
        assert_eq!((plain.status, plain.body.as_str()), (200, "{}"));
        assert_eq!(plain.header("content-length"), Some("2"));
        let chunked = parse(
            "HTTP/1.1 307 Temporary Redirect\r\nlocation: http://10.0.0.2:80/x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
                .into(),
        )
        .unwrap();
        assert_eq!(chunked.status, 307);
        assert_eq!(chunked.header("Location"), Some("http://10.0.0.2:80/x"));
        assert_eq!(chunked.body, "abcde");
        assert!(parse("HTTP/1.1 200 OK\r\n".into()).is_err());
        assert!(parse("garbage\r\n\r\n".into()).is_err());
        assert!(
            parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\nab".into()).is_err()
        );
    }

    #[tokio::test]
    async fn a_request_is_written_whole_and_its_answer_read_to_the_end() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut got = Vec::new();
            let mut buf = [0u8; 1024];
            // Read until the whole body (Content-Length 7) is in.
            while !got.ends_with(b"{\"a\":1}") {
                let n = s.read(&mut buf).await.unwrap();
                got.extend_from_slice(&buf[..n]);
            }
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n\"done\"")
                .await
                .unwrap();
            String::from_utf8(got).unwrap()
        });
        let r = request(addr, "POST", "/rooms", Some("tok"), "{\"a\":1}")
            .await
            .unwrap();
        assert_eq!((r.status, r.body.as_str()), (200, "\"done\""));
        let sent = server.await.unwrap();
        assert!(sent.starts_with("POST /rooms HTTP/1.1\r\n"), "{sent}");
        assert!(sent.contains("Authorization: Bearer tok\r\n"), "{sent}");
        assert!(sent.contains("Content-Length: 7\r\n"), "{sent}");
    }
}
