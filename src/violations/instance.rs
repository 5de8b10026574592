//! A call's arguments as the validator's instance (`Validator<Args>`): read by the
//! project's own pass ([`json::scan_plain`]) into a flat list of items pointing into the
//! text, so that checking a call that fits builds no `serde_json::Value` and allocates
//! nothing per key (the item list and unescaped text are buffers kept per thread). It
//! answers the validator as the `Value` of the same text does, by construction where it
//! can be (tests compare both on every vector and on edge texts):
//!
//! * a number keeps its JSON text, and answers as `serde_json::Number` does with
//!   `arbitrary_precision` (whose number *is* its text, the exponent written `e+2` for
//!   `1E2`): the same parse of the same text (`as_u64`, `as_i64`, `as_f64`), and
//!   `is_integer` / `is_written_as_integer` as `jsonschema-value` derives them from it;
//! * strings are unescaped as serde_json unescapes them (the pass reads as it does);
//! * `enum` / `const` compare as `jsonschema-value`'s `cmp::equal` compares the `Value`;
//!   what needs a `Value` (an error's instance, `uniqueItems`) gets the one serde_json
//!   builds;
//! * text the pass does not read (not JSON, a lone surrogate escape, nesting deeper than
//!   64) and an object with a duplicate key (the `Value` keeps the last) are not read
//!   here ([`Doc::parse`] gives None): the caller checks their `Value`.

use crate::json::{self, Sink, Text, Token};
use jsonschema::json::{cmp, Array, Json, JsonNumber, Node, NodeIdentity, Object};
use jsonschema::types::JsonType;
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::cell::Cell;
use std::ops::ControlFlow;

/// One value of the arguments, or the start of a container whose contents follow it.
#[derive(Debug, Clone, Copy)]
enum Item {
    Null,
    Bool(bool),
    /// Its JSON text (a range of the source).
    Number(Text),
    Str(Text),
    /// `len` items follow; `end` is the index just past the last of them.
    Array {
        len: u32,
        end: u32,
    },
    /// `len` key/value pairs follow (each key a `Str`), no key twice; `end` as for arrays.
    Object {
        len: u32,
        end: u32,
    },
}

/// The buffers a [`Doc`] reads into, kept between calls.
#[derive(Default)]
pub struct Scratch {
    items: Vec<Item>,
    owned: String,
}

thread_local! {
    static SCRATCH: Cell<Scratch> = Cell::new(Scratch::default());
}

/// Runs `f` with this thread's buffers (fresh ones while a call on this thread has them).
pub fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    let mut scratch = SCRATCH.take();
    let result = f(&mut scratch);
    SCRATCH.set(scratch);
    result
}

/// The arguments read: `items[0]` is the root. Strings point into `source`, or into
/// `owned` (those that had escapes, unescaped).
pub struct Doc<'a> {
    source: &'a str,
    owned: String,
    items: Vec<Item>,
}

impl<'a> Doc<'a> {
    /// `text` read into `scratch`'s buffers (given back by [`Doc::into_scratch`]); None
    /// for what is left to the `Value` (see the module's docs).
    pub fn parse(text: &'a str, scratch: &mut Scratch) -> Option<Doc<'a>> {
        let mut doc = Doc {
            source: text,
            owned: std::mem::take(&mut scratch.owned),
            items: std::mem::take(&mut scratch.items),
        };
        doc.items.clear();
        doc.owned.clear();
        if u32::try_from(text.len()).is_ok() && json::scan_plain(text, &mut doc).is_some() {
            return Some(doc);
        }
        doc.into_scratch(scratch);
        None
    }

    /// Gives the buffers back.
    pub fn into_scratch(self, scratch: &mut Scratch) {
        scratch.items = self.items;
        scratch.owned = self.owned;
    }

    /// The root value.
    pub fn root(&self) -> ArgNode<'_> {
        ArgNode { doc: self, idx: 0 }
    }

    fn text(&self, text: &Text) -> &str {
        text.resolve(self.source, &self.owned)
    }

    /// The index just past the value at `idx`.
    fn skip(&self, idx: usize) -> usize {
        match self.items[idx] {
            Item::Array { end, .. } | Item::Object { end, .. } => end as usize,
            _ => idx + 1,
        }
    }

    /// The key at `idx`.
    fn key(&self, idx: usize) -> &str {
        match &self.items[idx] {
            Item::Str(text) => self.text(text),
            _ => "",
        }
    }

