//! LiteRT-LM / Gemma 4 tool calls (`SdkResponseParser`): the Rust port of
//! `python/toolsift/_pure/formats/litert.py`, whose module docstring is the specification. The
//! functions here follow the pure ones line by line, under the same names; both give
//! the same results for every input (`tests/vectors/litert.json`, and the parity tests).
//!
//! Indices are byte offsets where the pure code counts characters: every token the
//! grammar looks for is ASCII, so both find the same places in the same text.
//!
//! Here: the text's segments, the structured calls of JSON documents, the history text.
//! The raw call blocks (`<|tool_call>...`) and their token grammar: [`raw`].

use crate::calls::{decode_object, string_at, Arguments, Call, Record};
use crate::formats::RawCall;
use crate::json::{self, Tape, Text, Token, MAX_DEPTH};
use crate::node::{Node, TapeNode};
use memchr::memmem::Finder;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

mod raw;
use raw::raw_calls;

/// The Gemma 4 string delimiter; stripped from the string values of arguments.
pub const ESCAPE_TOKEN: &str = "<|\"|>";

/// `(opening token, closing token)` of a raw call block: Gemma 4, FunctionGemma.
const BLOCKS: [(&str, &str); 2] = [
    ("<|tool_call>", "<tool_call|>"),
    ("<start_function_call>", "<end_function_call>"),
];
const STRING_DELIMITERS: [&str; 2] = [ESCAPE_TOKEN, "<escape>"];
const CALL_PREFIX: &[u8] = b"call:";

/// Searchers built once: the four block tokens (opener, closer, opener, closer), then
/// the two string delimiters.
static FINDERS: LazyLock<[Finder<'static>; 6]> = LazyLock::new(|| {
    [
        Finder::new(BLOCKS[0].0),
        Finder::new(BLOCKS[0].1),
        Finder::new(BLOCKS[1].0),
        Finder::new(BLOCKS[1].1),
        Finder::new(STRING_DELIMITERS[0]),
        Finder::new(STRING_DELIMITERS[1]),
    ]
});

// --------------------------------------------------------------------------- public API

/// Every tool call in a LiteRT-LM response text; text that is not UTF-8 has none.
pub fn extract_tool_calls(text: &[u8]) -> Vec<Call<'_>> {
    match simdutf8::basic::from_utf8(text) {
        Ok(text) => extract_tool_calls_str(text),
        Err(_) => Vec::new(),
    }
}

/// [`extract_tool_calls`] of text already known to be UTF-8.
pub fn extract_tool_calls_str(text: &str) -> Vec<Call<'_>> {
    calls_from_segments(&segments(text))
}

/// The record of one response. Never an error: text that is not UTF-8, or that holds no
/// call, gives no calls (the pure `parse_sdk`). The calls do not point into the tape,
/// which stays empty.
pub fn parse_record(text: &[u8]) -> Record<'_> {
    Record::found(extract_tool_calls(text), "litert")
}

/// [`parse_record`] of a text already decoded as one JSON document (`tape`), so that a
/// reader that decoded it to look for a batch envelope does not decode it again.
pub fn document_record(tape: Tape<'_>) -> Record<'_> {
    Record::found(calls_from_segments(&[Segment::Decoded(tape)]), "litert")
}

/// The raw Gemma 4 call blocks in one string value of a decoded document (the caller's
/// dicts, walked by the Python layer); the calls do not point into the tape.
pub fn raw_record(text: &str) -> Record<'_> {
    let mut calls = Vec::new();
    raw_calls(text, Some(text), &mut calls);
    Record::found(calls, "litert")
}

/// The response text to keep in the chat history: one JSON document re-written compact
/// with `<|"|>` stripped from string values; None when the text is to be kept unchanged
/// (it is not one JSON document).
pub fn clean_raw_for_history(text: &str) -> Option<String> {
    let tape = json::parse_str(text).ok()?; // validation; the rewrite works on the text
    compact_json(text, &tape)
}

// ------------------------------------------------------------------- text and segments

enum Segment<'a> {
    /// A decoded JSON document; its tape borrows the input text.
    Decoded(Tape<'a>),
    /// Text to scan as it is.
    Text(&'a str),
}

/// One JSON document, else glued JSON containers, else the text as written.
fn segments(text: &str) -> Vec<Segment<'_>> {
    if let Ok(tape) = json::parse_str(text) {
        return vec![Segment::Decoded(tape)];
    }
    let Some(chunks) = split_glued(text) else {
        return vec![Segment::Text(text)];
    };
    chunks
        .into_iter()
        .map(|chunk| match json::parse_str(chunk) {
            Ok(tape) => Segment::Decoded(tape),
            Err(_) => Segment::Text(chunk),
        })
        .collect()
}

