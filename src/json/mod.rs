//! JSON text to a flat tape of tokens, with the project's JSON semantics.
//!
//! A hand-written pass ([`parse_plain`]) reads most documents; serde_json reads the rest:
//! text that is not JSON (and reports its error), nesting deeper than 128, numbers beyond
//! the float range, escaped lone surrogates; and [`parse_pruned`] reads parts of
//! documents with it. Both build the same tape: tests check that on every text of the
//! vectors, cut and changed, and the fuzz targets compare the backends on random input.
//! The hand-written pass ([`scan_plain`]) hands what it reads to a [`Sink`]: the tape's
//! tokens, or, in the Python layer, Python objects built as the text is read.
//!
//! The semantics: integers of any size are exact (serde_json's `arbitrary_precision`
//! hands over the digits of every number that does not fit 64 bits), floats are parsed
//! from their text with Rust's correctly rounded `f64::from_str`, duplicate keys are all
//! kept in order (readers take the last one), and nesting deeper than [`MAX_DEPTH`] is an
//! error. Deep input never overflows the stack: every container recursion runs under
//! `stacker::maybe_grow`.
//!
//! The parts, each below the ones that use it: `tape` (tokens, texts, lookups),
//! `prune` ([`Keep`]), `strings` (string runs, escapes, the JSON string writer),
//! `numbers` (number tokens, Python's integer digit limit), `scan` (the hand-written
//! pass and its [`Sink`]), `serde_fallback` (serde_json onto the tape).

mod numbers;
mod prune;
mod scan;
mod serde_fallback;
mod strings;
mod tape;

pub use numbers::{
    holds_too_long_int, is_too_long_int, number_end, number_token, set_int_max_str_digits,
    value_holds_too_long_int,
};
pub use prune::Keep;
pub use scan::{container_end, scan_plain, Sink};
pub use strings::{escaped_char, run_end, write_str, write_str_body};
pub use tape::{own, Tape, Text, Token};

use scan::{first_value_tokens, plain_tokens};
use serde_fallback::tokens_with;
use std::borrow::Cow;
use std::fmt;

/// Deepest nesting of arrays and objects accepted (the same as orjson's).
pub const MAX_DEPTH: usize = 1024;

/// Where and why JSON text could not be parsed. `pos` is a byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub pos: usize,
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.pos)
    }
}

impl std::error::Error for JsonError {}

/// Parse UTF-8 bytes, building tokens only for the parts `keep` names. Skipped values
/// are checked by serde_json's own skipping, which differs from a full parse in two
/// ways only: it accepts escaped lone surrogates, and it does not count nesting. The
/// caller must use [`parse`] for text that may hold either (see `bulk::read_record`).
pub fn parse_pruned<'a>(input: &'a [u8], keep: &Keep) -> Result<Tape<'a>, JsonError> {
    match simdutf8::compat::from_utf8(input) {
        Ok(text) => {
            let (tokens, owned) = tokens_with(text, Some(keep))?;
            Ok(Tape {
                source: Cow::Borrowed(text),
                owned,
                tokens,
            })
        }
        Err(err) => Err(JsonError {
            pos: err.valid_up_to(),
            message: "invalid UTF-8".to_owned(),
        }),
    }
}

/// Parse UTF-8 bytes (checked once, up front, with SIMD).
pub fn parse(input: &[u8]) -> Result<Tape<'_>, JsonError> {
    match simdutf8::compat::from_utf8(input) {
        Ok(text) => parse_str(text),
        Err(err) => Err(JsonError {
            pos: err.valid_up_to(),
            message: "invalid UTF-8".to_owned(),
        }),
    }
}

/// Whether `input` may be JSON text judged by its first byte after whitespace: false
/// where [`parse`] must fail (nothing but whitespace, or a byte no JSON value starts
/// with), so a caller that only wants documents need not decode the rest.
pub fn may_start_value(input: &[u8]) -> bool {
    let first = input
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    matches!(
        first,
        Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n')
    )
}

/// The fast path of [`parse`] (also taken first by the bulk reader): the same tape, built
/// in one hand-written pass without serde's per-value machinery. None for what it does
/// not read: text that is not UTF-8 or not JSON, a lone surrogate escape, nesting deeper
/// than 128, a number beyond the float range; serde_json then reads it (and reports the
/// error).
pub fn parse_plain(input: &[u8]) -> Option<Tape<'_>> {
    let text = simdutf8::basic::from_utf8(input).ok()?;
    if u32::try_from(text.len()).is_err() {
        return None;
    }
    let (tokens, owned) = plain_tokens(text)?;
    Some(Tape {
        source: Cow::Borrowed(text),
        owned,
        tokens,
    })
}

