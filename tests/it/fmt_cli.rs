//! Tests of `onnxtxt fmt`: files rewritten in place with their comments,
//! canonical files left alone, `--check` (a diff and exit 1, nothing
//! changed), standard input to standard output, files that do not parse
//! left untouched, and numbers spelled as their author spelled them.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::support::{arg, reference_python, run, run_stdin, write};

/// A model in no particular style, with comments.
const MESSY: &str = r#"# the model
<ir_version: 10, opset_import: ["": 21, "local": 1]>
main (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}> {
  # add it
  t = Add (x, w)
  y = local.Double   (t)   # twice
}
<domain: "local", opset_import: ["": 21]>
Double (a) => (b) {
  b = Add (a, a)
}
"#;

/// [`MESSY`] in the canonical style.
const CANONICAL: &str = r#"# the model
<
  ir_version: 10,
  opset_import: ["": 21, "local": 1]
>
main (float[2] x) => (float[2] y) <
  float[2] w = {1.0, 2.0}
> {
  # add it
  t = Add (x, w)
  y = local.Double (t) # twice
}

<
  domain: "local",
  opset_import: ["": 21]
>
Double (a) => (b) {
  b = Add (a, a)
}
"#;

/// A model that does not parse.
const BROKEN: &str = "g (float x) => (float y) {\n  y = Relu (x)   # here\n";

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

/// Dates `path` back, so that a rewrite would show in its mtime.
fn age(path: &Path) -> SystemTime {
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    old
}

#[test]
fn rewrites_files_in_place_keeping_comments() {
    let dir = tempfile::tempdir().unwrap();
    let first = write(dir.path(), "first.onnxtxt", MESSY.as_bytes());
    let second = write(dir.path(), "second.onnxtxt", MESSY.as_bytes());
    let out = run(&["fmt", arg(&first), arg(&second)]);
    assert_eq!((out.code, out.text(), out.stderr.as_str()), (0, "", ""));
    assert_eq!(read(&first), CANONICAL);
    assert_eq!(read(&second), CANONICAL);
    // Nothing but the two files is left in the directory.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn canonical_files_are_not_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "m.onnxtxt", CANONICAL.as_bytes());
    let before = age(&path);
    let out = run(&["fmt", arg(&path)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(modified(&path), before);
    assert_eq!(read(&path), CANONICAL);
}

#[test]
fn check_prints_a_diff_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let messy = write(dir.path(), "messy.onnxtxt", MESSY.as_bytes());
    let canonical = write(dir.path(), "canonical.onnxtxt", CANONICAL.as_bytes());
    let before = age(&messy);
    let out = run(&["fmt", "--check", arg(&canonical), arg(&messy)]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(out.stderr, "");
    assert_eq!(read(&messy), MESSY);
    assert_eq!(modified(&messy), before);
    let name = arg(&messy);
    let expected = format!(
        "--- {name}\n+++ {name}\n@@ -1,11 +1,20 @@
 # the model
-<ir_version: 10, opset_import: [\"\": 21, \"local\": 1]>
-main (float[2] x) => (float[2] y) <float[2] w = {{1.0, 2.0}}> {{
+<
+  ir_version: 10,
+  opset_import: [\"\": 21, \"local\": 1]
+>
+main (float[2] x) => (float[2] y) <
+  float[2] w = {{1.0, 2.0}}
+> {{
   # add it
   t = Add (x, w)
-  y = local.Double   (t)   # twice
+  y = local.Double (t) # twice
 }}
-<domain: \"local\", opset_import: [\"\": 21]>
+
+<
+  domain: \"local\",
+  opset_import: [\"\": 21]
+>
 Double (a) => (b) {{
   b = Add (a, a)
 }}
"
    );
    assert_eq!(out.text(), expected);
    assert!(!out.text().contains(arg(&canonical)));
}

#[test]
fn check_passes_canonical_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "m.onnxtxt", CANONICAL.as_bytes());
    let out = run(&["fmt", "--check", arg(&path)]);
    assert_eq!((out.code, out.text(), out.stderr.as_str()), (0, "", ""));
}

#[test]
fn check_names_the_graph_a_change_is_in() {
    let dir = tempfile::tempdir().unwrap();
    let text = CANONICAL.replace("b = Add (a, a)", "b = Add (a,a)");
    let path = write(dir.path(), "m.onnxtxt", text.as_bytes());
    let out = run(&["fmt", "--check", arg(&path)]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.text()
            .contains("\n@@ -16,5 +16,5 @@ function local.Double\n"),
        "{}",
        out.text()
    );
}

#[test]
fn standard_input_goes_to_standard_output() {
    for args in [&["fmt"][..], &["fmt", "-"]] {
        let out = run_stdin(args, MESSY.as_bytes());
        assert_eq!(
            (out.code, out.text(), out.stderr.as_str()),
            (0, CANONICAL, "")
        );
    }
    let out = run_stdin(&["fmt", "--check"], MESSY.as_bytes());
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out
        .text()
        .starts_with("--- <stdin>\n+++ <stdin>\n@@ -1,11 +1,20 @@\n"));
    let out = run_stdin(&["fmt", "--check"], CANONICAL.as_bytes());
    assert_eq!((out.code, out.text()), (0, ""));
}

#[test]
fn files_that_do_not_parse_are_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let broken = write(dir.path(), "broken.onnxtxt", BROKEN.as_bytes());
    let messy = write(dir.path(), "messy.onnxtxt", MESSY.as_bytes());
    let before = age(&broken);
    for check in [false, true] {
        let mut args = vec!["fmt", arg(&broken), arg(&messy)];
        if check {
            args.push("--check");
        }
        let out = run(&args);
        assert_eq!(out.code, 1, "{out:?}");
        assert!(out.stderr.contains("`{` is never closed"), "{out:?}");
        assert!(out.stderr.contains("broken.onnxtxt:1:26"), "{out:?}");
        assert_eq!(read(&broken), BROKEN);
        assert_eq!(modified(&broken), before);
    }
    // The file after it was still formatted.
    assert_eq!(read(&messy), CANONICAL);
}

#[test]
fn unreadable_files_exit_2_and_the_others_are_formatted() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.onnxtxt");
    let broken = write(dir.path(), "broken.onnxtxt", BROKEN.as_bytes());
    let messy = write(dir.path(), "messy.onnxtxt", MESSY.as_bytes());
    let out = run(&["fmt", arg(&missing), arg(&broken), arg(&messy)]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.starts_with("error: cannot read "), "{out:?}");
    assert_eq!(read(&messy), CANONICAL);
}

#[test]
fn check_diffs_are_coloured_on_request_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "m.onnxtxt", MESSY.as_bytes());
    let piped = run(&["fmt", "--check", arg(&path)]);
    assert!(!piped.text().contains('\x1b'), "{piped:?}");
    let always = run(&["fmt", "--check", "--color", "always", arg(&path)]);
    assert_eq!(always.code, 1);
    assert!(always
        .text()
        .contains("\x1b[31m-  y = local.Double   (t)   # twice\x1b[0m\n"));
    assert!(always
        .text()
        .contains("\x1b[32m+  y = local.Double (t) # twice\x1b[0m\n"));
}

