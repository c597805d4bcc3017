//! Operators that compute or change shapes without touching elements:
//! `Shape`, `Size`, `Reshape`, `Expand`, `Tile`, `Flatten`, `Transpose`,
//! `Squeeze`, `Unsqueeze`; with data propagation through `Shape`, `Size`,
//! `Squeeze` and `Unsqueeze`.

use super::common::*;
use super::elementwise::first_input_data;
use crate::infer::data::unknown_dims_of;

pub(super) const RULES: &[Rule] = &[
    Rule::new("Shape", 1, shape).propagate(shape_data),
    Rule::new("Size", 1, size).until(1).propagate_beyond_onnx(size_data),
    Rule::new("Size", 13, size).propagate(size_data),
    Rule::new("Reshape", 5, reshape).propagate_beyond_onnx(reshape_data),
    Rule::new("Expand", 8, expand),
    Rule::new("Tile", 6, tile),
    Rule::new("Flatten", 1, flatten),
    Rule::new("Transpose", 1, transpose),
    Rule::new("Squeeze", 1, squeeze_with_attribute).until(11).propagate_beyond_onnx(first_input_data),
    Rule::new("Squeeze", 13, squeeze_with_input).propagate(first_input_data),
    Rule::new("Unsqueeze", 1, unsqueeze_with_attribute).until(11).propagate_beyond_onnx(first_input_data),
    Rule::new("Unsqueeze", 13, unsqueeze_with_input).propagate(first_input_data),
];

/// `start` and `end` attributes as `Shape` reads them: negative ones from
/// the end, then clamped to `[0, rank]`.
fn shape_range(node: &Node, rank: usize) -> (usize, usize) {
    let r = rank as i64;
    let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let start = clamp(node.int_or("start", 0));
    let end = clamp(node.int_or("end", r));
    (start, end)
}

fn shape(node: &mut Node) -> Outcome {
    node.set_tensor(0, INT64, vec![Dim::Unknown]);
    let rank = node.rank(0)?;
    let (start, end) = shape_range(node, rank);
    node.set_shape(0, vec![Dim::Value(end.saturating_sub(start) as i64)]);
    Ok(())
}

fn shape_data(p: &mut DataNode) -> Outcome {
    let input = p.node().shape(0)?;
    let (start, end) = shape_range(p.node(), input.len());
    let dims = input.get(start..end.max(start)).unwrap_or_default().to_vec();
    p.set(0, dims);
    Ok(())
}

fn size(node: &mut Node) -> Outcome {
    node.set_tensor(0, INT64, Vec::new());
    Ok(())
}

fn size_data(p: &mut DataNode) -> Outcome {
    let n = p.input(0).known()?.len();
    p.set(0, vec![Dim::Value(n as i64)]);
    Ok(())
}

/// A reshape to rank 0 or 1 keeps the contents.
fn reshape_data(p: &mut DataNode) -> Outcome {
    match p.output_type(0).and_then(Type::shape) {
        Some(shape) if shape.len() <= 1 => first_input_data(p),
        _ => Ok(()),
    }
}

