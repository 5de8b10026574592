//! Core results to Python objects: tool calls, their arguments, whole responses. The
//! [`Builder`] (here) holds what every conversion needs; `hooks` the Python objects it
//! looks up once, `convert` arguments values, `respond` the AgentResponse of a record or
//! of the caller's own objects. Python strings from Rust text (and the key caches) are
//! `python::strings`, a leaf that `objects` uses too.

mod convert;
mod hooks;
mod respond;

use super::objects::{surrogatepass, Input, PyNode};
pub use super::strings::new_str;
use super::strings::{KeyCache, KEYS};
use crate::defects;
use crate::formats::Walked;
use crate::json::{JsonError, Tape, Token};
pub use convert::arguments_pair;
pub(super) use hooks::sync_int_limit;
use hooks::{hooks, Hooks};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use pyo3::IntoPyObjectExt;
pub use respond::{calls_from_record, response_from_object, response_from_outcome};
use std::borrow::Cow;

/// Builds Python results; holds the key cache while it lives.
pub struct Builder<'py> {
    pub(super) py: Python<'py>,
    hooks: &'static Hooks,
    keys: Option<std::sync::MutexGuard<'static, Option<KeyCache>>>,
    /// `repair="safe"`: calls get the arguments the audited repairs make (`tool_call`).
    repair: bool,
    /// How deep [`Builder::nested`] is in the value it builds, and whether it has asked
    /// for room on the stack yet.
    depth: u32,
    stack_checked: bool,
}

/// How many levels of a value [`Builder::nested`] builds between two checks of the stack.
const STACK_CHECK_LEVELS: u32 = 16;

impl<'py> Builder<'py> {
    pub fn new(py: Python<'py>) -> PyResult<Self> {
        sync_int_limit(py)?;
        // try_lock: a re-entrant call (an SDK attribute that parses) just goes without.
        let keys = KEYS.try_lock().ok().map(|mut guard| {
            guard.get_or_insert_with(KeyCache::new);
            guard
        });
        Ok(Builder {
            py,
            hooks: hooks(py)?,
            keys,
            repair: false,
            depth: 0,
            stack_checked: false,
        })
    }

    /// The same, making the audited repairs where `repair` (the parser's `repair="safe"`).
    pub fn repairing(mut self, repair: bool) -> Self {
        self.repair = repair;
        self
    }

