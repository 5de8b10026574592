//! Times full vs pruned tapes over a JSONL file: `cargo run --release --example prune_speed FILE`.
use std::time::Instant;
use toolsift::formats::Format;

fn main() {
    let path = std::env::args().nth(1).expect("a JSONL file");
    let data = std::fs::read(&path).expect("readable file");
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let format = Format::new("openai", "tool_calls", "name", "arguments", false).unwrap();
    let keep = toolsift::json::Keep {
        members: vec![(
            "response".into(),
            toolsift::formats::members(&[("body", format.keep().unwrap())]),
        )],
        ..Default::default()
    };
    let mb = data.len() as f64 / 1e6;
    for _ in 0..3 {
        let start = Instant::now();
        let full: usize = lines
            .iter()
            .map(|l| toolsift::json::parse(l).map_or(0, |t| t.tokens.len()))
            .sum();
        let full_s = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let pruned: usize = lines
            .iter()
            .map(|l| toolsift::json::parse_pruned(l, &keep).map_or(0, |t| t.tokens.len()))
            .sum();
        let pruned_s = start.elapsed().as_secs_f64();
        println!(
            "full {:.0} MB/s ({full} tokens), pruned {:.0} MB/s ({pruned} tokens)",
            mb / full_s,
            mb / pruned_s
        );
    }
}
