//! Kimi K2 tool calls (`kimi-k2`): follows `python/toolsift/_pure/dialects/kimi_k2.py`
//! (its docstring is the specification) line by line.

use super::text::{find_in, nameless, parse_special_tokens, trim_space};
use super::{Parsed, Tools};
use crate::calls::{decode_object, Call};
use std::borrow::Cow;

const PREFIX: &str = "<|tool_call";
const SECTION_MARKERS: [&str; 4] = [
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_section_begin|>",
    "<|tool_call_section_end|>",
];
const CALL_BEGIN: &str = "<|tool_call_begin|>";
const CALL_END: &str = "<|tool_call_end|>";
const ARGUMENT_BEGIN: &str = "<|tool_call_argument_begin|>";
const NAME_PREFIX: &str = "functions.";

/// Whether the text holds a section or call marker of Kimi K2.
pub fn detect(text: &str) -> bool {
    [SECTION_MARKERS[0], SECTION_MARKERS[2], CALL_BEGIN]
        .iter()
        .any(|marker| text.contains(marker))
}

pub fn parse<'a>(text: &'a str, _tools: Option<&Tools>) -> Parsed<'a> {
    parse_special_tokens(
        text,
        PREFIX,
        (&[CALL_BEGIN], &[CALL_END], &SECTION_MARKERS),
        block_call,
    )
}

fn block_call(block: &str) -> Call<'_> {
    let Some(at) = find_in(block, ARGUMENT_BEGIN, 0, block.len()) else {
        return nameless(block);
    };
    let header = trim_space(&block[..at]);
    let arguments = trim_space(&block[at + ARGUMENT_BEGIN.len()..]);
    Call {
        name: Some(Cow::Borrowed(name_of(header))),
        id: (!header.is_empty()).then_some(Cow::Borrowed(header)),
        arguments: decode_object(Cow::Borrowed(arguments)),
    }
}

/// `functions.NAME:IDX` -> NAME (each part removed only where present).
fn name_of(header: &str) -> &str {
    let name = header.strip_prefix(NAME_PREFIX).unwrap_or(header);
    match name.rfind(':') {
        Some(colon)
            if name.len() > colon + 1
                && name.as_bytes()[colon + 1..].iter().all(u8::is_ascii_digit) =>
        {
            &name[..colon]
        }
        _ => name,
    }
}
