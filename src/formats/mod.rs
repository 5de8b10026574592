//! The formats, one module each, listed once in [`formats!`]: the `Format` enum, the
//! names the Python layer and the CLI offer, pruning, walking and auto-detection all
//! come from that list. Each walker reads a response through [`Node`] and collects, for
//! every call, the raw `name`, `id` and `arguments` values as found (None where
//! missing); turning those into a normalized call is `crate::record`'s job. The modules
//! mirror `python/toolsift/_pure/formats/` line by line; its registry lists the same
//! formats in the same order (a test says so).

use crate::accumulator::Accumulator;
use crate::calls::{self, Record};
use crate::dialects::{self, Dialect, Tools};
use crate::json::{Keep, Tape, Token};
use crate::node::{Envelope, Node, TapeNode};
use std::sync::Arc;

pub mod anthropic;
pub mod bedrock;
pub mod cohere;
pub mod gemini;
pub mod gemini_interactions;
pub mod json_path;
pub mod litert;
pub mod messages;
pub mod ollama;
pub mod openai;
pub mod openai_responses;

pub use json_path::JsonOptions;
pub use messages::MessagesFormat;

/// One call as found: the values of its name, id and arguments, where present.
pub struct RawCall<N> {
    pub name: Option<N>,
    pub id: Option<N>,
    pub arguments: Option<N>,
    /// The arguments are free text, not JSON (a custom tool's `input`): a string is kept
    /// in `raw_arguments` as it is, with `arguments={}`.
    pub verbatim: bool,
    /// The choice (candidate) the call is in, with its position in the list, for
    /// formats whose calls are in choices: its finish reason is the call's.
    pub choice: Option<(usize, N)>,
}

impl<N> RawCall<N> {
    /// A call whose arguments are JSON (an object, or a string holding one).
    pub fn new(name: Option<N>, id: Option<N>, arguments: Option<N>) -> Self {
        RawCall {
            name,
            id,
            arguments,
            verbatim: false,
            choice: None,
        }
    }

    /// The same call, in the choice at `position` of the response's choices.
    pub fn in_choice(self, position: usize, choice: N) -> Self {
        RawCall {
            choice: Some((position, choice)),
            ..self
        }
    }
}

/// A response's context as found by its format's `context` (the values of its model, id
/// and finish reason, where present), and `choice_finish`: the keys of a choice's finish
/// reason, for formats whose calls are in choices ([`RawCall::choice`]). The `model`,
/// `response_id`, `finish_reason` and `choice_index` columns.
pub struct Context<N> {
    pub model: Option<N>,
    pub response_id: Option<N>,
    pub finish_reason: Option<N>,
    pub choice_finish: &'static [&'static str],
}

impl<N> Default for Context<N> {
    fn default() -> Self {
        Context {
            model: None,
            response_id: None,
            finish_reason: None,
            choice_finish: &[],
        }
    }
}

