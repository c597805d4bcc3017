//! Tests of `print --elide N` and `Printer::elide`: the first N values
//! shown, a visible marker for the rest, the parser refusing such text with
//! a located message, and the refusal to write it to a file named like a
//! model.

use crate::support::run_in;
use onnxtxt::Printer;
use prost::Message as _;

/// A model with a 1000-element float initializer, a 3-element one, and a
/// 6-element string constant.
const MODEL: &str = r#"<ir_version: 10, opset_import: ["": 21]>
main (float[N] x) => (float[N] y) <float[1000] w = {VALUES}, float[3] b = {1, 2, 3}> {
  s = Constant <value: tensor = string[6] {"a", "b", "c", "d", "e", "f"}> ()
  y = Add (x, w)
}
"#;

fn model_text() -> String {
    let values: Vec<String> = (0..1000).map(|i| format!("{i}.5")).collect();
    MODEL.replace("VALUES", &values.join(", "))
}

/// A directory holding `model.onnx`, the binary of [`MODEL`].
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let model = onnxtxt::parse_model(&model_text()).unwrap();
    std::fs::write(dir.path().join("model.onnx"), model.encode_to_vec()).unwrap();
    dir
}

const MESSAGE: &str =
    "values were elided by `print --elide`; this text cannot be parsed back into a model";

#[test]
fn elided_lists_show_the_first_values_and_a_marker() {
    let dir = workspace();
    let printed = run_in(dir.path(), &["print", "model.onnx", "--elide", "3"]);
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    let text = printed.text();
    assert!(
        text.contains("float[1000] w = {0.5, 1.5, 2.5, ... 997 more}"),
        "{text}"
    );
    assert!(
        text.contains(r#"string[6] {"a", "b", "c", ... 3 more}"#),
        "{text}"
    );
    // Not more than N elements: printed whole.
    assert!(text.contains("float[3] b = {1.0, 2.0, 3.0}"), "{text}");
    assert_eq!(text.matches("more}").count(), 2);
}

#[test]
fn elide_zero_shows_only_the_marker() {
    let model = onnxtxt::parse_model(&model_text()).unwrap();
    let text = Printer::new().elide(Some(0)).print(&model).text;
    assert!(text.contains("float[1000] w = {... 1000 more}"), "{text}");
    assert!(text.contains("float[3] b = {... 3 more}"), "{text}");
}

#[test]
fn without_elide_everything_is_printed() {
    let model = onnxtxt::parse_model(&model_text()).unwrap();
    let text = Printer::new().elide(None).print(&model).text;
    assert_eq!(text, onnxtxt::to_text(&model));
    assert!(!text.contains("more"));
    assert!(text.contains("999.5"));
}

#[test]
fn the_parser_refuses_elided_text_where_the_marker_is() {
    let model = onnxtxt::parse_model(&model_text()).unwrap();
    let text = Printer::new().elide(Some(2)).print(&model).text;
    let error = onnxtxt::parse_model(&text).unwrap_err();
    let diagnostics = error.diagnostics();
    // w, b and the strings.
    assert_eq!(diagnostics.len(), 3, "{error}");
    let first = &diagnostics[0];
    assert_eq!(first.code, "onnxtxt::parse::elided");
    assert_eq!(first.message, MESSAGE);
    assert_eq!(&text[first.span.clone()], "... 998 more");
    assert_eq!(
        first.help.as_deref(),
        Some("print the model without --elide")
    );
    // Any marker, even alone or hand-written.
    let error = onnxtxt::parse_tensor("float[9] {...}").unwrap_err();
    assert_eq!(error.diagnostics()[0].code, "onnxtxt::parse::elided");
}

#[test]
fn parse_refuses_elided_text_with_a_located_message() {
    let dir = workspace();
    let printed = run_in(dir.path(), &["print", "model.onnx", "--elide", "4"]);
    std::fs::write(dir.path().join("elided.txt"), &printed.stdout).unwrap();
    let parsed = run_in(dir.path(), &["parse", "elided.txt", "-o", "back.onnx"]);
    assert_eq!(parsed.code, 1);
    assert!(parsed.stderr.contains(MESSAGE), "{}", parsed.stderr);
    let text = printed.text();
    let at = text.find("... 996 more").unwrap();
    let line = text[..at].lines().count();
    let column = at - text[..at].rfind('\n').unwrap();
    let location = format!("elided.txt:{line}:{column}");
    assert!(
        parsed.stderr.contains(&location),
        "{location}: {}",
        parsed.stderr
    );
    assert!(!dir.path().join("back.onnx").exists());
    // `print` of that text fails the same way.
    let reprinted = run_in(dir.path(), &["print", "elided.txt"]);
    assert_eq!(reprinted.code, 1);
    assert!(reprinted.stderr.contains(MESSAGE), "{}", reprinted.stderr);
}

#[test]
fn elided_text_is_not_written_to_a_file_named_like_a_model() {
    let dir = workspace();
    for name in ["m.onnxtxt", "m.onnx", "M.ONNXTXT", "sub.onnxtxt"] {
        let printed = run_in(
            dir.path(),
            &["print", "model.onnx", "--elide", "3", "-o", name],
        );
        assert_eq!(printed.code, 2, "{name}");
        assert!(
            printed.stderr.contains("it would be taken for a model"),
            "{}",
            printed.stderr
        );
        assert!(!dir.path().join(name).exists());
    }
    // Other names are fine: the marker keeps the text from being parsed.
    let printed = run_in(
        dir.path(),
        &["print", "model.onnx", "--elide", "3", "-o", "summary.txt"],
    );
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    assert!(summary.contains("... 997 more"));
}

#[test]
fn elide_and_external_data_exclude_each_other() {
    let dir = workspace();
    let args = [
        "print",
        "model.onnx",
        "--elide",
        "3",
        "--external-data",
        "w.bin",
    ];
    let printed = run_in(dir.path(), &args);
    assert_eq!(printed.code, 2);
    assert!(!dir.path().join("w.bin").exists());
}

#[test]
fn long_elided_lists_still_break_lines() {
    let model = onnxtxt::parse_model(&model_text()).unwrap();
    let text = Printer::new().elide(Some(100)).print(&model).text;
    assert!(text.contains("99.5, ... 900 more\n"), "{text}");
    assert!(text.lines().all(|line| line.len() <= 110), "{text}");
}
