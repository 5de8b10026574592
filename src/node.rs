//! The one view the format walkers read through: a decoded JSON document on a tape, or
//! (in the PyO3 layer) the caller's own Python dicts, lists and SDK objects.

use crate::json::{Tape, Token};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::convert::Infallible;

/// A value inside a response. Reads never fail on the tape; on Python objects an
/// attribute read can raise, which is the `Error`.
pub trait Node: Sized + Clone {
    type Error;

    /// `obj[key]` for an object, `obj.key` for an SDK object; None where missing or null.
    fn field(&self, key: &str) -> Result<Option<Self>, Self::Error>;
    /// `obj[key]` for an object only; None where missing or null.
    fn member(&self, key: &str) -> Result<Option<Self>, Self::Error>;
    /// The items of an array (or Python list/tuple), in order.
    type Elements: Iterator<Item = Self>;
    /// The items of an array (or Python list/tuple); nothing for anything else.
    fn elements(&self) -> Self::Elements;
    fn is_array(&self) -> bool;
    fn is_object(&self) -> bool;
    /// An object of exactly one member (a dict of one key).
    fn single_member(&self) -> bool;
    /// A string with at least one character.
    fn is_nonempty_str(&self) -> bool;
    /// A string equal to `text` (a block's `type`, say).
    fn is_str(&self, text: &str) -> bool;
    /// A string's text (stream fragments, names and ids are kept past the event); an
    /// error for a Python `str` that is not Unicode text Rust can hold (lone surrogates).
    fn text(&self) -> Result<Option<String>, Self::Error>;
    /// A string that names a kind (an event's `type`): its text. A Python `str` Rust
    /// cannot hold (lone surrogates), where `text` is an error, with each surrogate
    /// replaced by U+FFFD: it equals no kind a reader knows, and starts with what the
    /// `str` starts with, as the pure backend compares it.
    fn kind(&self) -> Result<Option<String>, Self::Error> {
        self.text()
    }
    fn is_bool(&self) -> bool;
    /// Binary data's bytes (a Python `bytes` or `bytearray`); JSON holds none.
    fn blob(&self) -> Result<Option<Vec<u8>>, Self::Error>;
    /// An integer of any size (not a bool): an index.
    fn index(&self) -> Result<Option<Index>, Self::Error>;
    /// The value as compact JSON text (a whole arguments value kept past the event).
    fn to_json(&self) -> Result<String, Self::Error>;
}

/// A value on a tape.
#[derive(Clone, Copy, Debug)]
pub struct TapeNode<'t, 'a> {
    pub tape: &'t Tape<'a>,
    pub idx: usize,
}

/// The items of an array on a tape, read as they are asked for (no vector of them).
pub struct TapeElements<'t, 'a> {
    tape: &'t Tape<'a>,
    /// The next item's token; `end` past the last.
    idx: usize,
    end: usize,
}

impl<'t, 'a> Iterator for TapeElements<'t, 'a> {
    type Item = TapeNode<'t, 'a>;

    fn next(&mut self) -> Option<TapeNode<'t, 'a>> {
        if self.idx >= self.end {
            return None;
        }
        let item = TapeNode {
            tape: self.tape,
            idx: self.idx,
        };
        self.idx = self.tape.skip(self.idx);
        Some(item)
    }
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

    /// The value of the last `key` member of an object, null included (duplicate keys:
    /// the last one wins, as in Python's `json.loads`); None for anything else. The one
    /// member lookup on a tape: [`Node::member`] is this with null as missing.
    pub fn get(&self, key: &str) -> Option<Self> {
        let Token::Object { end, .. } = *self.token() else {
            return None;
        };
        let mut found = None;
        let mut idx = self.idx + 1;
        while idx < end as usize {
            let value = idx + 1;
            if self.tape.str_is(idx, key) {
                found = Some(value);
            }
            idx = self.tape.skip(value);
        }
        found.map(|idx| self.at(idx))
    }

    /// Whether the object has the member `key` (null values included).
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// `obj.get(key)` with null as missing, as an index on the tape.
    pub fn value(&self, key: &str) -> Option<usize> {
        let Ok(found) = self.member(key);
        found.map(|node| node.idx)
    }

    /// A provider's error value as one line of text (`describe` in the pure backend):
    /// a string as it is, an object's `message` (after its `code`, where it has one),
    /// else the compact JSON of the value.
    pub fn describe(&self) -> String {
        self.describe_with(("message", "code"))
    }

