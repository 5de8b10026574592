//! The AgentResponse of one response: read from a record the core parsed, or from the
//! caller's own dicts and SDK objects (walked in place).

use super::convert::{arguments_of_object, arguments_pair};
use super::{new_str, Builder};
use crate::accumulator::response_error;
use crate::bulk::Outcome;
use crate::calls::Record;
use crate::events::{self, Reader};
use crate::formats::messages::{self, Exchange, Found, MessagesFormat};
use crate::formats::{Format, RawCall, Walk, MESSAGES};
use crate::python::objects::{Input, PyNode};
use crate::record::transcript_options;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

/// The AgentResponse for a response parsed from text.
pub fn response_from_record<'py>(
    b: &mut Builder<'py>,
    raw: &Bound<'py, PyAny>,
    record: &Record<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Err(message) = &record.format {
        if response_error(message) {
            // A piece of a stream, or a stream that failed: no call, and the response
            // says so.
            return b.response_with(Vec::new(), raw, Some(message));
        }
        return Err(b.unrecognized(message));
    }
    let calls = calls_from_record(b, record)?;
    if record.content.is_some() || record.reasoning.is_some() {
        return b.text_response(
            calls,
            raw,
            record.content.as_deref(),
            record.reasoning.as_deref(),
        );
    }
    b.response(calls, raw)
}

/// The AgentResponse of a record read by the bulk reader (`parse`, `parse_many`,
/// `parse_file`): a failure an envelope reports is the response's error; text that is not
/// JSON raises ParseError, and a shape auto-detection does not know UnrecognizedShape.
pub fn response_from_outcome<'py>(
    b: &mut Builder<'py>,
    raw: &Bound<'py, PyAny>,
    outcome: &Outcome<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    match outcome {
        Outcome::Read { record, .. } => response_from_record(b, raw, record),
        Outcome::Failed { error, .. } => b.failed_with(raw, error),
        Outcome::NotJson(err) => Err(b.json_error(err)),
    }
}

/// The ToolCalls of a response parsed from text.
pub fn calls_from_record<'py>(
    b: &mut Builder<'py>,
    record: &Record<'_>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = b.py;
    let tape = &record.tape;
    let mut calls = Vec::with_capacity(record.calls.len());
    for (index, call) in record.calls.iter().enumerate() {
        let name = match &call.name {
            Some(name) => new_str(py, name),
            None => intern!(py, "").clone(),
        };
        let id = match &call.id {
            Some(id) => new_str(py, id).into_any(),
            None => py.None().into_bound(py),
        };
        let (arguments, raw_arguments) = arguments_pair(b, Some(tape), &call.arguments)?;
        let made = b.tool_call(name.into_any(), arguments, id, raw_arguments)?;
        if let Some(turn) = record.turns.get(index) {
            let result = turn.result.as_ref().map(|(text, error)| {
                let text = match text {
                    Some(text) => new_str(py, text).into_any(),
                    None => py.None().into_bound(py),
                };
                (text, *error)
            });
            b.set_turn(&made, turn.turn, result)?;
        }
        calls.push(made);
    }
    Ok(calls)
}

/// The AgentResponse for the caller's own dicts and SDK objects: a batch envelope is
/// unwrapped (or the response taken at `path`) by the pure `locate_object`, the
/// specification, and a failure it reports is the response's error.
pub fn response_from_object<'py>(
    b: &mut Builder<'py>,
    format: &Format,
    raw: &Bound<'py, PyAny>,
    path: Option<&[String]>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = b.py;
    let asks = match raw.cast::<PyDict>() {
        _ if path.is_some() => true,
        // One of the members every envelope has (the pure `ENVELOPE_MARKS`): a dict
        // without any is its own response, walked without asking Python.
        Ok(dict) => [
            intern!(py, "custom_id"),
            intern!(py, "key"),
            intern!(py, "metadata"),
            intern!(py, "modelInput"),
            intern!(py, "recordId"),
            intern!(py, "request"),
        ]
        .into_iter()
        .any(|key| dict.contains(key).unwrap_or(true)),
        // Lists (of stream events) and text are never envelopes; SDK objects may be.
        Err(_) => {
            !(raw.is_instance_of::<PyList>()
                || raw.is_instance_of::<PyTuple>()
                || raw.is_instance_of::<PyString>())
        }
    };
    if !asks {
        return response_from_node(b, format, raw, raw);
    }
    let located = b.hooks.locate_object.bind(py).call1((raw, path))?;
    // The error stays the str the pure `locate_object` made (it may quote a lone
    // surrogate of the envelope, which no Rust string can hold).
    let (response, _custom_id, error): (Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>) =
        located.extract()?;
    if error.is_none() {
        return response_from_node(b, format, &response, raw);
    }
    b.agent_response(PyList::empty(py), raw, error)
}

