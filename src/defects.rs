//! Why argument text did not decode as a JSON object (its defect), and the audited
//! repairs of `repair="safe"`: the twin of `toolsift._pure.defects`, whose docstring
//! is the specification (the codes and the rules); both are checked on
//! `tests/vectors/defects.json`. Only text whose normal decoding failed comes here.
//!
//! The repaired text is decoded by the normal path ([`decode_object`]), the arbiter.
//! A leaf over `crate::json` and `crate::calls`.

use crate::calls::{decode_object, Arguments};
use crate::json::{self, Tape, Token};
use std::borrow::Cow;

/// The repair codes, in the order a call lists them (bit `i` of [`Repairs`] is
/// `REPAIRS[i]`).
pub const REPAIRS: [&str; 8] = [
    "double_encoded",
    "code_fence",
    "surrounding_text",
    "comments",
    "trailing_comma",
    "single_quotes",
    "python_literals",
    "control_chars",
];

const DOUBLE_ENCODED: u8 = 1;
const CODE_FENCE: u8 = 1 << 1;
const SURROUNDING_TEXT: u8 = 1 << 2;
const COMMENTS: u8 = 1 << 3;
const TRAILING_COMMA: u8 = 1 << 4;
const SINGLE_QUOTES: u8 = 1 << 5;
const PYTHON_LITERALS: u8 = 1 << 6;
const CONTROL_CHARS: u8 = 1 << 7;

/// Finish reasons that say a response hit its token limit.
pub const LIMIT_REASONS: [&str; 3] = ["length", "max_tokens", "MAX_TOKENS"];

/// JSON strings inside JSON strings are unwrapped at most this deep.
const MAX_UNWRAP: usize = 4;

/// A set of repairs made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Repairs(u8);

impl Repairs {
    /// Their codes, in [`REPAIRS`] order.
    pub fn codes(self) -> impl Iterator<Item = &'static str> {
        REPAIRS
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, code)| code)
    }

    /// The first code (the defect of text these repairs make an object).
    fn first(self) -> &'static str {
        self.codes().next().unwrap_or("not_json")
    }
}

/// What a text that did not decode as an object is: its defect, and where the repairs
/// make it one, the object (decoded from the repaired text) and the repairs.
#[derive(Debug)]
pub struct Salvage {
    pub defect: &'static str,
    pub repaired: Option<(Tape<'static>, Repairs)>,
}

impl Salvage {
    /// A defect with no repair.
    pub fn defect(defect: &'static str) -> Salvage {
        Salvage {
            defect,
            repaired: None,
        }
    }
}

/// `truncated_by_limit` for text `truncated` in a response whose finish reason says it
/// hit the token limit; any other defect as it is.
pub fn by_limit<'d>(defect: &'d str, finish_reason: Option<&str>) -> &'d str {
    match finish_reason {
        Some(reason) if defect == "truncated" && LIMIT_REASONS.contains(&reason) => {
            "truncated_by_limit"
        }
        _ => defect,
    }
}

