//! Tests of `onnxtxt::check`: one failing and one passing case per check,
//! from text, with the IR path and the located span of each finding; a few
//! from IR built directly (raw data, packed sub-byte values); and the
//! `onnxtxt check` command's exit codes and output (`check_cli.rs`).

use onnxtxt::check::{check_model, check_text, Finding, Severity};
use onnxtxt::proto::tensor_proto::DataType;
use onnxtxt::proto::{GraphProto, ModelProto, OperatorSetIdProto, TensorProto};

const HEADER: &str = r#"<ir_version: 10, opset_import: ["": 21]>"#;

/// A model made of the standard header and `rest`.
pub(crate) fn model(rest: &str) -> String {
    format!("{HEADER}\n{rest}\n")
}

fn findings(text: &str) -> Vec<Finding> {
    match check_text(text) {
        Ok((_, findings)) => findings,
        Err(e) => panic!("{text}\ndoes not parse: {e:?}"),
    }
}

/// `(code without prefix, path, text under the span)` of each finding.
fn found(text: &str) -> Vec<(String, String, String)> {
    findings(text)
        .iter()
        .map(|f| {
            let d = &f.diagnostic;
            assert!(d.span.start <= d.span.end && d.span.end <= text.len());
            (
                d.code.trim_start_matches("onnxtxt::check::").to_string(),
                d.path.clone().unwrap_or_default(),
                text[d.span.clone()].to_string(),
            )
        })
        .collect()
}

/// [`found`], of one severity only.
fn of_severity(text: &str, severity: Severity) -> Vec<(String, String, String)> {
    let all = findings(text);
    found(text)
        .into_iter()
        .zip(all)
        .filter(|(_, f)| f.severity == severity)
        .map(|(x, _)| x)
        .collect()
}

fn errors(text: &str) -> Vec<(String, String, String)> {
    of_severity(text, Severity::Error)
}

/// The warnings of `text`, which must have no errors.
fn warnings(text: &str) -> Vec<(String, String, String)> {
    assert_eq!(errors(text), [], "{text}");
    of_severity(text, Severity::Warning)
}

fn one(code: &str, path: &str, span: &str) -> Vec<(String, String, String)> {
    vec![(code.to_string(), path.to_string(), span.to_string())]
}

fn clean(text: &str) {
    let all = findings(text);
    assert!(all.is_empty(), "{text}\nhas findings: {all:#?}");
}

// ---------------------------------------------------------------------------
// Single assignment, definitions before use.
// ---------------------------------------------------------------------------

#[test]
fn value_assigned_by_two_nodes() {
    let text = model("g (float x) => (float y) {\n  y = Relu(x)\n  y = Neg(x)\n}");
    assert_eq!(
        errors(&text),
        one("reassigned", "graph.node[1].output[0]", "y")
    );
    let f = &findings(&text)[0];
    assert_eq!(
        f.diagnostic.message,
        "graph.node[1] (Neg): `y` is assigned a second time"
    );
    assert_eq!(&text[f.diagnostic.labels[0].span.clone()], "y");
    clean(&model(
        "g (float x) => (float y) {\n  h = Relu(x)\n  y = Neg(h)\n}",
    ));
}

#[test]
fn node_output_named_like_an_input_or_initializer() {
    let text = model("g (float x) => (float y) {\n  x = Relu(x)\n  y = Neg(x)\n}");
    assert_eq!(
        errors(&text),
        one("reassigned", "graph.node[0].output[0]", "x")
    );
    let text = model(
        "g (float x) => (float y) <float w = {1.0}> {\n  [n] w = Relu(x)\n  y = Add(x, w)\n}",
    );
    assert_eq!(
        errors(&text),
        one("reassigned", "graph.node[0].output[0]", "w")
    );
    assert!(findings(&text)[0]
        .diagnostic
        .message
        .starts_with("graph.node[0] \"n\": "));
    // An initializer may also be an input (a default value).
    clean(&model(
        "g (float x, float w = {1.0}) => (float y) {\n  y = Add(x, w)\n}",
    ));
}

#[test]
fn undefined_value() {
    let text = model("g (float x) => (float y) {\n  y = Add(x, z)\n}");
    assert_eq!(
        errors(&text),
        one("undefined_value", "graph.node[0].input[1]", "z")
    );
    // An empty input name means "absent".
    clean(&model(
        "g (float x, float hi) => (float y) {\n  y = Clip(x, , hi)\n}",
    ));
}

#[test]
fn use_before_definition() {
    let text = model("g (float x) => (float y) {\n  y = Relu(h)\n  h = Neg(x)\n}");
    assert_eq!(
        errors(&text),
        one("use_before_definition", "graph.node[0].input[0]", "h")
    );
    let f = &findings(&text)[0];
    assert_eq!(f.related[0].path, "graph.node[1].output[0]");
    let text = model("g (float x) => (float y) {\n  y = Add(x, y)\n}");
    assert_eq!(
        errors(&text),
        one("use_before_definition", "graph.node[0].input[1]", "y")
    );
}

#[test]
fn subgraphs_see_outer_values_defined_before_their_node() {
    let ok = model(
        "g (bool c, float x) => (float y) {
  h = Neg(x)
  y = If (c) <
    then_branch = t () => (float a) { a = Relu(h) },
    else_branch = e () => (float b) { b = Neg(x) }
  >
}",
    );
    clean(&ok);
    let late = model(
        "g (bool c, float x) => (float y) {
  y = If (c) <
    then_branch = t () => (float a) { a = Relu(h) },
    else_branch = e () => (float b) { b = Neg(x) }
  >
  h = Neg(x)
}",
    );
    let errs = errors(&late);
    assert_eq!(
        errs,
        one(
            "undefined_value",
            "graph.node[0].attribute[\"then_branch\"].g.node[0].input[0]",
            "h"
        )
    );
    // A subgraph may not redefine an outer value.
    let shadow = model(
        "g (bool c, float x) => (float y) {
  y = If (c) <
    then_branch = t () => (float x) { x = Neg(x) },
    else_branch = e () => (float b) { b = Neg(x) }
  >
}",
    );
    assert_eq!(
        errors(&shadow),
        one(
            "reassigned",
            "graph.node[0].attribute[\"then_branch\"].g.node[0].output[0]",
            "x"
        )
    );
}

#[test]
fn graph_output_never_assigned() {
    let text = model("g (float x) => (float y, float z) {\n  y = Relu(x)\n}");
    assert_eq!(
        errors(&text),
        one("output_not_assigned", "graph.output[1]", "float z")
    );
    clean(&model(
        "g (float x) => (float y, float z) {\n  y = Relu(x)\n  z = Neg(x)\n}",
    ));
    // A graph input may be an output as it is.
    clean(&model("g (float x) => (float x) {\n}"));
}

