//! Times the bulk core alone (no Python) over a JSONL file, one thread:
//! `cargo run --release --example bulk_speed FILE [ROUNDS]` (reading, tapes, the
//! contract's floor, records, Arrow rows); prints each stage's median MB/s.
//!
//! The floor is the work no reader of the file can skip and still give what `to_arrow`
//! gives: every line read as JSON (the tape), every `arguments` string's text checked
//! and written in its compact form (`canonical::object`) into an Arrow string column,
//! with nothing else: no envelope, no walk, no other column.
use arrow_array::builder::StringBuilder;
use std::time::Instant;
use toolsift::bulk::canonical;
use toolsift::bulk::rows::Rows;
use toolsift::bulk::source::{self, Blocks, Line};
use toolsift::bulk::{Outcome, Reader};
use toolsift::formats::Format;
use toolsift::json::{self, Tape, Token};

const STAGES: [&str; 5] = ["read", "tape", "floor", "records", "rows"];

fn main() {
    let path = std::env::args().nth(1).expect("a JSONL file");
    let rounds: usize = std::env::args()
        .nth(2)
        .map_or(5, |n| n.parse().expect("rounds"));
    let format = Format::new("openai", "tool_calls", "name", "arguments", false).unwrap();
    let reading = Reader::new(&format, None).with_encoded_arguments();
    let mut seconds = vec![Vec::new(); STAGES.len()];
    let mut mb = 0.0;
    for _ in 0..rounds {
        let start = Instant::now();
        let (reader, count) = source::open(path.as_ref()).expect("readable file");
        let blocks: Vec<_> = Blocks::new(reader, count, source::BLOCK, source::MAX_LINE_BYTES)
            .collect::<Result<_, _>>()
            .expect("readable file");
        seconds[0].push(start.elapsed().as_secs_f64());
        mb = blocks.iter().map(|b| b.text().len()).sum::<usize>() as f64 / 1e6;
        let lines = || {
            blocks
                .iter()
                .flat_map(|b| b.lines())
                .filter_map(|line| match line {
                    Line::Text(text) => Some(text),
                    _ => None,
                })
        };
        let start = Instant::now();
        let tokens: usize = lines()
            .map(|l| json::parse(l).map_or(0, |t| t.tokens.len()))
            .sum();
        seconds[1].push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        let mut column = StringBuilder::new();
        for tape in lines().filter_map(|l| json::parse(l).ok()) {
            arguments_written(&tape, &mut column);
        }
        let written = column.finish().values().len();
        seconds[2].push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        let mut calls = 0;
        for line in blocks.iter().flat_map(|b| b.lines()) {
            if let Some((_, Outcome::Read { record, .. })) = reading.read_line(line) {
                calls += record.calls.len();
            }
        }
        seconds[3].push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        let mut rows = 0;
        for block in &blocks {
            let mut builder = Rows::new();
            for (n, line) in block.lines().enumerate() {
                if let Some((_, outcome)) = reading.read_line(line) {
                    builder.add(n as i64, outcome);
                }
            }
            rows += builder.finish().unwrap().batch.num_rows();
        }
        seconds[4].push(start.elapsed().as_secs_f64());
        println!("{tokens} tokens, {written} bytes of arguments, {calls} calls, {rows} rows");
    }
    for (stage, mut times) in STAGES.into_iter().zip(seconds) {
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        println!("{stage:8} {:8.1} ms {:7.0} MB/s", median * 1e3, mb / median);
    }
}

/// The compact form of each `arguments` string on `tape` appended to `column`.
fn arguments_written(tape: &Tape<'_>, column: &mut StringBuilder) {
    let mut out = String::new();
    for (idx, pair) in tape.tokens.windows(2).enumerate() {
        if let [Token::Str(_), Token::Str(value)] = pair {
            if tape.str_is(idx, "arguments") {
                column.append_option(canonical::object(tape.text(value), &mut out).ok());
            }
        }
    }
}
