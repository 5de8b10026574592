//! Arguments text straight to its compact form, in one pass: the `arguments` column
//! without a tape. The result is what decoding the text (as `json::parse` does) and
//! writing the object back (`compact::write_value`) gives, which is what Python's
//! `dumps_compact(json.loads(text))` gives; objects with duplicate keys (rare) are left
//! to that slower path, which collapses them.
//!
//! What is valid is what `json::parse` accepts: RFC 8259 text, escaped surrogates only
//! in high-low pairs, nesting at most `json::MAX_DEPTH` deep (the text is UTF-8 already).

use super::compact::{write_float, write_huge_float};
use crate::json::{self, run_end, MAX_DEPTH};

/// Why the text was not written.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// Not the JSON text of an object (invalid, or another kind of value).
    NotObject,
    /// An object with a duplicate key: decode it the slow way.
    Duplicates,
}

/// Appends the compact form of `text` to `out` when it is the JSON text of an object
/// without duplicate keys. On `Err`, `out` holds partial output: the caller clears it.
pub fn object(text: &str, out: &mut String) -> Result<(), Stop> {
    let mut writer = Writer {
        text,
        bytes: text.as_bytes(),
        i: 0,
        out,
        depth: 0,
        keys: Vec::new(),
    };
    writer.whitespace();
    if writer.peek() != Some(b'{') {
        return Err(Stop::NotObject); // whatever it is, not an object
    }
    writer.value()?;
    writer.whitespace();
    if writer.i != writer.bytes.len() {
        return Err(Stop::NotObject); // trailing data
    }
    Ok(())
}

struct Writer<'t, 'o> {
    text: &'t str,
    bytes: &'t [u8],
    i: usize,
    out: &'o mut String,
    depth: usize,
    /// The keys of the open objects, as ranges of their compact form in `out`.
    keys: Vec<(usize, usize)>,
}

const INVALID: Stop = Stop::NotObject;

