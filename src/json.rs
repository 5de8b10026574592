//! JSON text to a flat tape of tokens, with the project's JSON semantics.
//!
//! A hand-written pass ([`parse_plain`]) reads most documents; serde_json reads the rest:
//! text that is not JSON (and reports its error), nesting deeper than 64, numbers beyond
//! the float range, escaped lone surrogates; and [`parse_pruned`] reads parts of
//! documents with it. Both build the same tape: tests check that on every text of the
//! vectors, cut and changed, and the fuzz targets compare the backends on random input.
//! The hand-written pass ([`scan_plain`]) hands what it reads to a [`Sink`]: the tape's
//! tokens, or, in the Python layer, Python objects built as the text is read.
//!
//! The semantics: integers of any size are exact (serde_json's `arbitrary_precision`
//! hands over the digits of every number that does not fit 64 bits), floats are parsed
//! from their text with Rust's correctly rounded `f64::from_str`, duplicate keys are all
//! kept in order (readers take the last one), and nesting deeper than [`MAX_DEPTH`] is an
//! error. Deep input never overflows the stack: every container recursion runs under
//! `stacker::maybe_grow`.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Deepest nesting of arrays and objects accepted (the same as orjson's).
pub const MAX_DEPTH: usize = 1024;

/// The key serde_json (with `arbitrary_precision`) uses to hand over a number's text.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

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

/// Where and why JSON text could not be parsed. `pos` is a byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub pos: usize,
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.pos)
    }
}

impl std::error::Error for JsonError {}

/// Which parts of a document to build tokens for when parsing with [`parse_pruned`];
/// the rest is still checked, then skipped: a member value left out becomes `Null`
/// (its key stays), an array whose items are left out holds no items.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Keep {
    /// Keep this whole value.
    pub all: bool,
    /// The members of an object to keep, and what to keep of each.
    pub members: Vec<(String, Keep)>,
    /// What to keep of each item of an array (None: no items).
    pub items: Option<Box<Keep>>,
}

impl Keep {
    /// Keep everything.
    pub fn all() -> Keep {
        Keep {
            all: true,
            ..Keep::default()
        }
    }

    /// What to keep of the member `key` (None: skip it).
    fn member(&self, key: &str) -> Option<&Keep> {
        self.members
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, keep)| keep)
    }

    /// Keep `other`'s parts as well.
    pub fn merge(&mut self, other: &Keep) {
        self.all |= other.all;
        for (key, keep) in &other.members {
            match self.members.iter_mut().find(|(k, _)| k == key) {
                Some((_, mine)) => mine.merge(keep),
                None => self.members.push((key.clone(), keep.clone())),
            }
        }
        match (&mut self.items, &other.items) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (None, Some(theirs)) => self.items = Some(theirs.clone()),
            _ => {}
        }
    }
}

/// Parse UTF-8 bytes, building tokens only for the parts `keep` names. Skipped values
/// are checked by serde_json's own skipping, which differs from a full parse in two
/// ways only: it accepts escaped lone surrogates, and it does not count nesting. The
/// caller must use [`parse`] for text that may hold either (see `bulk::read_record`).
pub fn parse_pruned<'a>(input: &'a [u8], keep: &Keep) -> Result<Tape<'a>, JsonError> {
    match simdutf8::compat::from_utf8(input) {
        Ok(text) => {
            let (tokens, owned) = tokens_with(text, Some(keep))?;
            Ok(Tape {
                source: Cow::Borrowed(text),
                owned,
                tokens,
            })
        }
        Err(err) => Err(JsonError {
            pos: err.valid_up_to(),
            message: "invalid UTF-8".to_owned(),
        }),
    }
}

/// Parse UTF-8 bytes (checked once, up front, with SIMD).
pub fn parse(input: &[u8]) -> Result<Tape<'_>, JsonError> {
    match simdutf8::compat::from_utf8(input) {
        Ok(text) => parse_str(text),
        Err(err) => Err(JsonError {
            pos: err.valid_up_to(),
            message: "invalid UTF-8".to_owned(),
        }),
    }
}

/// Containers nest at most this deep in what [`parse_plain`] reads.
const PLAIN_DEPTH: usize = 64;

