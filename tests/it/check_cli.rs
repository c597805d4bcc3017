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

/// The command locates findings with a map of only the items they name
/// (`parse_model_with_source_map_for`); `check_text` locates them with the
/// whole map. Both must draw the same: the same spans, order, lines and
/// columns, on CRLF lines, after multibyte characters, on the last line
/// with no line end, in subgraphs and functions, with related places, and
/// and where the item has no text (the header, or the graph's name with
/// no header, stands for it).
#[test]
fn findings_are_located_as_the_whole_source_map_locates_them() {
    let many_nodes: String = (0..300)
        .map(|i| match i % 7 {
            0 => format!("  v{i} = Relu(missing{i})\n"),
            _ => format!("  v{i} = Relu(x)\n"),
        })
        .collect();
    let texts = [
        model("g (float x) => (float y) {\r\n  h = Neg(x)\r\n  y = Relu(z)\r\n}").replace('\n', "\r\n"),
        model("g (float x) => (float y) {\n  @<doc_string: \"é日本\"> \"é\" = Neg(x)\n  y = Relu(\"é\", \"ü\")\n}"),
        model("g (float x) => (float y) {\n  y = Relu(x)\n  y = Neg(z)}").trim_end().to_owned(),
        model(
            "g (bool c) => (float y) {\n  y = If <then_branch: graph = t () => (float a) { a = Neg(w) }, \
             else_branch: graph = e () => (float b) { b = local.f(c) }> (c)\n}\n\
             <domain: \"local\", opset_import: [\"\": 21]>\nf (p) => (q) {\n  q = Relu(r)\n}",
        ),
        "g (float x) => (float x) {\n}".to_owned(),
        "<opset_import: [\"\": 21]>\ng (float x) => (float y) {\n  y = Relu(x)\n}".to_owned(),
        model(&format!("g (float x) => (float y) {{\n{many_nodes}  y = Relu(x)\n}}")),
    ];
    for text in &texts {
        let (_, findings) = onnxtxt::check::check_text(text).unwrap();
        assert!(!findings.is_empty(), "{text}");
        let renderer = onnxtxt::report::Renderer::text("<stdin>", text);
        let drawn: String = findings.iter().map(|f| renderer.finding(f)).collect();
        let run = check_command(text.as_bytes());
        // Then the summary, one line.
        assert!(
            run.stderr.starts_with(&drawn) && run.stderr[drawn.len()..].lines().count() == 1,
            "{text}\n--- command\n{}\n--- check_text\n{drawn}",
            run.stderr
        );

        let json = run_with(
            &["--error-format", "json", "check", "-"],
            Invocation {
                stdin: Some(text.as_bytes()),
                ..Invocation::default()
            },
        );
        let lines = onnxtxt::LineIndex::new(text);
        let position = |span: &std::ops::Range<usize>| {
            let (line, column) = lines.line_column(text, span.start);
            serde_json::json!({"start": span.start, "end": span.end, "line": line, "column": column})
        };
        let shown: Vec<serde_json::Value> = json
            .stderr
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .filter(|value: &serde_json::Value| value.get("code").is_some())
            .collect();
        assert_eq!(shown.len(), findings.len(), "{}", json.stderr);
        for (value, finding) in shown.iter().zip(&findings) {
            let d = &finding.diagnostic;
            assert_eq!(value["code"], d.code);
            assert_eq!(value["span"], position(&d.span), "{text}");
            let labels: Vec<_> = d.labels.iter().map(|l| position(&l.span)).collect();
            let shown_labels: Vec<_> = value["labels"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["span"].clone())
                .collect();
            assert_eq!(shown_labels, labels, "{text}");
        }
    }
}
