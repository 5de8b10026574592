//! One response's JSON text to its calls, with nothing borrowed from Python: the part of
//! the work that runs on worker threads with the GIL released.

use crate::calls::{
    decode_object, string_at, Arguments, Call, CallContext, CallTurn, Context, Record, CUSTOM,
};
use crate::compact;
use crate::events::{self, holds_stream};
use crate::formats::messages::{self, Exchange, MessagesFormat};
use crate::formats::{first_field, Format, RawCall, TextFormat, Walked, MESSAGES};
use crate::json::{self, JsonError, Tape, Token};
use crate::node::{Node, TapeNode};
use crate::route::{route, Route};
use crate::text_dialect;

/// What is made of a record besides its calls.
#[derive(Clone, Copy, Debug)]
pub struct Wanted {
    /// Argument strings decoded; else left as they are (`Arguments::Encoded`): the thread
    /// that builds Python objects decodes them straight into those.
    pub decode: bool,
    /// The context columns (`Record::context`), which Arrow rows read and Python objects
    /// do not hold; else left empty.
    pub context: bool,
}

impl Wanted {
    /// Everything: decoded arguments and the context.
    pub const ALL: Wanted = Wanted {
        decode: true,
        context: true,
    };
}

/// Parse one response and find its calls.
/// LiteRT-LM text is never an error: text without calls (or not UTF-8) has none.
pub fn parse_record<'a>(format: &Format, text: &'a [u8]) -> Result<Record<'a>, JsonError> {
    parse_record_with(format, text, Wanted::ALL)
}

/// [`parse_record`], making what is `wanted` of it.
pub fn parse_record_with<'a>(
    format: &Format,
    text: &'a [u8],
    wanted: Wanted,
) -> Result<Record<'a>, JsonError> {
    if let Some(reader) = format.text() {
        return Ok(reader.record(text));
    }
    Ok(record_at_with(format, json::parse(text)?, 0, wanted))
}

/// The calls of the response at `root` on a parsed tape (the whole document, or a part
/// of it such as the `response.body` of a batch envelope), and what else is `wanted`.
pub fn record_at_with<'a>(
    format: &Format,
    tape: Tape<'a>,
    root: usize,
    wanted: Wanted,
) -> Record<'a> {
    if let Some(decoded) = json_in_string(&tape, root) {
        // A response given as JSON text inside a string (a log that stored the body, or
        // `model_dump_json()`, as a string): the value the text holds is the record.
        return record_at_with(format, decoded, 0, wanted);
    }
    let node = TapeNode {
        tape: &tape,
        idx: root,
    };
    let is_text = matches!(tape.tokens[root], Token::Str(_));
    let Ok(route) = route(
        format,
        &node,
        |node| holds_stream(&tape, node.idx),
        is_text,
        Walked::detected,
        true,
    );
    let (name, raw_calls) = match route {
        // A whole stream, or a piece of one read as a stream of one event.
        Route::Stream(reader) | Route::Piece(reader) => {
            return events::record(reader, tape, root, unrecognized_shape);
        }
        Route::Transcript(options) => {
            return transcript_record(&options, tape, root, wanted.decode)
        }
        Route::Calls(name, calls) => (name, calls),
        Route::Unrecognized => {
            let error = unrecognized_shape(&tape, root);
            return Record {
                tape,
                calls: Vec::new(),
                format: Err(error),
                content: None,
                reasoning: None,
                context: Context::default(),
                turns: Vec::new(),
            };
        }
    };
    if let (Format::WithText(_, text), Some(walked)) = (format, Walked::named(name)) {
        // Calls in the text too.
        return text_record(text, walked, tape, root, wanted);
    }
    let context = if wanted.context {
        let placed = raw_calls
            .iter()
            .map(|call| (call.choice.as_ref(), own_type(call)));
        context_of(&node, Walked::named(name), placed)
    } else {
        Context::default()
    };
    let calls = (raw_calls.into_iter())
        .map(|call| call_at(&tape, found_at(call), wanted.decode))
        .collect();
    Record {
        tape,
        calls,
        format: Ok(name),
        content: None,
        reasoning: None,
        context,
        turns: Vec::new(),
    }
}

/// A call's place, for its context: the choice it is in, with the choice's position,
/// and its own type where it has one (`CallContext::call_type`).
type Placed<'n, 't, 'a> = (Option<&'n (usize, TapeNode<'t, 'a>)>, Option<&'static str>);

/// The own type of a call found in the structure: `custom` for free text.
fn own_type<N>(call: &RawCall<N>) -> Option<&'static str> {
    call.verbatim.then_some(CUSTOM)
}

