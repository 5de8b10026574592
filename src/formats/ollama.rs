//! Ollama `/api/chat`: `ChatResponse`. Calls are `message.tool_calls[].function.{name,
//! arguments}` (`arguments` an object, or a JSON string); the id is the call's `id`
//! where present. Mirrors `python/toolsift/_pure/formats/ollama.py` line by line.

use super::{items, members, path, RawCall};
use crate::json::{Keep, Token};
use crate::node::{Node, TapeNode};

/// `message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    let tool_calls = match doc.field("message")? {
        Some(message) => message.field("tool_calls")?,
        None => None,
    };
    for call in tool_calls.map(|c| c.elements()).unwrap_or_default() {
        let Some(function) = call.field("function")? else {
            continue;
        };
        out.push(RawCall::new(
            function.field("name")?,
            call.field("id")?,
            function.field("arguments")?,
        ));
    }
    Ok(())
}

/// The parts [`walk`] reads, and the scalars [`detect`] reads (for auto-detection on
/// pruned documents).
pub fn keep() -> Keep {
    let mut keep = path(
        &["message", "tool_calls"],
        items(members(&[
            ("id", Keep::all()),
            (
                "function",
                members(&[("name", Keep::all()), ("arguments", Keep::all())]),
            ),
        ])),
    );
    keep.merge(&members(&[("model", Keep::all()), ("done", Keep::all())]));
    keep
}

/// A `message` object, a string `model` and a boolean `done`.
pub fn detect(doc: &TapeNode<'_, '_>) -> bool {
    let Ok(message) = doc.member("message");
    let Ok(model) = doc.member("model");
    let Ok(done) = doc.member("done");
    message.is_some_and(|m| m.is_object())
        && model.is_some_and(|m| m.as_str().is_some())
        && done.is_some_and(|d| matches!(d.token(), Token::Bool(_)))
}
