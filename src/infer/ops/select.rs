//! Operators that select, join or split elements along axes: `Concat`,
//! `Split`, `Slice`, `Gather` (and `GatherElements`, `GatherND`), `Pad`,
//! `Compress`, `OneHot`, `NonZero`, the scatters; with data propagation
//! through `Concat`, `Gather` and `Slice`.

use super::common::*;
use super::elementwise::same_as_input;
use crate::infer::data::MAX_PROPAGATED_ELEMENTS;

pub(super) const RULES: &[Rule] = &[
    Rule::new("Concat", 4, concat).until(11).propagate_beyond_onnx(concat_data),
    Rule::new("Concat", 13, concat).propagate(concat_data),
    Rule::new("Split", 2, split),
    Rule::new("Slice", 1, slice_with_attributes).until(1),
    Rule::new("Slice", 10, slice_with_inputs).until(11).propagate_beyond_onnx(slice_data),
    Rule::new("Slice", 13, slice_with_inputs).propagate(slice_data),
    Rule::new("Gather", 1, gather).propagate(gather_data),
    Rule::new("GatherElements", 11, gather_elements),
    Rule::new("GatherND", 11, gather_nd),
    Rule::new("Pad", 2, pad).until(13),
    Rule::new("Pad", 18, pad_with_axes),
    Rule::new("Compress", 11, compress),
    Rule::new("OneHot", 9, one_hot),
    Rule::new("NonZero", 9, non_zero),
    Rule::new("Scatter", 9, same_as_input),
    Rule::new("ScatterElements", 11, same_as_input),
    Rule::new("ScatterND", 11, same_as_input),
    Rule::new("Trilu", 14, at_least_rank_2),
    Rule::new("ReverseSequence", 10, reverse_sequence),
];

fn concat(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let n = node.input_count();
    let shapes: Option<Vec<&[Dim]>> = (0..n).map(|i| node.shape_opt(i)).collect();
    let Some(shapes) = shapes.filter(|s| !s.is_empty()) else {
        return Ok(());
    };
    let rank = shapes[0].len();
    let Some(given) = node.attr("axis").map(|a| a.i.unwrap_or(0)) else {
        return failed(ErrorKind::Invalid, "`axis` is required");
    };
    let axis = axis(given, rank, "`axis`")?;
    if n == 1 {
        return node.copy_shape(0, 0);
    }
    let mut output = vec![Dim::Unknown; rank];
    let mut total = Some(0i64);
    for (i, shape) in shapes.iter().enumerate() {
        if shape.len() != rank {
            return failed(
                ErrorKind::IncompatibleShapes,
                format!(
                    "input {i} has rank {} ({}), but input 0 has rank {rank}",
                    shape.len(),
                    shape_text(shape)
                ),
            );
        }
        for (j, dim) in shape.iter().enumerate() {
            if j == axis {
                total = match dim {
                    Dim::Value(v) => total.and_then(|t: i64| t.checked_add(*v)),
                    _ => None,
                };
            } else {
                output[j] = merge_dim(dim, &output[j], || {
                    format!("the inputs differ in dimension {j}, other than the axis {axis}")
                })?;
            }
        }
    }
    if let Some(total) = total {
        output[axis] = Dim::Value(total);
    }
    node.set_shape(0, output);
    Ok(())
}

/// Whether `axis` is 0 for data propagation, which only follows axis 0 of
/// 1-D shape values.
fn axis_is_zero(p: &DataNode, default: Option<i64>) -> bool {
    let Some(axis) = p.node().int("axis").or(default) else {
        return false;
    };
    if axis >= 0 {
        return axis == 0;
    }
    p.node().shape_opt(0).is_some_and(|s| axis + s.len() as i64 == 0)
}

fn concat_data(p: &mut DataNode) -> Outcome {
    if !axis_is_zero(p, None) {
        return Ok(());
    }
    let mut dims = Vec::new();
    for i in 0..p.node().input_count() {
        let input = p.input(i).known()?;
        if dims.len() + input.len() > MAX_PROPAGATED_ELEMENTS {
            return Ok(());
        }
        dims.extend_from_slice(input);
    }
    if !dims.is_empty() {
        p.set(0, dims);
    }
    Ok(())
}

