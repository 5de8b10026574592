//! Qwen3-Coder tool calls (`qwen3-coder`). The twin of
//! `python/toolsift/_pure/dialects/qwen3_coder.py`, line by line; its docstring is the
//! specification.

use super::text::skip_space;
use super::xmlcalls::{plain_key, split, trimmed_param, InvokeSyntax, Reader};
use super::{Parsed, Tools};

const OPEN: &str = "<tool_call>";
const FUNCTION: &str = "<function=";

pub const SYNTAX: InvokeSyntax = InvokeSyntax {
    close: "</tool_call>",
    invoke_open: FUNCTION,
    name_end: ">",
    invoke_close: "</function>",
    param_open: "<parameter=",
    head_end: ">",
    param_close: "</parameter>",
    key_of: plain_key,
    param: trimmed_param,
};

/// Whether a `<tool_call>` is followed (after whitespace) by `<function=`.
pub fn detect(text: &str) -> bool {
    let mut found = text.find(OPEN);
    while let Some(at) = found {
        let after = skip_space(text.as_bytes(), at + OPEN.len());
        if text[after..].starts_with(FUNCTION) {
            return true;
        }
        found = text[after..].find(OPEN).map(|next| after + next);
    }
    false
}

pub fn parse<'a>(text: &'a str, tools: Option<&Tools>) -> Parsed<'a> {
    split(
        text,
        ("<think>", "</think>"),
        &[(OPEN, Reader::Invokes(&SYNTAX))],
        tools,
    )
}
