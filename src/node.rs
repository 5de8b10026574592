//! The one view the format walkers read through: a decoded JSON document on a tape, or
//! (in the PyO3 layer) the caller's own Python dicts, lists and SDK objects.

use crate::json::{Tape, Token};
use std::convert::Infallible;

/// A value inside a response. Reads never fail on the tape; on Python objects an
/// attribute read can raise, which is the `Error`.
pub trait Node: Sized {
    type Error;

    /// `obj[key]` for an object, `obj.key` for an SDK object; None where missing or null.
    fn field(&self, key: &str) -> Result<Option<Self>, Self::Error>;
    /// `obj[key]` for an object only; None where missing or null.
    fn member(&self, key: &str) -> Result<Option<Self>, Self::Error>;
    /// The items of an array (or Python list/tuple); nothing for anything else.
    fn elements(&self) -> Vec<Self>;
    fn is_array(&self) -> bool;
    fn is_object(&self) -> bool;
    /// A string with at least one character.
    fn is_nonempty_str(&self) -> bool;
    /// A string equal to `text` (a block's `type`, say).
    fn is_str(&self, text: &str) -> bool;
    /// A string's text (stream fragments, names and ids are kept past the event).
    fn text(&self) -> Option<String>;
    fn is_bool(&self) -> bool;
    /// An integer that fits in 64 bits (not a bool): an index.
    fn int(&self) -> Option<i64>;
    /// The value as compact JSON text (a whole arguments value kept past the event).
    fn to_json(&self) -> Result<String, Self::Error>;
}

/// A value on a tape.
#[derive(Clone, Copy, Debug)]
pub struct TapeNode<'t, 'a> {
    pub tape: &'t Tape<'a>,
    pub idx: usize,
}

impl<'t, 'a> TapeNode<'t, 'a> {
    pub fn root(tape: &'t Tape<'a>) -> Self {
        TapeNode { tape, idx: 0 }
    }

    pub fn token(&self) -> &'t Token {
        &self.tape.tokens[self.idx]
    }

    pub fn as_str(&self) -> Option<&'t str> {
        self.tape.str_at(self.idx)
    }

    /// The keys of an object, in order (duplicates too); none for anything else.
    pub fn keys(&self) -> Vec<&'t str> {
        let Token::Object { len, end } = *self.token() else {
            return Vec::new();
        };
        let mut keys = Vec::with_capacity(len as usize);
        let mut idx = self.idx + 1;
        while idx < end as usize {
            keys.extend(self.tape.str_at(idx));
            idx = self.tape.skip(idx + 1);
        }
        keys
    }

    fn at(&self, idx: usize) -> Self {
        TapeNode {
            tape: self.tape,
            idx,
        }
    }
}

impl Node for TapeNode<'_, '_> {
    type Error = Infallible;

    fn field(&self, key: &str) -> Result<Option<Self>, Infallible> {
        self.member(key)
    }

    fn member(&self, key: &str) -> Result<Option<Self>, Infallible> {
        let Token::Object { end, .. } = *self.token() else {
            return Ok(None);
        };
        // Duplicate keys: the last one wins, as in Python's json.loads.
        let mut found = None;
        let mut idx = self.idx + 1;
        while idx < end as usize {
            let value = idx + 1;
            if self.tape.str_at(idx) == Some(key) {
                found = Some(value);
            }
            idx = self.tape.skip(value);
        }
        Ok(found
            .map(|idx| self.at(idx))
            .filter(|node| !matches!(node.token(), Token::Null)))
    }

    fn elements(&self) -> Vec<Self> {
        let Token::Array { len, end } = *self.token() else {
            return Vec::new();
        };
        let mut items = Vec::with_capacity(len as usize);
        let mut idx = self.idx + 1;
        while idx < end as usize {
            items.push(self.at(idx));
            idx = self.tape.skip(idx);
        }
        items
    }

    fn is_array(&self) -> bool {
        matches!(self.token(), Token::Array { .. })
    }

    fn is_object(&self) -> bool {
        matches!(self.token(), Token::Object { .. })
    }

    fn is_nonempty_str(&self) -> bool {
        self.as_str().is_some_and(|s| !s.is_empty())
    }

    fn is_str(&self, text: &str) -> bool {
        self.as_str() == Some(text)
    }

    fn text(&self) -> Option<String> {
        self.as_str().map(str::to_owned)
    }

    fn is_bool(&self) -> bool {
        matches!(self.token(), Token::Bool(_))
    }

    fn int(&self) -> Option<i64> {
        match *self.token() {
            Token::Int(i) => Some(i),
            Token::UInt(u) => i64::try_from(u).ok(),
            _ => None,
        }
    }

    fn to_json(&self) -> Result<String, Infallible> {
        Ok(crate::bulk::compact::to_json(self.tape, self.idx))
    }
}
