//! Attributes and constants as later nodes see them: attribute references
//! in function bodies bound to the call's values, and the values of
//! `Constant` nodes kept for the nodes that read them (`Reshape`'s shape,
//! `Unsqueeze`'s axes), as onnx's `ProcessConstant` does.

use foldhash::HashMap;
use std::borrow::Cow;

use crate::ops;
use crate::proto::attribute_proto::AttributeType;
use crate::proto::tensor_proto::DataType;
use crate::proto::{AttributeProto, NodeProto, TensorProto};

use super::engine::Scope;
use super::names::ValueId;

/// The node's attributes with attribute references replaced by the values
/// they are bound to (an unbound reference is dropped), as onnx's
/// `AttributeBinder` does in function bodies.
pub(super) fn bind<'a>(
    bindings: Option<&HashMap<String, AttributeProto>>,
    attributes: &'a [AttributeProto],
) -> Cow<'a, [AttributeProto]> {
    let reference = |a: &AttributeProto| a.ref_attr_name.clone().filter(|r| !r.is_empty());
    let Some(bindings) = bindings else {
        return Cow::Borrowed(attributes);
    };
    if !attributes.iter().any(|a| reference(a).is_some()) {
        return Cow::Borrowed(attributes);
    }
    let bound = attributes
        .iter()
        .filter_map(|a| {
            let Some(name) = reference(a) else {
                return Some(a.clone());
            };
            let value = bindings.get(&name)?;
            Some(AttributeProto {
                name: a.name.clone(),
                ..value.clone()
            })
        })
        .collect();
    Cow::Owned(bound)
}

/// Records the value of a `Constant` node (of `ai.onnx`, one output, the
/// value `outputs[0]`) for later nodes.
pub(super) fn constant_of<'m>(scope: &mut Scope<'_, 'm>, node: &'m NodeProto, outputs: &[ValueId]) {
    let domain = node.domain.as_deref().unwrap_or("");
    let onnx = domain.is_empty() || domain == ops::AI_ONNX;
    if node.op_type.as_deref() != Some("Constant") || !onnx || node.output.len() != 1 {
        return;
    }
    let constant = match bind(scope.bindings, &node.attribute) {
        Cow::Borrowed(attributes) => constant_value(attributes, Cow::Borrowed),
        Cow::Owned(attributes) => constant_value(&attributes, |t| Cow::Owned(t.clone())),
    };
    if let Some(tensor) = constant {
        scope.constants.insert(outputs[0], tensor);
    }
}

/// The value a `Constant` with `attributes` holds (the last attribute
/// that gives one), its `value` tensor taken by `take`.
fn constant_value<'a, 'm>(
    attributes: &'a [AttributeProto],
    take: impl Fn(&'a TensorProto) -> Cow<'m, TensorProto>,
) -> Option<Cow<'m, TensorProto>> {
    let mut found = None;
    for attribute in attributes {
        let value = if attribute.name.as_deref() == Some("value") {
            attribute.t.as_deref().map(&take)
        } else {
            literal_tensor(attribute).map(Cow::Owned)
        };
        if value.is_some() {
            found = value;
        }
    }
    found
}

/// The tensor of a `Constant`'s `value_int(s)` or `value_float(s)`: a
/// scalar or a 1-D tensor of `int64` or `float`.
fn literal_tensor(attribute: &AttributeProto) -> Option<TensorProto> {
    let mut tensor = TensorProto::default();
    match AttributeType::try_from(attribute.r#type?).ok()? {
        AttributeType::Ints => {
            tensor.data_type = Some(DataType::Int64 as i32);
            tensor.dims = vec![attribute.ints.len() as i64];
            tensor.int64_data.clone_from(&attribute.ints);
        }
        AttributeType::Int => {
            tensor.data_type = Some(DataType::Int64 as i32);
            tensor.int64_data = vec![attribute.i.unwrap_or(0)];
        }
        AttributeType::Floats => {
            tensor.data_type = Some(DataType::Float as i32);
            tensor.dims = vec![attribute.floats.len() as i64];
            tensor.float_data.clone_from(&attribute.floats);
        }
        AttributeType::Float => {
            tensor.data_type = Some(DataType::Float as i32);
            tensor.float_data = vec![attribute.f.unwrap_or(0.0)];
        }
        _ => return None,
    }
    Some(tensor)
}
