//! The type and shape pass: what [`crate::infer`] finds wrong, inferred as
//! `onnx.checker` infers (type constraints checked, no data propagation),
//! so that an error here is one the checker gives too. A node the earlier
//! passes already found wrong (a wrong operator, arity or attribute) gets
//! no inference error as well, nor does a call whose function body has
//! such a node: one mistake, one error. The shapes inferred then serve the
//! rules of convolutions and poolings ([`windows`](super::windows)).

use foldhash::HashSet;

use super::findings::{Finding, Findings};
use super::model::Model;
use crate::infer::Inference;
use crate::ir_path::IrPath;

/// Adds what `inference` (of the main graph, made by the
/// [walk](super::walk)) finds, but at flagged nodes, then the rules of
/// convolutions and poolings.
pub(super) fn check(model: &Model<'_>, mut inference: Inference<'_>, findings: &mut Findings) {
    let mut flagged = flagged_nodes(findings.errors());
    let fresh: Vec<Finding> = inference
        .take_findings()
        .into_iter()
        .filter(|f| !about_flagged(f, &flagged))
        .collect();
    // The errors kept flag their nodes too, for the window rules.
    flagged.extend(flagged_nodes(fresh.iter().filter(|f| f.is_error())));
    findings.extend(fresh);
    super::windows::check(model, &inference, &flagged, findings);
}

/// The paths of the nodes that have one of `errors`.
fn flagged_nodes<'f>(errors: impl Iterator<Item = &'f Finding>) -> HashSet<String> {
    errors
        .filter_map(|f| f.diagnostic.path.as_deref())
        .filter_map(IrPath::node_text)
        .map(str::to_owned)
        .collect()
}

/// Whether `finding` is at (or, through a related place, inside) a node
/// in `flagged`.
fn about_flagged(finding: &Finding, flagged: &HashSet<String>) -> bool {
    let places = finding
        .diagnostic
        .path
        .iter()
        .chain(finding.related.iter().map(|r| &r.path));
    places
        .filter_map(|path| IrPath::node_text(path))
        .any(|node| flagged.contains(node))
}
