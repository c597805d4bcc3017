//! Number lists read the way the reference reads them: every element type
//! stored as numbers, every spelling of a number (plain decimals, long
//! ones, exponents, `inf`, `nan` in any case), items across the 16-byte
//! blocks the fast path reads and the point where a long list is split
//! between two threads, in initializers and in `Constant` nodes of nested
//! subgraphs. `onnxtxt parse` must give the bytes `onnx.parser` gives, and
//! its print of them must parse back to the same bytes.

use crate::support::{arg, reference_python, run, write};

/// Literals of each element type: edges of its range, `-0`, spellings the
/// plain fast path leaves to the general one.
fn literals(element: &str) -> Vec<String> {
    let floats = [
        "0",
        "-0",
        "1",
        "-1.5",
        "0.1",
        "12.",
        "0.0130350245",
        "-0.012345678901234",
        "0.1234567890123456",
        "16777217",
        "999999999999999",
        "1234567890123456",
        "1e5",
        "-2.5e-3",
        "1E22",
        "1.e-7",
        "inf",
        "-inf",
        "nan",
        "NaN",
        "Infinity",
        "-INFINITY",
        "-0.0",
        "3.4028235e38",
        "1e-45",
    ];
    let ints: &[&str] = match element {
        "int64" => &[
            "-9223372036854775808",
            "9223372036854775807",
            "-999999999999999",
        ],
        "uint64" => &[
            "18446744073709551615",
            "999999999999999",
            "1000000000000000",
        ],
        "uint32" => &["4294967295", "2147483648"],
        "int32" => &["-2147483648", "2147483647", "-2147483647"],
        "int16" => &["-32768", "32767"],
        "uint16" | "float16" | "bfloat16" => &["65535", "15360"],
        "int8" => &["-128", "127"],
        "uint8" => &["255", "128"],
        _ => &[],
    };
    match element {
        "float" | "double" => floats.iter().map(|s| s.to_string()).collect(),
        "bool" => vec!["0".into(), "1".into()],
        _ => {
            let small = ["0", "1", "7", "10", "100", "42"];
            let signed = !element.starts_with('u') && !element.contains("float");
            let mut all: Vec<String> = ints.iter().chain(&small).map(|s| s.to_string()).collect();
            if signed {
                all.extend(["-0", "-1", "-42"].map(String::from));
            }
            all
        }
    }
}

/// `count` items cycling through `literals`, separated by `,`, `, `,
/// ` , ` and a line break in turn: with the literals' lengths, items start
/// at every offset of the 16-byte blocks the fast path reads.
fn list(literals: &[String], count: usize) -> String {
    let separators = [",", ", ", " , ", ",\n  "];
    let mut text = String::new();
    for i in 0..count {
        if i > 0 {
            text.push_str(separators[i % separators.len()]);
        }
        text.push_str(&literals[i % literals.len()]);
    }
    text
}

/// A `Constant` node `name` of `count` values of `element`.
fn constant(name: &str, element: &str, count: usize) -> String {
    let values = list(&literals(element), count);
    format!("{name} = Constant <value = {element}[{count}] {{{values}}}> ()")
}

/// A model with a tensor of every element type in its initializers, a long
/// float and a long int64 list (past the two-thread threshold, 1 MiB of
/// text), and lists in `Constant` nodes of an `If` and of an `If` nested
/// in it, some long enough for the node list to be cut into pieces
/// between them, inside the `If`'s body.
fn model_text() -> String {
    let elements = [
        "float", "double", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
        "uint64", "bool", "float16", "bfloat16",
    ];
    let mut inits = Vec::new();
    for (k, element) in elements.iter().enumerate() {
        let items = literals(element);
        let count = items.len() * 3 + k;
        let values = list(&items, count);
        inits.push(format!("{element}[{count}] t_{element} = {{{values}}}"));
    }
    // Past 1 MiB of text: read in two halves, split at a comma.
    let long = 150_000;
    for element in ["float", "int64"] {
        let values = list(&literals(element), long);
        inits.push(format!("{element}[{long}] long_{element} = {{{values}}}"));
    }
    let n = literals("float").len() * 5 + 3;
    let inner = format!(
        "y1 = If (c) <then_branch = g3 () => (float[{n}] y3) {{ {} }}, \
         else_branch = g4 () => (float[{n}] y4) {{ {} }}>",
        constant("y3", "float", n),
        constant("y4", "float", n),
    );
    // Each past a piece's 64 KiB.
    let long_constants: Vec<String> = ["float", "int64", "double", "int32"]
        .iter()
        .enumerate()
        .map(|(i, element)| constant(&format!("w{i}"), element, 20_000))
        .collect();
    format!(
        "<ir_version: 10, opset_import: [\"\": 21]>\n\
         g (bool c) => (float[{n}] y) <\n  {}\n> {{\n\
         y = If (c) <then_branch = g1 () => (float[{n}] y1) {{\n  {}\n  {}\n  {}\n  {inner}\n}}, \
         else_branch = g2 () => (float[{n}] y2) {{\n  {}\n  {}\n  {}\n}}>\n}}\n",
        inits.join(",\n  "),
        long_constants.join("\n  "),
        constant("a", "double", 60),
        constant("i", "int64", 40),
        constant("y2", "float", n),
        constant("d", "uint64", 33),
        constant("k", "int32", 33),
    )
}

#[test]
fn number_lists_parse_as_the_reference_parses_them() {
    let dir = tempfile::tempdir().unwrap();
    let text = model_text();
    let file = write(dir.path(), "numbers.onnxtxt", text.as_bytes());
    let ours = dir.path().join("ours.onnx");
    let out = run(&["parse", arg(&file), "-o", arg(&ours)]);
    assert_eq!(out.code, 0, "{out:?}");
    // Printed and parsed back: the same bytes.
    let printed = dir.path().join("printed.onnxtxt");
    let out = run(&["print", arg(&ours), "-o", arg(&printed)]);
    assert_eq!(out.code, 0, "{out:?}");
    let again = dir.path().join("again.onnx");
    let out = run(&["parse", arg(&printed), "-o", arg(&again)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        std::fs::read(&ours).unwrap() == std::fs::read(&again).unwrap(),
        "print then parse changed the model"
    );
    let Some(python) = reference_python() else {
        return;
    };
    // Tensor by tensor: the reference also sets fields to their defaults
    // where onnxtxt leaves them unset (a node's empty `domain`, an
    // attribute's tensor's empty name, which is cleared here; the
    // conformance comparison clears such fields likewise).
    let script = "import sys, onnx, onnx.parser\n\
        ref = onnx.parser.parse_model(open(sys.argv[1]).read())\n\
        ours = onnx.load_model(sys.argv[2])\n\
        def tensors(g):\n\
        \x20   yield from g.initializer\n\
        \x20   for n in g.node:\n\
        \x20       for a in n.attribute:\n\
        \x20           if a.HasField('t'): yield a.t\n\
        \x20           if a.HasField('g'): yield from tensors(a.g)\n\
        pairs = list(zip(tensors(ref.graph), tensors(ours.graph)))\n\
        assert len(pairs) == 13 + 2 + 4 + 7, len(pairs)\n\
        for a, b in pairs:\n\
        \x20   if a.HasField('name') and not a.name: a.ClearField('name')\n\
        \x20   assert a.SerializeToString() == b.SerializeToString(), (a, b)\n";
    let status = std::process::Command::new(python)
        .args(["-c", script, arg(&file), arg(&ours)])
        .status()
        .unwrap();
    assert!(status.success(), "onnx.parser reads another model");
}
