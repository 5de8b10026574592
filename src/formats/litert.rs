//! LiteRT-LM / Gemma 4 tool calls (`SdkResponseParser`): the Rust port of
//! `python/toolsift/_pure/formats/litert.py`, whose module docstring is the specification. The
//! functions here follow the pure ones line by line, under the same names; both give
//! the same results for every input (`tests/vectors/litert.json`, and the parity tests).
//!
//! Indices are byte offsets where the pure code counts characters: every token the
//! grammar looks for is ASCII, so both find the same places in the same text.

use crate::calls::{decode_object, string_at, Arguments, Call, Record};
use crate::json::{self, Tape, Text, Token, MAX_DEPTH};
use crate::node::{Node, TapeNode};
use memchr::memmem::Finder;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

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
        let end = container_end(b, i);
        chunks.push(text.get(i..end)?);
        i = skip_whitespace(b, end);
    }
    (chunks.len() >= 2).then_some(chunks)
}

/// The index just after the container opening at `start` (braces inside JSON strings
/// do not count), or the end of the text when it never closes.
fn container_end(b: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = start;
    while i < b.len() {
        let char = b[i];
        if in_string {
            if char == b'\\' {
                i += 1; // the escaped character is skipped too
            } else if char == b'"' {
                in_string = false;
            }
        } else if char == b'"' {
            in_string = true;
        } else if matches!(char, b'{' | b'[') {
            depth += 1;
        } else if matches!(char, b'}' | b']') {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return i + 1;
            }
        }
        i += 1;
    }
    b.len()
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
            structured_calls(tape, &mut calls);
        }
    }
    if !calls.is_empty() {
        return calls;
    }
    for segment in segments {
        match segment {
            Segment::Decoded(tape) => {
                let mut strings = Vec::new();
                string_values(tape, 0, &mut strings);
                for text in strings {
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

/// The string values in the value at `idx`, in the order the pure code visits them
/// (`dict.values()`: a duplicate key's value is the last one, in the first one's place;
/// a replaced value is not part of the document).
fn string_values<'t>(tape: &'t Tape<'_>, idx: usize, out: &mut Vec<&'t Text>) {
    match &tape.tokens[idx] {
        Token::Str(text) => out.push(text),
        Token::Array { end, .. } => {
            let mut at = idx + 1;
            while at < *end as usize {
                nested_strings(tape, at, out);
                at = tape.skip(at);
            }
        }
        Token::Object { len, end } => {
            for (_, value) in tape.members(idx, (*len as usize, *end as usize)) {
                nested_strings(tape, value, out);
            }
        }
        _ => {}
    }
}

/// Containers nest up to MAX_DEPTH deep: grow the stack rather than overflow it.
fn nested_strings<'t>(tape: &'t Tape<'_>, idx: usize, out: &mut Vec<&'t Text>) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || string_values(tape, idx, out));
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

fn get<'t, 'a>(node: &TapeNode<'t, 'a>, key: &str) -> Option<TapeNode<'t, 'a>> {
    let Ok(found) = node.member(key);
    found
}

/// The calls of one decoded document: a message object, or the object items of an array.
fn structured_calls<'a>(tape: &Tape<'a>, calls: &mut Vec<Call<'a>>) {
    let root = TapeNode::root(tape);
    if root.is_object() {
        message_calls(root, calls);
    } else {
        for item in root.elements() {
            if item.is_object() {
                message_calls(item, calls);
            }
        }
    }
}

fn message_calls<'a>(message: TapeNode<'_, 'a>, calls: &mut Vec<Call<'a>>) {
    if let Some(tool_calls) = get(&message, "tool_calls") {
        for item in tool_calls.elements() {
            append_call(item, calls);
        }
    }
    if let Some(content) = get(&message, "content") {
        for part in content.elements() {
            if get(&part, "type").and_then(|t| t.as_str()) == Some("tool_call") {
                if let Some(item) = get(&part, "tool_call") {
                    append_call(item, calls);
                }
            }
        }
    }
}

