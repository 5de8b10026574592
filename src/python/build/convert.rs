//! JSON text and the caller's own values to the Python objects of a call's arguments:
//! `(arguments, raw_arguments)`, straight from the text where it can be.

use super::{new_str, Builder};
use crate::calls::{decode_object, Arguments};
use crate::json::{is_too_long_int, scan_plain, Sink, Tape, Text, Token};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString};
use std::borrow::Cow;

/// The dict that `text` is the JSON text of; `None` when it is not the JSON text of an
/// object (the caller keeps the text), as [`decode_object`] reads it. Most texts are read
/// straight into Python objects ([`ObjectSink`]); the rest go through a tape.
pub(super) fn object_of_text<'py>(
    b: &mut Builder<'py>,
    text: &str,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    if u32::try_from(text.len()).is_ok() {
        let mut sink = ObjectSink {
            builder: b,
            source: text,
            unescaped: String::new(),
            items: Vec::new(),
            root: None,
            error: None,
        };
        let read = scan_plain(text, &mut sink);
        if let Some(err) = sink.error {
            return Err(err);
        }
        if read.is_some() {
            return Ok(sink.root.filter(|root| root.is_instance_of::<PyDict>()));
        }
    }
    match decode_object(Cow::Borrowed(text)) {
        Arguments::Decoded(tape) => Ok(Some(b.object(&tape, 0)?.0)),
        _ => Ok(None),
    }
}

/// Python objects built as [`scan_plain`] reads JSON text, without a tape: the same
/// objects [`Builder::value`] makes of the tape. It stops the scan at an integer longer
/// than Python converts (the tape's reading of the text decides what to do with it).
struct ObjectSink<'b, 'py, 's> {
    builder: &'b mut Builder<'py>,
    source: &'s str,
    /// The string with escapes just read, unescaped (emptied when its object is made).
    unescaped: String,
    /// The items of the open lists, one after another (a list's start at its `List`).
    items: Vec<Bound<'py, PyAny>>,
    root: Option<Bound<'py, PyAny>>,
    /// A Python error that stopped the scan.
    error: Option<PyErr>,
}

/// An open container of an [`ObjectSink`]: a list (where its items start in the sink's
/// `items`), or a dict with the key whose value comes next.
enum OpenObject<'py> {
    List(usize),
    Dict(Bound<'py, PyDict>, Option<Bound<'py, PyString>>),
}

impl<'py> ObjectSink<'_, 'py, '_> {
    /// `value` into `parent` (or as the root); duplicate keys: the last value wins.
    fn place(
        &mut self,
        parent: Option<&mut OpenObject<'py>>,
        value: Bound<'py, PyAny>,
    ) -> Option<()> {
        match parent {
            None => self.root = Some(value),
            Some(OpenObject::List(_)) => self.items.push(value),
            Some(OpenObject::Dict(dict, key)) => {
                let key = key.take()?;
                self.ok(dict.set_item(key, value))?;
            }
        }
        Some(())
    }

    fn ok<T>(&mut self, result: PyResult<T>) -> Option<T> {
        result.map_err(|err| self.error = Some(err)).ok()
    }
}

impl<'py> Sink for ObjectSink<'_, 'py, '_> {
    type Open = OpenObject<'py>;

    fn owned(&mut self) -> &mut String {
        &mut self.unescaped
    }

    fn open(&mut self, object: bool) -> Option<OpenObject<'py>> {
        Some(if object {
            OpenObject::Dict(PyDict::new(self.builder.py), None)
        } else {
            OpenObject::List(self.items.len())
        })
    }

    fn key(&mut self, open: &mut OpenObject<'py>, key: Text) -> Option<()> {
        if let OpenObject::Dict(_, slot) = open {
            *slot = Some(self.builder.key(key.resolve(self.source, &self.unescaped)));
        }
        self.unescaped.clear();
        Some(())
    }

    fn value(&mut self, parent: Option<&mut OpenObject<'py>>, value: Token) -> Option<()> {
        let (source, unescaped) = (self.source, &self.unescaped);
        let value = match value {
            Token::Str(text) => {
                new_str(self.builder.py, text.resolve(source, unescaped)).into_any()
            }
            Token::BigInt(digits) if is_too_long_int(digits.resolve(source, unescaped)) => {
                return None
            }
            scalar => {
                let value = self.builder.scalar(&scalar, source, unescaped);
                self.ok(value)?
            }
        };
        self.unescaped.clear();
        self.place(parent, value)
    }

    fn close(
        &mut self,
        open: OpenObject<'py>,
        _: u32,
        parent: Option<&mut OpenObject<'py>>,
    ) -> Option<()> {
        let value = match open {
            OpenObject::List(start) => {
                let list = PyList::new(self.builder.py, self.items.drain(start..));
                self.ok(list)?.into_any()
            }
            OpenObject::Dict(dict, _) => dict.into_any(),
        };
        self.place(parent, value)
    }
}

/// `(arguments, raw_arguments)` of a call's arguments; `tape` is the response's, which
/// `Object` and `Other` point into (arguments of a stream have none).
pub fn arguments_pair<'py>(
    b: &mut Builder<'py>,
    tape: Option<&Tape<'_>>,
    arguments: &Arguments<'_>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let py = b.py;
    Ok(match (arguments, tape) {
        (Arguments::Missing, _) => (b.empty_dict(), py.None().into_bound(py)),
        (Arguments::Object(idx), Some(tape)) => (b.object(tape, *idx)?.0, py.None().into_bound(py)),
        (Arguments::Decoded(args), _) => (b.object(args, 0)?.0, py.None().into_bound(py)),
        (Arguments::Undecodable(text) | Arguments::Verbatim(text), _) => {
            (b.empty_dict(), new_str(py, text).into_any())
        }
        (Arguments::Other(idx), Some(tape)) => {
            let value = b.value(tape, *idx)?.0;
            b.kept_as_text(&value)?
        }
        (Arguments::Value(value), _) => {
            let value = b.value(value, 0)?.0;
            b.kept_as_text(&value)?
        }
        (Arguments::Encoded(idx), Some(tape)) => {
            let text = tape.str_at(*idx).unwrap_or_default();
            match object_of_text(b, text)? {
                Some(args) => (args.into_any(), py.None().into_bound(py)),
                None => (b.empty_dict(), new_str(py, text).into_any()),
            }
        }
        (Arguments::Object(_) | Arguments::Other(_) | Arguments::Encoded(_), None) => {
            (b.empty_dict(), py.None().into_bound(py))
        }
    })
}

/// `(arguments, raw_arguments)` for an arguments value given as a Python object.
pub(super) fn arguments_of_object<'py>(
    b: &mut Builder<'py>,
    value: Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let py = b.py;
    if let Ok(dict) = value.cast::<PyDict>() {
        return Ok((dict.copy()?.into_any(), py.None().into_bound(py)));
    }
    if let Ok(text) = value.cast::<PyString>() {
        let decoded = match text.to_str() {
            Ok(text) => object_of_text(b, text)?,
            Err(_) => None, // lone surrogates: not JSON text
        };
        return Ok(match decoded {
            Some(args) => (args.into_any(), py.None().into_bound(py)),
            None => (b.empty_dict(), value),
        });
    }
    if value.cast::<PyMapping>().is_ok() {
        // Any other mapping (an older SDK's proto map): `dict(value)`, as the pure backend.
        let copy = py.get_type::<PyDict>().call1((&value,))?;
        return Ok((copy, py.None().into_bound(py)));
    }
    b.kept_as_text(&value)
}
