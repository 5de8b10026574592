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

    /// The index of the value of the last `key` member of the object at `idx` (null
    /// included; duplicate keys: the last one wins, as in Python's `json.loads`); None
    /// for anything else. The one member lookup of the walkers (`TapeNode::get`).
    pub fn member(&self, idx: usize, key: &str) -> Option<usize> {
        let Token::Object { end, .. } = self.tokens[idx] else {
            return None;
        };
        let tokens = &self.tokens[..end as usize];
        let mut found = None;
        let mut at = idx + 1;
        // Each member is a key (a string) and its value.
        while let (Some(name), Some(value)) = (tokens.get(at), tokens.get(at + 1)) {
            if self.is_text(name, key) {
                found = Some(at + 1);
            }
            at = match *value {
                Token::Array { end, .. } | Token::Object { end, .. } => end as usize,
                _ => at + 2,
            };
        }
        found
    }

    /// Whether the value at `idx` is the string `s` (compared byte by byte).
    pub fn str_is(&self, idx: usize, s: &str) -> bool {
        self.is_text(&self.tokens[idx], s)
    }

    /// Whether `token` is the string `s`: lengths first (most keys differ in length from
    /// the one looked for), then the bytes.
    #[inline(always)]
    fn is_text(&self, token: &Token, s: &str) -> bool {
        let (text, start) = match *token {
            Token::Str(Text::Source { start, len }) if len as usize == s.len() => {
                (self.source.as_bytes(), start as usize)
            }
            Token::Str(Text::Owned { start, len }) if len as usize == s.len() => {
                (self.owned.as_bytes(), start as usize)
            }
            _ => return false,
        };
        text.get(start..start + s.len())
            .is_some_and(|text| same_bytes(text, s.as_bytes()))
    }

    /// The string at `idx`, if the value there is a string.
    pub fn str_at(&self, idx: usize) -> Option<&str> {
        match &self.tokens[idx] {
            Token::Str(text) => Some(self.text(text)),
            _ => None,
        }
    }
}

/// `a == b` for slices of the same length: keys of 4 to 16 bytes (nearly every key a
/// walk looks up) are compared as two overlapping words each, without a call.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        8..=16 => {
            let word = |s: &[u8], i: usize| {
                u64::from_le_bytes(s[i..i + 8].try_into().expect("eight bytes"))
            };
            word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8)
        }
        4..=7 => {
            let word = |s: &[u8], i: usize| {
                u32::from_le_bytes(s[i..i + 4].try_into().expect("four bytes"))
            };
            word(a, 0) == word(b, 0) && word(a, n - 4) == word(b, n - 4)
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn same_bytes_is_equality_at_every_length() {
        for n in 0..=20 {
            let a: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            assert!(same_bytes(&a, &a.clone()), "{n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 1;
                assert!(!same_bytes(&a, &b), "{n} {at}");
            }
            assert!(!same_bytes(&a, &a[..n.saturating_sub(1)]) || n == 0);
        }
    }

    /// `member` finds what a search of the keys in order finds: the last member of that
    /// key, null values too, keys unescaped or not, containers skipped whole.
    #[test]
    fn member_is_the_last_member_of_that_key() {
        let text =
            r#"{"a":1,"bb":{"a":2},"ccccccccc":[{"a":3}],"d\u0065":null,"a":4,"dddd":5,"":6}"#;
        let tape = parse(text.as_bytes()).unwrap();
        let naive = |key: &str| {
            let mut found = None;
            let mut at = 1;
            while at < tape.skip(0) {
                if tape.str_at(at) == Some(key) {
                    found = Some(at + 1);
                }
                at = tape.skip(at + 1);
            }
            found
        };
        for key in [
            "a",
            "bb",
            "ccccccccc",
            "de",
            "dddd",
            "",
            "dd",
            "ccccccccd",
            "x",
        ] {
            assert_eq!(tape.member(0, key), naive(key), "{key}");
        }
        assert_eq!(
            tape.member(0, "a").map(|i| tape.tokens[i]),
            Some(Token::Int(4))
        );
        assert_eq!(
            tape.member(0, "de").map(|i| tape.tokens[i]),
            Some(Token::Null)
        );
        let inner = tape.member(0, "bb").unwrap();
        assert_eq!(
            tape.member(inner, "a").map(|i| tape.tokens[i]),
            Some(Token::Int(2))
        );
        assert_eq!(tape.member(tape.member(0, "a").unwrap(), "a"), None); // not an object
    }
}
