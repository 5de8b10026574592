//! JSON strings: the end of a run of string characters (sixteen bytes at a time),
//! escapes decoded ([`escaped_char`]) and strings unescaped onto the text a reader owns,
//! and the one writer of JSON strings ([`write_str`]), as Python's `json.dumps` writes
//! them.

use super::tape::Text;
use std::fmt::Write;
use std::mem::MaybeUninit;

/// The most room [`escaped_string`] makes at once for unescaped text: a document of up
/// to this much text has its strings unescaped into one allocation.
const ESCAPED_ROOM: usize = 1 << 20;

/// [`plain_string`] from its first escape, at `j` (the string starts at `start`),
/// unescaped onto the end of `owned`. None where the string is not JSON (`owned` then
/// ends with part of it).
#[inline(never)]
pub(super) fn escaped_string(
    text: &str,
    start: usize,
    j: usize,
    owned: &mut String,
) -> Option<(Text, usize)> {
    unescaped(text, (start, j), owned, Pieces::fastest())
}

/// [`escaped_string`] with the pieces of `pieces`.
#[inline(always)]
fn unescaped(
    text: &str,
    (start, j): (usize, usize),
    owned: &mut String,
    pieces: Pieces,
) -> Option<(Text, usize)> {
    let at = owned.len();
    // Worked on as a local vector, whose length and capacity stay in registers.
    let mut out = std::mem::take(owned).into_bytes();
    // Room for the rest of the text (up to a bound) and a piece of `unescape_into`: this
    // string ends within it, and so does every later one, which unescaped take no more
    // room than the text they come from; so below the bound the buffer is allocated
    // once and never grown.
    out.reserve((text.len() - start).min(ESCAPED_ROOM) + UNESCAPE_ROOM);
    let end = unescape(text.as_bytes(), start, j, &mut out, pieces);
    // SAFETY: `out` is UTF-8: it was `owned`, then `unescape` appended, in order, the
    // UTF-8 of escaped characters and the bytes of `text` (a `str`) between them, from
    // just past an escape (ASCII) up to just before a quote, backslash or control
    // character (ASCII), or the end of the text: so each run of bytes appended starts
    // and ends on a character boundary, whichever piece it was copied in. (A compressed
    // piece appends its sixteen bytes of `text` but the backslashes that start its
    // escapes, each of which stands for its own letter: that is the same bytes, run by
    // run and escape by escape.) The tests compare every string with serde_json's, on
    // every vector text, cut and changed (`parse_plain_agrees_with_serde_json...`), and
    // at every offset of the pieces, each way of reading them
    // (`unescapes_at_every_offset`).
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
fn unescape(
    b: &[u8],
    start: usize,
    mut j: usize,
    out: &mut Vec<u8>,
    pieces: Pieces,
) -> Option<usize> {
    out.extend_from_slice(&b[start..j]);
    loop {
        if out.capacity() - out.len() < UNESCAPE_ROOM {
            out.reserve((b.len() - j).clamp(UNESCAPE_ROOM, ESCAPED_ROOM));
        }
        let len = out.len();
        let room = out.spare_capacity_mut();
        let (next, written, stop) = match pieces {
            Pieces::Plain => unescape_into::<false>(b, j, room),
            // SAFETY: `Pieces::Compressed` is only made where the processor has SSSE3.
            #[cfg(target_arch = "x86_64")]
            Pieces::Compressed => unsafe { unescape_into_ssse3(b, j, room) },
        };
        // SAFETY: `unescape_into` initialized the first `written` bytes of the spare room
        // (the count it returns), which now follow the `len` bytes `out` held.
        unsafe { out.set_len(len + written) };
        j = next;
        match stop {
            Stop::Quote => return Some(j + 1),
            Stop::Invalid => return None,
            Stop::Room => continue,
            Stop::Tail => return unescape_tail(b, j, out),
        }
    }
}

/// Where [`unescape_into`] stopped, at the index it returns.
enum Stop {
    /// At the closing quote.
    Quote,
    /// At what is not JSON: a control character, or an escape JSON does not allow, a
    /// lone surrogate or one cut off by the end of the text.
    Invalid,
    /// Short of room: the next piece might not fit.
    Room,
    /// Fewer than sixteen bytes of text are left.
    Tail,
}

/// Room for a piece of [`unescape_into`]: sixteen bytes, and the widest character an
/// escape in them writes (four bytes).
const UNESCAPE_ROOM: usize = 20;

/// The string's text from `j` unescaped into `room`, sixteen bytes at a time: each piece
/// is written whole, then the place written to and the text go on from where the run of
/// string characters in it ends (its quote, backslash or control byte), past an escape,
/// whose character is written there. The index of the text and the bytes of `room`
/// written (all initialized, from the first on), where it stopped and why.
/// With `COMPRESS` (only where the processor has SSSE3: see [`Pieces`]), a piece whose
/// escapes all stand for their own letter (`\"`, `\\`, `\/`: the quotes of JSON text
/// inside a string, and its own escapes) is written at once, without the backslashes
/// that start them.
#[inline(always)]
fn unescape_into<const COMPRESS: bool>(
    b: &[u8],
    mut j: usize,
    room: &mut [MaybeUninit<u8>],
) -> (usize, usize, Stop) {
    let mut o = 0;
    loop {
        let Some(piece) = b.get(j..j + 16) else {
            return (j, o, Stop::Tail);
        };
        let Some(to) = room.get_mut(o..o + UNESCAPE_ROOM) else {
            return (j, o, Stop::Room);
        };
        let piece: &[u8; 16] = piece.try_into().expect("sixteen bytes");
        write_bytes(to, piece);
        let found = string_ends16(piece);
        if found == 0 {
            (j, o) = (j + 16, o + 16);
            continue;
        }
        let kept = found.trailing_zeros() as usize;
        // Tried where the first escape stands for its letter: not on a run of `\u`
        // escapes (text dumped as ASCII), which a piece never compresses.
        #[cfg(target_arch = "x86_64")]
        if COMPRESS
            && piece[kept] == b'\\'
            && matches!(b.get(j + kept + 1), Some(b'"' | b'\\' | b'/'))
        {
            // SAFETY: with `COMPRESS`, this runs inside `unescape_into_ssse3` only.
            if let Some(written) = unsafe { compressed(piece, found, to) } {
                (j, o) = (j + 16, o + written);
                continue;
            }
        }
        (j, o) = (j + kept, o + kept);
        if piece[kept] != b'\\' {
            let stop = if piece[kept] == b'"' {
                Stop::Quote
            } else {
                Stop::Invalid
            };
            return (j, o, stop);
        }
        // A one-letter escape (nearly every one) is the byte it stands for.
        let letter = b.get(j + 1).copied().unwrap_or(0);
        let one = ONE_LETTER_ESCAPES[usize::from(letter)];
        if one != 0 {
            to[kept].write(one);
            (j, o) = (j + 2, o + 1);
            continue;
        }
        let Some((c, next)) = escaped_char(b, j + 1) else {
            return (j, o, Stop::Invalid);
        };
        let mut utf8 = [0; 4];
        let utf8 = c.encode_utf8(&mut utf8).as_bytes();
        // Within `to`: at most four bytes from `kept`, which is below sixteen.
        write_bytes(&mut to[kept..], utf8);
        (j, o) = (next, o + utf8.len());
    }
}

/// `bytes` written at the start of `to` (which is at least as long), in one copy.
#[inline(always)]
fn write_bytes(to: &mut [MaybeUninit<u8>], bytes: &[u8]) {
    let to = &mut to[..bytes.len()];
    // SAFETY: `to` and `bytes` have the same length (the slice above), a `&mut` slice
    // overlaps no `&` one, and `MaybeUninit<u8>` has the layout of `u8`.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), to.as_mut_ptr().cast(), bytes.len()) }
}

/// How [`unescape_into`] reads its pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pieces {
    /// Escape by escape.
    Plain,
    /// Compressed where they can be (x86-64 with SSSE3, which has a byte shuffle).
    #[cfg(target_arch = "x86_64")]
    Compressed,
}

