//! Elementwise operators: unary ones (output like the input), binary and
//! variadic ones with numpy-style broadcasting, comparisons and logical
//! operators (boolean outputs), `Where`; and data propagation through
//! `Add`, `Sub` and `Mul` of shape values.

use super::common::*;

pub(super) const RULES: &[Rule] = &[
    // Unary: the output is the input's type and shape.
    Rule::new("Abs", 6, same_as_input).propagate_beyond_onnx(abs_data),
    Rule::new("Acos", 7, same_as_input),
    Rule::new("Acosh", 9, same_as_input),
    Rule::new("Asin", 7, same_as_input),
    Rule::new("Asinh", 9, same_as_input),
    Rule::new("Atan", 7, same_as_input),
    Rule::new("Atanh", 9, same_as_input),
    Rule::new("BitwiseNot", 18, same_as_input),
    Rule::new("Ceil", 6, same_as_input),
    Rule::new("Celu", 12, same_as_input),
    Rule::new("Clip", 6, same_as_input),
    Rule::new("Cos", 7, same_as_input),
    Rule::new("Cosh", 9, same_as_input),
    Rule::new("CumProd", 26, same_as_input),
    Rule::new("CumSum", 11, same_as_input),
    Rule::new("Elu", 6, same_as_input),
    Rule::new("Erf", 9, same_as_input),
    Rule::new("Exp", 6, same_as_input),
    Rule::new("Floor", 6, same_as_input),
    Rule::new("Gelu", 20, same_as_input),
    Rule::new("HardSigmoid", 6, same_as_input),
    Rule::new("HardSwish", 14, same_as_input),
    Rule::new("Identity", 1, same_as_input).propagate_beyond_onnx(first_input_data),
    Rule::new("LeakyRelu", 6, same_as_input),
    Rule::new("Log", 6, same_as_input),
    Rule::new("Mish", 18, same_as_input),
    Rule::new("Neg", 6, same_as_input).propagate_beyond_onnx(neg_data),
    Rule::new("PRelu", 6, same_as_input),
    Rule::new("Reciprocal", 6, same_as_input),
    Rule::new("Relu", 6, same_as_input),
    Rule::new("Round", 11, same_as_input),
    Rule::new("Selu", 6, same_as_input),
    Rule::new("Shrink", 9, same_as_input),
    Rule::new("Sigmoid", 6, same_as_input),
    Rule::new("Sign", 9, same_as_input),
    Rule::new("Sin", 7, same_as_input),
    Rule::new("Sinh", 9, same_as_input),
    Rule::new("Softplus", 1, same_as_input),
    Rule::new("Softsign", 1, same_as_input),
    Rule::new("Sqrt", 6, same_as_input),
    Rule::new("Swish", 24, same_as_input),
    Rule::new("Tan", 7, same_as_input),
    Rule::new("Tanh", 6, same_as_input),
    Rule::new("ThresholdedRelu", 10, same_as_input),
    // Unary with a boolean output.
    Rule::new("IsInf", 10, boolean_like_input),
    Rule::new("IsNaN", 9, boolean_like_input),
    Rule::new("Not", 1, boolean_like_input),
    // Binary, broadcasting; before opset 7 they broadcast by attribute
    // only, and onnx gives the first input's shape.
    Rule::new("Add", 6, same_as_input).until(6),
    Rule::new("Add", 7, binary).until(13).propagate_beyond_onnx(add_data),
    Rule::new("Add", 14, binary).propagate(add_data),
    Rule::new("Sub", 6, same_as_input).until(6),
    Rule::new("Sub", 7, binary).until(13).propagate_beyond_onnx(sub_data),
    Rule::new("Sub", 14, binary).propagate(sub_data),
    Rule::new("Mul", 6, same_as_input).until(6),
    Rule::new("Mul", 7, binary).until(13).propagate_beyond_onnx(mul_data),
    Rule::new("Mul", 14, binary).propagate(mul_data),
    Rule::new("Div", 6, same_as_input).until(6),
    Rule::new("Div", 7, binary).propagate_beyond_onnx(div_data),
    Rule::new("Pow", 1, same_as_input).until(1),
    Rule::new("Pow", 7, binary),
    Rule::new("Mod", 10, binary),
    Rule::new("BitShift", 11, binary),
    Rule::new("BitwiseAnd", 18, binary),
    Rule::new("BitwiseOr", 18, binary),
    Rule::new("BitwiseXor", 18, binary),
    // Comparisons and logic: boolean, broadcasting.
    Rule::new("And", 7, comparison),
    Rule::new("Or", 7, comparison),
    Rule::new("Xor", 7, comparison),
    Rule::new("Equal", 7, comparison),
    Rule::new("Greater", 7, comparison),
    Rule::new("Less", 7, comparison),
    Rule::new("GreaterOrEqual", 16, comparison),
    Rule::new("LessOrEqual", 16, comparison),
    // Variadic, broadcasting all inputs together.
    Rule::new("Max", 6, same_as_input).until(6),
    Rule::new("Max", 8, variadic).propagate_beyond_onnx(max_data),
    Rule::new("Min", 6, same_as_input).until(6),
    Rule::new("Min", 8, variadic).propagate_beyond_onnx(min_data),
    Rule::new("Sum", 6, same_as_input).until(6),
    Rule::new("Sum", 8, variadic),
    Rule::new("Mean", 6, same_as_input).until(6),
    Rule::new("Mean", 8, variadic),
    Rule::new("Where", 9, where_),
];

