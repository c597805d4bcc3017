//! In-process throughput of onnxtxt on the inputs written by `bench/gen.py`.
//! Run through `bash bench/run.sh`, which makes the inputs and the report.
//!
//! ```text
//! cargo bench --bench throughput -- INPUT_DIR [OUT.tsv] [--only CASE[:OP]] [--reps N] [--secs S]
//! ```
//!
//! For every case of INPUT_DIR/cases.tsv (or of INPUT_DIR/exported.tsv, the
//! exporter-shaped models, in a directory without `cases.tsv`, such as
//! `target/bench/inputs-exported`) and every operation (`parse`:
//! text -> IR with `onnxtxt::parse_model`, `print`: IR -> text with
//! `onnxtxt::to_text`, `decode` / `encode`: the binary with prost, `check`:
//! `onnxtxt::check_model` of the IR, its output bytes being the number of
//! findings, `infer`: `onnxtxt::infer::infer_model` with the default options,
//! its output bytes being the number of findings), it runs
//! the operation at least 3 and at most `--reps` times (default 20), stopping
//! once `--secs` seconds (default 1) have been spent, and writes one TSV line:
//! case, op, input bytes, output bytes, repetitions, best and median seconds
//! of wall-clock time, then of the process's CPU time (user + system of all
//! its threads, `CLOCK_PROCESS_CPUTIME_ID`: printing long number lists uses
//! a second thread), models that failed, first error. Only the call is timed:
//! inputs are read and decoded before, results dropped after. Timings never
//! feed a test.
//! `--only` runs a single case, or a single case and operation (for `perf
//! record`); `bench/run.sh` times one case at a time, each right before the
//! reference's. `--only CASE:print-binary`, run only when asked, times
//! `Printer::print_binary_model` on the binary: the print the Python
//! package's `to_text` makes (decoding included).

use std::fs;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A point in time on both clocks: wall and this process's CPU time.
struct Stamp {
    wall: Instant,
    cpu: f64,
}