impl Pieces {
    /// The fastest way this processor has.
    #[inline(always)]
    fn fastest() -> Pieces {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            return Pieces::Compressed;
        }
        Pieces::Plain
    }
}

/// [`unescape_into`] compressing its pieces, compiled for SSSE3.
///
/// # Safety
/// The processor has SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn unescape_into_ssse3(
    b: &[u8],
    j: usize,
    room: &mut [MaybeUninit<u8>],
) -> (usize, usize, Stop) {
    unescape_into::<true>(b, j, room)
}

/// A piece (`found`: its bytes that end a run, [`string_ends16`]) written to `to` without the backslashes that start its escapes, where every one
/// of them stands for its letter and is whole in the piece, and nothing else in it ends
/// a run (a quote, a control character): the bytes written. None for any other piece,
/// `to` then unchanged.
///
/// # Safety
/// The processor has SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
#[inline]
unsafe fn compressed(piece: &[u8; 16], found: u32, to: &mut [MaybeUninit<u8>]) -> Option<usize> {
    use std::arch::x86_64::{
        _mm_add_epi8, _mm_cmpeq_epi8, _mm_loadl_epi64, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8, _mm_shuffle_epi8, _mm_storel_epi64,
    };
    if to.len() < 16 {
        return None;
    }
    // SAFETY: the caller's processor has SSSE3 (and SSE2, part of x86-64), so these
    // intrinsics may be called. The loads read sixteen bytes of `piece` and eight of a
    // table row, with no alignment required. `to` has room for sixteen bytes (checked
    // above); each store writes eight, the second from `low_len` (at most
    // eight) on. The bytes written past the kept ones are overwritten by what comes next
    // or left past the length returned.
    unsafe {
        let v = _mm_loadu_si128(piece.as_ptr().cast());
        let is = |byte: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8));
        let backslashes = _mm_movemask_epi8(is(b'\\')) as u32;
        let own_letters =
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(is(b'"'), is(b'\\')), is(b'/'))) as u32;
        let starts = escape_starts(backslashes);
        let letters = starts << 1;
        if letters > 0xFFFF || letters & !own_letters != 0 || found & !(starts | letters) != 0 {
            return None;
        }
        // Each half's kept bytes, moved to its front (a half's shuffle picks bytes of the
        // whole piece: the high half's picks are eight on).
        let (low, high) = ((starts & 0xFF) as usize, (starts >> 8) as usize);
        let shuffle = |dropped: usize| _mm_loadl_epi64(KEPT_BYTES[dropped].as_ptr().cast());
        let low_kept = _mm_shuffle_epi8(v, shuffle(low));
        let high_kept = _mm_shuffle_epi8(v, _mm_add_epi8(shuffle(high), _mm_set1_epi8(8)));
        let low_len = usize::from(KEPT_COUNT[low]);
        _mm_storel_epi64(to.as_mut_ptr().cast(), low_kept);
        _mm_storel_epi64(to.as_mut_ptr().add(low_len).cast(), high_kept);
        Some(low_len + usize::from(KEPT_COUNT[high]))
    }
}