/// The fast path of [`parse`] (also taken first by the bulk reader): the same tape, built
/// in one hand-written pass without serde's per-value machinery. None for what it does
/// not read: text that is not UTF-8 or not JSON, a lone surrogate escape, nesting deeper
/// than 64, a number beyond the float range; serde_json then reads it (and reports the
/// error).
pub fn parse_plain(input: &[u8]) -> Option<Tape<'_>> {
    let text = simdutf8::basic::from_utf8(input).ok()?;
    if u32::try_from(text.len()).is_err() {
        return None;
    }
    let (tokens, owned) = plain_tokens(text)?;
    Some(Tape {
        source: Cow::Borrowed(text),
        owned,
        tokens,
    })
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The tokens of `text`, and the text they own (no larger than `text`: unescaping
/// never lengthens a string).
fn plain_tokens(text: &str) -> Option<(Vec<Token>, String)> {
    let mut tokens = TapeSink {
        tokens: Vec::with_capacity(text.len() / 8 + 4),
        owned: String::new(),
    };
    scan_plain(text, &mut tokens)?;
    Some((tokens.tokens, tokens.owned))
}

/// What [`scan_plain`] hands the values it reads to, in the order of the text: the
/// tape's tokens ([`TapeSink`]), or, in the Python layer, Python objects built as the
/// text is read. Each method returns None to stop the scan (the sink says why).
pub trait Sink {
    /// What the sink keeps of a container while it is open.
    type Open;
    /// Where strings with escapes are unescaped to: the `Text::Owned` ranges handed
    /// to `key` and `value` are ranges of it.
    fn owned(&mut self) -> &mut String;
    /// An array or object starts.
    fn open(&mut self, object: bool) -> Option<Self::Open>;
    /// A key of the object `open`; its value follows.
    fn key(&mut self, open: &mut Self::Open, key: Text) -> Option<()>;
    /// A scalar or string value, in the container `parent` (None: the root).
    fn value(&mut self, parent: Option<&mut Self::Open>, value: Token) -> Option<()>;
    /// The container `open` ends with `len` items (or members), in `parent`.
    fn close(&mut self, open: Self::Open, len: u32, parent: Option<&mut Self::Open>) -> Option<()>;
}

/// The tape's tokens, as [`scan_plain`] reads them, and the text they own. An open
/// container is the index of its token, written when it closes.
struct TapeSink {
    tokens: Vec<Token>,
    owned: String,
}

impl Sink for TapeSink {
    type Open = (usize, bool);

    #[inline(always)]
    fn owned(&mut self) -> &mut String {
        &mut self.owned
    }

    #[inline(always)]
    fn open(&mut self, object: bool) -> Option<(usize, bool)> {
        self.tokens.push(Token::Null);
        Some((self.tokens.len() - 1, object))
    }

    #[inline(always)]
    fn key(&mut self, _: &mut (usize, bool), key: Text) -> Option<()> {
        self.tokens.push(Token::Str(key));
        Some(())
    }

    #[inline(always)]
    fn value(&mut self, _: Option<&mut (usize, bool)>, value: Token) -> Option<()> {
        self.tokens.push(value);
        Some(())
    }

    #[inline(always)]
    fn close(
        &mut self,
        (at, object): (usize, bool),
        len: u32,
        _: Option<&mut (usize, bool)>,
    ) -> Option<()> {
        self.tokens[at] = container(object, len, self.tokens.len());
        Some(())
    }
}

/// Reads `text` (of at most 4 GiB: strings are `u32` ranges of it) in one hand-written
/// pass, handing its values to `sink`. None for what it does not read: text that is not
/// JSON, a lone surrogate escape, nesting deeper than 64, a number beyond the float range
/// (serde_json reads those, and reports the errors); or where the sink stopped it.
pub fn scan_plain<S: Sink>(text: &str, sink: &mut S) -> Option<()> {
    let b = text.as_bytes();
    // The open containers: (what the sink keeps of them, items so far, is an object).
    // Room for the depth of most documents (a response's calls are ~8 deep), so that it
    // is allocated once, not grown twice.
    let mut open: Vec<(S::Open, u32, bool)> = Vec::with_capacity(16);
    let mut i = skip_ws(b, 0);
    loop {
        // A value at `i`.
        let value = match *b.get(i)? {
            c @ (b'{' | b'[') => {
                if open.len() >= PLAIN_DEPTH {
                    return None;
                }
                let object = c == b'{';
                let mut started = sink.open(object)?;
                i = skip_ws(b, i + 1);
                if b.get(i) != Some(if object { &b'}' } else { &b']' }) {
                    if object {
                        let (key, next) = plain_key(text, i, sink.owned())?;
                        sink.key(&mut started, key)?;
                        i = next;
                    }
                    open.push((started, 0, object));
                    continue;
                }
                i += 1;
                let parent = open.last_mut().map(|top| &mut top.0);
                sink.close(started, 0, parent)?;
                None
            }
            b'"' => {
                let (string, end) = plain_string(text, i, sink.owned())?;
                i = end;
                Some(Token::Str(string))
            }
            b't' if b[i..].starts_with(b"true") => {
                i += 4;
                Some(Token::Bool(true))
            }
            b'f' if b[i..].starts_with(b"false") => {
                i += 5;
                Some(Token::Bool(false))
            }
            b'n' if b[i..].starts_with(b"null") => {
                i += 4;
                Some(Token::Null)
            }
            b'-' | b'0'..=b'9' => {
                let end = number_end(b, i)?;
                let number = &text[i..end];
                let place = Text::Source {
                    start: i as u32,
                    len: (end - i) as u32,
                };
                i = end;
                Some(match number_token(number, || place) {
                    // serde_json writes the exponent of its text its own way: `parse` reads it.
                    Token::HugeFloat(_) => return None,
                    // serde_json reads an integer of the unsigned 64-bit range itself.
                    Token::BigInt(_) if number.parse::<u64>().is_ok() => {
                        Token::UInt(number.parse().ok()?)
                    }
                    token => token,
                })
            }
            _ => return None,
        };
        if let Some(value) = value {
            sink.value(open.last_mut().map(|top| &mut top.0), value)?;
        }
        // After a value: the next one in its container, or the container's end.
        loop {
            i = skip_ws(b, i);
            let Some(top) = open.last_mut() else {
                return (i == b.len()).then_some(());
            };
            top.1 += 1;
            let object = top.2;
            match *b.get(i)? {
                b',' => {
                    i = skip_ws(b, i + 1);
                    if object {
                        let (key, next) = plain_key(text, i, sink.owned())?;
                        sink.key(&mut top.0, key)?;
                        i = next;
                    }
                    break;
                }
                b'}' if object => {}
                b']' if !object => {}
                _ => return None,
            }
            i += 1;
            let (closed, len, _) = open.pop()?;
            sink.close(closed, len, open.last_mut().map(|top| &mut top.0))?;
        }
    }
}

fn container(object: bool, len: u32, end: usize) -> Token {
    let end = end as u32; // the tape of a source of at most 4 GiB
    if object {
        Token::Object { len, end }
    } else {
        Token::Array { len, end }
    }
}

/// An object's key at `i`, then its colon: the key, and the index of the value after
/// them. Inlined (in the two places that read keys): a call cost a sixth of reading a
/// short key.
#[inline(always)]
fn plain_key(text: &str, i: usize, owned: &mut String) -> Option<(Text, usize)> {
    if text.as_bytes().get(i) != Some(&b'"') {
        return None;
    }
    let (key, end) = plain_string(text, i, owned)?;
    let colon = skip_ws(text.as_bytes(), end);
    (text.as_bytes().get(colon) == Some(&b':')).then(|| (key, skip_ws(text.as_bytes(), colon + 1)))
}

/// The string whose opening quote is at `i`, and the index past its closing quote
/// (unescaped onto `owned` if it has escapes). Inlined, the escapes apart: most strings
/// (nearly every key) have none, and the entry and exit of a call that can handle them
/// cost a third of reading a short key.
#[inline(always)]
fn plain_string(text: &str, i: usize, owned: &mut String) -> Option<(Text, usize)> {
    let b = text.as_bytes();
    let start = i + 1;
    let j = run_end(b, start);
    match b.get(j)? {
        b'"' => Some((
            Text::Source {
                start: start as u32,
                len: (j - start) as u32,
            },
            j + 1,
        )),
        b'\\' => escaped_string(text, start, j, owned),
        _ => None, // a control character
    }
}

/// The most room [`escaped_string`] makes at once for unescaped text: a document of up
/// to this much text has its strings unescaped into one allocation.
const ESCAPED_ROOM: usize = 1 << 20;

/// [`plain_string`] from its first escape, at `j` (the string starts at `start`),
/// unescaped onto the end of `owned`. None where the string is not JSON (`owned` then
/// ends with part of it).
#[inline(never)]
fn escaped_string(text: &str, start: usize, j: usize, owned: &mut String) -> Option<(Text, usize)> {
    let at = owned.len();
    // Worked on as a local vector, whose length and capacity stay in registers.
    let mut out = std::mem::take(owned).into_bytes();
    // Room for the rest of the text (up to a bound): this string ends within it, and so
    // does every later one, which unescaped take no more room than the text they come
    // from; so below the bound the buffer is allocated once and never grown.
    out.reserve((text.len() - start).min(ESCAPED_ROOM));
    let end = unescape(text.as_bytes(), start, j, &mut out);
    // SAFETY: `out` is UTF-8: it was `owned`, then `unescape` appended the UTF-8 of
    // escaped characters, and slices of `text` (a `str`) in order, each from a character
    // boundary (just past a quote or an escape, both ASCII) to one (just before a quote,
    // backslash or control character, all ASCII; `copy_run` cuts its pieces back to there
    // before it returns). The tests compare every string with serde_json's, on every
    // vector text, cut and changed (`parse_plain_agrees_with_serde_json...`).
    *owned = unsafe { String::from_utf8_unchecked(out) };
    let text = Text::Owned {
        start: at as u32, // no more than the text read: see `plain_tokens`
        len: (owned.len() - at) as u32,
    };
    Some((text, end?))
}

/// Appends the unescaped string from `start` (its first escape at `j`) to `out`: the
/// index past its closing quote; None where it is not JSON.
#[inline(always)]
fn unescape(b: &[u8], start: usize, mut j: usize, out: &mut Vec<u8>) -> Option<usize> {
    out.extend_from_slice(&b[start..j]);
    loop {
        match *b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => {
                // A one-letter escape (nearly every one) is the byte it stands for.
                let one = ONE_LETTER_ESCAPES[usize::from(*b.get(j + 1)?)];
                if one != 0 {
                    out.push(one);
                    j += 2;
                } else {
                    let (c, next) = escaped_char(b, j + 1)?;
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    j = next;
                }
            }
            c if c < 0x20 => return None,
            _ => j = copy_run(b, j, out),
        }
    }
}

