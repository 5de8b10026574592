//! Scanning helpers the dialects share (the pure twin: `_pure/dialects/_text.py`).
//! Indices are byte offsets where the pure code counts characters: every marker the
//! scanners look for is ASCII or found by substring search, so both find the same places.

use super::Parsed;
use crate::calls::{decode_object, string_at, Arguments, Call};
use crate::formats::litert::subtree;
use crate::json::{self, container_end, Tape, Token};
use crate::node::{Node, TapeNode};
use memchr::memmem;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

/// The first `pattern` in `text[from..to]`, as an index into `text`.
///
/// Found by its first byte (`memchr`) and then compared: the dialects' markers start with
/// `<`, and a searcher built per call (`memmem::find`) costs more than the scan itself
/// when markers come every few bytes. Linear: each byte is looked at a bounded number of
/// times per call, and the callers resume after each hit.
pub fn find_in(text: &str, pattern: &str, from: usize, to: usize) -> Option<usize> {
    let haystack = &text.as_bytes()[..to];
    let pattern = pattern.as_bytes();
    let first = *pattern.first()?;
    let mut at = from;
    while at < to {
        at += memchr::memchr(first, &haystack[at..])?;
        if begins_with(&haystack[at..], pattern) {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// The calls, content and reasoning of `text`: `scan(text, start, end, calls, pieces)` reads
/// each range outside the reasoning blocks `think` ([`outside_reasoning`]), appending the
/// calls and the text outside them; the content is the pieces joined ([`joined_content`]).
pub fn parse_around_reasoning<'a>(
    text: &'a str,
    think: (&str, &str),
    scan: impl Fn(&'a str, usize, usize, &mut Vec<Call<'a>>, &mut Vec<&'a str>),
) -> Parsed<'a> {
    let (ranges, reasoning) = outside_reasoning(text, think.0, think.1);
    let mut calls = Vec::new();
    let mut pieces = Vec::new();
    for range in ranges {
        scan(text, range.start, range.end, &mut calls, &mut pieces);
    }
    Parsed {
        calls,
        content: joined_content(&pieces),
        reasoning,
    }
}

/// [`parse_around_reasoning`] (`<think>` blocks) of a special-token dialect: its blocks
/// ([`special_token_blocks`] with these markers), each read by `block_call`.
pub fn parse_special_tokens<'a>(
    text: &'a str,
    prefix: &str,
    (begins, ends, dropped): (&[&str], &[&str], &[&str]),
    block_call: fn(&'a str) -> Call<'a>,
) -> Parsed<'a> {
    parse_around_reasoning(text, THINK, |text, start, end, calls, pieces| {
        let (outside, blocks) =
            special_token_blocks(text, start..end, prefix, begins, ends, dropped);
        pieces.extend(outside);
        calls.extend(blocks.into_iter().map(block_call));
    })
}

/// The reasoning block of most dialects.
pub const THINK: (&str, &str) = ("<think>", "</think>");

/// The call blocks in `text[span]` of a dialect whose markers are special tokens sharing
/// `prefix`, and the text outside them (see the pure `special_token_blocks`).
pub fn special_token_blocks<'a, 'm>(
    text: &'a str,
    span: Range<usize>,
    prefix: &str,
    begins: &[&'m str],
    ends: &[&'m str],
    dropped: &[&'m str],
) -> (Vec<&'a str>, Vec<&'a str>) {
    let (start, stop) = (span.start, span.end);
    // Asked only where `prefix` was found, and every marker begins with it.
    debug_assert!((begins.iter().chain(ends).chain(dropped)).all(|m| m.starts_with(prefix)));
    let marker_at = |at: usize, markers: &[&'m str]| -> Option<&'m str> {
        marker_after_prefix(&text[..stop], at, prefix.len(), markers)
    };
    let mut outside = Vec::new();
    let mut blocks = Vec::new();
    let mut pos = start; // text from here on is not yet in `outside` or `blocks`
    let mut at = find_in(text, prefix, start, stop);
    while let Some(here) = at {
        if let Some(begin) = marker_at(here, begins) {
            outside.push(&text[pos..here]);
            let body = here + begin.len();
            at = find_in(text, prefix, body, stop);
            let mut end = None;
            while let Some(inner) = at {
                end = marker_at(inner, ends);
                if end.is_some()
                    || marker_at(inner, begins).is_some()
                    || marker_at(inner, dropped).is_some()
                {
                    break;
                }
                at = find_in(text, prefix, inner + prefix.len(), stop);
            }
            let Some(block_end) = at else {
                blocks.push(&text[body..stop]);
                return (outside, blocks);
            };
            blocks.push(&text[body..block_end]);
            pos = end.map_or(block_end, |end| block_end + end.len());
            if end.is_some() {
                at = find_in(text, prefix, pos, stop);
            } // else the marker that cut the block off is next: `at` stays on it
            continue;
        }
        let marker = marker_at(here, ends).or_else(|| marker_at(here, dropped));
        if let Some(marker) = marker {
            outside.push(&text[pos..here]);
            pos = here + marker.len();
            at = find_in(text, prefix, pos, stop);
        } else {
            at = find_in(text, prefix, here + prefix.len(), stop);
        }
    }
    outside.push(&text[pos..stop]);
    (outside, blocks)
}

/// The one of `markers` that `text` begins with, if any.
#[inline]
pub fn marker_at<'m>(text: &str, markers: &[&'m str]) -> Option<&'m str> {
    (markers.iter().copied()).find(|marker| begins_with(text.as_bytes(), marker.as_bytes()))
}

/// The one of `markers` at `at` in `text`, where a prefix of them all `skip` bytes long
/// was found: only the rest is compared (markers sharing a long prefix, e.g. kimi's
/// `<|tool_call`, would otherwise each compare it again at every place it is found).
#[inline]
pub fn marker_after_prefix<'m>(
    text: &str,
    at: usize,
    skip: usize,
    markers: &[&'m str],
) -> Option<&'m str> {
    let rest = &text.as_bytes()[at + skip..];
    (markers.iter().copied()).find(|marker| begins_with(rest, &marker.as_bytes()[skip..]))
}

/// Whether `text` begins with `marker`, compared byte by byte: most places a scanner
/// checks differ within a few bytes, and `starts_with` calls `memcmp` at each, which
/// costs more than the scan when markers come every few bytes.
#[inline]
pub fn begins_with(text: &[u8], marker: &[u8]) -> bool {
    let Some(head) = text.get(..marker.len()) else {
        return false;
    };
    for (i, &byte) in marker.iter().enumerate() {
        if head[i] != byte {
            return false;
        }
    }
    true
}

/// The text outside the calls: its pieces joined, whitespace at both ends stripped;
/// None when nothing is left.
pub fn joined_content(outside: &[&str]) -> Option<String> {
    let mut joined = outside.concat();
    let end = trim_end_space(&joined).len();
    joined.truncate(end);
    let start = end - trim_space(&joined).len();
    joined.drain(..start);
    (!joined.is_empty()).then_some(joined)
}

/// The whitespace skipped and trimmed at seams by every dialect (JSON's; the pure
/// `WHITESPACE`).
pub fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// `text` without JSON whitespace at either end.
pub fn trim_space(text: &str) -> &str {
    let start = skip_space(text.as_bytes(), 0);
    // Whitespace is ASCII: the cut falls between characters.
    trim_end_space(&text[start..])
}

/// `text` without JSON whitespace at its end.
pub fn trim_end_space(text: &str) -> &str {
    let b = text.as_bytes();
    let mut end = b.len();
    while end > 0 && is_space(b[end - 1]) {
        end -= 1;
    }
    &text[..end]
}

/// The first index from `i` that is not JSON whitespace.
pub fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    i
}

