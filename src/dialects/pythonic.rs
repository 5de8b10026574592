//! Pythonic tool calls (`pythonic`): follows `python/toolsift/_pure/dialects/pythonic.py`
//! (its docstring is the specification, the grammar included) line by line.

use super::text::{
    joined_content, outside_reasoning, skip_space, special_token_blocks, trim_space,
};
use super::{Parsed, Tools};
use crate::calls::{decode_object, Arguments, Call};
use std::borrow::Cow;
use std::collections::HashSet;

const BEGINS: [&str; 2] = ["<|python_start|>", "<|tool_call_start|>"];
const ENDS: [&str; 2] = ["<|python_end|>", "<|tool_call_end|>"];
/// Containers nested deeper than this make a block unreadable.
const MAX_DEPTH: usize = 100;
const KEYWORDS: [(&str, &str); 3] = [("True", "true"), ("False", "false"), ("None", "null")];

/// The block does not follow the grammar.
struct Unreadable;

/// Whether the text holds a pythonic start marker (a bare list is never guessed).
pub fn detect(text: &str) -> bool {
    BEGINS.iter().any(|marker| text.contains(marker))
}

pub fn parse<'a>(text: &'a str, _tools: Option<&Tools>) -> Parsed<'a> {
    let (spans, reasoning) = outside_reasoning(text, "<think>", "</think>");
    let mut outside = Vec::new();
    let mut calls = Vec::new();
    let mut blocks_seen = false;
    for span in spans {
        let (pieces, blocks) = special_token_blocks(text, span, "<|", &BEGINS, &ENDS, &[]);
        outside.extend(pieces);
        blocks_seen = blocks_seen || !blocks.is_empty();
        for block in blocks {
            calls.extend(block_calls(block));
        }
    }
    if !blocks_seen {
        let joined = outside.concat();
        let bare = trim_space(&joined);
        if bare.starts_with('[') {
            if let Ok(found) = read_calls(bare, false) {
                // the names are copied: `bare` is the outside text joined here
                let owned = |(name, arguments): (&str, String)| Call {
                    name: Some(Cow::Owned(name.to_owned())),
                    id: None,
                    arguments: decode_object(Cow::Owned(arguments)),
                };
                return Parsed {
                    calls: found.into_iter().map(owned).collect(),
                    content: None,
                    reasoning,
                };
            }
        }
    }
    Parsed {
        calls,
        content: joined_content(&outside),
        reasoning,
    }
}

fn call<'a>((name, arguments): (&'a str, String)) -> Call<'a> {
    Call {
        name: Some(Cow::Borrowed(name)),
        id: None,
        arguments: decode_object(Cow::Owned(arguments)),
    }
}

/// The calls of a marker block, or one unreadable call keeping its text.
fn block_calls(block: &str) -> Vec<Call<'_>> {
    let text = trim_space(block);
    match read_calls(text, true) {
        Ok(found) => found.into_iter().map(call).collect(),
        Err(Unreadable) => vec![Call {
            name: Some(Cow::Borrowed(leading_name(text))),
            id: None,
            arguments: Arguments::Undecodable(Cow::Borrowed(text)),
        }],
    }
}

/// The NAME the block starts with (after an optional `[`) when `(` follows it.
fn leading_name(text: &str) -> &str {
    let b = text.as_bytes();
    let mut i = skip_space(b, 0);
    if b.get(i) == Some(&b'[') {
        i = skip_space(b, i + 1);
    }
    let end = name_end(b, i, true);
    if end > i && b.get(skip_space(b, end)) == Some(&b'(') {
        &text[i..end]
    } else {
        ""
    }
}

