//! OpenAI Responses API: the `Response` object. Calls are the `output[]` items of type
//! `function_call` (`name`, `arguments`: a JSON string) and `custom_tool_call` (`name`,
//! `input`: free text); the id is the item's `call_id`. Server-run items give none.
//! Mirrors `python/toolsift/_pure/formats/openai_responses.py` line by line.

use super::{items, members, path, RawCall};
use crate::json::Keep;
use crate::node::{Node, TapeNode};

/// `output[]` items `function_call` and `custom_tool_call`, by `call_id`.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    let output = doc.field("output")?;
    for item in output.map(|o| o.elements()).unwrap_or_default() {
        let kind = item.field("type")?;
        if kind.as_ref().is_some_and(|k| k.is_str("function_call")) {
            out.push(RawCall::new(
                item.field("name")?,
                item.field("call_id")?,
                item.field("arguments")?,
            ));
        } else if kind.as_ref().is_some_and(|k| k.is_str("custom_tool_call")) {
            out.push(RawCall {
                name: item.field("name")?,
                id: item.field("call_id")?,
                arguments: item.field("input")?,
                verbatim: true,
            });
        }
    }
    Ok(())
}

/// The parts [`walk`] reads, and the scalars [`detect`] reads (for auto-detection on
/// pruned documents).
pub fn keep() -> Keep {
    let mut keep = path(
        &["output"],
        items(members(&[
            ("type", Keep::all()),
            ("name", Keep::all()),
            ("call_id", Keep::all()),
            ("arguments", Keep::all()),
            ("input", Keep::all()),
        ])),
    );
    keep.merge(&members(&[("object", Keep::all())]));
    keep
}

/// A member every response [`detect`] recognizes has (auto-detection looks no further
/// at a response without it).
pub const KEY: &str = "output";

/// `"object": "response"` with an `output` list.
pub fn detect(doc: &TapeNode<'_, '_>) -> bool {
    let Ok(object) = doc.member("object");
    let Ok(output) = doc.member("output");
    object.is_some_and(|o| o.is_str("response")) && output.is_some_and(|o| o.is_array())
}