/// Appends the run of string characters from `i` to `out` (see [`run_end`]), sixteen
/// bytes at a time, then eight: each piece is copied whole, then cut back where the run
/// ends. The index of the byte that ends it.
fn copy_run(b: &[u8], mut i: usize, out: &mut Vec<u8>) -> usize {
    while let Some(chunk) = b.get(i..i + 16) {
        let chunk: &[u8; 16] = chunk.try_into().expect("sixteen bytes");
        out.extend_from_slice(chunk);
        let found = string_ends16(chunk);
        if found != 0 {
            let kept = found.trailing_zeros() as usize;
            out.truncate(out.len() - 16 + kept);
            return i + kept;
        }
        i += 16;
    }
    while let Some(chunk) = b.get(i..i + 8) {
        let chunk: [u8; 8] = chunk.try_into().expect("eight bytes");
        out.extend_from_slice(&chunk);
        let found = string_ends(u64::from_le_bytes(chunk));
        if found != 0 {
            let kept = (found.trailing_zeros() / 8) as usize;
            out.truncate(out.len() - 8 + kept);
            return i + kept;
        }
        i += 8;
    }
    let end = run_end(b, i);
    out.extend_from_slice(&b[i..end]);
    end
}

/// The end of the run of string characters from `i`: the index of the next quote,
/// backslash or control character (the bytes a JSON string escapes), or the length.
/// Sixteen bytes at a time, then eight.
pub fn run_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = bytes.get(i..i + 16) {
        let found = string_ends16(chunk.try_into().expect("sixteen bytes"));
        if found != 0 {
            return i + found.trailing_zeros() as usize;
        }
        i += 16;
    }
    while let Some(chunk) = bytes.get(i..i + 8) {
        let found = string_ends(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && !matches!(bytes[i], b'"' | b'\\' | 0x00..=0x1f) {
        i += 1;
    }
    i
}

/// The bytes of sixteen that end a run of string characters (quote, backslash,
/// control character), a bit each (bit `k` for byte `k`); the lowest is the one that
/// ends it. With SSE2 (always there on x86-64): about a third of the instructions of two
/// words.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn string_ends16(chunk: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of x86-64 itself (every x86-64 processor has it, and the
    // target enables it), so its intrinsics may be called. `chunk` is sixteen readable
    // bytes, and `_mm_loadu_si128` reads sixteen bytes with no alignment required.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // A control character is its own minimum with 0x1f (unsigned).
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
    }
}