fn split(node: &mut Node) -> Outcome {
    let outputs = node.output_count();
    for i in 0..outputs {
        node.copy_elem(0, i)?;
    }
    let input = node.shape(0)?;
    let axis = axis(node.int_or("axis", 0), input.len(), "`axis`")?;
    let Dim::Value(size) = input[axis] else {
        for i in 0..outputs {
            let mut shape = input.to_vec();
            shape[axis] = Dim::Unknown;
            node.set_shape(i, shape);
        }
        return Ok(());
    };
    let sizes = split_sizes(node, size, outputs)?;
    // Every part has the input's rank; a part whose size is not known
    // (past those `num_outputs` gives, or one onnx would make negative)
    // is unknown along the axis.
    for i in 0..outputs {
        let mut shape = input.to_vec();
        shape[axis] = sizes.get(i).map_or(Dim::Unknown, |&part| Dim::Value(part));
        node.set_shape(i, shape);
    }
    Ok(())
}

/// The size of each part `Split` makes of a dimension of `size`: given by
/// the `split` attribute or input, by `num_outputs`, or equal parts.
fn split_sizes(node: &Node, size: i64, outputs: usize) -> Result<Vec<i64>, Stop> {
    let given = if node.version() < 13 {
        node.ints("split").map(|s| s.into_owned())
    } else if node.has_input(1) && (node.version() >= 18 || node.input_count() == 2) {
        if node.version() >= 18 && node.attr("num_outputs").is_some() {
            return failed(ErrorKind::Invalid, "both the `split` input and `num_outputs` are given");
        }
        Some(node.constant_ints(1).known()?)
    } else {
        None
    };
    if let Some(split) = given {
        if split.len() != outputs {
            return failed(
                ErrorKind::Invalid,
                format!("`split` has {} sizes for {outputs} outputs", split.len()),
            );
        }
        let total = sum(&split)?;
        if total != size {
            return failed(
                ErrorKind::IncompatibleShapes,
                format!("the sizes in `split` add up to {total}, but the dimension split is {size}"),
            );
        }
        return Ok(split);
    }
    if node.version() >= 18 {
        let Some(parts) = node.attr("num_outputs").map(|a| a.i.unwrap_or(0)) else {
            return failed(ErrorKind::Invalid, "neither the `split` input nor `num_outputs` is given");
        };
        if parts < 1 {
            return failed(ErrorKind::Invalid, format!("`num_outputs` is {parts}"));
        }
        // Parts of `chunk`, the last one smaller; onnx reads as many as the
        // node has outputs, whatever `num_outputs` says (past the parts,
        // nothing is known).
        let chunk = if size % parts == 0 { size / parts } else { size / parts + 1 };
        let last = chunk
            .checked_mul(parts - 1)
            .and_then(|m| size.checked_sub(m))
            .unwrap_or(-1);
        let count = outputs.min(usize::try_from(parts).unwrap_or(usize::MAX));
        let mut sizes = vec![chunk; count];
        if count as i64 == parts {
            if last < 0 {
                sizes.pop();
            } else if let Some(l) = sizes.last_mut() {
                *l = last;
            }
        }
        return Ok(sizes);
    }
    let parts = outputs as i64;
    if parts == 0 || size % parts != 0 {
        return failed(
            ErrorKind::IncompatibleShapes,
            format!("a dimension of {size} cannot be split into {parts} equal parts"),
        );
    }
    Ok(vec![size / parts; outputs])
}

/// Start and end as `Slice` clamps them to a dimension of `size` for
/// `step` (onnx's `processSliceInputs`).
fn clamp_slice(size: i64, start: i64, end: i64, step: i64) -> (i64, i64) {
    if size <= 0 {
        return (0, 0);
    }
    let start = if start < 0 { start.saturating_add(size) } else { start };
    let end = if end < 0 { end.saturating_add(size) } else { end };
    if step < 0 {
        (start.clamp(0, size - 1), end.clamp(-1, size - 1))
    } else {
        (start.clamp(0, size), end.clamp(0, size))
    }
}

/// The number of elements a slice of `size` takes.
fn slice_length(size: i64, start: i64, end: i64, step: i64) -> i64 {
    let (start, end) = clamp_slice(size, start, end, step);
    // Rounded up, as onnx computes it.
    let n = ((end - start) as f64 / step as f64).ceil();
    (n as i64).max(0)
}

