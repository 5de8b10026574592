//! Streams of tool-call events assembled into calls: the twin of
//! `python/toolsift/_pure/stream.py` (its docstring states the rules).
//!
//! Written once for every format: the [`Sse`] splitter, [`partial_json`], the
//! [`Accumulator`] of fragments (names and ids set once, arguments appended to one
//! buffer, so feeding costs linear time) and [`Stream`]. How a format's events map onto
//! the accumulator is its module's `stream_event`, reached through the registry.

use crate::calls::{decode_object, Arguments};
use crate::formats::{JsonOptions, Walked};
use crate::json::{self, JsonError};
use crate::node::{Node, TapeNode};
use std::borrow::Cow;
use std::collections::HashMap;

/// Where a call sits in the provider's order: (choice or block group, index).
pub type Key = (i64, i64);

/// A whole arguments value: a string as it is, any other value as its JSON text.
#[derive(Clone, Debug)]
pub enum Whole {
    Text(String),
    Json(String),
}

/// One call being assembled.
#[derive(Debug)]
pub struct Slot {
    pub key: Key,
    /// The provider's item id, where calls are found by it too.
    pub item: Option<String>,
    pub name: Option<String>,
    pub id: Option<String>,
    pub text: String,
    pub whole: Option<Whole>,
    pub verbatim: bool,
    pub done: bool,
}

impl Slot {
    fn new(key: Key, item: Option<String>) -> Self {
        Slot {
            key,
            item,
            name: None,
            id: None,
            text: String::new(),
            whole: None,
            verbatim: false,
            done: false,
        }
    }

    /// Set once: the first non-empty string.
    pub fn set_name<N: Node>(&mut self, name: Option<N>) {
        if self.name.is_none() {
            self.name = name.and_then(|n| n.text()).filter(|n| !n.is_empty());
        }
    }

    /// Set once: the first non-empty string.
    pub fn set_id<N: Node>(&mut self, id: Option<N>) {
        if self.id.is_none() {
            self.id = id.and_then(|n| n.text()).filter(|n| !n.is_empty());
        }
    }

    /// An argument fragment (a string; anything else is ignored).
    pub fn append<N: Node>(&mut self, fragment: Option<N>) {
        if let Some(text) = fragment.and_then(|f| f.text()) {
            self.text.push_str(&text);
        }
    }

    /// The whole argument text (a `.done` event's): it replaces the fragments.
    pub fn set_text<N: Node>(&mut self, text: Option<N>) {
        if let Some(text) = text.and_then(|t| t.text()) {
            self.text = text;
        }
    }

    /// The whole arguments value (an object, or the whole text); fragments, where any
    /// came, stay ahead of it.
    pub fn set_whole<N: Node>(&mut self, value: Option<N>) -> Result<(), N::Error> {
        if let Some(value) = value {
            self.whole = Some(match value.text() {
                Some(text) => Whole::Text(text),
                None => Whole::Json(value.to_json()?),
            });
        }
        Ok(())
    }

    /// The call as assembled so far (arguments decoded as `parse` decodes them).
    pub fn call(&self) -> StreamCall<'_> {
        let (text, is_text) = if !self.text.is_empty() {
            (Some(self.text.as_str()), true)
        } else {
            match &self.whole {
                Some(Whole::Text(text)) => (Some(text.as_str()), true),
                Some(Whole::Json(json)) => (Some(json.as_str()), false),
                None => (None, false),
            }
        };
        let arguments = match text {
            None => Arguments::Missing,
            Some(text) if self.verbatim && is_text => Arguments::Undecodable(Cow::Borrowed(text)),
            Some("") => Arguments::Missing, // a tool with no arguments
            Some(text) => decode_object(Cow::Borrowed(text)),
        };
        StreamCall {
            name: self.name.as_deref(),
            id: self.id.as_deref(),
            arguments,
            raw: None,
        }
    }

    /// [`Slot::call`], with arguments still arriving decoded as far as they are complete.
    pub fn partial_call(&self) -> StreamCall<'_> {
        let call = self.call();
        let Arguments::Undecodable(Cow::Borrowed(text)) = call.arguments else {
            return call;
        };
        let is_text = !self.text.is_empty() || matches!(self.whole, Some(Whole::Text(_)));
        if self.done || self.verbatim || !is_text {
            return call;
        }
        let mut closed = partial_json(text);
        if closed.is_empty() {
            closed.push_str("{}");
        }
        let arguments = match decode_object(Cow::Owned(closed)) {
            decoded @ Arguments::Decoded(_) => decoded,
            _ => Arguments::Missing,
        };
        StreamCall {
            arguments,
            raw: Some(text),
            ..call
        }
    }
}

