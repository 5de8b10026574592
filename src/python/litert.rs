//! The LiteRT-LM functions of the native module: `extract_tool_calls` and
//! `clean_raw_for_history`, and the walk of the caller's dicts for
//! `SdkResponseParser.parse` (the rest of `SdkResponseParser`'s helpers are pure Python in
//! both backends: they are not hot).

use super::build::{arguments_pair, calls_from_record, new_str, Builder};
use super::objects::{dict_items, python_items, Input, PyNode};
use crate::calls::{Arguments, Record};
use crate::formats::{litert, RawCall};
use crate::json::MAX_DEPTH;
use crate::node::Node;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};
use std::borrow::Cow;

/// Texts at least this long are read with the GIL released (shorter ones are done
/// before another thread could get much from it).
const DETACH_BYTES: usize = 64 * 1024;

/// The calls of one LiteRT-LM text (the GIL released for a long one).
pub fn parse_record<'t>(py: Python<'_>, text: &'t [u8]) -> Record<'t> {
    if text.len() >= DETACH_BYTES {
        py.detach(|| litert::parse_record(text))
    } else {
        litert::parse_record(text)
    }
}

/// The calls `SdkResponseParser.parse` finds in the caller's own objects (the pure
/// `parse_sdk`): a dict or a list read as one decoded segment by the walker tapes take
/// too ([`litert::walk`]), anything else none. Structured calls first; only when there
/// are none, raw Gemma 4 blocks in the string values, depth first in document order.
pub fn calls_of_object<'py>(
    b: &mut Builder<'py>,
    raw: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let doc = PyNode(raw.clone());
    if !(doc.is_object() || doc.is_list()) {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    litert::walk(&doc, &mut |call| found.push(call))?;
    let mut calls = found
        .into_iter()
        .map(|call| tool_call_of(b, call))
        .collect::<PyResult<Vec<_>>>()?;
    if calls.is_empty() {
        let mut strings = Vec::new();
        litert::string_values(doc, 1, &mut strings)?;
        for PyNode(string) in strings {
            raw_calls(b, string.cast::<PyString>()?, &mut calls)?;
        }
    }
    Ok(calls)
}

/// The ToolCall of a call the walk found (its name a non-empty string, its id a string).
fn tool_call_of<'py>(
    b: &mut Builder<'py>,
    call: RawCall<PyNode<'py>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = b.py;
    let name = call
        .name
        .map_or_else(|| intern!(py, "").clone().into_any(), |n| n.0);
    let id = call.id.map_or_else(|| py.None().into_bound(py), |i| i.0);
    let (arguments, raw_arguments) = arguments_of(b, call.arguments.map(|a| a.0))?;
    b.tool_call(name, arguments, id, raw_arguments)
}

/// `(arguments, raw_arguments)` of the arguments value as found: a dict (copied, escape
/// tokens stripped), a string holding one, or anything else kept as its JSON text.
fn arguments_of<'py>(
    b: &mut Builder<'py>,
    value: Option<Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let py = b.py;
    let Some(value) = value.filter(|value| !value.is_none()) else {
        return Ok((b.empty_dict(), py.None().into_bound(py)));
    };
    if let Ok(text) = value.cast::<PyString>() {
        let Ok(text) = text.to_str() else {
            return Ok((b.empty_dict(), value)); // lone surrogates: not JSON text
        };
        return match litert::string_arguments(Cow::Borrowed(text)) {
            arguments @ Arguments::Decoded(_) => arguments_pair(b, None, &arguments),
            _ => Ok((b.empty_dict(), value)),
        };
    }
    if value.is_instance_of::<PyDict>() {
        return Ok(match stripped_copy(&value, 1)? {
            Some(copy) => (copy, py.None().into_bound(py)),
            // Deeper than MAX_DEPTH: only caller-built dicts get here.
            None => (b.empty_dict(), py.None().into_bound(py)),
        });
    }
    b.kept_as_text(&value)
}

