//! `onnxtxt shrink` end to end: real predicate scripts (a shell script
//! grepping `onnxtxt print`, a Python script running onnx's
//! ReferenceEvaluator), models with a fault injected deep inside (in a
//! `Loop` body, in an `If` branch, in a real model of the onnx wheel), and
//! the known smallest result. The tests that need `.venv` (onnx 1.23.2)
//! are ignored in `cargo test`; `bash conformance/run.sh` runs them.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use onnxtxt::prost::Message as _;
use onnxtxt::proto::NodeProto;

use crate::support::{arg, reference_python, run, write};

/// A predicate script: interesting when `onnxtxt print` of the candidate
/// has a `Neg` line followed by a `Softsign` line.
fn neg_softsign_predicate(dir: &Path) -> PathBuf {
    let script = format!(
        "#!/bin/sh\n'{}' print \"$1\" | grep -A1 ' = Neg ' | grep -q ' = Softsign '\n",
        env!("CARGO_BIN_EXE_onnxtxt")
    );
    executable(dir, "predicate.sh", &script)
}

fn executable(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = write(dir, name, text.as_bytes());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// examples/control_flow.onnxtxt with `Neg` then `Softsign` inside its
/// `Loop` body, and its `If`'s else branch.
fn control_flow_with_fault(inside: &str) -> String {
    let example = include_str!("../../examples/control_flow.onnxtxt");
    let faulty = match inside {
        "Loop" => example.replace(
            "acc_out = Add (acc, scaled)",
            "neg = Neg (scaled)\n      soft = Softsign (neg)\n      acc_out = Add (acc, soft)",
        ),
        _ => example.replace(
            "negated = Neg (total)",
            "flipped = Neg (total)\n      negated = Softsign (flipped)",
        ),
    };
    assert_ne!(faulty, example);
    faulty
}

/// Shrinks `model` (named `name`) with `predicate`, to `out`; the
/// command's run.
fn shrink(dir: &Path, predicate: &Path, name: &str, model: &[u8], extra: &[&str]) -> String {
    let input = write(dir, name, model);
    let out = dir.join("out.onnxtxt");
    let mut args = vec!["shrink", arg(predicate), arg(&input), "-o", arg(&out)];
    args.extend(extra);
    let result = run(&args);
    assert_eq!(result.code, 0, "{result:?}");
    assert!(result.stderr.contains("predicate runs"), "{result:?}");
    std::fs::read_to_string(out).unwrap()
}

const SMALLEST_IN_LOOP: &str = "\
<
  ir_version: 10,
  opset_import: [\"\": 21]
>
control_flow (float[4] x) => (float[4] soft) {
  neg = Neg (x)
  soft = Softsign (neg)
}
";

#[test]
fn a_fault_in_a_loop_body_shrinks_to_its_two_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let predicate = neg_softsign_predicate(dir.path());
    let model = control_flow_with_fault("Loop");
    let shrunk = shrink(dir.path(), &predicate, "m.onnxtxt", model.as_bytes(), &[]);
    assert_eq!(shrunk, SMALLEST_IN_LOOP);
}

#[test]
fn a_fault_in_an_if_branch_shrinks_to_its_two_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let predicate = neg_softsign_predicate(dir.path());
    let model = control_flow_with_fault("If");
    let shrunk = shrink(dir.path(), &predicate, "m.onnxtxt", model.as_bytes(), &[]);
    let (_, findings) = onnxtxt::check::check_text(&shrunk).unwrap();
    assert!(findings.is_empty(), "{findings:?}");
    let model = onnxtxt::parse_model(&shrunk).unwrap();
    let ops: Vec<&str> = model
        .graph
        .as_ref()
        .unwrap()
        .node
        .iter()
        .map(NodeProto::op_type)
        .collect();
    assert_eq!(ops, ["Neg", "Softsign"], "{shrunk}");
}

#[test]
fn binary_candidates_and_jobs_give_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let predicate = neg_softsign_predicate(dir.path());
    let binary = onnxtxt::parse_model(&control_flow_with_fault("Loop"))
        .unwrap()
        .encode_to_vec();
    let shrunk = shrink(dir.path(), &predicate, "m.onnx", &binary, &["--jobs", "3"]);
    assert_eq!(shrunk, SMALLEST_IN_LOOP);
}

