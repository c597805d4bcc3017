//! Test cases as text in the command: data files and case directories
//! written by onnx itself (onnx 1.23.2's `numpy_helper`, in `.venv`)
//! printed and parsed back byte for byte, and the bad inputs the command
//! refuses, naming the file.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{arg, reference_python, run, run_stdin, Run};
use crate::testcase_conformance::files_under;

/// Runs `script` with the reference venv's `python` in `dir`; its stdout.
fn run_python(python: &Path, dir: &Path, script: &str) -> String {
    let out = Command::new(python)
        .args(["-c", script])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (run conformance/setup.sh)", python.display()));
    assert!(
        out.status.success(),
        "python failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Data files of every kind, as onnx writes them.
const DATA_FILES: &str = r#"
import numpy as np, onnx
from onnx import numpy_helper as h
files = {
    "floats": h.from_array(np.array([[1.5, -2], [0.25, 3]], np.float32), "x"),
    "int64_unnamed": h.from_array(np.arange(5, dtype=np.int64)),
    "strings": h.from_array(np.array([b"a", b"\xff"], dtype=object), "s"),
    "sequence": h.from_list([np.ones((2,), np.float32), np.zeros((3,), np.float32)], "xs"),
    "empty_sequence": h.from_list([], "none", dtype=onnx.SequenceProto.TENSOR),
    "nested": h.from_list([[np.ones((1,), np.int32)], []], "nested"),
    "int_map": h.from_dict({np.int64(1): np.array([1.0], np.float32), np.int64(7): np.array([2.0], np.float32)}, "m"),
    # from_dict cannot make string keys: the message itself.
    "string_map": onnx.MapProto(name="sm", key_type=onnx.TensorProto.STRING, string_keys=[b"a"],
                                values=h.from_list([np.array(1, np.int64)])),
    "optional": h.from_optional(np.array([4, 5], np.int8), "o"),
    "empty_optional": h.from_optional(None, "e", dtype=onnx.OptionalProto.TENSOR),
    "optional_sequence": h.from_optional([np.ones((1,), np.float32)], "os"),
}
for name, message in files.items():
    open(name + ".pb", "wb").write(message.SerializeToString())
print(" ".join(files))
"#;

#[test]
fn data_files_written_by_onnx_round_trip_through_text() {
    let Some(python) = reference_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let names = run_python(&python, dir.path(), DATA_FILES);
    for name in names.split_whitespace() {
        let file = dir.path().join(format!("{name}.pb"));
        let printed = run(&["print", arg(&file)]);
        assert_eq!(printed.code, 0, "{name}: {printed:?}");
        let back = dir.path().join(format!("{name}.back.pb"));
        let parsed = run_stdin(&["parse", "-", "-o", arg(&back)], &printed.stdout);
        assert_eq!(parsed.code, 0, "{name}: {parsed:?}\n{}", printed.text());
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(&file).unwrap(),
            "{name}: other bytes from\n{}",
            printed.text()
        );
    }
    // The syntax of each kind, as the command prints it.
    let print = |name: &str, extra: &[&str]| {
        let file = dir.path().join(format!("{name}.pb"));
        let mut args = vec!["print", arg(&file)];
        args.extend(extra);
        run(&args).text().to_owned()
    };
    assert_eq!(
        print("floats", &[]),
        "@<raw: true> float[2,2] x = {1.5, -2.0, 0.25, 3.0}\n"
    );
    assert_eq!(
        print("sequence", &[]),
        "seq(tensor) xs = [\n  @<raw: true> float[2] {1.0, 1.0},\n  @<raw: true> float[3] {0.0, 0.0, 0.0}\n]\n"
    );
    assert_eq!(
        print("string_map", &[]),
        "map(string) sm = {\n  string_keys: [\"a\"],\n  values: seq(tensor) [\n    @<raw: true> int64 {1}\n  ]\n}\n"
    );
    // An empty optional is, byte for byte, an empty sequence, and one
    // holding a tensor a sequence of one: `--as` says which to print.
    assert_eq!(print("empty_optional", &[]), "seq(tensor) e = []\n");
    assert_eq!(
        print("empty_optional", &["--as", "optional"]),
        "optional(tensor) e = []\n"
    );
    assert!(print("optional", &["--as", "optional"]).starts_with("optional(tensor) o = [\n"));
    // Read as a model, a tensor is no model.
    let floats = dir.path().join("floats.pb");
    fails_saying(
        &run(&["print", "--as", "model", arg(&floats)]),
        "floats.pb: byte 4: producer_name",
    );
}

#[test]
fn a_tensor_written_in_text_is_the_tensor_onnx_reads() {
    let Some(python) = reference_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.pb");
    let parsed = run_stdin(
        &["parse", "-", "-o", arg(&out)],
        b"float[2,2] t = {1,2,3,4}\n",
    );
    assert_eq!(parsed.code, 0, "{parsed:?}");
    let read = run_python(
        &python,
        dir.path(),
        "import onnx\nfrom onnx import numpy_helper as h\n\
         t = onnx.load_tensor('t.pb')\nprint(t.name, h.to_array(t).tolist())",
    );
    assert_eq!(read.trim(), "t [[1.0, 2.0], [3.0, 4.0]]");
}

/// A case directory as onnx's `generate-data` writes one: an `Add` of a
/// tensor and a sequence's length, two data sets.
const CASE: &str = r#"
import os, numpy as np, onnx
from onnx import helper, numpy_helper as h, TensorProto
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])
s = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N"])
n = helper.make_tensor_value_info("n", TensorProto.INT64, [])
graph = helper.make_graph(
    [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("SequenceLength", ["s"], ["n"])],
    "g", [x, s], [y, n])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