/// A copy of a dict or list (`depth` deep) with `<|"|>` removed from every string value,
/// at any depth (keys and other values kept); None when containers nest deeper than
/// MAX_DEPTH. Items are read from a snapshot, so Python code run by `replace` (a `str`
/// subclass) cannot change what is being iterated.
fn stripped_copy<'py>(
    value: &Bound<'py, PyAny>,
    depth: usize,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = value.py();
    let strip = |item: Bound<'py, PyAny>| -> PyResult<Option<Bound<'py, PyAny>>> {
        if item.is_instance_of::<PyString>() {
            Ok(Some(item.call_method1(
                intern!(py, "replace"),
                (litert::ESCAPE_TOKEN, ""),
            )?))
        } else if item.is_instance_of::<PyDict>() || item.is_instance_of::<PyList>() {
            if depth >= MAX_DEPTH {
                return Ok(None);
            }
            stacker::maybe_grow(64 * 1024, 1024 * 1024, || stripped_copy(&item, depth + 1))
        } else {
            Ok(Some(item))
        }
    };
    if let Ok(dict) = value.cast::<PyDict>() {
        let copy = PyDict::new(py);
        for (key, item) in dict_items(dict)? {
            let Some(item) = strip(item)? else {
                return Ok(None);
            };
            copy.set_item(key, item)?;
        }
        return Ok(Some(copy.into_any()));
    }
    let copy = PyList::empty(py);
    for item in python_items(value)? {
        let Some(item) = strip(item)? else {
            return Ok(None);
        };
        copy.append(item)?;
    }
    Ok(Some(copy.into_any()))
}

/// The raw Gemma 4 blocks in one string value.
fn raw_calls<'py>(
    b: &mut Builder<'py>,
    string: &Bound<'py, PyString>,
    calls: &mut Vec<Bound<'py, PyAny>>,
) -> PyResult<()> {
    match string.to_str() {
        Ok(text) => calls.extend(calls_from_record(b, &litert::raw_record(text))?),
        // Lone surrogates: the pure scanner reads such a string as it is.
        Err(_) => {
            let found = pure_raw_calls(b.py)?.call1((string,))?;
            for call in found.try_iter()? {
                calls.push(call?);
            }
        }
    }
    Ok(())
}

/// The pure `toolsift._pure.formats.litert._raw_calls`, for strings Rust cannot hold.
fn pure_raw_calls(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static RAW_CALLS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    RAW_CALLS
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(
                py.import("toolsift._pure.formats.litert")?
                    .getattr("_raw_calls")?
                    .unbind(),
            )
        })
        .map(|function| function.bind(py))
}

/// Every tool call in a LiteRT-LM response text (str, bytes, bytearray, memoryview);
/// anything else, or text that is not valid Unicode, has none. Never raises.
#[pyfunction]
pub fn extract_tool_calls<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let py = text.py();
    let input = Input::of(text)?;
    let Some(bytes) = input.text() else {
        return Ok(PyList::empty(py));
    };
    let record = parse_record(py, bytes);
    let mut builder = Builder::new(py)?;
    let calls = calls_from_record(&mut builder, &record)?;
    PyList::new(py, calls)
}

/// The response text to keep in the chat history: one JSON document re-written compact
/// with `<|"|>` stripped from string values; any other text unchanged (bytes that are
/// not UTF-8 come back decoded with U+FFFD replacements; what is not text comes back).
#[pyfunction]
pub fn clean_raw_for_history<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = text.py();
    let input = Input::of(text)?;
    let decoded = match &input {
        Input::Object => return Ok(text.clone()),
        Input::Str(string) => match string.to_str() {
            Ok(decoded) => decoded,
            Err(_) => return Ok(text.clone()), // lone surrogates: not JSON, unchanged
        },
        Input::Bytes(bytes) => match simdutf8::basic::from_utf8(bytes.as_bytes()) {
            Ok(decoded) => decoded,
            // Python's own decoder, so the replacements are exactly Python's.
            Err(_) => return bytes.call_method1("decode", ("utf-8", "replace")),
        },
    };
    let cleaned = if decoded.len() >= DETACH_BYTES {
        py.detach(|| litert::clean_raw_for_history(decoded))
    } else {
        litert::clean_raw_for_history(decoded)
    };
    Ok(match (cleaned, &input) {
        (Some(cleaned), _) => new_str(py, &cleaned).into_any(),
        (None, Input::Str(_)) => text.clone(),
        (None, _) => new_str(py, decoded).into_any(),
    })
}