#[test]
fn an_uninteresting_input_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let predicate = neg_softsign_predicate(dir.path());
    let input = write(
        dir.path(),
        "m.onnxtxt",
        include_bytes!("../../examples/mlp.onnxtxt"),
    );
    let out = dir.path().join("out.onnxtxt");
    let result = run(&["shrink", arg(&predicate), arg(&input), "-o", arg(&out)]);
    assert_eq!(result.code, 1, "{result:?}");
    assert!(result.stderr.contains("is not interesting"), "{result:?}");
    assert!(!out.exists());
}

#[test]
fn an_invalid_input_needs_allow_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "<ir_version: 10, opset_import: [\"\": 21]>\ng (float x) => (float y) { y = Relu(z) }\n";
    let input = write(dir.path(), "m.onnxtxt", text.as_bytes());
    let out = dir.path().join("out.onnxtxt");
    let args = ["shrink", "/bin/true", arg(&input), "-o", arg(&out)];
    let refused = run(&args);
    assert_eq!(refused.code, 1, "{refused:?}");
    assert!(refused.stderr.contains("--allow-invalid"), "{refused:?}");
    let allowed = run(&[&args[..], &["--allow-invalid"]].concat());
    assert_eq!(allowed.code, 0, "{allowed:?}");
    assert!(allowed.stderr.contains("1 -> 0 nodes"), "{allowed:?}");
}

#[test]
fn a_predicate_that_cannot_run_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "m.onnxtxt",
        include_bytes!("../../examples/mlp.onnxtxt"),
    );
    let missing = dir.path().join("no-such-predicate");
    let out = dir.path().join("out.onnxtxt");
    let result = run(&["shrink", arg(&missing), arg(&input), "-o", arg(&out)]);
    assert_eq!(result.code, 2, "{result:?}");
    assert!(result.stderr.contains("cannot run"), "{result:?}");
}

#[test]
fn ctrl_c_writes_the_smallest_model_so_far() {
    let dir = tempfile::tempdir().unwrap();
    // Slow enough that the search is still running at the interrupt; each
    // run counted in runs.log.
    let runs = dir.path().join("runs.log");
    let script = format!(
        "#!/bin/sh\necho >> '{}'\nsleep 0.2\n'{}' print \"$1\" | grep -A1 ' = Neg ' | grep -q ' = Softsign '\n",
        runs.display(),
        env!("CARGO_BIN_EXE_onnxtxt")
    );
    let predicate = executable(dir.path(), "predicate.sh", &script);
    let input = write(
        dir.path(),
        "m.onnxtxt",
        control_flow_with_fault("Loop").as_bytes(),
    );
    let out = dir.path().join("out.onnxtxt");
    let child = Command::new(env!("CARGO_BIN_EXE_onnxtxt"))
        .args(["shrink", arg(&predicate), arg(&input), "-o", arg(&out)])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupted after 8 runs: past the input's check, and some edits in.
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&runs).map_or(0, |r| r.lines().count()) < 8 {
        assert!(
            started.elapsed().as_secs() < 60,
            "the predicate never ran 8 times"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    let kill = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(kill.success());
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(130), "{stderr}");
    assert!(stderr.starts_with("interrupted; "), "{stderr}");
    let shrunk = std::fs::read_to_string(&out).unwrap();
    let model = onnxtxt::parse_model(&shrunk).unwrap();
    let original = onnxtxt::parse_model(&control_flow_with_fault("Loop")).unwrap();
    assert!(
        model.encoded_len() < original.encoded_len(),
        "the best so far is smaller than the input:\n{shrunk}"
    );
}

