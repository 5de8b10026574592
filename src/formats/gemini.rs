//! Gemini `generateContent` responses (`gemini`, `GeminiResponseParser`): the Rust twin
//! of `python/toolsift/_pure/formats/gemini.py`.

use super::{elements_of, field_of, items, members, path, RawCall};
use crate::json::Keep;
use crate::node::{Node, TapeNode};
use crate::stream::Accumulator;

/// The parts of a response [`walk`] reads.
pub fn keep() -> Keep {
    let call = members(&[
        ("name", Keep::all()),
        ("id", Keep::all()),
        ("args", Keep::all()),
    ]);
    path(
        &["candidates"],
        items(path(
            &["content", "parts"],
            items(members(&[
                ("function_call", call.clone()),
                ("functionCall", call),
            ])),
        )),
    )
}

/// A member every response [`detect`] recognizes has (auto-detection looks no further
/// at a response without it).
pub const KEY: &str = "candidates";

/// A `GenerateContentResponse`: a `candidates` list.
pub fn detect(doc: &TapeNode<'_, '_>) -> bool {
    let Ok(candidates) = doc.member("candidates");
    candidates.is_some_and(|candidates| candidates.is_array())
}

/// `candidates[].content.parts[].function_call` (or REST `functionCall`).
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    for candidate in elements_of(doc.field("candidates")?) {
        let content = candidate.field("content")?;
        for part in elements_of(field_of(&content, "parts")?) {
            let call = match part.field("function_call")? {
                Some(call) => call,
                None => match part.field("functionCall")? {
                    Some(call) => call,
                    None => continue,
                },
            };
            out.push(RawCall::new(
                call.field("name")?,
                call.field("id")?,
                call.field("args")?,
            ));
        }
    }
    Ok(())
}

// The stream reader: chunks holding whole calls.

/// A `GenerateContentResponse` chunk: a `candidates` list.
pub fn stream_detect<N: Node>(event: &N) -> Result<bool, N::Error> {
    Ok(event.field("candidates")?.is_some_and(|c| c.is_array()))
}

/// Every call of the chunk, whole.
pub fn stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    let mut calls = Vec::new();
    walk(event, &mut calls)?;
    for call in calls {
        acc.whole_call(call.name, call.id, call.arguments, call.verbatim)?;
    }
    Ok(())
}