os.makedirs("case")
open("case/model.onnx", "wb").write(model.SerializeToString())
for i, size in enumerate([2, 3]):
    d = f"case/test_data_set_{i}"
    os.makedirs(d)
    xs = np.linspace(-1, 1, size).astype(np.float32)
    seq = [np.ones((k,), np.float32) for k in range(i + 1)]
    for name, message in [
        ("input_0", h.from_array(xs, "x")),
        ("input_1", h.from_list(seq, "s")),
        ("output_0", h.from_array(np.maximum(xs, 0), "y")),
        ("output_1", h.from_array(np.array(len(seq), np.int64), "n")),
    ]:
        open(f"{d}/{name}.pb", "wb").write(message.SerializeToString())
"#;

/// A temporary directory holding [`CASE`] as `case/`, and that path.
fn written_case(python: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    run_python(python, dir.path(), CASE);
    let case = dir.path().join("case");
    (dir, case)
}

#[test]
fn a_case_directory_round_trips_through_one_text() {
    let Some(python) = reference_python() else {
        return;
    };
    let (dir, case) = written_case(&python);
    let text = dir.path().join("case.onnxtxt");
    let printed = run(&["print", arg(&case), "-o", arg(&text)]);
    assert_eq!(printed.code, 0, "{printed:?}");
    let written = std::fs::read_to_string(&text).unwrap();
    assert!(
        written
            .contains("test_data_set_1 {\n  input x: @<raw: true> float[3] x = {-1.0, 0.0, 1.0}\n"),
        "{written}"
    );
    let back = dir.path().join("back");
    let parsed = run(&["parse", arg(&text), "-o", arg(&back)]);
    assert_eq!(parsed.code, 0, "{parsed:?}");
    assert_eq!(files_under(&back), files_under(&case));
    // Parsing again replaces the directory: nothing else is left in it.
    std::fs::write(back.join("stray"), b"").unwrap();
    assert_eq!(run(&["parse", arg(&text), "-o", arg(&back)]).code, 0);
    assert_eq!(files_under(&back), files_under(&case));
    let checked = run(&["check", arg(&case), arg(&text)]);
    assert_eq!(checked.code, 0, "{checked:?}");
}

