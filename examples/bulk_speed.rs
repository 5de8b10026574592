//! Times the bulk core alone (no Python) over a JSONL file, one thread:
//! `cargo run --release --example bulk_speed FILE` (reading, tapes, records, Arrow rows).
use std::time::Instant;
use toolsift::bulk::rows::Rows;
use toolsift::bulk::source::{self, Blocks, Line};
use toolsift::bulk::{Outcome, Reader};
use toolsift::formats::Format;

fn main() {
    let path = std::env::args().nth(1).expect("a JSONL file");
    let format = Format::new("openai", "tool_calls", "name", "arguments", false).unwrap();
    let reading = Reader::new(&format, None).with_encoded_arguments();
    for round in 0..3 {
        let start = Instant::now();
        let (reader, count) = source::open(path.as_ref()).expect("readable file");
        let blocks: Vec<_> = Blocks::new(reader, count, source::BLOCK, source::MAX_LINE_BYTES)
            .collect::<Result<_, _>>()
            .expect("readable file");
        let read = start.elapsed().as_secs_f64();
        let mb = blocks.iter().map(|b| b.text().len()).sum::<usize>() as f64 / 1e6;
        let start = Instant::now();
        let mut tokens = 0;
        for block in &blocks {
            for line in block.lines() {
                if let Line::Text(line) = line {
                    tokens += toolsift::json::parse(line).map_or(0, |t| t.tokens.len());
                }
            }
        }
        let tape = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let mut calls = 0;
        for block in &blocks {
            for line in block.lines() {
                if let Some((_, Outcome::Read { record, .. })) = reading.read_line(line) {
                    calls += record.calls.len();
                }
            }
        }
        let records = start.elapsed().as_secs_f64();
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
        let arrow = start.elapsed().as_secs_f64();
        println!(
            "round {round}: read {:.0} MB/s, tape {:.0} MB/s ({tokens} tokens), records {:.0} MB/s ({calls} calls), rows {:.0} MB/s ({rows} rows)",
            mb / read, mb / tape, mb / records, mb / arrow
        );
    }
}
