//! Scope and definitions: every value is defined once (a graph input, an
//! initializer or a node output) and before it is used; subgraphs see the
//! values of their enclosing graphs but may not define them again; graph
//! outputs are assigned; inputs and initializers are not named twice; and
//! the values nobody reads are pointed out.

use std::collections::{HashMap, HashSet};

use super::findings::{named_subject, node_subject, Findings};
use super::model::{Body, BodyKind, Model};
use crate::proto::NodeProto;

/// Checks the values of every graph and function body.
pub(crate) fn check(model: &Model<'_>, findings: &mut Findings) {
    for body in model.bodies() {
        check_body(&body, None, findings);
    }
}

/// The values visible in one graph or body: its own, then its ancestors'.
struct Scope<'p, 'a> {
    /// Name to the IR path that defines it.
    local: HashMap<&'a str, String>,
    parent: Option<&'p Scope<'p, 'a>>,
}

impl Scope<'_, '_> {
    fn outer(&self, name: &str) -> Option<&String> {
        let mut scope = self.parent;
        while let Some(s) = scope {
            if let Some(path) = s.local.get(name) {
                return Some(path);
            }
            scope = s.parent;
        }
        None
    }

    fn visible(&self, name: &str) -> bool {
        self.local.contains_key(name) || self.outer(name).is_some()
    }
}

/// Single assignment, definition before use, duplicates and unused
/// values of one body, then of the subgraphs of its nodes.
fn check_body<'a>(body: &Body<'a>, parent: Option<&Scope<'_, 'a>>, findings: &mut Findings) {
    let mut scope = Scope {
        local: HashMap::new(),
        parent,
    };
    declare_inputs(body, &mut scope, findings);
    declare_initializers(body, &mut scope, findings);
    // Which node first produces each value, to tell "used before it is
    // defined" from "never defined".
    let mut producers: HashMap<&str, usize> = HashMap::new();
    for (index, node) in body.nodes.iter().enumerate() {
        for output in &node.output {
            producers.entry(output.as_str()).or_insert(index);
        }
    }
    for (index, node) in body.nodes.iter().enumerate() {
        let path = body.node_path(index);
        // A subgraph sees what is defined before its node.
        for subgraph in body.subgraphs(node, &path) {
            check_body(&subgraph, Some(&scope), findings);
        }
        check_node_inputs(body, index, &scope, &producers, findings);
        define_node_outputs(node, &path, &mut scope, findings);
    }
    check_outputs(body, &scope, findings);
    report_unused(body, findings);
}

fn declare_inputs<'a>(body: &Body<'a>, scope: &mut Scope<'_, 'a>, findings: &mut Findings) {
    for (name, path) in &body.inputs {
        if name.is_empty() {
            continue;
        }
        if let Some(first) = scope.local.get(name) {
            findings
                .error(
                    "onnxtxt::check::duplicate_input",
                    &named_subject(path, name),
                    path.clone(),
                    format!("the {} has two inputs named `{name}`", body.kind.name()),
                )
                .related(first.clone(), "first input of that name");
        } else {
            scope.local.insert(name, path.clone());
        }
    }
}

fn declare_initializers<'a>(body: &Body<'a>, scope: &mut Scope<'_, 'a>, findings: &mut Findings) {
    let mut initializers: HashMap<&str, &String> = HashMap::new();
    for (name, path) in &body.initializers {
        if let Some(first) = initializers.get(name) {
            findings
                .error(
                    "onnxtxt::check::duplicate_initializer",
                    &named_subject(path, name),
                    path.clone(),
                    format!("the graph has two initializers named `{name}`"),
                )
                .related((*first).clone(), "first initializer of that name");
            continue;
        }
        initializers.insert(name, path);
        // An initializer may also be an input (a default value).
        scope.local.entry(name).or_insert_with(|| path.clone());
    }
}

/// Each input of node `index` must be visible, else it is used before its
/// definition or never defined.
fn check_node_inputs(
    body: &Body<'_>,
    index: usize,
    scope: &Scope<'_, '_>,
    producers: &HashMap<&str, usize>,
    findings: &mut Findings,
) {
    let node = &body.nodes[index];
    let path = body.node_path(index);
    let subject = node_subject(node, &path);
    for (slot, input) in node.input.iter().enumerate() {
        if input.is_empty() || scope.visible(input) {
            continue;
        }
        let input_path = format!("{path}.input[{slot}]");
        let Some(&later) = producers.get(input.as_str()) else {
            let initializer = if body.kind == BodyKind::Graph {
                ", an initializer"
            } else {
                ""
            };
            findings
                .error(
                    "onnxtxt::check::undefined_value",
                    &subject,
                    input_path,
                    format!("`{input}` is used but never defined"),
                )
                .help(format!(
                    "a value must be a {} input{initializer}, or the output of an earlier node",
                    body.kind.name()
                ));
            continue;
        };
        let producer = &body.nodes[later];
        let later_path = body.node_path(later);
        let output = producer.output.iter().position(|o| o == input).unwrap_or(0);
        let summary = if later == index {
            format!("`{input}` is used by the node that produces it")
        } else {
            format!("`{input}` is used before it is defined")
        };
        findings
            .error(
                "onnxtxt::check::use_before_definition",
                &subject,
                input_path,
                summary,
            )
            .related(
                format!("{later_path}.output[{output}]"),
                format!(
                    "`{input}` is defined here, by {}",
                    node_subject(producer, &later_path)
                ),
            )
            .help("nodes must come after the nodes whose outputs they use");
    }
}

