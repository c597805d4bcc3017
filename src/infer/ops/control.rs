//! Control flow: `If`, `Loop` and `Scan`, whose subgraphs are inferred
//! with the node's scope as their outer scope.

use super::common::*;
use super::sequence::union;

pub(super) const RULES: &[Rule] = &[
    Rule::new("If", 1, if_),
    Rule::new("Loop", 1, loop_),
    Rule::new("Scan", 8, scan_with_batch).until(8),
    Rule::new("Scan", 9, scan),
];

/// The outputs are what both branches give: their types' common part;
/// with extended propagation and a condition known, the branch taken.
fn if_(node: &mut Node) -> Outcome {
    let condition = node.constant_ints(0).filter(|c| c.len() == 1);
    let then = node.infer_graph("then_branch", Vec::new())?;
    let otherwise = node.infer_graph("else_branch", Vec::new())?;
    if then.len() != otherwise.len() {
        return failed(
            ErrorKind::Invalid,
            format!(
                "`then_branch` has {} outputs, `else_branch` {}",
                then.len(),
                otherwise.len()
            ),
        );
    }
    if then.len() != node.output_count() {
        return failed(
            ErrorKind::Invalid,
            format!("the node has {} outputs, its branches {}", node.output_count(), then.len()),
        );
    }
    for (i, (a, b)) in then.iter().zip(&otherwise).enumerate() {
        let ty = match (node.extended(), condition.as_deref()) {
            (true, Some([0])) => b.clone(),
            (true, Some(_)) => a.clone(),
            _ => union(a, b)?,
        };
        node.set(i, ty);
    }
    Ok(())
}

/// A type without its shapes (a loop-carried value may change shape from
/// one iteration to the next).
fn without_shape(ty: &Type) -> Type {
    match ty {
        Type::Tensor(t) => Type::Tensor(TensorType {
            elem_type: t.elem_type,
            shape: None,
        }),
        Type::Sequence(t) => Type::Sequence(Box::new(without_shape(t))),
        Type::Optional(t) => Type::Optional(Box::new(without_shape(t))),
        other => other.clone(),
    }
}

fn loop_(node: &mut Node) -> Outcome {
    let n = node.input_count();
    let state = n.saturating_sub(2);
    let mut inputs = vec![Some(Type::tensor_of(INT64)), node.input(1).cloned()];
    for i in 2..n {
        node.copy_elem(i, i - 2)?;
        inputs.push(node.input(i).map(without_shape));
    }
    let body = node.infer_graph("body", inputs)?;
    let outputs = node.output_count();
    if body.len() != outputs + 1 {
        return failed(
            ErrorKind::Invalid,
            format!("`body` has {} outputs, but the node {} (and the condition)", body.len(), outputs),
        );
    }
    for (i, ty) in body.iter().skip(1).enumerate() {
        if ty.is_unknown() {
            continue;
        }
        if i < state {
            loop_carried(node, i, ty)?;
            continue;
        }
        let Type::Tensor(t) = ty else {
            return failed(ErrorKind::Invalid, format!("`body` output {} is not a tensor", i + 1));
        };
        // A scan output stacks the body's values along a new first axis.
        let shape = t.shape.as_ref().map(|s| std::iter::once(Dim::Unknown).chain(s.iter().cloned()).collect());
        node.set(i, Type::Tensor(TensorType { elem_type: t.elem_type, shape }));
    }
    Ok(())
}

/// A loop-carried value's output: what the node's input gives, whose
/// element type `body` must keep; where `body` gives another kind (an
/// optional input, a sequence from the body), the body's kind, without
/// shapes.
fn loop_carried(node: &mut Node, i: usize, body: &Type) -> Outcome {
    let output = node.output(i).cloned().unwrap_or_default();
    if !output.same_kind(body) {
        node.set(i, without_shape(body));
        return Ok(());
    }
    if let (Some(out), Some(body)) = (output.as_tensor(), body.as_tensor()) {
        if out.elem_type != UNDEFINED && body.elem_type != UNDEFINED && out.elem_type != body.elem_type {
            return failed(
                ErrorKind::TypeMismatch,
                format!("loop-carried value {i} changes element type in `body`"),
            );
        }
    }
    Ok(())
}

/// The axes attribute `name` with one value per scan input or output
/// (`count`), 0 each when not given.
fn scan_axes(node: &Node, name: &str, count: usize) -> Result<Vec<i64>, Stop> {
    match node.ints(name) {
        Some(axes) if axes.len() != count => failed(
            ErrorKind::Invalid,
            format!("`{name}` has {} values for {count} scans", axes.len()),
        ),
        Some(axes) => Ok(axes.into_owned()),
        None => Ok(vec![0; count]),
    }
}

/// The output types of a `Scan`'s `body` given `inputs`, which must be
/// as many as the node's outputs.
fn scan_body(node: &mut Node, inputs: Vec<Option<Type>>) -> Result<Vec<Type>, Stop> {
    let body = node.infer_graph("body", inputs)?;
    if body.len() != node.output_count() {
        return failed(
            ErrorKind::Invalid,
            format!("`body` has {} outputs, but the node {}", body.len(), node.output_count()),
        );
    }
    Ok(body)
}

