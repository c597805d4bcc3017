//! Tests of `onnxtxt diff`: exit codes (0 same, 1 different, 2 trouble),
//! hunk headers naming graphs and functions, colour, the options that
//! ignore doc strings, metadata and storage, tensor summaries, and the
//! structural mode exiting as the text diff does.

use std::path::{Path, PathBuf};

use crate::support::{arg, run, run_stdin, write, Run};
use prost::Message as _;

/// A model with a nested graph, a function, tensors, doc strings and
/// metadata.
const MODEL: &str = r#"<
  ir_version: 10,
  opset_import: ["": 21, "local": 1],
  producer_name: "trainer",
  producer_version: "1.0",
  domain: "org.example",
  model_version: 3,
  doc_string: "a model",
  metadata_props: ["author": "me"]
>
@<doc_string: "the graph", metadata_props: ["g": "1"]>
main (float[20] x, bool c) => (float[20] y)
<
  float[20] w = {
    0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5,
    5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 9.5
  },
  @<doc_string: "a shape"> int64[3] shape = {4, 5, 1},
  string[2] labels = {"cat", "dog"}
>
{
  @<doc_string: "scales", metadata_props: ["k": "v"]>
  [scale] t = Mul (x, w)
  [k] k = Constant <value: tensor = int64[2] {1, 2}> ()
  y = If (c) <
    then_branch: graph = yes () => (float[20] z) {
      z = local.Double (t)
    },
    else_branch: graph = no () => (float[20] z) {
      z = Neg (t)
    }
  >
}

<
  domain: "local",
  opset_import: ["": 21],
  doc_string: "doubles"
>
Double (a) => (b) {
  b = Add (a, a)
}
"#;

/// [`MODEL`] with `from` replaced by `to` (which must be there).
fn changed(from: &str, to: &str) -> String {
    assert!(MODEL.contains(from), "{from:?} is not in the model");
    MODEL.replacen(from, to, 1)
}

/// Writes `text` as a text model and as a binary model, and gives their
/// paths.
fn both_kinds(dir: &Path, name: &str, text: &str) -> (PathBuf, PathBuf) {
    let model = onnxtxt::parse_model(text).unwrap();
    (
        write(dir, &format!("{name}.onnxtxt"), text.as_bytes()),
        write(dir, &format!("{name}.onnx"), &model.encode_to_vec()),
    )
}

fn diff(dir: &Path, old: &str, new: &str, options: &[&str]) -> Run {
    let old = write(dir, "old.onnxtxt", old.as_bytes());
    let new = write(dir, "new.onnxtxt", new.as_bytes());
    let mut args = vec!["diff", arg(&old), arg(&new)];
    args.extend_from_slice(options);
    run(&args)
}

/// The `@@` lines of a diff.
fn hunk_headers(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("@@")).collect()
}

#[test]
fn a_text_and_its_binary_are_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let (text, binary) = both_kinds(dir.path(), "m", MODEL);
    for (old, new) in [(&text, &binary), (&binary, &text), (&binary, &binary)] {
        let out = run(&["diff", arg(old), arg(new)]);
        assert_eq!((out.code, out.text(), out.stderr.as_str()), (0, "", ""));
    }
    // Standard input as one of them.
    let out = run_stdin(&["diff", "-", arg(&binary)], MODEL.as_bytes());
    assert_eq!((out.code, out.text()), (0, ""), "{out:?}");
}