/// The context of a response `walked` read (its format's `context` hook; a record
/// without calls has its model and id too), and of each of its calls (`placed`): the
/// finish reason of its choice (else the response's), the choice's `index` (an integer
/// of 32 bits; else its position), and its own type. Nothing but the call types for the
/// `json` format.
fn context_of<'n, 't: 'n, 'a: 't>(
    node: &TapeNode<'t, 'a>,
    walked: Option<Walked>,
    placed: impl Iterator<Item = Placed<'n, 't, 'a>>,
) -> Context<'a> {
    let Some(walked) = walked else {
        let calls = placed.map(|(_, call_type)| CallContext {
            call_type,
            ..CallContext::default()
        });
        return Context {
            calls: calls.collect(),
            ..Context::default()
        };
    };
    let Ok(found) = walked.context(node);
    let text = |n: Option<TapeNode<'_, 'a>>| n.and_then(|n| string_at(n.tape, n.idx));
    let finish_reason = text(found.finish_reason);
    let calls = placed
        .map(|(choice, call_type)| match choice {
            Some((position, choice)) => {
                let Ok(finish) = first_field(choice, found.choice_finish);
                let Ok(index) = choice.member("index");
                CallContext {
                    finish_reason: text(finish),
                    choice_index: Some(
                        index
                            .and_then(small_int)
                            .unwrap_or_else(|| i32::try_from(*position).unwrap_or(i32::MAX)),
                    ),
                    call_type,
                }
            }
            None => CallContext {
                finish_reason: finish_reason.clone(),
                choice_index: None,
                call_type,
            },
        })
        .collect();
    Context {
        model: text(found.model),
        response_id: text(found.response_id),
        calls,
        call_type: None,
    }
}

/// An integer of 32 bits at `node`.
fn small_int(node: TapeNode<'_, '_>) -> Option<i32> {
    match node.token() {
        Token::Int(n) => i32::try_from(*n).ok(),
        Token::UInt(n) => i32::try_from(*n).ok(),
        _ => None,
    }
}

/// Where a call's name, id and arguments are on the tape, and whether its arguments are
/// free text.
type Found = (Option<usize>, Option<usize>, Option<usize>, bool);

fn found_at(call: RawCall<TapeNode<'_, '_>>) -> Found {
    (
        call.name.map(|n| n.idx),
        call.id.map(|n| n.idx),
        call.arguments.map(|n| n.idx),
        call.verbatim,
    )
}

/// The call found at these places of the tape.
fn call_at<'a>(tape: &Tape<'a>, (name, id, arguments, verbatim): Found, decode: bool) -> Call<'a> {
    Call {
        name: name.and_then(|idx| string_at(tape, idx)),
        id: id.and_then(|idx| string_at(tape, idx)),
        arguments: match arguments {
            None => Arguments::Missing,
            // Free text (a custom tool's input): a string is kept as it is.
            Some(idx) if verbatim && matches!(tape.tokens[idx], Token::Str(_)) => {
                string_at(tape, idx).map_or(Arguments::Missing, Arguments::Verbatim)
            }
            Some(idx) => arguments_at(tape, idx, decode),
        },
    }
}

/// The record of a response read with `text_dialect` (`crate::text_dialect`): each
/// message's structured calls, or those its text holds, and the text's content; the
/// context of the format, a call read from a message's text in the message's choice and
/// of the dialect's type.
fn text_record<'a>(
    text: &TextFormat,
    walked: Walked,
    tape: Tape<'a>,
    root: usize,
    wanted: Wanted,
) -> Record<'a> {
    let node = TapeNode {
        tape: &tape,
        idx: root,
    };
    let Ok(text_dialect::TextRead {
        calls,
        content,
        reasoning,
    }) = text_dialect::read(walked, &node, text);
    let placed = calls.iter().map(|call| match call {
        text_dialect::Found::Structured(call) => (call.choice.as_ref(), own_type(call)),
        text_dialect::Found::Text(_, choice, dialect) => (choice.as_ref(), Some(*dialect)),
    });
    let context = if wanted.context {
        context_of(&node, Some(walked), placed)
    } else {
        Context::default()
    };
    let calls = (calls.into_iter())
        .map(|call| match call {
            text_dialect::Found::Structured(call) => call_at(&tape, found_at(call), wanted.decode),
            text_dialect::Found::Text(call, ..) => call,
        })
        .collect();
    Record {
        tape,
        calls,
        format: Ok(walked.name()),
        content,
        reasoning,
        context,
        turns: Vec::new(),
    }
}