/// Append the call in an OpenAI-style or flat item; items without a name are skipped.
fn append_call<'a>(item: TapeNode<'_, 'a>, calls: &mut Vec<Call<'a>>) {
    if !item.is_object() {
        return;
    }
    let body = get(&item, "function")
        .filter(|function| function.is_object())
        .unwrap_or(item);
    let Some(name) = get(&body, "name").filter(|name| name.is_nonempty_str()) else {
        return;
    };
    let id = get(&item, "id").and_then(|id| string_at(item.tape, id.idx));
    let arguments = match get(&body, "arguments") {
        None => Arguments::Missing,
        Some(value) => decode_arguments(value),
    };
    calls.push(Call {
        name: string_at(item.tape, name.idx),
        id,
        arguments,
    });
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

// ------------------------------------------------------------------ raw Gemma 4 tokens

/// A raw call block found in a text, by byte ranges of that text.
enum Body {
    /// `call:NAME object?`: the arguments' tokens (strings as ranges of the text); no
    /// tokens when the call has no object.
    Arguments(Vec<Token>),
    /// Malformed: the block's text after the name, kept as `raw_arguments`.
    Malformed(Range<usize>),
}

/// Every `<|tool_call>...` / `<start_function_call>...` block in `text`, in order,
/// appended to `calls`. `lives`: the same text when it lives as long as the calls (it is
/// then borrowed); None for a string unescaped from JSON, which is copied from.
fn raw_calls<'a>(text: &str, lives: Option<&'a str>, calls: &mut Vec<Call<'a>>) {
    let piece = |range: Range<usize>| -> Cow<'a, str> {
        match lives {
            Some(text) => Cow::Borrowed(text.get(range).unwrap_or_default()),
            None => Cow::Owned(text.get(range).unwrap_or_default().to_owned()),
        }
    };
    for (name, body) in scan_blocks(text) {
        let arguments = match body {
            Body::Arguments(tokens) if tokens.is_empty() => Arguments::Missing,
            Body::Arguments(tokens) => {
                let mut tape = match lives {
                    Some(text) => Tape {
                        source: Cow::Borrowed(text),
                        owned: String::new(),
                        tokens,
                    },
                    None => {
                        let mut owned = String::new();
                        let tokens = tokens
                            .into_iter()
                            .map(|mut token| {
                                // The texts of strings and numbers: copied.
                                if let Some(place) = token.text_mut() {
                                    let copy = text.get(source_range(place)).unwrap_or_default();
                                    *place = json::own(&mut owned, copy);
                                }
                                token
                            })
                            .collect();
                        Tape {
                            source: Cow::Borrowed(""),
                            owned,
                            tokens,
                        }
                    }
                };
                strip_escape_tokens(&mut tape);
                Arguments::Decoded(tape)
            }
            Body::Malformed(range) => Arguments::Undecodable(piece(range)),
        };
        calls.push(Call {
            name: Some(piece(name)),
            id: None,
            arguments,
        });
    }
}

/// `text.find(token, i)` that remembers its last answer for each block token, so
/// scanning a text with many blocks searches it about once per token (linear).
struct BlockFinder<'t> {
    text: &'t [u8],
    /// Per token: (searched from, found at).
    last: [Option<(usize, Option<usize>)>; 4],
}

impl<'t> BlockFinder<'t> {
    fn new(text: &'t [u8]) -> Self {
        BlockFinder {
            text,
            last: [None; 4],
        }
    }

    /// Token `k` of FINDERS (0 and 2 open, 1 and 3 close) at or after `i`.
    fn find(&mut self, k: usize, i: usize) -> Option<usize> {
        if let Some((searched_from, found_at)) = self.last[k] {
            // still the first occurrence at or after i (or still none)
            if searched_from <= i && found_at.is_none_or(|at| at >= i) {
                return found_at;
            }
        }
        let found_at = self
            .text
            .get(i..)
            .and_then(|rest| FINDERS[k].find(rest))
            .map(|at| at + i);
        self.last[k] = Some((i, found_at));
        found_at
    }

    /// `(index, block)` of the first block opening at or after `i`.
    fn next_opener(&mut self, i: usize) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for block in 0..BLOCKS.len() {
            if let Some(found) = self.find(2 * block, i) {
                if best.is_none_or(|(at, _)| found < at) {
                    best = Some((found, block));
                }
            }
        }
        best
    }
}