/// (name, arguments as JSON text) of each call in `text`, the whole of it.
fn read_calls(text: &str, bare_call: bool) -> Result<Vec<(&str, String)>, Unreadable> {
    let b = text.as_bytes();
    let mut calls = Vec::new();
    let mut i = skip_space(b, 0);
    if b.get(i) == Some(&b'[') {
        i = skip_space(b, i + 1);
        while b.get(i) != Some(&b']') {
            let (name, arguments, end) = read_call(text, i)?;
            calls.push((name, arguments));
            i = skip_space(b, end);
            if b.get(i) == Some(&b',') {
                i = skip_space(b, i + 1);
            } else if b.get(i) != Some(&b']') {
                return Err(Unreadable);
            }
        }
        i += 1;
    } else if bare_call {
        let (name, arguments, end) = read_call(text, i)?;
        calls.push((name, arguments));
        i = end;
    } else {
        return Err(Unreadable);
    }
    if skip_space(b, i) != b.len() {
        return Err(Unreadable);
    }
    Ok(calls)
}

/// `NAME(KEY=value, ...)` at `i`: the name, the arguments as JSON text, the end.
fn read_call(text: &str, i: usize) -> Result<(&str, String, usize), Unreadable> {
    let b = text.as_bytes();
    let end = name_end(b, i, true);
    if end == i {
        return Err(Unreadable);
    }
    let name = &text[i..end];
    let mut i = skip_space(b, end);
    if b.get(i) != Some(&b'(') {
        return Err(Unreadable);
    }
    i = skip_space(b, i + 1);
    let mut keys = HashSet::new();
    let mut out = String::from("{"); // the arguments' JSON text (each value written once)
    while b.get(i) != Some(&b')') {
        let key_end = name_end(b, i, false);
        if key_end == i {
            return Err(Unreadable);
        }
        let key = &text[i..key_end];
        if !keys.insert(key) {
            return Err(Unreadable); // a repeated keyword is a syntax error in Python
        }
        i = skip_space(b, key_end);
        if b.get(i) != Some(&b'=') {
            return Err(Unreadable);
        }
        if out.len() > 1 {
            out.push(',');
        }
        write_json_string(key, &mut out);
        out.push(':');
        i = skip_space(b, read_value(text, skip_space(b, i + 1), 1, &mut out)?);
        if b.get(i) == Some(&b',') {
            i = skip_space(b, i + 1);
        } else if b.get(i) != Some(&b')') {
            return Err(Unreadable);
        }
    }
    out.push('}');
    Ok((name, out, i + 1))
}

/// The value at `i` written to `out` as JSON text; returns the index just after it.
fn read_value(text: &str, i: usize, depth: usize, out: &mut String) -> Result<usize, Unreadable> {
    let b = text.as_bytes();
    let char = b.get(i).copied();
    if matches!(char, Some(b'[' | b'{')) {
        if depth >= MAX_DEPTH {
            return Err(Unreadable);
        }
        return read_container(text, i, depth + 1, out);
    }
    if string_start(b, i) {
        let (value, end) = read_string(text, i)?;
        write_json_string(&value, out);
        return Ok(end);
    }
    let digit_after_point = b.get(i + 1).is_some_and(u8::is_ascii_digit);
    if matches!(char, Some(b'-' | b'0'..=b'9')) || (char == Some(b'.') && digit_after_point) {
        let (number, end) = read_number(text, i)?;
        out.push_str(&number);
        return Ok(end);
    }
    for (word, json) in KEYWORDS {
        if b[i..].starts_with(word.as_bytes()) && name_end(b, i, false) == i + word.len() {
            out.push_str(json);
            return Ok(i + word.len());
        }
    }
    Err(Unreadable)
}

