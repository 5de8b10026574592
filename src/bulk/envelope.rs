//! Where the response is inside a record: at a `record_path`, or inside a provider's
//! batch envelope (OpenAI Batch API, Vertex AI batch prediction, Gemini API batch).
//! Follows `locate` in `python/toolsift/_pure/bulk.py` line by line; its docstring is
//! the specification.

use crate::calls::string_at;
use crate::compact;
use crate::formats::Walked;
use crate::json::{Tape, Token};
use crate::node::{has, value, Located, TapeNode};
use std::borrow::Cow;

fn is_object(tape: &Tape<'_>, idx: usize) -> bool {
    matches!(tape.tokens[idx], Token::Object { .. })
}

fn string<'a>(tape: &Tape<'a>, idx: Option<usize>) -> Option<Cow<'a, str>> {
    idx.and_then(|idx| string_at(tape, idx))
}

/// A provider's error value as one line of text ([`TapeNode::describe`]).
fn describe(tape: &Tape<'_>, idx: usize) -> String {
    TapeNode { tape, idx }.describe()
}

/// Where the response of the record on `tape` is.
pub fn locate<'a>(tape: &Tape<'a>, path: Option<&[String]>) -> Located<'a> {
    if let Some(path) = path {
        let mut node = 0;
        for key in path {
            match value(tape, node, key) {
                Some(next) => node = next,
                None => {
                    return Located {
                        response: Err(format!("nothing at record_path {}", path.join("."))),
                        custom_id: None,
                    }
                }
            }
        }
        return Located {
            response: Ok(node),
            custom_id: None,
        };
    }
    let plain = Located {
        response: Ok(0),
        custom_id: None,
    };
    if !is_object(tape, 0) || !has_envelope_mark(tape) {
        return plain;
    }
    // Vertex first: its lines of Claude models keep the request's `custom_id` too.
    if has(tape, 0, "request") && has(tape, 0, "status") {
        return vertex_batch(tape);
    }
    if has(tape, 0, "custom_id") && (has(tape, 0, "response") || has(tape, 0, "error")) {
        return openai_batch(tape);
    }
    let answered = has(tape, 0, "response") || has(tape, 0, "error");
    if has(tape, 0, "key") && (answered || has(tape, 0, "status")) {
        let custom_id = string(tape, value(tape, 0, "key"));
        return gemini_batch(tape, custom_id);
    }
    // An inline batch's answer (`InlinedResponse`, as the REST API and google-genai give it).
    if has(tape, 0, "metadata")
        && answered
        && TapeNode::root(tape)
            .keys()
            .iter()
            .all(|key| ["metadata", "response", "error"].contains(key))
    {
        let metadata = value(tape, 0, "metadata").filter(|&m| is_object(tape, m));
        let custom_id = string(tape, metadata.and_then(|m| value(tape, m, "key")));
        return gemini_batch(tape, custom_id);
    }
    // The envelopes a format brings along (its module's `unwrap_batch`).
    Walked::unwrap_batch(tape, 0).unwrap_or(plain)
}

/// Members one of which every envelope below has (the pure `ENVELOPE_MARKS`): a record
/// with none of them, found in one pass over its members, is its own response.
const ENVELOPE_MARKS: [&str; 6] = [
    "custom_id",
    "key",
    "metadata",
    "modelInput",
    "recordId",
    "request",
];

fn has_envelope_mark(tape: &Tape<'_>) -> bool {
    let Token::Object { end, .. } = tape.tokens[0] else {
        return false;
    };
    let mut idx = 1;
    while idx < end as usize {
        if tape
            .str_at(idx)
            .is_some_and(|key| ENVELOPE_MARKS.contains(&key))
        {
            return true;
        }
        idx = tape.skip(idx + 1);
    }
    false
}

fn openai_batch<'a>(tape: &Tape<'a>) -> Located<'a> {
    let custom_id = string(tape, value(tape, 0, "custom_id"));
    let response = (|| {
        if let Some(error) = value(tape, 0, "error") {
            return Err(format!("batch error: {}", describe(tape, error)));
        }
        let Some(response) = value(tape, 0, "response").filter(|&r| is_object(tape, r)) else {
            return Err("batch record has no response".to_owned());
        };
        let status = value(tape, response, "status_code");
        let body = value(tape, response, "body");
        if let Some(status) = status.filter(|&s| tape.tokens[s] != Token::Int(200)) {
            let head = format!("HTTP {}", compact::to_string(tape, status));
            let Some(body) = body else {
                return Err(head);
            };
            let detail = value(tape, body, "error").unwrap_or(body);
            return Err(format!("{head}: {}", describe(tape, detail)));
        }
        body.ok_or_else(|| "batch record has no response body".to_owned())
    })();
    Located {
        response,
        custom_id,
    }
}

