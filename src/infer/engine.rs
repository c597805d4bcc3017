//! The walk over graphs, subgraphs and function bodies, node by node, as
//! onnx's `infer_shapes` does it: the values' types known so far (declared
//! ones, initializers', inferred ones), each node inferred by its rule, its
//! schema's function body, or the function of the model it calls, its
//! outputs' types merged with what is declared of them, `Constant` values
//! and propagated contents recorded for later nodes.
//!
//! [`Run`] is what the whole inference shares (options, the model's
//! functions, fresh dimension names, findings, results); a [`Scope`] is one
//! graph or function body being inferred, seeing its parent's values.

use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use crate::error::Diagnostic;
use crate::finding::{message, node_subject, Finding, Related, Severity};
use crate::ops::{self, Schema};
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, NodeProto, OperatorSetIdProto, ValueInfoProto,
};

use super::call::{call_site, context_site, Callee};
use super::constants::{bind, constant_of, Constants};
use super::constraints;
use super::context::{propagation_input, DataNode, Node};
use super::data::{tensor_type, MAX_PROPAGATED_ELEMENTS, MAX_PROPAGATED_TOTAL};
use super::error::{fail, ErrorKind, InferError, Stop};
use super::names::{Names, Tables, ValueId};
use super::rules;
use super::symbols::Symbols;
use super::types::{contradiction, merge_into, Dim, TensorType, Type};
use super::{GraphTypes, Options, Propagation};
use crate::name_key::{callee_key, function_key, same, FunctionKey, NameKey};

/// What the inference of one model shares.
pub(crate) struct Run<'m> {
    pub(super) options: Options,
    /// The model's functions by domain, name and overload, with their index.
    pub(super) functions: HashMap<FunctionKey<'m>, (usize, &'m FunctionProto)>,
    pub(super) symbols: Symbols<'m>,
    /// What the operators nodes have called resolve to.
    operators: HashMap<(NameKey<'m>, NameKey<'m>, i64), Option<Operator>>,
    /// Findings of the graphs of the model.
    pub(super) findings: Vec<Finding>,
    /// The types of each graph of the model (not of function bodies).
    pub(super) graphs: Vec<GraphTypes<'m>>,
    /// The value names of the bodies inferred, numbered.
    pub(super) tables: Tables<'m>,
    /// The functions being inferred, innermost last (to stop recursion).
    pub(super) active: Vec<*const FunctionProto>,
    /// Errors of a subgraph just inferred, for the node that holds it.
    pending: Vec<NodeError>,
    /// How many more elements data propagation may read and make (of
    /// [`MAX_PROPAGATED_TOTAL`]).
    pub(super) propagation_left: usize,
    /// What the type constraints' lists of allowed types take of tensors.
    pub(super) tensor_elements: constraints::TensorElements,
}

/// An error at a node.
pub(super) struct NodeError {
    /// The node's IR path.
    pub path: String,
    /// What the node is, for messages (`graph.node[3] (MatMul)`).
    pub subject: String,
    pub error: InferError,
    pub related: Vec<Related>,
}

/// Why a node could not be inferred.
pub(super) struct NodeFailure {
    pub error: InferError,
    pub related: Vec<Related>,
}

impl From<InferError> for NodeFailure {
    fn from(error: InferError) -> Self {
        NodeFailure {
            error,
            related: Vec::new(),
        }
    }
}

/// What a node's operator of the registry resolves to at the version
/// imported: its schema, the rule written for it, and the function body
/// that defines it (looked up only where there is no rule).
#[derive(Clone, Copy)]
struct Operator {
    schema: &'static Schema,
    rule: Option<&'static rules::Rule>,
    body: Option<&'static FunctionProto>,
}

impl Operator {
    fn resolve(domain: &str, op: &str, version: i64) -> Option<Operator> {
        let schema = ops::schema(domain, op, version)?;
        let rule = rules::find(schema.domain(), schema.name(), schema.since_version());
        let body = match rule {
            Some(_) => None,
            None => super::call::function_body(schema),
        };
        Some(Operator { schema, rule, body })
    }
}

/// The operator sets a graph or function imports: each domain with its
/// version, the last import of a domain winning, as in onnx. A model
/// imports a few domains: a list is quicker to search than a map.
pub(crate) struct Opsets<'m>(Vec<(&'m str, i64)>);

