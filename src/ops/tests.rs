//! Lookups at the edges (operators that came later, deprecated ones,
//! domain spellings, opsets older than any version), the function bodies,
//! and the order the lookups rely on. The data is onnx's, as generated;
//! `tests/it/ops_reference.rs` compares it with onnx itself.

use super::*;

fn since(domain: &str, name: &str, opset: i64) -> Option<i64> {
    schema(domain, name, opset).map(Schema::since_version)
}

fn all_schemas() -> impl Iterator<Item = &'static Schema> {
    domains()
        .iter()
        .flat_map(Domain::operators)
        .flat_map(Operator::versions)
}

#[test]
fn every_schema_of_onnx_1_23_2_is_there() {
    assert_eq!(all_schemas().count(), 659);
    let operators = domains().iter().map(|d| d.operators().len());
    assert_eq!(operators.sum::<usize>(), 227);
    let names: Vec<_> = domains().iter().map(Domain::name).collect();
    assert_eq!(
        names,
        [
            "",
            "ai.onnx.ml",
            "ai.onnx.preview",
            "ai.onnx.preview.training"
        ]
    );
}

/// The binary searches need domains, operators and attributes sorted by
/// name, and versions and function bodies by opset.
#[test]
fn everything_searched_is_sorted() {
    fn sorted<T, K: Ord>(items: &[T], key: impl Fn(&T) -> K) -> bool {
        items.windows(2).all(|w| key(&w[0]) < key(&w[1]))
    }
    assert!(sorted(domains(), |d| d.name()));
    for domain in domains() {
        assert!(sorted(domain.operators(), |op| op.name()));
        for op in domain.operators() {
            assert_eq!(op.domain(), domain.name());
            assert!(!op.versions().is_empty());
            assert!(sorted(op.versions(), |s| s.since_version()));
            for s in op.versions() {
                assert_eq!((s.domain(), s.name()), (op.domain(), op.name()));
                assert!(sorted(s.attributes(), |a| a.name()));
                assert!(sorted(s.function_bodies(), |b| b.opset()));
            }
        }
    }
}

#[test]
fn the_schema_in_force_is_the_newest_not_above_the_opset() {
    // Conv has versions 1, 11 and 22.
    assert_eq!(since("", "Conv", 1), Some(1));
    assert_eq!(since("", "Conv", 10), Some(1));
    assert_eq!(since("", "Conv", 11), Some(11));
    assert_eq!(since("", "Conv", 21), Some(11));
    assert_eq!(since("", "Conv", 22), Some(22));
    // An opset newer than onnx knows still gets the newest version, as
    // onnx's checker resolves it.
    assert_eq!(since("", "Conv", 1000), Some(22));
}

#[test]
fn an_operator_that_came_later_has_no_schema_in_force() {
    assert_eq!(since("", "Gelu", 19), None);
    assert_eq!(since("", "Gelu", 20), Some(20));
    let gelu = operator("", "Gelu").unwrap();
    assert_eq!(gelu.versions()[0].since_version(), 20);
    assert!(operators_at("", 19).all(|s| s.name() != "Gelu"));
    assert!(operators_at("", 20).any(|s| s.name() == "Gelu"));
}

#[test]
fn an_opset_older_than_any_version_has_no_schema() {
    assert_eq!(since("", "Relu", 0), None);
    assert_eq!(since("", "Relu", -1), None);
    assert_eq!(since("ai.onnx.ml", "LabelEncoder", 0), None);
    assert_eq!(since("ai.onnx.ml", "LabelEncoder", 1), Some(1));
    assert_eq!(operators_at("", 0).count(), 0);
}

