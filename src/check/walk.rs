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
//! The main graph is walked inside inference's walk over it (checked as
//! `onnx.checker` infers, [`Options::checker`]): each node is checked just
//! before it is inferred, so that inference reads it while it is at hand.
//! Inference's findings are kept apart, for the [`inference`](super::inference)
//! pass; nothing either walk finds depends on the other's.
//!
//! Each family's findings keep the order its own pass gave them, and
//! [`Findings`] puts the families back in the order of the table of the
//! [module](super) for each node: the walk's output is what the passes,
//! run one after the other, gave.

use super::findings::{Family, Findings};
use super::model::{Body, Model, Site};
use super::scope::Scope;
use super::{header, operators, tensors};
use crate::infer::names::prefetch_attributes;
use crate::infer::{Inference, Options};
use crate::ops::SchemaMemo;

/// Walks every body of `model`, the subgraphs inside their nodes, and
/// infers the main graph as it goes: returns the inference.
pub(crate) fn check<'m>(model: &'m Model<'m>, findings: &mut Findings) -> Inference<'m> {
    let mut schemas = SchemaMemo::default();
    let mut bodies = model.top_bodies().peekable();
    let main = bodies.next_if(|body| body.is_main_graph);
    let mut walk = main.map(|body| BodyWalk::open(model, body, None, findings));
    let tables = model.tables.clone();
    let graphs = model.main_graphs();
    let inference =
        crate::infer::infer_model_beside(model.proto, Options::checker(), tables, graphs, {
            let (walk, schemas, findings) = (&mut walk, &mut schemas, &mut *findings);
            move |index| {
                if let Some(walk) = walk {
                    walk.nodes_to(index + 1, schemas, findings);
                }
            }
        });
    if let Some(walk) = walk {
        walk.close(&mut schemas, findings);
    }
    for body in bodies {
        walk_body(model, body, None, &mut schemas, findings);
    }
    inference
}

/// Walks `body`, its scope inside `parent`'s.
fn walk_body<'a>(
    model: &'a Model<'a>,
    body: &'a Body<'a>,
    parent: Option<&Scope<'_, 'a>>,
    schemas: &mut SchemaMemo<'a>,
    findings: &mut Findings,
) {
    BodyWalk::open(model, body, parent, findings).close(schemas, findings);
}

/// The walk over one body, node by node.
struct BodyWalk<'p, 'a> {
    model: &'a Model<'a>,
    body: &'a Body<'a>,
    scope: Scope<'p, 'a>,
    /// The node walked next.
    next: usize,
    /// Where the next node with subgraphs is in `body.subgraphs`.
    subgraph: usize,
}

impl<'p, 'a> BodyWalk<'p, 'a> {
    /// Starts walking `body`, its scope inside `parent`'s: its own
    /// tensors, inputs and initializers.
    fn open(
        model: &'a Model<'a>,
        body: &'a Body<'a>,
        parent: Option<&'p Scope<'p, 'a>>,
        findings: &mut Findings,
    ) -> Self {
        tensors::check_body(body, findings.of(Family::Tensors));
        let scope = Scope::open(body, parent, findings.of(Family::Scope));
        BodyWalk {
            model,
            body,
            scope,
            next: 0,
            subgraph: 0,
        }
    }

    /// Walks the nodes not walked yet before node `end`.
    fn nodes_to(&mut self, end: usize, schemas: &mut SchemaMemo<'a>, findings: &mut Findings) {
        let (model, body) = (self.model, self.body);
        for index in self.next..end.min(body.nodes.len()) {
            if let Some(ahead) = body.nodes.get(index + 1) {
                prefetch_attributes(ahead);
            }
            let site = Site::new(model, body, index);
            header::check_node(model, &site, findings.of(Family::Header));
            tensors::check_node(&site, findings.of(Family::Tensors));
            operators::check_node(model, &site, schemas, findings.of(Family::Operators));
            // A subgraph sees what is defined before its node.
            while let Some(&(_, subgraph)) = body.subgraphs[self.subgraph..]
                .first()
                .filter(|(node, _)| *node == index)
            {
                self.subgraph += 1;
                walk_body(
                    model,
                    model.body(subgraph),
                    Some(&self.scope),
                    schemas,
                    findings,
                );
            }
            self.scope.node(index, findings.of(Family::Scope));
            self.next = index + 1;
        }
    }