#[test]
fn bad_cases_are_refused_naming_the_file_and_nothing_is_written() {
    let Some(python) = reference_python() else {
        return;
    };
    let (dir, case) = written_case(&python);
    let out = dir.path().join("out.onnxtxt");
    let refused = |path: &Path, says: &str| {
        fails_saying(&run(&["print", arg(path), "-o", arg(&out)]), says);
        assert!(!out.exists());
    };
    let extra = case.join("test_data_set_0/input_2.pb");
    std::fs::write(&extra, b"").unwrap();
    refused(&case, "input_2.pb: the graph has 2 inputs");
    std::fs::remove_file(&extra).unwrap();
    let first = case.join("test_data_set_1/input_0.pb");
    let saved = std::fs::read(&first).unwrap();
    std::fs::remove_file(&first).unwrap();
    refused(&case, "test_data_set_1/input_0.pb: missing");
    std::fs::write(&first, &saved).unwrap();
    let stray = case.join("notes.txt");
    std::fs::write(&stray, b"").unwrap();
    refused(&case, "notes.txt: not part of a test case");
    std::fs::remove_file(&stray).unwrap();
    refused(dir.path(), "no model.onnx");
    let garbage = dir.path().join("garbage.pb");
    std::fs::write(&garbage, [0xff, 0xff, 0xff]).unwrap();
    refused(&garbage, "garbage.pb");

    // In text: a label that is no input of the graph, at its line.
    let text = run(&["print", arg(&case)])
        .text()
        .replace("input x:", "input q:");
    let back = dir.path().join("back");
    let parsed = run_stdin(&["parse", "-", "-o", arg(&back)], text.as_bytes());
    assert_eq!(parsed.code, 1, "{parsed:?}");
    let line = text.lines().position(|l| l.contains("input q:")).unwrap() + 1;
    assert!(
        parsed.stderr.contains(&format!("<stdin>:{line}:9"))
            && parsed
                .stderr
                .contains("`q` is not an input of the graph (its inputs: x, s)"),
        "{parsed:?}"
    );
    assert!(!back.exists());
}

#[test]
fn check_refuses_data_of_another_type_as_onnxruntime_does() {
    let Some(python) = reference_python() else {
        return;
    };
    let (dir, case) = written_case(&python);
    // input_0 of data set 0 as int64 instead of float.
    let wrong = "import numpy as np\nfrom onnx import numpy_helper as h\n\
                 open('case/test_data_set_0/input_0.pb', 'wb').write(\
                 h.from_array(np.array([1, 2], np.int64), 'x').SerializeToString())";
    run_python(&python, dir.path(), wrong);
    fails_saying(
        &run(&["check", arg(&case)]),
        "test_data_set_0/input_0.pb: element type int64, the graph declares float",
    );
    // onnxruntime refuses to run the model on that input, for that reason.
    let refused = run_python(&python, dir.path(),
        "import onnx, onnxruntime as ort\n\
         from onnx import numpy_helper as h\n\
         s = ort.InferenceSession('case/model.onnx', providers=['CPUExecutionProvider'])\n\
         x = h.to_array(onnx.load_tensor('case/test_data_set_0/input_0.pb'))\n\
         seq = onnx.SequenceProto()\n\
         seq.ParseFromString(open('case/test_data_set_0/input_1.pb', 'rb').read())\n\
         try:\n    s.run(['y'], {'x': x, 's': h.to_list(seq)})\nexcept Exception as e:\n    print(e)",
    );
    assert!(refused.contains("Unexpected input data type"), "{refused}");

    // Symbolic dimensions are one size across a data set.
    let text = run(&["print", arg(&case)]).text().to_owned();
    let text = text.replace(
        "output y: @<raw: true> float[3] y = {0.0, 0.0, 1.0}",
        "output y: float[2] y = {0.0, 0.0}",
    );
    fails_saying(
        &run_stdin(&["check", "-"], text.as_bytes()),
        "test_data_set_1/output_0.pb: `N` is 2 here and 3 in input_0.pb",
    );
}

/// Asserts that a run failed on invalid input (exit status 1), saying
/// `says`.
fn fails_saying(run: &Run, says: &str) {
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains(says), "{run:?}");
}

#[test]
fn compat_refuses_what_the_reference_syntax_cannot_hold() {
    let Some(python) = reference_python() else {
        return;
    };
    let (_dir, case) = written_case(&python);
    for path in [case.clone(), case.join("test_data_set_0/input_1.pb")] {
        let printed = run(&["print", "--compat", arg(&path)]);
        assert_eq!(printed.code, 1, "{printed:?}");
        assert!(printed.stderr.contains("--compat"), "{printed:?}");
    }
    let tensor = run(&[
        "print",
        "--compat",
        arg(&case.join("test_data_set_0/input_0.pb")),
    ]);
    assert_eq!(tensor.code, 0, "{tensor:?}");
}

