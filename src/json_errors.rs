//! What is wrong with JSON text that did not parse: the first error as `(message, byte
//! offset)`, in the words of the pure twin `toolsift._jsontext.error_for` (the spec; its
//! module docstring lists every message). serde_json's own messages differ, so the
//! error of a record is described here, on the thread that read it, with no call into
//! Python. `tests/vectors/json_errors.json` holds the cases both are checked on.
//!
//! A plain validator, read left to right, with an explicit stack (no recursion): it only
//! runs on text already found invalid.

use crate::json::{JsonError, MAX_DEPTH};

const INVALID_UTF8: &str = "invalid UTF-8";
const BOM: &str = "byte order mark is not allowed";
const END: &str = "unexpected end of input";
const EXPECTED_VALUE: &str = "expected a value";
const INVALID_LITERAL: &str = "invalid literal";
const INVALID_NUMBER: &str = "invalid number";
const CONTROL: &str = "control character in string";
const INVALID_ESCAPE: &str = "invalid escape";
const INVALID_U_ESCAPE: &str = "invalid \\u escape";
const LONE_SURROGATE: &str = "lone surrogate in \\u escape";
const EXPECTED_KEY: &str = "expected a string key";
const EXPECTED_COLON: &str = "expected ':'";
const EXPECTED_ARRAY_SEP: &str = "expected ',' or ']'";
const EXPECTED_OBJECT_SEP: &str = "expected ',' or '}'";
const TRAILING: &str = "trailing data after the document";
/// `nesting deeper than {MAX_DEPTH}` (a test checks it names the limit).
const TOO_DEEP: &str = "nesting deeper than 1024";

/// An error: its message and where.
type Found = (&'static str, usize);

/// Where the text goes on after a part read, or the error found in it.
type Step = Result<usize, Found>;

/// The first error in `text` (UTF-8 bytes; a `str` holding lone surrogates is given as
/// Python's `encode("utf-8", "surrogatepass")` writes it), or None when it is valid.
pub fn describe(text: &[u8]) -> Option<JsonError> {
    let error = |(message, pos): Found| JsonError {
        pos,
        message: message.to_owned(),
    };
    if text.starts_with(b"\xef\xbb\xbf") {
        return Some(error((BOM, 0)));
    }
    // Only the valid UTF-8 prefix is read: an error found in it comes first; reaching
    // its end means the invalid UTF-8 is the first error.
    let bad_utf8 = std::str::from_utf8(text).err().map(|err| err.valid_up_to());
    let end = bad_utf8.unwrap_or(text.len());
    let found = Scanner { text: &text[..end] }.scan().err();
    match (bad_utf8, found) {
        (Some(bad), found) if found.is_none_or(|(_, pos)| pos >= bad) => {
            Some(error((INVALID_UTF8, bad)))
        }
        (_, found) => found.map(error),
    }
}

/// `describe(text)`, or the parser's own error where the two disagree (the text is
/// valid by the spec's rules, but the parser refused it: a document over 4 GiB).
pub fn explained(text: &[u8], parsed: JsonError) -> JsonError {
    describe(text).unwrap_or(parsed)
}

/// What kind of failure a record's `error` text is (the `error_kind` column), and the
/// HTTP status it names (`http_status`), as the pure `_errors.error_kind` says: the
/// texts are made from fixed beginnings, so the beginning tells. `json`: the record is
/// not JSON text (or not text at all); `shape`: no format recognized its response;
/// `record_path`: nothing at the `record_path`; `provider`: the provider's own failure
/// (a batch envelope's error, an HTTP status, a stream's error event); `stream`: a
/// record holding a stream that could not be read; `line_too_long`. Called for failed
/// records only. `tests/vectors/json_errors.json` ("kinds") holds the cases.
pub fn error_kind(error: &str) -> (&'static str, Option<i32>) {
    const KINDS: [(&str, &str); 8] = [
        ("line longer than ", "line_too_long"),
        ("nothing at record_path ", "record_path"),
        ("unrecognized response shape", "shape"),
        ("batch ", "provider"),
        ("unknown batch result type", "provider"),
        ("stream error", "provider"),
        // `accumulator::FRAGMENT` and `events::NOT_JSON` (a layer above this one).
        ("a functionCall with partialArgs but no name", "stream"),
        ("a stream event is not JSON", "stream"),
    ];
    if let Some(rest) = error.strip_prefix("HTTP ") {
        let digits = rest.split(':').next().unwrap_or_default();
        let status = digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| digits.parse().ok());
        return ("provider", status.flatten());
    }
    let kind = KINDS
        .iter()
        .find(|(start, _)| error.starts_with(start))
        .map_or("json", |&(_, kind)| kind);
    (kind, None)
}

/// The valid UTF-8 prefix of the text, read as `_jsontext._scan` reads it.
struct Scanner<'a> {
    text: &'a [u8],
}

