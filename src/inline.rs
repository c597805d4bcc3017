//! Inlining a model's local functions: each call of a function of
//! `ModelProto.functions` replaced by the function's body, as
//! `onnx.inliner.inline_local_functions` does it (`onnxtxt inline`).
//!
//! A call's inputs and outputs take the place of the function's formal
//! ones (a formal input the call leaves out becomes the empty name, "no
//! value"); every other name of the body, in its subgraphs too, is renamed
//! to one the model does not use yet. Attribute references (`@alpha`) are
//! resolved from the call, else from the function's default, else the
//! attribute is left out, as the IR spec says. Calls in the body are
//! inlined in turn (a function that calls itself, directly or not, is an
//! error), as are calls in the subgraphs of `If`, `Loop` and `Scan`. The
//! model imports the opsets that the inlined bodies import; functions that
//! nothing calls any more are dropped. [`inline_schema_functions`] does
//! the same for the operators onnx defines by a function body: a plain one,
//! or one onnx builds for each node from its input types and attributes
//! (a context-dependent function), as the registry has it for that node.
//!
//! ```
//! let model = onnxtxt::parse_model(r#"
//!     <ir_version: 10, opset_import: ["": 21, "local": 1]>
//!     g (float[N] x) => (float[N] y) { y = local.Double <k: float = 2.0> (x) }
//!     <domain: "local", opset_import: ["": 21]>
//!     Double <k> (a) => (b) { f = Constant <value_float: float = @k> () b = Mul(a, f) }
//! "#)?;
//! let inlined = onnxtxt::inline::inline_functions(&model, &onnxtxt::inline::Selection::All)?;
//! assert!(inlined.functions.is_empty());
//! let ops: Vec<_> = inlined.graph.unwrap().node.iter().map(|n| n.op_type().to_owned()).collect();
//! assert_eq!(ops, ["Constant", "Mul"]);
//! # Ok::<(), onnxtxt::Error>(())
//! ```

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::rc::Rc;

use crate::infer::{self, Options};
use crate::ops::{self, Schema};
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TypeProto,
};
use crate::Error;

/// Which functions to inline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Every model-local function.
    All,
    /// The functions named `DOMAIN.NAME` (every overload of each); calls of
    /// the others stay.
    Only(Vec<String>),
}

impl Selection {
    /// Whether `function` is one to inline.
    fn selects(&self, function: &FunctionProto) -> bool {
        match self {
            Selection::All => true,
            Selection::Only(names) => names
                .iter()
                .any(|name| *name == format!("{}.{}", function.domain(), function.name())),
        }
    }
}

/// The model with the calls of the functions `selection` names inlined,
/// and the functions nothing calls any more dropped.
///
/// Errors: a function that calls itself (directly or through others),
/// calls nested more than [`MAX_CALL_DEPTH`] deep, an inlining that would
/// make more than [`MAX_INLINED_NODES`] nodes, a
/// call with more inputs or outputs than its function declares, an inlined
/// body importing another version of an opset than the model (or the
/// function it is inlined into) imports, a name of [`Selection::Only`]
/// that is no function of the model.
pub fn inline_functions(model: &ModelProto, selection: &Selection) -> Result<ModelProto, Error> {
    if let Selection::Only(names) = selection {
        for name in names {
            if !model
                .functions
                .iter()
                .any(|f| format!("{}.{}", f.domain(), f.name()) == *name)
            {
                return Err(failure(
                    "unknown_function",
                    format!("the model has no function `{name}`"),
                ));
            }
        }
    }
    let mut out = model.clone();
    let selected: HashMap<Key, &FunctionProto> = model
        .functions
        .iter()
        .filter(|f| selection.selects(f))
        .map(|f| (key_of_function(f), f))
        .collect();
    let mut sizes = Sizes::default();
    let mut size = 0;
    if let Some(graph) = &model.graph {
        size += sizes.of_nodes(&selected, &graph.node, 0)?;
    }
    for function in model.functions.iter().filter(|f| !selection.selects(f)) {
        size += sizes.of_nodes(&selected, &function.node, 0)?;
    }
    if size > MAX_INLINED_NODES {
        return Err(too_many_nodes());
    }
    let local = selected
        .into_iter()
        .map(|(key, f)| (key, Rc::new(f.clone())))
        .collect();
    let mut inliner = Inliner::new(&mut out, Callees::Local(local));
    if let Some(graph) = &mut out.graph {
        inliner.expand_graph(graph)?;
        merge_imports(&mut out.opset_import, &inliner.imports, "the model")?;
    }
    for function in &mut out.functions {
        if selection.selects(function) {
            continue;
        }
        inliner.imports.clear();
        inliner.expand_nodes_of(function)?;
        let into = format!("function `{}`", function.name());
        merge_imports(&mut function.opset_import, &inliner.imports, &into)?;
    }
    let called = still_called(&out);
    out.functions
        .retain(|f| called.contains(&key_of_function(f)));
    Ok(out)
}

