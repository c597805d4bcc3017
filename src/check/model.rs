//! The model as the passes see it: every graph and function body, found
//! once (subgraphs included, each with the operator sets its nodes are
//! checked against and the function it belongs to), and its model-local
//! functions by name.
//!
//! Nothing here formats a path until something is reported: a check of a
//! clean model builds no string per node.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::infer::names::{Names, Tables};
use crate::name_key::{function_key, same, FunctionKey};
use crate::ops::AI_ONNX;
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    ValueInfoProto,
};

/// The model being checked.
pub(crate) struct Model<'m> {
    pub(crate) proto: &'m ModelProto,
    /// The operator sets of the graph (first), then of each function with
    /// a header.
    imports: Vec<Imports<'m>>,
    /// Every body, in the order of the model: the graph, then each
    /// function with a header, each followed by its subgraphs (depth
    /// first, in the order of their nodes).
    bodies: Vec<Body<'m>>,
    /// The value names of the bodies, numbered once for every pass
    /// (inference included).
    pub(crate) tables: Tables<'m>,
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
    /// Each domain, as written, with its version, in order (the last
    /// import of a domain wins, as in onnx.checker's map). A model imports
    /// a few domains: a list is quicker to search than a map.
    versions: Vec<(&'m str, i64)>,
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
        match self.literal(domain) {
            None if domain.is_empty() && !self.of_function => self.literal(AI_ONNX),
            found => found,
        }
    }

    /// The version of `domain` imported as written, if it is.
    pub(crate) fn literal(&self, domain: &str) -> Option<i64> {
        let last = self.versions.iter().rev().find(|(d, _)| same(d, domain));
        last.map(|&(_, version)| version)
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
        let mut model = Model {
            proto,
            imports: vec![Imports::new(
                &proto.opset_import,
                "opset_import".into(),
                false,
            )],
            bodies: Vec::new(),
            tables: Tables::default(),
            functions,
            references: proto.functions.iter().map(references_of).collect(),
            merged_imports: merged_imports(proto),
        };
        if let Some(graph) = &proto.graph {
            let mut holders = Vec::new();
            let names = model
                .tables
                .graph_visiting(graph, &[], note_graphs(&mut holders));
            let body = Body::graph(graph, names, "graph".into(), 0, None, true);
            model.add_body(body, &[], holders);
        }
        for (index, function) in proto.functions.iter().enumerate() {
            if is_headless(function) {
                continue;
            }
            let path = format!("functions[{index}]");
            let imports = format!("{path}.opset_import");
            model
                .imports
                .push(Imports::new(&function.opset_import, imports, true));
            let mut holders = Vec::new();
            let names = model
                .tables
                .function_visiting(function, note_graphs(&mut holders));
            let body = Body::function(function, names, path, model.imports.len() - 1);
            model.add_body(body, &[], holders);
        }
        model
    }

    /// Adds `body`, nested in the bodies whose names are `enclosing` (the
    /// nearest first), then the subgraphs of its nodes `holders` (those
    /// with a graph attribute, as [`note_graphs`] found them); returns its
    /// index.
    fn add_body(
        &mut self,
        body: Body<'m>,
        enclosing: &[Arc<Names<'m>>],
        holders: Vec<usize>,
    ) -> usize {
        let index = self.bodies.len();
        let nodes = body.nodes;
        let path = body.path.clone();
        let (imports, function) = (body.imports, body.function);
        let chain: Vec<Arc<Names<'m>>> = std::iter::once(body.names.clone())
            .chain(enclosing.iter().cloned())
            .collect();
        let chain_refs: Vec<&Names<'m>> = chain.iter().map(|n| &**n).collect();
        self.bodies.push(body);
        for node_index in holders {
            let node = &nodes[node_index];
            let graphs = node.attribute.iter().enumerate().flat_map(graphs_of);
            for (attribute, (suffix, graph)) in graphs {
                let node_path = format!("{path}.node[{node_index}]");
                let attribute_path =
                    super::attribute_path(&node_path, "attribute", attribute, &node.attribute);
                let child_path = format!("{attribute_path}{suffix}");
                let mut holders = Vec::new();
                let visit = note_graphs(&mut holders);
                let names = self.tables.graph_visiting(graph, &chain_refs, visit);
                let child = Body::graph(graph, names, child_path, imports, function, false);
                let child = self.add_body(child, &chain, holders);
                self.bodies[index].subgraphs.push((node_index, child));
            }
        }
        index
    }

    /// Every body, in the order of the model (see [`Model::bodies`]'s
    /// field).
    pub(crate) fn bodies(&self) -> &[Body<'m>] {
        &self.bodies
    }

    /// The main graph and every subgraph in it (not those of functions).
    pub(crate) fn main_graphs(&self) -> impl Iterator<Item = &'m GraphProto> + '_ {
        let outside_functions = self.bodies.iter().filter(|b| b.function.is_none());
        outside_functions.filter_map(|b| b.graph)
    }

    /// The graph and the functions, without their subgraphs.
    pub(crate) fn top_bodies(&self) -> impl Iterator<Item = &Body<'m>> {
        self.bodies
            .iter()
            .filter(|b| b.is_main_graph || b.kind == BodyKind::Function)
    }

    /// Body `index` of [`Model::bodies`].
    pub(crate) fn body(&self, index: usize) -> &Body<'m> {
        &self.bodies[index]
    }

    /// The operator sets `body`'s nodes are checked against.
    pub(crate) fn imports_of(&self, body: &Body<'_>) -> &Imports<'m> {
        &self.imports[body.imports]
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
}

/// A visitor for the numbering of a body's names ([`Tables::graph_visiting`])
/// that adds to `holders` the index of each node with a graph attribute,
/// in order: the subgraphs are found while each node is at hand, with no
/// read of every node of their own.
fn note_graphs(holders: &mut Vec<usize>) -> impl FnMut(usize, &NodeProto) + '_ {
    |index, node| {
        if node.attribute.iter().any(holds_graphs) {
            holders.push(index);
        }
    }
}

