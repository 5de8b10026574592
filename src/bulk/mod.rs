//! Bulk reading: records (lines of a file, items of a batch) to calls, with batch
//! envelopes unwrapped, and calls to Arrow columns. Plain Rust, no PyO3: the Python
//! layer (`src/python/files.rs`, `src/python/arrow.rs`) runs this on worker threads with
//! the GIL released (`crate::pipeline`).
//! `python/toolsift/_pure/bulk.py` is the specification.

pub mod block_source;
pub mod canonical;
pub mod envelope;
pub mod rows;
pub mod source;

use crate::calls::Record;
use crate::events;
use crate::formats::{self, Format, TextReader, Walked};
use crate::json::{self, JsonError, Keep, Tape, Token};
use crate::json_errors;
use crate::node::TapeNode;
use crate::record::{record_at_with, Wanted};
use source::Line;
use std::borrow::Cow;

/// What one (non-blank) record gave.
// `Read`, the large variant, is what nearly every record gives: boxing it would allocate
// once per record for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Outcome<'a> {
    /// The response was found; its calls (maybe none).
    Read {
        record: Record<'a>,
        custom_id: Option<Cow<'a, str>>,
    },
    /// A batch envelope reported a failure, or `record_path` led nowhere.
    Failed {
        custom_id: Option<Cow<'a, str>>,
        error: String,
    },
    /// The record is not JSON: the first error, as the pure `error_for` describes it
    /// (`crate::json_errors`).
    NotJson(JsonError),
}

/// How to read the records of one run: the format, `record_path`, and the parts of a
/// record to build tokens for (None: all of it).
#[derive(Debug, Clone)]
pub struct Reader {
    pub format: Format,
    pub path: Option<Vec<String>>,
    keep: Option<Keep>,
    /// Lines of files longer than this are the error [`source::too_long_message`].
    pub max_line: usize,
    /// Leave argument strings undecoded (`Arguments::Encoded`): Arrow rows write them
    /// in one pass (`canonical`), and `parse_file`'s calling thread decodes them straight
    /// into Python objects, without a tape either way.
    encoded_arguments: bool,
    /// The context columns of each record (`Record::context`): Arrow rows read them,
    /// Python objects do not ([`Self::without_context`]).
    context: bool,
    /// `repair="safe"`: what is made of the records (Arrow rows, Python objects) has the
    /// arguments the audited repairs make (`crate::defects`); reading is the same.
    pub repair: bool,
}

impl Reader {
    pub fn new(format: &Format, path: Option<Vec<String>>) -> Reader {
        let keep = format.keep().map(|walked| match &path {
            Some(keys) => {
                let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                formats::path(&keys, walked)
            }
            None => {
                // The response is the record itself, or inside a batch envelope.
                let mut response =
                    formats::members(&[("status_code", Keep::all()), ("body", walked.clone())]);
                response.merge(&walked);
                let mut root = formats::members(&[
                    ("custom_id", Keep::all()),
                    ("error", Keep::all()),
                    ("status", Keep::all()),
                    ("key", Keep::all()),
                    ("metadata", Keep::all()),
                    ("response", response),
                ]);
                // The envelopes formats bring along (Anthropic Message Batches, Bedrock
                // batch inference).
                root.merge(&Walked::batch_keep(&walked));
                root.merge(&walked);
                root
            }
        });
        Reader {
            format: format.clone(),
            path,
            keep,
            max_line: source::MAX_LINE_BYTES,
            encoded_arguments: false,
            context: true,
            repair: false,
        }
    }

    /// The same, leaving each record's context empty (for Python objects, which do not
    /// hold it).
    pub fn without_context(mut self) -> Reader {
        self.context = false;
        self
    }

    /// The same, making the audited repairs where `repair`.
    pub fn with_repair(mut self, repair: bool) -> Reader {
        self.repair = repair;
        self
    }

    /// The same, keeping the parts of a record `carry` reads where it prunes
    /// ([`Self::read_carrying`]).
    pub fn with_carry(mut self, carry: &Carry) -> Reader {
        if let Some(keep) = &mut self.keep {
            keep.merge(&carry.keep);
        }
        self
    }

    /// The same, with lines of files up to `max_line` bytes.
    pub fn with_max_line(mut self, max_line: usize) -> Reader {
        self.max_line = max_line;
        self
    }