#[test]
fn differences_exit_1_with_a_unified_diff() {
    let dir = tempfile::tempdir().unwrap();
    let old = "<ir_version: 10, opset_import: [\"\": 21]>\n\
               main (float[2] x) => (float[2] y) {\n  t = Relu (x)\n  u = Abs (t)\n  y = Neg (u)\n}\n";
    let new = old.replace("Abs (t)", "Sigmoid (t)");
    let (old_text, _) = both_kinds(dir.path(), "old", old);
    let (_, new_binary) = both_kinds(dir.path(), "new", &new);
    let out = run(&["diff", "-U", "1", arg(&old_text), arg(&new_binary)]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(out.stderr, "");
    let expected = format!(
        "--- {}\n+++ {}\n@@ -6,3 +6,3 @@ graph main\n   t = Relu (x)\n-  u = Abs (t)\n+  u = Sigmoid (t)\n   y = Neg (u)\n",
        arg(&old_text),
        arg(&new_binary)
    );
    assert_eq!(out.text(), expected);
}

#[test]
fn hunk_headers_name_the_graph_or_function() {
    let dir = tempfile::tempdir().unwrap();
    for (from, to, header) in [
        (
            "[scale] t = Mul (x, w)",
            "[scale] t = Div (x, w)",
            "graph main",
        ),
        ("z = local.Double (t)", "z = Abs (t)", "graph yes"),
        ("z = Neg (t)", "z = Abs (t)", "graph no"),
        ("b = Add (a, a)", "b = Mul (a, a)", "function local.Double"),
    ] {
        let out = diff(dir.path(), MODEL, &changed(from, to), &[]);
        assert_eq!(out.code, 1, "{out:?}");
        let headers = hunk_headers(out.text());
        assert_eq!(headers.len(), 1, "{}", out.text());
        assert!(
            headers[0].ends_with(&format!(" @@ {header}")),
            "{headers:?}"
        );
    }
}

#[test]
fn colour_only_on_request_when_piped() {
    let dir = tempfile::tempdir().unwrap();
    let new = changed("z = Neg (t)", "z = Abs (t)");
    let piped = diff(dir.path(), MODEL, &new, &[]);
    assert_eq!(piped.code, 1);
    assert!(!piped.text().contains('\x1b'), "{piped:?}");
    let never = diff(dir.path(), MODEL, &new, &["--color", "never"]);
    assert_eq!(never.text(), piped.text());
    let always = diff(dir.path(), MODEL, &new, &["--color", "always"]);
    assert_eq!(always.code, 1);
    for line in [
        "\x1b[31m-      z = Neg (t)\x1b[0m\n",
        "\x1b[32m+      z = Abs (t)\x1b[0m\n",
    ] {
        assert!(
            always.text().contains(line),
            "{line:?} in {}",
            always.text()
        );
    }
    assert!(always.text().contains("\x1b[36m@@ -"), "{}", always.text());
}

/// Every doc string of [`MODEL`] changed.
fn other_doc_strings() -> String {
    ["a model", "the graph", "a shape", "scales", "doubles"]
        .into_iter()
        .fold(MODEL.to_owned(), |text, doc| {
            text.replace(&format!("\"{doc}\""), &format!("\"{doc}, edited\""))
        })
}

#[test]
fn ignore_doc_strings() {
    let dir = tempfile::tempdir().unwrap();
    let new = other_doc_strings();
    let out = diff(dir.path(), MODEL, &new, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(out.text().matches("edited").count(), 5, "{}", out.text());
    let out = diff(dir.path(), MODEL, &new, &["--ignore-doc-strings"]);
    assert_eq!((out.code, out.text()), (0, ""), "{out:?}");
    // Doc strings added where there were none count too, and are ignored.
    let new = changed("z = Neg (t)", "@<doc_string: \"negates\"> z = Neg (t)");
    assert_eq!(diff(dir.path(), MODEL, &new, &[]).code, 1);
    let out = diff(dir.path(), MODEL, &new, &["--ignore-doc-strings"]);
    assert_eq!(out.code, 0, "{out:?}");
    // Other changes still show.
    let new = other_doc_strings().replace("Neg (t)", "Abs (t)");
    let out = diff(dir.path(), MODEL, &new, &["--ignore-doc-strings"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(!out.text().contains("edited"), "{}", out.text());
}

#[test]
fn ignore_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let new = [
        ("\"author\": \"me\"", "\"author\": \"you\""),
        ("\"g\": \"1\"", "\"g\": \"2\""),
        ("\"k\": \"v\"", "\"k\": \"w\""),
        ("producer_name: \"trainer\"", "producer_name: \"converter\""),
        ("producer_version: \"1.0\"", "producer_version: \"2.0\""),
        ("domain: \"org.example\"", "domain: \"org.other\""),
        ("model_version: 3", "model_version: 4"),
    ]
    .into_iter()
    .fold(MODEL.to_owned(), |text, (from, to)| {
        assert!(text.contains(from), "{from}");
        text.replacen(from, to, 1)
    });
    let out = diff(dir.path(), MODEL, &new, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(
        out.text().lines().filter(|l| l.starts_with('+')).count(),
        8,
        "{}",
        out.text()
    );
    let out = diff(dir.path(), MODEL, &new, &["--ignore-metadata"]);
    assert_eq!((out.code, out.text()), (0, ""), "{out:?}");
    // The IR version and the opsets are not metadata.
    for (from, to) in [
        ("ir_version: 10", "ir_version: 9"),
        (
            "opset_import: [\"\": 21, \"local\": 1]",
            "opset_import: [\"\": 20, \"local\": 1]",
        ),
    ] {
        let out = diff(
            dir.path(),
            MODEL,
            &changed(from, to),
            &["--ignore-metadata"],
        );
        assert_eq!(out.code, 1, "{from}: {out:?}");
    }
    // Doc strings are not metadata either.
    let out = diff(
        dir.path(),
        MODEL,
        &other_doc_strings(),
        &["--ignore-metadata"],
    );
    assert_eq!(out.code, 1, "{out:?}");
}

#[test]
fn tensor_summaries_count_changes_and_the_largest_one() {
    let dir = tempfile::tempdir().unwrap();
    let new = [
        // Two floats: by 0.25 and by 0.5.
        ("5.5, 6.0", "5.25, 6.0"),
        ("9.0, 9.5", "9.0, 10.0"),
        // One int64 by 3, in a Constant's tensor.
        ("int64[2] {1, 2}", "int64[2] {1, 5}"),
        // A string.
        ("\"dog\"", "\"bird\""),
        // A shape.
        ("int64[3] shape = {4, 5, 1}", "int64[2] shape = {4, 5}"),
    ]
    .into_iter()
    .fold(MODEL.to_owned(), |text, (from, to)| {
        assert!(text.contains(from), "{from}");
        text.replacen(from, to, 1)
    });
    let out = diff(dir.path(), MODEL, &new, &["--summarize-tensors"]);
    assert_eq!(out.code, 1, "{out:?}");
    let summaries: Vec<&str> = out
        .text()
        .lines()
        .filter(|l| !l.starts_with([' ', '-', '+', '@']))
        .collect();
    assert_eq!(
        summaries,
        [
            "w: 20 float, 2 values changed, max abs diff 0.5",
            "shape: 3 int64 → 2 int64",
            "labels: 2 string, 1 value changed",
            "k.value: 2 int64, 1 value changed, max abs diff 3",
        ],
        "{}",
        out.text()
    );
    // The first changed values, at their positions.
    for position in [
        "\nw: 20 float, 2 values changed, max abs diff 0.5\n  w[11]: 5.5 → 5.25\n  w[19]: 9.5 → 10.0\n",
        "\n  labels[1]: \"dog\" → \"bird\"\n",
        "\n  k.value[1]: 2 → 5\n",
    ] {
        assert!(out.text().contains(position), "{position} in {}", out.text());
    }
    // The only hunk is the shape's; no element is listed.
    assert_eq!(hunk_headers(out.text()).len(), 1, "{}", out.text());
    assert!(out.text().contains(
        "\n-  @<doc_string: \"a shape\"> int64[3] shape = [\"elided\": \"3 values\"],\n"
    ));
    let hunks = out.text().split("\nw: 20 float").next().unwrap();
    assert!(!hunks.contains("9.5"), "{}", out.text());
}

#[test]
fn unchanged_tensors_are_placeholders() {
    let dir = tempfile::tempdir().unwrap();
    let new = changed("[scale] t = Mul (x, w)", "[scale] t = Div (x, w)");
    let out = diff(dir.path(), MODEL, &new, &["--summarize-tensors", "-U", "8"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.text()
            .contains("  float[20] w = [\"elided\": \"20 values\"],\n"),
        "{}",
        out.text()
    );
    assert!(!out.text().contains("0.5"), "{}", out.text());
    // Without the option, the elements are there.
    let out = diff(dir.path(), MODEL, &new, &["-U", "8"]);
    assert!(out.text().contains("8.5, 9.0, 9.5"), "{}", out.text());
}

#[test]
fn tensor_values_are_compared_not_their_storage() {
    let dir = tempfile::tempdir().unwrap();
    // The same elements in raw_data.
    let new = changed("  float[20] w = {", "  @<raw: true> float[20] w = {");
    let out = diff(dir.path(), MODEL, &new, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    let out = diff(dir.path(), MODEL, &new, &["--summarize-tensors"]);
    assert_eq!((out.code, out.text()), (0, ""), "{out:?}");
    // Changed elements in raw_data are compared with typed ones.
    let new = new.replace("9.0, 9.5", "9.0, 9.75");
    let out = diff(dir.path(), MODEL, &new, &["--summarize-tensors"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out
        .text()
        .ends_with("\nw: 20 float, 1 value changed, max abs diff 0.25\n  w[19]: 9.5 → 9.75\n"));
}

#[test]
fn ignore_storage_compares_values_not_fields() {
    let dir = tempfile::tempdir().unwrap();
    // The same elements in raw_data, an initializer's and an attribute's.
    let new = changed("  float[20] w = {", "  @<raw: true> float[20] w = {").replace(
        "<value: tensor = int64[2] {1, 2}>",
        "<value: tensor = @<raw: true> int64[2] {1, 2}>",
    );
    let out = diff(dir.path(), MODEL, &new, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.text().contains("\n+  @<raw: true> float[20] w = {\n"),
        "{out:?}"
    );
    let out = diff(dir.path(), MODEL, &new, &["--structural"]);
    assert_eq!(
        (out.code, out.text()),
        (
            1,
            "graph main\n  initializer `w`: stored as raw_data (was float_data), values unchanged\n  \
             node `k`: attribute `value`: stored as raw_data (was int64_data), values unchanged\n"
        ),
        "{out:?}"
    );
    for mode in [
        &["--ignore-storage"][..],
        &["--ignore-storage", "--structural"],
    ] {
        let out = diff(dir.path(), MODEL, &new, mode);
        assert_eq!((out.code, out.text()), (0, ""), "{mode:?}: {out:?}");
    }
    // A value that changed still shows, as one line.
    let new = new.replace("9.0, 9.5", "9.0, 9.75");
    let out = diff(dir.path(), MODEL, &new, &["--ignore-storage", "-U0"]);
    let changes: Vec<&str> = out
        .text()
        .lines()
        .filter(|l| l.starts_with(['-', '+']))
        .skip(2)
        .collect();
    assert_eq!(
        changes,
        ["-    8.0, 8.5, 9.0, 9.5", "+    8.0, 8.5, 9.0, 9.75"],
        "{out:?}"
    );
    let out = diff(
        dir.path(),
        MODEL,
        &new,
        &["--ignore-storage", "--structural"],
    );
    assert_eq!(
        out.text(),
        "graph main\n  initializer `w`: 1 value changed, max abs diff 0.25 (w[19]: 9.5 → 9.75)\n"
    );
}

#[test]
fn invalid_inputs_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (good, _) = both_kinds(dir.path(), "good", MODEL);
    let broken = write(
        dir.path(),
        "broken.onnxtxt",
        b"g (float x) => (float y) {\n",
    );
    let corrupt = write(dir.path(), "corrupt.onnx", &[0x08, 0x80]);
    let missing = dir.path().join("missing.onnx");
    for (old, new, message) in [
        (&good, &broken, "`{` is never closed"),
        (&broken, &good, "`{` is never closed"),
        (&good, &corrupt, "corrupt.onnx"),
        (&missing, &good, "error: cannot read "),
    ] {
        let out = run(&["diff", arg(old), arg(new)]);
        assert_eq!(out.code, 2, "{out:?}");
        assert_eq!(out.text(), "");
        assert!(out.stderr.contains(message), "{message}: {out:?}");
    }
    for args in [
        &["diff", "-", "-"][..],
        &["diff", arg(&good)],
        &["diff", "--bogus"],
    ] {
        let out = run(args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert_eq!(out.text(), "");
    }
}

#[test]
fn structural_and_text_diffs_exit_alike() {
    let dir = tempfile::tempdir().unwrap();
    for (new, line) in [
        (
            changed("[scale] t", "[scaling] t"),
            "  node `scale` renamed to `scaling`",
        ),
        (
            changed("[scale] t", "t"),
            "  node `t = Mul`: name `scale` removed",
        ),
        (
            changed("graph = yes ()", "graph = yes2 ()"),
            "  graph `yes` renamed to `yes2`",
        ),
        (
            changed("\"the graph\"", "\"a graph\""),
            "  doc string changed",
        ),
    ] {
        assert_eq!(diff(dir.path(), MODEL, &new, &[]).code, 1, "{line}");
        let out = diff(dir.path(), MODEL, &new, &["--structural"]);
        assert_eq!(out.code, 1, "{line}: {out:?}");
        assert!(out.text().lines().any(|l| l == line), "{line}: {out:?}");
    }
}
