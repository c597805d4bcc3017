//! `onnxtxt inline`: the reference-backed test (conformance/inline_reference.py
//! runs onnx's checker, its inliner, its ReferenceEvaluator and onnxruntime
//! on what the command writes, for the example, the models here, onnx's
//! function bodies made local functions and the operators they define
//! expanded by `--schema-functions`) and the command's own behaviour
//! (`--only`, the errors).

use std::path::Path;
use std::process::Command;

use crate::support::{arg, reference_python, run, run_stdin, write};

/// Calls in calls, in both branches of an `If`, with attributes given,
/// referred to and left to their default.
const NESTED: &str = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
nested (float[N] x, bool c) => (float[N] y, float[N] z) {
  a, b = local.Pair <k: float = 3.0> (x)
  y = If (c) <
    then_branch = g1 () => (float[N] t) { t = local.Scale (a) },
    else_branch = g2 () => (float[N] e) { e, unused = local.Pair <k: float = 0.5> (b) }
  >
  z = local.Scale <k: float = 2.0> (b)
}
<domain: "local", opset_import: ["": 21]>
Scale <k: float = 1.5> (u) => (v) {
  f = Constant <value_float: float = @k> ()
  v = Mul (u, f)
}
<domain: "local", opset_import: ["": 21, "local": 1]>
Pair <k> (p) => (q, r) {
  q = local.Scale <k: float = @k> (p)
  r = Neg (q)
}
"#;

/// A graph given by the call through an attribute reference, naming a
/// value of the caller (`t`) that is also a formal input of the function.
const GRAPH_REFERENCE: &str = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
g (float[N] x, bool c) => (float[N] y) {
  t = Neg (x)
  y = local.Choose <branch: graph = b () => (float[N] r) { r = Abs (t) }> (x, c)
}
<domain: "local", opset_import: ["": 21]>
Choose <branch> (t, c) => (y) {
  y = If (c) <
    then_branch: graph = @branch,
    else_branch: graph = e () => (float[N] s) { s = Identity (t) }
  >
}
"#;

#[test]
fn inline_agrees_with_the_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(python) = reference_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let nested = write(dir.path(), "nested.onnxtxt", NESTED.as_bytes());
    let graph_reference = write(dir.path(), "graph.onnxtxt", GRAPH_REFERENCE.as_bytes());
    let example = root.join("examples/local_function.onnxtxt");
    let out = Command::new(&python)
        .arg(root.join("conformance/inline_reference.py"))
        .args([
            env!("CARGO_BIN_EXE_onnxtxt"),
            "--schema-bodies",
            "--schema-functions",
        ])
        .args([&example, &nested, &graph_reference])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    let summary = stdout.lines().last().unwrap_or_default();
    let passed: usize = summary
        .strip_prefix("inline(reference): ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary in {stdout}"));
    // The three models here, and at least 25 schema bodies as local
    // functions and 25 operators expanded, of those the references run on
    // random rank-4 inputs, and the 8 models of nodes of context-dependent
    // operators (CONTEXT_NODES: `Gelu`, `LayerNormalization`...; BRANCHES).
    assert!(passed >= 61, "{stdout}");
}

#[test]
fn only_inlines_the_named_function_and_keeps_what_is_still_called() {
    let out = run_stdin(&["inline", "--only", "local.Pair"], NESTED.as_bytes());
    assert_eq!(out.code, 0, "{out:?}");
    let model = onnxtxt::parse_model(out.text()).unwrap();
    let functions: Vec<_> = model.functions.iter().map(|f| f.name()).collect();
    assert_eq!(functions, ["Scale"]);
    let calls = |op: &str| out.text().matches(op).count();
    assert_eq!(calls("local.Pair"), 0, "{}", out.text());
    assert_eq!(calls("local.Scale"), 4, "{}", out.text());
}

