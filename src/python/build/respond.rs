//! The AgentResponse of one response: read from a record the core parsed, or from the
//! caller's own dicts and SDK objects (walked in place).

use super::convert::{arguments_of_object, arguments_pair};
use super::{new_str, Builder};
use crate::accumulator::response_error;
use crate::bulk::envelope::{unwrap, ENVELOPE_MARKS};
use crate::bulk::Outcome;
use crate::calls::{Arguments, Call, Record};
use crate::formats::messages::{self, Exchange, MessagesFormat};
use crate::formats::{Format, RawCall, TextReader, Walked, MESSAGES};
use crate::json::Tape;
use crate::node::{Failure, DESCRIBE};
use crate::python::objects::{is_plain, Input, PyNode};
use crate::python::strings::field_key;
use crate::record::Wanted;
use crate::route::{route, Route};
use crate::text_dialect::{self, Found, TextRead};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};

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
    let tape = &record.tape;
    let mut calls = Vec::with_capacity(record.calls.len());
    for (index, call) in record.calls.iter().enumerate() {
        let made = tool_call_of(b, tape, call)?;
        if let Some(turn) = record.turns.get(index) {
            let result = turn.result.as_ref().map(|(text, error)| {
                let text = match text {
                    Some(text) => new_str(b.py, text).into_any(),
                    None => b.py.None().into_bound(b.py),
                };
                (text, *error)
            });
            b.set_turn(&made, turn.turn, result)?;
        }
        calls.push(made);
    }
    Ok(calls)
}

/// The ToolCall of a call on `tape`.
fn tool_call_of<'py>(
    b: &mut Builder<'py>,
    tape: &Tape<'_>,
    call: &Call<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = b.py;
    let name = match &call.name {
        // Names repeat (the same tools), as keys do: from the key cache.
        Some(name) => b.key(name),
        None => intern!(py, "").clone(),
    };
    let id = match &call.id {
        Some(id) => new_str(py, id).into_any(),
        None => py.None().into_bound(py),
    };
    if let Arguments::Verbatim(text) = &call.arguments {
        return b.free_text_call(name.into_any(), id, new_str(py, text).into_any());
    }
    let (arguments, raw_arguments) = arguments_pair(b, Some(tape), &call.arguments)?;
    b.tool_call(name.into_any(), arguments, id, raw_arguments)
}

/// The AgentResponse for the caller's own dicts and SDK objects: a batch envelope is
/// unwrapped (or the response taken at `path`) as the pure `locate_object` says, and a
/// failure it reports is the response's error.
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
        // without any is its own response.
        Ok(dict) => ENVELOPE_MARKS
            .into_iter()
            .any(|key| dict.contains(field_key(py, key)).unwrap_or(true)),
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
    // An SDK object that is a batch envelope, or any at a record path, is read as its
    // `model_dump()`; any other object is its own response.
    let doc = match raw.cast::<PyDict>() {
        Err(_) if !is_plain(raw) && (path.is_some() || sdk_envelope(&raw.get_type())?) => {
            match raw.getattr_opt(intern!(py, "model_dump"))? {
                Some(dump) if dump.is_callable() => dump.call0()?,
                _ => raw.clone(),
            }
        }
        _ => raw.clone(),
    };
    match unwrap(&PyNode(doc), path)?.response {
        Ok(PyNode(response)) => response_from_node(b, format, &response, raw),
        Err(failure) => {
            let error = failure_text(b, failure, path)?;
            b.agent_response(PyList::empty(py), raw, error)
        }
    }
}

/// Whether instances of the pydantic model `cls` are batch envelopes: a dict of its
/// fields (all None) is one (the pure `_sdk_envelope`). Asked once per class.
fn sdk_envelope(cls: &Bound<'_, PyType>) -> PyResult<bool> {
    static FOUND: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
    let py = cls.py();
    let found = FOUND.get_or_init(py, || PyDict::new(py).unbind()).bind(py);
    if let Some(known) = found.get_item(cls)? {
        return known.is_truthy();
    }
    let probe = PyDict::new(py);
    if let Some(fields) = cls.getattr_opt(intern!(py, "model_fields"))? {
        if let Ok(fields) = fields.cast::<PyDict>() {
            for field in fields.keys() {
                probe.set_item(field, py.None())?;
            }
        }
    }
    let probe = probe.into_any();
    let envelope = !matches!(unwrap(&PyNode(probe.clone()), None)?.response,
        Ok(PyNode(response)) if response.is(&probe));
    found.set_item(cls, envelope)?;
    Ok(envelope)
}