impl Writer<'_, '_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Result<(), Stop> {
        self.whitespace();
        match self.peek() {
            Some(b'{') => self.nested(true),
            Some(b'[') => self.nested(false),
            Some(b'"') => {
                self.i += 1;
                self.string()
            }
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(INVALID),
        }
    }

    fn nested(&mut self, object: bool) -> Result<(), Stop> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(INVALID);
        }
        // Up to MAX_DEPTH frames: grow the stack rather than overflow it.
        let result = stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            if object {
                self.object()
            } else {
                self.array()
            }
        });
        self.depth -= 1;
        result
    }

    fn object(&mut self) -> Result<(), Stop> {
        self.i += 1; // {
        self.out.push('{');
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.out.push('}');
            return Ok(());
        }
        let first_key = self.keys.len();
        loop {
            self.whitespace();
            if self.peek() != Some(b'"') {
                return Err(INVALID);
            }
            self.i += 1;
            let start = self.out.len();
            self.string()?;
            let end = self.out.len();
            let key = &self.out[start..end];
            if self.keys[first_key..]
                .iter()
                .any(|&(s, e)| &self.out[s..e] == key)
            {
                return Err(Stop::Duplicates);
            }
            self.keys.push((start, end));
            self.whitespace();
            if self.peek() != Some(b':') {
                return Err(INVALID);
            }
            self.i += 1;
            self.out.push(':');
            self.value()?;
            self.whitespace();
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.out.push(',');
                }
                Some(b'}') => {
                    self.i += 1;
                    self.out.push('}');
                    self.keys.truncate(first_key);
                    return Ok(());
                }
                _ => return Err(INVALID),
            }
        }
    }

    fn array(&mut self) -> Result<(), Stop> {
        self.i += 1; // [
        self.out.push('[');
        self.whitespace();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.out.push(']');
            return Ok(());
        }
        loop {
            self.value()?;
            self.whitespace();
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.out.push(',');
                }
                Some(b']') => {
                    self.i += 1;
                    self.out.push(']');
                    return Ok(());
                }
                _ => return Err(INVALID),
            }
        }
    }

    fn literal(&mut self, word: &str) -> Result<(), Stop> {
        if !self.bytes[self.i..].starts_with(word.as_bytes()) {
            return Err(INVALID);
        }
        self.i += word.len();
        self.out.push_str(word);
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<(), Stop> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(INVALID),
        }
        let mut float = false;
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(INVALID);
            }
            float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(INVALID);
            }
            float = true;
        }
        let number = &self.text[start..self.i];
        if float {
            // Correctly rounded; beyond the float range (±inf in Python) as written,
            // since `Infinity` is not JSON.
            let value: f64 = number.parse().map_err(|_| INVALID)?;
            if value.is_finite() {
                write_float(value, self.out);
            } else {
                write_huge_float(number, self.out);
            }
        } else if number == "-0" {
            self.out.push('0'); // the integer 0
        } else if json::is_too_long_int(number) {
            return Err(Stop::NotObject); // Python refuses to convert it: not decodable
        } else {
            self.out.push_str(number); // integers of any size, as written
        }
        Ok(())
    }

    /// A string whose opening quote has been read, written as Python writes it.
    fn string(&mut self) -> Result<(), Stop> {
        self.out.push('"');
        loop {
            let end = run_end(self.bytes, self.i);
            // `i` and `end` are on character boundaries: both follow or precede ASCII.
            self.out.push_str(&self.text[self.i..end]);
            self.i = end;
            match self.peek() {
                Some(b'"') => {
                    self.i += 1;
                    self.out.push('"');
                    return Ok(());
                }
                Some(b'\\') => self.escape()?,
                _ => return Err(INVALID), // a control character, or the end
            }
        }
    }

    fn escape(&mut self) -> Result<(), Stop> {
        // Most escapes are ones Python writes as they are (the quotes and line ends of
        // text inside an argument): copied, not decoded and written again.
        if let Some(b'"' | b'\\' | b'n' | b'r' | b't' | b'b' | b'f') = self.bytes.get(self.i + 1) {
            self.out.push_str(&self.text[self.i..self.i + 2]);
            self.i += 2;
            return Ok(());
        }
        let (c, next) = crate::json::escaped_char(self.bytes, self.i + 1).ok_or(INVALID)?;
        self.i = next;
        let mut buf = [0u8; 4];
        let encoded: &str = c.encode_utf8(&mut buf);
        // The character as Python writes it (escaped where it must be).
        super::compact::write_str_body(encoded, self.out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::compact;
    use crate::json;

    /// The slow path: decode into a tape, write the object back.
    fn slow(text: &str) -> Option<String> {
        let tape = json::parse(text.as_bytes()).ok()?;
        let mut out = String::new();
        compact::write_arguments(&tape, 0, &mut out);
        matches!(tape.tokens[0], json::Token::Object { .. }).then_some(out)
    }

    fn fast(text: &str) -> Result<String, Stop> {
        let mut out = String::new();
        object(text, &mut out).map(|()| out)
    }

    #[test]
    fn same_as_the_slow_path() {
        let cases = [
            r#"{}"#,
            r#" { "a" : 1 , "b" : [ true , false , null , -0 , -0.0 , 1E2 , 1e400 , 0.1 ] } "#,
            r#"{"s":"q\" b\\ s\/ \b\f\n\r\t \u0001 \u001F \u00e9 \u20AC \ud83d\ude00 é 😀"}"#,
            r#"{"n":123456789012345678901234567890,"m":-9223372036854775809,"f":5e-324}"#,
            r#"{"nested":{"x":[{"y":{}}],"z":[]}}"#,
            "{\"a\":1}\n",
            r#"{"a":1}x"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":.5}"#,
            r#"{"a":-}"#,
            r#"{"a":1e}"#,
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\udc00"}"#,
            r#"{"a":"\ud800\u0041"}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":"x\"#,
            r#"{"a":"\n"#,
            r#"{"a":"\"\\\n\/"}"#,
            r#"{"a":"\u12"}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":tru}"#,
            r#"{"a":[1,]}"#,
            r#"{"a":1,}"#,
            r#"{a:1}"#,
            r#"{"a" 1}"#,
            r#"{"a":1"#,
            r#"{"a":"#,
            r#"{"#,
            r#"[1]"#,
            r#""{}""#,
            r#"  "#,
            r#"{"a":NaN}"#,
            r#"{"a":Infinity}"#,
        ];
        for text in cases {
            match fast(text) {
                Ok(out) => assert_eq!(Some(out), slow(text), "{text}"),
                Err(Stop::NotObject) => assert_eq!(slow(text), None, "{text}"),
                Err(Stop::Duplicates) => panic!("{text}"),
            }
        }
    }

    /// Every object text of the vectors (argument strings, responses), whole and cut
    /// anywhere: written as the slow path writes it, or refused where it refuses it.
    #[test]
    fn same_as_the_slow_path_on_vector_texts() {
        let texts = json::tests::vector_texts();
        let mut written = 0;
        for text in texts.iter().filter(|text| text.starts_with('{')) {
            let cuts = (1..=text.len()).filter(|&end| text.is_char_boundary(end));
            for end in cuts.filter(|&end| end == text.len() || end < 400) {
                let text = &text[..end];
                match fast(text) {
                    Ok(out) => {
                        written += 1;
                        assert_eq!(Some(out), slow(text), "{text}");
                    }
                    Err(Stop::NotObject) => assert_eq!(slow(text), None, "{text}"),
                    Err(Stop::Duplicates) => {} // the caller takes the slow path
                }
            }
        }
        assert!(written > 500, "{written} written");
    }

    #[test]
    fn duplicates_go_the_slow_way() {
        assert_eq!(fast(r#"{"a":1,"b":{"a":2},"a":3}"#), Err(Stop::Duplicates));
        assert_eq!(fast(r#"{"a":1,"\u0061":3}"#), Err(Stop::Duplicates));
        assert!(fast(r#"{"a":{"a":1},"b":{"a":1}}"#).is_ok());
    }

    #[test]
    fn depth_limit() {
        let objects = |depth: usize| {
            format!(
                "{}{{}}{}",
                "{\"a\":".repeat(depth - 1),
                "}".repeat(depth - 1)
            )
        };
        assert_eq!(fast(&objects(MAX_DEPTH)).ok(), slow(&objects(MAX_DEPTH)));
        assert!(slow(&objects(MAX_DEPTH)).is_some());
        assert_eq!(fast(&objects(MAX_DEPTH + 1)), Err(Stop::NotObject));
        assert_eq!(slow(&objects(MAX_DEPTH + 1)), None);
        let inner = format!(
            "{}1{}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert_eq!(
            fast(&format!("{{\"a\":{inner}}}")).ok(),
            slow(&format!("{{\"a\":{inner}}}"))
        );
        let deep = format!("{}1{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(fast(&format!("{{\"a\":{deep}}}")), Err(Stop::NotObject));
        assert_eq!(slow(&format!("{{\"a\":{deep}}}")), None);
    }
}
