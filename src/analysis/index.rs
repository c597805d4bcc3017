//! The index of a parsed text: every graph and function body, every node,
//! every named thing (values, model-local functions, function attributes)
//! with its definition and all its occurrences, and what is at each span.
//!
//! It is built by walking the IR beside its [`SourceMap`] (whose paths give
//! each item's text), resolving each use of a value in the scope of its
//! body and then of the bodies around it, as onnx resolves the values a
//! subgraph reads from outside.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::ops::Range;

use super::lexemes::{Lex, Lexemes};
use super::{BodyKind, Role, SymbolKind, ValueOrigin};
use crate::ir_path::{holds_graph, AttributeKeys};
use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::type_proto::{Tensor, Value as TypeValue};
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, TensorShapeProto, TypeProto,
};
use crate::SourceMap;

/// A graph or a function body.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    pub kind: BodyKind,
    pub name: String,
    pub span: Option<Range<usize>>,
    /// The span of its name.
    pub name_span: Option<Range<usize>>,
    /// The body around it, for a subgraph.
    pub parent: Option<usize>,
    /// The node whose attribute holds it, for a subgraph.
    pub holder: Option<usize>,
    /// The operator sets it imports (its model's, for a graph).
    pub imports: Vec<(String, i64)>,
    /// Its nodes, by index in [`Index::nodes`].
    pub nodes: Vec<usize>,
    /// The function it is, for a function body.
    pub function: Option<usize>,
    /// Its IR path (`graph`, a subgraph's, `functions[2]`).
    pub path: String,
}

/// A node of a body.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub body: usize,
    pub span: Option<Range<usize>>,
    pub label: Option<String>,
    pub domain: String,
    pub op_type: String,
    /// The span of the operator's name (not its domain or overload).
    pub op_span: Option<Range<usize>>,
    pub outputs: Vec<String>,
    /// The names of its attributes.
    pub attributes: Vec<String>,
    /// The model-local function it calls, as a symbol.
    pub function: Option<usize>,
}

/// A value, a model-local function, or an attribute a function declares.
#[derive(Debug, Clone)]
pub(crate) struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// Its body (for a function, the function's own body).
    pub body: usize,
    pub definition: Option<Range<usize>>,
    /// A value's declared type.
    pub ty: Option<TypeProto>,
    /// A function attribute's declaration (type, default), when it has
    /// more than a name; a function's domain and overload are in
    /// [`Symbol::domain`] and [`Symbol::overload`].
    pub declaration: Option<AttributeProto>,
    pub domain: String,
    pub overload: String,
}

/// What a span of the text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// An occurrence of a symbol.
    Symbol(usize, Role),
    /// The operator of a node (not a model-local function).
    Operator(usize),
    /// The name of a node's attribute: node, attribute index.
    AttributeName(usize, usize),
    /// `@name` outside a function, or naming nothing it declares.
    Reference,
    /// A node's label.
    Label(usize),
}

/// One span of the text and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub span: Range<usize>,
    pub kind: EntryKind,
}

/// Everything the analysis knows about the names of a text.
#[derive(Debug, Default)]
pub(crate) struct Index {
    pub bodies: Vec<Body>,
    pub nodes: Vec<Node>,
    pub symbols: Vec<Symbol>,
    /// Sorted by span.
    pub entries: Vec<Entry>,
    /// The values each body defines, by name.
    scopes: Vec<HashMap<String, usize>>,
}

impl Index {
    /// Indexes `model`, whose items are where `map` says in a text lexed
    /// as `lexemes`.
    pub fn new(model: &ModelProto, map: &SourceMap, lexemes: &Lexemes) -> Self {
        let mut builder = Builder {
            index: Index::default(),
            map,
            lexemes,
            functions: HashMap::new(),
        };
        builder.functions(&model.functions);
        if let Some(graph) = &model.graph {
            let imports = imports(&model.opset_import);
            builder.graph(graph, "graph".into(), None, imports);
        }
        for (i, function) in model.functions.iter().enumerate() {
            builder.function(function, i);
        }
        let mut index = builder.index;
        index.entries.sort_by_key(|e| (e.span.start, e.span.end));
        index.entries.dedup();
        index
    }

