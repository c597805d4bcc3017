//! The data of a test case against its model's graph: each value of the
//! kind, element type and shape of the graph input or output it is for,
//! each symbolic dimension of one size across a data set; inputs and
//! outputs a data set leaves out.

use std::collections::HashMap;

use super::{TestCase, Value};
use crate::check::findings::Findings;
use crate::check::Finding;
use crate::proto::tensor_shape_proto::dimension;
use crate::proto::type_proto::{self, Tensor};
use crate::proto::{
    MapProto, OptionalProto, SequenceProto, SparseTensorProto, TensorProto, TypeProto,
};
use crate::vocabulary::element_type_name;

/// What a value does not have of its declared type.
const DATA_TYPE: &str = "onnxtxt::testcase::data_type";
/// A graph input or output with no value in a data set.
const MISSING: &str = "onnxtxt::testcase::missing_data";

/// See [`TestCase::check`].
pub(super) fn check(case: &TestCase) -> Vec<Finding> {
    let mut findings = Findings::default();
    let graph = case.model.graph.clone().unwrap_or_default();
    for set in &case.data_sets {
        // Each symbolic dimension's size, and the file that gave it first.
        let mut symbols: HashMap<&str, (i64, String)> = HashMap::new();
        for (side, values, declared) in [
            ("input", &set.inputs, &graph.input),
            ("output", &set.outputs, &graph.output),
        ] {
            for (k, (value, info)) in values.iter().zip(declared).enumerate() {
                let file = format!("{side}_{k}.pb");
                let path = format!("{}/{file}", set.name);
                let Some(ty) = &info.r#type else { continue };
                let mut problems = Vec::new();
                let mut top = Symbols {
                    sizes: &mut symbols,
                    file: &file,
                };
                compare(&Item::of(value), ty, "", &mut problems, Some(&mut top));
                for problem in problems {
                    findings.error(DATA_TYPE, &path, &path, problem);
                }
            }
            for (k, info) in declared.iter().enumerate().skip(values.len()) {
                let name = info.name.as_deref().unwrap_or("");
                let fed = graph
                    .initializer
                    .iter()
                    .any(|t| t.name.as_deref() == Some(name));
                if side == "input" && fed {
                    continue;
                }
                let path = format!("{}/{side}_{k}.pb", set.name);
                findings
                    .warning(
                        MISSING,
                        &set.name,
                        path,
                        format!("no value for {side} `{name}` ({side}_{k}.pb)"),
                    )
                    .help("a runner feeds the inputs it finds and compares the outputs it finds");
            }
        }
    }
    findings.in_model_order()
}

/// The symbolic dimensions of a data set's top-level tensors.
struct Symbols<'a, 'm> {
    sizes: &'a mut HashMap<&'m str, (i64, String)>,
    file: &'a str,
}

