//! The `onnxtxt check` command: exit codes and output, for text and
//! binary input.

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
