//! What several families need: broadcasting, axes, arithmetic on
//! dimensions, and the imports every family file uses.

pub(super) use crate::infer::context::{DataNode, Node};
pub(super) use crate::infer::error::{fail, failed, ErrorKind, Known, Outcome, Stop};
pub(super) use crate::infer::rules::Rule;
pub(super) use crate::infer::types::{shape_text, Dim, Shape, TensorType, Type, UNDEFINED};
pub(super) use crate::proto::tensor_proto::DataType;

/// `DataType` as the `i32` code types hold.
pub(super) const fn code(t: DataType) -> i32 {
    t as i32
}

pub(super) const BOOL: i32 = code(DataType::Bool);
pub(super) const INT64: i32 = code(DataType::Int64);
pub(super) const INT32: i32 = code(DataType::Int32);
pub(super) const FLOAT: i32 = code(DataType::Float);
pub(super) const STRING: i32 = code(DataType::String);
pub(super) const UINT8: i32 = code(DataType::Uint8);

/// The shape numpy-style broadcasting gives `shapes`, as onnx computes it:
/// sizes other than 1 must agree; a dimension that is 1 everywhere but one
/// named or unknown one takes that one.
pub(super) fn broadcast(shapes: &[&[Dim]]) -> Result<Shape, Stop> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut result = Vec::with_capacity(rank);
    for i in 0..rank {
        let mut size = 1;
        let mut symbolic: Option<&Dim> = None;
        let mut symbols = 0;
        for shape in shapes {
            let Some(j) = (i + shape.len()).checked_sub(rank) else {
                continue;
            };
            let dim = &shape[j];
            match dim {
                Dim::Value(1) => {}
                Dim::Value(v) if size == 1 || size == *v => size = *v,
                Dim::Value(v) => {
                    let shown: Vec<String> = shapes.iter().map(|s| shape_text(s)).collect();
                    return failed(
                        ErrorKind::IncompatibleShapes,
                        format!(
                            "shapes {} cannot be broadcast together: {size} ≠ {v} in dimension {i} of the result",
                            shown.join(" and ")
                        ),
                    );
                }
                _ => match symbolic {
                    None => {
                        symbolic = Some(dim);
                        symbols = 1;
                    }
                    Some(first) if param_of(first) != param_of(dim) => symbols += 1,
                    Some(_) => {}
                },
            }
        }
        result.push(match symbolic {
            _ if size != 1 || symbols == 0 => Dim::Value(size),
            Some(dim) if symbols == 1 => dim.clone(),
            _ => Dim::Unknown,
        });
    }
    Ok(result)
}

/// A dimension's name, `""` for a size or an unknown one (as onnx's
/// `dim_param()`).
fn param_of(dim: &Dim) -> &str {
    match dim {
        Dim::Param(p) => p,
        _ => "",
    }
}

/// Axis `axis` of a tensor of rank `rank`, negative ones counted from the
/// end; an error outside `[-rank, rank)`.
pub(super) fn axis(axis: i64, rank: usize, what: &str) -> Result<usize, Stop> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return failed(
            ErrorKind::AxisOutOfRange,
            format!(
                "{what} {axis} is out of range for rank {rank} (it must be in [{}, {}])",
                -r,
                r - 1
            ),
        );
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

/// Each of `axes` as [`axis`] reads it.
pub(super) fn axes(values: &[i64], rank: usize, what: &str) -> Result<Vec<usize>, Stop> {
    values.iter().map(|&a| axis(a, rank, what)).collect()
}

/// The sum of `values` (sizes given in attributes or inputs); unknown when
/// it overflows.
pub(super) fn sum(values: &[i64]) -> Result<i64, Stop> {
    values
        .iter()
        .try_fold(0i64, |sum, &v| sum.checked_add(v))
        .ok_or(Stop::Unknown)
}

/// The product of two dimensions, as onnx multiplies them: known sizes
/// multiply, a size of 1 leaves the other, anything else is unknown.
pub(super) fn mul(a: &Dim, b: &Dim) -> Dim {
    match (a, b) {
        (Dim::Value(x), Dim::Value(y)) => x.checked_mul(*y).map_or(Dim::Unknown, Dim::Value),
        (Dim::Value(1), other) | (other, Dim::Value(1)) => other.clone(),
        _ => Dim::Unknown,
    }
}

/// The product of `dims`.
pub(super) fn product(dims: &[Dim]) -> Dim {
    dims.iter().fold(Dim::Value(1), |acc, d| mul(&acc, d))
}

/// `dim` divided by a known amount (unknown unless `dim` is known or `n`
/// is 1).
pub(super) fn div(dim: &Dim, n: i64) -> Dim {
    match dim {
        Dim::Value(v) if n != 0 => Dim::Value(v / n),
        other if n == 1 => other.clone(),
        _ => Dim::Unknown,
    }
}

/// What is known of a dimension that must equal `target` (the target's
/// name wins over the source's; a size over a name), as onnx's
/// `mergeInDimensionInfo` does.
pub(super) fn merge_dim(
    source: &Dim,
    target: &Dim,
    what: impl FnOnce() -> String,
) -> Result<Dim, Stop> {
    match (source, target) {
        (Dim::Value(s), Dim::Value(t)) if s != t => failed(
            ErrorKind::IncompatibleShapes,
            format!("{}: {s} ≠ {t}", what()),
        ),
        (Dim::Value(_), _) => Ok(source.clone()),
        (_, Dim::Value(_) | Dim::Param(_)) => Ok(target.clone()),
        _ => Ok(source.clone()),
    }
}

/// The rank an input must have, or an error.
pub(super) fn expect_rank(node: &Node<'_, '_>, input: usize, rank: usize) -> Outcome {
    match node.shape_opt(input) {
        Some(shape) if shape.len() != rank => failed(
            ErrorKind::Invalid,
            format!(
                "input {input} (`{}`) must have rank {rank}, but its shape is {}",
                node.input_name(input),
                shape_text(shape)
            ),
        ),
        _ => Ok(()),
    }
}
