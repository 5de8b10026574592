//! GLM-4.5 / 4.6 / 4.7 tool calls (`glm`). The twin of
//! `python/toolsift/_pure/dialects/glm.py`, line by line; its docstring is the
//! specification.

use super::schema::{object_text, typed_value};
use super::text::{skip_space, trim_space};
use super::xmlcalls::{malformed, split, tool_call, value_close, Finder, Reader};
use super::{Parsed, Tools};
use crate::calls::Call;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const KEY_OPEN: &str = "<arg_key>";
const KEY_CLOSE: &str = "</arg_key>";
const VALUE_OPEN: &str = "<arg_value>";
const VALUE_CLOSE: &str = "</arg_value>";

/// Whether a `<tool_call>` is followed by a name that runs to `<arg_key>` or
/// `</tool_call>`.
pub fn detect(text: &str) -> bool {
    let mut found = text.find(OPEN);
    while let Some(at) = found {
        let start = skip_space(text.as_bytes(), at + OPEN.len());
        let name_end = text[start..].find('<').map(|lt| start + lt);
        if let Some(name_end) = name_end {
            if name_end > start
                && !matches!(text.as_bytes()[start], b'{' | b'[')
                && (text[name_end..].starts_with(KEY_OPEN) || text[name_end..].starts_with(CLOSE))
            {
                return true;
            }
        }
        let from = name_end.unwrap_or(text.len()).max(start);
        found = text[from..].find(OPEN).map(|next| from + next);
    }
    false
}

/// The call of the block whose content starts at `pos`, and where the block ends.
fn read_block<'a>(
    finder: &mut Finder<'a>,
    mut pos: usize,
    tools: Option<&Tools>,
) -> (Vec<Call<'a>>, usize) {
    let text = finder.text;
    let start = pos;
    let name_end = finder.find("<", pos).unwrap_or(text.len());
    let name = trim_space(&text[pos..name_end]);
    let mut pairs: Vec<(&str, String)> = Vec::new();
    pos = name_end;
    while !name.is_empty() && !name.contains('>') {
        pos = skip_space(text.as_bytes(), pos);
        if text[pos..].starts_with(CLOSE) {
            return (
                vec![tool_call(name, object_text(&pairs))],
                pos + CLOSE.len(),
            );
        }
        if !text[pos..].starts_with(KEY_OPEN) {
            break;
        }
        let Some(key_end) = finder.find(KEY_CLOSE, pos + KEY_OPEN.len()) else {
            break;
        };
        let key = trim_space(&text[pos + KEY_OPEN.len()..key_end]);
        let mut value_start = skip_space(text.as_bytes(), key_end + KEY_CLOSE.len());
        if key.is_empty() || !text[value_start..].starts_with(VALUE_OPEN) {
            break;
        }
        value_start += VALUE_OPEN.len();
        let Some(value_end) = value_close(finder, value_start, VALUE_CLOSE, &[KEY_OPEN, CLOSE])
        else {
            break;
        };
        let schema = tools.and_then(|tools| tools.parameter(name, key));
        let mut value = String::new();
        typed_value(&mut value, &text[value_start..value_end], schema);
        pairs.push((key, value));
        pos = value_end + VALUE_CLOSE.len();
    }
    if name.is_empty() && text[name_end..].starts_with(CLOSE) {
        return (Vec::new(), name_end + CLOSE.len());
    }
    let end = finder.find(CLOSE, start);
    let stop = end.unwrap_or(text.len());
    let name = if name.contains('>') { "" } else { name };
    (
        vec![malformed(name, &text[start..stop])],
        end.map_or(stop, |end| end + CLOSE.len()),
    )
}

pub fn parse<'a>(text: &'a str, tools: Option<&Tools>) -> Parsed<'a> {
    split(
        text,
        ("<think>", "</think>"),
        &[(OPEN, Reader::Own(read_block))],
        tools,
    )
}
