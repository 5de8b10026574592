//! `parser.stream()`: the core [`crate::stream::Stream`] fed with Python events (dicts,
//! SDK objects read by attribute, `str` / `bytes` of JSON or SSE text, lists of them).

use super::build::{arguments_pair, new_str, Builder};
use super::objects::{PyNode, PythonOnly};
use crate::accumulator::StreamCall;
use crate::calls::Arguments;
use crate::events::{Assembler, EventError, Reader, TextError, NOT_JSON};
use crate::stream::Stream as Core;
use pyo3::exceptions::{PyException, PyTypeError, PyUnicodeEncodeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMemoryView, PyString, PyTuple,
};

/// The calls of one stream being fed (`toolsift._pure.stream.Stream` is the twin).
///
/// An event holding what Rust cannot hold as the pure backend holds it (a `str` with
/// lone surrogates, kept as it is; arguments given whole that are not plain JSON data,
/// kept as the objects they are) hands the stream to the pure backend: its stream of the
/// same reader is fed every event so far, and reads the rest (as the LiteRT reader gives
/// such strings to the pure scanner).
#[pyclass(module = "toolsift._native")]
pub struct Stream {
    core: Core,
    /// The reader as made (auto: before any event was recognized), for the pure twin.
    reader: Reader,
    events: Vec<Py<PyAny>>,
    pure: Option<Py<PyAny>>,
}

/// Whether `err` says an event holds what the Rust core cannot hold (see [`Stream`]): a
/// `str` with lone surrogates, or a value that is not plain JSON data (a mapping, a
/// tuple, a NaN, an SDK object inside arguments given whole).
fn python_only(py: Python<'_>, err: &PyErr) -> bool {
    err.is_instance_of::<PyUnicodeEncodeError>(py) || err.is_instance_of::<PythonOnly>(py)
}

/// The pure backend's parser for `reader` (`toolsift._pure.walk.Parser`).
fn pure_parser<'py>(py: Python<'py>, reader: &Reader) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new(py);
    let name = match reader {
        Reader::Walked(walked) => walked.name(),
        Reader::Json(options) => {
            kwargs.set_item("tool_calls_key", options.path.join("."))?;
            kwargs.set_item("name_key", &options.name_key)?;
            kwargs.set_item("arguments_key", &options.arguments_key)?;
            kwargs.set_item("single", options.single)?;
            crate::formats::json_path::NAME
        }
        Reader::Auto => crate::formats::AUTO,
    };
    py.import(intern!(py, "toolsift._pure.walk"))?
        .getattr(intern!(py, "Parser"))?
        .call((name,), Some(&kwargs))
}

/// A raw-text dialect's stream of text deltas (`name`: a dialect, or `auto-text`): the
/// pure twin's driver (`toolsift._pure.dialects._stream.native_stream`), each text it
/// reads read by this backend's parser of the dialect.
pub fn text_stream<'py>(
    py: Python<'py>,
    name: &str,
    tools: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    py.import(intern!(py, "toolsift._pure.dialects._stream"))?
        .getattr(intern!(py, "native_stream"))?
        .call1((name, tools))
}

impl Stream {
    pub fn new(reader: Reader) -> Self {
        Stream {
            core: Core::new(reader.clone()),
            reader,
            events: Vec::new(),
            pure: None,
        }
    }

    /// The pure twin, fed the events before the last one (their errors were raised
    /// when they were fed here).
    fn hand_to_pure<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pure = pure_parser(py, &self.reader)?.call_method0(intern!(py, "stream"))?;
        let earlier = self.events.len().saturating_sub(1);
        for event in &self.events[..earlier] {
            if let Err(err) = pure.call_method1(intern!(py, "feed"), (event.bind(py),)) {
                if !err.is_instance_of::<PyException>(py) {
                    return Err(err); // KeyboardInterrupt, SystemExit
                }
            }
        }
        self.pure = Some(pure.clone().unbind());
        Ok(pure)
    }
}

/// One event fed (or a list of events, each in turn).
fn read(parts: &mut Assembler, event: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = event.py();
    if event.is_instance_of::<PyList>() || event.is_instance_of::<PyTuple>() {
        for item in event.try_iter()? {
            let item = item?;
            if item.is_instance_of::<PyList>() || item.is_instance_of::<PyTuple>() {
                return Err(PyTypeError::new_err(
                    "a stream event is a dict, an SDK object or text, not a list",
                ));
            }
            read(parts, &item)?;
        }
        return Ok(());
    }
    if let Ok(text) = event.cast::<PyString>() {
        return match text.to_str() {
            Ok(text) => read_text(parts, py, text.as_bytes()),
            // Lone surrogates: as the pure backend encodes them (not UTF-8, so not JSON).
            Err(_) => {
                let encoded =
                    text.call_method1(intern!(py, "encode"), ("utf-8", "surrogatepass"))?;
                read_text(parts, py, encoded.cast::<PyBytes>()?.as_bytes())
            }
        };
    }
    if let Ok(bytes) = event.cast::<PyBytes>() {
        return read_text(parts, py, bytes.as_bytes());
    }
    if event.is_instance_of::<PyByteArray>() || event.is_instance_of::<PyMemoryView>() {
        let copy = py.get_type::<PyBytes>().call1((event,))?;
        return read_text(parts, py, copy.cast::<PyBytes>()?.as_bytes());
    }
    if event.is_none()
        || event.is_instance_of::<PyBool>()
        || event.is_instance_of::<PyInt>()
        || event.is_instance_of::<PyFloat>()
    {
        let kind = event.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "a stream event is a dict, an SDK object or text, not {kind}"
        )));
    }
    feed_node(parts, event.clone())
}

