//! Values known by number (`infer::names`): `check` and inference number
//! each body's value names once and follow a name out to the bodies it is
//! nested in. Models where a confusion of two numbers, or of a body's
//! number with an enclosing body's, would change a finding or a type:
//! names that share a prefix, empty names (optional inputs and outputs),
//! a value read two subgraphs deep from a graph that the middle subgraph
//! does not name, a subgraph redefining a value of its grandparent, the
//! same name local to two sibling subgraphs, values used before they are
//! defined or defined twice. Each model's verdict is onnx.checker's
//! (`full_check=True`), and the types inferred in the innermost subgraph
//! are onnx's `infer_shapes`'.

use std::io::Write as _;
use std::process::{Command, Stdio};

use onnxtxt::check::{check_text, Severity};
use onnxtxt::infer::{infer_model, Options};
use prost::Message as _;

use crate::tools::reference_python;

const HEADER: &str = r#"<ir_version: 10, opset_import: ["": 21]>"#;

/// A graph two `If`s deep reading `h` of the main graph, whose
/// middle branch names neither `h` nor `r`: `before` is written before the
/// outer `If`, `after` after it.
fn nested(before: &str, inner: &str, after: &str) -> String {
    format!(
        "{HEADER}
g (bool c, float[3] x) => (float[3] y) {{
{before}
  y = If (c) <
    then_branch = t () => (float[3] a) {{
      a = If (c) <
        then_branch = tt () => (float[3] r) {{ {inner} }},
        else_branch = te () => (float[3] e) {{ e = Neg (x) }}
      >
    }},
    else_branch = f () => (float[3] b) {{ b = Neg (x) }}
  >
{after}
}}
"
    )
}

/// The path of the innermost branch of [`nested`].
const INNER: &str =
    r#"graph.node[1].attribute["then_branch"].g.node[0].attribute["then_branch"].g"#;

/// A model: what it shows, its text, and `(code, path)` of each error
/// `onnxtxt check` gives it (empty: the model is valid).
type Case = (&'static str, String, Vec<(&'static str, String)>);

/// The models.
fn cases() -> Vec<Case> {
    let inner_node = |part: &str| format!("{INNER}.node[0].{part}");
    vec![
        (
            "names sharing a prefix",
            format!(
                "{HEADER}
g (float[3] x, float[3] x1) => (float[3] x10) {{
  x1x = Neg (x1)
  x1x0 = Neg (x)
  x10 = Add (x, x1x)
}}"
            ),
            vec![("unused_value", String::new())],
        ),
        (
            "empty names: optional inputs and outputs",
            format!(
                "{HEADER}
g (float[3] x, float m) => (float[1] y, float[1] s) {{
  c = Clip (x, , m)
  y, , s = Split <num_outputs: int = 3> (c)
}}"
            ),
            vec![],
        ),
        (
            "a grandparent's value read past a branch that does not name it",
            nested("  h = Neg (x)", "r = Relu (h)", ""),
            vec![],
        ),
        (
            "a grandparent's value defined after the outer If",
            nested("  k = Neg (x)", "r = Relu (h)", "  h = Neg (k)"),
            vec![
                ("undefined_value", inner_node("input[0]")),
                ("unused_value", String::new()),
            ],
        ),
        (
            "a grandparent's value redefined two subgraphs deep",
            nested("  h = Neg (x)", "h = Relu (x)\n r = Neg (h)", ""),
            vec![("reassigned", inner_node("output[0]"))],
        ),
        (
            "a name local to two sibling subgraphs",
            format!(
                "{HEADER}
g (bool c, float[3] x) => (float[3] y) {{
  y = If (c) <
    then_branch = t () => (float[3] a) {{ z = Neg (x)\n a = Relu (z) }},
    else_branch = f () => (float[3] b) {{ z = Relu (x)\n b = Neg (z) }}
  >
}}"
            ),
            vec![],
        ),
        (
            "a value used before it is defined, and one defined twice",
            format!(
                "{HEADER}
g (float[3] x) => (float[3] y) {{
  a = Neg (b)
  b = Relu (x)
  b = Neg (x)
  y = Add (a, b)
}}"
            ),
            vec![
                ("use_before_definition", "graph.node[0].input[0]".into()),
                ("reassigned", "graph.node[2].output[0]".into()),
            ],
        ),
    ]
}

