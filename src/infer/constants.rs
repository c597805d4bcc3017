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

/// The constant values of a body by value number: initializers and
/// `Constant` outputs, borrowed from the model, or tensors made from an
/// attribute (`value_ints`, a bound reference), each in a box of its own.
/// One vector indexed by the value's number, sized once for the body's
/// values: a graph of many `Constant` nodes neither hashes their numbers
/// nor grows a map of whole tensors.
#[derive(Default)]
pub(super) struct Constants<'m> {
    values: Vec<Option<Constant<'m>>>,
}

/// A constant value, borrowed from the model or made.
enum Constant<'m> {
    Borrowed(&'m TensorProto),
    Made(Box<TensorProto>),
}

impl<'m> Constants<'m> {
    /// Room for the constants of a body of `values` values.
    pub(super) fn for_values(values: usize) -> Self {
        let mut constants = Constants::default();
        constants.values.resize_with(values, || None);
        constants
    }

    /// Records `tensor` as the value of `id`, in place of any before.
    pub(super) fn insert(&mut self, id: ValueId, tensor: Cow<'m, TensorProto>) {
        let index = id as usize;
        if index >= self.values.len() {
            self.values.resize_with(index + 1, || None);
        }
        self.values[index] = Some(match tensor {
            Cow::Borrowed(tensor) => Constant::Borrowed(tensor),
            Cow::Owned(tensor) => Constant::Made(Box::new(tensor)),
        });
    }

    /// The value of `id`, when it is a constant.
    pub(super) fn get(&self, id: ValueId) -> Option<&TensorProto> {
        match self.values.get(id as usize)?.as_ref()? {
            Constant::Borrowed(tensor) => Some(tensor),
            Constant::Made(tensor) => Some(tensor),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(name: &str) -> TensorProto {
        TensorProto {
            name: Some(name.to_owned()),
            ..TensorProto::default()
        }
    }

    fn name_of(constants: &Constants<'_>, id: ValueId) -> Option<String> {
        constants.get(id).and_then(|t| t.name.clone())
    }

    #[test]
    fn a_value_recorded_again_has_its_last_value_borrowed_or_owned() {
        let (initializer, node_value) = (tensor("initializer"), tensor("node value"));
        let mut constants = Constants::default();
        constants.insert(0, Cow::Borrowed(&initializer));
        constants.insert(1, Cow::Owned(tensor("made")));
        assert_eq!(name_of(&constants, 0).as_deref(), Some("initializer"));
        assert_eq!(name_of(&constants, 1).as_deref(), Some("made"));
        assert_eq!(name_of(&constants, 2), None);

        constants.insert(0, Cow::Owned(tensor("made again")));
        assert_eq!(name_of(&constants, 0).as_deref(), Some("made again"));
        constants.insert(0, Cow::Borrowed(&node_value));
        assert_eq!(name_of(&constants, 0).as_deref(), Some("node value"));
        constants.insert(1, Cow::Borrowed(&initializer));
        assert_eq!(name_of(&constants, 1).as_deref(), Some("initializer"));
    }

    #[test]
    fn many_values_made_and_borrowed_each_keep_their_own() {
        let borrowed: Vec<TensorProto> = (0..300).map(|i| tensor(&format!("b{i}"))).collect();
        let mut constants = Constants::for_values(100);
        for i in 0..300u32 {
            let made = || Cow::Owned(tensor(&format!("m{i}")));
            let value = if i % 3 == 0 {
                made()
            } else {
                Cow::Borrowed(&borrowed[i as usize])
            };
            constants.insert(2 * i, value);
        }
        for i in 0..300u32 {
            let expected = if i % 3 == 0 {
                format!("m{i}")
            } else {
                format!("b{i}")
            };
            assert_eq!(name_of(&constants, 2 * i), Some(expected));
            assert_eq!(name_of(&constants, 2 * i + 1), None);
        }
    }
}
