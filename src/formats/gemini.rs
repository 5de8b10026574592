//! Gemini `generateContent` responses (`gemini`, `GeminiResponseParser`): the Rust twin
//! of `python/toolsift/_pure/formats/gemini.py`.

use super::{elements_of, field_of, first_field, items, members, path, Context, RawCall, Turn};
use crate::accumulator::{index_of, key, text_of, Accumulator, Slot, Tree};
use crate::json::Keep;
use crate::node::{Index, Node};

/// The parts of a response [`walk`] reads.
pub fn keep() -> Keep {
    // With what a chunk holding pieces of a stream is read by (`is_stream_piece`).
    let call = members(&[
        ("name", Keep::all()),
        ("id", Keep::all()),
        ("args", Keep::all()),
        ("partial_args", Keep::all()),
        ("partialArgs", Keep::all()),
        ("will_continue", Keep::all()),
        ("willContinue", Keep::all()),
    ]);
    let live_calls = members(&[
        ("function_calls", items(call.clone())),
        ("functionCalls", items(call.clone())),
    ]);
    let mut candidate = path(
        &["content", "parts"],
        items(members(&[
            ("function_call", call.clone()),
            ("functionCall", call),
        ])),
    );
    candidate.merge(&members(&[
        ("index", Keep::all()),
        ("finish_reason", Keep::all()),
        ("finishReason", Keep::all()),
    ]));
    let mut keep = path(&["candidates"], items(candidate));
    keep.merge(&members(&[
        ("tool_call", live_calls.clone()),
        ("toolCall", live_calls),
    ]));
    // What `detect` reads of a response without candidates (objects: only their type).
    for [feedback, usage, version, id] in BLOCKED {
        keep.merge(&members(&[
            (feedback, Keep::default()),
            (usage, Keep::default()),
            (version, Keep::all()),
            (id, Keep::all()),
        ]));
    }
    keep
}

/// The model version and response id (the SDK's snake_case, then REST's camelCase); a
/// call's finish reason is its candidate's.
pub fn context<N: Node>(doc: &N) -> Result<Context<N>, N::Error> {
    Ok(Context {
        model: first_field(doc, &["model_version", "modelVersion"])?,
        response_id: first_field(doc, &["response_id", "responseId"])?,
        finish_reason: None,
        choice_finish: &["finish_reason", "finishReason"],
    })
}

/// Members one of which every response [`detect`] recognizes has (auto-detection looks
/// no further at a response with none of them).
pub const KEYS: &[&str] = &[
    "candidates",
    "promptFeedback",
    "prompt_feedback",
    "tool_call",
    "toolCall",
];

/// Where a Live API server message holds its calls: the SDK's snake_case, then REST's.
const LIVE: [(&str, &str); 2] = [
    ("tool_call", "function_calls"),
    ("toolCall", "functionCalls"),
];

/// The members of a response whose prompt was blocked (no `candidates`): `promptFeedback`
/// with `usageMetadata`, `modelVersion` or `responseId`, as REST and as SDK dumps spell them.
const BLOCKED: [[&str; 4]; 2] = [
    [
        "promptFeedback",
        "usageMetadata",
        "modelVersion",
        "responseId",
    ],
    [
        "prompt_feedback",
        "usage_metadata",
        "model_version",
        "response_id",
    ],
];

/// A `GenerateContentResponse`: a `candidates` list; or, for a prompt blocked, a
/// `promptFeedback` object with a `usageMetadata` object, a `modelVersion` or a
/// `responseId` string (snake_case in SDK dumps): members no other provider's has. Or a
/// Live API `LiveServerMessage` with its `toolCall` (`tool_call`): an object holding a
/// `functionCalls` (`function_calls`) list.
pub fn detect<N: Node>(doc: &N) -> bool {
    let candidates = doc.probe("candidates");
    if candidates.is_some_and(|candidates| candidates.is_list()) {
        return true;
    }
    let live = LIVE.iter().any(|(key, calls)| {
        doc.probe(key).is_some_and(|tool_call| {
            let calls = tool_call.probe(calls);
            tool_call.is_object() && calls.is_some_and(|calls| calls.is_list())
        })
    });
    if live {
        return true;
    }
    BLOCKED.iter().any(|[feedback, usage, version, id]| {
        doc.probe(feedback).is_some_and(|f| f.is_object())
            && (doc.probe(usage).is_some_and(|u| u.is_object())
                || doc.probe(version).is_some_and(|v| v.is_string())
                || doc.probe(id).is_some_and(|i| i.is_string()))
    })
}

