//! Operators: what each node calls, and whether it calls it rightly.
//!
//! A node calls an operator of onnx's registry (`ai.onnx`, `ai.onnx.ml`,
//! the preview domains), a model-local function (of a custom domain), or
//! something this check cannot know (an operator of a custom domain).
//! The operator is resolved as onnx.checker resolves it; then the node's
//! attributes ([`attributes`](super::attributes)) and inputs and outputs
//! ([`arity`](super::arity)) are checked against what it calls.

use super::findings::Findings;
use super::model::{Model, Site};

/// Checks what every node calls.
pub(crate) fn check(model: &Model<'_>, findings: &mut Findings) {
    model.for_each_body(&mut |body| {
        for index in 0..body.nodes.len() {
            let site = Site::new(body, index);
            super::attributes::check_node(&site, findings);
        }
    });
}
