//! DeepSeek V3.1 / V3.2-Exp tool calls (`deepseek-v3.1`): follows
//! `python/toolsift/_pure/dialects/deepseek_v31.py` (its docstring is the specification)
//! line by line.

use super::deepseek_v3::{CALL_BEGIN, CALL_END, PREFIX, SECTION_MARKERS, SEPARATOR, V3_CALL};
use super::text::{find_in, nameless, parse_special_tokens, trim_space};
use super::{Parsed, Tools};
use crate::calls::{decode_object, Call};
use std::borrow::Cow;

/// Whether the text holds DeepSeek's call markers without V3's `function` type.
pub fn detect(text: &str) -> bool {
    (text.contains(SECTION_MARKERS[0]) || text.contains(CALL_BEGIN)) && !text.contains(V3_CALL)
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
    let Some(at) = find_in(block, SEPARATOR, 0, block.len()) else {
        return nameless(block);
    };
    let name = trim_space(&block[..at]);
    Call {
        name: Some(Cow::Borrowed(name)),
        id: None,
        arguments: decode_object(Cow::Borrowed(trim_space(&block[at + SEPARATOR.len()..]))),
    }
}
