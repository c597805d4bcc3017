//! Operators that read or write at indices: the `Gather` and `Scatter`
//! families, `OneHot`, `TopK`, `TensorScatter`, `NonMaxSuppression`, and
//! the losses, which pick a class for each sample. Their
//! indices are constants inside the dimensions they index (counted from the
//! end too, from opset 13), so the nodes run as well as check.

use arbitrary::Result;

use super::{int_attribute, node, string_attribute, Builder, Need, Recipe, Tensor, Valid};
use crate::ops::Schema;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("Gather", gather),
    ("GatherElements", gather_elements),
    ("GatherND", gather_nd),
    ("ScatterElements", scatter_elements),
    ("ScatterND", scatter_nd),
    ("OneHot", one_hot),
    ("TopK", top_k),
    ("TensorScatter", tensor_scatter),
    ("NonMaxSuppression", non_max_suppression),
    ("NegativeLogLikelihoodLoss", loss),
    ("SoftmaxCrossEntropyLoss", loss),
];

impl Valid<'_, '_> {
    /// An index type input `index` of `schema` takes (`int32` or `int64`).
    pub(super) fn index_elem(
        &mut self,
        schema: &'static Schema,
        index: usize,
    ) -> Result<ElementType> {
        let allowed: Vec<ElementType> = Valid::types_of(schema, index)
            .into_iter()
            .filter(|e| matches!(e, ElementType::Int32 | ElementType::Int64))
            .collect();
        Ok(self
            .u
            .choose(&allowed)
            .copied()
            .unwrap_or(ElementType::Int64))
    }

    /// An index into a dimension of `dim`: from `-dim` (from opset 13) to
    /// `dim - 1`.
    fn index_into(&mut self, dim: i64) -> Result<f64> {
        let low = if self.opset >= 13 { -dim } else { 0 };
        Ok(self.int(low, dim - 1)? as f64)
    }

    /// A constant tensor of indices of `elem` and `dims`, each into a
    /// dimension of `dim`.
    fn indices(
        &mut self,
        b: &mut Builder,
        elem: ElementType,
        dims: Vec<i64>,
        dim: i64,
    ) -> Result<String> {
        let count: i64 = dims.iter().product();
        let values = (0..count)
            .map(|_| self.index_into(dim))
            .collect::<Result<Vec<f64>>>()?;
        Ok(self.constant(b, elem, dims, &values))
    }

    /// Up to `max` new dimensions of 1 to 3.
    pub(super) fn small_dims(&mut self, max: usize) -> Result<Vec<i64>> {
        let rank = self.int(0, max as i64)?;
        (0..rank).map(|_| self.int(1, 3)).collect()
    }

    /// A tensor of fixed dimensions for an operator to index into.
    fn indexed(&mut self, b: &mut Builder, schema: &'static Schema) -> Result<Option<Tensor>> {
        let elems = self.accepted(schema, 0);
        self.operand(b, &elems, Need::rank(1, usize::MAX).fixed())
    }

    /// The `reduction` of a scatter (from opset 16; `max` and `min` from
    /// 18), none for types it does not apply to.
    fn reduction(
        &mut self,
        schema: &'static Schema,
        elem: ElementType,
    ) -> Result<Vec<crate::proto::AttributeProto>> {
        if schema.attribute("reduction").is_none()
            || matches!(elem, ElementType::Bool | ElementType::String)
            || !self.chance(1, 2)?
        {
            return Ok(Vec::new());
        }
        let mut reductions = vec!["none", "add", "mul"];
        if schema.since_version() >= 18 {
            reductions.extend(["max", "min"]);
        }
        Ok(vec![string_attribute("reduction", self.pick(&reductions)?)])
    }
}

/// `Gather` along an axis by indices of up to rank 2.
fn gather(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.indexed(b, schema)? else {
        return Ok(false);
    };
    let axis = g.index(x.rank())?;
    let elem = g.index_elem(schema, 1)?;
    let dims = g.small_dims(2)?;
    let indices = g.indices(b, elem, dims, x.dims()[axis])?;
    let axis = int_attribute("axis", g.maybe_negative(axis, x.rank())?);
    Ok(g.add(b, node(schema, vec![x.name, indices], vec![axis]), 1))
}

/// `GatherElements`: indices of the data's shape but along the axis, into
/// it.
fn gather_elements(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(x) = g.indexed(b, schema)? else {
        return Ok(false);
    };
    let axis = g.index(x.rank())?;
    let data = x.dims();
    let mut dims = Vec::with_capacity(x.rank());
    for (i, &d) in data.iter().enumerate() {
        dims.push(if i == axis { g.int(1, 3)? } else { d });
    }
    let elem = g.index_elem(schema, 1)?;
    let indices = g.indices(b, elem, dims, data[axis])?;
    let axis = int_attribute("axis", g.maybe_negative(axis, x.rank())?);
    Ok(g.add(b, node(schema, vec![x.name, indices], vec![axis]), 1))
}