/// The value `text` starts with (after whitespace), whatever follows it, read by the
/// hand-written pass ([`parse_plain`]), and the index just past it: the tape is the one
/// [`parse_plain`] builds of `text[..end]`. None where that pass does not read it (the
/// caller then reads the value's text as it would without this).
pub fn parse_first(text: &str) -> Option<(Tape<'_>, usize)> {
    u32::try_from(text.len()).ok()?;
    let (tokens, owned, end) = first_value_tokens(text)?;
    let tape = Tape {
        source: Cow::Borrowed(&text[..end]),
        owned,
        tokens,
    };
    Some((tape, end))
}

/// Parse text; strings without escapes point into it.
pub fn parse_str(text: &str) -> Result<Tape<'_>, JsonError> {
    let (tokens, owned) = tokens_of(text)?;
    Ok(Tape {
        source: Cow::Borrowed(text),
        owned,
        tokens,
    })
}

/// Parse text and keep it: the tape owns its source. On error the text comes back.
pub fn parse_string(text: String) -> Result<Tape<'static>, (JsonError, String)> {
    match tokens_of(&text) {
        Ok((tokens, owned)) => Ok(Tape {
            source: Cow::Owned(text),
            owned,
            tokens,
        }),
        Err(err) => Err((err, text)),
    }
}

/// [`parse_str`] for a caller that wants no error message: None where `text` is not
/// JSON. Text whose first container never closes ([`unclosed`]) is refused without
/// serde_json reading it again to say why (a cut-off argument string of a million
/// escapes costs one pass, not two).
pub fn parse_str_or_none(text: &str) -> Option<Tape<'_>> {
    let (tokens, owned) = tokens_or_none(text)?;
    Some(Tape {
        source: Cow::Borrowed(text),
        owned,
        tokens,
    })
}

/// [`parse_string`] without the error message (see [`parse_str_or_none`]): on error
/// the text comes back.
pub fn parse_string_or_back(text: String) -> Result<Tape<'static>, String> {
    match tokens_or_none(&text) {
        Some((tokens, owned)) => Ok(Tape {
            source: Cow::Owned(text),
            owned,
            tokens,
        }),
        None => Err(text),
    }
}

/// [`tokens_of`], None for text that is not JSON.
fn tokens_or_none(text: &str) -> Option<(Vec<Token>, String)> {
    if u32::try_from(text.len()).is_ok() {
        if let Some(tokens) = plain_tokens(text) {
            return Some(tokens);
        }
        if unclosed(text) {
            return None;
        }
    }
    tokens_with(text, None).ok()
}

/// Whether the first container of `text` (after whitespace) never closes, brackets
/// inside strings apart ([`container_end`]). Such text is not JSON: in a JSON document
/// every string ends where `container_end` ends it (an escape is a backslash and one
/// more byte, then hex digits at most) and the brackets outside strings balance, so
/// its container closes. (The tests check it against serde_json on every text the
/// hand-written pass is checked on.)
fn unclosed(text: &str) -> bool {
    let b = text.as_bytes();
    let start = text.len() - text.trim_start_matches([' ', '\t', '\n', '\r']).len();
    matches!(b.get(start), Some(b'{' | b'[')) && container_end(b, start, b.len()).is_none()
}

/// The tokens of `text` and the text they own.
fn tokens_of(text: &str) -> Result<(Vec<Token>, String), JsonError> {
    // The hand-written pass reads most documents, and reads them as serde_json does
    // (`parse_plain`); serde_json reads the rest and reports their errors.
    if u32::try_from(text.len()).is_ok() {
        if let Some(tokens) = plain_tokens(text) {
            return Ok(tokens);
        }
    }
    tokens_with(text, None)
}

#[cfg(test)]
pub(crate) mod tests {
    #[test]
    fn text_no_value_starts_with_is_not_json() {
        let texts = [
            "",
            " \n\t\r",
            "The weather",
            "  <tool_call>",
            "\u{feff}{}",
            "é",
            "+1",
            ".5",
            "}",
            "{",
            "[1]",
            " \"a\"",
            "-1",
            "0",
            "true",
            "false",
            "null",
            "nope",
            "tx",
            "\n{\"a\":1}",
        ];
        for text in texts {
            if !super::may_start_value(text.as_bytes()) {
                assert!(super::parse(text.as_bytes()).is_err(), "{text:?}");
            }
        }
        assert!(!super::may_start_value(b"\xff{}"));
        assert!(super::may_start_value(b" {"));
    }

