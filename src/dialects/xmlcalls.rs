//! What the XML-style dialects share: the split of a text into reasoning, content and
//! call blocks, and the reader of blocks of `invoke` elements with `parameter` elements.
//! The twin of `python/toolsift/_pure/dialects/_xmlcalls.py`, line by line; its
//! docstring is the specification. Indices are byte offsets where the pure code counts
//! characters: every marker is found by substring search, so both find the same places.

use std::borrow::Cow;

use serde_json::Value;

use super::schema::{object_text, typed_value};
use super::text::{skip_space, trim_space};
use super::{Parsed, Tools};
use crate::calls::{decode_object, Arguments, Call};

/// `text.find(marker, pos)` that remembers each search: a later search from a place at or
/// after the one remembered, and not past what it found, has the same answer, so forward
/// scans search the text once per marker.
pub struct Finder<'a> {
    pub text: &'a str,
    last: Vec<(&'static str, bool, usize, Option<usize>)>,
}

impl<'a> Finder<'a> {
    pub fn new(text: &'a str) -> Finder<'a> {
        Finder {
            text,
            last: Vec::new(),
        }
    }

    pub fn find(&mut self, marker: &'static str, pos: usize) -> Option<usize> {
        let text = self.text;
        self.remembered((marker, false), pos, |_| {
            text.get(pos..)?.find(marker).map(|found| pos + found)
        })
    }

    /// The answer of `search` (the first place at or after `pos` where `key` holds, or
    /// None), from memory when a search from an earlier place covers `pos`.
    pub fn remembered(
        &mut self,
        key: (&'static str, bool),
        pos: usize,
        search: impl FnOnce(&mut Finder<'a>) -> Option<usize>,
    ) -> Option<usize> {
        let last = (self.last.iter()).position(|(marker, value, ..)| (*marker, *value) == key);
        if let Some(at) = last {
            let (_, _, from, found) = self.last[at];
            if from <= pos && found.is_none_or(|found| found >= pos) {
                return found;
            }
        }
        let found = search(self);
        match last {
            Some(at) => self.last[at] = (key.0, key.1, pos, found),
            None => self.last.push((key.0, key.1, pos, found)),
        }
        found
    }
}

/// A block reader: `(finder, index after the opening marker, tools)` -> `(calls, index
/// after the block)`.
pub type OwnReader = for<'a> fn(&mut Finder<'a>, usize, Option<&Tools>) -> (Vec<Call<'a>>, usize);

#[derive(Clone, Copy)]
pub enum Reader {
    /// The invoke rules with these markers (`invoke_reader` in the pure twin).
    Invokes(&'static InvokeSyntax),
    Own(OwnReader),
}

/// The calls, content and reasoning of `text` (see the module docstring).
pub fn split<'a>(
    text: &'a str,
    think: (&'static str, &'static str),
    blocks: &[(&'static str, Reader)],
    tools: Option<&Tools>,
) -> Parsed<'a> {
    let mut finder = Finder::new(text);
    let (think_open, think_close) = think;
    let mut calls = Vec::new();
    let mut content: Vec<&str> = Vec::new();
    let mut reasoning: Vec<&str> = Vec::new();
    let mut pos = 0;
    if let Some(first_close) = text.find(think_close) {
        if !text[..first_close].contains(think_open) {
            reasoning.push(&text[..first_close]);
            pos = first_close + think_close.len();
        }
    }
    while pos < text.len() {
        let (mut start, mut opener, mut reader) = (text.len(), "", None);
        for &(marker, block_reader) in blocks {
            if let Some(found) = finder.find(marker, pos) {
                if found < start {
                    (start, opener, reader) = (found, marker, Some(block_reader));
                }
            }
        }
        if let Some(found) = finder.find(think_open, pos).filter(|found| *found < start) {
            content.push(&text[pos..found]);
            let Some(end) = finder.find(think_close, found + think_open.len()) else {
                reasoning.push(&text[found + think_open.len()..]);
                break;
            };
            reasoning.push(&text[found + think_open.len()..end]);
            pos = end + think_close.len();
            continue;
        }
        content.push(&text[pos..start]);
        let Some(reader) = reader else {
            break;
        };
        let (found_calls, end) = match reader {
            Reader::Invokes(syntax) => {
                read_invokes(&mut finder, start + opener.len(), tools, syntax)
            }
            Reader::Own(read) => read(&mut finder, start + opener.len(), tools),
        };
        calls.extend(found_calls);
        pos = end;
    }
    let joined = trim_space(&content.concat()).to_owned();
    let thoughts: Vec<&str> = reasoning.iter().map(|part| trim_space(part)).collect();
    let thought = (thoughts.iter().copied())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    Parsed {
        calls,
        content: (!joined.is_empty()).then_some(joined),
        reasoning: (!thought.is_empty()).then_some(thought),
    }
}

/// `head` -> the parameter's key, or None: a broken head.
pub type KeyRule = fn(&str) -> Option<&str>;
/// `(head, value, schema)` -> the value's JSON text, or None: a broken head.
pub type ParamRule = fn(&str, &str, Option<&Value>) -> Option<String>;

/// The markers of one invoke-style dialect (see the module docstring).
#[derive(Clone, Copy)]
pub struct InvokeSyntax {
    pub close: &'static str,
    pub invoke_open: &'static str,
    pub name_end: &'static str,
    pub invoke_close: &'static str,
    pub param_open: &'static str,
    pub head_end: &'static str,
    pub param_close: &'static str,
    pub key_of: KeyRule,
    pub param: ParamRule,
}

/// The head is the key.
pub fn plain_key(head: &str) -> Option<&str> {
    Some(head)
}

/// The value typed by the schema.
pub fn plain_param(_head: &str, value: &str, schema: Option<&Value>) -> Option<String> {
    let mut out = String::new();
    typed_value(&mut out, value, schema);
    Some(out)
}

/// `plain_param` with one newline removed from each side of the value first.
pub fn trimmed_param(head: &str, value: &str, schema: Option<&Value>) -> Option<String> {
    let value = value.strip_prefix('\n').unwrap_or(value);
    plain_param(head, value.strip_suffix('\n').unwrap_or(value), schema)
}

/// A call whose arguments are this JSON object text.
pub fn tool_call<'a>(name: &'a str, arguments: String) -> Call<'a> {
    Call {
        name: Some(Cow::Borrowed(name)),
        id: None,
        arguments: decode_object(Cow::Owned(arguments)),
    }
}

/// A call that could not be read: its name where read, its text kept.
pub fn malformed<'a>(name: &'a str, raw: &'a str) -> Call<'a> {
    Call {
        name: Some(Cow::Borrowed(name)),
        id: None,
        arguments: Arguments::Undecodable(Cow::Borrowed(raw)),
    }
}

/// The calls of the block whose content starts at `pos`, and where the block ends.
pub fn read_invokes<'a>(
    finder: &mut Finder<'a>,
    mut pos: usize,
    tools: Option<&Tools>,
    syntax: &InvokeSyntax,
) -> (Vec<Call<'a>>, usize) {
    let text = finder.text;
    let mut calls = Vec::new();
    loop {
        pos = skip_space(text.as_bytes(), pos);
        if pos == text.len() {
            return (calls, pos);
        }
        if text[pos..].starts_with(syntax.close) {
            return (calls, pos + syntax.close.len());
        }
        let mut name = "";
        let call_start = pos;
        if text[pos..].starts_with(syntax.invoke_open) {
            let name_start = pos + syntax.invoke_open.len();
            let name_end = finder.find(syntax.name_end, name_start);
            let candidate = name_end.map_or("", |end| &text[name_start..end]);
            if !candidate.is_empty() && !candidate.contains(['<', '>', '\n']) {
                name = candidate;
                let params_start = name_end.unwrap_or_default() + syntax.name_end.len();
                if let Some((arguments, end)) =
                    read_params(finder, params_start, name, tools, syntax)
                {
                    calls.push(tool_call(name, arguments));
                    pos = end;
                    continue;
                }
            }
        }
        let end = finder.find(syntax.close, call_start);
        let stop = end.unwrap_or(text.len());
        calls.push(malformed(name, &text[call_start..stop]));
        return (calls, end.map_or(stop, |end| end + syntax.close.len()));
    }
}

/// The arguments JSON text of the invoke whose parameters start at `pos`, and the index
/// after its closing marker; None when it does not complete.
fn read_params(
    finder: &mut Finder<'_>,
    mut pos: usize,
    name: &str,
    tools: Option<&Tools>,
    syntax: &InvokeSyntax,
) -> Option<(String, usize)> {
    let text = finder.text;
    let mut pairs: Vec<(&str, String)> = Vec::new();
    loop {
        pos = skip_space(text.as_bytes(), pos);
        if text[pos..].starts_with(syntax.invoke_close) {
            return Some((object_text(&pairs), pos + syntax.invoke_close.len()));
        }
        if !text[pos..].starts_with(syntax.param_open) {
            return None;
        }
        let head_start = pos + syntax.param_open.len();
        let head_end = finder.find(syntax.head_end, head_start)?;
        let value_start = head_end + syntax.head_end.len();
        let followers = [syntax.param_open, syntax.invoke_close, syntax.close];
        let value_end = value_close(finder, value_start, syntax.param_close, &followers)?;
        let head = &text[head_start..head_end];
        let key = if head.contains('<') {
            None
        } else {
            (syntax.key_of)(head)
        };
        let key = key.filter(|key| !key.is_empty())?;
        let schema = tools.and_then(|tools| tools.parameter(name, key));
        let value = (syntax.param)(head, &text[value_start..value_end], schema)?;
        pairs.push((key, value));
        pos = value_end + syntax.param_close.len();
    }
}

/// The first `close` at or after `pos` followed (after whitespace) by one of `followers`
/// or by the end of the text; None when there is none.
pub fn value_close(
    finder: &mut Finder<'_>,
    pos: usize,
    close: &'static str,
    followers: &[&str],
) -> Option<usize> {
    let text = finder.text;
    finder.remembered((close, true), pos, |finder| {
        let mut found = finder.find(close, pos);
        while let Some(at) = found {
            let after = skip_space(text.as_bytes(), at + close.len());
            if after == text.len()
                || followers
                    .iter()
                    .any(|marker| text[after..].starts_with(marker))
            {
                return Some(at);
            }
            found = finder.find(close, at + close.len());
        }
        None
    })
}
