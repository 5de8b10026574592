//! Times the core alone (no Python) over a JSONL file: `cargo run --release --example parse_speed FILE`.
use std::time::Instant;
use toolsift::formats::Format;
use toolsift::record::parse_record;

fn main() {
    let path = std::env::args().nth(1).expect("a JSONL file");
    let data = std::fs::read(&path).expect("readable file");
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let format = Format::new("openai", "tool_calls", "name", "arguments", false).unwrap();
    for round in 0..3 {
        let start = Instant::now();
        let tape_only: usize = lines
            .iter()
            .map(|l| toolsift::json::parse(l).map_or(0, |t| t.tokens.len()))
            .sum();
        let tape_secs = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let calls: usize = lines
            .iter()
            .map(|l| parse_record(&format, l).map_or(0, |r| r.calls.len()))
            .sum();
        let secs = start.elapsed().as_secs_f64();
        let mb = data.len() as f64 / 1e6;
        println!("round {round}: tape {:.0} MB/s ({tape_only} tokens), records {:.0} MB/s ({calls} calls)", mb / tape_secs, mb / secs);
    }
}
