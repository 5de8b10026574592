//! Text of a stream cut anywhere, split into the JSON text of its events: server-sent
//! events ([`Sse`]) and JSON values back to back ([`JsonValues`]). A leaf over
//! [`crate::json`]; the twin of `python/toolsift/_pure/framing.py`.

use crate::json;
use crate::partial::is_ws;

/// Server-sent-event text, fed in chunks cut anywhere: the `data` of each complete
/// event; lines end at CRLF, LF or CR (see `Sse` in the Python twin).
#[derive(Default, Debug)]
pub struct Sse {
    /// The start of a line whose end has not come yet.
    pending: Vec<u8>,
    /// The last chunk ended with a CR: an LF next ends no line.
    after_cr: bool,
    /// The event's `data:` lines so far, joined with `\n`; `has_data` where there is one.
    data: Vec<u8>,
    has_data: bool,
}

impl Sse {
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Vec<u8>> {
        let mut chunk = chunk;
        if self.after_cr && chunk.first() == Some(&b'\n') {
            chunk = &chunk[1..];
            self.after_cr = false;
        }
        if let Some(&last) = chunk.last() {
            self.after_cr = last == b'\r';
        }
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(n) = memchr::memchr2(b'\n', b'\r', &chunk[start..]) {
            let end = start + n;
            let piece = &chunk[start..end];
            if self.pending.is_empty() {
                self.line(piece, &mut events);
            } else {
                // A line begun in an earlier chunk.
                let mut line = std::mem::take(&mut self.pending);
                line.extend_from_slice(piece);
                self.line(&line, &mut events);
                line.clear();
                self.pending = line;
            }
            start = end + 1;
            if chunk[end] == b'\r' && chunk.get(start) == Some(&b'\n') {
                start += 1; // CRLF: one line end
            }
        }
        self.pending.extend_from_slice(&chunk[start..]);
        events
    }

    /// The last event, where the text ended without its empty line.
    pub fn end(&mut self) -> Vec<Vec<u8>> {
        let mut events = Vec::new();
        let pending = std::mem::take(&mut self.pending);
        if !pending.is_empty() {
            self.line(&pending, &mut events);
        }
        self.line(b"", &mut events);
        events
    }

    fn line(&mut self, line: &[u8], events: &mut Vec<Vec<u8>>) {
        if line.is_empty() {
            if self.has_data {
                self.has_data = false;
                let data = std::mem::take(&mut self.data);
                if data.trim_ascii() != b"[DONE]" {
                    events.push(data);
                }
            }
            return;
        }
        if let Some(value) = line.strip_prefix(b"data:") {
            if self.has_data {
                self.data.push(b'\n');
            }
            self.data
                .extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
            self.has_data = true;
        }
        // `event:`, `id:`, `retry:` and `:` comments: the event's type is in its data.
    }
}

/// The bytes that may begin a JSON value.
const VALUE_FIRST: &[u8] = b"{[\"-0123456789tfn";

/// A UTF-8 byte order mark: not JSON (`parse` says so by name).
const BOM: &[u8] = b"\xef\xbb\xbf";

/// JSON text that is not SSE, fed in chunks cut anywhere (an Ollama NDJSON body, a
/// Gemini REST stream's JSON array): the text of each value once it is complete, and of
/// each object directly in an array as it completes, the array itself then only where
/// it is not JSON (see `JsonValues` in the Python twin for the rules).
#[derive(Default, Debug)]
pub struct JsonValues {
    text: Vec<u8>,
    /// Where the open value begins (or, with none open, the next one).
    start: usize,
    /// How far the open value was read.
    scanned: usize,
    /// The open value's brackets not yet closed.
    depth: usize,
    in_string: bool,
    /// A value has begun (its first byte, at `start`, tells its kind).
    open: bool,
    /// Where the open array's open object begins (an array's objects are given as they
    /// come).
    item: Option<usize>,
}

impl JsonValues {
    /// No value begun, and no text kept.
    pub fn idle(&self) -> bool {
        !self.open && self.start == self.text.len()
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        // Drop what was given already: once a chunk, not once a value.
        if self.start > 0 {
            self.text.drain(..self.start);
            self.scanned -= self.start;
            if let Some(item) = &mut self.item {
                *item -= self.start;
            }
            self.start = 0;
        }
        self.text.extend_from_slice(chunk);
    }

    /// The next complete value's text, or None where none is complete yet.
    pub fn next_value(&mut self) -> Option<Vec<u8>> {
        while let Some((value, objects_given)) = self.scan() {
            if !objects_given || json::parse(&value).is_err() {
                return Some(value);
            }
        }
        None
    }

    /// The value left open where the text ended (a number, or a value cut off; not an
    /// array, whose objects were given).
    pub fn end(&mut self) -> Option<Vec<u8>> {
        if !self.open {
            // Where text is kept, a byte order mark cut short.
            let rest = self.text[self.start..].to_vec();
            self.start = self.text.len();
            self.scanned = self.start;
            return (!rest.is_empty()).then_some(rest);
        }
        let (value, objects_given) = self.take(self.text.len());
        (!objects_given).then_some(value)
    }

