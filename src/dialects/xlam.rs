//! `xlam`: Salesforce xLAM-2 tool calls, a bare JSON list. The specification is
//! `python/toolsift/_pure/dialects/xlam.py`; this follows it line by line.

use super::text::{at, find_in, json_calls, parse_around_reasoning, skip_space, THINK};
use super::{Parsed, Tools};
use crate::calls::Call;

const FENCE: &str = "```";
const FENCE_LANGUAGE: &str = "json";
const KEYS: &[&str] = &["arguments"];

/// Never: a bare JSON list is not guessed.
pub fn detect(_text: &str) -> bool {
    false
}

pub fn parse<'a>(text: &'a str, _tools: Option<&Tools>) -> Parsed<'a> {
    parse_around_reasoning(text, THINK, scan)
}

/// The lists in `text[pos..end]` appended to `calls`, the text outside to `pieces`.
fn scan<'a>(
    text: &'a str,
    mut pos: usize,
    end: usize,
    calls: &mut Vec<Call<'a>>,
    pieces: &mut Vec<&'a str>,
) {
    let b = text.as_bytes();
    let start = skip_space(b, pos).min(end);
    if let Some(stop) = read_list(text, start, end, calls) {
        pos = stop;
    }
    loop {
        let Some(fence) = find_in(text, FENCE, pos, end) else {
            pieces.push(&text[pos..end]);
            return;
        };
        let mut body = fence + FENCE.len();
        if at(b, body, end, FENCE_LANGUAGE) {
            body += FENCE_LANGUAGE.len();
        }
        let close = find_in(text, FENCE, body, end);
        let limit = close.unwrap_or(end);
        let Some(stop) = read_list(text, skip_space(b, body).min(limit), limit, calls) else {
            // not a list of calls: content up to its closing fence
            let stop = close.map_or(end, |close| close + FENCE.len());
            pieces.push(&text[pos..stop]);
            pos = stop;
            continue;
        };
        pieces.push(&text[pos..fence]);
        let after = skip_space(b, stop);
        pos = if at(b, after, end, FENCE) {
            after + FENCE.len()
        } else {
            stop
        };
    }
}

/// The calls of the list at `i` appended when its first item is a call with a name: the
/// index after the list; else None, and nothing appended.
fn read_list<'a>(text: &'a str, i: usize, end: usize, calls: &mut Vec<Call<'a>>) -> Option<usize> {
    if !at(text.as_bytes(), i, end, "[") {
        return None;
    }
    let mut found = Vec::new();
    let stop = json_calls(text, i, end, KEYS, false, &mut found)?;
    if found
        .first()
        .and_then(|call| call.name.as_deref())
        .unwrap_or("")
        .is_empty()
    {
        return None;
    }
    calls.append(&mut found);
    Some(stop)
}