/// The output is input 0's type and shape.
pub(super) fn same_as_input(node: &mut Node) -> Outcome {
    node.same_as_input()
}

/// A boolean tensor of input 0's shape.
fn boolean_like_input(node: &mut Node) -> Outcome {
    node.set_elem(0, BOOL);
    if node.shape_opt(0).is_some() {
        node.copy_shape(0, 0)?;
    }
    Ok(())
}

/// Input 0's element type; both inputs' shapes broadcast.
pub(super) fn binary(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    broadcast_inputs(node, 2)
}

/// Booleans, both inputs' shapes broadcast.
fn comparison(node: &mut Node) -> Outcome {
    node.set_elem(0, BOOL);
    broadcast_inputs(node, 2)
}

/// Input 0's element type; all inputs' shapes broadcast.
fn variadic(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    broadcast_inputs(node, node.input_count())
}

/// `Where (condition, X, Y)`: X's element type, the three shapes broadcast.
fn where_(node: &mut Node) -> Outcome {
    node.copy_elem(1, 0)?;
    broadcast_inputs(node, 3)
}

/// Output 0's shape is the broadcast of the first `count` inputs' shapes,
/// when they are all known.
fn broadcast_inputs(node: &mut Node, count: usize) -> Outcome {
    let shapes: Option<Vec<&[Dim]>> = (0..count).map(|i| node.shape_opt(i)).collect();
    let Some(shapes) = shapes else { return Ok(()) };
    let shape = broadcast(&shapes)?;
    node.set_shape(0, shape);
    Ok(())
}

fn add_data(p: &mut DataNode) -> Outcome {
    arithmetic_data(p, |a, b| Some(a.wrapping_add(b)))
}

fn sub_data(p: &mut DataNode) -> Outcome {
    arithmetic_data(p, |a, b| Some(a.wrapping_sub(b)))
}

fn mul_data(p: &mut DataNode) -> Outcome {
    arithmetic_data(p, |a, b| Some(a.wrapping_mul(b)))
}

/// Integer division rounds towards zero; by zero, nothing is known.
fn div_data(p: &mut DataNode) -> Outcome {
    arithmetic_data(p, i64::checked_div)
}

fn max_data(p: &mut DataNode) -> Outcome {
    if p.node().input_count() != 2 {
        return Ok(());
    }
    arithmetic_data(p, |a, b| Some(a.max(b)))
}

fn min_data(p: &mut DataNode) -> Outcome {
    if p.node().input_count() != 2 {
        return Ok(());
    }
    arithmetic_data(p, |a, b| Some(a.min(b)))
}

fn neg_data(p: &mut DataNode) -> Outcome {
    unary_data(p, i64::checked_neg)
}

fn abs_data(p: &mut DataNode) -> Outcome {
    unary_data(p, i64::checked_abs)
}

/// Copies input 0's propagated contents to output 0.
pub(super) fn first_input_data(p: &mut DataNode) -> Outcome {
    let data = p.input(0).known()?.to_vec();
    p.set(0, data);
    Ok(())
}

/// Applies `op` to each element of input 0's contents.
fn unary_data(p: &mut DataNode, op: fn(i64) -> Option<i64>) -> Outcome {
    if !is_integer_tensor(p, 0) {
        return Ok(());
    }
    let data = p.input(0).known()?;
    let result = data
        .iter()
        .map(|d| d.value().and_then(op).map_or(Dim::Unknown, Dim::Value))
        .collect();
    p.set(0, result);
    Ok(())
}

/// Whether input `i` is an integer tensor (contents of float tensors are
/// not propagated).
fn is_integer_tensor(p: &DataNode, i: usize) -> bool {
    matches!(p.node().input(i).map(Type::elem_type), Some(INT64 | INT32))
}

/// Elementwise arithmetic on two shape values of the same length (or one
/// of length 1); an element is known when both are and `op` gives one.
fn arithmetic_data(p: &mut DataNode, op: fn(i64, i64) -> Option<i64>) -> Outcome {
    let (Some(a), Some(b)) = (p.input(0), p.input(1)) else {
        return Ok(());
    };
    let (n, m) = (a.len(), b.len());
    if n != m && n != 1 && m != 1 {
        return Err(Stop::Unknown);
    }
    let len = if n == 1 { m } else { n };
    let result = (0..len)
        .map(|i| {
            let x = &a[if n == 1 { 0 } else { i }];
            let y = &b[if m == 1 { 0 } else { i }];
            match (x, y) {
                (Dim::Value(x), Dim::Value(y)) => op(*x, *y).map_or(Dim::Unknown, Dim::Value),
                _ => Dim::Unknown,
            }
        })
        .collect();
    p.set(0, result);
    Ok(())
}