/// The most nodes inlining makes: calls nested a few levels deep can
/// multiply a model's size, and past this it is refused, not built.
pub const MAX_INLINED_NODES: usize = 1 << 22;

/// The deepest nesting of calls inlined (each level is a frame of the
/// stack).
pub const MAX_CALL_DEPTH: usize = 256;

/// A function's identity: domain (`ai.onnx` as ""), name, overload.
type Key = (String, String, String);

fn key_of_function(function: &FunctionProto) -> Key {
    (
        normal_domain(function.domain()),
        function.name().to_owned(),
        function.overload().to_owned(),
    )
}

fn key_of_call(node: &NodeProto) -> Key {
    (
        normal_domain(node.domain()),
        node.op_type().to_owned(),
        node.overload().to_owned(),
    )
}

fn normal_domain(domain: &str) -> String {
    if domain == "ai.onnx" { "" } else { domain }.to_owned()
}

fn failure(code: &'static str, message: String) -> Error {
    Error::single(code, message, 0..0)
}

fn too_many_nodes() -> Error {
    failure(
        "too_many_nodes",
        format!("inlining would make more than {MAX_INLINED_NODES} nodes"),
    )
}

/// The number of nodes each function expands to, counted before anything
/// is built (to refuse recursion, deep nesting and blow-ups up front).
#[derive(Default)]
struct Sizes {
    /// Each function's expanded size, once known.
    known: HashMap<Key, usize>,
    /// The functions being counted, outermost first.
    counting: Vec<Key>,
}

impl Sizes {
    /// The number of nodes `nodes` expand to, subgraphs included (past
    /// [`MAX_INLINED_NODES`], any larger number).
    fn of_nodes(
        &mut self,
        functions: &HashMap<Key, &FunctionProto>,
        nodes: &[NodeProto],
        depth: usize,
    ) -> Result<usize, Error> {
        let mut total: usize = 0;
        for node in nodes {
            for attribute in &node.attribute {
                for graph in attribute.g.iter().map(|g| &**g).chain(&attribute.graphs) {
                    total += self.of_nodes(functions, &graph.node, depth)?;
                }
            }
            let key = key_of_call(node);
            total += match functions.get(&key) {
                None => 1,
                Some(function) => self.of_function(functions, key, function, depth + 1)?,
            };
            if total > MAX_INLINED_NODES {
                return Err(too_many_nodes());
            }
        }
        Ok(total)
    }

    fn of_function(
        &mut self,
        functions: &HashMap<Key, &FunctionProto>,
        key: Key,
        function: &FunctionProto,
        depth: usize,
    ) -> Result<usize, Error> {
        if let Some(&size) = self.known.get(&key) {
            return Ok(size);
        }
        if self.counting.contains(&key) {
            return Err(failure(
                "recursive_function",
                format!(
                    "function `{}.{}` calls itself, so it cannot be inlined",
                    key.0, key.1
                ),
            ));
        }
        if depth > MAX_CALL_DEPTH {
            return Err(failure(
                "call_depth",
                format!("calls are nested more than {MAX_CALL_DEPTH} deep"),
            ));
        }
        self.counting.push(key.clone());
        let size = self.of_nodes(functions, &function.node, depth)?;
        self.counting.pop();
        self.known.insert(key, size);
        Ok(size)
    }
}

