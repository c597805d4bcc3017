//! The reductions: each an edit of a model that makes it smaller, or says
//! it does not apply (`false`). They need not keep the model valid: the
//! shrinker checks every candidate before the predicate sees it.

use std::ops::Range;
use std::rc::Rc;

use foldhash::{HashMap, HashSet};

use super::body::{
    remove_dead_nodes, rename_definitions, rename_uses, used_names, BodyMut, BodyPath,
};
use crate::infer::{self, Type};
use crate::proto::{
    attribute_proto::AttributeType, tensor_proto::DataType, AttributeProto, GraphProto, ModelProto,
    NodeProto, TensorProto, ValueInfoProto,
};

/// What is known of the current model that edits need: the inferred type
/// of each value, by graph (inference's IR path of the graph).
#[derive(Default)]
pub(super) struct Facts {
    types: HashMap<String, HashMap<String, Type>>,
}

impl Facts {
    /// The inferred types of `model`'s values.
    pub(super) fn of(model: &ModelProto) -> Facts {
        let inference = infer::infer_model(model, infer::Options::default());
        let types = inference
            .graphs()
            .iter()
            .map(|g| {
                let types = g.types().map(|(k, v)| (k.to_owned(), v.clone()));
                (g.path.clone(), types.collect())
            })
            .collect();
        Facts { types }
    }
}

/// An edit of the current model; `false` when it does not apply.
pub(super) type Edit = Box<dyn Fn(&mut ModelProto) -> bool>;

/// Removes nodes `range` of `body`. What the remaining nodes (or the
/// body's outputs) read of the removed outputs is replaced by an input
/// of the removed node of the same type, or, in the main graph, becomes a
/// graph input of its inferred type.
pub(super) fn remove_nodes(
    model: &mut ModelProto,
    facts: &Facts,
    body: &BodyPath,
    range: Range<usize>,
) -> bool {
    let path = body.inference_path(model);
    let empty = HashMap::default();
    let types = path.and_then(|p| facts.types.get(&p)).unwrap_or(&empty);
    let in_function = body.function.is_some();
    let Some(mut found) = body.find_mut(model) else {
        return false;
    };
    if range.end > found.nodes().len() || range.is_empty() {
        return false;
    }
    let removed: Vec<NodeProto> = found.nodes().drain(range).collect();
    let outputs = found.output_names();
    let mut used: HashSet<&str> = outputs.iter().map(String::as_str).collect();
    used_names(found.nodes(), &mut used);
    let removed_outputs: HashSet<&str> = removed
        .iter()
        .flat_map(|n| &n.output)
        .map(String::as_str)
        .collect();
    let mut map: HashMap<String, String> = HashMap::default();
    let mut new_inputs: Vec<(String, Type)> = Vec::new();
    for node in &removed {
        for output in node.output.iter().filter(|o| used.contains(o.as_str())) {
            let wanted = types.get(output);
            let defined = |name: &str| {
                !removed_outputs.contains(name) || new_inputs.iter().any(|(n, _)| n == name)
            };
            let same_type = |name: &str| match (types.get(name), wanted) {
                (Some(a), Some(b)) => fits(a, b),
                (None, None) => in_function,
                _ => false,
            };
            let replacement = node
                .input
                .iter()
                .filter(|i| !i.is_empty())
                .map(|i| map.get(i).unwrap_or(i))
                .find(|i| defined(i) && same_type(i));
            match (replacement, wanted) {
                (Some(r), _) => {
                    map.insert(output.clone(), r.clone());
                }
                (None, Some(ty)) if body.is_main() && can_be_graph_io(ty) => {
                    new_inputs.push((output.clone(), ty.clone()));
                }
                _ => return false,
            }
        }
    }
    rename_uses(found.nodes(), &map);
    found.rename_outputs(&map);
    if let BodyMut::Graph(graph) = found {
        graph
            .value_info
            .retain(|v| !removed_outputs.contains(v.name()));
        graph
            .input
            .extend(new_inputs.into_iter().map(|(name, ty)| ValueInfoProto {
                name: Some(name),
                r#type: Some(ty.to_proto()),
                ..Default::default()
            }));
    }
    true
}

/// Whether a value of type `ty` can stand for one of type `wanted`: the
/// same type, or a tensor of the same element type where `wanted`'s rank
/// is unknown.
fn fits(ty: &Type, wanted: &Type) -> bool {
    if ty.is_unknown() {
        return false;
    }
    ty == wanted
        || matches!((ty, wanted), (Type::Tensor(t), Type::Tensor(w))
            if t.elem_type == w.elem_type && w.shape.is_none())
}