#[test]
fn function_output_never_assigned_is_a_warning() {
    // onnx.checker accepts it in a function (not in a graph).
    let text = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
g (float x) => (float y) {
  y = local.F (x)
}
<domain: "local", opset_import: ["": 21]>
F (x) => (y, z) {
  y = Relu(x)
}
"#;
    let found = warnings(text);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "output_not_assigned");
    assert_eq!(found[0].1, "functions[0].output[1]");
}

#[test]
fn domain_imported_twice_is_a_warning() {
    // onnx.checker accepts it, in the model and in a function.
    let text = "<ir_version: 10, opset_import: [\"\": 21, \"ai.onnx\": 20]>\ng (float x) => (float y) {\n  y = Relu(x)\n}\n";
    let found = warnings(text);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "duplicate_opset_import");
    assert_eq!(found[0].1, "opset_import[1]");
}

// ---------------------------------------------------------------------------
// Duplicate names.
// ---------------------------------------------------------------------------

#[test]
fn duplicate_graph_inputs() {
    let text = model("g (float x, float[2] x) => (float[2] y) {\n  y = Relu(x)\n}");
    assert_eq!(
        errors(&text),
        one("duplicate_input", "graph.input[1]", "float[2] x")
    );
    clean(&model(
        "g (float x, float[2] x2) => (float[2] y) {\n  y = Add(x, x2)\n}",
    ));
}

#[test]
fn duplicate_initializers() {
    let text =
        model("g (float x) => (float y) <float w = {1.0}, float w = {2.0}> {\n  y = Add(x, w)\n}");
    assert_eq!(
        errors(&text),
        one(
            "duplicate_initializer",
            "graph.initializer[1]",
            "float w = {2.0}"
        )
    );
    clean(&model(
        "g (float x) => (float y) <float w = {1.0}, float v = {2.0}> {\n  h = Add(x, w)\n  y = Add(h, v)\n}",
    ));
}

const SQUARE: &str = r#"<domain: "local", opset_import: ["": 21]>
Square (x) => (y) {
  y = Mul(x, x)
}"#;

#[test]
fn duplicate_functions() {
    let main = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
g (float x) => (float y) {
  y = local.Square(x)
}"#;
    let text = format!("{main}\n{SQUARE}\n{SQUARE}\n");
    assert_eq!(
        errors(&text),
        one("duplicate_function", "functions[1]", "Square")
    );
    let f = &findings(&text)[0];
    assert_eq!(f.related[0].path, "functions[0]");
    clean(&format!("{main}\n{SQUARE}\n"));
    // Another overload is another function.
    let overloaded = SQUARE.replace("opset_import", "overload: \"v2\", opset_import");
    clean(&format!("{main}\n{SQUARE}\n{overloaded}\n"));
}

#[test]
fn duplicate_node_attributes() {
    let text =
        model("g (float[2, 3] x) => (float[2, 3] y) {\n  y = Softmax <axis = 1, axis = 0> (x)\n}");
    assert_eq!(
        errors(&text),
        one(
            "duplicate_attribute",
            "graph.node[0].attribute[1]",
            "axis = 0"
        )
    );
    clean(&model(
        "g (float[2, 3] x) => (float[2, 3] y) {\n  y = Softmax <axis = 1> (x)\n}",
    ));
}

#[test]
fn duplicate_function_attributes() {
    let main = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
g (float x) => (float y) {
  y = local.Scale <alpha = 2.0> (x)
}"#;
    let f = |attrs: &str| {
        format!(
            "{main}\n<domain: \"local\", opset_import: [\"\": 21]>\nScale <{attrs}> (x) => (y) {{\n  a = Constant <value_float: float = @alpha> ()\n  y = Mul(x, a)\n}}\n"
        )
    };
    let found = errors(&f("alpha, alpha"));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "duplicate_attribute");
    assert_eq!(found[0].1, "functions[0].attribute[1]");
    // onnx.checker rejects only a bare name given twice.
    for twice in [
        "alpha, alpha: float = 1.0",
        "alpha: float = 2.0, alpha: float = 1.0",
    ] {
        assert_eq!(warnings(&f(twice))[0].0, "duplicate_attribute", "{twice}");
    }
    clean(&f("alpha, beta: float = 1.0"));
}

// ---------------------------------------------------------------------------
// Domains and attribute references.
// ---------------------------------------------------------------------------

#[test]
fn node_domain_must_be_imported() {
    let text = model("g (float x) => (float y) {\n  y = com.example.Foo(x)\n}");
    assert_eq!(
        errors(&text),
        one(
            "domain_not_imported",
            "graph.node[0]",
            "y = com.example.Foo(x)"
        )
    );
    clean(
        "<ir_version: 10, opset_import: [\"\": 21, \"com.example\": 1]>\ng (float x) => (float y) {\n  y = com.example.Foo(x)\n}\n",
    );
    // `ai.onnx` is the default domain.
    clean(
        "<ir_version: 10, opset_import: [\"ai.onnx\": 21]>\ng (float x) => (float y) {\n  y = Relu(x)\n}\n",
    );
}

/// The help of a missing import suggests a version in the form the header
/// uses: the default domain's current one, 1 for any other domain.
#[test]
fn the_help_for_a_domain_not_imported_suggests_a_version() {
    let help = |text: &str| {
        let found = findings(text);
        assert_eq!(found.len(), 1, "{found:#?}");
        found[0].diagnostic.help.clone().unwrap()
    };
    let default = "<ir_version: 10, opset_import: [\"com.example\": 1]>\ng (float x) => (float y) {\n  y = Relu(x)\n}\n";
    assert_eq!(
        help(default),
        "add `\"\": 21` (with the right version) to `opset_import`"
    );
    let other = model("g (float x) => (float y) {\n  y = com.example.Foo(x)\n}");
    assert_eq!(
        help(&other),
        "add `\"com.example\": 1` (with the right version) to `opset_import`"
    );
    let none = "<ir_version: 10>\ng (float x) => (float y) {\n  y = Relu(x)\n}\n";
    let found = findings(none);
    let missing = found
        .iter()
        .find(|f| f.diagnostic.code == "onnxtxt::check::missing_opset_import");
    assert_eq!(
        missing.and_then(|f| f.diagnostic.help.as_deref()),
        Some("add `opset_import: [\"\": 21]` to the `<...>` header")
    );
}

#[test]
fn function_domain_counts_only_if_imported() {
    let text =
        format!("{HEADER}\ng (float x) => (float y) {{\n  y = local.Square(x)\n}}\n{SQUARE}\n");
    assert_eq!(
        errors(&text),
        one(
            "domain_not_imported",
            "graph.node[0]",
            "y = local.Square(x)"
        )
    );
}

