//! Normalizations, softmax and losses: `BatchNormalization`,
//! `InstanceNormalization`, `LayerNormalization`, `RMSNormalization`,
//! `LpNormalization`, `LRN`, `MeanVarianceNormalization`, `Dropout`,
//! `Softmax`, `LogSoftmax`, `Hardmax`, `NegativeLogLikelihoodLoss`,
//! `SoftmaxCrossEntropyLoss`.

use super::common::*;
use super::elementwise::same_as_input;

pub(super) const RULES: &[Rule] = &[
    Rule::new("BatchNormalization", 6, same_as_input).until(9),
    Rule::new("BatchNormalization", 14, batch_normalization),
    Rule::new("InstanceNormalization", 6, same_as_input),
    // onnx infers nothing for GroupNormalization (it has only a body built
    // for each node); its output is the input's type and shape.
    Rule::new("GroupNormalization", 18, same_as_input),
    Rule::new("LpNormalization", 1, same_as_input),
    Rule::new("LRN", 1, same_as_input),
    Rule::new("MeanVarianceNormalization", 9, same_as_input).until(9),
    Rule::new("LayerNormalization", 17, layer_normalization),
    Rule::new("RMSNormalization", 23, rms_normalization),
    Rule::new("Dropout", 6, same_as_input).until(7),
    Rule::new("Dropout", 10, dropout),
    Rule::new("Softmax", 1, same_as_input).until(1),
    Rule::new("Softmax", 11, softmax),
    Rule::new("LogSoftmax", 1, same_as_input).until(1),
    Rule::new("LogSoftmax", 11, softmax),
    Rule::new("Hardmax", 1, same_as_input).until(1),
    Rule::new("Hardmax", 11, softmax),
    Rule::new("NegativeLogLikelihoodLoss", 12, negative_log_likelihood_loss),
    Rule::new("SoftmaxCrossEntropyLoss", 12, softmax_cross_entropy_loss),
];

fn batch_normalization(node: &mut Node) -> Outcome {
    node.same_as_input()?;
    for i in 1..=4 {
        expect_rank(node, i, 1)?;
    }
    let mut channels = match node.shape_opt(0) {
        Some(shape) if shape.len() > 1 => shape[1].clone(),
        Some(_) => Dim::Value(1),
        None => Dim::Unknown,
    };
    for i in 1..=4 {
        if let Some(shape) = node.shape_opt(i) {
            channels = merge_dim(&shape[0], &channels, || {
                format!("input {i} (`{}`) does not have one value per channel", node.input_name(i))
            })?;
        }
    }
    let training = node.int_or("training_mode", 0) != 0;
    let expected = if training { 3 } else { 1 };
    if node.output_count() != expected {
        return failed(
            ErrorKind::Invalid,
            format!(
                "with `training_mode` {}, the node must have {expected} outputs, not {}",
                i64::from(training),
                node.output_count()
            ),
        );
    }
    for (input, output) in [(3, 1), (4, 2)] {
        if output < node.output_count() {
            node.copy_elem(input, output)?;
            node.set_shape(output, vec![channels.clone()]);
        }
    }
    Ok(())
}

/// Statistics outputs (mean, inverse standard deviation) of type
/// `stash_type`, of the input's shape with the normalized axes 1.
fn statistics(node: &mut Node, first: usize) -> Outcome {
    let stash = node.int_or("stash_type", i64::from(FLOAT)) as i32;
    for i in first..node.output_count() {
        node.set_elem(i, stash);
    }
    let input = node.shape(0)?;
    let rank = input.len() as i64;
    let mut axis = node.int_or("axis", -1);
    if axis < 0 {
        axis += rank;
    }
    if axis < 0 {
        return failed(
            ErrorKind::AxisOutOfRange,
            format!("`axis` is out of range for rank {rank}"),
        );
    }
    let shape: Shape = input
        .iter()
        .enumerate()
        .map(|(d, dim)| if d as i64 >= axis { Dim::Value(1) } else { dim.clone() })
        .collect();
    for i in first..node.output_count() {
        node.set_shape(i, shape.clone());
    }
    Ok(())
}

fn layer_normalization(node: &mut Node) -> Outcome {
    node.same_as_input()?;
    statistics(node, 1)
}

fn rms_normalization(node: &mut Node) -> Outcome {
    node.same_as_input()?;
    let input = node.shape(0)?;
    let mut axis = node.int_or("axis", -1);
    if axis < 0 {
        axis += input.len() as i64;
    }
    if axis < 0 {
        return failed(ErrorKind::AxisOutOfRange, "`axis` is out of range");
    }
    Ok(())
}

fn dropout(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    if node.shape_opt(0).is_some() {
        node.copy_shape(0, 0)?;
    }
    if node.version() >= 12 {
        for (i, what) in [(1, "ratio"), (2, "training_mode")] {
            if node.input_count() > i {
                if let Some(shape) = node.shape_opt(i).filter(|s| !s.is_empty()) {
                    return failed(
                        ErrorKind::Invalid,
                        format!("`{what}` must be a scalar, but its shape is {}", shape_text(shape)),
                    );
                }
            }
        }
    }
    if node.output_count() == 2 {
        node.set_elem(1, BOOL);
        if node.shape_opt(0).is_some() {
            node.copy_shape(0, 1)?;
        }
    }
    Ok(())
}

fn softmax(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    if input.is_empty() {
        return failed(ErrorKind::Invalid, "the input must have rank 1 or more");
    }
    axis(node.int_or("axis", -1), input.len(), "`axis`")?;
    node.copy_shape(0, 0)
}

/// Checks `scores` against `target` (the class axis 1 aside) and returns
/// the per-element loss shape.
fn loss_shape(input: &[Dim], target: &[Dim]) -> Result<Shape, Stop> {
    if input.len() < 2 {
        return failed(ErrorKind::Invalid, "the input must have rank 2 or more");
    }
    if target.len() + 1 != input.len() {
        return failed(
            ErrorKind::IncompatibleShapes,
            format!(
                "the target {} must have rank one less than the input {}",
                shape_text(target),
                shape_text(input)
            ),
        );
    }
    let per_element: Shape = std::iter::once(&input[0]).chain(&input[2..]).cloned().collect();
    for (i, (a, b)) in per_element.iter().zip(target).enumerate() {
        if let (Dim::Value(x), Dim::Value(y)) = (a, b) {
            if x != y {
                return failed(
                    ErrorKind::IncompatibleShapes,
                    format!("the input and the target differ in dimension {i} (besides the classes): {x} ≠ {y}"),
                );
            }
        }
    }
    Ok(per_element)
}

fn negative_log_likelihood_loss(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let (Some(input), Some(target)) = (node.shape_opt(0), node.shape_opt(1)) else {
        return Ok(());
    };
    let per_element = loss_shape(input, target)?;
    if node.input_count() == 3 {
        if let Some(weights) = node.shape_opt(2).filter(|s| s.len() != 1) {
            return failed(
                ErrorKind::Invalid,
                format!("`weight` must have rank 1, but its shape is {}", shape_text(weights)),
            );
        }
    }
    let none = node.string("reduction") == Some("none");
    node.set_shape(0, if none { per_element } else { Vec::new() });
    Ok(())
}

fn softmax_cross_entropy_loss(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    if node.string("reduction") == Some("none") {
        if node.shape_opt(1).is_some() {
            node.copy_shape(1, 0)?;
        }
    } else {
        node.set_shape(0, Vec::new());
    }
    if node.output_count() == 2 {
        node.copy_elem(0, 1)?;
        node.copy_shape(0, 1)?;
    }
    Ok(())
}
