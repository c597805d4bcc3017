//! The one walk over the nodes: every graph and function body, each node
//! visited once, with the rules that look at one node at a time run on it
//! together (its domain, [`header`](super::header); the values it reads
//! and defines, [`scope`](super::scope); the tensors in its attributes,
//! [`tensors`](super::tensors); its operator, attributes and arity,
//! [`operators`](super::operators)), so that a large model is read from
//! memory once rather than once per family of rules. A node's subgraphs
//! are walked after its own rules and before its scope rules, which need
//! the subgraphs' reads first.
//!
//! Each family's findings keep the order its own pass gave them, and
//! [`Findings`] puts the families back in the order of the table of the
//! [module](super) for each node: the walk's output is what the passes,
//! run one after the other, gave.

use super::findings::{Family, Findings};
use super::model::{Body, Model, Site};
use super::scope::Scope;
use super::{header, operators, tensors};
use crate::ops::SchemaMemo;

/// Walks every body of `model`, the subgraphs inside their nodes.
pub(crate) fn check(model: &Model<'_>, findings: &mut Findings) {
    let mut schemas = SchemaMemo::default();
    for body in model.top_bodies() {
        walk_body(model, body, None, &mut schemas, findings);
    }
}

/// Walks `body`, its scope inside `parent`'s.
fn walk_body<'a>(
    model: &'a Model<'a>,
    body: &'a Body<'a>,
    parent: Option<&Scope<'_, 'a>>,
    schemas: &mut SchemaMemo<'a>,
    findings: &mut Findings,
) {
    tensors::check_body(body, findings.of(Family::Tensors));
    let mut scope = Scope::open(body, parent, findings.of(Family::Scope));
    let mut subgraphs = body.subgraphs.iter().peekable();
    for index in 0..body.nodes.len() {
        let site = Site::new(model, body, index);
        header::check_node(model, &site, findings.of(Family::Header));
        tensors::check_node(&site, findings.of(Family::Tensors));
        operators::check_node(model, &site, schemas, findings.of(Family::Operators));
        // A subgraph sees what is defined before its node.
        while let Some(&(_, subgraph)) = subgraphs.next_if(|(node, _)| *node == index) {
            walk_body(model, model.body(subgraph), Some(&scope), schemas, findings);
        }
        scope.node(index, findings.of(Family::Scope));
    }
    scope.close(findings.of(Family::Scope));
}