impl<'m> Opsets<'m> {
    /// The version imported for `domain`, as written.
    fn get(&self, domain: &str) -> Option<i64> {
        let last = self.0.iter().rev().find(|(d, _)| same(d, domain));
        last.map(|&(_, version)| version)
    }
}

/// A node with a schema: the node, its attributes (bound), the numbers of
/// its inputs.
type SchemaNode<'a, 'm> = (&'m NodeProto, &'a [AttributeProto], &'a [ValueId]);

/// A node's inferred output types and the contents propagated to them.
pub(super) type Inferred = (Vec<Type>, Vec<Option<Vec<Dim>>>);

/// One graph or function body being inferred. Its values are known by
/// their numbers in its [`Names`].
pub(crate) struct Scope<'p, 'm> {
    pub(super) parent: Option<&'p Scope<'p, 'm>>,
    pub(super) names: Arc<Names<'m>>,
    /// The types known, by value number.
    pub(super) types: Vec<Option<Type>>,
    /// Constant values (initializers, `Constant` outputs); not inherited.
    pub(super) constants: Constants<'m>,
    /// Contents computed by data propagation.
    pub(super) data: HashMap<ValueId, Vec<Dim>>,
    pub(super) opsets: &'p Opsets<'m>,
    /// Attribute references' values, in a function body.
    pub(super) bindings: Option<&'p HashMap<String, AttributeProto>>,
    /// The IR path of the graph or function (`graph`,
    /// `graph.node[2].attribute["body"].g`, `functions[0]`); empty for a
    /// schema's function body.
    pub(super) path: Rc<str>,
    /// Whether the types are kept for the model's value infos (graphs of
    /// the model, not function bodies nor their subgraphs).
    record: bool,
    /// Whether a node had no schema nor function: as in onnx, errors after
    /// it are not reported, since they may come from its unknown outputs.
    unsupported: bool,
    pub(super) errors: Vec<NodeError>,
    /// Values given a type by inference that had none (value infos to add).
    appended: Vec<ValueId>,
}

impl<'p, 'm> Scope<'p, 'm> {
    pub(super) fn new(
        parent: Option<&'p Scope<'p, 'm>>,
        names: Arc<Names<'m>>,
        opsets: &'p Opsets<'m>,
        bindings: Option<&'p HashMap<String, AttributeProto>>,
        path: &str,
    ) -> Self {
        Scope {
            parent,
            types: vec![None; names.len()],
            constants: Constants::for_values(names.len()),
            names,
            data: HashMap::new(),
            opsets,
            bindings,
            path: path.into(),
            record: bindings.is_none() && parent.is_none_or(|p| p.record),
            unsupported: false,
            errors: Vec::new(),
            appended: Vec::new(),
        }
    }

    /// The number of `name`, which the body names.
    pub(super) fn id(&self, name: &str) -> ValueId {
        self.names
            .id(name)
            .expect("a body's names are all numbered")
    }

    /// The type of value `id`, here or in an enclosing graph.
    pub(super) fn lookup(&self, id: ValueId) -> Option<&Type> {
        self.find(id, |scope, id| scope.types.get(id as usize)?.as_ref())
    }

    /// The type of value `id` in an enclosing graph.
    fn lookup_outside(&self, id: ValueId) -> Option<&Type> {
        let (scope, id) = self.outside(id)?;
        scope.lookup(id)
    }

    /// The propagated contents of value `id`, here or in an enclosing graph.
    pub(super) fn lookup_data(&self, id: ValueId) -> Option<&[Dim]> {
        self.find(id, |scope, id| scope.data.get(&id).map(Vec::as_slice))
    }

    /// What `get` finds of value `id` here, else in the nearest enclosing
    /// graph that has it.
    fn find<'s, T: ?Sized>(
        &'s self,
        id: ValueId,
        get: impl Fn(&'s Scope<'p, 'm>, ValueId) -> Option<&'s T>,
    ) -> Option<&'s T> {
        let (mut scope, mut id) = (self, id);
        loop {
            if let Some(found) = get(scope, id) {
                return Some(found);
            }
            (scope, id) = scope.outside(id)?;
        }
    }

    /// The enclosing scope where value `id`'s name goes on to, and its
    /// number there.
    fn outside(&self, id: ValueId) -> Option<(&Scope<'p, 'm>, ValueId)> {
        let outer = self.names.outer(id)?;
        let mut scope = self;
        for _ in 0..outer.up {
            scope = scope.parent?;
        }
        Some((scope, outer.id))
    }

    /// The names of this scope's body and of those it is in, the nearest
    /// first.
    fn chain(&self) -> Vec<&Names<'m>> {
        let mut chain = Vec::new();
        let mut scope = Some(self);
        while let Some(s) = scope {
            chain.push(&*s.names);
            scope = s.parent;
        }
        chain
    }

    /// The opset version the scope imports for `domain`; `ai.onnx` stands
    /// in for `""` as in onnx.
    fn opset(&self, domain: &str) -> Option<i64> {
        let found = self.opsets.get(domain);
        let fallback = || {
            domain
                .is_empty()
                .then(|| self.opsets.get(ops::AI_ONNX))
                .flatten()
        };
        found.or_else(fallback)
    }

    fn error(&mut self, error: NodeError) {
        if !self.unsupported {
            self.errors.push(error);
        }
    }
}

