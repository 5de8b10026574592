//! The caller's Python objects as [`Node`]s: dicts by key, SDK objects by attribute.

use super::strings::field_key;
use crate::node::{Index, Node};
use pyo3::exceptions::PyAttributeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PyMemoryView,
    PyString, PyTuple,
};

pyo3::create_exception!(
    toolsift,
    PythonOnly,
    pyo3::exceptions::PyException,
    "A value the Rust core cannot hold as JSON data (see `plain_json`): a stream given \
     one is read by the pure backend."
);

/// Whether a value is plain JSON data, which the Rust core may hold as JSON text and
/// decode again with nothing changed: exact dicts with `str` keys, lists, `str` (Unicode
/// text Rust can hold), `int`, finite `float`, `bool`, None, nested at most
/// `MAX_DEPTH` deep (a cycle is not).
fn plain_json(value: &Bound<'_, PyAny>) -> bool {
    let text = |s: &Bound<'_, PyAny>| s.cast_exact::<PyString>().is_ok_and(|s| s.to_str().is_ok());
    let mut todo = vec![(value.clone(), 0usize)];
    while let Some((value, depth)) = todo.pop() {
        if depth > crate::json::MAX_DEPTH {
            return false;
        }
        if value.is_none()
            || value.is_exact_instance_of::<PyBool>()
            || value.is_exact_instance_of::<PyInt>()
            || text(&value)
        {
            continue;
        }
        if let Ok(float) = value.cast_exact::<PyFloat>() {
            if float.value().is_finite() {
                continue;
            }
        } else if let Ok(list) = value.cast_exact::<PyList>() {
            todo.extend(list.iter().map(|item| (item, depth + 1)));
            continue;
        } else if let Ok(dict) = value.cast_exact::<PyDict>() {
            for (key, item) in dict.iter() {
                if !text(&key) {
                    return false;
                }
                todo.push((item, depth + 1));
            }
            continue;
        }
        return false;
    }
    true
}

/// A Python value inside a response.
#[derive(Clone)]
pub struct PyNode<'py>(pub Bound<'py, PyAny>);

/// Values that are never read by attribute (the pure backend's `_PLAIN`).
pub fn is_plain(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_none()
        || obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj.is_instance_of::<PyInt>()
        || obj.is_instance_of::<PyFloat>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.is_instance_of::<PyMemoryView>()
}

fn present(value: Bound<'_, PyAny>) -> Option<PyNode<'_>> {
    (!value.is_none()).then_some(PyNode(value))
}

/// `dict.get(key)`: straight from the storage of a plain dict; through the `get` method
/// of a subclass, which may have its own (as the pure backend calls it).
pub fn dict_get<'py>(dict: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let key = field_key(dict.py(), key);
    if dict.is_exact_instance_of::<PyDict>() {
        return dict.get_item(key);
    }
    dict.call_method1(intern!(dict.py(), "get"), (key,))
        .map(Some)
}

/// What `for item in value` gives: a plain list or tuple from its storage, a subclass
/// through its own `__iter__` (as the pure backend iterates it), its errors raised.
pub fn python_items<'py>(value: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if let Ok(list) = value.cast_exact::<PyList>() {
        return Ok(list.iter().collect());
    }
    if let Ok(tuple) = value.cast_exact::<PyTuple>() {
        return Ok(tuple.iter().collect());
    }
    value.try_iter()?.collect()
}

/// What `dict.items()` / `dict.values()` give, through a subclass's own methods.
pub fn dict_items<'py>(
    dict: &Bound<'py, PyDict>,
) -> PyResult<Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
    if dict.is_exact_instance_of::<PyDict>() {
        return Ok(dict.iter().collect());
    }
    let items = dict.call_method0(intern!(dict.py(), "items"))?;
    items.try_iter()?.map(|pair| pair?.extract()).collect()
}

impl<'py> Node for PyNode<'py> {
    type Error = PyErr;