impl Scanner<'_> {
    fn end(&self) -> usize {
        self.text.len()
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.text.get(i).copied()
    }

    fn ws(&self, mut i: usize) -> usize {
        while matches!(self.at(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            i += 1;
        }
        i
    }

    /// Ok for a valid text, else the first error.
    fn scan(&self) -> Result<(), Found> {
        let mut stack: Vec<u8> = Vec::new(); // the opening brackets of open containers
        let mut i = self.ws(0);
        loop {
            // ---- a value starts at i (whitespace skipped)
            let c = self.at(i).ok_or((END, self.end()))?;
            match c {
                b'"' => i = self.string(i)?,
                b'-' | b'0'..=b'9' => i = self.number(i)?,
                b't' | b'f' | b'n' => i = self.literal(i)?,
                b'[' | b'{' => {
                    if stack.len() == MAX_DEPTH {
                        return Err((TOO_DEEP, i));
                    }
                    stack.push(c);
                    i = self.ws(i + 1);
                    if self.at(i) == Some(closer(c)) {
                        stack.pop();
                        i += 1;
                    } else if c == b'[' {
                        continue; // the first item
                    } else {
                        i = self.key(i)?;
                        continue; // the first member's value
                    }
                }
                _ => return Err((EXPECTED_VALUE, i)),
            }
            // ---- a value ended at i: close containers until one wants another item
            loop {
                i = self.ws(i);
                let Some(&top) = stack.last() else {
                    return match self.at(i) {
                        None => Ok(()),
                        Some(_) => Err((TRAILING, i)),
                    };
                };
                let c = self.at(i).ok_or((END, self.end()))?;
                if c == b',' {
                    i = self.ws(i + 1);
                    if top == b'{' {
                        i = self.key(i)?;
                    }
                    break; // the next value
                }
                if c != closer(top) {
                    let expected = if top == b'[' {
                        EXPECTED_ARRAY_SEP
                    } else {
                        EXPECTED_OBJECT_SEP
                    };
                    return Err((expected, i));
                }
                stack.pop();
                i += 1;
            }
        }
    }

    /// `"key" :` at i; where the value starts (whitespace skipped).
    fn key(&self, i: usize) -> Step {
        match self.at(i) {
            None => return Err((END, self.end())),
            Some(b'"') => {}
            Some(_) => return Err((EXPECTED_KEY, i)),
        }
        let i = self.ws(self.string(i)?);
        match self.at(i) {
            None => Err((END, self.end())),
            Some(b':') => Ok(self.ws(i + 1)),
            Some(_) => Err((EXPECTED_COLON, i)),
        }
    }

    /// The string whose opening quote is at i; the offset after it.
    fn string(&self, i: usize) -> Step {
        let mut j = i + 1;
        loop {
            match self.at(j) {
                None => return Err((END, self.end())),
                Some(b'"') => return Ok(j + 1),
                Some(b'\\') => j = self.escape(j)?,
                Some(0x00..=0x1f) => return Err((CONTROL, j)),
                Some(_) => j += 1,
            }
        }
    }

    /// The escape whose backslash is at j; the offset after it. An escaped surrogate is
    /// valid only as a high one directly followed by an escaped low one.
    fn escape(&self, j: usize) -> Step {
        match self.at(j + 1) {
            None => return Err((END, self.end())),
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => return Ok(j + 2),
            Some(b'u') => {}
            Some(_) => return Err((INVALID_ESCAPE, j + 1)),
        }
        let mut unit = 0;
        for k in j + 2..j + 6 {
            let c = self.at(k).ok_or((END, self.end()))?;
            unit = unit * 16 + hex(c).ok_or((INVALID_U_ESCAPE, k))?;
        }
        match unit {
            0xD800..=0xDBFF => {
                let low = (self.at(j + 6) == Some(b'\\') && self.at(j + 7) == Some(b'u'))
                    .then(|| (j + 8..j + 12).try_fold(0, |u, k| Some(u * 16 + hex(self.at(k)?)?)))
                    .flatten();
                match low {
                    Some(0xDC00..=0xDFFF) => Ok(j + 12),
                    _ => Err((LONE_SURROGATE, j)),
                }
            }
            0xDC00..=0xDFFF => Err((LONE_SURROGATE, j)),
            _ => Ok(j + 6),
        }
    }

    /// The number starting at i (`-` or a digit); the offset after it. As the pure
    /// twin's: the longest match of `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
    /// then a look at the byte after it.
    fn number(&self, i: usize) -> Step {
        let digits = |mut k: usize| {
            while matches!(self.at(k), Some(b'0'..=b'9')) {
                k += 1;
            }
            k
        };
        let is_digit = |k: usize| matches!(self.at(k), Some(b'0'..=b'9'));
        let mut k = i + usize::from(self.at(i) == Some(b'-'));
        match self.at(k) {
            Some(b'0') => k += 1,
            Some(b'1'..=b'9') => k = digits(k + 1),
            _ => return self.bad_number(k), // "-" not followed by a digit
        }
        let fraction = self.at(k) == Some(b'.') && is_digit(k + 1);
        if fraction {
            k = digits(k + 1);
        }
        let sign = usize::from(matches!(self.at(k + 1), Some(b'+' | b'-')));
        let exponent = matches!(self.at(k), Some(b'e' | b'E')) && is_digit(k + 1 + sign);
        if exponent {
            k = digits(k + 1 + sign);
        }
        match self.at(k) {
            Some(b'0'..=b'9') => Err((INVALID_NUMBER, k)), // only after a leading "0"
            Some(b'.') if !fraction => self.bad_number(k + 1),
            Some(b'e' | b'E') if !exponent => self.bad_number(k + 1 + sign),
            _ => Ok(k), // a complete number; what follows is the caller's business
        }
    }

    /// A number that stops at k, where its grammar needs a digit.
    fn bad_number(&self, k: usize) -> Step {
        if k >= self.end() {
            Err((END, self.end()))
        } else {
            Err((INVALID_NUMBER, k))
        }
    }

    /// `true`, `false` or `null` at i; the offset after it.
    fn literal(&self, i: usize) -> Step {
        let literal: &[u8] = match self.at(i) {
            Some(b't') => b"true",
            Some(b'f') => b"false",
            _ => b"null",
        };
        for (k, &expected) in (i..).zip(literal) {
            let c = self.at(k).ok_or((END, self.end()))?;
            if c != expected {
                return Err((INVALID_LITERAL, k));
            }
        }
        Ok(i + literal.len())
    }
}

