//! Arguments text straight to its compact form, in one pass: the `arguments` column
//! without a tape. The result is what decoding the text (as `json::parse` does) and
//! writing the object back (`compact::write_value`) gives, which is what Python's
//! `dumps_compact(json.loads(text))` gives; objects with duplicate keys (rare) are left
//! to that slower path, which collapses them.
//!
//! Most argument texts are compact already (models write them without spaces), so the
//! writer copies nothing until the text and its compact form differ: a text that is its
//! own compact form comes back as it is.
//!
//! What is valid is what `json::parse` accepts: RFC 8259 text, escaped surrogates only
//! in high-low pairs, nesting at most `json::MAX_DEPTH` deep (the text is UTF-8 already).

use crate::compact::{write_float, write_huge_float};
use crate::json::{self, run_end, MAX_DEPTH};

/// Why the text was not written.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// Not the JSON text of an object (invalid, or another kind of value).
    NotObject,
    /// An object whose keys this writer does not compare (a key repeated, or one with an
    /// escape that is not written as it is, both rare): decode it the slow way.
    Decode,
}

/// The compact form of `text` when it is the JSON text of an object without duplicate
/// keys: `text` itself when it is compact already, else written into `out` (cleared
/// first). On `Err`, `out` holds partial output.
pub fn object<'a>(text: &'a str, out: &'a mut String) -> Result<&'a str, Stop> {
    out.clear();
    let mut writer = Writer {
        text,
        bytes: text.as_bytes(),
        i: 0,
        written: 0,
        out,
        depth: 0,
        keys: Vec::new(),
        float: String::new(),
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
    if writer.written == 0 {
        return Ok(text); // nothing differed
    }
    writer.copy_to(writer.i);
    Ok(writer.out.as_str())
}

struct Writer<'t, 'o> {
    text: &'t str,
    bytes: &'t [u8],
    i: usize,
    /// The compact form of `text[..written]` is in `out`; the text from there on is
    /// written as it is until something in it differs (`copy_to`).
    written: usize,
    out: &'o mut String,
    depth: usize,
    /// The keys of the open objects, as ranges of `text` (keys written as they are).
    keys: Vec<(usize, usize)>,
    /// Room to write a float in, to compare with its text.
    float: String,
}

const INVALID: Stop = Stop::NotObject;

impl Writer<'_, '_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    /// Writes the text up to `end` as it is: what comes next differs from it. `written`
    /// and `end` are on character boundaries: each follows or precedes an ASCII byte.
    fn copy_to(&mut self, end: usize) {
        self.out.push_str(&self.text[self.written..end]);
        self.written = end;
    }

    fn whitespace(&mut self) {
        if !matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            return;
        }
        self.copy_to(self.i); // compact text has none
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
        self.written = self.i;
    }

    fn value(&mut self) -> Result<(), Stop> {
        self.whitespace();
        match self.peek() {
            Some(b'{') => self.nested(true),
            Some(b'[') => self.nested(false),
            Some(b'"') => {
                self.i += 1;
                self.string().map(|_| ())
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
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(());
        }
        let first_key = self.keys.len();
        loop {
            self.whitespace();
            if self.peek() != Some(b'"') {
                return Err(INVALID);
            }
            self.i += 1;
            let start = self.i;
            if self.string()? {
                return Err(Stop::Decode); // its text is not its compact form
            }
            // Written as they are, two keys are the same string when their texts are.
            let key = &self.bytes[start..self.i - 1];
            if self.keys[first_key..]
                .iter()
                .any(|&(s, e)| &self.bytes[s..e] == key)
            {
                return Err(Stop::Decode);
            }
            self.keys.push((start, self.i - 1));
            self.whitespace();
            if self.peek() != Some(b':') {
                return Err(INVALID);
            }
            self.i += 1;
            self.value()?;
            self.whitespace();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.keys.truncate(first_key);
                    return Ok(());
                }
                _ => return Err(INVALID),
            }
        }
    }

    fn array(&mut self) -> Result<(), Stop> {
        self.i += 1; // [
        self.whitespace();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.value()?;
            self.whitespace();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
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
            let mut written = std::mem::take(&mut self.float);
            written.clear();
            if value.is_finite() {
                write_float(value, &mut written);
            } else {
                write_huge_float(number, &mut written);
            }
            if written != number {
                self.copy_to(start);
                self.out.push_str(&written);
                self.written = self.i;
            }
            self.float = written; // its room, for the next float
        } else if number == "-0" {
            self.copy_to(start);
            self.out.push('0'); // the integer 0
            self.written = self.i;
        } else if json::is_too_long_int(number) {
            return Err(Stop::NotObject); // Python refuses to convert it: not decodable
        }
        // Other integers, of any size, are written as they are.
        Ok(())
    }

    /// A string whose opening quote has been read, written as Python writes it: whether
    /// that differs from its text.
    fn string(&mut self) -> Result<bool, Stop> {
        let bytes = self.bytes;
        let mut i = self.i;
        let mut rewritten = false;
        loop {
            i = run_end(bytes, i);
            match bytes.get(i) {
                Some(b'"') => {
                    self.i = i + 1;
                    return Ok(rewritten);
                }
                // Most escapes are ones Python writes as they are (the quotes and line
                // ends of text inside an argument): left in the text.
                Some(b'\\') => match bytes.get(i + 1) {
                    Some(b'"' | b'\\' | b'n' | b'r' | b't' | b'b' | b'f') => i += 2,
                    _ => {
                        self.i = i;
                        self.rewrite_escape()?;
                        rewritten = true;
                        i = self.i;
                    }
                },
                _ => return Err(INVALID), // a control character, or the end
            }
        }
    }

    /// The escape at `i`, one Python writes otherwise (`\/`, `\u`), written as it does.
    fn rewrite_escape(&mut self) -> Result<(), Stop> {
        let (c, next) = json::escaped_char(self.bytes, self.i + 1).ok_or(INVALID)?;
        self.copy_to(self.i);
        self.i = next;
        self.written = next;
        let mut buf = [0u8; 4];
        let encoded: &str = c.encode_utf8(&mut buf);
        // The character as Python writes it (escaped where it must be).
        json::write_str_body(encoded, self.out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact;
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
        object(text, &mut out).map(str::to_owned)
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
                Err(Stop::Decode) => panic!("{text}"),
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
                    Err(Stop::Decode) => {} // the caller takes the slow path
                }
            }
        }
        assert!(written > 500, "{written} written");
    }

    #[test]
    fn compact_text_comes_back_as_it_is() {
        let compact = r#"{"q":"say \"hi\"\n","n":[1,-2,0.5,1e+16,"é"],"o":{"\t":{}}}"#;
        let mut out = String::new();
        let written = object(compact, &mut out).unwrap();
        assert!(std::ptr::eq(written, compact), "{written}");
        assert!(out.is_empty());
        // The first difference anywhere (a space, a float, an escape, -0) and what
        // follows it are written.
        for (text, want) in [
            (r#"{"a":1, "b":2}"#, r#"{"a":1,"b":2}"#),
            (r#"{"a":1.50,"b":"x"}"#, r#"{"a":1.5,"b":"x"}"#),
            (r#"{"a":"\/","b":"\u00e9"}"#, r#"{"a":"/","b":"é"}"#),
            (r#"{"a":[0,-0,1E2]}"#, r#"{"a":[0,0,100.0]}"#),
            (" {\"a\":1}\n", r#"{"a":1}"#),
        ] {
            assert_eq!(object(text, &mut out), Ok(want), "{text}");
            assert_eq!(Some(want.to_owned()), slow(text), "{text}");
        }
    }

    #[test]
    fn keys_with_escapes() {
        // Escapes written as they are leave a key comparable by its text.
        assert!(fast(r#"{"a\n":1,"a\"":2}"#).is_ok());
        assert_eq!(fast(r#"{"a\n":1,"a\n":2}"#), Err(Stop::Decode));
        // Others go the slow way, which writes them.
        assert_eq!(fast(r#"{"\u00e9":1}"#), Err(Stop::Decode));
        assert_eq!(slow(r#"{"\u00e9":1}"#).as_deref(), Some(r#"{"é":1}"#));
    }

    #[test]
    fn duplicates_go_the_slow_way() {
        assert_eq!(fast(r#"{"a":1,"b":{"a":2},"a":3}"#), Err(Stop::Decode));
        assert_eq!(fast(r#"{"a":1,"\u0061":3}"#), Err(Stop::Decode));
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