/// The model with every node of a standard domain that onnx defines by a
/// function body (at the opset in force where the node is) replaced by
/// that body, recursively: `Softplus (x)` becomes `Exp`, `Constant`,
/// `Cast` (its body's `CastLike`, expanded in turn), `Add` and `Log`.
/// Attribute references take the node's attribute, else the schema's
/// default.
///
/// An operator whose function onnx builds for each node (a
/// context-dependent function: `Gelu` 20, `LayerNormalization` 17...) is
/// expanded into the body the registry has for the node's context (its
/// input types, as [`crate::infer`] infers them, its inputs and outputs
/// present, its attributes; see [`Schema::context_dependent_body`]). A node
/// whose input types are not known (in a function of the model, or where
/// inference does not know them), or whose context the registry has no body
/// for, stays as it is; [`Expansion::unexpanded`] says which operators.
///
/// ```
/// let model = onnxtxt::parse_model(r#"
///     <ir_version: 10, opset_import: ["": 21]>
///     g (float[N] x) => (float[N] y, float16[N] z) {
///         y = Softplus (x)
///         h = Cast <to = 10> (x)
///         z = Gelu (h)
///     }
/// "#)?;
/// let expanded = onnxtxt::inline::inline_schema_functions(&model)?;
/// let ops: Vec<_> = expanded.model.graph.unwrap().node.iter().map(|n| n.op_type().to_owned()).collect();
/// assert_eq!(ops[..5], ["Exp", "Constant", "Cast", "Add", "Log"]);
/// let has = |op: &str| ops.iter().any(|o| o == op);
/// assert!(has("Erf") && !has("Gelu") && !has("CastLike"));
/// assert!(expanded.unexpanded.is_empty());
/// # Ok::<(), onnxtxt::Error>(())
/// ```
///
/// Errors: a body of the registry that does not parse (none does), bodies
/// that expand into operators with bodies more than [`MAX_CALL_DEPTH`]
/// deep.
pub fn inline_schema_functions(model: &ModelProto) -> Result<Expansion, Error> {
    let mut bodies = SchemaBodies::default();
    let mut current = Rc::new(model.clone());
    // Each pass expands the nodes whose input types inference knows in the
    // model as the last pass left it; the values of a body expanded in a
    // pass get their types in the next.
    for _ in 0..=MAX_CALL_DEPTH {
        let mut out = (*current).clone();
        bodies.start_pass(Rc::clone(&current));
        let mut inliner = Inliner::new(&mut out, Callees::Schemas(&mut bodies));
        if let Some(graph) = &mut out.graph {
            inliner.scope = out.opset_import.clone();
            inliner.expand_graph(graph)?;
        }
        inliner.forget_types();
        for function in &mut out.functions {
            inliner.scope = function.opset_import.clone();
            inliner.expand_nodes_of(function)?;
        }
        if bodies.context_dependent_expanded == 0 {
            return Ok(Expansion {
                model: out,
                unexpanded: std::mem::take(&mut bodies.unexpanded),
            });
        }
        current = Rc::new(out);
    }
    Err(failure(
        "call_depth",
        format!("function bodies are nested more than {MAX_CALL_DEPTH} deep"),
    ))
}

/// What [`inline_schema_functions`] made.
#[derive(Debug, Clone, PartialEq)]
pub struct Expansion {
    /// The model with the operators expanded.
    pub model: ModelProto,
    /// The operators with context-dependent functions left as they are at
    /// some nodes, in the order first met.
    pub unexpanded: Vec<Unexpanded>,
}

/// An operator with a context-dependent function that
/// [`inline_schema_functions`] left as it is at some nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unexpanded {
    /// Its domain (`""` for ai.onnx).
    pub domain: String,
    /// Its name.
    pub operator: String,
    /// The opset of its domain in force where the nodes are.
    pub opset: i64,
    /// The nodes whose input types are not known.
    pub untyped: usize,
    /// The nodes whose context (input types, inputs and outputs present,
    /// attributes) the registry has no body for.
    pub uncovered: usize,
}