/// A call of a stream: as [`crate::calls::Call`], and, for a call in progress, its
/// argument text (kept in `raw_arguments`) beside the arguments decoded so far.
pub struct StreamCall<'a> {
    pub name: Option<&'a str>,
    pub id: Option<&'a str>,
    pub arguments: Arguments<'a>,
    pub raw: Option<&'a str>,
}

/// The calls of one stream, keyed the provider's way.
#[derive(Default, Debug)]
pub struct Accumulator {
    pub slots: Vec<Slot>,
    by_key: HashMap<Key, usize>,
    /// The calls completed by the event being read, in order.
    pub done_now: Vec<usize>,
    serial: i64,
    /// For formats to find calls by their own rules: a key to the call it now means,
    /// and the latest call of each group.
    pub routes: HashMap<Key, usize>,
    pub latest: HashMap<i64, usize>,
}

impl Accumulator {
    /// The call at `key` (made if new).
    pub fn slot(&mut self, key: Key, item: Option<String>) -> usize {
        match self.by_key.get(&key) {
            Some(&found) => {
                let slot = &mut self.slots[found];
                if slot.item.is_none() {
                    slot.item = item;
                }
                found
            }
            None => {
                self.slots.push(Slot::new(key, item));
                self.by_key.insert(key, self.slots.len() - 1);
                self.slots.len() - 1
            }
        }
    }

    pub fn existing(&self, key: Key) -> Option<usize> {
        self.by_key.get(&key).copied()
    }

    /// The call of group `major` with this id, if one was started.
    pub fn by_id(&self, major: i64, id: &str) -> Option<usize> {
        self.slots
            .iter()
            .position(|slot| slot.key.0 == major && slot.id.as_deref() == Some(id))
    }

    /// The call with this provider item id, if one was started.
    pub fn by_item(&self, item: &str) -> Option<usize> {
        self.slots
            .iter()
            .position(|slot| slot.item.as_deref() == Some(item))
    }

    /// A key after every other one of `major` (a call with no index of its own).
    pub fn new_key(&self, major: i64) -> Key {
        let last = self
            .by_key
            .keys()
            .filter(|k| k.0 == major)
            .map(|k| k.1)
            .max();
        (major, last.map_or(0, |last| last + 1))
    }

    /// A call that arrived whole (Gemini, Ollama): started and completed at once.
    pub fn whole_call<N: Node>(
        &mut self,
        name: Option<N>,
        id: Option<N>,
        arguments: Option<N>,
        verbatim: bool,
    ) -> Result<(), N::Error> {
        let at = self.slot((-1, self.serial), None);
        self.serial += 1;
        let slot = &mut self.slots[at];
        slot.set_name(name);
        slot.set_id(id);
        slot.set_whole(arguments)?;
        slot.verbatim = verbatim;
        self.complete(at);
        Ok(())
    }

    pub fn complete(&mut self, at: usize) {
        if !self.slots[at].done {
            self.slots[at].done = true;
            self.done_now.push(at);
        }
    }

    /// Every call (of group `major`, where given) not completed yet, in key order.
    pub fn complete_all(&mut self, major: Option<i64>) {
        for at in self.ordered() {
            if major.is_none_or(|major| self.slots[at].key.0 == major) {
                self.complete(at);
            }
        }
    }

    /// The calls in the provider's order: by key (stable: then by arrival).
    pub fn ordered(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.slots.len()).collect();
        order.sort_by_key(|&at| self.slots[at].key);
        order
    }
}

/// An index: an integer (not a bool).
pub fn index_of<N: Node>(value: Option<N>) -> Option<i64> {
    value.and_then(|v| v.int())
}

/// Server-sent-event text, fed in chunks cut anywhere: the `data` of each complete
/// event (see `Sse` in the Python twin).
#[derive(Default, Debug)]
pub struct Sse {
    pending: Vec<u8>,
    data: Vec<Vec<u8>>,
}