/// The `[..., k]` indices of `GatherND`/`ScatterND` into `data` after its
/// first `batch` dimensions (which the indices start with), and their
/// shape.
fn nd_indices(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    data: &[i64],
    batch: usize,
) -> Result<(String, Vec<i64>)> {
    let k = g.int(1, (data.len() - batch) as i64)? as usize;
    let mut dims = data[..batch].to_vec();
    dims.extend(g.small_dims(1)?);
    dims.push(k as i64);
    let count: i64 = dims[..dims.len() - 1].iter().product();
    let mut values = Vec::with_capacity(count as usize * k);
    for _ in 0..count {
        for &d in &data[batch..batch + k] {
            values.push(g.index_into(d)?);
        }
    }
    let indices = g.constant(b, ElementType::Int64, dims.clone(), &values);
    Ok((indices, dims))
}

/// `GatherND`, sometimes with a batch dimension (from opset 12).
fn gather_nd(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.indexed(b, schema)? else {
        return Ok(false);
    };
    let batch =
        usize::from(schema.attribute("batch_dims").is_some() && x.rank() > 1 && g.chance(1, 3)?);
    let (indices, _) = nd_indices(g, b, &x.dims(), batch)?;
    let attributes = if batch > 0 {
        vec![int_attribute("batch_dims", batch as i64)]
    } else {
        Vec::new()
    };
    Ok(g.add(b, node(schema, vec![x.name, indices], attributes), 1))
}

/// `ScatterElements`: indices no larger than the data anywhere, updates of
/// their shape.
fn scatter_elements(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(x) = g.indexed(b, schema)? else {
        return Ok(false);
    };
    let axis = g.index(x.rank())?;
    let data = x.dims();
    let dims = data
        .iter()
        .map(|&d| g.int(1, d))
        .collect::<Result<Vec<i64>>>()?;
    let elem = g.index_elem(schema, 1)?;
    let indices = g.indices(b, elem, dims.clone(), data[axis])?;
    let shape: Vec<_> = dims.iter().map(|&d| d.into()).collect();
    let Some(updates) = g.value_of(b, x.elem, &shape)? else {
        return Ok(false);
    };
    let mut attributes = g.reduction(schema, x.elem)?;
    attributes.push(int_attribute("axis", g.maybe_negative(axis, x.rank())?));
    Ok(g.add(
        b,
        node(schema, vec![x.name, indices, updates], attributes),
        1,
    ))
}

/// `ScatterND`: updates of the indices' leading shape and the data's
/// trailing one.
fn scatter_nd(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.indexed(b, schema)? else {
        return Ok(false);
    };
    let data = x.dims();
    let (indices, dims) = nd_indices(g, b, &data, 0)?;
    let k = dims[dims.len() - 1] as usize;
    let shape: Vec<_> = dims[..dims.len() - 1]
        .iter()
        .chain(&data[k..])
        .map(|&d| d.into())
        .collect();
    let Some(updates) = g.value_of(b, x.elem, &shape)? else {
        return Ok(false);
    };
    let attributes = g.reduction(schema, x.elem)?;
    Ok(g.add(
        b,
        node(schema, vec![x.name, indices, updates], attributes),
        1,
    ))
}

/// `OneHot` of any tensor of numbers (out-of-range ones give rows of the
/// off value), a constant depth, off and on values of an element type of
/// the config, the new axis anywhere.
fn one_hot(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let depth_elems: Vec<ElementType> = g
        .accepted(schema, 1)
        .into_iter()
        .chain([ElementType::Int64])
        .filter(|e| e.is_number())
        .collect();
    let depth_elem = g.pick(&depth_elems)?;
    let depth = g.int(1, g.config.max_dim)? as f64;
    let depth = g.constant(b, depth_elem, Vec::new(), &[depth]);
    let value_elems = g.accepted(schema, 2);
    let Ok(&value_elem) = g.u.choose(&value_elems) else {
        return Ok(false);
    };
    let values = g.random_tensor(None, value_elem, vec![2])?;
    let values = g.constant_tensor(b, values);
    let rank = x.rank() as i64;
    let axis = int_attribute("axis", g.int(-rank - 1, rank)?);
    Ok(g.add(b, node(schema, vec![x.name, depth, values], vec![axis]), 1))
}