/// The list or dict at `i` written to `out` as JSON text; returns the index after it.
fn read_container(
    text: &str,
    i: usize,
    depth: usize,
    out: &mut String,
) -> Result<usize, Unreadable> {
    let b = text.as_bytes();
    let is_dict = b[i] == b'{';
    let close = if is_dict { b'}' } else { b']' };
    out.push(char::from(b[i]));
    let mut first = true;
    let mut i = skip_space(b, i + 1);
    while b.get(i) != Some(&close) {
        if !first {
            out.push(',');
        }
        first = false;
        if is_dict {
            if !string_start(b, i) {
                return Err(Unreadable); // JSON keys are strings
            }
            let (key, end) = read_string(text, i)?;
            i = skip_space(b, end);
            if b.get(i) != Some(&b':') {
                return Err(Unreadable);
            }
            write_json_string(&key, out);
            out.push(':');
            i = read_value(text, skip_space(b, i + 1), depth, out)?;
        } else {
            i = read_value(text, i, depth, out)?;
        }
        i = skip_space(b, i);
        if b.get(i) == Some(&b',') {
            i = skip_space(b, i + 1);
        } else if b.get(i) != Some(&close) {
            return Err(Unreadable);
        }
    }
    out.push(char::from(close));
    Ok(i + 1)
}

/// Whether a string literal (with an optional prefix) opens at `i`.
fn string_start(b: &[u8], i: usize) -> bool {
    let i = if matches!(b.get(i), Some(b'r' | b'R' | b'u' | b'U')) {
        i + 1
    } else {
        i
    };
    matches!(b.get(i), Some(b'\'' | b'"'))
}

/// The string literal at `i` (see `string_start`): its value, the index after it.
fn read_string(text: &str, i: usize) -> Result<(String, usize), Unreadable> {
    let b = text.as_bytes();
    let raw = matches!(b[i], b'r' | b'R');
    let mut i = if matches!(b[i], b'r' | b'R' | b'u' | b'U') {
        i + 1
    } else {
        i
    };
    let quote = b[i];
    let delimiter: &[u8] = if b[i..].starts_with(&[quote; 3]) {
        &b[i..i + 3]
    } else {
        &b[i..i + 1]
    };
    i += delimiter.len();
    let mut out = String::new();
    loop {
        // A run of plain characters, copied at once: only the quote, a backslash or a
        // newline (all ASCII, so the run ends on a character boundary) stop it.
        let run = memchr::memchr3(quote, b'\\', b'\n', &b[i..]).unwrap_or(b.len() - i);
        out.push_str(&text[i..i + run]);
        i += run;
        if i >= b.len() {
            return Err(Unreadable);
        }
        if b[i..].starts_with(delimiter) {
            return Ok((out, i + delimiter.len()));
        }
        match b[i] {
            b'\n' if delimiter.len() == 1 => return Err(Unreadable),
            b'\\' if i + 1 >= b.len() => return Err(Unreadable),
            b'\\' if raw => {
                // the backslash is kept, the quote does not close
                let next = text[i + 1..].chars().next().ok_or(Unreadable)?;
                out.push('\\');
                out.push(next);
                i += 1 + next.len_utf8();
            }
            b'\\' => i = read_escape(text, i + 1, &mut out)?,
            // the quote inside a triple-quoted string, or a newline in one
            other => {
                out.push(char::from(other));
                i += 1;
            }
        }
    }
}

