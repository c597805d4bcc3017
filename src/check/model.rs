//! The model as the passes see it: its graph and function bodies (each
//! with the operator sets its nodes are checked against and the function
//! it belongs to), its model-local functions by name, and walks over all
//! of them, subgraphs included.

use std::collections::{HashMap, HashSet};

use crate::ops::AI_ONNX;
use crate::proto::{
    FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, ValueInfoProto,
};

/// A model-local function's key: domain, name, overload.
pub(crate) type FunctionKey<'m> = (&'m str, &'m str, &'m str);

/// The model being checked.
pub(crate) struct Model<'m> {
    pub(crate) proto: &'m ModelProto,
    /// The graph's operator sets.
    pub(crate) imports: Imports<'m>,
    /// Each function's operator sets, by index (`None` for a function that
    /// has no header: see [`is_headless`]).
    function_imports: Vec<Option<Imports<'m>>>,
    /// The first function of each key.
    functions: HashMap<FunctionKey<'m>, usize>,
    /// The attributes each function's body refers to (`@name`), by index.
    references: Vec<HashSet<&'m str>>,
    /// The model's imports with those of its functions added (the first
    /// import of a domain the model does not import wins), as onnx.checker
    /// compares a function's imports with the model's.
    pub(crate) merged_imports: HashMap<&'m str, i64>,
}

/// The operator sets one graph or function imports.
pub(crate) struct Imports<'m> {
    /// Where they are written: `opset_import`, `functions[2].opset_import`.
    pub(crate) path: String,
    /// Each domain, as written, with its version (the last import of a
    /// domain wins, as in onnx.checker's map).
    versions: HashMap<&'m str, i64>,
    /// Whether these are a function's imports.
    pub(crate) of_function: bool,
}

impl<'m> Imports<'m> {
    fn new(imports: &'m [OperatorSetIdProto], path: String, of_function: bool) -> Self {
        let versions = imports
            .iter()
            .map(|o| (o.domain.as_deref().unwrap_or(""), o.version.unwrap_or(0)))
            .collect();
        Imports {
            path,
            versions,
            of_function,
        }
    }

    /// The version of `domain` a node of that domain is checked against,
    /// as onnx.checker finds it: the import of the domain as written; in a
    /// graph (not in a function) the default domain `""` may also be
    /// imported as `ai.onnx`.
    pub(crate) fn version_for_node(&self, domain: &str) -> Option<i64> {
        let found = self.versions.get(domain).copied();
        match found {
            None if domain.is_empty() && !self.of_function => self.versions.get(AI_ONNX).copied(),
            _ => found,
        }
    }

    /// The version of `domain` imported as written, if it is.
    pub(crate) fn literal(&self, domain: &str) -> Option<i64> {
        self.versions.get(domain).copied()
    }
}

/// Whether `function` has no header: text without a header after the
/// graph reads as a function, but was most likely meant as a second graph;
/// the header pass says so and the other passes leave its body alone.
pub(crate) fn is_headless(function: &FunctionProto) -> bool {
    function.domain.is_none() && function.opset_import.is_empty()
}

