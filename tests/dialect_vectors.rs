//! The shared dialect vectors in tests/vectors/dialects/<name>.json, run on the Rust
//! core (tests/test_dialects.py runs the same files on both backends).

mod common;

use common::{call_value, load, same};
use serde_json::Value;
use toolsift::dialects::{Dialect, Tools};

fn text_or_null(text: &Option<String>) -> Value {
    text.as_ref()
        .map_or(Value::Null, |t| Value::String(t.clone()))
}

#[test]
fn dialect_vectors() {
    let empty = toolsift::json::parse(b"null").unwrap();
    for dialect in Dialect::ALL {
        let cases = load(&format!("dialects/{}.json", dialect.name()));
        assert!(
            cases.len() >= 10,
            "{}: {} vectors",
            dialect.name(),
            cases.len()
        );
        for case in &cases {
            let name = format!("{}: {}", dialect.name(), case["name"].as_str().unwrap());
            let tools = case
                .get("tools")
                .map(|tools| Tools::from_json(&tools.to_string()).unwrap());
            let input = case["input"].as_str().unwrap();
            let parsed = dialect.parse(input, tools.as_ref());
            let calls: Vec<Value> = (parsed.calls.iter())
                .map(|call| call_value(&empty, call))
                .collect();
            let got = serde_json::json!({
                "tool_calls": calls,
                "content": text_or_null(&parsed.content),
                "reasoning": text_or_null(&parsed.reasoning),
            });
            assert!(
                same(&got, &case["expect"]),
                "{name}:\n got      {got}\n expected {}",
                case["expect"]
            );
        }
    }
}

/// tests/vectors/dialects/detect.json (not a dialect's vectors: read here, not in the
/// loop above): per text, what `detected` names and every dialect whose `detect` is true.
#[test]
fn detection() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vectors/dialects/detect.json"
    );
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let order: Vec<&str> = Dialect::ALL.iter().map(|dialect| dialect.name()).collect();
    assert_eq!(Value::from(order), file["registry_order"]);
    for case in file["cases"].as_array().unwrap() {
        let (name, text) = (&case["name"], case["text"].as_str().unwrap());
        let found = toolsift::dialects::detected(text).map(Dialect::name);
        assert_eq!(found, case["detected"].as_str(), "{name}");
        let detects: Vec<&str> = (Dialect::ALL.iter())
            .filter(|dialect| dialect.detect(text))
            .map(|dialect| dialect.name())
            .collect();
        assert_eq!(Value::from(detects), case["detects"], "{name}");
    }
}
