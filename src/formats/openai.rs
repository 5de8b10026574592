//! OpenAI Chat Completions (`openai`, `OpenAIResponseParser`): the Rust twin of
//! `python/toolsift/_pure/formats/openai.py`.

use super::{elements_of, field_of, items, members, path, RawCall};
use crate::json::Keep;
use crate::node::{Node, TapeNode};

/// The parts of a response [`walk`] reads.
pub fn keep() -> Keep {
    path(&["choices"], items(members(&[("message", message_keep())])))
}

/// The parts of a chat message [`message_calls`] reads.
pub fn message_keep() -> Keep {
    let function = members(&[("name", Keep::all()), ("arguments", Keep::all())]);
    let mut keep = path(
        &["tool_calls"],
        items(members(&[
            ("id", Keep::all()),
            ("function", function.clone()),
            (
                "custom",
                members(&[("name", Keep::all()), ("input", Keep::all())]),
            ),
        ])),
    );
    keep.merge(&members(&[("function_call", function)]));
    keep
}

/// A member every response [`detect`] recognizes has (auto-detection looks no further
/// at a response without it).
pub const KEY: &str = "choices";

/// A chat completion: a `choices` list.
pub fn detect(doc: &TapeNode<'_, '_>) -> bool {
    let Ok(choices) = doc.member("choices");
    choices.is_some_and(|choices| choices.is_array())
}

/// `choices[].message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    for choice in elements_of(doc.field("choices")?) {
        message_calls(&choice.field("message")?, out)?;
    }
    Ok(())
}

/// A chat message's `tool_calls[]`: `function.{name, arguments}`, or a custom tool's
/// `custom.{name, input}` (free text), with `tool_calls[].id`; then a legacy
/// `function_call.{name, arguments}` (no id). Ollama's and Cohere v2's messages have the
/// same `tool_calls` shape.
pub fn message_calls<N: Node>(
    message: &Option<N>,
    out: &mut Vec<RawCall<N>>,
) -> Result<(), N::Error> {
    for call in elements_of(field_of(message, "tool_calls")?) {
        if let Some(function) = call.field("function")? {
            out.push(RawCall::new(
                function.field("name")?,
                call.field("id")?,
                function.field("arguments")?,
            ));
        } else if let Some(custom) = call.field("custom")? {
            out.push(RawCall {
                name: custom.field("name")?,
                id: call.field("id")?,
                arguments: custom.field("input")?,
                verbatim: true,
            });
        }
    }
    if let Some(function) = field_of(message, "function_call")? {
        out.push(RawCall::new(
            function.field("name")?,
            None,
            function.field("arguments")?,
        ));
    }
    Ok(())
}