/// A value, or a value inside one.
enum Item<'a> {
    Tensor(&'a TensorProto),
    Sparse(&'a SparseTensorProto),
    Sequence(&'a SequenceProto),
    Map(&'a MapProto),
    Optional(&'a OptionalProto),
}

impl<'a> Item<'a> {
    fn of(value: &'a Value) -> Self {
        match value {
            Value::Tensor(t) => Item::Tensor(t),
            Value::Sequence(q) => Item::Sequence(q),
            Value::Map(m) => Item::Map(m),
            Value::Optional(o) => Item::Optional(o),
        }
    }

    fn what(&self) -> &'static str {
        match self {
            Item::Tensor(_) => "a tensor",
            Item::Sparse(_) => "a sparse tensor",
            Item::Sequence(_) => "a sequence",
            Item::Map(_) => "a map",
            Item::Optional(_) => "an optional",
        }
    }

    /// The values of a sequence, in field order.
    fn of_sequence(q: &'a SequenceProto) -> Vec<Item<'a>> {
        let mut items: Vec<Item<'a>> = q.tensor_values.iter().map(Item::Tensor).collect();
        items.extend(q.sparse_tensor_values.iter().map(Item::Sparse));
        items.extend(q.sequence_values.iter().map(Item::Sequence));
        items.extend(q.map_values.iter().map(Item::Map));
        items.extend(q.optional_values.iter().map(Item::Optional));
        items
    }

    /// The value of an optional, if it holds one (or several, which it
    /// should not).
    fn of_optional(o: &'a OptionalProto) -> Vec<Item<'a>> {
        let mut items: Vec<Item<'a>> = o
            .tensor_value
            .as_deref()
            .map(Item::Tensor)
            .into_iter()
            .collect();
        items.extend(o.sparse_tensor_value.as_deref().map(Item::Sparse));
        items.extend(o.sequence_value.as_deref().map(Item::Sequence));
        items.extend(o.map_value.as_deref().map(Item::Map));
        items.extend(o.optional_value.as_deref().map(Item::Optional));
        items
    }
}

/// How a type names the kind of value it declares.
fn declared_what(value: &type_proto::Value) -> &'static str {
    match value {
        type_proto::Value::TensorType(_) => "a tensor",
        type_proto::Value::SparseTensorType(_) => "a sparse tensor",
        type_proto::Value::SequenceType(_) => "a sequence",
        type_proto::Value::MapType(_) => "a map",
        type_proto::Value::OptionalType(_) => "an optional",
        type_proto::Value::OpaqueType(_) => "an opaque value",
    }
}

/// The name of element type `code` (its number when it has none).
fn type_name(code: i32) -> String {
    element_type_name(code).map_or_else(|| code.to_string(), str::to_owned)
}

/// Adds to `problems` what `item` does not have of type `ty`, each
/// starting with `at` (where in the value it is). `symbols` binds the
/// symbolic dimensions of a top-level tensor (the tensors inside a
/// sequence may differ in shape).
fn compare<'m>(
    item: &Item<'_>,
    ty: &'m TypeProto,
    at: &str,
    problems: &mut Vec<String>,
    symbols: Option<&mut Symbols<'_, 'm>>,
) {
    let Some(declared) = &ty.value else { return };
    match (declared, item) {
        (type_proto::Value::TensorType(tensor_type), Item::Tensor(t)) => {
            tensor(t, tensor_type, at, problems, symbols);
        }
        (type_proto::Value::SparseTensorType(sparse_type), Item::Sparse(sparse)) => {
            let dense = TensorProto {
                data_type: sparse.values.as_ref().and_then(|v| v.data_type),
                dims: sparse.dims.clone(),
                ..TensorProto::default()
            };
            let declared = Tensor {
                elem_type: sparse_type.elem_type,
                shape: sparse_type.shape.clone(),
            };
            tensor(&dense, &declared, at, problems, None);
        }
        (type_proto::Value::SequenceType(sequence), Item::Sequence(q)) => {
            if let Some(elem) = &sequence.elem_type {
                for (i, item) in Item::of_sequence(q).iter().enumerate() {
                    compare(item, elem, &format!("{at}value {i}: "), problems, None);
                }
            }
        }
        (type_proto::Value::MapType(map_type), Item::Map(m)) => {
            if let Some(key_type) = map_type.key_type.filter(|&k| k != 0) {
                if m.key_type != Some(key_type) {
                    problems.push(format!(
                        "{at}key type {}, the graph declares {}",
                        m.key_type.map_or_else(|| "unset".into(), type_name),
                        type_name(key_type)
                    ));
                }
            }
            if let (Some(value_type), Some(values)) = (&map_type.value_type, &m.values) {
                for (i, item) in Item::of_sequence(values).iter().enumerate() {
                    compare(
                        item,
                        value_type,
                        &format!("{at}value {i}: "),
                        problems,
                        None,
                    );
                }
            }
        }
        (type_proto::Value::OptionalType(optional), Item::Optional(o)) => {
            if let Some(elem) = &optional.elem_type {
                for item in Item::of_optional(o) {
                    compare(&item, elem, at, problems, None);
                }
            }
        }
        (declared, item) => problems.push(format!(
            "{at}{}, the graph declares {}",
            item.what(),
            declared_what(declared)
        )),
    }
}

/// [`compare`] for a tensor: element type, rank, each dimension.
fn tensor<'m>(
    t: &TensorProto,
    declared: &'m Tensor,
    at: &str,
    problems: &mut Vec<String>,
    mut symbols: Option<&mut Symbols<'_, 'm>>,
) {
    if let Some(elem_type) = declared.elem_type.filter(|&e| e != 0) {
        if t.data_type != Some(elem_type) {
            problems.push(format!(
                "{at}element type {}, the graph declares {}",
                t.data_type.map_or_else(|| "unset".into(), type_name),
                type_name(elem_type)
            ));
        }
    }
    let Some(shape) = &declared.shape else { return };
    if shape.dim.len() != t.dims.len() {
        problems.push(format!(
            "{at}shape {:?}, the graph declares rank {}",
            t.dims,
            shape.dim.len()
        ));
        return;
    }
    for (axis, (dim, &size)) in shape.dim.iter().zip(&t.dims).enumerate() {
        match &dim.value {
            Some(dimension::Value::DimValue(n)) if *n != size => problems.push(format!(
                "{at}dimension {axis} is {size}, the graph declares {n}"
            )),
            Some(dimension::Value::DimParam(symbol)) => {
                let Some(symbols) = symbols.as_deref_mut() else {
                    continue;
                };
                match symbols.sizes.get(symbol.as_str()) {
                    Some((first, file)) if *first != size => problems.push(format!(
                        "{at}`{symbol}` is {size} here and {first} in {file}"
                    )),
                    Some(_) => {}
                    None => {
                        symbols
                            .sizes
                            .insert(symbol, (size, symbols.file.to_owned()));
                    }
                }
            }
            _ => {}
        }
    }
}