fn read_escape(text: &str, i: usize, out: &mut String) -> Result<usize, Unreadable> {
    let b = text.as_bytes();
    let simple = match b[i] {
        b'\\' => Some("\\"),
        b'\'' => Some("'"),
        b'"' => Some("\""),
        b'a' => Some("\u{7}"),
        b'b' => Some("\u{8}"),
        b'f' => Some("\u{c}"),
        b'n' => Some("\n"),
        b'r' => Some("\r"),
        b't' => Some("\t"),
        b'v' => Some("\u{b}"),
        b'\n' => Some(""),
        _ => None,
    };
    if let Some(simple) = simple {
        out.push_str(simple);
        return Ok(i + 1);
    }
    if (b'0'..=b'7').contains(&b[i]) {
        let mut end = i + 1;
        while end < b.len() && end < i + 3 && (b'0'..=b'7').contains(&b[end]) {
            end += 1;
        }
        let code = u32::from_str_radix(&text[i..end], 8).map_err(|_| Unreadable)?;
        out.push(char::from_u32(code).ok_or(Unreadable)?);
        return Ok(end);
    }
    let width = match b[i] {
        b'x' => 2,
        b'u' => 4,
        b'U' => 8,
        b'N' => return Err(Unreadable), // \N{NAME} needs the Unicode name table
        _ => {
            // not an escape: the backslash stays
            let char = text[i..].chars().next().ok_or(Unreadable)?;
            out.push('\\');
            out.push(char);
            return Ok(i + char.len_utf8());
        }
    };
    let digits = b.get(i + 1..i + 1 + width).ok_or(Unreadable)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return Err(Unreadable);
    }
    let code = u32::from_str_radix(&text[i + 1..i + 1 + width], 16).map_err(|_| Unreadable)?;
    out.push(char::from_u32(code).ok_or(Unreadable)?); // surrogates and > 0x10FFFF fail
    Ok(i + 1 + width)
}

/// The number at `i` as JSON number text, and the index just after it.
fn read_number(text: &str, i: usize) -> Result<(String, usize), Unreadable> {
    let b = text.as_bytes();
    let mut i = i;
    let sign = if b.get(i) == Some(&b'-') {
        i += 1;
        "-"
    } else {
        ""
    };
    let integer_end = digits_end(b, i);
    let integer = &text[i..integer_end];
    i = integer_end;
    let mut fraction = None;
    if b.get(i) == Some(&b'.') {
        let fraction_end = digits_end(b, i + 1);
        fraction = Some(&text[i + 1..fraction_end]);
        i = fraction_end;
    }
    let mut exponent = "";
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exponent_end = digits_end(b, j);
        if exponent_end == j {
            return Err(Unreadable);
        }
        exponent = &text[i..exponent_end];
        i = exponent_end;
    }
    if integer.is_empty() && fraction.is_none_or(str::is_empty) {
        return Err(Unreadable); // "-", ".", "-."
    }
    if b.get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.'))
    {
        return Err(Unreadable); // 1j, 1_000, 0x1, 1.2.3
    }
    if fraction.is_none() && exponent.is_empty() {
        if integer.len() > 1 && integer.starts_with('0') {
            return Err(Unreadable); // 007 is a syntax error in Python
        }
        return Ok((sign.to_owned() + integer, i));
    }
    let integer = match integer.trim_start_matches('0') {
        "" => "0",
        digits => digits,
    };
    let fraction = fraction.filter(|f| !f.is_empty()).unwrap_or("0");
    Ok((format!("{sign}{integer}.{fraction}{exponent}"), i))
}

fn digits_end(b: &[u8], i: usize) -> usize {
    let mut i = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// The end of the IDENT (or, `dotted`, the NAME) at `i`; `i` when there is none.
fn name_end(b: &[u8], i: usize, dotted: bool) -> usize {
    let ident_start = |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_');
    let mut i = i;
    while ident_start(b.get(i)) {
        i += 1;
        while b
            .get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            i += 1;
        }
        if !(dotted && b.get(i) == Some(&b'.') && ident_start(b.get(i + 1))) {
            return i;
        }
        i += 1;
    }
    i
}

/// `value` as a JSON string (`"`, `\` and control characters escaped).
fn write_json_string(value: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(value.len() + 2);
    out.push('"');
    let b = value.as_bytes();
    let mut start = 0;
    for (at, &byte) in b.iter().enumerate() {
        // Every byte that needs an escape is ASCII: the runs between end on boundaries.
        if byte != b'"' && byte != b'\\' && byte >= b' ' {
            continue;
        }
        out.push_str(&value[start..at]);
        if byte < b' ' {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 15)]));
        } else {
            out.push('\\');
            out.push(char::from(byte));
        }
        start = at + 1;
    }
    out.push_str(&value[start..]);
    out.push('"');
}