    fn field(&self, key: &str) -> PyResult<Option<Self>> {
        if let Ok(dict) = self.0.cast::<PyDict>() {
            return Ok(dict_get(dict, key)?.and_then(present));
        }
        if is_plain(&self.0) {
            return Ok(None);
        }
        match self.0.getattr(field_key(self.0.py(), key)) {
            Ok(value) => Ok(present(value)),
            Err(err) if err.is_instance_of::<PyAttributeError>(self.0.py()) => Ok(None),
            Err(err) => Err(err),
        }
    }

    fn member(&self, key: &str) -> PyResult<Option<Self>> {
        match self.0.cast::<PyDict>() {
            Ok(dict) => Ok(dict_get(dict, key)?.and_then(present)),
            Err(_) => Ok(None),
        }
    }

    type Elements = std::vec::IntoIter<Self>;

    fn elements(&self) -> Self::Elements {
        self.items().into_iter()
    }

    fn items(&self) -> PyResult<Self::Elements> {
        if !self.is_array() {
            return Ok(Vec::new().into_iter());
        }
        let items: Vec<Self> = python_items(&self.0)?.into_iter().map(PyNode).collect();
        Ok(items.into_iter())
    }

    type Values = std::vec::IntoIter<Self>;

    fn member_values(&self) -> PyResult<Self::Values> {
        let Ok(dict) = self.0.cast::<PyDict>() else {
            return Ok(Vec::new().into_iter());
        };
        let values = if dict.is_exact_instance_of::<PyDict>() {
            dict.values().iter().collect()
        } else {
            python_items(&dict.call_method0(intern!(dict.py(), "values"))?)?
        };
        let values: Vec<Self> = values.into_iter().map(PyNode).collect();
        Ok(values.into_iter())
    }

    fn is_array(&self) -> bool {
        self.0.is_instance_of::<PyList>() || self.0.is_instance_of::<PyTuple>()
    }

    fn is_list(&self) -> bool {
        self.0.is_instance_of::<PyList>()
    }

    fn is_object(&self) -> bool {
        self.0.is_instance_of::<PyDict>()
    }

    fn has_key(&self, key: &str) -> PyResult<bool> {
        match self.0.cast::<PyDict>() {
            Ok(dict) => dict.contains(key),
            Err(_) => Ok(false),
        }
    }

    fn keys_within(&self, allowed: &[&str]) -> PyResult<bool> {
        let Ok(dict) = self.0.cast::<PyDict>() else {
            return Ok(false);
        };
        let allowed = PyFrozenSet::new(dict.py(), allowed)?;
        dict.call_method0(intern!(dict.py(), "keys"))?.le(allowed)
    }

    fn single_member(&self) -> bool {
        self.0.cast::<PyDict>().is_ok_and(|dict| dict.len() == 1)
    }

    fn is_nonempty_str(&self) -> bool {
        self.0
            .cast::<PyString>()
            .is_ok_and(|s| s.len().is_ok_and(|n| n > 0))
    }

    fn is_string(&self) -> bool {
        self.0.is_instance_of::<PyString>()
    }

    fn is_str(&self, text: &str) -> bool {
        // `==` as Python compares (a str subclass too); lone surrogates never equal UTF-8.
        self.0
            .cast::<PyString>()
            .is_ok_and(|s| s.to_str().is_ok_and(|s| s == text))
    }

    /// A `str` with lone surrogates is an error (UnicodeEncodeError): Rust cannot hold
    /// it; the stream gives such events to the pure backend (`stream::Stream`).
    fn text(&self) -> PyResult<Option<String>> {
        match self.0.cast::<PyString>() {
            Ok(text) => Ok(Some(text.to_str()?.to_owned())),
            Err(_) => Ok(None),
        }
    }

    fn kind(&self) -> PyResult<Option<String>> {
        Ok(self
            .0
            .cast::<PyString>()
            .ok()
            .map(|text| text.to_string_lossy().into_owned()))
    }

    fn is_bool(&self) -> bool {
        self.0.is_instance_of::<PyBool>()
    }

    fn is_int(&self, value: i64) -> bool {
        self.0.is_exact_instance_of::<PyInt>() && self.0.extract::<i64>().is_ok_and(|v| v == value)
    }

