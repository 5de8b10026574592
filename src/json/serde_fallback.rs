//! serde_json reads what the hand-written pass (`scan`) does not, onto the same tape:
//! text that is not JSON (and reports its error), nesting deeper than 128, numbers beyond
//! the float range, escaped lone surrogates; and the documents [`parse_pruned`]
//! reads in part. `arbitrary_precision` hands over the text of every number that does
//! not fit 64 bits; every container recursion runs under `stacker::maybe_grow`.
//!
//! [`parse_pruned`]: super::parse_pruned

use super::numbers::number_token;
use super::prune::{keep_of_part, Keep};
use super::tape::{container, own, Text, Token};
use super::{JsonError, MAX_DEPTH};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// The key serde_json (with `arbitrary_precision`) uses to hand over a number's text.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

pub(super) fn tokens_with(
    text: &str,
    keep: Option<&Keep>,
) -> Result<(Vec<Token>, String), JsonError> {
    let too_large = || JsonError {
        pos: 0,
        message: "document larger than 4 GiB".to_owned(),
    };
    if u32::try_from(text.len()).is_err() {
        return Err(too_large());
    }
    let mut de = serde_json::Deserializer::from_str(text);
    // Our own depth counter enforces MAX_DEPTH, everywhere in the document.
    de.disable_recursion_limit();
    let estimate = if keep.is_some() {
        64
    } else {
        text.len() / 8 + 4
    };
    let mut tokens = Vec::with_capacity(estimate);
    let mut owned = String::new();
    let result = TapeBuilder {
        tokens: &mut tokens,
        owned: &mut owned,
        source: SourceRange::of(text),
        depth: 0,
        keep,
        text,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    match result {
        // The owned text is the unescaped strings and the numbers serde_json spells its
        // own way (`1e+400`): a text of nearly 4 GiB could make it larger.
        Ok(()) if u32::try_from(owned.len()).is_err() => Err(too_large()),
        Ok(()) => Ok((tokens, owned)),
        Err(err) => Err(json_error(text.as_bytes(), &err)),
    }
}

/// serde_json reports line and column (1-based, in bytes); turn that into a byte offset.
fn json_error(input: &[u8], err: &serde_json::Error) -> JsonError {
    let line_start: usize = input
        .split(|&b| b == b'\n')
        .take(err.line().saturating_sub(1))
        .map(|line| line.len() + 1)
        .sum();
    let pos = (line_start + err.column().saturating_sub(1)).min(input.len());
    let message = err.to_string();
    // Drop serde_json's own " at line L column C" suffix: we report the byte offset.
    let message = match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_string(),
        None => message,
    };
    JsonError { pos, message }
}

/// The address range of the source text, to tell slices of it from other strings.
#[derive(Clone, Copy)]
struct SourceRange {
    start: usize,
    len: usize,
}

impl SourceRange {
    fn of(text: &str) -> Self {
        SourceRange {
            start: text.as_ptr() as usize,
            len: text.len(),
        }
    }

    /// `s` as a tape string: an offset where it lies inside the source, else a copy
    /// added to `owned`.
    fn text(self, s: &str, owned: &mut String) -> Text {
        match self.offset(s) {
            Some(start) => Text::Source {
                start,
                len: s.len() as u32, // inside a source of at most 4 GiB
            },
            None => own(owned, s),
        }
    }

    fn offset(self, s: &str) -> Option<u32> {
        let at = (s.as_ptr() as usize).wrapping_sub(self.start);
        (at <= self.len && s.len() <= self.len - at).then_some(at as u32)
    }
}

/// One level deeper into arrays and objects: an error beyond [`MAX_DEPTH`].
fn enter<E: de::Error>(depth: &mut usize) -> Result<(), E> {
    *depth += 1;
    if *depth > MAX_DEPTH {
        return Err(E::custom(format!("nesting deeper than {MAX_DEPTH}")));
    }
    Ok(())
}

/// Appends one value (and everything inside it, or the parts `keep` names) to the tape.
struct TapeBuilder<'t> {
    tokens: &'t mut Vec<Token>,
    /// The tape's owned text.
    owned: &'t mut String,
    source: SourceRange,
    depth: usize,
    /// None: keep everything.
    keep: Option<&'t Keep>,
    /// The source text (to read keys by).
    text: &'t str,
}

