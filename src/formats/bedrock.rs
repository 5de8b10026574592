//! Amazon Bedrock Converse API: the response as boto3 returns it. Calls are the
//! `output.message.content[]` blocks holding a `toolUse` (`toolUseId`, `name`, `input`);
//! a `toolUse` of `type: "server_tool_use"` gives none. Batch inference output lines are
//! unwrapped by [`unwrap_batch`]. Mirrors `python/toolsift/_pure/formats/bedrock.py`
//! line by line.

use super::{items, members, path, RawCall};
use crate::bulk::envelope::{describe_with, has, value, Located};
use crate::calls::string_at;
use crate::json::{Keep, Tape};
use crate::node::{Node, TapeNode};

/// `output.message.content[].toolUse.{toolUseId, name, input}`.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    let message = match doc.field("output")? {
        Some(output) => output.field("message")?,
        None => None,
    };
    let content = match message {
        Some(message) => message.field("content")?,
        None => None,
    };
    for block in content.map(|c| c.elements()).unwrap_or_default() {
        let Some(tool_use) = block.field("toolUse")? else {
            continue;
        };
        if tool_use
            .field("type")?
            .is_some_and(|t| t.is_str("server_tool_use"))
        {
            continue;
        }
        out.push(RawCall::new(
            tool_use.field("name")?,
            tool_use.field("toolUseId")?,
            tool_use.field("input")?,
        ));
    }
    Ok(())
}

/// The parts [`walk`] reads.
pub fn keep() -> Keep {
    path(
        &["output", "message", "content"],
        items(members(&[(
            "toolUse",
            members(&[
                ("type", Keep::all()),
                ("name", Keep::all()),
                ("toolUseId", Keep::all()),
                ("input", Keep::all()),
            ]),
        )])),
    )
}

/// A member every response [`detect`] recognizes has (auto-detection looks no further
/// at a response without it).
pub const KEY: &str = "output";

/// An `output` object holding a `message` object with a `content` list.
pub fn detect(doc: &TapeNode<'_, '_>) -> bool {
    let Ok(output) = doc.member("output");
    let Some(output) = output.filter(|o| o.is_object()) else {
        return false;
    };
    let Ok(message) = output.member("message");
    let Some(message) = message.filter(|m| m.is_object()) else {
        return false;
    };
    let Ok(content) = message.member("content");
    content.is_some_and(|c| c.is_array())
}

/// A batch inference output line (an object with `recordId` or `modelInput`, and
/// `modelOutput` or `error`): where its model output is, or why there is none; None for
/// any other record. See `unwrap_batch` in the Python module for the rules.
pub fn unwrap_batch<'a>(tape: &Tape<'a>, root: usize) -> Option<Located<'a>> {
    if !((has(tape, root, "recordId") || has(tape, root, "modelInput"))
        && (has(tape, root, "modelOutput") || has(tape, root, "error")))
    {
        return None;
    }
    let custom_id = value(tape, root, "recordId").and_then(|idx| string_at(tape, idx));
    let response = match value(tape, root, "error") {
        Some(error) => Err(format!(
            "batch error: {}",
            describe_with(tape, error, ("errorMessage", "errorCode"))
        )),
        None => value(tape, root, "modelOutput")
            .ok_or_else(|| "batch record has no response".to_owned()),
    };
    Some(Located {
        response,
        custom_id,
    })
}