    fn blob(&self) -> PyResult<Option<Vec<u8>>> {
        if let Ok(bytes) = self.0.cast::<PyBytes>() {
            return Ok(Some(bytes.as_bytes().to_vec()));
        }
        Ok(self
            .0
            .cast::<PyByteArray>()
            .ok()
            .map(|array| array.to_vec()))
    }

    fn index(&self) -> PyResult<Option<Index>> {
        if self.0.is_instance_of::<PyBool>() || !self.0.is_instance_of::<PyInt>() {
            return Ok(None);
        }
        if let Ok(small) = self.0.extract::<i64>() {
            return Ok(Some(Index::Int(small)));
        }
        // Beyond 64 bits: its magnitude's bytes (no digit limit, unlike `str()`).
        let py = self.0.py();
        let negative = self.0.lt(0)?;
        let magnitude = self.0.call_method0(intern!(py, "__abs__"))?;
        let bits: usize = magnitude
            .call_method0(intern!(py, "bit_length"))?
            .extract()?;
        let bytes = magnitude.call_method1(intern!(py, "to_bytes"), (bits.div_ceil(8), "big"))?;
        Ok(Some(Index::of_magnitude(
            negative,
            bytes.cast::<PyBytes>()?.as_bytes(),
        )))
    }

    /// A value that is not plain JSON data (`plain_json`) is a `PythonOnly` error.
    fn to_json(&self) -> PyResult<String> {
        let py = self.0.py();
        if !plain_json(&self.0) {
            return Err(PythonOnly::new_err("not plain JSON data"));
        }
        let dumps = py
            .import(intern!(py, "toolsift._jsontext"))?
            .getattr(intern!(py, "dumps_compact"))?;
        dumps.call1((&self.0,))?.extract()
    }
}

impl<'py> PyNode<'py> {
    /// See [`Node::elements`].
    fn items(&self) -> Vec<Self> {
        if let Ok(list) = self.0.cast_exact::<PyList>() {
            return list.iter().map(PyNode).collect();
        }
        if let Ok(tuple) = self.0.cast_exact::<PyTuple>() {
            return tuple.iter().map(PyNode).collect();
        }
        if self.is_array() {
            // A subclass is iterated as Python iterates it (its own `__iter__`). An
            // exception from it ends the items there (Node's items cannot fail).
            if let Ok(items) = self.0.try_iter() {
                return items.map_while(Result::ok).map(PyNode).collect();
            }
        }
        Vec::new()
    }
}

/// A raw response: JSON text, or an object (dict, SDK object) to walk.
pub enum Input<'py> {
    Bytes(Bound<'py, PyBytes>),
    Str(Bound<'py, PyString>),
    Object,
}

impl<'py> Input<'py> {
    /// `bytearray` and `memoryview` are copied to `bytes`.
    pub fn of(raw: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
        if let Ok(bytes) = raw.cast::<PyBytes>() {
            return Ok(Input::Bytes(bytes.clone()));
        }
        if let Ok(text) = raw.cast::<PyString>() {
            return Ok(Input::Str(text.clone()));
        }
        if raw.is_instance_of::<PyByteArray>() || raw.is_instance_of::<PyMemoryView>() {
            let copy = raw.py().get_type::<PyBytes>().call1((raw,))?;
            return Ok(Input::Bytes(copy.cast_into::<PyBytes>()?));
        }
        Ok(Input::Object)
    }

    /// The UTF-8 text, where there is some (a `str` with lone surrogates has none).
    pub fn text(&self) -> Option<&[u8]> {
        match self {
            Input::Bytes(bytes) => Some(bytes.as_bytes()),
            Input::Str(text) => text.to_str().ok().map(str::as_bytes),
            Input::Object => None,
        }
    }
}

/// A `str` holding lone surrogates (no UTF-8 text), written as Python's
/// `encode("utf-8", "surrogatepass")` writes it: its JSON error says where they are.
pub fn surrogatepass(text: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let py = text.py();
    text.call_method1(intern!(py, "encode"), ("utf-8", "surrogatepass"))?
        .extract()
}
