//! `granite`: IBM Granite 3.x tool calls, a JSON list after a marker. The specification is
//! `python/toolsift/_pure/dialects/granite.py`; this follows it line by line.

use super::text::{
    at, find_in, json_calls, marker_then, nameless, parse_around_reasoning, skip_space, THINK,
};
use super::{Parsed, Tools};
use crate::calls::Call;

const MARKERS: [&str; 2] = ["<|tool_call|>", "<tool_call>"];
const CLOSE: &str = "</tool_call>";
const KEYS: &[&str] = &["arguments"];

/// `<|tool_call|>` or `<tool_call>` followed (after whitespace) by `[`.
pub fn detect(text: &str) -> bool {
    (MARKERS.iter()).any(|marker| marker_then(text, marker, "["))
}

pub fn parse<'a>(text: &'a str, _tools: Option<&Tools>) -> Parsed<'a> {
    parse_around_reasoning(text, THINK, scan_markers)
}

/// The next place of each marker at or after `from` (`end` when none), reusing `found`.
fn refresh(text: &str, found: &mut [Option<usize>; 2], from: usize, end: usize) {
    for (place, marker) in found.iter_mut().zip(MARKERS) {
        if place.is_none_or(|place| place < from) {
            *place = Some(find_in(text, marker, from, end).unwrap_or(end));
        }
    }
}

/// The calls in `text[pos..end]` appended to `calls`, the text outside to `pieces`.
fn scan_markers<'a>(
    text: &'a str,
    mut pos: usize,
    end: usize,
    calls: &mut Vec<Call<'a>>,
    pieces: &mut Vec<&'a str>,
) {
    let b = text.as_bytes();
    let mut found = [None, None];
    loop {
        refresh(text, &mut found, pos, end);
        let [Some(first), Some(second)] = found else {
            return; // unreachable: refresh sets both
        };
        let open = first.min(second);
        if open == end {
            pieces.push(&text[pos..end]);
            return;
        }
        pieces.push(&text[pos..open]);
        let body = open + MARKERS[if first == open { 0 } else { 1 }].len();
        refresh(text, &mut found, body, end);
        let limit = found.iter().flatten().copied().min().unwrap_or(end);
        let i = skip_space(b, body).min(limit);
        let Some(stop) = json_calls(text, i, limit, KEYS, false, calls) else {
            calls.push(nameless(&text[i..limit]));
            pos = limit;
            continue;
        };
        let after = skip_space(b, stop);
        pos = if at(b, after, limit, CLOSE) {
            after + CLOSE.len()
        } else {
            stop
        };
    }
}
