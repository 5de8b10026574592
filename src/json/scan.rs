//! The hand-written pass ([`scan_plain`]) that reads most documents, as serde_json reads
//! them, handing what it reads to a [`Sink`]: the tape's tokens ([`TapeSink`]), or, in
//! the Python layer, Python objects built as the text is read. It leaves to serde_json
//! (`serde_fallback`) what it does not read: text that is not JSON, a lone surrogate
//! escape, nesting deeper than 128, a number beyond the float range.

use super::numbers::{number_end, number_token};
use super::strings::{escaped_string, run_end};
use super::tape::{container, Text, Token};

/// Containers nest at most this deep in what [`scan_plain`] reads (serde_json's own
/// default limit; pythonic arguments, up to 100 deep, fit: at 64, a 1 MB call of lists
/// nested 98 deep took serde's path, 70% of its parse).
pub(super) const PLAIN_DEPTH: usize = 128;

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The tokens of `text`, and the text they own (no larger than `text`: unescaping
/// never lengthens a string).
pub(super) fn plain_tokens(text: &str) -> Option<(Vec<Token>, String)> {
    let mut tokens = tape_sink(text);
    scan_plain(text, &mut tokens)?;
    Some((tokens.tokens, tokens.owned))
}

/// The tokens of the value `text` starts with, the text they own, and the index just
/// past the value: as [`plain_tokens`] reads `text[..end]`.
pub(super) fn first_value_tokens(text: &str) -> Option<(Vec<Token>, String, usize)> {
    let mut tokens = tape_sink(text);
    let end = scan_first(text, &mut tokens)?;
    Some((tokens.tokens, tokens.owned, end))
}

fn tape_sink(text: &str) -> TapeSink {
    TapeSink {
        tokens: Vec::with_capacity(text.len() / 8 + 4),
        owned: String::new(),
    }
}

/// What [`scan_plain`] hands the values it reads to, in the order of the text: the
/// tape's tokens ([`TapeSink`]), or, in the Python layer, Python objects built as the
/// text is read. Each method returns None to stop the scan (the sink says why).
pub trait Sink {
    /// What the sink keeps of a container while it is open.
    type Open;
    /// Where strings with escapes are unescaped to: the `Text::Owned` ranges handed
    /// to `key` and `value` are ranges of it.
    fn owned(&mut self) -> &mut String;
    /// An array or object starts.
    fn open(&mut self, object: bool) -> Option<Self::Open>;
    /// A key of the object `open`; its value follows.
    fn key(&mut self, open: &mut Self::Open, key: Text) -> Option<()>;
    /// A scalar or string value, in the container `parent` (None: the root).
    fn value(&mut self, parent: Option<&mut Self::Open>, value: Token) -> Option<()>;
    /// A number, `text` its JSON text (at `place` in the source), in the container
    /// `parent`: by default its token ([`number_token`]) handed to [`Sink::value`]; one
    /// beyond the float range stops the scan (serde_json writes the exponent of its text
    /// its own way: `parse` reads it).
    #[inline(always)]
    fn number(&mut self, parent: Option<&mut Self::Open>, text: &str, place: Text) -> Option<()> {
        match number_token(text, || place) {
            Token::HugeFloat(_) => None,
            token => self.value(parent, token),
        }
    }
    /// The container `open` ends with `len` items (or members), in `parent`.
    fn close(&mut self, open: Self::Open, len: u32, parent: Option<&mut Self::Open>) -> Option<()>;
}

/// The tape's tokens, as [`scan_plain`] reads them, and the text they own. An open
/// container is the index of its token, written when it closes.
struct TapeSink {
    tokens: Vec<Token>,
    owned: String,
}

impl Sink for TapeSink {
    type Open = (usize, bool);

    #[inline(always)]
    fn owned(&mut self) -> &mut String {
        &mut self.owned
    }

    #[inline(always)]
    fn open(&mut self, object: bool) -> Option<(usize, bool)> {
        self.tokens.push(Token::Null);
        Some((self.tokens.len() - 1, object))
    }

    #[inline(always)]
    fn key(&mut self, _: &mut (usize, bool), key: Text) -> Option<()> {
        self.tokens.push(Token::Str(key));
        Some(())
    }

    #[inline(always)]
    fn value(&mut self, _: Option<&mut (usize, bool)>, value: Token) -> Option<()> {
        self.tokens.push(value);
        Some(())
    }

    #[inline(always)]
    fn close(
        &mut self,
        (at, object): (usize, bool),
        len: u32,
        _: Option<&mut (usize, bool)>,
    ) -> Option<()> {
        self.tokens[at] = container(object, len, self.tokens.len());
        Some(())
    }
}

/// Reads `text` (of at most 4 GiB: strings are `u32` ranges of it) in one hand-written
/// pass, handing its values to `sink`. None for what it does not read: text that is not
/// JSON, a lone surrogate escape, nesting deeper than 128, a number beyond the float range
/// (serde_json reads those, and reports the errors); or where the sink stopped it.
pub fn scan_plain<S: Sink>(text: &str, sink: &mut S) -> Option<()> {
    let end = scan_first(text, sink)?;
    (skip_ws(text.as_bytes(), end) == text.len()).then_some(())
}

/// [`scan_plain`] of the first value of `text` (whitespace before it skipped), whatever
/// follows it: the index just past the value.
#[inline(always)]
fn scan_first<S: Sink>(text: &str, sink: &mut S) -> Option<usize> {
    let b = text.as_bytes();
    // The open containers: (what the sink keeps of them, items so far, is an object).
    // Room for the depth of most documents (a response's calls are ~8 deep), so that it
    // is allocated once, not grown twice.
    let mut open: Vec<(S::Open, u32, bool)> = Vec::with_capacity(16);
    let mut i = skip_ws(b, 0);
    loop {
        // A value at `i`.
        let value = match *b.get(i)? {
            c @ (b'{' | b'[') => {
                if open.len() >= PLAIN_DEPTH {
                    return None;
                }
                let object = c == b'{';
                let mut started = sink.open(object)?;
                i = skip_ws(b, i + 1);
                if b.get(i) != Some(if object { &b'}' } else { &b']' }) {
                    if object {
                        let (key, next) = plain_key(text, i, sink.owned())?;
                        sink.key(&mut started, key)?;
                        i = next;
                    }
                    open.push((started, 0, object));
                    continue;
                }
                i += 1;
                let parent = open.last_mut().map(|top| &mut top.0);
                sink.close(started, 0, parent)?;
                None
            }
            b'"' | b't' | b'f' | b'n' => {
                let (token, end) = plain_scalar(text, i, sink.owned())?;
                i = end;
                Some(token)
            }
            b'-' | b'0'..=b'9' => {
                let end = number_end(b, i)?;
                let place = Text::Source {
                    start: i as u32,
                    len: (end - i) as u32,
                };
                sink.number(open.last_mut().map(|top| &mut top.0), &text[i..end], place)?;
                i = end;
                None
            }
            _ => return None,
        };
        if let Some(value) = value {
            sink.value(open.last_mut().map(|top| &mut top.0), value)?;
        }
        // After a value: the next one in its container, or the container's end.
        loop {
            let Some(top) = open.last_mut() else {
                return Some(i);
            };
            i = skip_ws(b, i);
            top.1 += 1;
            let object = top.2;
            match *b.get(i)? {
                b',' => {
                    i = skip_ws(b, i + 1);
                    if object {
                        let (key, next) = plain_key(text, i, sink.owned())?;
                        sink.key(&mut top.0, key)?;
                        i = next;
                    }
                    break;
                }
                b'}' if object => {}
                b']' if !object => {}
                _ => return None,
            }
            i += 1;
            let (closed, len, _) = open.pop()?;
            sink.close(closed, len, open.last_mut().map(|top| &mut top.0))?;
        }
    }
}

/// The string or literal (`true`, `false`, `null`) at `i`, and the index past it.
#[inline(always)]
fn plain_scalar(text: &str, i: usize, owned: &mut String) -> Option<(Token, usize)> {
    let b = text.as_bytes();
    match b[i] {
        b'"' => {
            let (string, end) = plain_string(text, i, owned)?;
            Some((Token::Str(string), end))
        }
        b't' if b[i..].starts_with(b"true") => Some((Token::Bool(true), i + 4)),
        b'f' if b[i..].starts_with(b"false") => Some((Token::Bool(false), i + 5)),
        b'n' if b[i..].starts_with(b"null") => Some((Token::Null, i + 4)),
        _ => None,
    }
}

/// An object's key at `i`, then its colon: the key, and the index of the value after
/// them. Inlined (in the two places that read keys): a call cost a sixth of reading a
/// short key.
#[inline(always)]
fn plain_key(text: &str, i: usize, owned: &mut String) -> Option<(Text, usize)> {
    if text.as_bytes().get(i) != Some(&b'"') {
        return None;
    }
    let (key, end) = plain_string(text, i, owned)?;
    let colon = skip_ws(text.as_bytes(), end);
    (text.as_bytes().get(colon) == Some(&b':')).then(|| (key, skip_ws(text.as_bytes(), colon + 1)))
}

/// The string whose opening quote is at `i`, and the index past its closing quote
/// (unescaped onto `owned` if it has escapes). Inlined, the escapes apart: most strings
/// (nearly every key) have none, and the entry and exit of a call that can handle them
/// cost a third of reading a short key.
#[inline(always)]
fn plain_string(text: &str, i: usize, owned: &mut String) -> Option<(Text, usize)> {
    let b = text.as_bytes();
    let start = i + 1;
    let j = run_end(b, start);
    match b.get(j)? {
        b'"' => Some((
            Text::Source {
                start: start as u32,
                len: (j - start) as u32,
            },
            j + 1,
        )),
        b'\\' => escaped_string(text, start, j, owned),
        _ => None, // a control character
    }
}

/// The index just after the JSON container opening at `start` (a `{` or `[`) when it
/// closes before `end` (braces inside JSON strings do not count), else None. A string
/// is skipped a run at a time ([`run_end`]: sixteen bytes at a time to its next quote
/// or backslash), and an escape skips the byte after the backslash; nearly all of a
/// call object is its strings.
pub fn container_end(b: &[u8], start: usize, end: usize) -> Option<usize> {
    let b = &b[..end];
    let mut depth = 0usize;
    let mut i = start;
    while i < end {
        match b[i] {
            b'"' => {
                i += 1;
                loop {
                    i = run_end(b, i);
                    match b.get(i) {
                        None => return None, // the string does not end before `end`
                        Some(b'"') => break,
                        Some(b'\\') => {
                            i += 2; // the escaped byte is skipped too; and a run of escapes
                            while b.get(i) == Some(&b'\\') {
                                i += 2;
                            }
                        }
                        Some(_) => i += 1, // a control character: part of the string here
                    }
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.wrapping_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod container_tests {
    use super::container_end;

    #[test]
    fn braces_inside_strings_do_not_count() {
        let text = br#"{"a": "}{\"}"} tail"#;
        assert_eq!(container_end(text, 0, text.len()), Some(14));
        assert_eq!(container_end(b"{[}]", 0, 4), Some(4));
        assert_eq!(container_end(b"{\"a\": 1", 0, 7), None);
    }

    /// What `container_end` was before it skipped string runs: one byte at a time.
    fn by_bytes(b: &[u8], start: usize, end: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut in_string = false;
        let mut i = start;
        while i < end {
            let char = b[i];
            if in_string {
                if char == b'\\' {
                    i += 1;
                } else if char == b'"' {
                    in_string = false;
                }
            } else if char == b'"' {
                in_string = true;
            } else if matches!(char, b'{' | b'[') {
                depth += 1;
            } else if matches!(char, b'}' | b']') {
                depth = depth.wrapping_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            i += 1;
        }
        None
    }

    /// The same end as one byte at a time: from the first four opening brackets of
    /// every vector text (its first 400 bytes), to every end; and, to its end, with
    /// one byte changed (into bytes that end or escape strings, open or close
    /// containers, or a control character) every eleven bytes.
    #[test]
    fn string_runs_skipped_as_bytes_are() {
        let mut checked = 0;
        let mut check = |b: &[u8], every_end: bool| {
            let starts = (0..b.len()).filter(|&at| matches!(b[at], b'{' | b'['));
            for start in starts.take(4) {
                let ends = if every_end {
                    start..b.len()
                } else {
                    b.len()..b.len()
                };
                for end in ends.chain([b.len()]) {
                    assert_eq!(container_end(b, start, end), by_bytes(b, start, end));
                    checked += 1;
                }
            }
        };
        for text in crate::json::tests::vector_texts() {
            let mut bytes = text.into_bytes();
            bytes.truncate(400);
            check(&bytes, true);
            for at in (0..bytes.len()).step_by(11) {
                let kept = bytes[at];
                for byte in [b'"', b'\\', b'{', b']', 0x01] {
                    bytes[at] = byte;
                    check(&bytes, false);
                }
                bytes[at] = kept;
            }
        }
        assert!(checked > 100_000, "{checked}");
    }
}
