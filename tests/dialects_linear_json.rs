//! Linear time of the JSON-in-text dialects on the Rust core: the texts of
//! `benches/dialects_linear.py`, timed (not a test of speed: ignored, run by hand).
//!
//!     cargo test --release --test dialects_linear_json -- --ignored --nocapture

use std::time::Instant;

use toolsift::dialects::Dialect;

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

const ARGUMENTS: &str =
    r#"{"path": "C:\\tmp\\a [1] {2}.txt", "text": "h\u00e9llo \"w\" é 🌍", "n": [1, 2.5]}"#;

/// One call object with escapes, braces inside strings and unicode.
fn json_call() -> String {
    format!(r#"{{"name": "write", "arguments": {ARGUMENTS}}}"#)
}

fn json_list() -> String {
    format!("[{}, {}]", json_call(), json_call())
}

type Texts = Vec<(&'static str, String)>;

/// The adversarial texts every JSON-in-text dialect gets.
fn json_common(opener: &str) -> Texts {
    vec![
        ("unclosed opener", repeat(opener)),
        ("opener then {", repeat(&format!("{opener}{{"))),
        ("opener then [", repeat(&format!("{opener}["))),
        ("a million {", format!("{opener}{}", repeat("{"))),
        ("a million [", format!("{opener}{}", repeat("["))),
        (
            "backslash run",
            format!("{opener}{{\"name\": \"{}", repeat("\\")),
        ),
        (
            "unclosed string each opener",
            repeat(&format!(
                "{opener}{{\"name\": \"f\", \"arguments\": {{\"a\": \""
            )),
        ),
        ("unclosed <think>", repeat("<think>")),
        ("stray </think>", repeat("x</think>")),
    ]
}

fn with(mut texts: Texts, more: Texts) -> Texts {
    texts.extend(more);
    texts
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
    let table: Vec<(&str, String, Texts)> = vec![
        (
            "mistral",
            repeat(&format!(
                "Let me do it.[TOOL_CALLS]write[ARGS]{ARGUMENTS}\n"
            )),
            with(
                json_common("[TOOL_CALLS]"),
                vec![
                    (
                        "name then [ every byte",
                        format!("[TOOL_CALLS]f{}", repeat("[")),
                    ),
                    ("[ARGS] every few bytes", repeat("[TOOL_CALLS]f[ARGS]")),
                    ("unclosed [THINK]", repeat("[THINK]")),
                ],
            ),
        ),
        (
            "granite",
            repeat(&format!("Sure.\n<|tool_call|>{}\n", json_list())),
            with(
                json_common("<|tool_call|>"),
                vec![
                    ("text markers", repeat("<tool_call>[")),
                    ("unclosed list items", repeat("<|tool_call|>[{}, {")),
                ],
            ),
        ),
        (
            "hermes",
            repeat(&format!(
                "Let me check.\n<tool_call>\n{}\n</tool_call>\n",
                json_call()
            )),
            with(
                json_common("<tool_call>"),
                vec![
                    ("closing tags only", repeat("</tool_call>")),
                    (
                        "opener then } every few bytes",
                        format!("<tool_call>{{{}", repeat("\"}\"")),
                    ),
                ],
            ),
        ),
        (
            "llama3-json",
            repeat(&format!("<|python_tag|>{}; {}\n", json_call(), json_call())),
            with(
                json_common("<|python_tag|>"),
                vec![
                    ("bare: a million {", repeat("{")),
                    (
                        "; every few bytes",
                        format!("<|python_tag|>{}", repeat("{};")),
                    ),
                ],
            ),
        ),
        (
            "xlam",
            repeat(&format!("```json\n{}\n```\n", json_list())),
            with(
                json_common("```json\n"),
                vec![
                    ("bare: a million [", repeat("[")),
                    ("fences only", repeat("```")),
                    ("fenced lists without names", repeat("```[{}")),
                ],
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
