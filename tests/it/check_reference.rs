//! `onnxtxt::check` against the real checker and runtime (onnx 1.23.2 and
//! onnxruntime in `.venv`): the operators issue's example, whose every
//! mistake must be reported in one run, each on its own line, and each of
//! which `onnx.checker.check_model(m, full_check=True)` must reject on its
//! own; and the mistakes onnx.checker lets through but the spec forbids,
//! each an error at its line and refused by onnxruntime for that reason.
//! Ignored in `cargo test`; `bash conformance/run.sh` runs them.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use onnxtxt::check::{check_text, Severity};
use prost::Message as _;

use crate::tools::reference_python;

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
fn reference_check(python: &Path, text: &str) -> Result<(), String> {
    let script = "import sys, onnx, onnx.parser\n\
                  m = onnx.parser.parse_model(sys.stdin.read())\n\
                  try:\n    onnx.checker.check_model(m, full_check=True)\n\
                  except Exception as e:\n    print(e)\n    sys.exit(3)\n";
    run_python(python, &["-c", script], text.as_bytes())
}

/// onnxruntime's verdict on `text` as onnxtxt parses it (loaded, and run
/// on zeros, by conformance/runtime_verdict.py): `Ok` when it runs the
/// model, its message when it does not.
fn runtime_verdict(python: &Path, text: &str) -> Result<(), String> {
    let model = onnxtxt::parse_model(text).expect("parses");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/runtime_verdict.py");
    run_python(
        python,
        &[script.to_str().unwrap(), "-"],
        &model.encode_to_vec(),
    )
}

/// Runs the reference's `python` with `args` on `stdin`: `Ok` when it exits
/// 0, what it printed when it exits 3 (a refusal); anything else is a
/// failure of the script.
fn run_python(python: &Path, args: &[&str], stdin: &[u8]) -> Result<(), String> {
    let mut child = Command::new(python)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e} (run conformance/setup.sh)", python.display()));
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    match out.status.code() {
        Some(0) => Ok(()),
        Some(3) => Err(String::from_utf8_lossy(&out.stdout).into_owned()),
        _ => panic!("{args:?} failed on\n{}", String::from_utf8_lossy(stdin)),
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
    let Some(python) = reference_python() else {
        return;
    };
    // Written right, both accept it.
    let right = graph(&RIGHT);
    reference_check(&python, &right).unwrap();
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
            reference_check(&python, &text).is_err(),
            "onnx.checker accepts\n{text}"
        );
        assert_eq!(errors_by_line(&text), [(code.to_string(), line_of(node))]);
    }
}

/// A mistake onnx.checker lets through: a model written right, the line
/// (1-based) that the mistake replaces, that line written wrong, the code
/// `onnxtxt check` reports and the line it reports it at (the node's), and
/// what onnxruntime says refusing it.
struct Mistake {
    right: &'static str,
    line: usize,
    wrong: &'static str,
    code: &'static str,
    at: usize,
    runtime_says: &'static str,
}

/// A local function `my.Axpy (a, x, b)` whose body needs every input.
const AXPY: &str = r#"<ir_version: 10, opset_import: ["": 21, "my": 1]>
g (float[2] x, float[2] s) => (float[2] y) {
  y = my.Axpy(x, s, x)
}
<domain: "my", opset_import: ["": 21]>
Axpy (a, x, b) => (r) {
  t = Mul(a, x)
  r = Add(t, b)
}
<domain: "my", opset_import: ["": 21]>
Gelu (a) => (r) {
  r = Relu(a)
}
"#;

const CONV: &str = r#"<ir_version: 10, opset_import: ["": 21]>
g (float[1, 16, 8, 8] x, float[16, 1, 2, 2] w) => (float[1, 16, ?, ?] y) {
  y = Conv <kernel_shape: ints = [2, 2], group: int = 16> (x, w)
}
"#;