    #[test]
    fn parse_plain_builds_the_tape_parse_builds() {
        let documents = [
            r#"{"a": [1, -0, 2.5, 1E+2, 1e-7, 18446744073709551616, -9223372036854775808]}"#,
            "[18446744073709551615, 9223372036854775808, -9223372036854775809]",
            r#" {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a"}}]},"finish_reason":null}]} "#,
            r#"["x\u00e9\ud83d\ude00\n\t\/\\\"\b\f\r", "plain é", true, false, null, {}, []]"#,
            r#"{"a":{"a":1,"a":2},"":""}"#,
            "0",
            r#""\u0000""#,
        ];
        for text in documents {
            let plain = parse_plain(text.as_bytes()).expect(text);
            assert_eq!(plain, serde_parse(text.as_bytes()).unwrap(), "{text}");
            assert_eq!(plain, parse(text.as_bytes()).unwrap(), "{text}");
        }
        let refused = [
            "",
            " ",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "1.",
            "1e",
            "-",
            "tru",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"\u{1}\"",
            "\"\\x\"",
            "[1] 2",
            "{\"a\":1,}",
            "NaN",
            "1e400",
        ];
        for text in refused {
            assert!(parse_plain(text.as_bytes()).is_none(), "{text}");
        }
        // Nesting deeper than the pass goes is left to serde_json; up to it, the same tape.
        let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        assert!(parse_plain(nested(scan::PLAIN_DEPTH + 1).as_bytes()).is_none());
        let deepest = nested(scan::PLAIN_DEPTH);
        let plain = parse_plain(deepest.as_bytes()).unwrap();
        assert_eq!(plain, serde_parse(deepest.as_bytes()).unwrap());
        assert!(parse_plain(b"\"\xff\"").is_none());
    }

    /// Every byte after a backslash, alone in a string and between text: read (or
    /// refused) as serde_json reads it.
    #[test]
    fn every_escape_letter_as_serde_json() {
        for letter in 0..=255u8 {
            for (before, after) in [("", ""), ("ab", "cd")] {
                let mut text = format!("\"{before}\\").into_bytes();
                text.push(letter);
                text.extend_from_slice(format!("{after}\"").as_bytes());
                let serde = serde_parse(&text).ok();
                assert_eq!(parse_plain(&text), serde, "{:?}", text);
            }
        }
    }

    use super::*;