/// The opset imports (the last import of a domain wins, as in onnx).
pub(super) fn opsets_of(imports: &[OperatorSetIdProto]) -> Opsets<'_> {
    let versions = imports
        .iter()
        .map(|o| (o.domain.as_deref().unwrap_or(""), o.version.unwrap_or(0)));
    Opsets(versions.collect())
}

impl<'m> Run<'m> {
    pub(super) fn new(
        options: Options,
        functions: &'m [FunctionProto],
        tables: Tables<'m>,
    ) -> Self {
        let functions = functions
            .iter()
            .enumerate()
            .map(|(i, f)| (function_key(f), (i, f)))
            .collect();
        Run {
            options,
            functions,
            symbols: Symbols::default(),
            operators: HashMap::new(),
            findings: Vec::new(),
            graphs: Vec::new(),
            tables,
            active: Vec::new(),
            pending: Vec::new(),
            propagation_left: MAX_PROPAGATED_TOTAL,
            tensor_elements: HashMap::new(),
        }
    }

    /// Infers a graph of the model (its main graph, or a graph on its own)
    /// with `opsets`; `ir_version` says whether initializers have types of
    /// their own (from 4 on). `beside` is called with the index of each of
    /// its nodes just before the node is inferred. The caller has noted
    /// the dimension names fresh ones avoid in `symbols`.
    pub(super) fn top_graph(
        &mut self,
        graph: &'m GraphProto,
        opsets: &Opsets<'m>,
        ir_version: i64,
        mut beside: impl FnMut(usize),
    ) {
        let names = self.tables.graph(graph, &[]);
        let mut scope = Scope::new(None, names, opsets, None, "graph");
        declare(&mut scope, graph);
        self.initializers(&mut scope, graph, ir_version);
        for (index, node) in graph.node.iter().enumerate() {
            beside(index);
            self.node(&mut scope, index, node);
        }
        let errors = std::mem::take(&mut scope.errors);
        self.report(errors);
        self.keep(scope);
    }

    /// Turns errors into findings.
    pub(super) fn report(&mut self, errors: Vec<NodeError>) {
        for e in errors {
            let mut diagnostic = Diagnostic::new(
                e.error.kind.code(),
                message(&e.subject, &e.error.message),
                0..0,
            );
            diagnostic.path = Some(e.path);
            self.findings.push(Finding {
                severity: Severity::Error,
                diagnostic,
                summary: e.error.message,
                related: e.related,
            });
        }
    }

    /// Records what a graph of the model holds, for its value infos.
    fn keep(&mut self, scope: Scope<'_, 'm>) {
        if scope.record {
            let appended = scope.appended.iter();
            self.graphs.push(GraphTypes {
                path: scope.path.to_string(),
                appended: appended.map(|&id| scope.names.name(id)).collect(),
                names: scope.names,
                types: scope.types,
            });
        }
    }

    /// The types of `graph`'s initializers and sparse initializers, and
    /// their values as constants.
    fn initializers(&mut self, scope: &mut Scope<'_, 'm>, graph: &'m GraphProto, ir_version: i64) {
        for (index, tensor) in graph.initializer.iter().enumerate() {
            let name = tensor.name.as_deref().unwrap_or("");
            scope
                .constants
                .insert(scope.id(name), Cow::Borrowed(tensor));
            let path = format!("{}.initializer[{index}]", scope.path);
            self.initializer(scope, name, tensor_type(tensor), path, ir_version);
        }
        for (index, sparse) in graph.sparse_initializer.iter().enumerate() {
            let values = sparse.values.as_ref();
            let name = values.and_then(|v| v.name.as_deref()).unwrap_or("");
            let ty = Type::SparseTensor(TensorType {
                elem_type: values.and_then(|v| v.data_type).unwrap_or(0),
                shape: Some(sparse.dims.iter().map(|&d| Dim::Value(d)).collect()),
            });
            let path = format!("{}.sparse_initializer[{index}]", scope.path);
            self.initializer(scope, name, ty, path, ir_version);
        }
    }

