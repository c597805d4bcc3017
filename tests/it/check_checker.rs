//! Every condition onnx.checker rejects a model for (each `fail_check`,
//! `enforce_has_field` and `enforce_non_empty_field` of onnx's
//! `onnx/checker.cc` at onnx 1.23, and the Python wrapper's), as a table:
//! caught by `onnxtxt check` (a model with that mistake, and the error's
//! code, or the test that proves it), or not applicable (why). The test
//! checks each model; `check_reference.rs` has onnx.checker reject each.

use onnxtxt::check::{check_model, Severity};
use onnxtxt::proto::{ModelProto, TensorProto};

/// How a condition is caught, or why it cannot be.
pub(crate) enum Proof {
    /// A text model with the mistake.
    Text(&'static str),
    /// [`BASE`] changed, for what the text syntax cannot write.
    Changed(fn(&mut ModelProto)),
    /// A test of `tests/it` (`file::function`) proves it.
    Test(&'static str),
    /// Why the condition cannot arise in what `onnxtxt check` reads.
    NotApplicable(&'static str),
}

/// One condition: what onnx.checker says, how it is caught, and the code
/// of the error (without `onnxtxt::check::`, or with `infer::`).
pub(crate) struct Condition {
    pub(crate) says: &'static str,
    pub(crate) proof: Proof,
    pub(crate) code: &'static str,
}

/// A valid model the [`Proof::Changed`] rows change.
pub(crate) const BASE: &str = r#"<ir_version: 10, opset_import: ["": 21, "my": 1]>
g (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}> {
  t = Add(x, w)
  y = my.F(t)
}
<domain: "my", opset_import: ["": 21]>
F (a) => (r) {
  r = Relu(a)
}
"#;

/// The model of a [`Proof::Text`] or [`Proof::Changed`] row.
pub(crate) fn model_of(proof: &Proof) -> Option<ModelProto> {
    match proof {
        Proof::Text(text) => Some(onnxtxt::parse_model(text).expect("the row's model parses")),
        Proof::Changed(change) => {
            let mut model = onnxtxt::parse_model(BASE).unwrap();
            change(&mut model);
            Some(model)
        }
        _ => None,
    }
}

fn graph(model: &mut ModelProto) -> &mut onnxtxt::proto::GraphProto {
    model.graph.as_mut().unwrap()
}

fn input_type(model: &mut ModelProto) -> &mut onnxtxt::proto::TypeProto {
    graph(model).input[0].r#type.as_mut().unwrap()
}

fn weights(model: &mut ModelProto) -> &mut TensorProto {
    &mut graph(model).initializer[0]
}

fn external(tensor: &mut TensorProto) {
    use onnxtxt::proto::tensor_proto::DataLocation;
    tensor.data_location = Some(DataLocation::External as i32);
}

/// `<ir_version: 10, opset_import: ["": 21]>` and `rest`.
macro_rules! text {
    ($rest:expr) => {
        Proof::Text(concat!(
            "<ir_version: 10, opset_import: [\"\": 21]>\n",
            $rest,
            "\n"
        ))
    };
}

/// A graph whose output `y`, of type `output`, is a `Constant` of the
/// sparse tensor `sparse_tensor[shape] {parts}`.
macro_rules! sparse {
    ($output:literal, $shape:literal, $parts:literal) => {
        text!(concat!(
            "g () => (",
            $output,
            " y) {\n  y = Constant <sparse_value: sparse_tensor = sparse_tensor",
            $shape,
            " ",
            $parts,
            "> ()\n}"
        ))
    };
}

const NOT_A_MODEL: &str = "checks data files (SequenceProto, OptionalProto, MapProto), \
                           which are not models; `onnxtxt check` reads models";
const EXTERNAL_FILES: &str = "about the external data files on disk (paths, links, sizes); \
                              `onnxtxt check` does not open them (`parse --inline-external` \
                              checks each tensor's length and checksum)";

/// The conditions, in the order of `checker.cc`.
pub(crate) const CONDITIONS: &[Condition] = &[
    // check_value_info (main graph inputs and outputs)
    Condition {
        says: "Field 'name' of 'value_info' is required to be non-empty",
        proof: text!("g (float[2] \"\") => (float[2] y) {\n  y = Relu(\"\")\n}"),
        code: "empty_input",
    },
    Condition {
        says: "Field 'type' of 'value_info' is required but missing",
        proof: text!("g (float[2] x) => (y) {\n  y = Relu(x)\n}"),
        code: "missing_shape",
    },
    Condition {
        says: "Field 'elem_type' of 'type' is required but missing (tensor)",
        proof: Proof::Changed(|m| {
            use onnxtxt::proto::type_proto::Value;
            if let Some(Value::TensorType(t)) = &mut input_type(m).value {
                t.elem_type = None;
            }
        }),
        code: "missing_shape",
    },
    Condition {
        says: "Field 'shape' of 'type' is required but missing",
        proof: text!("g (float[] x) => (float[2] y) {\n  y = Relu(x)\n}"),
        code: "missing_shape",
    },
    Condition {
        says: "Field 'elem_type' / 'key_type' / 'value_type' / 'name' of 'type' \
               (sequence, optional, map, opaque, sparse tensor) is required",
        proof: Proof::Changed(|m| {
            use onnxtxt::proto::type_proto::Value;
            input_type(m).value = Some(Value::SequenceType(Box::default()));
        }),
        code: "missing_shape",
    },
    Condition {
        says: "Unrecognized type value case",
        proof: Proof::Changed(|m| input_type(m).value = None),
        code: "missing_shape",
    },
    // check_tensor
    Condition {
        says: "Field 'data_type' of 'tensor' is required but missing; UNDEFINED not allowed; \
               Unrecognized data_type",
        proof: Proof::Test("check::values_in_the_wrong_field"),
        code: "tensor_type",
    },
    Condition {
        says: "Data of TensorProto is stored externally and should not have data field",
        proof: Proof::Changed(|m| {
            let w = weights(m);
            external(w);
            w.external_data.push(onnxtxt::proto::StringStringEntryProto {
                key: Some("location".into()),
                value: Some("w.bin".into()),
            });
        }),
        code: "tensor_field",
    },
    Condition {
        says: "TensorProto is stored externally but doesn't have a location",
        proof: Proof::Changed(|m| {
            let w = weights(m);
            external(w);
            w.float_data.clear();
        }),
        code: "tensor_field",
    },
    Condition {
        says: "dims product overflows (safe_dim_product)",
        proof: Proof::Test("check::huge_dims_from_binary_do_not_allocate"),
        code: "tensor_size",
    },
    Condition {
        says: "TensorProto is 0-element but contains data!",
        proof: text!("g (float[2] x) => (float[0] w) <float[0] w = {1.0}> {\n}"),
        code: "tensor_size",
    },
    Condition {
        says: "TensorProto should contain one and only one value field",
        proof: Proof::Test("check::raw_data_length"),
        code: "tensor_field",
    },
    Condition {
        says: "STRING data should not be stored in raw_data field",
        proof: Proof::Test("check::raw_data_length"),
        code: "tensor_field",
    },
    Condition {
        says: "raw_data has fewer bytes than the shape needs",
        proof: Proof::Test("check::raw_data_length"),
        code: "tensor_size",
    },
    Condition {
        says: "values of the element type are not in the field it uses (check_data_field)",
        proof: Proof::Test("check::values_in_the_wrong_field"),
        code: "tensor_field",
    },
    Condition {
        says: "int32_data has fewer entries than the (packed) sub-byte elements need",
        proof: text!("g () => (int4[4] w) <int4[4] w = {}> {\n}"),
        code: "tensor_size",
    },
    Condition {
        says: "check_sequence, check_optional, check_map (each of their conditions)",
        proof: Proof::NotApplicable(NOT_A_MODEL),
        code: "",
    },
    // check_sparse_tensor
    Condition {
        says: "Field 'values' of 'sparse_tensor_proto' is required but missing",
        proof: Proof::Changed(|m| {
            let sparse = onnxtxt::proto::SparseTensorProto {
                dims: vec![2],
                ..Default::default()
            };
            graph(m).sparse_initializer.push(sparse);
        }),
        code: "sparse_tensor",
    },
    Condition {
        says: "Sparse tensor values must have rank 1",
        proof: sparse!("float[4]", "[4]", "{values: float[1, 2] {1.0, 2.0}, indices: int64[2] {0, 1}}"),
        code: "sparse_tensor",
    },
    Condition {
        says: "Sparse tensor must have a dense-rank > 0",
        proof: sparse!("float", "[]", "{values: float[1] {1.0}, indices: int64[1] {0}}"),
        code: "sparse_tensor",
    },
    Condition {
        says: "Sparse tensor dimensions are not positive",
        proof: sparse!("float[0, 4]", "[0, 4]", "{values: float[2] {1.0, 2.0}, indices: int64[2] {0, 1}}"),
        code: "sparse_tensor",
    },
    Condition {
        says: "Sparse tensor indices must have INT64 type",
        proof: sparse!("float[4]", "[4]", "{values: float[2] {1.0, 2.0}, indices: int32[2] {0, 1}}"),
        code: "sparse_tensor",
    },
    Condition {
        says: "Sparse tensor indices has N values, but NNZ is M (and the rank-2 dimension checks)",
        proof: sparse!("float[4]", "[4]", "{values: float[2] {1.0, 2.0}, indices: int64[3] {0, 1, 2}}"),
        code: "sparse_tensor",
    },
    Condition {
        says: "Sparse tensor index value out of range",
        proof: sparse!("float[4]", "[4]", "{values: float[2] {1.0, 2.0}, indices: int64[2] {1, 9}}"),
        code: "sparse_tensor",
    },
    Condition {
        says: "Sparse tensor index value not in (lexicographic) sorted order",
        proof: sparse!("float[4]", "[4]", "{values: float[2] {1.0, 2.0}, indices: int64[2] {3, 1}}"),
        code: "sparse_tensor",
    },
    Condition {
        says: "Sparse tensor indices must have rank 1 or 2",
        proof: sparse!("float[4]", "[4]", "{values: float[1] {1.0}, indices: int64[1, 1, 1] {0}}"),
        code: "sparse_tensor",
    },
    Condition {
        says: "Sparse tensor has no index values",
        proof: sparse!("float[4]", "[4]", "{values: float[1] {1.0}}"),
        code: "sparse_tensor",
    },
    // check_attribute
    Condition {
        says: "Field 'name' of 'attr' is required to be non-empty",
        proof: Proof::Changed(|m| {
            let node = &mut graph(m).node[0];
            node.attribute.push(onnxtxt::proto::AttributeProto {
                name: Some(String::new()),
                r#type: Some(2),
                i: Some(1),
                ..Default::default()
            });
        }),
        code: "unknown_attribute",
    },
    Condition {
        says: "Field 'type' of 'attr' is required but missing",
        proof: Proof::Test("check::attributes_are_checked_against_the_schema"),
        code: "attribute_type",
    },
    Condition {
        says: "type field and data field mismatch in attribute; more than one value field",
        proof: Proof::Changed(|m| {
            graph(m).node[0]
                .attribute
                .push(onnxtxt::proto::AttributeProto {
                    name: Some("alpha".into()),
                    r#type: Some(2),
                    f: Some(1.0),
                    ..Default::default()
                })
        }),
        code: "attribute_value",
    },
    Condition {
        says: "Attribute should refer to attribute in parent node (a reference holding a value, \
               in a subgraph)",
        proof: Proof::Changed(|m| {
            *m = onnxtxt::parse_model(
                "<ir_version: 10, opset_import: [\"\": 21]>\n\
                 g (bool c, float[2] x) => (float[2] y) {\n  y = If (c) <\n    \
                 then_branch: graph = t () => (float[2] z) { z = LeakyRelu <alpha: float = @alpha> (x) },\n    \
                 else_branch: graph = e () => (float[2] z) { z = Neg(x) }>\n}\n",
            )
            .unwrap();
            let then_branch = graph(m).node[0].attribute[0].g.as_mut().unwrap();
            then_branch.node[0].attribute[0].f = Some(1.0);
        }),
        code: "attribute_value",
    },
    // check_node
    Condition {
        says: "Field 'op_type' of 'node' is required to be non-empty",
        proof: text!("g (float[2] x) => (float[2] y) {\n  y = (x)\n}"),
        code: "missing_operator",
    },
    Condition {
        says: "NodeProto has zero input and zero output",
        proof: Proof::Changed(|m| {
            graph(m).node.push(onnxtxt::proto::NodeProto {
                op_type: Some("Relu".into()),
                ..Default::default()
            })
        }),
        code: "empty_node",
    },
    Condition {
        says: "No opset import for domain",
        proof: text!("g (float[2] x) => (float[2] y) {\n  y = com.other.Foo(x)\n}"),
        code: "domain_not_imported",
    },
    Condition {
        says: "Attribute appeared multiple times",
        proof: text!(
            "g (float[2] x) => (float[2] y) {\n  y = LeakyRelu <alpha: float = 0.1, alpha: float = 0.2> (x)\n}"
        ),
        code: "duplicate_attribute",
    },
    Condition {
        says: "No Op registered for OP with domain_version of N",
        proof: text!("g (float[2] x) => (float[2] y) {\n  y = Rleu(x)\n}"),
        code: "unknown_operator",
    },
    Condition {
        says: "Op registered for OP is deprecated in domain_version of N",
        proof: Proof::Test("check::operators_are_looked_up_at_the_imported_opset"),
        code: "deprecated_operator",
    },
    Condition {
        says: "schema->Verify(node): input and output counts, attributes, required attributes",
        proof: Proof::Test("check::inputs_and_outputs_are_counted_as_the_checker_counts_them"),
        code: "input_count",
    },
    // check_graph
    Condition {
        says: "Field 'name' of 'graph' is required to be non-empty",
        proof: text!("\"\" (float[2] x) => (float[2] y) {\n  y = Relu(x)\n}"),
        code: "graph_without_name",
    },
    Condition {
        says: "SSA: a name used as graph input names multiple times",
        proof: Proof::Test("check::duplicate_graph_inputs"),
        code: "duplicate_input",
    },
    Condition {
        says: "Field 'name' of 'init' is required; Tensor initializers must have a non-empty name",
        proof: Proof::Changed(|m| weights(m).name = Some(String::new())),
        code: "initializer_without_name",
    },
    Condition {
        says: "initializer name is not unique (and across sparse initializers)",
        proof: Proof::Test("check::duplicate_initializers"),
        code: "duplicate_initializer",
    },
    Condition {
        says: "in initializer but not in graph input (IR version 3 or less; the main graph, \
               not yet subgraphs: see header.rs)",
        proof: Proof::Test("check::before_ir_version_4_initializers_are_inputs"),
        code: "initializer_not_input",
    },
    Condition {
        says: "Sparse tensor initializers must have a non-empty name",
        proof: Proof::Changed(|m| {
            let values = TensorProto {
                name: Some(String::new()),
                data_type: Some(1),
                dims: vec![1],
                float_data: vec![1.0],
                ..Default::default()
            };
            let indices = TensorProto {
                data_type: Some(7),
                dims: vec![1],
                int64_data: vec![0],
                ..Default::default()
            };
            graph(m)
                .sparse_initializer
                .push(onnxtxt::proto::SparseTensorProto {
                    values: Some(values),
                    indices: Some(indices),
                    dims: vec![2],
                });
        }),
        code: "initializer_without_name",
    },
    Condition {
        says: "Nodes in a graph must be topologically sorted",
        proof: Proof::Test("check::use_before_definition"),
        code: "use_before_definition",
    },
    Condition {
        says: "SSA: a name used as output names multiple times",
        proof: Proof::Test("check::value_assigned_by_two_nodes"),
        code: "reassigned",
    },
    Condition {
        says: "Graph output is not an output of any node in graph",
        proof: Proof::Test("check::graph_output_never_assigned"),
        code: "output_not_assigned",
    },
    // check_opset_compatibility, function calls
    Condition {
        says: "No Opset registered for domain (a function's node)",
        proof: Proof::Test("check::function_domain_counts_only_if_imported"),
        code: "domain_not_imported",
    },
    Condition {
        says: "Opset import for domain in function op is not compatible with the version imported by model",
        proof: Proof::Test("check::function_bodies_are_checked_with_their_own_opsets"),
        code: "opset_mismatch",
    },
    Condition {
        says: "Cycle detected in model-local function references; call chain depth exceeds limit",
        proof: Proof::Changed(|m| {
            let function = &mut m.functions[0];
            function.opset_import.push(onnxtxt::proto::OperatorSetIdProto {
                domain: Some("my".into()),
                version: Some(1),
            });
            function.node[0].op_type = Some("F".into());
            function.node[0].domain = Some("my".into());
        }),
        code: "infer::invalid",
    },
    Condition {
        says: "Model contains more than 10000 local functions",
        proof: Proof::NotApplicable(
            "a limit against malicious models, not a rule of the spec; `check` handles any number",
        ),
        code: "",
    },
    Condition {
        says: "Model contains multiple local functions with the same implementation id",
        proof: Proof::Test("check::duplicate_functions"),
        code: "duplicate_function",
    },
    // check_function
    Condition {
        says: "Field 'name' of 'function' is required to be non-empty",
        proof: Proof::Changed(|m| m.functions[0].name = Some(String::new())),
        code: "function_header",
    },
    Condition {
        says: "Field 'domain' of 'function' is required but missing (IR version 8 on)",
        proof: Proof::Changed(|m| m.functions[0].domain = None),
        code: "function_header",
    },
    Condition {
        says: "SSA: a function input used multiple times",
        proof: Proof::Changed(|m| m.functions[0].input.push("a".into())),
        code: "duplicate_input",
    },
    Condition {
        says: "function should not have duplicate outputs specified",
        proof: Proof::Changed(|m| m.functions[0].output.push("r".into())),
        code: "duplicate_output",
    },
    Condition {
        says: "function should not have duplicate attributes specified",
        proof: Proof::Test("check::duplicate_function_attributes"),
        code: "duplicate_attribute",
    },
    Condition {
        says: "Nodes in a function must be topologically sorted",
        proof: Proof::Changed(|m| m.functions[0].node[0].input[0] = "later".into()),
        code: "undefined_value",
    },
    // check_model
    Condition {
        says: "The model does not have an ir_version set properly",
        proof: Proof::Test("check::header_needs_ir_version_and_opset_import"),
        code: "missing_ir_version",
    },
    Condition {
        says: "Your model ir_version is higher than the checker's",
        proof: Proof::Text(
            "<ir_version: 99, opset_import: [\"\": 21]>\ng (float[2] x) => (float[2] y) {\n  y = Relu(x)\n}\n",
        ),
        code: "ir_version",
    },
    Condition {
        says: "Your model has duplicate keys in metadata_props",
        proof: Proof::Text(
            "<ir_version: 10, opset_import: [\"\": 21], metadata_props: [\"a\": \"1\", \"a\": \"2\"]>\n\
             g (float[2] x) => (float[2] y) {\n  y = Relu(x)\n}\n",
        ),
        code: "duplicate_metadata",
    },
    Condition {
        says: "model with IR version >= 3 must specify opset_import for ONNX",
        proof: Proof::Test("check::header_needs_ir_version_and_opset_import"),
        code: "missing_opset_import",
    },
    Condition {
        says: "model with IR version < 3 cannot have opset_import specified",
        proof: Proof::Text(
            "<ir_version: 2, opset_import: [\"\": 1]>\ng (float[2] x) => (float[2] y) {\n  y = Relu(x)\n}\n",
        ),
        code: "ir_version",
    },
    Condition {
        says: "external data: path canonicalization, outside the model directory, empty, \
               absolute or '..' locations, links, unreadable files",
        proof: Proof::NotApplicable(EXTERNAL_FILES),
        code: "",
    },
    // check_model(full_check=True): strict shape inference
    Condition {
        says: "[ShapeInferenceError] / [TypeInferenceError] (full_check)",
        proof: Proof::Test("infer_cli::check_reports_shape_and_type_mistakes_at_their_nodes"),
        code: "infer::",
    },
];

/// The codes `onnxtxt check` gave, with their prefix shortened.
fn error_codes(model: &ModelProto) -> Vec<String> {
    check_model(model)
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| {
            let code = &f.diagnostic.code;
            code.strip_prefix("onnxtxt::check::")
                .or_else(|| code.strip_prefix("onnxtxt::"))
                .unwrap_or(code)
                .to_string()
        })
        .collect()
}

#[test]
fn every_condition_of_the_checker_is_caught_or_not_applicable() {
    assert!(error_codes(&onnxtxt::parse_model(BASE).unwrap()).is_empty());
    let sources: String = ["check.rs", "infer_cli.rs"]
        .iter()
        .map(|file| {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/").to_string() + file;
            std::fs::read_to_string(path).unwrap()
        })
        .collect();
    for condition in CONDITIONS {
        let says = condition.says;
        match &condition.proof {
            Proof::Text(_) | Proof::Changed(_) => {
                let model = model_of(&condition.proof).unwrap();
                let codes = error_codes(&model);
                assert!(
                    codes.iter().any(|c| c == condition.code),
                    "{says}: expected {}, got {codes:?}",
                    condition.code
                );
            }
            Proof::Test(test) => {
                let (_, function) = test.split_once("::").unwrap();
                assert!(
                    sources.contains(&format!("fn {function}(")),
                    "{says}: no test {test}"
                );
                assert!(
                    sources.contains(condition.code),
                    "{says}: {test} names no {}",
                    condition.code
                );
            }
            Proof::NotApplicable(why) => assert!(!why.is_empty()),
        }
    }
}
