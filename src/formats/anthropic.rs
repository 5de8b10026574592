//! Anthropic Messages API: the `Message` object (also Bedrock InvokeModel's body for
//! Claude). Calls are the `content[]` blocks of type `tool_use` (`id`, `name`, `input`);
//! `server_tool_use` and other blocks give none. Message Batches result lines are
//! unwrapped by [`unwrap_batch`]. Mirrors `python/toolsift/_pure/formats/anthropic.py`
//! line by line.

use super::{field_of, items, members, path, Context, RawCall};
use crate::accumulator::{event_type, index_of, typed_event, Accumulator, ERROR_TYPE};
use crate::calls::string_at;
use crate::compact;
use crate::json::{Keep, Tape, Token};
use crate::node::{has, value, Index, Located, Node, TapeNode};

/// `content[]` blocks `tool_use`: `{id, name, input}`.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    let content = doc.field("content")?;
    for block in super::elements_of(content) {
        if block.field("type")?.is_some_and(|t| t.is_str("tool_use")) {
            out.push(RawCall::new(
                block.field("name")?,
                block.field("id")?,
                block.field("input")?,
            ));
        }
    }
    Ok(())
}

/// The parts [`walk`] reads, and the scalars [`detect`] reads (for auto-detection on
/// pruned documents).
pub fn keep() -> Keep {
    let mut keep = path(
        &["content"],
        items(members(&[
            ("type", Keep::all()),
            ("name", Keep::all()),
            ("id", Keep::all()),
            ("input", Keep::all()),
        ])),
    );
    keep.merge(&members(&[("type", Keep::all()), ("role", Keep::all())]));
    keep.merge(&members(&[
        ("model", Keep::all()),
        ("id", Keep::all()),
        ("stop_reason", Keep::all()),
    ]));
    keep
}

/// `model`, `id`, `stop_reason`.
pub fn context<N: Node>(doc: &N) -> Result<Context<N>, N::Error> {
    Ok(Context {
        model: doc.field("model")?,
        response_id: doc.field("id")?,
        finish_reason: doc.field("stop_reason")?,
        choice_finish: &[],
    })
}

/// Members one of which every response [`detect`] recognizes has (auto-detection looks
/// no further at a response with none of them).
pub const KEYS: &[&str] = &["content"];

/// `"type": "message"`, `"role": "assistant"` and a `content` list.
pub fn detect(doc: &TapeNode<'_, '_>) -> bool {
    let Ok(kind) = doc.member("type");
    let Ok(role) = doc.member("role");
    let Ok(content) = doc.member("content");
    kind.is_some_and(|k| k.is_str("message"))
        && role.is_some_and(|r| r.is_str("assistant"))
        && content.is_some_and(|c| c.is_array())
}

/// The parts of a Message Batches result line [`unwrap_batch`] reads, with `response`
/// (what the format reads of a response) kept of its Message.
pub fn batch_keep(response: &Keep) -> Keep {
    members(&[
        ("custom_id", Keep::all()),
        (
            "result",
            members(&[
                ("type", Keep::all()),
                ("error", Keep::all()),
                ("message", response.clone()),
            ]),
        ),
    ])
}

/// A Message Batches result line (an object with `custom_id` and `result`): where its
/// Message is, or why there is none; None for any other record. See `unwrap_batch` in
/// the Python module for the rules.
pub fn unwrap_batch<'a>(tape: &Tape<'a>, root: usize) -> Option<Located<'a>> {
    if !(has(tape, root, "custom_id") && has(tape, root, "result")) {
        return None;
    }
    let custom_id = value(tape, root, "custom_id").and_then(|idx| string_at(tape, idx));
    let no_response = || "batch record has no response".to_owned();
    let response = match value(tape, root, "result").filter(|&r| is_object(tape, r)) {
        None => Err(no_response()),
        Some(result) => {
            let kind = value(tape, result, "type");
            match kind.and_then(|k| tape.str_at(k)) {
                Some("succeeded") => value(tape, result, "message").ok_or_else(no_response),
                Some("errored") => Err(format!(
                    "batch error: {}",
                    describe(tape, value(tape, result, "error"))
                )),
                Some("canceled") => Err("batch canceled".to_owned()),
                Some("expired") => Err("batch expired".to_owned()),
                _ => Err(format!(
                    "unknown batch result type: {}",
                    kind.map_or_else(|| "null".to_owned(), |k| compact::to_string(tape, k))
                )),
            }
        }
    };
    Some(Located {
        response,
        custom_id,
    })
}

