//! The complete prefix of a JSON text still arriving, closed: what `partial()` shows of
//! arguments not complete yet. A leaf (it uses no other module of the crate); the twin of
//! `python/toolsift/_pure/partial.py` (its docstrings state the rules).

/// What `partial_json` reads next.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum State {
    #[default]
    Value,
    Key,
    KeyOrClose,
    ValueOrClose,
    After,
}

/// JSON whitespace.
pub fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The longest complete prefix of a JSON text, its open objects and arrays closed (see
/// `partial_json` in the Python twin). One pass, no recursion.
pub fn partial_json(text: &str) -> String {
    let mut scan = PartialJson::default();
    scan.read(text);
    scan.closed
}

/// [`partial_json`] of a text that grows (see `PartialJson` in the Python twin): each
/// [`PartialJson::read`] is given the text of the one before with more appended, and
/// reads only what is new, so `partial()` after every fragment costs linear time overall.
#[derive(Debug, Default, Clone)]
pub struct PartialJson {
    /// The text kept.
    out: String,
    /// What closes each open container, innermost last.
    closers: Vec<u8>,
    /// The last point where the kept text plus the closers is complete JSON: (length of
    /// `out`, open containers).
    safe: (usize, usize),
    state: State,
    /// Where reading goes on: the start of a token not read yet.
    at: usize,
    /// In a string starting at `at`: where its check goes on.
    checked: usize,
    /// Nothing more can change the result: the first value is complete, or a character
    /// that cannot continue JSON was met.
    stopped: bool,
    /// The text ran out inside its first value (or before it): it is not JSON yet.
    pub(crate) waiting: bool,
    /// The length of the text read last.
    pub(crate) read: usize,
    /// The result: `partial_json` of the text read last.
    pub(crate) closed: String,
}

/// How a token of [`PartialJson`] was read.
enum Scanned {
    /// It ends here.
    End(usize),
    /// The text ends inside it.
    More,
    /// It cannot be JSON.
    Invalid,
}

impl PartialJson {
    /// `partial_json(text)` into `closed`; `text` starts with the text of the last read.
    pub fn read(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let n = bytes.len();
        let (mut i, mut state) = (self.at, self.state);
        while i < n && !self.stopped {
            let c = bytes[i];
            if is_ws(c) {
                i += 1;
                continue;
            }
            if state == State::After {
                let Some(&closer) = self.closers.last() else {
                    self.stopped = true; // the first value is complete
                    break;
                };
                if c == b',' {
                    self.out.push(',');
                    state = if closer == b'}' {
                        State::Key
                    } else {
                        State::Value
                    };
                    i += 1;
                    continue;
                }
                if c != closer {
                    self.stopped = true;
                    break;
                }
            }
            if matches!(
                state,
                State::After | State::KeyOrClose | State::ValueOrClose
            ) && self.closers.last() == Some(&c)
            {
                self.closers.pop();
                self.out.push(c as char);
                i += 1;
                state = State::After;
                self.safe = (self.out.len(), self.closers.len());
                continue;
            }
            if matches!(state, State::Key | State::KeyOrClose) {
                let scanned = if c == b'"' {
                    self.string_end(bytes, i)
                } else {
                    Scanned::Invalid
                };
                let end = match scanned {
                    Scanned::End(end) => end,
                    Scanned::More => break,
                    Scanned::Invalid => {
                        self.stopped = true;
                        break;
                    }
                };
                let mut j = end;
                while j < n && is_ws(bytes[j]) {
                    j += 1;
                }
                if j >= n || bytes[j] != b':' {
                    self.stopped = j < n;
                    self.checked = end - 1; // the key is read: only its closing quote again
                    break;
                }
                self.out.push_str(&text[i..end]);
                self.out.push(':');
                i = j + 1;
                self.checked = 0;
                state = State::Value;
                continue;
            }
            if c == b'{' || c == b'[' {
                self.out.push(c as char);
                self.closers.push(if c == b'{' { b'}' } else { b']' });
                state = if c == b'{' {
                    State::KeyOrClose
                } else {
                    State::ValueOrClose
                };
                i += 1;
                self.safe = (self.out.len(), self.closers.len());
                continue;
            }
            let scanned = if c == b'"' {
                self.string_end(bytes, i)
            } else {
                scalar_end(bytes, i)
            };
            let end = match scanned {
                Scanned::End(end) => end,
                Scanned::More => break,
                Scanned::Invalid => {
                    self.stopped = true;
                    break;
                }
            };
            self.out.push_str(&text[i..end]);
            i = end;
            self.checked = 0;
            state = State::After;
            self.safe = (self.out.len(), self.closers.len());
        }
        (self.at, self.state, self.read) = (i, state, n);
        let complete = state == State::After && self.closers.is_empty();
        self.waiting = !(self.stopped || complete);
        let (kept, depth) = self.safe;
        self.closed.clear();
        self.closed.push_str(&self.out[..kept]);
        (self.closed).extend(self.closers[..depth].iter().rev().map(|&c| c as char));
    }

    /// The end of the JSON string starting at `bytes[i]` (a quote): [`Scanned::More`]
    /// where the text ends first (the check goes on from there next time), invalid where
    /// it holds a control character or an invalid escape.
    fn string_end(&mut self, bytes: &[u8], i: usize) -> Scanned {
        let n = bytes.len();
        let mut j = (i + 1).max(self.checked);
        loop {
            // Characters that need no check.
            j += bytes[j..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < b' ')
                .unwrap_or(n - j);
            let Some(&c) = bytes.get(j) else {
                break;
            };
            match c {
                b'"' => return Scanned::End(j + 1),
                b'\\' => {
                    let Some(&escape) = bytes.get(j + 1) else {
                        break;
                    };
                    if escape == b'u' {
                        let Some(hex) = bytes.get(j + 2..j + 6) else {
                            break;
                        };
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Scanned::Invalid;
                        }
                        j += 6;
                    } else if b"\"\\/bfnrt".contains(&escape) {
                        j += 2;
                    } else {
                        return Scanned::Invalid;
                    }
                }
                _ => return Scanned::Invalid, // a control character
            }
        }
        self.checked = j;
        Scanned::More
    }
}

