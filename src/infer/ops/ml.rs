//! Operators of `ai.onnx.ml`, the traditional machine learning domain.

use super::common::*;
use super::elementwise::same_as_input;

/// The domain's name.
const ML: &str = "ai.onnx.ml";

pub(super) const RULES: &[Rule] = &[
    Rule::new("ArrayFeatureExtractor", 1, array_feature_extractor).domain(ML),
    Rule::new("Binarizer", 1, same_as_input).domain(ML),
];

fn array_feature_extractor(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    if input.len() == 1 {
        return Ok(());
    }
    let mut output: Shape = input[..input.len().saturating_sub(1)].to_vec();
    let last = match node.shape_opt(1).filter(|s| !s.is_empty()) {
        Some(indices) => selected_count(indices),
        None => Dim::Unknown,
    };
    output.push(last);
    node.set_shape(0, output);
    Ok(())
}

/// How many indices a tensor of shape `indices` holds: a known size, or a
/// name when it has one named dimension and the rest multiply to 1.
fn selected_count(indices: &[Dim]) -> Dim {
    let mut count: i64 = 1;
    let mut name = None;
    for dim in indices {
        match dim {
            Dim::Value(v) => match count.checked_mul(*v) {
                Some(c) => count = c,
                None => return Dim::Unknown,
            },
            Dim::Param(_) if name.is_none() => name = Some(dim.clone()),
            _ => return Dim::Unknown,
        }
    }
    match name {
        None => Dim::Value(count),
        Some(name) if count == 1 => name,
        Some(_) => Dim::Unknown,
    }
}