#[cfg(target_os = "linux")]
fn process_cpu_secs() -> f64 {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec (64-bit time_t and long on
    // the 64-bit Linux targets this is built for) into `ts`.
    let rc = unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[cfg(not(target_os = "linux"))]
fn process_cpu_secs() -> f64 {
    f64::NAN
}

impl Stamp {
    fn now() -> Self {
        Stamp {
            wall: Instant::now(),
            cpu: process_cpu_secs(),
        }
    }
    /// Seconds since `self`: (wall, CPU).
    fn elapsed(&self) -> (f64, f64) {
        let cpu = process_cpu_secs() - self.cpu;
        (self.wall.elapsed().as_secs_f64(), cpu)
    }
}

use onnxtxt::infer::{infer_model, Options as InferOptions};
use onnxtxt::proto::ModelProto;
use onnxtxt::Printer;
use prost::Message;

struct Case {
    name: String,
    /// The reference printer's text of each model.
    texts: Vec<String>,
    /// Each model's binary.
    bins: Vec<Vec<u8>>,
}

fn unframe(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let len = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
        out.push(rest[4..4 + len].to_vec());
        rest = &rest[4 + len..];
    }
    out
}

fn load(dir: &Path, name: &str, kind: &str) -> Case {
    let read = |suffix: &str| {
        let path = dir.join(format!("{name}{suffix}"));
        fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let (texts, bins) = match kind {
        "batch" => (unframe(&read(".txt.batch")), unframe(&read(".onnx.batch"))),
        _ => (vec![read(".txt")], vec![read(".onnx")]),
    };
    let texts = texts
        .into_iter()
        .map(|t| String::from_utf8(t).expect("text inputs are UTF-8"))
        .collect();
    Case {
        name: name.to_string(),
        texts,
        bins,
    }
}

struct Stats {
    reps: usize,
    best: f64,
    median: f64,
    best_cpu: f64,
    median_cpu: f64,
}

/// Runs `f` (one repetition over the whole case, returning its wall and CPU
/// seconds) until the budget is spent.
fn measure(max_reps: usize, budget: Duration, mut f: impl FnMut() -> (f64, f64)) -> Stats {
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    let start = Instant::now();
    while wall.len() < 3 || (wall.len() < max_reps && start.elapsed() < budget) {
        let (w, c) = f();
        wall.push(w);
        cpu.push(c);
    }
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    Stats {
        reps: wall.len(),
        best: wall[0],
        median: wall[wall.len() / 2],
        best_cpu: cpu[0],
        median_cpu: cpu[cpu.len() / 2],
    }
}

struct Row {
    op: &'static str,
    bytes_in: usize,
    bytes_out: usize,
    stats: Option<Stats>,
    failures: usize,
    first_error: String,
}

fn run_op(case: &Case, op: &'static str, max_reps: usize, budget: Duration) -> Row {
    let bin_bytes: usize = case.bins.iter().map(Vec::len).sum();
    let models: Vec<ModelProto> = case
        .bins
        .iter()
        .map(|b| ModelProto::decode(b.as_slice()).expect("prost decodes the binaries"))
        .collect();
    let mut row = Row {
        op,
        bytes_in: 0,
        bytes_out: 0,
        stats: None,
        failures: 0,
        first_error: String::new(),
    };
    match op {
        "parse" => {
            // Failures are counted once, then only the texts that parse are timed.
            let mut ok = Vec::new();
            for (i, text) in case.texts.iter().enumerate() {
                match onnxtxt::parse_model(text) {
                    Ok(m) => {
                        row.bytes_out += m.encoded_len();
                        ok.push(text.as_str());
                    }
                    Err(e) => {
                        row.failures += 1;
                        if row.first_error.is_empty() {
                            row.first_error = format!("model {i}: {e}").replace(['\n', '\t'], " ");
                        }
                    }
                }
            }
            row.bytes_in = ok.iter().map(|t| t.len()).sum();
            if !ok.is_empty() {
                let mut out = Vec::with_capacity(ok.len());
                row.stats = Some(measure(max_reps, budget, || {
                    out.clear();
                    let t = Stamp::now();
                    for text in &ok {
                        out.push(black_box(onnxtxt::parse_model(black_box(text))));
                    }
                    let e = t.elapsed();
                    out.clear(); // dropping the IR is not timed
                    e
                }));
            }
        }
        "print" => {
            row.bytes_in = bin_bytes;
            row.bytes_out = models.iter().map(|m| onnxtxt::to_text(m).len()).sum();
            row.stats = Some(time_each(&models, max_reps, budget, onnxtxt::to_text));
        }
        "print-binary" => {
            let print = |b: &Vec<u8>| Printer::new().print_binary_model(b).map(|p| p.text);
            row.bytes_in = bin_bytes;
            row.bytes_out = case
                .bins
                .iter()
                .map(|b| print(b).map_or(0, |t| t.len()))
                .sum();
            let mut out = Vec::with_capacity(case.bins.len());
            row.stats = Some(measure(max_reps, budget, || {
                out.clear();
                let t = Stamp::now();
                for b in &case.bins {
                    out.push(black_box(print(black_box(b))));
                }
                let e = t.elapsed();
                out.clear();
                e
            }));
        }
        "decode" => {
            row.bytes_in = bin_bytes;
            row.bytes_out = bin_bytes;
            let mut out = Vec::with_capacity(models.len());
            row.stats = Some(measure(max_reps, budget, || {
                out.clear();
                let t = Stamp::now();
                for b in &case.bins {
                    out.push(black_box(ModelProto::decode(black_box(b.as_slice()))));
                }
                let e = t.elapsed();
                out.clear();
                e
            }));
        }
        "encode" => {
            row.bytes_in = bin_bytes;
            row.bytes_out = models.iter().map(|m| m.encode_to_vec().len()).sum();
            row.stats = Some(time_each(
                &models,
                max_reps,
                budget,
                ModelProto::encode_to_vec,
            ));
        }
        "check" => {
            row.bytes_in = bin_bytes;
            row.bytes_out = models.iter().map(|m| onnxtxt::check_model(m).len()).sum();
            row.stats = Some(time_each(&models, max_reps, budget, onnxtxt::check_model));
        }
        "infer" => {
            let infer = |m: &ModelProto| infer_model(m, InferOptions::default()).findings().len();
            row.bytes_in = bin_bytes;
            row.bytes_out = models.iter().map(infer).sum();
            row.stats = Some(time_each(&models, max_reps, budget, infer));
        }
        _ => panic!("unknown operation {op}"),
    }
    row
}

/// The statistics of `f` called on every model, its results dropped
/// untimed.
fn time_each<T>(
    models: &[ModelProto],
    max_reps: usize,
    budget: Duration,
    f: impl Fn(&ModelProto) -> T,
) -> Stats {
    let mut out = Vec::with_capacity(models.len());
    measure(max_reps, budget, || {
        out.clear();
        let t = Stamp::now();
        for m in models {
            out.push(black_box(f(black_box(m))));
        }
        let e = t.elapsed();
        out.clear();
        e
    })
}

/// The allocator the `onnxtxt` command uses (see `src/main.rs`), so that
/// these timings are the command's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The operations timed on every case, in order.
const OPS: [&str; 6] = ["parse", "print", "decode", "encode", "check", "infer"];

/// The operations timed only when `--only CASE:OP` names them.
const ON_REQUEST: [&str; 1] = ["print-binary"];

fn main() {
    // `cargo bench` adds `--bench`; ignore it.
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let mut positional = Vec::new();
    let (mut only, mut max_reps, mut secs) = (None, 20usize, 1.0f64);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--only" => only = args.next(),
            "--reps" => max_reps = args.next().and_then(|v| v.parse().ok()).expect("--reps N"),
            "--secs" => secs = args.next().and_then(|v| v.parse().ok()).expect("--secs S"),
            _ => positional.push(a),
        }
    }
    let dir = PathBuf::from(
        positional
            .first()
            .expect("usage: throughput INPUT_DIR [OUT.tsv]"),
    );
    let mut out: Box<dyn Write> = match positional.get(1) {
        Some(p) => Box::new(fs::File::create(p).expect("output file")),
        None => Box::new(std::io::stdout()),
    };
    let budget = Duration::from_secs_f64(secs);
    let cases = fs::read_to_string(dir.join("cases.tsv"))
        .or_else(|_| fs::read_to_string(dir.join("exported.tsv")))
        .expect("cases.tsv or exported.tsv (run bench/gen.py)");
    writeln!(out, "case\top\tbytes_in\tbytes_out\treps\tbest_s\tmedian_s\tbest_cpu_s\tmedian_cpu_s\tfailures\tfirst_error").unwrap();
    for line in cases.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let (name, kind) = (f[0], f[3]);
        let ops: Vec<&'static str> = match &only {
            Some(o) => {
                let (c, op) = o
                    .split_once(':')
                    .map_or((o.as_str(), None), |(c, op)| (c, Some(op)));
                if c != name {
                    continue;
                }
                match op {
                    Some(op) => vec![OPS.into_iter().chain(ON_REQUEST).find(|k| *k == op).expect(
                        "op is parse, print, decode, encode, check, infer or print-binary",
                    )],
                    None => OPS.to_vec(),
                }
            }
            None => OPS.to_vec(),
        };
        let case = load(&dir, name, kind);
        for op in ops {
            let r = run_op(&case, op, max_reps, budget);
            let (reps, times) = match &r.stats {
                Some(s) => (
                    s.reps.to_string(),
                    [s.best, s.median, s.best_cpu, s.median_cpu].map(|t| format!("{t:.6}")),
                ),
                None => ("0".into(), ["nan"; 4].map(String::from)),
            };
            let [best, median, best_cpu, median_cpu] = &times;
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                case.name,
                r.op,
                r.bytes_in,
                r.bytes_out,
                reps,
                best,
                median,
                best_cpu,
                median_cpu,
                r.failures,
                r.first_error
            )
            .unwrap();
            out.flush().unwrap();
            eprintln!("throughput: {name} {op}: best {best} s (CPU {best_cpu} s) over {reps} reps");
        }
    }
}