    /// Infers `nodes`, the nodes of `scope`'s body, in order.
    pub(super) fn nodes(&mut self, scope: &mut Scope<'_, 'm>, nodes: &'m [NodeProto]) {
        for (index, node) in nodes.iter().enumerate() {
            self.node(scope, index, node);
        }
    }

    /// An initializer's type: checked against a declared one, else known
    /// from IR version 4 on (before, initializers were graph inputs).
    fn initializer(
        &mut self,
        scope: &mut Scope<'_, 'm>,
        name: &'m str,
        ty: Type,
        path: String,
        ir_version: i64,
    ) {
        let id = scope.id(name);
        if let Some(declared) = scope.lookup(id) {
            if let Some(why) = contradiction(&ty, declared) {
                scope.error(NodeError {
                    subject: format!("{path} {name:?}"),
                    path,
                    error: InferError {
                        kind: ErrorKind::DeclaredMismatch,
                        message: format!("the initializer does not match its declared type: {why}"),
                    },
                    related: Vec::new(),
                });
            }
        } else if ir_version >= 4 {
            scope.types[id as usize] = Some(ty);
        }
    }

    /// Infers one node and records its outputs.
    fn node(&mut self, scope: &mut Scope<'_, 'm>, index: usize, node: &'m NodeProto) {
        let prefix = scope.path.clone();
        let path = move || {
            if prefix.is_empty() {
                format!("node[{index}]")
            } else {
                format!("{prefix}.node[{index}]")
            }
        };
        let names = Arc::clone(&scope.names);
        let inputs = names.inputs(index, node.input.len());
        let outcome = self.infer_node(scope, node, inputs, &path);
        for e in std::mem::take(&mut self.pending) {
            scope.error(e);
        }
        let (outputs, data) = match outcome {
            Some(Ok(done)) => done,
            Some(Err(NodeFailure { error, related })) => {
                let path = path();
                scope.error(NodeError {
                    subject: node_subject(node, &path),
                    path,
                    error,
                    related,
                });
                return;
            }
            None => return,
        };
        let ids = names.outputs(index, node.input.len());
        for (i, ((name, &id), mut ty)) in node.output.iter().zip(ids).zip(outputs).enumerate() {
            if name.is_empty() || ty.is_unknown() {
                continue;
            }
            self.symbols.materialize(&mut ty);
            if let Err(error) = update(scope, id, ty) {
                let node_path = path();
                scope.error(NodeError {
                    subject: node_subject(node, &node_path),
                    path: format!("{node_path}.output[{i}]"),
                    error,
                    related: Vec::new(),
                });
                return;
            }
        }
        constant_of(scope, node, ids);
        for ((name, &id), dims) in node.output.iter().zip(ids).zip(data) {
            if let Some(dims) = dims.filter(|_| !name.is_empty()) {
                scope.data.entry(id).or_insert(dims);
            }
        }
    }

    /// The node's output types and propagated contents; `None` when the
    /// node cannot be inferred at all (no opset, no schema, no function).
    fn infer_node(
        &mut self,
        scope: &mut Scope<'_, 'm>,
        node: &'m NodeProto,
        inputs: &[ValueId],
        path: &dyn Fn() -> String,
    ) -> Option<Result<Inferred, NodeFailure>> {
        let domain = node.domain.as_deref().unwrap_or("");
        let op = node.op_type.as_deref().unwrap_or("");
        let version = scope.opset(domain)?;
        let attributes = bind(scope.bindings, &node.attribute);
        // onnx finds no schema for a node whose domain is spelt `ai.onnx`.
        let operator = if domain == ops::AI_ONNX {
            None
        } else {
            *self
                .operators
                .entry((NameKey(domain), NameKey(op), version))
                .or_insert_with(|| Operator::resolve(domain, op, version))
        };
        if let Some(operator) = operator {
            let schema_node = (node, &*attributes, inputs);
            return Some(self.schema_node(scope, schema_node, operator, path));
        }
        let Some(&(index, function)) = self.functions.get(&callee_key(node)) else {
            scope.unsupported = true;
            return None;
        };
        let mut site = call_site(scope, node, inputs, &attributes);
        let callee = Callee {
            function,
            path: format!("functions[{index}]"),
            what: format!("function `{}`", qualified(domain, op)),
            schema: None,
        };
        Some(self.call(&mut site, callee))
    }

