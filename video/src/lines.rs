//! Reading the short text lines of a y4m stream (the header and each FRAME
//! line) with a hard length cap, so a file with no newline can never make
//! us buffer it whole.

use std::io::{self, BufRead};

/// Longest header or FRAME line accepted, newline excluded. Real headers are
/// under 100 bytes; X tags leave room for much more, but not unbounded.
pub const MAX_LINE: usize = 4096;

/// What came back from [`read_line`].
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// End of input before any byte.
    Eof,
    /// A complete line, newline stripped.
    Full(Vec<u8>),
    /// Input ended after these bytes without a newline.
    Unterminated(Vec<u8>),
    /// No newline within [`MAX_LINE`] bytes; holds the first bytes seen.
    TooLong(Vec<u8>),
}

/// Reads one `\n`-terminated line of at most [`MAX_LINE`] bytes.
pub fn read_line(r: &mut impl BufRead) -> io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(if line.is_empty() { Line::Eof } else { Line::Unterminated(line) });
        }
        let room = MAX_LINE + 1 - line.len();
        let window = &buf[..buf.len().min(room)];
        if let Some(nl) = window.iter().position(|&b| b == b'\n') {
            line.extend_from_slice(&window[..nl]);
            r.consume(nl + 1);
            return Ok(Line::Full(line));
        }
        let n = window.len();
        line.extend_from_slice(window);
        r.consume(n);
        if line.len() > MAX_LINE {
            line.truncate(64);
            return Ok(Line::TooLong(line));
        }
    }
}

/// Printable excerpt of raw bytes for an error message: at most 40 bytes,
/// with control characters and invalid UTF-8 escaped (`\x01`, `\n`,
/// `\xff`), so that a stray byte shows instead of vanishing from the text.
pub fn excerpt(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes[..bytes.len().min(40)].utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\\' => out.push_str("\\\\"),
                c if c.is_ascii_control() => {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                }
                c if c.is_control() => out.extend(c.escape_unicode()),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    if bytes.len() > 40 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn lines_and_ends() {
        let mut c = Cursor::new(b"ab\ncd".to_vec());
        assert_eq!(read_line(&mut c).unwrap(), Line::Full(b"ab".to_vec()));
        assert_eq!(read_line(&mut c).unwrap(), Line::Unterminated(b"cd".to_vec()));
        assert_eq!(read_line(&mut c).unwrap(), Line::Eof);
    }

    #[test]
    fn excerpt_escapes_what_would_not_show() {
        assert_eq!(excerpt(b"FRAME"), "FRAME");
        assert_eq!(excerpt(b"\x01FRAME"), "\\x01FRAME");
        assert_eq!(excerpt(b"FRA\tME\r"), "FRA\\tME\\r");
        assert_eq!(excerpt(b"a\xffb\\"), "a\\xffb\\\\");
        assert_eq!(excerpt("é\u{85}".as_bytes()), "é\\u{85}");
        assert_eq!(excerpt(&[b'x'; 41]), format!("{}…", "x".repeat(40)));
    }

    #[test]
    fn long_line_is_capped() {
        let mut c = Cursor::new(vec![b'x'; MAX_LINE * 3]);
        assert!(matches!(read_line(&mut c).unwrap(), Line::TooLong(_)));
        let mut ok = vec![b'y'; MAX_LINE];
        ok.push(b'\n');
        let mut c = Cursor::new(ok);
        assert!(matches!(read_line(&mut c).unwrap(), Line::Full(l) if l.len() == MAX_LINE));
    }
}