#[cfg(not(target_arch = "x86_64"))]
use string_ends16_by_words as string_ends16;

/// [`string_ends16`] from two words (for processors other than x86-64): only its lowest
/// bit, the byte that ends the run, which is all its callers read.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))] // there: compared in the tests
#[inline(always)]
fn string_ends16_by_words(chunk: &[u8; 16]) -> u32 {
    let (low, high) = chunk.split_at(8);
    let word = |half: &[u8]| string_ends(u64::from_le_bytes(half.try_into().expect("eight")));
    match (word(low), word(high)) {
        (0, 0) => 0,
        (0, found) => 1 << (8 + found.trailing_zeros() / 8),
        (found, _) => 1 << (found.trailing_zeros() / 8),
    }
}

/// The bytes of eight (read little-endian into `word`) that end a run of string
/// characters (quote, backslash, control character), each flagged by its high bit. The
/// lowest flag is always a real match (borrows only run upwards); higher ones may not be.
#[inline(always)]
fn string_ends(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte is zero in `x` where it matched; standard "has a zero byte" trick.
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let quote = zero(word ^ (ONES * u64::from(b'"')));
    let backslash = zero(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    quote | backslash | control
}

/// The character of the JSON escape whose letter is at `b[i]` (just past the
/// backslash), and where the text goes on; None for an escape JSON does not allow, a
/// lone surrogate, or one cut off by the end of the text. Always inlined: the
/// one-letter escapes (most of them: the quotes of JSON text inside a string) cost a
/// table lookup; `\u` escapes go to a function of their own.
#[inline(always)]
pub fn escaped_char(b: &[u8], i: usize) -> Option<(char, usize)> {
    let letter = *b.get(i)?;
    match ONE_LETTER_ESCAPES[usize::from(letter)] {
        0 if letter == b'u' => unicode_escape(b, i + 1),
        0 => None,
        byte => Some((char::from(byte), i + 1)),
    }
}

/// The byte each one-letter escape stands for, by its letter (`n`: a line feed); 0 for
/// the other bytes (`u` among them).
static ONE_LETTER_ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// The character of a `\uXXXX` escape whose digits start at `b[i]` (a high surrogate
/// joined with the escaped low one that must follow), and where the text goes on.
#[inline(never)]
fn unicode_escape(b: &[u8], i: usize) -> Option<(char, usize)> {
    let high = hex4(b, i)?;
    let end = i + 4;
    match high {
        // A high surrogate must be followed by an escaped low one.
        0xD800..=0xDBFF => {
            if b.get(end..end + 2)? != b"\\u" {
                return None;
            }
            let low = hex4(b, end + 2)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return None;
            }
            let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
            Some((char::from_u32(code)?, end + 6))
        }
        0xDC00..=0xDFFF => None,
        code => Some((char::from_u32(code)?, end)),
    }
}

