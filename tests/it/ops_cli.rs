//! Tests of `onnxtxt ops`: an operator's signature (snapshots in
//! `snapshots/`), the listing of a domain at an opset, function bodies (the
//! context-dependent ones against onnx, through
//! `conformance/context_bodies.py`), the default domain and opset, and what
//! it says (and exits with) when there is no such operator.

use std::path::Path;
use std::process::Command;

use crate::support::{reference_python, run};

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, text);
    });
}

/// Runs `onnxtxt args`, which must exit with `code`; gives its standard
/// output, or its standard error when it fails.
fn ops(args: &[&str], code: i32) -> String {
    let out = run(args);
    assert_eq!(out.code, code, "{args:?}: {out:?}");
    if code == 0 {
        assert!(out.stderr.is_empty(), "{args:?}: {out:?}");
        out.text().to_owned()
    } else {
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
        out.stderr
    }
}

#[test]
fn signatures() {
    for (name, args) in [
        ("cli_ops_conv_19", &["ops", "Conv", "--opset", "19"][..]),
        // Variadic, heterogeneous, a required graph attribute.
        ("cli_ops_loop_16", &["ops", "Loop", "--opset", "16"]),
        // Deprecated.
        ("cli_ops_upsample_10", &["ops", "Upsample", "--opset", "10"]),
        // Found in ai.onnx.ml without --domain; map types; -0.0.
        ("cli_ops_label_encoder", &["ops", "LabelEncoder"]),
    ] {
        snapshot(name, &ops(args, 0));
    }
}

#[test]
fn the_latest_opset_is_the_default() {
    let latest = ops(&["ops", "Conv"], 0);
    assert!(
        latest.starts_with("Conv (ai.onnx) version 22\n"),
        "{latest}"
    );
    assert_eq!(latest, ops(&["ops", "Conv", "--opset", "28"], 0));
}

#[test]
fn ai_onnx_has_two_spellings() {
    let plain = ops(&["ops", "Conv", "--domain", "", "--opset", "19"], 0);
    assert_eq!(
        plain,
        ops(&["ops", "Conv", "--domain", "ai.onnx", "--opset", "19"], 0)
    );
}

#[test]
fn listing_the_operators_in_force() {
    snapshot(
        "cli_ops_list_ml_3",
        &ops(&["ops", "--domain", "ai.onnx.ml", "--opset", "3"], 0),
    );
    let at_19 = ops(&["ops", "--opset", "19"], 0);
    assert!(
        at_19.contains("\nConv                       11\n"),
        "{at_19}"
    );
    assert!(at_19.contains("\nUpsample                   10  deprecated\n"));
    assert!(!at_19.contains("\nGelu "));
    assert!(ops(&["ops"], 0).contains("\nGelu                       20\n"));
}

#[test]
fn function_bodies_are_onnx_text() {
    let body = ops(&["ops", "Softplus", "--function"], 0);
    let function = onnxtxt::parse_function(&body).unwrap();
    assert_eq!(function.name(), "Softplus");
    let refused = [
        (
            &["ops", "Softplus", "--function", "--opset", "17"][..],
            "from opset 18 on",
        ),
        (&["ops", "Softmax", "--function"], "context-dependent"),
        (
            &["ops", "Softmax", "--function", "--input-types", "float[N"],
            "--input-types",
        ),
        (&["ops", "Conv", "--function"], "has no function body"),
    ];
    for (args, why) in refused {
        let stderr = ops(args, 1);
        assert!(stderr.contains(why), "{args:?}: {stderr}");
    }
}

/// Every plain function body of the registry prints in the canonical style
/// (the printer's text of what it parses to) and as the same IR as the
/// registry's text.
#[test]
fn function_bodies_print_canonically() {
    let mut printed = 0;
    for domain in onnxtxt::ops::domains() {
        for schema in domain.operators().iter().flat_map(|o| o.versions()) {
            for body in schema.function_bodies() {
                let opset = body.opset().to_string();
                let args = [
                    "ops",
                    schema.name(),
                    "--domain",
                    domain.display_name(),
                    "--opset",
                    &opset,
                    "--function",
                ];
                let text = ops(&args, 0);
                let function = onnxtxt::parse_function(&text).unwrap();
                assert_eq!(onnxtxt::to_text(&function), text, "{args:?}");
                assert_eq!(function, body.parse().unwrap(), "{args:?}");
                printed += 1;
            }
        }
    }
    assert!(printed > 40, "only {printed} bodies");
}

/// A node of a context-dependent operator: domain, name, opset, input
/// types, outputs, attributes.
type NodeArgs = (
    &'static str,
    &'static str,
    i64,
    &'static [&'static str],
    usize,
    &'static [&'static str],
);