fn scan(node: &mut Node) -> Outcome {
    let n = node.input_count();
    let scans = usize::try_from(node.int("num_scan_inputs").known()?).unwrap_or(usize::MAX);
    let state = n.checked_sub(scans).known()?;
    let scan_outputs = node.output_count().checked_sub(state).known()?;
    let in_axes = scan_axes(node, "scan_input_axes", scans)?;
    let out_axes = scan_axes(node, "scan_output_axes", scan_outputs)?;
    let mut length = Dim::Unknown;
    let mut inputs = Vec::with_capacity(n);
    for i in 0..n {
        let input = node.tensor(i)?;
        if i < state {
            node.copy_elem(i, i)?;
            node.copy_shape(i, i)?;
            inputs.push(node.input(i).cloned());
            continue;
        }
        let Some(shape) = &input.shape else {
            inputs.push(node.input(i).cloned());
            continue;
        };
        let axis = axis(in_axes[i - state], shape.len(), "`scan_input_axes` value")?;
        length = merge_dim(&shape[axis], &length, || "the scan inputs differ in length".into())?;
        let mut sliced = shape.clone();
        sliced.remove(axis);
        inputs.push(Some(Type::tensor(input.elem_type, sliced)));
    }
    let body = scan_body(node, inputs)?;
    for (i, ty) in body.iter().enumerate() {
        let Some(t) = ty.as_tensor() else { continue };
        if i < state {
            if let (Some(body_shape), Some(Type::Tensor(out))) = (&t.shape, node.output(i)) {
                let merged = merge_shapes(body_shape, out.shape.as_deref())?;
                node.set_shape(i, merged);
            }
            continue;
        }
        node.set_elem(i, t.elem_type);
        if let Some(shape) = &t.shape {
            let at = axis(out_axes[i - state], shape.len() + 1, "`scan_output_axes` value")?;
            let mut stacked = shape.clone();
            stacked.insert(at, length.clone());
            node.set_shape(i, stacked);
        }
    }
    Ok(())
}

/// `source`'s dimensions merged into `target`'s (the same rank required).
fn merge_shapes(source: &[Dim], target: Option<&[Dim]>) -> Result<Shape, Stop> {
    let Some(target) = target else {
        return Ok(source.to_vec());
    };
    if source.len() != target.len() {
        return failed(
            ErrorKind::IncompatibleShapes,
            format!("`body` gives {} where {} is known", shape_text(source), shape_text(target)),
        );
    }
    source
        .iter()
        .zip(target)
        .enumerate()
        .map(|(i, (s, t))| merge_dim(s, t, || format!("dimension {i} of a loop-carried value")))
        .collect()
}

/// `Scan` 8: a first input `sequence_lens`, and a batch axis before the
/// scanned one on every value.
fn scan_with_batch(node: &mut Node) -> Outcome {
    let n = node.input_count();
    let scans = usize::try_from(node.int("num_scan_inputs").known()?).unwrap_or(usize::MAX);
    if scans.saturating_add(1) > n {
        return failed(ErrorKind::Invalid, "`num_scan_inputs` and `sequence_lens` exceed the inputs");
    }
    let state = n - 1 - scans;
    let (mut batch, mut length) = (Dim::Unknown, Dim::Unknown);
    let mut inputs = Vec::with_capacity(n - 1);
    for i in 1..n {
        let input = node.tensor(i)?;
        let Some(shape) = &input.shape else {
            if i - 1 < state {
                node.copy_elem(i, i - 1)?;
            }
            inputs.push(node.input(i).cloned());
            continue;
        };
        if i - 1 < state {
            node.copy_elem(i, i - 1)?;
            node.copy_shape(i, i - 1)?;
            inputs.push(Some(Type::tensor(input.elem_type, shape.get(1..).unwrap_or_default().to_vec())));
        } else {
            if shape.len() > 2 {
                batch = merge_dim(&shape[0], &batch, || "the scan inputs differ in batch size".into())?;
                length = merge_dim(&shape[1], &length, || "the scan inputs differ in length".into())?;
            }
            inputs.push(Some(Type::tensor(input.elem_type, shape.get(2..).unwrap_or_default().to_vec())));
        }
    }
    let body = scan_body(node, inputs)?;
    for (i, ty) in body.iter().enumerate() {
        let Some(t) = ty.as_tensor() else { continue };
        let is_state = i < state;
        if !is_state {
            node.set_elem(i, t.elem_type);
        }
        if let Some(shape) = &t.shape {
            let mut stacked = vec![batch.clone()];
            if !is_state {
                stacked.push(length.clone());
            }
            stacked.extend(shape.iter().cloned());
            let known = node.output(i).and_then(Type::shape).map(<[Dim]>::to_vec);
            let merged = merge_shapes(&stacked, known.as_deref())?;
            node.set_shape(i, merged);
        }
    }
    Ok(())
}
