//! `hermes`: Hermes-style JSON in `<tool_call>` tags (Qwen2.5, Qwen3, Hermes 2/3, Granite 4,
//! most fine-tunes). The specification is `python/toolsift/_pure/dialects/hermes.py`;
//! this follows it line by line.

use super::text::{
    at, find_in, first_object_call, leading_name, marker_then, object_call, parse_around_reasoning,
    skip_space, trim_space, THINK,
};
use super::{Parsed, Tools};
use crate::calls::{Arguments, Call};
use crate::json::container_end;
use std::borrow::Cow;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const KEYS: &[&str] = &["arguments"];

/// `<tool_call>` followed (after whitespace) by `{`.
pub fn detect(text: &str) -> bool {
    marker_then(text, OPEN, "{")
}

pub fn parse<'a>(text: &'a str, _tools: Option<&Tools>) -> Parsed<'a> {
    parse_around_reasoning(text, THINK, scan_tags)
}

/// The blocks in `text[pos..end]` appended to `calls`, the text between to `pieces`.
/// Each search for the next tag starts where the previous one ended, or reuses it.
fn scan_tags<'a>(
    text: &'a str,
    mut pos: usize,
    end: usize,
    calls: &mut Vec<Call<'a>>,
    pieces: &mut Vec<&'a str>,
) {
    let b = text.as_bytes();
    let mut next_close: Option<usize> = None; // the first `</tool_call>` at or after the block; `end` when none
    let mut limit = None; // the first `<tool_call>` after the block's own; `end` when none
    loop {
        let found = match limit {
            Some(limit) if limit >= pos => Some(limit).filter(|&at| at < end),
            _ => find_in(text, OPEN, pos, end),
        };
        let Some(open) = found else {
            pieces.push(&text[pos..end]);
            return;
        };
        pieces.push(&text[pos..open]);
        let body = open + OPEN.len();
        let next_open = find_in(text, OPEN, body, end).unwrap_or(end);
        limit = Some(next_open);
        let close = match next_close {
            Some(close) if close >= body => close,
            _ => find_in(text, CLOSE, body, end).unwrap_or(end),
        };
        next_close = Some(close);
        let start = skip_space(b, body);
        if at(b, start, end, "{") {
            // The object read as its end is found (one pass); else its end found first.
            let read = first_object_call(text, start, next_open, KEYS, false);
            let object = match read {
                Some((call, object_end)) => Some((Some(call), object_end)),
                None => container_end(b, start, next_open).map(|object_end| (None, object_end)),
            };
            if let Some((call, object_end)) = object {
                let after = skip_space(b, object_end);
                if after == end || at(b, after, end, CLOSE) {
                    let call =
                        call.unwrap_or_else(|| object_call(&text[start..object_end], KEYS, false));
                    calls.push(call);
                    pos = (after + CLOSE.len()).min(end);
                    continue;
                }
            }
        }
        let stop = close.min(next_open);
        let block = trim_space(&text[body..stop]);
        calls.push(Call {
            name: Some(leading_name(block)),
            id: None,
            arguments: Arguments::Undecodable(Cow::Borrowed(block)),
        });
        pos = if stop == close && close < end {
            stop + CLOSE.len()
        } else {
            stop
        };
    }
}
