//! The tape a JSON document is read into: [`Token`]s in document order, strings as
//! [`Text`] ranges of the source or of the text the reader owns, and the lookups the
//! walkers make on it.

use std::borrow::Cow;

/// One JSON value, or the start of a container whose contents follow it on the tape.
/// Nothing in it owns memory (texts are ranges), so a tape is dropped in one free and
/// a token takes 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Token {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    /// An integer outside the 64-bit range, as its decimal text.
    BigInt(Text),
    Float(f64),
    /// A number beyond the float range (`1e400`: `inf` in Python), as its text.
    HugeFloat(Text),
    Str(Text),
    /// `len` items follow; `end` is the index just past the last of them.
    Array {
        len: u32,
        end: u32,
    },
    /// `len` key/value pairs follow (each key a `Str`); `end` as for arrays.
    Object {
        len: u32,
        end: u32,
    },
}

impl Token {
    /// The text of a string, or of a number kept as its text.
    pub fn text_mut(&mut self) -> Option<&mut Text> {
        match self {
            Token::Str(text) | Token::BigInt(text) | Token::HugeFloat(text) => Some(text),
            _ => None,
        }
    }
}

/// A string on the tape: a slice of the source text when it had no escapes (no copy),
/// else a slice of the text the reader owns (`Tape::owned`: an unescaped copy, or a
/// number's text as serde_json spells it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Text {
    Source { start: u32, len: u32 },
    Owned { start: u32, len: u32 },
}

impl Text {
    /// The string's contents, `source` being the text it was read from and `owned` the
    /// text its reader owns.
    pub fn resolve<'s>(&self, source: &'s str, owned: &'s str) -> &'s str {
        let (text, start, len) = match *self {
            Text::Source { start, len } => (source, start, len),
            Text::Owned { start, len } => (owned, start, len),
        };
        &text[start as usize..(start + len) as usize]
    }
}

/// `s` added to the text a reader owns: its range there. The offsets wrap beyond 4 GiB:
/// each reader checks its owned text's size (`Tape::owned`).
pub fn own(owned: &mut String, s: &str) -> Text {
    let start = owned.len() as u32;
    owned.push_str(s);
    Text::Owned {
        start,
        len: s.len() as u32,
    }
}

/// A parsed document: `tokens[0]` is the root. Strings point into `source`, or into
/// `owned` (the strings that had escapes, unescaped; at most 4 GiB).
#[derive(Debug, Clone, Default)]
pub struct Tape<'a> {
    pub source: Cow<'a, str>,
    pub owned: String,
    pub tokens: Vec<Token>,
}

/// Two tapes are equal when they hold the same source and the same values: texts are
/// compared by their contents, wherever they are kept.
impl PartialEq for Tape<'_> {
    fn eq(&self, other: &Self) -> bool {
        let same = |a: &Token, b: &Token| match (a, b) {
            (Token::Str(x), Token::Str(y))
            | (Token::BigInt(x), Token::BigInt(y))
            | (Token::HugeFloat(x), Token::HugeFloat(y)) => self.text(x) == other.text(y),
            _ => a == b,
        };
        self.source == other.source
            && self.tokens.len() == other.tokens.len()
            && self
                .tokens
                .iter()
                .zip(&other.tokens)
                .all(|(a, b)| same(a, b))
    }
}

/// The token of a container whose contents are on the tape: `len` items (or members),
/// ending just before the index `end`.
pub(super) fn container(object: bool, len: u32, end: usize) -> Token {
    let end = end as u32; // the tape of a source of at most 4 GiB
    if object {
        Token::Object { len, end }
    } else {
        Token::Array { len, end }
    }
}

impl Tape<'_> {
    /// The same tape, holding its source (borrowing nothing).
    pub fn into_owned(self) -> Tape<'static> {
        Tape {
            source: Cow::Owned(self.source.into_owned()),
            owned: self.owned,
            tokens: self.tokens,
        }
    }

    /// `(key index, value index)` of the members of the object at `idx` (its `len` and
    /// `end`) as `json.loads` keeps them: duplicate keys collapse into the first one's
    /// position, with the last one's value.
    pub fn members(&self, idx: usize, (len, end): (usize, usize)) -> Vec<(usize, usize)> {
        let mut members = Vec::with_capacity(len);
        let mut at = idx + 1;
        while at < end {
            members.push((at, at + 1));
            at = self.skip(at + 1);
        }
        let key = |m: &(usize, usize)| self.str_at(m.0).unwrap_or_default();
        let duplicates = if members.len() <= 16 {
            (1..members.len()).any(|i| (0..i).any(|j| key(&members[i]) == key(&members[j])))
        } else {
            let mut seen = std::collections::HashSet::with_capacity(members.len());
            !members.iter().all(|m| seen.insert(key(m)))
        };
        if !duplicates {
            return members;
        }
        let mut first: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::with_capacity(members.len());
        let mut collapsed: Vec<(usize, usize)> = Vec::with_capacity(members.len());
        for m in &members {
            match first.get(key(m)) {
                Some(&slot) => collapsed[slot].1 = m.1,
                None => {
                    first.insert(key(m), collapsed.len());
                    collapsed.push(*m);
                }
            }
        }
        collapsed
    }

    /// The index just past the value that starts at `idx`.
    pub fn skip(&self, idx: usize) -> usize {
        match self.tokens[idx] {
            Token::Array { end, .. } | Token::Object { end, .. } => end as usize,
            _ => idx + 1,
        }
    }

    /// The contents of a tape string.
    pub fn text(&self, text: &Text) -> &str {
        text.resolve(&self.source, &self.owned)
    }

    /// Whether the value at `idx` is the string `s` (compared byte by byte).
    pub fn str_is(&self, idx: usize, s: &str) -> bool {
        let (text, start, len) = match self.tokens[idx] {
            Token::Str(Text::Source { start, len }) => (&*self.source, start, len),
            Token::Str(Text::Owned { start, len }) => (self.owned.as_str(), start, len),
            _ => return false,
        };
        // Bytes, lengths first: most keys differ in length from the one looked for.
        let (start, len) = (start as usize, len as usize);
        len == s.len() && text.as_bytes().get(start..start + len) == Some(s.as_bytes())
    }

    /// The string at `idx`, if the value there is a string.
    pub fn str_at(&self, idx: usize) -> Option<&str> {
        match &self.tokens[idx] {
            Token::Str(text) => Some(self.text(text)),
            _ => None,
        }
    }
}
