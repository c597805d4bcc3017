//! A model made ready to compare: what the options leave out cleared,
//! tensors moved out of `raw_data`, and tensor elements replaced by a
//! placeholder.

use super::summary::Shape;
use super::{function_name, plural, DiffOptions};
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, SparseTensorProto,
    StringStringEntryProto, TensorProto, ValueInfoProto,
};
use crate::tensor_data::{self, TypedField, TypedValues};

/// A copy of `model` with what `options` leave out cleared, and, with
/// [`DiffOptions::summarize_tensors`], the tensors whose elements were
/// replaced by a placeholder.
pub(super) fn prepare(model: &ModelProto, options: &DiffOptions) -> (ModelProto, Vec<Elided>) {
    let mut model = model.clone();
    if options.ignore_doc_strings {
        model.doc_string = None;
    }
    if options.ignore_metadata {
        model.metadata_props.clear();
        model.producer_name = None;
        model.producer_version = None;
        model.domain = None;
        model.model_version = None;
    }
    let mut elided = Vec::new();
    walk_model(&mut model, &mut |mut item| {
        if options.ignore_doc_strings {
            *item.doc_string() = None;
        }
        if options.ignore_metadata {
            if let Some(props) = item.metadata_props() {
                props.clear();
            }
        }
        if let (true, Item::Tensor(tensor, _)) = (options.ignore_storage, &mut item) {
            if tensor.raw_data.is_some() {
                if let Some(values) = take_elements(tensor) {
                    put_elements(tensor, values);
                }
            }
        }
        if let (true, Item::Tensor(tensor, Some(place))) = (options.summarize_tensors, item) {
            if let Some(values) = take_values(tensor) {
                elided.push(Elided {
                    place,
                    shape: Shape::of(tensor),
                    values,
                });
            }
        }
    });
    (model, elided)
}

