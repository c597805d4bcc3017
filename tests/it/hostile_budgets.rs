//! Hostile input against the budgets of issue 43: texts made to take
//! memory, time or output without bound (data propagation that doubles a
//! value 44 times, an overflowing `Range`, millions of unclosed brackets,
//! a 10 MB literal, tens of thousands of findings, control characters that
//! would drive a terminal). Each runs the real `onnxtxt` as a child
//! process under a memory limit and a CPU-time limit (`ulimit` in `sh`),
//! and must finish within them with bounded output.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{arg, write};

/// The address space a run may take: a few times what the command needs
/// for these inputs, far below what they took without the budgets.
const MEMORY_KB: u64 = 2 << 20;

/// The CPU seconds a run may take (a debug build, on a busy machine).
const CPU_SECONDS: u64 = 30;

/// The most standard error a run may write: a thousand findings at most,
/// not millions.
const MAX_STDERR: usize = 1 << 20;

/// What a bounded run gave.
#[derive(Debug)]
struct Bounded {
    /// The exit code; `None` when a limit killed it.
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs `onnxtxt args` with `stdin`, under [`MEMORY_KB`] and
/// [`CPU_SECONDS`], and checks it stayed within them and wrote at most
/// [`MAX_STDERR`] bytes to standard error.
fn bounded(args: &[&str], stdin: &[u8]) -> Bounded {
    let limits = format!("ulimit -v {MEMORY_KB} && ulimit -t {CPU_SECONDS} && exec \"$@\"");
    let mut child = Command::new("sh")
        .args(["-c", &limits, "sh", env!("CARGO_BIN_EXE_onnxtxt")])
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    let start = Instant::now();
    // The command may exit without reading everything: that is its answer.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let output = child.wait_with_output().unwrap();
    let run = Bounded {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed: start.elapsed(),
    };
    assert!(
        run.code.is_some(),
        "onnxtxt {args:?} was killed by a limit after {:?}: {}",
        run.elapsed,
        &run.stderr[..run.stderr.len().min(2000)]
    );
    assert!(
        run.stderr.len() <= MAX_STDERR,
        "onnxtxt {args:?} wrote {} bytes to stderr",
        run.stderr.len()
    );
    run
}

/// A constant, 44 `Concat`s of the previous value with itself (the last
/// would have 2^45 elements), a `Reshape` to it; with `comment`, the
/// `Reshape` has a type comment (so that `fmt` infers).
fn doubling(comment: &str) -> String {
    let mut text = String::from(
        "<ir_version: 10, opset_import: [\"\": 21]>\ng (int64[2] s) => (int64[] y) {\n  \
         c0 = Constant <value = int64[2] {1, 2}> ()\n",
    );
    for i in 1..=44 {
        text += &format!("  c{i} = Concat <axis = 0> (c{j}, c{j})\n", j = i - 1);
    }
    text + &format!("  y = Reshape (s, c44){comment}\n}}\n")
}

#[test]
fn data_propagation_stays_bounded_in_infer_print_and_fmt() {
    let text = doubling("");
    let inferred = bounded(&["infer"], text.as_bytes());
    assert_eq!(inferred.code, Some(0), "{inferred:?}");
    assert!(
        inferred.stdout.contains("int64[35184372088832] c44"),
        "{inferred:?}"
    );
    let typed = bounded(&["print", "--types"], text.as_bytes());
    assert_eq!(typed.code, Some(0), "{typed:?}");
    assert!(
        typed.stdout.contains("(c43, c43) #: int64[35184372088832]"),
        "{typed:?}"
    );
    // A type comment makes `fmt` infer.
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "m.onnxtxt", doubling(" #: old").as_bytes());
    let formatted = bounded(&["fmt", arg(&file)], b"");
    assert_eq!(formatted.code, Some(0), "{formatted:?}");
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.contains("(s, c44) #: int64[]"), "{written}");
    for run in [inferred, typed, formatted] {
        assert!(run.elapsed < Duration::from_secs(10), "{run:?}");
    }
}

