//! The events of one stream, read into its calls: a record that holds a whole stream
//! (a list of events, or SSE text) and a response that is a piece of one are read here
//! for the route (`record.rs`), and `parser.stream()` (`stream.rs`, above the route)
//! feeds the same [`Assembler`]. Above the formats (each event is read by its format's
//! `stream_event`, through the registry), below the route. The twin of
//! `python/toolsift/_pure/events.py`.

use crate::accumulator::{typed_event, Accumulator, StreamCall, ERROR_TYPE, FRAGMENT};
use crate::calls::{Call, CallContext, Context, Record, CUSTOM};
use crate::formats::{Format, JsonOptions, Unwrapped, Walked};
use crate::framing::{starts_sse, JsonValues, Sse};
use crate::json::{self, JsonError, Tape, Token};
use crate::node::{Node, TapeNode};

/// How a stream's events are read: a walked format's reader, the `json` format's
/// (each event a whole response), or, for `auto`, the reader of the first format that
/// recognizes an event.
#[derive(Clone, Debug)]
pub enum Reader {
    Walked(Walked),
    Json(JsonOptions),
    Auto,
}

impl Reader {
    /// The reader of records that hold a whole stream (a list of events, or SSE text):
    /// the walked formats' and auto's; `json` reads lists its own way, `litert` text.
    pub fn for_records(format: &Format) -> Option<Reader> {
        match format {
            Format::Walked(walked) => Some(Reader::Walked(*walked)),
            Format::Auto => Some(Reader::Auto),
            Format::WithText(format, _) => Reader::for_records(format),
            Format::Json(_) | Format::LiteRt | Format::Text(_) | Format::Messages(_) => None,
        }
    }
}

/// The error of a record holding a stream with an event that is not JSON text.
pub const NOT_JSON: &str = "a stream event is not JSON";

/// The reader `parse` reads a document with as a stream of that one event, where it is
/// a piece of a stream: a response its format says is one (`Walked::is_stream_piece`:
/// an event of the stream given alone, a Gemini 3 chunk with `partial_args`); or, for
/// auto, a document that is not text and that no format recognizes as a response (`walked`
/// is None): an event given alone, which the auto stream recognizes, or names as an
/// unrecognized shape.
pub fn piece_reader<N: Node>(
    format: &Format,
    walked: Option<Walked>,
    doc: &N,
    is_text: bool,
) -> Result<Option<Reader>, N::Error> {
    Ok(match walked {
        Some(walked) => walked
            .is_stream_piece(doc)?
            .then_some(Reader::Walked(walked)),
        None if matches!(format.provider(), Format::Auto) && !is_text => Some(Reader::Auto),
        None => None,
    })
}

/// Whether the value at `root` holds a whole stream: a list, or SSE text.
pub fn holds_stream(tape: &Tape<'_>, root: usize) -> bool {
    match &tape.tokens[root] {
        Token::Array { .. } => true,
        Token::Str(_) => tape
            .str_at(root)
            .is_some_and(|text| starts_sse(text.as_bytes())),
        _ => false,
    }
}

/// A record that holds a whole stream, assembled: its calls (owning their strings),
/// and the format that read them (auto: where no event is of any format, the error
/// `unrecognized` says of the record, the route's description of its shape).
pub fn record<'a>(
    reader: Reader,
    tape: Tape<'a>,
    root: usize,
    unrecognized: impl FnOnce(&Tape<'a>, usize) -> String,
) -> Record<'a> {
    let mut stream = Assembler::new(reader);
    let read = match tape.str_at(root) {
        Some(text) => stream
            .feed_text(text.as_bytes())
            .map_err(|_| NOT_JSON.to_owned()),
        None => stream
            .decoded(&TapeNode {
                tape: &tape,
                idx: root,
            })
            .map_err(|_| NOT_JSON.to_owned()),
    };
    stream.finish();
    let calls = stream.owned_calls();
    let context = stream.context();
    let format = read.and_then(|()| {
        // The stream's error first: a Bedrock exception may end a stream no event of
        // which was recognized (auto).
        if let Some(error) = stream.error(calls.is_empty()) {
            return Err(error.to_owned());
        }
        stream
            .format_name()
            .ok_or_else(|| unrecognized(&tape, root))
    });
    Record {
        tape,
        calls,
        format,
        content: None,
        reasoning: None,
        context,
        turns: Vec::new(),
    }
}

