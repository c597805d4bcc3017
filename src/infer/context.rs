//! What a rule sees of the node it infers: input types, constant and
//! propagated input contents, attributes (with the schema's defaults), and
//! the output types it sets. [`DataNode`] is the same for data
//! propagation, which computes the contents of small integer outputs.

use std::borrow::Cow;

use crate::ir_path::attribute_item;
use crate::ops::{AttributeValue, Schema};
use crate::proto::{AttributeProto, NodeProto, TensorProto};

use super::data::{self, constant_dims, unknown_dims_of};
use super::engine::{Run, Scope};
use super::error::{failed, ErrorKind, Known, Outcome, Stop};
use super::types::{Dim, Shape, TensorType, Type, UNDEFINED};

/// The node a rule infers.
pub(crate) struct Node<'a, 'm> {
    pub(super) proto: &'m NodeProto,
    /// The attributes, with attribute references bound (in function bodies).
    pub(super) attributes: &'a [AttributeProto],
    pub(super) schema: &'static Schema,
    /// Each input's type; `None` when the input is missing or untyped.
    pub(super) inputs: Vec<Option<&'a Type>>,
    /// Each input's constant value (initializer or `Constant`).
    pub(super) constants: Vec<Option<&'a TensorProto>>,
    /// Each input's propagated contents, for inputs that are not constants.
    pub(super) symbolic: Vec<Option<&'a [Dim]>>,
    /// The types inferred so far, one per output.
    pub(super) outputs: Vec<Type>,
    /// Where the node is (for the results of its subgraphs).
    pub(super) path: &'a dyn Fn() -> String,
    pub(super) run: &'a mut Run<'m>,
    pub(super) scope: &'a Scope<'a, 'm>,
}

