//! Scanning helpers the dialects share (the pure twin: `_pure/dialects/_text.py`).
//! Indices are byte offsets where the pure code counts characters: every marker the
//! scanners look for is ASCII or found by substring search, so both find the same places.

/// The index just after the JSON container opening at `start` (braces inside JSON strings
/// do not count), or the end of the text when it never closes.
pub fn container_end(b: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = start;
    while i < b.len() {
        let char = b[i];
        if in_string {
            if char == b'\\' {
                i += 1; // the escaped character is skipped too
            } else if char == b'"' {
                in_string = false;
            }
        } else if char == b'"' {
            in_string = true;
        } else if matches!(char, b'{' | b'[') {
            depth += 1;
        } else if matches!(char, b'}' | b']') {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return i + 1;
            }
        }
        i += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::container_end;

    #[test]
    fn braces_inside_strings_do_not_count() {
        let text = br#"{"a": "}{\"}"} tail"#;
        assert_eq!(container_end(text, 0), 14);
        assert_eq!(container_end(b"{[}", 0), 3);
        assert_eq!(container_end(b"{\"a\": 1", 0), 7);
    }
}
