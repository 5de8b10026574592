//! Rust-vs-pure differential of the raw-text dialects (all of them), until they are wired
//! into the parsers (and so into `fuzz/run.py`): ignored unless asked for, it reads the
//! cases `fuzz/dialect_cases.py` wrote with what the pure twin reads, and asserts the
//! Rust core reads the same:
//!
//!     PYTHONPATH=python python fuzz/dialect_cases.py /tmp/cases.json --per-dialect 4000
//!     DIALECT_CASES=/tmp/cases.json cargo test --release --test dialect_differential \
//!         -- --ignored --nocapture

#[allow(dead_code)] // not every helper is used here
mod common;

use common::{call_value, same};
use serde_json::Value;
use toolsift::dialects::{Dialect, Tools};

#[test]
#[ignore = "run by hand on cases the pure twin wrote (DIALECT_CASES=file)"]
fn same_as_the_pure_twin_on_written_cases() {
    let Ok(path) = std::env::var("DIALECT_CASES") else {
        return;
    };
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let empty = toolsift::json::parse(b"null").unwrap();
    let text_or_null = |text: &Option<String>| text.clone().map_or(Value::Null, Value::String);
    let mut differ = 0;
    for case in &cases {
        let dialect = Dialect::named(case["dialect"].as_str().unwrap()).unwrap();
        let tools = (case.get("tools")).map(|tools| Tools::from_json(&tools.to_string()).unwrap());
        let parsed = dialect.parse(case["input"].as_str().unwrap(), tools.as_ref());
        let calls: Vec<Value> = (parsed.calls.iter())
            .map(|call| call_value(&empty, call))
            .collect();
        let got = serde_json::json!({
            "tool_calls": calls,
            "content": text_or_null(&parsed.content),
            "reasoning": text_or_null(&parsed.reasoning),
        });
        if !same(&got, &case["expect"]) {
            differ += 1;
            println!(
                "{}: {:?}\n got      {got}\n expected {}",
                dialect.name(),
                case["input"],
                case["expect"]
            );
        }
    }
    println!("{} cases, {differ} differ", cases.len());
    assert_eq!(differ, 0);
}
