//! Cohere Chat API v2: `V2ChatResponse`. Calls are `message.tool_calls[]` (`{id, type:
//! "function", function: {name, arguments}}`, `arguments` a JSON string); the id is the
//! call's `id`. Mirrors `python/toolsift/_pure/formats/cohere.py` line by line.

use super::{members, openai, RawCall};
use crate::json::Keep;
use crate::node::{Node, TapeNode};

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

/// A member every response [`detect`] recognizes has (auto-detection looks no further
/// at a response without it).
pub const KEY: &str = "message";

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