/// Whether a main graph's input or output can have type `ty`: onnx's
/// checker wants a tensor's shape there.
fn can_be_graph_io(ty: &Type) -> bool {
    match ty {
        Type::Unknown => false,
        Type::Tensor(t) | Type::SparseTensor(t) => t.shape.is_some(),
        _ => true,
    }
}

/// The subgraph attributes a node of the default domain can be replaced
/// by: `If`'s branches, `Loop`'s and `Scan`'s body.
pub(super) fn inlinable(node: &NodeProto) -> &'static [&'static str] {
    if !node.domain().is_empty() && node.domain() != "ai.onnx" {
        return &[];
    }
    match node.op_type() {
        "If" => &["then_branch", "else_branch"],
        "Loop" | "Scan" => &["body"],
        _ => &[],
    }
}

/// Replaces node `index` of `body` (an `If`, `Loop` or `Scan`) by the
/// nodes of its subgraph attribute `branch`: the subgraph's inputs read
/// the node's inputs (a `Loop`'s iteration number and missing condition
/// become constants), its outputs become the node's (or, for those it
/// passes through, what reads the node's reads their source), and its
/// initializers move to the enclosing graph.
pub(super) fn inline(model: &mut ModelProto, body: &BodyPath, index: usize, branch: &str) -> bool {
    let Some(mut found) = body.find_mut(model) else {
        return false;
    };
    let Some(node) = found.nodes().get(index).cloned() else {
        return false;
    };
    let Some(graph) = node
        .attribute
        .iter()
        .find(|a| a.name() == branch)
        .and_then(|a| a.g.as_deref())
    else {
        return false;
    };
    let mut graph = graph.clone();
    let mut map: HashMap<String, String> = HashMap::default();
    let mut nodes = Vec::new();
    // The node's inputs each subgraph input reads, and the subgraph
    // outputs that become the node's outputs.
    let (actual_inputs, given_outputs): (Vec<Option<&str>>, &[ValueInfoProto]) =
        match node.op_type() {
            "If" => (Vec::new(), &graph.output),
            "Loop" => {
                let mut inputs = vec![None, node.input.get(1).map(String::as_str)];
                inputs.extend(node.input.iter().skip(2).map(|i| Some(i.as_str())));
                (inputs, graph.output.get(1..).unwrap_or_default())
            }
            _ => {
                // Scan 8 has `sequence_lens` first.
                let skip = node.input.len().saturating_sub(graph.input.len());
                let inputs = node.input.iter().skip(skip).map(|i| Some(i.as_str()));
                (inputs.collect(), &graph.output)
            }
        };
    if actual_inputs.len() != graph.input.len() {
        return false;
    }
    for (k, (formal, actual)) in graph.input.iter().zip(actual_inputs).enumerate() {
        match actual.filter(|a| !a.is_empty()) {
            Some(actual) => {
                map.insert(formal.name().to_owned(), actual.to_owned());
            }
            // A Loop's iteration number, or its absent condition.
            None if k < 2 => nodes.push(scalar_constant(formal.name(), k == 1)),
            None => return false,
        }
    }
    let defined: HashSet<&str> = graph
        .node
        .iter()
        .flat_map(|n| &n.output)
        .map(String::as_str)
        .collect();
    // Outputs the subgraph passes through from elsewhere: what read them
    // reads that instead.
    let mut passed = HashMap::default();
    for (inner, outer) in given_outputs.iter().zip(&node.output) {
        let inner = inner.name();
        if outer.is_empty() {
            continue;
        }
        if defined.contains(inner) && !map.contains_key(inner) {
            map.insert(inner.to_owned(), outer.clone());
        } else {
            let source = map.get(inner).map_or(inner, String::as_str);
            passed.insert(outer.clone(), source.to_owned());
        }
    }
    rename_uses(&mut graph.node, &map);
    rename_definitions(&mut graph.node, &map);
    nodes.append(&mut graph.node);
    match &mut found {
        BodyMut::Graph(outer) => {
            outer.initializer.append(&mut graph.initializer);
            outer
                .sparse_initializer
                .append(&mut graph.sparse_initializer);
        }
        BodyMut::Function(_) if !graph.initializer.is_empty() => return false,
        BodyMut::Function(_) => {}
    }
    found.nodes().splice(index..=index, nodes);
    rename_uses(found.nodes(), &passed);
    found.rename_outputs(&passed);
    true
}