/// The blocks of `text` as `(name range, body)`, in order (the pure `_raw_calls`).
fn scan_blocks(text: &str) -> Vec<(Range<usize>, Body)> {
    let b = text.as_bytes();
    let mut found = Vec::new();
    let mut finder = BlockFinder::new(b);
    let mut next = finder.next_opener(0);
    while let Some((start, block)) = next {
        let (opener, closer) = BLOCKS[block];
        let body = start + opener.len();
        let call = parse_call(text, body);
        if let (Some((name, _)), Some(arguments)) = (call.name.clone(), call.arguments) {
            let end = skip_whitespace(b, call.end);
            if rest(b, end).starts_with(closer.as_bytes()) {
                found.push((name, Body::Arguments(arguments)));
                next = finder.next_opener(end + closer.len());
                continue;
            }
            // The closing token may be missing at the end or before the next block.
            if end == b.len() || finder.next_opener(end).map(|(at, _)| at) == Some(end) {
                found.push((name, Body::Arguments(arguments)));
                next = finder.next_opener(end);
                continue;
            }
        }
        // Malformed: the block runs from its opening token to its closing token, the
        // next opening token, or the end of the text, whichever comes first.
        let mut next_start = finder.next_opener(body);
        let close_at = finder.find(2 * block + 1, body);
        let block_end = match (close_at, next_start) {
            (Some(close), _) if next_start.is_none_or(|(at, _)| close < at) => {
                next_start = finder.next_opener(close + closer.len());
                close
            }
            (_, Some((at, _))) => at,
            _ => b.len(),
        };
        if let Some((name, name_end)) = call.name {
            found.push((name, Body::Malformed(name_end..block_end)));
        }
        next = next_start;
    }
    found
}

/// What `call:NAME object?` at some index gave.
struct ParsedCall {
    /// The name's range and its end; None when `call:NAME` cannot be read.
    name: Option<(Range<usize>, usize)>,
    /// The arguments' tokens (empty: no object); None when the object is malformed.
    arguments: Option<Vec<Token>>,
    /// Just after the call.
    end: usize,
}

/// `call:NAME object?` at `i` (after the opening token).
fn parse_call(text: &str, i: usize) -> ParsedCall {
    let b = text.as_bytes();
    let unreadable = ParsedCall {
        name: None,
        arguments: None,
        end: i,
    };
    let i = skip_whitespace(b, i);
    if !rest(b, i).starts_with(CALL_PREFIX) {
        return unreadable;
    }
    let i = skip_whitespace(b, i + CALL_PREFIX.len());
    let name_end = name_end(b, i);
    if name_end == i {
        return unreadable;
    }
    let name = Some((i..name_end, name_end));
    let i = skip_whitespace(b, name_end);
    if b.get(i) != Some(&b'{') {
        return ParsedCall {
            name,
            arguments: Some(Vec::new()),
            end: name_end,
        };
    }
    match parse_value(text, i) {
        Ok((tokens, end)) => ParsedCall {
            name,
            arguments: Some(tokens),
            end,
        },
        Err(Malformed) => ParsedCall {
            name,
            arguments: None,
            end: name_end,
        },
    }
}

/// The end of the NAME / KEY (`[A-Za-z_][A-Za-z0-9_.-]*`) at `i`; `i` when there is none.
fn name_end(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {}
        _ => return i,
    }
    let mut i = i + 1;
    while b
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
    {
        i += 1;
    }
    i
}

/// A block that does not follow the grammar.
struct Malformed;

/// A token's text `text[range]`: a block beyond the tape's 4 GiB of text is malformed
/// (kept as its text, as `json` refuses a document of more).
fn source_text(range: Range<usize>) -> Result<Text, Malformed> {
    match (u32::try_from(range.start), u32::try_from(range.len())) {
        (Ok(start), Ok(len)) if range.end <= u32::MAX as usize => Ok(Text::Source { start, len }),
        _ => Err(Malformed),
    }
}

/// An open container while parsing: its token's index, items so far, object or array.
struct Frame {
    at: usize,
    len: u32,
    object: bool,
}

fn container(object: bool, len: u32, end: usize) -> Token {
    let end = u32::try_from(end).unwrap_or(u32::MAX);
    if object {
        Token::Object { len, end }
    } else {
        Token::Array { len, end }
    }
}

