//! Tests of the `onnxtxt` command: exit codes, standard input and output,
//! `-o` files written atomically, input kind detection, `--compat`, and how
//! errors are rendered (snapshots in `snapshots/`).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{arg, run, run_in, run_stdin, run_with, trim_lines, write, Invocation};
use prost::Message as _;

const MLP: &str = include_str!("../../examples/mlp.onnxtxt");
pub(crate) const MLP_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mlp.onnxtxt");

/// The binary model of `examples/mlp.onnxtxt`.
pub(crate) fn mlp_binary() -> Vec<u8> {
    onnxtxt::parse_model(MLP).unwrap().encode_to_vec()
}

/// The canonical text of `examples/mlp.onnxtxt`.
fn mlp_canonical() -> String {
    onnxtxt::to_text(&onnxtxt::parse_model(MLP).unwrap())
}

/// The names in `dir`, sorted.
pub(crate) fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, text);
    });
}

fn assert_no_ansi(text: &str) {
    assert!(!text.contains('\x1b'), "colour codes in {text:?}");
}

// ---------------------------------------------------------------------------
// Help and usage.

#[test]
fn help_texts() {
    for (name, args) in [
        ("cli_help", &["--help"][..]),
        ("cli_parse_help", &["parse", "--help"]),
        ("cli_print_help", &["print", "--help"]),
    ] {
        let out = run(args);
        assert_eq!(out.code, 0, "{name}: {out:?}");
        snapshot(name, out.text());
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["frobnicate"],
        &["parse", "--bogus"],
        &["print", "a", "b"],
        &["print", "-o"],
    ] {
        let out = run(args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn missing_files_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.onnxtxt");
    for command in ["parse", "print"] {
        let out = run(&[command, arg(&missing)]);
        assert_eq!(out.code, 2, "{command}: {out:?}");
        assert!(out.stderr.starts_with("error: cannot read "), "{out:?}");
        assert!(out.stderr.contains("missing.onnxtxt"), "{out:?}");
        assert!(out.stdout.is_empty());
    }
    // An output directory that does not exist.
    let nowhere = dir.path().join("no/such/dir/out.onnx");
    let out = run(&["parse", MLP_PATH, "-o", arg(&nowhere)]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.starts_with("error: cannot write "), "{out:?}");
}

// ---------------------------------------------------------------------------
// Standard input and output, `-o`.

#[test]
fn parse_writes_the_binary_model() {
    let expected = mlp_binary();
    let from_file = run(&["parse", MLP_PATH]);
    assert_eq!(from_file.code, 0, "{from_file:?}");
    assert_eq!(from_file.stdout, expected);
    assert_eq!(from_file.stderr, "");

    for args in [&["parse", "-"][..], &["parse"], &["parse", "-", "-o", "-"]] {
        let out = run_stdin(args, MLP.as_bytes());
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert_eq!(out.stdout, expected, "{args:?}");
    }

    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("mlp.onnx");
    let out = run(&["parse", MLP_PATH, "-o", arg(&target)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read(&target).unwrap(), expected);
    assert_eq!(listing(dir.path()), ["mlp.onnx"]);

    // A relative output path, in the working directory.
    let out = run_in(dir.path(), &["parse", MLP_PATH, "--output", "again.onnx"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        std::fs::read(dir.path().join("again.onnx")).unwrap(),
        expected
    );
    assert_eq!(listing(dir.path()), ["again.onnx", "mlp.onnx"]);
}

#[test]
fn print_writes_canonical_text() {
    let dir = tempfile::tempdir().unwrap();
    let binary = write(dir.path(), "mlp.onnx", &mlp_binary());
    let expected = mlp_canonical();

    let out = run(&["print", arg(&binary)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.text(), expected);
    assert_eq!(out.stderr, "");

    for args in [&["print", "-"][..], &["print"]] {
        let out = run_stdin(args, &mlp_binary());
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert_eq!(out.text(), expected);
    }

    let target = dir.path().join("mlp.txt");
    let out = run(&["print", arg(&binary), "-o", arg(&target)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), expected);
    assert_eq!(listing(dir.path()), ["mlp.onnx", "mlp.txt"]);
}

#[test]
fn parse_then_print_round_trips() {
    let binary = run(&["parse", MLP_PATH]);
    assert_eq!(binary.code, 0);
    let text = run_stdin(&["print", "-"], &binary.stdout);
    assert_eq!(text.code, 0, "{text:?}");
    assert_eq!(text.text(), mlp_canonical());
    let again = run_stdin(&["parse", "-"], &text.stdout);
    assert_eq!(again.stdout, binary.stdout);
}

// ---------------------------------------------------------------------------
// Input kind detection.

#[test]
fn input_kind_comes_from_the_content_not_the_name() {
    let dir = tempfile::tempdir().unwrap();
    // Text named like a binary model is reformatted.
    let text = write(dir.path(), "model.onnx", MLP.as_bytes());
    let out = run(&["print", arg(&text)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.text(), mlp_canonical());
    assert_ne!(out.text(), MLP);

    // A binary model named like text is printed.
    let binary = write(dir.path(), "model.onnxtxt", &mlp_binary());
    let out = run(&["print", arg(&binary)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.text(), mlp_canonical());

    // A binary model that happens to look like text: it starts with its
    // `opset_import` (tag byte `B`) and holds no NUL byte.
    let model = onnxtxt::proto::ModelProto {
        opset_import: vec![onnxtxt::proto::OperatorSetIdProto {
            domain: Some("ai".into()),
            version: Some(21),
        }],
        ..Default::default()
    };
    let bytes = model.encode_to_vec();
    assert_eq!(bytes[0], b'B');
    let out = run_stdin(&["print"], &bytes);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.text(), onnxtxt::to_text(&model));
}

#[test]
fn parse_refuses_binary_and_non_utf8_input() {
    let out = run_stdin(&["parse"], &mlp_binary());
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.is_empty());
    assert_eq!(
        out.stderr,
        "error: <stdin> is a binary ONNX model, not text: `onnxtxt print -` writes it as text\n"
    );
    let out = run_stdin(&["parse"], b"g () => () {}\xff");
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(
        out.stderr,
        "error: <stdin>:1:14: the text is not UTF-8 at byte 13 \
         (text models are UTF-8, without NUL bytes)\n"
    );
}

/// A binary model that is valid UTF-8 and starts like text: a model with
/// only an opset import (field tag `B`) whose domain keeps NUL bytes out.
fn binary_that_reads_as_text() -> Vec<u8> {
    let model = onnxtxt::proto::ModelProto {
        opset_import: vec![onnxtxt::proto::OperatorSetIdProto {
            domain: Some("ai.onnx".into()),
            version: Some(21),
        }],
        ..Default::default()
    };
    let bytes = model.encode_to_vec();
    assert!(onnxtxt::looks_like_text(&bytes), "{bytes:?}");
    bytes
}

#[test]
fn commands_that_read_text_name_the_one_that_reads_a_binary_model() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("m.onnx", mlp_binary()),
        ("utf8.onnx", binary_that_reads_as_text()),
    ] {
        let path = write(dir.path(), name, &bytes);
        for command in ["parse", "fmt"] {
            let out = run(&[command, arg(&path)]);
            assert_eq!(out.code, 1, "{command} {name}: {out:?}");
            let expected = format!(
                "{0} is a binary ONNX model, not text: `onnxtxt print {0}` writes it as text",
                arg(&path)
            );
            assert!(
                out.stderr.contains(&expected),
                "{command} {name}: {}",
                out.stderr
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Errors.

const BAD_TEXT: &str = "<ir_version: 10, opset_import: [\"\": 21]>\n\
                        g (float[N] x) => (float[N] y) {\n  y = Relu(x\n}\n";

#[test]
fn invalid_text_exits_1_with_located_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.onnxtxt", BAD_TEXT.as_bytes());
    for command in ["parse", "print"] {
        let out = run_in(dir.path(), &[command, "bad.onnxtxt"]);
        assert_eq!(out.code, 1, "{command}: {out:?}");
        assert!(out.stdout.is_empty());
        assert!(out.stderr.contains("bad.onnxtxt:3:"), "{out:?}");
        assert_no_ansi(&out.stderr);
        if command == "parse" {
            snapshot("cli_parse_unclosed", &trim_lines(&out.stderr));
        }
    }
    // Standard input is named `<stdin>`.
    let out = run_stdin(
        &["parse"],
        b"<ir_version: 10>\ng () => () {\n  y = = Relu(x)\n}\n",
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("<stdin>:3:"), "{out:?}");
    snapshot("cli_parse_stdin_syntax", &trim_lines(&out.stderr));
}

#[test]
fn no_colour_when_asked_or_not_on_a_terminal() {
    let run_colour = |no_color: Option<&str>| {
        let mut env = Vec::new();
        if let Some(value) = no_color {
            env.push(("NO_COLOR", value));
        }
        run_with(
            &["parse", "-"],
            Invocation {
                stdin: Some(BAD_TEXT.as_bytes()),
                env: &env,
                ..Invocation::default()
            },
        )
    };
    for no_color in [None, Some("1"), Some("")] {
        let out = run_colour(no_color);
        assert_eq!(out.code, 1);
        assert_no_ansi(&out.stderr);
    }
    // On a terminal (through `script`, where available) there is colour,
    // unless NO_COLOR is set to something.
    let Some(colour) = stderr_on_a_terminal(None) else {
        return;
    };
    assert!(colour.contains('\x1b'), "{colour:?}");
    let plain = stderr_on_a_terminal(Some("1")).unwrap();
    assert!(plain.contains("<stdin>:3:"), "{plain:?}");
    assert_no_ansi(&plain);
}

/// Runs `onnxtxt parse` on [`BAD_TEXT`] with its stderr on a pseudo
/// terminal, through util-linux `script`; `None` if that is not available.
fn stderr_on_a_terminal(no_color: Option<&str>) -> Option<String> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.onnxtxt", BAD_TEXT.as_bytes());
    let shell_command = format!(
        "'{}' parse - < bad.onnxtxt > /dev/null",
        env!("CARGO_BIN_EXE_onnxtxt")
    );
    let mut command = Command::new("script");
    command
        .args(["-q", "-e", "-c", &shell_command, "/dev/null"])
        .current_dir(dir.path())
        .env_remove("NO_COLOR")
        .stdin(Stdio::null());
    if let Some(value) = no_color {
        command.env("NO_COLOR", value);
    }
    let output = command.output().ok()?;
    (output.status.code() == Some(1)).then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A binary model cut short, with an unknown field, and with a bad string.
fn corrupt_models() -> Vec<(&'static str, Vec<u8>)> {
    let binary = mlp_binary();
    let truncated = binary[..binary.len() / 2].to_vec();
    let mut unknown = binary.clone();
    unknown.extend([0x98, 0x06, 0x01]); // field 99, varint 1
    let bad_name = [0x12, 0x02, 0xc3, 0x28].to_vec(); // producer_name, not UTF-8
    vec![
        ("truncated", truncated),
        ("unknown_field", unknown),
        ("bad_utf8", bad_name),
    ]
}

#[test]
fn json_error_format_gives_one_object_per_diagnostic() {
    let out = run_stdin(
        &["parse", "--error-format", "json", "-"],
        b"g (float x) -> (float y) {}\n{",
    );
    assert_eq!(out.code, 1);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert!(!lines.is_empty(), "{out:?}");
    for line in lines {
        assert!(
            line.starts_with('{') && line.ends_with('}'),
            "not one JSON object: {line}"
        );
        assert!(
            line.contains("\"level\":\"error\"") && line.contains("\"line\":"),
            "{line}"
        );
    }
}

#[test]
fn corrupt_binary_exits_1_with_offset_and_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut all = String::new();
    for (name, bytes) in corrupt_models() {
        let file = format!("{name}.onnx");
        write(dir.path(), &file, &bytes);
        let out = run_in(dir.path(), &["print", &file]);
        assert_eq!(out.code, 1, "{name}: {out:?}");
        assert!(out.stdout.is_empty(), "{name}");
        assert!(
            out.stderr.starts_with("error[onnxtxt::decode::")
                && out.stderr.contains(&format!("]: {file}: byte ")),
            "{name}: {out:?}"
        );
        assert_no_ansi(&out.stderr);
        all.push_str(&out.stderr);
    }
    snapshot("cli_print_corrupt", &all);

    let out = run_stdin(&["print"], &[0x3a, 0x10, 0x0a]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "error[onnxtxt::decode::truncated]: <stdin>: byte 1: graph: length 16 runs past the end of the input (1 byte left)\n  \
         help: the input ends early: the file may be truncated (an interrupted download or copy?)\n"
    );
}

/// A binary model whose main graph's node 5,000 of 6,000 has an input name
/// that is not UTF-8: found as the node is printed, after text of the
/// nodes before it went to the writer.
#[test]
fn a_bad_string_in_a_node_fails_the_print_where_it_is_and_writes_no_file() {
    let nodes: Vec<String> = (0..6000)
        .map(|i| match i {
            5000 => format!("y{i} = Relu(ZqZ)"),
            _ => format!("y{i} = Relu(x)"),
        })
        .collect();
    let text = format!(
        "<ir_version: 10, opset_import: [\"\": 21]>\n\
         g (float x, float ZqZ) => (float y5999) {{\n{}\n}}\n",
        nodes.join("\n")
    );
    let mut bytes = onnxtxt::parse_model(&text).unwrap().encode_to_vec();
    // The node's input, not the graph's (which comes after the nodes).
    let at = bytes.windows(3).position(|w| w == b"ZqZ").unwrap() + 1;
    bytes[at] = 0xff;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.onnx", &bytes);
    let precious = b"precious contents\n";
    let target = write(dir.path(), "out.txt", precious);
    let before = listing(dir.path());
    let out = run_in(dir.path(), &["print", "bad.onnx", "-o", "out.txt"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.starts_with(&format!(
            "error[onnxtxt::decode::utf8]: bad.onnx: byte {at}: graph.node[5000].input[0]: "
        )),
        "{out:?}"
    );
    assert_eq!(std::fs::read(&target).unwrap(), precious);
    assert_eq!(listing(dir.path()), before);
}

// ---------------------------------------------------------------------------
// Atomic output.

#[test]
fn failed_runs_leave_existing_output_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let bad_text = write(dir.path(), "bad.onnxtxt", BAD_TEXT.as_bytes());
    let (_, corrupt) = corrupt_models().remove(0);
    let corrupt = write(dir.path(), "corrupt.onnx", &corrupt);
    let precious = b"precious contents\n";
    let target = write(dir.path(), "out", precious);
    let before = listing(dir.path());

    for args in [
        ["parse", arg(&bad_text), "-o", arg(&target)],
        ["print", arg(&corrupt), "-o", arg(&target)],
        ["print", arg(&bad_text), "-o", arg(&target)],
    ] {
        let out = run(&args);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert_eq!(std::fs::read(&target).unwrap(), precious, "{args:?}");
        assert_eq!(listing(dir.path()), before, "{args:?}");
    }
    // A missing input, too.
    let out = run(&["print", "missing.onnx", "-o", arg(&target)]);
    assert_eq!(out.code, 2);
    assert_eq!(std::fs::read(&target).unwrap(), precious);
    assert_eq!(listing(dir.path()), before);

    // A successful run replaces it and leaves nothing else behind.
    let out = run(&["parse", MLP_PATH, "-o", arg(&target)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(std::fs::read(&target).unwrap(), mlp_binary());
    assert_eq!(listing(dir.path()), before);
}

#[cfg(unix)]
#[test]
fn output_permissions() {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o7777;
    let dir = tempfile::tempdir().unwrap();

    // A new file gets what any new file in the directory gets (the umask
    // applies), not the temporary file's private 0600.
    let reference = write(dir.path(), "reference", b"");
    let new = dir.path().join("new.onnx");
    let out = run(&["parse", MLP_PATH, "-o", arg(&new)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(mode(&new), mode(&reference));

    // A replaced file keeps its permissions.
    for wanted in [0o600, 0o640, 0o755] {
        let existing = write(dir.path(), "existing.txt", b"old");
        std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(wanted)).unwrap();
        let out = run(&["print", MLP_PATH, "-o", arg(&existing)]);
        assert_eq!(out.code, 0, "{out:?}");
        assert_eq!(mode(&existing), wanted);
        assert_eq!(std::fs::read_to_string(&existing).unwrap(), mlp_canonical());
    }
    assert_eq!(
        listing(dir.path()),
        ["existing.txt", "new.onnx", "reference"]
    );
}

/// Writing to a symbolic link replaces the file it points to, atomically,
/// and keeps the link.
#[cfg(unix)]
#[test]
fn output_through_a_symbolic_link_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    let target = write(&models, "mlp.onnx", b"old");
    let link = dir.path().join("link.onnx");
    std::os::unix::fs::symlink(&target, &link).unwrap();

    let out = run(&["parse", MLP_PATH, "-o", arg(&link)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), mlp_binary());
    assert_eq!(listing(&models), ["mlp.onnx"]);
    assert_eq!(listing(dir.path()), ["link.onnx", "models"]);
}

// ---------------------------------------------------------------------------
// `--compat`.

#[test]
fn compat_lists_what_it_drops_on_stderr() {
    let text = "<ir_version: 10, opset_import: [\"\": 21]>\n\
                g (float[N] x) => (float[N] y) {\n  @<doc_string: \"first layer\">\n  y = Relu(x)\n}\n";
    let full = run_stdin(&["print"], text.as_bytes());
    assert_eq!(full.code, 0, "{full:?}");
    assert!(full.text().contains("@<doc_string: \"first layer\">"));
    assert_eq!(full.stderr, "");

    let compat = run_stdin(&["print", "--compat"], text.as_bytes());
    assert_eq!(compat.code, 0, "{compat:?}");
    assert!(!compat.text().contains("doc_string"));
    assert!(compat.stderr.starts_with("warning: dropped "), "{compat:?}");
    assert!(compat.stderr.contains("graph.node[0]"), "{compat:?}");
    assert!(compat.stderr.contains("doc_string"), "{compat:?}");
    assert_eq!(compat.stderr.lines().count(), 1, "{compat:?}");

    // Nothing to drop: nothing on stderr.
    let out = run(&["print", "--compat", MLP_PATH]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stderr, "");
    assert_eq!(out.text(), mlp_canonical());
}

// ---------------------------------------------------------------------------
// Limits.

/// A model with graphs nested `levels` deep through `If`-like attributes:
/// the innermost graph is message depth `1 + 3 * levels` below the model.
pub(crate) fn nested_graphs(levels: usize) -> onnxtxt::proto::ModelProto {
    use onnxtxt::proto::{attribute_proto::AttributeType, *};
    let mut graph = GraphProto {
        name: Some("inner".into()),
        ..Default::default()
    };
    for _ in 0..levels {
        graph = GraphProto {
            name: Some("outer".into()),
            node: vec![NodeProto {
                op_type: Some("If".into()),
                attribute: vec![AttributeProto {
                    name: Some("then_branch".into()),
                    r#type: Some(AttributeType::Graph as i32),
                    g: Some(Box::new(graph)),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
    }
    ModelProto {
        ir_version: Some(10),
        graph: Some(graph),
        ..Default::default()
    }
}

/// Prints the binary `model`, parses the text back and checks the bytes
/// are the same.
fn print_parse_round_trip(model: &[u8]) {
    let text = run_stdin(&["print"], model);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let binary = run_stdin(&["parse"], &text.stdout);
    assert_eq!(binary.code, 0, "{}", binary.stderr);
    assert_eq!(binary.stdout, model);
}

#[test]
fn nested_graphs_print_and_parse_back() {
    print_parse_round_trip(&nested_graphs(6).encode_to_vec());
}

#[test]
fn the_deepest_decodable_model_prints_and_parses_back() {
    // The innermost graph is at message depth 1 + 3 * 33 = 100.
    print_parse_round_trip(&nested_graphs(33).encode_to_vec());
}

#[test]
fn models_nested_too_deep_are_refused() {
    let too_deep = nested_graphs(34).encode_to_vec();
    let out = run_stdin(&["print"], &too_deep);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("messages are nested more than 100 deep"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains(": graph.node[0].attribute[0].g.node[0]."),
        "{out:?}"
    );
}

// ---------------------------------------------------------------------------
// Big files: input read through a memory map, binary output encoded
// straight into the file.

/// A model whose text and binary are both several times the size from
/// which the command maps its input (64 KiB) and several times the buffer
/// the binary is encoded through (256 KiB): many nodes, and a tensor whose
/// `raw_data` is longer than that buffer.
fn big_model() -> onnxtxt::proto::ModelProto {
    let mut text = String::from(
        "<ir_version: 10, opset_import: [\"\": 21]> g (float[N] x) => (float[N] y) {\n  y0 = Relu(x)\n",
    );
    for i in 1..20_000 {
        text.push_str(&format!("  y{i} = Relu(y{})\n", i - 1));
    }
    text.push_str("  y = Identity(y19999)\n}\n");
    let mut model = onnxtxt::parse_model(&text).unwrap();
    let weights: Vec<u8> = (0..300_000u32)
        .flat_map(|i| (i as f32).to_le_bytes())
        .collect();
    model
        .graph
        .as_mut()
        .unwrap()
        .initializer
        .push(onnxtxt::proto::TensorProto {
            dims: vec![300_000],
            data_type: Some(1),
            name: Some("w".into()),
            raw_data: Some(weights),
            ..Default::default()
        });
    model
}

/// What `onnxtxt ARGS -o FILE` writes to a new FILE in `dir`.
fn output_of(args: &[&str], dir: &Path) -> Vec<u8> {
    let file = dir.join("output");
    let out = run(&[args, &["-o", arg(&file)]].concat());
    assert_eq!(out.code, 0, "{args:?}: {out:?}");
    let written = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    written
}

#[test]
fn big_files_parse_and_print_to_the_same_bytes_as_the_library() {
    let model = big_model();
    let binary = model.encode_to_vec();
    let text = onnxtxt::to_text(&model);
    assert!(binary.len() > 1_000_000 && text.len() > 1_000_000);
    let dir = tempfile::tempdir().unwrap();
    let text_in = write(dir.path(), "big.onnxtxt", text.as_bytes());
    let binary_in = write(dir.path(), "big.onnx", &binary);

    assert!(output_of(&["parse", arg(&text_in)], dir.path()) == binary);
    let out = run(&["parse", arg(&text_in)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout == binary, "standard output");
    assert!(output_of(&["print", arg(&binary_in)], dir.path()) == text.as_bytes());
    // The text given to `print` (a text model) and `check`, mapped too.
    let out = run(&["print", arg(&text_in)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout == text.as_bytes());
    let out = run(&["check", arg(&text_in)]);
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn a_big_file_can_be_replaced_by_its_own_output() {
    // The input is mapped while the output is written: over the same file,
    // the output must go to a new file renamed over it, never into the
    // mapped one (truncating a mapped file ends the reader with SIGBUS).
    let model = big_model();
    let binary = model.encode_to_vec();
    let text = onnxtxt::to_text(&model);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "model", text.as_bytes());
    let out = run(&["parse", arg(&path), "-o", arg(&path)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(std::fs::read(&path).unwrap() == binary);
    let out = run(&["print", arg(&path), "-o", arg(&path)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(std::fs::read_to_string(&path).unwrap() == text);
    assert_eq!(listing(dir.path()), ["model"]);
    // `fmt` rewrites a file in place the same way.
    let messy = text.replace("\n  ", "\n      ");
    std::fs::write(&path, &messy).unwrap();
    let out = run(&["fmt", arg(&path)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(std::fs::read_to_string(&path).unwrap() == text);
}

#[test]
fn big_inputs_that_are_not_text_say_what_they_are() {
    let binary = big_model().encode_to_vec();
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "big.onnxtxt", &binary);
    let out = run(&["parse", arg(&path)]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("is a binary ONNX model, not text"),
        "{out:?}"
    );

    let mut text = onnxtxt::to_text(&big_model()).into_bytes();
    let at = text.len() - 100;
    text[at] = 0xff;
    let path = write(dir.path(), "bad.onnxtxt", &text);
    let out = run(&["parse", arg(&path)]);
    assert_eq!(out.code, 1, "{out:?}");
    // The offset with a comma every three digits.
    let digits = at.to_string();
    let groups: Vec<&str> = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|group| std::str::from_utf8(group).unwrap())
        .collect();
    let expected = format!("the text is not UTF-8 at byte {}", groups.join(","));
    assert!(out.stderr.contains(&expected), "{out:?}");
}

#[cfg(unix)]
#[test]
fn inputs_that_cannot_be_mapped_are_read() {
    // A pipe named as a file (not a regular file: read, not mapped), and
    // an empty file.
    let binary = big_model().encode_to_vec();
    let out = run_stdin(&["print", "/dev/stdin"], &binary);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout == onnxtxt::to_text(&big_model()).as_bytes());
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.onnx", b"");
    let out = run(&["print", arg(&empty)]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("the input is empty"), "{out:?}");
}

// ---------------------------------------------------------------------------
// smith.

/// `smith` makes valid models by default (check finds no error in them,
/// binary or text), keeps the flags' limits, and the IR-random ones behind
/// `--ir-random` (which check does reject for some seeds).
#[test]
fn smith_is_valid_by_default_and_ir_random_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let mut ir_random_rejected = 0;
    for seed in 0..20 {
        let seed = seed.to_string();
        let model = dir.path().join(format!("m{seed}.onnx"));
        let out = run(&["smith", "--seed", &seed, "--binary", "-o", arg(&model)]);
        assert_eq!(out.code, 0, "{out:?}");
        let check = run(&["check", arg(&model)]);
        assert_eq!(check.code, 0, "seed {seed}: {check:?}");
        let text = run(&[
            "smith", "--seed", &seed, "--allow", "Relu,Add", "--types", "float",
        ]);
        assert_eq!(text.code, 0, "{text:?}");
        // Node lines: their outputs are named v1, v2, ...
        let nodes = text.text().lines().map(str::trim_start);
        for line in nodes.filter(|l| l.starts_with('v') && l.contains(" = ")) {
            assert!(
                line.contains("Relu") || line.contains("Add"),
                "seed {seed}: {line}"
            );
        }
        let random = dir.path().join(format!("r{seed}.onnxtxt"));
        run(&["smith", "--seed", &seed, "--ir-random", "-o", arg(&random)]);
        ir_random_rejected += usize::from(run(&["check", arg(&random)]).code != 0);
    }
    assert!(ir_random_rejected > 0);
    let bad = run(&["smith", "--types", "float128"]);
    assert_eq!(bad.code, 2, "{bad:?}");
}