/// `--schema-functions` expands a node of a context-dependent operator whose
/// input types are known and whose context the registry has; it leaves
/// one whose context it has no body for (`LayerNormalization` with bias
/// and one output) and one in a function kept (no types), and says so.
#[test]
fn schema_functions_leave_unknown_contexts_and_say_so() {
    let model = r#"<ir_version: 10, opset_import: ["": 20, "local": 1]>
g (float[N, 4] x, float[4] s) => (float[N, 4] y, float[N, 4] z, float[N, 4] w) {
  y = LayerNormalization (x, s, s)
  z = local.F (x)
  w = Gelu (x)
}
<domain: "local", opset_import: ["": 20]>
F (a) => (b) { b = Gelu (a) }
<domain: "local", opset_import: ["": 20]>
G (a) => (b) { b = Neg (a) }
"#;
    let args = ["inline", "--schema-functions", "--only", "local.G"];
    let out = run_stdin(&args, model.as_bytes());
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stderr,
        "warning: LayerNormalization (opset 20): 1 node left as it is, its function is built \
         for each node: 1 whose context has no body here (`onnxtxt ops LayerNormalization \
         --opset 20 --function` lists those there are)\n\
         warning: Gelu (opset 20): 1 node left as it is, its function is built for each node: \
         1 whose input types are not known\n"
    );
    let inlined = onnxtxt::parse_model(out.text()).unwrap();
    let graph = inlined.graph.unwrap();
    let ops: Vec<_> = graph.node.iter().map(|n| n.op_type()).collect();
    assert!(!ops.contains(&"Gelu") && ops.contains(&"Erf"), "{ops:?}");
    assert_eq!(
        ops.iter().filter(|op| **op == "LayerNormalization").count(),
        1
    );
    assert_eq!(inlined.functions[0].node[0].op_type(), "Gelu");
}

#[test]
fn inline_refuses_recursion_and_unknown_names() {
    let recursive = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
g (float[N] x) => (float[N] y) { y = local.F (x) }
<domain: "local", opset_import: ["": 21, "local": 1]>
F (a) => (b) { b = local.F (a) }
"#;
    let out = run_stdin(&["inline"], recursive.as_bytes());
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("calls itself"), "{out:?}");
    let out = run_stdin(&["inline", "--only", "local.G"], recursive.as_bytes());
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("no function `local.G`"), "{out:?}");
}

#[test]
fn inline_writes_binary_for_binary() {
    let dir = tempfile::tempdir().unwrap();
    let text = write(dir.path(), "m.onnxtxt", NESTED.as_bytes());
    let binary = dir.path().join("m.onnx");
    assert_eq!(run(&["parse", arg(&text), "-o", arg(&binary)]).code, 0);
    let inlined = dir.path().join("inlined.onnx");
    let out = run(&["inline", arg(&binary), "-o", arg(&inlined)]);
    assert_eq!(out.code, 0, "{out:?}");
    let model = onnxtxt::decode_model(&std::fs::read(&inlined).unwrap()).unwrap();
    assert!(model.functions.is_empty());
}

/// A model whose graph calls `local.F{depth}`, each `F{i}` calling
/// `F{i-1}` `calls` times and `F0` a `Neg`.
fn chain(depth: usize, calls: usize) -> String {
    let mut text = format!(
        "<ir_version: 10, opset_import: [\"\": 21, \"local\": 1]>\n\
         g (float[N] x) => (float[N] y) {{ y = local.F{depth} (x) }}\n"
    );
    for i in 0..=depth {
        text.push_str("<domain: \"local\", opset_import: [\"\": 21, \"local\": 1]>\n");
        if i == 0 {
            text.push_str("F0 (a) => (b) { b = Neg (a) }\n");
            continue;
        }
        let mut body = String::from("t0 = Identity (a)\n");
        for c in 1..=calls {
            body.push_str(&format!("t{c} = local.F{} (t{})\n", i - 1, c - 1));
        }
        text.push_str(&format!(
            "F{i} (a) => (b) {{ {body} b = Identity (t{calls}) }}\n"
        ));
    }
    text
}

#[test]
fn inline_refuses_what_would_blow_up_or_nest_too_deep() {
    let out = run_stdin(&["inline"], chain(40, 2).as_bytes());
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("more than 4194304 nodes"), "{out:?}");
    let out = run_stdin(&["inline"], chain(300, 1).as_bytes());
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("nested more than 256 deep"), "{out:?}");
    let out = run_stdin(&["inline"], chain(200, 1).as_bytes());
    assert_eq!(out.code, 0, "{out:?}");
}