fn read_text(parts: &mut Assembler, py: Python<'_>, data: &[u8]) -> PyResult<()> {
    parts.feed_text(data).or_else(|err| Err(not_json(py, err)?))
}

/// The ParseError of text in a stream that is not JSON.
fn not_json(py: Python<'_>, (err, text): TextError) -> PyResult<PyErr> {
    let raw = PyBytes::new(py, &text).into_any();
    Builder::new(py)?.parse_error(&raw, Some(&err))
}

/// One event object fed; text inside it that is not JSON is a ParseError.
fn feed_node(parts: &mut Assembler, event: Bound<'_, PyAny>) -> PyResult<()> {
    let py = event.py();
    match parts.feed_node(&PyNode(event)) {
        Ok(()) => Ok(()),
        Err(EventError::Node(err)) => Err(err),
        Err(EventError::Text(err)) => Err(not_json(py, err)?),
    }
}

fn build<'py>(
    b: &mut Builder<'py>,
    calls: Vec<StreamCall<'_>>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = b.py;
    let mut out = Vec::with_capacity(calls.len());
    for call in calls {
        let name = new_str(py, call.name.unwrap_or_default()).into_any();
        let id = match call.id {
            Some(id) => new_str(py, id).into_any(),
            None => py.None().into_bound(py),
        };
        if let Arguments::Verbatim(text) = &call.arguments {
            out.push(b.free_text_call(name, id, new_str(py, text).into_any())?);
            continue;
        }
        let (arguments, mut raw) = arguments_pair(b, None, &call.arguments)?;
        if let Some(text) = call.raw {
            raw = new_str(py, text).into_any();
        }
        out.push(b.tool_call(name, arguments, id, raw)?);
    }
    Ok(out)
}

/// A list of events given as one response (`response`, in the record `raw`: the same
/// object, or the envelope around it): the AgentResponse of the stream they make;
/// `UnrecognizedShape` of the response (auto) where no event is of any format's stream.
pub fn assembled_response<'py>(
    b: &mut Builder<'py>,
    reader: Reader,
    events: &Bound<'py, PyAny>,
    response: &Bound<'py, PyAny>,
    raw: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = b.py;
    let mut core = Assembler::new(reader.clone());
    for event in events.try_iter()? {
        match core.feed_node(&PyNode(event?)) {
            Ok(()) => {}
            // Strings Rust cannot hold: the pure backend reads the response.
            Err(EventError::Node(err)) if python_only(py, &err) => {
                return pure_parser(py, &reader)?.call_method1(intern!(py, "parse"), (raw,));
            }
            Err(EventError::Node(err)) => return Err(err),
            Err(EventError::Text(_)) => return Err(b.unrecognized(NOT_JSON)),
        }
    }
    core.finish();
    let calls = core.calls();
    let error = core.error(calls.is_empty());
    // The stream's error first: a Bedrock exception may end a stream no event of which
    // was recognized (auto).
    if error.is_none() && core.format_name().is_none() {
        return Err(b.unrecognized_object(response));
    }
    let calls = build(b, calls)?;
    b.response_with(calls, raw, error)
}

#[pymethods]
impl Stream {
    /// Read one event (or chunk of SSE text); the calls it completed, in order.
    fn feed<'py>(&mut self, event: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let py = event.py();
        if self.core.is_finished() {
            return Err(PyValueError::new_err(
                "the stream is finished: feed() after finish()",
            ));
        }
        self.events.push(event.clone().unbind());
        if let Some(pure) = &self.pure {
            return pure
                .bind(py)
                .call_method1(intern!(py, "feed"), (event,))?
                .cast_into()
                .map_err(Into::into);
        }
        let done = match self.core.feed_parts(|parts| read(parts, event)) {
            Ok(done) if done.is_empty() => return Ok(PyList::empty(py)), // most events
            Ok(done) => build(&mut Builder::new(py)?, done)?,
            Err(err) if python_only(py, &err) => {
                let pure = self.hand_to_pure(py)?;
                return pure
                    .call_method1(intern!(py, "feed"), (event,))?
                    .cast_into()
                    .map_err(Into::into);
            }
            Err(err) => return Err(err),
        };
        PyList::new(py, done)
    }

    /// Every call started so far, arguments still arriving decoded as far as they are
    /// complete. Never raises.
    fn partial<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if let Some(pure) = &self.pure {
            return pure
                .bind(py)
                .call_method0(intern!(py, "partial"))?
                .cast_into()
                .map_err(Into::into);
        }
        let mut b = Builder::new(py)?;
        let calls = build(&mut b, self.core.partial())?;
        PyList::new(py, calls)
    }

    /// Every call, in the provider's order; `raw` is the list of events fed.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if let Some(pure) = &self.pure {
            self.core.finish(); // no event may follow
            return pure.bind(py).call_method0(intern!(py, "finish"));
        }
        let mut b = Builder::new(py)?;
        self.core.finish();
        let calls = self.core.calls();
        let error = self.core.error(calls.is_empty());
        let calls = build(&mut b, calls)?;
        let raw = PyList::new(py, self.events.iter().map(|e| e.bind(py)))?;
        b.response_with(calls, raw.as_any(), error)
    }
}