fn closer(opener: u8) -> u8 {
    if opener == b'[' {
        b']'
    } else {
        b'}'
    }
}

fn hex(c: u8) -> Option<u32> {
    char::from(c).to_digit(16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// A case's text: a string, or pieces (a string, `{"$hex"}`, `{"$repeat", "times"}`).
    fn text_of(text: &Value) -> Vec<u8> {
        let piece = |piece: &Value| -> Vec<u8> {
            match piece {
                Value::String(text) => text.as_bytes().to_vec(),
                Value::Object(piece) => match (piece.get("$hex"), piece.get("$repeat")) {
                    (Some(Value::String(hex)), _) => (0..hex.len())
                        .step_by(2)
                        .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).unwrap())
                        .collect(),
                    (_, Some(Value::String(text))) => {
                        let times = piece["times"].as_u64().unwrap() as usize;
                        text.repeat(times).into_bytes()
                    }
                    _ => panic!("unknown piece {piece:?}"),
                },
                _ => panic!("unknown piece {piece:?}"),
            }
        };
        match text {
            Value::Array(pieces) => pieces.iter().flat_map(piece).collect(),
            text => piece(text),
        }
    }

    /// The shared vectors: the pure `error_for` wrote them, `describe` says the same.
    #[test]
    fn the_errors_of_the_vectors_are_the_pure_twins() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/vectors/json_errors.json"
        );
        let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
            .expect("the vectors are JSON");
        let cases = document["cases"].as_array().unwrap();
        assert!(cases.len() > 100, "{} cases", cases.len());
        let mut messages = std::collections::HashSet::new();
        for case in cases {
            let text = text_of(&case["text"]);
            let expected = match &case["error"] {
                Value::Null => None,
                error => Some(JsonError {
                    message: error[0].as_str().unwrap().to_owned(),
                    pos: error[1].as_u64().unwrap() as usize,
                }),
            };
            assert_eq!(describe(&text), expected, "{}", case["name"]);
            if let Some(expected) = expected {
                messages.insert(expected.message);
                // A valid text never reaches the error path; an invalid one is refused.
                assert!(crate::json::parse(&text).is_err(), "{}", case["name"]);
            }
        }
        // Every message of the spec has a case.
        assert_eq!(messages.len(), 16, "{messages:?}");
    }

    /// The shared vectors' `kinds`: the pure `error_kind` gave each, `error_kind` says
    /// the same (bulk::rows checks the records of the cases that have one).
    #[test]
    fn the_kinds_of_the_vectors_are_the_pure_twins() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/vectors/json_errors.json"
        );
        let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
            .expect("the vectors are JSON");
        let cases = document["kinds"].as_array().unwrap();
        assert!(cases.len() > 10, "{} cases", cases.len());
        for case in cases {
            let (kind, status) = error_kind(case["error"].as_str().unwrap());
            assert_eq!(kind, case["kind"], "{}", case["name"]);
            let expected = case["http_status"].as_i64().map(|s| s as i32);
            assert_eq!(status, expected, "{}", case["name"]);
        }
    }

    #[test]
    fn the_depth_message_names_the_limit() {
        assert_eq!(TOO_DEEP, format!("nesting deeper than {MAX_DEPTH}"));
    }

    #[test]
    fn a_text_the_parser_alone_refuses_keeps_the_parsers_error() {
        let parsed = JsonError {
            pos: 3,
            message: "document larger than 4 GiB".to_owned(),
        };
        assert_eq!(explained(b"[1]", parsed.clone()), parsed);
        let cut = explained(b"[1", parsed);
        assert_eq!((cut.message.as_str(), cut.pos), (END, 2));
    }
}
