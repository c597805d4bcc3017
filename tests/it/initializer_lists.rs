//! A graph's long list of small initializers (the shape of an exporter's
//! model with many biases and scales), which is read in pieces on two
//! threads: the same bytes as on one thread, written on one line as the
//! reference printer writes it and one entry a line as onnxtxt does, typed
//! and raw; and the initializers `onnx.parser` makes of it.

use onnxtxt::proto::ModelProto;
use onnxtxt::Parser;
use prost::Message as _;

use crate::support::{arg, reference_python, run, write};

/// How many initializers: about 600 KiB of text, past the size from which
/// a text is read in pieces (256 KiB), in pieces of 64 KiB.
const COUNT: usize = 6_000;

/// The element types of the initializers, in turn.
const ELEMENTS: [&str; 7] = [
    "float", "int64", "int32", "double", "uint8", "int8", "float16",
];

/// The `i`th value of an initializer of `element`.
fn value(element: &str, i: usize) -> String {
    let i = i as i64;
    match element {
        "float" | "double" => format!("{}", (i * 37 % 201 - 100) as f64 / 64.0),
        "uint8" => format!("{}", i * 37 % 256),
        "int8" => format!("{}", i * 37 % 256 - 128),
        "float16" => format!("{}", 15360 + i % 7),
        _ => format!("{}", i * 7919 - 3_000_000),
    }
}

/// A model whose graph has [`COUNT`] initializers of 1 to 64 values each
/// (`raw`: every third stored raw, an onnxtxt extension), a value info
/// every 50 entries, written with `separator` between entries, and nodes
/// that read two thirds of them.
fn model_text(separator: &str, raw: bool) -> String {
    let mut entries = Vec::new();
    let mut nodes = Vec::new();
    for k in 0..COUNT {
        let element = ELEMENTS[k % ELEMENTS.len()];
        let count = 1 + k * 13 % 64;
        let values: Vec<String> = (0..count).map(|i| value(element, k + i)).collect();
        let annotation = if raw && k % 3 == 0 {
            "@<raw: true> "
        } else {
            ""
        };
        entries.push(format!(
            "{annotation}{element}[{count}] \"/blocks.{k}.w\" = {{{}}}",
            values.join(", ")
        ));
        if k % 50 == 0 {
            entries.push(format!("float[N] \"/blocks.{k}.info\""));
        }
        if k % 3 != 2 {
            nodes.push(format!("  \"/n{k}\" = Identity (\"/blocks.{k}.w\")\n"));
        }
    }
    format!(
        "<ir_version: 10, opset_import: [\"\": 21]>\n\
         g (float[N] x) => (float[N] y) <{}> {{\n{}  y = Identity (x)\n}}\n",
        entries.join(separator),
        nodes.concat()
    )
}

#[test]
fn initializer_lists_read_in_pieces_as_on_one_thread() {
    for separator in [", ", ",\n  "] {
        for raw in [false, true] {
            let text = model_text(separator, raw);
            assert!(text.len() > 512 << 10, "{} bytes", text.len());
            let parse = |threads| {
                let model: ModelProto = Parser::new().threads(threads).parse(&text).unwrap();
                model.encode_to_vec()
            };
            let one = parse(false);
            assert!(parse(true) == one, "two threads, {separator:?}, raw {raw}");
            let mut written = Vec::new();
            Parser::new()
                .write_model(&text, &mut written)
                .unwrap()
                .unwrap();
            assert!(written == one, "written, {separator:?}, raw {raw}");
            let model = ModelProto::decode(one.as_slice()).unwrap();
            let graph = model.graph.unwrap();
            assert_eq!(graph.initializer.len(), COUNT);
            assert_eq!(graph.value_info.len(), COUNT / 50);
            let stored_raw = graph
                .initializer
                .iter()
                .filter(|t| t.raw_data.is_some())
                .count();
            assert_eq!(stored_raw, if raw { COUNT / 3 } else { 0 });
        }
    }
}

#[test]
fn initializer_lists_parse_as_the_reference_parses_them() {
    let dir = tempfile::tempdir().unwrap();
    let text = model_text(", ", false);
    let file = write(dir.path(), "initializers.onnxtxt", text.as_bytes());
    let ours = dir.path().join("ours.onnx");
    let out = run(&["parse", arg(&file), "-o", arg(&ours)]);
    assert_eq!(out.code, 0, "{out:?}");
    let Some(python) = reference_python() else {
        return;
    };
    // Entry by entry: the reference also sets a node's empty `domain`,
    // which onnxtxt leaves unset, so only the lists are compared whole.
    let script = "import sys, onnx, onnx.parser\n\
        ref = onnx.parser.parse_model(open(sys.argv[1]).read()).graph\n\
        ours = onnx.load_model(sys.argv[2]).graph\n\
        for field in ('initializer', 'value_info', 'input', 'output'):\n\
        \x20   a, b = getattr(ref, field), getattr(ours, field)\n\
        \x20   assert len(a) == len(b), (field, len(a), len(b))\n\
        \x20   for x, y in zip(a, b):\n\
        \x20       assert x.SerializeToString() == y.SerializeToString(), (x, y)\n\
        assert len(ref.initializer) == int(sys.argv[3]), len(ref.initializer)\n\
        assert [n.input for n in ref.node] == [n.input for n in ours.node]\n";
    let status = std::process::Command::new(python)
        .args(["-c", script, arg(&file), arg(&ours), &COUNT.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "onnx.parser reads other initializers");
}
