//! The shared vectors in tests/vectors/<format>.json, run on the Rust core (pytest runs
//! the same files on both backends through Python).

mod common;

use common::{call_value, load, same};
use serde_json::Value;
use toolsift::dialects::Dialect;
use toolsift::formats::litert;
use toolsift::formats::Format;
use toolsift::record::parse_record;

fn option(case: &Value, key: &str, default: &str) -> String {
    case["options"][key].as_str().unwrap_or(default).to_owned()
}

/// The vectors of every format of the registry that is walked (tests/vectors/<name>.json;
/// LiteRT-LM's have a schema of their own, below).
fn format_vectors() -> Vec<Value> {
    Format::names()
        .into_iter()
        // LiteRT-LM's vectors have a schema of their own; the dialects' are in
        // vectors/dialects/ (tests/dialect_vectors.rs).
        .filter(|name| *name != "litert" && Dialect::named(name).is_none())
        .flat_map(|name| load(&format!("{name}.json")))
        .collect()
}

#[test]
fn parser_vectors() {
    let cases = format_vectors();
    assert!(cases.len() > 50);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let format = Format::new(
            case["parser"].as_str().unwrap(),
            &option(case, "tool_calls_key", "tool_calls"),
            &option(case, "name_key", "name"),
            &option(case, "arguments_key", "arguments"),
            case["options"]["single"].as_bool().unwrap_or(false),
        )
        .and_then(|format| {
            let tools = case["options"].get("tools").map(|tools| tools.to_string());
            format.with_text_dialect(case["options"]["text_dialect"].as_str(), tools.as_deref())
        })
        .unwrap();
        let text = match case.get("text") {
            Some(text) => text.as_str().unwrap().to_owned(),
            None => serde_json::to_string(&case["input"]).unwrap(),
        };
        if case.get("error").is_some() {
            let result = parse_record(&format, text.as_bytes());
            assert!(result.is_err(), "{name}: expected an error");
            continue;
        }
        let expected = case["calls"].as_array().unwrap();
        let mut texts = vec![text.clone()];
        if case.get("text").is_none() && (case["input"].is_object() || case["input"].is_array()) {
            // The response given as JSON text inside a string: the same calls.
            texts.push(serde_json::to_string(&Value::String(text)).unwrap());
        }
        for text in &texts {
            let record = parse_record(&format, text.as_bytes())
                .unwrap_or_else(|err| panic!("{name}: {err}"));
            check_calls(name, &record, expected);
            if case["auto"].as_bool().unwrap_or(false) {
                // Auto-detection reads it as the case's format, with the same calls.
                let record = parse_record(&Format::Auto, text.as_bytes()).unwrap();
                assert_eq!(
                    record.format.as_deref(),
                    Ok(case["parser"].as_str().unwrap()),
                    "{name}"
                );
                check_calls(&format!("{name} (auto)"), &record, expected);
            }
        }
    }
}

fn check_calls(name: &str, record: &toolsift::calls::Record<'_>, expected: &[Value]) {
    let got: Vec<Value> = (record.calls.iter().enumerate())
        .map(|(index, call)| {
            let mut value = call_value(&record.tape, call);
            // A transcript's call: its turn, and its result where it has one.
            if let Some(turn) = record.turns.get(index) {
                value["turn"] = turn.turn.into();
                if let Some((text, error)) = &turn.result {
                    if let Some(text) = text {
                        value["result"] = text.as_ref().into();
                    }
                    value["result_error"] = (*error).into();
                }
            }
            value
        })
        .collect();
    // A result of JSON text is compared as the value it holds: the inputs here are
    // written by serde_json, whose objects sort their keys.
    let decoded = |calls: &[Value]| -> Vec<Value> {
        let mut calls = calls.to_vec();
        for call in &mut calls {
            let value = call["result"]
                .as_str()
                .and_then(|t| serde_json::from_str(t).ok());
            if let Some(value @ (Value::Object(_) | Value::Array(_))) = value {
                call["result"] = value;
            }
        }
        calls
    };
    let (got, expected) = (decoded(&got), decoded(expected));
    assert!(
        got.len() == expected.len() && got.iter().zip(&expected).all(|(g, e)| same(g, e)),
        "{name}:\n got      {got:?}\n expected {expected:?}"
    );
}

/// tests/vectors/litert.json on the Rust core: `extract_tool_calls` and
/// `clean_raw_for_history` (`tool_response_payload` is pure Python in both backends).
#[test]
fn litert_vectors() {
    let cases = load("litert.json");
    let mut checked = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let input = case["input"].as_str().unwrap();
        match case["function"].as_str().unwrap() {
            "extract_tool_calls" => {
                let record = parse_record(&Format::LiteRt, input.as_bytes()).unwrap();
                let got: Vec<Value> = record
                    .calls
                    .iter()
                    .map(|call| call_value(&record.tape, call))
                    .collect();
                let expected = case["expect"].as_array().unwrap();
                assert!(
                    got.len() == expected.len()
                        && got.iter().zip(expected).all(|(g, e)| same(g, e)),
                    "{name}:\n got      {got:?}\n expected {expected:?}"
                );
            }
            "clean_raw_for_history" => {
                let got = litert::clean_raw_for_history(input);
                let got = got.as_deref().unwrap_or(input);
                assert_eq!(got, case["expect"].as_str().unwrap(), "{name}");
            }
            _ => continue,
        }
        checked += 1;
    }
    assert!(checked >= 70, "{checked} litert vectors checked");
}