fn slice_with_attributes(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let (Some(starts), Some(ends)) = (node.ints("starts"), node.ints("ends")) else {
        return failed(ErrorKind::Invalid, "`starts` and `ends` are required");
    };
    if starts.len() != ends.len() {
        return failed(ErrorKind::Invalid, "`starts` and `ends` differ in length");
    }
    let axes: Vec<i64> = match node.ints("axes") {
        None => (0..starts.len() as i64).collect(),
        Some(axes) if axes.len() != starts.len() => {
            return failed(ErrorKind::Invalid, "`axes` and `starts` differ in length");
        }
        Some(axes) if !axes.is_sorted() => return Ok(()),
        Some(axes) => axes.into_owned(),
    };
    if axes.iter().any(|&a| a < 0) {
        node.set_shape(0, vec![Dim::Unknown; input.len()]);
        return Ok(());
    }
    let mut output = input.to_vec();
    for (j, &a) in axes.iter().enumerate() {
        let Some(dim) = output.get_mut(a as usize) else { continue };
        *dim = match input[a as usize] {
            Dim::Value(size) => {
                let start = if starts[j] < 0 { starts[j] + size } else { starts[j] };
                let end = if ends[j] < 0 { ends[j] + size } else { ends[j] };
                if start >= 0 && end >= 0 && end.min(size) - start >= 0 {
                    Dim::Value(end.min(size) - start)
                } else {
                    Dim::Unknown
                }
            }
            _ => Dim::Unknown,
        };
    }
    node.set_shape(0, output);
    Ok(())
}

fn slice_with_inputs(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let rank = input.len();
    let optional = |i: usize| node.shape_opt(i).map(|_| node.constant_ints(i));
    let (starts, ends) = (node.constant_ints(1), node.constant_ints(2));
    let (axes, steps) = (optional(3), optional(4));
    let (Some(starts), Some(ends), Some(axes), Some(steps)) =
        (starts, ends, axes.unwrap_or(Some(Vec::new())), steps.unwrap_or(Some(Vec::new())))
    else {
        node.set_shape(0, vec![Dim::Unknown; rank]);
        return Ok(());
    };
    if starts.len() != ends.len() {
        return failed(ErrorKind::Invalid, "`starts` and `ends` differ in length");
    }
    let axes: Vec<i64> = if node.shape_opt(3).is_none() {
        (0..starts.len() as i64).collect()
    } else if axes.len() != starts.len() {
        return failed(ErrorKind::Invalid, "`axes` and `starts` differ in length");
    } else {
        axes
    };
    let axes = super::common::axes(&axes, rank, "`axes` value")?;
    let mut unique = axes.clone();
    unique.sort_unstable();
    unique.dedup();
    if unique.len() != axes.len() {
        return failed(ErrorKind::Invalid, "`axes` has duplicates");
    }
    let steps = if node.shape_opt(4).is_none() {
        vec![1; starts.len()]
    } else if steps.len() != axes.len() {
        return failed(ErrorKind::Invalid, "`steps` and `axes` differ in length");
    } else {
        steps
    };
    let mut output = input.to_vec();
    for (j, &a) in axes.iter().enumerate() {
        if steps[j] == 0 {
            return failed(ErrorKind::Invalid, "a step of `Slice` is 0");
        }
        output[a] = match input[a] {
            Dim::Value(size) => Dim::Value(slice_length(size, starts[j], ends[j], steps[j])),
            _ => Dim::Unknown,
        };
    }
    node.set_shape(0, output);
    Ok(())
}

fn slice_data(p: &mut DataNode) -> Outcome {
    let n = p.node().input_count();
    let axes_given = n >= 4;
    let steps_given = n >= 5;
    if axes_given && p.input(3).is_none() || steps_given && p.input(4).is_none() {
        return Ok(());
    }
    let (data, starts, ends) = (p.input(0).known()?, p.input(1).known()?, p.input(2).known()?);
    let axis_zero = !axes_given || matches!(p.input(3), Some([Dim::Value(0)]));
    let ([start], [end]) = (starts, ends) else {
        return Ok(());
    };
    if !axis_zero {
        return Ok(());
    }
    let step = match p.input(4) {
        Some([Dim::Value(step)]) if steps_given => *step,
        Some(_) if steps_given => return Ok(()),
        _ => 1,
    };
    if step == 0 {
        return Ok(());
    }
    let (Dim::Value(start), Dim::Value(end)) = (start, end) else {
        return Ok(());
    };
    let (start, end) = clamp_slice(data.len() as i64, *start, *end, step);
    let mut dims = Vec::new();
    let mut i = start;
    while (step > 0 && i < end) || (step < 0 && i > end) {
        dims.push(data[i as usize].clone());
        i += step;
    }
    if !dims.is_empty() {
        p.set(0, dims);
    }
    Ok(())
}