/// Whether `needle` is at `i`, wholly before `end`.
pub fn at(b: &[u8], i: usize, end: usize, needle: &str) -> bool {
    b.get(i..end)
        .is_some_and(|rest| begins_with(rest, needle.as_bytes()))
}

/// The ranges of `text` outside its reasoning blocks `open ... close`, and the blocks'
/// text (each trimmed, the non-empty ones joined by a blank line; None when there is
/// none). Text before a first `close` that no `open` precedes is reasoning (the template
/// opened the block in the prompt); an unclosed block runs to the end. Empty ranges are
/// left out, but for the last. (The XML family splits reasoning its own way, `xmlcalls::split`: only between
/// call blocks, joined by one newline.)
pub fn outside_reasoning(
    text: &str,
    open: &str,
    close: &str,
) -> (Vec<Range<usize>>, Option<String>) {
    let mut ranges = Vec::new();
    let mut thoughts: Vec<&str> = Vec::new();
    // Searchers, not `find_in`, which stops at every `<`: reasoning markers are rare
    // where other markers are dense. Those of `<think>` are built once per process (most
    // dialects'), any other pair once per text.
    // A text with neither `<think>` nor `</think>` (most) is read in one pass for the end
    // they share.
    static THINK_FINDERS: LazyLock<[memmem::Finder<'static>; 3]> = LazyLock::new(|| {
        let shared = &THINK.0[1..];
        debug_assert!(THINK.1.ends_with(shared));
        [THINK.0, THINK.1, shared].map(memmem::Finder::new)
    });
    let built;
    let [open_finder, close_finder] = if (open, close) == THINK {
        let [open_finder, close_finder, shared] = &*THINK_FINDERS;
        if shared.find(text.as_bytes()).is_none() {
            let whole = 0..text.len();
            return (Vec::from([whole]), None);
        }
        [open_finder, close_finder]
    } else {
        built = [memmem::Finder::new(open), memmem::Finder::new(close)];
        [&built[0], &built[1]]
    };
    let find = |finder: &memmem::Finder, from: usize, to: usize| {
        finder.find(&text.as_bytes()[from..to]).map(|at| from + at)
    };
    let mut pos = 0;
    if let Some(first_close) = find(close_finder, 0, text.len()) {
        if find(open_finder, 0, first_close).is_none() {
            thoughts.push(&text[..first_close]);
            pos = first_close + close.len();
        }
    }
    loop {
        let Some(start) = find(open_finder, pos, text.len()) else {
            ranges.push(pos..text.len());
            break;
        };
        if pos < start {
            ranges.push(pos..start); // (empty ranges hold nothing)
        }
        let inner = start + open.len();
        let Some(stop) = find(close_finder, inner, text.len()) else {
            thoughts.push(&text[inner..]);
            break;
        };
        thoughts.push(&text[inner..stop]);
        pos = stop + close.len();
    }
    let kept: Vec<&str> = (thoughts.into_iter())
        .map(trim_space)
        .filter(|thought| !thought.is_empty())
        .collect();
    let reasoning = (!kept.is_empty()).then(|| kept.join("\n\n"));
    (ranges, reasoning)
}

