//! The pure half of reading a network body with a byte cap.
//!
//! The worker streams provider, custom-tool and MCP responses; each has a
//! UTF-8 byte limit that must stop the read as soon as it is crossed, and an
//! oversized declared `Content-Length` must be refused before reading at all.
//! The I/O (the stream reader and its cancellation) lives in the worker; the
//! counting and decoding live here so they are tested natively.

use crate::js;
use std::fmt;

/// The body is larger than allowed; the caller maps this to its own code
/// (`RESPONSE_TOO_LARGE`, `CUSTOM_RESPONSE_TOO_LARGE`, …) and cancels the
/// stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyTooLarge {
    /// The limit that was crossed.
    pub max_bytes: usize,
}

impl fmt::Display for BodyTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Response exceeds the {}-byte limit.", self.max_bytes)
    }
}

impl std::error::Error for BodyTooLarge {}

/// Refuses a declared `Content-Length` above the cap. The header is read as
/// JavaScript's `Number(header)` does; a missing or non-numeric header passes.
pub fn check_content_length(header: Option<&str>, max_bytes: usize) -> Result<(), BodyTooLarge> {
    let Some(text) = header else { return Ok(()) };
    let declared = js_number_from_string(text);
    if declared.is_finite() && declared > max_bytes as f64 {
        Err(BodyTooLarge { max_bytes })
    } else {
        Ok(())
    }
}

/// JavaScript's `Number(string)` for decimal, hexadecimal, octal and binary
/// literals and `Infinity`; anything else is `NaN`.
fn js_number_from_string(text: &str) -> f64 {
    let t = js::js_trim(text);
    if t.is_empty() {
        return 0.0;
    }
    for (prefix, radix) in [("0x", 16), ("0X", 16), ("0o", 8), ("0O", 8), ("0b", 2), ("0B", 2)] {
        if let Some(digits) = t.strip_prefix(prefix) {
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return f64::NAN;
            }
            return digits.chars().fold(0.0, |acc, c| {
                acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
            });
        }
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned == "Infinity" {
        return if t.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let valid = unsigned
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && unsigned.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '.');
    if !valid {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// Accumulates body chunks, decoding UTF-8 as a streaming `TextDecoder`
/// does (malformed sequences become U+FFFD), and fails as soon as more than
/// `max_bytes` bytes have arrived.
#[derive(Debug, Clone)]
pub struct BoundedText {
    max_bytes: usize,
    bytes: usize,
    text: String,
    pending: Vec<u8>,
}

impl BoundedText {
    /// An empty body that may grow to `max_bytes` bytes.
    pub fn new(max_bytes: usize) -> BoundedText {
        BoundedText {
            max_bytes,
            bytes: 0,
            text: String::new(),
            pending: Vec::new(),
        }
    }

    /// Bytes received so far.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Adds a chunk; an error means the stream must be cancelled.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), BodyTooLarge> {
        self.bytes = self.bytes.saturating_add(chunk.len());
        if self.bytes > self.max_bytes {
            return Err(BodyTooLarge {
                max_bytes: self.max_bytes,
            });
        }
        self.pending.extend_from_slice(chunk);
        let mut input: &[u8] = &std::mem::take(&mut self.pending);
        loop {
            match std::str::from_utf8(input) {
                Ok(valid) => {
                    self.text.push_str(valid);
                    break;
                }
                Err(error) => {
                    let (valid, rest) = input.split_at(error.valid_up_to());
                    self.text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match error.error_len() {
                        Some(len) => {
                            self.text.push('\u{FFFD}');
                            input = rest.get(len..).unwrap_or_default();
                        }
                        None => {
                            self.pending = rest.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The whole text; an incomplete trailing sequence becomes U+FFFD.
    pub fn finish(mut self) -> String {
        if !self.pending.is_empty() {
            self.text.push('\u{FFFD}');
        }
        self.text
    }

    /// Checks a body that arrived whole (no stream reader).
    pub fn whole(text: &str, max_bytes: usize) -> Result<(), BodyTooLarge> {
        if text.len() > max_bytes {
            Err(BodyTooLarge { max_bytes })
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fails_as_soon_as_the_limit_is_crossed() {
        let mut body = BoundedText::new(5);
        assert_eq!(body.push(b"abc"), Ok(()));
        assert_eq!(body.push(b"def"), Err(BodyTooLarge { max_bytes: 5 }));
        let mut exact = BoundedText::new(6);
        assert!(exact.push(b"abc").is_ok() && exact.push(b"def").is_ok());
        assert_eq!(exact.finish(), "abcdef");
    }

    #[test]
    fn rejects_a_declared_length_before_reading() {
        assert_eq!(check_content_length(Some("6"), 5), Err(BodyTooLarge { max_bytes: 5 }));
        assert_eq!(check_content_length(Some(" 5 "), 5), Ok(()));
        assert_eq!(
            check_content_length(Some("0x10"), 5),
            Err(BodyTooLarge { max_bytes: 5 })
        );
        assert_eq!(check_content_length(Some("abc"), 5), Ok(()));
        assert_eq!(check_content_length(Some("Infinity"), 5), Ok(()));
        assert_eq!(check_content_length(None, 5), Ok(()));
    }

    #[test]
    fn decodes_split_and_malformed_utf8_like_text_decoder() {
        let mut body = BoundedText::new(100);
        let emoji = "😀".as_bytes();
        assert!(body.push(&emoji[..1]).is_ok());
        assert!(body.push(&emoji[1..]).is_ok());
        assert!(body.push(&[b'a', 0xFF, b'b']).is_ok());
        assert!(body.push(&emoji[..2]).is_ok());
        assert_eq!(body.finish(), "😀a\u{FFFD}b\u{FFFD}");
    }
}