/// The calls of a stream's events being assembled: each event read by the stream's
/// format (auto: the first format that recognizes an event), text cut into events
/// ([`crate::framing`]). What a record holding a whole stream is read with, and what
/// `parser.stream()` feeds (`stream::Stream`).
#[derive(Debug)]
pub struct Assembler {
    reader: Reader,
    acc: Accumulator,
    sse: Option<Sse>,
    /// Text that is not SSE.
    values: JsonValues,
    finished: bool,
}

/// Text that is not JSON: the error and the text it was found in.
pub type TextError = (JsonError, Vec<u8>);

/// Why an event could not be read: the node's own error (an SDK object's attribute that
/// raised, a Python string Rust cannot hold), or text inside it that is not JSON.
#[derive(Debug)]
pub enum EventError<E> {
    Node(E),
    Text(TextError),
}

impl<E> From<E> for EventError<E> {
    fn from(err: E) -> Self {
        EventError::Node(err)
    }
}

/// An error event `auto` reads before any event told it the stream's format (a stream
/// that failed at once): `{"error": E}` (OpenAI, Gemini, Ollama, and Anthropic's `{"type":
/// "error", "error": E}`) is the stream's error E, and `{"type": "error", ...}` (the
/// Responses API's `code` and `message`) the event itself. Other events are no error.
fn undetected_error<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    if let Some(error) = event.field("error")? {
        return acc.provider_error(Some(&error), None);
    }
    if typed_event(event, ERROR_TYPE)? {
        return acc.provider_error(Some(event), None);
    }
    Ok(())
}

impl Assembler {
    pub fn new(reader: Reader) -> Self {
        Assembler {
            reader,
            acc: Accumulator::default(),
            sse: None,
            values: JsonValues::default(),
            finished: false,
        }
    }

    /// Start reading one event (the calls it completes gather till [`Self::completed`]).
    pub fn begin(&mut self) {
        self.acc.done_now.clear();
    }

