//! Spatial operators on images and grids: `Resize`, `Upsample`,
//! `DepthToSpace`, `SpaceToDepth`, `GridSample`, `AffineGrid`, `Col2Im`,
//! `CenterCropPad`, `ImageDecoder`.

use super::common::*;

pub(super) const RULES: &[Rule] = &[
    Rule::new("Upsample", 7, upsample).until(7),
    Rule::new("Upsample", 9, resize_with_scales),
    Rule::new("Resize", 10, resize_with_scales).until(10),
    Rule::new("Resize", 11, resize),
    Rule::new("DepthToSpace", 1, depth_to_space),
    Rule::new("SpaceToDepth", 1, space_to_depth),
    Rule::new("GridSample", 16, grid_sample),
    Rule::new("AffineGrid", 20, affine_grid),
    Rule::new("Col2Im", 18, col2im),
    Rule::new("CenterCropPad", 18, center_crop_pad),
    Rule::new("ImageDecoder", 20, image_decoder),
];

/// Each size of `input` scaled by its scale and rounded down.
fn scaled(input: &[Dim], scales: &[f32]) -> Result<Shape, Stop> {
    if scales.len() != input.len() {
        return failed(
            ErrorKind::Invalid,
            format!("there are {} scales for rank {}", scales.len(), input.len()),
        );
    }
    Ok(input
        .iter()
        .zip(scales)
        .map(|(d, &s)| match d {
            Dim::Value(v) => Dim::Value((*v as f64 * f64::from(s)).floor() as i64),
            _ => Dim::Unknown,
        })
        .collect())
}

/// `Upsample` 7: the scales are an attribute.
fn upsample(node: &mut Node) -> Outcome {
    let input = node.shape(0)?;
    node.copy_elem(0, 0)?;
    let scales = node.floats("scales").known()?.into_owned();
    let shape = scaled(input, &scales)?;
    node.set_shape(0, shape);
    Ok(())
}

/// `Upsample` 9 and `Resize` 10: the scales are input 1, floats.
fn resize_with_scales(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    node.set_shape(0, vec![Dim::Unknown; input.len()]);
    let Some(scales) = node.constant(1) else { return Ok(()) };
    if scales.data_type != Some(FLOAT) {
        return failed(ErrorKind::Invalid, "`scales` must be float");
    }
    let scales: Vec<f32> = crate::infer::data::float_values(scales).known()?.into_iter().map(|s| s as f32).collect();
    let shape = scaled(input, &scales)?;
    node.set_shape(0, shape);
    Ok(())
}

/// `Resize` from 11: `scales` (input 2) or `sizes` (input 3), on all axes
/// or on `axes`, with `keep_aspect_ratio_policy` for sizes.
fn resize(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let rank = input.len();
    let listed = |i: usize| !node.input_name(i).is_empty();
    let scales = node.constant(2).and_then(crate::infer::data::float_values);
    let has_scales = listed(2) && scales.as_ref().is_none_or(|s| !s.is_empty());
    let mut sizes = if node.input_count() > 3 { node.shape_input(3)? } else { None };
    let has_sizes = listed(3) && sizes.as_ref().is_none_or(|s| !s.is_empty());
    if sizes.as_ref().is_some_and(Vec::is_empty) {
        sizes = None;
    }
    if node.version() >= 13 && has_scales == has_sizes {
        return failed(ErrorKind::Invalid, "exactly one of `scales` and `sizes` must be given");
    }
    let policy = node.string("keep_aspect_ratio_policy").unwrap_or("stretch");
    if !["stretch", "not_larger", "not_smaller"].contains(&policy) {
        return failed(ErrorKind::Invalid, format!("unknown `keep_aspect_ratio_policy` {policy:?}"));
    }
    if has_scales && policy != "stretch" {
        return failed(
            ErrorKind::Invalid,
            "`scales` cannot go with a `keep_aspect_ratio_policy` other than \"stretch\"",
        );
    }
    node.set_shape(0, vec![Dim::Unknown; rank]);
    let axes: Vec<usize> = match node.ints("axes") {
        Some(values) => {
            let axes = axes(&values, rank, "`axes` value")?;
            let mut unique = axes.clone();
            unique.sort_unstable();
            unique.dedup();
            if unique.len() != axes.len() {
                return failed(ErrorKind::Invalid, "`axes` has duplicates");
            }
            axes
        }
        None => (0..rank).collect(),
    };
    if has_sizes {
        let Some(sizes) = sizes else { return Ok(()) };
        if sizes.len() != axes.len() {
            return failed(
                ErrorKind::Invalid,
                format!("`sizes` has {} values for {} axes", sizes.len(), axes.len()),
            );
        }
        let values: Vec<i64> = sizes.iter().map(|d| d.value().unwrap_or(0)).collect();
        let values = keep_aspect_ratio(policy, input, &axes, values);
        let mut shape = vec![Dim::Unknown; rank];
        for (&axis, v) in axes.iter().zip(values) {
            if v > 0 {
                shape[axis] = Dim::Value(v);
            }
        }
        for (i, dim) in shape.iter_mut().enumerate() {
            if !axes.contains(&i) {
                if let Dim::Value(v) = input[i] {
                    if v > 0 {
                        *dim = Dim::Value(v);
                    }
                }
            }
        }
        node.set_shape(0, shape);
    } else if let Some(scales) = scales.filter(|_| node.constant(2).is_some_and(|t| t.data_type == Some(FLOAT))) {
        if scales.len() != axes.len() {
            return failed(
                ErrorKind::Invalid,
                format!("`scales` has {} values for {} axes", scales.len(), axes.len()),
            );
        }
        let mut all = vec![1.0f32; rank];
        for (&axis, s) in axes.iter().zip(&scales) {
            all[axis] = *s as f32;
        }
        let shape = scaled(input, &all)?;
        node.set_shape(0, shape);
    }
    Ok(())
}