#[test]
fn deprecated_schemas_are_returned_and_say_so() {
    // Upsample: deprecated from opset 10 on, for good.
    let upsample = schema("", "Upsample", 9).unwrap();
    assert_eq!(
        (upsample.since_version(), upsample.deprecated()),
        (9, false)
    );
    let upsample = schema("", "Upsample", 19).unwrap();
    assert_eq!(
        (upsample.since_version(), upsample.deprecated()),
        (10, true)
    );
    // GroupNormalization 18 is deprecated, 21 is not.
    assert!(schema("", "GroupNormalization", 20).unwrap().deprecated());
    assert!(!schema("", "GroupNormalization", 21).unwrap().deprecated());
    // ai.onnx.ml 5 deprecates the tree ensembles in favour of TreeEnsemble.
    assert!(schema("ai.onnx.ml", "TreeEnsembleRegressor", 5)
        .unwrap()
        .deprecated());
    assert!(!schema("ai.onnx.ml", "TreeEnsembleRegressor", 4)
        .unwrap()
        .deprecated());
}

#[test]
fn ai_onnx_has_two_spellings_and_other_domains_one() {
    let plain = schema("", "Conv", 19).unwrap();
    let spelled = schema("ai.onnx", "Conv", 19).unwrap();
    assert!(std::ptr::eq(plain, spelled));
    assert_eq!(spelled.domain(), "");
    assert_eq!(domain("ai.onnx").unwrap().name(), "");
    assert_eq!(domain("").unwrap().display_name(), "ai.onnx");
    assert_eq!(domain("ai.onnx.ml").unwrap().last_opset(), 5);
    // Nothing else is an alias, and names are case-sensitive.
    assert!(schema("onnx", "Conv", 19).is_none());
    assert!(schema("", "conv", 19).is_none());
    assert!(schema("ai.onnx.ml", "Conv", 5).is_none());
    assert!(schema("", "LabelEncoder", 19).is_none());
    assert!(schema("com.microsoft", "FusedConv", 1).is_none());
    assert!(domain("com.microsoft").is_none());
    assert_eq!(operators_at("com.microsoft", 1).count(), 0);
}

#[test]
fn parameters_attributes_and_type_constraints() {
    // A parameter typed by a type string rather than a type parameter.
    let arg_max = schema("", "ArgMax", 13).unwrap();
    let reduced = &arg_max.outputs()[0];
    assert_eq!(reduced.type_str(), "tensor(int64)");
    assert_eq!(arg_max.allowed_types(reduced), ["tensor(int64)"]);

    let shape = schema("", "Shape", 21).unwrap();
    assert_eq!(shape.outputs()[0].type_str(), "T1");
    assert_eq!(shape.allowed_types(&shape.outputs()[0]), ["tensor(int64)"]);
    assert_eq!(shape.allowed_types(&shape.inputs()[0]).len(), 22);
    let start = shape.attribute("start").unwrap();
    assert_eq!(start.default_value(), Some(AttributeValue::Int(0)));
    assert!(shape.attribute("begin").is_none());

    let concat = schema("", "Concat", 13).unwrap();
    let inputs = &concat.inputs()[0];
    assert_eq!(inputs.option(), ParameterOption::Variadic);
    assert_eq!((concat.min_inputs(), concat.max_inputs()), (1, None));
    let axis = concat.attribute("axis").unwrap();
    assert!(axis.required());
    assert_eq!(axis.to_string(), "axis: int (required)");

    let rnn = schema("", "RNN", 22).unwrap();
    let activations = rnn.attribute("activations").unwrap();
    let tanh = AttributeValue::Strings(&["Tanh", "Tanh"]);
    assert_eq!(activations.default_value(), Some(tanh));
    assert_eq!(
        activations.to_string(),
        r#"activations: strings = ["Tanh", "Tanh"]"#
    );

    let loop_ = schema("", "Loop", 21).unwrap();
    let v = &loop_.inputs()[2];
    assert_eq!(
        (v.option(), v.homogeneous(), v.min_arity()),
        (ParameterOption::Variadic, false, 0)
    );
}

