//! OpenAI Responses API: the `Response` object. Calls are the `output[]` items of type
//! `function_call` (`name`, `arguments`: a JSON string) and `custom_tool_call` (`name`,
//! `input`: free text); the id is the item's `call_id`. The items of built-in tools give
//! none (server-run ones, and `computer_call`, `local_shell_call`, `shell_call`,
//! `apply_patch_call`, which the caller runs).
//! Mirrors `python/toolsift/_pure/formats/openai_responses.py` line by line.

use super::{field_of, items, members, path, Context, RawCall, Turn};
use crate::accumulator::{event_type, index_of, text_of, typed_event, Accumulator, ERROR_TYPE};
use crate::json::Keep;
use crate::node::{Index, Node};

/// `output[]` items `function_call` and `custom_tool_call`, by `call_id`.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    let output = doc.field("output")?;
    for item in super::elements_of(output) {
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
                choice: None,
            });
        }
    }
    Ok(())
}

/// One turn: the calls, and the `output_text` parts of the `message` items.
pub fn turns<N: Node>(doc: &N, out: &mut Vec<Turn<N>>) -> Result<(), N::Error> {
    let mut turn = Turn::default();
    walk(doc, &mut turn.calls)?;
    for item in super::elements_of(doc.field("output")?) {
        if item.field("type")?.is_some_and(|t| t.is_str("message")) {
            super::typed_texts(item.field("content")?, "output_text", &mut turn.texts)?;
        }
    }
    out.push(turn);
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
    // `type`: an event of the stream given alone (`is_stream_piece`).
    keep.merge(&members(&[("object", Keep::all()), ("type", Keep::all())]));
    keep.merge(&members(&[
        ("model", Keep::all()),
        ("id", Keep::all()),
        ("status", Keep::all()),
        ("incomplete_details", members(&[("reason", Keep::all())])),
    ]));
    keep
}

/// `model`, `id`; the finish reason is `incomplete_details.reason` where the response
/// is incomplete, else its `status`.
pub fn context<N: Node>(doc: &N) -> Result<Context<N>, N::Error> {
    let finish_reason = match field_of(&doc.field("incomplete_details")?, "reason")? {
        Some(reason) => Some(reason),
        None => doc.field("status")?,
    };
    Ok(Context {
        model: doc.field("model")?,
        response_id: doc.field("id")?,
        finish_reason,
        choice_finish: &[],
    })
}

/// Members one of which every response [`detect`] recognizes has (auto-detection looks
/// no further at a response with none of them).
pub const KEYS: &[&str] = &["output"];

/// `"object": "response"` with an `output` list.
pub fn detect<N: Node>(doc: &N) -> bool {
    let object = doc.probe("object");
    let output = doc.probe("output");
    object.is_some_and(|o| o.is_str("response")) && output.is_some_and(|o| o.is_list())
}

// The stream reader: Responses API streaming events.

const ITEM_EVENTS: [&str; 2] = ["response.output_item.added", "response.output_item.done"];
const DELTAS: [&str; 2] = [
    "response.function_call_arguments.delta",
    "response.custom_tool_call_input.delta",
];
const DONES: [&str; 2] = [
    "response.function_call_arguments.done",
    "response.custom_tool_call_input.done",
];
/// The events that hold the whole response: the Responses API's three, and the Realtime
/// API's `response.done` (any `status`).
const ENDS: [&str; 4] = [
    "response.completed",
    "response.incomplete",
    "response.failed",
    "response.done",
];

/// A Responses streaming event: its `type` starts with `response.`.
pub fn stream_detect<N: Node>(event: &N) -> Result<bool, N::Error> {
    Ok(event_type(event)?.is_some_and(|kind| kind.starts_with("response.")))
}

/// An event of the stream given alone (a log that keeps only `response.completed`, the
/// Realtime API's `response.done`, or an `error` event): `parse` reads it as a stream of
/// that one event. No response has a `type`.
pub fn is_stream_piece<N: Node>(doc: &N) -> Result<bool, N::Error> {
    Ok(stream_detect(doc)? || typed_event(doc, ERROR_TYPE)?)
}