/// An item of a model that has a doc string.
enum Item<'a> {
    Graph(&'a mut GraphProto),
    Node(&'a mut NodeProto),
    Attribute(&'a mut AttributeProto),
    ValueInfo(&'a mut ValueInfoProto),
    Function(&'a mut FunctionProto),
    /// A tensor, with where it is (`W`, `local.MyFn/c.value`,
    /// `loop.body/W`) unless it is part of a sparse tensor.
    Tensor(&'a mut TensorProto, Option<String>),
}

impl Item<'_> {
    fn doc_string(&mut self) -> &mut Option<String> {
        match self {
            Item::Graph(g) => &mut g.doc_string,
            Item::Node(n) => &mut n.doc_string,
            Item::Attribute(a) => &mut a.doc_string,
            Item::ValueInfo(v) => &mut v.doc_string,
            Item::Function(f) => &mut f.doc_string,
            Item::Tensor(t, _) => &mut t.doc_string,
        }
    }

    fn metadata_props(&mut self) -> Option<&mut Vec<StringStringEntryProto>> {
        match self {
            Item::Graph(g) => Some(&mut g.metadata_props),
            Item::Node(n) => Some(&mut n.metadata_props),
            Item::Attribute(_) => None,
            Item::ValueInfo(v) => Some(&mut v.metadata_props),
            Item::Function(f) => Some(&mut f.metadata_props),
            Item::Tensor(t, _) => Some(&mut t.metadata_props),
        }
    }
}

type Visit<'v> = dyn FnMut(Item<'_>) + 'v;

/// Visits every item of `model` (not the model itself), inner items first.
fn walk_model(model: &mut ModelProto, visit: &mut Visit<'_>) {
    if let Some(graph) = &mut model.graph {
        walk_graph(graph, "", visit);
    }
    for (i, training) in model.training_info.iter_mut().enumerate() {
        for (field, graph) in [
            ("initialization", &mut training.initialization),
            ("algorithm", &mut training.algorithm),
        ] {
            if let Some(graph) = graph {
                walk_graph(graph, &format!("training_info[{i}].{field}/"), visit);
            }
        }
    }
    for function in &mut model.functions {
        let prefix = format!("{}/", function_name(function));
        for attribute in &mut function.attribute_proto {
            let place = format!("{prefix}{}", attribute.name.as_deref().unwrap_or(""));
            walk_attribute(attribute, &place, visit);
        }
        walk_nodes(&mut function.node, &prefix, visit);
        for value_info in &mut function.value_info {
            visit(Item::ValueInfo(value_info));
        }
        visit(Item::Function(function));
    }
}

/// Visits a graph and what it holds; `prefix` starts the places of its
/// tensors.
fn walk_graph(graph: &mut GraphProto, prefix: &str, visit: &mut Visit<'_>) {
    for value_info in graph
        .input
        .iter_mut()
        .chain(&mut graph.output)
        .chain(&mut graph.value_info)
    {
        visit(Item::ValueInfo(value_info));
    }
    for tensor in &mut graph.initializer {
        let place = format!("{prefix}{}", tensor.name.as_deref().unwrap_or(""));
        visit(Item::Tensor(tensor, Some(place)));
    }
    for sparse in &mut graph.sparse_initializer {
        walk_sparse(sparse, visit);
    }
    walk_nodes(&mut graph.node, prefix, visit);
    visit(Item::Graph(graph));
}

/// Visits nodes; a node is named by its name, else its first output, else
/// its index.
fn walk_nodes(nodes: &mut [NodeProto], prefix: &str, visit: &mut Visit<'_>) {
    for (i, node) in nodes.iter_mut().enumerate() {
        let id = match (node.name.as_deref(), node.output.first()) {
            (Some(name), _) if !name.is_empty() => name.to_owned(),
            (_, Some(output)) if !output.is_empty() => output.clone(),
            _ => format!("node[{i}]"),
        };
        for attribute in &mut node.attribute {
            let place = format!("{prefix}{id}.{}", attribute.name.as_deref().unwrap_or(""));
            walk_attribute(attribute, &place, visit);
        }
        visit(Item::Node(node));
    }
}

/// Visits an attribute at `place` and the tensors and graphs it holds.
fn walk_attribute(attribute: &mut AttributeProto, place: &str, visit: &mut Visit<'_>) {
    if let Some(tensor) = &mut attribute.t {
        visit(Item::Tensor(tensor, Some(place.to_owned())));
    }
    for (i, tensor) in attribute.tensors.iter_mut().enumerate() {
        visit(Item::Tensor(tensor, Some(format!("{place}[{i}]"))));
    }
    if let Some(graph) = &mut attribute.g {
        walk_graph(graph, &format!("{place}/"), visit);
    }
    for (i, graph) in attribute.graphs.iter_mut().enumerate() {
        walk_graph(graph, &format!("{place}[{i}]/"), visit);
    }
    for sparse in attribute
        .sparse_tensor
        .as_deref_mut()
        .into_iter()
        .chain(&mut attribute.sparse_tensors)
    {
        walk_sparse(sparse, visit);
    }
    visit(Item::Attribute(attribute));
}

fn walk_sparse(sparse: &mut SparseTensorProto, visit: &mut Visit<'_>) {
    for tensor in sparse.values.iter_mut().chain(&mut sparse.indices) {
        visit(Item::Tensor(tensor, None));
    }
}

/// The values of a tensor whose elements were replaced by a placeholder.
pub(super) struct Elided {
    pub(super) place: String,
    pub(super) shape: Shape,
    pub(super) values: TypedValues,
}

/// Takes the elements out of `tensor`, leaving a placeholder (written as
/// external data, which has no elements), if they are stored in the one
/// field its type uses or in `raw_data` in the standard layout. Other
/// tensors are left as they are.
pub(super) fn take_values(tensor: &mut TensorProto) -> Option<TypedValues> {
    let values = take_elements(tensor)?;
    tensor.data_location = Some(1);
    let count = values.len();
    tensor.external_data = vec![StringStringEntryProto {
        key: Some("elided".into()),
        value: Some(format!("{count} {}", plural(count, "value"))),
    }];
    Some(values)
}

/// Puts `values` in the typed field they belong in.
fn put_elements(tensor: &mut TensorProto, values: TypedValues) {
    match values {
        TypedValues::Int32(v) => tensor.int32_data = v,
        TypedValues::Int64(v) => tensor.int64_data = v,
        TypedValues::Uint64(v) => tensor.uint64_data = v,
        TypedValues::Float(v) => tensor.float_data = v,
        TypedValues::Double(v) => tensor.double_data = v,
        TypedValues::Bytes(v) => tensor.string_data = v,
    }
}

/// Takes the elements out of `tensor`, leaving it with none, if they are
/// stored as [`take_values`] reads them.
fn take_elements(tensor: &mut TensorProto) -> Option<TypedValues> {
    let data_type = tensor.data_type?;
    let field = tensor_data::typed_field(data_type)?;
    let count = tensor
        .dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))?;
    let stray = TYPED_FIELDS
        .into_iter()
        .any(|other| other != field && typed_len(tensor, other) > 0);
    if stray || tensor.data_location == Some(1) {
        return None;
    }
    let values = match &tensor.raw_data {
        Some(raw) if typed_len(tensor, field) == 0 => {
            tensor_data::unpack_raw(data_type, raw, count)?
        }
        Some(_) => return None,
        None => match field {
            TypedField::Int32Data => TypedValues::Int32(std::mem::take(&mut tensor.int32_data)),
            TypedField::Int64Data => TypedValues::Int64(std::mem::take(&mut tensor.int64_data)),
            TypedField::Uint64Data => TypedValues::Uint64(std::mem::take(&mut tensor.uint64_data)),
            TypedField::FloatData => TypedValues::Float(std::mem::take(&mut tensor.float_data)),
            TypedField::DoubleData => TypedValues::Double(std::mem::take(&mut tensor.double_data)),
            TypedField::StringData => TypedValues::Bytes(std::mem::take(&mut tensor.string_data)),
        },
    };
    tensor.raw_data = None;
    Some(values)
}

pub(super) const TYPED_FIELDS: [TypedField; 6] = [
    TypedField::Int32Data,
    TypedField::Int64Data,
    TypedField::Uint64Data,
    TypedField::FloatData,
    TypedField::DoubleData,
    TypedField::StringData,
];

/// How many entries `field` of `tensor` holds.
pub(super) fn typed_len(tensor: &TensorProto, field: TypedField) -> usize {
    match field {
        TypedField::Int32Data => tensor.int32_data.len(),
        TypedField::Int64Data => tensor.int64_data.len(),
        TypedField::Uint64Data => tensor.uint64_data.len(),
        TypedField::FloatData => tensor.float_data.len(),
        TypedField::DoubleData => tensor.double_data.len(),
        TypedField::StringData => tensor.string_data.len(),
    }
}