fn gather(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let (Some(data), Some(indices)) = (node.shape_opt(0), node.shape_opt(1)) else {
        return Ok(());
    };
    if data.is_empty() {
        return failed(ErrorKind::Invalid, "`data` must have rank 1 or more");
    }
    let axis = axis(node.int_or("axis", 0), data.len(), "`axis`")?;
    let shape = data[..axis]
        .iter()
        .chain(indices)
        .chain(&data[axis + 1..])
        .cloned()
        .collect();
    node.set_shape(0, shape);
    Ok(())
}

fn gather_data(p: &mut DataNode) -> Outcome {
    if !axis_is_zero(p, Some(0)) {
        return Ok(());
    }
    let (data, indices) = (p.input(0).known()?, p.input(1).known()?);
    let n = data.len() as i64;
    let mut dims = Vec::with_capacity(indices.len());
    for index in indices {
        let Dim::Value(i) = index else { return Ok(()) };
        if *i < -n || *i >= n {
            return Err(Stop::Unknown);
        }
        dims.push(data[if *i < 0 { i + n } else { *i } as usize].clone());
    }
    if !dims.is_empty() {
        p.set(0, dims);
    }
    Ok(())
}

fn gather_elements(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    if node.shape_opt(1).is_some() {
        node.copy_shape(1, 0)?;
    }
    Ok(())
}

fn gather_nd(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let (Some(data), Some(indices)) = (node.shape_opt(0), node.shape_opt(1)) else {
        return Ok(());
    };
    if data.is_empty() || indices.is_empty() {
        return failed(ErrorKind::Invalid, "`data` and `indices` must have rank 1 or more");
    }
    let Dim::Value(last) = indices[indices.len() - 1] else {
        return Ok(());
    };
    let consumed = last.saturating_add(node.int_or("batch_dims", 0));
    if consumed > data.len() as i64 {
        return failed(
            ErrorKind::IncompatibleShapes,
            format!(
                "the last dimension of `indices` ({last}) and `batch_dims` index past the rank of `data` ({})",
                data.len()
            ),
        );
    }
    let consumed = consumed.max(0) as usize;
    let shape = indices[..indices.len() - 1]
        .iter()
        .chain(&data[consumed..])
        .cloned()
        .collect();
    node.set_shape(0, shape);
    Ok(())
}

/// The output shape of a pad of `input` by `pads` (begins, then ends) on
/// `axes`: known sizes grow, a dimension not padded keeps its name (an
/// axis not in `axes` keeps only a known size).
fn padded(input: &[Dim], axes: &[usize], pads: &[i64], keep_unlisted: bool) -> Shape {
    let n = axes.len();
    let mut output: Shape = input
        .iter()
        .map(|d| match d {
            Dim::Value(_) => d.clone(),
            _ if keep_unlisted => d.clone(),
            _ => Dim::Unknown,
        })
        .collect();
    for (i, &axis) in axes.iter().enumerate() {
        let total = pads[i].wrapping_add(pads[n + i]);
        output[axis] = match &input[axis] {
            Dim::Value(v) => Dim::Value(v.wrapping_add(total)),
            other if total == 0 => other.clone(),
            _ => Dim::Unknown,
        };
    }
    output
}

fn pad(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let rank = input.len();
    let pads = if node.version() < 11 {
        node.ints("pads").known()?.into_owned()
    } else {
        match node.constant_ints(1) {
            Some(pads) => pads,
            None => {
                node.set_shape(0, vec![Dim::Unknown; rank]);
                return Ok(());
            }
        }
    };
    if pads.len() != 2 * rank {
        return failed(
            ErrorKind::Invalid,
            format!("`pads` has {} values, but the input has rank {rank}", pads.len()),
        );
    }
    let axes: Vec<usize> = (0..rank).collect();
    node.set_shape(0, padded(input, &axes, &pads, true));
    Ok(())
}