    /// Whether the object at `at`, ending before `end`, has a key twice. Keys are told
    /// apart by a signature first (their length and end bytes: no hashing), compared
    /// whole only where two signatures agree.
    fn has_duplicate_key(&self, at: usize, end: usize) -> bool {
        let mut seen = [0u64; 16];
        let (mut count, mut key) = (0, at + 1);
        while key < end {
            if count == seen.len() {
                return self.has_duplicate_key_hashed(at, end);
            }
            let signature = match self.items[key] {
                Item::Str(Text::Source { start, len }) => {
                    let (start, len) = (start as usize, len as usize);
                    signature(&self.source.as_bytes()[start..start + len])
                }
                _ => signature(self.key(key).as_bytes()),
            };
            if seen[..count].contains(&signature) {
                return self.has_duplicate_key_hashed(at, end);
            }
            seen[count] = signature;
            count += 1;
            key = self.skip(key + 1);
        }
        false
    }

    fn has_duplicate_key_hashed(&self, at: usize, end: usize) -> bool {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut key = at + 1;
        while key < end {
            if !seen.insert(self.key(key)) {
                return true;
            }
            key = self.skip(key + 1);
        }
        false
    }
}

/// A key's length and its first and last three bytes: equal for equal keys.
#[inline(always)]
fn signature(key: &[u8]) -> u64 {
    let length = (key.len() as u64) << 48;
    match *key {
        [a, b, c, .., x, y, z] => u64::from_le_bytes([a, b, c, x, y, z, 0, 0]) | length,
        _ => {
            let mut ends = [0; 8];
            ends[..key.len()].copy_from_slice(key); // at most five bytes
            u64::from_le_bytes(ends) | length
        }
    }
}

/// What [`json::scan_plain`] reads the arguments into: the items, as it reads them.
impl Sink for Doc<'_> {
    type Open = (usize, bool);

    #[inline(always)]
    fn owned(&mut self) -> &mut String {
        &mut self.owned
    }

    #[inline(always)]
    fn open(&mut self, object: bool) -> Option<(usize, bool)> {
        self.items.push(Item::Null);
        Some((self.items.len() - 1, object))
    }

    #[inline(always)]
    fn key(&mut self, _: &mut (usize, bool), key: Text) -> Option<()> {
        self.items.push(Item::Str(key));
        Some(())
    }

    #[inline(always)]
    fn value(&mut self, _: Option<&mut (usize, bool)>, value: Token) -> Option<()> {
        self.items.push(match value {
            Token::Null => Item::Null,
            Token::Bool(value) => Item::Bool(value),
            Token::Str(text) => Item::Str(text),
            _ => return None, // numbers come to `number`, containers to `open`
        });
        Some(())
    }

    /// Every number, as its text: `1e400` too (the `Value` keeps it as its text).
    #[inline(always)]
    fn number(&mut self, _: Option<&mut (usize, bool)>, _: &str, place: Text) -> Option<()> {
        self.items.push(Item::Number(place));
        Some(())
    }

    #[inline(always)]
    fn close(
        &mut self,
        (at, object): (usize, bool),
        len: u32,
        _: Option<&mut (usize, bool)>,
    ) -> Option<()> {
        let end = self.items.len() as u32; // at most one item a byte of a text of < 4 GiB
        self.items[at] = if object {
            Item::Object { len, end }
        } else {
            Item::Array { len, end }
        };
        // The `Value` keeps a duplicate key's last value: left to it.
        (!object || len < 2 || !self.has_duplicate_key(at, end as usize)).then_some(())
    }
}

/// The representation the validator is compiled for.
pub struct Args;

/// A value of a [`Doc`].
#[derive(Clone, Copy)]
pub struct ArgNode<'a> {
    doc: &'a Doc<'a>,
    idx: usize,
}

/// A number: its JSON text.
#[derive(Clone, Copy)]
pub struct ArgNumber<'a>(&'a str);

/// An object of a [`Doc`]: `len` members, ending before `end`.
#[derive(Clone, Copy)]
pub struct ArgObject<'a> {
    doc: &'a Doc<'a>,
    idx: usize,
    len: usize,
    end: usize,
}

/// An array of a [`Doc`]: `len` items, ending before `end`.
#[derive(Clone, Copy)]
pub struct ArgArray<'a> {
    doc: &'a Doc<'a>,
    idx: usize,
    len: usize,
    end: usize,
}

impl Json for Args {
    type Node<'a> = ArgNode<'a>;
    type PreparedKey = Box<str>;
    type StringBuffer = Scratch;

