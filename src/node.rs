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
    /// The items of an array as a walk that must see every one reads them (a Python
    /// list subclass through its own `__iter__`, its error raised); nothing for anything
    /// else. By default [`elements`](Self::elements) (on a tape, read as they are asked
    /// for).
    fn items(&self) -> Result<Self::Elements, Self::Error> {
        Ok(self.elements())
    }
    /// The values of an object's members.
    type Values: Iterator<Item = Self>;
    /// The values of an object's members as Python's `dict.values()` gives them (a
    /// duplicate key's value is the last one, in the first one's place; a subclass
    /// through its own `values`); nothing for anything else.
    fn member_values(&self) -> Result<Self::Values, Self::Error>;
    fn is_array(&self) -> bool;
    /// An array as auto-detection sees one: a JSON array, a Python `list` only (the pure
    /// twin's detection does not take a tuple for an array).
    fn is_list(&self) -> bool {
        self.is_array()
    }
    fn is_object(&self) -> bool;
    /// Whether an object has the member `key`, null values included.
    fn has_key(&self, key: &str) -> Result<bool, Self::Error>;
    /// [`member`](Self::member) as auto-detection reads it: an error (a Python `dict`
    /// subclass's `get` raising) reads as missing, so the shape is not recognized.
    fn probe(&self, key: &str) -> Option<Self> {
        self.member(key).ok().flatten()
    }
    /// Whether every key of an object is one of `allowed` (Python's `obj.keys() <=
    /// set(allowed)`, through a subclass's own `keys`).
    fn keys_within(&self, allowed: &[&str]) -> Result<bool, Self::Error>;
    /// An object of exactly one member (a dict of one key).
    fn single_member(&self) -> bool;
    /// A string with at least one character.
    fn is_nonempty_str(&self) -> bool;
    /// A string equal to `text` (a block's `type`, say).
    fn is_str(&self, text: &str) -> bool;
    /// Any string (empty too).
    fn is_string(&self) -> bool;
    /// A string equal to one of `texts`.
    fn str_in(&self, texts: &[&str]) -> bool {
        texts.iter().any(|text| self.is_str(text))
    }
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
    /// An integer of the exact integer type (not a bool, not a subclass) equal to `value`
    /// (Python's `type(v) is int and v == value`).
    fn is_int(&self, value: i64) -> bool;
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

/// The values of an object's members on a tape (see [`Node::member_values`]).
pub struct TapeValues<'t, 'a> {
    tape: &'t Tape<'a>,
    /// (key, value) token indices, a duplicate key's value the last one.
    members: std::vec::IntoIter<(usize, usize)>,
}

impl<'t, 'a> Iterator for TapeValues<'t, 'a> {
    type Item = TapeNode<'t, 'a>;

    fn next(&mut self) -> Option<TapeNode<'t, 'a>> {
        let (_, idx) = self.members.next()?;
        Some(TapeNode {
            tape: self.tape,
            idx,
        })
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
        self.tape.member(self.idx, key).map(|idx| self.at(idx))
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

    type Values = TapeValues<'t, 'a>;

    fn member_values(&self) -> Result<TapeValues<'t, 'a>, Infallible> {
        let members = match *self.token() {
            Token::Object { len, end } => self.tape.members(self.idx, (len as usize, end as usize)),
            _ => Vec::new(),
        };
        Ok(TapeValues {
            tape: self.tape,
            members: members.into_iter(),
        })
    }

    fn is_array(&self) -> bool {
        matches!(self.token(), Token::Array { .. })
    }

    fn is_object(&self) -> bool {
        matches!(self.token(), Token::Object { .. })
    }

    fn keys_within(&self, allowed: &[&str]) -> Result<bool, Infallible> {
        Ok(self.keys().iter().all(|key| allowed.contains(key)))
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

    fn is_string(&self) -> bool {
        self.as_str().is_some()
    }

    fn has_key(&self, key: &str) -> Result<bool, Infallible> {
        Ok(self.has(key))
    }

    fn text(&self) -> Result<Option<String>, Infallible> {
        Ok(self.as_str().map(str::to_owned))
    }

    fn is_bool(&self) -> bool {
        matches!(self.token(), Token::Bool(_))
    }

    fn is_int(&self, value: i64) -> bool {
        *self.token() == Token::Int(value)
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

/// Where the response of a record is, a value of any [`Node`] (found inside a batch
/// envelope, at a `record_path`, or the record itself), or why there is none; and the
/// custom id (a string). [`Located`] is this on a tape, with the failure phrased.
pub struct Envelope<N> {
    pub response: Result<N, Failure<N>>,
    pub custom_id: Option<N>,
}

impl<N> Envelope<N> {
    pub fn found(response: N, custom_id: Option<N>) -> Self {
        Envelope {
            response: Ok(response),
            custom_id,
        }
    }

    pub fn failed(failure: Failure<N>, custom_id: Option<N>) -> Self {
        Envelope {
            response: Err(failure),
            custom_id,
        }
    }
}

/// Why a record has no response: each phrased as the pure `locate` phrases it, on a tape
/// by [`Failure::message`], for Python objects by the binding (whose strings a Rust
/// string cannot always hold).
pub enum Failure<N> {
    /// `nothing at record_path A.B`
    NothingAtPath,
    /// `batch record has no response`
    NoResponse,
    /// `batch record has no response body`
    NoBody,
    /// `batch canceled`
    Canceled,
    /// `batch expired`
    Expired,
    /// `batch error: ` and the error value (None: missing) as the describer says it.
    Error(Option<N>, &'static Describer),
    /// `HTTP STATUS` (compact JSON), then `: ` and the detail described, where there is one.
    Http(N, Option<N>),
    /// `unknown batch result type: KIND` (compact JSON; `null` where missing).
    UnknownKind(Option<N>),
}

/// How an envelope's error value is said: on a tape, and by the pure twin (the module and
/// the function that say it for Python objects).
pub struct Describer {
    pub tape: fn(Option<TapeNode<'_, '_>>) -> String,
    pub pure: (&'static str, &'static str),
}

/// An error value as [`TapeNode::describe`] says it (the pure `nodes.describe`).
pub static DESCRIBE: Describer = Describer {
    tape: |error| error.map_or_else(|| "null".to_owned(), |error| error.describe()),
    pure: ("toolsift._pure.nodes", "describe"),
};

impl Failure<TapeNode<'_, '_>> {
    /// The failure's text (`path`: the record path looked at).
    pub fn message(self, path: Option<&[String]>) -> String {
        let compact = |node: TapeNode<'_, '_>| crate::compact::to_string(node.tape, node.idx);
        match self {
            Failure::NothingAtPath => {
                format!(
                    "nothing at record_path {}",
                    path.unwrap_or_default().join(".")
                )
            }
            Failure::NoResponse => "batch record has no response".to_owned(),
            Failure::NoBody => "batch record has no response body".to_owned(),
            Failure::Canceled => "batch canceled".to_owned(),
            Failure::Expired => "batch expired".to_owned(),
            Failure::Error(error, describer) => format!("batch error: {}", (describer.tape)(error)),
            Failure::Http(status, None) => format!("HTTP {}", compact(status)),
            Failure::Http(status, Some(detail)) => {
                format!("HTTP {}: {}", compact(status), detail.describe())
            }
            Failure::UnknownKind(kind) => format!(
                "unknown batch result type: {}",
                kind.map_or_else(|| "null".to_owned(), compact)
            ),
        }
    }
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