/// One line: `Gelu (opset 20): 2 nodes left as they are, its function is
/// built for each node: 1 whose input types are not known, 1 whose context
/// has no body here (...)`.
impl fmt::Display for Unexpanded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.domain.as_str() {
            "" => self.operator.clone(),
            domain => format!("{domain}.{}", self.operator),
        };
        let nodes = self.untyped + self.uncovered;
        let (noun, verb) = if nodes == 1 {
            ("node", "is")
        } else {
            ("nodes", "are")
        };
        write!(
            f,
            "{name} (opset {}): {nodes} {noun} left as {} {verb}, its function is built for each node:",
            self.opset,
            if nodes == 1 { "it" } else { "they" },
        )?;
        let mut reasons = Vec::new();
        if self.untyped > 0 {
            reasons.push(format!("{} whose input types are not known", self.untyped));
        }
        if self.uncovered > 0 {
            let domain = match self.domain.as_str() {
                "" => String::new(),
                domain => format!(" --domain {domain}"),
            };
            reasons.push(format!(
                "{} whose context has no body here (`onnxtxt ops {}{domain} --opset {} \
                 --function` lists those there are)",
                self.uncovered, self.operator, self.opset
            ));
        }
        write!(f, " {}", reasons.join(", "))
    }
}

/// The functions one inlining expands.
enum Callees<'b> {
    /// The selected model-local functions.
    Local(HashMap<Key, Rc<FunctionProto>>),
    /// The function bodies of the registry's schemas.
    Schemas(&'b mut SchemaBodies),
}

/// The function bodies of the registry's schemas, each made on first use,
/// and what one pass of [`inline_schema_functions`] learnt.
#[derive(Default)]
struct SchemaBodies {
    /// Plain bodies by domain, operator and opset (`None`: the operator has
    /// no plain body at that opset).
    plain: HashMap<(String, String, i64), Option<Rc<FunctionProto>>>,
    /// Context-dependent bodies, by their text.
    built: HashMap<&'static str, Rc<FunctionProto>>,
    /// The model of the pass, whose values' types the nodes of its graph
    /// are matched by; `None` in the functions of the model.
    typed_by: Option<Rc<ModelProto>>,
    /// The types of `typed_by`'s values, inferred on first need.
    types: OnceCell<ValueTypes>,
    /// The context-dependent nodes expanded in the pass.
    context_dependent_expanded: usize,
    /// The operators left as they are at some nodes in the pass.
    unexpanded: Vec<Unexpanded>,
}

/// The type of each value of a model's graphs, as inferred: `None` for a
/// name that two graphs give different types.
type ValueTypes = HashMap<String, Option<TypeProto>>;

impl SchemaBodies {
    fn start_pass(&mut self, model: Rc<ModelProto>) {
        self.typed_by = Some(model);
        self.types = OnceCell::new();
        self.context_dependent_expanded = 0;
        self.unexpanded.clear();
    }

    /// The plain body that defines `schema` at `opset`, if any.
    fn plain(&mut self, schema: &Schema, opset: i64) -> Result<Option<Rc<FunctionProto>>, Error> {
        let entry = (schema.domain().to_owned(), schema.name().to_owned(), opset);
        if let Some(known) = self.plain.get(&entry) {
            return Ok(known.clone());
        }
        let made = match schema.function_body(opset) {
            Some(body) => Some(Rc::new(with_defaults(body.parse()?, schema))),
            None => None,
        };
        self.plain.insert(entry, made.clone());
        Ok(made)
    }

    /// The body onnx builds for `node` of `schema` at `opset`, if the
    /// registry has it and the node's input types are known; else the node
    /// is counted as left.
    fn built_for(
        &mut self,
        node: &NodeProto,
        schema: &Schema,
        opset: i64,
    ) -> Result<Option<Rc<FunctionProto>>, Error> {
        let inputs = self.input_types(node);
        let body = inputs.as_ref().and_then(|inputs| {
            let outputs = present(&node.output).len();
            let node = ops::Node {
                inputs,
                outputs,
                attributes: &node.attribute,
            };
            schema.context_dependent_body(opset, &node)
        });
        let Some(body) = body else {
            self.left(schema, opset, inputs.is_none());
            return Ok(None);
        };
        self.context_dependent_expanded += 1;
        if let Some(known) = self.built.get(body.text()) {
            return Ok(Some(Rc::clone(known)));
        }
        let made = Rc::new(with_defaults(body.parse()?, schema));
        self.built.insert(body.text(), Rc::clone(&made));
        Ok(Some(made))
    }

    /// The types of `node`'s inputs up to its last present one, when all
    /// are known (an input left out before it has none).
    fn input_types(&self, node: &NodeProto) -> Option<Vec<TypeProto>> {
        let model = self.typed_by.as_ref()?;
        let types = self.types.get_or_init(|| value_types(model));
        let named = |name: &String| -> Option<TypeProto> {
            let ty = types.get(name)?.clone()?;
            ops::type_string(&ty).map(|_| ty)
        };
        present(&node.input).iter().map(named).collect()
    }

