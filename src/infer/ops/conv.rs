//! Convolutions and pooling: `Conv` (and `ConvInteger`, `QLinearConv`,
//! `DeformConv`), `ConvTranspose`, `MaxPool`, `AveragePool`, `LpPool`, the
//! global poolings, `MaxRoiPool`, `RoiAlign`, `MaxUnpool`.

use super::common::*;

pub(super) const RULES: &[Rule] = &[
    Rule::new("Conv", 1, conv),
    Rule::new("ConvInteger", 10, conv_integer),
    Rule::new("QLinearConv", 10, qlinear_conv),
    Rule::new("DeformConv", 19, conv),
    Rule::new("ConvTranspose", 1, conv_transpose),
    Rule::new("MaxPool", 1, pool),
    Rule::new("AveragePool", 1, pool),
    Rule::new("LpPool", 1, pool),
    Rule::new("GlobalAveragePool", 1, global_pool),
    Rule::new("GlobalMaxPool", 1, global_pool),
    Rule::new("GlobalLpPool", 2, global_pool),
    Rule::new("MaxRoiPool", 1, max_roi_pool),
    Rule::new("RoiAlign", 10, roi_align),
    Rule::new("MaxUnpool", 9, max_unpool),
];

/// The window of `Conv` and `ConvInteger`: weights in input 1, dilated.
const CONVOLUTION: Window = Window {
    dilation: true,
    pooling: false,
    weights: 1,
    ceil_drops_padded_window: true,
};

/// How a convolution or pooling node computes its output's spatial sizes.
struct Window {
    /// Whether `dilations` count (pooling before some version ignores it).
    dilation: bool,
    /// Pooling: the kernel comes from `kernel_shape`; convolution: from the
    /// weights when not given.
    pooling: bool,
    /// Which input holds the weights.
    weights: usize,
    /// Whether `ceil_mode` drops a last window that starts in the padding
    /// (the rule from `MaxPool`/`AveragePool`/`LpPool` version 22 on).
    ceil_drops_padded_window: bool,
}

/// A list attribute of one value per spatial axis (`count`), checked.
fn per_axis(node: &Node, name: &str, count: usize) -> Result<Option<Vec<i64>>, Stop> {
    let Some(values) = node.ints(name) else { return Ok(None) };
    if values.len() != count {
        return failed(
            ErrorKind::Invalid,
            format!("`{name}` has {} values, but there are {count} spatial axes", values.len()),
        );
    }
    // Beyond any real size: left unknown rather than overflowing.
    if values.iter().any(|v| v.unsigned_abs() > HUGE) {
        return Err(Stop::Unknown);
    }
    Ok(Some(values.into_owned()))
}

/// Larger than any stride, kernel, dilation or pad (2³²).
const HUGE: u64 = 1 << 32;

/// A list attribute whose values must all be positive.
fn positive(name: &str, values: &[i64]) -> Outcome {
    if values.iter().any(|&v| v <= 0) {
        return failed(ErrorKind::Invalid, format!("`{name}` {values:?} must be positive"));
    }
    Ok(())
}