fn reshape(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    // Before version 14, only a constant gives the target shape.
    let target = if node.version() < 14 {
        match node.constant_ints(1) {
            Some(values) => values.into_iter().map(Dim::Value).collect(),
            None => return Ok(()),
        }
    } else {
        node.shape_input(1)?.known()?
    };
    let allow_zero = node.int_or("allowzero", 0) != 0;
    let input = node.shape_opt(0);
    let mut output = Vec::with_capacity(target.len());
    let mut minus_one = None;
    let mut product: Option<i64> = Some(1);
    // Dimensions copied from the input where the target says 0 and the
    // input's size is not known.
    let mut copied = vec![false; target.len()];
    for (i, dim) in target.iter().enumerate() {
        let v = match dim {
            Dim::Value(v) => *v,
            other => {
                output.push(other.clone());
                product = None;
                continue;
            }
        };
        match v {
            -1 if minus_one.is_some() => {
                return failed(ErrorKind::Invalid, "the target shape has more than one -1");
            }
            -1 => {
                minus_one = Some(i);
                output.push(Dim::Unknown);
            }
            0 if !allow_zero => {
                let from = match input {
                    Some(shape) => shape.get(i).cloned().ok_or_else(|| {
                        fail(
                            ErrorKind::Invalid,
                            format!("the target shape has 0 at position {i}, past the input's rank {}", shape.len()),
                        )
                    })?,
                    None => Dim::Unknown,
                };
                if let Dim::Value(size) = from {
                    product = product.and_then(|p| p.checked_mul(size));
                } else {
                    copied[i] = true;
                }
                output.push(from);
            }
            v if v >= 0 => {
                product = product.and_then(|p| p.checked_mul(v));
                output.push(Dim::Value(v));
            }
            v => return failed(ErrorKind::Invalid, format!("the target shape has the size {v}")),
        }
    }
    if let (Some(i), Some(product)) = (minus_one, product) {
        if product == 0 {
            return failed(
                ErrorKind::Invalid,
                "the target shape has -1 and a size of 0, so -1 cannot be worked out",
            );
        }
        if let Some(total) = known_product(input, &copied) {
            if total % product != 0 {
                return failed(
                    ErrorKind::IncompatibleShapes,
                    format!(
                        "the input's {total} elements cannot be reshaped to {}",
                        shape_text(&target)
                    ),
                );
            }
            output[i] = Dim::Value(total / product);
        }
    }
    node.set_shape(0, output);
    Ok(())
}

/// The product of the known sizes of `input`, when every other dimension
/// is one the target copies (so it cancels out).
fn known_product(input: Option<&[Dim]>, copied: &[bool]) -> Option<i64> {
    let mut total: i64 = 1;
    for (i, dim) in input?.iter().enumerate() {
        match dim {
            Dim::Value(v) => total = total.checked_mul(*v)?,
            _ if copied.get(i) == Some(&true) => {}
            _ => return None,
        }
    }
    Some(total)
}

fn expand(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let (Some(input), Some(shape_of_shape)) = (node.shape_opt(0), node.shape_opt(1)) else {
        return Ok(());
    };
    let target = if node.version() < 13 {
        if shape_of_shape.len() != 1 {
            return failed(ErrorKind::Invalid, "the shape input must be a 1-D tensor");
        }
        match node.constant_ints(1) {
            Some(values) => values.into_iter().map(Dim::Value).collect(),
            None => match node.input(1).and_then(unknown_dims_of) {
                Some(dims) => dims,
                None => return Ok(()),
            },
        }
    } else {
        node.shape_input(1)?.known()?
    };
    let shape = broadcast(&[input, &target])?;
    node.set_shape(0, shape);
    Ok(())
}

fn tile(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let repeats = node.constant_ints(1).filter(|_| node.shape_opt(1).is_some());
    let Some(repeats) = repeats else {
        node.set_shape(0, vec![Dim::Unknown; input.len()]);
        return Ok(());
    };
    if repeats.len() != input.len() {
        return failed(
            ErrorKind::Invalid,
            format!(
                "`repeats` has {} values, but the input has rank {}",
                repeats.len(),
                input.len()
            ),
        );
    }
    let shape = input
        .iter()
        .zip(&repeats)
        .map(|(d, &r)| match d {
            Dim::Value(v) => v.checked_mul(r).map_or(Dim::Unknown, Dim::Value),
            _ => Dim::Unknown,
        })
        .collect();
    node.set_shape(0, shape);
    Ok(())
}

fn flatten(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let rank = input.len() as i64;
    let mut axis = node.int_or("axis", 1);
    if axis < 0 && node.version() >= 11 {
        axis += rank;
    }
    if axis < 0 || axis > rank {
        return failed(
            ErrorKind::AxisOutOfRange,
            format!("`axis` {axis} is out of range for rank {rank}"),
        );
    }
    let (outer, inner) = input.split_at(axis as usize);
    node.set_shape(0, vec![product(outer), product(inner)]);
    Ok(())
}