    /// Walks the nodes left, then ends the body's scope.
    fn close(mut self, schemas: &mut SchemaMemo<'a>, findings: &mut Findings) {
        self.nodes_to(self.body.nodes.len(), schemas, findings);
        self.scope.close(findings.of(Family::Scope));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::findings::Finding;
    use crate::infer::Inference;
    use crate::proto::ModelProto;

    /// The walk's findings (in the order of the model) and the inference,
    /// made by walking every body, then inferring the model: the two walks
    /// one after the other, as they ran before inference took the main
    /// graph's walk in.
    fn one_after_the_other(proto: &ModelProto) -> (Vec<Finding>, Vec<String>) {
        let model = Model::new(proto);
        let mut findings = Findings::default();
        let mut schemas = SchemaMemo::default();
        for body in model.top_bodies() {
            walk_body(&model, body, None, &mut schemas, &mut findings);
        }
        let tables = model.tables.clone();
        let inference = crate::infer::infer_model_with(proto, Options::checker(), tables);
        (findings.in_model_order(), inferred(&inference))
    }

    /// The same, by [`check`].
    fn together(proto: &ModelProto) -> (Vec<Finding>, Vec<String>) {
        let model = Model::new(proto);
        let mut findings = Findings::default();
        let inference = check(&model, &mut findings);
        (findings.in_model_order(), inferred(&inference))
    }

    /// Everything `inference` holds, written out: its findings in the
    /// order it made them, then each graph's types and appended values.
    fn inferred(inference: &Inference<'_>) -> Vec<String> {
        let mut lines: Vec<String> = inference
            .findings()
            .iter()
            .map(|f| format!("{f:?}"))
            .collect();
        for graph in inference.graphs() {
            let mut types: Vec<String> = graph.types().map(|(n, t)| format!("{n}: {t}")).collect();
            types.sort();
            lines.push(format!("{} {:?} {types:?}", graph.path, graph.appended));
        }
        lines
    }

    #[test]
    fn fresh_dimension_names_skip_those_of_the_main_graphs_subgraphs_only() {
        // `unk__0` is taken in a branch of the main graph, `unk__1` only in
        // a branch inside a function: the reshaped `r` gets `unk__1`, as
        // inference reading every node for the subgraphs would give it.
        let text = r#"
            <ir_version: 10, opset_import: ["": 21, "local": 1]>
            g (bool c, float[2] x, int64[1] s) => (float[2] y, float[?] r) {
                y = If (c) <then_branch = t () => (float[unk__0] z) { z = Identity (x) },
                            else_branch = e () => (float[2] w) { w = Identity (x) }>
                r = Reshape (x, s)
            }
            <domain: "local", opset_import: ["": 21]>
            F (b, u) => (o) {
                o = If (b) <then_branch = t () => (float[unk__1] z) { z = Identity (u) },
                            else_branch = e () => (float[unk__1] w) { w = Identity (u) }>
            }
        "#;
        let proto = crate::parse_model(text).unwrap();
        let (_, inferred) = together(&proto);
        assert_eq!(inferred, one_after_the_other(&proto).1);
        let main = inferred.iter().find(|l| l.starts_with("graph ")).unwrap();
        assert!(main.contains("\"r: float[unk__1]\""), "{main}");
    }

    #[test]
    fn walking_inside_inference_finds_what_the_walks_one_after_the_other_find() {
        // A main graph whose every node has something to find: a subgraph
        // between flagged nodes, values read before and never defined,
        // a wrong operator, arity and attribute, type mistakes, a call of
        // a function with a mistake in its body.
        let mixed = r#"
            <ir_version: 10, opset_import: ["": 21, "local": 1]>
            g (bool c, float[2] x, int64[2] i) => (float[2] y) {
                a = Add (x, i)
                b = Relu (late)
                late = Neg (x)
                d = If (c) <then_branch = t () => (float[2] z) { z = Add (a, i) },
                            else_branch = e () => (float[2] w) { w = Relu (nowhere) }>
                e = Relu <alpha: float = 1.0> (d)
                g2 = Relu (x, x)
                h = local.F (i)
                k = MatMul (x, i)
                f = NoSuchOp (e)
                y = Identity (h)
            }
            <domain: "local", opset_import: ["": 21]>
            F (u) => (o) { o = Relu (u, u) }
        "#;
        let mut corpus = crate::ir_path::corpus_texts();
        corpus.push(("mixed".into(), mixed.into()));
        let mut compared = 0;
        for (name, text) in &corpus {
            let Ok(proto) = crate::parse_model(text) else {
                continue;
            };
            assert_eq!(together(&proto), one_after_the_other(&proto), "{name}");
            compared += 1;
        }
        assert!(compared > 70, "{compared} models compared");
        let (findings, inferred) = together(&crate::parse_model(mixed).unwrap());
        let inference_findings = inferred.iter().filter(|l| l.starts_with("Finding"));
        assert_eq!((findings.len(), inference_findings.count()), (10, 3));
    }
}