#[test]
fn every_attribute_is_found_by_name() {
    for s in all_schemas() {
        for a in s.attributes() {
            assert!(std::ptr::eq(s.attribute(a.name()).unwrap(), a));
        }
    }
}

#[test]
fn an_attribute_is_found_by_its_whole_name_only() {
    // Names one character longer or shorter than a schema's, or of its
    // length but another last character, against a binary search of the
    // sorted attributes.
    for s in all_schemas() {
        for a in s.attributes() {
            let name = a.name();
            let shorter = &name[..name.len() - 1];
            let near = [
                format!("{name}_"),
                shorter.to_string(),
                format!("{shorter}_"),
            ];
            for other in near.iter().map(String::as_str).chain([""]) {
                let sorted = s.attributes().binary_search_by(|x| x.name().cmp(other));
                let expected = sorted.ok().map(|i| s.attributes()[i].name());
                assert_eq!(s.attribute(other).map(|x| x.name()), expected, "{other}");
            }
        }
    }
}

#[test]
fn function_bodies_are_chosen_by_opset() {
    // Softplus 1 is defined by a body written for opset 18.
    let softplus = schema("", "Softplus", 17).unwrap();
    assert_eq!(softplus.since_version(), 1);
    assert!(softplus.function_body(17).is_none());
    assert_eq!(softplus.function_body(18).unwrap().opset(), 18);
    assert_eq!(softplus.function_body(28).unwrap().opset(), 18);
    // LayerNormalization builds its body from the node.
    let layer_norm = schema("", "LayerNormalization", 17).unwrap();
    assert!(layer_norm.function_bodies().is_empty());
    assert_eq!(layer_norm.context_dependent_function_opsets(), [17, 18]);
}

#[test]
fn our_parser_reads_every_function_body() {
    let mut bodies = 0;
    for s in all_schemas() {
        for body in s.function_bodies() {
            let function = body
                .parse()
                .unwrap_or_else(|e| panic!("{} {}: {e:?}", s.name(), s.since_version()));
            assert_eq!(function.name(), s.name());
            assert_eq!(function.domain(), s.domain());
            bodies += 1;
        }
    }
    assert_eq!(bodies, 43);
}

#[test]
fn links_go_to_the_versions_section_on_onnx_ai() {
    let label_encoder = schema("ai.onnx.ml", "LabelEncoder", 5).unwrap();
    assert_eq!(
        label_encoder.doc_url(),
        "https://onnx.ai/onnx/operators/onnx_aionnxml_LabelEncoder.html\
         #l-onnx-opai-onnx-ml-labelencoder-4"
    );
    let adam = operator("ai.onnx.preview.training", "Adam").unwrap();
    assert_eq!(
        adam.doc_url(),
        "https://onnx.ai/onnx/operators/onnx_aionnxpreviewtraining_Adam.html"
    );
}

#[test]
fn what_the_checker_leaves_unchecked_or_refuses_within_bounds() {
    let unchecked: Vec<_> = all_schemas()
        .filter(|s| s.allows_unchecked_attributes())
        .map(|s| (s.name(), s.since_version()))
        .collect();
    assert_eq!(unchecked, [("LayerNormalization", 17)]);
    let batch_norm = schema("", "BatchNormalization", 9).unwrap();
    assert_eq!(batch_norm.allowed_output_counts(), [1, 5]);
    assert!(batch_norm.allows_outputs(5) && !batch_norm.allows_outputs(4));
    assert!(!batch_norm.allows_outputs(6) && !batch_norm.allows_outputs(0));
    let max = schema("", "Max", 13).unwrap();
    assert!(max.allowed_input_counts().is_empty());
    assert!(max.allows_inputs(1) && max.allows_inputs(100) && !max.allows_inputs(0));
}