fn transpose(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let perm: Vec<i64> = match node.ints("perm") {
        Some(perm) => perm.into_owned(),
        None => (0..input.len() as i64).rev().collect(),
    };
    let mut seen = vec![false; input.len()];
    for &p in &perm {
        let Some(slot) = usize::try_from(p).ok().and_then(|i| seen.get_mut(i)) else {
            return failed(
                ErrorKind::AxisOutOfRange,
                format!("`perm` {perm:?} names axis {p}, but the input has rank {}", input.len()),
            );
        };
        if std::mem::replace(slot, true) {
            return failed(ErrorKind::Invalid, format!("`perm` {perm:?} names axis {p} twice"));
        }
    }
    let shape = perm.iter().map(|&p| input[p as usize].clone()).collect();
    node.set_shape(0, shape);
    Ok(())
}

/// The input's shape without the axes `axes` (all sizes of 1 when `None`);
/// a removed axis whose size is known must be 1.
fn squeezed(input: &[Dim], axes: Option<&[usize]>) -> Result<Option<Shape>, Stop> {
    let mut output = Vec::with_capacity(input.len());
    for (i, dim) in input.iter().enumerate() {
        let removed = match axes {
            Some(axes) => axes.contains(&i),
            None => match dim {
                Dim::Value(v) => *v == 1,
                _ => return Ok(None),
            },
        };
        if !removed {
            output.push(dim.clone());
        } else if let Dim::Value(v) = dim {
            if *v != 1 {
                return failed(
                    ErrorKind::IncompatibleShapes,
                    format!("axis {i} cannot be squeezed: its size is {v}, not 1"),
                );
            }
        }
    }
    Ok(Some(output))
}

fn squeeze_with_attribute(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let rank = input.len() as i64;
    // Version 1 and 11 take negative axes from the end but do not check the
    // range: an axis past the rank removes nothing.
    let axes: Option<Vec<usize>> = node.ints("axes").map(|axes| {
        axes.iter()
            .map(|&a| if a < 0 { a + rank } else { a })
            .filter_map(|a| usize::try_from(a).ok())
            .collect()
    });
    if let Some(shape) = squeezed(input, axes.as_deref())? {
        node.set_shape(0, shape);
    }
    Ok(())
}

fn squeeze_with_input(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let axes = if node.input_count() == 2 && node.has_input(1) {
        let values = node.constant_ints(1).known()?;
        Some(axes(&values, input.len(), "`axes` value")?)
    } else {
        None
    };
    if let Some(shape) = squeezed(input, axes.as_deref())? {
        node.set_shape(0, shape);
    }
    Ok(())
}

/// The input's shape with a new axis of size 1 at each of `axes` (axes
/// of the output, sorted).
fn unsqueezed(input: &[Dim], axes: &[usize]) -> Shape {
    let rank = input.len() + axes.len();
    let mut dims = input.iter();
    (0..rank)
        .map(|i| {
            if axes.contains(&i) {
                Dim::Value(1)
            } else {
                dims.next().cloned().unwrap_or(Dim::Unknown)
            }
        })
        .collect()
}

fn unsqueeze_with_attribute(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let values = node.ints("axes").known()?.into_owned();
    if node.version() >= 11 {
        let mut unique = values.clone();
        unique.sort_unstable();
        unique.dedup();
        if unique.len() != values.len() {
            return failed(ErrorKind::Invalid, format!("`axes` {values:?} has duplicates"));
        }
    }
    let input = node.shape(0)?;
    let rank = input.len() + values.len();
    let axes = if node.version() >= 11 {
        axes(&values, rank, "`axes` value")?
    } else {
        // Version 1 takes the axes as they are.
        values.iter().filter_map(|&a| usize::try_from(a).ok()).collect()
    };
    node.set_shape(0, unsqueezed(input, &axes));
    Ok(())
}

fn unsqueeze_with_input(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let values = node.constant_ints(1).known()?;
    let rank = input.len() + values.len();
    let axes = axes(&values, rank, "`axes` value")?;
    let mut sorted = axes.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != axes.len() {
        return failed(ErrorKind::Invalid, format!("`axes` {values:?} has duplicates"));
    }
    node.set_shape(0, unsqueezed(input, &sorted));
    Ok(())
}