/// `candidates[].content.parts[].function_call` (or REST `functionCall`), then a Live API
/// message's `tool_call.function_calls[]` (or REST `toolCall.functionCalls`).
pub fn walk<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    calls(doc, out, Pieces::Unasked).map(drop)
}

/// [`walk`] of a document decoded from JSON text, telling a piece of a stream
/// ([`is_stream_piece`]) in the same pass: true, the calls not all read, where a call has
/// `partial_args` (the pure `decoded_gemini_calls`).
pub fn walk_unless_piece<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<bool, N::Error> {
    calls(doc, out, Pieces::Told)
}

/// Whether a walk tells a piece of a stream (a call with `partial_args`).
#[derive(Clone, Copy, PartialEq)]
enum Pieces {
    Unasked,
    Told,
}

/// The calls of [`walk`]; true (the walk stopped) at a piece of a stream where `pieces`
/// are told.
fn calls<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>, pieces: Pieces) -> Result<bool, N::Error> {
    for (position, candidate) in elements_of(doc.field("candidates")?).enumerate() {
        if candidate_calls(position, &candidate, out, pieces)? {
            return Ok(true);
        }
    }
    for call in elements_of(live_calls(doc)?) {
        out.push(RawCall::new(
            call.field("name")?,
            call.field("id")?,
            call.field("args")?,
        ));
    }
    Ok(false)
}

/// A candidate's `content.parts[].function_call` (or REST `functionCall`); true (the
/// walk stopped) at a call with `partial_args` where `pieces` are told.
fn candidate_calls<N: Node>(
    position: usize,
    candidate: &N,
    out: &mut Vec<RawCall<N>>,
    pieces: Pieces,
) -> Result<bool, N::Error> {
    let content = candidate.field("content")?;
    for part in elements_of(field_of(&content, "parts")?) {
        let call = match part.field("function_call")? {
            Some(call) => call,
            None => match part.field("functionCall")? {
                Some(call) => call,
                None => continue,
            },
        };
        if pieces == Pieces::Told && either(&call, "partial_args", "partialArgs")?.is_some() {
            return Ok(true);
        }
        out.push(
            RawCall::new(call.field("name")?, call.field("id")?, call.field("args")?)
                .in_choice(position, candidate.clone()),
        );
    }
    Ok(false)
}

/// Each candidate: its calls, and the `text` of its parts that are not thoughts
/// (`thought: true`: reasoning, never read for calls); then a Live API message's calls.
pub fn turns<N: Node>(doc: &N, out: &mut Vec<Turn<N>>) -> Result<(), N::Error> {
    for (position, candidate) in elements_of(doc.field("candidates")?).enumerate() {
        let mut turn = Turn::in_choice(position, candidate.clone());
        candidate_calls(position, &candidate, &mut turn.calls, Pieces::Unasked)?;
        let content = candidate.field("content")?;
        for part in elements_of(field_of(&content, "parts")?) {
            if !is_true(part.field("thought")?)? {
                turn.texts.extend(part.field("text")?);
            }
        }
        out.push(turn);
    }
    let mut live = Turn::default();
    for call in elements_of(live_calls(doc)?) {
        live.calls.push(RawCall::new(
            call.field("name")?,
            call.field("id")?,
            call.field("args")?,
        ));
    }
    if !live.calls.is_empty() {
        out.push(live);
    }
    Ok(())
}

/// A Live API message's `tool_call.function_calls` (or REST `toolCall.functionCalls`).
fn live_calls<N: Node>(doc: &N) -> Result<Option<N>, N::Error> {
    match either(doc, "tool_call", "toolCall")? {
        Some(tool_call) => either(&tool_call, "function_calls", "functionCalls"),
        None => Ok(None),
    }
}

// The stream reader: `streamGenerateContent` chunks (see the Python twin).

/// The route key (candidate, STREAMING) of a candidate's call whose arguments go on.
pub const STREAMING: i64 = -1;

const VALUES: [(&str, &str); 4] = [
    ("string_value", "stringValue"),
    ("number_value", "numberValue"),
    ("bool_value", "boolValue"),
    ("null_value", "nullValue"),
];

/// A `GenerateContentResponse` chunk: a `candidates` list; or a Live API message with its
/// calls (`tool_call.function_calls`, REST `toolCall.functionCalls`).
pub fn stream_detect<N: Node>(event: &N) -> Result<bool, N::Error> {
    if event.field("candidates")?.is_some_and(|c| c.is_array()) {
        return Ok(true);
    }
    Ok(elements_of(live_calls(event)?).next().is_some())
}

