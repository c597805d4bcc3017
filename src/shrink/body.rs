//! Where a model's nodes live: the main graph, the subgraphs of its nodes'
//! attributes (to any depth) and the functions' bodies. A [`BodyPath`]
//! names one and finds it again after an edit; the helpers here count
//! nodes, collect the names nodes read and rename them.

use foldhash::{HashMap, HashSet};

use crate::ir_path::attribute_item;
use crate::proto::{FunctionProto, GraphProto, ModelProto, NodeProto};

/// A list of nodes of a model: the main graph or a function's body, then
/// into subgraphs by (node index, attribute index) steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct BodyPath {
    /// The function whose body it starts from; the main graph if `None`.
    pub(super) function: Option<usize>,
    /// Into the `g` of attribute `.1` of node `.0`, one step per level.
    pub(super) steps: Vec<(usize, usize)>,
}

/// A body found by its [`BodyPath`]: a graph, or a function's top level.
pub(super) enum BodyMut<'a> {
    Graph(&'a mut GraphProto),
    Function(&'a mut FunctionProto),
}

impl<'a> BodyMut<'a> {
    /// Its nodes, for as long as the body is borrowed.
    fn into_nodes(self) -> &'a mut Vec<NodeProto> {
        match self {
            BodyMut::Graph(g) => &mut g.node,
            BodyMut::Function(f) => &mut f.node,
        }
    }

    /// Its nodes.
    pub(super) fn nodes(&mut self) -> &mut Vec<NodeProto> {
        match self {
            BodyMut::Graph(g) => &mut g.node,
            BodyMut::Function(f) => &mut f.node,
        }
    }

    /// The names of its outputs.
    pub(super) fn output_names(&self) -> Vec<String> {
        match self {
            BodyMut::Graph(g) => g.output.iter().map(|o| o.name().to_owned()).collect(),
            BodyMut::Function(f) => f.output.clone(),
        }
    }

    /// Renames its outputs as `map` says.
    pub(super) fn rename_outputs(&mut self, map: &HashMap<String, String>) {
        match self {
            BodyMut::Graph(g) => g.output.iter_mut().for_each(|o| rename(&mut o.name, map)),
            BodyMut::Function(f) => f.output.iter_mut().for_each(|o| rename_name(o, map)),
        }
    }
}

impl BodyPath {
    /// The main graph.
    pub(super) const MAIN: BodyPath = BodyPath {
        function: None,
        steps: Vec::new(),
    };

    /// Whether this is the main graph, the one body that can take new
    /// inputs.
    pub(super) fn is_main(&self) -> bool {
        self.function.is_none() && self.steps.is_empty()
    }

    /// The IR path inference names this graph by (`graph`,
    /// `graph.node[2].attribute["body"].g`); `None` inside a function,
    /// whose values inference types per call only.
    pub(super) fn inference_path(&self, model: &ModelProto) -> Option<String> {
        if self.function.is_some() {
            return None;
        }
        let mut path = String::from("graph");
        let mut graph = model.graph.as_ref()?;
        for &(node, index) in &self.steps {
            let attributes = &graph.node.get(node)?.attribute;
            let attribute = attributes.get(index)?;
            let item = attribute_item("attribute", attributes, index);
            path.push_str(&format!(".node[{node}].{item}.g"));
            graph = attribute.g.as_deref()?;
        }
        Some(path)
    }

    /// The body in `model`, if it is still there.
    pub(super) fn find_mut<'a>(&self, model: &'a mut ModelProto) -> Option<BodyMut<'a>> {
        let mut body = match self.function {
            None => BodyMut::Graph(model.graph.as_mut()?),
            Some(f) => BodyMut::Function(model.functions.get_mut(f)?),
        };
        for &(node, attribute) in &self.steps {
            let graph = body
                .into_nodes()
                .get_mut(node)?
                .attribute
                .get_mut(attribute)?
                .g
                .as_deref_mut()?;
            body = BodyMut::Graph(graph);
        }
        Some(body)
    }

    /// The body's nodes in `model`.
    pub(super) fn nodes<'a>(&self, model: &'a ModelProto) -> Option<&'a [NodeProto]> {
        let mut nodes: &[NodeProto] = match self.function {
            None => &model.graph.as_ref()?.node,
            Some(f) => &model.functions.get(f)?.node,
        };
        for &(node, attribute) in &self.steps {
            nodes = &nodes.get(node)?.attribute.get(attribute)?.g.as_ref()?.node;
        }
        Some(nodes)
    }
}

