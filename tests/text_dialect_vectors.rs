//! tests/vectors/text-dialect.json on the Rust core: provider responses whose assistant
//! text holds tool calls as raw text, read with `text_dialect` (tests/test_text_dialect.py
//! runs the same file on both backends).

mod common;

use common::{call_value, load, same};
use serde_json::Value;
use toolsift::formats::Format;
use toolsift::record::parse_record;

fn text_or_null(text: &Option<String>) -> Value {
    text.as_ref()
        .map_or(Value::Null, |t| Value::String(t.clone()))
}

#[test]
fn text_dialect_vectors() {
    let cases = load("text-dialect.json");
    assert!(cases.len() >= 20, "{} vectors", cases.len());
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let tools = case.get("tools").map(Value::to_string);
        let format = Format::new(case["parser"].as_str().unwrap(), "", "", "", false)
            .and_then(|f| f.with_text_dialect(case["text_dialect"].as_str(), tools.as_deref()))
            .unwrap();
        let text = case["input"].to_string();
        let record = parse_record(&format, text.as_bytes()).unwrap();
        let calls: Vec<Value> = (record.calls.iter())
            .map(|call| call_value(&record.tape, call))
            .collect();
        let got = serde_json::json!({
            "tool_calls": calls,
            "content": text_or_null(&record.content),
            "reasoning": text_or_null(&record.reasoning),
        });
        assert!(
            same(&got, &case["expect"]),
            "{name}:\n got      {got}\n expected {}",
            case["expect"]
        );
    }
}

/// Without `text_dialect`, the same responses give their structured calls only, and no
/// content: the option changes nothing else.
#[test]
fn without_text_dialect_only_structured_calls() {
    for case in &load("text-dialect.json") {
        let format = Format::new(case["parser"].as_str().unwrap(), "", "", "", false).unwrap();
        let text = case["input"].to_string();
        let record = parse_record(&format, text.as_bytes()).unwrap();
        assert!(record.content.is_none() && record.reasoning.is_none());
        let structured = case["expect"]["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|call| {
                call["id"]
                    .as_str()
                    .is_some_and(|id| id.starts_with("call_"))
            })
            .count();
        assert_eq!(record.calls.len(), structured, "{}", case["name"]);
    }
}
