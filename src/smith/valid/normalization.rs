//! Normalizations: `BatchNormalization`, `InstanceNormalization`,
//! `LayerNormalization`, `GroupNormalization`, `RMSNormalization`,
//! `MeanVarianceNormalization`, `LRN`. Their per-channel or per-axis
//! operands have the channels or trailing dimensions of the input;
//! variances are positive constants.

use arbitrary::Result;

use super::{float_attribute, int_attribute, ints_attribute, node, Builder, Need, Recipe, Valid};
use crate::infer::Dim;
use crate::ops::Schema;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("BatchNormalization", batch_normalization),
    ("InstanceNormalization", per_channel),
    ("GroupNormalization", per_channel),
    ("LayerNormalization", trailing_axes),
    ("RMSNormalization", trailing_axes),
    ("MeanVarianceNormalization", mean_variance_normalization),
    ("LRN", lrn),
];

impl Valid<'_, '_> {
    /// The element type input `index` of `schema` takes when input 0 has
    /// `like`: `like` where the input allows it (onnx's inference gives
    /// some outputs input 0's type even where their type parameter is
    /// another's), else one it allows.
    pub(super) fn param_elem(
        &mut self,
        schema: &'static Schema,
        index: usize,
        like: ElementType,
    ) -> Result<Option<ElementType>> {
        let allowed = Valid::types_of(schema, index);
        if allowed.contains(&like) {
            return Ok(Some(like));
        }
        Ok(self.u.choose(&allowed).ok().copied())
    }

    /// A value of `elem` and `shape` for input `index` of `schema`, from
    /// the pool or new.
    fn per_channel_operand(
        &mut self,
        b: &mut Builder,
        schema: &'static Schema,
        index: usize,
        like: ElementType,
        shape: &[Dim],
    ) -> Result<Option<String>> {
        let Some(elem) = self.param_elem(schema, index, like)? else {
            return Ok(None);
        };
        self.value_of(b, elem, shape)
    }
}

/// `BatchNormalization` (from opset 7) over the channels: scale, bias,
/// mean and a positive variance of `C`; in training mode (from opset 14)
/// sometimes, with the running statistics as outputs.
fn batch_normalization(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(2, usize::MAX).fixed_in(1, 2))? else {
        return Ok(false);
    };
    let channels = [x.shape[1].clone()];
    let mut inputs = vec![x.name.clone()];
    for index in 1..=3 {
        let Some(operand) = g.per_channel_operand(b, schema, index, x.elem, &channels)? else {
            return Ok(false);
        };
        inputs.push(operand);
    }
    let Some(var_elem) = g.param_elem(schema, 4, x.elem)? else {
        return Ok(false);
    };
    let c = x.dims()[1];
    inputs.push(g.constant_in(b, var_elem, vec![c], 0.125, 2.0)?);
    let mut attributes = Vec::new();
    let mut outputs = 1;
    if schema.attribute("training_mode").is_some() && g.chance(1, 3)? {
        attributes.push(int_attribute("training_mode", 1));
        outputs = 3;
    }
    if g.chance(1, 3)? {
        attributes.push(float_attribute("epsilon", 0.001));
    }
    Ok(g.add(b, node(schema, inputs, attributes), outputs))
}

/// `InstanceNormalization` and `GroupNormalization` (a number of groups
/// dividing the channels; scale and bias per group before opset 21, per
/// channel from then on).
fn per_channel(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(3, usize::MAX).fixed_in(1, 2))? else {
        return Ok(false);
    };
    let channels = x.dims()[1];
    let mut attributes = Vec::new();
    let mut size = channels;
    if schema.attribute("num_groups").is_some() {
        let groups: Vec<i64> = (1..=channels).filter(|d| channels % d == 0).collect();
        let groups = g.pick(&groups)?;
        attributes.push(int_attribute("num_groups", groups));
        if schema.since_version() < 21 {
            size = groups;
        }
    }
    let mut inputs = vec![x.name.clone()];
    for index in 1..=2 {
        let shape = [Dim::Value(size)];
        let Some(operand) = g.per_channel_operand(b, schema, index, x.elem, &shape)? else {
            return Ok(false);
        };
        inputs.push(operand);
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `LayerNormalization` and `RMSNormalization` from an axis on: a scale
/// (and a bias, sometimes) of the dimensions from the axis on, the mean
/// and inverse deviation outputs sometimes.
fn trailing_axes(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(1, usize::MAX))? else {
        return Ok(false);
    };
    let axis = g.index(x.rank())?;
    let trailing = x.shape[axis..].to_vec();
    let mut inputs = vec![x.name.clone()];
    let operands = if schema.inputs().len() > 2 && g.chance(1, 2)? {
        2
    } else {
        1
    };
    for index in 1..=operands {
        let Some(operand) = g.per_channel_operand(b, schema, index, x.elem, &trailing)? else {
            return Ok(false);
        };
        inputs.push(operand);
    }
    let attributes = vec![int_attribute("axis", g.maybe_negative(axis, x.rank())?)];
    let outputs = g.int(1, schema.outputs().len() as i64)? as usize;
    Ok(g.add(b, node(schema, inputs, attributes), outputs))
}

/// `MeanVarianceNormalization` over some axes, of `float` only: onnx's
/// function body for it adds a `float` epsilon, so inference rejects the
/// other types its constraint lists.
fn mean_variance_normalization(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let elems = g.accepted_where(schema, 0, |e| e == &ElementType::Float);
    let Some(x) = g.operand(b, &elems, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let axes = g.axes(x.rank())?;
    Ok(g.add(
        b,
        node(schema, vec![x.name], vec![ints_attribute("axes", axes)]),
        1,
    ))
}

/// `LRN` over an odd number of channels, its constants sometimes set.
fn lrn(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(3))? else {
        return Ok(false);
    };
    let mut attributes = vec![int_attribute("size", 2 * g.int(0, 2)? + 1)];
    for (name, value) in [("alpha", 0.001), ("beta", 0.5), ("bias", 2.0)] {
        if g.chance(1, 3)? {
            attributes.push(float_attribute(name, value));
        }
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}