/// The first of `keys` that `node` has.
pub fn first_field<N: Node>(node: &N, keys: &[&str]) -> Result<Option<N>, N::Error> {
    for key in keys {
        if let Some(found) = node.field(key)? {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// One assistant message of a response (an OpenAI choice, a Gemini candidate; one for the
/// formats with one message), for `text_dialect` (`crate::text_dialect`): its calls, and
/// the values holding its text (the strings among them are the text, in order), and the
/// choice it is, with its position (for the formats whose calls are in choices: its
/// finish reason and index are those of the calls read from its text). A format's
/// `turns` gives them; the pure twin's `turns` the same, one per choice in order.
pub struct Turn<N> {
    pub calls: Vec<RawCall<N>>,
    pub texts: Vec<N>,
    pub choice: Option<(usize, N)>,
}

impl<N> Default for Turn<N> {
    fn default() -> Self {
        Turn {
            calls: Vec::new(),
            texts: Vec::new(),
            choice: None,
        }
    }
}

impl<N> Turn<N> {
    /// The turn of the choice at `position` of the response's choices.
    pub fn in_choice(position: usize, choice: N) -> Self {
        Turn {
            choice: Some((position, choice)),
            ..Turn::default()
        }
    }
}

/// The `text` of the items of `list` whose `type` is `kind` (content parts, blocks).
pub fn typed_texts<N: Node>(list: Option<N>, kind: &str, out: &mut Vec<N>) -> Result<(), N::Error> {
    for item in elements_of(list) {
        if item.field("type")?.is_some_and(|t| t.is_str(kind)) {
            out.extend(item.field("text")?);
        }
    }
    Ok(())
}

/// The formats read by walking one response document, in registry order: the variant,
/// its module (`walk`, `keep`, `detect`, `KEYS`, and its stream reader `stream_detect`,
/// `stream_event`, `is_stream_piece`) and its `--format` name. The two formats with
/// more to them, `json` (options) and `litert` (text), follow in [`Format`]. Adding a
/// provider is a module and one line here.
///
/// A format that brings a batch envelope of its own along is marked `+ batch`: its
/// module has `unwrap_batch` (where the response of such a record is) and `batch_keep`
/// (the parts of the record that reads), and the bulk reader tries it after the
/// envelopes every format shares. Then the optional hooks, each with the modules that
/// have it (none for the others):
///
/// * `unwrap_event`: events that wrap another event, or end a stream with an error,
///   in a stream of any format ([`Walked::unwrap_event`]).
macro_rules! formats {
    (@batch $module:ident batch) => {
        $module::batch_keep
    };
    (@unwrap $doc:ident $module:ident batch) => {
        if let Some(envelope) = $module::unwrap_batch($doc)? {
            return Ok(Some(envelope));
        }
    };
    (
        $($variant:ident: $module:ident = $name:literal $(+ $hook:ident)?,)*
        ;
        unwrap_event: [$($unwraps_event:ident),*],
    ) => {
        /// A format read by walking one response document.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Walked {
            $($variant,)*
        }

        impl Walked {
            /// Every one, in registry order (auto-detection tries them in this order).
            pub const ALL: &'static [Walked] = &[$(Walked::$variant,)*];

            /// The `batch_keep` of each batch envelope the formats bring along, in
            /// registry order.
            const BATCH_KEEPS: &'static [fn(&Keep) -> Keep] =
                &[$($(formats!(@batch $module $hook),)?)*];

            /// The first batch envelope a format brings along that the record `doc` (a
            /// value of any [`Node`]) is: where its response is, or why there is none;
            /// None for any other record.
            pub fn unwrap_batch<N: Node>(doc: &N) -> Result<Option<Envelope<N>>, N::Error> {
                $($(formats!(@unwrap doc $module $hook);)?)*
                Ok(None)
            }

            pub fn name(self) -> &'static str {
                match self {
                    $(Walked::$variant => $name,)*
                }
            }

            /// The parts of a response [`walk`](Self::walk) and [`detect`](Self::detect) read.
            pub fn keep(self) -> Keep {
                match self {
                    $(Walked::$variant => $module::keep(),)*
                }
            }

            /// The calls of a response, as found.
            pub fn walk<N: Node>(self, doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
                match self {
                    $(Walked::$variant => $module::walk(doc, out),)*
                }
            }

            /// The assistant messages of a response, each with its calls and its text
            /// (`text_dialect`; see [`Turn`]).
            pub fn turns<N: Node>(self, doc: &N, out: &mut Vec<Turn<N>>) -> Result<(), N::Error> {
                match self {
                    $(Walked::$variant => $module::turns(doc, out),)*
                }
            }

            /// The model, id and finish reason of a response (see [`Context`]).
            pub fn context<N: Node>(self, doc: &N) -> Result<Context<N>, N::Error> {
                match self {
                    $(Walked::$variant => $module::context(doc),)*
                }
            }

            /// Whether `doc` has this format's distinctive structure.
            pub fn detect<N: Node>(self, doc: &N) -> bool {
                match self {
                    $(Walked::$variant => $module::detect(doc),)*
                }
            }

            /// Whether `event` is one of this format's stream events (`AutoResponseParser`'s
            /// stream reads the first event some format recognizes with the format's reader).
            pub fn stream_detect<N: Node>(self, event: &N) -> Result<bool, N::Error> {
                match self {
                    $(Walked::$variant => $module::stream_detect(event),)*
                }
            }

            /// One stream event: what it adds to the calls of the stream.
            pub fn stream_event<N: Node>(
                self,
                event: &N,
                acc: &mut Accumulator,
            ) -> Result<(), N::Error> {
                match self {
                    $(Walked::$variant => $module::stream_event(event, acc),)*
                }
            }

            /// Whether a document read as a response is a piece of a stream (an event of
            /// the stream alone, or a Gemini 3 chunk with `partial_args`): `parse` reads
            /// it as a stream of one event.
            pub fn is_stream_piece<N: Node>(self, doc: &N) -> Result<bool, N::Error> {
                match self {
                    $(Walked::$variant => $module::is_stream_piece(doc),)*
                }
            }

            /// An event that wraps another one (its JSON text), or ends the stream with
            /// an error, in a stream of any format (Bedrock's `chunk` and runtime
            /// exceptions): read so before the stream's format reads it. None for most.
            pub fn unwrap_event<N: Node>(event: &N) -> Result<Option<Unwrapped<N>>, N::Error> {
                $(if let Some(unwrapped) = $unwraps_event::unwrap_event(event)? {
                    return Ok(Some(unwrapped));
                })*
                Ok(None)
            }

            /// The walked format called `name`.
            pub fn named(name: &str) -> Option<Walked> {
                Walked::ALL.iter().copied().find(|walked| walked.name() == name)
            }

            /// Members one of which every response this format recognizes has.
            fn keys(self) -> &'static [&'static str] {
                match self {
                    $(Walked::$variant => $module::KEYS,)*
                }
            }

            /// The first walked format (auto-detection's order) that recognizes `doc`, a
            /// value of any [`Node`] (the caller's own Python objects, say).
            pub fn detected_in<N: Node>(doc: &N) -> Option<Walked> {
                Walked::ALL.iter().copied().find(|walked| walked.detect(doc))
            }

            /// The first walked format (auto-detection's order) that recognizes `doc`.
            /// The response's keys are read once; a format with none of its `KEYS` among
            /// them is not asked.
            pub fn detected(doc: &TapeNode<'_, '_>) -> Option<Walked> {
                let keys = doc.keys();
                Walked::ALL.iter().copied().find(|walked| {
                    walked.keys().iter().any(|key| keys.contains(key))
                        && walked.detect(doc)
                })
            }
        }
    };
}