    /// Keys are found by a scan of the members: one pass over them beats a lookup each.
    const KEYS_PER_LOOKUP: usize = 2;
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> Box<str> {
        key.into()
    }

    fn with_string_node<T>(
        buffer: &mut Scratch,
        string: &str,
        f: impl FnOnce(ArgNode<'_>) -> T,
    ) -> T {
        let mut doc = Doc {
            source: "",
            owned: std::mem::take(&mut buffer.owned),
            items: std::mem::take(&mut buffer.items),
        };
        doc.owned.clear();
        doc.items.clear();
        doc.items.push(Item::Str(json::own(&mut doc.owned, string)));
        let result = f(doc.root());
        doc.into_scratch(buffer);
        result
    }
}

impl<'a> Node<'a, Args> for ArgNode<'a> {
    type Object = ArgObject<'a>;
    type Array = ArgArray<'a>;
    type Number = ArgNumber<'a>;

    fn as_object(&self) -> Option<ArgObject<'a>> {
        match self.doc.items[self.idx] {
            Item::Object { len, end } => Some(ArgObject {
                doc: self.doc,
                idx: self.idx,
                len: len as usize,
                end: end as usize,
            }),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<ArgArray<'a>> {
        match self.doc.items[self.idx] {
            Item::Array { len, end } => Some(ArgArray {
                doc: self.doc,
                idx: self.idx,
                len: len as usize,
                end: end as usize,
            }),
            _ => None,
        }
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        match &self.doc.items[self.idx] {
            Item::Str(text) => Some(Cow::Borrowed(self.doc.text(text))),
            _ => None,
        }
    }

    fn as_number(&self) -> Option<ArgNumber<'a>> {
        match &self.doc.items[self.idx] {
            Item::Number(text) => Some(ArgNumber(self.doc.text(text))),
            _ => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        match self.doc.items[self.idx] {
            Item::Bool(value) => Some(value),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        matches!(self.doc.items[self.idx], Item::Null)
    }

    fn is_number(&self) -> bool {
        matches!(self.doc.items[self.idx], Item::Number(_))
    }

    fn is_string(&self) -> bool {
        matches!(self.doc.items[self.idx], Item::Str(_))
    }

    fn json_type(&self) -> JsonType {
        match self.doc.items[self.idx] {
            Item::Null => JsonType::Null,
            Item::Bool(_) => JsonType::Boolean,
            Item::Number(_) => JsonType::Number,
            Item::Str(_) => JsonType::String,
            Item::Array { .. } => JsonType::Array,
            Item::Object { .. } => JsonType::Object,
        }
    }

    /// `cmp::equal` of this value's `Value` and `expected` (`enum`, `const`; numbers
    /// compared by their value), without building it.
    fn equals_value(&self, expected: &Value) -> bool {
        let doc = self.doc;
        match (&doc.items[self.idx], expected) {
            (Item::Null, Value::Null) => true,
            (Item::Bool(value), Value::Bool(other)) => value == other,
            (Item::Str(text), Value::String(other)) => doc.text(text) == other,
            (Item::Number(text), Value::Number(other)) => {
                cmp::equal_numbers(&ArgNumber(doc.text(text)), other)
            }
            (Item::Array { .. }, Value::Array(others)) => {
                let array = self.as_array().expect("an array");
                array.len == others.len()
                    && (array.elements().zip(others)).all(|(item, other)| item.equals_value(other))
            }
            (Item::Object { .. }, Value::Object(others)) => {
                let object = self.as_object().expect("an object");
                object.len == others.len()
                    && (object.members()).all(|(key, value)| {
                        others
                            .get(key)
                            .is_some_and(|other| value.equals_value(other))
                    })
            }
            _ => false,
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(self.value())
    }

    fn identity(&self) -> Option<NodeIdentity> {
        let doc = std::ptr::from_ref::<Doc<'_>>(self.doc) as usize;
        Some(NodeIdentity::tagged(doc, self.idx as u32))
    }
}

impl ArgNode<'_> {
    /// The `Value` serde_json reads from this value's text.
    fn value(&self) -> Value {
        let doc = self.doc;
        match &doc.items[self.idx] {
            Item::Null => Value::Null,
            Item::Bool(value) => Value::Bool(*value),
            Item::Number(text) => Value::Number(number(doc.text(text))),
            Item::Str(text) => Value::String(doc.text(text).to_owned()),
            Item::Array { .. } => {
                let array = self.as_array().expect("an array");
                Value::Array(array.elements().map(|item| item.value()).collect())
            }
            Item::Object { .. } => {
                let object = self.as_object().expect("an object");
                let members = object
                    .members()
                    .map(|(key, value)| (key.to_owned(), value.value()));
                Value::Object(members.collect::<Map<String, Value>>())
            }
        }
    }
}

/// The number serde_json reads from the JSON number text `text` (into a `Value`: its
/// text as written).
fn number(text: &str) -> Number {
    match serde_json::from_str(text) {
        Ok(Value::Number(number)) => number,
        _ => unreachable!("a JSON number's text reads as a number"),
    }
}

/// 2^63: every `f64` from there up is whole.
const WHOLE_FLOATS: f64 = 9_223_372_036_854_775_808.0;

impl JsonNumber for ArgNumber<'_> {
    fn as_u64(&self) -> Option<u64> {
        self.0.parse().ok()
    }

