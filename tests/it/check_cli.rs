//! The `onnxtxt check` command: exit codes and output, for text and
//! binary input.

use std::collections::BTreeSet;
use std::path::Path;

use prost::Message as _;

use crate::check::model;
use crate::support::{run_with, Invocation, Run};

/// Runs `onnxtxt check -` on `stdin`, without colour.
fn check_command(stdin: &[u8]) -> Run {
    let how = Invocation {
        stdin: Some(stdin),
        env: &[("NO_COLOR", "1")],
        ..Invocation::default()
    };
    run_with(&["check", "-"], how)
}

/// Asserts that `run` exited with `code` and that its stderr says each of
/// `messages`.
fn says(run: &Run, code: i32, messages: &[&str]) {
    assert_eq!(run.code, code, "{}", run.stderr);
    for message in messages {
        assert!(
            run.stderr.contains(message),
            "{message:?} not in\n{}",
            run.stderr
        );
    }
}

#[test]
fn command_exit_codes() {
    let clean = check_command(include_bytes!("../../examples/mlp.onnxtxt"));
    assert_eq!((clean.code, clean.stderr.as_str()), (0, ""));

    let warning = check_command(
        model("g (float x) => (float y) {\n  h = Neg(x)\n  y = Relu(x)\n}").as_bytes(),
    );
    says(&warning, 0, &["Warning", "<stdin>: 0 errors, 1 warning"]);

    let error = check_command(model("g (float x) => (float y) {\n  y = Relu(z)\n}").as_bytes());
    says(
        &error,
        1,
        &[
            "`z` is used but never defined",
            "<stdin>:3:",
            "error: <stdin>: 1 error, 0 warnings",
        ],
    );

    let syntax = check_command(model("g (float x) => (float y) {\n  y = Relu(x\n}").as_bytes());
    says(&syntax, 1, &["onnxtxt::parse::"]);
}

#[test]
fn command_on_binary_input_reports_paths() {
    let text = model("g (float x) => (float y) {\n  [relu] y = Relu(z)\n}");
    let binary = onnxtxt::parse_model(&text).unwrap().encode_to_vec();
    says(
        &check_command(&binary),
        1,
        &["error[onnxtxt::check::undefined_value]: <stdin>: graph.node[0] \"relu\": `z` is used but never defined"],
    );
}

/// Runs `onnxtxt ARGS` in `dir`, without colour.
fn run_in(dir: &Path, args: &[&str]) -> Run {
    let how = Invocation {
        dir: Some(dir),
        env: &[("NO_COLOR", "1")],
        ..Invocation::default()
    };
    run_with(args, how)
}

/// A directory with `good.onnxtxt` (no findings), `bad.onnxtxt` (an
/// error: `Rleu` on line 3) and `warned.onnxtxt` (a warning).
fn three_models() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let graphs = [
        ("good", "  y = Relu(x)"),
        ("bad", "  y = Rleu(x)"),
        ("warned", "  h = Neg(x)\n  y = Relu(x)"),
    ];
    for (name, nodes) in graphs {
        let text = model(&format!("g (float x) => (float y) {{\n{nodes}\n}}"));
        std::fs::write(dir.path().join(format!("{name}.onnxtxt")), text).unwrap();
    }
    dir
}

