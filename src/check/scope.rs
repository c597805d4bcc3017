//! Scope and definitions: every value is defined once (a graph input, an
//! initializer or a node output) and before it is used; subgraphs see the
//! values of their enclosing graphs but may not define them again; graph
//! outputs are assigned; inputs and initializers are not named twice; and
//! the values nobody reads are pointed out. Values are known by their
//! numbers in the body's [`Names`].

use std::cell::Cell;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::findings::{named_subject, node_subject, Findings, Severity};
use super::model::{Body, BodyKind, Item};
use crate::infer::names::{Names, ValueId};

/// Where a value is defined in its body (by index: a body's scope holds
/// one of these for each of its values).
#[derive(Debug, Clone, Copy)]
enum Definition {
    /// Input `index` of the body.
    Input(u32),
    /// Initializer `index` of the body.
    Initializer(u32),
    /// Output `slot` of node `node`.
    Output { node: u32, slot: u32 },
}

/// A value defined in a scope, and whether anything reads it.
struct Value {
    definition: Definition,
    used: Cell<bool>,
}

impl Value {
    fn new(definition: Definition) -> Self {
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
    /// The body's values defined so far, by number.
    local: Vec<Option<Value>>,
    parent: Option<&'p Scope<'p, 'a>>,
    /// Values read before anything defines them (an error), which count as
    /// used.
    read_early: HashSet<ValueId>,
    /// Which node first produces each value, to tell "used before it is
    /// defined" from "never defined" (made when needed: most bodies use no
    /// value before it is defined).
    producers: Option<HashMap<ValueId, usize>>,
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
            local: std::iter::repeat_with(|| None)
                .take(body.names.len())
                .collect(),
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

impl<'p, 'a> Scope<'p, 'a> {
    /// The IR path of `definition`, one of this scope's.
    fn path_of(&self, definition: Definition) -> String {
        let body = self.body;
        match definition {
            Definition::Input(index) => body.item_path(&body.inputs[index as usize]),
            Definition::Initializer(index) => body.item_path(&body.initializers[index as usize]),
            Definition::Output { node, slot } => {
                format!("{}.output[{slot}]", body.node_path(node as usize))
            }
        }
    }

    fn names(&self) -> &'p Names<'a> {
        &self.body.names
    }

    /// The number of `name`, one of the body's names.
    fn id(&self, name: &str) -> ValueId {
        self.names()
            .id(name)
            .expect("a body's names are all numbered")
    }

    /// Value `id` as this scope defines it.
    fn local(&self, id: ValueId) -> Option<&Value> {
        self.local.get(id as usize)?.as_ref()
    }

    /// Value `id`, defined here or in an enclosing scope, with the scope
    /// that defines it.
    fn find(&self, id: ValueId) -> Option<(&Scope<'p, 'a>, &Value)> {
        let (mut scope, mut id) = (self, id);
        loop {
            if let Some(value) = scope.local(id) {
                return Some((scope, value));
            }
            (scope, id) = scope.outside(id)?;
        }
    }

    /// The enclosing scope where value `id`'s name goes on to, and its
    /// number there.
    fn outside(&self, id: ValueId) -> Option<(&Scope<'p, 'a>, ValueId)> {
        let outer = self.names().outer(id)?;
        let mut scope = self;
        for _ in 0..outer.up {
            scope = scope.parent?;
        }
        Some((scope, outer.id))
    }

    /// The IR path of value `id`'s definition in an enclosing scope.
    fn path_outside(&self, id: ValueId) -> Option<String> {
        let (scope, id) = self.outside(id)?;
        let (scope, value) = scope.find(id)?;
        Some(scope.path_of(value.definition))
    }

    /// Whether value `id` is visible here; if it is, it is now used.
    fn read(&self, id: ValueId) -> bool {
        let found = self.find(id);
        if let Some((_, value)) = found {
            value.used.set(true);
        }
        found.is_some()
    }

    /// Whether value `id`, defined here, is read (or was read before its
    /// definition).
    fn is_used(&self, id: ValueId) -> bool {
        self.local(id).is_none_or(|v| v.used.get()) || self.read_early.contains(&id)
    }
}

fn declare_inputs(scope: &mut Scope<'_, '_>, findings: &mut Findings) {
    let body = scope.body;
    for (index, input) in (0..).zip(&body.inputs) {
        let name = input.name;
        if name.is_empty() {
            continue;
        }
        let id = scope.id(name);
        if let Some(first) = scope.local(id) {
            let first = scope.path_of(first.definition);
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
            scope.local[id as usize] = Some(Value::new(Definition::Input(index)));
        }
    }
}

fn declare_initializers(scope: &mut Scope<'_, '_>, findings: &mut Findings) {
    let body = scope.body;
    let mut initializers: HashMap<ValueId, &Item<'_>> = HashMap::new();
    for (index, initializer) in (0..).zip(&body.initializers) {
        let name = initializer.name;
        let id = scope.id(name);
        if let Some(first) = initializers.get(&id) {
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
        initializers.insert(id, initializer);
        // An initializer may also be an input (a default value).
        scope.local[id as usize].get_or_insert_with(|| Value::new(Definition::Initializer(index)));
    }
}

/// Each input of node `index` must be visible, else it is used before its
/// definition or never defined.
fn check_node_inputs(scope: &mut Scope<'_, '_>, index: usize, findings: &mut Findings) {
    let body = scope.body;
    let node = &body.nodes[index];
    let ids = body.names.inputs(index, node.input.len());
    for (slot, (input, &id)) in node.input.iter().zip(ids).enumerate() {
        if input.is_empty() || scope.read(id) {
            continue;
        }
        scope.read_early.insert(id);
        let path = body.node_path(index);
        let subject = node_subject(node, &path);
        let input_path = format!("{path}.input[{slot}]");
        let producers = scope.producers.get_or_insert_with(|| first_producers(body));
        let Some(&later) = producers.get(&id) else {
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

/// The first node of `body` that produces each value.
fn first_producers(body: &Body<'_>) -> HashMap<ValueId, usize> {
    let mut producers = HashMap::new();
    for (index, node) in body.nodes.iter().enumerate() {
        for &output in body.names.outputs(index, node.input.len()) {
            producers.entry(output).or_insert(index);
        }
    }
    producers
}

/// Defines the outputs of node `index`, each once.
fn define_node_outputs(scope: &mut Scope<'_, '_>, index: usize, findings: &mut Findings) {
    let body = scope.body;
    let node = &body.nodes[index];
    let ids = body.names.outputs(index, node.input.len());
    for (slot, (output, &id)) in node.output.iter().zip(ids).enumerate() {
        if output.is_empty() {
            continue;
        }
        let (first, summary, message, help) = match scope.local(id) {
            Some(first) => (
                first.definition,
                format!("`{output}` is assigned a second time"),
                format!("`{output}` is first defined here"),
                "every value must be assigned exactly once; rename one of them",
            ),
            None => {
                let Some(first) = scope.path_outside(id) else {
                    let (node, slot) = (index as u32, slot as u32);
                    let definition = Definition::Output { node, slot };
                    scope.local[id as usize] = Some(Value::new(definition));
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
    let mut listed: HashSet<ValueId> = HashSet::new();
    for output in &body.outputs {
        let name = output.name;
        if name.is_empty() {
            continue;
        }
        let id = scope.id(name);
        if !scope.read(id) {
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
        if !listed.insert(id) {
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
    let mut unused: Vec<(usize, usize, &str)> = body
        .names
        .iter()
        .filter(|&(id, _)| !scope.is_used(id))
        .filter_map(|(id, name)| match scope.local(id)?.definition {
            Definition::Output { node, slot } => Some((node as usize, slot as usize, name)),
            Definition::Input(_) | Definition::Initializer(_) => None,
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
        if !scope.is_used(scope.id(name)) {
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
