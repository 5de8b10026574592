//! Argument strings straight to Python objects, on the thread that holds the GIL: one
//! pass of serde_json, no tape in between. The JSON semantics are the tape's
//! (`crate::json`): exact integers of any size, floats from their text, duplicate keys
//! last-wins (in the first key's place, as `json.loads`), nesting deeper than
//! [`json::MAX_DEPTH`] refused, deep input never overflowing the stack.

use super::build::Builder;
use crate::json::{self, is_number_key_of, number_token, NumberText, Token};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// The dict that `text` is the JSON text of; `None` when it is not JSON, or not an
/// object (the caller keeps the text). Errors are Python's own (out of memory, say).
pub fn object_of_text<'py>(
    b: &mut Builder<'py>,
    text: &str,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    // Only an object will do: anything else is kept as text, valid JSON or not.
    if text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .as_bytes()
        .first()
        != Some(&b'{')
    {
        return Ok(None);
    }
    let mut failure = None;
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit(); // our own depth counter enforces MAX_DEPTH
    let value = Value {
        b,
        text,
        depth: 0,
        failure: &mut failure,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value));
    match (value, failure) {
        (_, Some(err)) => Err(err),
        (Ok(value), None) => Ok(value.cast_into::<PyDict>().ok()),
        (Err(_), None) => Ok(None),
    }
}

/// Builds one value (and everything inside it).
struct Value<'s, 'py> {
    b: &'s mut Builder<'py>,
    /// The text being parsed (to tell serde_json's number hand-over from a key).
    text: &'s str,
    depth: usize,
    /// Where a Python error is kept while serde_json unwinds with a plain one.
    failure: &'s mut Option<PyErr>,
}

impl<'py> Value<'_, 'py> {
    fn child(&mut self) -> Value<'_, 'py> {
        Value {
            b: self.b,
            text: self.text,
            depth: self.depth,
            failure: self.failure,
        }
    }

    fn enter<E: de::Error>(&mut self) -> Result<(), E> {
        json::enter(&mut self.depth)
    }

    /// The Python value of a number, bool or null.
    fn scalar<E: de::Error>(mut self, token: Token) -> Result<Bound<'py, PyAny>, E> {
        let value = self.b.scalar(&token);
        self.python(value)
    }

    /// `result`'s value, or a serde error after keeping the Python one.
    fn python<T, E: de::Error>(&mut self, result: PyResult<T>) -> Result<T, E> {
        result.map_err(|err| {
            *self.failure = Some(err);
            E::custom("Python error")
        })
    }
}

impl<'de, 'py> DeserializeSeed<'de> for Value<'_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        // Grow the stack on the heap when deep nesting would otherwise overflow it.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            deserializer.deserialize_any(self)
        })
    }
}

impl<'de, 'py> Visitor<'de> for Value<'_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.scalar(Token::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        self.scalar(Token::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.scalar(Token::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.scalar(Token::UInt(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        self.scalar(Token::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(PyString::new(self.b.py, v).into_any())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Self::Value, A::Error> {
        self.enter()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.child())? {
            items.push(item);
        }
        let list = PyList::new(self.b.py, items);
        Ok(self.python(list)?.into_any())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self::Value, A::Error> {
        let dict = PyDict::new(self.b.py);
        let mut first = true;
        while let Some(key) = map.next_key_seed(Key {
            b: &mut *self.b,
            text: self.text,
        })? {
            let key = match key {
                KeyOf::Key(key) => key,
                KeyOf::Number if first => {
                    // Not an object: serde_json's hand-over of a number it did not convert.
                    let text: Cow<'de, str> = map.next_value_seed(NumberText)?;
                    if json::is_too_long_int(&text) {
                        // Python refuses to convert it (json.loads too): not decodable.
                        return Err(de::Error::custom("integer too long"));
                    }
                    return self.scalar(number_token(&text));
                }
                KeyOf::Number => return Err(de::Error::custom("number token inside an object")),
            };
            if first {
                self.enter()?;
                first = false;
            }
            let value = map.next_value_seed(self.child())?;
            let stored = dict.set_item(key, value);
            self.python(stored)?;
        }
        if first {
            self.enter()?; // `{}` counts as a level too, as on the tape
        }
        Ok(dict.into_any())
    }
}

/// An object key (from the key cache), or serde_json's number hand-over.
enum KeyOf<'py> {
    Key(Bound<'py, PyString>),
    Number,
}

struct Key<'s, 'py> {
    b: &'s mut Builder<'py>,
    text: &'s str,
}

impl<'de, 'py> DeserializeSeed<'de> for Key<'_, 'py> {
    type Value = KeyOf<'py>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, 'py> Visitor<'de> for Key<'_, 'py> {
    type Value = KeyOf<'py>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        if is_number_key_of(self.text, v) {
            return Ok(KeyOf::Number);
        }
        Ok(KeyOf::Key(self.b.key(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(KeyOf::Key(self.b.key(v)))
    }
}
