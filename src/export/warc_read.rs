//! Reading a WARC back record by record, streamed: plain, or gzipped
//! record by record (told by the gzip magic, not the name), each record
//! with the span it has in the file: the gzip member's, when gzipped, as
//! a CDX index points at it.

use std::io::{self, BufRead, BufReader, Read};

use flate2::bufread::GzDecoder;

use super::warc::Span;

/// The longest header line read; a longer one is not a WARC's.
const MAX_LINE: u64 = 64 * 1024;

/// One record: its headers as written, its block, where it lies.
pub struct WarcRecord {
    pub span: Span,
    pub headers: Vec<(String, String)>,
    pub block: Vec<u8>,
}

impl WarcRecord {
    /// A header's value; names compare case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Runs `f` on every record of `input`, in file order. A file that is not
/// a WARC, or is cut short, is an `InvalidData` error naming the byte
/// where the bad record starts.
pub fn for_each_record(
    input: impl Read,
    mut f: impl FnMut(WarcRecord) -> io::Result<()>,
) -> io::Result<()> {
    let mut input = Counting {
        inner: BufReader::new(input),
        pos: 0,
    };
    let gzip = input.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    loop {
        let offset = input.pos;
        if input.fill_buf()?.is_empty() {
            return Ok(());
        }
        let (headers, block) = if gzip {
            let mut member = BufReader::new(GzDecoder::new(&mut input));
            let Some(record) = read_record(&mut member, offset)? else {
                return Err(bad(offset, "an empty gzip member"));
            };
            // A CDX line points at a member, so one member must be one record.
            if read_record(&mut member, offset)?.is_some() {
                return Err(bad(offset, "a gzip member holding more than one record"));
            }
            record
        } else {
            match read_record(&mut input, offset)? {
                Some(record) => record,
                None => return Ok(()),
            }
        };
        f(WarcRecord {
            span: Span {
                offset,
                length: input.pos - offset,
            },
            headers,
            block,
        })?;
    }
}

type Parts = (Vec<(String, String)>, Vec<u8>);

/// The next record's headers and block; None at the end of the input.
fn read_record(r: &mut impl BufRead, offset: u64) -> io::Result<Option<Parts>> {
    let mut line = Vec::new();
    if read_line(r, &mut line)? == 0 {
        return Ok(None);
    }
    if !line.starts_with(b"WARC/") {
        return Err(bad(offset, "no WARC version line where a record starts"));
    }
    let mut headers = Vec::new();
    loop {
        line.clear();
        if read_line(r, &mut line)? == 0 {
            return Err(bad(offset, "the record ends inside its headers"));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            break;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(bad(offset, "a header line without ':'"));
        };
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let length = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<u64>().ok())
        .ok_or_else(|| bad(offset, "no valid Content-Length"))?;
    let mut block = Vec::new();
    r.by_ref().take(length).read_to_end(&mut block)?;
    let mut end = [0u8; 4];
    if block.len() as u64 != length || r.read_exact(&mut end).is_err() || &end != b"\r\n\r\n" {
        return Err(bad(offset, "the block is shorter than its Content-Length"));
    }
    Ok(Some((headers, block)))
}

fn read_line(r: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<usize> {
    let n = r.by_ref().take(MAX_LINE).read_until(b'\n', line)?;
    if n as u64 == MAX_LINE && !line.ends_with(b"\n") {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a header line too long for a WARC",
        ));
    }
    Ok(n)
}

fn bad(offset: u64, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("not a WARC record at byte {offset}: {what}"),
    )
}

/// A reader that knows how many bytes were taken from it.
struct Counting<R> {
    inner: R,
    pos: u64,
}

impl<R: BufRead> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.pos += n as u64;
        self.inner.consume(n);
    }
}