    /// The context a rule sees for `node`, whose inputs are the values
    /// `ids`.
    fn context<'a>(
        &'a mut self,
        scope: &'a Scope<'_, 'm>,
        (node, attributes, ids): SchemaNode<'a, 'm>,
        schema: &'static Schema,
        path: &'a dyn Fn() -> String,
    ) -> Node<'a, 'm> {
        let n = node.input.len();
        let mut inputs = Vec::with_capacity(n);
        let mut constants = Vec::with_capacity(n);
        let mut symbolic = Vec::with_capacity(n);
        for (name, &id) in node.input.iter().zip(ids) {
            if name.is_empty() {
                inputs.push(None);
                constants.push(None);
                symbolic.push(None);
                continue;
            }
            inputs.push(scope.lookup(id).filter(|t| !t.is_unknown()));
            let constant = scope.constants.get(id);
            constants.push(constant);
            symbolic.push(constant.map_or_else(|| scope.lookup_data(id), |_| None));
        }
        Node {
            proto: node,
            attributes,
            schema,
            inputs,
            constants,
            symbolic,
            outputs: vec![Type::Unknown; node.output.len()],
            path,
            run: self,
            scope,
        }
    }

    /// A node with a schema: its rule, else its function body, else the
    /// type constraints alone; then, when checking, the type constraints.
    fn schema_node(
        &mut self,
        scope: &Scope<'_, 'm>,
        node: SchemaNode<'_, 'm>,
        operator: Operator,
        path: &dyn Fn() -> String,
    ) -> Result<Inferred, NodeFailure> {
        let check = self.options.check_types;
        let propagation = self.options.propagation;
        let Operator { schema, rule, body } = operator;
        let ids = node.2;
        let mut context = self.context(scope, node, schema, path);
        let mut data = Vec::new();
        let mut outcome = match (rule, body) {
            (Some(rule), _) => (rule.infer)(&mut context),
            (None, Some(function)) => {
                let callee = Callee {
                    function,
                    path: String::new(),
                    what: format!("the function body of `{}`", schema.name()),
                    schema: Some(schema),
                };
                let mut site = context_site(&context);
                let (outputs, returned) = context.run.call(&mut site, callee)?;
                context.outputs = outputs;
                data = returned;
                Ok(())
            }
            (None, None) => constraints::apply(&mut context, false),
        };
        if check && !matches!(outcome, Err(Stop::Error(_))) {
            outcome = constraints::apply(&mut context, true);
        }
        if let Err(Stop::Error(error)) = outcome {
            return Err(NodeFailure::from(error));
        }
        if let Some(rule) = rule {
            let wanted = match propagation {
                Propagation::Off => false,
                Propagation::Onnx => rule.onnx_propagates,
                Propagation::Extended => true,
            };
            if let (true, Some(propagate)) = (wanted, rule.propagate) {
                let mut left = context.run.propagation_left;
                data = propagated(&context, propagate, (scope, ids), &mut left);
                context.run.propagation_left = left;
            }
        }
        Ok((context.outputs, data))
    }

    /// Infers a subgraph of a node: its inputs take `inputs` (merged with
    /// what they declare), and its outer scope is `parent`. Errors in it
    /// are reported at its nodes, and the node that holds it learns
    /// nothing ([`Stop::Unknown`]).
    pub(super) fn subgraph(
        &mut self,
        parent: &Scope<'_, 'm>,
        graph: &'m GraphProto,
        path: String,
        inputs: Vec<Option<Type>>,
    ) -> Result<Vec<Type>, Stop> {
        if graph.input.len() != inputs.len() {
            return Err(fail(
                ErrorKind::Invalid,
                format!(
                    "the subgraph has {} inputs, but {} are given to it",
                    graph.input.len(),
                    inputs.len()
                ),
            ));
        }
        let names = self.tables.graph(graph, &parent.chain());
        let mut scope = Scope::new(Some(parent), names, parent.opsets, parent.bindings, &path);
        declare(&mut scope, graph);
        for (input, given) in graph.input.iter().zip(inputs) {
            let Some(given) = given.filter(|t| !t.is_unknown()) else {
                continue;
            };
            let name = input.name.as_deref().unwrap_or("");
            let id = scope.id(name);
            let slot = scope.types[id as usize].get_or_insert_default();
            if let Some(why) = contradiction(&given, slot) {
                return Err(fail(
                    ErrorKind::DeclaredMismatch,
                    format!(
                        "the subgraph's input `{name}` does not match what is given to it: {why}"
                    ),
                ));
            }
            merge_into(&given, slot);
            self.symbols.materialize(slot);
        }
        // Subgraphs have no IR version of their own: the latest applies.
        self.initializers(&mut scope, graph, i64::MAX);
        self.nodes(&mut scope, &graph.node);
        let outputs = graph
            .output
            .iter()
            .map(|o| output_type(&scope, o))
            .collect();
        let failed = !scope.errors.is_empty();
        self.pending.append(&mut scope.errors);
        self.keep(scope);
        if failed {
            return Err(Stop::Unknown);
        }
        Ok(outputs)
    }
}