#[inline]
fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let digits = b.get(i..i + 4)?;
    digits.iter().try_fold(0u32, |code, &d| {
        let digit = HEX_DIGITS[usize::from(d)];
        (digit < 16).then_some(code * 16 + u32::from(digit))
    })
}

/// The value of each hexadecimal digit byte; 16 for the other bytes.
static HEX_DIGITS: [u8; 256] = {
    let mut table = [16u8; 256];
    let mut d = 0;
    while d < 10 {
        table[b'0' as usize + d] = d as u8;
        d += 1;
    }
    let mut d = 0;
    while d < 6 {
        table[b'a' as usize + d] = 10 + d as u8;
        table[b'A' as usize + d] = 10 + d as u8;
        d += 1;
    }
    table
};

/// The end of the JSON number at `i` (`-`? int frac? exp?), checked as JSON writes it.
fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut i: usize| {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i > start).then_some(i)
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    i = match b.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(i)?,
        _ => return None,
    };
    if b.get(i) == Some(&b'.') {
        i = digits(i + 1)?;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits(i)?;
    }
    Some(i)
}

/// Parse text; strings without escapes point into it.
pub fn parse_str(text: &str) -> Result<Tape<'_>, JsonError> {
    let (tokens, owned) = tokens_of(text)?;
    Ok(Tape {
        source: Cow::Borrowed(text),
        owned,
        tokens,
    })
}

/// Parse text and keep it: the tape owns its source. On error the text comes back.
pub fn parse_string(text: String) -> Result<Tape<'static>, (JsonError, String)> {
    match tokens_of(&text) {
        Ok((tokens, owned)) => Ok(Tape {
            source: Cow::Owned(text),
            owned,
            tokens,
        }),
        Err(err) => Err((err, text)),
    }
}

/// The tokens of `text` and the text they own.
fn tokens_of(text: &str) -> Result<(Vec<Token>, String), JsonError> {
    // The hand-written pass reads most documents, and reads them as serde_json does
    // (`parse_plain`); serde_json reads the rest and reports their errors.
    if u32::try_from(text.len()).is_ok() {
        if let Some(tokens) = plain_tokens(text) {
            return Ok(tokens);
        }
    }
    tokens_with(text, None)
}