/// The backslashes (a bit each, the first of the piece not itself escaped) that start an
/// escape: from the first on, each that is not the letter of the one before; in a run
/// of them, every other one. At once, without a loop: subtracting a run's lowest bit
/// from it, above the odd bits set, flips the bits of the run up to past its end, which
/// tells a run that starts on an even place from one that starts on an odd one.
#[inline(always)]
fn escape_starts(backslashes: u32) -> u32 {
    const ODD: u32 = 0xAAAA_AAAA;
    ((((backslashes << 1) | ODD).wrapping_sub(backslashes)) ^ ODD) & backslashes
}

/// For each set of bytes of eight to drop (a bit each): the indices of the others, in
/// order (a byte shuffle's picks; the zeros after them pick bytes written past the
/// kept ones).
#[cfg(target_arch = "x86_64")]
static KEPT_BYTES: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut dropped = 0;
    while dropped < 256 {
        let (mut at, mut kept) = (0, 0);
        while at < 8 {
            if dropped & (1 << at) == 0 {
                table[dropped][kept] = at as u8;
                kept += 1;
            }
            at += 1;
        }
        dropped += 1;
    }
    table
};

/// For each set of bytes of eight to drop: how many are kept.
#[cfg(target_arch = "x86_64")]
static KEPT_COUNT: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut dropped = 0;
    while dropped < 256 {
        table[dropped] = 8 - (dropped as u8).count_ones() as u8;
        dropped += 1;
    }
    table
};

