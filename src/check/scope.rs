//! Scope and definitions: every value is defined once (a graph input, an
//! initializer or a node output) and before it is used; subgraphs see the
//! values of their enclosing graphs but may not define them again; graph
//! outputs are assigned; inputs and initializers are not named twice; and
//! the values nobody reads are pointed out.

use std::cell::Cell;

use std::collections::hash_map::Entry;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::findings::{named_subject, node_subject, Findings, Severity};
use super::model::{Body, BodyKind, Item};
use crate::proto::NodeProto;

/// Where a value is defined in its body.
#[derive(Debug, Clone, Copy)]
enum Definition<'a> {
    /// An input or an initializer.
    Item(Item<'a>),
    /// Output `slot` of node `node`.
    Output { node: usize, slot: usize },
}

/// A value defined in a scope, and whether anything reads it.
struct Value<'a> {
    definition: Definition<'a>,
    used: Cell<bool>,
}

impl<'a> Value<'a> {
    fn new(definition: Definition<'a>) -> Self {
        Value {
            definition,
            used: Cell::new(false),
        }
    }
}

/// The values visible in one graph or body: its own, then its ancestors'.
/// The walk ([`walk`](super::walk)) opens one for a body, gives it the
/// body's nodes in order (a node's subgraphs, with this scope as their
/// parent, before the node) and closes it.
pub(crate) struct Scope<'p, 'a> {
    body: &'p Body<'a>,
    local: HashMap<&'a str, Value<'a>>,
    parent: Option<&'p Scope<'p, 'a>>,
    /// Names read before anything defines them (an error), which count as
    /// used.
    read_early: HashSet<&'a str>,
    /// Which node first produces each value, to tell "used before it is
    /// defined" from "never defined" (made when needed: most bodies use no
    /// value before it is defined).
    producers: Option<HashMap<&'a str, usize>>,
}

impl<'p, 'a> Scope<'p, 'a> {
    /// The scope of `body`, inside `parent`, with its inputs and
    /// initializers defined.
    pub(crate) fn open(
        body: &'p Body<'a>,
        parent: Option<&'p Scope<'p, 'a>>,
        findings: &mut Findings,
    ) -> Self {
        let mut scope = Scope {
            body,
            local: HashMap::new(),
            parent,
            read_early: HashSet::new(),
            producers: None,
        };
        declare_inputs(&mut scope, findings);
        declare_initializers(&mut scope, findings);
        scope
    }

    /// Node `index` of the body: its inputs are visible, its outputs
    /// defined once.
    pub(crate) fn node(&mut self, index: usize, findings: &mut Findings) {
        check_node_inputs(self, index, findings);
        define_node_outputs(self, index, findings);
    }

    /// The body's outputs are assigned, and its values used.
    pub(crate) fn close(self, findings: &mut Findings) {
        check_outputs(&self, findings);
        report_unused(&self, findings);
    }
}

impl<'a> Scope<'_, 'a> {
    /// The IR path of `definition`, one of this scope's.
    fn path_of(&self, definition: Definition<'_>) -> String {
        match definition {
            Definition::Item(item) => self.body.item_path(&item),
            Definition::Output { node, slot } => {
                format!("{}.output[{slot}]", self.body.node_path(node))
            }
        }
    }

    /// The IR path of `name`'s definition in this scope.
    fn local_path(&self, name: &str) -> Option<String> {
        self.local.get(name).map(|e| self.path_of(e.definition))
    }

    /// The IR path of `name`'s definition in this scope or an enclosing
    /// one.
    fn path_in_scope(&self, name: &str) -> Option<String> {
        let mut scope = Some(self);
        while let Some(s) = scope {
            if let Some(path) = s.local_path(name) {
                return Some(path);
            }
            scope = s.parent;
        }
        None
    }

    /// Whether `name` is visible here; if it is, it is now used.
    fn read(&self, name: &str) -> bool {
        let mut scope = Some(self);
        while let Some(s) = scope {
            if let Some(entry) = s.local.get(name) {
                entry.used.set(true);
                return true;
            }
            scope = s.parent;
        }
        false
    }

    /// Whether `name`, defined here, is read (or was read before its
    /// definition).
    fn is_used(&self, name: &str) -> bool {
        self.local.get(name).is_none_or(|v| v.used.get()) || self.read_early.contains(name)
    }
}

fn declare_inputs(scope: &mut Scope<'_, '_>, findings: &mut Findings) {
    let body = scope.body;
    for input in &body.inputs {
        let name = input.name;
        if name.is_empty() {
            continue;
        }
        if let Some(first) = scope.local_path(name) {
            let path = body.item_path(input);
            findings
                .error(
                    "onnxtxt::check::duplicate_input",
                    &named_subject(&path, name),
                    path.clone(),
                    format!("the {} has two inputs named `{name}`", body.kind.name()),
                )
                .related(first, "first input of that name");
        } else {
            scope
                .local
                .insert(name, Value::new(Definition::Item(*input)));
        }
    }
}

fn declare_initializers(scope: &mut Scope<'_, '_>, findings: &mut Findings) {
    let body = scope.body;
    let mut initializers: HashMap<&str, &Item<'_>> = HashMap::new();
    for initializer in &body.initializers {
        let name = initializer.name;
        if let Some(first) = initializers.get(name) {
            let path = body.item_path(initializer);
            findings
                .error(
                    "onnxtxt::check::duplicate_initializer",
                    &named_subject(&path, name),
                    path.clone(),
                    format!("the graph has two initializers named `{name}`"),
                )
                .related(body.item_path(first), "first initializer of that name");
            continue;
        }
        initializers.insert(name, initializer);
        // An initializer may also be an input (a default value).
        scope
            .local
            .entry(name)
            .or_insert_with(|| Value::new(Definition::Item(*initializer)));
    }
}

