//! Scanning helpers the dialects share (the pure twin: `_pure/dialects/_text.py`).
//! Indices are byte offsets where the pure code counts characters: every marker the
//! scanners look for is ASCII or found by substring search, so both find the same places.

use std::ops::Range;

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

/// The whitespace the dialects strip at the ends of a piece (ASCII, as the pure `WHITESPACE`).
pub fn trim_whitespace(text: &str) -> &str {
    text.trim_matches([' ', '\t', '\n', '\r'])
}

/// The first `pattern` in `text[from..to]`, as an index into `text`.
///
/// Found by its first byte (`memchr`) and then compared: the dialects' markers start with
/// `<`, and a searcher built per call (`memmem::find`) costs more than the scan itself
/// when markers come every few bytes. Linear: each byte is looked at a bounded number of
/// times per call, and the callers resume after each hit.
pub fn find_in(text: &str, pattern: &str, from: usize, to: usize) -> Option<usize> {
    let haystack = &text.as_bytes()[..to];
    let pattern = pattern.as_bytes();
    let first = *pattern.first()?;
    let mut at = from;
    while at < to {
        at += memchr::memchr(first, &haystack[at..])?;
        if haystack[at..].starts_with(pattern) {
            return Some(at);
        }
        at += 1;
    }
    None
}

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";

/// The spans of `text` outside `<think>...</think>` blocks, and the reasoning (see the
/// pure `think_split`).
pub fn think_split(text: &str) -> (Vec<Range<usize>>, Option<String>) {
    let len = text.len();
    let mut spans = Vec::new();
    let mut blocks: Vec<&str> = Vec::new();
    let mut pos = 0;
    let first_close = find_in(text, THINK_CLOSE, 0, len);
    let first_open = find_in(text, THINK_OPEN, 0, len);
    if let Some(close) = first_close {
        if first_open.is_none_or(|open| close < open) {
            blocks.push(&text[..close]);
            pos = close + THINK_CLOSE.len();
        }
    }
    loop {
        let Some(open_at) = find_in(text, THINK_OPEN, pos, len) else {
            spans.push(pos..len);
            break;
        };
        if pos < open_at {
            spans.push(pos..open_at); // (empty spans hold nothing)
        }
        let body = open_at + THINK_OPEN.len();
        let Some(close_at) = find_in(text, THINK_CLOSE, body, len) else {
            blocks.push(&text[body..]);
            break;
        };
        blocks.push(&text[body..close_at]);
        pos = close_at + THINK_CLOSE.len();
    }
    let kept: Vec<&str> = (blocks.into_iter())
        .map(trim_whitespace)
        .filter(|block| !block.is_empty())
        .collect();
    let reasoning = kept.join("\n\n");
    (spans, (!reasoning.is_empty()).then_some(reasoning))
}

/// The call blocks in `text[span]` of a dialect whose markers are special tokens sharing
/// `prefix`, and the text outside them (see the pure `special_token_blocks`).
pub fn special_token_blocks<'a, 'm>(
    text: &'a str,
    span: Range<usize>,
    prefix: &str,
    begins: &[&'m str],
    ends: &[&'m str],
    dropped: &[&'m str],
) -> (Vec<&'a str>, Vec<&'a str>) {
    let (start, stop) = (span.start, span.end);
    let marker_at =
        |at: usize, markers: &[&'m str]| -> Option<&'m str> { marker_at(&text[at..stop], markers) };
    let mut outside = Vec::new();
    let mut blocks = Vec::new();
    let mut pos = start; // text from here on is not yet in `outside` or `blocks`
    let mut at = find_in(text, prefix, start, stop);
    while let Some(here) = at {
        if let Some(begin) = marker_at(here, begins) {
            outside.push(&text[pos..here]);
            let body = here + begin.len();
            at = find_in(text, prefix, body, stop);
            let mut end = None;
            while let Some(inner) = at {
                end = marker_at(inner, ends);
                if end.is_some()
                    || marker_at(inner, begins).is_some()
                    || marker_at(inner, dropped).is_some()
                {
                    break;
                }
                at = find_in(text, prefix, inner + prefix.len(), stop);
            }
            let Some(block_end) = at else {
                blocks.push(&text[body..stop]);
                return (outside, blocks);
            };
            blocks.push(&text[body..block_end]);
            pos = end.map_or(block_end, |end| block_end + end.len());
            at = find_in(text, prefix, pos, stop);
            continue;
        }
        let marker = marker_at(here, ends).or_else(|| marker_at(here, dropped));
        if let Some(marker) = marker {
            outside.push(&text[pos..here]);
            pos = here + marker.len();
            at = find_in(text, prefix, pos, stop);
        } else {
            at = find_in(text, prefix, here + prefix.len(), stop);
        }
    }
    outside.push(&text[pos..stop]);
    (outside, blocks)
}

/// The one of `markers` that `text` begins with, if any.
pub fn marker_at<'m>(text: &str, markers: &[&'m str]) -> Option<&'m str> {
    markers
        .iter()
        .copied()
        .find(|marker| text.starts_with(marker))
}

/// The text outside the calls: its pieces joined, whitespace at both ends stripped;
/// None when nothing is left.
pub fn joined_content(outside: &[&str]) -> Option<String> {
    let joined = outside.concat();
    let kept = trim_whitespace(&joined);
    (!kept.is_empty()).then(|| kept.to_owned())
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