/// Output 0 (and 1, for `MaxPool`'s indices) of a convolution or pooling
/// of input 0, as onnx's `convPoolShapeInference` computes it.
fn window_output(node: &mut Node, window: &Window) -> Outcome {
    let Some(input) = node.shape_opt(0) else { return Ok(()) };
    let weights = node.shape_opt(window.weights);
    if !window.pooling && weights.is_none() {
        return Ok(());
    }
    if input.len() < 3 {
        return failed(
            ErrorKind::Invalid,
            format!("the input must have rank 3 or more (N × C × D1 ...), but its shape is {}", shape_text(input)),
        );
    }
    let spatial = input.len() - 2;
    let dilations = match per_axis(node, "dilations", spatial)?.filter(|_| window.dilation) {
        Some(d) => {
            positive("dilations", &d)?;
            d
        }
        None => vec![1; spatial],
    };
    let strides = per_axis(node, "strides", spatial)?.unwrap_or_else(|| vec![1; spatial]);
    positive("strides", &strides)?;
    let kernel = match per_axis(node, "kernel_shape", spatial)? {
        Some(kernel) => kernel,
        None if window.pooling => return failed(ErrorKind::Invalid, "`kernel_shape` is required"),
        None => {
            let spatial_weights = weights.unwrap_or_default().get(2..).unwrap_or_default();
            let Some(kernel) = spatial_weights.iter().map(Dim::value).collect::<Option<Vec<_>>>() else {
                return Ok(());
            };
            if kernel.len() != spatial {
                return failed(
                    ErrorKind::IncompatibleShapes,
                    format!(
                        "the weights have {} spatial axes, the input {spatial}",
                        kernel.len()
                    ),
                );
            }
            kernel
        }
    };
    positive("kernel_shape", &kernel)?;
    let effective: Vec<i64> = kernel.iter().zip(&dilations).map(|(k, d)| (k - 1) * d + 1).collect();
    let pads = window_pads(node, input, &effective, &strides)?;
    let mut output = vec![input[0].clone()];
    if window.pooling {
        output.push(input[1].clone());
    } else {
        let weights = weights.unwrap_or_default();
        let channels = weights.first().known().map_err(|_| {
            fail(ErrorKind::Invalid, "the weights must have rank 1 or more")
        })?;
        output.push(channels.clone());
    }
    let ceil = node.int_or("ceil_mode", 0) != 0;
    for i in 0..spatial {
        let Dim::Value(size) = input[2 + i] else {
            output.push(Dim::Unknown);
            continue;
        };
        if size.unsigned_abs() > HUGE << 8 {
            output.push(Dim::Unknown);
            continue;
        }
        let padded = size + pads[i] + pads[i + spatial];
        let span = padded - effective[i];
        let count = if window.ceil_drops_padded_window {
            let mut n = (span + if ceil { strides[i] - 1 } else { 0 }) / strides[i] + 1;
            if ceil && (n - 1) * strides[i] >= size + pads[i] {
                n -= 1;
            }
            n
        } else if ceil {
            1 + (span as f32 / strides[i] as f32).ceil() as i64
        } else {
            1 + span / strides[i]
        };
        output.push(Dim::Value(count));
    }
    if node.output_count() > 1 {
        node.set_shape(1, output.clone());
    }
    node.set_shape(0, output);
    Ok(())
}

/// The pads: `pads`, or what `auto_pad` (`SAME_UPPER`, `SAME_LOWER`)
/// works out.
fn window_pads(node: &Node, input: &[Dim], effective: &[i64], strides: &[i64]) -> Result<Vec<i64>, Stop> {
    let spatial = effective.len();
    if let Some(pads) = node.ints("pads") {
        if pads.len() != 2 * spatial {
            return failed(
                ErrorKind::Invalid,
                format!("`pads` has {} values for {spatial} spatial axes", pads.len()),
            );
        }
        if pads.iter().any(|&p| p < 0) {
            return failed(ErrorKind::Invalid, "`pads` has a negative value");
        }
        if pads.iter().any(|p| p.unsigned_abs() > HUGE) {
            return Err(Stop::Unknown);
        }
        return Ok(pads.into_owned());
    }
    let mut pads = vec![0; 2 * spatial];
    let Some(mode) = node.attr("auto_pad").map(|_| node.string("auto_pad").unwrap_or("")) else {
        return Ok(pads);
    };
    if mode == "VALID" {
        return Ok(pads);
    }
    for i in 0..spatial {
        let mut residual = 0;
        if strides[i] > 1 {
            let Dim::Value(size) = input[2 + i] else { continue };
            if size < 0 {
                continue;
            }
            residual = size % strides[i];
        }
        let total = if residual == 0 { effective[i] - strides[i] } else { effective[i] - residual }.max(0);
        let (small, big) = (total / 2, total - total / 2);
        match mode {
            "SAME_UPPER" => (pads[i], pads[i + spatial]) = (small, big),
            "SAME_LOWER" => (pads[i], pads[i + spatial]) = (big, small),
            _ => {}
        }
    }
    Ok(pads)
}

fn conv(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    window_output(node, &CONVOLUTION)
}

fn conv_integer(node: &mut Node) -> Outcome {
    node.tensor(0)?;
    node.tensor(1)?;
    node.set_elem(0, INT32);
    window_output(node, &CONVOLUTION)
}

fn qlinear_conv(node: &mut Node) -> Outcome {
    let (x, w) = (node.tensor(0)?.elem_type, node.tensor(3)?.elem_type);
    for (zero_point, elem, what) in [(2, x, "x"), (5, w, "w")] {
        if node.tensor(zero_point)?.elem_type != elem {
            return failed(
                ErrorKind::TypeMismatch,
                format!("`{what}` and its zero point differ in element type"),
            );
        }
    }
    node.copy_elem(7, 0)?;
    window_output(
        node,
        &Window {
            dilation: true,
            pooling: false,
            weights: 3,
            ceil_drops_padded_window: true,
        },
    )
}

