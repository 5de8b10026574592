//! Where the response is inside a record: at a `record_path`, or inside a provider's
//! batch envelope (OpenAI Batch API, Vertex AI batch prediction, Gemini API batch).
//! Follows `locate` in `python/toolsift/_pure/bulk.py` line by line; its docstring is
//! the specification.

use crate::calls::string_at;
use crate::formats::Walked;
use crate::json::{Tape, Token};
use crate::node::{Envelope, Failure, Located, Node, TapeNode, DESCRIBE};

/// Where the response of the record on `tape` is.
pub fn locate<'a>(tape: &Tape<'a>, path: Option<&[String]>) -> Located<'a> {
    let root = TapeNode::root(tape);
    if path.is_none() && !has_envelope_mark(tape) {
        return located(Envelope::found(root, None), None);
    }
    let Ok(envelope) = unwrap(&root, path);
    located(envelope, path)
}

/// An envelope on a tape as [`Located`]: the response's index, the failure phrased
/// (`path`: the record path looked at), the custom id's text.
pub fn located<'a>(envelope: Envelope<TapeNode<'_, 'a>>, path: Option<&[String]>) -> Located<'a> {
    Located {
        response: envelope
            .response
            .map(|node| node.idx)
            .map_err(|failure| failure.message(path)),
        custom_id: envelope.custom_id.and_then(|id| string_at(id.tape, id.idx)),
    }
}

/// Where the response of the record `doc` (a value of any [`Node`]: a tape, or the
/// caller's dicts) is: the value at `path`, or inside a batch envelope, or `doc` itself.
pub fn unwrap<N: Node + Clone>(doc: &N, path: Option<&[String]>) -> Result<Envelope<N>, N::Error> {
    if let Some(path) = path {
        let mut node = doc.clone();
        for key in path {
            match node.member(key)? {
                Some(next) => node = next,
                None => return Ok(Envelope::failed(Failure::NothingAtPath, None)),
            }
        }
        return Ok(Envelope::found(node, None));
    }
    if !doc.is_object() {
        return Ok(Envelope::found(doc.clone(), None));
    }
    // Vertex first: its lines of Claude models keep the request's `custom_id` too.
    if doc.has_key("request")? && doc.has_key("status")? {
        return vertex_batch(doc);
    }
    if doc.has_key("custom_id")? && (doc.has_key("response")? || doc.has_key("error")?) {
        return openai_batch(doc);
    }
    let answered = doc.has_key("response")? || doc.has_key("error")?;
    if doc.has_key("key")? && (answered || doc.has_key("status")?) {
        let custom_id = doc.member("key")?.filter(N::is_string);
        return gemini_batch(doc, custom_id);
    }
    // An inline batch's answer (`InlinedResponse`, as the REST API and google-genai give it).
    if doc.has_key("metadata")?
        && answered
        && doc.keys_within(&["metadata", "response", "error"])?
    {
        let custom_id = match doc.member("metadata")?.filter(N::is_object) {
            Some(metadata) => metadata.member("key")?.filter(N::is_string),
            None => None,
        };
        return gemini_batch(doc, custom_id);
    }
    // The envelopes a format brings along (its module's `unwrap_batch`).
    Ok(Walked::unwrap_batch(doc)?.unwrap_or_else(|| Envelope::found(doc.clone(), None)))
}

/// Members one of which every envelope below has (the pure `ENVELOPE_MARKS`): a record
/// with none of them, found in one pass over its members, is its own response.
pub const ENVELOPE_MARKS: [&str; 6] = [
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

fn openai_batch<N: Node + Clone>(doc: &N) -> Result<Envelope<N>, N::Error> {
    let custom_id = doc.member("custom_id")?.filter(N::is_string);
    let failed = |failure| Ok(Envelope::failed(failure, custom_id.clone()));
    if let Some(error) = doc.member("error")? {
        return failed(Failure::Error(Some(error), &DESCRIBE));
    }
    let Some(response) = doc.member("response")?.filter(N::is_object) else {
        return failed(Failure::NoResponse);
    };
    let status = response.member("status_code")?;
    let body = response.member("body")?;
    if let Some(status) = status {
        if !status.is_int(200) {
            let detail = match body {
                Some(body) => Some(body.member("error")?.unwrap_or(body)),
                None => None,
            };
            return failed(Failure::Http(status, detail));
        }
    }
    match body {
        Some(body) => Ok(Envelope::found(body, custom_id)),
        None => failed(Failure::NoBody),
    }
}

fn vertex_batch<N: Node>(doc: &N) -> Result<Envelope<N>, N::Error> {
    let custom_id = match doc.member("key")?.filter(N::is_string) {
        Some(key) => Some(key),
        None => doc.member("custom_id")?.filter(N::is_string),
    };
    let response = match doc.member("status")?.filter(|s| !s.is_str("")) {
        Some(status) => Err(Failure::Error(Some(status), &DESCRIBE)),
        None => doc.member("response")?.ok_or(Failure::NoResponse),
    };
    Ok(Envelope {
        response,
        custom_id,
    })
}

fn gemini_batch<N: Node>(doc: &N, custom_id: Option<N>) -> Result<Envelope<N>, N::Error> {
    // A failed request's line holds an `error`, or a `status` (google.rpc.Status).
    let error = match doc.member("error")? {
        Some(error) => Some(error),
        None => doc.member("status")?.filter(|s| !s.is_str("")),
    };
    let response = match error {
        Some(error) => Err(Failure::Error(Some(error), &DESCRIBE)),
        None => doc.member("response")?.ok_or(Failure::NoResponse),
    };
    Ok(Envelope {
        response,
        custom_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact;
    use crate::json::parse;
    use std::borrow::Cow;

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
