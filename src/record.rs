//! One response's JSON text to its calls, with nothing borrowed from Python: the part of
//! the work that runs on worker threads with the GIL released.

use crate::formats::{Format, RawCall};
use crate::json::{self, JsonError, Tape, Token};
use crate::node::TapeNode;

/// A parsed response: its tape and its calls, each pointing into the tape by index.
#[derive(Debug)]
pub struct Record<'a> {
    pub tape: Tape<'a>,
    pub calls: Vec<Call>,
}

/// One call; `name` and `id` are tape indices of the values as found.
#[derive(Debug)]
pub struct Call {
    pub name: Option<usize>,
    pub id: Option<usize>,
    pub arguments: Arguments,
}

/// What the arguments value turned out to be.
#[derive(Debug)]
pub enum Arguments {
    /// Missing or null: no arguments.
    Missing,
    /// An object on the response's tape, at this index.
    Object(usize),
    /// A string holding a JSON object, decoded onto its own tape.
    Decoded(Tape<'static>),
    /// A string that is not JSON text of an object: kept as text (tape index of the string).
    Undecodable(usize),
    /// Some other value (number, list, bool) at this index: kept as its JSON text.
    Other(usize),
}

/// Parse one response and find its calls.
pub fn parse_record<'a>(format: &Format, text: &'a [u8]) -> Result<Record<'a>, JsonError> {
    let tape = json::parse(text)?;
    let root = TapeNode::root(&tape);
    let Ok(raw_calls) = format.walk(&root);
    let calls = raw_calls.into_iter().map(resolve).collect();
    Ok(Record { tape, calls })
}

fn resolve(raw: RawCall<TapeNode<'_, '_>>) -> Call {
    let arguments = match raw.arguments {
        None => Arguments::Missing,
        Some(node) => match node.token() {
            Token::Object { .. } => Arguments::Object(node.idx),
            Token::Str(text) => decode_arguments(text, node.idx),
            _ => Arguments::Other(node.idx),
        },
    };
    Call {
        name: raw.name.map(|n| n.idx),
        id: raw.id.map(|n| n.idx),
        arguments,
    }
}

/// Arguments given as a string: JSON text that must decode to an object.
fn decode_arguments(text: &str, idx: usize) -> Arguments {
    match decode_object(text) {
        Some(tape) => Arguments::Decoded(tape),
        None => Arguments::Undecodable(idx),
    }
}

/// The tape of `text` when it is the JSON text of an object.
pub fn decode_object(text: &str) -> Option<Tape<'static>> {
    json::parse_owned(text.as_bytes())
        .ok()
        .filter(|tape| matches!(tape.tokens[0], Token::Object { .. }))
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
        assert_eq!(record.tape.tokens[call.name.unwrap()], Token::Str("f".into()));
        assert_eq!(record.tape.tokens[call.id.unwrap()], Token::Str("c1".into()));
        let Arguments::Decoded(args) = &call.arguments else {
            panic!("{:?}", call.arguments)
        };
        assert_eq!(args.tokens[2], Token::Int(1));
    }

    #[test]
    fn undecodable_arguments_are_kept() {
        let text = br#"{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{\"a\":"}}]}}]}"#;
        let record = parse_record(&openai(), text).unwrap();
        assert!(matches!(record.calls[0].arguments, Arguments::Undecodable(_)));
    }
}
