//! `parser.stream()`: the core [`crate::stream::Stream`] fed with Python events (dicts,
//! SDK objects read by attribute, `str` / `bytes` of JSON or SSE text, lists of them).

use super::build::{arguments_pair, Builder};
use super::objects::PyNode;
use crate::stream::{Reader, Stream as Core, StreamCall};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyFloat, PyInt, PyList, PyMemoryView, PyString, PyTuple,
};

/// The calls of one stream being fed (`toolsift._pure.stream.Stream` is the twin).
#[pyclass(module = "toolsift._native")]
pub struct Stream {
    core: Core,
    events: Vec<Py<PyAny>>,
}

impl Stream {
    pub fn new(reader: Reader) -> Self {
        Stream {
            core: Core::new(reader),
            events: Vec::new(),
        }
    }

    fn read(&mut self, event: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = event.py();
        if event.is_instance_of::<PyList>() || event.is_instance_of::<PyTuple>() {
            for item in event.try_iter()? {
                let item = item?;
                if item.is_instance_of::<PyList>() || item.is_instance_of::<PyTuple>() {
                    return Err(PyTypeError::new_err(
                        "a stream event is a dict, an SDK object or text, not a list",
                    ));
                }
                self.read(&item)?;
            }
            return Ok(());
        }
        if let Ok(text) = event.cast::<PyString>() {
            return match text.to_str() {
                Ok(text) => self.text(py, text.as_bytes()),
                // Lone surrogates: as the pure backend encodes them (not UTF-8, so not JSON).
                Err(_) => {
                    let encoded =
                        text.call_method1(intern!(py, "encode"), ("utf-8", "surrogatepass"))?;
                    self.text(py, encoded.cast::<PyBytes>()?.as_bytes())
                }
            };
        }
        if let Ok(bytes) = event.cast::<PyBytes>() {
            return self.text(py, bytes.as_bytes());
        }
        if event.is_instance_of::<PyByteArray>() || event.is_instance_of::<PyMemoryView>() {
            let copy = py.get_type::<PyBytes>().call1((event,))?;
            return self.text(py, copy.cast::<PyBytes>()?.as_bytes());
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
        self.core.feed_node(&PyNode(event.clone()))
    }

    fn text(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        match self.core.feed_text(data) {
            Ok(()) => Ok(()),
            Err((err, text)) => {
                let raw = PyBytes::new(py, &text).into_any();
                Err(Builder::new(py)?.parse_error(&raw, Some(&err))?)
            }
        }
    }
}

fn build<'py>(
    b: &mut Builder<'py>,
    calls: Vec<StreamCall<'_>>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = b.py;
    let mut out = Vec::with_capacity(calls.len());
    for call in calls {
        let name = PyString::new(py, call.name.unwrap_or_default()).into_any();
        let id = match call.id {
            Some(id) => PyString::new(py, id).into_any(),
            None => py.None().into_bound(py),
        };
        let (arguments, mut raw) = arguments_pair(b, None, &call.arguments)?;
        if let Some(text) = call.raw {
            raw = PyString::new(py, text).into_any();
        }
        out.push(b.tool_call(name, arguments, id, raw)?);
    }
    Ok(out)
}

/// A list of events given as one response: the calls of the stream they make, or None
/// (auto) where no event is of any format's stream.
pub fn assemble<'py>(
    b: &mut Builder<'py>,
    reader: Reader,
    events: &Bound<'py, PyAny>,
) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
    let mut core = Core::new(reader);
    for event in events.try_iter()? {
        core.feed_node(&PyNode(event?))?;
    }
    core.finish();
    if core.format_name().is_none() {
        return Ok(None);
    }
    build(b, core.calls()).map(Some)
}

#[pymethods]
impl Stream {
    /// Read one event (or chunk of SSE text); the calls it completed, in order.
    fn feed<'py>(&mut self, event: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let py = event.py();
        if self.core.finished {
            return Err(PyValueError::new_err(
                "the stream is finished: feed() after finish()",
            ));
        }
        self.events.push(event.clone().unbind());
        self.core.begin();
        let read = self.read(event);
        let done = std::mem::take(&mut self.core.acc.done_now);
        read?;
        if done.is_empty() {
            return Ok(PyList::empty(py)); // most events: nothing to build
        }
        let mut b = Builder::new(py)?;
        let slots = &self.core.acc.slots;
        let calls = build(&mut b, done.iter().map(|&at| slots[at].call()).collect())?;
        PyList::new(py, calls)
    }

    /// Every call started so far, arguments still arriving decoded as far as they are
    /// complete. Never raises.
    fn partial<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut b = Builder::new(py)?;
        let calls = build(&mut b, self.core.partial())?;
        PyList::new(py, calls)
    }

    /// Every call, in the provider's order; `raw` is the list of events fed.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut b = Builder::new(py)?;
        self.core.finish();
        let calls = build(&mut b, self.core.calls())?;
        let raw = PyList::new(py, self.events.iter().map(|e| e.bind(py)))?;
        b.response(calls, raw.as_any())
    }
}