formats! {
    OpenAI: openai = "openai",
    OpenAIResponses: openai_responses = "openai-responses",
    Anthropic: anthropic = "anthropic" + batch,
    Gemini: gemini = "gemini",
    GeminiInteractions: gemini_interactions = "gemini-interactions",
    Bedrock: bedrock = "bedrock" + batch,
    Ollama: ollama = "ollama",
    Cohere: cohere = "cohere",
    ;
    unwrap_event: [bedrock],
}

/// What an event's `unwrap_event` hook found ([`Walked::unwrap_event`]).
pub enum Unwrapped<N> {
    /// The JSON text of the event it wraps.
    Event(Vec<u8>),
    /// The stream ended with this error, named by this code.
    Error(&'static str, N),
}

impl Walked {
    /// The calls of a response decoded from JSON text, or None where it is a piece of a
    /// stream ([`is_stream_piece`](Self::is_stream_piece)). Gemini's walk tells a piece on
    /// its way, in the same pass (the pure `DECODED_WALKERS`); the other formats are asked
    /// first.
    pub fn decoded_walk<N: Node>(self, doc: &N) -> Result<Option<Vec<RawCall<N>>>, N::Error> {
        let mut calls = Vec::new();
        let piece = match self {
            Walked::Gemini => gemini::walk_unless_piece(doc, &mut calls)?,
            _ if self.is_stream_piece(doc)? => true,
            _ => {
                self.walk(doc, &mut calls)?;
                false
            }
        };
        Ok((!piece).then_some(calls))
    }