/// Every call part of the chunk: a whole call, or the start or next part of a call
/// whose arguments are streamed (`partial_args`); a Live API message's whole calls.
pub fn stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    for (position, candidate) in elements_of(event.field("candidates")?).enumerate() {
        let number = index_of(candidate.field("index")?)?.unwrap_or(Index::Int(position as i64));
        let content = candidate.field("content")?;
        for part in elements_of(field_of(&content, "parts")?) {
            if let Some(call) = either(&part, "function_call", "functionCall")? {
                call_part(acc, &number, &call)?;
            }
        }
    }
    for call in elements_of(live_calls(event)?) {
        acc.whole_call(
            call.field("name")?,
            call.field("id")?,
            call.field("args")?,
            false,
        )?;
    }
    // An error sent in the stream (`{"error": {"code", "message", "status"}}`; a dict:
    // the SDK raises it instead).
    if let Some(error) = event.member("error")? {
        acc.provider_error(Some(&error), None)?;
    }
    Ok(())
}

/// The SDK's snake_case field, else the REST camelCase one.
fn either<N: Node>(node: &N, snake: &str, camel: &str) -> Result<Option<N>, N::Error> {
    match node.field(snake)? {
        Some(value) => Ok(Some(value)),
        None => node.field(camel),
    }
}

fn is_true<N: Node>(value: Option<N>) -> Result<bool, N::Error> {
    match value {
        Some(value) if value.is_bool() => Ok(value.to_json()? == "true"),
        _ => Ok(false),
    }
}

/// Whether a response holds a piece of a stream (a part with `partial_args`): `parse`
/// reads such a chunk as a stream of one event.
pub fn is_stream_piece<N: Node>(doc: &N) -> Result<bool, N::Error> {
    for candidate in elements_of(doc.field("candidates")?) {
        let content = candidate.field("content")?;
        for part in elements_of(field_of(&content, "parts")?) {
            if let Some(call) = either(&part, "function_call", "functionCall")? {
                if either(&call, "partial_args", "partialArgs")?.is_some() {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

fn call_part<N: Node>(acc: &mut Accumulator, candidate: &Index, call: &N) -> Result<(), N::Error> {
    let name = call.field("name")?;
    let named = name.as_ref().is_some_and(|n| n.is_nonempty_str());
    let route = (candidate.clone(), Index::Int(STREAMING));
    let streaming = acc.routes.get(&route).copied();
    if streaming.is_none() && !named && either(call, "partial_args", "partialArgs")?.is_some() {
        acc.fragment = true; // the rest of a call whose start is not in the stream
        return Ok(());
    }
    let at = match streaming {
        Some(at) if !named => at, // the next part of the call being streamed
        _ => {
            if let Some(at) = streaming {
                acc.complete(at); // a new call ends the one before
            }
            let at = acc.slot(key(-1, acc.serial), None);
            acc.serial += 1;
            acc.slots[at].set_whole(call.field("args")?)?;
            at
        }
    };
    acc.slots[at].set_name(name)?;
    acc.set_id(at, call.field("id")?)?;
    let slot = &mut acc.slots[at];
    for arg in elements_of(either(call, "partial_args", "partialArgs")?) {
        partial_arg(slot, &arg)?;
    }
    if is_true(either(call, "will_continue", "willContinue")?)? {
        acc.routes.insert(route, at);
    } else {
        acc.routes.remove(&route);
        acc.complete(at);
    }
    Ok(())
}

/// One `PartialArg`: its value at its path (a string continued: appended to).
fn partial_arg<N: Node>(slot: &mut Slot, arg: &N) -> Result<(), N::Error> {
    let Some(path) = text_of(either(arg, "json_path", "jsonPath")?)? else {
        return Ok(());
    };
    let mut found = None;
    for (snake, camel) in VALUES {
        if let Some(value) = either(arg, snake, camel)? {
            found = Some((snake, value));
            break;
        }
    }
    let Some((kind, value)) = found else {
        return Ok(()); // no value
    };
    let value = match (kind, value.text()?) {
        ("null_value", _) => Tree::Null,
        (_, Some(text)) => Tree::Str(text),
        (_, None) => Tree::Json(value.to_json()?),
    };
    let continuing = is_true(either(arg, "will_continue", "willContinue")?)?;
    slot.add_path_value(path, value, continuing);
    Ok(())
}