    /// The calls completed since [`Self::begin`], in order.
    pub fn completed(&self) -> Vec<StreamCall<'_>> {
        let done = &self.acc.done_now;
        if done.is_empty() {
            return Vec::new(); // most events complete no call: skip the collecting
        }
        done.iter().map(|&at| self.acc.slots[at].call()).collect()
    }

    /// Whether [`Self::finish`] was called.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// `str` / `bytes`: JSON text (one event, or any piece of any number of them), or a
    /// chunk of SSE text.
    pub fn feed_text(&mut self, data: &[u8]) -> Result<(), TextError> {
        if self.sse.is_none() && self.values.idle() && starts_sse(data) {
            self.sse = Some(Sse::default());
        }
        match &mut self.sse {
            Some(sse) => {
                let events = sse.feed(data);
                self.read_texts(events)
            }
            None => self.json_text(data),
        }
    }

    /// JSON text that is not SSE: most often one whole event, read as it is; else cut
    /// into values ([`JsonValues`]), each read once it is complete.
    fn json_text(&mut self, data: &[u8]) -> Result<(), TextError> {
        if self.values.idle() && matches!(data.trim_ascii_start().first(), Some(b'{' | b'[')) {
            if let Ok(tape) = json::parse(data) {
                return self.read_tape(&tape);
            }
        }
        // A piece of a value, several values, or text that is not JSON: split.
        self.values.feed(data);
        let values: Vec<_> = std::iter::from_fn(|| self.values.next_value()).collect();
        self.read_texts(values)
    }

    /// Each JSON text in turn; the first one that is not JSON is the error once the
    /// others were read.
    fn read_texts(&mut self, texts: Vec<Vec<u8>>) -> Result<(), TextError> {
        let mut error = None;
        for text in texts {
            if let Err(err) = self.json_event(&text) {
                error.get_or_insert(err);
            }
        }
        error.map_or(Ok(()), Err)
    }

    fn json_event(&mut self, data: &[u8]) -> Result<(), TextError> {
        let tape = json::parse(data).map_err(|err| (err, data.to_vec()))?;
        self.read_tape(&tape)
    }

    fn read_tape(&mut self, tape: &Tape<'_>) -> Result<(), TextError> {
        match self.decoded(&TapeNode::root(tape)) {
            Ok(()) => Ok(()),
            Err(EventError::Text(err)) => Err(err),
        }
    }

    /// A decoded JSON event: an object, or a list of them; other values (a number, a
    /// string, a list in the list) are no event of any provider.
    fn decoded<N: Node>(&mut self, event: &N) -> Result<(), EventError<N::Error>> {
        if !event.is_array() {
            return match event.is_object() {
                true => self.feed_node(event),
                false => Ok(()),
            };
        }
        for item in event.elements() {
            if item.is_object() {
                self.feed_node(&item)?;
            }
        }
        Ok(())
    }

    /// An event object (a dict, an SDK object, or a decoded JSON object); an event that
    /// wraps another (a Bedrock `chunk`) is read as the event it wraps, one that ends the
    /// stream with an error (a Bedrock exception) as the provider's error, whatever the
    /// stream's format ([`Walked::unwrap_event`]).
    pub fn feed_node<N: Node>(&mut self, event: &N) -> Result<(), EventError<N::Error>> {
        match Walked::unwrap_event(event)? {
            Some(Unwrapped::Event(payload)) => {
                return self.json_event(&payload).map_err(EventError::Text);
            }
            Some(Unwrapped::Error(code, error)) => {
                return Ok(self.acc.provider_error(Some(&error), Some(code))?);
            }
            None => {}
        }
        if let Reader::Auto = self.reader {
            for &walked in Walked::ALL {
                if walked.stream_detect(event)? {
                    self.reader = Reader::Walked(walked);
                    break;
                }
            }
        }
        match &self.reader {
            Reader::Walked(walked) => Ok(walked.stream_event(event, &mut self.acc)?),
            Reader::Json(options) => {
                let calls = crate::formats::json_path::walk(event, options)?;
                for call in calls {
                    self.acc
                        .whole_call(call.name, call.id, call.arguments, call.verbatim)?;
                }
                Ok(())
            }
            Reader::Auto => Ok(undetected_error(event, &mut self.acc)?),
        }
    }

    /// The end of the stream: an SSE event left without its empty line is read (where
    /// it is not JSON, the stream was cut inside it).
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        // Where the text ended inside its last event, the stream was cut there.
        if let Some(mut sse) = self.sse.take() {
            for event in sse.end() {
                let _ = self.json_event(&event);
            }
        } else if let Some(last) = self.values.end() {
            let _ = self.json_event(&last);
        }
    }

    /// Where the stream gave no call: the provider's error event
    /// ([`Accumulator::provider_error`]), else [`FRAGMENT`] where it held pieces of calls.
    pub fn error(&self, no_calls: bool) -> Option<&str> {
        if !no_calls {
            return None;
        }
        match &self.acc.error {
            Some(error) => Some(error),
            None => self.acc.fragment.then_some(FRAGMENT),
        }
    }

    /// The format whose reader reads the events (auto: once an event was recognized).
    pub fn format_name(&self) -> Option<&'static str> {
        match &self.reader {
            Reader::Walked(walked) => Some(walked.name()),
            Reader::Json(_) => Some(crate::formats::json_path::NAME),
            Reader::Auto => None,
        }
    }

    /// Every call, in the provider's order, owning its strings.
    pub fn owned_calls(&self) -> Vec<Call<'static>> {
        let order = self.acc.ordered();
        order
            .iter()
            .map(|&at| self.acc.slots[at].owned_call())
            .collect()
    }

    /// The context of the calls ([`Self::owned_calls`]): which are custom tool calls; a
    /// stream's model, id and finish reasons are not read.
    pub fn context(&self) -> Context<'static> {
        let calls = self
            .acc
            .ordered()
            .iter()
            .map(|&at| CallContext {
                call_type: self.acc.slots[at].verbatim.then_some(CUSTOM),
                ..CallContext::default()
            })
            .collect();
        Context {
            calls,
            ..Context::default()
        }
    }

    /// Every call, in the provider's order.
    pub fn calls(&self) -> Vec<StreamCall<'_>> {
        let order = self.acc.ordered();
        order.iter().map(|&at| self.acc.slots[at].call()).collect()
    }

    /// Every call started so far, arguments still arriving decoded as far as they are
    /// complete (each read from where the last `partial` read it).
    pub fn partial(&mut self) -> Vec<StreamCall<'_>> {
        for slot in &mut self.acc.slots {
            slot.read_partial();
        }
        let order = self.acc.ordered();
        order
            .iter()
            .map(|&at| self.acc.slots[at].partial_call())
            .collect()
    }
}
