//! The LiteRT-LM functions of the native module: `extract_tool_calls` and
//! `clean_raw_for_history` (the rest of `SdkResponseParser`'s helpers are pure Python in
//! both backends: they are not hot).

use super::build::{calls_from_record, Builder};
use super::objects::Input;
use crate::calls::Record;
use crate::formats::litert;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyString};

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

/// The pure `toolsift._pure.formats.litert.parse_sdk`, which reads dicts and lists (not text).
pub fn parse_sdk(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static PARSE_SDK: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    PARSE_SDK
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(
                py.import("toolsift._pure.formats.litert")?
                    .getattr("parse_sdk")?
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
        (Some(cleaned), _) => PyString::new(py, &cleaned).into_any(),
        (None, Input::Str(_)) => text.clone(),
        (None, _) => PyString::new(py, decoded).into_any(),
    })
}