    /// A line of a file: its bytes (empty for a line that was too long to keep) and
    /// what it gave; None for a blank line, which the bulk APIs skip.
    pub fn read_line<'a>(&self, line: Line<'a>) -> Option<(&'a [u8], Outcome<'a>)> {
        match line {
            Line::Text(text) if source::is_blank(text) => None,
            Line::Text(text) => Some((text, self.read(text))),
            Line::TooLong => Some((
                b"",
                Outcome::Failed {
                    custom_id: None,
                    error: source::too_long_message(self.max_line),
                },
            )),
        }
    }

    /// The same, leaving argument strings undecoded.
    pub fn with_encoded_arguments(mut self) -> Reader {
        self.encoded_arguments = true;
        self
    }

    /// The same, decoding argument strings onto tapes (on worker threads, off the thread
    /// that builds Python objects).
    pub fn with_decoded_arguments(mut self) -> Reader {
        self.encoded_arguments = false;
        self
    }

    fn record<'a>(&self, tape: Tape<'a>, root: usize) -> Record<'a> {
        let wanted = Wanted {
            decode: !self.encoded_arguments,
            context: self.context,
        };
        record_at_with(&self.format, tape, root, wanted)
    }

    /// Read one record: decode, find the response (see [`envelope::locate`]), walk it.
    pub fn read<'a>(&self, text: &'a [u8]) -> Outcome<'a> {
        self.read_seeing(text, |_| {})
    }

    /// [`Self::read`] of text already known to be UTF-8 (a Python `str`): a format that
    /// reads text does not check it again.
    pub fn read_str<'a>(&self, text: &'a str) -> Outcome<'a> {
        match self.format.text() {
            Some(reader) => self.read_text(reader, text.as_bytes(), Some(text)),
            None => self.read(text.as_bytes()),
        }
    }

    /// [`Self::read`], and the fields `carry` names in the record (`carried`; see
    /// [`Carry::values`]): read from the document parsed for its calls (the reader made
    /// [`Self::with_carry`]), not parsed again; for a record read as text, apart.
    pub fn read_carrying<'a>(
        &self,
        text: &'a [u8],
        carry: &Carry,
        carried: &mut Vec<Option<String>>,
    ) -> Outcome<'a> {
        let mut seen = None;
        let outcome = self.read_seeing(text, |tape| seen = Some(carry.values_at(tape)));
        *carried = match (seen, &outcome) {
            (Some(values), _) => values,
            (None, Outcome::NotJson(_)) => carry.nothing(),
            (None, _) => carry.values(text),
        };
        outcome
    }

    /// [`Self::read`], showing `seen` each document parsed of the record (the last one
    /// shown is the one read).
    fn read_seeing<'a>(&self, text: &'a [u8], mut seen: impl FnMut(&Tape<'a>)) -> Outcome<'a> {
        if let Some(reader) = self.format.text() {
            return self.read_text(reader, text, None);
        }
        // The hand-written pass reads a whole record faster than serde_json reads the
        // parts of it that are kept (below, for what the hand-written pass does not read).
        if let Some(tape) = json::parse_plain(text) {
            seen(&tape);
            return self.outcome(tape);
        }
        if let Some(keep) = self.keep.as_ref().filter(|_| prunable(text)) {
            // Most of a response is never read: build tokens for the parts that are.
            // A record that fails goes again in full (so that its error message,
            // which may describe any part of it, is the same).
            if let Ok(tape) = json::parse_pruned(text, keep) {
                seen(&tape);
                let located = envelope::locate(&tape, self.path.as_deref());
                // A piece of a stream goes again in full: its stream reader reads members
                // the pruned tape leaves out.
                if let Some(root) = located
                    .response
                    .ok()
                    .filter(|&root| !piece(&tape, root, &self.format))
                {
                    let record = self.record(tape, root);
                    // A shape auto-detection did not recognize goes again in full too:
                    // its error names the response's keys.
                    if record.format.is_ok() {
                        return Outcome::Read {
                            record,
                            custom_id: located.custom_id,
                        };
                    }
                }
            }
        }
        match json::parse(text) {
            Ok(tape) => {
                seen(&tape);
                self.outcome(tape)
            }
            Err(err) => self.not_json(text, err),
        }
    }

    /// A format that reads text (LiteRT-LM, the raw-text dialects): a record that is not
    /// an envelope (or not JSON at all) is read as text, as `parse` reads it, and is
    /// never an error; an envelope's response, or the value at `record_path`, is read as
    /// the pure `parse_sdk` reads a decoded value. A record that is not JSON where
    /// `record_path` is given is a failed record (not an error raised: `parse` of these
    /// formats never raises).
    /// `valid`: `text` itself where it is known to be UTF-8.
    fn read_text<'a>(
        &self,
        reader: TextReader<'_>,
        text: &'a [u8],
        valid: Option<&'a str>,
    ) -> Outcome<'a> {
        let as_text = || match valid {
            Some(valid) => reader.record_str(valid),
            None => reader.record(text),
        };
        // Most texts (a model's prose) cannot be JSON from their first byte on: they are
        // not decoded for nothing (an error message made and dropped).
        if self.path.is_none() && !json::may_start_value(text) {
            return text_outcome(as_text());
        }
        let tape = match json::parse(text) {
            Ok(tape) => tape,
            Err(err) if self.path.is_some() => return self.not_json(text, err),
            Err(_) => return text_outcome(as_text()),
        };
        let located = envelope::locate(&tape, self.path.as_deref());
        match located.response {
            // The record itself: the document decoded above is read as it is.
            Ok(0) => text_outcome(reader.document_record(text, tape)),
            Ok(root) => {
                let text = match &tape.tokens[root] {
                    Token::Str(content) => tape.text(content).to_owned(),
                    // Parsed again as text: numbers beyond the float range stay JSON.
                    Token::Object { .. } | Token::Array { .. } => {
                        crate::compact::to_json(&tape, root)
                    }
                    _ => String::new(), // a number, a bool: no calls
                };
                // Read here, on the reader's thread, as every other response is.
                Outcome::Read {
                    record: reader.record(text.as_bytes()).into_owned(),
                    custom_id: located.custom_id,
                }
            }
            Err(error) => Outcome::Failed {
                custom_id: located.custom_id,
                error,
            },
        }
    }

    /// The outcome of an in-memory `str` that is not valid UTF-8 (lone surrogates),
    /// given as Python's `encode("utf-8", "surrogatepass")` writes it.
    pub fn not_utf8(&self, encoded: &[u8]) -> Outcome<'static> {
        match (self.format.text(), &self.path) {
            (Some(reader), None) => text_outcome(reader.record(b"")), // text without calls
            _ => self.not_json(
                encoded,
                JsonError {
                    pos: 0,
                    message: "invalid UTF-8".to_owned(),
                },
            ),
        }
    }

    /// A record that is not JSON text: the error `parse` raises; for a format that reads
    /// text (here only at a `record_path`), a failed record: `parse` of those never raises.
    fn not_json(&self, text: &[u8], err: JsonError) -> Outcome<'static> {
        let err = json_errors::explained(text, err);
        match self.format.text() {
            Some(_) => Outcome::Failed {
                custom_id: None,
                error: err.to_string(),
            },
            None => Outcome::NotJson(err),
        }
    }

    fn outcome<'a>(&self, tape: Tape<'a>) -> Outcome<'a> {
        let located = envelope::locate(&tape, self.path.as_deref());
        match located.response {
            Ok(root) => Outcome::Read {
                record: self.record(tape, root),
                custom_id: located.custom_id,
            },
            Err(error) => Outcome::Failed {
                custom_id: located.custom_id,
                error,
            },
        }
    }
}