/// Puts the types `graph` declares (value infos, inputs, outputs, in this
/// order, as onnx reads them) in `scope`.
fn declare<'m>(scope: &mut Scope<'_, 'm>, graph: &'m GraphProto) {
    let infos = graph
        .value_info
        .iter()
        .chain(&graph.input)
        .chain(&graph.output);
    for info in infos {
        if let Some(ty) = &info.r#type {
            let name = info.name.as_deref().unwrap_or("");
            let id = scope.id(name);
            scope.types[id as usize] = Some(Type::from_proto(ty));
        }
    }
}

/// The type of a graph output after inference: the declared one, merged
/// with what was inferred, or what a node of the graph inferred for an
/// undeclared one.
fn output_type(scope: &Scope<'_, '_>, output: &ValueInfoProto) -> Type {
    let id = scope.id(output.name.as_deref().unwrap_or(""));
    let inferred = output.r#type.is_some() || scope.appended.contains(&id);
    match &scope.types[id as usize] {
        Some(ty) if inferred => ty.clone(),
        _ => Type::Unknown,
    }
}

/// Merges an output's inferred type into what is known of the value, as
/// onnx's `UpdateType` does; a contradiction is an error.
fn update(scope: &mut Scope<'_, '_>, id: ValueId, ty: Type) -> Result<(), InferError> {
    let name = scope.names.name(id);
    if let Some(existing) = &mut scope.types[id as usize] {
        if let Some(why) = contradiction(&ty, existing) {
            return Err(declared_mismatch(name, &why));
        }
        merge_into(&ty, existing);
        return Ok(());
    }
    if let Some(outer) = scope.lookup_outside(id) {
        if let Some(why) = contradiction(&ty, outer) {
            return Err(declared_mismatch(name, &why));
        }
        let mut merged = outer.clone();
        merge_into(&ty, &mut merged);
        scope.types[id as usize] = Some(merged);
        return Ok(());
    }
    scope.types[id as usize] = Some(ty);
    scope.appended.push(id);
    Ok(())
}

fn declared_mismatch(name: &str, why: &str) -> InferError {
    InferError {
        kind: ErrorKind::DeclaredMismatch,
        message: format!("the declared type of `{name}` contradicts the inferred one: {why}"),
    }
}

/// The contents the rule's data propagation computes for the outputs,
/// the elements read and made taken from `left`: when they do not fit in
/// it, or an output would have more than [`MAX_PROPAGATED_ELEMENTS`], its
/// contents are unknown.
fn propagated(
    context: &Node<'_, '_>,
    propagate: rules::PropagateFn,
    (scope, ids): (&Scope<'_, '_>, &[ValueId]),
    left: &mut usize,
) -> Vec<Option<Vec<Dim>>> {
    let unknown = vec![None; context.output_count()];
    let mut data = Vec::with_capacity(context.input_count());
    for (i, &id) in ids.iter().enumerate() {
        let known = if context.input_name(i).is_empty() {
            None
        } else {
            scope.lookup_data(id)
        };
        let input = propagation_input(context, i, known);
        let read = input.as_ref().map_or(0, |dims| dims.len());
        let Some(rest) = left.checked_sub(read) else {
            *left = 0;
            return unknown;
        };
        *left = rest;
        data.push(input);
    }
    let mut propagation = DataNode {
        node: context,
        data,
        results: unknown,
    };
    // A failure here only means nothing is propagated: the node's types
    // stand.
    let _ = propagate(&mut propagation);
    let mut results = propagation.results;
    for result in &mut results {
        let made = result.as_ref().map_or(0, Vec::len);
        match left.checked_sub(made) {
            Some(rest) if made <= MAX_PROPAGATED_ELEMENTS => *left = rest,
            _ => *result = None,
        }
    }
    results
}