impl TapeBuilder<'_> {
    /// The builder of a member's value, or None when it is to be skipped.
    fn member(&mut self, key: &Text) -> Option<TapeBuilder<'_>> {
        let (text, owned) = (self.text, &*self.owned);
        let keep = keep_of_part(self.keep, |keep| keep.member(key.resolve(text, owned)))?;
        Some(self.part(keep))
    }

    /// The builder of an array's items, or None when they are to be skipped.
    fn items(&mut self) -> Option<TapeBuilder<'_>> {
        let keep = keep_of_part(self.keep, |keep| keep.items.as_deref())?;
        Some(self.part(keep))
    }

    /// The builder of a part of this value (a member's value, an item), keeping `keep`
    /// of it (None: all of it).
    fn part<'s>(&'s mut self, keep: Option<&'s Keep>) -> TapeBuilder<'s> {
        TapeBuilder {
            tokens: self.tokens,
            owned: self.owned,
            source: self.source,
            depth: self.depth,
            keep,
            text: self.text,
        }
    }

    fn enter<E: de::Error>(&mut self) -> Result<(), E> {
        enter(&mut self.depth)
    }

    /// Fill in the container token pushed at `at` once its contents are on the tape.
    fn close(&mut self, at: usize, len: usize, object: bool) {
        self.tokens[at] = container(object, len as u32, self.tokens.len());
    }

    fn key(&mut self) -> Key<'_> {
        Key {
            source: self.source,
            owned: self.owned,
        }
    }
}

impl<'de> DeserializeSeed<'de> for TapeBuilder<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        // Grow the stack on the heap when deep nesting would otherwise overflow it.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            deserializer.deserialize_any(self)
        })
    }
}

impl<'de> Visitor<'de> for TapeBuilder<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.tokens.push(Token::Null);
        Ok(())
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.tokens.push(Token::Bool(v));
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.tokens.push(Token::Int(v));
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.tokens.push(match i64::try_from(v) {
            Ok(small) => Token::Int(small),
            Err(_) => Token::UInt(v),
        });
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.tokens.push(Token::Float(v));
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        let text = self.source.text(v, self.owned);
        self.tokens.push(Token::Str(text));
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        self.enter()?;
        let at = self.tokens.len();
        self.tokens.push(Token::Null);
        let mut len = 0;
        if self.items().is_some() {
            while seq
                .next_element_seed(self.items().expect("checked above"))?
                .is_some()
            {
                len += 1;
            }
        } else {
            while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        }
        self.close(at, len, false);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let at = self.tokens.len();
        let first = match map.next_key_seed(self.key())? {
            None => {
                self.enter()?;
                self.tokens.push(Token::Object {
                    len: 0,
                    end: at as u32 + 1,
                });
                return Ok(());
            }
            Some(KeyText::Number) => {
                // Not an object: serde_json's hand-over of a number it did not convert.
                let text: Cow<'de, str> = map.next_value_seed(NumberText)?;
                let (source, owned) = (self.source, &mut *self.owned);
                let token = number_token(&text, || source.text(&text, owned));
                self.tokens.push(token);
                return Ok(());
            }
            Some(KeyText::Key(first)) => first,
        };
        self.enter()?;
        self.tokens.push(Token::Null);
        let mut key = first;
        let mut len = 0;
        loop {
            match self.member(&key) {
                Some(child) => {
                    child.tokens.push(Token::Str(key));
                    map.next_value_seed(child)?;
                }
                None => {
                    self.tokens.push(Token::Str(key));
                    map.next_value::<de::IgnoredAny>()?;
                    self.tokens.push(Token::Null);
                }
            }
            len += 1;
            match map.next_key_seed(self.key())? {
                Some(KeyText::Key(next)) => key = next,
                Some(KeyText::Number) => {
                    return Err(de::Error::custom("number token inside an object"))
                }
                None => break,
            }
        }
        self.close(at, len, true);
        Ok(())
    }
}

/// Whether the borrowed key `v` is serde_json's number hand-over: keys without escapes
/// are slices of the source; the hand-over's key is not.
fn is_number_key(source: SourceRange, v: &str) -> bool {
    source.offset(v).is_none() && v == NUMBER_TOKEN
}

/// An object key, or serde_json's number hand-over (its key is not in the source).
enum KeyText {
    Key(Text),
    Number,
}

struct Key<'t> {
    source: SourceRange,
    /// The tape's owned text, where a key with escapes is kept.
    owned: &'t mut String,
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = KeyText;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<KeyText, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = KeyText;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<KeyText, E> {
        if is_number_key(self.source, v) {
            return Ok(KeyText::Number);
        }
        Ok(KeyText::Key(self.source.text(v, self.owned)))
    }

    fn visit_str<E>(self, v: &str) -> Result<KeyText, E> {
        Ok(KeyText::Key(own(self.owned, v)))
    }
}

/// The text of a number handed over by serde_json.
struct NumberText;

impl<'de> DeserializeSeed<'de> for NumberText {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for NumberText {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}