    /// [`describe`](Self::describe) of an error whose message and code are under other
    /// keys.
    pub fn describe_with(&self, (message_key, code_key): (&str, &str)) -> String {
        let tape = self.tape;
        if let Some(text) = self.as_str() {
            return text.to_owned();
        }
        if self.is_object() {
            if let Some(message) = self.value(message_key).and_then(|m| tape.str_at(m)) {
                let code = self.value(code_key).map(|c| &tape.tokens[c]);
                return match code {
                    Some(Token::Str(text)) => format!("{}: {message}", tape.text(text)),
                    Some(Token::Int(i)) => format!("{i}: {message}"),
                    Some(Token::UInt(u)) => format!("{u}: {message}"),
                    Some(Token::BigInt(digits)) => format!("{}: {message}", tape.text(digits)),
                    _ => message.to_owned(),
                };
            }
        }
        crate::compact::to_string(tape, self.idx)
    }

    fn at(&self, idx: usize) -> Self {
        TapeNode {
            tape: self.tape,
            idx,
        }
    }
}

impl<'t, 'a> Node for TapeNode<'t, 'a> {
    type Error = Infallible;

    fn field(&self, key: &str) -> Result<Option<Self>, Infallible> {
        self.member(key)
    }

    fn member(&self, key: &str) -> Result<Option<Self>, Infallible> {
        Ok(self
            .get(key)
            .filter(|node| !matches!(node.token(), Token::Null)))
    }

    type Elements = TapeElements<'t, 'a>;

    fn elements(&self) -> TapeElements<'t, 'a> {
        let (idx, end) = match *self.token() {
            Token::Array { end, .. } => (self.idx + 1, end as usize),
            _ => (self.idx, self.idx),
        };
        TapeElements {
            tape: self.tape,
            idx,
            end,
        }
    }

    fn is_array(&self) -> bool {
        matches!(self.token(), Token::Array { .. })
    }

    fn is_object(&self) -> bool {
        matches!(self.token(), Token::Object { .. })
    }

    fn single_member(&self) -> bool {
        match *self.token() {
            // The first key, its value, then the end: one member.
            Token::Object { end, .. } => {
                end as usize > self.idx + 1 && self.tape.skip(self.idx + 2) == end as usize
            }
            _ => false,
        }
    }

    fn is_nonempty_str(&self) -> bool {
        self.as_str().is_some_and(|s| !s.is_empty())
    }

    fn is_str(&self, text: &str) -> bool {
        self.tape.str_is(self.idx, text)
    }

    fn text(&self) -> Result<Option<String>, Infallible> {
        Ok(self.as_str().map(str::to_owned))
    }

    fn is_bool(&self) -> bool {
        matches!(self.token(), Token::Bool(_))
    }

    fn blob(&self) -> Result<Option<Vec<u8>>, Infallible> {
        Ok(None)
    }

    fn index(&self) -> Result<Option<Index>, Infallible> {
        Ok(match self.token() {
            Token::Int(i) => Some(Index::Int(*i)),
            Token::UInt(u) => Some(Index::of_magnitude(false, &u.to_be_bytes())),
            Token::BigInt(digits) => Index::of_decimal(self.tape.text(digits)),
            _ => None,
        })
    }

    fn to_json(&self) -> Result<String, Infallible> {
        Ok(crate::compact::to_json(self.tape, self.idx))
    }
}

/// [`TapeNode::value`] of the object at `obj`: its `key` member, null as missing.
pub fn value(tape: &Tape<'_>, obj: usize, key: &str) -> Option<usize> {
    TapeNode { tape, idx: obj }.value(key)
}

/// [`TapeNode::has`] of the object at `obj`: whether it has the member `key`.
pub fn has(tape: &Tape<'_>, obj: usize, key: &str) -> bool {
    TapeNode { tape, idx: obj }.has(key)
}

/// Where the response of a record is on its tape (found inside a batch envelope, at a
/// `record_path`, or the record itself), or why there is none; and the custom id.
#[derive(Debug)]
pub struct Located<'a> {
    pub response: Result<usize, String>,
    pub custom_id: Option<Cow<'a, str>>,
}

/// An integer index of any size, ordered by value: Python's ints are unbounded, and the
/// pure backend keys stream calls by the index as given, so one beyond 64 bits is kept
/// exactly rather than dropped.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Index {
    Int(i64),
    /// Outside `i64`: the sign, and the magnitude as big-endian bytes without leading
    /// zeros (so a longer magnitude is a larger one).
    Big {
        negative: bool,
        magnitude: Box<[u8]>,
    },
}

