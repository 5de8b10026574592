//! The JSON-in-text dialects' `detect` (hermes, mistral, granite, llama3-json, xlam) on the
//! Rust core: tests/vectors/dialects/_detect_json_dialects.json (tests/test_dialects_json.py
//! runs it on the pure twin).

use serde_json::Value;
use toolsift::dialects::{detected, Dialect};

const JSON_DIALECTS: [&str; 5] = ["mistral", "granite", "hermes", "llama3-json", "xlam"];

#[test]
fn detect() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vectors/dialects/_detect_json_dialects.json"
    );
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for case in cases {
        let text = case["text"].as_str().unwrap();
        let detects: Vec<&str> = (JSON_DIALECTS.iter().copied())
            .filter(|name| Dialect::named(name).unwrap().detect(text))
            .collect();
        let expected: Vec<&str> = (case["detects"].as_array().unwrap().iter())
            .map(|name| name.as_str().unwrap())
            .collect();
        assert_eq!(detects, expected, "{text}");
        let found = detected(text).map(Dialect::name);
        if found.is_none_or(|name| JSON_DIALECTS.contains(&name)) {
            assert_eq!(found, case["detected"].as_str(), "{text}");
        }
    }
}

#[test]
fn registry_order() {
    let names: Vec<&str> = (Dialect::ALL.iter())
        .map(|dialect| dialect.name())
        .filter(|name| JSON_DIALECTS.contains(name))
        .collect();
    assert_eq!(names, JSON_DIALECTS);
}
