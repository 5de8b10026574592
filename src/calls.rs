//! The types every format shares: a response's calls (`Call`, `Arguments`) on its tape
//! (`Record`), and the reading of a string or of arguments given as text. A leaf: it
//! uses only `crate::json`, so format modules and `record` both build on it.

use crate::json::{self, Tape, Text, Token};
use std::borrow::Cow;

/// A parsed response: its tape and its calls, each pointing into the tape by index.
#[derive(Debug)]
pub struct Record<'a> {
    pub tape: Tape<'a>,
    pub calls: Vec<Call<'a>>,
    /// The format the response was read as (the `format` column), or, where
    /// auto-detection recognized no shape, the error saying so.
    pub format: Result<&'static str, String>,
    /// A raw-text dialect's text outside the calls (markers removed), where it has some.
    pub content: Option<String>,
    /// A raw-text dialect's reasoning blocks, where it has some.
    pub reasoning: Option<String>,
    /// The context columns: model, response id, and per call its finish reason, choice
    /// and type.
    pub context: Context<'a>,
    /// A transcript's (`messages`): each call's turn and result, in the order of
    /// `calls`; empty for every other format.
    pub turns: Vec<CallTurn<'a>>,
}

/// Where a call of a transcript was made and what its tool answered (see
/// `crate::formats::messages`).
#[derive(Debug, Clone)]
pub struct CallTurn<'a> {
    /// The index of the message that made the call.
    pub turn: usize,
    /// The paired result: its text (a string as given, any other value as compact JSON;
    /// None where it had no value) and whether it says the call failed. None: no result.
    pub result: Option<(Option<Cow<'a, str>>, bool)>,
}

impl CallTurn<'_> {
    fn into_owned(self) -> CallTurn<'static> {
        CallTurn {
            turn: self.turn,
            result: self
                .result
                .map(|(text, error)| (text.map(|t| Cow::Owned(t.into_owned())), error)),
        }
    }
}

/// A response's context, as its format's `context` hook found it (strings borrowed from
/// the tape where they had no escapes): the `model`, `response_id`, `finish_reason`,
/// `choice_index` and `call_type` columns.
#[derive(Debug, Default)]
pub struct Context<'a> {
    pub model: Option<Cow<'a, str>>,
    pub response_id: Option<Cow<'a, str>>,
    /// Per call, in order; empty: every call is of `call_type` with neither a finish
    /// reason nor a choice (a record read as text, a stream, the `json` format).
    pub calls: Vec<CallContext<'a>>,
    /// The type of a call whose own is not set: a raw-text dialect's name (or `litert`)
    /// for calls read from text; None: `function`.
    pub call_type: Option<&'static str>,
}

/// One call's part of a [`Context`].
#[derive(Debug, Default)]
pub struct CallContext<'a> {
    pub finish_reason: Option<Cow<'a, str>>,
    pub choice_index: Option<i32>,
    /// The call's own type, where it is not the record's ([`Context::call_type`]):
    /// `custom` for free text, not JSON arguments (an OpenAI custom tool call, a
    /// Responses `custom_tool_call`); a raw-text dialect's name for a call read from a
    /// message's text (`text_dialect`).
    pub call_type: Option<&'static str>,
}

/// `call_type` of a call whose arguments are JSON.
pub const FUNCTION: &str = "function";
/// `call_type` of a call whose arguments are free text.
pub const CUSTOM: &str = "custom";

