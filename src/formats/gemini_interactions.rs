//! Gemini Interactions API: the `Interaction` resource, `"object": "interaction"`. Calls
//! are the `steps[]` of type `function_call` (flat `id`, `name`, `arguments`); the id is
//! the step's `id`. Responses from before the May 2026 schema hold `outputs[]` in place
//! of `steps[]`, with the same items. The steps of built-in and remote tools give none.
//! Mirrors `python/toolsift/_pure/formats/gemini_interactions.py` line by line.

use super::{field_of, items, members, Context, RawCall, Turn};
use crate::accumulator::{index_of, kind_at, text_of, Accumulator};
use crate::json::Keep;
use crate::node::{Index, Node};

/// `Interaction.status` (the SDK's `InteractionStatus`).
const STATUSES: &[&str] = &[
    "in_progress",
    "requires_action",
    "completed",
    "failed",
    "cancelled",
    "incomplete",
    "budget_exceeded",
    "queued",
];

/// The members that list the steps: `steps`, and `outputs` before the May 2026 schema.
const STEP_LISTS: [&str; 2] = ["steps", "outputs"];

/// `steps[]` (or legacy `outputs[]`) of type `function_call`: `{id, name, arguments}`.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    for key in STEP_LISTS {
        for step in super::elements_of(doc.field(key)?) {
            if step
                .field("type")?
                .is_some_and(|t| t.is_str("function_call"))
            {
                out.push(RawCall::new(
                    step.field("name")?,
                    step.field("id")?,
                    step.field("arguments")?,
                ));
            }
        }
    }
    Ok(())
}

/// One turn: the calls, and the text of `model_output` steps (legacy: `text` outputs).
pub fn turns<N: Node>(doc: &N, out: &mut Vec<Turn<N>>) -> Result<(), N::Error> {
    let mut turn = Turn::default();
    walk(doc, &mut turn.calls)?;
    for step in super::elements_of(doc.field("steps")?) {
        if step
            .field("type")?
            .is_some_and(|t| t.is_str("model_output"))
        {
            super::typed_texts(step.field("content")?, "text", &mut turn.texts)?;
        }
    }
    super::typed_texts(doc.field("outputs")?, "text", &mut turn.texts)?;
    out.push(turn);
    Ok(())
}

/// The parts [`walk`] reads, and the scalars [`detect`] reads (for auto-detection on
/// pruned documents).
pub fn keep() -> Keep {
    let step = || {
        items(members(&[
            ("type", Keep::all()),
            ("name", Keep::all()),
            ("id", Keep::all()),
            ("arguments", Keep::all()),
        ]))
    };
    let mut keep = members(&[("steps", step()), ("outputs", step())]);
    // `event_type`: an event of the stream given alone (`is_stream_piece`).
    keep.merge(&members(&[
        ("object", Keep::all()),
        ("status", Keep::all()),
        ("event_type", Keep::all()),
    ]));
    keep.merge(&members(&[("model", Keep::all()), ("id", Keep::all())]));
    keep
}

/// `model`, `id`; the finish reason is the interaction's `status`.
pub fn context<N: Node>(doc: &N) -> Result<Context<N>, N::Error> {
    Ok(Context {
        model: doc.field("model")?,
        response_id: doc.field("id")?,
        finish_reason: doc.field("status")?,
        choice_finish: &[],
    })
}

/// Members one of which every response [`detect`] recognizes has (auto-detection looks
/// no further at a response with none of them).
pub const KEYS: &[&str] = &STEP_LISTS;

/// `"object": "interaction"` with a `steps` (or legacy `outputs`) list; or, as an SDK
/// object's dump has no `object` where the server's did not, a `steps` list with a
/// `status` of the API's.
pub fn detect<N: Node>(doc: &N) -> bool {
    let object = doc.probe("object");
    let steps = doc.probe("steps").is_some_and(|s| s.is_list());
    if object.is_some_and(|o| o.is_str("interaction")) {
        let outputs = doc.probe("outputs");
        return steps || outputs.is_some_and(|o| o.is_list());
    }
    let status = doc.probe("status");
    steps && status.is_some_and(|s| s.str_in(STATUSES))
}

// The stream reader: Interactions API server-sent events, named by `event_type`.

pub const STREAM_TYPES: &[&str] = &[
    "interaction.created",
    "interaction.status_update",
    "step.start",
    "step.delta",
    "step.stop",
    "interaction.completed",
    "interaction.cancelled",
];

fn event_type<N: Node>(event: &N) -> Result<Option<String>, N::Error> {
    kind_at(event, "event_type")
}

/// An Interactions streaming event: its `event_type` is one of [`STREAM_TYPES`].
pub fn stream_detect<N: Node>(event: &N) -> Result<bool, N::Error> {
    Ok(event_type(event)?.is_some_and(|kind| STREAM_TYPES.contains(&kind.as_str())))
}

/// An event of the stream given alone (a log that keeps only `interaction.completed`, or
/// an `error` event): `parse` reads it as a stream of that one event. No `Interaction`
/// has an `event_type`.
pub fn is_stream_piece<N: Node>(doc: &N) -> Result<bool, N::Error> {
    Ok(event_type(doc)?
        .is_some_and(|kind| kind == "error" || STREAM_TYPES.contains(&kind.as_str())))
}

/// `function_call` steps: started by `step.start` (its `arguments`, `{}` at the start,
/// stand where no fragment comes), `arguments_delta` text appended, completed by
/// `step.stop`. `interaction.completed` completes every call, and a `function_call` step
/// of its interaction that the stream did not start is a call of its own. An `error`
/// event (`{code, message}`) is the stream's error.
pub fn stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    let kind = event_type(event)?.unwrap_or_default();
    let index = index_of(event.field("index")?)?;
    match kind.as_str() {
        "step.start" => {
            let step = event.field("step")?;
            if field_of(&step, "type")?.is_some_and(|t| t.is_str("function_call")) {
                let at = acc.start(Index::Int(0), index, text_of(field_of(&step, "id")?)?);
                acc.slots[at].set_name(field_of(&step, "name")?)?;
                acc.set_id(at, field_of(&step, "id")?)?;
                acc.slots[at].set_whole(field_of(&step, "arguments")?)?;
            }
        }
        "step.delta" => {
            let delta = event.field("delta")?;
            if let Some(at) = acc.started(Index::Int(0), index) {
                if field_of(&delta, "type")?.is_some_and(|t| t.is_str("arguments_delta")) {
                    acc.slots[at].append(field_of(&delta, "arguments")?)?;
                }
            }
        }
        "step.stop" => {
            if let Some(at) = acc.started(Index::Int(0), index) {
                acc.complete(at);
            }
        }
        "interaction.completed" => {
            if let Some(interaction) = event.field("interaction")? {
                let mut calls = Vec::new();
                walk(&interaction, &mut calls)?;
                for call in calls {
                    let id = match &call.id {
                        Some(id) => id.text()?,
                        None => None,
                    };
                    match id.as_deref().and_then(|id| acc.by_item(id)) {
                        Some(at) => acc.slots[at].set_whole(call.arguments)?,
                        None => acc.whole_call(call.name, call.id, call.arguments, false)?,
                    }
                }
            }
            acc.complete_all(None);
        }
        "error" => acc.provider_error(event.field("error")?.as_ref(), None)?,
        _ => {}
    }
    Ok(())
}