#[test]
fn function_bodies_use_their_own_imports() {
    let main = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
g (float x) => (float y) {
  y = local.Square(x)
}"#;
    let bad = format!(
        "{main}\n<domain: \"local\", opset_import: [\"\": 21]>\nSquare (x) => (y) {{\n  y = com.ms.Mul(x, x)\n}}\n"
    );
    assert_eq!(
        errors(&bad),
        one(
            "domain_not_imported",
            "functions[0].node[0]",
            "y = com.ms.Mul(x, x)"
        )
    );
    let none = format!("{main}\n<domain: \"local\">\nSquare (x) => (y) {{\n  y = Mul(x, x)\n}}\n");
    assert_eq!(
        errors(&none),
        one(
            "domain_not_imported",
            "functions[0].node[0]",
            "y = Mul(x, x)"
        )
    );
    clean(&format!("{main}\n{SQUARE}\n"));
}

#[test]
fn attribute_references_outside_functions_are_warnings() {
    // onnx.checker accepts a reference in a graph (it is never resolved).
    let text = model("g (float[2] x) => (float[2] y) {\n  y = Softmax <axis: int = @ax> (x)\n}");
    assert_eq!(
        warnings(&text),
        one(
            "attribute_reference",
            "graph.node[0].attribute[\"axis\"]",
            "axis: int = @ax"
        )
    );
}

#[test]
fn undeclared_attribute_references_are_warnings() {
    let main = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
g (float[2, 3] x) => (float[2, 3] y) {
  y = local.Soft <ax = 1> (x)
}"#;
    let f = |attrs: &str, reference: &str| {
        format!(
            "{main}\n<domain: \"local\", opset_import: [\"\": 21]>\nSoft {attrs} (x) => (y) {{\n  y = Softmax <axis: int = @{reference}> (x)\n}}\n"
        )
    };
    assert_eq!(
        warnings(&f("<ax>", "axs")),
        one(
            "attribute_reference",
            "functions[0].node[0].attribute[\"axis\"]",
            "axis: int = @axs"
        )
    );
    assert_eq!(
        warnings(&f("", "ax")),
        one(
            "attribute_reference",
            "functions[0].node[0].attribute[\"axis\"]",
            "axis: int = @ax"
        )
    );
    clean(&f("<ax>", "ax"));
    clean(&f("<ax: int = 1>", "ax"));
    // References in subgraphs of function bodies are inside the function.
    let nested = format!(
        "{main}\n<domain: \"local\", opset_import: [\"\": 21]>\nSoft <ax> (x) => (y) {{\n  c = Constant <value: tensor = bool {{1}}> ()\n  y = If (c) <then_branch = t () => (float[2, 3] a) {{ a = Softmax <axis: int = @ax> (x) }}, else_branch = e () => (float[2, 3] b) {{ b = Relu(x) }}>\n}}\n"
    );
    clean(&nested);
}

/// The form onnxscript's exporter writes: the body refers to `@dim`, which
/// the function does not declare; the call gives it. onnx.checker accepts
/// the model, so it gets a warning, not an error.
#[test]
fn reference_resolved_by_the_call_is_a_warning() {
    let text = r#"<ir_version: 10, opset_import: ["": 18, "pkg.onnxscript.torch_lib": 1]>
g (float[4] x, int64[2] s) => (seq(float[M]) y) {
  y = pkg.onnxscript.torch_lib.aten_split <dim: int = 0> (x, s)
}
<domain: "pkg.onnxscript.torch_lib", opset_import: ["" : 18]>
aten_split (self, split_size) => (return_val)
{
    return_val = SplitToSequence <axis: int = @dim> (self, split_size)
}
"#;
    let found = warnings(text);
    assert_eq!(
        found,
        one(
            "attribute_reference",
            "functions[0].node[0].attribute[\"axis\"]",
            "axis: int = @dim"
        )
    );
    let help = findings(text)[0].diagnostic.help.clone();
    assert_eq!(
        help.as_deref(),
        Some("declare it: `aten_split <dim> (...)`")
    );
}

// ---------------------------------------------------------------------------
// Tensor constants and shapes.
// ---------------------------------------------------------------------------

/// A model whose output is the initializer `decl` (`int8[2] w = {1, 2}`),
/// declared with its type.
fn initializer(decl: &str) -> String {
    let ty = decl.split(" w =").next().unwrap_or("float");
    model(&format!("g () => ({ty} w) <{decl}> {{\n}}"))
}

// The IR spec (docs/IR.md, Tensor Definition): "a tensor can be defined as
// a pair of sequences/lists (V, S) where S is the shape of the tensor (a
// list of non-negative integers) and V is a list of values with length
// equal to the product of the dimensions in S".

#[test]
fn element_count_matches_shape() {
    // IR spec: "V is a list of values with length equal to the product of
    // the dimensions in S".
    let text = initializer("float[2, 3] w = {1, 2, 3, 4, 5}");
    assert_eq!(
        errors(&text),
        one(
            "tensor_size",
            "graph.initializer[0]",
            "float[2, 3] w = {1, 2, 3, 4, 5}"
        )
    );
    assert_eq!(
        findings(&text)[0].summary,
        "the shape [2, 3] holds 6 elements, but the tensor has 5 values"
    );
    clean(&initializer("float[2, 3] w = {1, 2, 3, 4, 5, 6}"));
    // Too many values: onnx.checker accepts them, the spec does not (nor
    // onnxruntime: "data field count (3) does not match expected count from
    // shape (2)", tests/it/check_reference.rs).
    assert_eq!(
        errors(&initializer("float[2] w = {1, 2, 3}")),
        one(
            "tensor_size",
            "graph.initializer[0]",
            "float[2] w = {1, 2, 3}"
        )
    );
    // Sub-byte types: one entry per element or two (four) packed in one;
    // the checker only asks for some entries.
    assert_eq!(errors(&initializer("int4[4] w = {1}"))[0].0, "tensor_size");
    // A scalar needs one value, an empty tensor none.
    assert_eq!(errors(&initializer("float w = {}"))[0].0, "tensor_size");
    clean(&initializer("float[0] w = {}"));
    clean(&initializer("float[2, 0] w = {}"));
}

#[test]
fn complex_tensors_hold_pairs() {
    let text = initializer("complex64[2] w = {1, 2}");
    assert_eq!(errors(&text)[0].0, "tensor_size");
    clean(&initializer("complex64[2] w = {1, 2, 3, 4}"));
    clean(&initializer("complex128[1] w = {1, 2}"));
}

#[test]
fn element_count_overflow_is_an_error_not_an_allocation() {
    let text = initializer("float[4294967296, 4294967296, 4294967296] w = {1}");
    assert_eq!(errors(&text)[0].0, "tensor_size");
}

