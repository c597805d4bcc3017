//! Matrix products and other linear algebra: `MatMul` (and its integer and
//! quantized forms), `Gemm`, `Einsum`, `Det`.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashSet};

use super::common::*;

pub(super) const RULES: &[Rule] = &[
    Rule::new("MatMul", 1, matmul),
    Rule::new("MatMulInteger", 10, matmul_integer),
    Rule::new("QLinearMatMul", 10, qlinear_matmul),
    Rule::new("Gemm", 6, gemm_of_matrices).until(7),
    Rule::new("Gemm", 9, gemm),
    Rule::new("Einsum", 12, einsum),
    Rule::new("Det", 11, det),
];

/// The shape of `a × b` as numpy's `matmul` broadcasts it: a 1-D operand
/// is a row (left) or column (right) vector whose added dimension goes
/// away; the inner dimensions must agree.
pub(super) fn matmul_shape(a: &[Dim], b: &[Dim]) -> Result<Shape, Stop> {
    if a.is_empty() || b.is_empty() {
        return failed(ErrorKind::Invalid, "a matrix product of a scalar (rank 0)");
    }
    let left: Shape = if a.len() == 1 { vec![Dim::Value(1), a[0].clone()] } else { a.to_vec() };
    let right: Shape = if b.len() == 1 { vec![b[0].clone(), Dim::Value(1)] } else { b.to_vec() };
    let (k_left, k_right) = (&left[left.len() - 1], &right[right.len() - 2]);
    if let (Dim::Value(x), Dim::Value(y)) = (k_left, k_right) {
        if x != y {
            return failed(
                ErrorKind::IncompatibleShapes,
                format!(
                    "the inner dimensions differ: {x} ≠ {y} (shapes {} and {})",
                    shape_text(a),
                    shape_text(b)
                ),
            );
        }
    }
    let mut shape = broadcast(&[&left[..left.len() - 2], &right[..right.len() - 2]])?;
    if a.len() != 1 {
        shape.push(left[left.len() - 2].clone());
    }
    if b.len() != 1 {
        shape.push(right[right.len() - 1].clone());
    }
    Ok(shape)
}

/// Output 0 is the product of inputs `a` and `b`, when their shapes are
/// known.
fn matmul_output(node: &mut Node, a: usize, b: usize) -> Outcome {
    let (Some(left), Some(right)) = (node.shape_opt(a), node.shape_opt(b)) else {
        return Ok(());
    };
    let shape = matmul_shape(left, right)?;
    node.set_shape(0, shape);
    Ok(())
}

fn matmul(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    matmul_output(node, 0, 1)
}

fn matmul_integer(node: &mut Node) -> Outcome {
    node.tensor(0)?;
    node.tensor(1)?;
    node.set_elem(0, INT32);
    matmul_output(node, 0, 1)
}

fn qlinear_matmul(node: &mut Node) -> Outcome {
    let (a, b) = (node.tensor(0)?.elem_type, node.tensor(3)?.elem_type);
    for (zero_point, elem, what) in [(2, a, "a"), (5, b, "b")] {
        if node.tensor(zero_point)?.elem_type != elem {
            return failed(
                ErrorKind::TypeMismatch,
                format!("`{what}` and its zero point differ in element type"),
            );
        }
    }
    node.copy_elem(7, 0)?;
    matmul_output(node, 0, 3)
}

/// `Gemm` before version 9: both inputs of rank 2.
fn gemm_of_matrices(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let (Some(a), Some(b)) = (node.shape_opt(0), node.shape_opt(1)) else {
        return Ok(());
    };
    if a.len() != 2 || b.len() != 2 {
        return failed(ErrorKind::Invalid, "`A` and `B` must have rank 2");
    }
    let trans = |name| node.int_or(name, 0) != 0;
    let m = a[usize::from(trans("transA"))].clone();
    let n = b[usize::from(!trans("transB"))].clone();
    node.set_shape(0, vec![m, n]);
    Ok(())
}

/// `Gemm`: `M × K` by `K × N`, either transposed; what one input says of
/// `M`, `N` or `K` holds without the other.
fn gemm(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let trans_a = node.int_or("transA", 0) != 0;
    let trans_b = node.int_or("transB", 0) != 0;
    let (mut m, mut n, mut k) = (Dim::Unknown, Dim::Unknown, Dim::Unknown);
    if let Some(a) = node.shape_opt(0) {
        let [first, second] = a else {
            return failed(ErrorKind::Invalid, format!("`A` must have rank 2, but its shape is {}", shape_text(a)));
        };
        let (am, ak) = if trans_a { (second, first) } else { (first, second) };
        m = am.clone();
        k = ak.clone();
    }
    if let Some(b) = node.shape_opt(1) {
        let [first, second] = b else {
            return failed(ErrorKind::Invalid, format!("`B` must have rank 2, but its shape is {}", shape_text(b)));
        };
        let (bk, bn) = if trans_b { (second, first) } else { (first, second) };
        k = merge_dim(bk, &k, || "the inner dimensions of `A` and `B` differ".into())?;
        n = bn.clone();
    }
    let _ = k;
    node.set_shape(0, vec![m, n]);
    Ok(())
}

