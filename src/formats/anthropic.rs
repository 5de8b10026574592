//! Anthropic Messages API: the `Message` object (also Bedrock InvokeModel's body for
//! Claude). Calls are the `content[]` blocks of type `tool_use` (`id`, `name`, `input`);
//! `server_tool_use` and other blocks give none. Message Batches result lines are
//! unwrapped by [`unwrap_batch`]. Mirrors `python/toolsift/_pure/formats/anthropic.py`
//! line by line.

use super::{field_of, items, members, path, Context, RawCall, Turn};
use crate::accumulator::{event_type, index_of, typed_event, Accumulator, ERROR_TYPE};
use crate::compact;
use crate::json::{Keep, Tape, Token};
use crate::node::{value, Describer, Envelope, Failure, Index, Node};

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

/// One turn: the `tool_use` blocks, and the `text` of the `text` blocks.
pub fn turns<N: Node>(doc: &N, out: &mut Vec<Turn<N>>) -> Result<(), N::Error> {
    let mut turn = Turn::default();
    walk(doc, &mut turn.calls)?;
    super::typed_texts(doc.field("content")?, "text", &mut turn.texts)?;
    out.push(turn);
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
pub fn detect<N: Node>(doc: &N) -> bool {
    let kind = doc.probe("type");
    let role = doc.probe("role");
    let content = doc.probe("content");
    kind.is_some_and(|k| k.is_str("message"))
        && role.is_some_and(|r| r.is_str("assistant"))
        && content.is_some_and(|c| c.is_list())
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
pub fn unwrap_batch<N: Node>(doc: &N) -> Result<Option<Envelope<N>>, N::Error> {
    if !(doc.has_key("custom_id")? && doc.has_key("result")?) {
        return Ok(None);
    }
    let custom_id = doc.member("custom_id")?.filter(N::is_string);
    let Some(result) = doc.member("result")?.filter(N::is_object) else {
        return Ok(Some(Envelope::failed(Failure::NoResponse, custom_id)));
    };
    let kind = result.member("type")?;
    let found = match kind {
        Some(kind) if kind.is_str("succeeded") => match result.member("message")? {
            Some(message) => Ok(message),
            None => Err(Failure::NoResponse),
        },
        Some(kind) if kind.is_str("errored") => {
            Err(Failure::Error(result.member("error")?, &DESCRIBE_ERROR))
        }
        Some(kind) if kind.is_str("canceled") => Err(Failure::Canceled),
        Some(kind) if kind.is_str("expired") => Err(Failure::Expired),
        kind => Err(Failure::UnknownKind(kind)),
    };
    Ok(Some(Envelope {
        response: found,
        custom_id,
    }))
}

/// How a Message Batches error is said ([`describe`], the pure `_describe`).
static DESCRIBE_ERROR: Describer = Describer {
    tape: |error| describe(error.map(|e| (e.tape, e.idx))),
    pure: ("toolsift._pure.formats.anthropic", "_describe"),
};

fn is_object(tape: &Tape<'_>, idx: usize) -> bool {
    matches!(tape.tokens[idx], Token::Object { .. })
}

/// An ErrorResponse (`{"type": "error", "error": {"type", "message"}}`, or its bare
/// inner object) as `TYPE: MESSAGE` (or `MESSAGE`); else as the other envelopes' errors.
fn describe(error: Option<(&Tape<'_>, usize)>) -> String {
    let Some((tape, error)) = error else {
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