impl<'m> Model<'m> {
    pub(crate) fn new(proto: &'m ModelProto) -> Self {
        let mut functions = HashMap::new();
        for (index, f) in proto.functions.iter().enumerate() {
            functions.entry(function_key(f)).or_insert(index);
        }
        let function_imports = proto
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let path = format!("functions[{i}].opset_import");
                (!is_headless(f)).then(|| Imports::new(&f.opset_import, path, true))
            })
            .collect();
        let imports = Imports::new(&proto.opset_import, "opset_import".into(), false);
        let mut merged_imports = imports.versions.clone();
        for opset in proto.functions.iter().flat_map(|f| &f.opset_import) {
            let domain = opset.domain.as_deref().unwrap_or("");
            merged_imports
                .entry(domain)
                .or_insert(opset.version.unwrap_or(0));
        }
        let references = proto
            .functions
            .iter()
            .map(|f| {
                let mut names = HashSet::new();
                references_in(&f.node, &mut names);
                names
            })
            .collect();
        Model {
            proto,
            references,
            imports,
            function_imports,
            functions,
            merged_imports,
        }
    }

    /// The model-local function `key` stands for (the first of that key).
    pub(crate) fn function(&self, key: FunctionKey<'_>) -> Option<(usize, &'m FunctionProto)> {
        let index = *self.functions.get(&key)?;
        Some((index, &self.proto.functions[index]))
    }

    /// Whether function `index` declares attribute `name` or its body
    /// refers to it: what a call may give it.
    pub(crate) fn takes_attribute(&self, index: usize, name: &str) -> bool {
        let function = &self.proto.functions[index];
        declared_attributes(function).any(|declared| declared == name)
            || self.references[index].contains(name)
    }

    /// The model-local functions of `domain`.
    pub(crate) fn functions_of<'s>(
        &'s self,
        domain: &'s str,
    ) -> impl Iterator<Item = &'m FunctionProto> + 's {
        self.proto
            .functions
            .iter()
            .filter(move |f| f.domain.as_deref().unwrap_or("") == domain)
    }

    /// The main graph and every function with a header, as bodies.
    pub(crate) fn bodies(&self) -> Vec<Body<'_>> {
        let graph = self
            .proto
            .graph
            .as_ref()
            .map(|g| Body::graph(g, "graph".into(), &self.imports, None, true));
        let functions = self
            .proto
            .functions
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let imports = self.function_imports[i].as_ref()?;
                Some(Body::function(f, format!("functions[{i}]"), imports))
            });
        graph.into_iter().chain(functions).collect()
    }

    /// Calls `visit` on every body in the order of the model: the graph, its
    /// subgraphs (each after the node that holds it), then each function
    /// with its subgraphs.
    pub(crate) fn for_each_body(&self, visit: &mut dyn FnMut(&Body<'_>)) {
        for body in self.bodies() {
            body.walk(visit);
        }
    }
}

/// Adds the attributes `nodes` (and their subgraphs) refer to.
fn references_in<'m>(nodes: &'m [NodeProto], names: &mut HashSet<&'m str>) {
    for attribute in nodes.iter().flat_map(|n| &n.attribute) {
        names.extend(attribute.ref_attr_name.as_deref());
        for graph in attribute.g.as_deref().into_iter().chain(&attribute.graphs) {
            references_in(&graph.node, names);
        }
    }
}

/// The key a function is called by.
pub(crate) fn function_key(f: &FunctionProto) -> FunctionKey<'_> {
    (
        f.domain.as_deref().unwrap_or(""),
        f.name.as_deref().unwrap_or(""),
        f.overload.as_deref().unwrap_or(""),
    )
}

/// The key a node calls: its domain, operator and overload.
pub(crate) fn callee_key(node: &NodeProto) -> FunctionKey<'_> {
    (
        node.domain.as_deref().unwrap_or(""),
        node.op_type.as_deref().unwrap_or(""),
        node.overload.as_deref().unwrap_or(""),
    )
}

/// `graph` or `function`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyKind {
    Graph,
    Function,
}

impl BodyKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            BodyKind::Graph => "graph",
            BodyKind::Function => "function",
        }
    }
}

