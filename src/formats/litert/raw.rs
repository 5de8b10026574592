//! The raw Gemma 4 / FunctionGemma call blocks of a text (`<|tool_call>call:NAME{...}
//! <tool_call|>`): finding the blocks and reading their token grammar onto a tape (the
//! pure `_raw_calls` and its helpers in `python/toolsift/_pure/formats/litert.py`).

use super::{
    rest, skip_whitespace, source_range, strip_escape_tokens, BLOCKS, CALL_PREFIX, FINDERS,
    STRING_DELIMITERS,
};
use crate::calls::{Arguments, Call};
use crate::json::{self, Tape, Text, Token, MAX_DEPTH};
use std::borrow::Cow;
use std::ops::Range;

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
pub(super) fn raw_calls<'a>(text: &str, lives: Option<&'a str>, calls: &mut Vec<Call<'a>>) {
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