    /// The parts of a record every format's batch envelope reads, with `response` kept
    /// of the response inside.
    pub fn batch_keep(response: &Keep) -> Keep {
        let mut keep = Keep::default();
        for batch_keep in Walked::BATCH_KEEPS {
            keep.merge(&batch_keep(response));
        }
        keep
    }
}

/// Which walker, with its options.
#[derive(Clone, Debug)]
pub enum Format {
    Walked(Walked),
    Json(JsonOptions),
    /// LiteRT-LM / Gemma 4 (`litert`): read as text, not by a walk over one document;
    /// see [`litert`].
    LiteRt,
    /// A raw-text tool-call dialect (`RawTextParser`), read as text; see [`TextFormat`].
    Text(TextFormat),
    /// Conversation transcripts (`messages`, `MessagesParser`); see [`messages`].
    Messages(MessagesFormat),
    /// `auto` (`AutoResponseParser`): each response read as the first walked format
    /// whose `detect` recognizes it.
    Auto,
    /// A walked format (or `auto`) whose assistant text is read by a raw-text dialect
    /// where a message has no structured call (`text_dialect=`; `crate::text_dialect`).
    WithText(Box<Format>, TextFormat),
}

/// A raw-text dialect, or (`dialect` None: `RawTextParser("auto")`) the dialect whose
/// markers each text holds ([`dialects::detected`]); `tools` type the values the
/// XML-style dialects carry as text.
#[derive(Clone, Debug)]
pub struct TextFormat {
    pub dialect: Option<Dialect>,
    pub tools: Option<Arc<Tools>>,
}

impl TextFormat {
    /// The record of one output text. Never an error: text that is not UTF-8 has no
    /// calls; text no dialect recognizes (auto) has no calls, the text is its content.
    /// The calls do not point into the tape, which stays empty.
    pub fn record<'a>(&self, text: &'a [u8]) -> Record<'a> {
        self.record_str(simdutf8::basic::from_utf8(text).unwrap_or_default())
    }

    /// [`record`](Self::record) of text known to be UTF-8 (a decoded JSON string).
    pub fn record_str<'a>(&self, text: &'a str) -> Record<'a> {
        let dialect = self.dialect.or_else(|| dialects::detected(text));
        let parsed = match dialect {
            Some(dialect) => dialect.parse(text, self.tools.as_deref()),
            None => dialects::Parsed {
                content: dialects::text::joined_content(&[text]),
                ..dialects::Parsed::default()
            },
        };
        Record {
            tape: Tape::default(),
            calls: parsed.calls,
            format: Ok(dialect.map_or(AUTO_TEXT, Dialect::name)),
            content: parsed.content,
            reasoning: parsed.reasoning,
            context: calls::Context::text(dialect.map_or(AUTO_TEXT, Dialect::name)),
            turns: Vec::new(),
        }
    }

    /// The record of a JSONL line that decoded to `tape` (the record itself, not an
    /// envelope): a JSON string is the text; any other line is the text as written.
    pub fn document_record<'a>(&self, line: &'a [u8], tape: &Tape<'_>) -> Record<'a> {
        match &tape.tokens[0] {
            Token::Str(text) => self.record_str(tape.text(text)).into_owned(),
            _ => self.record(line),
        }
    }
}

/// How a format that reads text ([`Format::text`]) reads one: as LiteRT-LM does
/// ([`litert`]), or by a raw-text dialect ([`TextFormat`]).
#[derive(Clone, Copy, Debug)]
pub enum TextReader<'f> {
    LiteRt,
    Dialect(&'f TextFormat),
}

impl TextReader<'_> {
    /// The record of one response text. Never an error: text without calls (or not
    /// UTF-8) has none.
    pub fn record<'a>(self, text: &'a [u8]) -> Record<'a> {
        match self {
            TextReader::LiteRt => litert::parse_record(text),
            TextReader::Dialect(format) => format.record(text),
        }
    }

    /// [`record`](Self::record) of text known to be UTF-8.
    pub fn record_str<'a>(self, text: &'a str) -> Record<'a> {
        match self {
            TextReader::LiteRt => litert::parse_record(text.as_bytes()),
            TextReader::Dialect(format) => format.record_str(text),
        }
    }

    /// The record of a JSONL line that decoded to `tape` (the record itself, not an
    /// envelope), without decoding it again.
    pub fn document_record<'a>(self, line: &'a [u8], tape: Tape<'a>) -> Record<'a> {
        match self {
            TextReader::LiteRt => litert::document_record(tape),
            TextReader::Dialect(format) => format.document_record(line, &tape),
        }
    }
}

/// `RawTextParser("auto")`: each text read as the dialect whose markers it holds.
pub const AUTO_TEXT: &str = "auto-text";

