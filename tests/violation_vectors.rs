//! Checks against the declared tools on the Rust core: tests/vectors/violations.json
//! (each code, each tool-definition shape), which pytest runs on both backends too.

use serde_json::Value;
use std::path::Path;
use toolsift::violations::Checks;

fn load(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/vectors/{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("vector file")).expect("JSON")
}

fn violations(tools: &Value, case: &Value) -> Vec<String> {
    let checks = Checks::new(Some(&tools.to_string()), None, "requests").unwrap();
    let arguments = match &case["arguments"] {
        Value::Null => None,
        arguments => Some(arguments.to_string()),
    };
    let mut codes = Vec::new();
    let name = case["call"].as_str().unwrap();
    checks.violations(None, name, arguments.as_deref(), &mut codes);
    codes
}

fn expected(case: &Value) -> Vec<String> {
    let codes = case["violations"].as_array().unwrap();
    codes
        .iter()
        .map(|code| code.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn each_code() {
    let vectors = load("violations");
    for case in vectors["cases"].as_array().unwrap() {
        let got = violations(&vectors["tools"], case);
        assert_eq!(got, expected(case), "{}", case["name"]);
    }
}

#[test]
fn each_tool_definition_shape() {
    let vectors = load("violations");
    for case in vectors["shapes"].as_array().unwrap() {
        let got = violations(&case["tools"], case);
        assert_eq!(got, expected(case), "{}", case["name"]);
    }
}

/// Arguments given as JSON text, as written (number spellings, escapes, big numbers).
#[test]
fn each_text() {
    let vectors = load("violations");
    let texts = &vectors["texts"];
    for case in texts["cases"].as_array().unwrap() {
        let schema = &texts["schemas"][case["schema"].as_str().unwrap()];
        let tools = serde_json::json!({ "f": schema });
        let checks = Checks::new(Some(&tools.to_string()), None, "requests").unwrap();
        let mut codes = Vec::new();
        checks.violations(None, "f", case["text"].as_str(), &mut codes);
        assert_eq!(codes, expected(case), "{}", case["name"]);
    }
}

#[test]
fn requests_are_joined_by_their_key() {
    let schema = r#"{"type": "object", "properties": {"n": {"type": "integer"}}}"#;
    let requests = format!(
        "{{\"custom_id\": \"r1\", \"body\": {{\"tools\": [{{\"name\": \"f\", \"parameters\": {schema}}}]}}}}\n\
         {{\"recordId\": \"b1\", \"modelInput\": {{\"toolConfig\": {{\"tools\": [{{\"toolSpec\": {{\"name\": \"f\", \"inputSchema\": {{\"json\": {schema}}}}}}}]}}}}}}\n\
         \n\
         {{\"key\": \"g1\", \"request\": {{\"tools\": [{{\"functionDeclarations\": [{{\"name\": \"f\", \"parameters\": {schema}}}]}}]}}}}\n"
    );
    let checks = Checks::new(None, Some(&mut requests.as_bytes()), "requests").unwrap();
    let mut codes = Vec::new();
    for key in ["r1", "b1", "g1"] {
        checks.violations(Some(key), "f", Some(r#"{"n": "1"}"#), &mut codes);
        assert_eq!(codes, ["numeric_string:/n"], "{key}");
    }
    checks.violations(Some("r9"), "f", Some("{}"), &mut codes);
    assert_eq!(codes, ["missing_request"]);
    checks.violations(None, "f", Some("{}"), &mut codes);
    assert_eq!(codes, ["missing_request"]);
    let error = Checks::new(None, Some(&mut &b"{oops\n"[..]), "in.jsonl")
        .err()
        .unwrap();
    assert!(error.starts_with("in.jsonl, line 1: not JSON"), "{error}");
}