/// The text cut into two or more top-level `{...}` / `[...]` containers separated only
/// by whitespace, or None when it is not that.
fn split_glued(text: &str) -> Option<Vec<&str>> {
    let b = text.as_bytes();
    let mut chunks = Vec::new();
    let mut i = skip_whitespace(b, 0);
    while i < b.len() {
        if !matches!(b[i], b'{' | b'[') {
            return None;
        }
        let end = json::container_end(b, i, b.len()).unwrap_or(b.len());
        chunks.push(text.get(i..end)?);
        i = skip_whitespace(b, end);
    }
    (chunks.len() >= 2).then_some(chunks)
}

fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The bytes from `i` on (none when `i` is past the end).
fn rest(b: &[u8], i: usize) -> &[u8] {
    b.get(i..).unwrap_or_default()
}

fn skip_whitespace(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_whitespace(b[i]) {
        i += 1;
    }
    i
}

fn calls_from_segments<'a>(segments: &[Segment<'a>]) -> Vec<Call<'a>> {
    let mut calls = Vec::new();
    for segment in segments {
        if let Segment::Decoded(tape) = segment {
            let Ok(()) = walk(&TapeNode::root(tape), &mut |call| {
                calls.push(call_on_tape(tape, call));
            });
        }
    }
    if !calls.is_empty() {
        return calls;
    }
    for segment in segments {
        match segment {
            Segment::Decoded(tape) => {
                let mut strings = Vec::new();
                let Ok(()) = string_values(TapeNode::root(tape), 1, &mut strings);
                for string in strings {
                    let Token::Str(text) = string.token() else {
                        continue;
                    };
                    match (text, &tape.source) {
                        (Text::Source { .. }, Cow::Borrowed(source)) => {
                            let range = source_range(text);
                            let string = source.get(range).unwrap_or_default();
                            raw_calls(string, Some(string), &mut calls);
                        }
                        _ => raw_calls(tape.text(text), None, &mut calls),
                    }
                }
            }
            Segment::Text(text) => raw_calls(text, Some(text), &mut calls),
        }
    }
    calls
}

fn source_range(text: &Text) -> Range<usize> {
    match text {
        Text::Source { start, len } => *start as usize..*start as usize + *len as usize,
        Text::Owned { .. } => 0..0,
    }
}

/// Every string value (not key) in objects and arrays (a Python list only), depth
/// first in document order, `value` being `depth` deep; containers deeper than
/// MAX_DEPTH are not looked into. Objects as `dict.values()` gives them (a duplicate
/// key's value is the last one, in the first one's place).
pub fn string_values<N: Node>(value: N, depth: usize, out: &mut Vec<N>) -> Result<(), N::Error> {
    if value.is_string() {
        out.push(value);
        Ok(())
    } else if depth > MAX_DEPTH {
        Ok(())
    } else if value.is_object() {
        nested_string_values(value.member_values()?, depth + 1, out)
    } else if value.is_list() {
        nested_string_values(value.items()?, depth + 1, out)
    } else {
        Ok(())
    }
}

/// [`string_values`] of each of `items`, `depth` deep.
fn nested_string_values<N: Node>(
    items: impl Iterator<Item = N>,
    depth: usize,
    out: &mut Vec<N>,
) -> Result<(), N::Error> {
    for item in items {
        // Containers nest up to MAX_DEPTH deep: grow the stack rather than overflow it.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || string_values(item, depth, out))?;
    }
    Ok(())
}

/// Walks a tape's tokens in order and tells object keys from values (the pure code
/// iterates `dict.values()`; a tape holds keys and values side by side).
#[derive(Default)]
struct Keys {
    /// The open containers: (end index, is an object, the next token is a key).
    open: Vec<(usize, bool, bool)>,
}

impl Keys {
    /// Whether the token at `idx` (visited in order) is an object key.
    fn is_key(&mut self, idx: usize, token: &Token) -> bool {
        while self.open.last().is_some_and(|&(end, ..)| end <= idx) {
            self.open.pop();
        }
        let key = match self.open.last_mut() {
            Some((_, true, key_next)) => {
                let key = *key_next;
                *key_next = !key;
                key
            }
            _ => false,
        };
        match token {
            Token::Object { end, .. } => self.open.push((*end as usize, true, true)),
            Token::Array { end, .. } => self.open.push((*end as usize, false, false)),
            _ => {}
        }
        key
    }
}

// -------------------------------------------------------------------- structured calls

/// The structured calls of one decoded document, a value of any [`Node`] (a tape, or the
/// caller's dicts and lists): a message object, or the object items of a list; each
/// call handed to `found` as found (its name a non-empty string, its id a string).
pub fn walk<N: Node>(doc: &N, found: &mut impl FnMut(RawCall<N>)) -> Result<(), N::Error> {
    if doc.is_object() {
        return message_calls(doc, found);
    }
    if doc.is_list() {
        for item in doc.items()? {
            if item.is_object() {
                message_calls(&item, found)?;
            }
        }
    }
    Ok(())
}

