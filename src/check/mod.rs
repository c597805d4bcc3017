//! Validation of what the grammar cannot express, in one run that reports
//! every finding: values defined once and before use, names given once,
//! imported domains, the operators and what nodes give them (attributes,
//! inputs and outputs, against onnx's operator schemas or the model's own
//! functions), tensor constants that match their shape and type, and the
//! required model header fields.
//!
//! [`check_model`] works on any [`ModelProto`] and reports IR paths
//! (`graph.node[3]`, `functions[0].node[1].input[0]`, ...). For text input,
//! [`check_text`] parses, checks and gives every finding the span of the
//! offending text (through the parser's [`SourceMap`]).
//!
//! ```
//! let (_, findings) = onnxtxt::check::check_text(r#"
//!     <ir_version: 10, opset_import: ["": 21]>
//!     g (float x) => (float y) { y = Relu(z) }
//! "#)?;
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].diagnostic.path.as_deref(), Some("graph.node[0].input[0]"));
//! assert_eq!(findings[0].summary, "`z` is used but never defined");
//! # Ok::<(), onnxtxt::Error>(())
//! ```
//!
//! A finding is an error when the ONNX IR spec or an operator's spec
//! forbids what it finds (MUST), or onnx's checker
//! (`onnx.checker.check_model(m, full_check=True)`) rejects the model for
//! it; a warning when the model is allowed but probably not what was
//! meant. An error the checker does not give is one onnxruntime refuses the
//! model for (`tests/it/check_reference.rs`): no rule calls a model invalid
//! that the checker and onnxruntime both accept.
//!
//! The rules come in families, one module each; their findings are put in
//! the order of the model, and those about one node in the order of the
//! table below. The rules that look at one node at a time run in one walk
//! over the nodes (`walk`); the rest are passes over the whole model, run
//! in the order of the table:
//!
//! | family | rules |
//! |---|---|
//! | `header` | header fields, operator set imports, function headers; node domains (walk) |
//! | `scope` | definitions and uses of values, duplicate inputs and initializers, unused values (walk) |
//! | `tensors` | tensor constants and declared shapes (walk, functions' after it) |
//! | `operators` | operators, their attributes and their inputs and outputs (`attributes`, `arity`; walk) |
//! | `attributes` | a function's declared attribute parameters |
//! | `inference` | types and shapes (`crate::infer`; the main graph's inferred in the walk), then convolutions and poolings (`windows`) |
//! | `as_operator` | a function named after a standard operator, against its schema |

mod arity;
mod as_operator;
mod attributes;
pub(crate) mod findings;
mod header;
mod inference;
mod model;
mod operators;
mod scope;
mod tensors;
mod walk;
mod windows;

pub use crate::finding::{Finding, Related, Severity};
pub use as_operator::{check_function_against, check_model_as_operator};

use crate::error::{Error, Label};
use crate::ir_path::{attribute_item, IrPath, ItemKind};
use crate::parser::SourceMap;
use crate::proto::{AttributeProto, ModelProto};
use findings::{Family, Findings};
use model::Model;

/// Checks `model` and returns its findings, errors and warnings, in the
/// order of the model (header, graph, functions; by node within those).
///
/// The passes run in the order of the table of the [module](self), each
/// adding its family's findings; the walk infers the main graph as it goes
/// and hands the inference to the `inference` pass. A new family of rules
/// is a new module with a `check(&Model, &mut Findings)` function, called
/// here, or a `check_node(&Site, ...)` the walk calls; `model::Model` gives it
/// the bodies to walk, with the operator sets and function each is in.
pub fn check_model(model: &ModelProto) -> Vec<Finding> {
    let model = Model::new(model);
    let mut findings = Findings::default();
    header::check(&model, findings.of(Family::Header));
    let inference = walk::check(&model, findings.of(Family::Header));
    tensors::check_functions(&model, findings.of(Family::Tensors));
    attributes::check_parameters(&model, findings.of(Family::Parameters));
    inference::check(&model, inference, findings.of(Family::Inference));
    as_operator::check(&model, findings.of(Family::AsOperator));
    findings.in_model_order()
}

/// Parses `text` as a model, checks it, and locates every finding in the
/// text ([`locate`]). A syntax error is returned as the parser's error.
pub fn check_text(text: &str) -> Result<(ModelProto, Vec<Finding>), Error> {
    let (model, map) = crate::parse_model_with_source_map(text)?;
    let mut findings = check_model(&model);
    locate(&map, &mut findings);
    Ok((model, findings))
}

/// Gives each finding (and its related items) the span of the text of the
/// IR item its path names, or of the nearest enclosing item that has one,
/// and puts the findings in the order of the text (stably: findings at the
/// same place keep their order). `map` must come from parsing the text of
/// the checked model.
pub fn locate(map: &SourceMap, findings: &mut [Finding]) {
    // Header fields have no text of their own when they are missing: the
    // header stands for them, or, without one, the graph's name.
    // A graph or function is shown by its name; anything else whole.
    let find = |path: &str| {
        let body = IrPath::parse(path)
            .is_some_and(|p| matches!(p.kind(), ItemKind::Graph | ItemKind::Function));
        body.then(|| map.span(&format!("{path}.name")))
            .flatten()
            .or_else(|| map.find(path))
            .or_else(|| map.span("header"))
            .or_else(|| map.span("graph.name"))
            .unwrap_or(0..0)
    };
    for finding in findings.iter_mut() {
        let path = finding.diagnostic.path.clone().unwrap_or_default();
        finding.diagnostic.span = find(&path);
        finding.diagnostic.labels = finding
            .related
            .iter()
            .map(|r| Label {
                span: find(&r.path),
                message: r.message.clone(),
            })
            .collect();
    }
    findings.sort_by_key(|f| f.diagnostic.span.start);
}

/// The IR path of `attributes[index]`, the list `field` of the item at
/// `path`, named by the rule of [`IrPath::attribute`](crate::ir_path::IrPath::attribute).
fn attribute_path(path: &str, field: &str, index: usize, attributes: &[AttributeProto]) -> String {
    format!("{path}.{}", attribute_item(field, attributes, index))
}
