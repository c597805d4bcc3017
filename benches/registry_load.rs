//! What the operator registry costs a process: the time of its first
//! lookup, against a later one. The schemas are static data in the binary
//! (`onnxtxt::ops` builds nothing), so the first lookup pays only for
//! reading pages of the binary it had not touched yet.
//!
//! ```text
//! cargo bench --bench registry_load [-- RUNS]
//! ```
//!
//! Only a fresh process shows that cost, so this program runs itself RUNS
//! times (default 50) and prints the best and median of the first lookup's
//! and a later lookup's wall-clock time. Timings never feed a test.

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

/// Set in the child processes, which measure once and print two numbers.
const CHILD: &str = "ONNXTXT_REGISTRY_LOAD_CHILD";
/// How many processes by default: enough for a stable best and median.
const DEFAULT_RUNS: usize = 50;

fn lookup_micros() -> f64 {
    let start = Instant::now();
    // The arguments are opaque, lest the lookup be done at compile time.
    let conv = onnxtxt::ops::schema(black_box(""), black_box("Conv"), black_box(19));
    black_box(conv);
    start.elapsed().as_secs_f64() * 1e6
}

fn main() {
    if std::env::var_os(CHILD).is_some() {
        let first = lookup_micros();
        let later = lookup_micros();
        println!("{first} {later}");
        return;
    }
    let runs = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(DEFAULT_RUNS);
    let exe = std::env::current_exe().expect("the bench knows its path");
    let (mut first, mut later) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let out = Command::new(&exe)
            .env(CHILD, "1")
            .output()
            .expect("the bench runs itself");
        let text = String::from_utf8_lossy(&out.stdout);
        let mut numbers = text.split_whitespace().map(|n| n.parse::<f64>().unwrap());
        first.push(numbers.next().unwrap());
        later.push(numbers.next().unwrap());
    }
    for (what, mut times) in [("first lookup", first), ("later lookup", later)] {
        times.sort_by(f64::total_cmp);
        let (best, median) = (times[0], times[times.len() / 2]);
        println!("{what}: best {best:.1} µs, median {median:.1} µs over {runs} processes");
    }
}