    /// The next complete value or object in an array ([`Self::next_value`]), and
    /// whether it is an array whose objects were given.
    fn scan(&mut self) -> Option<(Vec<u8>, bool)> {
        let len = self.text.len();
        if !self.open {
            let Some(first) = self.text[self.start..].iter().position(|&b| !is_ws(b)) else {
                self.start = len;
                self.scanned = len;
                return None;
            };
            self.start += first;
            let byte = self.text[self.start];
            if !VALUE_FIRST.contains(&byte) {
                // Not JSON, whatever follows: given now, alone; a byte order mark whole
                // (so that reading it says what it is, as `parse` does).
                let mark = &self.text[self.start..len.min(self.start + BOM.len())];
                if mark != BOM && BOM.starts_with(mark) {
                    self.scanned = self.start;
                    return None; // the rest of it may come
                }
                let size = if mark == BOM { BOM.len() } else { 1 };
                return Some(self.take(self.start + size));
            }
            self.open = true;
            self.scanned = self.start + 1;
            self.in_string = byte == b'"';
            self.depth = usize::from(matches!(byte, b'{' | b'['));
        }
        let first = self.text[self.start];
        // A number or a literal: neither a container nor a string.
        let scalar = !matches!(first, b'{' | b'[' | b'"');
        let array = first == b'[';
        let mut at = self.scanned;
        loop {
            if self.in_string {
                let Some(n) = memchr::memchr2(b'"', b'\\', &self.text[at..]) else {
                    self.scanned = len;
                    return None;
                };
                let found = at + n;
                if self.text[found] == b'\\' {
                    if found + 1 == len {
                        self.scanned = found; // its escape is still to come
                        return None;
                    }
                    at = found + 2;
                    continue;
                }
                at = found + 1;
                self.in_string = false;
                if self.depth == 0 {
                    return Some(self.take(at));
                }
            } else if scalar {
                let Some(n) = self.text[at..].iter().position(|&b| is_ws(b)) else {
                    self.scanned = len;
                    return None;
                };
                return Some(self.take(at + n));
            } else {
                let brackets = |b: &u8| matches!(b, b'"' | b'{' | b'}' | b'[' | b']');
                let Some(n) = self.text[at..].iter().position(brackets) else {
                    self.scanned = len;
                    return None;
                };
                let byte = self.text[at + n];
                at += n + 1;
                match byte {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => {
                        self.depth += 1;
                        if array && self.depth == 2 && byte == b'{' {
                            self.item = Some(at - 1);
                        }
                    }
                    _ => {
                        self.depth -= 1;
                        if self.depth == 1 {
                            if let Some(item) = self.item.take() {
                                // An object in the array.
                                self.scanned = at;
                                return Some((self.text[item..at].to_vec(), false));
                            }
                        }
                        if self.depth == 0 {
                            return Some(self.take(at));
                        }
                    }
                }
            }
        }
    }

    fn take(&mut self, end: usize) -> (Vec<u8>, bool) {
        let array = self.text[self.start] == b'[';
        let value = (self.text[self.start..end].to_vec(), array);
        self.start = end;
        self.scanned = end;
        self.open = false;
        self.in_string = false;
        self.item = None;
        self.depth = 0;
        value
    }
}

/// Text that starts with a server-sent-event field (or with the start of one: a chunk
/// may be cut inside `data:`) begins an SSE stream.
pub fn starts_sse(data: &[u8]) -> bool {
    let data = data.trim_ascii_start();
    !data.is_empty()
        && [&b"data:"[..], b"event:", b"id:", b"retry:", b":"]
            .iter()
            .any(|field| data.starts_with(field) || field.starts_with(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_keeps_a_character_cut_between_chunks() {
        let text = "data: {\"a\":\"é\"}\n\n".as_bytes();
        let mut sse = Sse::default();
        let cut = text.iter().position(|&b| b >= 0x80).unwrap() + 1;
        assert!(sse.feed(&text[..cut]).is_empty());
        assert_eq!(
            sse.feed(&text[cut..]),
            vec![b"{\"a\":\"\xc3\xa9\"}".to_vec()]
        );
    }

    #[test]
    fn sse_lines_end_at_lf_crlf_or_cr_however_the_text_is_cut() {
        let text = b"event: e\rdata: 1\r\ndata: 2\r\rdata: 3\n\r\n: c\r\rdata: 4";
        let expected = vec![b"1\n2".to_vec(), b"3".to_vec(), b"4".to_vec()];
        for size in 1..=text.len() {
            let mut sse = Sse::default();
            let mut found: Vec<Vec<u8>> = Vec::new();
            for piece in text.chunks(size) {
                found.extend(sse.feed(piece));
            }
            found.extend(sse.end());
            assert_eq!(found, expected, "pieces of {size}");
        }
    }

    /// Every value of `text`, fed in pieces of `size` bytes, then the one left open.
    fn values_of(text: &[u8], size: usize) -> Vec<Vec<u8>> {
        let mut values = JsonValues::default();
        let mut found = Vec::new();
        for piece in text.chunks(size) {
            values.feed(piece);
            while let Some(value) = values.next_value() {
                found.push(value);
            }
        }
        found.extend(values.end());
        found
    }

    #[test]
    fn json_values_are_the_same_however_the_text_is_cut() {
        let text = "{\"a\":\"}\\\"{é\"}\n[1,{\"b\":[]},[{}]][1 {}]{}\r\n\"s \\\" ]\" 12 true\t-0.5e+3 x y\n[{\"c\":{}},{";
        let expected: Vec<&[u8]> = vec![
            b"{\"a\":\"}\\\"{\xc3\xa9\"}",
            b"{\"b\":[]}", // an object in an array: given as it completes (the array is JSON)
            b"{}",
            b"[1 {}]", // an array that is not JSON: given too, after its object, to raise
            b"{}",
            b"\"s \\\" ]\"",
            b"12",
            b"true",
            b"-0.5e+3",
            b"x",
            b"y",
            b"{\"c\":{}}", // then the array is left open: not given (its objects were)
        ];
        for size in 1..=text.len() {
            assert_eq!(
                values_of(text.as_bytes(), size),
                expected,
                "pieces of {size}"
            );
        }
    }
}
