//! Tests of `onnxtxt ops`: an operator's signature (snapshots in
//! `snapshots/`), the listing of a domain at an opset, function bodies, the
//! default domain and opset, and what it says (and exits with) when there
//! is no such operator.

use crate::support::run;

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