impl<'a, 'm> Node<'a, 'm> {
    /// The operator's name.
    pub fn op_type(&self) -> &'m str {
        self.proto.op_type.as_deref().unwrap_or("")
    }

    /// The version of the operator's schema in force (its
    /// `since_version`), for rules that cover several.
    pub fn version(&self) -> i64 {
        self.schema.since_version()
    }

    // ----- inputs -----------------------------------------------------

    /// How many inputs the node lists (missing optional ones included).
    pub fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// The type of input `i`; `None` when it is missing or unknown.
    pub fn input(&self, i: usize) -> Option<&'a Type> {
        self.inputs.get(i).copied().flatten()
    }

    /// Whether input `i` is there with a type (onnx's `hasInput`).
    pub fn has_input(&self, i: usize) -> bool {
        self.input(i).is_some()
    }

    /// The name of input `i` (`""` when missing).
    pub fn input_name(&self, i: usize) -> &'m str {
        self.proto.input.get(i).map_or("", String::as_str)
    }

    /// Input `i` as a tensor (or sparse tensor).
    pub fn tensor(&self, i: usize) -> Result<&'a TensorType, Stop> {
        self.input(i).and_then(Type::as_tensor).known()
    }

    /// The element type of tensor input `i`, when known.
    pub fn elem(&self, i: usize) -> Result<i32, Stop> {
        let elem = self.tensor(i)?.elem_type;
        if elem == UNDEFINED {
            return Err(Stop::Unknown);
        }
        Ok(elem)
    }

    /// The shape of tensor input `i`, when its rank is known.
    pub fn shape(&self, i: usize) -> Result<&'a [Dim], Stop> {
        self.tensor(i)?.shape.as_deref().known()
    }

    /// The shape of tensor input `i`, or `None` (for rules that go on
    /// without it).
    pub fn shape_opt(&self, i: usize) -> Option<&'a [Dim]> {
        self.input(i).and_then(Type::shape)
    }

    /// The rank of tensor input `i`, when known.
    pub fn rank(&self, i: usize) -> Result<usize, Stop> {
        Ok(self.shape(i)?.len())
    }

    /// The constant value of input `i` (an initializer or a `Constant`'s
    /// output), when it has one.
    pub fn constant(&self, i: usize) -> Option<&'a TensorProto> {
        self.constants.get(i).copied().flatten()
    }

    /// Whether data propagation goes beyond onnx's
    /// ([`Propagation::Extended`](super::Propagation)).
    pub fn extended(&self) -> bool {
        self.run.options.propagation == super::Propagation::Extended
    }

    /// The elements of integer input `i`: a constant's, or with extended
    /// propagation the propagated contents when every element is known.
    pub fn constant_ints(&self, i: usize) -> Option<Vec<i64>> {
        if let Some(constant) = self.constant(i) {
            return data::int_values(constant);
        }
        if !self.extended() {
            return None;
        }
        self.symbolic(i)?.iter().map(Dim::value).collect()
    }

    /// The contents data propagation computed for input `i` (when it is not
    /// a constant).
    pub fn symbolic(&self, i: usize) -> Option<&'a [Dim]> {
        self.symbolic.get(i).copied().flatten()
    }

    /// The contents of input `i` as a shape, as onnx's `getShapeInput`
    /// reads it: a constant's elements, else the propagated contents, else
    /// as many unknown dims as the 1-D input is long. `Ok(None)` when none
    /// of those is known.
    pub fn shape_input(&self, i: usize) -> Result<Option<Shape>, Stop> {
        if let Some(constant) = self.constant(i) {
            let values = data::int_values(constant).known()?;
            return Ok(Some(values.into_iter().map(Dim::Value).collect()));
        }
        if let Some(dims) = self.symbolic(i) {
            return Ok(Some(dims.to_vec()));
        }
        let Some(shape) = self.shape_opt(i) else {
            return Ok(None);
        };
        if shape.len() != 1 {
            return failed(
                ErrorKind::Invalid,
                format!(
                    "input {} (`{}`) must be a 1-D tensor, but its rank is {}",
                    i,
                    self.input_name(i),
                    shape.len()
                ),
            );
        }
        Ok(unknown_dims_of(self.input(i).known()?))
    }

    // ----- attributes ---------------------------------------------------

    /// The node's attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&'a AttributeProto> {
        self.attributes
            .iter()
            .find(|a| a.name.as_deref() == Some(name))
    }

    fn default(&self, name: &str) -> Option<AttributeValue> {
        self.schema.attribute(name)?.default_value()
    }

    /// Integer attribute `name`: the node's value (0 when the attribute is
    /// there without one, as onnx reads it), else the schema's default.
    pub fn int(&self, name: &str) -> Option<i64> {
        if let Some(attr) = self.attr(name) {
            return Some(attr.i.unwrap_or(0));
        }
        match self.default(name)? {
            AttributeValue::Int(v) => Some(v),
            _ => None,
        }
    }

    /// Integer attribute `name`, or `default` when neither the node nor
    /// the schema gives one.
    pub fn int_or(&self, name: &str, default: i64) -> i64 {
        self.int(name).unwrap_or(default)
    }

    /// Integer list attribute `name` (node's, else the schema's default).
    pub fn ints(&self, name: &str) -> Option<Cow<'a, [i64]>> {
        if let Some(attr) = self.attr(name) {
            return Some(Cow::Borrowed(&attr.ints));
        }
        match self.default(name)? {
            AttributeValue::Ints(v) => Some(Cow::Borrowed(v)),
            _ => None,
        }
    }

    /// Float list attribute `name` (node's, else the schema's default).
    pub fn floats(&self, name: &str) -> Option<Cow<'a, [f32]>> {
        if let Some(attr) = self.attr(name) {
            return Some(Cow::Borrowed(&attr.floats));
        }
        match self.default(name)? {
            AttributeValue::Floats(v) => Some(Cow::Borrowed(v)),
            _ => None,
        }
    }

    /// String attribute `name` (node's, else the schema's default); `None`
    /// when it is not UTF-8.
    pub fn string(&self, name: &str) -> Option<&'a str> {
        if let Some(attr) = self.attr(name) {
            return std::str::from_utf8(attr.s.as_deref().unwrap_or_default()).ok();
        }
        match self.default(name)? {
            AttributeValue::String(v) => Some(v),
            _ => None,
        }
    }

    /// String list attribute `name` (node's, else the schema's default).
    pub fn strings(&self, name: &str) -> Option<Vec<&'a [u8]>> {
        if let Some(attr) = self.attr(name) {
            return Some(attr.strings.iter().map(Vec::as_slice).collect());
        }
        match self.default(name)? {
            AttributeValue::Strings(v) => Some(v.iter().map(|s| s.as_bytes()).collect()),
            _ => None,
        }
    }

    /// Tensor attribute `name`.
    pub fn tensor_attr(&self, name: &str) -> Option<&'a TensorProto> {
        self.attr(name)?.t.as_deref()
    }

    // ----- outputs ------------------------------------------------------

    /// How many outputs the node lists (missing optional ones included).
    pub fn output_count(&self) -> usize {
        self.outputs.len()
    }

    /// The name of output `i` (`""` when missing).
    pub fn output_name(&self, i: usize) -> &'m str {
        self.proto.output.get(i).map_or("", String::as_str)
    }

    /// The type inferred so far for output `i`.
    pub fn output(&self, i: usize) -> Option<&Type> {
        self.outputs.get(i)
    }

    /// Sets output `i`'s type (ignored past the node's outputs).
    pub fn set(&mut self, i: usize, ty: Type) {
        if let Some(slot) = self.outputs.get_mut(i) {
            *slot = ty;
        }
    }

    /// Output `i` as a tensor, made one if it has no kind yet; `None` past
    /// the node's outputs or when it is another kind.
    fn output_tensor(&mut self, i: usize) -> Option<&mut TensorType> {
        let slot = self.outputs.get_mut(i)?;
        if slot.is_unknown() {
            *slot = Type::Tensor(TensorType::default());
        }
        slot.as_tensor_mut()
    }

    /// Sets output `i`'s element type.
    pub fn set_elem(&mut self, i: usize, elem_type: i32) {
        if let Some(t) = self.output_tensor(i) {
            t.elem_type = elem_type;
        }
    }

    /// Sets output `i`'s shape.
    pub fn set_shape(&mut self, i: usize, shape: Shape) {
        if let Some(t) = self.output_tensor(i) {
            t.shape = Some(shape);
        }
    }

    /// Output `i` is a tensor of `elem_type` and `shape`.
    pub fn set_tensor(&mut self, i: usize, elem_type: i32, shape: Shape) {
        self.set(i, Type::tensor(elem_type, shape));
    }

    /// Gives output `to` the element type of input `from` (for a sequence,
    /// optional or map input: its whole inner type), as onnx's
    /// `propagateElemTypeFromInputToOutput` does.
    pub fn copy_elem(&mut self, from: usize, to: usize) -> Outcome {
        let input = self.input(from).known()?;
        match input {
            Type::Tensor(t) | Type::SparseTensor(t) => {
                if t.elem_type == UNDEFINED {
                    return Err(Stop::Unknown);
                }
                let Some(slot) = self.outputs.get_mut(to) else {
                    return Ok(());
                };
                match slot {
                    Type::Unknown => {
                        *slot = match input {
                            Type::SparseTensor(_) => Type::SparseTensor(TensorType::default()),
                            _ => Type::Tensor(TensorType::default()),
                        };
                    }
                    Type::Tensor(_) | Type::SparseTensor(_) => {}
                    _ => return Err(Stop::Unknown),
                }
                if let Some(out) = slot.as_tensor_mut() {
                    out.elem_type = t.elem_type;
                }
            }
            Type::Sequence(_) | Type::Optional(_) | Type::Map(..) => {
                let input = input.clone();
                self.set(to, input);
            }
            Type::Unknown | Type::Opaque(..) => return Err(Stop::Unknown),
        }
        Ok(())
    }

    /// Gives output `to` the shape of input `from` (for sequences and the
    /// like, of their inner tensors), when it is known.
    pub fn copy_shape(&mut self, from: usize, to: usize) -> Outcome {
        let input = self.input(from).known()?;
        let Some(slot) = self.outputs.get_mut(to) else {
            return Ok(());
        };
        copy_shape_into(input, slot);
        Ok(())
    }

    /// Output 0 is input 0's type and shape (onnx's
    /// `propagateShapeAndTypeFromFirstInput`).
    pub fn same_as_input(&mut self) -> Outcome {
        self.copy_elem(0, 0)?;
        if self.shape_opt(0).is_some() {
            self.copy_shape(0, 0)?;
        }
        Ok(())
    }

    // ----- subgraphs ----------------------------------------------------

    /// Infers the graph of attribute `name` given its inputs' types, with
    /// this node's scope as its outer scope; returns its outputs' types.
    /// `Stop::Unknown` when the attribute holds no graph or the graph has
    /// errors (reported at their own nodes).
    pub fn infer_graph(
        &mut self,
        name: &str,
        inputs: Vec<Option<Type>>,
    ) -> Result<Vec<Type>, Stop> {
        // The graph as the node holds it: a graph bound to an attribute
        // reference (in a function body) is not inferred.
        let attributes = &self.proto.attribute;
        let Some(index) = attributes
            .iter()
            .position(|a| a.name.as_deref() == Some(name))
        else {
            return Err(Stop::Unknown);
        };
        let graph = attributes[index].g.as_ref().known()?;
        let attribute = attribute_item("attribute", attributes, index);
        let path = format!("{}.{attribute}.g", (self.path)());
        self.run.subgraph(self.scope, graph, path, inputs)
    }
}