/// Whether `attribute` holds a graph or graphs.
fn holds_graphs(attribute: &AttributeProto) -> bool {
    attribute.g.is_some() || !attribute.graphs.is_empty()
}

/// The graphs attribute `index` holds, each with the end of its IR path
/// (`.g`, `.graphs[1]`).
fn graphs_of(
    (index, attribute): (usize, &crate::proto::AttributeProto),
) -> impl Iterator<Item = (usize, (String, &GraphProto))> {
    let single = attribute.g.as_deref().map(|g| (".g".to_string(), g));
    let listed = attribute
        .graphs
        .iter()
        .enumerate()
        .map(|(k, g)| (format!(".graphs[{k}]"), g));
    single.into_iter().chain(listed).map(move |g| (index, g))
}

/// The model's imports, then those of its functions for the domains it
/// does not import (the first function's wins).
fn merged_imports(proto: &ModelProto) -> HashMap<&str, i64> {
    let own = proto.opset_import.iter();
    let functions = proto.functions.iter().flat_map(|f| &f.opset_import);
    let mut merged: HashMap<&str, i64> = own
        .map(|o| (o.domain.as_deref().unwrap_or(""), o.version.unwrap_or(0)))
        .collect();
    for opset in functions {
        let domain = opset.domain.as_deref().unwrap_or("");
        merged.entry(domain).or_insert(opset.version.unwrap_or(0));
    }
    merged
}

/// The attributes `function`'s body refers to, subgraphs included.
fn references_of(function: &FunctionProto) -> HashSet<&str> {
    let mut names = HashSet::new();
    references_in(&function.node, &mut names);
    names
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

/// A named item of a body (an input, an output, an initializer): its
/// name, and where it is, for its IR path.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Item<'a> {
    pub(crate) name: &'a str,
    field: &'static str,
    index: usize,
}

/// `items`, each named by `name` (`""` when it has none), as the list
/// `field` of a body.
fn items<'a, T>(
    items: &'a [T],
    field: &'static str,
    name: impl Fn(&'a T) -> Option<&'a str>,
) -> impl Iterator<Item = Item<'a>> {
    items.iter().enumerate().map(move |(index, item)| Item {
        name: name(item).unwrap_or(""),
        field,
        index,
    })
}

/// A graph or a function body, seen the same way.
pub(crate) struct Body<'a> {
    /// Its IR path: `graph`, `functions[0]`,
    /// `graph.node[3].attribute["body"].g`.
    pub(crate) path: String,
    pub(crate) kind: BodyKind,
    pub(crate) inputs: Vec<Item<'a>>,
    /// Initializers, then sparse initializers.
    pub(crate) initializers: Vec<Item<'a>>,
    pub(crate) nodes: &'a [NodeProto],
    pub(crate) outputs: Vec<Item<'a>>,
    /// Its operator sets (see [`Model::imports_of`]).
    imports: usize,
    /// The function it is, or is inside of.
    pub(crate) function: Option<&'a FunctionProto>,
    /// Whether it is the model's graph itself (not a subgraph or function).
    pub(crate) is_main_graph: bool,
    /// The graph it is, if it is one.
    pub(crate) graph: Option<&'a GraphProto>,
    /// Its nodes' subgraphs: the node's index and the subgraph's (in
    /// [`Model::bodies`]), in the order of the nodes.
    pub(crate) subgraphs: Vec<(usize, usize)>,
    /// Its value names, numbered.
    pub(crate) names: Arc<Names<'a>>,
}

