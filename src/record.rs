//! One response's JSON text to its calls, with nothing borrowed from Python: the part of
//! the work that runs on worker threads with the GIL released.

use crate::formats::Format;
use crate::json::{self, JsonError, Tape, Text, Token};
use crate::node::TapeNode;
use std::borrow::Cow;

/// A parsed response: its tape and its calls, each pointing into the tape by index.
#[derive(Debug)]
pub struct Record<'a> {
    pub tape: Tape<'a>,
    pub calls: Vec<Call<'a>>,
}

/// One call: its name and id where they were strings, and its arguments.
#[derive(Debug)]
pub struct Call<'a> {
    pub name: Option<Cow<'a, str>>,
    pub id: Option<Cow<'a, str>>,
    pub arguments: Arguments<'a>,
}

/// What the arguments value turned out to be.
#[derive(Debug)]
pub enum Arguments<'a> {
    /// Missing or null: no arguments.
    Missing,
    /// An object on the response's tape, at this index.
    Object(usize),
    /// A string holding a JSON object, decoded onto its own tape.
    Decoded(Tape<'a>),
    /// A string that is not the JSON text of an object: kept as it is.
    Undecodable(Cow<'a, str>),
    /// Some other value (number, list, bool) at this index: kept as its JSON text.
    Other(usize),
    /// Some other value, on a tape of its own (formats that do not keep the response's
    /// tape): kept as its JSON text.
    Value(Tape<'a>),
    /// A string not decoded yet ([`record_at_with`] without decoding): Arrow rows
    /// decode it on their own.
    Encoded(Cow<'a, str>),
}

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
    if let Format::LiteRt = format {
        return Ok(crate::formats::litert::parse_record(text));
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
    mut tape: Tape<'a>,
    root: usize,
    decode: bool,
) -> Record<'a> {
    let Ok(raw_calls) = format.walk(&TapeNode {
        tape: &tape,
        idx: root,
    });
    type Found = (Option<usize>, Option<usize>, Option<usize>, bool);
    let found: Vec<Found> = raw_calls
        .into_iter()
        .map(|c| {
            (
                c.name.map(|n| n.idx),
                c.id.map(|n| n.idx),
                c.arguments.map(|n| n.idx),
                c.verbatim,
            )
        })
        .collect();
    let calls = found
        .into_iter()
        .map(|(name, id, arguments, verbatim)| Call {
            name: name.and_then(|idx| string_at(&tape, idx)),
            id: id.and_then(|idx| string_at(&tape, idx)),
            arguments: match arguments {
                None => Arguments::Missing,
                // Free text (a custom tool's input): a string is kept as it is.
                Some(idx) if verbatim && matches!(tape.tokens[idx], Token::Str(_)) => {
                    string_at(&tape, idx).map_or(Arguments::Missing, Arguments::Undecodable)
                }
                Some(idx) => arguments_at(&mut tape, idx, decode),
            },
        })
        .collect();
    Record { tape, calls }
}

/// The string at `idx`, borrowed from the input where it had no escapes.
pub fn string_at<'a>(tape: &Tape<'a>, idx: usize) -> Option<Cow<'a, str>> {
    match (&tape.tokens[idx], &tape.source) {
        (Token::Str(Text::Source { start, len }), Cow::Borrowed(source)) => Some(Cow::Borrowed(
            &source[*start as usize..(*start + *len) as usize],
        )),
        (Token::Str(text), _) => Some(Cow::Owned(tape.text(text).to_owned())),
        _ => None,
    }
}

/// The arguments value at `idx`. A string's text is moved out of the response's tape
/// (each call has its own arguments value, and nothing else reads it) onto its own.
fn arguments_at<'a>(tape: &mut Tape<'a>, idx: usize, decode: bool) -> Arguments<'a> {
    let decode = |text: Cow<'a, str>| {
        if decode {
            decode_object(text)
        } else {
            Arguments::Encoded(text)
        }
    };
    if matches!(tape.tokens[idx], Token::Object { .. }) {
        // An integer Python would refuse to convert: kept as JSON text, not decoded.
        if json::holds_too_long_int(tape, idx) {
            return Arguments::Other(idx);
        }
        return Arguments::Object(idx);
    }
    match &mut tape.tokens[idx] {
        Token::Str(Text::Owned(text)) => decode(Cow::Owned(std::mem::take(text).into())),
        Token::Str(Text::Source { start, len }) => {
            let range = *start as usize..(*start + *len) as usize;
            let text = match &tape.source {
                Cow::Borrowed(source) => Cow::Borrowed(&source[range]),
                Cow::Owned(source) => Cow::Owned(source[range].to_owned()),
            };
            decode(text)
        }
        _ => Arguments::Other(idx),
    }
}

/// Arguments given as text: decoded when it is the JSON text of an object (with no
/// integer longer than Python converts, as `json.loads` refuses it), else kept.
pub fn decode_object(text: Cow<'_, str>) -> Arguments<'_> {
    let decoded = match text {
        Cow::Borrowed(text) => json::parse_str(text).map_err(|_| Cow::Borrowed(text)),
        Cow::Owned(text) => json::parse_string(text).map_err(|(_, text)| Cow::Owned(text)),
    };
    match decoded {
        Ok(tape)
            if matches!(tape.tokens[0], Token::Object { .. })
                && !json::holds_too_long_int(&tape, 0) =>
        {
            Arguments::Decoded(tape)
        }
        Ok(tape) => Arguments::Undecodable(tape.source),
        Err(text) => Arguments::Undecodable(text),
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
