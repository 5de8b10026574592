//! `llama3-json`: Llama 3.1-3.3 JSON tool calls. The specification is
//! `python/toolsift/_pure/dialects/llama3_json.py`; this follows it line by line.

use super::text::{at, find_in, joined_content, json_calls, nameless, skip_space};
use super::{Parsed, Tools};
use crate::calls::Call;

const TAG: &str = "<|python_tag|>";
const KEYS: &[&str] = &["arguments", "parameters"];

/// `<|python_tag|>`.
pub fn detect(text: &str) -> bool {
    find_in(text, TAG, 0, text.len()).is_some()
}

pub fn parse<'a>(text: &'a str, _tools: Option<&Tools>) -> Parsed<'a> {
    let b = text.as_bytes();
    let mut calls = Vec::new();
    let mut pieces = Vec::new();
    let mut pos = 0;
    let limit = find_in(text, TAG, 0, text.len()).unwrap_or(text.len());
    let start = skip_space(b, 0);
    if at(b, start, limit, "{") {
        let mut bare = Vec::new();
        let stop = read_calls(text, start, limit, &mut bare);
        if bare.first().and_then(|call| call.name.as_deref()) != Some("") {
            calls.append(&mut bare);
            pos = stop;
        }
    }
    loop {
        let Some(open) = find_in(text, TAG, pos, text.len()) else {
            pieces.push(&text[pos..]);
            break;
        };
        pieces.push(&text[pos..open]);
        let body = open + TAG.len();
        let limit = find_in(text, TAG, body, text.len()).unwrap_or(text.len());
        let stop = read_calls(text, skip_space(b, body).min(limit), limit, &mut calls);
        pieces.push(&text[stop..limit]);
        pos = limit;
    }
    Parsed {
        calls,
        content: joined_content(&pieces),
        reasoning: None,
    }
}

/// The calls joined by `;` from `i`, read no further than `limit`, appended to `calls`;
/// the index where they end.
fn read_calls<'a>(text: &'a str, mut i: usize, limit: usize, calls: &mut Vec<Call<'a>>) -> usize {
    let b = text.as_bytes();
    loop {
        let Some(stop) = json_calls(text, i, limit, KEYS, false, calls) else {
            calls.push(nameless(&text[i..limit]));
            return limit;
        };
        let after = skip_space(b, stop);
        if !at(b, after, limit, ";") {
            return stop;
        }
        i = skip_space(b, after + 1).min(limit);
        if !(at(b, i, limit, "{") || at(b, i, limit, "[")) {
            return after + 1;
        }
    }
}
