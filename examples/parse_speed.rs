//! Times the core alone (no Python) over a JSONL file of OpenAI responses (plain, or
//! OpenAI Batch output lines): full tapes, pruned tapes (only the parts the walker reads,
//! as the bulk reader parses), and whole records (tape + walk + arguments decoded).
//! `cargo run --release --example parse_speed FILE`
use std::time::Instant;
use toolsift::formats::{members, Format};
use toolsift::json::{self, Keep};
use toolsift::record::parse_record;

fn main() {
    let path = std::env::args().nth(1).expect("a JSONL file");
    let data = std::fs::read(&path).expect("readable file");
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let format = Format::new("openai", "tool_calls", "name", "arguments", false).unwrap();
    let mut keep = format.keep().expect("openai responses can be pruned");
    keep.merge(&Keep {
        members: vec![("response".into(), members(&[("body", keep.clone())]))],
        ..Keep::default()
    });
    let mb = data.len() as f64 / 1e6;
    let rate = |label: &str, count: &dyn Fn(&[u8]) -> usize| {
        let start = Instant::now();
        let total: usize = lines.iter().map(|line| count(line)).sum();
        let secs = start.elapsed().as_secs_f64();
        format!("{label} {:.0} MB/s ({total})", mb / secs)
    };
    for round in 0..3 {
        println!(
            "round {round}: {}, {}, {}",
            rate("full tape", &|l| json::parse(l)
                .map_or(0, |t| t.tokens.len())),
            rate("pruned tape", &|l| json::parse_pruned(l, &keep)
                .map_or(0, |t| t.tokens.len())),
            rate("records", &|l| parse_record(&format, l)
                .map_or(0, |r| r.calls.len())),
        );
    }
}