#[test]
fn values_fit_their_element_type() {
    for (decl, bad) in [
        ("int8[2] w = {127, 128}", true),
        ("int8[2] w = {-128, 127}", false),
        ("int8[1] w = {-129}", true),
        ("uint8[2] w = {0, 255}", false),
        ("uint8[1] w = {256}", true),
        ("uint8[1] w = {-1}", true),
        ("int16[1] w = {32768}", true),
        ("uint16[1] w = {65535}", false),
        ("bool[2] w = {0, 1}", false),
        ("bool[1] w = {2}", true),
        ("int4[2] w = {-8, 7}", false),
        ("int4[1] w = {8}", true),
        ("uint4[2] w = {0, 15}", false),
        ("uint4[1] w = {16}", true),
        ("int2[2] w = {-2, 1}", false),
        ("int2[1] w = {2}", true),
        ("uint2[1] w = {3}", false),
        ("uint2[1] w = {4}", true),
        ("uint32[1] w = {4294967295}", false),
        ("uint32[1] w = {4294967296}", true),
        ("uint64[1] w = {18446744073709551615}", false),
        ("float16[1] w = {65536}", true),
        ("float16[1] w = {1.5}", false),
    ] {
        // IR spec: "Primitive numeric, string, and Boolean types MUST be used
        // as elements of tensors"; 128 is no int8. But onnx.checker does
        // not look at the values, and onnxruntime and the
        // ReferenceEvaluator wrap them (int8 200 is read as -56) rather
        // than refuse the model: warnings (conformance/checker_agreement.py
        // runs both on tests/diagnostics/int8_out_of_range.onnxtxt).
        let text = initializer(decl);
        let found = warnings(&text);
        if bad {
            assert_eq!(
                found,
                one("tensor_value", "graph.initializer[0]", decl),
                "{decl}"
            );
        } else {
            assert!(found.is_empty(), "{decl}: {found:?}");
        }
    }
}

#[test]
fn tensor_attributes_are_checked_too() {
    let text =
        model("g () => (int8[2] y) {\n  y = Constant <value: tensor = int8[2] {1, 200}> ()\n}");
    assert_eq!(
        warnings(&text),
        one(
            "tensor_value",
            "graph.node[0].attribute[\"value\"].t",
            "value: tensor = int8[2] {1, 200}"
        )
    );
    let text =
        model("g () => (float[3] y) {\n  y = Constant <value: tensor = float[3] {1, 2}> ()\n}");
    assert_eq!(errors(&text)[0].0, "tensor_size");
    clean(&model(
        "g () => (float[2] y) {\n  y = Constant <value: tensor = float[2] {1, 2}> ()\n}",
    ));
}

#[test]
fn dimensions_are_not_negative() {
    // IR spec: "S is the shape of the tensor (a list of non-negative
    // integers)".
    let text = model("g () => (float[?] w) <float[-1] w = {}> {\n}");
    assert_eq!(
        errors(&text),
        one(
            "negative_dimension",
            "graph.initializer[0]",
            "float[-1] w = {}"
        )
    );
    // In a declared type, the shape of the tensors the value holds, a
    // warning: onnx.checker, onnxruntime and the ReferenceEvaluator read
    // it as an unknown size (old exporters wrote -1 so).
    let text = model("g (float[N, -3] x) => (float[1, 1] y) {\n  y = ReduceSum(x)\n}");
    assert_eq!(
        warnings(&text),
        one("negative_dimension", "graph.input[0]", "float[N, -3] x")
    );
    clean(&model(
        "g (float[N, 3] x) => (float[1, 1] y) {\n  y = ReduceSum(x)\n}",
    ));
    let sparse = "sparse_value: sparse_tensor = sparse_tensor[-4, 2] \
                  {values: float[1] {1.0}, indices: int64[1] {0}}";
    let text = model(&format!(
        "g () => (float y) {{\n  y = Constant <{sparse}> ()\n}}"
    ));
    assert_eq!(
        errors(&text),
        one(
            "negative_dimension",
            "graph.node[0].attribute[\"sparse_value\"].sparse_tensor",
            sparse
        )
    );
}

// ---------------------------------------------------------------------------
// The model header.
// ---------------------------------------------------------------------------

#[test]
fn header_needs_ir_version_and_opset_import() {
    let text = "<opset_import: [\"\": 21]>\ng (float x) => (float y) {\n  y = Relu(x)\n}\n";
    assert_eq!(
        errors(text),
        one(
            "missing_ir_version",
            "ir_version",
            "<opset_import: [\"\": 21]>"
        )
    );
    let text = "<ir_version: 10>\ng (float x) => (float y) {\n  y = Relu(x)\n}\n";
    let errs = errors(text);
    assert_eq!(
        errs[0],
        one("missing_opset_import", "opset_import", "<ir_version: 10>")[0]
    );
    // Without opset_import, no domain is imported either.
    assert_eq!(errs[1].0, "domain_not_imported");
    let text = "g (float x) => (float y) {\n  y = Relu(x)\n}\n";
    let codes: Vec<_> = errors(text).into_iter().map(|e| e.0).collect();
    assert_eq!(
        codes,
        [
            "missing_ir_version",
            "missing_opset_import",
            "domain_not_imported"
        ]
    );
    assert_eq!(&text[findings(text)[0].diagnostic.span.clone()], "g");
}

// ---------------------------------------------------------------------------
// Operators, attributes, inputs and outputs, against onnx's schemas.
// ---------------------------------------------------------------------------

/// `g` with the given nodes, at opset `opset` of the default domain.
fn at_opset(opset: i64, nodes: &str) -> String {
    format!(
        "<ir_version: 10, opset_import: [\"\": {opset}]>\ng (float[N] x, float[N] w) => (float[N] y) {{\n{nodes}\n}}\n"
    )
}

#[test]
fn operators_are_looked_up_at_the_imported_opset() {
    let text = at_opset(21, "  y = Rleu(x)");
    assert_eq!(
        errors(&text),
        one("unknown_operator", "graph.node[0].op_type", "Rleu")
    );
    assert_eq!(
        findings(&text)[0].diagnostic.help.as_deref(),
        Some("did you mean `Relu`?")
    );
    let text = at_opset(18, "  y = Gelu(x)");
    assert_eq!(
        errors(&text),
        one("operator_too_new", "graph.node[0].op_type", "Gelu")
    );
    assert_eq!(
        findings(&text)[0].summary,
        "`Gelu` is defined from opset 20 of ai.onnx on; this model imports opset 18"
    );
    clean(&at_opset(20, "  y = Gelu(x)"));
    let text = at_opset(21, "  y = Upsample(x, w)");
    assert_eq!(
        errors(&text),
        one("deprecated_operator", "graph.node[0].op_type", "Upsample")
    );
    clean(&at_opset(9, "  y = Upsample(x, w)"));
    // The import may spell the default domain `ai.onnx`, a node may not.
    let text = at_opset(21, "  y = ai.onnx.Relu(x)");
    assert_eq!(
        errors(&text),
        one("ai_onnx_domain", "graph.node[0].op_type", "ai.onnx.Relu")
    );
    clean(&at_opset(21, "  y = Relu(x)").replace("[\"\": 21]", "[\"ai.onnx\": 21]"));
    let text = at_opset(21, "  y = (x)");
    assert_eq!(
        errors(&text),
        one("missing_operator", "graph.node[0]", "y = (x)")
    );
}