/// What a walk found: the calls and the format they were read as; or, for
/// auto-detection, that no format recognized the response.
pub enum Walk<N> {
    Calls(&'static str, Vec<RawCall<N>>),
    Unrecognized,
}

/// `detected` for [`Format::walk`]: no detection (for a format that needs none, or a
/// response that cannot be detected this way).
pub fn no_detection<N>(_: &N) -> Option<Walked> {
    None
}

/// `--format auto`.
pub const AUTO: &str = "auto";

/// `--format messages`: conversation transcripts.
pub const MESSAGES: &str = "messages";

impl Format {
    /// Every format's name, in registry order (the CLI's `--format` choices): the
    /// walked ones, then `json`, `litert` and the raw-text dialects.
    pub fn names() -> Vec<&'static str> {
        let walked = Walked::ALL.iter().map(|w| w.name());
        let dialects = Dialect::ALL.iter().map(|d| d.name());
        walked
            .chain(["json", "litert", MESSAGES])
            .chain(dialects)
            .collect()
    }

    /// The format called `name`, or an error that lists the valid names.
    pub fn new(
        name: &str,
        tool_calls_key: &str,
        name_key: &str,
        arguments_key: &str,
        single: bool,
    ) -> Result<Format, String> {
        if let Some(walked) = Walked::named(name) {
            return Ok(Format::Walked(walked));
        }
        if let Some(dialect) = Dialect::named(name) {
            return Ok(Format::Text(TextFormat {
                dialect: Some(dialect),
                tools: None,
            }));
        }
        match name {
            "json" => Ok(Format::Json(JsonOptions {
                path: tool_calls_key.split('.').map(str::to_owned).collect(),
                name_key: name_key.to_owned(),
                arguments_key: arguments_key.to_owned(),
                single,
            })),
            "litert" => Ok(Format::LiteRt),
            MESSAGES => Ok(Format::Messages(MessagesFormat::default())),
            AUTO_TEXT => Ok(Format::Text(TextFormat {
                dialect: None,
                tools: None,
            })),
            AUTO => Ok(Format::Auto),
            other => Err(format!(
                "unknown format {other:?}; expected one of: {}, {AUTO}",
                Format::names().join(", ")
            )),
        }
    }

    /// The provider format read (the format itself, but for [`Format::WithText`]).
    pub fn provider(&self) -> &Format {
        match self {
            Format::WithText(format, _) => format,
            format => format,
        }
    }

    /// The same format with its assistant text read by `dialect` (a dialect's name, or
    /// `auto`; None: not read) and its values typed by `tools`; an error for a format
    /// that has no assistant text (`json`, `litert`, the dialects).
    pub fn with_text_dialect(
        self,
        dialect: Option<&str>,
        tools: Option<&str>,
    ) -> Result<Format, String> {
        let Some(name) = dialect else {
            return self.with_tools(tools);
        };
        let dialect = match name {
            AUTO => None,
            name => Some(Dialect::named(name).ok_or_else(|| format!("unknown dialect {name:?}"))?),
        };
        let text = Format::Text(TextFormat {
            dialect,
            tools: None,
        });
        let Format::Text(text) = text.with_tools(tools)? else {
            unreachable!("with_tools keeps the variant")
        };
        match self {
            Format::Walked(_) | Format::Auto => Ok(Format::WithText(Box::new(self), text)),
            Format::Messages(_) => Ok(Format::Messages(MessagesFormat { text: Some(text) })),
            _ => Err(
                "text_dialect is read by the provider formats, messages and auto only".to_owned(),
            ),
        }
    }

    /// The same format with `tools` (a JSON list of tool definitions), which only the
    /// raw-text dialects take.
    pub fn with_tools(self, tools: Option<&str>) -> Result<Format, String> {
        match (self, tools) {
            (format, None) => Ok(format),
            (Format::Text(text), Some(tools)) => Ok(Format::Text(TextFormat {
                tools: Some(Arc::new(Tools::from_json(tools)?)),
                ..text
            })),
            (Format::Messages(MessagesFormat { text: Some(text) }), Some(tools)) => {
                Ok(Format::Messages(MessagesFormat {
                    text: Some(TextFormat {
                        tools: Some(Arc::new(Tools::from_json(tools)?)),
                        ..text
                    }),
                }))
            }
            (_, Some(_)) => Err("tools are read by the raw-text dialects only".to_owned()),
        }
    }