/// The end of the number or literal at `bytes[i]`: [`Scanned::More`] where the text ends
/// inside it (a number that reaches the end: more digits may follow), invalid where it
/// is not one.
fn scalar_end(bytes: &[u8], i: usize) -> Scanned {
    let n = bytes.len();
    for literal in [&b"true"[..], b"false", b"null"] {
        if bytes[i..].starts_with(literal) {
            return Scanned::End(i + literal.len());
        }
        if literal.starts_with(&bytes[i..]) {
            return Scanned::More;
        }
    }
    // Where a digit is needed at `j`: the text ends, or it is not one.
    let missing = |j: usize| {
        if j >= n {
            Scanned::More
        } else {
            Scanned::Invalid
        }
    };
    let digit = |j: usize| j < n && bytes[j].is_ascii_digit();
    let mut j = i;
    if j < n && bytes[j] == b'-' {
        j += 1;
    }
    if j < n && bytes[j] == b'0' {
        j += 1;
    } else if j < n && (b'1'..=b'9').contains(&bytes[j]) {
        while digit(j) {
            j += 1;
        }
    } else {
        return missing(j);
    }
    if j < n && bytes[j] == b'.' {
        j += 1;
        let start = j;
        while digit(j) {
            j += 1;
        }
        if j == start {
            return missing(j);
        }
    }
    if j < n && (bytes[j] == b'e' || bytes[j] == b'E') {
        j += 1;
        if j < n && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        let start = j;
        while digit(j) {
            j += 1;
        }
        if j == start {
            return missing(j);
        }
    }
    if j < n {
        Scanned::End(j)
    } else {
        Scanned::More
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_json_closes_what_is_complete() {
        for (text, expected) in [
            ("", ""),
            ("{", "{}"),
            ("{\"a", "{}"),
            ("{\"a\": 1", "{}"),
            ("{\"a\": 1,", "{\"a\":1}"),
            ("{\"a\": 1, \"b\": [1, 2", "{\"a\":1,\"b\":[1]}"),
            ("{\"a\": \"x\\u00", "{}"),
            ("{\"a\": {\"b\": tr", "{\"a\":{}}"),
            ("[1,]", "[1]"),
            ("{\"a\":1}garbage", "{\"a\":1}"),
        ] {
            assert_eq!(partial_json(text), expected, "{text}");
        }
    }

    #[test]
    fn partial_json_read_on_is_partial_json_from_scratch() {
        let texts = [
            "{\"a\": [1, 2.5e-3, true, null, {\"b\": \"x\\u00e9\\n\\\"\"}], \"c\" : -0}  x",
            "[\"\\u12\", 1]",
            "{\"k\" x",
            "\"s\u{1}\"",
        ];
        for text in texts {
            for step in 1..=4 {
                let mut scan = PartialJson::default();
                let mut end = 0;
                while end < text.len() {
                    end = (end + step).min(text.len());
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                    scan.read(&text[..end]);
                    assert_eq!(
                        scan.closed,
                        partial_json(&text[..end]),
                        "{:?}",
                        &text[..end]
                    );
                }
            }
        }
    }
}