impl<'a> Body<'a> {
    fn graph(
        graph: &'a GraphProto,
        names: Arc<Names<'a>>,
        path: String,
        imports: usize,
        function: Option<&'a FunctionProto>,
        is_main_graph: bool,
    ) -> Self {
        let value_name = |info: &'a ValueInfoProto| info.name.as_deref();
        let initializers = items(&graph.initializer, "initializer", |t| t.name.as_deref())
            .chain(items(
                &graph.sparse_initializer,
                "sparse_initializer",
                |s| s.values.as_ref().and_then(|v| v.name.as_deref()),
            ))
            .collect();
        Body {
            inputs: items(&graph.input, "input", value_name).collect(),
            outputs: items(&graph.output, "output", value_name).collect(),
            initializers,
            nodes: &graph.node,
            kind: BodyKind::Graph,
            imports,
            function,
            is_main_graph,
            graph: Some(graph),
            subgraphs: Vec::new(),
            names,
            path,
        }
    }

    fn function(
        function: &'a FunctionProto,
        names: Arc<Names<'a>>,
        path: String,
        imports: usize,
    ) -> Self {
        let name = |s: &'a String| Some(s.as_str());
        Body {
            inputs: items(&function.input, "input", name).collect(),
            outputs: items(&function.output, "output", name).collect(),
            initializers: Vec::new(),
            nodes: &function.node,
            kind: BodyKind::Function,
            imports,
            function: Some(function),
            is_main_graph: false,
            graph: None,
            subgraphs: Vec::new(),
            names,
            path,
        }
    }

    /// The IR path of node `index`.
    pub(crate) fn node_path(&self, index: usize) -> String {
        format!("{}.node[{index}]", self.path)
    }

    /// The IR path of `item`.
    pub(crate) fn item_path(&self, item: &Item<'_>) -> String {
        format!("{}.{}[{}]", self.path, item.field, item.index)
    }
}

/// A node where it is. Its path, and the way messages name it, are made
/// when something is reported.
pub(crate) struct Site<'a> {
    pub(crate) node: &'a NodeProto,
    /// The body it is in.
    pub(crate) body: &'a Body<'a>,
    /// The operator sets it is checked against.
    pub(crate) imports: &'a Imports<'a>,
    index: usize,
}

impl<'a> Site<'a> {
    pub(crate) fn new(model: &'a Model<'a>, body: &'a Body<'a>, index: usize) -> Self {
        Site {
            node: &body.nodes[index],
            body,
            imports: model.imports_of(body),
            index,
        }
    }

    /// Its IR path: `graph.node[3]`.
    pub(crate) fn path(&self) -> String {
        self.body.node_path(self.index)
    }

    /// How messages name it (see [`node_subject`](super::findings::node_subject)).
    pub(crate) fn subject(&self) -> String {
        super::findings::node_subject(self.node, &self.path())
    }

    /// The IR path of a part of the node: `{path}.{part}`.
    pub(crate) fn at(&self, part: impl std::fmt::Display) -> String {
        format!("{}.{part}", self.path())
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
        super::attribute_path(&self.path(), "attribute", index, &self.node.attribute)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The nodes of `body` with a graph attribute, found by reading every
    /// node again, as `add_body` once did.
    fn holding_graphs(body: &Body<'_>) -> Vec<usize> {
        let nodes = body.nodes.iter().enumerate();
        let found = nodes.filter(|(_, node)| {
            let mut graphs = node.attribute.iter().enumerate().flat_map(graphs_of);
            graphs.next().is_some()
        });
        found.map(|(index, _)| index).collect()
    }

    #[test]
    fn the_nodes_with_subgraphs_noted_while_numbering_are_those_a_read_of_every_node_finds() {
        let proto = crate::parse_model(
            "<ir_version: 10, opset_import: [\"\": 21, \"local\": 1]>\n\
             g (bool c, float x) => (float y) {\n\
               k = Constant <value: tensor = float[1] {2}> ()\n\
               a = Add (x, k)\n\
               b = If (c) <then_branch = t () => (float z) {\n\
                   one = Constant <value_float: float = 1> ()\n\
                   w = Constant <value: tensor = float[1] {1}> ()\n\
                   z = Add (w, one)\n\
                 }, else_branch = e () => (float v) { v = Identity (a) }>\n\
               d = If (c) <t: tensor = float[1] {3},\n\
                   then_branch = t2 () => (float p) { p = Identity (a) },\n\
                   else_branch = e2 () => (float q) {\n\
                     q = If (c) <then_branch = t3 () => (float r) { r = Identity (x) },\n\
                                 else_branch = e3 () => (float s) { s = Identity (b) }>\n\
                   }>\n\
               y = local.F (d)\n\
             }\n\
             <domain: \"local\", opset_import: [\"\": 21]>\n\
             F (u) => (o) { h = Constant <value: tensor = float[1] {4}> ()\n o = Mul (u, h) }",
        )
        .unwrap();
        let model = Model::new(&proto);
        // The graph, its six subgraphs and the function.
        assert_eq!(model.bodies().len(), 8);
        for body in model.bodies() {
            let mut with_graphs: Vec<usize> = body.subgraphs.iter().map(|&(n, _)| n).collect();
            with_graphs.dedup();
            assert_eq!(with_graphs, holding_graphs(body), "{}", body.path);
        }
        assert_eq!(model.bodies()[0].subgraphs.len(), 4);
    }
}