/// The counts the first line of a generated file gives, after checking that
/// it is the line `grammar/operators.py` writes.
fn header_counts(source: &str) -> Vec<usize> {
    let first = source.lines().next().unwrap_or_default();
    let lead =
        format!("// @generated by `grammar/operators.py` from onnx {ONNX_VERSION}, do not edit: ");
    let counts = first.strip_prefix(&lead).and_then(|c| c.strip_suffix('.'));
    let counts = counts.unwrap_or_else(|| panic!("not the generator's first line: {first}"));
    let count = |part: &str| part.split(' ').next().and_then(|n| n.parse().ok());
    counts
        .split(", ")
        .map(|part| count(part).unwrap())
        .collect()
}

#[test]
fn the_generated_files_hold_what_their_first_lines_count() {
    let schemas = all_schemas().count();
    let operators: usize = domains().iter().map(|d| d.operators().len()).sum();
    assert_eq!(
        header_counts(include_str!("generated/data.rs")),
        [domains().len(), operators, schemas]
    );
    let bodies: usize = all_schemas().map(|s| s.function_bodies().len()).sum();
    assert_eq!(
        header_counts(include_str!("generated/function_bodies.rs")),
        [bodies]
    );
    let contexts = context::all();
    let mut versions: Vec<_> = contexts
        .iter()
        .map(|c| (c.domain, c.name, c.since_version, c.opset))
        .collect();
    versions.dedup();
    let bodies = generated::context_bodies::BODIES.len();
    assert_eq!(
        header_counts(include_str!("generated/context_bodies.rs")),
        [versions.len(), contexts.len(), bodies]
    );
}

#[test]
fn every_node_context_is_of_a_context_dependent_operator_version() {
    for c in context::all() {
        let schema = schema(c.domain, c.name, c.opset).unwrap();
        assert_eq!(schema.since_version(), c.since_version, "{c:?}");
        assert!(schema
            .context_dependent_function_opsets()
            .contains(&c.opset));
        assert!(schema.node_contexts(c.opset).any(|d| std::ptr::eq(c, d)));
    }
}

#[test]
fn every_context_dependent_body_parses_and_prints_back() {
    for text in generated::context_bodies::BODIES {
        let function = crate::parse_function(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let printed = crate::to_text(&function);
        assert_eq!(
            crate::parse_function(&printed).unwrap(),
            function,
            "{printed}"
        );
    }
}

#[test]
fn a_node_finds_the_body_of_its_context() {
    let layer_norm = schema("", "LayerNormalization", 18).unwrap();
    let [x, scale] = ["float[N,4]", "float[4]"].map(|t| crate::parse_type(t).unwrap());
    let inputs = [x, scale];
    let epsilon = |text| [crate::parse_attribute(text).unwrap()];
    let body = |attributes: &[_]| {
        let node = Node {
            inputs: &inputs,
            outputs: 1,
            attributes,
        };
        layer_norm
            .context_dependent_body(18, &node)
            .map(|b| b.text())
    };
    // Given at its default is the same as not given; an int for a float.
    assert_eq!(body(&epsilon("epsilon = 1e-5")), body(&[]));
    assert_eq!(
        body(&epsilon("epsilon: float = 1e-6")),
        body(&epsilon("epsilon=0.000001"))
    );
    assert_ne!(body(&epsilon("epsilon = 1e-6")), body(&[]));
    assert_eq!(body(&epsilon("epsilon = 0.5")), None);
    assert!(body(&[]).unwrap().contains("opset_import: [\"\" : 18]"));
    let celu = schema("", "Celu", 12).unwrap();
    let x = [crate::parse_type("float[3]").unwrap()];
    let alpha = |text| {
        let attributes = [crate::parse_attribute(text).unwrap()];
        let node = Node {
            inputs: &x,
            outputs: 1,
            attributes: &attributes,
        };
        celu.context_dependent_body(12, &node).map(|b| b.text())
    };
    assert_eq!(alpha("alpha = 2"), alpha("alpha = 2.0"));
    assert!(alpha("alpha = 2").is_some());
}
