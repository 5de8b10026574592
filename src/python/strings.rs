//! Rust text to Python strings: `new_str` (made without Python's decoder) and the
//! caches of the keys looked up or made again and again.

use pyo3::prelude::*;
use pyo3::types::PyString;
use std::sync::Mutex;

/// Object keys repeat across responses (the same tools, the same argument names):
/// keep their Python strings in a small direct-mapped cache.
pub(super) struct KeyCache {
    slots: Vec<Option<(Box<str>, Py<PyString>)>>,
}

const KEY_SLOTS: usize = 1024; // a power of two (`key_slot` takes the top bits)
const KEY_MAX_LEN: usize = 64;

pub(super) static KEYS: Mutex<Option<KeyCache>> = Mutex::new(None);

/// The keys the walkers look up in the caller's dicts and SDK objects: a format's few,
/// the same every time.
static FIELD_KEYS: Mutex<Option<KeyCache>> = Mutex::new(None);

/// `text` as a new Python string, made as Python's own constructor makes it (the same
/// width: one, two or four bytes a character) without its decoder: the text is already
/// checked UTF-8, so what is left is to find the widest character and copy or widen the
/// rest. ASCII text (nearly every key, name, id and argument string) is copied as it is.
#[cfg(not(feature = "abi3"))]
pub fn new_str<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyString> {
    // Empty and one-character strings are Python's shared singletons: its constructor
    // returns those.
    if text.len() < 2 {
        return PyString::new(py, text);
    }
    let bytes = text.as_bytes();
    let (chars, max_char) = if text.is_ascii() {
        (bytes.len(), 0x7F)
    } else {
        // A UTF-8 lead byte tells the range of its character (C2-C3: below 256, C4-EF:
        // below 65,536, F0-F4: beyond) and continuation bytes (80-BF) sort below every
        // lead byte, so the largest byte tells the widest character's width.
        let (widest, continuations) = widest_byte(bytes);
        let max_char = match widest {
            ..=0xC3 => 0xFF,
            0xC4..=0xEF => 0xFFFF,
            _ => 0x10_FFFF,
        };
        (bytes.len() - continuations, max_char)
    };
    let Ok(len) = pyo3::ffi::Py_ssize_t::try_from(chars) else {
        return PyString::new(py, text);
    };
    // SAFETY: we hold the GIL (`py`). `PyUnicode_New(len, max_char)` returns a new compact
    // string of `len` characters of one byte (`max_char` 127 or 255), two (65,535) or four
    // (1,114,111), with room for them and the NUL it has already written after them; or
    // NULL with an exception set, which `from_owned_ptr_or_err` turns into an error. The
    // only reference is ours until we return it, so writing its characters is unaliased.
    // `len` is the count of `text`'s characters (UTF-8: the bytes that are not continuation
    // bytes; all of them when ASCII) and exactly that many units of the width `max_char`
    // picked are written, at the data pointer of that width (aligned: CPython's own code
    // reads it as such); every character fits that width and the widest one needs it (see
    // `widest`), which is what a string of that kind must hold. Tests compare these
    // strings, their hashes, `isascii()` and sizes with Python's own, at every width.
    unsafe {
        let object = pyo3::ffi::PyUnicode_New(len, max_char);
        if !object.is_null() {
            match max_char {
                0x7F => std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    pyo3::ffi::PyUnicode_1BYTE_DATA(object),
                    chars,
                ),
                0xFF => widen(bytes, chars, pyo3::ffi::PyUnicode_1BYTE_DATA(object), |c| {
                    c as u8
                }),
                0xFFFF => widen(bytes, chars, pyo3::ffi::PyUnicode_2BYTE_DATA(object), |c| {
                    c as u16
                }),
                _ => widen(bytes, chars, pyo3::ffi::PyUnicode_4BYTE_DATA(object), |c| c),
            }
        }
        match Bound::from_owned_ptr_or_err(py, object) {
            Ok(string) => string.cast_into_unchecked::<PyString>(),
            Err(_) => PyString::new(py, text), // out of memory: Python's own path reports it
        }
    }
}

/// The stable ABI has no `PyUnicode_New` nor access to a string's characters: Python's
/// own decoder makes the string.
#[cfg(feature = "abi3")]
pub fn new_str<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyString> {
    PyString::new(py, text)
}

/// The largest byte of `bytes` and the count of its UTF-8 continuation bytes. The
/// reductions across a vector register are what cost: a block of 128 bytes (a loop the
/// compiler turns into vector instructions) has one of each; the rest goes sixteen bytes,
/// then one byte, at a time.
#[cfg(not(feature = "abi3"))]
fn widest_byte(bytes: &[u8]) -> (u8, usize) {
    let (mut widest, mut continuations) = (0, 0);
    let mut blocks = bytes.chunks_exact(128);
    for block in &mut blocks {
        let (block_widest, block_continuations) = widest_in(block);
        widest = widest.max(block_widest);
        continuations += block_continuations;
    }
    let mut chunks = blocks.remainder().chunks_exact(16);
    for chunk in &mut chunks {
        let (chunk_widest, chunk_continuations) = widest_in(chunk);
        widest = widest.max(chunk_widest);
        continuations += chunk_continuations;
    }
    let (rest_widest, rest_continuations) = widest_in(chunks.remainder());
    (widest.max(rest_widest), continuations + rest_continuations)
}