    /// How this format reads a response's text, for a format that reads text (LiteRT-LM,
    /// the raw-text dialects) rather than one JSON document; None for the others. The
    /// one question the readers ask of a format about text (`crate::record`, the bulk
    /// reader, the Python objects' route).
    pub fn text(&self) -> Option<TextReader<'_>> {
        match self {
            Format::LiteRt => Some(TextReader::LiteRt),
            Format::Text(format) => Some(TextReader::Dialect(format)),
            Format::Walked(_)
            | Format::Json(_)
            | Format::Auto
            | Format::WithText(..)
            | Format::Messages(_) => None,
        }
    }

    /// The parts of a response the walker reads (for `json::parse_pruned`); None when
    /// it needs the whole document.
    pub fn keep(&self) -> Option<Keep> {
        match self {
            Format::Walked(walked) => Some(with_streams(walked.keep())),
            Format::Json(options) => Some(json_path::keep(options)),
            Format::Messages(_) => Some(messages::keep()),
            // Read as text (`litert::parse_record`, `TextFormat::record`); or the whole
            // document: the assistant text is read too.
            Format::LiteRt | Format::Text(_) | Format::WithText(..) => None,
            // What any walked format reads (each keeps what its `detect` reads too).
            Format::Auto => Some(with_streams(Walked::ALL.iter().fold(
                messages::keep(),
                |mut all, w| {
                    all.merge(&w.keep());
                    all
                },
            ))),
        }
    }

    /// The walked format `doc` is read as (for `auto`, the one `detected` says).
    pub fn walked<N: Node>(
        &self,
        doc: &N,
        detected: impl FnOnce(&N) -> Option<Walked>,
    ) -> Option<Walked> {
        match self {
            Format::Walked(walked) => Some(*walked),
            Format::Auto => detected(doc),
            Format::WithText(format, _) => format.walked(doc, detected),
            Format::Json(_) | Format::LiteRt | Format::Text(_) | Format::Messages(_) => None,
        }
    }

    /// The calls in `doc`. For `auto`, `detected` says which walked format recognizes
    /// the response (on a tape, [`Walked::detected`]).
    pub fn walk<N: Node>(
        &self,
        doc: &N,
        detected: impl FnOnce(&N) -> Option<Walked>,
    ) -> Result<Walk<N>, N::Error> {
        let mut calls = Vec::new();
        let name = match self {
            // The structured calls (`crate::text_dialect` reads the text after).
            Format::WithText(format, _) => return format.walk(doc, detected),
            Format::Walked(walked) => {
                walked.walk(doc, &mut calls)?;
                walked.name()
            }
            Format::Json(options) => {
                calls = json_path::walk(doc, options)?;
                json_path::NAME
            }
            // Read by `litert::parse_record` (text) and, for the caller's dicts,
            // `python::litert::calls_of_object`.
            Format::LiteRt => "litert",
            // Read by `TextFormat::record` (text); the caller's dicts have no calls.
            Format::Text(_) => AUTO_TEXT,
            // Read by `messages::walk` (`crate::record`, `python::build::respond`).
            Format::Messages(_) => MESSAGES,
            Format::Auto => {
                let Some(walked) = detected(doc) else {
                    return Ok(Walk::Unrecognized);
                };
                walked.walk(doc, &mut calls)?;
                walked.name()
            }
        };
        Ok(Walk::Calls(name, calls))
    }
}

/// `keep`, and the whole of every item where the response is a list: a record holding a
/// whole stream (its events), read by `crate::events::record`.
fn with_streams(mut keep: Keep) -> Keep {
    keep.merge(&items(Keep::all()));
    keep
}

/// Keep `inner` at the end of a path of object keys.
pub fn path(keys: &[&str], inner: Keep) -> Keep {
    keys.iter()
        .rev()
        .fold(inner, |inner, key| members(&[(key, inner)]))
}

/// Keep these members.
pub fn members(keys: &[(&str, Keep)]) -> Keep {
    Keep {
        members: keys
            .iter()
            .map(|(k, keep)| ((*k).to_owned(), keep.clone()))
            .collect(),
        ..Keep::default()
    }
}

/// Keep the items of an array, each as `inner`.
pub fn items(inner: Keep) -> Keep {
    Keep {
        items: Some(Box::new(inner)),
        ..Keep::default()
    }
}

/// The items of an array value, if there is one.
pub fn elements_of<N: Node>(node: Option<N>) -> impl Iterator<Item = N> {
    node.into_iter().flat_map(|n| n.elements())
}