    /// The entry whose span holds `offset` (a cursor just after a name is
    /// on it).
    pub fn entry_at(&self, offset: usize) -> Option<&Entry> {
        let after = self.entries.partition_point(|e| e.span.start <= offset);
        self.entries[..after]
            .iter()
            .rev()
            .take_while(|e| e.span.start <= offset)
            .find(|e| e.span.contains(&offset) || e.span.end == offset)
    }

    /// Every occurrence of symbol `id`, in the order of the text.
    pub fn occurrences(&self, id: usize) -> impl Iterator<Item = (&Range<usize>, Role)> {
        self.entries.iter().filter_map(move |e| match e.kind {
            EntryKind::Symbol(s, role) if s == id => Some((&e.span, role)),
            _ => None,
        })
    }

    /// The innermost body whose span holds `offset`.
    pub fn body_at(&self, offset: usize) -> Option<usize> {
        self.bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| b.span.as_ref().is_some_and(|s| s.contains(&offset)))
            .min_by_key(|(_, b)| b.span.as_ref().map_or(usize::MAX, |s| s.len()))
            .map(|(i, _)| i)
    }

    /// The values visible at `offset` in body `body`: its own and those of
    /// the bodies around it, defined before the node that holds `offset`
    /// (or before `offset`), innermost first, each name once.
    pub fn values_in_scope(&self, body: usize, offset: usize) -> Vec<usize> {
        let mut seen = HashSet::new();
        let mut found = Vec::new();
        let mut limit = self.bodies[body]
            .nodes
            .iter()
            .filter_map(|&n| self.nodes[n].span.clone())
            .find(|s| s.contains(&offset) || s.end == offset)
            .map_or(offset, |s| s.start);
        let mut current = Some(body);
        while let Some(b) = current {
            let mut here: Vec<usize> = self.scopes[b]
                .values()
                .copied()
                .filter(|&s| {
                    self.symbols[s]
                        .definition
                        .as_ref()
                        .is_some_and(|d| d.start < limit)
                })
                .collect();
            here.sort_by_key(|&s| self.symbols[s].definition.as_ref().map(|d| d.start));
            for s in here {
                if seen.insert(self.symbols[s].name.clone()) {
                    found.push(s);
                }
            }
            let holder = self.bodies[b].holder;
            limit = holder
                .and_then(|n| self.nodes[n].span.as_ref())
                .map_or(limit, |s| s.start);
            current = self.bodies[b].parent;
        }
        found
    }

    /// The value `name` as seen from body `body`.
    pub fn resolve(&self, body: usize, name: &str) -> Option<usize> {
        let mut current = Some(body);
        while let Some(b) = current {
            if let Some(&symbol) = self.scopes[b].get(name) {
                return Some(symbol);
            }
            current = self.bodies[b].parent;
        }
        None
    }

    /// The bodies inside body `body`, at any depth, and itself.
    pub fn bodies_within(&self, body: usize) -> Vec<usize> {
        let mut within = vec![body];
        let mut i = 0;
        while i < within.len() {
            let b = within[i];
            within.extend((0..self.bodies.len()).filter(|&c| self.bodies[c].parent == Some(b)));
            i += 1;
        }
        within
    }

    /// The opset of `domain` that body `body` imports.
    pub fn opset(&self, body: usize, domain: &str) -> Option<i64> {
        let domain = crate::ops::canonical_domain(domain);
        self.bodies[body]
            .imports
            .iter()
            .find(|(d, _)| crate::ops::canonical_domain(d) == domain)
            .map(|&(_, v)| v)
    }
}

/// The `(domain, version)` pairs of an opset import list.
fn imports(opsets: &[OperatorSetIdProto]) -> Vec<(String, i64)> {
    opsets
        .iter()
        .map(|o| (o.domain.clone().unwrap_or_default(), o.version.unwrap_or(0)))
        .collect()
}