impl Sse {
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Vec<u8>> {
        self.pending.extend_from_slice(chunk);
        let mut events = Vec::new();
        let Some(last) = self.pending.iter().rposition(|&b| b == b'\n') else {
            return events;
        };
        let rest = self.pending.split_off(last + 1);
        let complete = std::mem::replace(&mut self.pending, rest);
        for line in complete[..last].split(|&b| b == b'\n') {
            self.line(line.strip_suffix(b"\r").unwrap_or(line), &mut events);
        }
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
            if !self.data.is_empty() {
                let data = std::mem::take(&mut self.data).join(&b'\n');
                if data.trim_ascii() != b"[DONE]" {
                    events.push(data);
                }
            }
            return;
        }
        if let Some(value) = line.strip_prefix(b"data:") {
            self.data
                .push(value.strip_prefix(b" ").unwrap_or(value).to_vec());
        }
        // `event:`, `id:`, `retry:` and `:` comments: the event's type is in its data.
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

/// What `partial_json` reads next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Value,
    Key,
    KeyOrClose,
    ValueOrClose,
    After,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The longest complete prefix of a JSON text, its open objects and arrays closed (see
/// `partial_json` in the Python twin). One pass, no recursion.
pub fn partial_json(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut closers: Vec<u8> = Vec::new();
    let mut safe = (0usize, 0usize); // (length of `out`, open containers)
    let mut state = State::Value;
    let (mut i, n) = (0usize, bytes.len());
    while i < n {
        let c = bytes[i];
        if is_ws(c) {
            i += 1;
            continue;
        }
        if state == State::After {
            let Some(&closer) = closers.last() else {
                break; // the first value is complete
            };
            if c == b',' {
                out.push(',');
                state = if closer == b'}' {
                    State::Key
                } else {
                    State::Value
                };
                i += 1;
                continue;
            }
            if c != closer {
                break;
            }
        }
        if matches!(
            state,
            State::After | State::KeyOrClose | State::ValueOrClose
        ) && closers.last() == Some(&c)
        {
            closers.pop();
            out.push(c as char);
            i += 1;
            state = State::After;
            safe = (out.len(), closers.len());
            continue;
        }
        if matches!(state, State::Key | State::KeyOrClose) {
            let Some(end) = (c == b'"').then(|| string_end(bytes, i)).flatten() else {
                break;
            };
            let mut j = end;
            while j < n && is_ws(bytes[j]) {
                j += 1;
            }
            if j >= n || bytes[j] != b':' {
                break;
            }
            out.push_str(&text[i..end]);
            out.push(':');
            i = j + 1;
            state = State::Value;
            continue;
        }
        if c == b'{' || c == b'[' {
            out.push(c as char);
            closers.push(if c == b'{' { b'}' } else { b']' });
            state = if c == b'{' {
                State::KeyOrClose
            } else {
                State::ValueOrClose
            };
            i += 1;
            safe = (out.len(), closers.len());
            continue;
        }
        let end = if c == b'"' {
            string_end(bytes, i)
        } else {
            scalar_end(bytes, i)
        };
        let Some(end) = end else {
            break;
        };
        out.push_str(&text[i..end]);
        i = end;
        state = State::After;
        safe = (out.len(), closers.len());
    }
    let (kept, depth) = safe;
    out.truncate(kept);
    out.extend(closers[..depth].iter().rev().map(|&c| c as char));
    out
}

/// The end of the JSON string starting at `bytes[i]` (a quote); None where it is not
/// ended, holds a control character or an invalid escape, or ends inside an escape.
fn string_end(bytes: &[u8], i: usize) -> Option<usize> {
    let n = bytes.len();
    let mut j = i + 1;
    while j < n {
        match bytes[j] {
            b'"' => return Some(j + 1),
            b'\\' => {
                let escape = *bytes.get(j + 1)?;
                if escape == b'u' {
                    let hex = bytes.get(j + 2..j + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    j += 6;
                } else if b"\"\\/bfnrt".contains(&escape) {
                    j += 2;
                } else {
                    return None;
                }
            }
            c if c < b' ' => return None,
            _ => j += 1,
        }
    }
    None
}

/// The end of the number or literal at `bytes[i]`; None where it is not one, or is a
/// number that reaches the end of the text (more digits may follow).
fn scalar_end(bytes: &[u8], i: usize) -> Option<usize> {
    for literal in [&b"true"[..], b"false", b"null"] {
        if bytes[i..].starts_with(literal) {
            return Some(i + literal.len());
        }
    }
    let n = bytes.len();
    let digit = |j: usize| j < n && bytes[j].is_ascii_digit();
    let mut j = i;
    if j < n && bytes[j] == b'-' {
        j += 1;
    }
    if j < n && bytes[j] == b'0' {
        j += 1;
    } else if j < n && (b'1'..=b'9').contains(&bytes[j]) {
        while digit(j) {
            j += 1;
        }
    } else {
        return None;
    }
    if j < n && bytes[j] == b'.' {
        j += 1;
        let start = j;
        while digit(j) {
            j += 1;
        }
        if j == start {
            return None;
        }
    }
    if j < n && (bytes[j] == b'e' || bytes[j] == b'E') {
        j += 1;
        if j < n && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        let start = j;
        while digit(j) {
            j += 1;
        }
        if j == start {
            return None;
        }
    }
    (j < n).then_some(j)
}

/// How a stream's events are read: a walked format's reader, the `json` format's
/// (each event a whole response), or, for `auto`, the reader of the first format that
/// recognizes an event.
#[derive(Clone, Debug)]
pub enum Reader {
    Walked(Walked),
    Json(JsonOptions),
    Auto,
}

/// `parser.stream()`'s state: feed events, read the calls so far, finish.
#[derive(Debug)]
pub struct Stream {
    reader: Reader,
    pub acc: Accumulator,
    sse: Option<Sse>,
    pub finished: bool,
}

/// Text that is not JSON: the error and the text it was found in.
pub type TextError = (JsonError, Vec<u8>);

impl Stream {
    pub fn new(reader: Reader) -> Self {
        Stream {
            reader,
            acc: Accumulator::default(),
            sse: None,
            finished: false,
        }
    }

    /// Start reading one event (the calls it completes gather in `acc.done_now`).
    pub fn begin(&mut self) {
        self.acc.done_now.clear();
    }

    /// `str` / `bytes`: one JSON event, or a chunk of SSE text.
    pub fn feed_text(&mut self, data: &[u8]) -> Result<(), TextError> {
        if self.sse.is_none() && starts_sse(data) {
            self.sse = Some(Sse::default());
        }
        match &mut self.sse {
            Some(sse) => {
                for event in sse.feed(data) {
                    self.json_event(&event)?;
                }
                Ok(())
            }
            // Blank text holds no event.
            None if data.trim_ascii().is_empty() => Ok(()),
            None => self.json_event(data),
        }
    }

    fn json_event(&mut self, data: &[u8]) -> Result<(), TextError> {
        let tape = json::parse(data).map_err(|err| (err, data.to_vec()))?;
        let root = TapeNode::root(&tape);
        let Ok(()) = self.decoded(&root);
        Ok(())
    }

    /// A decoded JSON event: an object, or a list of them; other values are no event.
    fn decoded<N: Node>(&mut self, event: &N) -> Result<(), N::Error> {
        if event.is_array() {
            for item in event.elements() {
                self.decoded(&item)?;
            }
            Ok(())
        } else if event.is_object() {
            self.feed_node(event)
        } else {
            Ok(())
        }
    }

    /// An event object (a dict, an SDK object, or a decoded JSON object).
    pub fn feed_node<N: Node>(&mut self, event: &N) -> Result<(), N::Error> {
        if let Reader::Auto = self.reader {
            for &walked in Walked::ALL {
                if walked.stream_detect(event)? {
                    self.reader = Reader::Walked(walked);
                    break;
                }
            }
        }
        match &self.reader {
            Reader::Walked(walked) => walked.stream_event(event, &mut self.acc),
            Reader::Json(options) => {
                let calls = crate::formats::json_path::walk(event, options)?;
                for call in calls {
                    self.acc
                        .whole_call(call.name, call.id, call.arguments, call.verbatim)?;
                }
                Ok(())
            }
            Reader::Auto => Ok(()),
        }
    }

    /// The end of the stream: an SSE event left without its empty line is read (where
    /// it is not JSON, the stream was cut inside it).
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        if let Some(mut sse) = self.sse.take() {
            for event in sse.end() {
                let _ = self.json_event(&event);
            }
        }
    }

    /// Every call, in the provider's order.
    pub fn calls(&self) -> Vec<StreamCall<'_>> {
        let order = self.acc.ordered();
        order.iter().map(|&at| self.acc.slots[at].call()).collect()
    }

    /// Every call started so far, arguments still arriving decoded as far as they are
    /// complete.
    pub fn partial(&self) -> Vec<StreamCall<'_>> {
        let order = self.acc.ordered();
        order
            .iter()
            .map(|&at| self.acc.slots[at].partial_call())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_json_closes_what_is_complete() {
        for (text, expected) in [
            ("", ""),
            ("{", "{}"),
            ("{\"a", "{}"),
            ("{\"a\": 1", "{}"),
            ("{\"a\": 1,", "{\"a\":1}"),
            ("{\"a\": 1, \"b\": [1, 2", "{\"a\":1,\"b\":[1]}"),
            ("{\"a\": \"x\\u00", "{}"),
            ("{\"a\": {\"b\": tr", "{\"a\":{}}"),
            ("[1,]", "[1]"),
            ("{\"a\":1}garbage", "{\"a\":1}"),
        ] {
            assert_eq!(partial_json(text), expected, "{text}");
        }
    }

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
}
