//! Cohere Chat API v2: `V2ChatResponse`. Calls are `message.tool_calls[]` (`{id, type:
//! "function", function: {name, arguments}}`, `arguments` a JSON string); the id is the
//! call's `id`. Mirrors `python/toolsift/_pure/formats/cohere.py` line by line.

use super::{field_of, members, openai, RawCall};
use crate::json::Keep;
use crate::node::{Node, TapeNode};
use crate::stream::{event_type, index_of, typed_event, Accumulator, Index};

/// `ChatFinishReason` of the v2 API.
pub const FINISH_REASONS: [&str; 6] = [
    "COMPLETE",
    "STOP_SEQUENCE",
    "MAX_TOKENS",
    "TOOL_CALL",
    "ERROR",
    "TIMEOUT",
];

/// `message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`: an OpenAI chat
/// message's calls.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    openai::message_calls(&doc.field("message")?, out)
}

/// The parts [`walk`] reads, and the scalars [`detect`] reads (for auto-detection on
/// pruned documents).
pub fn keep() -> Keep {
    let mut keep = members(&[("message", openai::message_keep())]);
    keep.merge(&members(&[("finish_reason", Keep::all())]));
    keep
}

/// Members one of which every response [`detect`] recognizes has (auto-detection looks
/// no further at a response with none of them).
pub const KEYS: &[&str] = &["message"];

/// A `message` object with a `tool_calls`, `content` or `tool_plan` member, and a
/// `finish_reason` of the v2 API's enum. (The members need only be there: on a pruned
/// document a value not read stands as null.)
pub fn detect(doc: &TapeNode<'_, '_>) -> bool {
    let Ok(message) = doc.member("message");
    let Ok(reason) = doc.member("finish_reason");
    let Some(message) = message.filter(|m| m.is_object()) else {
        return false;
    };
    let keys = message.keys();
    let has_part = ["tool_calls", "content", "tool_plan"]
        .iter()
        .any(|key| keys.contains(key));
    has_part
        && reason
            .and_then(|r| r.as_str())
            .is_some_and(|r| FINISH_REASONS.contains(&r))
}

// The stream reader: v2 chat stream events.

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

/// A v2 chat stream event: its `type` is one of [`STREAM_TYPES`].
pub fn stream_detect<N: Node>(event: &N) -> Result<bool, N::Error> {
    typed_event(event, STREAM_TYPES)
}

/// `tool-call-start` starts a call (name, id, any first arguments), `tool-call-delta`
/// appends `arguments`, `tool-call-end` completes it; `message-end` completes all.
pub fn stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    let kind = event_type(event)?.unwrap_or_default();
    let index = index_of(event.field("index")?)?;
    let at = match kind.as_str() {
        "tool-call-start" => {
            let key = index.map_or_else(|| acc.new_key(&Index::Int(0)), |i| (Index::Int(0), i));
            let at = acc.slot(key, None);
            acc.latest.insert(Index::Int(0), at);
            at
        }
        "tool-call-delta" | "tool-call-end" => {
            let found = match index {
                None => acc.latest.get(&Index::Int(0)).copied(),
                Some(index) => acc.existing(&(Index::Int(0), index)),
            };
            let Some(at) = found else {
                return Ok(());
            };
            at
        }
        "message-end" => {
            acc.complete_all(None);
            return Ok(());
        }
        _ => return Ok(()),
    };
    let message = field_of(&event.field("delta")?, "message")?;
    let call = field_of(&message, "tool_calls")?;
    let function = field_of(&call, "function")?;
    let slot = &mut acc.slots[at];
    slot.set_name(field_of(&function, "name")?)?;
    slot.set_id(field_of(&call, "id")?)?;
    slot.append(field_of(&function, "arguments")?)?;
    if kind == "tool-call-end" {
        acc.complete(at);
    }
    Ok(())
}
