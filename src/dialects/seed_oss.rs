//! Seed-OSS tool calls (`seed-oss`). The twin of
//! `python/toolsift/_pure/dialects/seed_oss.py`, line by line; its docstring is the
//! specification.

use super::qwen3_coder::SYNTAX as QWEN3_CODER;
use super::xmlcalls::{split, InvokeSyntax, Reader};
use super::{Parsed, Tools};

const OPEN: &str = "<seed:tool_call>";
const SYNTAX: InvokeSyntax = InvokeSyntax {
    close: "</seed:tool_call>",
    ..QWEN3_CODER
};

pub fn detect(text: &str) -> bool {
    text.contains(OPEN)
}

pub fn parse<'a>(text: &'a str, tools: Option<&Tools>) -> Parsed<'a> {
    split(
        text,
        ("<seed:think>", "</seed:think>"),
        &[(OPEN, Reader::Invokes(&SYNTAX))],
        tools,
    )
}