/// A record read from text (no envelope, no custom id).
fn text_outcome(record: Record<'_>) -> Outcome<'_> {
    Outcome::Read {
        record,
        custom_id: None,
    }
}

/// Whether the response at `root` is a piece of a stream (`events::piece_reader`; every
/// format keeps the members that tell).
fn piece(tape: &Tape<'_>, root: usize, format: &Format) -> bool {
    let node = TapeNode { tape, idx: root };
    let walked = format.walked(&node, Walked::detected);
    if crate::route::transcript(format, &node, Some(walked)).is_some() {
        return false; // a transcript (auto), not a piece of a stream
    }
    let is_text = matches!(tape.tokens[root], Token::Str(_));
    matches!(
        events::piece_reader(format, walked, &node, is_text),
        Ok(Some(_))
    )
}

/// Whether skipping parts of `text` keeps the meaning of a full parse: serde_json's
/// skipping accepts escaped lone surrogates and does not count nesting, so text with
/// an escaped surrogate, or with more brackets than the nesting limit, is read in full.
fn prunable(text: &[u8]) -> bool {
    // A record that is not an object may hold a whole stream, read in full.
    if text.trim_ascii_start().first() != Some(&b'{') {
        return false;
    }
    let surrogate = memchr::memmem::find_iter(text, b"\\u").any(|at| {
        matches!(
            text.get(at + 2..at + 4),
            Some([b'd' | b'D', b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'])
        )
    });
    !surrogate && memchr::memchr2_iter(b'[', b'{', text).count() <= json::MAX_DEPTH
}

/// The fields of each record that `carry=` names, as dot paths into the record itself (a
/// batch file's envelope line; the pure `carried_values`).
#[derive(Debug, Clone)]
pub struct Carry {
    paths: Vec<Vec<String>>,
    keep: Keep,
}

impl Carry {
    pub fn new(paths: Vec<Vec<String>>) -> Carry {
        let mut keep = Keep::default();
        for keys in &paths {
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            keep.merge(&formats::path(&keys, Keep::all()));
        }
        Carry { paths, keep }
    }

    /// The value at each path as compact JSON text; None where the path leads nowhere (a
    /// missing key, a null, or a value that is not an object on the way) or the record is
    /// not JSON. Parsed apart from the reading of its calls (only what is carried is
    /// kept): for a record [`Reader::read_carrying`] has no document of.
    pub fn values(&self, text: &[u8]) -> Vec<Option<String>> {
        let tape = if prunable(text) {
            json::parse_pruned(text, &self.keep)
        } else {
            json::parse(text)
        };
        match tape {
            Ok(tape) => self.values_at(&tape),
            Err(_) => self.nothing(),
        }
    }

    /// The values of the record whose document `tape` is (with at least the parts
    /// carried kept: [`Reader::with_carry`]).
    pub fn values_at(&self, tape: &Tape<'_>) -> Vec<Option<String>> {
        self.paths
            .iter()
            .map(|keys| {
                let mut node = 0;
                for key in keys {
                    node = crate::node::value(tape, node, key)?;
                }
                Some(crate::compact::to_string(tape, node))
            })
            .collect()
    }

    /// The values of a record that is not JSON: none.
    pub fn nothing(&self) -> Vec<Option<String>> {
        vec![None; self.paths.len()]
    }
}

/// Read one record with a one-off [`Reader`].
pub fn read_record<'a>(format: &Format, text: &'a [u8], path: Option<&[String]>) -> Outcome<'a> {
    Reader::new(format, path.map(<[String]>::to_vec)).read(text)
}

#[cfg(test)]
mod tests {
    use super::{Carry, Format, Reader};
    use serde_json::Value;

    /// tests/vectors/carry.json: the pure `carried_values` gives each case's values.
    #[test]
    fn carried_fields_of_the_vectors() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/carry.json");
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let paths = document["paths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().split('.').map(str::to_owned).collect())
            .collect();
        let carry = Carry::new(paths);
        for case in document["cases"].as_array().unwrap() {
            let expected: Vec<Option<String>> = case["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect();
            let record = case["record"].as_str().unwrap();
            assert_eq!(
                carry.values(record.as_bytes()),
                expected,
                "{}",
                case["name"]
            );
            // Read off the document parsed for the calls: the same, for every format
            // and way of parsing (a number beyond the float range turns the hand-written
            // pass down: the pruned tape; a record read as text: parsed apart).
            let padded = record
                .strip_suffix('}')
                .map(|inner| format!("{inner},\"zz\":1e400}}"));
            for name in ["openai", "auto", "gemini", "hermes"] {
                let format = Format::new(name, "tool_calls", "name", "arguments", false).unwrap();
                let reader = Reader::new(&format, None).with_carry(&carry);
                for text in [Some(record.to_owned()), padded.clone()]
                    .into_iter()
                    .flatten()
                {
                    let mut carried = Vec::new();
                    reader.read_carrying(text.as_bytes(), &carry, &mut carried);
                    assert_eq!(carried, expected, "{} ({name}): {text}", case["name"]);
                }
            }
        }
    }
}
