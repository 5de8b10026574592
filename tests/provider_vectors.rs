//! The provider formats beyond openai and gemini, on the Rust core:
//! tests/vectors/<format>.json (the walkers, on a full and on a pruned parse; `detect`)
//! and <format>.batch.json (the batch envelopes). pytest runs the same files on the
//! pure-Python modules.

mod common;

use common::{load, same, value};
use serde_json::{Map, Value};
use toolsift::bulk::envelope::located;
use toolsift::calls::{decode_object, string_at, Arguments};
use toolsift::compact;
use toolsift::formats::{anthropic, bedrock, gemini, RawCall, Walked};
use toolsift::json::{self, Keep, Tape, Token};
use toolsift::node::Located;
use toolsift::node::TapeNode;

/// The walked formats of the registry but the first two (`openai`, `gemini`), whose
/// vectors follow the parsers' schema (tests/vectors.rs).
fn formats() -> Vec<&'static str> {
    Walked::ALL
        .iter()
        .map(|walked| walked.name())
        .filter(|name| !["openai", "gemini"].contains(name))
        .collect()
}

fn walked(format: &str) -> Walked {
    Walked::named(format).unwrap_or_else(|| panic!("unknown format {format}"))
}

fn walk<'t, 'a>(format: &str, node: &TapeNode<'t, 'a>) -> Vec<RawCall<TapeNode<'t, 'a>>> {
    let mut out = Vec::new();
    let Ok(()) = walked(format).walk(node, &mut out);
    out
}

fn keep(format: &str) -> Keep {
    walked(format).keep()
}

fn detect(format: &str, node: &TapeNode<'_, '_>) -> bool {
    walked(format).detect(node)
}

fn unwrap_batch<'a>(format: &str, tape: &Tape<'a>) -> Option<Located<'a>> {
    let root = TapeNode::root(tape);
    let Ok(found) = match format {
        "anthropic" => anthropic::unwrap_batch(&root),
        "bedrock" => bedrock::unwrap_batch(&root),
        _ => Ok(None),
    };
    found.map(|envelope| located(envelope, None))
}

/// A raw call as the vectors write it, `{name, arguments, id, raw_arguments}`, by the
/// rules of `record::record_at_with` (which reads the `Format` registry's walkers).
fn call_value(tape: &Tape<'_>, call: &RawCall<TapeNode<'_, '_>>) -> Value {
    let string = |node: &Option<TapeNode<'_, '_>>| {
        node.as_ref()
            .and_then(|n| string_at(tape, n.idx))
            .map(|s| s.into_owned())
    };
    let empty = || Value::Object(Map::new());
    let (arguments, raw) = match &call.arguments {
        None => (empty(), Value::Null),
        Some(node) => match &tape.tokens[node.idx] {
            Token::Str(_) if call.verbatim => {
                (empty(), Value::String(string(&call.arguments).unwrap()))
            }
            Token::Object { .. } if json::value_holds_too_long_int(tape, node.idx) => {
                (empty(), Value::String(compact::to_string(tape, node.idx)))
            }
            Token::Object { .. } => (value(tape, node.idx), Value::Null),
            Token::Str(_) => match decode_object(string_at(tape, node.idx).unwrap()) {
                Arguments::Decoded(args) => (value(&args, 0), Value::Null),
                Arguments::Undecodable(text) => (empty(), Value::String(text.into_owned())),
                other => panic!("decode_object gave {other:?}"),
            },
            _ => (empty(), Value::String(compact::to_string(tape, node.idx))),
        },
    };
    let name = Value::String(string(&call.name).unwrap_or_default());
    let id = string(&call.id).map_or(Value::Null, Value::String);
    serde_json::json!({"name": name, "arguments": arguments, "id": id, "raw_arguments": raw})
}

fn calls_at(format: &str, tape: &Tape<'_>, root: usize) -> Vec<Value> {
    let node = TapeNode { tape, idx: root };
    walk(format, &node)
        .iter()
        .map(|call| call_value(tape, call))
        .collect()
}