/// A graph or a function body, seen the same way.
pub(crate) struct Body<'a> {
    /// Its IR path: `graph`, `functions[0]`,
    /// `graph.node[3].attribute["body"].g`.
    pub(crate) path: String,
    pub(crate) kind: BodyKind,
    /// Inputs: name and IR path.
    pub(crate) inputs: Vec<(&'a str, String)>,
    /// Initializers (with sparse initializers): name and IR path.
    pub(crate) initializers: Vec<(&'a str, String)>,
    pub(crate) nodes: &'a [NodeProto],
    /// Outputs: name and IR path.
    pub(crate) outputs: Vec<(&'a str, String)>,
    /// The operator sets its nodes are checked against.
    pub(crate) imports: &'a Imports<'a>,
    /// The function it is, or is inside of.
    pub(crate) function: Option<&'a FunctionProto>,
    /// Whether it is the model's graph itself (not a subgraph or function).
    pub(crate) is_main_graph: bool,
    /// The graph it is, if it is one.
    pub(crate) graph: Option<&'a GraphProto>,
}

impl<'a> Body<'a> {
    pub(crate) fn graph(
        graph: &'a GraphProto,
        path: String,
        imports: &'a Imports<'a>,
        function: Option<&'a FunctionProto>,
        is_main_graph: bool,
    ) -> Self {
        let initializers = named(
            &graph.initializer,
            |t| t.name.as_deref(),
            &path,
            "initializer",
        )
        .into_iter()
        .chain(named(
            &graph.sparse_initializer,
            |s| s.values.as_ref().and_then(|v| v.name.as_deref()),
            &path,
            "sparse_initializer",
        ))
        .collect();
        Body {
            inputs: named(&graph.input, value_name, &path, "input"),
            outputs: named(&graph.output, value_name, &path, "output"),
            initializers,
            nodes: &graph.node,
            kind: BodyKind::Graph,
            imports,
            function,
            is_main_graph,
            graph: Some(graph),
            path,
        }
    }

    fn function(function: &'a FunctionProto, path: String, imports: &'a Imports<'a>) -> Self {
        let name = |s: &'a String| Some(s.as_str());
        Body {
            inputs: named(&function.input, name, &path, "input"),
            outputs: named(&function.output, name, &path, "output"),
            initializers: Vec::new(),
            nodes: &function.node,
            kind: BodyKind::Function,
            imports,
            function: Some(function),
            is_main_graph: false,
            graph: None,
            path,
        }
    }

    /// The IR path of node `index`.
    pub(crate) fn node_path(&self, index: usize) -> String {
        format!("{}.node[{index}]", self.path)
    }

    /// The subgraphs `node` (at `node_path`) holds in its attributes, as
    /// bodies of the same imports and function.
    pub(crate) fn subgraphs(&self, node: &'a NodeProto, node_path: &str) -> Vec<Body<'a>> {
        let mut bodies = Vec::new();
        for (index, attribute) in node.attribute.iter().enumerate() {
            let path = super::attribute_path(node_path, "attribute", index, &node.attribute);
            if let Some(g) = &attribute.g {
                bodies.push(self.subgraph(g, format!("{path}.g")));
            }
            for (i, g) in attribute.graphs.iter().enumerate() {
                bodies.push(self.subgraph(g, format!("{path}.graphs[{i}]")));
            }
        }
        bodies
    }

    fn subgraph(&self, graph: &'a GraphProto, path: String) -> Body<'a> {
        Body::graph(graph, path, self.imports, self.function, false)
    }

    /// Calls `visit` on this body, then on the subgraphs of each node, in
    /// order.
    fn walk(&self, visit: &mut dyn FnMut(&Body<'_>)) {
        visit(self);
        for (index, node) in self.nodes.iter().enumerate() {
            for subgraph in self.subgraphs(node, &self.node_path(index)) {
                subgraph.walk(visit);
            }
        }
    }
}

/// Each item's name (`""` when it has none) with its IR path
/// `{path}.{field}[i]`.
fn named<'a, T>(
    items: &'a [T],
    name: impl Fn(&'a T) -> Option<&'a str>,
    path: &str,
    field: &str,
) -> Vec<(&'a str, String)> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| (name(item).unwrap_or(""), format!("{path}.{field}[{i}]")))
        .collect()
}

fn value_name(info: &ValueInfoProto) -> Option<&str> {
    info.name.as_deref()
}

/// A node where it is.
pub(crate) struct Site<'a> {
    pub(crate) node: &'a NodeProto,
    /// The body it is in.
    pub(crate) body: &'a Body<'a>,
    /// Its IR path: `graph.node[3]`.
    pub(crate) path: String,
    /// How messages name it (see [`node_subject`](super::findings::node_subject)).
    pub(crate) subject: String,
}

impl<'a> Site<'a> {
    pub(crate) fn new(body: &'a Body<'a>, index: usize) -> Self {
        let node = &body.nodes[index];
        let path = body.node_path(index);
        Site {
            subject: super::findings::node_subject(node, &path),
            node,
            body,
            path,
        }
    }

    /// The IR path of a part of the node: `{path}.{part}`.
    pub(crate) fn at(&self, part: impl std::fmt::Display) -> String {
        format!("{}.{part}", self.path)
    }

    /// The node's operator (`op_type`).
    pub(crate) fn op(&self) -> &'a str {
        self.node.op_type.as_deref().unwrap_or("")
    }

    /// The node's domain, as written (`""` when it has none).
    pub(crate) fn domain(&self) -> &'a str {
        self.node.domain.as_deref().unwrap_or("")
    }

    /// The IR path of attribute `index` of the node.
    pub(crate) fn attribute_path(&self, index: usize) -> String {
        super::attribute_path(&self.path, "attribute", index, &self.node.attribute)
    }
}

/// The names of the attribute parameters `function` declares: bare names
/// (`attribute`), then those with a type or default (`attribute_proto`).
pub(crate) fn declared_attributes(function: &FunctionProto) -> impl Iterator<Item = &str> {
    let bare = function.attribute.iter().map(String::as_str);
    let typed = function
        .attribute_proto
        .iter()
        .map(|a| a.name.as_deref().unwrap_or(""));
    bare.chain(typed)
}