    fn left(&mut self, schema: &Schema, opset: i64, untyped: bool) {
        let (domain, operator) = (schema.domain(), schema.name());
        let index = match self.unexpanded.iter().position(|u| {
            (u.domain.as_str(), u.operator.as_str(), u.opset) == (domain, operator, opset)
        }) {
            Some(index) => index,
            None => {
                self.unexpanded.push(Unexpanded {
                    domain: domain.to_owned(),
                    operator: operator.to_owned(),
                    opset,
                    untyped: 0,
                    uncovered: 0,
                });
                self.unexpanded.len() - 1
            }
        };
        let entry = &mut self.unexpanded[index];
        if untyped {
            entry.untyped += 1;
        } else {
            entry.uncovered += 1;
        }
    }
}

/// The types inferred for the values of `model`'s graphs.
fn value_types(model: &ModelProto) -> ValueTypes {
    let inference = infer::infer_model(model, Options::default());
    let mut types = ValueTypes::new();
    for graph in inference.graphs() {
        for (name, ty) in graph.types() {
            let ty = ty.to_proto();
            types
                .entry((*name).to_owned())
                .and_modify(|known| {
                    if known.as_ref() != Some(&ty) {
                        *known = None;
                    }
                })
                .or_insert(Some(ty));
        }
    }
    types
}

/// `function` with the defaults of `schema`'s attributes, for references
/// a node leaves unset.
fn with_defaults(mut function: FunctionProto, schema: &Schema) -> FunctionProto {
    function.attribute_proto = schema
        .attributes()
        .iter()
        .filter_map(|a| Some(a.default_value()?.to_attribute(a.name())))
        .collect();
    function
}

/// `names` without the empty ones ending it (inputs or outputs left out).
fn present(names: &[String]) -> &[String] {
    let end = names
        .iter()
        .rposition(|n| !n.is_empty())
        .map_or(0, |i| i + 1);
    &names[..end]
}

/// The state of one inlining.
struct Inliner<'b> {
    /// The functions to inline.
    callees: Callees<'b>,
    /// With [`Callees::Schemas`], the opsets in force where the nodes
    /// being expanded are.
    scope: Vec<OperatorSetIdProto>,
    /// Every name the model uses, node names too, and those given out.
    taken: HashSet<String>,
    /// The last suffix tried for each name made fresh.
    suffixes: HashMap<String, usize>,
    /// The opsets the bodies inlined so far import.
    imports: Vec<OperatorSetIdProto>,
}

impl<'b> Inliner<'b> {
    /// An inliner of `callees` that gives out names `model` does not use.
    fn new(model: &mut ModelProto, callees: Callees<'b>) -> Self {
        let mut taken = HashSet::new();
        if let Some(graph) = &mut model.graph {
            visit_graph_names(graph, &mut |name| {
                taken.insert(name.clone());
            });
        }
        for function in &mut model.functions {
            visit_function_names(function, &mut |name| {
                taken.insert(name.clone());
            });
        }
        Inliner {
            callees,
            scope: Vec::new(),
            taken,
            suffixes: HashMap::new(),
            imports: Vec::new(),
        }
    }

    /// The function `node` calls, if it is one to inline.
    fn callee(&mut self, node: &NodeProto) -> Result<Option<Rc<FunctionProto>>, Error> {
        let key = key_of_call(node);
        let bodies = match &mut self.callees {
            Callees::Local(functions) => return Ok(functions.get(&key).cloned()),
            Callees::Schemas(bodies) => bodies,
        };
        let in_force = self
            .scope
            .iter()
            .find(|i| normal_domain(i.domain()) == key.0);
        let Some(opset) = in_force.map(OperatorSetIdProto::version) else {
            return Ok(None);
        };
        let Some(schema) = ops::schema(&key.0, &key.1, opset) else {
            return Ok(None);
        };
        let context_dependent = schema.context_dependent_function_opsets();
        if context_dependent.iter().any(|&since| since <= opset) {
            bodies.built_for(node, schema, opset)
        } else {
            bodies.plain(schema, opset)
        }
    }

