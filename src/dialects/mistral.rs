//! `mistral`: Mistral's `[TOOL_CALLS]` (Mistral, Mixtral, Magistral, Devstral, Codestral).
//! The specification is `python/toolsift/_pure/dialects/mistral.py`; this follows it line
//! by line.

use super::text::{self, at, find_in, json_calls, parse_around_reasoning, skip_space, trim_space};
use super::{Parsed, Tools};
use crate::calls::{decode_object, Arguments, Call};
use crate::json::container_end;
use std::borrow::Cow;

const MARKER: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";
const THINK: (&str, &str) = ("[THINK]", "[/THINK]");

const KEYS: &[&str] = &["arguments"];

/// `[TOOL_CALLS]`.
pub fn detect(text: &str) -> bool {
    find_in(text, MARKER, 0, text.len()).is_some()
}

pub fn parse<'a>(text: &'a str, _tools: Option<&Tools>) -> Parsed<'a> {
    let uses_tokens = text.contains(THINK.0) || text.contains(THINK.1);
    let (open, close) = if uses_tokens { THINK } else { text::THINK };
    parse_around_reasoning(text, (open, close), scan_blocks)
}

/// The blocks in `text[pos..end]` appended to `calls`, the text outside to `pieces`.
fn scan_blocks<'a>(
    text: &'a str,
    pos: usize,
    end: usize,
    calls: &mut Vec<Call<'a>>,
    pieces: &mut Vec<&'a str>,
) {
    let Some(mut marker) = find_in(text, MARKER, pos, end) else {
        pieces.push(&text[pos..end]);
        return;
    };
    pieces.push(&text[pos..marker]);
    loop {
        let body = marker + MARKER.len();
        let following = find_in(text, MARKER, body, end);
        let limit = following.unwrap_or(end);
        let rest = read_block(text, body, limit, calls);
        pieces.push(&text[rest..limit]);
        match following {
            Some(next) => marker = next,
            None => return,
        }
    }
}

/// The calls of the block `text[body..limit]` appended; the index where its calls end.
fn read_block<'a>(text: &'a str, body: usize, limit: usize, calls: &mut Vec<Call<'a>>) -> usize {
    let b = text.as_bytes();
    let mut i = skip_space(b, body).min(limit);
    if let Some(stop) = json_calls(text, i, limit, KEYS, true, calls) {
        return stop;
    }
    let (name_end, separator) = next_separator(b, i, limit);
    let Some(mut separator) = separator else {
        calls.push(unreadable(Cow::Borrowed(""), None, &text[i..limit]));
        return limit;
    };
    let name = Cow::Borrowed(trim_space(&text[i..name_end]));
    let mut id = None;
    i = name_end;
    if separator == CALL_ID {
        let (id_end, next) = next_separator(b, i + CALL_ID.len(), limit);
        id = Some(Cow::Borrowed(trim_space(&text[i + CALL_ID.len()..id_end])));
        i = id_end;
        separator = next.unwrap_or("");
    }
    if separator == ARGS {
        i += ARGS.len();
    }
    let start = skip_space(b, i).min(limit);
    let stop = if at(b, start, limit, "{") {
        container_end(b, start, limit)
    } else {
        None
    };
    let Some(stop) = stop else {
        calls.push(unreadable(name, id, &text[start..limit]));
        return limit;
    };
    calls.push(Call {
        name: Some(name),
        id,
        arguments: decode_object(Cow::Borrowed(&text[start..stop])),
    });
    stop
}

/// A call whose arguments cannot be read: their trimmed text kept.
fn unreadable<'a>(name: Cow<'a, str>, id: Option<Cow<'a, str>>, raw: &'a str) -> Call<'a> {
    Call {
        name: Some(name),
        id,
        arguments: Arguments::Undecodable(Cow::Borrowed(trim_space(raw))),
    }
}

/// The first `[CALL_ID]`, `[ARGS]` or `{` from `i`: its index and which (None: none, at
/// `limit`).
fn next_separator(b: &[u8], mut i: usize, limit: usize) -> (usize, Option<&'static str>) {
    while i < limit {
        match b[i] {
            b'{' => return (i, Some("{")),
            b'[' => {
                for separator in [ARGS, CALL_ID] {
                    if at(b, i, limit, separator) {
                        return (i, Some(separator));
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    (limit, None)
}