/// A call whose block names nothing readable: name "", the block's text (trimmed) kept
/// as undecodable arguments.
pub fn nameless(block: &str) -> Call<'_> {
    Call {
        name: Some(Cow::Borrowed("")),
        id: None,
        arguments: Arguments::Undecodable(Cow::Borrowed(trim_space(block))),
    }
}

/// Whether some `marker` in `text` is followed (after whitespace) by `next`.
pub fn marker_then(text: &str, marker: &str, next: &str) -> bool {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(open) = find_in(text, marker, from, text.len()) {
        let after = skip_space(b, open + marker.len());
        if at(b, after, b.len(), next) {
            return true;
        }
        from = after;
    }
    false
}

// ------------------------------------------------- JSON-in-text dialects (hermes, mistral,
// granite, llama3-json, xlam): one call is a JSON object {"name": ..., "arguments": {...}}

/// The name of a call object that does not decode (cut off, broken JSON), where it
/// opens with `{"name": "..."`: that string, decoded; else "".
pub fn leading_name(block: &str) -> Cow<'_, str> {
    let b = block.as_bytes();
    let end = b.len();
    let mut i = skip_space(b, 0);
    for token in ["{", "\"name\"", ":"] {
        if !at(b, i, end, token) {
            return Cow::Borrowed("");
        }
        i = skip_space(b, i + token.len());
    }
    if !at(b, i, end, "\"") {
        return Cow::Borrowed("");
    }
    let mut stop = i + 1;
    while stop < end && b[stop] != b'"' {
        stop += if b[stop] == b'\\' { 2 } else { 1 };
    }
    let Some(literal) = block.get(i..(stop + 1).min(end)) else {
        return Cow::Borrowed("");
    };
    match json::parse_str(literal) {
        Ok(tape) => string_at(&tape, 0).unwrap_or(Cow::Borrowed("")),
        Err(_) => Cow::Borrowed(""),
    }
}

/// The call in the text of one JSON object: its string `name`, the first of `keys`
/// present (not null) as arguments (an object, or a string holding one), its string `id`
/// when `with_id`. Arguments that are neither keep the block's text (a string: that
/// string) as undecodable; a block that does not decode to an object with a string name
/// gives the leading name (else "") and the block's text.
pub fn object_call<'a>(block: &'a str, keys: &[&str], with_id: bool) -> Call<'a> {
    // Text that does not end with `}` is no object, and one without `"` has no name:
    // spares the parser (a text of many `{}` makes one call each).
    let readable = block.ends_with('}') && memchr::memchr(b'"', block.as_bytes()).is_some();
    match readable.then(|| json::parse_str(block)) {
        Some(Ok(tape)) => call_of(block, &tape, keys, with_id),
        _ => unreadable_call(block),
    }
}