fn det(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let Some(input) = node.shape_opt(0) else { return Ok(()) };
    let rank = input.len();
    if rank < 2 {
        return failed(ErrorKind::Invalid, "the input must have rank 2 or more");
    }
    if let (Dim::Value(w), Dim::Value(h)) = (&input[rank - 1], &input[rank - 2]) {
        if w != h {
            return failed(
                ErrorKind::IncompatibleShapes,
                format!("the matrices are not square: {h} × {w}"),
            );
        }
    }
    node.set_shape(0, input[..rank - 2].to_vec());
    Ok(())
}

/// What the left-hand side of an `Einsum` equation says: each label's
/// first dimension, the labels seen more than once, the broadcast
/// dimensions of `...`.
#[derive(Default)]
struct Labels {
    dims: BTreeMap<u8, Dim>,
    repeated: HashSet<u8>,
    ellipsis: Option<Shape>,
}

fn einsum(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let equation: String = node.string("equation").unwrap_or("").replace(' ', "");
    if equation.is_empty() {
        return Ok(());
    }
    let n = node.input_count();
    let shapes: Option<Vec<&[Dim]>> = (0..n).map(|i| node.shape_opt(i)).collect();
    let Some(shapes) = shapes.filter(|s| !s.is_empty()) else {
        return Ok(());
    };
    let (left, right) = match equation.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (equation.as_str(), None),
    };
    let terms: Vec<&str> = left.split(',').collect();
    if terms.len() != n {
        return failed(
            ErrorKind::Invalid,
            format!("the equation has {} operands, but the node {n} inputs", terms.len()),
        );
    }
    let mut labels = Labels::default();
    for (i, (term, shape)) in terms.iter().zip(&shapes).enumerate() {
        einsum_term(term, shape, i, &mut labels)?;
    }
    let ellipsis = labels.ellipsis.clone().unwrap_or_default();
    let mut output = Vec::new();
    match right {
        Some(right) => {
            let mut rest = right;
            while !rest.is_empty() {
                if let Some(after) = rest.strip_prefix("...") {
                    output.extend(ellipsis.iter().cloned());
                    rest = after;
                    continue;
                }
                let c = rest.as_bytes()[0];
                if c.is_ascii_alphabetic() {
                    output.push(labels.dims.get(&c).cloned().unwrap_or(Dim::Unknown));
                }
                rest = &rest[rest.chars().next().map_or(1, char::len_utf8)..];
            }
        }
        None => {
            output.extend(ellipsis.iter().cloned());
            for (label, dim) in &labels.dims {
                if !labels.repeated.contains(label) {
                    output.push(dim.clone());
                }
            }
        }
    }
    node.set_shape(0, output);
    Ok(())
}

/// Reads one operand's term against its shape.
fn einsum_term(term: &str, shape: &[Dim], operand: usize, labels: &mut Labels) -> Outcome {
    let letters = term.bytes().filter(u8::is_ascii_alphabetic).count();
    let has_ellipsis = term.contains("...");
    let rank = shape.len();
    if has_ellipsis && rank < letters || !has_ellipsis && rank != letters {
        return failed(
            ErrorKind::IncompatibleShapes,
            format!("operand {operand} has rank {rank}, which its term `{term}` does not fit"),
        );
    }
    let broadcast_rank = rank - letters;
    let mut position = 0;
    let mut rest = term;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("...") {
            let dims = &shape[position..position + broadcast_rank];
            match &mut labels.ellipsis {
                None => labels.ellipsis = Some(dims.to_vec()),
                Some(seen) if seen.len() != dims.len() => {
                    return failed(
                        ErrorKind::IncompatibleShapes,
                        "the operands' `...` stand for different numbers of dimensions",
                    );
                }
                Some(seen) => {
                    for (current, dim) in seen.iter_mut().zip(dims) {
                        if let (Dim::Value(1), Dim::Value(v)) = (&*current, dim) {
                            if *v > 1 {
                                *current = Dim::Value(*v);
                            }
                        }
                    }
                }
            }
            position += broadcast_rank;
            rest = after;
            continue;
        }
        let c = rest.as_bytes()[0];
        rest = &rest[rest.chars().next().map_or(1, char::len_utf8)..];
        if !c.is_ascii_alphabetic() {
            continue;
        }
        match labels.dims.entry(c) {
            Entry::Occupied(_) => {
                labels.repeated.insert(c);
            }
            Entry::Vacant(slot) => {
                slot.insert(shape[position].clone());
            }
        }
        position += 1;
    }
    Ok(())
}