fn assert_calls(name: &str, got: &[Value], expected: &Value) {
    let expected = expected.as_array().unwrap();
    assert!(
        got.len() == expected.len() && got.iter().zip(expected).all(|(g, e)| same(g, e)),
        "{name}:\n got      {got:?}\n expected {expected:?}"
    );
}

#[test]
fn provider_vectors() {
    let others: Vec<Value> = ["openai.json", "gemini.json", "json.json"]
        .into_iter()
        .flat_map(load)
        .filter_map(|case| case.get("input").cloned())
        .collect();
    let formats = formats();
    for &format in &formats {
        let cases = load(&format!("{format}.json"));
        assert!(cases.len() >= 12, "{format}: {} vectors", cases.len());
        for case in &cases {
            let name = case["name"].as_str().unwrap();
            assert_eq!(case["parser"], format, "{name}");
            let text = serde_json::to_string(&case["input"]).unwrap();
            let tape = json::parse(text.as_bytes()).unwrap();
            let got = calls_at(format, &tape, 0);
            assert_calls(name, &got, &case["calls"]);
            // A pruned parse builds only what the walker reads, and gives the same calls.
            let pruned = json::parse_pruned(text.as_bytes(), &keep(format)).unwrap();
            assert!(pruned.tokens.len() <= tape.tokens.len(), "{name}");
            assert_calls(
                &format!("{name} (pruned)"),
                &calls_at(format, &pruned, 0),
                &case["calls"],
            );
            for &other in &formats {
                assert_eq!(
                    detect(other, &TapeNode::root(&tape)),
                    other == format,
                    "{name}: detect {other}"
                );
            }
            assert!(
                !gemini::detect(&TapeNode::root(&tape)),
                "{name}: detect gemini"
            );
        }
    }
    for input in &others {
        let text = serde_json::to_string(input).unwrap();
        let tape = json::parse(text.as_bytes()).unwrap();
        for &format in &formats {
            assert!(!detect(format, &TapeNode::root(&tape)), "{format}: {text}");
        }
    }
    for text in [
        "null",
        "1",
        "\"x\"",
        "[]",
        "{}",
        r#"[{"object":"response","output":[]}]"#,
    ] {
        let tape = json::parse(text.as_bytes()).unwrap();
        for &format in &formats {
            assert!(!detect(format, &TapeNode::root(&tape)), "{format}: {text}");
        }
    }
}

#[test]
fn provider_batch_vectors() {
    let mut checked = 0;
    for format in ["anthropic", "bedrock"] {
        for case in &load(&format!("{format}.batch.json")) {
            let name = case["name"].as_str().unwrap();
            let text = serde_json::to_string(&case["input"]).unwrap();
            let tape = json::parse(text.as_bytes()).unwrap();
            for other in ["anthropic", "bedrock"] {
                if other != format {
                    assert!(unwrap_batch(other, &tape).is_none(), "{name}: {other}");
                }
            }
            let found = unwrap_batch(format, &tape);
            if !case["envelope"].as_bool().unwrap() {
                assert!(found.is_none(), "{name}");
                continue;
            }
            let found = found.unwrap_or_else(|| panic!("{name}: not unwrapped"));
            assert_eq!(
                found.custom_id.as_deref(),
                case["custom_id"].as_str(),
                "{name}"
            );
            match (&found.response, case["error"].as_str()) {
                (Err(error), Some(expected)) => assert_eq!(error, expected, "{name}"),
                (Ok(root), None) => {
                    let walker = case["walk"].as_str().unwrap_or(format);
                    assert!(
                        detect(
                            walker,
                            &TapeNode {
                                tape: &tape,
                                idx: *root
                            }
                        ),
                        "{name}"
                    );
                    assert_calls(name, &calls_at(walker, &tape, *root), &case["calls"]);
                }
                (got, expected) => panic!("{name}: got {got:?}, expected error {expected:?}"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} batch vectors checked");
}