/// Runs `onnx.checker.check_model(full_check=True)` on the text model
/// `text`, parsed by onnxtxt and given to the checker as binary.
fn assert_reference_checker_accepts(python: &Path, dir: &Path, text: &str) {
    let bytes = onnxtxt::parse_model(text).unwrap().encode_to_vec();
    let path = write(dir, "checked.onnx", &bytes);
    let out = Command::new(python)
        .args([
            "-c",
            "import sys, onnx\nonnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)",
            arg(&path),
        ])
        .output()
        .expect("the reference's python runs");
    assert!(
        out.status.success(),
        "onnx.checker rejects\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "needs .venv (onnx); run by conformance/run.sh"]
fn a_fault_deep_in_a_real_model_shrinks_to_its_node() {
    let Some(python) = reference_python() else {
        return;
    };
    let wheel = Command::new(&python)
        .args([
            "-c",
            "import onnx, os; print(os.path.dirname(onnx.__file__))",
        ])
        .output()
        .expect("the reference's python runs");
    let onnx_dir = String::from_utf8(wheel.stdout).unwrap();
    let resnet = Path::new(onnx_dir.trim()).join("backend/test/data/light/light_resnet50.onnx");
    let mut model = onnxtxt::decode_model(&std::fs::read(resnet).unwrap()).unwrap();
    let graph = model.graph.as_mut().unwrap();
    assert!(graph.node.len() > 400);
    // A Softsign after the middle node, on the way to the output.
    let middle = graph.node.len() / 2;
    let value = graph.node[middle].output[0].clone();
    graph.node[middle].output[0] = format!("{value}_pre");
    let fault = NodeProto {
        input: vec![format!("{value}_pre")],
        output: vec![value],
        op_type: Some("Softsign".into()),
        ..Default::default()
    };
    graph.node.insert(middle + 1, fault);
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "#!/bin/sh\n'{}' print \"$1\" | grep -q Softsign\n",
        env!("CARGO_BIN_EXE_onnxtxt")
    );
    let predicate = executable(dir.path(), "predicate.sh", &script);
    let shrunk = shrink(
        dir.path(),
        &predicate,
        "m.onnx",
        &model.encode_to_vec(),
        &[],
    );
    assert_eq!(
        shrunk,
        "<\n  ir_version: 3,\n  opset_import: [\"\": 9]\n>\n\
         resnet50 (float[2048] \"gpu_0/res5_0_branch2c_bn_s_0_pre\") => \
         (float[2048] \"gpu_0/res5_0_branch2c_bn_s_0\") {\n  \
         \"gpu_0/res5_0_branch2c_bn_s_0\" = Softsign (\"gpu_0/res5_0_branch2c_bn_s_0_pre\")\n}\n"
    );
    assert_reference_checker_accepts(&python, dir.path(), &shrunk);
}

/// A Python predicate: interesting when onnx's ReferenceEvaluator runs the
/// model on inputs of ones (one element where the rank is unknown) and the model (in any subgraph) has a
/// `Softsign` reading a `Neg`'s output.
const EVALUATOR_PREDICATE: &str = r#"
import sys
import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

model = onnx.load(sys.argv[1])

def nodes(graph):
    for node in graph.node:
        yield node
        for attribute in node.attribute:
            if attribute.HasField("g"):
                yield from nodes(attribute.g)

negs = {o for n in nodes(model.graph) if n.op_type == "Neg" for o in n.output}
if not any(n.op_type == "Softsign" and n.input[0] in negs for n in nodes(model.graph)):
    sys.exit(1)
feeds = {}
for i in model.graph.input:
    t = i.type.tensor_type
    # Of unknown rank: one element (its evaluator's Softsign fails on a scalar).
    dims = t.shape.dim if t.HasField("shape") else [None]
    shape = [d.dim_value if d is not None and d.HasField("dim_value") else 1 for d in dims]
    dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
    feeds[i.name] = np.ones(shape, dtype=dtype)
ReferenceEvaluator(model).run(None, feeds)
"#;

#[test]
#[ignore = "needs .venv (onnx); run by conformance/run.sh"]
fn the_reference_evaluator_as_predicate_shrinks_both_control_flow_faults() {
    let Some(python) = reference_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = format!("#!{}\n{EVALUATOR_PREDICATE}", python.display());
    let predicate = executable(dir.path(), "predicate.py", &script);
    for inside in ["Loop", "If"] {
        let model = onnxtxt::parse_model(&control_flow_with_fault(inside))
            .unwrap()
            .encode_to_vec();
        let shrunk = shrink(dir.path(), &predicate, "m.onnx", &model, &[]);
        let nodes = &onnxtxt::parse_model(&shrunk).unwrap().graph.unwrap().node;
        let ops: Vec<&str> = nodes.iter().map(NodeProto::op_type).collect();
        assert_eq!(ops, ["Neg", "Softsign"], "{inside}: {shrunk}");
        assert_reference_checker_accepts(&python, dir.path(), &shrunk);
    }
}