/// Copies the shapes `from` has into `to`, kind by kind, as onnx's
/// `propagateShape` does; kinds that differ copy nothing.
pub(super) fn copy_shape_into(from: &Type, to: &mut Type) {
    if to.is_unknown() {
        *to = match from {
            Type::SparseTensor(_) => Type::SparseTensor(TensorType::default()),
            Type::Tensor(_) => Type::Tensor(TensorType::default()),
            _ => return,
        };
    }
    match (from, to) {
        (Type::Tensor(f), Type::Tensor(t)) | (Type::SparseTensor(f), Type::SparseTensor(t))
            if f.shape.is_some() =>
        {
            t.shape.clone_from(&f.shape);
        }
        (Type::Sequence(f), Type::Sequence(t))
        | (Type::Optional(f), Type::Optional(t))
        | (Type::Map(_, f), Type::Map(_, t)) => copy_shape_into(f, t),
        _ => {}
    }
}

/// What a data propagation function sees: the node's attributes and types,
/// and the contents known of its inputs.
pub(crate) struct DataNode<'a, 'm> {
    pub(super) node: &'a Node<'a, 'm>,
    /// The contents known of each input (looked up by the engine).
    pub(super) data: Vec<Option<Cow<'a, [Dim]>>>,
    /// The contents computed for each output.
    pub(super) results: Vec<Option<Vec<Dim>>>,
}