/// The type of a tensor constant.
fn tensor_type(tensor: &TensorProto) -> TypeProto {
    let dims = tensor.dims.iter().map(|&d| Dimension {
        value: Some(dimension::Value::DimValue(d)),
        ..Dimension::default()
    });
    TypeProto {
        value: Some(TypeValue::TensorType(Tensor {
            elem_type: tensor.data_type,
            shape: Some(TensorShapeProto {
                dim: dims.collect(),
            }),
        })),
        ..TypeProto::default()
    }
}

struct Builder<'a> {
    index: Index,
    map: &'a SourceMap,
    lexemes: &'a Lexemes,
    /// The model-local functions' symbols, by domain, name and overload
    /// (the first, when two are the same).
    functions: HashMap<(String, String, String), usize>,
}

/// What holds a subgraph: the body and node, and the attributes of the
/// function the body belongs to (a subgraph of a function body may refer
/// to them too).
struct Outer<'p> {
    body: usize,
    node: usize,
    parameters: Option<&'p HashMap<String, usize>>,
}

impl Builder<'_> {
    fn entry(&mut self, span: Option<Range<usize>>, kind: EntryKind) {
        if let Some(span) = span {
            self.index.entries.push(Entry { span, kind });
        }
    }

    fn new_symbol(&mut self, symbol: Symbol) -> usize {
        self.index.symbols.push(symbol);
        self.index.symbols.len() - 1
    }

    fn new_body(&mut self, body: Body) -> usize {
        self.index.bodies.push(body);
        self.index.scopes.push(HashMap::new());
        self.index.bodies.len() - 1
    }

    /// The model-local functions, as symbols (before any body is walked,
    /// so that calls find them).
    fn functions(&mut self, functions: &[FunctionProto]) {
        for (i, function) in functions.iter().enumerate() {
            let path = format!("functions[{i}]");
            let body = self.new_body(Body {
                kind: BodyKind::Function,
                name: function.name.clone().unwrap_or_default(),
                span: self.map.span(&path),
                name_span: self.map.span(&format!("{path}.name")),
                parent: None,
                holder: None,
                imports: imports(&function.opset_import),
                nodes: Vec::new(),
                function: Some(i),
                path: path.clone(),
            });
            let definition = self.index.bodies[body].name_span.clone();
            let symbol = self.new_symbol(Symbol {
                name: function.name.clone().unwrap_or_default(),
                kind: SymbolKind::Function,
                body,
                definition: definition.clone(),
                ty: None,
                declaration: None,
                domain: function.domain.clone().unwrap_or_default(),
                overload: function.overload.clone().unwrap_or_default(),
            });
            self.entry(definition, EntryKind::Symbol(symbol, Role::Definition));
            let key = |field: &Option<String>| field.clone().unwrap_or_default();
            let called = (
                key(&function.domain),
                key(&function.name),
                key(&function.overload),
            );
            self.functions.entry(called).or_insert(symbol);
        }
    }

    /// The function symbol a node calls, if it calls a model-local one.
    fn called_function(&self, node: &NodeProto) -> Option<usize> {
        let key = |field: &Option<String>| field.clone().unwrap_or_default();
        let called = (key(&node.domain), key(&node.op_type), key(&node.overload));
        self.functions.get(&called).copied()
    }

    /// Defines value `name` in `body` at `span`, or, when the body has it
    /// already, records another definition of it.
    fn define(
        &mut self,
        body: usize,
        name: &str,
        span: Option<Range<usize>>,
        origin: ValueOrigin,
        ty: Option<&TypeProto>,
    ) -> Option<usize> {
        if name.is_empty() {
            return None;
        }
        let symbol = match self.index.scopes[body].get(name) {
            Some(&symbol) => symbol,
            None => self.new_value(body, name, origin, span.clone()),
        };
        self.declare_type(symbol, ty);
        self.entry(span, EntryKind::Symbol(symbol, Role::Definition));
        Some(symbol)
    }

    /// A new value `name` of `body`, defined at `definition`.
    fn new_value(
        &mut self,
        body: usize,
        name: &str,
        origin: ValueOrigin,
        definition: Option<Range<usize>>,
    ) -> usize {
        let symbol = self.new_symbol(Symbol {
            name: name.to_owned(),
            kind: SymbolKind::Value(origin),
            body,
            definition,
            ty: None,
            declaration: None,
            domain: String::new(),
            overload: String::new(),
        });
        self.index.scopes[body].insert(name.to_owned(), symbol);
        symbol
    }

    fn declare_type(&mut self, symbol: usize, ty: Option<&TypeProto>) {
        let declared = &mut self.index.symbols[symbol].ty;
        if declared.is_none() {
            *declared = ty.filter(|t| t.value.is_some()).cloned();
        }
    }

    /// Records a use (or declaration) of value `name` in `body`; a name
    /// defined nowhere becomes a value of `body` with no definition.
    fn use_value(
        &mut self,
        body: usize,
        name: &str,
        span: Option<Range<usize>>,
        role: Role,
        ty: Option<&TypeProto>,
    ) {
        if name.is_empty() {
            return;
        }
        let symbol = match self.index.resolve(body, name) {
            Some(symbol) => symbol,
            None => self.new_value(body, name, ValueOrigin::Undefined, None),
        };
        self.declare_type(symbol, ty);
        self.entry(span, EntryKind::Symbol(symbol, role));
    }

    /// Indexes a graph: the main graph, or (with `outer`) a subgraph.
    fn graph(
        &mut self,
        graph: &GraphProto,
        path: String,
        outer: Option<Outer<'_>>,
        imports: Vec<(String, i64)>,
    ) {
        let body = self.new_body(Body {
            kind: BodyKind::Graph,
            name: graph.name.clone().unwrap_or_default(),
            span: self.map.span(&path),
            name_span: self.map.span(&format!("{path}.name")),
            parent: outer.as_ref().map(|o| o.body),
            holder: outer.as_ref().map(|o| o.node),
            imports,
            nodes: Vec::new(),
            function: None,
            path: path.clone(),
        });
        for (i, input) in graph.input.iter().enumerate() {
            let span = self.map.span(&format!("{path}.input[{i}].name"));
            let name = input.name.as_deref().unwrap_or("");
            self.define(
                body,
                name,
                span,
                ValueOrigin::GraphInput,
                input.r#type.as_ref(),
            );
        }
        for (i, tensor) in graph.initializer.iter().enumerate() {
            let span = self.map.span(&format!("{path}.initializer[{i}].name"));
            let name = tensor.name.as_deref().unwrap_or("");
            let ty = tensor_type(tensor);
            self.define(body, name, span, ValueOrigin::Initializer, Some(&ty));
        }
        self.node_outputs(body, &graph.node, &path);
        for (i, info) in graph.value_info.iter().enumerate() {
            let span = self.map.span(&format!("{path}.value_info[{i}].name"));
            let name = info.name.as_deref().unwrap_or("");
            self.use_value(body, name, span, Role::Declaration, info.r#type.as_ref());
        }
        for (i, output) in graph.output.iter().enumerate() {
            let span = self.map.span(&format!("{path}.output[{i}].name"));
            let name = output.name.as_deref().unwrap_or("");
            self.use_value(body, name, span, Role::Use, output.r#type.as_ref());
        }
        self.nodes(body, &graph.node, &path, outer.and_then(|o| o.parameters));
    }

    fn function(&mut self, function: &FunctionProto, index: usize) {
        let path = format!("functions[{index}]");
        let body = self
            .index
            .bodies
            .iter()
            .position(|b| b.function == Some(index))
            .expect("every function has a body");
        // Attribute parameters: bare names, then those with a default or
        // a type.
        let mut parameters = HashMap::new();
        let declared = function.attribute.iter().enumerate().map(|(i, name)| {
            let span = self.map.span(&format!("{path}.attribute[{i}]"));
            (name.clone(), span, None)
        });
        let with_proto = function.attribute_proto.iter().enumerate().map(|(i, a)| {
            let span = self.map.span(&format!("{path}.attribute_proto[{i}].name"));
            (a.name.clone().unwrap_or_default(), span, Some(a.clone()))
        });
        for (name, span, declaration) in declared
            .collect::<Vec<_>>()
            .into_iter()
            .chain(with_proto.collect::<Vec<_>>())
        {
            if name.is_empty() {
                continue;
            }
            let symbol = match parameters.get(&name) {
                Some(&symbol) => symbol,
                None => {
                    let symbol = self.new_symbol(Symbol {
                        name: name.clone(),
                        kind: SymbolKind::FunctionAttribute,
                        body,
                        definition: span.clone(),
                        ty: None,
                        declaration,
                        domain: String::new(),
                        overload: String::new(),
                    });
                    parameters.insert(name, symbol);
                    symbol
                }
            };
            self.entry(span, EntryKind::Symbol(symbol, Role::Definition));
        }
        let typed: HashMap<&str, &TypeProto> = function
            .value_info
            .iter()
            .filter_map(|v| Some((v.name.as_deref()?, v.r#type.as_ref()?)))
            .collect();
        for (i, input) in function.input.iter().enumerate() {
            let span = self.map.span(&format!("{path}.input[{i}]"));
            let ty = typed.get(input.as_str()).copied();
            self.define(body, input, span, ValueOrigin::FunctionInput, ty);
        }
        self.node_outputs(body, &function.node, &path);
        for (i, output) in function.output.iter().enumerate() {
            let span = self.map.span(&format!("{path}.output[{i}]"));
            let ty = typed.get(output.as_str()).copied();
            self.use_value(body, output, span, Role::Use, ty);
        }
        for (i, info) in function.value_info.iter().enumerate() {
            let span = self.map.span(&format!("{path}.value_info[{i}].name"));
            let name = info.name.as_deref().unwrap_or("");
            self.use_value(body, name, span, Role::Declaration, info.r#type.as_ref());
        }
        self.nodes(body, &function.node, &path, Some(&parameters));
    }

    /// Defines the outputs of the nodes of `body`.
    fn node_outputs(&mut self, body: usize, nodes: &[NodeProto], path: &str) {
        for (j, node) in nodes.iter().enumerate() {
            for (k, output) in node.output.iter().enumerate() {
                let span = self.map.span(&format!("{path}.node[{j}].output[{k}]"));
                let origin = ValueOrigin::NodeOutput { slot: k };
                self.define(body, output, span, origin, None);
            }
        }
    }

    /// Indexes the nodes of `body`: operators, inputs, attributes and the
    /// subgraphs they hold. `parameters` are the attributes of the
    /// function the body belongs to.
    fn nodes(
        &mut self,
        body: usize,
        nodes: &[NodeProto],
        path: &str,
        parameters: Option<&HashMap<String, usize>>,
    ) {
        for (j, proto) in nodes.iter().enumerate() {
            let node_path = format!("{path}.node[{j}]");
            let id = self.node(body, proto, &node_path);
            for (k, input) in proto.input.iter().enumerate() {
                let span = self.map.span(&format!("{node_path}.input[{k}]"));
                self.use_value(body, input, span, Role::Use, None);
            }
            let keys = AttributeKeys::new(&proto.attribute);
            for (a, attribute) in proto.attribute.iter().enumerate() {
                let by_index = format!("{node_path}.attribute[{a}]");
                let name_span = self.map.span(&format!("{by_index}.name"));
                self.entry(name_span, EntryKind::AttributeName(id, a));
                self.reference(&by_index, attribute, parameters);
                if holds_graph(attribute) {
                    let holds = format!("{node_path}.{}", keys.item("attribute", a));
                    self.subgraphs(body, id, attribute, &holds, parameters);
                }
            }
        }
    }

    /// Records node `proto` at `path` of `body`; returns its index.
    fn node(&mut self, body: usize, proto: &NodeProto, path: &str) -> usize {
        let span = self.map.span(path);
        let op_span = self
            .map
            .span(&format!("{path}.op_type"))
            .and_then(|s| self.op_name_span(&s));
        let function = self.called_function(proto);
        let attributes = proto
            .attribute
            .iter()
            .map(|a| a.name.clone().unwrap_or_default())
            .collect();
        let label_span = proto
            .name
            .as_ref()
            .and(span.as_ref())
            .and_then(|s| self.label_span(s));
        self.index.nodes.push(Node {
            body,
            span,
            label: proto.name.clone(),
            domain: proto.domain.clone().unwrap_or_default(),
            op_type: proto.op_type.clone().unwrap_or_default(),
            op_span: op_span.clone(),
            outputs: proto.output.clone(),
            attributes,
            function,
        });
        let id = self.index.nodes.len() - 1;
        self.index.bodies[body].nodes.push(id);
        self.entry(label_span, EntryKind::Label(id));
        match function {
            Some(symbol) => self.entry(op_span, EntryKind::Symbol(symbol, Role::Use)),
            None => self.entry(op_span, EntryKind::Operator(id)),
        }
        id
    }

    /// `@name` in the value of the attribute at `path`: a use of the
    /// function's attribute, or a reference to nothing.
    fn reference(
        &mut self,
        path: &str,
        attribute: &AttributeProto,
        parameters: Option<&HashMap<String, usize>>,
    ) {
        let span = self.map.span(&format!("{path}.ref_attr_name"));
        let name = attribute.ref_attr_name.as_deref().unwrap_or("");
        let symbol = parameters.and_then(|p| p.get(name)).copied();
        match symbol {
            Some(symbol) => self.entry(span, EntryKind::Symbol(symbol, Role::Use)),
            None => self.entry(span, EntryKind::Reference),
        }
    }

    /// The graphs an attribute of node `node` of `body` holds.
    fn subgraphs(
        &mut self,
        body: usize,
        node: usize,
        attribute: &AttributeProto,
        path: &str,
        parameters: Option<&HashMap<String, usize>>,
    ) {
        let imports = self.index.bodies[body].imports.clone();
        let graphs = attribute
            .g
            .iter()
            .map(|g| (&**g, format!("{path}.g")))
            .chain(
                (attribute.graphs.iter().enumerate())
                    .map(|(i, g)| (g, format!("{path}.graphs[{i}]"))),
            );
        for (graph, graph_path) in graphs.collect::<Vec<_>>() {
            let outer = Outer {
                body,
                node,
                parameters,
            };
            self.graph(graph, graph_path, Some(outer), imports.clone());
        }
    }

    /// The span of the operator's name in the operator text at `span`
    /// (`domain.Op:overload`): its last name before any `:`.
    fn op_name_span(&self, span: &Range<usize>) -> Option<Range<usize>> {
        let tokens = &self.lexemes.tokens[self.lexemes.within(span)];
        let before_overload = tokens
            .iter()
            .position(|t| t.lex == Lex::Colon)
            .unwrap_or(tokens.len());
        tokens[..before_overload]
            .iter()
            .rev()
            .find(|t| t.is_name())
            .map(|t| t.span.clone())
    }

    /// The span of the label of the node at `span`: the name in the `[...]`
    /// it starts with, after any annotation.
    fn label_span(&self, span: &Range<usize>) -> Option<Range<usize>> {
        let range = self.lexemes.within(span);
        let mut i = range.start;
        if self.lexemes.lex(i) == Some(Lex::Open(super::lexemes::Bracket::Annotation)) {
            i = self.lexemes.closer_of(i)? + 1;
        }
        let open = self.lexemes.lex(i) == Some(Lex::Open(super::lexemes::Bracket::Square));
        let name = self.lexemes.tokens.get(i + 1)?;
        (open && name.is_name() && i + 1 < range.end).then(|| name.span.clone())
    }
}
