//! A tape value as compact JSON text, byte for byte as Python writes the decoded value
//! with `json.dumps(value, separators=(",", ":"), ensure_ascii=False)`
//! (`toolsift._jsontext.dumps_compact`), so both backends fill the `arguments` column
//! with the same text:
//!
//! * duplicate keys collapse as `json.loads` collapses them: one entry per key, at the
//!   position of its first occurrence, holding the value of its last;
//! * floats as Python's `repr(float)`: the shortest digits that round-trip, in fixed
//!   notation when the decimal exponent is in -4..16 (`0.0001`, `1e+16`, `1e-05`,
//!   `100.0`); a number beyond the float range (`1e400`, `inf` in Python) as `Infinity` /
//!   `-Infinity` as `json.dumps` writes it, except in the `arguments` column
//!   ([`write_arguments`]), where it is written as it was (so the column is always JSON);
//! * integers of any size exactly;
//! * strings with `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f` and `\u00XX` (lowercase hex)
//!   for the other control characters below U+0020; everything else as raw UTF-8.

use crate::json::{run_end, Tape, Token};
use std::fmt::Write;

/// The compact JSON text of the value at `idx`.
pub fn to_string(tape: &Tape<'_>, idx: usize) -> String {
    let mut out = String::new();
    write_value(tape, idx, &mut out);
    out
}

/// The compact JSON text of the value at `idx`, always JSON: numbers beyond the float
/// range as written (for text that is parsed again).
pub fn to_json(tape: &Tape<'_>, idx: usize) -> String {
    let mut out = String::new();
    write_arguments(tape, idx, &mut out);
    out
}

/// Appends the compact JSON text of the value at `idx` to `out`.
pub fn write_value(tape: &Tape<'_>, idx: usize, out: &mut String) {
    write(tape, idx, out, false);
}

/// [`write_value`] for the `arguments` column: numbers beyond the float range are
/// written as they were (`Infinity` is not JSON).
pub fn write_arguments(tape: &Tape<'_>, idx: usize, out: &mut String) {
    write(tape, idx, out, true);
}

fn write(tape: &Tape<'_>, idx: usize, out: &mut String, as_written: bool) {
    match &tape.tokens[idx] {
        Token::Null => out.push_str("null"),
        Token::Bool(true) => out.push_str("true"),
        Token::Bool(false) => out.push_str("false"),
        Token::Int(i) => out.push_str(itoa::Buffer::new().format(*i)),
        Token::UInt(u) => out.push_str(itoa::Buffer::new().format(*u)),
        Token::BigInt(digits) => out.push_str(digits),
        Token::Float(f) => write_float(*f, out),
        Token::HugeFloat(text) if as_written => write_huge_float(text, out),
        Token::HugeFloat(text) => out.push_str(if text.starts_with('-') {
            "-Infinity"
        } else {
            "Infinity"
        }),
        Token::Str(text) => write_str(tape.text(text), out),
        Token::Array { end, .. } => {
            out.push('[');
            let mut at = idx + 1;
            while at < *end as usize {
                if at > idx + 1 {
                    out.push(',');
                }
                nested(tape, at, out, as_written);
                at = tape.skip(at);
            }
            out.push(']');
        }
        Token::Object { len, end } => {
            write_object(tape, idx, (*len as usize, *end as usize), out, as_written);
        }
    }
}

/// Containers nest up to MAX_DEPTH deep: grow the stack rather than overflow it.
fn nested(tape: &Tape<'_>, idx: usize, out: &mut String, as_written: bool) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || write(tape, idx, out, as_written));
}

fn write_object(
    tape: &Tape<'_>,
    idx: usize,
    (len, end): (usize, usize),
    out: &mut String,
    as_written: bool,
) {
    let members = tape.members(idx, (len, end));
    let key = |m: &(usize, usize)| tape.str_at(m.0).unwrap_or_default();
    out.push('{');
    for (n, m) in members.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        write_str(key(m), out);
        out.push(':');
        nested(tape, m.1, out, as_written);
    }
    out.push('}');
}

/// A number beyond the float range as written, in the one spelling serde_json hands
/// over: `e` for `E`, and a `+` on a positive exponent (`1E400` is `1e+400`).
pub fn write_huge_float(text: &str, out: &mut String) {
    match text.find(['e', 'E']) {
        Some(at) => {
            out.push_str(&text[..at]);
            out.push('e');
            let exponent = &text[at + 1..];
            if !exponent.starts_with(['+', '-']) {
                out.push('+');
            }
            out.push_str(exponent);
        }
        None => out.push_str(text),
    }
}

/// The fewest significant digits a shortest repr can have when the value lies exactly
/// halfway between two such digit strings (see [`write_float`]).
const MIN_TIE_DIGITS: usize = 16;

/// The shortest digits that round-trip, in Rust's `{:e}` layout ("d.ddde[-]x"), as
/// Python's repr chooses them.
fn shortest_digits(f: f64) -> String {
    // Rust's `{:e}` gives the shortest digits that round-trip, as Python's repr does:
    // "d.ddde[-]x". When the value lies exactly halfway between two such digit strings,
    // Rust takes the upper one and Python the even one: the value correctly rounded to
    // that many digits (exact formatting rounds half to even), if that round-trips.
    let mut sci = String::with_capacity(32);
    let _ = write!(sci, "{f:e}");
    let shortest = sci
        .bytes()
        .take_while(|&b| b != b'e')
        .filter(u8::is_ascii_digit)
        .count();
    // A tie needs both n-digit neighbours to round-trip: their spacing, 10^(1-n) of the
    // leading digit's unit, within one ulp, which is at most 2^-52 * 10 of that unit
    // (2.2e-15), so n >= 16. Shorter digit strings skip the slow exact formatting.
    if shortest >= MIN_TIE_DIGITS {
        let mut rounded = String::with_capacity(32);
        let _ = write!(rounded, "{f:.*e}", shortest - 1);
        if rounded != sci && rounded.parse::<f64>() == Ok(f) {
            sci = rounded;
        }
    }
    sci
}

