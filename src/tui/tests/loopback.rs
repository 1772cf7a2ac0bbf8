//! The request side of the tests' hand-made loopback servers: reading a
//! request's head off the connection.

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// The request line and headers, up to the blank line; None when the
/// client hung up first.
pub(super) async fn read_head(conn: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match conn.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    Some(String::from_utf8_lossy(&head).into_owned())
}