fn pool(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    if node.output_count() > 1 {
        node.set_elem(1, INT64);
    }
    let version = node.version();
    let dilation = match node.op_type() {
        "MaxPool" => version >= 10,
        "AveragePool" => version >= 19,
        _ => version >= 18,
    };
    window_output(
        node,
        &Window {
            dilation,
            pooling: true,
            weights: 1,
            ceil_drops_padded_window: version >= 22,
        },
    )
}

fn conv_transpose(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let (Some(input), Some(weights)) = (node.shape_opt(0), node.shape_opt(1)) else {
        return Ok(());
    };
    let group = node.int_or("group", 1);
    if group <= 0 {
        return failed(ErrorKind::Invalid, format!("`group` is {group}"));
    }
    if input.len() < 3 {
        return failed(ErrorKind::Invalid, "the input must have rank 3 or more (N × C × D1 ...)");
    }
    if let Dim::Value(c) = input[1] {
        if c % group != 0 {
            return failed(
                ErrorKind::IncompatibleShapes,
                format!("the input's {c} channels cannot be divided into {group} groups"),
            );
        }
    }
    if weights.len() < 3 {
        return failed(ErrorKind::Invalid, "the weights must have rank 3 or more (C × M/group × k1 ...)");
    }
    let spatial = input.len() - 2;
    let dilations = per_axis(node, "dilations", spatial)?.unwrap_or_else(|| vec![1; spatial]);
    positive("dilations", &dilations)?;
    let strides = per_axis(node, "strides", spatial)?.unwrap_or_else(|| vec![1; spatial]);
    positive("strides", &strides)?;
    let kernel = match per_axis(node, "kernel_shape", spatial)? {
        Some(kernel) => kernel,
        None => {
            let Some(kernel) = weights[2..].iter().map(Dim::value).collect::<Option<Vec<_>>>() else {
                return Ok(());
            };
            if kernel.len() != spatial {
                return failed(ErrorKind::IncompatibleShapes, "the weights and the input differ in spatial rank");
            }
            kernel
        }
    };
    positive("kernel_shape", &kernel)?;
    let effective: Vec<i64> = kernel.iter().zip(&dilations).map(|(k, d)| (k - 1) * d + 1).collect();
    let mode = node.attr("auto_pad").map(|_| node.string("auto_pad").unwrap_or(""));
    let pads = match node.ints("pads") {
        Some(pads) => {
            if pads.len() != 2 * spatial || pads.iter().any(|&p| p < 0) {
                return failed(ErrorKind::Invalid, "`pads` has the wrong length or a negative value");
            }
            if mode.is_some_and(|m| m != "NOTSET") {
                return failed(ErrorKind::Invalid, "`pads` and `auto_pad` are both given");
            }
            pads.into_owned()
        }
        None => {
            let mut pads = vec![0; 2 * spatial];
            if let Some(mode) = mode.filter(|m| *m != "VALID") {
                for i in 0..spatial {
                    let total = (effective[i] - strides[i]).max(0);
                    let (small, big) = (total / 2, total - total / 2);
                    match mode {
                        "SAME_UPPER" => (pads[i], pads[i + spatial]) = (small, big),
                        "SAME_LOWER" => (pads[i], pads[i + spatial]) = (big, small),
                        _ => {}
                    }
                }
            }
            pads
        }
    };
    let output_padding = per_axis(node, "output_padding", spatial)?.unwrap_or_else(|| vec![0; spatial]);
    if output_padding.iter().any(|&p| p < 0) {
        return failed(ErrorKind::Invalid, "`output_padding` has a negative value");
    }
    let mut output = vec![input[0].clone(), mul(&weights[1], &Dim::Value(group))];
    if let Some(sizes) = per_axis(node, "output_shape", spatial)? {
        if sizes.iter().any(|&s| s < 0) {
            return failed(ErrorKind::Invalid, "`output_shape` has a negative value");
        }
        if sizes.iter().zip(&input[2..]).any(|(s, d)| d.value().is_some_and(|v| *s < v)) {
            return Ok(());
        }
        output.extend(sizes.into_iter().map(Dim::Value));
    } else {
        for i in 0..spatial {
            output.push(match input[2 + i] {
                Dim::Value(size) => Dim::Value(
                    strides[i] * (size - 1) + output_padding[i] + effective[i] - pads[i] - pads[i + spatial],
                ),
                _ => Dim::Unknown,
            });
        }
    }
    node.set_shape(0, output);
    Ok(())
}