/// The model-local function node `node` calls, if it calls one.
pub(super) fn called_function(model: &ModelProto, node: &NodeProto) -> Option<usize> {
    model.functions.iter().position(|f| {
        f.name() == node.op_type() && f.domain() == node.domain() && f.overload() == node.overload()
    })
}

/// Replaces node `index` of `body`, a call of a model-local function, by
/// the function's nodes: its inputs and outputs renamed to the node's,
/// its other values given names of their own (prefixed with the node's
/// first output). Functions with attribute parameters are left alone.
pub(super) fn inline_call(model: &mut ModelProto, body: &BodyPath, index: usize) -> bool {
    let Some(node) = body.nodes(model).and_then(|n| n.get(index)).cloned() else {
        return false;
    };
    let Some(function) = called_function(model, &node).map(|f| &model.functions[f]) else {
        return false;
    };
    let parameterized = |n: &NodeProto| n.attribute.iter().any(|a| a.ref_attr_name.is_some());
    if function.node.iter().any(parameterized) {
        return false;
    }
    let prefix = node.output.first().cloned().unwrap_or_default();
    let mut map: HashMap<String, String> = HashMap::default();
    for (formal, actual) in function.input.iter().zip(&node.input) {
        map.insert(formal.clone(), actual.clone());
    }
    for (formal, actual) in function.output.iter().zip(&node.output) {
        map.insert(formal.clone(), actual.clone());
    }
    for value in function.node.iter().flat_map(|n| &n.output) {
        if !map.contains_key(value) {
            map.insert(value.clone(), format!("{prefix}__{value}"));
        }
    }
    let mut nodes = function.node.clone();
    rename_uses(&mut nodes, &map);
    rename_definitions(&mut nodes, &map);
    let Some(mut found) = body.find_mut(model) else {
        return false;
    };
    found.nodes().splice(index..=index, nodes);
    true
}

/// A `Constant` node giving `name` a scalar: `true`, or the int64 0.
fn scalar_constant(name: &str, boolean: bool) -> NodeProto {
    let (data_type, value) = if boolean {
        (DataType::Bool, 1)
    } else {
        (DataType::Int64, 0)
    };
    let mut tensor = TensorProto {
        data_type: Some(data_type as i32),
        ..Default::default()
    };
    if boolean {
        tensor.int32_data = vec![value];
    } else {
        tensor.int64_data = vec![i64::from(value)];
    }
    constant_node(name, tensor)
}