/// [`widest_byte`] of at most 255 bytes (the count is kept in a byte).
#[cfg(not(feature = "abi3"))]
#[inline(always)]
fn widest_in(bytes: &[u8]) -> (u8, usize) {
    let (mut widest, mut continuations) = (0u8, 0u8);
    for &b in bytes {
        widest = widest.max(b);
        continuations += u8::from((b as i8) < -0x40);
    }
    (widest, usize::from(continuations))
}

/// Writes the characters of the UTF-8 `bytes` to `units`, one unit each, made by `unit`
/// from the code point. ASCII is read sixteen bytes at a time: sixteen of them are
/// widened in one step (a loop the compiler turns into vector instructions), and where
/// the sixteen hold a wider character, the ASCII before it is kept and the rest written
/// again from there.
///
/// # Safety
///
/// `bytes` is UTF-8, `units` has room for `room` units, which is as many as it has
/// characters, and each character fits the unit `unit` makes of it (see `new_str`).
#[cfg(not(feature = "abi3"))]
unsafe fn widen<U: From<u8>>(bytes: &[u8], room: usize, units: *mut U, unit: impl Fn(u32) -> U) {
    let continuation = |at: usize| u32::from(bytes[at] & 0x3F);
    let (mut i, mut at) = (0, 0);
    while let Some(&lead) = bytes.get(i) {
        if lead < 0x80 {
            let ascii = match bytes.get(i..i + 16) {
                Some(chunk) if at + 16 <= room => {
                    let chunk: &[u8; 16] = chunk.try_into().expect("sixteen bytes");
                    for (k, &b) in chunk.iter().enumerate() {
                        // SAFETY: `at + 16 <= room`. The units past the ASCII ones (a
                        // wider character's bytes) are written again: `at` moves past the
                        // ASCII only, and each unit from there is written when `at`
                        // reaches it, after which nothing writes it.
                        unsafe { units.add(at + k).write(U::from(b)) };
                    }
                    ascii_prefix(chunk) // at least one: `lead`
                }
                _ => {
                    // SAFETY: one character, within the room.
                    unsafe { units.add(at).write(U::from(lead)) };
                    1
                }
            };
            (i, at) = (i + ascii, at + ascii);
            continue;
        }
        // A lead byte says how many continuation bytes follow, each adding six bits
        // (`bytes` is UTF-8, so they are there).
        let (code, len) = match lead {
            ..=0xDF => (u32::from(lead & 0x1F) << 6 | continuation(i + 1), 2),
            0xE0..=0xEF => (
                u32::from(lead & 0x0F) << 12 | continuation(i + 1) << 6 | continuation(i + 2),
                3,
            ),
            _ => (
                u32::from(lead & 0x07) << 18
                    | continuation(i + 1) << 12
                    | continuation(i + 2) << 6
                    | continuation(i + 3),
                4,
            ),
        };
        // SAFETY: one character, within the room.
        unsafe { units.add(at).write(unit(code)) };
        (i, at) = (i + len, at + 1);
    }
}

/// How many of the sixteen bytes are ASCII before the first that is not.
#[cfg(not(feature = "abi3"))]
fn ascii_prefix(chunk: &[u8; 16]) -> usize {
    let high = u128::from_le_bytes(*chunk) & 0x8080_8080_8080_8080_8080_8080_8080_8080;
    (high.trailing_zeros() / 8) as usize
}

/// `key` as a Python string, for looking it up in a dict or an object.
pub fn field_key<'py>(py: Python<'py>, key: &str) -> Bound<'py, PyString> {
    match FIELD_KEYS.try_lock() {
        Ok(mut cache) => cache.get_or_insert_with(KeyCache::new).get(py, key),
        Err(_) => new_str(py, key), // busy: a lookup from inside a lookup
    }
}

/// The slot of a key of at most `KEY_MAX_LEN` bytes: its length and its first and last
/// eight bytes (fewer when shorter), mixed. Keys are short and differ at an end nearly
/// always; two that share both ends share a slot, and the one cached there is compared.
fn key_slot(key: &[u8]) -> usize {
    let n = key.len();
    let word = |at: usize| u64::from_le_bytes(key[at..at + 8].try_into().expect("eight bytes"));
    let half = |at: usize| {
        u64::from(u32::from_le_bytes(
            key[at..at + 4].try_into().expect("four"),
        ))
    };
    let (head, tail) = match n {
        8.. => (word(0), word(n - 8)),
        4..=7 => (half(0), half(n - 4)),
        _ => (key.iter().fold(0, |h, &b| h << 8 | u64::from(b)), 0),
    };
    let mixed = (head ^ tail.rotate_left(31) ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> (64 - KEY_SLOTS.trailing_zeros())) as usize
}

impl KeyCache {
    pub(super) fn new() -> Self {
        KeyCache {
            slots: (0..KEY_SLOTS).map(|_| None).collect(),
        }
    }

    pub(super) fn get<'py>(&mut self, py: Python<'py>, key: &str) -> Bound<'py, PyString> {
        if key.len() > KEY_MAX_LEN {
            return new_str(py, key);
        }
        let slot = &mut self.slots[key_slot(key.as_bytes())];
        if let Some((cached, string)) = slot {
            if **cached == *key {
                return string.bind(py).clone();
            }
        }
        let string = new_str(py, key);
        *slot = Some((key.into(), string.clone().unbind()));
        string
    }
}