/// A failure of an envelope of the caller's objects as the pure `locate` says it (its
/// error values described by the pure twin: they may hold strings no Rust string can).
fn failure_text<'py>(
    b: &Builder<'py>,
    failure: Failure<PyNode<'py>>,
    path: Option<&[String]>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = b.py;
    let compact = |node: Option<PyNode<'py>>| {
        let value = node.map_or_else(|| py.None().into_bound(py), |node| node.0);
        b.hooks.dumps_compact.bind(py).call1((value,))
    };
    let describe = |node: Option<PyNode<'py>>, (module, name): (&str, &str)| {
        let value = node.map_or_else(|| py.None().into_bound(py), |node| node.0);
        py.import(module)?.getattr(name)?.call1((value,))
    };
    let joined = |head: &str, tail: Bound<'py, PyAny>| PyString::new(py, head).add(tail);
    let text = |text: &str| Ok(PyString::new(py, text).into_any());
    match failure {
        Failure::NothingAtPath => text(&format!(
            "nothing at record_path {}",
            path.unwrap_or_default().join(".")
        )),
        Failure::NoResponse => text("batch record has no response"),
        Failure::NoBody => text("batch record has no response body"),
        Failure::Canceled => text("batch canceled"),
        Failure::Expired => text("batch expired"),
        Failure::Error(error, describer) => {
            joined("batch error: ", describe(error, describer.pure)?)
        }
        Failure::Http(status, detail) => {
            let head = joined("HTTP ", compact(Some(status))?)?;
            match detail {
                None => Ok(head),
                Some(detail) => head.add(": ")?.add(describe(Some(detail), DESCRIBE.pure)?),
            }
        }
        Failure::UnknownKind(kind) => joined("unknown batch result type: ", compact(kind)?),
    }
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
    if let Some(reader) = format.text() {
        // Text inside an envelope (or at a record path) is read as text, as `parse` reads
        // a text record (the pure `parse_sdk`); the caller's dicts and lists as they are.
        if !doc.is(raw) {
            if let Ok(text) = Input::of(doc) {
                if let Some(text) = text.text() {
                    return response_from_record(b, raw, &reader.record(text));
                }
            }
        }
        let calls = match reader {
            TextReader::LiteRt => crate::python::litert::calls_of_object(b, doc)?,
            // The caller's dicts and lists hold no text: no calls.
            TextReader::Dialect(_) => Vec::new(),
        };
        return b.response(calls, raw);
    }
    if !doc.is(raw) {
        if let Some(text) = doc.cast::<PyString>().ok().and_then(|s| s.to_str().ok()) {
            // A string inside an envelope: read as a JSON line holding that string is
            // (JSON text inside it decoded, SSE text a stream), as the pure `read` does.
            let line = serde_json::Value::from(text).to_string();
            let wanted = Wanted {
                decode: false,
                context: false,
            };
            return match crate::record::parse_record_with(format, line.as_bytes(), wanted) {
                Ok(record) => response_from_record(b, raw, &record),
                Err(err) => Err(b.parse_error(raw, Some(&err))?),
            };
        }
    }
    let node = PyNode(doc.clone());
    let is_list = |node: &PyNode<'py>| {
        node.0.is_instance_of::<PyList>() || node.0.is_instance_of::<PyTuple>()
    };
    let is_text = doc.is_instance_of::<PyString>();
    let detected = |node: &PyNode<'py>| b.detected(&node.0);
    let found = match route(format, &node, is_list, is_text, detected, false)? {
        // A list of events: a whole stream.
        Route::Stream(reader) => {
            return crate::python::stream::assembled_response(b, reader, doc, doc, raw);
        }
        Route::Transcript(options) => return transcript_response(b, &options, &node, raw),
        // A piece of a stream: read as a stream of one event.
        Route::Piece(reader) => {
            let events = PyTuple::new(py, [doc])?;
            return crate::python::stream::assembled_response(b, reader, &events, doc, raw);
        }
        Route::Calls(name, found) => match (format, Walked::named(name)) {
            (Format::WithText(_, text), Some(walked)) => {
                return text_response(b, text_dialect::read(walked, &node, text)?, raw)
            }
            _ => found,
        },
        Route::Unrecognized => return Err(b.unrecognized_object(doc)),
    };
    let calls = found
        .into_iter()
        .map(|call| tool_call_of_object(b, call))
        .collect::<PyResult<Vec<_>>>()?;
    b.response(calls, raw)
}

/// The AgentResponse of the caller's own objects read with `text_dialect`.
fn text_response<'py>(
    b: &mut Builder<'py>,
    read: TextRead<PyNode<'py>>,
    raw: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let no_tape = Tape::default(); // a call read from text points into no tape
    let calls = (read.calls.into_iter())
        .map(|call| match call {
            Found::Structured(call) => tool_call_of_object(b, call),
            Found::Text(call, ..) => tool_call_of(b, &no_tape, &call),
        })
        .collect::<PyResult<Vec<_>>>()?;
    if read.content.is_none() && read.reasoning.is_none() {
        return b.response(calls, raw);
    }
    b.text_response(
        calls,
        raw,
        read.content.as_deref(),
        read.reasoning.as_deref(),
    )
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
            messages::Found::Raw(raw_call) => tool_call_of_object(b, raw_call)?,
            messages::Found::Made(made) => {
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
        ..
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
            return b.free_text_call(name, id, text);
        }
        Some(PyNode(value)) => arguments_of_object(b, value)?,
    };
    b.tool_call(name, arguments, id, raw_arguments)
}