fn vertex_batch<'a>(tape: &Tape<'a>) -> Located<'a> {
    let custom_id =
        string(tape, value(tape, 0, "key")).or_else(|| string(tape, value(tape, 0, "custom_id")));
    let status = value(tape, 0, "status").filter(|&s| tape.str_at(s) != Some(""));
    let response = match status {
        Some(status) => Err(format!("batch error: {}", describe(tape, status))),
        None => value(tape, 0, "response").ok_or_else(|| "batch record has no response".to_owned()),
    };
    Located {
        response,
        custom_id,
    }
}

fn gemini_batch<'a>(tape: &Tape<'a>, custom_id: Option<Cow<'a, str>>) -> Located<'a> {
    // A failed request's line holds an `error`, or a `status` (google.rpc.Status).
    let status = value(tape, 0, "status").filter(|&s| tape.str_at(s) != Some(""));
    let response = match value(tape, 0, "error").or(status) {
        Some(error) => Err(format!("batch error: {}", describe(tape, error))),
        None => value(tape, 0, "response").ok_or_else(|| "batch record has no response".to_owned()),
    };
    Located {
        response,
        custom_id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn located(text: &str, path: Option<&[String]>) -> (Result<String, String>, Option<String>) {
        let tape = parse(text.as_bytes()).unwrap();
        let found = locate(&tape, path);
        (
            found.response.map(|idx| compact::to_string(&tape, idx)),
            found.custom_id.map(Cow::into_owned),
        )
    }

    #[test]
    fn openai_batch_output() {
        let ok = r#"{"id":"b1","custom_id":"r1","response":{"status_code":200,"body":{"x":1}},"error":null}"#;
        assert_eq!(
            located(ok, None),
            (Ok(r#"{"x":1}"#.into()), Some("r1".into()))
        );
        let failed = r#"{"custom_id":"r2","response":{"status_code":429,"body":{"error":{"message":"slow","code":null}}},"error":null}"#;
        assert_eq!(located(failed, None).0, Err("HTTP 429: slow".into()));
        let expired = r#"{"custom_id":"r3","response":null,"error":{"code":"batch_expired","message":"late"}}"#;
        assert_eq!(
            located(expired, None),
            (
                Err("batch error: batch_expired: late".into()),
                Some("r3".into())
            )
        );
        let bare = r#"{"custom_id":"r4","response":{"status_code":500}}"#;
        assert_eq!(located(bare, None).0, Err("HTTP 500".into()));
    }

    #[test]
    fn vertex_and_gemini_batch_output() {
        let ok = r#"{"status":"","request":{},"response":{"candidates":[]}}"#;
        assert_eq!(located(ok, None).0, Ok(r#"{"candidates":[]}"#.into()));
        let failed = r#"{"status":"Bad Request: no","request":{}}"#;
        assert_eq!(
            located(failed, None).0,
            Err("batch error: Bad Request: no".into())
        );
        let gemini = r#"{"key":"k1","error":{"code":400,"message":"bad","status":"INVALID"}}"#;
        assert_eq!(
            located(gemini, None),
            (Err("batch error: 400: bad".into()), Some("k1".into()))
        );
        let claude = r#"{"custom_id":"c1","request":{},"response":{"content":[]},"status":""}"#;
        assert_eq!(
            located(claude, None),
            (Ok(r#"{"content":[]}"#.into()), Some("c1".into()))
        );
        let status = r#"{"key":"k2","status":{"code":13,"message":"Internal"}}"#;
        assert_eq!(
            located(status, None).0,
            Err("batch error: 13: Internal".into())
        );
        let inlined = r#"{"response":{"candidates":[]},"metadata":{"key":"k3"},"error":null}"#;
        assert_eq!(
            located(inlined, None),
            (Ok(r#"{"candidates":[]}"#.into()), Some("k3".into()))
        );
        // A Responses API object has `metadata` and `error` members of its own.
        let response = r#"{"object":"response","metadata":{},"error":{"message":"x"}}"#;
        assert_eq!(located(response, None), (Ok(response.into()), None));
    }

    #[test]
    fn record_path() {
        let path = ["a".to_owned(), "b".to_owned()];
        assert_eq!(
            located(r#"{"a":{"b":[1]}}"#, Some(&path)).0,
            Ok("[1]".into())
        );
        assert_eq!(
            located(r#"{"a":{"b":null}}"#, Some(&path)).0,
            Err("nothing at record_path a.b".into())
        );
        assert_eq!(located("[1]", None).0, Ok("[1]".into()));
    }
}