/// Items started by `output_item.added`, argument (or custom input) deltas appended,
/// the whole text of `.done` and `output_item.done` kept; `response.completed` (and
/// `.incomplete`, `.failed`, the Realtime API's `.done`) holds the response itself: its
/// items complete every call. `response.failed`, a Realtime `response.done` whose
/// `status` is `failed`, and `error` events are the stream's error.
pub fn stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    let Some(kind) = event_type(event)? else {
        return Ok(());
    };
    let kind = kind.as_str();
    if ITEM_EVENTS.contains(&kind) {
        let output_index = index_of(event.field("output_index")?)?;
        stream_item(
            acc,
            event.field("item")?,
            output_index,
            kind.ends_with("done"),
        )?;
    } else if DELTAS.contains(&kind) {
        let at = stream_slot(acc, event, event.field("item_id")?)?;
        let slot = &mut acc.slots[at];
        slot.verbatim = slot.verbatim || kind == DELTAS[1];
        slot.append(event.field("delta")?)?;
    } else if DONES.contains(&kind) {
        let at = stream_slot(acc, event, event.field("item_id")?)?;
        let custom = kind == DONES[1];
        let slot = &mut acc.slots[at];
        slot.verbatim = slot.verbatim || custom;
        slot.set_name(event.field("name")?)?;
        slot.set_text(event.field(if custom { "input" } else { "arguments" })?)?;
        acc.complete(at);
    } else if ENDS.contains(&kind) {
        let response = event.field("response")?;
        let output = super::field_of(&response, "output")?;
        for (position, item) in super::elements_of(output).enumerate() {
            stream_item(acc, Some(item), Some(Index::Int(position as i64)), true)?;
        }
        acc.complete_all(None);
        if kind == "response.failed" {
            // Its `response.error {code, message}`.
            acc.provider_error(super::field_of(&response, "error")?.as_ref(), None)?;
        } else if kind == "response.done" {
            let status = super::field_of(&response, "status")?;
            if status.is_some_and(|status| status.is_str("failed")) {
                // Realtime: `status_details.error {type, code}`.
                let details = super::field_of(&response, "status_details")?;
                acc.provider_error(super::field_of(&details, "error")?.as_ref(), None)?;
            }
        }
    } else if kind == "error" {
        // The event's own `code` and `message`.
        acc.provider_error(Some(event), None)?;
    }
    Ok(())
}

/// A `function_call` or `custom_tool_call` item: its name, `call_id`, and its arguments
/// (or input): the whole text where the item is done.
fn stream_item<N: Node>(
    acc: &mut Accumulator,
    item: Option<N>,
    output_index: Option<Index>,
    done: bool,
) -> Result<(), N::Error> {
    let Some(item) = item else {
        return Ok(());
    };
    let kind = item.field("type")?;
    let custom = kind.as_ref().is_some_and(|k| k.is_str("custom_tool_call"));
    if !(custom || kind.is_some_and(|k| k.is_str("function_call"))) {
        return Ok(());
    }
    let item_id = text_of(item.field("id")?)?;
    let at = match item_id.as_deref().and_then(|id| acc.by_item(id)) {
        Some(at) => at,
        None => {
            let key =
                output_index.map_or_else(|| acc.new_key(&Index::Int(0)), |i| (Index::Int(0), i));
            acc.slot(key, item_id)
        }
    };
    acc.slots[at].verbatim = custom;
    acc.slots[at].set_name(item.field("name")?)?;
    acc.set_id(at, item.field("call_id")?)?;
    let slot = &mut acc.slots[at];
    let arguments = item.field(if custom { "input" } else { "arguments" })?;
    if done {
        slot.set_text(arguments)?;
        acc.complete(at);
    } else {
        slot.set_whole(arguments)?;
    }
    Ok(())
}

/// The call an argument event is about: by its `item_id`, else its `output_index`.
fn stream_slot<N: Node>(
    acc: &mut Accumulator,
    event: &N,
    item_id: Option<N>,
) -> Result<usize, N::Error> {
    let item_id = text_of(item_id)?;
    if let Some(at) = item_id.as_deref().and_then(|id| acc.by_item(id)) {
        return Ok(at);
    }
    let output_index = index_of(event.field("output_index")?)?;
    let key = output_index.map_or_else(|| acc.new_key(&Index::Int(0)), |i| (Index::Int(0), i));
    Ok(acc.slot(key, item_id))
}