/// `domain.op`, or `op` in `ai.onnx`.
pub(super) fn qualified(domain: &str, op: &str) -> String {
    if domain.is_empty() {
        op.to_owned()
    } else {
        format!("{domain}.{op}")
    }
}

#[cfg(test)]
mod tests {
    use crate::infer::{infer_model, Dim, Options, Type};

    /// The type inferred for `name` in the main graph of `text`.
    fn inferred(text: &str, name: &str) -> Type {
        let model = crate::parse_model(text).unwrap();
        let inference = infer_model(&model, Options::default());
        inference.value_type("graph", name).unwrap().clone()
    }

    /// A constant of `int64[2]`, then `Concat`s of each value with itself
    /// `n` times (`c1` ... `cN`, each twice as long), and a `Reshape` to
    /// the last.
    fn doubled(n: usize) -> String {
        let mut text = String::from(
            "<ir_version: 10, opset_import: [\"\": 21]>\ng (float[2] x) => (y) {\n  \
             c0 = Constant <value = int64[2] {2, 1}> ()\n",
        );
        for i in 1..=n {
            text += &format!("  c{i} = Concat <axis = 0> (c{j}, c{j})\n", j = i - 1);
        }
        text + &format!("  y = Reshape (x, c{n})\n}}")
    }

    #[test]
    fn propagated_contents_past_the_budget_are_unknown_and_shapes_stay() {
        // Contents within the budget are followed: `Reshape` gets the shape.
        assert_eq!(inferred(&doubled(1), "y").to_string(), "float[2,1,2,1]");
        // 2^45 elements would be 800 TB: the contents become unknown, the
        // shape of the value is still known.
        let text = doubled(44);
        assert_eq!(inferred(&text, "c44").to_string(), "int64[35184372088832]");
        assert_eq!(inferred(&text, "y").shape(), None);
    }

    #[test]
    fn a_call_infers_the_function_of_its_domain_name_and_overload() {
        // Keys that differ only in an empty or a non-empty part, or in
        // the name's length: each call must find its own function.
        let text = "<ir_version: 10, opset_import: [\"\": 21, \"local\": 1]>\n\
            g (float[2] x) => (y, z, w, v) {\n  y = local.F (x)\n  z = local.F:v2 (x)\n  \
            w = local.FF (x)\n  v = local.F:v (x)\n}\n";
        let function = |name: &str, overload: &str, to: &str| {
            format!(
                "<domain: \"local\", opset_import: [\"\": 21]{overload}>\n\
                 {name} (a) => (b) {{ b = Cast <to = {to}> (a) }}\n"
            )
        };
        let text = text.to_string()
            + &function("F", "", "1")
            + &function("F", ", overload: \"v2\"", "7")
            + &function("FF", "", "6")
            + &function("F", ", overload: \"v\"", "11");
        let types: Vec<_> = ["y", "z", "w", "v"]
            .map(|name| inferred(&text, name).to_string())
            .into();
        assert_eq!(types, ["float[2]", "int64[2]", "int32[2]", "double[2]"]);
    }

    #[test]
    fn an_overflowing_range_count_is_unknown_not_wrong() {
        let range = |start: &str, limit: &str| {
            inferred(
                &format!(
                    "<ir_version: 10, opset_import: [\"\": 21]>\ng () => (y) {{\n  \
                     s = Constant <value = int64 {{{start}}}> ()\n  \
                     l = Constant <value = int64 {{{limit}}}> ()\n  \
                     d = Constant <value = int64 {{1}}> ()\n  y = Range (s, l, d)\n}}"
                ),
                "y",
            )
        };
        let unknown = |ty: Type| matches!(ty.shape(), Some([d]) if d.value().is_none());
        assert!(unknown(range(
            "-9223372036854775808",
            "9223372036854775807"
        )));
        assert!(unknown(range("-3", "9223372036854775807")));
        assert_eq!(range("-3", "4").shape(), Some(&[Dim::Value(7)][..]));
    }
}
