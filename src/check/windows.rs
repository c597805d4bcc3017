//! Convolutions and poolings: what their operator specs require of the
//! attributes and the weights together, and onnx's shape inference leaves
//! alone (onnx.checker accepts these models; runtimes refuse them). For
//! `Conv`, `ConvInteger`, `QLinearConv`, `ConvTranspose` and the poolings:
//!
//! - `kernel_shape`, `strides` and `dilations` have one value per spatial
//!   axis and `pads` two, the spatial axes counted from the input's rank,
//!   or the weights', or `kernel_shape`;
//! - `kernel_shape` is the weights' spatial shape ("If not present, should
//!   be inferred from input W"; onnxruntime: "kernel_shape is not
//!   compatible with W shape");
//! - `group` divides the channels: a convolution's input has
//!   `group` × W's second dimension channels and W's first dimension is a
//!   multiple of `group` (a transposed convolution's W has as many rows
//!   as the input has channels).
//!
//! Shapes come from inference (declared, initializers', inferred), in the
//! main graph and its subgraphs; a rule with an unknown size says nothing.

use foldhash::HashSet;

use super::findings::{Finding, Findings};
use super::model::{Model, Site};
use crate::infer::{Dim, Inference};
use crate::ir_path::NodePaths;
use crate::proto::AttributeProto;

const WINDOW: &str = "onnxtxt::check::window";

/// A windowed operator: where its weights are, and whether it is a
/// transposed convolution.
struct Windowed {
    /// The input holding the weights, for a convolution.
    weights: Option<usize>,
    transposed: bool,
}

/// The windowed operator `op` of the default domain, if it is one.
fn windowed(op: &str) -> Option<Windowed> {
    let (weights, transposed) = match op {
        "Conv" | "ConvInteger" => (Some(1), false),
        "QLinearConv" => (Some(3), false),
        "ConvTranspose" => (Some(1), true),
        "AveragePool" | "MaxPool" | "LpPool" => (None, false),
        _ => return None,
    };
    Some(Windowed {
        weights,
        transposed,
    })
}

/// Checks every convolution and pooling of the graph and its subgraphs
/// against the shapes `inference` found, except nodes that already have
/// an error (`flagged`).
pub(super) fn check(
    model: &Model<'_>,
    inference: &Inference<'_>,
    flagged: &HashSet<String>,
    findings: &mut Findings,
) {
    for body in model.bodies().iter().filter(|b| b.function.is_none()) {
        let Some(types) = inference.graph(&body.path) else {
            continue;
        };
        let mut paths = NodePaths::new(&body.path);
        for index in 0..body.nodes.len() {
            let site = Site::new(model, body, index);
            let Some(operator) = windowed(site.op()).filter(|_| site.domain().is_empty()) else {
                continue;
            };
            if !flagged.is_empty() && flagged.contains(paths.of(index)) {
                continue;
            }
            let inputs = &site.node.input;
            let shape = |slot: usize| {
                inputs.get(slot).filter(|n| !n.is_empty())?;
                types.node_input(index, inputs.len(), slot)?.shape()
            };
            let node = Node {
                site: &site,
                input: shape(0),
                weights: operator.weights.and_then(shape),
            };
            node.check(&operator, findings);
        }
    }
}

/// A windowed node with the shapes known of its input and weights.
struct Node<'a> {
    site: &'a Site<'a>,
    input: Option<&'a [Dim]>,
    weights: Option<&'a [Dim]>,
}