/// Defines the outputs of `node`, each once.
fn define_node_outputs<'a>(
    node: &'a NodeProto,
    path: &str,
    scope: &mut Scope<'_, 'a>,
    findings: &mut Findings,
) {
    let subject = node_subject(node, path);
    for (slot, output) in node.output.iter().enumerate() {
        if output.is_empty() {
            continue;
        }
        let output_path = format!("{path}.output[{slot}]");
        let (first, summary, message, help) = if let Some(first) = scope.local.get(output.as_str())
        {
            (
                first,
                format!("`{output}` is assigned a second time"),
                format!("`{output}` is first defined here"),
                "every value must be assigned exactly once; rename one of them",
            )
        } else if let Some(first) = scope.outer(output) {
            (
                first,
                format!("`{output}` is already defined in an enclosing graph"),
                format!("`{output}` is defined here"),
                "a subgraph may not redefine a value of an enclosing graph",
            )
        } else {
            scope.local.insert(output, output_path);
            continue;
        };
        findings
            .error("onnxtxt::check::reassigned", &subject, output_path, summary)
            .related(first.clone(), message)
            .help(help);
    }
}

/// Every output must be assigned, and listed once.
fn check_outputs(body: &Body<'_>, scope: &Scope<'_, '_>, findings: &mut Findings) {
    let mut listed: HashSet<&str> = HashSet::new();
    for (name, path) in &body.outputs {
        if name.is_empty() {
            continue;
        }
        if !scope.visible(name) {
            // onnx.checker rejects this in a graph, not in a function.
            let severity = match body.kind {
                BodyKind::Graph => super::Severity::Error,
                BodyKind::Function => super::Severity::Warning,
            };
            findings
                .push(
                    severity,
                    "onnxtxt::check::output_not_assigned",
                    &named_subject(path, name),
                    path.clone(),
                    format!("{} output `{name}` is never assigned", body.kind.name()),
                )
                .help(format!(
                    "assign `{name}` in a node, or remove it from the outputs"
                ));
        }
        if !listed.insert(name) {
            findings.warning(
                "onnxtxt::check::duplicate_output",
                &named_subject(path, name),
                path.clone(),
                format!("`{name}` is listed twice among the outputs"),
            );
        }
    }
}

/// Node outputs and initializers nobody reads.
fn report_unused(body: &Body<'_>, findings: &mut Findings) {
    let mut used: HashSet<&str> = body.outputs.iter().map(|(n, _)| *n).collect();
    for node in body.nodes {
        uses_of_node(node, &mut used);
    }
    for (index, node) in body.nodes.iter().enumerate() {
        for (slot, output) in node.output.iter().enumerate() {
            if output.is_empty() || used.contains(output.as_str()) {
                continue;
            }
            let path = body.node_path(index);
            findings
                .warning(
                    "onnxtxt::check::unused_value",
                    &node_subject(node, &path),
                    format!("{path}.output[{slot}]"),
                    format!("`{output}` is never used"),
                )
                .help(format!(
                    "use it, make it a {} output, or leave the output name empty",
                    body.kind.name()
                ));
        }
    }
    for (name, path) in &body.initializers {
        if !used.contains(name) {
            findings.warning(
                "onnxtxt::check::unused_initializer",
                &named_subject(path, name),
                path.clone(),
                format!("initializer `{name}` is never used"),
            );
        }
    }
}

/// Every value name a node reads, with those its subgraphs read (outer
/// values are visible in subgraphs) or list as outputs.
fn uses_of_node<'a>(node: &'a NodeProto, used: &mut HashSet<&'a str>) {
    used.extend(node.input.iter().map(String::as_str));
    for attribute in &node.attribute {
        for graph in attribute.g.as_deref().into_iter().chain(&attribute.graphs) {
            used.extend(graph.output.iter().filter_map(|o| o.name.as_deref()));
            for inner in &graph.node {
                uses_of_node(inner, used);
            }
        }
    }
}