/// The defect of argument text that did not decode as an object, and its repair.
pub fn salvage(text: &str) -> Salvage {
    salvage_within(text, MAX_UNWRAP)
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn trim(text: &str) -> &str {
    text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
}

fn salvage_within(text: &str, unwrap: usize) -> Salvage {
    let body = trim(text);
    if body.is_empty() {
        return Salvage::defect("empty");
    }
    let Ok(tape) = json::parse_str(body) else {
        return lenient(body);
    };
    match &tape.tokens[0] {
        // Valid, yet not decoded: an integer longer than Python converts.
        Token::Object { .. } => Salvage::defect("too_long_int"),
        Token::Str(inner) if unwrap > 0 => {
            let inner = tape.text(inner);
            if let Arguments::Decoded(object) = decode_object(Cow::Owned(inner.to_owned())) {
                return Salvage {
                    defect: "double_encoded",
                    repaired: Some((object, Repairs(DOUBLE_ENCODED))),
                };
            }
            match salvage_within(inner, unwrap - 1).repaired {
                Some((object, repairs)) => Salvage {
                    defect: "double_encoded",
                    repaired: Some((object, Repairs(repairs.0 | DOUBLE_ENCODED))),
                },
                None => Salvage::defect("not_an_object"),
            }
        }
        _ => Salvage::defect("not_an_object"),
    }
}

/// Why [`Reader`] stopped short of a value.
enum Stop {
    /// The text ends inside the value.
    Cut,
    /// Something the rules do not read (or read two ways).
    Unread,
}

fn lenient(text: &str) -> Salvage {
    let mut codes = 0;
    let mut body = text;
    if let Some(inner) = unfenced(body) {
        codes |= CODE_FENCE;
        body = inner;
    }
    let bytes = body.as_bytes();
    let start = if bytes.first() == Some(&b'"') {
        Some(0) // a JSON string: only its end matters (cut, or not JSON)
    } else {
        bytes.iter().position(|&b| b == b'{' || b == b'[')
    };
    let Some(start) = start else {
        return Salvage::defect("not_json");
    };
    let mut reader = Reader {
        text: bytes,
        at: start,
        codes,
        out: Vec::with_capacity(body.len() + 16),
    };
    let mut end = match reader.value() {
        Ok(end) => end,
        Err(Stop::Cut) => return Salvage::defect("truncated"),
        Err(Stop::Unread) => return Salvage::defect("not_json"),
    };
    if bytes[start] != b'{' {
        return Salvage::defect("not_json");
    }
    if end < bytes.len() && reader.blank_end(end) == bytes.len() {
        if !trim(&body[end..]).is_empty() {
            reader.codes |= COMMENTS; // comments after the object
        }
        end = bytes.len();
    }
    let (before, after) = (&body[..start], &body[end..]);
    if !trim(before).is_empty() || !trim(after).is_empty() {
        let bracket = |s: &str| s.bytes().any(|b| matches!(b, b'{' | b'}' | b'[' | b']'));
        if bracket(before) || bracket(after) {
            return Salvage::defect("not_json");
        }
        reader.codes |= SURROUNDING_TEXT;
    }
    let repairs = Repairs(reader.codes);
    if repairs.0 == 0 {
        return Salvage::defect("not_json");
    }
    // Only ASCII was written between copies of whole UTF-8 sequences.
    let Ok(repaired) = String::from_utf8(reader.out) else {
        return Salvage::defect("not_json");
    };
    match decode_object(Cow::Owned(repaired)) {
        Arguments::Decoded(object) => Salvage {
            defect: repairs.first(),
            repaired: Some((object.into_owned(), repairs)),
        },
        _ => Salvage::defect("not_json"),
    }
}

/// The text inside a Markdown code fence that is all of `body`, trimmed.
fn unfenced(body: &str) -> Option<&str> {
    const FENCE: &str = "```";
    let line_end = body.find('\n')?;
    if !body.starts_with(FENCE) || !body.ends_with(FENCE) {
        return None;
    }
    let tag = body[FENCE.len()..line_end].trim_matches(|c| matches!(c, ' ' | '\t' | '\r'));
    let is_tag = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-');
    if !tag.bytes().all(is_tag) || line_end + 1 > body.len() - FENCE.len() {
        return None;
    }
    let inner = &body[line_end + 1..body.len() - FENCE.len()];
    if inner.contains(FENCE) {
        return None;
    }
    Some(trim(inner))
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_number(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-')
}

/// Reads one value from `at` by the lenient rules, writing strict JSON text to `out`
/// and the repairs made to `codes`.
struct Reader<'t> {
    text: &'t [u8],
    at: usize,
    codes: u8,
    out: Vec<u8>,
}

impl<'t> Reader<'t> {
    /// Reads the value (a string, or brackets to the one that closes the first); the
    /// index just past it.
    fn value(&mut self) -> Result<usize, Stop> {
        let mut depth: usize = 0;
        // The last token written (`w` a word, `n` a number): a trailing comma follows a
        // value, and a value never follows one.
        let mut last = b' ';
        loop {
            let Some(&c) = self.text.get(self.at) else {
                return Err(Stop::Cut);
            };
            if is_space(c) {
                self.out.push(c);
                self.at += 1;
                continue;
            }
            let starts_value = matches!(c, b'"' | b'\'' | b'{' | b'[' | b'-') || is_word(c);
            if matches!(last, b'"' | b'w' | b'n' | b'}' | b']') && starts_value {
                return Err(Stop::Unread); // a separator is missing
            }
            match c {
                b'"' | b'\'' => {
                    self.string(c)?;
                    last = b'"';
                }
                b'/' => {
                    self.comment()?;
                    self.out.push(b' ');
                    continue;
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.out.push(c);
                    self.at += 1;
                    last = c;
                }
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    self.out.push(c);
                    self.at += 1;
                    last = c;
                }
                b',' => {
                    self.at += 1;
                    if !matches!(last, b' ' | b'{' | b'[' | b',' | b':') && self.closes_next() {
                        self.codes |= TRAILING_COMMA;
                        continue;
                    }
                    self.out.push(c);
                    last = c;
                }
                b':' => {
                    self.out.push(c);
                    self.at += 1;
                    last = c;
                }
                _ if is_word(c) && !c.is_ascii_digit() => {
                    let (word, python): (&[u8], bool) = match self.run(is_word) {
                        b"True" => (b"true", true),
                        b"False" => (b"false", true),
                        b"None" => (b"null", true),
                        b"true" => (b"true", false),
                        b"false" => (b"false", false),
                        b"null" => (b"null", false),
                        _ => return Err(Stop::Unread),
                    };
                    if python {
                        self.codes |= PYTHON_LITERALS;
                    }
                    self.out.extend_from_slice(word);
                    last = b'w';
                }
                _ if c.is_ascii_digit() || c == b'-' => {
                    let number = self.run(is_number);
                    self.out.extend_from_slice(number);
                    last = b'n';
                }
                _ => return Err(Stop::Unread),
            }
            if depth == 0 {
                return Ok(self.at);
            }
        }
    }

    fn run(&mut self, part: fn(u8) -> bool) -> &'t [u8] {
        let start = self.at;
        while self.text.get(self.at).is_some_and(|&b| part(b)) {
            self.at += 1;
        }
        &self.text[start..self.at]
    }

    /// A string in `quote`s, written in double quotes.
    fn string(&mut self, quote: u8) -> Result<(), Stop> {
        if quote == b'\'' {
            self.codes |= SINGLE_QUOTES;
        }
        self.out.push(b'"');
        self.at += 1;
        loop {
            let Some(&c) = self.text.get(self.at) else {
                return Err(Stop::Cut);
            };
            if c == quote {
                self.out.push(b'"');
                self.at += 1;
                return Ok(());
            }
            match c {
                b'\\' => {
                    let Some(&escaped) = self.text.get(self.at + 1) else {
                        return Err(Stop::Cut);
                    };
                    if quote == b'\'' && escaped == b'\'' {
                        self.out.push(b'\'');
                        self.at += 2;
                    } else if escaped < 0x80 {
                        // The escape as written: the decoding checks it.
                        self.out.extend_from_slice(&[b'\\', escaped]);
                        self.at += 2;
                    } else {
                        // A multi-byte character after it: copied whole by the next steps.
                        self.out.push(b'\\');
                        self.at += 1;
                    }
                    continue;
                }
                // Inside '...': the end of a string read the other way?
                b'"' => return Err(Stop::Unread),
                0..=0x1f => {
                    self.codes |= CONTROL_CHARS;
                    match c {
                        0x08 => self.out.extend_from_slice(b"\\b"),
                        0x0c => self.out.extend_from_slice(b"\\f"),
                        b'\n' => self.out.extend_from_slice(b"\\n"),
                        b'\r' => self.out.extend_from_slice(b"\\r"),
                        b'\t' => self.out.extend_from_slice(b"\\t"),
                        _ => self.out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
                    }
                }
                _ => self.out.push(c),
            }
            self.at += 1;
        }
    }

    /// A `//` or `/* */` comment, skipped.
    fn comment(&mut self) -> Result<(), Stop> {
        let rest = &self.text[self.at..];
        if rest.starts_with(b"//") {
            let len = rest
                .iter()
                .position(|&b| b == b'\n' || b == b'\r')
                .unwrap_or(rest.len());
            self.at += len;
        } else if rest.starts_with(b"/*") {
            let close = find(&rest[2..], b"*/").ok_or(Stop::Cut)?;
            self.at += 2 + close + 2;
        } else {
            return Err(Stop::Unread);
        }
        self.codes |= COMMENTS;
        Ok(())
    }

    /// Whether `}` or `]` comes next, after whitespace and comments.
    fn closes_next(&self) -> bool {
        let at = self.blank_end(self.at);
        matches!(self.text.get(at), Some(b'}' | b']'))
    }

    /// Where the whitespace and comments from `at` end (read without moving on, or
    /// recording them); at a block comment never closed, that comment's start.
    fn blank_end(&self, mut at: usize) -> usize {
        let text = self.text;
        while at < text.len() {
            let rest = &text[at..];
            if is_space(rest[0]) {
                at += 1;
            } else if rest.starts_with(b"//") {
                at += rest
                    .iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .unwrap_or(rest.len());
            } else if let Some(close) = rest
                .starts_with(b"/*")
                .then(|| find(&rest[2..], b"*/"))
                .flatten()
            {
                at += 2 + close + 2;
            } else {
                break;
            }
        }
        at
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The shared vectors: the pure `salvage` wrote them, the twin says the same.
    #[test]
    fn the_defects_and_repairs_of_the_vectors_are_the_pure_twins() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/defects.json");
        let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
            .expect("the vectors are JSON");
        let cases = document["cases"].as_array().unwrap();
        assert!(cases.len() > 50, "{} cases", cases.len());
        for case in cases {
            let name = &case["name"];
            let found = salvage(&text_of(&case["text"]));
            assert_eq!(found.defect, case["defect"].as_str().unwrap(), "{name}");
            let repairs: Vec<&str> = found
                .repaired
                .as_ref()
                .map_or(Vec::new(), |(_, r)| r.codes().collect());
            let expected: Vec<&str> = case["repairs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|code| code.as_str().unwrap())
                .collect();
            assert_eq!(repairs, expected, "{name}");
            let arguments = found.repaired.map(|(tape, _)| {
                let mut text = String::new();
                crate::compact::write_arguments(&tape, 0, &mut text);
                serde_json::from_str::<Value>(&text).unwrap()
            });
            assert_eq!(
                arguments.unwrap_or(Value::Null),
                case["arguments"],
                "{name}"
            );
        }
    }

    /// A case's text: a string, or pieces put end to end (a string, or
    /// `{"$repeat": "...", "times": N}`).
    fn text_of(pieces: &Value) -> String {
        match pieces {
            Value::String(text) => text.clone(),
            Value::Array(pieces) => pieces
                .iter()
                .map(|piece| match piece {
                    Value::String(text) => text.clone(),
                    repeat => repeat["$repeat"]
                        .as_str()
                        .unwrap()
                        .repeat(repeat["times"].as_u64().unwrap() as usize),
                })
                .collect(),
            other => panic!("a text: {other}"),
        }
    }

    #[test]
    fn truncated_by_the_token_limit() {
        assert_eq!(by_limit("truncated", Some("length")), "truncated_by_limit");
        assert_eq!(
            by_limit("truncated", Some("MAX_TOKENS")),
            "truncated_by_limit"
        );
        assert_eq!(by_limit("truncated", Some("stop")), "truncated");
        assert_eq!(by_limit("truncated", None), "truncated");
        assert_eq!(by_limit("not_json", Some("length")), "not_json");
    }
}