/// Each input of node `index` must be visible, else it is used before its
/// definition or never defined.
fn check_node_inputs(scope: &mut Scope<'_, '_>, index: usize, findings: &mut Findings) {
    let body = scope.body;
    let node = &body.nodes[index];
    for (slot, input) in node.input.iter().enumerate() {
        if input.is_empty() || scope.read(input) {
            continue;
        }
        scope.read_early.insert(input);
        let path = body.node_path(index);
        let subject = node_subject(node, &path);
        let input_path = format!("{path}.input[{slot}]");
        let producers = scope
            .producers
            .get_or_insert_with(|| first_producers(body.nodes));
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

/// The first node that produces each value of `nodes`.
fn first_producers(nodes: &[NodeProto]) -> HashMap<&str, usize> {
    let mut producers = HashMap::new();
    for (index, node) in nodes.iter().enumerate() {
        for output in &node.output {
            producers.entry(output.as_str()).or_insert(index);
        }
    }
    producers
}

/// Defines the outputs of node `index`, each once.
fn define_node_outputs(scope: &mut Scope<'_, '_>, index: usize, findings: &mut Findings) {
    let body = scope.body;
    let node = &body.nodes[index];
    for (slot, output) in node.output.iter().enumerate() {
        if output.is_empty() {
            continue;
        }
        let parent = scope.parent;
        let (first, summary, message, help) = match scope.local.entry(output) {
            Entry::Occupied(first) => (
                first.get().definition,
                format!("`{output}` is assigned a second time"),
                format!("`{output}` is first defined here"),
                "every value must be assigned exactly once; rename one of them",
            ),
            Entry::Vacant(vacant) => {
                let Some(first) = parent.and_then(|p| p.path_in_scope(output)) else {
                    let definition = Definition::Output { node: index, slot };
                    vacant.insert(Value::new(definition));
                    continue;
                };
                let path = body.node_path(index);
                findings
                    .error(
                        "onnxtxt::check::reassigned",
                        &node_subject(node, &path),
                        format!("{path}.output[{slot}]"),
                        format!("`{output}` is already defined in an enclosing graph"),
                    )
                    .related(first, format!("`{output}` is defined here"))
                    .help("a subgraph may not redefine a value of an enclosing graph");
                continue;
            }
        };
        let first = scope.path_of(first);
        let path = body.node_path(index);
        findings
            .error(
                "onnxtxt::check::reassigned",
                &node_subject(node, &path),
                format!("{path}.output[{slot}]"),
                summary,
            )
            .related(first, message)
            .help(help);
    }
}

/// Every output must be assigned, and listed once.
fn check_outputs(scope: &Scope<'_, '_>, findings: &mut Findings) {
    let body = scope.body;
    let mut listed: HashSet<&str> = HashSet::new();
    for output in &body.outputs {
        let name = output.name;
        if name.is_empty() {
            continue;
        }
        if !scope.read(name) {
            // onnx.checker rejects this in a graph, not in a function.
            let severity = match body.kind {
                BodyKind::Graph => Severity::Error,
                BodyKind::Function => Severity::Warning,
            };
            let path = body.item_path(output);
            findings
                .push(
                    severity,
                    "onnxtxt::check::output_not_assigned",
                    &named_subject(&path, name),
                    path.clone(),
                    format!("{} output `{name}` is never assigned", body.kind.name()),
                )
                .help(format!(
                    "assign `{name}` in a node, or remove it from the outputs"
                ));
        }
        if !listed.insert(name) {
            // onnx.checker rejects this in a function, not in a graph.
            let severity = match body.kind {
                BodyKind::Graph => Severity::Warning,
                BodyKind::Function => Severity::Error,
            };
            let path = body.item_path(output);
            findings.push(
                severity,
                "onnxtxt::check::duplicate_output",
                &named_subject(&path, name),
                path.clone(),
                format!("`{name}` is listed twice among the outputs"),
            );
        }
    }
}

/// Node outputs and initializers nobody reads, in the order of the body.
fn report_unused(scope: &Scope<'_, '_>, findings: &mut Findings) {
    let body = scope.body;
    let mut unused: Vec<(usize, usize, &str)> = scope
        .local
        .iter()
        .filter(|(name, value)| !value.used.get() && !scope.read_early.contains(*name))
        .filter_map(|(name, value)| match value.definition {
            Definition::Output { node, slot } => Some((node, slot, *name)),
            Definition::Item(_) => None,
        })
        .collect();
    unused.sort_unstable();
    for (index, slot, output) in unused {
        let path = body.node_path(index);
        findings
            .warning(
                "onnxtxt::check::unused_value",
                &node_subject(&body.nodes[index], &path),
                format!("{path}.output[{slot}]"),
                format!("`{output}` is never used"),
            )
            .help(format!(
                "use it, make it a {} output, or leave the output name empty",
                body.kind.name()
            ));
    }
    for initializer in &body.initializers {
        let name = initializer.name;
        if !scope.is_used(name) {
            let path = body.item_path(initializer);
            findings.warning(
                "onnxtxt::check::unused_initializer",
                &named_subject(&path, name),
                path.clone(),
                format!("initializer `{name}` is never used"),
            );
        }
    }
}