#[test]
fn a_range_whose_count_overflows_has_an_unknown_dim() {
    let text = "<ir_version: 10, opset_import: [\"\": 21]>\ng () => (y) {\n  \
                s = Constant <value = int64 {-9223372036854775808}> ()\n  \
                l = Constant <value = int64 {9223372036854775807}> ()\n  \
                d = Constant <value = int64 {1}> ()\n  y = Range (s, l, d)\n}\n";
    let run = bounded(&["print", "--types"], text.as_bytes());
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("y = Range (s, l, d) #: int64[?]"),
        "{run:?}"
    );
}

#[test]
fn millions_of_unclosed_brackets_give_the_first_errors_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.onnx");
    for bracket in [b'{', b'['] {
        let run = bounded(&["parse", "-o", arg(&out), "-"], &[bracket; 2_000_000]);
        assert_eq!(run.code, Some(1), "{run:?}");
        let never_closed = format!("`{}` is never closed", bracket as char);
        assert_eq!(run.stderr.matches(&never_closed).count(), 50);
        assert!(run.elapsed < Duration::from_secs(20), "{:?}", run.elapsed);
    }
}

#[test]
fn a_text_broken_on_every_line_costs_no_more_than_fifty_errors() {
    let text = format!("g () => (y) {{\n{}}}\n", "y = Relu x\n".repeat(300_000));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.onnx");
    let run = bounded(&["parse", "-o", arg(&out), "-"], text.as_bytes());
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(run.stderr.matches("] Error: expected").count(), 50);
    assert!(run.elapsed < Duration::from_secs(20), "{:?}", run.elapsed);
}

/// `parse` of `text` from standard input, with each error format, which
/// fails.
fn failed_parses(text: &str) -> Vec<Bounded> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.onnx");
    let parse = |format| {
        bounded(
            &["--error-format", format, "parse", "-o", arg(&out), "-"],
            text.as_bytes(),
        )
    };
    let runs = vec![parse("human"), parse("json")];
    for run in &runs {
        assert_eq!(run.code, Some(1), "{run:?}");
    }
    runs
}

#[test]
fn a_huge_literal_is_quoted_once_and_shortened() {
    let text = format!(
        "<ir_version: 10, opset_import: [\"\": 21]>\ng () => (y) {{ y = Constant <value_int = {}> () }}\n",
        "9".repeat(10_000_000)
    );
    for run in failed_parses(&text) {
        assert!(
            run.stderr.contains(&format!("`{}…`", "9".repeat(64))),
            "{run:?}"
        );
        assert!(run.stderr.len() < 1000, "{run:?}");
    }
}

#[test]
fn control_characters_never_reach_the_terminal() {
    let text = "g (float x) => (float y) {\n  y = Relu(x\u{1b}]0;owned\u{7}\u{9b}2J)\n}\n";
    for run in failed_parses(text) {
        assert!(run.stderr.contains("\\u{1b}"), "{run:?}");
        let raw = run
            .stderr
            .chars()
            .find(|&c| (c.is_control() && c != '\n') || ('\u{80}'..='\u{9f}').contains(&c));
        assert_eq!(raw, None, "{run:?}");
    }
}

#[test]
fn check_shows_a_bounded_number_of_findings_and_counts_them_all() {
    // 20,000 nodes that read a value nothing defines: 40,000 findings.
    let nodes: String = (0..20_000)
        .map(|i| format!("  a{i} = Relu(u{i})\n"))
        .collect();
    let text = format!(
        "<ir_version: 10, opset_import: [\"\": 21]>\n\
         g (float[2] x) => (float[2] y) {{\n  y = Relu(x)\n{nodes}}}\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "m.onnxtxt", text.as_bytes());
    // The limit is for each model: a tool checking many in one run gets
    // each one's first findings.
    let run = bounded(&["check", arg(&file), arg(&file)], b"");
    assert_eq!(run.code, Some(1), "the errors still fail the run: {run:?}");
    let summary = |n| format!("m.onnxtxt: 20000 errors, 20000 warnings ({n} not shown)\n");
    let tail = &run.stderr[run.stderr.len() - 400..];
    assert_eq!(run.stderr.matches(&summary(39000)).count(), 2, "{tail}");
    assert!(run.elapsed < Duration::from_secs(20), "{:?}", run.elapsed);
}