/// `sizes` adjusted for `not_larger` or `not_smaller`: one scale for all
/// axes, the smallest or largest; unknown (-1) when an input size is.
fn keep_aspect_ratio(policy: &str, input: &[Dim], axes: &[usize], sizes: Vec<i64>) -> Vec<i64> {
    if policy == "stretch" {
        return sizes;
    }
    let known: Option<Vec<i64>> = axes.iter().map(|&a| input[a].value()).collect();
    let Some(known) = known else {
        return vec![-1; sizes.len()];
    };
    let ratios = sizes.iter().zip(&known).map(|(&s, &k)| s as f64 / k as f64);
    let scale = if policy == "not_larger" {
        ratios.fold(f64::MAX, f64::min)
    } else {
        ratios.fold(f64::MIN, f64::max)
    };
    known.iter().map(|&k| (scale * k as f64).round() as i64).collect()
}

/// The block size attribute, positive.
fn block_size(node: &Node) -> Result<i64, Stop> {
    let size = node.int_or("blocksize", 0);
    if size <= 0 {
        return failed(ErrorKind::Invalid, format!("`blocksize` is {size}"));
    }
    Ok(size)
}

fn depth_to_space(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let size = block_size(node)?;
    let Some(input) = node.shape_opt(0) else { return Ok(()) };
    let [n, c, h, w] = input else {
        return failed(ErrorKind::Invalid, "the input must have rank 4");
    };
    let shape = vec![n.clone(), div(c, size.saturating_mul(size)), mul(h, &Dim::Value(size)), mul(w, &Dim::Value(size))];
    node.set_shape(0, shape);
    Ok(())
}

fn space_to_depth(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let size = block_size(node)?;
    let Some(input) = node.shape_opt(0) else { return Ok(()) };
    let [n, c, h, w] = input else {
        return failed(ErrorKind::Invalid, "the input must have rank 4");
    };
    let shape = vec![n.clone(), mul(c, &Dim::Value(size.saturating_mul(size))), div(h, size), div(w, size)];
    node.set_shape(0, shape);
    Ok(())
}

fn grid_sample(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let (Some(input), Some(grid)) = (node.shape_opt(0), node.shape_opt(1)) else {
        return Ok(());
    };
    if input.len() != grid.len() {
        return failed(ErrorKind::IncompatibleShapes, "the input and the grid differ in rank");
    }
    let rank = input.len();
    if rank < 3 {
        return failed(ErrorKind::Invalid, "the input and the grid must have rank 3 or more");
    }
    if let Dim::Value(v) = grid[rank - 1] {
        if v != rank as i64 - 2 {
            return failed(
                ErrorKind::IncompatibleShapes,
                format!("the grid's last dimension is {v}, but it must be {}", rank - 2),
            );
        }
    }
    let n = merge_dim(&grid[0], &merge_dim(&input[0], &Dim::Unknown, String::new)?, || {
        "the input and the grid differ in batch size".into()
    })?;
    let mut shape = vec![n, input[1].clone()];
    shape.extend(grid[1..rank - 1].iter().cloned());
    node.set_shape(0, shape);
    Ok(())
}

