//! Tests of external tensor data: `onnxtxt::external` and the commands
//! `print --external-data` and `parse --inline-external` (byte-identical
//! round trips, the threshold, what stays inline, where the location points,
//! and the errors for changed, missing or out-of-place data files).

use std::path::Path;

use crate::support::run_in;
use onnxtxt::external::{externalize, inline, InlineProblem, ALIGNMENT, DEFAULT_THRESHOLD};
use onnxtxt::proto::{ModelProto, StringStringEntryProto, TensorProto};
use prost::Message as _;

/// `n` float values, all different, written as a `{...}` list.
fn values(n: usize, seed: usize) -> String {
    let items: Vec<String> = (0..n).map(|i| format!("{}.25", i * 7 + seed)).collect();
    format!("{{{}}}", items.join(", "))
}

/// A model with big raw initializers (one of 3000 floats, one of 400), a
/// small raw one, a big one in `float_data`, a big `Constant`, a big
/// constant in a subgraph, a sparse constant whose values are big, and a
/// function with a big constant.
fn model() -> ModelProto {
    let text = format!(
        r#"
        <ir_version: 10, opset_import: ["": 21, "local": 1]>
        main (float[N] x, bool c) => (float[N] y)
          <@<raw: true> float[3000] w1 = {w1}, @<raw: true> float[400] w2 = {w2},
           @<raw: true> int64[1] small = {{3}}, float[400] typed = {typed}>
        {{
          k = Constant <value: tensor = @<raw: true> float[500] {k}> ()
          s = Constant <sparse_value: sparse_tensor = sparse_tensor[1000]
                {{values: @<raw: true> float[300] {s}, indices: int64[3] {{1, 2, 3}}}}> ()
          y = If (c) <
            then_branch: graph = then () => (float[N] t) {{
              t = Constant <value: tensor = @<raw: true> float[600] {sub}> ()
            }},
            else_branch: graph = else () => (float[N] e) {{ e = Identity (x) }}
          >
        }}
        <domain: "local", opset_import: ["": 21]>
        f (a) => (b) {{ b = Constant <value: tensor = @<raw: true> double[200] {f}> () }}
        "#,
        w1 = values(3000, 1),
        w2 = values(400, 2),
        typed = values(400, 3),
        k = values(500, 4),
        s = values(300, 5),
        sub = values(600, 6),
        f = values(200, 7),
    );
    onnxtxt::parse_model(&text).expect("the test model parses")
}

/// The tensors the default threshold moves out of [`model`].
const MOVED: usize = 6;

/// A fresh directory holding `model.onnx`, the binary of [`model`].
fn workspace() -> (tempfile::TempDir, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let binary = model().encode_to_vec();
    std::fs::write(dir.path().join("model.onnx"), &binary).unwrap();
    (dir, binary)
}

fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn binary_to_text_and_back_is_byte_identical() {
    let (dir, binary) = workspace();
    let printed = run_in(
        dir.path(),
        &[
            "print",
            "model.onnx",
            "--external-data",
            "weights.bin",
            "-o",
            "model.onnxtxt",
        ],
    );
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    let text = read_text(&dir.path().join("model.onnxtxt"));
    assert_eq!(text.matches(r#""location": "weights.bin""#).count(), MOVED);
    assert_eq!(text.matches(r#""checksum": ""#).count(), MOVED);
    assert!(
        text.len() < 8000,
        "the big values stayed in the text:\n{text}"
    );
    assert!(dir.path().join("weights.bin").exists());

    let parsed = run_in(
        dir.path(),
        &[
            "parse",
            "model.onnxtxt",
            "--inline-external",
            "-o",
            "back.onnx",
        ],
    );
    assert_eq!(parsed.code, 0, "{}", parsed.stderr);
    assert!(std::fs::read(dir.path().join("back.onnx")).unwrap() == binary);
}

#[test]
fn without_inline_external_the_markers_stay() {
    let (dir, binary) = workspace();
    let args = ["print", "model.onnx", "--external-data", "w.bin"];
    let printed = run_in(dir.path(), &args);
    std::fs::write(dir.path().join("m.onnxtxt"), &printed.stdout).unwrap();
    let parsed = run_in(dir.path(), &["parse", "m.onnxtxt", "-o", "m2.onnx"]);
    assert_eq!(parsed.code, 0, "{}", parsed.stderr);
    let external = onnxtxt::decode_model(&std::fs::read(dir.path().join("m2.onnx")).unwrap())
        .unwrap()
        .graph
        .unwrap()
        .initializer[0]
        .clone();
    assert_eq!(external.data_location, Some(1));
    assert!(external.raw_data.is_none());
    assert_ne!(std::fs::read(dir.path().join("m2.onnx")).unwrap(), binary);
}

#[test]
fn the_threshold_decides_what_moves() {
    let (dir, _) = workspace();
    // Only w1 (12000 bytes) is longer than 10000 bytes.
    let args = [
        "print",
        "model.onnx",
        "--external-data",
        "w.bin",
        "--threshold",
        "10000",
    ];
    let text = run_in(dir.path(), &args).text().to_owned();
    assert_eq!(text.matches(r#""location": "w.bin""#).count(), 1);
    assert!(text.contains(r#"float[3000] w1 = ["location": "w.bin""#));
    assert_eq!(
        std::fs::read(dir.path().join("w.bin")).unwrap().len(),
        12000
    );

    let mut exact = model();
    let threshold = exact.graph.as_ref().unwrap().initializer[1]
        .raw_data
        .as_ref()
        .unwrap()
        .len();
    assert_eq!(threshold, 1600);
    externalize(&mut exact, "w.bin", threshold);
    let w2 = &exact.graph.as_ref().unwrap().initializer[1];
    assert!(w2.raw_data.is_some(), "data of exactly the threshold moved");
    let mut below = model();
    externalize(&mut below, "w.bin", threshold - 1);
    let w2 = &below.graph.as_ref().unwrap().initializer[1];
    assert_eq!(w2.raw_data, None);
}

#[test]
fn the_default_threshold_is_one_kibibyte() {
    assert_eq!(DEFAULT_THRESHOLD, 1024);
    let (dir, _) = workspace();
    let text = run_in(
        dir.path(),
        &["print", "model.onnx", "--external-data", "w.bin"],
    )
    .text()
    .to_owned();
    assert_eq!(text.matches(r#""location": "w.bin""#).count(), MOVED);
}

#[test]
fn when_nothing_moves_stderr_says_why() {
    let (dir, _) = workspace();
    let args = ["print", "model.onnx", "--external-data", "w.bin"];
    let moved = run_in(dir.path(), &args);
    assert_eq!((moved.code, moved.stderr.as_str()), (0, ""));
    let args = [&args[..], &["--threshold", "100000000"]].concat();
    let none = run_in(dir.path(), &args);
    assert_eq!(none.code, 0);
    assert_eq!(
        none.stderr,
        "note: no tensor moved to w.bin: only data in raw_data longer than 100000000 bytes moves\n"
    );
    assert!(!none.text().contains("location"));
}

/// Every tensor of a model, with its entries, in a fixed order.
fn entries(tensor: &TensorProto) -> Vec<(String, String)> {
    tensor
        .external_data
        .iter()
        .map(|e| (e.key.clone().unwrap(), e.value.clone().unwrap()))
        .collect()
}

#[test]
fn entries_name_offset_length_and_the_sha1_of_the_bytes() {
    let mut model = model();
    let original = model.graph.as_ref().unwrap().initializer[0].clone();
    let data = original.raw_data.clone().unwrap();
    let blob = externalize(&mut model, "d/w.bin", 1024);
    let graph = model.graph.as_ref().unwrap();
    let w1 = entries(&graph.initializer[0]);
    let keys: Vec<&str> = w1.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["location", "offset", "length", "checksum"]);
    assert_eq!(w1[0].1, "d/w.bin");
    assert_eq!((w1[1].1.as_str(), w1[2].1.as_str()), ("0", "12000"));
    // `sha1sum` of the 12000 bytes.
    let mut sha1sum = std::process::Command::new("sha1sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut sha1sum.stdin.take().unwrap(), &data).unwrap();
    let digest = String::from_utf8(sha1sum.wait_with_output().unwrap().stdout).unwrap();
    assert_eq!(w1[3].1, digest[..40]);
    assert_eq!(blob[..12000], data[..]);
    // w2 (1600 bytes, below the alignment) follows directly.
    let w2 = entries(&graph.initializer[1]);
    assert_eq!(w2[1].1, "12000");
}

#[test]
fn big_tensors_start_at_aligned_offsets() {
    let mut model = model();
    // 2000 bytes first, then w2 (1600 bytes) right after them, then w1
    // (12000 bytes) at the next multiple of 4096.
    let small = &mut model.graph.as_mut().unwrap().initializer[2];
    small.raw_data = Some(vec![7; 2000]);
    let graph = model.graph.as_mut().unwrap();
    graph.initializer.swap(0, 2);
    let blob = externalize(&mut model, "w.bin", 1024);
    let graph = model.graph.as_ref().unwrap();
    let offset = |i: usize| entries(&graph.initializer[i])[1].1.clone();
    assert_eq!((offset(0).as_str(), offset(1).as_str()), ("0", "2000"));
    assert_eq!(offset(2), ALIGNMENT.to_string());
    assert!(blob[3600..ALIGNMENT].iter().all(|&b| b == 0));
}

#[test]
fn tensors_that_cannot_be_restored_exactly_stay_inline() {
    let mut model = model();
    let graph = model.graph.as_mut().unwrap();
    let big = vec![1u8; 4000];
    // An explicit DEFAULT location, and data already external.
    graph.initializer[0].data_location = Some(0);
    graph.initializer[1].external_data = vec![StringStringEntryProto {
        key: Some("location".into()),
        value: Some("elsewhere.bin".into()),
    }];
    graph.initializer[1].raw_data = Some(big);
    let before = model.clone();
    externalize(&mut model, "w.bin", 1024);
    let (old, new) = (before.graph.unwrap(), model.graph.as_ref().unwrap().clone());
    assert_eq!(new.initializer[0], old.initializer[0]);
    assert_eq!(new.initializer[1], old.initializer[1]);
    // Small data, and typed data (not raw_data).
    assert_eq!(new.initializer[2], old.initializer[2]);
    assert_eq!(new.initializer[3], old.initializer[3]);
    assert!(!new.initializer[3].float_data.is_empty());
    // And the rest moved.
    assert_eq!(
        new.node[0].attribute[0].t.as_ref().unwrap().data_location,
        Some(1)
    );
}

#[test]
fn every_kind_of_place_is_covered_and_restored() {
    let original = model();
    let mut model = original.clone();
    let blob = externalize(&mut model, "w.bin", 1024);
    let graph = model.graph.as_ref().unwrap();
    let sparse = graph.node[1].attribute[0].sparse_tensor.as_ref().unwrap();
    let subgraph = graph.node[2].attribute[0].g.as_ref().unwrap();
    let function = model.functions[0].node[0].attribute[0].t.as_ref().unwrap();
    for tensor in [
        sparse.values.as_ref().unwrap(),
        subgraph.node[0].attribute[0].t.as_ref().unwrap(),
        function,
    ] {
        assert_eq!(tensor.data_location, Some(1));
    }
    let mut loads = 0;
    let restored = inline(&mut model, |location| {
        assert_eq!(location, "w.bin");
        loads += 1;
        Ok(blob.clone())
    })
    .unwrap();
    assert_eq!((restored, loads), (MOVED, 1));
    assert_eq!(model, original);
}

#[test]
fn unsafe_locations_and_unknown_keys_are_refused() {
    for (key, value, message) in [
        ("location", "../w.bin", "must be a relative path"),
        ("location", "/etc/passwd", "must be a relative path"),
        ("basepath", "x", "unknown external_data key \"basepath\""),
        ("offset", "-1", "`offset` is not a byte count"),
    ] {
        let mut model = model();
        externalize(&mut model, "w.bin", 1024);
        let w1 = &mut model.graph.as_mut().unwrap().initializer[0];
        match w1
            .external_data
            .iter_mut()
            .find(|e| e.key.as_deref() == Some(key))
        {
            Some(entry) => entry.value = Some(value.into()),
            None => w1.external_data.push(StringStringEntryProto {
                key: Some(key.into()),
                value: Some(value.into()),
            }),
        }
        let error = inline(&mut model, |_| panic!("nothing is read")).unwrap_err();
        assert!(matches!(error.problem, InlineProblem::Entry(_)));
        assert!(error.to_string().contains(message), "{error}");
        assert!(error
            .to_string()
            .starts_with(r#"graph.initializer[0] "w1": "#));
    }
}

#[test]
fn a_changed_data_file_is_a_checksum_error_naming_the_tensor_and_file() {
    let (dir, _) = workspace();
    let args = [
        "print",
        "model.onnx",
        "--external-data",
        "w.bin",
        "-o",
        "m.onnxtxt",
    ];
    assert_eq!(run_in(dir.path(), &args).code, 0);
    let path = dir.path().join("w.bin");
    let mut data = std::fs::read(&path).unwrap();
    data[12000 + 5] ^= 1;
    std::fs::write(&path, &data).unwrap();
    let parsed = run_in(
        dir.path(),
        &["parse", "m.onnxtxt", "--inline-external", "-o", "b.onnx"],
    );
    assert_eq!(parsed.code, 1);
    assert!(
        parsed
            .stderr
            .contains(r#"graph.initializer[1] "w2": external data "w.bin": checksum mismatch"#),
        "{}",
        parsed.stderr
    );
    // Shown at the tensor's line.
    assert!(parsed.stderr.contains("m.onnxtxt:7:3"), "{}", parsed.stderr);
    assert!(!dir.path().join("b.onnx").exists());
}

#[test]
fn a_short_data_file_is_a_length_error() {
    let (dir, _) = workspace();
    let args = [
        "print",
        "model.onnx",
        "--external-data",
        "w.bin",
        "-o",
        "m.onnxtxt",
    ];
    assert_eq!(run_in(dir.path(), &args).code, 0);
    let path = dir.path().join("w.bin");
    let data = std::fs::read(&path).unwrap();
    std::fs::write(&path, &data[..data.len() - 1]).unwrap();
    let parsed = run_in(dir.path(), &["parse", "m.onnxtxt", "--inline-external"]);
    assert_eq!(parsed.code, 1);
    assert!(
        parsed.stderr.contains("run past the end of the file"),
        "{}",
        parsed.stderr
    );
    // The last tensor in the file: the function's constant.
    let last = r#"functions[0].node[0].attribute["value"].t: external data "w.bin": 1600 bytes"#;
    assert!(parsed.stderr.contains(last), "{}", parsed.stderr);
}

#[test]
fn a_missing_data_file_is_an_io_error_naming_the_tensor_and_path() {
    let (dir, _) = workspace();
    let args = [
        "print",
        "model.onnx",
        "--external-data",
        "w.bin",
        "-o",
        "m.onnxtxt",
    ];
    assert_eq!(run_in(dir.path(), &args).code, 0);
    std::fs::remove_file(dir.path().join("w.bin")).unwrap();
    let parsed = run_in(dir.path(), &["parse", "m.onnxtxt", "--inline-external"]);
    assert_eq!(parsed.code, 2);
    assert!(
        parsed.stderr.contains(
            r#"graph.initializer[0] "w1": external data "w.bin": cannot read it: ./w.bin"#
        ),
        "{}",
        parsed.stderr
    );
}

#[test]
fn the_location_is_relative_to_the_text_and_read_relative_to_it() {
    let (dir, binary) = workspace();
    std::fs::create_dir_all(dir.path().join("out/data")).unwrap();
    let args = [
        "print",
        "model.onnx",
        "--external-data",
        "out/data/w.bin",
        "-o",
        "out/m.onnxtxt",
    ];
    let printed = run_in(dir.path(), &args);
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    let text = read_text(&dir.path().join("out/m.onnxtxt"));
    assert!(text.contains(r#""location": "data/w.bin""#), "{text}");
    // Parsed from elsewhere: the data is found beside the text.
    let parsed = run_in(
        dir.path(),
        &[
            "parse",
            "out/m.onnxtxt",
            "--inline-external",
            "-o",
            "b.onnx",
        ],
    );
    assert_eq!(parsed.code, 0, "{}", parsed.stderr);
    assert!(std::fs::read(dir.path().join("b.onnx")).unwrap() == binary);
}

#[test]
fn printed_to_stdout_the_location_is_relative_to_the_current_directory() {
    let (dir, binary) = workspace();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let printed = run_in(
        dir.path(),
        &["print", "model.onnx", "--external-data", "data/w.bin"],
    );
    assert!(printed.text().contains(r#""location": "data/w.bin""#));
    // Text from standard input, or elsewhere: --external-dir says where.
    std::fs::create_dir(dir.path().join("text")).unwrap();
    std::fs::write(dir.path().join("text/m.onnxtxt"), &printed.stdout).unwrap();
    let parsed = run_in(
        dir.path(),
        &[
            "parse",
            "text/m.onnxtxt",
            "--inline-external",
            "--external-dir",
            ".",
            "-o",
            "b.onnx",
        ],
    );
    assert_eq!(parsed.code, 0, "{}", parsed.stderr);
    assert!(std::fs::read(dir.path().join("b.onnx")).unwrap() == binary);
}

#[test]
fn a_data_file_outside_the_text_directory_is_refused() {
    let (dir, _) = workspace();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let args = [
        "print",
        "model.onnx",
        "--external-data",
        "w.bin",
        "-o",
        "out/m.onnxtxt",
    ];
    let printed = run_in(dir.path(), &args);
    assert_eq!(printed.code, 2);
    assert!(
        printed
            .stderr
            .contains("must be in the directory of the text"),
        "{}",
        printed.stderr
    );
    assert!(!dir.path().join("w.bin").exists());
    assert!(!dir.path().join("out/m.onnxtxt").exists());
    let same = [
        "print",
        "model.onnx",
        "--external-data",
        "m.txt",
        "-o",
        "m.txt",
    ];
    assert_eq!(run_in(dir.path(), &same).code, 2);
}

/// A symbolic link beside the text is followed only to a file in the
/// text's directory: `weights.bin -> ~/.ssh/id_rsa`, committed beside a
/// text, must not bring that file into the model.
#[cfg(unix)]
#[test]
fn a_link_to_a_file_outside_the_text_directory_is_refused() {
    let (dir, binary) = workspace();
    for sub in ["text", "text/data", "elsewhere"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    let args = [
        "print",
        "model.onnx",
        "--external-data",
        "text/w.bin",
        "-o",
        "text/m.onnxtxt",
    ];
    assert_eq!(run_in(dir.path(), &args).code, 0);
    let parse = [
        "parse",
        "text/m.onnxtxt",
        "--inline-external",
        "-o",
        "b.onnx",
    ];

    std::fs::rename(
        dir.path().join("text/w.bin"),
        dir.path().join("elsewhere/w.bin"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../elsewhere/w.bin", dir.path().join("text/w.bin")).unwrap();
    let refused = run_in(dir.path(), &parse);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains(r#"external data "w.bin": location "w.bin" resolves to "#)
            && refused.stderr.contains("elsewhere/w.bin, outside "),
        "{}",
        refused.stderr
    );
    assert!(!dir.path().join("b.onnx").exists());

    // A link that stays inside the directory is followed.
    std::fs::remove_file(dir.path().join("text/w.bin")).unwrap();
    std::fs::rename(
        dir.path().join("elsewhere/w.bin"),
        dir.path().join("text/data/w.bin"),
    )
    .unwrap();
    std::os::unix::fs::symlink("data/w.bin", dir.path().join("text/w.bin")).unwrap();
    let followed = run_in(dir.path(), &parse);
    assert_eq!(followed.code, 0, "{}", followed.stderr);
    assert!(std::fs::read(dir.path().join("b.onnx")).unwrap() == binary);
}

#[test]
fn threshold_and_external_dir_need_their_main_option() {
    let (dir, _) = workspace();
    assert_eq!(
        run_in(dir.path(), &["print", "model.onnx", "--threshold", "9"]).code,
        2
    );
    let args = ["parse", "model.onnx", "--external-dir", "."];
    assert_eq!(run_in(dir.path(), &args).code, 2);
}

#[test]
fn a_big_input_with_stderr_piped_shows_no_progress() {
    // Over the 50 MB where progress starts; stderr is a pipe here.
    let dir = tempfile::tempdir().unwrap();
    let mut model = model();
    model.graph.as_mut().unwrap().initializer[0].raw_data = Some(vec![0x3c; 50_000_004]);
    std::fs::write(dir.path().join("big.onnx"), model.encode_to_vec()).unwrap();
    let printed = run_in(
        dir.path(),
        &[
            "print",
            "big.onnx",
            "--external-data",
            "w.bin",
            "--threshold",
            "10000000",
        ],
    );
    assert_eq!((printed.code, printed.stderr.as_str()), (0, ""));
    assert!(printed.stdout.len() < 100_000);
}