    /// `key` as a Python string, from the key cache where it is in it (a string that
    /// repeats across responses: an object key, a tool's name).
    pub(super) fn key(&mut self, key: &str) -> Bound<'py, PyString> {
        match self.keys.as_mut().and_then(|guard| guard.as_mut()) {
            Some(cache) => cache.get(self.py, key),
            None => new_str(self.py, key),
        }
    }

    /// The Python value of the tape value at `idx`, and the index just past it.
    fn value(&mut self, tape: &Tape<'_>, idx: usize) -> PyResult<(Bound<'py, PyAny>, usize)> {
        let py = self.py;
        match &tape.tokens[idx] {
            Token::Str(s) => Ok((new_str(py, tape.text(s)).into_any(), idx + 1)),
            Token::Array { len, end } => {
                let mut items = Vec::with_capacity(*len as usize);
                let mut at = idx + 1;
                while at < *end as usize {
                    let (item, next) = self.nested(tape, at)?;
                    items.push(item);
                    at = next;
                }
                Ok((PyList::new(py, items)?.into_any(), *end as usize))
            }
            Token::Object { .. } => self.object(tape, idx),
            scalar => Ok((self.scalar(scalar, &tape.source, &tape.owned)?, idx + 1)),
        }
    }

    /// The Python value of a token that is neither a container nor a string (the texts
    /// of numbers kept as text are in `source` or `owned`: see `Text`).
    pub(super) fn scalar(
        &self,
        token: &Token,
        source: &str,
        owned: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        Ok(match token {
            Token::Null => py.None().into_bound(py),
            Token::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            Token::Int(i) => i.into_bound_py_any(py)?,
            Token::UInt(u) => u.into_bound_py_any(py)?,
            Token::BigInt(digits) => {
                let digits = digits.resolve(source, owned);
                match py.get_type::<PyInt>().call1((digits,)) {
                    Ok(int) => int,
                    // More digits than int() takes (4300 by default): JSON decodes it anyway.
                    Err(_) => self.hooks.loads.bind(py).call1((digits,))?,
                }
            }
            Token::Float(f) => PyFloat::new(py, *f).into_any(),
            Token::HugeFloat(text) => {
                let inf = if text.resolve(source, owned).starts_with('-') {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                };
                PyFloat::new(py, inf).into_any()
            }
            Token::Str(_) | Token::Array { .. } | Token::Object { .. } => {
                unreachable!("scalar() is only called on scalar tokens")
            }
        })
    }

    fn nested(&mut self, tape: &Tape<'_>, idx: usize) -> PyResult<(Bound<'py, PyAny>, usize)> {
        // The tape is at most MAX_DEPTH deep; grow the stack rather than overflow it. The
        // room left is asked at the first value this builder nests and then every
        // `STACK_CHECK_LEVELS` levels (asking costs more than a small value): the levels
        // between take a few KiB of the 64 KiB asked for, and every value is built from
        // about the same depth of the stack (one `parse`).
        self.depth += 1;
        let check = self.depth % STACK_CHECK_LEVELS == 0 || !self.stack_checked;
        self.stack_checked = true;
        let value = if check {
            stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.value(tape, idx))
        } else {
            self.value(tape, idx)
        };
        self.depth -= 1;
        value
    }

    /// The dict of the object at `idx` (duplicate keys: the last value wins).
    fn object(&mut self, tape: &Tape<'_>, idx: usize) -> PyResult<(Bound<'py, PyAny>, usize)> {
        let Token::Object { end, .. } = tape.tokens[idx] else {
            unreachable!("object() is only called on an object token")
        };
        let dict = PyDict::new(self.py);
        let mut at = idx + 1;
        while at < end as usize {
            let key = self.key(tape.str_at(at).unwrap_or_default());
            let (value, next) = self.nested(tape, at + 1)?;
            dict.set_item(key, value)?;
            at = next;
        }
        Ok((dict.into_any(), end as usize))
    }

    pub(super) fn empty_dict(&self) -> Bound<'py, PyAny> {
        PyDict::new(self.py).into_any()
    }

    /// `ToolCall(name, arguments, id, raw_arguments)`; where `raw_arguments` is set (text
    /// that did not decode as an object), with its defect, and with `repair` the
    /// arguments its repairs make (`crate::defects`, the pure `with_defect` and
    /// `repair_calls`).
    pub(super) fn tool_call(
        &mut self,
        name: Bound<'py, PyAny>,
        arguments: Bound<'py, PyAny>,
        id: Bound<'py, PyAny>,
        raw_arguments: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if raw_arguments.is_none() {
            return self
                .hooks
                .tool_call
                .instance(self.py, [name, arguments, id, raw_arguments]);
        }
        self.undecoded_call(name, arguments, id, raw_arguments)
    }

    /// A custom tool's call: its input is free text by design, with no defect.
    pub(super) fn free_text_call(
        &self,
        name: Bound<'py, PyAny>,
        id: Bound<'py, PyAny>,
        text: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments = self.empty_dict();
        self.hooks
            .tool_call
            .instance(self.py, [name, arguments, id, text])
    }

    /// [`Self::tool_call`] of arguments that did not decode: off the clean path.
    #[cold]
    fn undecoded_call(
        &mut self,
        name: Bound<'py, PyAny>,
        mut arguments: Bound<'py, PyAny>,
        id: Bound<'py, PyAny>,
        raw_arguments: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let found = match raw_arguments.cast::<PyString>().map(|text| text.to_str()) {
            Ok(Ok(text)) => defects::salvage(text),
            // Lone surrogates: no JSON text (nor Rust string) holds them.
            _ => defects::Salvage::defect("not_json"),
        };
        let mut repairs = None;
        if let (true, Some((object, codes))) = (self.repair, &found.repaired) {
            arguments = self.object(object, 0)?.0;
            repairs = Some(PyList::new(py, codes.codes())?);
        }
        let call = self
            .hooks
            .tool_call
            .instance(py, [name, arguments, id, raw_arguments])?;
        call.setattr(intern!(py, "_defect"), PyString::intern(py, found.defect))?;
        if let Some(repairs) = repairs {
            call.setattr(intern!(py, "_repairs"), repairs)?;
        }
        Ok(call)
    }

    /// A transcript's call: `call` (a ToolCall just made) with its `turn`, and its
    /// `result` and `result_error` where it has a result.
    pub(super) fn set_turn(
        &self,
        call: &Bound<'py, PyAny>,
        turn: usize,
        result: Option<(Bound<'py, PyAny>, bool)>,
    ) -> PyResult<()> {
        let py = self.py;
        call.setattr(pyo3::intern!(py, "_turn"), turn)?;
        if let Some((text, error)) = result {
            call.setattr(pyo3::intern!(py, "_result"), text)?;
            call.setattr(pyo3::intern!(py, "_result_error"), error)?;
        }
        Ok(())
    }

    pub fn response(
        &self,
        calls: Vec<Bound<'py, PyAny>>,
        raw: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.response_with(calls, raw, None)
    }

    /// `AgentResponse(calls, raw, error)`, `error` None where there is none.
    pub fn response_with(
        &self,
        calls: Vec<Bound<'py, PyAny>>,
        raw: &Bound<'py, PyAny>,
        error: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let calls = PyList::new(self.py, calls)?;
        let error = match error {
            Some(error) => PyString::new(self.py, error).into_any(),
            None => self.py.None().into_bound(self.py),
        };
        self.agent_response(calls, raw, error)
    }

    /// `AgentResponse(tool_calls, raw, error)`.
    fn agent_response(
        &self,
        tool_calls: Bound<'py, PyList>,
        raw: &Bound<'py, PyAny>,
        error: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let none = self.py.None().into_bound(self.py);
        self.hooks.agent_response.instance(
            self.py,
            [
                tool_calls.into_any(),
                raw.clone(),
                error,
                none.clone(),
                none,
            ],
        )
    }

    /// `AgentResponse(calls, raw, None, content, reasoning)`: a raw-text dialect's.
    pub fn text_response(
        &self,
        calls: Vec<Bound<'py, PyAny>>,
        raw: &Bound<'py, PyAny>,
        content: Option<&str>,
        reasoning: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let text = |text: Option<&str>| match text {
            Some(text) => new_str(py, text).into_any(),
            None => py.None().into_bound(py),
        };
        self.hooks.agent_response.instance(
            py,
            [
                PyList::new(py, calls)?.into_any(),
                raw.clone(),
                py.None().into_bound(py),
                text(content),
                text(reasoning),
            ],
        )
    }

    /// `(arguments, raw_arguments)` for a value that is neither an object nor a string.
    pub(super) fn kept_as_text(
        &self,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let text = self.hooks.dumps_compact.bind(self.py).call1((value,))?;
        Ok((self.empty_dict(), text))
    }

    /// The ParseError for text that did not parse (`err`: the parser's error). Its
    /// message and position are the pure `error_for`'s, made in Rust
    /// (`crate::json_errors`).
    pub fn parse_error(&self, raw: &Bound<'py, PyAny>, err: Option<&JsonError>) -> PyResult<PyErr> {
        let input = Input::of(raw)?;
        let text = match (&input, input.text()) {
            (_, Some(text)) => Cow::Borrowed(text),
            (Input::Str(_), None) => Cow::Owned(surrogatepass(raw)?),
            (_, None) => {
                let kind = raw.get_type().name()?;
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "JSON text must be str, bytes, bytearray or memoryview, not {kind}"
                )));
            }
        };
        let parsed = err.cloned().unwrap_or_else(|| JsonError {
            pos: 0,
            message: "invalid text".to_owned(),
        });
        Ok(self.json_error(&crate::json_errors::explained(&text, parsed)))
    }

    /// The ParseError of an error already described (`Outcome::NotJson`).
    pub fn json_error(&self, err: &JsonError) -> PyErr {
        let parse_error = self.hooks.parse_error.bind(self.py);
        match parse_error.call1((err.message.as_str(), err.pos)) {
            Ok(error) => PyErr::from_value(error),
            Err(err) => err,
        }
    }

    /// A record that could not be read: no calls, `error` set.
    pub fn failed(&self, raw: &Bound<'py, PyAny>, err: PyErr) -> PyResult<Bound<'py, PyAny>> {
        let message = self
            .hooks
            .record_error
            .bind(self.py)
            .call1((err.value(self.py),))?;
        self.agent_response(PyList::empty(self.py), raw, message)
    }

    /// A record that could not be read, with the reason given as text.
    pub fn failed_with(
        &self,
        raw: &Bound<'py, PyAny>,
        message: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let message = PyString::new(self.py, message).into_any();
        self.agent_response(PyList::empty(self.py), raw, message)
    }

    /// For `auto` on the caller's own objects: the walked format that recognizes `raw`
    /// (a dict), or an SDK object's JSON document ([`sdk_document`]), if any.
    pub(super) fn detected(&self, raw: &Bound<'py, PyAny>) -> Option<Walked> {
        if raw.is_instance_of::<PyDict>() {
            return Walked::detected_in(&PyNode(raw.clone()));
        }
        Walked::detected_in(&PyNode(sdk_document(raw)?))
    }

    /// `UnrecognizedShape` with the message Rust made from a tape.
    pub(super) fn unrecognized(&self, message: &str) -> PyErr {
        match self
            .hooks
            .unrecognized_message
            .bind(self.py)
            .call1((message,))
        {
            Ok(error) => PyErr::from_value(error),
            Err(err) => err,
        }
    }

    /// `UnrecognizedShape` of the caller's own object (its keys, or its type).
    pub(super) fn unrecognized_object(&self, raw: &Bound<'py, PyAny>) -> PyErr {
        match self.hooks.unrecognized_shape.bind(self.py).call1((raw,)) {
            Ok(error) => PyErr::from_value(error),
            Err(err) => err,
        }
    }

    /// The keys of the dot path `record_path=` (the public argument, checked as the API
    /// checks it: `_errors.record_path_keys`), None for None.
    pub fn record_path_keys(&self, path: &Bound<'py, PyAny>) -> PyResult<Option<Vec<String>>> {
        let keys = self.hooks.record_path_keys.bind(self.py).call1((path,))?;
        keys.extract()
    }

    pub fn check_threads(&self, threads: Option<&Bound<'py, PyAny>>) -> PyResult<()> {
        self.hooks.check_threads.bind(self.py).call1((threads,))?;
        Ok(())
    }
}

/// The JSON document of an SDK response object (a pydantic v2 model: openai, anthropic,
/// google-genai, ollama, cohere), `model_dump(mode="json")`, the document its logs hold;
/// None for anything else (no `model_dump`, a dump that fails or is not a dict), as the
/// pure `sdk_document`.
fn sdk_document<'py>(obj: &Bound<'py, PyAny>) -> Option<Bound<'py, PyAny>> {
    let py = obj.py();
    let dump = obj.get_type().getattr(intern!(py, "model_dump")).ok()?;
    if !dump.is_callable() {
        return None;
    }
    let kwargs = PyDict::new(py);
    kwargs
        .set_item(intern!(py, "mode"), intern!(py, "json"))
        .ok()?;
    kwargs.set_item(intern!(py, "warnings"), false).ok()?;
    let document = dump.call((obj,), Some(&kwargs)).ok()?;
    document.is_instance_of::<PyDict>().then_some(document)
}