/// [`object_call`] of the JSON object that opens at `text[start]` and closes before
/// `limit`, read in one pass that also finds where it ends: the call and the index just
/// past the object. None where that pass does not read it (not an object, not JSON
/// there, or one it leaves to serde_json): the caller then finds the object's end and
/// reads it as before, so the calls are the same either way.
pub fn first_object_call<'a>(
    text: &'a str,
    start: usize,
    limit: usize,
    keys: &[&str],
    with_id: bool,
) -> Option<(Call<'a>, usize)> {
    let (tape, len) = json::parse_first(&text[start..limit])?;
    if !matches!(tape.tokens.first(), Some(Token::Object { .. })) {
        return None;
    }
    let block = &text[start..start + len];
    Some((call_of(block, &tape, keys, with_id), start + len))
}

/// The call of a block that is no readable call object: its leading name and its text.
fn unreadable_call(block: &str) -> Call<'_> {
    Call {
        name: Some(leading_name(block)),
        id: None,
        arguments: Arguments::Undecodable(Cow::Borrowed(block)),
    }
}

/// [`object_call`] of `block`, read into `tape`.
fn call_of<'a>(block: &'a str, tape: &Tape<'a>, keys: &[&str], with_id: bool) -> Call<'a> {
    let unreadable = || unreadable_call(block);
    let root = TapeNode::root(tape);
    let Some(name) = root
        .member("name")
        .ok()
        .flatten()
        .filter(|n| n.as_str().is_some())
    else {
        return unreadable();
    };
    let name = string_at(tape, name.idx);
    let id = match root.member("id").ok().flatten() {
        Some(id) if with_id => string_at(tape, id.idx),
        _ => None,
    };
    let value = keys.iter().find_map(|key| root.member(key).ok().flatten());
    let arguments = match value.map(|value| (value.idx, value.token())) {
        None => Arguments::Missing,
        Some((idx, Token::Str(_))) => match string_at(tape, idx) {
            Some(text) => decode_object(text),
            None => Arguments::Missing, // unreachable: the token is a string
        },
        Some((idx, Token::Object { .. })) if !json::value_holds_too_long_int(tape, idx) => {
            Arguments::Decoded(subtree(tape, idx))
        }
        Some(_) => Arguments::Undecodable(Cow::Borrowed(block)),
    };
    Call {
        name,
        id,
        arguments,
    }
}

/// The texts of the items of the JSON array opening at `start` (items are objects; what
/// follows the last readable one, up to the array's end, is one more item), and the
/// index just after the array (`end` when it does not close before `end`).
pub fn array_items(text: &str, start: usize, end: usize) -> (Vec<&str>, usize) {
    let b = text.as_bytes();
    let array_end = container_end(b, start, end);
    let stop = array_end.unwrap_or(end);
    let inner_end = if array_end.is_some() { stop - 1 } else { stop };
    let mut items = Vec::new();
    let mut i = skip_space(b, start + 1);
    while i < inner_end {
        if b[i] != b'{' {
            items.push(trim_end_space(&text[i..inner_end]));
            break;
        }
        let Some(item_end) = container_end(b, i, inner_end) else {
            items.push(trim_end_space(&text[i..inner_end]));
            break;
        };
        items.push(&text[i..item_end]);
        i = skip_space(b, item_end);
        if i < inner_end && b[i] == b',' {
            i = skip_space(b, i + 1);
        } else if i < inner_end {
            items.push(trim_end_space(&text[i..inner_end]));
            break;
        }
    }
    (items, stop)
}

/// The calls of the JSON list ([`array_items`], each item an [`object_call`]) or the one
/// call object opening at `i`, read no further than `limit`, appended to `calls`; the
/// index where they end (`limit` when cut off). None, and nothing read, when neither `[`
/// nor `{` opens at `i`.
pub fn json_calls<'a>(
    text: &'a str,
    i: usize,
    limit: usize,
    keys: &[&str],
    with_id: bool,
    calls: &mut Vec<Call<'a>>,
) -> Option<usize> {
    let b = text.as_bytes();
    if at(b, i, limit, "[") {
        let (items, stop) = array_items(text, i, limit);
        calls.extend(
            items
                .into_iter()
                .map(|item| object_call(item, keys, with_id)),
        );
        return Some(stop);
    }
    if at(b, i, limit, "{") {
        let end = container_end(b, i, limit);
        let block = match end {
            None => trim_end_space(&text[i..limit]),
            Some(end) => &text[i..end],
        };
        calls.push(object_call(block, keys, with_id));
        return Some(end.unwrap_or(limit));
    }
    None
}
