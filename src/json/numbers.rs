//! JSON numbers: where one ends ([`number_end`]), its token ([`number_token`]: integers
//! exact at any size, floats correctly rounded, beyond the float range `inf` that keeps
//! its text), and integers with more digits than Python converts.

use super::tape::{Tape, Text, Token};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The end of the JSON number at `i` (`-`? int frac? exp?), checked as JSON writes it.
pub fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
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
fn float_token(text: &str, place: impl FnOnce() -> Text) -> Token {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Token::Float(value),
        Ok(_) => Token::HugeFloat(place()),
        Err(_) => Token::Float(f64::NAN),
    }
}

/// The token of valid JSON number text (read by a scanner, or handed over by serde_json):
/// integers exact at any size (beyond 64 bits as their text), floats correctly rounded
/// (beyond the float range, infinite, as in Python, with their text kept). `place`: where
/// the tape keeps a text it keeps. Inlined into the hand-written pass, as it was before
/// its sinks could take numbers' text: called apart, it cost that pass 2% of its time.
#[inline(always)]
pub fn number_token(text: &str, place: impl FnOnce() -> Text) -> Token {
    if text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        float_token(text, place)
    } else if let Ok(small) = text.parse::<i64>() {
        Token::Int(small) // also "-0", which serde_json hands over as text
    } else if let Ok(unsigned) = text.parse::<u64>() {
        Token::UInt(unsigned)
    } else {
        Token::BigInt(place())
    }
}
