//! Sequences and optionals: `SequenceConstruct` and the other sequence
//! operators, `SplitToSequence`, `ConcatFromSequence`, `SequenceMap`,
//! `Optional`, `OptionalHasElement`, `OptionalGetElement`.

use super::common::*;

pub(super) const RULES: &[Rule] = &[
    Rule::new("SequenceEmpty", 11, sequence_empty),
    Rule::new("SequenceConstruct", 11, sequence_construct),
    Rule::new("SequenceInsert", 11, sequence_insert),
    Rule::new("SequenceAt", 11, sequence_at),
    Rule::new("SequenceErase", 11, same_type_as_input),
    Rule::new("SequenceLength", 11, sequence_length),
    Rule::new("SplitToSequence", 11, split_to_sequence),
    Rule::new("ConcatFromSequence", 11, concat_from_sequence),
    Rule::new("SequenceMap", 17, sequence_map),
    Rule::new("Optional", 15, optional),
    Rule::new("OptionalHasElement", 15, optional_has_element),
    Rule::new("OptionalGetElement", 15, optional_get_element),
];

/// What two types have in common, as onnx's `UnionTypeInfo` computes it:
/// the same kind and element type (else an error), and the dimensions
/// they agree on. Where one is unknown, so is the union.
pub(super) fn union(a: &Type, b: &Type) -> Result<Type, Stop> {
    Ok(match (a, b) {
        (Type::Unknown, _) | (_, Type::Unknown) => Type::Unknown,
        (Type::Tensor(x), Type::Tensor(y)) => Type::Tensor(union_tensor(x, y)?),
        (Type::SparseTensor(x), Type::SparseTensor(y)) => Type::SparseTensor(union_tensor(x, y)?),
        (Type::Sequence(x), Type::Sequence(y)) => Type::Sequence(Box::new(union(x, y)?)),
        (Type::Optional(x), Type::Optional(y)) => Type::Optional(Box::new(union(x, y)?)),
        (Type::Map(k, x), Type::Map(l, y)) if k == l => Type::Map(*k, Box::new(union(x, y)?)),
        _ => {
            return failed(
                ErrorKind::TypeMismatch,
                format!("the types {a} and {b} cannot be the same value's"),
            )
        }
    })
}

fn union_tensor(a: &TensorType, b: &TensorType) -> Result<TensorType, Stop> {
    if a.elem_type != b.elem_type {
        if a.elem_type == UNDEFINED || b.elem_type == UNDEFINED {
            return Ok(TensorType::default());
        }
        return failed(
            ErrorKind::TypeMismatch,
            format!(
                "element types {} and {} differ",
                crate::infer::types::elem_name(a.elem_type),
                crate::infer::types::elem_name(b.elem_type)
            ),
        );
    }
    let shape = match (&a.shape, &b.shape) {
        (Some(x), Some(y)) if x.len() == y.len() => Some(
            x.iter()
                .zip(y)
                .map(|(p, q)| if p == q { p.clone() } else { Dim::Unknown })
                .collect(),
        ),
        _ => None,
    };
    Ok(TensorType {
        elem_type: a.elem_type,
        shape,
    })
}

/// A sequence of tensors of `elem_type` and `shape`.
fn sequence_of(elem_type: i32, shape: Option<Shape>) -> Type {
    Type::Sequence(Box::new(Type::Tensor(TensorType { elem_type, shape })))
}

/// The tensor type of the elements of sequence input `i`.
fn element_of<'a>(node: &Node<'a, '_>, i: usize) -> Result<&'a TensorType, Stop> {
    match node.input(i) {
        Some(Type::Sequence(inner)) => inner.as_tensor().known(),
        _ => Err(Stop::Unknown),
    }
}

fn sequence_empty(node: &mut Node) -> Outcome {
    let elem = node.int("dtype").map_or(FLOAT, |d| d as i32);
    node.set(0, sequence_of(elem, None));
    Ok(())
}

fn sequence_construct(node: &mut Node) -> Outcome {
    let n = node.input_count();
    let elems: Vec<i32> = (0..n).map(|i| node.elem(i)).collect::<Result<_, _>>()?;
    if elems.windows(2).any(|w| w[0] != w[1]) {
        return failed(ErrorKind::TypeMismatch, "the inputs differ in element type");
    }
    let Some(&elem) = elems.first() else { return Ok(()) };
    let shapes: Option<Vec<&[Dim]>> = (0..n).map(|i| node.shape_opt(i)).collect();
    let shape = shapes.and_then(|shapes| {
        let mut union = TensorType {
            elem_type: elem,
            shape: Some(shapes[0].to_vec()),
        };
        for s in &shapes[1..] {
            let other = TensorType {
                elem_type: elem,
                shape: Some(s.to_vec()),
            };
            union = union_tensor(&union, &other).ok()?;
        }
        union.shape
    });
    node.set(0, sequence_of(elem, shape));
    Ok(())
}

fn sequence_insert(node: &mut Node) -> Outcome {
    let element = element_of(node, 0)?;
    let tensor = node.tensor(1)?;
    if element.elem_type != tensor.elem_type {
        return failed(
            ErrorKind::TypeMismatch,
            "the tensor's element type is not the sequence's",
        );
    }
    let shape = match (&element.shape, &tensor.shape) {
        (Some(_), Some(_)) => union_tensor(element, tensor)?.shape,
        _ => None,
    };
    node.set(0, sequence_of(element.elem_type, shape));
    Ok(())
}

