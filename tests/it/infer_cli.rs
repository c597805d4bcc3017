//! Tests of inference in the command line: `onnxtxt infer` (text and
//! binary, findings), `onnxtxt print --types`, `onnxtxt fmt` refreshing
//! type comments, and `onnxtxt check` reporting what inference finds wrong,
//! located.

use crate::support::{arg, run, run_stdin, write};
use prost::Message as _;

const MLP: &str = r#"<ir_version: 10, opset_import: ["": 21]>
mlp (float[B, 3] x, float[3, 4] w, float[4] b) => (float[B, 4] y) {
  h = MatMul(x, w)
  z = Add(h, b)
  y = Relu(z)
}
"#;

#[test]
fn infer_writes_the_inferred_value_infos_as_text() {
    let out = run_stdin(&["infer"], MLP.as_bytes());
    assert_eq!(out.code, 0, "{out:?}");
    let text = out.text();
    assert!(text.contains("=> (float[B,4] y)"), "{text}");
    assert!(text.contains("float[B,4] h"), "{text}");
    assert!(text.contains("float[B,4] z"), "{text}");
    // The result reads back and infers to itself.
    let again = run_stdin(&["infer"], text.as_bytes());
    assert_eq!(again.text(), text);
}

#[test]
fn infer_keeps_binary_binary_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let text = write(dir.path(), "m.onnxtxt", MLP.as_bytes());
    let binary = dir.path().join("m.onnx");
    assert_eq!(run(&["parse", arg(&text), "-o", arg(&binary)]).code, 0);
    let inferred = dir.path().join("inferred.onnx");
    let out = run(&["infer", arg(&binary), "-o", arg(&inferred)]);
    assert_eq!(out.code, 0, "{out:?}");
    let model = onnxtxt::proto::ModelProto::decode(&std::fs::read(&inferred).unwrap()[..]).unwrap();
    let names: Vec<_> = model
        .graph
        .unwrap()
        .value_info
        .iter()
        .map(|v| v.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["h", "z"]);
    let as_text = run(&["infer", arg(&binary), "--to", "text"]);
    assert!(as_text.text().contains("float[B,4] h"), "{as_text:?}");
}

#[test]
fn infer_shows_findings_and_writes_nothing_on_an_error() {
    let bad = MLP.replace("float[3, 4] w", "float[5, 4] w");
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "bad.onnxtxt", bad.as_bytes());
    let output = dir.path().join("out.onnxtxt");
    let out = run(&["infer", arg(&input), "-o", arg(&output)]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(!output.exists());
    assert!(
        out.stderr.contains("onnxtxt::infer::incompatible_shapes"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("the inner dimensions differ: 3 ≠ 5"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("bad.onnxtxt:3:3"), "{}", out.stderr);
}

#[test]
fn check_reports_shape_and_type_mistakes_at_their_nodes() {
    let cases = [
        (
            MLP.replace("float[3, 4] w", "float[5, 4] w"),
            "incompatible_shapes",
            "3:3",
        ),
        (
            MLP.replace("y = Relu(z)", "y = Softmax <axis: int = 5> (z)"),
            "axis_out_of_range",
            "5:3",
        ),
        (
            MLP.replace("float[B, 4] y", "float[B, 8] y"),
            "declared_type_mismatch",
            "5:3",
        ),
        (
            MLP.replace("float[4] b", "int64[4] b"),
            "type_mismatch",
            "4:3",
        ),
        (
            MLP.replace("float[B, 3] x", "string[B, 3] x"),
            "type_not_allowed",
            "3:3",
        ),
    ];
    for (text, code, at) in cases {
        let out = run_stdin(&["check"], text.as_bytes());
        assert_eq!(out.code, 1, "{text}\n{out:?}");
        assert!(
            out.stderr.contains(&format!("onnxtxt::infer::{code}")),
            "{text}\n{}",
            out.stderr
        );
        assert!(
            out.stderr.contains(&format!("<stdin>:{at}")),
            "{text}\n{}",
            out.stderr
        );
    }
    assert_eq!(run_stdin(&["check"], MLP.as_bytes()).code, 0);
}

#[test]
fn print_types_writes_type_comments_that_parse_ignores() {
    let out = run_stdin(&["print", "--types"], MLP.as_bytes());
    assert_eq!(out.code, 0, "{out:?}");
    let text = out.text();
    assert!(text.contains("h = MatMul (x, w) #: float[B,4]"), "{text}");
    assert!(text.contains("y = Relu (z) #: float[B,4]"), "{text}");
    let plain = run_stdin(&["print"], MLP.as_bytes());
    let reparsed = run_stdin(&["print"], text.as_bytes());
    assert_eq!(reparsed.text(), plain.text());
}

#[test]
fn fmt_refreshes_type_comments_and_keeps_the_authors() {
    let typed = run_stdin(&["print", "--types"], MLP.as_bytes())
        .text()
        .to_owned();
    // The weights change shape: the comments are stale, and one has the
    // author's note before it.
    let stale = typed
        .replace("float[3,4] w", "float[3,7] w")
        .replace("float[4] b", "float[7] b")
        .replace("float[B,4] y", "float[B,7] y")
        .replace("h = MatMul (x, w) #:", "h = MatMul (x, w) # the layer #:");
    let out = run_stdin(&["fmt"], stale.as_bytes());
    assert_eq!(out.code, 0, "{out:?}");
    let text = out.text();
    assert!(
        text.contains("h = MatMul (x, w) # the layer #: float[B,7]"),
        "{text}"
    );
    assert!(text.contains("y = Relu (z) #: float[B,7]"), "{text}");
    assert!(!text.contains("float[B,4]"), "{text}");
    // Without type comments, fmt adds none.
    let plain = run_stdin(&["fmt"], MLP.as_bytes());
    assert!(!plain.text().contains("#:"), "{plain:?}");
}