/// A `Constant` node giving `output` the value `tensor`.
pub(crate) fn constant_node(output: &str, tensor: TensorProto) -> NodeProto {
    NodeProto {
        output: vec![output.to_owned()],
        op_type: Some("Constant".into()),
        attribute: vec![AttributeProto {
            name: Some("value".into()),
            r#type: Some(AttributeType::Tensor as i32),
            t: Some(Box::new(tensor)),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// Keeps only output `index` of the main graph, and the nodes it needs.
pub(super) fn keep_one_output(model: &mut ModelProto, index: usize) -> bool {
    let Some(graph) = model.graph.as_mut() else {
        return false;
    };
    if graph.output.len() < 2 || index >= graph.output.len() {
        return false;
    }
    let kept = graph.output.swap_remove(index);
    graph.output = vec![kept];
    remove_dead_nodes(graph);
    true
}

/// The edits that clean up in one go: doc strings and names, the
/// header's extras (producer, metadata, ...), value infos, the main
/// graph's unused inputs and initializers, and passed-through outputs
/// traded for the outputs nothing reads.
pub(super) fn cleanups(facts: &Rc<Facts>) -> Vec<Edit> {
    let facts = Rc::clone(facts);
    vec![
        Box::new(strip),
        Box::new(|m| {
            let empty = ModelProto {
                ir_version: m.ir_version,
                opset_import: std::mem::take(&mut m.opset_import),
                graph: m.graph.take(),
                functions: std::mem::take(&mut m.functions),
                ..Default::default()
            };
            *m = empty;
            true
        }),
        Box::new(|m| {
            let Some(graph) = m.graph.as_mut() else {
                return false;
            };
            for_each_graph(graph, &mut |g| {
                g.value_info.clear();
                g.metadata_props.clear();
                g.quantization_annotation.clear();
            });
            m.functions.iter_mut().for_each(|f| f.value_info.clear());
            true
        }),
        Box::new(|m| m.graph.as_mut().is_some_and(remove_unused_inputs)),
        Box::new(move |m| give_out_unread(m, &facts)),
    ]
}

/// Removes the graph's inputs and initializers nothing reads.
fn remove_unused_inputs(graph: &mut GraphProto) -> bool {
    let mut used: HashSet<&str> = graph.output.iter().map(|o| o.name()).collect();
    used_names(&graph.node, &mut used);
    let used: HashSet<String> = used.into_iter().map(str::to_owned).collect();
    let before = graph.input.len() + graph.initializer.len();
    graph.input.retain(|i| used.contains(i.name()));
    graph.initializer.retain(|i| used.contains(i.name()));
    before != graph.input.len() + graph.initializer.len()
}

/// Makes the main graph give out what its nodes compute and nothing
/// reads, in place of the outputs that only pass an input through; the
/// inputs left unread go.
fn give_out_unread(model: &mut ModelProto, facts: &Facts) -> bool {
    let Some(types) = facts.types.get("graph") else {
        return false;
    };
    let Some(graph) = model.graph.as_mut() else {
        return false;
    };
    let mut used: HashSet<&str> = graph.output.iter().map(|o| o.name()).collect();
    used_names(&graph.node, &mut used);
    let unread: Vec<ValueInfoProto> = graph
        .node
        .iter()
        .flat_map(|n| &n.output)
        .filter(|o| !o.is_empty() && !used.contains(o.as_str()))
        .filter_map(|o| {
            let ty = types.get(o).filter(|t| can_be_graph_io(t))?;
            Some(ValueInfoProto {
                name: Some(o.clone()),
                r#type: Some(ty.to_proto()),
                ..Default::default()
            })
        })
        .collect();
    let inputs: HashSet<String> = graph.input.iter().map(|i| i.name().to_owned()).collect();
    let before = graph.output.len();
    graph.output.retain(|o| !inputs.contains(o.name()));
    if unread.is_empty() || graph.output.len() == before {
        return false;
    }
    graph.output.extend(unread);
    remove_unused_inputs(graph);
    true
}

/// The edits that drop one thing a model may do without: a function, an
/// opset import, an initializer (or make it an input, or one element),
/// a graph input; and make a graph input's or output's symbolic
/// dimensions 1.
pub(super) fn drops(model: &ModelProto) -> Vec<Edit> {
    let mut edits: Vec<Edit> = Vec::new();
    for f in 0..model.functions.len() {
        edits.push(Box::new(move |m| remove_at(&mut m.functions, f)));
    }
    for o in 0..model.opset_import.len() {
        edits.push(Box::new(move |m| remove_at(&mut m.opset_import, o)));
    }
    let Some(graph) = &model.graph else {
        return edits;
    };
    for i in 0..graph.initializer.len() {
        edits.push(graph_edit(move |g| remove_at(&mut g.initializer, i)));
        edits.push(Box::new(move |m| initializer_to_input(m, i)));
        edits.push(graph_edit(move |g| {
            g.initializer.get_mut(i).is_some_and(to_one_element)
        }));
    }
    for i in 0..graph.input.len() {
        edits.push(graph_edit(move |g| remove_at(&mut g.input, i)));
        edits.push(graph_edit(move |g| {
            g.input.get_mut(i).is_some_and(symbolic_dims_to_one)
        }));
    }
    for o in 0..graph.output.len() {
        edits.push(graph_edit(move |g| {
            g.output.get_mut(o).is_some_and(symbolic_dims_to_one)
        }));
    }
    edits
}

/// An edit of the main graph.
fn graph_edit(edit: impl Fn(&mut GraphProto) -> bool + 'static) -> Edit {
    Box::new(move |m| m.graph.as_mut().is_some_and(&edit))
}

fn remove_at<T>(list: &mut Vec<T>, index: usize) -> bool {
    let found = index < list.len();
    if found {
        list.remove(index);
    }
    found
}

/// Calls `visit` on `graph` and every subgraph in it.
fn for_each_graph(graph: &mut GraphProto, visit: &mut dyn FnMut(&mut GraphProto)) {
    visit(graph);
    for node in &mut graph.node {
        for attribute in &mut node.attribute {
            if let Some(g) = attribute.g.as_deref_mut() {
                for_each_graph(g, visit);
            }
            for g in &mut attribute.graphs {
                for_each_graph(g, visit);
            }
        }
    }
}

/// Clears every doc string and the nodes' names and metadata.
fn strip(model: &mut ModelProto) -> bool {
    model.doc_string = None;
    let strip_nodes = |nodes: &mut Vec<NodeProto>| {
        for node in nodes {
            node.doc_string = None;
            node.name = None;
            node.metadata_props.clear();
            node.attribute.iter_mut().for_each(|a| a.doc_string = None);
        }
    };
    if let Some(graph) = model.graph.as_mut() {
        for_each_graph(graph, &mut |g| {
            g.doc_string = None;
            for v in g.input.iter_mut().chain(&mut g.output) {
                v.doc_string = None;
            }
            strip_nodes(&mut g.node);
        });
    }
    for function in &mut model.functions {
        function.doc_string = None;
        function.metadata_props.clear();
        strip_nodes(&mut function.node);
    }
    true
}

/// Makes main-graph initializer `index` a graph input of its type.
fn initializer_to_input(model: &mut ModelProto, index: usize) -> bool {
    let Some(graph) = model.graph.as_mut() else {
        return false;
    };
    if index >= graph.initializer.len() {
        return false;
    }
    let tensor = graph.initializer.remove(index);
    if graph.input.iter().any(|i| i.name() == tensor.name()) {
        return true;
    }
    let ty = Type::tensor(
        tensor.data_type(),
        tensor.dims.iter().map(|&d| d.into()).collect(),
    );
    graph.input.push(ValueInfoProto {
        name: tensor.name,
        r#type: Some(ty.to_proto()),
        ..Default::default()
    });
    true
}

/// Gives a value's symbolic (or unknown) dimensions the size 1.
fn symbolic_dims_to_one(input: &mut ValueInfoProto) -> bool {
    let mut changed = false;
    let mut ty = input
        .r#type
        .as_ref()
        .map(Type::from_proto)
        .unwrap_or_default();
    ty.dims_mut(&mut |d| {
        if d.value().is_none() {
            *d = 1.into();
            changed = true;
        }
    });
    if changed {
        input.r#type = Some(ty.to_proto());
    }
    changed
}

/// Makes a tensor of more than one element a tensor of one (every
/// dimension 1), keeping its first element.
fn to_one_element(tensor: &mut TensorProto) -> bool {
    if tensor.dims.iter().all(|&d| d == 1) || tensor.dims.contains(&0) {
        return false;
    }
    let data_type = DataType::try_from(tensor.data_type()).unwrap_or(DataType::Undefined);
    let per_element = match data_type {
        DataType::Complex64 | DataType::Complex128 => 2,
        _ => 1,
    };
    let raw_size = match data_type {
        DataType::Float | DataType::Int32 | DataType::Uint32 => 4,
        DataType::Double | DataType::Int64 | DataType::Uint64 | DataType::Complex64 => 8,
        DataType::Complex128 => 16,
        DataType::Float16 | DataType::Bfloat16 | DataType::Int16 | DataType::Uint16 => 2,
        DataType::String => 0,
        _ => 1,
    };
    tensor.dims.iter_mut().for_each(|d| *d = 1);
    tensor.float_data.truncate(per_element);
    tensor.double_data.truncate(per_element);
    tensor.int32_data.truncate(1);
    tensor.int64_data.truncate(1);
    tensor.uint64_data.truncate(1);
    tensor.string_data.truncate(1);
    if let Some(raw) = tensor.raw_data.as_mut() {
        raw.truncate(raw_size);
    }
    true
}

/// The edits of node `index` of `body`'s attributes: each removed (its
/// default, if it has one), a list one element shorter, a tensor of one
/// element.
pub(super) fn attribute_edits(model: &ModelProto, body: &BodyPath) -> Vec<Edit> {
    let mut edits: Vec<Edit> = Vec::new();
    let Some(nodes) = body.nodes(model) else {
        return edits;
    };
    for (n, node) in nodes.iter().enumerate() {
        for (a, attribute) in node.attribute.iter().enumerate() {
            if attribute.g.is_some() || !attribute.graphs.is_empty() {
                continue;
            }
            let edit_attribute = |edit: fn(&mut AttributeProto) -> bool| -> Edit {
                let body = body.clone();
                Box::new(move |m: &mut ModelProto| {
                    let Some(mut found) = body.find_mut(m) else {
                        return false;
                    };
                    found
                        .nodes()
                        .get_mut(n)
                        .and_then(|node| node.attribute.get_mut(a))
                        .is_some_and(edit)
                })
            };
            let body = body.clone();
            edits.push(Box::new(move |m| {
                let Some(mut found) = body.find_mut(m) else {
                    return false;
                };
                found
                    .nodes()
                    .get_mut(n)
                    .is_some_and(|node| remove_at(&mut node.attribute, a))
            }));
            edits.push(edit_attribute(shorten_list));
            edits.push(edit_attribute(|a| {
                a.t.as_deref_mut().is_some_and(to_one_element)
            }));
        }
    }
    edits
}

/// Drops the last element of a list attribute of two or more.
fn shorten_list(attribute: &mut AttributeProto) -> bool {
    fn pop<T>(list: &mut Vec<T>) -> bool {
        list.len() > 1 && list.pop().is_some()
    }
    pop(&mut attribute.ints) || pop(&mut attribute.floats) || pop(&mut attribute.strings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> ModelProto {
        crate::parse_model(text).unwrap()
    }

    #[test]
    fn a_removed_node_reads_a_same_typed_input_or_becomes_a_graph_input() {
        let mut m = model(
            "<ir_version: 10, opset_import: [\"\": 21]>
             g (float[N] x) => (float[N] y) { a = Relu(x) b = Shape(a) y = Reshape(a, b) }",
        );
        let facts = Facts::of(&m);
        assert!(remove_nodes(&mut m, &facts, &BodyPath::MAIN, 0..1));
        assert_eq!(m.graph.as_ref().unwrap().node[0].input, ["x"]);
        let mut m2 = model(
            "<ir_version: 10, opset_import: [\"\": 21]>
             g (float[N] x) => (float[N] y) { a = Relu(x) b = Shape(a) y = Reshape(a, b) }",
        );
        assert!(remove_nodes(&mut m2, &facts, &BodyPath::MAIN, 1..2));
        let graph = m2.graph.as_ref().unwrap();
        assert_eq!(graph.input[1].name(), "b");
        assert!(crate::check_model(&m2).iter().all(|f| !f.is_error()));
    }

    #[test]
    fn an_if_becomes_its_branch() {
        let mut m = model(
            "<ir_version: 10, opset_import: [\"\": 21]>
             g (bool c, float[2] x) => (float[2] y) {
               y = If (c) <then_branch: graph = t () => (float[2] a) { a = Neg(x) },
                           else_branch: graph = e () => (float[2] b) { b = Abs(x) }>
             }",
        );
        assert!(inline(&mut m, &BodyPath::MAIN, 0, "else_branch"));
        let graph = m.graph.as_ref().unwrap();
        assert_eq!(graph.node.len(), 1);
        assert_eq!(graph.node[0].op_type(), "Abs");
        assert_eq!(graph.node[0].output, ["y"]);
    }

    #[test]
    fn a_call_becomes_the_functions_nodes() {
        let mut m = model(
            "<ir_version: 10, opset_import: [\"\": 21, \"local\": 1]>
             g (float[2] x) => (float[2] y) { y = local.Twice(x) }
             <domain: \"local\", opset_import: [\"\": 21]>
             Twice (a) => (b) { t = Add(a, a) b = Neg(t) }",
        );
        assert!(inline_call(&mut m, &BodyPath::MAIN, 0));
        let nodes = &m.graph.as_ref().unwrap().node;
        assert_eq!(nodes[0].input, ["x", "x"]);
        assert_eq!(nodes[0].output, ["y__t"]);
        assert_eq!(nodes[1].input, ["y__t"]);
        assert_eq!(nodes[1].output, ["y"]);
        assert!(crate::check_model(&m).iter().all(|f| !f.is_error()));
    }

    #[test]
    fn symbolic_dims_become_one() {
        let mut m = model(
            "<ir_version: 10, opset_import: [\"\": 21]> g (float[N, 2] x) => (float[N, 2] y) { y = Relu(x) }",
        );
        let input = &mut m.graph.as_mut().unwrap().input[0];
        assert!(symbolic_dims_to_one(input));
        let ty = input.r#type.as_ref().unwrap();
        let Some(crate::proto::type_proto::Value::TensorType(t)) = &ty.value else {
            panic!("a tensor type")
        };
        let symbolic = |d: &crate::proto::tensor_shape_proto::Dimension| {
            matches!(
                d.value,
                Some(crate::proto::tensor_shape_proto::dimension::Value::DimParam(_))
            )
        };
        assert!(!t.shape.as_ref().unwrap().dim.iter().any(symbolic));
    }
}