#[test]
fn domains_the_checker_does_not_check_get_warnings() {
    let preview = r#"<ir_version: 10, opset_import: ["": 21, "ai.onnx.preview.training": 1]>
g (float[N] x) => (float[N] y) {
  y = ai.onnx.preview.training.Adamm(x)
}"#;
    assert_eq!(
        warnings(preview),
        one(
            "unknown_operator",
            "graph.node[0].op_type",
            "ai.onnx.preview.training.Adamm"
        )
    );
    let custom = r#"<ir_version: 10, opset_import: ["": 21, "com.example": 1]>
g (float[N] x) => (float[N] y) {
  y = com.example.Anything <k: int = 1> (x, x, x)
}"#;
    clean(custom);
    // Early experimental operators the checker lets through unchecked.
    assert_eq!(
        warnings(&at_opset(21, "  y = ATen(x)")),
        one("unknown_operator", "graph.node[0].op_type", "ATen")
    );
    // The ML domain is checked like the default one.
    let ml = r#"<ir_version: 10, opset_import: ["": 21, "ai.onnx.ml": 3]>
g (float[N] x) => (float[N] y) {
  y = ai.onnx.ml.Binarise(x)
}"#;
    assert_eq!(errors(ml)[0].0, "unknown_operator");
    assert_eq!(
        findings(ml)[0].diagnostic.help.as_deref(),
        Some("did you mean `Binarizer`?")
    );
}

#[test]
fn attributes_are_checked_against_the_schema() {
    let text = at_opset(21, "  y = LeakyRelu <alhpa: float = 0.1> (x)");
    assert_eq!(
        errors(&text),
        one(
            "unknown_attribute",
            "graph.node[0].attribute[\"alhpa\"]",
            "alhpa: float = 0.1"
        )
    );
    let text = at_opset(21, "  y = Softmax <axis: float = 1.0> (x)");
    assert_eq!(
        errors(&text),
        one(
            "attribute_type",
            "graph.node[0].attribute[\"axis\"]",
            "axis: float = 1.0"
        )
    );
    let text = at_opset(21, "  y = Cast(x)");
    assert_eq!(
        errors(&text),
        one("missing_attribute", "graph.node[0].op_type", "Cast")
    );
    let text = at_opset(21, "  y = Cast <to = float> (x)");
    assert_eq!(
        findings(&text)[0].diagnostic.help.as_deref(),
        Some("a data type is written by its number: `to: int = 1` (FLOAT)")
    );
    clean(&at_opset(21, "  y = Cast <to: int = 1> (x)"));
    // Names with two leading underscores are the implementation's own.
    clean(&at_opset(
        21,
        "  y = Relu <__origin: string = \"torch\"> (x)",
    ));
    // LayerNormalization 17 does not check its attributes: a warning.
    let text = at_opset(
        17,
        "  y = LayerNormalization <epsilonn: float = 0.1> (x, w)",
    );
    assert_eq!(
        warnings(&text),
        one(
            "unknown_attribute",
            "graph.node[0].attribute[\"epsilonn\"]",
            "epsilonn: float = 0.1"
        )
    );
}

#[test]
fn inputs_and_outputs_are_counted_as_the_checker_counts_them() {
    assert_eq!(
        errors(&at_opset(21, "  y = MatMul(x)")),
        one("input_count", "graph.node[0].op_type", "MatMul")
    );
    assert_eq!(
        errors(&at_opset(21, "  y = Relu(x, w)")),
        one("input_count", "graph.node[0].input[1]", "w")
    );
    let text = at_opset(21, "  y, z = Relu(x)");
    assert_eq!(
        errors(&text),
        one("output_count", "graph.node[0].output[1]", "z")
    );
    assert_eq!(
        errors(&at_opset(21, "  y = Add(x, \"\")")),
        one("empty_input", "graph.node[0].input[1]", "\"\"")
    );
    let text = at_opset(21, "  \"\" = Relu(x)\n  y = Relu(x)");
    assert_eq!(
        errors(&text),
        one("empty_output", "graph.node[0].output[0]", "\"\"")
    );
    // Optional inputs and outputs may be left out, variadic ones repeated.
    clean(&at_opset(
        21,
        "  a = Clip(x, \"\", w)\n  b, \"\" = Dropout(a)\n  y = Max(b, x, w, x)",
    ));
    assert_eq!(
        errors(&at_opset(21, "  y = Max()")),
        one("input_count", "graph.node[0].op_type", "Max")
    );
    // BatchNormalization has 1 or 3 outputs from version 14 on.
    let text = at_opset(
        15,
        "  y, m = BatchNormalization <training_mode: int = 1> (x, w, w, w, w)\n  z = Add(y, m)",
    );
    assert_eq!(
        errors(&text),
        one(
            "output_count",
            "graph.node[0].op_type",
            "BatchNormalization"
        )
    );
}

/// Three independent mistakes, reported in one run (the issue's example).
#[test]
fn every_mistake_is_reported_at_once() {
    let text = at_opset(
        21,
        "  a = Rleu(x)\n  b = Relu <alhpa: float = 1.0> (a)\n  c = MatMul(b)\n  y = Transpose <perm: ints = [0]> (c, w)",
    );
    let codes: Vec<_> = errors(&text)
        .into_iter()
        .map(|(code, path, _)| (code, path))
        .collect();
    assert_eq!(
        codes,
        [
            ("unknown_operator".into(), "graph.node[0].op_type".into()),
            (
                "unknown_attribute".into(),
                "graph.node[1].attribute[\"alhpa\"]".into()
            ),
            ("input_count".into(), "graph.node[2].op_type".into()),
            ("input_count".into(), "graph.node[3].input[1]".into()),
        ]
    );
}

/// The local function and the calls of `Swish` in `local`.
fn with_swish(calls: &str) -> String {
    format!(
        r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
g (float[N] x) => (float[N] y) {{
{calls}
}}
<domain: "local", opset_import: ["": 21]>
Swish <beta: float = 1.0> (x) => (y) {{
  b = Constant <value_float: float = @beta> ()
  t = Mul(x, b)
  s = Sigmoid(t)
  y = Mul(x, s)
}}
"#
    )
}

/// Calls of model-local functions: what a runtime refuses is an error
/// (onnxruntime's messages for each: tests/it/check_reference.rs), an
/// attribute the function does not declare a warning.
#[test]
fn calls_of_local_functions() {
    clean(&with_swish("  y = local.Swish <beta: float = 2.0> (x)"));
    clean(&with_swish("  y = local.Swish (x)"));
    assert_eq!(
        errors(&with_swish("  y = local.Swsh(x)")),
        one("unknown_function", "graph.node[0].op_type", "local.Swsh")
    );
    assert_eq!(
        warnings(&with_swish("  y = local.Swish <betta: float = 2.0> (x)")),
        one(
            "unknown_attribute",
            "graph.node[0].attribute[\"betta\"]",
            "betta: float = 2.0"
        )
    );
    assert_eq!(
        warnings(&with_swish("  y = local.Swish <beta: int = 2> (x)")),
        one(
            "attribute_type",
            "graph.node[0].attribute[\"beta\"]",
            "beta: int = 2"
        )
    );
    assert_eq!(
        errors(&with_swish("  y = local.Swish (x, x)")),
        one("input_count", "graph.node[0].input[1]", "x")
    );
    let text = with_swish("  y, z = local.Swish (x)\n  w = Add(z, z)");
    assert_eq!(
        errors(&text),
        one("output_count", "graph.node[0].output[1]", "z")
    );
}

