//! Writing inferred types into a model, as `infer_shapes` does: declared
//! types (graph outputs, value infos, subgraph inputs) get what inference
//! learned of them, in place (denotations kept), and each value that had
//! no declared type gets a `value_info` entry, in the order inferred.

use std::collections::{HashMap, HashSet};

use crate::finding::Finding;
use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::type_proto::Value;
use crate::proto::{GraphProto, ModelProto, TensorShapeProto, TypeProto, ValueInfoProto};

use super::types::{shape_proto, Dim, TensorType, Type};
use super::{infer_model, Options};
use crate::ir_path::{holds_graph, AttributeKeys};

/// What to write into one graph.
struct GraphUpdate {
    types: HashMap<String, Type>,
    appended: Vec<String>,
}

/// Infers `model` and writes what it learns into it, as
/// `onnx.shape_inference.infer_shapes(model, strict_mode=True,
/// data_prop=True)` does: graph outputs and value infos get the inferred
/// shapes, and every value without a declared type gets a `value_info`
/// entry. Returns the findings (the model is updated all the same).
///
/// ```
/// let mut model = onnxtxt::parse_model(r#"
///     <ir_version: 10, opset_import: ["": 21]>
///     g (float[N, 3] x) => (float[] y) { t = Neg(x)  y = Relu(t) }
/// "#)?;
/// let findings = onnxtxt::infer::fill_value_info(&mut model, Default::default());
/// assert!(findings.is_empty());
/// let text = onnxtxt::to_text(&model);
/// assert!(text.contains("=> (float[N,3] y)"), "{text}");
/// assert!(text.contains("float[N,3] t"), "{text}");
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn fill_value_info(model: &mut ModelProto, options: Options) -> Vec<Finding> {
    let (updates, findings) = {
        let inference = infer_model(model, options);
        let updates: HashMap<String, GraphUpdate> = inference
            .graphs
            .into_iter()
            .map(|g| {
                let update = GraphUpdate {
                    types: g.types().map(|(k, v)| (k.to_owned(), v.clone())).collect(),
                    appended: g.appended.into_iter().map(str::to_owned).collect(),
                };
                (g.path, update)
            })
            .collect();
        (updates, inference.findings)
    };
    if let Some(graph) = &mut model.graph {
        apply(graph, "graph", false, &updates);
    }
    findings
}

fn apply(
    graph: &mut GraphProto,
    path: &str,
    subgraph: bool,
    updates: &HashMap<String, GraphUpdate>,
) {
    if let Some(update) = updates.get(path) {
        write_graph(graph, subgraph, update);
    }
    for (i, node) in graph.node.iter_mut().enumerate() {
        if !node.attribute.iter().any(holds_graph) {
            continue;
        }
        let keys = AttributeKeys::new(&node.attribute);
        let holders: Vec<(usize, String)> = (node.attribute.iter().enumerate())
            .filter(|(_, attribute)| holds_graph(attribute))
            .map(|(j, _)| (j, keys.item("attribute", j)))
            .collect();
        for (j, item) in holders {
            let prefix = format!("{path}.node[{i}].{item}");
            let attribute = &mut node.attribute[j];
            if let Some(g) = &mut attribute.g {
                apply(g, &format!("{prefix}.g"), true, updates);
            }
            for (k, g) in attribute.graphs.iter_mut().enumerate() {
                apply(g, &format!("{prefix}.graphs[{k}]"), true, updates);
            }
        }
    }
}

fn write_graph(graph: &mut GraphProto, subgraph: bool, update: &GraphUpdate) {
    let appended: HashSet<&str> = update.appended.iter().map(String::as_str).collect();
    let name = |info: &ValueInfoProto| info.name.clone().unwrap_or_default();
    for info in &mut graph.input {
        // A subgraph's inputs take the types given to them, declared or
        // not; a main graph's stay as declared.
        if info.r#type.is_some() || subgraph {
            if let Some(ty) = update.types.get(&name(info)) {
                write_info(info, ty);
            }
        }
    }
    for info in graph.output.iter_mut().chain(&mut graph.value_info) {
        let name = name(info);
        if info.r#type.is_some() || appended.contains(name.as_str()) {
            if let Some(ty) = update.types.get(&name) {
                write_info(info, ty);
            }
        }
    }
    for name in &update.appended {
        if let Some(ty) = update.types.get(name) {
            graph.value_info.push(ValueInfoProto {
                name: Some(name.clone()),
                r#type: Some(ty.to_proto()),
                ..ValueInfoProto::default()
            });
        }
    }
}

fn write_info(info: &mut ValueInfoProto, ty: &Type) {
    write_type(info.r#type.get_or_insert_with(TypeProto::default), ty);
}

/// Writes `ty` into `proto` in place, keeping its denotations.
fn write_type(proto: &mut TypeProto, ty: &Type) {
    match (&mut proto.value, ty) {
        (_, Type::Unknown) => {}
        (None, _) => proto.value = ty.to_proto().value,
        (Some(Value::TensorType(t)), Type::Tensor(i)) => {
            write_tensor(&mut t.elem_type, &mut t.shape, i)
        }
        (Some(Value::SparseTensorType(t)), Type::SparseTensor(i)) => {
            write_tensor(&mut t.elem_type, &mut t.shape, i)
        }
        (Some(Value::SequenceType(s)), Type::Sequence(i)) => {
            write_type(s.elem_type.get_or_insert_with(Default::default), i)
        }
        (Some(Value::OptionalType(o)), Type::Optional(i)) => {
            write_type(o.elem_type.get_or_insert_with(Default::default), i)
        }
        (Some(Value::MapType(m)), Type::Map(key, i)) => {
            if m.key_type.unwrap_or(0) == 0 {
                m.key_type = Some(*key);
            }
            write_type(m.value_type.get_or_insert_with(Default::default), i)
        }
        _ => {}
    }
}

fn write_tensor(
    elem_type: &mut Option<i32>,
    shape: &mut Option<TensorShapeProto>,
    ty: &TensorType,
) {
    if elem_type.unwrap_or(0) == 0 {
        *elem_type = Some(ty.elem_type);
    }
    let Some(dims) = &ty.shape else { return };
    match shape {
        None => *shape = Some(shape_proto(dims)),
        Some(shape) if shape.dim.len() == dims.len() => {
            for (slot, dim) in shape.dim.iter_mut().zip(dims) {
                write_dim(slot, dim);
            }
        }
        Some(_) => {}
    }
}

fn write_dim(slot: &mut Dimension, dim: &Dim) {
    slot.value = match dim {
        Dim::Value(v) => Some(dimension::Value::DimValue(*v)),
        Dim::Param(p) => Some(dimension::Value::DimParam(p.to_string())),
        Dim::Unknown => return,
    };
}
