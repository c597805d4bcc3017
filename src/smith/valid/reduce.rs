//! Operators that reduce or scan along axes: the `Reduce*` family,
//! `ArgMax`/`ArgMin`, the softmax family, `CumSum`/`CumProd`,
//! `LpNormalization`.

use arbitrary::Result;

use super::{int_attribute, ints_attribute, node, Builder, Need, Recipe, Valid};
use crate::ops::Schema;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("ReduceL1", reduce),
    ("ReduceL2", reduce),
    ("ReduceLogSum", reduce),
    ("ReduceLogSumExp", reduce),
    ("ReduceMax", reduce),
    ("ReduceMean", reduce),
    ("ReduceMin", reduce),
    ("ReduceProd", reduce),
    ("ReduceSum", reduce),
    ("ReduceSumSquare", reduce),
    ("ArgMax", arg_reduce),
    ("ArgMin", arg_reduce),
    ("Hardmax", along_axis),
    ("LogSoftmax", along_axis),
    ("Softmax", along_axis),
    ("LpNormalization", along_axis),
    ("CumSum", cumulative),
    ("CumProd", cumulative),
];

/// A reduction over all axes or some (an attribute or an input, as the
/// version has them), `keepdims` drawn, sometimes `noop_with_empty_axes`;
/// of dimensions known or symbolic (one the model's data decides may be 0,
/// and some reductions of nothing have no value).
fn reduce(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(0, usize::MAX))? else {
        return Ok(false);
    };
    let keepdims = g.u.arbitrary::<bool>()?;
    let rank = x.rank();
    let mut inputs = vec![x.name];
    let mut attributes = vec![int_attribute("keepdims", i64::from(keepdims))];
    if rank == 0 || g.chance(1, 3)? {
        if schema.attribute("noop_with_empty_axes").is_some() && g.chance(1, 4)? {
            attributes.push(int_attribute("noop_with_empty_axes", 1));
        }
    } else {
        let axes = g.axes(rank)?;
        if schema.attribute("axes").is_some() {
            attributes.push(ints_attribute("axes", axes));
        } else {
            inputs.push(g.ints(b, &axes));
        }
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `ArgMax`/`ArgMin` along one axis, `keepdims` drawn, sometimes the last
/// index of ties.
fn arg_reduce(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(1, usize::MAX))? else {
        return Ok(false);
    };
    let axis = g.axis(x.rank())?;
    let keepdims = g.u.arbitrary::<bool>()?;
    let mut attributes = vec![
        int_attribute("axis", axis),
        int_attribute("keepdims", i64::from(keepdims)),
    ];
    if schema.attribute("select_last_index").is_some() && g.chance(1, 3)? {
        attributes.push(int_attribute("select_last_index", 1));
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// An operator along one axis, given (before opset 13 the default axis
/// is 1, so it is always given); `LpNormalization`'s `p` 1 or 2.
fn along_axis(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let axis = g.axis(x.rank())?;
    let mut attributes = vec![int_attribute("axis", axis)];
    if schema.attribute("p").is_some() {
        attributes.push(int_attribute("p", g.int(1, 2)?));
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// `CumSum`/`CumProd` along an axis given as a scalar, sometimes
/// exclusive or reversed.
fn cumulative(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let axis = g.axis(x.rank())?;
    let axis_elem = g.pick(&[ElementType::Int64, ElementType::Int32])?;
    let axis = g.constant(b, axis_elem, Vec::new(), &[axis as f64]);
    let mut attributes = Vec::new();
    for flag in ["exclusive", "reverse"] {
        if g.chance(1, 3)? {
            attributes.push(int_attribute(flag, 1));
        }
    }
    Ok(g.add(b, node(schema, vec![x.name, axis], attributes), 1))
}