#[test]
fn command_checks_every_file_given() {
    let dir = three_models();
    let run = run_in(
        dir.path(),
        &["check", "bad.onnxtxt", "good.onnxtxt", "warned.onnxtxt"],
    );
    says(
        &run,
        1,
        &[
            "bad.onnxtxt:3:7",
            "error: bad.onnxtxt: 1 error, 0 warnings",
            "warning: warned.onnxtxt: 0 errors, 1 warning",
        ],
    );
    assert!(!run.stderr.contains("good.onnxtxt"), "{}", run.stderr);
    // As JSON, each diagnostic names its file.
    let run = run_in(
        dir.path(),
        &[
            "check",
            "--error-format",
            "json",
            "good.onnxtxt",
            "bad.onnxtxt",
        ],
    );
    let first: serde_json::Value =
        serde_json::from_str(run.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(first["file"], "bad.onnxtxt");
    assert_eq!(first["code"], "onnxtxt::check::unknown_operator");
    assert_eq!(first["path"], "graph.node[0].op_type");
    assert_eq!(first["span"]["line"], 3);
}

#[test]
fn parse_check_writes_nothing_when_the_model_has_errors() {
    let dir = three_models();
    let run = run_in(
        dir.path(),
        &["parse", "--check", "bad.onnxtxt", "-o", "bad.onnx"],
    );
    says(
        &run,
        1,
        &["`Rleu`", "bad.onnxtxt:3:7", "did you mean `Relu`?"],
    );
    assert!(!dir.path().join("bad.onnx").exists());
    // Without --check it is written: the syntax is fine.
    says(
        &run_in(dir.path(), &["parse", "bad.onnxtxt", "-o", "bad.onnx"]),
        0,
        &[],
    );
    assert!(dir.path().join("bad.onnx").exists());
    // Warnings are shown, and the model written.
    let run = run_in(
        dir.path(),
        &["parse", "--check", "warned.onnxtxt", "-o", "warned.onnx"],
    );
    says(&run, 0, &["`h` is never used"]);
    let bytes = std::fs::read(dir.path().join("warned.onnx")).unwrap();
    assert_eq!(
        onnxtxt::proto::ModelProto::decode(&bytes[..]).unwrap(),
        onnxtxt::parse_model(&std::fs::read_to_string(dir.path().join("warned.onnxtxt")).unwrap())
            .unwrap()
    );
}

/// The codes of the findings `onnxtxt::check` can make: the
/// `"onnxtxt::check::CODE"` literals of the library's sources under `dir`.
fn check_codes(dir: &Path, codes: &mut BTreeSet<String>) {
    const PREFIX: &str = "\"onnxtxt::check::";
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            check_codes(&path, codes);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let source = std::fs::read_to_string(&path).unwrap();
            for (at, _) in source.match_indices(PREFIX) {
                let rest = &source[at + PREFIX.len()..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
                    .unwrap_or(rest.len());
                if rest[end..].starts_with('"') {
                    codes.insert(rest[..end].to_owned());
                }
            }
        }
    }
}

#[test]
fn help_names_every_check() {
    let mut codes = BTreeSet::new();
    check_codes(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut codes,
    );
    assert!(codes.len() >= 20, "{codes:?}");
    let help = crate::support::run(&["check", "--help"]);
    assert_eq!(help.code, 0, "{help:?}");
    for code in &codes {
        assert!(
            help.text().contains(code.as_str()),
            "`check --help` does not name {code}"
        );
    }
}

/// `--deny-warnings` fails on warnings too, in `check` and `parse --check`
/// (which then writes nothing).
#[test]
fn deny_warnings_fails_on_warnings() {
    let warned = model("g (float x) => (float y) {\n  h = Neg(x)\n  y = Relu(x)\n}");
    let how = |stdin| Invocation {
        stdin: Some(stdin),
        env: &[("NO_COLOR", "1")],
        ..Invocation::default()
    };
    let denied = run_with(&["check", "--deny-warnings", "-"], how(warned.as_bytes()));
    says(
        &denied,
        1,
        &["unused_value", "0 errors, 1 warning (warnings denied)"],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.onnx");
    let out_arg = out.to_str().unwrap();
    let args = ["parse", "--check", "--deny-warnings", "-", "-o", out_arg];
    says(
        &run_with(&args, how(warned.as_bytes())),
        1,
        &["(warnings denied)"],
    );
    assert!(!out.exists());
    // Without warnings, both pass; without the flag, warnings do.
    let clean = include_bytes!("../../examples/mlp.onnxtxt");
    assert_eq!(run_with(&args, how(clean)).code, 0);
    assert!(out.exists());
    says(
        &run_with(&["check", "-"], how(warned.as_bytes())),
        0,
        &["1 warning"],
    );
}