fn tokens_with(text: &str, keep: Option<&Keep>) -> Result<(Vec<Token>, String), JsonError> {
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
    let result = Builder {
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
struct Builder<'t> {
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

impl Builder<'_> {
    /// The builder of a member's value, or None when it is to be skipped.
    fn member(&mut self, key: &Text) -> Option<Builder<'_>> {
        let keep = match self.keep {
            None => None,
            Some(keep) if keep.all => None,
            Some(keep) => Some(keep.member(key.resolve(self.text, self.owned))?),
        };
        Some(Builder {
            tokens: self.tokens,
            owned: self.owned,
            source: self.source,
            depth: self.depth,
            keep: keep.filter(|k| !k.all),
            text: self.text,
        })
    }

    /// The builder of an array's items, or None when they are to be skipped.
    fn items(&mut self) -> Option<Builder<'_>> {
        let keep = match self.keep {
            None => None,
            Some(keep) if keep.all => None,
            Some(keep) => Some(keep.items.as_deref()?),
        };
        Some(Builder {
            tokens: self.tokens,
            owned: self.owned,
            source: self.source,
            depth: self.depth,
            keep: keep.filter(|k| !k.all),
            text: self.text,
        })
    }

    fn enter<E: de::Error>(&mut self) -> Result<(), E> {
        enter(&mut self.depth)
    }

    /// Fill in the container token pushed at `at` once its contents are on the tape.
    fn close(&mut self, at: usize, len: usize, object: bool) {
        let (len, end) = (len as u32, self.tokens.len() as u32);
        self.tokens[at] = if object {
            Token::Object { len, end }
        } else {
            Token::Array { len, end }
        };
    }

    fn key(&mut self) -> Key<'_> {
        Key {
            source: self.source,
            owned: self.owned,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Builder<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        // Grow the stack on the heap when deep nesting would otherwise overflow it.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            deserializer.deserialize_any(self)
        })
    }
}

impl<'de> Visitor<'de> for Builder<'_> {
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

/// Python's limit on the digits of an integer read from text
/// (`sys.get_int_max_str_digits()`, 0 for none): the Python layer sets it at each call.
static INT_MAX_STR_DIGITS: AtomicUsize = AtomicUsize::new(4300);

pub fn set_int_max_str_digits(limit: usize) {
    INT_MAX_STR_DIGITS.store(limit, Ordering::Relaxed);
}

/// Whether an integer's text has more digits than Python converts (`json.loads` refuses
/// it; converting it would take quadratic time): arguments holding one are not decoded.
pub fn is_too_long_int(text: &str) -> bool {
    let limit = INT_MAX_STR_DIGITS.load(Ordering::Relaxed);
    limit != 0 && text.len() > limit && text.trim_start_matches('-').len() > limit
}

/// Whether the text on `tape` has an integer with more digits than Python converts
/// (`json.loads` refuses the text, even where a duplicate key's later value replaces it).
pub fn holds_too_long_int(tape: &Tape<'_>) -> bool {
    tape.tokens
        .iter()
        .any(|token| matches!(token, Token::BigInt(digits) if is_too_long_int(tape.text(digits))))
}

/// Whether the value at `idx`, as decoded (a replaced duplicate's value is not part of
/// it), holds an integer with more digits than Python converts.
pub fn value_holds_too_long_int(tape: &Tape<'_>, idx: usize) -> bool {
    // Almost always none at all: one scan of the tokens, no walk.
    let any = tape.tokens[idx..tape.skip(idx)]
        .iter()
        .any(|token| matches!(token, Token::BigInt(digits) if is_too_long_int(tape.text(digits))));
    any && live_holds_too_long_int(tape, idx)
}

fn live_holds_too_long_int(tape: &Tape<'_>, idx: usize) -> bool {
    match &tape.tokens[idx] {
        Token::BigInt(digits) => is_too_long_int(tape.text(digits)),
        Token::Array { end, .. } => {
            let mut at = idx + 1;
            while at < *end as usize {
                if nested_holds_too_long_int(tape, at) {
                    return true;
                }
                at = tape.skip(at);
            }
            false
        }
        Token::Object { len, end } => tape
            .members(idx, (*len as usize, *end as usize))
            .into_iter()
            .any(|(_, value)| nested_holds_too_long_int(tape, value)),
        _ => false,
    }
}

fn nested_holds_too_long_int(tape: &Tape<'_>, idx: usize) -> bool {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        value_holds_too_long_int(tape, idx)
    })
}

/// A float's token from its (valid) text: beyond the float range it is ±inf, as in
/// Python, and its text is kept (`place`: where the tape keeps it).
pub fn float_token(text: &str, place: impl FnOnce() -> Text) -> Token {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Token::Float(value),
        Ok(_) => Token::HugeFloat(place()),
        Err(_) => Token::Float(f64::NAN),
    }
}

