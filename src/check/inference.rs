//! The type and shape pass: what [`crate::infer`] finds wrong, inferred as
//! `onnx.checker` infers (type constraints checked, no data propagation),
//! so that an error here is one the checker gives too. A node the earlier
//! passes already found wrong (a wrong operator, arity or attribute) gets
//! no inference error as well, nor does a call whose function body has
//! such a node: one mistake, one error.

use super::findings::{Finding, Findings};
use super::model::Model;

pub(super) fn check(model: &Model<'_>, findings: &mut Findings) {
    let flagged: Vec<&str> = findings
        .errors()
        .filter_map(|f| f.diagnostic.path.as_deref())
        .filter_map(node_of)
        .collect();
    let inferred = crate::infer::check(model.proto);
    let fresh: Vec<Finding> = inferred
        .into_iter()
        .filter(|f| !about_flagged(f, &flagged))
        .collect();
    findings.extend(fresh);
}

/// Whether `finding` is at (or, through a related place, inside) a node
/// in `flagged`.
fn about_flagged(finding: &Finding, flagged: &[&str]) -> bool {
    let places = finding
        .diagnostic
        .path
        .iter()
        .chain(finding.related.iter().map(|r| &r.path));
    places
        .filter_map(|path| node_of(path))
        .any(|node| flagged.contains(&node))
}

/// The path of the innermost node `path` is at or inside
/// (`graph.node[3].attribute["body"].g.node[1].op_type` gives
/// `graph.node[3].attribute["body"].g.node[1]`).
fn node_of(path: &str) -> Option<&str> {
    let at = path.rfind(".node[")?;
    let close = path[at..].find(']')?;
    Some(&path[..at + close + 1])
}