#[test]
fn git_diff_shows_a_changed_case_as_text() {
    let Some(python) = reference_python() else {
        return;
    };
    use crate::git_textconv::{assert_lines, documented_setup, have_git, Repo};
    if !have_git() {
        return;
    }
    let repo = Repo::new();
    let mut setup = repo.command("sh");
    setup.args(["-e", "-c", documented_setup()]);
    Repo::run(setup);
    run_python(&python, &repo.path(), CASE);
    repo.git(&["add", "."]);
    repo.git(&["commit", "--quiet", "-m", "a case"]);
    // A new input, and the output that goes with it, as docs/test-cases.md's
    // example changes them.
    let change = "import numpy as np\nfrom onnx import numpy_helper as h\n\
                  for name, v in [('input_0', [-1, 0.5, 2]), ('output_0', [0, 0.5, 2])]:\n    \
                  m = h.from_array(np.array(v, np.float32), 'x' if name == 'input_0' else 'y')\n    \
                  open(f'case/test_data_set_1/{name}.pb', 'wb').write(m.SerializeToString())";
    run_python(&python, &repo.path(), change);
    assert_lines(
        &repo.git(&["diff"]),
        &[
            "-@<raw: true> float[3] x = {-1.0, 0.0, 1.0}",
            "+@<raw: true> float[3] x = {-1.0, 0.5, 2.0}",
            "-@<raw: true> float[3] y = {0.0, 0.0, 1.0}",
            "+@<raw: true> float[3] y = {0.0, 0.5, 2.0}",
        ],
    );
}

#[test]
fn diff_and_fmt_work_on_test_cases() {
    let Some(python) = reference_python() else {
        return;
    };
    let (dir, case) = written_case(&python);
    let text = run(&["print", arg(&case)]).text().to_owned();
    let old_line = "input x: @<raw: true> float[3] x = {-1.0, 0.0, 1.0}";
    assert!(text.contains(old_line), "{text}");
    let changed = text.replace(old_line, "input x: float[3] x = {-1.0, 0.5, 1.0}");
    let other = dir.path().join("other");
    let parsed = run_stdin(&["parse", "-", "-o", arg(&other)], changed.as_bytes());
    assert_eq!(parsed.code, 0, "{parsed:?}");
    let diff = run(&["diff", "--color", "never", arg(&case), arg(&other)]);
    assert_eq!(diff.code, 1, "{diff:?}");
    let lines: Vec<&str> = diff.text().lines().collect();
    assert!(
        lines.contains(&format!("-  {old_line}").as_str()),
        "{diff:?}"
    );
    assert!(
        lines.contains(&"+  input x: float[3] x = {-1.0, 0.5, 1.0}"),
        "{diff:?}"
    );
    let file = |dir: &Path| dir.join("test_data_set_1/input_0.pb");
    let files = run(&["diff", arg(&file(&case)), arg(&file(&other))]);
    assert_eq!(files.code, 1, "{files:?}");
    assert_eq!(run(&["diff", arg(&case), arg(&case)]).code, 0);

    // fmt: the model keeps its comments, the data sets are made canonical.
    let messy = text
        .replacen(
            "{\n  y = Relu (x)",
            "{\n  # the activation\n  y = Relu(x)",
            1,
        )
        .replace(old_line, "input x:@<raw: true> float[3] x={-1,0,1}");
    let file = dir.path().join("case.onnxtxt");
    std::fs::write(&file, &messy).unwrap();
    let formatted = run(&["fmt", arg(&file)]);
    assert_eq!(formatted.code, 0, "{formatted:?}");
    let written = std::fs::read_to_string(&file).unwrap();
    let commented = "{\n  # the activation\n  y = Relu (x)";
    assert_eq!(written, text.replacen("{\n  y = Relu (x)", commented, 1));
    // A comment in a data set would be lost: the file is left as it is.
    let commented = written.replace(old_line, &format!("{old_line}  # note"));
    std::fs::write(&file, &commented).unwrap();
    let refused = run(&["fmt", arg(&file)]);
    assert_eq!(refused.code, 1, "{refused:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), commented);
}

#[test]
fn an_empty_data_set_keeps_its_directory() {
    let Some(python) = reference_python() else {
        return;
    };
    let (dir, case) = written_case(&python);
    std::fs::create_dir(case.join("test_data_set_2")).unwrap();
    let text = run(&["print", arg(&case)]);
    assert!(
        text.text().ends_with("\ntest_data_set_2 {\n}\n"),
        "{text:?}"
    );
    let back = dir.path().join("back");
    assert_eq!(
        run_stdin(&["parse", "-", "-o", arg(&back)], &text.stdout).code,
        0
    );
    assert!(back.join("test_data_set_2").is_dir());
    assert_eq!(files_under(&back), files_under(&case));
}
