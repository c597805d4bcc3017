//! `onnxtxt::check` against the real checker (onnx 1.23.2 in `.venv`):
//! the operators issue's example, whose every mistake must be reported in
//! one run, each on its own line, and each of which
//! `onnx.checker.check_model(m, full_check=True)` must reject on its own.
//! Ignored in `cargo test`; `bash conformance/run.sh` runs it.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use onnxtxt::check::{check_text, Severity};

/// A graph whose lines are `lines`, with the issue's inputs and output.
fn graph(lines: &[&str]) -> String {
    format!(
        "<ir_version: 10, opset_import: [\"\": 21]>\n\
         g (float[N, 4] x, float[4, 4] w) => (float[4, N] y) {{\n{}\n}}\n",
        lines.join("\n")
    )
}

/// The issue's nodes, written right.
const RIGHT: [&str; 5] = [
    "  a = Relu(x)",
    "  b = Relu(a)",
    "  c = MatMul(b, w)",
    "  y = Transpose <perm: ints = [1, 0]> (c)",
    "  u = Neg(c)",
];

/// Each node of [`RIGHT`] with the issue's mistake in it, and the code
/// `onnxtxt check` gives it.
const WRONG: [(&str, &str); 5] = [
    ("  a = Rleu(x)", "unknown_operator"),
    ("  b = Relu <alhpa: float = 1.0> (a)", "unknown_attribute"),
    ("  c = MatMul(b)", "input_count"),
    ("  y = Transpose <perm: ints = [0]> (c, w)", "input_count"),
    ("  u = (c)", "missing_operator"),
];

/// The reference checker's verdict on `text` (parsed by the reference
/// parser): `Ok` when it accepts the model, its message when it does not.
fn reference_check(text: &str) -> Result<(), String> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    let script = "import sys, onnx, onnx.parser\n\
                  m = onnx.parser.parse_model(sys.stdin.read())\n\
                  try:\n    onnx.checker.check_model(m, full_check=True)\n\
                  except Exception as e:\n    print(e)\n    sys.exit(3)\n";
    let mut child = Command::new(&python)
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e} (run conformance/setup.sh)", python.display()));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    match out.status.code() {
        Some(0) => Ok(()),
        Some(3) => Err(String::from_utf8_lossy(&out.stdout).into_owned()),
        _ => panic!("the reference could not parse\n{text}"),
    }
}

/// `(code, line)` of each error `onnxtxt check` reports on `text`.
fn errors_by_line(text: &str) -> Vec<(String, usize)> {
    let (_, findings) = check_text(text).expect("parses");
    findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| {
            let d = &f.diagnostic;
            let code = d.code.trim_start_matches("onnxtxt::check::").to_string();
            (code, text[..d.span.start].matches('\n').count() + 1)
        })
        .collect()
}

#[test]
#[ignore = "needs the reference (conformance/setup.sh); run by conformance/run.sh"]
fn every_mistake_of_the_issue_is_reported_at_once_and_is_one() {
    // Written right, both accept it.
    let right = graph(&RIGHT);
    reference_check(&right).unwrap();
    assert_eq!(errors_by_line(&right), []);

    // The node on line 3 + i.
    let line_of = |node: usize| node + 3;
    let all_wrong: Vec<_> = WRONG.iter().map(|(line, _)| *line).collect();
    let expected: Vec<_> = WRONG
        .iter()
        .enumerate()
        .map(|(node, (_, code))| (code.to_string(), line_of(node)))
        .collect();
    assert_eq!(errors_by_line(&graph(&all_wrong)), expected);

    // Each mistake alone is one for the reference, and reported alone.
    for (node, (line, code)) in WRONG.iter().enumerate() {
        let mut lines = RIGHT;
        lines[node] = line;
        let text = graph(&lines);
        assert!(
            reference_check(&text).is_err(),
            "onnx.checker accepts\n{text}"
        );
        assert_eq!(errors_by_line(&text), [(code.to_string(), line_of(node))]);
    }
}
