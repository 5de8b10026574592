//! Ollama `/api/chat`: `ChatResponse`. Calls are `message.tool_calls[].function.{name,
//! arguments}` (`arguments` an object, or a JSON string); the id is the call's `id`
//! where present. Mirrors `python/toolsift/_pure/formats/ollama.py` line by line.

use super::{members, openai, Context, RawCall, Turn};
use crate::accumulator::Accumulator;
use crate::json::Keep;
use crate::node::Node;

/// `message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`: an OpenAI chat
/// message's calls.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    openai::message_calls(&doc.field("message")?, out)
}

/// One turn: the message's calls, and its `content` (the assistant text).
pub fn turns<N: Node>(doc: &N, out: &mut Vec<Turn<N>>) -> Result<(), N::Error> {
    let message = doc.field("message")?;
    let mut turn = Turn::default();
    openai::message_calls(&message, &mut turn.calls)?;
    openai::content_texts(super::field_of(&message, "content")?, &mut turn.texts)?;
    out.push(turn);
    Ok(())
}

/// The parts [`walk`] reads, and the scalars [`detect`] reads (for auto-detection on
/// pruned documents).
pub fn keep() -> Keep {
    let mut keep = members(&[("message", openai::message_keep())]);
    keep.merge(&members(&[("model", Keep::all()), ("done", Keep::all())]));
    keep.merge(&members(&[("done_reason", Keep::all())]));
    keep
}

/// `model`, `done_reason`; a response has no id.
pub fn context<N: Node>(doc: &N) -> Result<Context<N>, N::Error> {
    Ok(Context {
        model: doc.field("model")?,
        response_id: None,
        finish_reason: doc.field("done_reason")?,
        choice_finish: &[],
    })
}

/// Members one of which every response [`detect`] recognizes has (auto-detection looks
/// no further at a response with none of them).
pub const KEYS: &[&str] = &["message"];

/// A `message` object, a string `model` and a boolean `done`.
pub fn detect<N: Node>(doc: &N) -> bool {
    let message = doc.probe("message");
    let model = doc.probe("model");
    let done = doc.probe("done");
    message.is_some_and(|m| m.is_object())
        && model.is_some_and(|m| m.is_string())
        && done.is_some_and(|d| d.is_bool())
}

// The stream reader: chunks holding whole calls.

/// A chat chunk: a `message` and a `done` flag.
pub fn stream_detect<N: Node>(event: &N) -> Result<bool, N::Error> {
    let done = event.field("done")?.is_some_and(|d| d.is_bool());
    Ok(event.field("message")?.is_some() && done)
}

/// Never: every chunk is a whole `ChatResponse`, read as a response.
pub fn is_stream_piece<N: Node>(_: &N) -> Result<bool, N::Error> {
    Ok(false)
}

/// Every call of the chunk, whole; an `{"error": "..."}` line is the stream's error (a
/// dict: the SDK raises it instead).
pub fn stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    let mut calls = Vec::new();
    walk(event, &mut calls)?;
    for call in calls {
        acc.whole_call(call.name, call.id, call.arguments, call.verbatim)?;
    }
    if let Some(error) = event.member("error")? {
        acc.provider_error(Some(&error), None)?;
    }
    Ok(())
}
