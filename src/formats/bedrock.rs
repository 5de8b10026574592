//! Amazon Bedrock Converse API: the response as boto3 returns it. Calls are the
//! `output.message.content[]` blocks holding a `toolUse` (`toolUseId`, `name`, `input`);
//! a `toolUse` of `type: "server_tool_use"` gives none. Batch inference output lines are
//! unwrapped by [`unwrap_batch`]. Mirrors `python/toolsift/_pure/formats/bedrock.py`
//! line by line.

use super::{field_of, items, members, path, Context, RawCall, Turn, Unwrapped};
use crate::accumulator::{index_of, Accumulator};
use crate::json::Keep;
use crate::node::{Describer, Envelope, Failure, Index, Node};
use base64::engine::{GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

/// One turn: the `toolUse` blocks, and the `text` blocks of `output.message.content`.
pub fn turns<N: Node>(doc: &N, out: &mut Vec<Turn<N>>) -> Result<(), N::Error> {
    let mut turn = Turn::default();
    walk(doc, &mut turn.calls)?;
    let message = field_of(&doc.field("output")?, "message")?;
    for block in super::elements_of(field_of(&message, "content")?) {
        turn.texts.extend(block.field("text")?);
    }
    out.push(turn);
    Ok(())
}

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
    for block in super::elements_of(content) {
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
    let mut keep = path(
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
    );
    // An event of the stream given alone (`is_stream_piece`).
    let events: Vec<(&str, Keep)> = STREAM_KEYS
        .iter()
        .chain(&BEDROCK_EXCEPTIONS)
        .map(|&key| (key, Keep::all()))
        .collect();
    keep.merge(&members(&events));
    keep.merge(&members(&[("stopReason", Keep::all())]));
    keep
}

/// `stopReason`; a Converse response names no model and has no id.
pub fn context<N: Node>(doc: &N) -> Result<Context<N>, N::Error> {
    Ok(Context {
        model: None,
        response_id: None,
        finish_reason: doc.field("stopReason")?,
        choice_finish: &[],
    })
}

/// Members one of which every response [`detect`] recognizes has (auto-detection looks
/// no further at a response with none of them).
pub const KEYS: &[&str] = &["output"];

/// An `output` object holding a `message` object with a `content` list.
pub fn detect<N: Node>(doc: &N) -> bool {
    let output = doc.probe("output");
    let Some(output) = output.filter(|o| o.is_object()) else {
        return false;
    };
    let message = output.probe("message");
    let Some(message) = message.filter(|m| m.is_object()) else {
        return false;
    };
    let content = message.probe("content");
    content.is_some_and(|c| c.is_list())
}

/// The parts of a batch inference output line [`unwrap_batch`] reads, with `response`
/// (what the format reads of a response) kept of its model output.
pub fn batch_keep(response: &Keep) -> Keep {
    members(&[
        ("recordId", Keep::all()),
        ("modelInput", Keep::default()),
        ("modelOutput", response.clone()),
        ("error", Keep::all()),
    ])
}

/// A batch inference output line (an object with `recordId` or `modelInput`, and
/// `modelOutput` or `error`): where its model output is, or why there is none; None for
/// any other record. See `unwrap_batch` in the Python module for the rules.
pub fn unwrap_batch<N: Node>(doc: &N) -> Result<Option<Envelope<N>>, N::Error> {
    if !((doc.has_key("recordId")? || doc.has_key("modelInput")?)
        && (doc.has_key("modelOutput")? || doc.has_key("error")?))
    {
        return Ok(None);
    }
    let custom_id = doc.member("recordId")?.filter(N::is_string);
    let response = match doc.member("error")? {
        Some(error) => Err(Failure::Error(Some(error), &DESCRIBE_ERROR)),
        None => doc.member("modelOutput")?.ok_or(Failure::NoResponse),
    };
    Ok(Some(Envelope {
        response,
        custom_id,
    }))
}

/// How a batch error (`{"errorCode", "errorMessage"}`) is said (the pure `describe_error`).
static DESCRIBE_ERROR: Describer = Describer {
    tape: |error| {
        error.map_or_else(
            || "null".to_owned(),
            |error| error.describe_with(("errorMessage", "errorCode")),
        )
    },
    pure: ("toolsift._pure.formats.bedrock", "describe_error"),
};

// The stream reader: ConverseStream events.

/// The members of ConverseStream events.
pub const STREAM_KEYS: &[&str] = &[
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
];

/// A ConverseStream event: an object with one of [`STREAM_KEYS`].
pub fn stream_detect<N: Node>(event: &N) -> Result<bool, N::Error> {
    for key in STREAM_KEYS {
        if event.field(key)?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// An event of the stream given alone (a log that keeps only some events, or the runtime
/// exception a stream ended with): `parse` reads it as a stream of that one event. A
/// `Converse` response has none of `STREAM_KEYS`, and more than one member.
pub fn is_stream_piece<N: Node>(doc: &N) -> Result<bool, N::Error> {
    Ok(stream_detect(doc)? || bedrock_exception(doc)?.is_some())
}

/// `toolUse` blocks: started by `contentBlockStart`, `input` text appended by
/// `contentBlockDelta`, completed by `contentBlockStop`; `messageStop` completes those of
/// its message. A `toolUse` of `type: "server_tool_use"` starts no call (as in [`walk`]):
/// its deltas find no block at its index. A `messageStart` begins a message whose block
/// indices start again at 0: its blocks are a new group, so the calls before it stay as
/// they are.
pub fn stream_event<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    if event.field("messageStart")?.is_some() {
        acc.message += 1;
    }
    if let Some(start) = event.field("contentBlockStart")? {
        let use_ = field_of(&start.field("start")?, "toolUse")?;
        let server = field_of(&use_, "type")?.is_some_and(|t| t.is_str("server_tool_use"));
        if let (Some(use_), false) = (use_, server) {
            let index = index_of(start.field("contentBlockIndex")?)?;
            let at = acc.start(Index::Int(acc.message), index, None);
            acc.slots[at].set_name(use_.field("name")?)?;
            acc.set_id(at, use_.field("toolUseId")?)?;
        }
    }
    if let Some(delta) = event.field("contentBlockDelta")? {
        let use_ = field_of(&delta.field("delta")?, "toolUse")?;
        let index = index_of(delta.field("contentBlockIndex")?)?;
        let block = acc.started(Index::Int(acc.message), index);
        if let (Some(use_), Some(at)) = (use_, block) {
            acc.slots[at].append(use_.field("input")?)?;
        }
    }
    if let Some(stop) = event.field("contentBlockStop")? {
        let index = index_of(stop.field("contentBlockIndex")?)?;
        if let Some(at) = acc.started(Index::Int(acc.message), index) {
            acc.complete(at);
        }
    }
    if event.field("messageStop")?.is_some() {
        acc.complete_all(Some(&Index::Int(acc.message)));
    }
    Ok(())
}

/// Events that wrap (or end) a stream of any format, read before its format reads them
/// (the registry's `unwrap_event`): an `InvokeModelWithResponseStream` `chunk` is the
/// event it wraps ([`chunk_payload`]); a runtime exception ([`bedrock_exception`]) ends
/// the stream with that error, named by its key.
pub fn unwrap_event<N: Node>(event: &N) -> Result<Option<Unwrapped<N>>, N::Error> {
    if let Some(payload) = chunk_payload(event)? {
        return Ok(Some(Unwrapped::Event(payload)));
    }
    Ok(bedrock_exception(event)?.map(|(name, error)| Unwrapped::Error(name, error)))
}

/// The exceptions a Bedrock runtime stream (ConverseStream, InvokeModelWithResponseStream)
/// may end with, each an event of its own: `{"throttlingException": {"message": ...}}`.
pub const BEDROCK_EXCEPTIONS: [&str; 6] = [
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "modelTimeoutException",
    "serviceUnavailableException",
];

/// A Bedrock runtime stream's exception event, an object of that one member (as boto3
/// gives it, a dict): its name and its value. None for any other event.
pub fn bedrock_exception<N: Node>(event: &N) -> Result<Option<(&'static str, N)>, N::Error> {
    if !event.single_member() {
        return Ok(None); // most events: no lookup of each name
    }
    for name in BEDROCK_EXCEPTIONS {
        if let Some(error) = event.member(name)? {
            return Ok(Some((name, error)));
        }
    }
    Ok(None)
}

/// Base64 as Python's `base64.b64decode(text, validate=True)` reads it: the standard
/// alphabet, padding required, bits after the last byte ignored.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

/// The event a Bedrock `InvokeModelWithResponseStream` event wraps: `{"chunk": {"bytes":
/// B}}`, B the model's own event as JSON text (Anthropic's events for Claude models).
/// boto3 gives B as `bytes`; the wire and JSON logs as base64 text. Text that is not
/// base64 is taken as the JSON itself (a log that decoded the bytes). None for any
/// other event.
fn chunk_payload<N: Node>(event: &N) -> Result<Option<Vec<u8>>, N::Error> {
    // Members of objects only: boto3 gives dicts, and SDK objects are no chunks (an
    // attribute read that fails costs more than reading a small event).
    let Some(part) = event.member("chunk")? else {
        return Ok(None);
    };
    let Some(data) = part.member("bytes")? else {
        return Ok(None);
    };
    if let Some(blob) = data.blob()? {
        return Ok(Some(blob));
    }
    Ok(data
        .text()?
        .map(|text| BASE64.decode(&text).unwrap_or_else(|_| text.into_bytes())))
}