/// The mistakes of issue 35's table, and more of the same kinds.
const MISTAKES: &[Mistake] = &[
    Mistake {
        right: "<ir_version: 10, opset_import: [\"\": 21]>\n\
                g (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}> {\n  y = Add(x, w)\n}\n",
        line: 2,
        wrong: "g (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0, 3.0}> {",
        code: "tensor_size",
        at: 2,
        runtime_says: "data field count (3) does not match expected count from shape (2)",
    },
    Mistake {
        right: CONV,
        line: 3,
        wrong: "  y = Conv <kernel_shape: ints = [3, 3], group: int = 16> (x, w)",
        code: "window",
        at: 3,
        runtime_says: "kernel_shape is not compatible with W shape",
    },
    Mistake {
        right: CONV,
        line: 3,
        wrong: "  y = Conv <kernel_shape: ints = [2, 2]> (x, w)",
        code: "window",
        at: 3,
        runtime_says: "Input channels C is not equal to kernel channels * group",
    },
    Mistake {
        right: "<ir_version: 10, opset_import: [\"\": 21]>\n\
                g (float[1, 4, 4, 4] x, float[4, 2, 3, 3] w) => (float[1, 2, 6, 6] y) {\n  \
                y = ConvTranspose (x, w)\n}\n",
        line: 2,
        wrong: "g (float[1, 8, 4, 4] x, float[4, 2, 3, 3] w) => (float[1, 2, 6, 6] y) {",
        code: "window",
        at: 3,
        runtime_says: "filter number not equal to input channel number",
    },
    Mistake {
        right: "<ir_version: 10, opset_import: [\"\": 21]>\n\
                g (uint8[1, 2, 5, 5] x, uint8[2, 2, 3, 3] w) => (int32[1, 2, ?, ?] y) {\n  \
                y = ConvInteger <kernel_shape: ints = [3, 3]> (x, w)\n}\n",
        line: 3,
        wrong: "  y = ConvInteger <kernel_shape: ints = [2, 2]> (x, w)",
        code: "window",
        at: 3,
        runtime_says: "kernel_shape is not compatible with W shape",
    },
    Mistake {
        right: "<ir_version: 10, opset_import: [\"\": 21]>\n\
                g (uint8[1, 2, 5, 5] x, uint8[2, 2, 3, 3] w) => (uint8[1, 2, ?, ?] y) \
                <float xs = {1.0}, uint8 xz = {0}, float ws = {1.0}, uint8 wz = {0}, \
                float ys = {1.0}, uint8 yz = {0}> {\n  \
                y = QLinearConv <kernel_shape: ints = [3, 3]> (x, xs, xz, w, ws, wz, ys, yz)\n}\n",
        line: 3,
        wrong: "  y = QLinearConv <kernel_shape: ints = [2, 2]> (x, xs, xz, w, ws, wz, ys, yz)",
        code: "window",
        at: 3,
        runtime_says: "kernel_shape is not compatible with W shape",
    },
    Mistake {
        right: AXPY,
        line: 3,
        wrong: "  y = my.Axpy(x, s)",
        code: "empty_input",
        at: 3,
        runtime_says: "is marked single but has an empty string",
    },
    Mistake {
        right: AXPY,
        line: 3,
        wrong: "  y = my.Axpy(x, \"\", s)",
        code: "empty_input",
        at: 3,
        runtime_says: "is marked single but has an empty string",
    },
    Mistake {
        right: AXPY,
        line: 3,
        wrong: "  y = my.Axpy(x, s, x, s)",
        code: "input_count",
        at: 3,
        runtime_says: "Number of actual parameters cannot exceed number of formal parameters",
    },
    Mistake {
        right: AXPY,
        line: 3,
        wrong: "  y, z = my.Axpy(x, s, x)",
        code: "output_count",
        at: 3,
        runtime_says: "output arg (z) type inference failed",
    },
    Mistake {
        right: AXPY,
        line: 3,
        wrong: "  y = my.Gleu(x)",
        code: "unknown_function",
        at: 3,
        runtime_says: "my:Gleu(-1) is not a registered function/op",
    },
];

#[test]
#[ignore = "needs onnxruntime (conformance/setup.sh); run by conformance/run.sh"]
fn what_onnxruntime_refuses_for_the_spec_is_an_error_at_its_line() {
    let Some(python) = reference_python() else {
        return;
    };
    for mistake in MISTAKES {
        let right = mistake.right;
        assert_eq!(errors_by_line(right), [], "{right}");
        runtime_verdict(&python, right)
            .unwrap_or_else(|e| panic!("onnxruntime refuses\n{right}\n{e}"));
        let mut lines: Vec<&str> = right.lines().collect();
        lines[mistake.line - 1] = mistake.wrong;
        let wrong = lines.join("\n") + "\n";
        assert_eq!(
            errors_by_line(&wrong),
            [(mistake.code.to_string(), mistake.at)],
            "{wrong}"
        );
        let refusal = runtime_verdict(&python, &wrong).expect_err(&wrong);
        assert!(
            refusal.contains(mistake.runtime_says),
            "{wrong}\nonnxruntime: {refusal}"
        );
        // onnx.checker lets each through: that is why they were missed.
        if mistake.code != "tensor_size" {
            assert_eq!(reference_check(&python, &wrong), Ok(()), "{wrong}");
        }
    }
}

/// The reference checker's verdict on `model`, as bytes.
fn checker_verdict(python: &Path, model: &onnxtxt::proto::ModelProto) -> Result<(), String> {
    let script = "import sys, onnx\n\
                  m = onnx.load_from_string(sys.stdin.buffer.read())\n\
                  try:\n    onnx.checker.check_model(m, full_check=True)\n\
                  except Exception as e:\n    print(e)\n    sys.exit(3)\n";
    run_python(python, &["-c", script], &model.encode_to_vec())
}

#[test]
#[ignore = "needs the reference (conformance/setup.sh); run by conformance/run.sh"]
fn onnx_checker_rejects_every_model_of_the_conditions_table() {
    use crate::check_checker::{model_of, BASE, CONDITIONS};
    let Some(python) = reference_python() else {
        return;
    };
    checker_verdict(&python, &onnxtxt::parse_model(BASE).unwrap()).unwrap();
    for condition in CONDITIONS {
        let Some(model) = model_of(&condition.proof) else {
            continue;
        };
        let says = condition.says;
        let refusal = checker_verdict(&python, &model).expect_err(says);
        assert!(!refusal.is_empty(), "{says}");
    }
}