    fn as_i64(&self) -> Option<i64> {
        self.0.parse().ok()
    }

    fn as_f64(&self) -> Option<f64> {
        self.0.parse::<f64>().ok().filter(|float| float.is_finite())
    }

    /// As serde_json keeps the text: its exponent written `e`, with its sign.
    fn as_str(&self) -> Cow<'_, str> {
        let Some(at) = self.0.find(['e', 'E']) else {
            return Cow::Borrowed(self.0);
        };
        let (mantissa, exponent) = (&self.0[..at], &self.0[at + 1..]);
        if self.0.as_bytes()[at] == b'e' && exponent.starts_with(['+', '-']) {
            return Cow::Borrowed(self.0);
        }
        let sign = if exponent.starts_with(['+', '-']) {
            ""
        } else {
            "+"
        };
        Cow::Owned(format!("{mantissa}e{sign}{exponent}"))
    }

    fn to_number(&self) -> Cow<'_, Number> {
        Cow::Owned(number(self.0))
    }

    /// As `jsonschema-value`'s `number_is_integer` (without its `arbitrary-precision`),
    /// which builds the `Number` first: a test compares them.
    fn is_integer(&self) -> bool {
        if self.as_i64().is_some() || self.as_u64().is_some() {
            return true;
        }
        match self.as_f64() {
            Some(float) => float.fract() == 0.0,
            None => JsonNumber::is_integer(&*self.to_number()),
        }
    }

    /// As `serde_json::Number`'s (without `arbitrary-precision` in `jsonschema-value`):
    /// a test compares them.
    fn is_written_as_integer(&self) -> bool {
        if self.as_u64().is_some() || self.as_i64().is_some() {
            return true;
        }
        if self.0.contains(['e', 'E']) {
            return self
                .as_f64()
                .is_some_and(|float| float.abs() >= WHOLE_FLOATS);
        }
        !self.0.contains('.')
    }
}

/// The members of an object: (key, value).
pub struct ArgMembers<'a> {
    doc: &'a Doc<'a>,
    at: usize,
    end: usize,
}

impl<'a> Iterator for ArgMembers<'a> {
    type Item = (&'a str, ArgNode<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.end {
            return None;
        }
        let (doc, key) = (self.doc, self.at);
        self.at = doc.skip(key + 1);
        Some((doc.key(key), ArgNode { doc, idx: key + 1 }))
    }
}

impl<'a> Object<'a, Args> for ArgObject<'a> {
    type Node = ArgNode<'a>;
    type MemberName = &'a str;
    type MembersIter = ArgMembers<'a>;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, key: &Box<str>) -> Option<ArgNode<'a>> {
        let key: &str = key;
        self.members()
            .find(|(name, _)| *name == key)
            .map(|(_, value)| value)
    }

    fn members(&self) -> ArgMembers<'a> {
        ArgMembers {
            doc: self.doc,
            at: self.idx + 1,
            end: self.end,
        }
    }

    /// The keys are values of the document already: handed over as they are.
    fn try_for_each_name_node<B>(
        &self,
        _: &mut Scratch,
        mut f: impl FnMut(ArgNode<'_>) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let (doc, mut key) = (self.doc, self.idx + 1);
        while key < self.end {
            f(ArgNode { doc, idx: key })?;
            key = doc.skip(key + 1);
        }
        ControlFlow::Continue(())
    }
}

/// The items of an array.
pub struct ArgItems<'a> {
    doc: &'a Doc<'a>,
    at: usize,
    end: usize,
}

