//! MiniMax-M2 tool calls (`minimax-m2`). The twin of
//! `python/toolsift/_pure/dialects/minimax_m2.py`, line by line; its docstring is the
//! specification.

use super::xmlcalls::{plain_key, plain_param, split, InvokeSyntax, Reader};
use super::{Parsed, Tools};

const OPEN: &str = "<minimax:tool_call>";

const SYNTAX: InvokeSyntax = InvokeSyntax {
    close: "</minimax:tool_call>",
    invoke_open: "<invoke name=\"",
    name_end: "\">",
    invoke_close: "</invoke>",
    param_open: "<parameter name=\"",
    head_end: "\">",
    param_close: "</parameter>",
    key_of: plain_key,
    param: plain_param,
};

pub fn detect(text: &str) -> bool {
    text.contains(OPEN)
}

pub fn parse<'a>(text: &'a str, tools: Option<&Tools>) -> Parsed<'a> {
    split(
        text,
        ("<think>", "</think>"),
        &[(OPEN, Reader::Invokes(&SYNTAX))],
        tools,
    )
}
