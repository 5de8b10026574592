//! gpt-oss Harmony text (`harmony`): follows `python/toolsift/_pure/dialects/harmony.py`
//! (its docstring is the specification) line by line.

use super::text::{find_in, marker_after_prefix, trim_space};
use super::{Parsed, Tools};
use crate::calls::{decode_object, Arguments, Call};
use std::borrow::Cow;

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const CONSTRAIN: &str = "<|constrain|>";
const MESSAGE: &str = "<|message|>";
const ENDS: [&str; 3] = ["<|end|>", "<|call|>", "<|return|>"];
const TOKENS: [&str; 7] = [
    START, CHANNEL, CONSTRAIN, MESSAGE, ENDS[0], ENDS[1], ENDS[2],
];
const RECIPIENT: &str = "to=";
const NAME_PREFIX: &str = "functions.";
/// The roles of the model's own messages.
const ASSISTANT: [&str; 2] = ["", "assistant"];

/// Whether the text holds Harmony's `<|channel|>` token.
pub fn detect(text: &str) -> bool {
    text.contains(CHANNEL)
}

/// What the messages found so far hold.
#[derive(Default)]
struct Found<'a> {
    calls: Vec<Call<'a>>,
    reasoning: Vec<&'a str>,
    content: Vec<&'a str>,
}

pub fn parse<'a>(text: &'a str, _tools: Option<&Tools>) -> Parsed<'a> {
    let len = text.len();
    let mut found = Found::default();
    let mut header = 0; // where the current header begins
    let mut header_end = None; // where its `<|message|>` is; None: still in the header
    let mut at = find_in(text, "<|", 0, len);
    while let Some(here) = at {
        let Some(token) = marker_after_prefix(text, here, 2, &TOKENS) else {
            at = find_in(text, "<|", here + 2, len);
            continue;
        };
        let after = here + token.len();
        let is_break = token == START || ENDS.contains(&token);
        if let Some(end) = header_end {
            // in a body: only an end token ends it
            if ENDS.contains(&token) {
                let body = &text[end + MESSAGE.len()..here];
                filed(&text[header..end], body, &mut found);
                (header, header_end) = (after, None);
            }
        } else if is_break {
            // a header without a message
            found.content.push(&text[header..here]);
            header = after;
        } else if token == MESSAGE {
            header_end = Some(here);
        }
        at = find_in(text, "<|", after, len);
    }
    if let Some(end) = header_end {
        // cut off in a body
        filed(&text[header..end], &text[end + MESSAGE.len()..], &mut found);
    } else if text[header..].contains(CHANNEL) {
        // cut off in a header: a call where it names one
        let (role, _, recipient) = header_words(&text[header..]);
        if is_call(role, recipient) {
            found.calls.push(Call {
                name: Some(Cow::Borrowed(name_of(recipient.unwrap_or_default()))),
                id: None,
                arguments: Arguments::Undecodable(Cow::Borrowed("")),
            });
        }
    } else {
        found.content.push(&text[header..]);
    }
    Parsed {
        calls: found.calls,
        content: joined(&found.content),
        reasoning: joined(&found.reasoning),
    }
}

/// Files one message by its header: a call, reasoning or content.
fn filed<'a>(header: &'a str, body: &'a str, found: &mut Found<'a>) {
    let (role, channel, recipient) = header_words(header);
    if is_call(role, recipient) {
        found.calls.push(Call {
            name: Some(Cow::Borrowed(name_of(recipient.unwrap_or_default()))),
            id: None,
            arguments: decode_object(Cow::Borrowed(trim_space(body))),
        });
    } else if ASSISTANT.contains(&role) && recipient.is_none() && channel == "analysis" {
        found.reasoning.push(body);
    } else {
        found.content.push(body);
    }
}

/// Whether a message is the assistant's call: it has a recipient other than itself.
fn is_call(role: &str, recipient: Option<&str>) -> bool {
    ASSISTANT.contains(&role) && recipient.is_some_and(|r| r != "assistant")
}

/// (role, channel, recipient) of a header: "" where missing, recipient None.
fn header_words(header: &str) -> (&str, &str, Option<&str>) {
    let (role_part, channel_part) = match header.find(CHANNEL) {
        None => (header, ""),
        Some(cut) => (&header[..cut], &header[cut + CHANNEL.len()..]),
    };
    let role_words: Vec<&str> = words(role_part).collect();
    let channel_words: Vec<&str> = words(channel_part).collect();
    let recipient =
        (role_words.iter().chain(&channel_words)).find_map(|word| word.strip_prefix(RECIPIENT));
    let role = match role_words.first() {
        Some(word) if !word.starts_with(RECIPIENT) => word,
        _ => "",
    };
    let channel = (channel_words.iter())
        .find(|word| !word.starts_with(RECIPIENT))
        .copied()
        .unwrap_or("");
    (role, channel, recipient)
}

/// The words of a header part, split on ASCII whitespace (`<|constrain|>` is a space).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split([' ', '\t', '\n', '\r'])
        .flat_map(|word| word.split(CONSTRAIN))
        .filter(|word| !word.is_empty())
}

fn name_of(recipient: &str) -> &str {
    recipient.strip_prefix(NAME_PREFIX).unwrap_or(recipient)
}

/// The pieces stripped, the non-empty ones joined by a blank line; None if none.
fn joined(pieces: &[&str]) -> Option<String> {
    let kept: Vec<&str> = (pieces.iter().copied())
        .map(trim_space)
        .filter(|piece| !piece.is_empty())
        .collect();
    (!kept.is_empty()).then(|| kept.join("\n\n"))
}