impl<'a> Iterator for ArgItems<'a> {
    type Item = ArgNode<'a>;

    fn next(&mut self) -> Option<ArgNode<'a>> {
        if self.at >= self.end {
            return None;
        }
        let idx = self.at;
        self.at = self.doc.skip(idx);
        Some(ArgNode { doc: self.doc, idx })
    }
}

impl<'a> Array<'a, Args> for ArgArray<'a> {
    type Node = ArgNode<'a>;
    type ElementsIter = ArgItems<'a>;

    fn len(&self) -> usize {
        self.len
    }

    fn elements(&self) -> ArgItems<'a> {
        ArgItems {
            doc: self.doc,
            at: self.idx + 1,
            end: self.end,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Number texts where the ways of reading a number part.
    pub(crate) const NUMBERS: [&str; 34] = [
        "0", "-0", "1", "-1", "42", "1.0", "-1.0", "1.5", "-1.5", "2.50", "1e2", "1E2", "1e+2",
        "1e-2", "0e5", "0.0", "-0.0", "1e-400", "1e19", "1e400", "-1e400", "1.5e300",
        "9007199254740993", "9007199254740993.0", "18446744073709551615",
        "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
        "123456789012345678901234567890", "10000000000000000000000.0",
        "12345678901234567890123.5", "1.0e0", "100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "0.1e1",
    ];

    #[test]
    fn numbers_answer_as_serde_numbers() {
        for text in NUMBERS {
            let serde = number(text);
            let (ours, theirs) = (ArgNumber(text), &serde);
            assert_eq!(ours.as_u64(), JsonNumber::as_u64(&theirs), "{text}");
            assert_eq!(ours.as_i64(), JsonNumber::as_i64(&theirs), "{text}");
            let bits = |float: Option<f64>| float.map(f64::to_bits);
            assert_eq!(
                bits(ours.as_f64()),
                bits(JsonNumber::as_f64(&theirs)),
                "{text}"
            );
            assert_eq!(ours.as_str(), JsonNumber::as_str(&theirs), "{text}");
            assert_eq!(*ours.to_number(), serde, "{text}");
            assert_eq!(ours.is_integer(), JsonNumber::is_integer(&theirs), "{text}");
            assert_eq!(
                ours.is_written_as_integer(),
                JsonNumber::is_written_as_integer(&theirs),
                "{text}"
            );
        }
    }

    #[test]
    fn documents_read_as_serde_values() {
        let texts = [
            r#"{"a":1,"b":[true,false,null,"x\"y\\u00e9\ud83d\ude00"],"c":{"d":{}},"e":[]}"#,
            r#"{"\u00e9t\u00e9":"\t","a/b~":1e400,"n":-0,"f":1.0E+2}"#,
            r#"[1,[2,[3,{"k":"v"}]]]"#,
            r#""just a string""#,
            "12345678901234567890123456789",
            r#"{"ключ":"значение","🦀":"𝄞"}"#,
        ];
        let mut scratch = Scratch::default();
        for text in texts {
            let doc = Doc::parse(text, &mut scratch).expect(text);
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(doc.root().value(), value, "{text}");
            doc.into_scratch(&mut scratch);
        }
        // Left to the `Value`: a duplicate key (nested too), a lone surrogate, deep text,
        // what is not JSON.
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200)); // past the pass's 128
        for text in [
            r#"{"a":1,"a":2}"#,
            r#"{"x":[{"b":1,"c":2,"b":3}]}"#,
            r#"{"a":"\ud800"}"#,
            &deep,
            "{oops",
            "[1,]",
        ] {
            assert!(Doc::parse(text, &mut scratch).is_none(), "{text}");
        }
        // Keys alike in length and ends are compared whole.
        let alike = r#"{"abcXdef":1,"abcYdef":2,"a":{"abcXdef":1}}"#;
        assert!(Doc::parse(alike, &mut scratch).is_some());
        assert!(Doc::parse(r#"{"abcdef":1,"x":2,"abcdef":3}"#, &mut scratch).is_none());
        let many: Vec<String> = (0..40).map(|i| format!("\"k{}\":{i}", i % 39)).collect();
        let many = format!("{{{}}}", many.join(","));
        assert!(Doc::parse(&many, &mut scratch).is_none());
        let distinct: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        let distinct = format!("{{{}}}", distinct.join(","));
        assert!(Doc::parse(&distinct, &mut scratch).is_some());
    }
}