/// `node.key` (or `node[key]`) when there is a node.
pub fn field_of<N: Node>(node: &Option<N>, key: &str) -> Result<Option<N>, N::Error> {
    match node {
        Some(n) => n.field(key),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse, parse_pruned};

    /// Each format's walk of a document decoded from JSON text finds what its walk finds,
    /// and None for a piece of a stream, as its `is_stream_piece` says (Gemini tells it in
    /// the same pass).
    #[test]
    fn decoded_walks_follow_the_walks() {
        let docs = [
            r#"{"candidates":[{"content":{"parts":[{"function_call":5},{"functionCall":"x"},7]}},{"content":{"parts":[{"function_call":null,"functionCall":{"name":"f"}}]}},{"content":[]}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}}}]}},{"content":{"parts":[{"functionCall":{"partialArgs":[],"name":""}}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"function_call":{"partial_args":null,"name":"f"}}]}}],"toolCall":{"functionCalls":[{"name":"g"}]}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"},{"functionCall":{"name":"f","id":"1","args":{"a":1}}},{"function_call":{"name":"g","partial_args":[{"json_path":"$.a"}]}}]}}]}"#,
            r#"{"type":"message_start","message":{"content":[]}}"#,
            r#"{"choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}}]}"#,
        ];
        let places = |calls: &[RawCall<TapeNode<'_, '_>>]| {
            let idx = |node: &Option<TapeNode<'_, '_>>| node.map(|n| n.idx);
            calls
                .iter()
                .map(|c| {
                    (
                        idx(&c.name),
                        idx(&c.id),
                        idx(&c.arguments),
                        c.choice.map(|c| c.0),
                    )
                })
                .collect::<Vec<_>>()
        };
        for doc in docs {
            let tape = parse(doc.as_bytes()).unwrap();
            let node = TapeNode::root(&tape);
            for &walked in Walked::ALL {
                let Ok(piece) = walked.is_stream_piece(&node);
                let mut calls = Vec::new();
                let Ok(()) = walked.walk(&node, &mut calls);
                let expected = (!piece).then(|| places(&calls));
                let Ok(found) = walked.decoded_walk(&node);
                assert_eq!(found.map(|c| places(&c)), expected, "{doc} as {walked:?}");
            }
        }
    }

    /// The envelopes formats bring along are found through the registry, and the parts
    /// of a record they read are kept by the registry's `batch_keep`.
    #[test]
    fn batch_envelopes_come_from_the_registry() {
        let response = Walked::Anthropic.keep();
        let keep = Walked::batch_keep(&response);
        let lines: [(&str, Result<&str, &str>, Option<&str>); 3] = [
            (
                r#"{"custom_id":"a1","result":{"type":"succeeded","message":{"content":[]}}}"#,
                Ok("message"),
                Some("a1"),
            ),
            (
                r#"{"recordId":"b1","modelInput":{"x":1},"error":{"errorCode":400,"errorMessage":"no"}}"#,
                Err("batch error: 400: no"),
                Some("b1"),
            ),
            (r#"{"custom_id":"c1","other":1}"#, Ok("none"), None),
        ];
        for (line, response, expected_id) in lines {
            for tape in [parse(line.as_bytes()), parse_pruned(line.as_bytes(), &keep)] {
                let tape = tape.unwrap();
                let Ok(found) = Walked::unwrap_batch(&TapeNode::root(&tape));
                let found = found.map(|envelope| {
                    let response = envelope.response.map(|node| node.idx);
                    let custom_id = envelope.custom_id.and_then(|id| id.as_str());
                    (response.map_err(|failure| failure.message(None)), custom_id)
                });
                match (found, response) {
                    (None, Ok("none")) => {}
                    (Some((response, custom_id)), Ok(_)) => {
                        let root = response.unwrap();
                        assert!(matches!(
                            tape.tokens[root],
                            crate::json::Token::Object { .. }
                        ));
                        assert_eq!(custom_id, expected_id);
                    }
                    (Some((response, custom_id)), Err(error)) => {
                        assert_eq!(response.unwrap_err(), error);
                        assert_eq!(custom_id, expected_id);
                    }
                    (found, _) => panic!("{line}: {found:?}"),
                }
            }
        }
    }
}
