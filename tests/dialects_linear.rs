//! The Rust half of benches/dialects_linear.py (a benchmark, not a check): ignored unless
//! asked for; times `parse` on each text the script wrote to `DIALECTS_LINEAR_DIR` (first
//! line `dialect<TAB>case`, then the text) and prints `time<TAB>dialect<TAB>case<TAB>secs`
//! (the median of `DIALECTS_LINEAR_ROUNDS` runs).

use std::hint::black_box;
use std::time::Instant;
use toolsift::dialects::Dialect;

#[test]
#[ignore = "a benchmark: run by benches/dialects_linear.py --rust"]
fn dialects_linear() {
    let Ok(folder) = std::env::var("DIALECTS_LINEAR_DIR") else {
        return;
    };
    let rounds: usize = (std::env::var("DIALECTS_LINEAR_ROUNDS").ok())
        .and_then(|rounds| rounds.parse().ok())
        .unwrap_or(5);
    let mut paths: Vec<_> = (std::fs::read_dir(folder).unwrap())
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    for path in paths {
        let file = std::fs::read_to_string(&path).unwrap();
        let (head, text) = file.split_once('\n').unwrap();
        let (name, case) = head.split_once('\t').unwrap();
        let dialect = Dialect::named(name).unwrap();
        let mut times: Vec<f64> = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                black_box(dialect.parse(black_box(text), None));
                start.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!("time\t{name}\t{case}\t{}", times[times.len() / 2]);
    }
}