/// A realistic node of each context-dependent operator the registry has
/// bodies for.
const REALISTIC_NODES: &[NodeArgs] = &[
    (
        "",
        "Attention",
        23,
        &["float[B,8,S,64]"; 3],
        1,
        &["is_causal = 1"],
    ),
    ("", "Bernoulli", 22, &["float[N]"], 1, &["seed = 7.0"]),
    ("", "CastLike", 21, &["int64[N]", "float[1]"], 1, &[]),
    ("", "Celu", 12, &["float[N]"], 1, &["alpha = 2.0"]),
    (
        "",
        "CenterCropPad",
        18,
        &["float[3,H,W]", "int64[2]"],
        1,
        &["axes = [1, 2]"],
    ),
    ("", "Clip", 13, &["float[N]", "float", "float"], 1, &[]),
    (
        "",
        "DepthToSpace",
        28,
        &["float[N,16,H,W]"],
        1,
        &["blocksize = 2", r#"mode = "CRD""#],
    ),
    ("", "Gelu", 20, &["float[N,8]"], 1, &[]),
    (
        "",
        "GroupNormalization",
        21,
        &["float[N,C,H,W]", "float[C]", "float[C]"],
        1,
        &["num_groups = 2"],
    ),
    (
        "",
        "LayerNormalization",
        17,
        &["float[N,4]", "float[4]"],
        1,
        &["epsilon = 1e-6"],
    ),
    (
        "",
        "LinearAttention",
        27,
        &["float[B,S,64]"; 3],
        2,
        &["q_num_heads = 4", "kv_num_heads = 4"],
    ),
    ("", "LogSoftmax", 13, &["float[N,10]"], 1, &["axis = 1"]),
    (
        "",
        "NegativeLogLikelihoodLoss",
        22,
        &["float[N,C]", "int64[N]"],
        1,
        &[r#"reduction = "sum""#],
    ),
    (
        "",
        "RMSNormalization",
        23,
        &["float[N,S,512]", "float[512]"],
        1,
        &["epsilon = 1e-6"],
    ),
    ("", "Range", 27, &["int64", "int64", "int64"], 1, &[]),
    (
        "",
        "RotaryEmbedding",
        23,
        &["float[B,S,H,D]", "float[S,D]", "float[S,D]"],
        1,
        &[],
    ),
    ("", "Softmax", 13, &["float[N,10]"], 1, &["axis = 1"]),
    (
        "",
        "SoftmaxCrossEntropyLoss",
        13,
        &["float[N,C]", "int64[N]"],
        1,
        &[],
    ),
    (
        "",
        "SpaceToDepth",
        28,
        &["float[N,3,H,W]"],
        1,
        &["blocksize = 2"],
    ),
    (
        "ai.onnx.preview",
        "FlexAttention",
        1,
        &["float[B,H,S,D]"; 3],
        1,
        &["scale = 0.125"],
    ),
];

/// The body of a context-dependent operator for a realistic node prints
/// canonically, for every such operator; and is the body onnx builds for
/// it (conformance/context_bodies.py compares every node context the
/// registry has).
#[test]
fn context_dependent_bodies_print_for_realistic_nodes() {
    let mut cases = Vec::new();
    for &(domain, name, opset, inputs, outputs, attributes) in REALISTIC_NODES {
        let (opset_text, outputs_text) = (opset.to_string(), outputs.to_string());
        let input_types = inputs.join(",");
        let mut args = vec!["ops", name, "--domain", domain, "--opset", &opset_text];
        args.extend([
            "--function",
            "--input-types",
            &input_types,
            "--outputs",
            &outputs_text,
        ]);
        for attribute in attributes {
            args.extend(["--attr", attribute]);
        }
        let text = ops(&args, 0);
        let function = onnxtxt::parse_function(&text).unwrap();
        assert_eq!(onnxtxt::to_text(&function), text, "{args:?}");
        assert_eq!(function.name(), name);
        cases.push(serde_json::json!({
            "domain": domain, "name": name, "opset": opset, "inputs": inputs,
            "outputs": outputs, "attributes": attributes,
        }));
    }
    let Some(python) = reference_python() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(python)
        .arg(root.join("conformance/context_bodies.py"))
        .args([env!("CARGO_BIN_EXE_onnxtxt"), "--cases"])
        .arg(serde_json::Value::from(cases).to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = format!("context_bodies: {} passed, 0 failed", REALISTIC_NODES.len());
    assert!(stdout.ends_with(&format!("{summary}\n")), "{stdout}");
}

#[test]
fn attributes_are_given_one_by_one_or_as_a_node_writes_them() {
    let args = |attributes: &[&'static str]| {
        let mut args = vec![
            "ops",
            "DepthToSpace",
            "--function",
            "--input-types",
            "float[N,8,H,W]",
        ];
        for attribute in attributes {
            args.extend(["--attr", attribute]);
        }
        ops(&args, 0)
    };
    let one_by_one = args(&["blocksize = 2", r#"mode = "CRD""#]);
    assert_eq!(one_by_one, args(&[r#"<blocksize: int = 2, mode = "CRD">"#]));
    assert_ne!(one_by_one, args(&["blocksize = 2"]));
}

#[test]
fn a_node_the_registry_has_no_body_for_lists_those_it_has() {
    snapshot(
        "cli_ops_gelu_not_covered",
        &ops(
            &[
                "ops",
                "Gelu",
                "--function",
                "--input-types",
                "float[N]",
                "--attr",
                r#"approximate = "erf""#,
            ],
            1,
        ),
    );
}

#[test]
fn no_such_operator_exits_1_and_says_why() {
    snapshot("cli_ops_misspelt", &ops(&["ops", "Rleu"], 1));
    snapshot(
        "cli_ops_too_new",
        &ops(&["ops", "Gelu", "--opset", "19"], 1),
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["ops", "--domain", "com.example"][..],
        &["ops", "Conv", "--opset", "29"],
        &["ops", "Conv", "--opset", "0"],
        &["ops", "Conv", "--opset", "-1"],
        &["ops", "--function"],
        &["ops", "Conv", "Relu"],
    ] {
        ops(args, 2);
    }
    snapshot("cli_ops_help", &ops(&["ops", "--help"], 0));
}