/// A function with an input its body needs (`b`, given to `Add`) and one
/// it gives only to an optional input (`m`, `Clip`'s `min`).
fn with_axpy(call: &str) -> String {
    format!(
        r#"<ir_version: 10, opset_import: ["": 21, "my": 1]>
g (float[2] x, float[2] s) => (float[2] y) {{
{call}
}}
<domain: "my", opset_import: ["": 21]>
Axpy (a, x, b, m) => (r) {{
  t = Mul(a, x)
  u = Add(t, b)
  r = Clip(u, m)
}}
"#
    )
}

#[test]
fn calls_give_the_inputs_the_body_needs() {
    clean(&with_axpy("  y = my.Axpy(x, s, x, s)"));
    clean(&with_axpy("  y = my.Axpy(x, s, x)"));
    clean(&with_axpy("  y = my.Axpy(x, s, x, \"\")"));
    assert_eq!(
        errors(&with_axpy("  y = my.Axpy(x, s)")),
        one("empty_input", "graph.node[0].op_type", "my.Axpy")
    );
    let text = with_axpy("  y = my.Axpy(x, \"\", s)");
    assert_eq!(
        errors(&text),
        one("empty_input", "graph.node[0].input[1]", "\"\"")
    );
    assert_eq!(
        findings(&text)[0].diagnostic.help.as_deref(),
        Some("node 0 of `Axpy` gives it to `Mul` as B, which is not optional: name the value here")
    );
}

#[test]
fn function_bodies_are_checked_with_their_own_opsets() {
    let function = |imports: &str, node: &str| {
        format!(
            r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
g (float[N] x) => (float[N] y) {{
  y = local.F(x)
}}
<domain: "local", opset_import: [{imports}]>
F (x) => (y) {{
  {node}
}}
"#
        )
    };
    // Opset 12 of the default domain has another Softmax than opset 21.
    let text = function("\"\": 12", "y = Softmax(x)");
    assert_eq!(
        errors(&text),
        one("opset_mismatch", "functions[0].node[0].op_type", "Softmax")
    );
    clean(&function("\"\": 14", "y = Relu(x)"));
    let text = function(
        "\"\": 21, \"ai.onnx.ml\": 1",
        "y = ai.onnx.ml.TreeEnsemble <tree_roots: ints = [0]> (x)",
    );
    assert_eq!(
        errors(&text),
        one(
            "operator_too_new",
            "functions[0].node[0].op_type",
            "ai.onnx.ml.TreeEnsemble"
        )
    );
    // In a function, onnx.checker wants the default domain as "".
    let text = function("\"ai.onnx\": 21", "y = Relu(x)");
    assert_eq!(
        errors(&text),
        one("domain_not_imported", "functions[0].node[0]", "y = Relu(x)")
    );
    let text = function("\"\": 21", "y = Relu <alpha: float = 1.0> (x)");
    assert_eq!(errors(&text)[0].0, "unknown_attribute");
}

// ---------------------------------------------------------------------------
// Warnings.
// ---------------------------------------------------------------------------

#[test]
fn unused_values_are_warnings() {
    let text = model("g (float x) => (float y) {\n  h = Neg(x)\n  y = Relu(x)\n}");
    let all = findings(&text);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].severity, Severity::Warning);
    assert_eq!(
        found(&text),
        one("unused_value", "graph.node[0].output[0]", "h")
    );
    // Used in a subgraph counts.
    clean(&model(
        "g (bool c, float x) => (float y) {
  h = Neg(x)
  y = If (c) <
    then_branch = t () => (float a) { a = Relu(h) },
    else_branch = e () => (float b) { b = Neg(x) }
  >
}",
    ));
}

#[test]
fn unused_initializers_are_warnings() {
    let text = initializer("float w = {1.0}, float v = {2.0}");
    let all = findings(&text);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].severity, Severity::Warning);
    assert_eq!(
        found(&text),
        one(
            "unused_initializer",
            "graph.initializer[1]",
            "float v = {2.0}"
        )
    );
}

#[test]
fn the_example_is_clean() {
    clean(include_str!("../../examples/mlp.onnxtxt"));
}

// ---------------------------------------------------------------------------
// From IR: raw data and packed sub-byte values, which text cannot express
// wrongly.
// ---------------------------------------------------------------------------