    /// From here on, nodes are in functions of the model, whose values'
    /// types depend on each call: context-dependent ones stay.
    fn forget_types(&mut self) {
        if let Callees::Schemas(bodies) = &mut self.callees {
            bodies.typed_by = None;
        }
    }

    /// Expands the calls in `function`'s body.
    fn expand_nodes_of(&mut self, function: &mut FunctionProto) -> Result<(), Error> {
        let nodes = std::mem::take(&mut function.node);
        self.expand_nodes(nodes, &mut function.node)
    }

    fn expand_graph(&mut self, graph: &mut GraphProto) -> Result<(), Error> {
        let nodes = std::mem::take(&mut graph.node);
        self.expand_nodes(nodes, &mut graph.node)
    }

    /// Appends `nodes` to `out`, each call of a selected function replaced
    /// by its body, recursively.
    fn expand_nodes(
        &mut self,
        nodes: Vec<NodeProto>,
        out: &mut Vec<NodeProto>,
    ) -> Result<(), Error> {
        for mut node in nodes {
            for attribute in &mut node.attribute {
                for graph in attribute.g.iter_mut().map(|g| &mut **g) {
                    self.expand_graph(graph)?;
                }
                for graph in &mut attribute.graphs {
                    self.expand_graph(graph)?;
                }
            }
            let Some(function) = self.callee(&node)? else {
                out.push(node);
                continue;
            };
            let body = self.instantiate(&node, &function)?;
            if let Callees::Local(_) = self.callees {
                for import in &function.opset_import {
                    if !self.imports.contains(import) {
                        self.imports.push(import.clone());
                    }
                }
            }
            self.expand_nodes(body, out)?;
        }
        Ok(())
    }

    /// The body of `function` as `call` runs it: names bound and made
    /// fresh, attribute references resolved.
    fn instantiate(
        &mut self,
        call: &NodeProto,
        function: &FunctionProto,
    ) -> Result<Vec<NodeProto>, Error> {
        let too_many = |what: &str, given: usize, declared: usize| {
            failure(
                "call_arity",
                format!(
                    "a call of `{}.{}` gives {given} {what}, the function declares {declared}",
                    function.domain(),
                    function.name()
                ),
            )
        };
        let (inputs, outputs) = (present(&call.input).len(), present(&call.output).len());
        if inputs > function.input.len() {
            return Err(too_many("inputs", inputs, function.input.len()));
        }
        if outputs > function.output.len() {
            return Err(too_many("outputs", outputs, function.output.len()));
        }
        let mut names: HashMap<String, String> = HashMap::new();
        for (i, formal) in function.input.iter().enumerate() {
            let actual = call.input.get(i).cloned().unwrap_or_default();
            names.insert(formal.clone(), actual);
        }
        for (formal, actual) in function.output.iter().zip(&call.output) {
            if !actual.is_empty() {
                names.insert(formal.clone(), actual.clone());
            }
        }
        let mut body = function.node.clone();
        for node in &mut body {
            visit_node_names(node, &mut |name| {
                if name.is_empty() {
                    return;
                }
                let renamed = match names.get(name.as_str()) {
                    Some(renamed) => renamed.clone(),
                    None => {
                        let fresh = self.fresh(name);
                        names.insert(name.clone(), fresh.clone());
                        fresh
                    }
                };
                *name = renamed;
            });
            // After the renaming: a graph the call gives stays in the
            // caller's names.
            resolve_references(node, call, function);
        }
        Ok(body)
    }