/// Python's `repr(float)` (what `json.dumps` writes), with `Infinity` for infinities.
pub fn write_float(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("NaN");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    let sci = shortest_digits(f);
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if negative {
        out.push('-');
    }
    if (-4..16).contains(&exponent) {
        // Fixed notation, always with a fractional part.
        let point = exponent + 1; // digits before the decimal point
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(&digits);
        } else if point as usize >= digits.len() {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point as usize]);
            out.push('.');
            out.push_str(&digits[point as usize..]);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.unsigned_abs()
        );
    }
}

/// A JSON string as `json.dumps(..., ensure_ascii=False)` writes it.
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
    use crate::json::parse;

    fn compact(text: &str) -> String {
        to_string(&parse(text.as_bytes()).unwrap(), 0)
    }

    fn float(f: f64) -> String {
        let mut out = String::new();
        write_float(f, &mut out);
        out
    }

    #[test]
    fn floats_as_python_repr() {
        for (f, want) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1.5, "1.5"),
            (100.0, "100.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e-7, "1e-07"),
            (1.25e-7, "1.25e-07"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789.125, "123456789.125"),
            // Exactly halfway between two shortest digit strings: the even one.
            (2f64.powi(49) + 0.25, "562949953421312.2"),
            (2f64.powi(49) + 0.75, "562949953421312.8"),
            (2f64.powi(43) + 0.0625, "8796093022208.062"),
            (1e300, "1e+300"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(float(f), want, "{f:e}");
        }
    }

    /// `shortest_digits` with the exact rounding checked at every digit count.
    fn digits_checked_always(f: f64) -> String {
        let sci = format!("{f:e}");
        let digits = sci.bytes().take_while(|&b| b != b'e');
        let rounded = format!("{f:.*e}", digits.filter(u8::is_ascii_digit).count() - 1);
        if rounded != sci && rounded.parse::<f64>() == Ok(f) {
            rounded
        } else {
            sci
        }
    }

    #[test]
    fn ties_only_at_sixteen_digits_or_more() {
        // Random bit patterns, and values with few fraction bits (where ties live).
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in 0..400_000 {
            let f = match n % 3 {
                0 => f64::from_bits(next()),
                1 => (next() >> 11) as f64 / f64::from(1 << (next() % 12) as u32),
                _ => (next() >> (11 + next() % 40)) as f64 + 0.25 * (next() % 4) as f64,
            };
            if f.is_finite() {
                assert_eq!(shortest_digits(f), digits_checked_always(f), "{f:e}");
            }
        }
    }

    #[test]
    fn escapes_at_every_offset() {
        for len in 0..24 {
            for at in 0..len {
                for special in ['"', '\\', '\n', '\u{1}', '\u{1f}', 'é', '\u{7f}'] {
                    let mut text: String = "a".repeat(len);
                    text.replace_range(at..at + 1, &special.to_string());
                    let mut slow = String::from('"');
                    for c in text.chars() {
                        match c {
                            '"' => slow.push_str("\\\""),
                            '\\' => slow.push_str("\\\\"),
                            '\n' => slow.push_str("\\n"),
                            c if (c as u32) < 0x20 => {
                                slow.push_str(&format!("\\u{:04x}", c as u32))
                            }
                            c => slow.push(c),
                        }
                    }
                    slow.push('"');
                    let mut fast = String::new();
                    write_str(&text, &mut fast);
                    assert_eq!(fast, slow);
                }
            }
        }
    }

    #[test]
    fn values() {
        assert_eq!(
            compact(r#" { "a" : [1, -2, 1.0, 2.5E3, true, false, null, {}, []] } "#),
            r#"{"a":[1,-2,1.0,2500.0,true,false,null,{},[]]}"#
        );
        assert_eq!(
            compact("[123456789012345678901234567890, 18446744073709551615, -0, 1e400]"),
            "[123456789012345678901234567890,18446744073709551615,0,Infinity]"
        );
    }

    #[test]
    fn strings_escaped_as_python() {
        assert_eq!(
            compact(
                r#""q\" b\\ s\/ n\n r\r t\t b\b f\f \u0001 \u001f \u007f é \u00e9 😀 \ud83d\ude00""#
            ),
            "\"q\\\" b\\\\ s/ n\\n r\\r t\\t b\\b f\\f \\u0001 \\u001f \u{7f} é é 😀 😀\""
        );
    }

    #[test]
    fn duplicate_keys_last_wins_at_first_position() {
        assert_eq!(compact(r#"{"a":1,"b":2,"a":3}"#), r#"{"a":3,"b":2}"#);
        let many: Vec<String> = (0..40).map(|i| format!("\"k{}\":{i}", i % 20)).collect();
        let want: Vec<String> = (0..20).map(|i| format!("\"k{i}\":{}", i + 20)).collect();
        assert_eq!(
            compact(&format!("{{{}}}", many.join(","))),
            format!("{{{}}}", want.join(","))
        );
    }

    #[test]
    fn deep_nesting() {
        let depth = crate::json::MAX_DEPTH;
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(compact(&text), text);
    }
}
