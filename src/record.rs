//! One response's JSON text to its calls, with nothing borrowed from Python: the part of
//! the work that runs on worker threads with the GIL released.

use crate::calls::{decode_object, string_at, Arguments, Call, Record, Turn};
use crate::compact;
use crate::events::{self, holds_stream, Reader};
use crate::formats::messages::{self, Exchange, Found, MessagesFormat};
use crate::formats::{Format, Walk, Walked, MESSAGES};
use crate::json::{self, JsonError, Tape, Token};
use crate::node::TapeNode;

/// Parse one response and find its calls.
/// LiteRT-LM text is never an error: text without calls (or not UTF-8) has none.
pub fn parse_record<'a>(format: &Format, text: &'a [u8]) -> Result<Record<'a>, JsonError> {
    parse_record_with(format, text, true)
}

/// [`parse_record`], leaving argument strings as they are (`Arguments::Encoded`) unless
/// `decode`: the thread that builds Python objects decodes them straight into those.
pub fn parse_record_with<'a>(
    format: &Format,
    text: &'a [u8],
    decode: bool,
) -> Result<Record<'a>, JsonError> {
    if format.reads_text() {
        return Ok(format.text_record(text));
    }
    Ok(record_at_with(format, json::parse(text)?, 0, decode))
}

/// The calls of the response at `root` on a parsed tape (the whole document, or a part
/// of it such as the `response.body` of a batch envelope).
pub fn record_at<'a>(format: &Format, tape: Tape<'a>, root: usize) -> Record<'a> {
    record_at_with(format, tape, root, true)
}

/// [`record_at`], leaving argument strings as they are (`Arguments::Encoded`) unless
/// `decode`.
pub fn record_at_with<'a>(
    format: &Format,
    tape: Tape<'a>,
    root: usize,
    decode: bool,
) -> Record<'a> {
    if let Some(decoded) = json_in_string(&tape, root) {
        // A response given as JSON text inside a string (a log that stored the body, or
        // `model_dump_json()`, as a string): the value the text holds is the record.
        return record_at_with(format, decoded, 0, decode);
    }
    let node = TapeNode {
        tape: &tape,
        idx: root,
    };
    if let Some(options) = transcript_options(format, &node, None) {
        return transcript_record(options, tape, root, decode);
    }
    if let Some(reader) = Reader::for_records(format).filter(|_| holds_stream(&tape, root)) {
        return events::record(reader, tape, root, unrecognized_shape);
    }
    let walked = format.walked(&node, Walked::detected);
    if let Some(options) = transcript_options(format, &node, Some(walked)) {
        return transcript_record(options, tape, root, decode);
    }
    let is_text = matches!(tape.tokens[root], Token::Str(_));
    if let Ok(Some(reader)) = events::piece_reader(format, walked, &node, is_text) {
        // A piece of a stream: read as a stream of one event.
        return events::record(reader, tape, root, unrecognized_shape);
    }
    let Ok(walk) = format.walk(&node, |_| walked);
    let (name, raw_calls) = match walk {
        Walk::Calls(name, calls) => (name, calls),
        Walk::Unrecognized => {
            let error = unrecognized_shape(&tape, root);
            return Record {
                tape,
                calls: Vec::new(),
                format: Err(error),
                content: None,
                reasoning: None,
                turns: Vec::new(),
            };
        }
    };
    let found: Vec<Located> = raw_calls.into_iter().map(Located::of).collect();
    let calls = found
        .into_iter()
        .map(|located| located.call(&tape, decode))
        .collect();
    Record {
        tape,
        calls,
        format: Ok(name),
        content: None,
        reasoning: None,
        turns: Vec::new(),
    }
}

/// A call found on a tape: where its name, id and arguments are.
struct Located {
    name: Option<usize>,
    id: Option<usize>,
    arguments: Option<usize>,
    verbatim: bool,
}

impl Located {
    fn of(call: crate::formats::RawCall<TapeNode<'_, '_>>) -> Located {
        Located {
            name: call.name.map(|n| n.idx),
            id: call.id.map(|n| n.idx),
            arguments: call.arguments.map(|n| n.idx),
            verbatim: call.verbatim,
        }
    }

    fn call<'a>(self, tape: &Tape<'a>, decode: bool) -> Call<'a> {
        Call {
            name: self.name.and_then(|idx| string_at(tape, idx)),
            id: self.id.and_then(|idx| string_at(tape, idx)),
            arguments: match self.arguments {
                None => Arguments::Missing,
                // Free text (a custom tool's input): a string is kept as it is.
                Some(idx) if self.verbatim && matches!(tape.tokens[idx], Token::Str(_)) => {
                    string_at(tape, idx).map_or(Arguments::Missing, Arguments::Undecodable)
                }
                Some(idx) => arguments_at(tape, idx, decode),
            },
        }
    }
}

/// The options `doc` is read as a transcript with: `messages`'s own; for auto, a list
/// of messages (before it is taken for a list of stream events: `walked` None), or a
/// record no response format recognizes (`walked`, what they say) that
/// `messages::detect` does.
pub fn transcript_options<'f, N: crate::node::Node + Clone>(
    format: &'f Format,
    doc: &N,
    walked: Option<Option<Walked>>,
) -> Option<&'f MessagesFormat> {
    static PLAIN: MessagesFormat = MessagesFormat { text: None };
    match (format, walked) {
        (Format::Messages(options), None) => Some(options),
        (Format::Auto, None) if doc.is_array() => {
            messages::detect(doc).ok().filter(|&d| d).map(|_| &PLAIN)
        }
        (Format::Auto, Some(None)) if !doc.is_array() => {
            messages::detect(doc).ok().filter(|&d| d).map(|_| &PLAIN)
        }
        _ => None,
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
    type Kept = (
        Result<Located, Call<'static>>,
        usize,
        Option<(Option<usize>, bool)>,
    );
    let kept: Vec<Kept> = exchanges
        .into_iter()
        .map(|Exchange { call, turn, result }| {
            let call = match call {
                Found::Raw(raw) => Ok(Located::of(raw)),
                Found::Made(made) => Err(made),
            };
            (
                call,
                turn,
                result.map(|(value, error)| (value.map(|v| v.idx), error)),
            )
        })
        .collect();
    let mut calls = Vec::with_capacity(kept.len());
    let mut turns = Vec::with_capacity(kept.len());
    for (call, turn, result) in kept {
        calls.push(match call {
            Ok(located) => located.call(&tape, decode),
            Err(made) => made,
        });
        let result = result.map(|(value, error)| {
            let text = value.map(|idx| match string_at(&tape, idx) {
                Some(text) => text,
                None => compact::to_string(&tape, idx).into(),
            });
            (text, error)
        });
        turns.push(Turn { turn, result });
    }
    Record {
        tape,
        calls,
        format: Ok(MESSAGES),
        content: None,
        reasoning: None,
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