impl<'a> Context<'a> {
    /// The context of calls read from text by `reader` (a raw-text dialect, LiteRT-LM).
    pub fn text(reader: &'static str) -> Context<'a> {
        Context {
            call_type: Some(reader),
            ..Context::default()
        }
    }

    /// The context of the call at `index` (its finish reason, its choice) and its type.
    pub fn call(&self, index: usize) -> (Option<&str>, Option<i32>, &'static str) {
        match self.calls.get(index) {
            Some(call) => (
                call.finish_reason.as_deref(),
                call.choice_index,
                call.call_type.or(self.call_type).unwrap_or(FUNCTION),
            ),
            None => (None, None, self.call_type.unwrap_or(FUNCTION)),
        }
    }

    fn into_owned(self) -> Context<'static> {
        let owned = |text: Cow<'_, str>| Cow::Owned(text.into_owned());
        Context {
            model: self.model.map(owned),
            response_id: self.response_id.map(owned),
            calls: self
                .calls
                .into_iter()
                .map(|call| CallContext {
                    finish_reason: call.finish_reason.map(owned),
                    choice_index: call.choice_index,
                    call_type: call.call_type,
                })
                .collect(),
            call_type: self.call_type,
        }
    }
}

impl<'a> Record<'a> {
    /// The record of calls read as `format` that do not point into a tape (text read
    /// without one: LiteRT-LM).
    pub fn found(calls: Vec<Call<'a>>, format: &'static str) -> Record<'a> {
        Record {
            tape: Tape::default(),
            calls,
            format: Ok(format),
            content: None,
            reasoning: None,
            context: Context::text(format),
            turns: Vec::new(),
        }
    }

    /// The same record, borrowing nothing (a response read from text the reader made,
    /// such as a LiteRT-LM response inside a batch envelope).
    pub fn into_owned(self) -> Record<'static> {
        Record {
            tape: self.tape.into_owned(),
            calls: self.calls.into_iter().map(Call::into_owned).collect(),
            format: self.format,
            content: self.content,
            reasoning: self.reasoning,
            context: self.context.into_owned(),
            turns: self.turns.into_iter().map(CallTurn::into_owned).collect(),
        }
    }
}

/// One call: its name and id where they were strings, and its arguments.
#[derive(Debug)]
pub struct Call<'a> {
    pub name: Option<Cow<'a, str>>,
    pub id: Option<Cow<'a, str>>,
    pub arguments: Arguments<'a>,
}

impl Call<'_> {
    /// The same call, borrowing nothing.
    pub fn into_owned(self) -> Call<'static> {
        let owned = |text: Cow<'_, str>| Cow::Owned(text.into_owned());
        Call {
            name: self.name.map(owned),
            id: self.id.map(owned),
            arguments: match self.arguments {
                Arguments::Missing => Arguments::Missing,
                Arguments::Object(idx) => Arguments::Object(idx),
                Arguments::Decoded(tape) => Arguments::Decoded(tape.into_owned()),
                Arguments::Undecodable(text) => Arguments::Undecodable(owned(text)),
                Arguments::Other(idx) => Arguments::Other(idx),
                Arguments::Value(tape) => Arguments::Value(tape.into_owned()),
                Arguments::Encoded(idx) => Arguments::Encoded(idx),
                Arguments::Verbatim(text) => Arguments::Verbatim(owned(text)),
            },
        }
    }
}

/// What the arguments value turned out to be.
#[derive(Clone, Debug)]
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
    /// A string on the response's tape, at this index, not decoded yet
    /// ([`record_at_with`] without decoding): Arrow rows and Python objects are made
    /// from its text directly.
    Encoded(usize),
    /// Free text by design (a custom tool's input): kept as it is, never a defect.
    Verbatim(Cow<'a, str>),
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

/// Arguments given as text: decoded when it is the JSON text of an object (with no
/// integer longer than Python converts, as `json.loads` refuses it), else kept.
pub fn decode_object(text: Cow<'_, str>) -> Arguments<'_> {
    let decoded = match text {
        Cow::Borrowed(text) => json::parse_str_or_none(text).ok_or(Cow::Borrowed(text)),
        Cow::Owned(text) => json::parse_string_or_back(text).map_err(Cow::Owned),
    };
    match decoded {
        Ok(tape)
            if matches!(tape.tokens[0], Token::Object { .. })
                && !json::holds_too_long_int(&tape) =>
        {
            Arguments::Decoded(tape)
        }
        Ok(tape) => Arguments::Undecodable(tape.source),
        Err(text) => Arguments::Undecodable(text),
    }
}