/// Every body of `model`, each before the bodies inside it: the main
/// graph's, then each function's.
pub(super) fn bodies(model: &ModelProto) -> Vec<BodyPath> {
    let mut found = Vec::new();
    if let Some(graph) = &model.graph {
        collect(&graph.node, BodyPath::MAIN, &mut found);
    }
    for (f, function) in model.functions.iter().enumerate() {
        let path = BodyPath {
            function: Some(f),
            steps: Vec::new(),
        };
        collect(&function.node, path, &mut found);
    }
    found
}

fn collect(nodes: &[NodeProto], path: BodyPath, found: &mut Vec<BodyPath>) {
    found.push(path.clone());
    for (n, node) in nodes.iter().enumerate() {
        for (a, attribute) in node.attribute.iter().enumerate() {
            if let Some(g) = &attribute.g {
                let mut inner = path.clone();
                inner.steps.push((n, a));
                collect(&g.node, inner, found);
            }
        }
    }
}

/// The subgraphs of `node`'s attributes.
pub(super) fn subgraphs(node: &NodeProto) -> impl Iterator<Item = &GraphProto> {
    node.attribute
        .iter()
        .flat_map(|a| a.g.as_deref().into_iter().chain(&a.graphs))
}

fn subgraphs_mut(node: &mut NodeProto) -> impl Iterator<Item = &mut GraphProto> {
    node.attribute
        .iter_mut()
        .flat_map(|a| a.g.as_deref_mut().into_iter().chain(&mut a.graphs))
}

/// The number of nodes of `model`, in every graph, subgraph and function.
pub(super) fn node_count(model: &ModelProto) -> usize {
    fn count(nodes: &[NodeProto]) -> usize {
        nodes
            .iter()
            .map(|n| 1 + subgraphs(n).map(|g| count(&g.node)).sum::<usize>())
            .sum()
    }
    model.graph.as_ref().map_or(0, |g| count(&g.node))
        + model
            .functions
            .iter()
            .map(|f| count(&f.node))
            .sum::<usize>()
}

/// Adds to `used` every name `nodes` read: their inputs, and in their
/// subgraphs the inputs of the nodes and the outputs (which may name a
/// value of an enclosing graph).
pub(super) fn used_names<'m>(nodes: &'m [NodeProto], used: &mut HashSet<&'m str>) {
    for node in nodes {
        used.extend(node.input.iter().map(String::as_str));
        for graph in subgraphs(node) {
            used.extend(graph.output.iter().map(|o| o.name()));
            used_names(&graph.node, used);
        }
    }
}

/// Renames what `nodes` read as `map` says, into their subgraphs.
pub(super) fn rename_uses(nodes: &mut [NodeProto], map: &HashMap<String, String>) {
    if map.is_empty() {
        return;
    }
    for node in nodes {
        node.input.iter_mut().for_each(|i| rename_name(i, map));
        for graph in subgraphs_mut(node) {
            graph
                .output
                .iter_mut()
                .for_each(|o| rename(&mut o.name, map));
            rename_uses(&mut graph.node, map);
        }
    }
}

/// Renames the values `nodes` define as `map` says (not into subgraphs,
/// whose values are their own).
pub(super) fn rename_definitions(nodes: &mut [NodeProto], map: &HashMap<String, String>) {
    for node in nodes {
        node.output.iter_mut().for_each(|o| rename_name(o, map));
    }
}

fn rename(name: &mut Option<String>, map: &HashMap<String, String>) {
    if let Some(name) = name {
        rename_name(name, map);
    }
}

fn rename_name(name: &mut String, map: &HashMap<String, String>) {
    if let Some(new) = map.get(name.as_str()) {
        name.clone_from(new);
    }
}

/// Removes the nodes of `graph` whose outputs nothing reads (nor the
/// graph gives out), until none is left.
pub(super) fn remove_dead_nodes(graph: &mut GraphProto) {
    loop {
        let mut used: HashSet<&str> = graph.output.iter().map(|o| o.name()).collect();
        used_names(&graph.node, &mut used);
        let live: Vec<bool> = graph
            .node
            .iter()
            .map(|n| n.output.iter().any(|o| used.contains(o.as_str())))
            .collect();
        if live.iter().all(|&l| l) {
            return;
        }
        let mut live = live.into_iter();
        graph.node.retain(|_| live.next().unwrap_or(true));
    }
}
