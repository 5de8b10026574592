//! OpenAI Chat Completions (`openai`, `OpenAIResponseParser`): the Rust twin of
//! `python/toolsift/_pure/formats/openai.py`.

use super::{elements_of, field_of, items, members, path, RawCall};
use crate::json::Keep;
use crate::node::{Node, TapeNode};

/// The parts of a response [`walk`] reads.
pub fn keep() -> Keep {
    path(
        &["choices"],
        items(path(
            &["message", "tool_calls"],
            items(members(&[
                ("id", Keep::all()),
                (
                    "function",
                    members(&[("name", Keep::all()), ("arguments", Keep::all())]),
                ),
            ])),
        )),
    )
}

/// A chat completion: a `choices` list.
pub fn detect(doc: &TapeNode<'_, '_>) -> bool {
    let Ok(choices) = doc.member("choices");
    choices.is_some_and(|choices| choices.is_array())
}

/// `choices[].message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    for choice in elements_of(doc.field("choices")?) {
        let message = choice.field("message")?;
        for call in elements_of(field_of(&message, "tool_calls")?) {
            let Some(function) = call.field("function")? else {
                continue;
            };
            out.push(RawCall::new(
                function.field("name")?,
                call.field("id")?,
                function.field("arguments")?,
            ));
        }
    }
    Ok(())
}
