//! Inferred types as comments: `onnxtxt print --types` writes each node's
//! output types at the end of its line, `y = MatMul (a, b) #: float[B,4]`,
//! and `onnxtxt fmt` refreshes them.
//!
//! A type comment starts with `#:` ([`TYPE_COMMENT`]), which tells it from
//! a comment of the author's: fmt replaces every `#:` comment (or the `#:`
//! part at the end of a comment) with the types inferred now, and leaves
//! other comments alone. The parser, like for any comment, ignores them.

use std::collections::HashMap;

use crate::proto::{GraphProto, ModelProto};
use crate::Printer;

use super::types::{Dim, Type};
use super::{infer_model, Inference, Options, FRESH_PREFIX};
use crate::ir_path::{holds_graph, AttributeKeys};

/// How a type comment starts.
pub const TYPE_COMMENT: &str = "#:";

/// `model` printed by `printer`, each node followed by its outputs'
/// inferred types (`#: float[B,4]`; `?` where nothing is known).
///
/// ```
/// let model = onnxtxt::parse_model(r#"
///     <ir_version: 10, opset_import: ["": 21]>
///     g (float[B, 3] a, float[3, 4] b) => (float[] y) { y = MatMul(a, b) }
/// "#)?;
/// let text = onnxtxt::infer::print_with_types(&model, &onnxtxt::Printer::new());
/// assert!(text.contains("y = MatMul (a, b) #: float[B,4]"), "{text}");
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn print_with_types(model: &ModelProto, printer: &Printer) -> String {
    let mut comments = crate::printer::Comments::default();
    add_type_comments(model, &mut comments);
    printer.print_with_comments(model, &comments)
}

/// Adds to `comments` a trailing type comment for each node of `model`'s
/// graphs (function bodies have no types of their own: they depend on the
/// call).
pub(crate) fn add_type_comments(model: &ModelProto, comments: &mut crate::printer::Comments) {
    let inference = infer_model(model, Options::default());
    if let Some(graph) = &model.graph {
        annotate_graph(graph, "graph", &inference, comments);
    }
}

fn annotate_graph(
    graph: &GraphProto,
    path: &str,
    inference: &Inference<'_>,
    comments: &mut crate::printer::Comments,
) {
    let types = inference.graph(path);
    for (i, node) in graph.node.iter().enumerate() {
        let node_path = format!("{path}.node[{i}]");
        let shown: Vec<String> = node
            .output
            .iter()
            .filter(|name| !name.is_empty())
            .map(|name| {
                let ty = types.and_then(|t| t.get(name.as_str()));
                ty.map_or_else(|| "?".to_owned(), display)
            })
            .collect();
        if !shown.is_empty() {
            let line = format!("{TYPE_COMMENT} {}", shown.join(", "));
            comments
                .trailing
                .entry(node_path.clone())
                .or_default()
                .push(line);
        }
        if !node.attribute.iter().any(holds_graph) {
            continue;
        }
        let keys = AttributeKeys::new(&node.attribute);
        let holders = node.attribute.iter().enumerate();
        for (index, attribute) in holders.filter(|(_, a)| holds_graph(a)) {
            let prefix = format!("{node_path}.{}", keys.item("attribute", index));
            if let Some(g) = &attribute.g {
                annotate_graph(g, &format!("{prefix}.g"), inference, comments);
            }
            for (k, g) in attribute.graphs.iter().enumerate() {
                annotate_graph(g, &format!("{prefix}.graphs[{k}]"), inference, comments);
            }
        }
    }
}

/// A type as a comment shows it: the text syntax, with the names
/// inference gave unknown dimensions shown as `?`.
fn display(ty: &Type) -> String {
    let mut ty = ty.clone();
    ty.dims_mut(&mut |d| {
        if matches!(d, Dim::Param(p) if p.starts_with(FRESH_PREFIX)) {
            *d = Dim::Unknown;
        }
    });
    ty.to_string()
}

/// Takes the type comments out of `trailing` (the trailing comments of a
/// formatted text, by node path): whole `#:` comments go, and a comment
/// that ends with one keeps its part before. Returns whether there were
/// any.
pub(crate) fn strip_type_comments(trailing: &mut HashMap<String, Vec<String>>) -> bool {
    let mut found = false;
    for lines in trailing.values_mut() {
        lines.retain_mut(|line| {
            let start = if line.starts_with(TYPE_COMMENT) {
                Some(0)
            } else {
                line.rfind(&format!(" {TYPE_COMMENT} ")).map(|i| i + 1)
            };
            let Some(start) = start else { return true };
            found = true;
            line.truncate(start);
            let kept = line.trim_end().len();
            line.truncate(kept);
            !line.is_empty()
        });
    }
    trailing.retain(|_, lines| !lines.is_empty());
    found
}
