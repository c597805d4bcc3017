//! Optimizers of `ai.onnx.preview.training`: `Adagrad`, `Adam`,
//! `Momentum`. Each updated tensor is like the tensor it updates.

use super::common::*;

/// The domain's name.
const TRAINING: &str = "ai.onnx.preview.training";

pub(super) const RULES: &[Rule] = &[
    Rule::new("Adagrad", 1, adagrad).domain(TRAINING),
    Rule::new("Adam", 1, adam).domain(TRAINING),
    Rule::new("Momentum", 1, momentum).domain(TRAINING),
];

/// The inputs after `R` and `T`, in `groups` groups of `count` tensors
/// each (parameters, gradients, ...): output `g * count + i` is like input
/// `2 + from[g] * count + i`. With `exact`, the inputs must fill the
/// groups.
fn optimizer(node: &mut Node, groups: usize, from: &[usize], exact: bool) -> Outcome {
    let adjustable = node.input_count().saturating_sub(2);
    if exact && adjustable % groups != 0 {
        return failed(
            ErrorKind::Invalid,
            format!("the tensors to optimize do not come in groups of {groups}"),
        );
    }
    let count = adjustable / groups;
    for i in 0..count {
        for (g, &f) in from.iter().enumerate() {
            let (input, output) = (2 + f * count + i, g * count + i);
            node.copy_elem(input, output)?;
            node.copy_shape(input, output)?;
        }
    }
    Ok(())
}

fn adagrad(node: &mut Node) -> Outcome {
    optimizer(node, 3, &[0, 2], false)
}

fn adam(node: &mut Node) -> Outcome {
    optimizer(node, 4, &[0, 2, 3], true)
}

fn momentum(node: &mut Node) -> Outcome {
    optimizer(node, 3, &[0, 2], true)
}