fn affine_grid(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    node.shape(0)?;
    expect_rank(node, 1, 1)?;
    let size = node.shape_input(1)?.known()?;
    let shape = match &size[..] {
        [n, _, h, w] => vec![n.clone(), h.clone(), w.clone(), Dim::Value(2)],
        [n, _, d, h, w] => vec![n.clone(), d.clone(), h.clone(), w.clone(), Dim::Value(3)],
        _ => {
            return failed(
                ErrorKind::Invalid,
                format!("`size` has {} values, but it must have 4 (2-D) or 5 (3-D)", size.len()),
            )
        }
    };
    node.set_shape(0, shape);
    Ok(())
}

/// The most spatial dimensions `Col2Im` builds a shape for.
const MAX_COL2IM_RANK: i64 = 1 << 10;

fn col2im(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let (Some(input), Some(image), Some(block)) = (node.shape_opt(0), node.shape_opt(1), node.shape_opt(2)) else {
        return Ok(());
    };
    let mut spatial = Dim::Unknown;
    for (shape, what) in [(image, "`image_shape`"), (block, "`block_shape`")] {
        let [length] = shape else {
            return failed(ErrorKind::Invalid, format!("{what} must have rank 1"));
        };
        spatial = merge_dim(length, &spatial, || "`image_shape` and `block_shape` differ in length".into())?;
    }
    let image_values = node.constant_ints(1);
    let block_values = node.constant_ints(2);
    let mut lengths: Vec<(usize, &str)> = Vec::new();
    if let Some(v) = &image_values {
        lengths.push((v.len(), "`image_shape`"));
    }
    let pads = node.ints("pads");
    if let Some(pads) = &pads {
        if pads.len() % 2 != 0 {
            return failed(ErrorKind::Invalid, "`pads` must have an even number of values");
        }
        lengths.push((pads.len() / 2, "`pads`"));
    }
    for name in ["dilations", "strides"] {
        if let Some(values) = node.ints(name) {
            lengths.push((values.len(), name));
        }
    }
    if input.len() != 3 {
        return failed(ErrorKind::Invalid, "the input must have rank 3");
    }
    if let Some(v) = &block_values {
        lengths.push((v.len(), "`block_shape`"));
    }
    for (length, what) in lengths {
        spatial = merge_dim(&Dim::Value(length as i64), &spatial, || {
            format!("{what} does not have one value per spatial axis")
        })?;
    }
    let Dim::Value(spatial) = spatial else { return Ok(()) };
    if !(0..=MAX_COL2IM_RANK).contains(&spatial) {
        return Ok(());
    }
    let mut block_size = 0;
    if let Some(block) = &block_values {
        if block.iter().any(|&b| b <= 0) {
            return failed(ErrorKind::Invalid, "`block_shape` must be positive");
        }
        block_size = block.iter().fold(1i64, |p, &b| p.saturating_mul(b));
    }
    let n = if input[0].value().is_some() { input[0].clone() } else { Dim::Unknown };
    let c = if block_size > 0 { div(&input[1], block_size) } else { Dim::Unknown };
    let mut shape = vec![n, c];
    for i in 0..spatial as usize {
        shape.push(image_values.as_ref().map_or(Dim::Unknown, |v| Dim::Value(v[i])));
    }
    node.set_shape(0, shape);
    Ok(())
}

fn center_crop_pad(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let Some(sizes) = node.constant_ints(1) else { return Ok(()) };
    let rank = input.len();
    let axes: Vec<usize> = match node.ints("axes") {
        Some(values) => axes(&values, rank, "`axes` value")?,
        None => (0..rank).collect(),
    };
    if sizes.len() != axes.len() {
        return failed(
            ErrorKind::Invalid,
            format!("`shape` has {} values for {} axes", sizes.len(), axes.len()),
        );
    }
    let mut shape = input.to_vec();
    for (&axis, &size) in axes.iter().zip(&sizes) {
        shape[axis] = Dim::Value(size);
    }
    node.set_shape(0, shape);
    Ok(())
}

fn image_decoder(node: &mut Node) -> Outcome {
    if let Some(input) = node.shape_opt(0) {
        if input.len() != 1 {
            return failed(ErrorKind::Invalid, "the input must have rank 1");
        }
    }
    node.set_tensor(0, UINT8, vec![Dim::Unknown; 3]);
    Ok(())
}