fn is_object(tape: &Tape<'_>, idx: usize) -> bool {
    matches!(tape.tokens[idx], Token::Object { .. })
}

/// An ErrorResponse (`{"type": "error", "error": {"type", "message"}}`, or its bare
/// inner object) as `TYPE: MESSAGE` (or `MESSAGE`); else as the other envelopes' errors.
fn describe(tape: &Tape<'_>, error: Option<usize>) -> String {
    let Some(error) = error else {
        return "null".to_owned();
    };
    let inner = value(tape, error, "error").filter(|&i| is_object(tape, i));
    let detail = inner.unwrap_or(error);
    if is_object(tape, detail) {
        if let Some(message) = value(tape, detail, "message").and_then(|m| tape.str_at(m)) {
            return match value(tape, detail, "type").and_then(|k| tape.str_at(k)) {
                Some(kind) => format!("{kind}: {message}"),
                None => message.to_owned(),
            };
        }
    }
    match tape.str_at(error) {
        Some(text) => text.to_owned(),
        None => compact::to_string(tape, error),
    }
}

// The stream reader: Messages streaming events.

/// The `type`s of Messages streaming events.
pub const STREAM_TYPES: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
];

/// A Messages streaming event: its `type` is one of [`STREAM_TYPES`].
pub fn stream_detect<N: Node>(event: &N) -> Result<bool, N::Error> {
    typed_event(event, STREAM_TYPES)
}

/// An event of the stream given alone (a log that keeps only some events, or an `error`
/// event): `parse` reads it as a stream of that one event. A `Message`'s `type` is
/// `message`, no event's.
pub fn is_stream_piece<N: Node>(doc: &N) -> Result<bool, N::Error> {
    Ok(stream_detect(doc)? || typed_event(doc, ERROR_TYPE)?)
}

/// `tool_use` blocks: started by `content_block_start` (its `input`, `{}`, stands where
/// no fragment comes), `input_json_delta.partial_json` appended, completed by
/// `content_block_stop`; `message_stop` completes every call of its message. A
/// `message_start` begins a message whose block indices start again at 0: its blocks are
/// a new group, so the calls of the messages before it stay as they are. An `error` event
/// (`overloaded_error`, ...) is the stream's error.
pub fn stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    let kind = event_type(event)?.unwrap_or_default();
    let index = index_of(event.field("index")?)?;
    match kind.as_str() {
        "message_start" => acc.message += 1,
        "content_block_start" => {
            let block = event.field("content_block")?;
            if field_of(&block, "type")?.is_some_and(|t| t.is_str("tool_use")) {
                let at = acc.start(Index::Int(acc.message), index, None);
                acc.slots[at].set_name(field_of(&block, "name")?)?;
                acc.set_id(at, field_of(&block, "id")?)?;
                acc.slots[at].set_whole(field_of(&block, "input")?)?;
            }
        }
        "content_block_delta" => {
            let delta = event.field("delta")?;
            if let Some(at) = acc.started(Index::Int(acc.message), index) {
                if field_of(&delta, "type")?.is_some_and(|t| t.is_str("input_json_delta")) {
                    acc.slots[at].append(field_of(&delta, "partial_json")?)?;
                }
            }
        }
        "content_block_stop" => {
            if let Some(at) = acc.started(Index::Int(acc.message), index) {
                acc.complete(at);
            }
        }
        "message_stop" => acc.complete_all(Some(&Index::Int(acc.message))),
        // {"type": "error", "error": {"type", "message"}}
        "error" => acc.provider_error(event.field("error")?.as_ref(), None)?,
        _ => {}
    }
    Ok(())
}
