//! DeepSeek V3 / R1 tool calls (`deepseek-v3`): follows
//! `python/toolsift/_pure/dialects/deepseek_v3.py` (its docstring is the specification)
//! line by line.

use super::text::{find_in, nameless, parse_special_tokens, trim_space};
use super::{Parsed, Tools};
use crate::calls::{decode_object, Arguments, Call};
use std::borrow::Cow;

pub(super) const PREFIX: &str = "<｜tool▁";
pub(super) const SECTION_MARKERS: [&str; 2] = ["<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"];
pub(super) const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
pub(super) const CALL_END: &str = "<｜tool▁call▁end｜>";
pub(super) const SEPARATOR: &str = "<｜tool▁sep｜>";
pub(super) const V3_CALL: &str = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>";
const FENCE: &str = "```";

/// Whether the text holds a V3 call marker followed by the `function` type.
pub fn detect(text: &str) -> bool {
    text.contains(V3_CALL)
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
    let rest = &block[at + SEPARATOR.len()..];
    let Some(newline) = rest.find('\n') else {
        return Call {
            name: Some(Cow::Borrowed(trim_space(rest))),
            id: None,
            arguments: Arguments::Undecodable(Cow::Borrowed("")),
        };
    };
    let name = trim_space(&rest[..newline]);
    let body = trim_space(&rest[newline + 1..]);
    let arguments = match decode_object(Cow::Borrowed(unfenced(body))) {
        Arguments::Decoded(tape) => Arguments::Decoded(tape),
        _ => Arguments::Undecodable(Cow::Borrowed(body)),
    };
    Call {
        name: Some(Cow::Borrowed(name)),
        id: None,
        arguments,
    }
}

/// `body` without its opening fence line and closing fence, where written.
fn unfenced(body: &str) -> &str {
    let mut body = body;
    if body.starts_with(FENCE) {
        body = body.find('\n').map_or("", |newline| &body[newline + 1..]);
        body = body.strip_suffix(FENCE).unwrap_or(body);
    }
    trim_space(body)
}