impl Node<'_> {
    fn check(&self, operator: &Windowed, findings: &mut Findings) {
        let spatial = self.spatial_axes();
        if let Some((spatial, from)) = spatial {
            for (name, per_axis) in [
                ("kernel_shape", 1),
                ("strides", 1),
                ("dilations", 1),
                ("pads", 2),
            ] {
                self.values_per_axis(name, per_axis, spatial, from, findings);
            }
        }
        self.kernel_matches_weights(findings);
        self.groups(operator, findings);
    }

    /// The number of spatial axes and what says so: the input's rank, the
    /// weights', or `kernel_shape`.
    fn spatial_axes(&self) -> Option<(usize, &'static str)> {
        let rank = |shape: Option<&[Dim]>| shape.and_then(|s| s.len().checked_sub(2));
        rank(self.input)
            .map(|n| (n, "the input's shape"))
            .or_else(|| rank(self.weights).map(|n| (n, "the weights' shape")))
            .or_else(|| Some((self.ints("kernel_shape")?.1.len(), "`kernel_shape`")))
    }

    /// The attribute `name` and its index, when the node has it.
    fn attribute(&self, name: &str) -> Option<(usize, &AttributeProto)> {
        let attributes = &self.site.node.attribute;
        let index = attributes
            .iter()
            .position(|a| a.name.as_deref() == Some(name))?;
        Some((index, &attributes[index]))
    }

    /// The list attribute `name` and its index, when the node has it.
    fn ints(&self, name: &str) -> Option<(usize, &[i64])> {
        self.attribute(name)
            .map(|(index, a)| (index, a.ints.as_slice()))
    }

    /// `name` has `per_axis` values for each of the `spatial` axes.
    fn values_per_axis(
        &self,
        name: &str,
        per_axis: usize,
        spatial: usize,
        from: &str,
        findings: &mut Findings,
    ) {
        let Some((index, values)) = self.ints(name) else {
            return;
        };
        let expected = per_axis * spatial;
        if values.len() == expected || from == "`kernel_shape`" && name == "kernel_shape" {
            return;
        }
        let what = if per_axis == 2 {
            "a start and an end"
        } else {
            "one value"
        };
        let summary = format!(
            "`{name}` has {} values, but {from} has {spatial} spatial axes",
            values.len()
        );
        self.report(findings, self.site.attribute_path(index), summary)
            .help(format!(
                "give {what} for each spatial axis: {expected} values"
            ));
    }

    /// `kernel_shape` is the weights' spatial shape.
    fn kernel_matches_weights(&self, findings: &mut Findings) {
        let (Some((index, kernel)), Some(weights)) = (self.ints("kernel_shape"), self.weights)
        else {
            return;
        };
        let Some(spatial) = weights.get(2..).filter(|s| s.len() == kernel.len()) else {
            return;
        };
        let differs = kernel
            .iter()
            .zip(spatial)
            .any(|(&k, d)| d.value().is_some_and(|v| v != k));
        if !differs {
            return;
        }
        let summary = format!(
            "`kernel_shape` is {kernel:?}, but the weights' shape {} has the spatial shape {}",
            shape_text(weights),
            shape_text(spatial)
        );
        self.report(findings, self.site.attribute_path(index), summary)
            .help("`kernel_shape` must be the weights' dimensions after the first two; leave it out to take them from the weights");
    }

    /// `group` divides the channels, as the weights say it does.
    fn groups(&self, operator: &Windowed, findings: &mut Findings) {
        let (Some(input), Some(weights)) = (self.input, self.weights) else {
            return;
        };
        let group_attribute = self.attribute("group");
        let group = group_attribute.map_or(1, |(_, a)| a.i.unwrap_or(1));
        let known = |dims: &[Dim], i: usize| dims.get(i).and_then(Dim::value);
        let (Some(channels), Some(rows), Some(columns)) =
            (known(input, 1), known(weights, 0), known(weights, 1))
        else {
            return;
        };
        if group <= 0 {
            return;
        }
        let summary = if operator.transposed {
            if rows != channels {
                format!(
                    "the input has {channels} channels, but the weights' first dimension is {rows}"
                )
            } else if rows % group != 0 {
                format!(
                    "the weights' first dimension, {rows}, is not a multiple of `group` ({group})"
                )
            } else {
                return;
            }
        } else if columns.checked_mul(group) != Some(channels) {
            format!(
                "the input has {channels} channels, but the weights take {columns} per group × {group} groups"
            )
        } else if rows % group != 0 {
            format!("the weights' first dimension (the output channels), {rows}, is not a multiple of `group` ({group})")
        } else {
            return;
        };
        let path = match group_attribute {
            Some((index, _)) => self.site.attribute_path(index),
            None => self.site.at("op_type"),
        };
        self.report(findings, path, summary);
    }

    /// Reports an error about the node, at IR path `path`.
    fn report<'f>(
        &self,
        findings: &'f mut Findings,
        path: String,
        summary: String,
    ) -> &'f mut Finding {
        findings.error(WINDOW, &self.site.subject(), path, summary)
    }
}

/// A shape as the text syntax writes it: `[16, 1, 2, 2]`.
fn shape_text(dims: &[Dim]) -> String {
    let dims: Vec<String> = dims.iter().map(Dim::to_string).collect();
    format!("[{}]", dims.join(", "))
}