/// The declared type of an output holding `tensor`: its element type and
/// shape (a main graph's outputs need both).
fn declared_like(tensor: &TensorProto) -> onnxtxt::proto::ValueInfoProto {
    use onnxtxt::proto::tensor_shape_proto::{dimension::Value, Dimension};
    use onnxtxt::proto::{type_proto, TensorShapeProto, TypeProto};
    let dim = |&d: &i64| Dimension {
        value: Some(Value::DimValue(d)),
        ..Default::default()
    };
    let tensor_type = type_proto::Tensor {
        elem_type: tensor.data_type.or(Some(1)),
        shape: Some(TensorShapeProto {
            dim: tensor.dims.iter().map(dim).collect(),
        }),
    };
    onnxtxt::proto::ValueInfoProto {
        name: tensor.name.clone(),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(tensor_type)),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn ir_model(tensor: TensorProto) -> ModelProto {
    ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(21),
        }],
        graph: Some(GraphProto {
            name: Some("g".into()),
            output: vec![declared_like(&tensor)],
            initializer: vec![tensor],
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn ir_codes(tensor: TensorProto) -> Vec<&'static str> {
    check_model(&ir_model(tensor))
        .iter()
        .map(|f| f.diagnostic.code.trim_start_matches("onnxtxt::check::"))
        .collect()
}

fn tensor(data_type: DataType, dims: &[i64]) -> TensorProto {
    TensorProto {
        name: Some("w".into()),
        data_type: Some(data_type as i32),
        dims: dims.to_vec(),
        ..Default::default()
    }
}

#[test]
fn raw_data_length() {
    let raw = |bytes: usize| TensorProto {
        raw_data: Some(vec![0; bytes]),
        ..tensor(DataType::Float, &[2, 3])
    };
    assert!(ir_codes(raw(24)).is_empty());
    assert_eq!(ir_codes(raw(20)), ["tensor_size"]);
    // Bytes beyond the shape: onnx.checker accepts them, the IR spec does
    // not (V's length is the product of the dimensions).
    let long = check_model(&ir_model(raw(28)));
    assert_eq!(long.len(), 1);
    assert_eq!(long[0].severity, Severity::Error);
    let int4 = TensorProto {
        raw_data: Some(vec![0; 2]),
        ..tensor(DataType::Int4, &[3])
    };
    assert!(ir_codes(int4).is_empty());
    let bools = TensorProto {
        raw_data: Some(vec![0, 1, 2]),
        ..tensor(DataType::Bool, &[3])
    };
    assert_eq!(ir_codes(bools), ["tensor_value"]);
    let both = TensorProto {
        raw_data: Some(vec![0; 4]),
        float_data: vec![1.0],
        ..tensor(DataType::Float, &[1])
    };
    assert_eq!(ir_codes(both), ["tensor_field"]);
    let strings = TensorProto {
        raw_data: Some(vec![]),
        ..tensor(DataType::String, &[0])
    };
    assert_eq!(ir_codes(strings), ["tensor_field"]);
}

#[test]
fn packed_sub_byte_entries() {
    // One entry per element (the text parser's form) or two per byte (the
    // IR's packed form) are both fine.
    let per_element = TensorProto {
        int32_data: vec![1, -1, 3],
        ..tensor(DataType::Int4, &[3])
    };
    assert!(ir_codes(per_element).is_empty());
    let packed = TensorProto {
        int32_data: vec![0xF1, 0x03],
        ..tensor(DataType::Int4, &[3])
    };
    assert!(ir_codes(packed).is_empty());
    let bad = TensorProto {
        int32_data: vec![0x1F1, 0x03],
        ..tensor(DataType::Int4, &[3])
    };
    assert_eq!(ir_codes(bad), ["tensor_value"]);
}

#[test]
fn values_in_the_wrong_field() {
    let t = TensorProto {
        int64_data: vec![1],
        ..tensor(DataType::Float, &[1])
    };
    assert_eq!(ir_codes(t), ["tensor_field"]);
    let untyped = TensorProto {
        data_type: None,
        ..tensor(DataType::Float, &[])
    };
    assert_eq!(ir_codes(untyped), ["tensor_type"]);
}

#[test]
fn huge_dims_from_binary_do_not_allocate() {
    let t = TensorProto {
        raw_data: Some(vec![0; 4]),
        ..tensor(DataType::Float, &[i64::MAX, i64::MAX])
    };
    assert_eq!(ir_codes(t), ["tensor_size"]);
    let t = tensor(DataType::Float, &[i64::MAX / 2]);
    assert_eq!(ir_codes(t), ["tensor_size"]);
}

// ---------------------------------------------------------------------------
// Convolutions and poolings (onnxruntime's verdicts: check_reference.rs).
// ---------------------------------------------------------------------------

/// A graph of one node `node` reading `x` and `w` of these types, its
/// output of the rank of `x`.
fn windowed(x: &str, w: &str, node: &str) -> String {
    let rank = x.matches(',').count() + 1;
    let y = vec!["?"; rank].join(", ");
    model(&format!(
        "g ({x} x, {w} w) => (float[{y}] y) {{\n  y = {node}\n}}"
    ))
}

#[test]
fn kernel_shape_is_the_weights_spatial_shape() {
    let conv = "Conv <kernel_shape: ints = [3, 3], group: int = 16> (x, w)";
    let text = windowed("float[1, 16, 8, 8]", "float[16, 1, 2, 2]", conv);
    assert_eq!(
        errors(&text),
        one(
            "window",
            "graph.node[0].attribute[\"kernel_shape\"]",
            "kernel_shape: ints = [3, 3]"
        )
    );
    clean(&windowed("float[1, 16, 8, 8]", "float[16, 1, 3, 3]", conv));
    // Unknown sizes say nothing.
    clean(&windowed("float[1, 16, 8, 8]", "float[16, 1, K, K]", conv));
    let transposed = "ConvTranspose <kernel_shape: ints = [3]> (x, w)";
    let text = windowed("float[1, 4, 8]", "float[4, 2, 5]", transposed);
    assert_eq!(errors(&text)[0].0, "window");
}

#[test]
fn group_divides_the_channels() {
    let conv = |group: i64| format!("Conv <group: int = {group}> (x, w)");
    let text = windowed("float[1, 16, 8, 8]", "float[16, 1, 3, 3]", "Conv (x, w)");
    assert_eq!(
        errors(&text),
        one("window", "graph.node[0].op_type", "Conv")
    );
    let text = windowed("float[1, 16, 8, 8]", "float[16, 4, 3, 3]", &conv(2));
    assert_eq!(
        errors(&text),
        one(
            "window",
            "graph.node[0].attribute[\"group\"]",
            "group: int = 2"
        )
    );
    // 6 output channels do not split in 4 groups.
    let text = windowed("float[1, 8, 8, 8]", "float[6, 2, 3, 3]", &conv(4));
    assert_eq!(errors(&text)[0].0, "window");
    clean(&windowed(
        "float[1, 16, 8, 8]",
        "float[16, 4, 3, 3]",
        &conv(4),
    ));
    // A transposed convolution's weights have a row per input channel.
    let text = windowed(
        "float[1, 8, 4, 4]",
        "float[4, 2, 3, 3]",
        "ConvTranspose (x, w)",
    );
    assert_eq!(errors(&text)[0].0, "window");
    clean(&windowed(
        "float[1, 4, 4, 4]",
        "float[4, 2, 3, 3]",
        "ConvTranspose (x, w)",
    ));
}

#[test]
fn window_attributes_agree_on_the_spatial_axes() {
    // The input's rank unknown (a reshape to a computed shape): the
    // weights' rank, or kernel_shape, counts the spatial axes.
    let reshaped = |node: &str| {
        model(&format!(
            "g (float[N] x, int64[K] s, float[4, 4, 3, 3] w) => (float[?, ?, ?, ?] y) {{\n  \
             r = Reshape(x, s)\n  y = {node}\n}}"
        ))
    };
    let text = reshaped("Conv <strides: ints = [1, 1, 1]> (r, w)");
    assert_eq!(
        errors(&text),
        one(
            "window",
            "graph.node[1].attribute[\"strides\"]",
            "strides: ints = [1, 1, 1]"
        )
    );
    let text = reshaped("MaxPool <kernel_shape: ints = [2, 2], pads: ints = [0, 0]> (r)");
    assert_eq!(errors(&text)[0].0, "window");
    clean(&reshaped(
        "MaxPool <kernel_shape: ints = [2, 2], pads: ints = [0, 0, 1, 1]> (r)",
    ));
    clean(&reshaped(
        "Conv <strides: ints = [2, 2], dilations: ints = [1, 1]> (r, w)",
    ));
}

// ---------------------------------------------------------------------------
// What onnx.checker rejects of the header and the main graph's interface.
// ---------------------------------------------------------------------------

#[test]
fn main_graph_inputs_and_outputs_have_a_shape() {
    // IR spec: "The main graph inputs and outputs are required to have a
    // shape, indicating the rank"; `float[]` declares none, `float` a
    // scalar's.
    let text = model("g (float[] x) => (float y) {\n  y = ReduceSum <keepdims: int = 0> (x)\n}");
    assert_eq!(
        errors(&text),
        one("missing_shape", "graph.input[0]", "float[] x")
    );
    // A subgraph's need not.
    clean(&model(
        "g (bool c, float x) => (float y) {\n  \
         y = If (c) <then_branch: graph = t () => (float[] z) { z = Identity(x) }, \
         else_branch: graph = e () => (float[] z) { z = Neg(x) }>\n}",
    ));
}

#[test]
fn before_ir_version_4_initializers_are_inputs() {
    let graph = |inputs: &str| {
        format!(
            "<ir_version: 3, opset_import: [\"\": 8]>\n\
             g ({inputs}) => (float[2] y) <float[2] w = {{1.0, 2.0}}> {{\n  y = Add(x, w)\n}}\n"
        )
    };
    assert_eq!(
        errors(&graph("float[2] x")),
        one(
            "initializer_not_input",
            "graph.initializer[0]",
            "float[2] w = {1.0, 2.0}"
        )
    );
    clean(&graph("float[2] x, float[2] w"));
    clean(&graph("float[2] x").replace("ir_version: 3", "ir_version: 4"));
    // A subgraph's too (onnx.checker: "k in initializer but not in graph
    // input", in the If's branch).
    let text = "<ir_version: 3, opset_import: [\"\": 8]>\n\
                g (bool c, float[2] x) => (float[2] y) {\n  y = If (c) <\n    \
                then_branch: graph = t () => (float[2] z) <float[2] k = {1.0, 2.0}> { z = Add(x, k) },\n    \
                else_branch: graph = e () => (float[2] z) { z = Neg(x) }>\n}\n";
    assert_eq!(
        errors(text),
        one(
            "initializer_not_input",
            "graph.node[0].attribute[\"then_branch\"].g.initializer[0]",
            "float[2] k = {1.0, 2.0}"
        )
    );
}

#[test]
fn opsets_beyond_the_registry_are_warnings() {
    let text = "<ir_version: 10, opset_import: [\"\": 30]>\n\
                g (float[2] x) => (float[2] y) {\n  y = Relu(x)\n}\n";
    assert_eq!(
        warnings(text),
        one("opset_beyond_known", "opset_import[0]", "\"\": 30")
    );
    assert_eq!(
        findings(text)[0].summary,
        "onnx 1.23.2 defines ai.onnx opsets 1 to 28; nodes are not checked beyond it"
    );
    clean(&text.replace("30", "28"));
}

/// An attribute the operator has at another opset, or that became an
/// input: the help says since when, from the registry.
#[test]
fn unknown_attributes_say_what_changed() {
    let help = |header: &str, node: &str| {
        let text = format!(
            "<ir_version: 10, opset_import: [{header}]>\n\
             g (float[2, 3] x) => (float[2, 3] y) {{\n  y = {node}\n}}\n"
        );
        let found = findings(&text);
        let unknown = found
            .iter()
            .find(|f| f.diagnostic.code.ends_with("unknown_attribute"))
            .unwrap_or_else(|| panic!("{text}: {found:#?}"));
        unknown.diagnostic.help.clone().unwrap()
    };
    assert_eq!(
        help("\"\": 18", "ReduceMean <axes: ints = [1]> (x)"),
        "`axes` is an input of `ReduceMean` from opset 18 on; up to 17 it was an attribute"
    );
    assert_eq!(
        help("\"\": 13", "Dropout <is_test: int = 1> (x)"),
        "`Dropout` has had no attribute `is_test` since opset 7; up to 6 it had"
    );
    assert_eq!(
        help("\"\": 13", "Split <num_outputs: int = 2> (x)"),
        "`Split` has attribute `num_outputs` from opset 18 on; this model imports opset 13"
    );
    // Never had it: the closest name, as before.
    assert_eq!(
        help("\"\": 18", "ReduceMean <keepdim: int = 1> (x)"),
        "did you mean `keepdims`?"
    );
}

// ---------------------------------------------------------------------------
// The order of the findings.
// ---------------------------------------------------------------------------

/// Findings of every family of rules, several about one node, come in the
/// order of the model, and about one node in the order of the families
/// (header, scope, tensors, operators, ..., inference): the order the
/// passes gave before the rules that look at one node ran in one walk
/// (commit 1259e8c gives this list for this model).
#[test]
fn findings_about_one_node_come_in_the_order_of_the_families() {
    let text = r#"<ir_version: 10, opset_import: ["": 21, "local": 1, "": 21]>
g (bool c, float[N] x) => (float[N] y, float u) {
  u = If (c) <
    then_branch = t () => (float[2] a) <float[2] w = {1.0}> { a = Neg(w) },
    else_branch = e () => (float b) { b = Neg(v) }
  >
  v = Neg(x)
  y = local.F (x)
  s = Softmax <t: tensor = float[3] {1.0, 2.0}, axis: int = 1, axis: int = 2> (q)
  r = Reshape (x, x)
}
<domain: "local", opset_import: ["": 12]>
F <k, k> (x) => (y) {
  y = Softmax <t: tensor = float[2] {1.0}, axis: int = 1, axis: int = 2> (z)
}
"#;
    let model = onnxtxt::parse_model(text).unwrap();
    let found: Vec<(String, String)> = check_model(&model)
        .iter()
        .map(|f| {
            let code = f.diagnostic.code.trim_start_matches("onnxtxt::check::");
            (
                code.to_string(),
                f.diagnostic.path.clone().unwrap_or_default(),
            )
        })
        .collect();
    let expected = [
        ("duplicate_opset_import", "opset_import[2]"),
        (
            "tensor_size",
            r#"graph.node[0].attribute["then_branch"].g.initializer[0]"#,
        ),
        (
            "undefined_value",
            r#"graph.node[0].attribute["else_branch"].g.node[0].input[0]"#,
        ),
        ("unused_value", "graph.node[1].output[0]"),
        ("undefined_value", "graph.node[3].input[0]"),
        ("unused_value", "graph.node[3].output[0]"),
        ("tensor_size", r#"graph.node[3].attribute["t"].t"#),
        ("unknown_attribute", r#"graph.node[3].attribute["t"]"#),
        ("duplicate_attribute", "graph.node[3].attribute[2]"),
        ("unused_value", "graph.node[4].output[0]"),
        ("onnxtxt::infer::type_not_allowed", "graph.node[4]"),
        ("duplicate_attribute", "functions[0].attribute[1]"),
        ("opset_mismatch", "functions[0].node[0].op_type"),
        ("undefined_value", "functions[0].node[0].input[0]"),
        ("tensor_size", r#"functions[0].node[0].attribute["t"].t"#),
        (
            "unknown_attribute",
            r#"functions[0].node[0].attribute["t"]"#,
        ),
        ("duplicate_attribute", "functions[0].node[0].attribute[2]"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(code, path)| (code.to_string(), path.to_string()))
        .collect();
    assert_eq!(found, expected);
}
