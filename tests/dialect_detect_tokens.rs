//! Detection of the special-token dialects (deepseek-v3.1, deepseek-v3, kimi-k2, harmony,
//! pythonic) on the Rust core; tests/test_dialects_tokens.py runs the same file on the
//! pure twin.

#[allow(dead_code)] // only `load` is used here
mod common;

use common::load;
use toolsift::dialects::Dialect;

const MINE: [&str; 5] = [
    "deepseek-v3.1",
    "deepseek-v3",
    "kimi-k2",
    "harmony",
    "pythonic",
];

#[test]
fn detect() {
    for case in load("dialect_detect_tokens.json") {
        let input = case["input"].as_str().unwrap();
        let got: Vec<&str> = (MINE.iter().copied())
            .filter(|name| Dialect::named(name).unwrap().detect(input))
            .collect();
        let expected: Vec<&str> = (case["detected_by"].as_array().unwrap().iter())
            .map(|name| name.as_str().unwrap())
            .collect();
        assert_eq!(got, expected, "{}", case["name"]);
    }
}
