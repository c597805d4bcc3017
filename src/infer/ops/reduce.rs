//! Reductions: the `Reduce*` operators (axes as an attribute or, from
//! `ReduceSum` 13 and the others' 18 on, as an input) and `ArgMax`/`ArgMin`.

use super::common::*;

pub(super) const RULES: &[Rule] = &[
    Rule::new("ReduceL1", 1, reduce),
    Rule::new("ReduceL2", 1, reduce),
    Rule::new("ReduceLogSum", 1, reduce),
    Rule::new("ReduceLogSumExp", 1, reduce),
    Rule::new("ReduceMax", 1, reduce),
    Rule::new("ReduceMean", 1, reduce),
    Rule::new("ReduceMin", 1, reduce),
    Rule::new("ReduceProd", 1, reduce),
    Rule::new("ReduceSum", 1, reduce),
    Rule::new("ReduceSumSquare", 1, reduce),
    Rule::new("ArgMax", 1, arg_reduce),
    Rule::new("ArgMin", 1, arg_reduce),
];

fn reduce(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let keep = node.int_or("keepdims", 1) == 1;
    let noop = node.int_or("noop_with_empty_axes", 0) != 0;
    let axes: Vec<i64> = if node.has_input(1) {
        if node.attr("axes").is_some() {
            return failed(ErrorKind::Invalid, "`axes` is given both as an input and an attribute");
        }
        node.constant_ints(1).known()?
    } else {
        node.ints("axes").map(|a| a.into_owned()).unwrap_or_default()
    };
    if noop && axes.is_empty() {
        return node.copy_shape(0, 0);
    }
    let axes = super::common::axes(&axes, input.len(), "`axes` value")?;
    let mut output = Vec::with_capacity(input.len());
    for (i, dim) in input.iter().enumerate() {
        if !axes.is_empty() && !axes.contains(&i) {
            output.push(dim.clone());
        } else if keep {
            output.push(Dim::Value(1));
        }
    }
    node.set_shape(0, output);
    Ok(())
}

fn arg_reduce(node: &mut Node) -> Outcome {
    node.set_elem(0, INT64);
    let input = node.shape(0)?;
    let axis = match node.attr("axis") {
        Some(a) => axis(a.i.unwrap_or(0), input.len(), "`axis`")?,
        None => 0,
    };
    let keep = node.int_or("keepdims", 1) == 1;
    let mut output = Vec::with_capacity(input.len());
    for (i, dim) in input.iter().enumerate() {
        if i != axis {
            output.push(dim.clone());
        } else if keep {
            output.push(Dim::Value(1));
        }
    }
    node.set_shape(0, output);
    Ok(())
}