    /// What `parse` did before its hand-written pass: serde_json alone.
    fn serde_parse(input: &[u8]) -> Result<Tape<'_>, JsonError> {
        let text = std::str::from_utf8(input).map_err(|err| JsonError {
            pos: err.valid_up_to(),
            message: "invalid UTF-8".to_owned(),
        })?;
        let (tokens, owned) = tokens_with(text, None)?;
        Ok(Tape {
            source: Cow::Borrowed(text),
            owned,
            tokens,
        })
    }

    /// Every text in the vectors: the documents (compact), and the strings inside them
    /// (responses, argument text, pieces of it, SSE).
    pub(crate) fn vector_texts() -> Vec<String> {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
        let mut texts = Vec::new();
        let mut todo = Vec::new();
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                todo.push(serde_json::from_str::<serde_json::Value>(&text).unwrap());
            }
        }
        while let Some(value) = todo.pop() {
            match &value {
                serde_json::Value::Object(map) => {
                    texts.push(serde_json::to_string(&value).unwrap());
                    todo.extend(map.values().cloned());
                }
                serde_json::Value::Array(items) => todo.extend(items.iter().cloned()),
                serde_json::Value::String(text) => texts.push(text.clone()),
                _ => {}
            }
        }
        texts.sort();
        texts.dedup();
        texts
    }

    /// `parse_first` reads the value a text starts with as `parse_plain` reads that value
    /// alone, and reads a document that `parse_plain` reads, whatever follows it.
    fn check_first(text: &str) {
        if let Some((first, end)) = parse_first(text) {
            let value = &text[..end];
            assert_eq!(
                Some(&first),
                parse_plain(value.as_bytes()).as_ref(),
                "{text:?}"
            );
            assert_eq!(
                value.trim_end_matches([' ', '\t', '\n', '\r']),
                value,
                "{text:?}"
            );
        }
        let trimmed = text.trim_end_matches([' ', '\t', '\n', '\r']);
        if let Some(plain) = parse_plain(trimmed.as_bytes()) {
            let followed = format!("{text}</tool_call>{{\"");
            let (first, end) = parse_first(&followed).expect(text);
            assert_eq!((first, end), (plain, trimmed.len()), "{text:?}");
        }
    }

    /// What `parse_plain` reads, it reads as serde_json does: every text of the vectors
    /// whole; and every prefix of those of up to 400 bytes, and each of them with one
    /// byte changed anywhere (into bytes that end strings, escape, close, separate,
    /// start a number, or start a UTF-8 sequence); `parse_first` on the whole and cut texts.
    #[test]
    fn parse_plain_agrees_with_serde_json_on_cut_and_changed_texts() {
        let texts = vector_texts();
        assert!(texts.len() > 1000, "{} texts", texts.len());
        let (mut read, mut checked) = (0, 0);
        let mut check = |text: &[u8]| {
            checked += 1;
            let parsed = serde_parse(text);
            if let Some(plain) = parse_plain(text) {
                read += 1;
                match &parsed {
                    Ok(parsed) => assert_eq!(&plain, parsed, "{:?}", String::from_utf8_lossy(text)),
                    Err(err) => panic!(
                        "{:?}: plain read what serde_json refuses ({err:?})",
                        String::from_utf8_lossy(text)
                    ),
                }
            }
            // `parse` is the one or the other.
            assert_eq!(parse(text), parsed, "{:?}", String::from_utf8_lossy(text));
            // And `parse_str_or_none` reads what it reads, refusing the rest.
            if let Ok(text) = std::str::from_utf8(text) {
                if unclosed(text) {
                    assert!(parsed.is_err(), "{text:?}: unclosed, yet JSON");
                }
                assert_eq!(
                    parse_str_or_none(text).as_ref(),
                    parsed.as_ref().ok(),
                    "{text:?}"
                );
            }
        };
        for text in &texts {
            check(text.as_bytes());
            check_first(text);
        }
        for text in texts.iter().filter(|text| text.len() <= 400) {
            let bytes = text.as_bytes();
            for end in 0..=bytes.len() {
                check(&bytes[..end]);
                if let Ok(cut) = std::str::from_utf8(&bytes[..end]) {
                    check_first(cut);
                }
            }
            let mut changed = bytes.to_vec();
            for at in 0..bytes.len() {
                for byte in [
                    b'"', b'\\', b'{', b']', b',', b':', b'0', b'-', b'e', b'.', b' ', 0xc3,
                ] {
                    changed[at] = byte;
                    check(&changed);
                }
                changed[at] = bytes[at];
            }
        }
        assert!(
            read > 1000 && checked > 10 * read / 9,
            "{read} of {checked} read"
        );
    }

    #[test]
    fn scalars_and_containers() {
        let tape = parse(br#"{"a":[1,-2,1.5,true,null,"x"],"b":{}}"#).unwrap();
        assert_eq!(tape.tokens[0], Token::Object { len: 2, end: 11 });
        assert_eq!(tape.tokens[2], Token::Array { len: 6, end: 9 });
        assert_eq!(tape.tokens[3], Token::Int(1));
        assert_eq!(tape.tokens[4], Token::Int(-2));
        assert_eq!(tape.tokens[5], Token::Float(1.5));
        assert_eq!(tape.tokens[10], Token::Object { len: 0, end: 11 });
    }

    #[test]
    fn big_numbers_exact() {
        let tape = parse(
            b"[18446744073709551615, 18446744073709551616, -9223372036854775809, 1e400, 0.1]",
        )
        .unwrap();
        assert_eq!(tape.tokens[1], Token::UInt(u64::MAX));
        let text = |idx: usize| match &tape.tokens[idx] {
            Token::BigInt(text) => ("BigInt", tape.text(text)),
            Token::HugeFloat(text) => ("HugeFloat", tape.text(text)),
            other => panic!("{other:?}"),
        };
        assert_eq!(text(2), ("BigInt", "18446744073709551616"));
        assert_eq!(text(3), ("BigInt", "-9223372036854775809"));
        assert_eq!(text(4), ("HugeFloat", "1e+400"));
        assert_eq!(tape.tokens[5], Token::Float(0.1));
        let tape = parse(br#"{"$serde_json::private::Number": "1.5", "k\u0041": "a\n"}"#).unwrap();
        assert_eq!(tape.tokens[0], Token::Object { len: 2, end: 5 });
        assert_eq!(tape.str_at(1), Some("$serde_json::private::Number"));
        assert_eq!(tape.str_at(2), Some("1.5"));
        assert_eq!(tape.str_at(3), Some("kA"));
        assert_eq!(tape.str_at(4), Some("a\n"));
    }

    #[test]
    fn depth_limit() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(ok.as_bytes()).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let err = parse(deep.as_bytes()).unwrap_err();
        assert!(err.message.contains("nesting deeper than 1024"), "{err}");
        let err = parse("[".repeat(100_000).as_bytes()).unwrap_err();
        assert!(err.message.contains("nesting"), "{err}");
        let objects = "{\"a\":".repeat(100_000);
        assert!(parse(objects.as_bytes()).is_err());
    }

    #[test]
    fn invalid_text() {
        for bad in [
            &b""[..],
            b"[1,]",
            b"NaN",
            b"{\"a\" 1}",
            b"\"\xff\"",
            b"\"\\ud800\"",
            b"\"\\udc00\"",
            b"{} x",
            b"01",
            b"1.",
            b"\xef\xbb\xbf{}",
            b"\"a\x01\"",
        ] {
            assert!(parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