fn sequence_at(node: &mut Node) -> Outcome {
    match node.input(0) {
        Some(Type::Sequence(inner)) => {
            let inner = (**inner).clone();
            node.set(0, inner);
            Ok(())
        }
        _ => Err(Stop::Unknown),
    }
}

fn same_type_as_input(node: &mut Node) -> Outcome {
    let input = node.input(0).known()?.clone();
    node.set(0, input);
    Ok(())
}

fn sequence_length(node: &mut Node) -> Outcome {
    node.set_tensor(0, INT64, Vec::new());
    Ok(())
}

fn split_to_sequence(node: &mut Node) -> Outcome {
    let elem = node.elem(0)?;
    node.set(0, sequence_of(elem, None));
    let input = node.shape(0)?;
    let axis = axis(node.int_or("axis", 0), input.len(), "`axis`")?;
    let (size, keep) = if node.input_count() == 1 {
        (Some(1), node.int_or("keepdims", 1) != 0)
    } else {
        (split_size(node, input, axis)?, true)
    };
    let shape = if keep {
        let mut shape = input.to_vec();
        shape[axis] = size.map_or(Dim::Unknown, Dim::Value);
        shape
    } else {
        let mut shape = input.to_vec();
        shape.remove(axis);
        shape
    };
    node.set(0, sequence_of(elem, Some(shape)));
    Ok(())
}

/// The size of each part `SplitToSequence` makes when the `split` input
/// is given, when they are all the same and known.
fn split_size(node: &Node, input: &[Dim], axis: usize) -> Result<Option<i64>, Stop> {
    let (Some(split_shape), Some(sizes)) = (node.shape_opt(1), node.constant_ints(1)) else {
        return Ok(None);
    };
    if sizes.is_empty() {
        return failed(ErrorKind::Invalid, "`split` is empty");
    }
    let Dim::Value(size) = input[axis] else {
        return Ok(None);
    };
    if split_shape.is_empty() {
        return Ok((sizes[0] > 0 && size % sizes[0] == 0).then_some(sizes[0]));
    }
    let total = sum(&sizes)?;
    if total != size {
        return failed(
            ErrorKind::IncompatibleShapes,
            format!("the sizes in `split` add up to {total}, but the dimension split is {size}"),
        );
    }
    Ok(sizes.windows(2).all(|w| w[0] == w[1]).then_some(sizes[0]))
}

fn concat_from_sequence(node: &mut Node) -> Outcome {
    let element = element_of(node, 0)?;
    node.set_elem(0, element.elem_type);
    let Some(input) = &element.shape else { return Ok(()) };
    let Some(axis) = node.attr("axis").map(|a| a.i.unwrap_or(0)) else {
        return failed(ErrorKind::Invalid, "`axis` is required");
    };
    let new_axis = node.int_or("new_axis", 0);
    if new_axis != 0 && new_axis != 1 {
        return failed(ErrorKind::Invalid, "`new_axis` must be 0 or 1");
    }
    let rank = input.len() as i64 + new_axis;
    let axis = super::common::axis(axis, rank as usize, "`axis`")?;
    let mut shape = input.clone();
    if new_axis == 1 {
        shape.insert(axis, Dim::Unknown);
    } else {
        shape[axis] = Dim::Unknown;
    }
    node.set_shape(0, shape);
    Ok(())
}

fn sequence_map(node: &mut Node) -> Outcome {
    let n = node.input_count();
    let mut inputs = Vec::with_capacity(n);
    for i in 0..n {
        match node.input(i).known()? {
            Type::Sequence(inner) => inputs.push(Some((**inner).clone())),
            _ if i == 0 => return failed(ErrorKind::Invalid, "input 0 must be a sequence"),
            other => inputs.push(Some(other.clone())),
        }
    }
    let body = node.infer_graph("body", inputs)?;
    if body.len() != node.output_count() {
        return failed(
            ErrorKind::Invalid,
            format!("`body` has {} outputs, but the node {}", body.len(), node.output_count()),
        );
    }
    for (i, ty) in body.into_iter().enumerate() {
        node.set(i, Type::Sequence(Box::new(ty)));
    }
    Ok(())
}

fn optional(node: &mut Node) -> Outcome {
    let inner = if node.input_count() == 1 {
        node.input(0).known()?.clone()
    } else {
        let ty = node.attr("type").and_then(|a| a.tp.as_ref()).known()?;
        Type::from_proto(ty)
    };
    node.set(0, Type::Optional(Box::new(inner)));
    Ok(())
}

fn optional_has_element(node: &mut Node) -> Outcome {
    node.set_tensor(0, BOOL, Vec::new());
    Ok(())
}

fn optional_get_element(node: &mut Node) -> Outcome {
    match node.input(0).known()? {
        Type::Optional(inner) => {
            let inner = (**inner).clone();
            node.set(0, inner);
            Ok(())
        }
        _ if node.version() >= 18 => node.same_as_input(),
        _ => Err(Stop::Unknown),
    }
}