fn message_calls<N: Node>(message: &N, found: &mut impl FnMut(RawCall<N>)) -> Result<(), N::Error> {
    if let Some(tool_calls) = message.member("tool_calls")?.filter(N::is_list) {
        for item in tool_calls.items()? {
            append_call(&item, found)?;
        }
    }
    if let Some(content) = message.member("content")?.filter(N::is_list) {
        for part in content.items()? {
            if part.is_object() && part.member("type")?.is_some_and(|t| t.is_str("tool_call")) {
                if let Some(item) = part.member("tool_call")? {
                    append_call(&item, found)?;
                }
            }
        }
    }
    Ok(())
}

/// The call in an OpenAI-style or flat item; items without a name are skipped.
fn append_call<N: Node>(item: &N, found: &mut impl FnMut(RawCall<N>)) -> Result<(), N::Error> {
    if !item.is_object() {
        return Ok(());
    }
    let function = item.member("function")?.filter(N::is_object);
    let body = function.as_ref().unwrap_or(item);
    let Some(name) = body.member("name")?.filter(N::is_nonempty_str) else {
        return Ok(());
    };
    let id = item.member("id")?.filter(N::is_string);
    found(RawCall::new(Some(name), id, body.member("arguments")?));
    Ok(())
}

/// The [`Call`] of a call a walk found on `tape`.
fn call_on_tape<'a>(tape: &Tape<'a>, call: RawCall<TapeNode<'_, 'a>>) -> Call<'a> {
    Call {
        name: call.name.and_then(|name| string_at(tape, name.idx)),
        id: call.id.and_then(|id| string_at(tape, id.idx)),
        arguments: call.arguments.map_or(Arguments::Missing, decode_arguments),
    }
}

/// The arguments value as found: an object (escape tokens stripped), a string holding
/// one, or anything else kept as it is.
fn decode_arguments<'a>(value: TapeNode<'_, 'a>) -> Arguments<'a> {
    let tape = value.tape;
    match value.token() {
        // An integer Python would refuse to convert: kept as JSON text, not decoded.
        Token::Object { .. } if json::value_holds_too_long_int(tape, value.idx) => {
            Arguments::Value(subtree(tape, value.idx))
        }
        Token::Object { .. } => {
            let mut arguments = subtree(tape, value.idx);
            strip_escape_tokens(&mut arguments);
            Arguments::Decoded(arguments)
        }
        Token::Str(_) => match string_at(tape, value.idx) {
            Some(text) => string_arguments(text),
            None => Arguments::Missing, // unreachable: the token is a string
        },
        _ => Arguments::Value(subtree(tape, value.idx)),
    }
}

/// Arguments given as a string: decoded when it is the JSON text of an object (escape
/// tokens stripped), else kept as it is.
pub fn string_arguments(text: Cow<'_, str>) -> Arguments<'_> {
    match decode_object(text) {
        Arguments::Decoded(mut arguments) => {
            strip_escape_tokens(&mut arguments);
            Arguments::Decoded(arguments)
        }
        other => other,
    }
}

/// The value at `idx` on a tape of its own (container ends re-based; same source; the
/// owned texts it points to copied).
pub fn subtree<'a>(tape: &Tape<'a>, idx: usize) -> Tape<'a> {
    let end = tape.skip(idx);
    let base = idx as u32; // a tape has at most one token per byte of a < 4 GiB text
    let mut owned = String::new();
    let tokens = tape.tokens[idx..end]
        .iter()
        .map(|token| {
            let mut token = match *token {
                Token::Array { len, end } => Token::Array {
                    len,
                    end: end - base,
                },
                Token::Object { len, end } => Token::Object {
                    len,
                    end: end - base,
                },
                other => other,
            };
            if let Some(text @ Text::Owned { .. }) = token.text_mut() {
                *text = json::own(&mut owned, tape.text(text));
            }
            token
        })
        .collect();
    Tape {
        source: tape.source.clone(),
        owned,
        tokens,
    }
}