    /// `name`, or `name_N` with the first N (past those tried before)
    /// that makes it new; taken.
    fn fresh(&mut self, name: &str) -> String {
        let mut candidate = name.to_owned();
        let tried = self.suffixes.entry(name.to_owned()).or_insert(0);
        while self.taken.contains(&candidate) {
            *tried += 1;
            candidate = format!("{name}_{tried}");
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

/// Resolves the attribute references of `node` and of the nodes of its
/// subgraphs: the call's attribute, else the function's default, else none.
fn resolve_references(node: &mut NodeProto, call: &NodeProto, function: &FunctionProto) {
    let attributes = std::mem::take(&mut node.attribute);
    for mut attribute in attributes {
        if !attribute.ref_attr_name().is_empty() {
            let referred = attribute.ref_attr_name().to_owned();
            let value = call
                .attribute
                .iter()
                .chain(&function.attribute_proto)
                .find(|a| a.name() == referred);
            let Some(value) = value else { continue };
            attribute = AttributeProto {
                name: attribute.name.take(),
                doc_string: attribute.doc_string.take(),
                ..value.clone()
            };
            attribute.ref_attr_name = None;
        }
        for graph in attribute.g.iter_mut().map(|g| &mut **g) {
            graph
                .node
                .iter_mut()
                .for_each(|n| resolve_references(n, call, function));
        }
        for graph in &mut attribute.graphs {
            graph
                .node
                .iter_mut()
                .for_each(|n| resolve_references(n, call, function));
        }
        node.attribute.push(attribute);
    }
}

/// Calls `f` on every value and node name of `node`, its subgraphs'
/// included.
fn visit_node_names(node: &mut NodeProto, f: &mut impl FnMut(&mut String)) {
    node.input
        .iter_mut()
        .chain(&mut node.output)
        .for_each(&mut *f);
    if let Some(name) = &mut node.name {
        f(name);
    }
    for attribute in &mut node.attribute {
        for graph in attribute.g.iter_mut().map(|g| &mut **g) {
            visit_graph_names(graph, f);
        }
        for graph in &mut attribute.graphs {
            visit_graph_names(graph, f);
        }
    }
}

/// Calls `f` on every value and node name of `graph`, its subgraphs'
/// included.
fn visit_graph_names(graph: &mut GraphProto, f: &mut impl FnMut(&mut String)) {
    let infos = graph
        .input
        .iter_mut()
        .chain(&mut graph.output)
        .chain(&mut graph.value_info);
    infos
        .filter_map(|info| info.name.as_mut())
        .for_each(&mut *f);
    graph
        .initializer
        .iter_mut()
        .filter_map(|t| t.name.as_mut())
        .for_each(&mut *f);
    for sparse in &mut graph.sparse_initializer {
        let parts = sparse.values.iter_mut().chain(&mut sparse.indices);
        parts.filter_map(|t| t.name.as_mut()).for_each(&mut *f);
    }
    for annotation in &mut graph.quantization_annotation {
        annotation.tensor_name.iter_mut().for_each(&mut *f);
    }
    for node in &mut graph.node {
        visit_node_names(node, f);
    }
}

/// Calls `f` on every value and node name of `function`.
fn visit_function_names(function: &mut FunctionProto, f: &mut impl FnMut(&mut String)) {
    function
        .input
        .iter_mut()
        .chain(&mut function.output)
        .for_each(&mut *f);
    for node in &mut function.node {
        visit_node_names(node, f);
    }
}

/// Adds to `into` the opsets of `needed` it lacks; an error when it
/// imports another version of one.
fn merge_imports(
    into: &mut Vec<OperatorSetIdProto>,
    needed: &[OperatorSetIdProto],
    what: &str,
) -> Result<(), Error> {
    for import in needed {
        let domain = normal_domain(import.domain());
        match into.iter().find(|i| normal_domain(i.domain()) == domain) {
            Some(have) if have.version() != import.version() => {
                return Err(failure(
                    "opset_mismatch",
                    format!(
                        "an inlined function imports opset {} of `{domain}`, {what} imports {}",
                        import.version(),
                        have.version()
                    ),
                ));
            }
            Some(_) => {}
            None => into.push(import.clone()),
        }
    }
    Ok(())
}

/// The functions the model's graph calls, directly or through others.
fn still_called(model: &ModelProto) -> HashSet<Key> {
    let functions: HashMap<Key, &FunctionProto> = model
        .functions
        .iter()
        .map(|f| (key_of_function(f), f))
        .collect();
    let mut called = HashSet::new();
    let mut pending: Vec<&NodeProto> = Vec::new();
    if let Some(graph) = &model.graph {
        pending.extend(&graph.node);
    }
    while let Some(node) = pending.pop() {
        let key = key_of_call(node);
        if let Some(function) = functions.get(&key) {
            if called.insert(key) {
                pending.extend(&function.node);
            }
        }
        for attribute in &node.attribute {
            for graph in attribute.g.iter().map(|g| &**g).chain(&attribute.graphs) {
                pending.extend(&graph.node);
            }
        }
    }
    called
}