/// `TopK` of up to the whole of a known axis, largest or smallest (from
/// opset 11), sorted or not.
fn top_k(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let Some((axis, dim)) = g.known_axis(&x.shape)? else {
        return Ok(false);
    };
    let k = g.int(1, dim)?;
    let mut attributes = vec![int_attribute("axis", g.maybe_negative(axis, x.rank())?)];
    let mut inputs = vec![x.name];
    if schema.attribute("k").is_some() {
        attributes.push(int_attribute("k", k));
    } else {
        inputs.push(g.ints(b, &[k]));
    }
    for flag in ["largest", "sorted"] {
        if schema.attribute(flag).is_some() && g.chance(1, 3)? {
            attributes.push(int_attribute(flag, 0));
        }
    }
    Ok(g.add(b, node(schema, inputs, attributes), 2))
}

/// `TensorScatter` of an update no longer than the cache along the axis,
/// at write positions that keep it inside (`linear` mode) or anywhere
/// (`circular`).
fn tensor_scatter(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(cache) = g.input0(b, schema, Need::rank(2, 4).fixed())? else {
        return Ok(false);
    };
    let rank = cache.rank();
    let axis = 1 + g.index(rank - 1)?;
    let dims = cache.dims();
    let length = g.int(1, dims[axis])?;
    let mut update_shape: Vec<_> = cache.shape.clone();
    update_shape[axis] = length.into();
    let Some(update) = g.value_of(b, cache.elem, &update_shape)? else {
        return Ok(false);
    };
    let circular = g.u.arbitrary::<bool>()?;
    let mut inputs = vec![cache.name, update];
    if g.chance(2, 3)? {
        let last = if circular {
            dims[axis] - 1
        } else {
            dims[axis] - length
        };
        let positions = g.constant_in(b, ElementType::Int64, vec![dims[0]], 0.0, last as f64)?;
        inputs.push(positions);
    }
    let mut attributes = vec![int_attribute("axis", g.maybe_negative(axis, rank)?)];
    if circular {
        attributes.push(string_attribute("mode", "circular"));
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `NonMaxSuppression` of new boxes and scores (1 to 3 batches, classes and
/// boxes), the limits constants or left out.
fn non_max_suppression(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let [batches, classes, boxes] = [g.int(1, 3)?, g.int(1, 3)?, g.int(1, 3)?];
    let float = ElementType::Float;
    let box_shape = [batches.into(), boxes.into(), 4.into()];
    let Some(box_values) = g.value_of(b, float, &box_shape)? else {
        return Ok(false);
    };
    let score_shape = [batches.into(), classes.into(), boxes.into()];
    let Some(scores) = g.value_of(b, float, &score_shape)? else {
        return Ok(false);
    };
    let mut inputs = vec![box_values, scores];
    if g.chance(2, 3)? {
        let max_boxes = g.int(0, 3)?;
        inputs.push(g.ints(b, &[max_boxes]));
        if g.chance(2, 3)? {
            inputs.push(g.constant_in(b, float, vec![1], 0.0, 1.0)?);
            if g.chance(1, 2)? {
                inputs.push(g.constant_in(b, float, vec![1], -1.0, 1.0)?);
            }
        }
    }
    let center = int_attribute("center_point_box", i64::from(g.u.arbitrary::<bool>()?));
    Ok(g.add(b, node(schema, inputs, vec![center]), 1))
}

/// `NegativeLogLikelihoodLoss` and `SoftmaxCrossEntropyLoss` of `N × C
/// (× D ...)` scores and constant class labels of `N (× D ...)`, one
/// ignored sometimes, weights per class and a reduction sometimes;
/// `SoftmaxCrossEntropyLoss`'s log-probabilities sometimes.
fn loss(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(2, 4).fixed())? else {
        return Ok(false);
    };
    let dims = x.dims();
    let classes = dims[1];
    let label_dims: Vec<i64> = std::iter::once(dims[0])
        .chain(dims[2..].iter().copied())
        .collect();
    let elem = g.index_elem(schema, 1)?;
    let labels = g.constant_in(b, elem, label_dims, 0.0, (classes - 1) as f64)?;
    let mut inputs = vec![x.name, labels];
    if g.chance(1, 2)? {
        let Some(weights) = g.value_of(b, x.elem, &[classes.into()])? else {
            return Ok(false);
        };
        inputs.push(weights);
    }
    let mut attributes = Vec::new();
    if g.chance(1, 2)? {
        attributes.push(string_attribute(
            "reduction",
            g.pick(&["none", "sum", "mean"])?,
        ));
    }
    if g.chance(1, 4)? {
        attributes.push(int_attribute("ignore_index", g.int(0, classes - 1)?));
    }
    let outputs = g.int(1, schema.outputs().len() as i64)? as usize;
    Ok(g.add(b, node(schema, inputs, attributes), outputs))
}