fn global_pool(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    if input.len() < 2 {
        return Ok(());
    }
    let mut output = input[..2].to_vec();
    output.extend(std::iter::repeat_n(Dim::Value(1), input.len() - 2));
    node.set_shape(0, output);
    Ok(())
}

/// Input `i`'s shape, which must have rank `rank` when known.
fn ranked<'a>(node: &Node<'a, '_>, i: usize, rank: usize) -> Result<Option<&'a [Dim]>, Stop> {
    match node.shape_opt(i) {
        Some(shape) if shape.len() != rank => failed(
            ErrorKind::Invalid,
            format!(
                "input {i} (`{}`) must have rank {rank}, but its shape is {}",
                node.input_name(i),
                shape_text(shape)
            ),
        ),
        shape => Ok(shape),
    }
}

fn max_roi_pool(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    if node.shape_opt(0).is_none() || node.shape_opt(1).is_none() {
        return Ok(());
    }
    let input = ranked(node, 0, 4)?.known()?;
    let rois = ranked(node, 1, 2)?.known()?;
    merge_dim(&Dim::Value(5), &rois[1], || "each region must have 5 values".into())?;
    let pooled = node.ints("pooled_shape").known()?;
    let [h, w] = pooled[..] else {
        return failed(ErrorKind::Invalid, "`pooled_shape` must have 2 values");
    };
    positive("pooled_shape", &pooled)?;
    node.set_shape(0, vec![rois[0].clone(), input[1].clone(), Dim::Value(h), Dim::Value(w)]);
    Ok(())
}

fn roi_align(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = ranked(node, 0, 4)?;
    let rois = ranked(node, 1, 2)?;
    let indices = ranked(node, 2, 1)?;
    let channels = input.map_or(Dim::Unknown, |s| s[1].clone());
    let mut count = rois.map_or(Dim::Unknown, |s| s[0].clone());
    if let Some(indices) = indices {
        count = merge_dim(&indices[0], &count, || "`rois` and `batch_indices` differ in length".into())?;
    }
    let height = node.int_or("output_height", 1);
    let width = node.int_or("output_width", 1);
    node.set_shape(0, vec![count, channels, Dim::Value(height), Dim::Value(width)]);
    Ok(())
}

fn max_unpool(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    if input.len() < 2 {
        return failed(ErrorKind::Invalid, "the input must have rank 2 or more");
    }
    let spatial = input.len() - 2;
    let pads = match node.ints("pads") {
        Some(p) if p.len() != 2 * spatial => return failed(ErrorKind::Invalid, "`pads` has the wrong length"),
        Some(p) => p.into_owned(),
        None => vec![0; 2 * spatial],
    };
    let strides = per_axis(node, "strides", spatial)?.unwrap_or_else(|| vec![1; spatial]);
    let Some(kernel) = per_axis(node, "kernel_shape", spatial)? else {
        return failed(ErrorKind::Invalid, "`kernel_shape` is required");
    };
    if node.input_count() == 3 {
        if let Some(shape) = node.shape_opt(2) {
            match shape {
                [Dim::Value(n)] if *n != input.len() as i64 => {
                    return failed(
                        ErrorKind::IncompatibleShapes,
                        "`output_shape` must have as many values as the input's rank",
                    );
                }
                [_] => {}
                _ => return failed(ErrorKind::Invalid, "`output_shape` must have rank 1"),
            }
        }
        return Ok(());
    }
    let indices = node.shape(1)?;
    if indices.len() < 2 {
        return failed(ErrorKind::Invalid, "the indices must have rank 2 or more");
    }
    let mut output = vec![input[0].clone(), indices[1].clone()];
    for i in 0..spatial {
        output.push(match input[2 + i] {
            Dim::Value(size) => {
                let wide = i128::from(strides[i]) * (i128::from(size) - 1) + i128::from(kernel[i])
                    - i128::from(pads[i])
                    - i128::from(pads[i + spatial]);
                i64::try_from(wide).map_or(Dim::Unknown, Dim::Value)
            }
            _ => Dim::Unknown,
        });
    }
    node.set_shape(0, output);
    Ok(())
}
