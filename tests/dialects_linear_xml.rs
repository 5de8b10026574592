//! Linear time of the XML-style dialects on the Rust core: the texts of
//! `benches/dialects_linear.py`, timed (not a test of speed: ignored, run by hand).
//!
//!     cargo test --release --test dialects_linear_xml -- --ignored --nocapture
//!
//! Also, by hand: a differential against cases the pure twin wrote (`DIALECT_CASES=file`,
//! a JSON list of vector cases with a `dialect` field).

#[allow(dead_code)] // not every helper is used here
mod common;

use std::time::Instant;

use common::{call_value, same};
use serde_json::Value;
use toolsift::dialects::{Dialect, Tools};

const SIZE: usize = 1 << 20;

fn repeat(piece: &str) -> String {
    let mut out = piece.repeat(SIZE / piece.len() + 1);
    let mut end = SIZE;
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    out
}

fn value() -> String {
    "print(\"héllo {world}\")\\n".repeat(8)
}

fn qwen_call(open: &str, close: &str) -> String {
    let value = value();
    format!(
        "Let me run it.\n{open}\n<function=run>\n<parameter=code>\n{value}\n</parameter>\n\
         <parameter=timeout>\n30\n</parameter>\n</function>\n{close}\n"
    )
}

/// Labelled texts.
type Texts = Vec<(&'static str, String)>;

fn common(opener: &str, param_open: &str, param_close: &str) -> Texts {
    vec![
        ("unclosed opener", repeat(opener)),
        ("a million {", format!("{opener}{}", repeat("{"))),
        ("backslash run", format!("{opener}{}", repeat("\\"))),
        ("unclosed <think>", repeat("<think>")),
        ("stray </think>", repeat("x</think>")),
        ("unclosed values", repeat(&format!("{opener}{param_open}"))),
        (
            "closes no marker follows",
            repeat(&format!("{opener}{param_open}{param_close}x")),
        ),
        (
            "close every few bytes in one value",
            format!("{opener}{param_open}{}", repeat(&format!("{param_close}x"))),
        ),
    ]
}

fn median_ms(dialect: Dialect, text: &str) -> f64 {
    let mut times: Vec<f64> = (0..5)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(dialect.parse(text, None));
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[2]
}

#[test]
#[ignore = "a measurement: run by hand with --nocapture"]
fn adversarial_text_costs_at_most_a_few_times_ordinary_text() {
    let d = "\u{ff5c}DSML\u{ff5c}";
    let value = value();
    let table: Vec<(&str, String, Texts)> = vec![
        (
            "seed-oss",
            repeat(&qwen_call("<seed:tool_call>", "</seed:tool_call>")),
            common("<seed:tool_call><function=f>", "<parameter=a>", "</parameter>"),
        ),
        (
            "qwen3-coder",
            repeat(&qwen_call("<tool_call>", "</tool_call>")),
            common("<tool_call><function=f>", "<parameter=a>", "</parameter>"),
        ),
        (
            "glm",
            repeat(&format!(
                "Let me run it.\n<tool_call>run\n<arg_key>code</arg_key>\n\
                 <arg_value>{value}</arg_value>\n</tool_call>\n"
            )),
            {
                let mut texts = common("<tool_call>f", "<arg_key>a</arg_key><arg_value>", "</arg_value>");
                texts.push(("< every byte", format!("<tool_call>{}", repeat("<"))));
                texts
            },
        ),
        (
            "minimax-m2",
            repeat(&format!(
                "Running.\n<minimax:tool_call>\n<invoke name=\"run\">\n<parameter name=\"code\">{value}\
                 </parameter>\n</invoke>\n</minimax:tool_call>\n"
            )),
            common(
                "<minimax:tool_call><invoke name=\"f\">",
                "<parameter name=\"a\">",
                "</parameter>",
            ),
        ),
        (
            "deepseek-dsml",
            repeat(&format!(
                "Running.\n<{d}function_calls>\n<{d}invoke name=\"run\">\n<{d}parameter name=\"code\" \
                 string=\"true\">{value}</{d}parameter>\n</{d}invoke>\n</{d}function_calls>\n"
            )),
            common(
                &format!("<{d}function_calls><{d}invoke name=\"f\">"),
                &format!("<{d}parameter name=\"a\" string=\"true\">"),
                &format!("</{d}parameter>"),
            ),
        ),
    ];
    for (name, ordinary, adversarial) in table {
        let dialect = Dialect::named(name).unwrap();
        let base = median_ms(dialect, &ordinary);
        println!("{name}: ordinary 1 MB {base:.2} ms");
        for (label, text) in adversarial {
            let took = median_ms(dialect, &text);
            println!("  {label:40} {took:8.2} ms  {:5.2}x", took / base);
        }
    }
}

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