/// The value at `i` as tape tokens, and the index just after it.
///
/// Recursive descent written with an explicit stack of open containers (so depth 1024
/// needs no deep recursion). A container's token is filled in when it closes.
fn parse_value(text: &str, mut i: usize) -> Result<(Vec<Token>, usize), Malformed> {
    let b = text.as_bytes();
    let mut tokens = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    loop {
        // Read one value at i; a container that opens with content pushes a frame and
        // goes back to read its first value.
        i = skip_whitespace(b, i);
        match b.get(i) {
            Some(&open @ (b'{' | b'[')) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(Malformed);
                }
                let object = open == b'{';
                let at = tokens.len();
                tokens.push(Token::Null);
                i = skip_whitespace(b, i + 1);
                if b.get(i) == Some(if object { &b'}' } else { &b']' }) {
                    tokens[at] = container(object, 0, at + 1);
                    i += 1;
                } else {
                    if object {
                        i = parse_key(text, i, &mut tokens)?;
                    }
                    stack.push(Frame { at, len: 0, object });
                    continue;
                }
            }
            _ if delimiter_at(b, i).is_some() => i = parse_string(text, i, &mut tokens)?,
            Some(b'-' | b'0'..=b'9') => i = parse_number(text, i, &mut tokens)?,
            _ => i = parse_literal(b, i, &mut tokens)?,
        }
        // A value is complete: count it in the open container, then read "," (next
        // value) or the closing bracket (the container is complete: repeat one level up).
        loop {
            let Some(frame) = stack.last_mut() else {
                return Ok((tokens, i));
            };
            frame.len += 1;
            i = skip_whitespace(b, i);
            let object = frame.object;
            match b.get(i) {
                Some(b',') => {
                    i += 1;
                    if object {
                        i = parse_key(text, skip_whitespace(b, i), &mut tokens)?;
                    }
                    break;
                }
                Some(&close) if close == if object { b'}' } else { b']' } => {
                    let frame = stack.pop().ok_or(Malformed)?;
                    tokens[frame.at] = container(frame.object, frame.len, tokens.len());
                    i += 1;
                }
                _ => return Err(Malformed),
            }
        }
    }
}

/// `KEY :` at `i`: pushes the key, returns the index after the colon.
fn parse_key(text: &str, i: usize, tokens: &mut Vec<Token>) -> Result<usize, Malformed> {
    let b = text.as_bytes();
    let end = name_end(b, i);
    if end == i {
        return Err(Malformed);
    }
    let colon = skip_whitespace(b, end);
    if b.get(colon) != Some(&b':') {
        return Err(Malformed);
    }
    tokens.push(Token::Str(source_text(i..end)?));
    Ok(colon + 1)
}

/// Which string delimiter (an index into STRING_DELIMITERS) opens at `i`.
fn delimiter_at(b: &[u8], i: usize) -> Option<usize> {
    let rest = b.get(i..)?;
    STRING_DELIMITERS
        .iter()
        .position(|delimiter| rest.starts_with(delimiter.as_bytes()))
}

/// `DELIM text DELIM` at `i`: pushes the literal text between the two delimiters.
fn parse_string(text: &str, i: usize, tokens: &mut Vec<Token>) -> Result<usize, Malformed> {
    let b = text.as_bytes();
    let k = delimiter_at(b, i).ok_or(Malformed)?;
    let start = i + STRING_DELIMITERS[k].len();
    let end = start + FINDERS[4 + k].find(rest(b, start)).ok_or(Malformed)?;
    tokens.push(Token::Str(source_text(start..end)?));
    Ok(end + STRING_DELIMITERS[k].len())
}

/// A JSON number at `i`, decoded as JSON decodes it.
fn parse_number(text: &str, i: usize, tokens: &mut Vec<Token>) -> Result<usize, Malformed> {
    let end = json::number_end(text.as_bytes(), i).ok_or(Malformed)?;
    let number = text.get(i..end).ok_or(Malformed)?;
    let place = source_text(i..end)?;
    let token = json::number_token(number, || place);
    if matches!(token, Token::BigInt(_)) && json::is_too_long_int(number) {
        return Err(Malformed); // Python would refuse to convert it: the block is kept as text
    }
    tokens.push(token);
    Ok(end)
}

fn parse_literal(b: &[u8], i: usize, tokens: &mut Vec<Token>) -> Result<usize, Malformed> {
    let rest = rest(b, i);
    for (word, token) in [
        ("true", Token::Bool(true)),
        ("false", Token::Bool(false)),
        ("null", Token::Null),
    ] {
        if rest.starts_with(word.as_bytes()) {
            tokens.push(token);
            return Ok(i + word.len());
        }
    }
    Err(Malformed) // a bare word, a quoted string, or nothing at all
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
