//! Cohere's Chat API, v2 (`V2ChatResponse`) and v1 (`NonStreamedChatResponse`). v2 calls
//! are `message.tool_calls[]` (`{id, type: "function", function: {name, arguments}}`,
//! `arguments` a JSON string); the id is the call's `id`. v1 calls are the response's own
//! `tool_calls[]` (`{name, parameters}`, `parameters` an object); they have no id. A v1
//! response has no `message` and a v2 one no top-level `tool_calls`, so the walker reads
//! both places (never `chat_history`, whose messages may carry earlier turns' calls).
//! Mirrors `python/toolsift/_pure/formats/cohere.py` line by line.

use super::{elements_of, field_of, first_field, items, members, openai, Context, RawCall, Turn};
use crate::accumulator::{event_type, index_of, kind_at, typed_event, Accumulator};
use crate::json::Keep;
use crate::node::{Index, Node};

/// `ChatFinishReason` of the v2 API.
pub const FINISH_REASONS: [&str; 6] = [
    "COMPLETE",
    "STOP_SEQUENCE",
    "MAX_TOKENS",
    "TOOL_CALL",
    "ERROR",
    "TIMEOUT",
];

/// `FinishReason` of the v1 API (cohere-python `types/finish_reason.py`).
pub const V1_FINISH_REASONS: [&str; 8] = [
    "COMPLETE",
    "STOP_SEQUENCE",
    "ERROR",
    "ERROR_TOXIC",
    "ERROR_LIMIT",
    "USER_CANCEL",
    "MAX_TOKENS",
    "TIMEOUT",
];

/// v2: `message.tool_calls[].function.{name, arguments}`, `tool_calls[].id` (an OpenAI
/// chat message's calls); then v1: the response's `tool_calls[]`.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    openai::message_calls(&doc.field("message")?, out)?;
    v1_calls(doc.field("tool_calls")?, out)
}

/// One turn: the calls, and the text: v2 `message.content` (text parts), v1 `text`.
pub fn turns<N: Node>(doc: &N, out: &mut Vec<Turn<N>>) -> Result<(), N::Error> {
    let mut turn = Turn::default();
    walk(doc, &mut turn.calls)?;
    openai::content_texts(
        field_of(&doc.field("message")?, "content")?,
        &mut turn.texts,
    )?;
    turn.texts.extend(doc.field("text")?);
    out.push(turn);
    Ok(())
}

/// v1 `tool_calls[].{name, parameters}` (no id); an entry with neither is skipped.
pub fn v1_calls<N: Node>(tool_calls: Option<N>, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    for call in elements_of(tool_calls) {
        let name = call.field("name")?;
        let parameters = call.field("parameters")?;
        if name.is_some() || parameters.is_some() {
            out.push(RawCall::new(name, None, parameters));
        }
    }
    Ok(())
}

/// The parts [`walk`] reads, and the scalars [`detect`] reads (for auto-detection on
/// pruned documents; of `text`, only its type).
pub fn keep() -> Keep {
    let mut keep = members(&[("message", openai::message_keep())]);
    keep.merge(&members(&[("finish_reason", Keep::all())]));
    let v1_call = members(&[("name", Keep::all()), ("parameters", Keep::all())]);
    keep.merge(&members(&[
        ("tool_calls", items(v1_call)),
        ("text", Keep::default()),
        ("generation_id", Keep::all()),
        // An event of the stream given alone (`is_stream_piece`).
        ("type", Keep::all()),
        ("event_type", Keep::all()),
    ]));
    keep.merge(&members(&[
        ("id", Keep::all()),
        ("response_id", Keep::all()),
    ]));
    keep
}

/// The id (v2 `id`; v1 `response_id`, else `generation_id`), `finish_reason`; a
/// response names no model.
pub fn context<N: Node>(doc: &N) -> Result<Context<N>, N::Error> {
    Ok(Context {
        model: None,
        response_id: first_field(doc, &["id", "response_id", "generation_id"])?,
        finish_reason: doc.field("finish_reason")?,
        choice_finish: &[],
    })
}

/// Members one of which every response [`detect`] recognizes has (auto-detection looks
/// no further at a response with none of them).
pub const KEYS: &[&str] = &["finish_reason", "generation_id"];

/// v2: a `message` object with a `tool_calls`, `content` or `tool_plan` member, and a
/// `finish_reason` of the v2 API's enum. v1: a `tool_calls` list or a `text` string, with
/// a `generation_id` string or a `finish_reason` of the v1 API's enum (no other
/// provider's response has these members). (The members need only be there: on a pruned
/// document a value not read stands as null.)
pub fn detect<N: Node>(doc: &N) -> bool {
    let message = doc.probe("message");
    let reason = doc.probe("finish_reason");
    if let Some(message) = message.filter(|m| m.is_object()) {
        let has_part = ["tool_calls", "content", "tool_plan"]
            .iter()
            .any(|key| message.has_key(key).unwrap_or(false));
        if has_part && reason.as_ref().is_some_and(|r| r.str_in(&FINISH_REASONS)) {
            return true;
        }
    }
    let calls = doc.probe("tool_calls");
    let text = doc.probe("text");
    let generation = doc.probe("generation_id");
    (calls.is_some_and(|c| c.is_list()) || text.is_some_and(|t| t.is_string()))
        && (generation.is_some_and(|g| g.is_string())
            || reason.is_some_and(|r| r.str_in(&V1_FINISH_REASONS)))
}