/// The record of the transcript at `root`: its calls, each with its turn and result.
fn transcript_record<'a>(
    options: &MessagesFormat,
    tape: Tape<'a>,
    root: usize,
    decode: bool,
) -> Record<'a> {
    let node = TapeNode {
        tape: &tape,
        idx: root,
    };
    let Ok(exchanges) = messages::walk(&node, options);
    // The record's `model` (a rollout's, a request log's), where it names one.
    let Ok(model) = node.member("model");
    let model = model.and_then(|model| string_at(&tape, model.idx));
    let mut calls = Vec::with_capacity(exchanges.len());
    let mut turns = Vec::with_capacity(exchanges.len());
    for Exchange { call, turn, result } in exchanges {
        calls.push(match call {
            messages::Found::Raw(raw) => call_at(&tape, found_at(raw), decode),
            messages::Found::Made(made) => made,
        });
        let result = result.map(|(value, error)| {
            let text = value.map(|value| match string_at(&tape, value.idx) {
                Some(text) => text,
                None => compact::to_string(&tape, value.idx).into(),
            });
            (text, error)
        });
        turns.push(CallTurn { turn, result });
    }
    Record {
        tape,
        calls,
        format: Ok(MESSAGES),
        content: None,
        reasoning: None,
        context: Context {
            model,
            ..Context::default()
        },
        turns,
    }
}

/// Keys shown at most in [`unrecognized_shape`] (the pure `MAX_KEYS_SHOWN`).
const MAX_KEYS_SHOWN: usize = 10;

/// The value of the string at `root` when the string is the JSON text of an object or an
/// array (its first character, after JSON whitespace, `{` or `[`), decoded; None for any
/// other string (SSE text, plain text, text that is not JSON), which stays a string.
fn json_in_string(tape: &Tape<'_>, root: usize) -> Option<Tape<'static>> {
    let text = tape.str_at(root)?;
    let start = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if !matches!(start.as_bytes().first(), Some(b'{' | b'[')) {
        return None;
    }
    json::parse_string(text.to_owned()).ok()
}

/// `unrecognized response shape (keys: a, b, c)`, as the pure `UnrecognizedShape` says
/// it: the response's keys (each once, in order; the first ten, then `...`), or what it
/// is when it is not an object.
pub fn unrecognized_shape(tape: &Tape<'_>, idx: usize) -> String {
    let shape = match &tape.tokens[idx] {
        Token::Object { end, .. } => {
            let mut keys: Vec<&str> = Vec::new();
            let mut at = idx + 1;
            while at < *end as usize {
                let key = tape.str_at(at).unwrap_or_default();
                if !keys.contains(&key) {
                    keys.push(key);
                }
                at = tape.skip(at + 1);
            }
            let more = if keys.len() > MAX_KEYS_SHOWN {
                ", ..."
            } else {
                ""
            };
            keys.truncate(MAX_KEYS_SHOWN);
            format!("keys: {}{more}", keys.join(", "))
        }
        Token::Array { .. } => "an array".to_owned(),
        Token::Str(_) => "a string".to_owned(),
        Token::Bool(_) => "a boolean".to_owned(),
        Token::Null => "null".to_owned(),
        _ => "a number".to_owned(),
    };
    format!("unrecognized response shape ({shape})")
}

/// The arguments value at `idx` (a string decoded only if `decode`).
fn arguments_at<'a>(tape: &Tape<'a>, idx: usize, decode: bool) -> Arguments<'a> {
    if matches!(tape.tokens[idx], Token::Object { .. }) {
        // An integer Python would refuse to convert: kept as JSON text, not decoded.
        if json::value_holds_too_long_int(tape, idx) {
            return Arguments::Other(idx);
        }
        return Arguments::Object(idx);
    }
    if !decode && matches!(tape.tokens[idx], Token::Str(_)) {
        return Arguments::Encoded(idx);
    }
    match string_at(tape, idx) {
        Some(text) => decode_object(text),
        None => Arguments::Other(idx),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn openai() -> Format {
        Format::new("openai", "tool_calls", "name", "arguments", false).unwrap()
    }

    #[test]
    fn openai_call() {
        let text = br#"{"choices":[{"message":{"tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}"#;
        let record = parse_record(&openai(), text).unwrap();
        assert_eq!(record.calls.len(), 1);
        let call = &record.calls[0];
        assert_eq!(call.name.as_deref(), Some("f"));
        assert_eq!(call.id.as_deref(), Some("c1"));
        let Arguments::Decoded(args) = &call.arguments else {
            panic!("{:?}", call.arguments)
        };
        assert_eq!(args.tokens[2], Token::Int(1));
    }

    #[test]
    fn undecodable_arguments_are_kept() {
        let text = br#"{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{\"a\":"}}]}}]}"#;
        let record = parse_record(&openai(), text).unwrap();
        assert!(matches!(
            record.calls[0].arguments,
            Arguments::Undecodable(_)
        ));
    }
}