impl From<i64> for Index {
    fn from(value: i64) -> Self {
        Index::Int(value)
    }
}

impl Index {
    /// The integer of this sign and magnitude (big-endian bytes).
    pub fn of_magnitude(negative: bool, magnitude: &[u8]) -> Index {
        let start = magnitude
            .iter()
            .position(|&b| b != 0)
            .unwrap_or(magnitude.len());
        let magnitude = &magnitude[start..];
        if magnitude.len() <= 8 {
            let value = magnitude.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b));
            let signed = if negative {
                0i64.checked_sub_unsigned(value)
            } else {
                i64::try_from(value).ok()
            };
            if let Some(signed) = signed {
                return Index::Int(signed);
            }
        }
        Index::Big {
            negative,
            magnitude: magnitude.into(),
        }
    }

    /// The integer written in decimal (`-` and digits, as JSON writes it).
    pub fn of_decimal(text: &str) -> Option<Index> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(digits) => (true, digits),
            None => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut little = Vec::<u8>::new(); // the magnitude, least significant byte first
        for digit in digits.bytes() {
            let mut carry = u32::from(digit - b'0');
            for byte in &mut little {
                let value = u32::from(*byte) * 10 + carry;
                *byte = value as u8;
                carry = value >> 8;
            }
            if carry > 0 {
                little.push(carry as u8);
            }
        }
        little.reverse();
        Some(Index::of_magnitude(negative, &little))
    }

    /// The next integer (`self + 1`).
    pub fn next(&self) -> Index {
        match self {
            Index::Int(value) => match value.checked_add(1) {
                Some(next) => Index::Int(next),
                None => Index::of_magnitude(false, &(1u64 << 63).to_be_bytes()),
            },
            Index::Big {
                negative,
                magnitude,
            } => {
                let mut bytes = magnitude.to_vec();
                // A larger magnitude for a positive number, a smaller one for a negative.
                for byte in bytes.iter_mut().rev() {
                    let (value, carried) = if *negative {
                        byte.overflowing_sub(1)
                    } else {
                        byte.overflowing_add(1)
                    };
                    *byte = value;
                    if !carried {
                        break;
                    }
                }
                if !negative && bytes.iter().all(|&b| b == 0) {
                    bytes.insert(0, 1);
                }
                Index::of_magnitude(*negative, &bytes)
            }
        }
    }
}

impl Ord for Index {
    fn cmp(&self, other: &Self) -> Ordering {
        // -1 for a negative big integer, 0 for one that fits, 1 for a positive big one.
        let rank = |index: &Index| match index {
            Index::Int(_) => 0,
            Index::Big { negative, .. } => {
                if *negative {
                    -1
                } else {
                    1
                }
            }
        };
        match (self, other) {
            (Index::Int(a), Index::Int(b)) => a.cmp(b),
            (
                Index::Big {
                    negative,
                    magnitude: a,
                },
                Index::Big { magnitude: b, .. },
            ) if rank(self) == rank(other) => {
                let by_magnitude = (a.len(), a).cmp(&(b.len(), b));
                if *negative {
                    by_magnitude.reverse()
                } else {
                    by_magnitude
                }
            }
            _ => rank(self).cmp(&rank(other)),
        }
    }
}

impl PartialOrd for Index {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::Index;

    #[test]
    fn indices_of_any_size_keep_their_order() {
        let two_63 = "9223372036854775808";
        let values = [
            "-1180591620717411303424",
            "-9223372036854775809",
            "-9223372036854775808",
            "-1",
            "0",
            "9223372036854775807",
            two_63,
            "18446744073709551616",
            "1180591620717411303424",
        ];
        let indices: Vec<Index> = values
            .iter()
            .map(|v| Index::of_decimal(v).unwrap())
            .collect();
        assert_eq!(indices[2], Index::Int(i64::MIN));
        assert_eq!(indices[5], Index::Int(i64::MAX));
        assert!(indices.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(indices[5].next(), indices[6]);
        assert_eq!(indices[1].next(), indices[2]);
        assert_eq!(Index::of_decimal("255").unwrap().next(), Index::Int(256));
        assert_eq!(
            Index::of_decimal("18446744073709551615").unwrap().next(),
            indices[7]
        );
    }
}
