//! OpenAI Chat Completions (`openai`, `OpenAIResponseParser`): the Rust twin of
//! `python/toolsift/_pure/formats/openai.py`.

use super::{elements_of, field_of, items, members, path, typed_texts, Context, RawCall, Turn};
use crate::accumulator::{index_of, text_of, Accumulator};
use crate::json::Keep;
use crate::node::{Index, Node};

/// The parts of a response [`walk`] reads.
pub fn keep() -> Keep {
    let mut keep = path(
        &["choices"],
        items(members(&[
            ("message", message_keep()),
            ("finish_reason", Keep::all()),
            ("index", Keep::all()),
        ])),
    );
    keep.merge(&members(&[("model", Keep::all()), ("id", Keep::all())]));
    keep
}

/// `model`, `id`; a call's finish reason is its choice's `finish_reason`.
pub fn context<N: Node>(doc: &N) -> Result<Context<N>, N::Error> {
    Ok(Context {
        model: doc.field("model")?,
        response_id: doc.field("id")?,
        finish_reason: None,
        choice_finish: &["finish_reason"],
    })
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

/// Members one of which every response [`detect`] recognizes has (auto-detection looks
/// no further at a response with none of them).
pub const KEYS: &[&str] = &["choices"];

/// A chat completion: a `choices` list.
pub fn detect<N: Node>(doc: &N) -> bool {
    let choices = doc.probe("choices");
    choices.is_some_and(|choices| choices.is_list())
}

/// `choices[].message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`.
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    for (position, choice) in elements_of(doc.field("choices")?).enumerate() {
        let first = out.len();
        message_calls(&choice.field("message")?, out)?;
        for call in &mut out[first..] {
            call.choice = Some((position, choice.clone()));
        }
    }
    Ok(())
}

/// Each choice: its message's calls, and its assistant text for `text_dialect`: the
/// message's `content` (a string, or a list of `{type: text, text}` parts), or a
/// `/v1/completions` (`text_completion`) choice's `text`.
pub fn turns<N: Node>(doc: &N, out: &mut Vec<Turn<N>>) -> Result<(), N::Error> {
    for (position, choice) in elements_of(doc.field("choices")?).enumerate() {
        let message = choice.field("message")?;
        let mut turn = Turn::in_choice(position, choice.clone());
        message_calls(&message, &mut turn.calls)?;
        content_texts(field_of(&message, "content")?, &mut turn.texts)?;
        turn.texts.extend(choice.field("text")?);
        out.push(turn);
    }
    Ok(())
}

/// A chat message's `content` as text pieces: a string, or the `text` of its parts of
/// type `text` (Ollama's and Cohere v2's messages have the same shape).
pub fn content_texts<N: Node>(content: Option<N>, out: &mut Vec<N>) -> Result<(), N::Error> {
    match content {
        Some(parts) if parts.is_array() => typed_texts(Some(parts), "text", out),
        content => {
            out.extend(content);
            Ok(())
        }
    }
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
                choice: None,
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

// The stream reader: chat completion chunks (`chat.completion.chunk`).

/// The call index of a legacy `delta.function_call` (after the choice's tool calls).
pub const LEGACY: i64 = 1 << 31;

/// A chat completion chunk: a `choices` list.
pub fn stream_detect<N: Node>(event: &N) -> Result<bool, N::Error> {
    Ok(event.field("choices")?.is_some_and(|c| c.is_array()))
}

/// Never: a chunk given alone is read as a response, which has no calls (as russo's
/// `OpenAIResponseParser` reads it); its stream is read by `stream()` or `--stream`.
pub fn is_stream_piece<N: Node>(_: &N) -> Result<bool, N::Error> {
    Ok(false)
}

/// `choices[].delta.tool_calls[]` fragments: name and id set once, `arguments` (a
/// custom tool's `input`) appended; the calls of a choice complete when its
/// `finish_reason` is set.
pub fn stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    for (position, choice) in elements_of(event.field("choices")?).enumerate() {
        let number = index_of(choice.field("index")?)?.unwrap_or(Index::Int(position as i64));
        let delta = choice.field("delta")?;
        for call in elements_of(field_of(&delta, "tool_calls")?) {
            let id = text_of(call.field("id")?)?.filter(|id| !id.is_empty());
            let at = call_slot(acc, &number, &call, id.as_deref())?;
            // A function's `arguments` (JSON), or a custom tool's `input` (free text).
            let (part, text_key) = match call.field("function")? {
                Some(function) => (Some(function), "arguments"),
                None => (call.field("custom")?, "input"),
            };
            let slot = &mut acc.slots[at];
            slot.verbatim |= part.is_some() && text_key == "input";
            slot.set_name(field_of(&part, "name")?)?;
            acc.set_id_text(at, id);
            acc.slots[at].append(field_of(&part, text_key)?)?;
        }
        if let Some(function) = field_of(&delta, "function_call")? {
            let at = acc.slot((number.clone(), Index::Int(LEGACY)), None);
            let slot = &mut acc.slots[at];
            slot.set_name(function.field("name")?)?;
            slot.append(function.field("arguments")?)?;
        }
        if choice.field("finish_reason")?.is_some() {
            acc.complete_all(Some(&number));
        }
    }
    // An error sent in the stream (`{"error": {"message", "type", "code"}}`; a dict: the
    // SDK raises it instead).
    if let Some(error) = event.member("error")? {
        acc.provider_error(Some(&error), None)?;
    }
    Ok(())
}

/// The call a `delta.tool_calls[]` fragment belongs to (see `_call_slot` in the Python
/// twin): by its `index`, or, without one, by its id, else the latest call.
fn call_slot<N: Node>(
    acc: &mut Accumulator,
    choice: &Index,
    call: &N,
    id: Option<&str>,
) -> Result<usize, N::Error> {
    let index = index_of(call.field("index")?)?;
    let new_slot = |acc: &mut Accumulator| {
        let key = acc.new_key(choice);
        acc.slot(key, None)
    };
    let at = match index {
        None => {
            let found = match id {
                Some(id) => acc.by_id(choice, id),
                None => acc.latest.get(choice).copied(),
            };
            match found {
                Some(at) => at,
                None => new_slot(acc),
            }
        }
        Some(index) => {
            let route = (choice.clone(), index);
            let mut at = match acc.routes.get(&route) {
                Some(&at) => at,
                None => acc.slot(route.clone(), None),
            };
            if let Some(id) = id {
                if acc.slots[at].id.as_deref().is_some_and(|own| own != id) {
                    at = match acc.by_id(choice, id) {
                        Some(at) => at,
                        None => new_slot(acc),
                    };
                }
            }
            acc.routes.insert(route, at);
            at
        }
    };
    acc.latest.insert(choice.clone(), at);
    Ok(at)
}