/// The rest of the string from `j` (fewer than sixteen bytes of text are left), a byte
/// at a time; as [`unescape`].
fn unescape_tail(b: &[u8], mut j: usize, out: &mut Vec<u8>) -> Option<usize> {
    loop {
        match *b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => {
                let (c, next) = escaped_char(b, j + 1)?;
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                j = next;
            }
            c if c < 0x20 => return None,
            c => {
                out.push(c);
                j += 1;
            }
        }
    }
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

/// A JSON string as `json.dumps(..., ensure_ascii=False)` writes it: `\"`, `\\`, `\n`,
/// `\r`, `\t`, `\b`, `\f`, and `\u00XX` (lowercase hex) for the other control characters
/// below U+0020; everything else as it is.
pub fn write_str(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    write_str_body(s, out);
    out.push('"');
}

/// The inside of [`write_str`]'s output: `s` escaped, without the quotes.
pub fn write_str_body(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        i = run_end(bytes, i);
        if i >= bytes.len() {
            break;
        }
        let b = bytes[i];
        // Only ASCII bytes are escaped, so `i` is on a character boundary.
        out.push_str(&s[start..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        i += 1;
        start = i;
    }
    out.push_str(&s[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `run_end` (sixteen bytes at a time, then eight, then one) against a byte at a
    /// time: every end byte at every place of texts up to 48 bytes, among string bytes
    /// that look close (DEL, space, bytes with the high bit set), from every start up to
    /// 17.
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

    /// `escaped_string` against serde_json's reader: each escape (and a character of
    /// each width, and a control byte, which is not JSON) at every place of strings up
    /// to 48 bytes, after text already owned, so that the sixteen-byte pieces, the room
    /// they are written to and the tail meet it at every offset; and a string longer
    /// than the room made at once.
    #[test]
    fn unescapes_at_every_offset() {
        let specials = [
            r#"\""#,
            r"\\",
            r"\/",
            r"\b",
            r"\f",
            r"\n",
            r"\r",
            r"\t",
            r"\u00e9",
            r"\u20ac",
            r"\ud83d\ude00",
            r"\ud83d",
            r"\x",
            r#"\"\\\/"#,
            r#"\\\""#,
            r"\\\\\\\\",
            r#"\"a\"b\"c\"d\"e\"f\"g\"h\"i"#,
            r#"\"\n\""#,
            "é",
            "€",
            "😀",
            "\u{1}",
        ];
        let check = |body: &str| {
            let json = format!("\"{body}\"");
            let expected: Option<String> = serde_json::from_str(&json).ok();
            let first = 1 + body.find('\\').unwrap_or(0);
            // Escape by escape, and compressed (where this processor can).
            for pieces in [Pieces::Plain, Pieces::fastest()] {
                let mut owned = String::from("kept");
                match (unescaped(&json, (1, first), &mut owned, pieces), &expected) {
                    (Some((text, end)), Some(expected)) => {
                        assert_eq!(end, json.len(), "{json} {pieces:?}");
                        assert_eq!(text.resolve("", &owned), expected, "{json} {pieces:?}");
                    }
                    (None, None) => assert!(owned.starts_with("kept"), "{json}"),
                    (found, expected) => panic!("{json} {pieces:?}: {found:?} but {expected:?}"),
                }
            }
        };
        for len in 0..48 {
            for at in 0..=len {
                for special in specials {
                    for next in ["", r"\n", "a"] {
                        let mut body = "a".repeat(len);
                        body.insert_str(at, special);
                        body.insert_str(0, r"\t"); // the string's first escape
                        body.push_str(next);
                        check(&body);
                    }
                }
            }
        }
        check(&r#"ab\"cd\\ef\u00e9"#.repeat(ESCAPED_ROOM / 8));
    }

    /// `escape_starts` against a walk over the backslashes, for every piece.
    #[test]
    fn escape_starts_are_every_other_backslash_of_a_run() {
        for backslashes in 0..=u32::from(u16::MAX) {
            let (mut starts, mut rest) = (0u32, backslashes);
            while rest != 0 {
                let at = rest.trailing_zeros();
                starts |= 1 << at;
                rest &= !(3 << at);
            }
            assert_eq!(escape_starts(backslashes), starts, "{backslashes:b}");
        }
    }

    /// A piece is compressed where each of its escapes stands for its own letter and is
    /// whole in it, and nothing else in it ends a run; else it is left to the escape by
    /// escape reading.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn compresses_the_pieces_of_escapes_that_stand_for_their_letter() {
        if Pieces::fastest() != Pieces::Compressed {
            return; // no SSSE3: never compressed
        }
        let compress = |piece: &[u8]| {
            let piece: &[u8; 16] = piece.try_into().unwrap();
            let mut to = [MaybeUninit::new(b'.'); 20];
            // SAFETY: this processor has SSSE3 (`Pieces::fastest`).
            let written = unsafe { compressed(piece, string_ends16(piece), &mut to) }?;
            Some(
                to[..written]
                    .iter()
                    .map(|b| unsafe { b.assume_init() })
                    .collect::<Vec<u8>>(),
            )
        };
        let cases: [(&[u8], Option<&[u8]>); 9] = [
            (br#"a\"b\\c\/d\"eeee"#, Some(br#"a"b\c/d"eeee"#)),
            (br"\\\\\\\\\\\\\\\\", Some(br"\\\\\\\\")),
            (b"no escapes here!", Some(b"no escapes here!")),
            (br#"aaaaaaaaaaaaaa\""#, Some(br#"aaaaaaaaaaaaaa""#)),
            (br"aaaaaaaaaaaaaaa\", None), // its letter in the next piece
            (br"aaaa\naaaaaaaaaa", None), // a line feed: not its letter
            (br"aaaa\u00e9aaaaaa", None),
            (br#"aaaa\"aaaa"aaaaa"#, None),   // the string's end
            (b"aaaa\\\"aaaa\x01aaaaa", None), // not JSON
        ];
        for (piece, expected) in cases {
            assert_eq!(compress(piece).as_deref(), expected, "{piece:?}");
        }
    }

    /// `write_str` against serde_json's writer (which escapes as `json.dumps` does):
    /// every ASCII character and two wider ones, alone and beside an escape, at every
    /// place of texts up to 40 bytes (sixteen-byte pieces, eight-byte ones and the
    /// tail), appended to text already written.
    #[test]
    fn escapes_at_every_offset() {
        let specials: Vec<char> = (0u8..0x80).map(char::from).chain(['é', '😀']).collect();
        for len in 0..40 {
            for at in 0..len {
                for &special in &specials {
                    for next in [None, Some('"'), Some('\u{1f}')] {
                        let mut text: String = "a".repeat(len);
                        text.replace_range(at..at + 1, &special.to_string());
                        if let Some(next) = next {
                            text.push(next);
                            text.push('b');
                        }
                        let mut fast = String::from("x");
                        write_str(&text, &mut fast);
                        let slow = serde_json::to_string(&text).unwrap();
                        assert_eq!(fast, format!("x{slow}"), "{text:?}");
                    }
                }
            }
        }
    }
}
