//! The values of a model after inference: each graph's outputs and value
//! infos (and a subgraph's inputs), by graph path and name, with the
//! operator that produces them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use onnxtxt::infer::{Dim, Type, FRESH_PREFIX};
use onnxtxt::proto::{AttributeProto, GraphProto, ModelProto};

/// A value's type and what produces it (`Relu`, `ai.onnx.ml:LabelEncoder`,
/// `input` for a subgraph input).
pub struct Value {
    pub ty: Type,
    pub producer: String,
}

/// Turns the names inference gave to unknown dimensions (`unk__3`, not in
/// the model before) back into unknown dimensions, so that two inferences
/// compare by what they know.
pub struct Normalize {
    declared: HashSet<Arc<str>>,
}

impl Normalize {
    pub fn new(declared: HashSet<Arc<str>>) -> Self {
        Normalize { declared }
    }

    pub fn apply(&self, mut ty: Type) -> Type {
        ty.dims_mut(&mut |d| {
            if let Dim::Param(p) = d {
                if p.starts_with(FRESH_PREFIX) && !self.declared.contains(p) {
                    *d = Dim::Unknown;
                }
            }
        });
        ty
    }
}

/// The dimension names a model declares.
pub fn declared_symbols(model: &ModelProto) -> HashSet<Arc<str>> {
    let mut names = HashSet::new();
    let mut graphs: Vec<&GraphProto> = model.graph.iter().collect();
    while let Some(graph) = graphs.pop() {
        for info in graph
            .input
            .iter()
            .chain(&graph.output)
            .chain(&graph.value_info)
        {
            if let Some(ty) = &info.r#type {
                Type::from_proto(ty).dims(&mut |d| {
                    if let Dim::Param(p) = d {
                        names.insert(p.clone());
                    }
                });
            }
        }
        graphs.extend(subgraphs(graph).map(|(_, g)| g));
    }
    names
}

/// The subgraphs of `graph`'s nodes, with their paths relative to the
/// graph (`node[3].attribute["body"].g`).
fn subgraphs(graph: &GraphProto) -> impl Iterator<Item = (String, &GraphProto)> {
    graph.node.iter().enumerate().flat_map(|(i, node)| {
        node.attribute
            .iter()
            .enumerate()
            .flat_map(move |(j, attribute)| {
                let prefix = format!("node[{i}].{}", attribute_path(&node.attribute, j));
                let single = attribute.g.as_deref().map(|g| (format!("{prefix}.g"), g));
                let many = attribute
                    .graphs
                    .iter()
                    .enumerate()
                    .map(move |(k, g)| (format!("{prefix}.graphs[{k}]"), g));
                single.into_iter().chain(many)
            })
    })
}

fn attribute_path(attributes: &[AttributeProto], index: usize) -> String {
    let name = attributes[index].name.as_deref();
    let unique = attributes
        .iter()
        .filter(|a| a.name.as_deref() == name)
        .count()
        == 1;
    match name {
        Some(name) if unique => format!("attribute[{name:?}]"),
        _ => format!("attribute[{index}]"),
    }
}

/// Every value with a type, by (graph path, name).
pub fn values_of(model: &ModelProto, normalize: &Normalize) -> BTreeMap<(String, String), Value> {
    let mut values = BTreeMap::new();
    if let Some(graph) = &model.graph {
        collect(graph, "graph", false, normalize, &mut values);
    }
    values
}

fn collect(
    graph: &GraphProto,
    path: &str,
    subgraph: bool,
    normalize: &Normalize,
    values: &mut BTreeMap<(String, String), Value>,
) {
    let mut producers: HashMap<&str, String> = HashMap::new();
    for node in &graph.node {
        let op = match node.domain.as_deref().unwrap_or("") {
            "" | "ai.onnx" => node.op_type.clone().unwrap_or_default(),
            domain => format!("{domain}:{}", node.op_type.as_deref().unwrap_or("")),
        };
        for output in &node.output {
            producers.insert(output, op.clone());
        }
    }
    let inputs = if subgraph { &graph.input[..] } else { &[] };
    for info in inputs.iter().chain(&graph.output).chain(&graph.value_info) {
        let Some(ty) = &info.r#type else { continue };
        let name = info.name.clone().unwrap_or_default();
        let producer = producers
            .get(name.as_str())
            .cloned()
            .unwrap_or_else(|| "(no node)".into());
        let ty = normalize.apply(Type::from_proto(ty));
        values.insert((path.to_owned(), name), Value { ty, producer });
    }
    for (sub, g) in subgraphs(graph) {
        collect(g, &format!("{path}.{sub}"), true, normalize, values);
    }
}
