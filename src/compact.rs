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

use crate::json::{write_str, Tape, Token};
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
        Token::BigInt(digits) => out.push_str(tape.text(digits)),
        Token::Float(f) => write_float(*f, out),
        Token::HugeFloat(text) if as_written => write_huge_float(tape.text(text), out),
        Token::HugeFloat(text) => out.push_str(if tape.text(text).starts_with('-') {
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

/// The shortest digits that round-trip `f` (finite), as Python's repr chooses them, and
/// the decimal exponent of the first: `f` is `±d.ddd × 10^exponent`. Zmij (the formatter
/// serde_json writes floats with) picks them as Python does, also where the value lies
/// exactly halfway between two such digit strings (the even one; the tests hold it to an
/// exact check at every digit count). Its text ("1.234e+33", "12.34", "0.001234") is read
/// back into the digits and the exponent.
fn shortest_digits(f: f64) -> (Digits, i32) {
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(f.abs());
    let (mantissa, exponent) = match text.split_once('e') {
        Some((mantissa, exponent)) => (mantissa, exponent.parse().unwrap_or(0)),
        None => (text, 0),
    };
    let point = mantissa.find('.').unwrap_or(mantissa.len());
    let mut digits = Digits::default();
    let mut leading_zeros = 0;
    for b in mantissa.bytes().filter(u8::is_ascii_digit) {
        if digits.len == 0 && b == b'0' {
            leading_zeros += 1;
        } else if digits.len < digits.bytes.len() {
            digits.bytes[digits.len] = b;
            digits.len += 1;
        }
    }
    while digits.len > 1 && digits.bytes[digits.len - 1] == b'0' {
        digits.len -= 1;
    }
    if digits.len == 0 {
        digits.bytes[0] = b'0'; // zero: "0.0"
        digits.len = 1;
        return (digits, 0);
    }
    (digits, exponent + point as i32 - 1 - leading_zeros)
}

/// Significant decimal digits as ASCII: at most 17 (all a double needs), and the zeros
/// a fixed-notation text has after them (up to its point: "1000000000000000.0").
#[derive(Debug, Default)]
struct Digits {
    bytes: [u8; 24],
    len: usize,
}

impl Digits {
    fn as_str(&self) -> &str {
        // The bytes are ASCII digits (`shortest_digits` keeps nothing else).
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("0")
    }
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
    let (digits, exponent) = shortest_digits(f);
    let digits = digits.as_str();
    if f.is_sign_negative() {
        out.push('-');
    }
    if (-4..16).contains(&exponent) {
        // Fixed notation, always with a fractional part.
        let point = exponent + 1; // digits before the decimal point
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(digits);
        } else if point as usize >= digits.len() {
            out.push_str(digits);
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

    /// The shortest digits Rust's `{:e}` gives, with the exact rounding checked at every
    /// digit count (where the value lies halfway between two digit strings, `{:e}` takes
    /// the upper one and Python the even one), and their exponent.
    fn digits_checked_always(f: f64) -> (String, i32) {
        let sci = format!("{:e}", f.abs());
        let digits = sci.bytes().take_while(|&b| b != b'e');
        let rounded = format!(
            "{:.*e}",
            digits.filter(u8::is_ascii_digit).count() - 1,
            f.abs()
        );
        let sci = if rounded != sci && rounded.parse::<f64>() == Ok(f.abs()) {
            rounded
        } else {
            sci
        };
        let (mantissa, exponent) = sci.split_once('e').expect("an exponent");
        (
            mantissa.replace('.', ""),
            exponent.parse().expect("an integer"),
        )
    }

    #[test]
    fn shortest_digits_agree_with_an_exact_check() {
        // Random bit patterns, values with few fraction bits (where ties live), decimal
        // values as arguments hold them.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in 0..400_000 {
            let f = match n % 4 {
                0 => f64::from_bits(next()),
                1 => (next() >> 11) as f64 / f64::from(1 << (next() % 12) as u32),
                2 => (next() >> (11 + next() % 40)) as f64 + 0.25 * (next() % 4) as f64,
                _ => format!("{}e{}", next() % 1_000_000_007, (next() % 60) as i32 - 30)
                    .parse()
                    .expect("a float"),
            };
            if f.is_finite() {
                let (digits, exponent) = shortest_digits(f);
                assert_eq!(
                    (digits.as_str().to_owned(), exponent),
                    digits_checked_always(f),
                    "{f:e}"
                );
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
