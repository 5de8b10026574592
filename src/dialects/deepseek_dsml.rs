//! DeepSeek V3.2 / V4 DSML tool calls (`deepseek-dsml`). The twin of
//! `python/toolsift/_pure/dialects/deepseek_dsml.py`, line by line; its docstring is the
//! specification.

use serde_json::Value;

use super::schema::{json_or_text, json_string, typed_value};
use super::xmlcalls::{split, InvokeSyntax, Reader};
use super::{Parsed, Tools};

const OPENS: [&str; 2] = ["<｜DSML｜function_calls>", "<｜DSML｜tool_calls>"];

/// The key: the head up to its closing quote.
fn key_of(head: &str) -> Option<&str> {
    head.split_once('"').map(|(key, _)| key)
}

/// The value's JSON text, by the head's `string` attribute.
fn param(head: &str, value: &str, schema: Option<&Value>) -> Option<String> {
    let attribute = head.split_once('"').map_or("", |(_, attribute)| attribute);
    let mut out = String::new();
    match attribute {
        " string=\"true\"" => json_string(&mut out, value),
        " string=\"false\"" => json_or_text(&mut out, value),
        "" => typed_value(&mut out, value, schema),
        _ => return None,
    }
    Some(out)
}

const fn syntax(close: &'static str) -> InvokeSyntax {
    InvokeSyntax {
        close,
        invoke_open: "<｜DSML｜invoke name=\"",
        name_end: "\">",
        invoke_close: "</｜DSML｜invoke>",
        param_open: "<｜DSML｜parameter name=\"",
        head_end: ">",
        param_close: "</｜DSML｜parameter>",
        key_of,
        param,
    }
}

const FUNCTION_CALLS: InvokeSyntax = syntax("</｜DSML｜function_calls>");
const TOOL_CALLS: InvokeSyntax = syntax("</｜DSML｜tool_calls>");
const BLOCKS: [(&str, Reader); 2] = [
    (OPENS[0], Reader::Invokes(&FUNCTION_CALLS)),
    (OPENS[1], Reader::Invokes(&TOOL_CALLS)),
];

pub fn detect(text: &str) -> bool {
    OPENS.iter().any(|opener| text.contains(opener))
}

pub fn parse<'a>(text: &'a str, tools: Option<&Tools>) -> Parsed<'a> {
    split(text, ("<think>", "</think>"), &BLOCKS, tools)
}