/// A number's text from serde_json: a float, or an integer beyond 64 bits (`place`:
/// where the tape keeps a text it keeps).
pub fn number_token(text: &str, place: impl FnOnce() -> Text) -> Token {
    if text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        float_token(text, place)
    } else if let Ok(small) = text.parse::<i64>() {
        Token::Int(small) // "-0", which serde_json hands over as text
    } else {
        Token::BigInt(place())
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

#[cfg(test)]
pub(crate) mod tests {
    /// `run_end` and `copy_run` (sixteen bytes at a time, then eight, then one) against a
    /// byte at a time: every end byte at every place of texts up to 48 bytes, among
    /// string bytes that look close (DEL, space, bytes with the high bit set), from
    /// every start up to 17.
    #[test]
    fn runs_end_at_the_first_quote_backslash_or_control_byte() {
        let is_end = |b: u8| matches!(b, b'"' | b'\\' | 0x00..=0x1f);
        for filler in [b'a', b' ', 0x7f, 0x80, 0xbf, 0xff] {
            for len in 0..48 {
                for end in [None, Some(b'"'), Some(b'\\'), Some(0x00), Some(0x1f)] {
                    for at in 0..len.max(1) {
                        let mut bytes = vec![filler; len];
                        if let (Some(end), true) = (end, at < len) {
                            bytes[at] = end;
                        }
                        for start in 0..=len.min(17) {
                            let expected = (start..len).find(|&k| is_end(bytes[k])).unwrap_or(len);
                            assert_eq!(super::run_end(&bytes, start), expected);
                            let mut out = b"kept".to_vec();
                            assert_eq!(super::copy_run(&bytes, start, &mut out), expected);
                            assert_eq!(out[4..], bytes[start..expected]);
                            if let Some(chunk) = bytes.get(start..start + 16) {
                                let chunk = chunk.try_into().expect("sixteen bytes");
                                let lowest = |found: u32| found & found.wrapping_neg();
                                assert_eq!(
                                    lowest(super::string_ends16(chunk)),
                                    super::string_ends16_by_words(chunk)
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn parse_plain_builds_the_tape_parse_builds() {
        let documents = [
            r#"{"a": [1, -0, 2.5, 1E+2, 1e-7, 18446744073709551616, -9223372036854775808]}"#,
            "[18446744073709551615, 9223372036854775808, -9223372036854775809]",
            r#" {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a"}}]},"finish_reason":null}]} "#,
            r#"["x\u00e9\ud83d\ude00\n\t\/\\\"\b\f\r", "plain é", true, false, null, {}, []]"#,
            r#"{"a":{"a":1,"a":2},"":""}"#,
            "0",
            r#""\u0000""#,
        ];
        for text in documents {
            let plain = parse_plain(text.as_bytes()).expect(text);
            assert_eq!(plain, serde_parse(text.as_bytes()).unwrap(), "{text}");
            assert_eq!(plain, parse(text.as_bytes()).unwrap(), "{text}");
        }
        let refused = [
            "", " ", "{", "[1,]", "{\"a\" 1}", "01", "1.", "1e", "-", "tru", "\"\\ud800\"",
            "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\u{1}\"", "\"\\x\"", "[1] 2", "{\"a\":1,}",
            "NaN", "1e400", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        ];
        for text in refused {
            assert!(parse_plain(text.as_bytes()).is_none(), "{text}");
        }
        assert!(parse_plain(b"\"\xff\"").is_none());
    }

    /// Every byte after a backslash, alone in a string and between text: read (or
    /// refused) as serde_json reads it.
    #[test]
    fn every_escape_letter_as_serde_json() {
        for letter in 0..=255u8 {
            for (before, after) in [("", ""), ("ab", "cd")] {
                let mut text = format!("\"{before}\\").into_bytes();
                text.push(letter);
                text.extend_from_slice(format!("{after}\"").as_bytes());
                let serde = serde_parse(&text).ok();
                assert_eq!(parse_plain(&text), serde, "{:?}", text);
            }
        }
    }

    use super::*;

    /// What `parse` did before its hand-written pass: serde_json alone.
    fn serde_parse(input: &[u8]) -> Result<Tape<'_>, JsonError> {
        let text = std::str::from_utf8(input).map_err(|err| JsonError {
            pos: err.valid_up_to(),
            message: "invalid UTF-8".to_owned(),
        })?;
        let (tokens, owned) = tokens_with(text, None)?;
        Ok(Tape {
            source: Cow::Borrowed(text),
            owned,
            tokens,
        })
    }

    /// Every text in the vectors: the documents (compact), and the strings inside them
    /// (responses, argument text, pieces of it, SSE).
    pub(crate) fn vector_texts() -> Vec<String> {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
        let mut texts = Vec::new();
        let mut todo = Vec::new();
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                todo.push(serde_json::from_str::<serde_json::Value>(&text).unwrap());
            }
        }
        while let Some(value) = todo.pop() {
            match &value {
                serde_json::Value::Object(map) => {
                    texts.push(serde_json::to_string(&value).unwrap());
                    todo.extend(map.values().cloned());
                }
                serde_json::Value::Array(items) => todo.extend(items.iter().cloned()),
                serde_json::Value::String(text) => texts.push(text.clone()),
                _ => {}
            }
        }
        texts.sort();
        texts.dedup();
        texts
    }

    /// What `parse_plain` reads, it reads as serde_json does: every text of the vectors
    /// whole; and every prefix of those of up to 400 bytes, and each of them with one
    /// byte changed anywhere (into bytes that end strings, escape, close, separate,
    /// start a number, or start a UTF-8 sequence).
    #[test]
    fn parse_plain_agrees_with_serde_json_on_cut_and_changed_texts() {
        let texts = vector_texts();
        assert!(texts.len() > 1000, "{} texts", texts.len());
        let (mut read, mut checked) = (0, 0);
        let mut check = |text: &[u8]| {
            checked += 1;
            let parsed = serde_parse(text);
            if let Some(plain) = parse_plain(text) {
                read += 1;
                match &parsed {
                    Ok(parsed) => assert_eq!(&plain, parsed, "{:?}", String::from_utf8_lossy(text)),
                    Err(err) => panic!(
                        "{:?}: plain read what serde_json refuses ({err:?})",
                        String::from_utf8_lossy(text)
                    ),
                }
            }
            // `parse` is the one or the other.
            assert_eq!(parse(text), parsed, "{:?}", String::from_utf8_lossy(text));
        };
        for text in &texts {
            check(text.as_bytes());
        }
        for text in texts.iter().filter(|text| text.len() <= 400) {
            let bytes = text.as_bytes();
            for end in 0..=bytes.len() {
                check(&bytes[..end]);
            }
            let mut changed = bytes.to_vec();
            for at in 0..bytes.len() {
                for byte in [
                    b'"', b'\\', b'{', b']', b',', b':', b'0', b'-', b'e', b'.', b' ', 0xc3,
                ] {
                    changed[at] = byte;
                    check(&changed);
                }
                changed[at] = bytes[at];
            }
        }
        assert!(
            read > 1000 && checked > 10 * read / 9,
            "{read} of {checked} read"
        );
    }

    #[test]
    fn scalars_and_containers() {
        let tape = parse(br#"{"a":[1,-2,1.5,true,null,"x"],"b":{}}"#).unwrap();
        assert_eq!(tape.tokens[0], Token::Object { len: 2, end: 11 });
        assert_eq!(tape.tokens[2], Token::Array { len: 6, end: 9 });
        assert_eq!(tape.tokens[3], Token::Int(1));
        assert_eq!(tape.tokens[4], Token::Int(-2));
        assert_eq!(tape.tokens[5], Token::Float(1.5));
        assert_eq!(tape.tokens[10], Token::Object { len: 0, end: 11 });
    }

    #[test]
    fn big_numbers_exact() {
        let tape = parse(
            b"[18446744073709551615, 18446744073709551616, -9223372036854775809, 1e400, 0.1]",
        )
        .unwrap();
        assert_eq!(tape.tokens[1], Token::UInt(u64::MAX));
        let text = |idx: usize| match &tape.tokens[idx] {
            Token::BigInt(text) => ("BigInt", tape.text(text)),
            Token::HugeFloat(text) => ("HugeFloat", tape.text(text)),
            other => panic!("{other:?}"),
        };
        assert_eq!(text(2), ("BigInt", "18446744073709551616"));
        assert_eq!(text(3), ("BigInt", "-9223372036854775809"));
        assert_eq!(text(4), ("HugeFloat", "1e+400"));
        assert_eq!(tape.tokens[5], Token::Float(0.1));
        let tape = parse(br#"{"$serde_json::private::Number": "1.5", "k\u0041": "a\n"}"#).unwrap();
        assert_eq!(tape.tokens[0], Token::Object { len: 2, end: 5 });
        assert_eq!(tape.str_at(1), Some("$serde_json::private::Number"));
        assert_eq!(tape.str_at(2), Some("1.5"));
        assert_eq!(tape.str_at(3), Some("kA"));
        assert_eq!(tape.str_at(4), Some("a\n"));
    }

    #[test]
    fn depth_limit() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(ok.as_bytes()).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let err = parse(deep.as_bytes()).unwrap_err();
        assert!(err.message.contains("nesting deeper than 1024"), "{err}");
        let err = parse("[".repeat(100_000).as_bytes()).unwrap_err();
        assert!(err.message.contains("nesting"), "{err}");
        let objects = "{\"a\":".repeat(100_000);
        assert!(parse(objects.as_bytes()).is_err());
    }

    #[test]
    fn invalid_text() {
        for bad in [
            &b""[..],
            b"[1,]",
            b"NaN",
            b"{\"a\" 1}",
            b"\"\xff\"",
            b"\"\\ud800\"",
            b"\"\\udc00\"",
            b"{} x",
            b"01",
            b"1.",
            b"\xef\xbb\xbf{}",
            b"\"a\x01\"",
        ] {
            assert!(parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