/// A hand-written function whose numbers are not spelled as `print`
/// writes them.
const SPELLED: &str = r#"<
  ir_version: 10,
  opset_import: ["": 21]
>
gelu (float[N] x) => (float[N] y) <
  float[3] c = {0.7978845608, 0.044715, 1e-5}
> {
  y = LeakyRelu <alpha: float = 1e-2> (x)
}
"#;

#[test]
fn numbers_keep_the_authors_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "gelu.onnxtxt", SPELLED.as_bytes());
    let out = run(&["fmt", "--check", arg(&file)]);
    assert_eq!((out.code, out.text()), (0, ""), "{out:?}");
    let out = run_stdin(&["fmt"], SPELLED.replace("{0.79", "{ 0.79").as_bytes());
    assert_eq!((out.code, out.text()), (0, SPELLED), "{out:?}");
    // print writes the canonical spelling of the same values.
    let out = run(&["print", arg(&file)]);
    assert_eq!(
        out.text(),
        SPELLED
            .replace("0.7978845608", "0.7978846")
            .replace("1e-5", "0.00001")
            .replace("1e-2", "0.01")
    );
    let canonical = write(dir.path(), "printed.onnxtxt", &out.stdout);
    let out = run(&["diff", arg(&file), arg(&canonical)]);
    assert_eq!((out.code, out.text()), (0, ""), "the same model: {out:?}");
    // And for onnx's own parser, the kept spellings and the canonical ones
    // are the same model.
    let Some(python) = reference_python() else {
        return;
    };
    let script = "import sys, onnx.parser\n\
                  [a, b] = [onnx.parser.parse_model(open(f).read()) for f in sys.argv[1:]]\n\
                  assert a.SerializeToString() == b.SerializeToString(), (a, b)\n";
    let status = std::process::Command::new(python)
        .args(["-c", script, arg(&file), arg(&canonical)])
        .status()
        .unwrap();
    assert!(status.success(), "onnx.parser reads them as other models");
}