fn pad_with_axes(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let rank = input.len();
    let axes = if node.shape_opt(3).is_some() {
        let values = node.constant_ints(3).known()?;
        let axes = axes(&values, rank, "`axes` value")?;
        let mut unique = axes.clone();
        unique.sort_unstable();
        unique.dedup();
        if unique.len() != axes.len() {
            return failed(ErrorKind::Invalid, "`axes` has duplicates");
        }
        axes
    } else {
        (0..rank).collect()
    };
    node.set_shape(0, vec![Dim::Unknown; rank]);
    let Some(pads) = node.constant_ints(1).filter(|_| !axes.is_empty()) else {
        return Ok(());
    };
    if pads.len() != 2 * axes.len() {
        return failed(
            ErrorKind::Invalid,
            format!("`pads` has {} values for {} axes", pads.len(), axes.len()),
        );
    }
    node.set_shape(0, padded(input, &axes, &pads, false));
    Ok(())
}

fn compress(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let given = node.attr("axis").map(|a| a.i.unwrap_or(0));
    if let Some(input) = node.shape_opt(0) {
        if input.is_empty() {
            return failed(ErrorKind::Invalid, "the input must have rank 1 or more");
        }
        if let Some(given) = given {
            let axis = axis(given, input.len(), "`axis`")?;
            let mut shape = input.to_vec();
            shape[axis] = Dim::Unknown;
            node.set_shape(0, shape);
        }
    }
    if given.is_none() {
        node.set_shape(0, vec![Dim::Unknown]);
    }
    Ok(())
}

fn one_hot(node: &mut Node) -> Outcome {
    let mut depth = None;
    if let Some(shape) = node.shape_opt(1) {
        if let Some(constant) = node.constant(1) {
            depth = crate::infer::data::float_values(constant)
                .and_then(|v| v.first().copied())
                .map(|v| v as i64);
        }
        match shape {
            [] => {}
            [Dim::Value(n)] if *n != 1 => {
                return failed(ErrorKind::Invalid, "`depth` must have one element");
            }
            [_] => {}
            _ => return failed(ErrorKind::Invalid, "`depth` must be a scalar or have rank 1"),
        }
    }
    if let Some(shape) = node.shape_opt(2) {
        match shape {
            [Dim::Value(n)] if *n != 2 => {
                return failed(ErrorKind::Invalid, "`values` must have two elements");
            }
            [_] => {}
            _ => return failed(ErrorKind::Invalid, "`values` must have rank 1"),
        }
    }
    node.copy_elem(2, 0)?;
    let indices = node.shape(0)?;
    if indices.is_empty() {
        return failed(ErrorKind::Invalid, "`indices` must have rank 1 or more");
    }
    let rank = indices.len() + 1;
    let axis = axis(node.int_or("axis", -1), rank, "`axis`")?;
    let mut shape = indices.to_vec();
    shape.insert(axis, depth.map_or(Dim::Unknown, Dim::Value));
    node.set_shape(0, shape);
    Ok(())
}

fn non_zero(node: &mut Node) -> Outcome {
    let rank = node.shape_opt(0).map_or(Dim::Unknown, |s| Dim::Value(s.len() as i64));
    node.set_tensor(0, INT64, vec![rank, Dim::Unknown]);
    Ok(())
}

/// Like the input, which must have rank 2 or more.
fn at_least_rank_2(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    if let Some(shape) = node.shape_opt(0) {
        if shape.len() < 2 {
            return failed(
                ErrorKind::Invalid,
                format!("the input must have rank 2 or more, but its shape is {}", shape_text(shape)),
            );
        }
        node.copy_shape(0, 0)?;
    }
    Ok(())
}

fn reverse_sequence(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let (Some(input), Some(lens)) = (node.shape_opt(0), node.shape_opt(1)) else {
        return Ok(());
    };
    if input.len() < 2 {
        return failed(ErrorKind::Invalid, "`input` must have rank 2 or more");
    }
    if lens.len() != 1 {
        return failed(ErrorKind::Invalid, "`sequence_lens` must have rank 1");
    }
    node.copy_shape(0, 0)
}