/// `onnxtxt check`'s errors of `text`, `(code, path)`; warnings as
/// `("unused_value", "")` when a value is unused.
fn errors(text: &str) -> Vec<(String, String)> {
    let (_, findings) = check_text(text).expect("the case parses");
    findings
        .iter()
        .filter(|f| f.severity == Severity::Error || f.diagnostic.code.ends_with("unused_value"))
        .map(|f| {
            let code = f.diagnostic.code.trim_start_matches("onnxtxt::check::");
            let path = match f.severity {
                Severity::Error => f.diagnostic.path.clone().unwrap_or_default(),
                _ => String::new(),
            };
            (code.to_string(), path)
        })
        .collect()
}

#[test]
fn check_tells_each_value_from_the_others() {
    for (what, text, expected) in cases() {
        let expected: Vec<(String, String)> = expected
            .into_iter()
            .map(|(code, path)| (code.to_string(), path))
            .collect();
        assert_eq!(errors(&text), expected, "{what}:\n{text}");
    }
}

/// onnx.checker's verdict on each model (`ok` or `fail`), and for the
/// valid ones the types `infer_shapes` gives the innermost branch's values.
const REFERENCE: &str = r#"
import sys, onnx
from onnx import shape_inference
data = sys.stdin.buffer.read()
while data:
    size = int.from_bytes(data[:8], "little")
    model = onnx.load_from_string(data[8:8 + size])
    data = data[8 + size:]
    try:
        onnx.checker.check_model(model, full_check=True)
        verdict = "ok"
    except Exception:
        print("fail")
        continue
    inferred = shape_inference.infer_shapes(model, strict_mode=True)
    graph = inferred.graph
    for _ in range(2):
        ifs = [n for n in graph.node if n.op_type == "If"]
        if not ifs:
            break
        graph = ifs[0].attribute[0].g if ifs[0].attribute[0].name == "then_branch" else ifs[0].attribute[1].g
    names = sorted(set(o for n in graph.node for o in n.output))
    known = {v.name: v.type for v in list(graph.value_info) + list(graph.output)}
    types = [
        f"{n}:{known[n].tensor_type.elem_type}x{len(known[n].tensor_type.shape.dim)}"
        for n in names
        if n in known and known[n].tensor_type.HasField("shape")
    ]
    print(verdict, " ".join(types))
"#;

#[test]
fn the_checker_and_infer_shapes_agree() {
    let Some(python) = reference_python() else {
        return;
    };
    let cases = cases();
    let mut input = Vec::new();
    let mut ours = Vec::new();
    for (_, text, expected) in &cases {
        let model = onnxtxt::parse_model(text).expect("the case parses");
        let bytes = model.encode_to_vec();
        input.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        input.extend_from_slice(&bytes);
        let valid = expected.iter().all(|(code, _)| *code == "unused_value");
        if !valid {
            ours.push("fail".to_string());
            continue;
        }
        let inference = infer_model(&model, Options::default());
        assert!(inference.findings().is_empty());
        let path = if text.contains("tt ()") {
            INNER
        } else if text.contains("If") {
            r#"graph.node[0].attribute["then_branch"].g"#
        } else {
            "graph"
        };
        let graph = inference.graph(path).expect("the body's types");
        let mut names = nodes_of(&model, path);
        names.sort_unstable();
        names.dedup();
        let types: Vec<String> = names
            .iter()
            .filter_map(|name| {
                let ty = graph.get(name)?.as_tensor()?;
                Some(format!(
                    "{name}:{}x{}",
                    ty.elem_type,
                    ty.shape.as_ref()?.len()
                ))
            })
            .collect();
        ours.push(format!("ok {}", types.join(" ")));
    }
    let mut child = Command::new(python)
        .args(["-c", REFERENCE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let theirs: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect();
    let ours: Vec<String> = ours.iter().map(|l| l.trim_end().to_string()).collect();
    assert_eq!(ours, theirs);
}

/// The outputs of the nodes of the body at `path` of `model` (the graph,
/// or the `then_branch` of its first `If`, or of that one's first `If`:
/// as many as `path` has `.g`).
fn nodes_of<'m>(model: &'m onnxtxt::proto::ModelProto, path: &str) -> Vec<&'m str> {
    let mut graph = model.graph.as_ref().unwrap();
    let depth = path.matches(".g").count();
    for _ in 0..depth {
        let node = graph
            .node
            .iter()
            .find(|n| n.op_type.as_deref() == Some("If"));
        let branch = node.and_then(|n| {
            n.attribute
                .iter()
                .find(|a| a.name.as_deref() == Some("then_branch"))
        });
        graph = branch.and_then(|a| a.g.as_ref()).unwrap();
    }
    graph
        .node
        .iter()
        .flat_map(|n| n.output.iter().map(String::as_str))
        .filter(|n| !n.is_empty())
        .collect()
}