/// `<|"|>` removed from every string value (never a key), at any depth, in place.
pub fn strip_escape_tokens(tape: &mut Tape<'_>) {
    let finder = &FINDERS[4];
    let mut keys = Keys::default();
    let mut holding = Vec::new(); // the string values that hold the token, in order
    for (idx, token) in tape.tokens.iter().enumerate() {
        if keys.is_key(idx, token) {
            continue;
        }
        if let Token::Str(text) = token {
            if finder.find(tape.text(text).as_bytes()).is_some() {
                holding.push(idx);
            }
        }
    }
    if holding.is_empty() {
        return;
    }
    // The owned text is written anew, each string once (stripped or as it was), so it
    // stays no larger than the strings of the text the tape was read from (4 GiB).
    let Tape {
        source,
        owned,
        tokens,
    } = tape;
    let mut rewritten = String::with_capacity(owned.len());
    let mut holding = holding.into_iter().peekable();
    for (idx, token) in tokens.iter_mut().enumerate() {
        let Some(text) = token.text_mut() else {
            continue;
        };
        let string = text.resolve(source, owned);
        if holding.next_if_eq(&idx).is_some() {
            *text = json::own(&mut rewritten, &string.replace(ESCAPE_TOKEN, ""));
        } else if matches!(text, Text::Owned { .. }) {
            *text = json::own(&mut rewritten, string);
        }
    }
    *owned = rewritten;
}

// ------------------------------------------------------------------ compact JSON text

/// Valid JSON text (decoded onto `tape`) without whitespace, `<|"|>` stripped from
/// string values, strings re-encoded minimally; numbers, literals and punctuation
/// copied as written. The strings come from the tape, in document order.
fn compact_json(text: &str, tape: &Tape<'_>) -> Option<String> {
    let b = text.as_bytes();
    let mut strings = tape.tokens.iter().filter_map(|token| match token {
        Token::Str(string) => Some(string),
        _ => None,
    });
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let char = b[i];
        if is_whitespace(char) {
            i += 1;
        } else if char == b'"' {
            let string = strings.next()?;
            let end = match string {
                // Written without escapes: the token is the quotes around the slice.
                Text::Source { start, len } if *start as usize == i + 1 => {
                    *start as usize + *len as usize + 1
                }
                _ => string_end(b, i),
            };
            match string {
                Text::Source { .. } => out.push_str(text.get(i..end)?),
                Text::Owned { .. } => {
                    let value = tape.text(string);
                    let is_key = b.get(skip_whitespace(b, end)) == Some(&b':');
                    if is_key || FINDERS[4].find(value.as_bytes()).is_none() {
                        json::write_str(value, &mut out);
                    } else {
                        json::write_str(&value.replace(ESCAPE_TOKEN, ""), &mut out);
                    }
                }
            }
            i = end;
        } else {
            // punctuation, a number or a literal: copy up to whitespace or a string
            let mut end = i + 1;
            while end < b.len() && !is_whitespace(b[end]) && b[end] != b'"' {
                end += 1;
            }
            out.push_str(text.get(i..end)?);
            i = end;
        }
    }
    Some(out)
}

/// The index just after the JSON string token opening at `i` (the text is valid).
fn string_end(b: &[u8], i: usize) -> usize {
    let mut i = i + 1;
    while let Some(at) = memchr::memchr2(b'"', b'\\', b.get(i..).unwrap_or_default()) {
        i += at;
        if b[i] == b'"' {
            return i + 1;
        }
        i += 2;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        extract_tool_calls_str(text)
            .iter()
            .map(|call| call.name.as_deref().unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn raw_blocks() {
        let text = "hi <|tool_call>call:f{a:<|\"|>x<|\"|>}<tool_call|> and \
                    <start_function_call>call:g{}<end_function_call>";
        assert_eq!(names(text), ["f", "g"]);
        let calls = extract_tool_calls_str("<|tool_call>call:f{a:b}<tool_call|>");
        let Arguments::Undecodable(raw) = &calls[0].arguments else {
            panic!("{:?}", calls[0].arguments)
        };
        assert_eq!(raw, "{a:b}");
    }

    #[test]
    fn depth_limit() {
        let ok = format!(
            "<|tool_call>call:f{{a:{}{}}}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        let calls = extract_tool_calls_str(&ok);
        assert!(matches!(calls[0].arguments, Arguments::Decoded(_)));
        let deep = format!("<|tool_call>call:f{{a:{}", "[".repeat(100_000));
        let calls = extract_tool_calls_str(&deep);
        assert!(matches!(calls[0].arguments, Arguments::Undecodable(_)));
    }

    #[test]
    fn history() {
        assert_eq!(
            clean_raw_for_history("{ \"a\" : \"<|\\\"|>x\\n\", \"k<|\\\"|>\\t\": [1.0E+2, true] }")
                .as_deref(),
            Some("{\"a\":\"x\\n\",\"k<|\\\"|>\\t\":[1.0E+2,true]}")
        );
        assert_eq!(clean_raw_for_history("{} {}"), None);
        let mut out = String::new();
        json::write_str("\u{1}é\u{7f}", &mut out);
        assert_eq!(out, "\"\\u0001é\u{7f}\"");
    }
}