/// The AgentResponse of `raw` whose response is `doc` (the caller's own dicts and SDK
/// objects; `raw` itself, or the response inside its envelope).
fn response_from_node<'py>(
    b: &mut Builder<'py>,
    format: &Format,
    doc: &Bound<'py, PyAny>,
    raw: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = b.py;
    if format.reads_text() {
        // Text inside an envelope (or at a record path) is read as text, as `parse` reads
        // a text record (the pure `parse_sdk`); the caller's dicts and lists as they are.
        if !doc.is(raw) {
            if let Ok(text) = Input::of(doc) {
                if let Some(text) = text.text() {
                    let record = format.text_record(text);
                    return response_from_record(b, raw, &record);
                }
            }
        }
        if let Format::Text(_) = format {
            // The caller's dicts and lists hold no text: no calls.
            return b.response(Vec::new(), raw);
        }
        let calls = crate::python::litert::calls_of_object(b, doc)?;
        return b.response(calls, raw);
    }
    if !doc.is(raw) {
        if let Some(text) = doc.cast::<PyString>().ok().and_then(|s| s.to_str().ok()) {
            // A string inside an envelope: read as a JSON line holding that string is
            // (JSON text inside it decoded, SSE text a stream), as the pure `read` does.
            let line = serde_json::Value::from(text).to_string();
            return match crate::record::parse_record_with(format, line.as_bytes(), false) {
                Ok(record) => response_from_record(b, raw, &record),
                Err(err) => Err(b.parse_error(raw, Some(&err))?),
            };
        }
    }
    let node = PyNode(doc.clone());
    let is_list = doc.is_instance_of::<PyList>();
    if let Some(options) = transcript_options(format, &node, None).filter(|_| {
        // auto: a list of messages (the pure backend asks `isinstance(doc, list)`)
        is_list || matches!(format, Format::Messages(_))
    }) {
        return transcript_response(b, options, &node, raw);
    }
    if is_list || doc.is_instance_of::<PyTuple>() {
        if let Some(reader) = Reader::for_records(format) {
            // A list of events: a whole stream.
            return crate::python::stream::assembled_response(b, reader, doc, doc, raw);
        }
    }
    let walked = format.walked(&node, |node| b.detected(&node.0));
    if let Some(options) = transcript_options(format, &node, Some(walked)) {
        return transcript_response(b, options, &node, raw);
    }
    let is_text = doc.is_instance_of::<PyString>();
    if let Some(reader) = events::piece_reader(format, walked, &node, is_text)? {
        // A piece of a stream: read as a stream of one event.
        let events = PyTuple::new(py, [doc])?;
        return crate::python::stream::assembled_response(b, reader, &events, doc, raw);
    }
    let found = match format.walk(&node, |_| walked)? {
        Walk::Calls(_, found) => found,
        Walk::Unrecognized => return Err(b.unrecognized_object(doc)),
    };
    let calls = found
        .into_iter()
        .map(|call| tool_call_of_object(b, call))
        .collect::<PyResult<Vec<_>>>()?;
    b.response(calls, raw)
}

/// The AgentResponse of a transcript in the caller's own objects.
fn transcript_response<'py>(
    b: &mut Builder<'py>,
    options: &MessagesFormat,
    doc: &PyNode<'py>,
    raw: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = b.py;
    let mut calls = Vec::new();
    for Exchange { call, turn, result } in messages::walk(doc, options)? {
        let made = match call {
            Found::Raw(raw_call) => tool_call_of_object(b, raw_call)?,
            Found::Made(made) => {
                let record = Record::found(vec![made], MESSAGES);
                calls_from_record(b, &record)?.remove(0)
            }
        };
        let result = match result {
            None => None,
            Some((value, error)) => {
                let text = match value {
                    None => py.None().into_bound(py),
                    Some(PyNode(value)) if value.is_instance_of::<PyString>() => value,
                    Some(PyNode(value)) => b.hooks.dumps_compact.bind(py).call1((value,))?,
                };
                Some((text, error))
            }
        };
        b.set_turn(&made, turn, result)?;
        calls.push(made);
    }
    b.response(calls, raw)
}

/// The ToolCall of a call found in the caller's own objects.
fn tool_call_of_object<'py>(
    b: &mut Builder<'py>,
    call: RawCall<PyNode<'py>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = b.py;
    let RawCall {
        name,
        id,
        arguments,
        verbatim,
    } = call;
    let name = match name {
        Some(PyNode(n)) if n.is_instance_of::<PyString>() => n,
        _ => intern!(py, "").clone().into_any(),
    };
    let id = match id {
        Some(PyNode(i)) if i.is_instance_of::<PyString>() => i,
        _ => py.None().into_bound(py),
    };
    let (arguments, raw_arguments) = match arguments {
        None => (b.empty_dict(), py.None().into_bound(py)),
        // Free text (a custom tool's input): kept as it is.
        Some(PyNode(text)) if verbatim && text.is_instance_of::<PyString>() => {
            (b.empty_dict(), text)
        }
        Some(PyNode(value)) => arguments_of_object(b, value)?,
    };
    b.tool_call(name, arguments, id, raw_arguments)
}