impl<'a, 'm> DataNode<'a, 'm> {
    /// The node (attributes, input and output types).
    pub fn node(&self) -> &Node<'a, 'm> {
        self.node
    }

    /// The contents of input `i` as data propagation knows them: computed
    /// by an earlier node, a constant's elements (an `int64` or `int32`
    /// tensor of rank 0 or 1), or as many unknown dims as a 1-D input of
    /// known length has.
    pub fn input(&self, i: usize) -> Option<&[Dim]> {
        self.data.get(i)?.as_deref()
    }

    /// The type inferred for output `i`.
    pub fn output_type(&self, i: usize) -> Option<&Type> {
        self.node.output(i)
    }

    /// Sets the contents of output `i`.
    pub fn set(&mut self, i: usize, dims: Vec<Dim>) {
        if let Some(slot) = self.results.get_mut(i) {
            *slot = Some(dims);
        }
    }
}

/// The contents data propagation reads for input `i` of `node`: the
/// propagated data, or a constant's elements, or unknown dims of a 1-D
/// input's length.
pub(super) fn propagation_input<'a>(
    node: &Node<'a, '_>,
    i: usize,
    propagated: Option<&'a [Dim]>,
) -> Option<Cow<'a, [Dim]>> {
    if let Some(dims) = propagated {
        return Some(Cow::Borrowed(dims));
    }
    if let Some(constant) = node.constant(i) {
        if constant.dims.len() <= 1 {
            return constant_dims(constant).map(Cow::Owned);
        }
    }
    unknown_dims_of(node.input(i)?).map(Cow::Owned)
}