// The stream reader: v2 chat stream events (`type`), and v1 ones (`event_type`); see the
// Python twin for why v1's `tool-calls-chunk` is not read.

/// The `type`s of v2 chat stream events.
pub const STREAM_TYPES: &[&str] = &[
    "message-start",
    "content-start",
    "content-delta",
    "content-end",
    "tool-plan-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "citation-start",
    "citation-end",
    "message-end",
];

/// The `event_type`s of v1 chat stream events.
pub const V1_STREAM_TYPES: &[&str] = &[
    "stream-start",
    "search-queries-generation",
    "search-results",
    "text-generation",
    "citation-generation",
    "tool-calls-chunk",
    "tool-calls-generation",
    "stream-end",
    "debug",
];

/// The group of calls given whole ([`Accumulator::whole_call`]'s keys): its `latest` call
/// is the last one a v1 `tool-calls-generation` gave in the response being streamed.
pub const GENERATED: i64 = -1;

/// A v2 chat stream event: its `type` is one of [`STREAM_TYPES`]; or a v1 one: its
/// `event_type` is one of [`V1_STREAM_TYPES`].
pub fn stream_detect<N: Node>(event: &N) -> Result<bool, N::Error> {
    if typed_event(event, STREAM_TYPES)? {
        return Ok(true);
    }
    let kind = kind_at(event, "event_type")?;
    Ok(kind.is_some_and(|kind| V1_STREAM_TYPES.contains(&kind.as_str())))
}

/// An event of the stream given alone (a log that keeps only v1's `stream-end`, say):
/// `parse` reads it as a stream of that one event. Neither API's response has a `type`
/// or an `event_type`.
pub fn is_stream_piece<N: Node>(doc: &N) -> Result<bool, N::Error> {
    stream_detect(doc)
}

/// v2: `tool-call-start` starts a call (name, id, any first arguments), `tool-call-delta`
/// appends `arguments`, `tool-call-end` completes it; `message-end` completes all, and
/// says whether the generation failed ([`failed`]). Any other event is read as a v1 one
/// ([`v1_stream_event`]).
pub fn stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    let kind = event_type(event)?.unwrap_or_default();
    let index = index_of(event.field("index")?)?;
    let at = match kind.as_str() {
        "tool-call-start" => acc.start(Index::Int(0), index, None),
        "tool-call-delta" | "tool-call-end" => {
            let Some(at) = acc.started(Index::Int(0), index) else {
                return Ok(());
            };
            at
        }
        "message-end" => {
            let delta = event.field("delta")?;
            failed(
                field_of(&delta, "error")?,
                field_of(&delta, "finish_reason")?,
                acc,
            )?;
            acc.complete_all(None);
            return Ok(());
        }
        _ => return v1_stream_event(event, acc),
    };
    let message = field_of(&event.field("delta")?, "message")?;
    let call = field_of(&message, "tool_calls")?;
    let function = field_of(&call, "function")?;
    acc.slots[at].set_name(field_of(&function, "name")?)?;
    acc.set_id(at, field_of(&call, "id")?)?;
    acc.slots[at].append(field_of(&function, "arguments")?)?;
    if kind == "tool-call-end" {
        acc.complete(at);
    }
    Ok(())
}

/// The finish reasons of a generation that failed: v2's `ERROR` and `TIMEOUT`, v1's
/// `ERROR`, `ERROR_TOXIC` (stopped by the content filters) and `ERROR_LIMIT` (the context
/// window filled).
const FAILED: [&str; 4] = ["ERROR", "TIMEOUT", "ERROR_TOXIC", "ERROR_LIMIT"];

/// A generation that failed is the stream's error: its error message where one is given
/// (v2's `message-end` `delta.error`), else its finish reason.
fn failed<N: Node>(
    message: Option<N>,
    finish: Option<N>,
    acc: &mut Accumulator,
) -> Result<(), N::Error> {
    if let Some(message) = message.filter(|message| message.is_nonempty_str()) {
        return acc.provider_error(Some(&message), None);
    }
    match finish {
        Some(finish) if FAILED.iter().any(|reason| finish.is_str(reason)) => {
            acc.provider_error(Some(&finish), None)
        }
        _ => Ok(()),
    }
}

/// v1: `tool-calls-generation` gives its `tool_calls`, whole; `stream-end` its
/// `response`'s, where no `tool-calls-generation` gave calls since the response's
/// `stream-start` (they are the same calls), and its `finish_reason` whether the
/// generation failed ([`failed`]).
pub fn v1_stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    let kind = kind_at(event, "event_type")?.unwrap_or_default();
    match kind.as_str() {
        "tool-calls-generation" => {
            let mut calls = Vec::new();
            v1_calls(event.field("tool_calls")?, &mut calls)?;
            for call in calls {
                acc.whole_call(call.name, call.id, call.arguments, call.verbatim)?;
                acc.latest
                    .insert(Index::Int(GENERATED), acc.slots.len() - 1);
            }
        }
        "stream-end" => {
            failed(None, event.field("finish_reason")?, acc)?;
            let given = acc.latest.remove(&Index::Int(GENERATED)).is_some();
            if !given {
                let mut calls = Vec::new();
                v1_calls(
                    field_of(&event.field("response")?, "tool_calls")?,
                    &mut calls,
                )?;
                for call in calls {
                    acc.whole_call(call.name, call.id, call.arguments, call.verbatim)?;
                }
            }
        }
        "stream-start" => {
            acc.latest.remove(&Index::Int(GENERATED));
        }
        _ => {}
    }
    Ok(())
}
