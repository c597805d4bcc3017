//! Operators that move, cut, grow or describe a tensor's shape:
//! `Reshape`, `Transpose`, `Concat`, `Slice`, `Split`, `Pad`, `Resize`,
//! `Shape`, `NonZero`, `Unique`, ... Their constant operands (target
//! shapes, starts and ends, pads, sizes) fit the operand's dimensions.

use arbitrary::Result;

use super::{
    float_attribute, int_attribute, ints_attribute, node, string_attribute, tensor_attribute,
    Builder, Need, Recipe, Valid,
};
use crate::infer::Dim;
use crate::ops::Schema;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("Shape", shape),
    ("Size", |g, b, schema| {
        let x = g.input0(b, schema, Need::ANY.or_empty())?;
        g.of_one(b, schema, x.map(|x| x.name))
    }),
    ("Transpose", transpose),
    ("Flatten", flatten),
    ("Concat", concat),
    ("Reshape", reshape),
    ("Expand", expand),
    ("Tile", tile),
    ("Squeeze", squeeze),
    ("Unsqueeze", unsqueeze),
    ("Slice", slice),
    ("Split", split),
    ("Pad", pad),
    ("CenterCropPad", center_crop_pad),
    ("Resize", resize),
    ("DepthToSpace", depth_to_space),
    ("SpaceToDepth", space_to_depth),
    ("ConstantOfShape", constant_of_shape),
    ("Range", range),
    ("EyeLike", eye_like),
    ("Trilu", trilu),
    ("Compress", compress),
    ("NonZero", |g, b, schema| {
        let x = g.input0(b, schema, Need::ANY.min_rank(1))?;
        g.of_one(b, schema, x.map(|x| x.name))
    }),
    ("Unique", unique),
    ("ReverseSequence", reverse_sequence),
];

/// `Shape`, sometimes of a part (`start`, `end`, from opset 15).
fn shape(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.or_empty())? else {
        return Ok(false);
    };
    let mut attributes = Vec::new();
    if schema.attribute("start").is_some() && g.chance(1, 3)? {
        let rank = x.rank() as i64;
        attributes.push(int_attribute("start", g.int(-rank, rank)?));
        if g.chance(1, 2)? {
            attributes.push(int_attribute("end", g.int(-rank, rank)?));
        }
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// `Transpose` by a random permutation, or by default (reversed).
fn transpose(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let mut attributes = Vec::new();
    if g.chance(3, 4)? {
        let perm = g.permutation(x.rank())?;
        attributes.push(ints_attribute("perm", perm));
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

impl Valid<'_, '_> {
    /// A random permutation of `0..len`.
    pub(super) fn permutation(&mut self, len: usize) -> Result<Vec<i64>> {
        let mut perm: Vec<i64> = (0..len as i64).collect();
        for i in (1..len).rev() {
            let j = self.index(i + 1)?;
            perm.swap(i, j);
        }
        Ok(perm)
    }
}

/// `Flatten` at an axis from 0 to the rank.
fn flatten(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let axis = g.index(x.rank() + 1)?;
    let axis = int_attribute("axis", g.maybe_negative(axis, x.rank())?);
    Ok(g.add(b, node(schema, vec![x.name], vec![axis]), 1))
}

/// `Concat` of up to three tensors, the same but along the axis.
fn concat(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(1, usize::MAX))? else {
        return Ok(false);
    };
    let axis = g.index(x.rank())?;
    let mut inputs = vec![x.name.clone()];
    for _ in 0..g.int(0, 2)? {
        let mut shape = x.shape.clone();
        shape[axis] = Dim::Value(g.int(1, g.config.max_dim)?);
        let Some(y) = g.value_of(b, x.elem, &shape)? else {
            return Ok(false);
        };
        inputs.push(y);
    }
    let axis = int_attribute("axis", g.maybe_negative(axis, x.rank())?);
    Ok(g.add(b, node(schema, inputs, vec![axis]), 1))
}

/// `Reshape` to a constant shape of as many elements: all in one
/// dimension (sometimes `-1`), the dimensions reversed, a leading 1 added,
/// or a dimension kept with `0`.
fn reshape(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.fixed())? else {
        return Ok(false);
    };
    let dims = x.dims();
    let target: Vec<i64> = match g.int(0, 3)? {
        0 => vec![if g.chance(1, 2)? {
            -1
        } else {
            dims.iter().product()
        }],
        1 => dims.iter().rev().copied().collect(),
        2 => std::iter::once(1).chain(dims.iter().copied()).collect(),
        _ => {
            let mut target = dims.clone();
            if let Some(first) = target.first_mut() {
                *first = 0;
            }
            target
        }
    };
    let shape = g.ints(b, &target);
    Ok(g.add(b, node(schema, vec![x.name, shape], Vec::new()), 1))
}

/// `Expand` to a shape with a new leading dimension, dimensions of 1
/// sometimes grown.
fn expand(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let max_dim = g.config.max_dim.max(1);
    let mut target = vec![g.int(1, max_dim)?];
    for d in &x.shape {
        let grow = d.is(1) && g.chance(1, 2)?;
        target.push(if grow { g.int(1, max_dim)? } else { 1 });
    }
    let shape = g.ints(b, &target);
    Ok(g.add(b, node(schema, vec![x.name, shape], Vec::new()), 1))
}

/// `Tile` with repeats of 1 or 2.
fn tile(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let mut repeats = Vec::with_capacity(x.rank());
    for _ in 0..x.rank() {
        repeats.push(g.int(1, 2)?);
    }
    let repeats = g.ints(b, &repeats);
    Ok(g.add(b, node(schema, vec![x.name, repeats], Vec::new()), 1))
}

impl Valid<'_, '_> {
    /// `axes` as the schema takes them: an attribute (older versions) or
    /// a constant input.
    fn axes_operand(
        &mut self,
        b: &mut Builder,
        schema: &'static Schema,
        axes: Vec<i64>,
        inputs: &mut Vec<String>,
        attributes: &mut Vec<crate::proto::AttributeProto>,
    ) {
        if schema.attribute("axes").is_some() {
            attributes.push(ints_attribute("axes", axes));
        } else {
            inputs.push(self.ints(b, &axes));
        }
    }
}

/// `Squeeze` of some of the dimensions known to be 1.
fn squeeze(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.accepted(schema, 0);
    let need = Need::ANY.min_rank(1).with_unit_dim();
    let Some(x) = g.operand(b, &elems, need)? else {
        return Ok(false);
    };
    let mut axes = Vec::new();
    for (i, d) in x.shape.iter().enumerate() {
        if d.is(1) && (axes.is_empty() || g.chance(1, 2)?) {
            axes.push(g.maybe_negative(i, x.rank())?);
        }
    }
    let (mut inputs, mut attributes) = (vec![x.name], Vec::new());
    g.axes_operand(b, schema, axes, &mut inputs, &mut attributes);
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `Unsqueeze` adding one or two dimensions anywhere.
fn unsqueeze(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let added = g.int(1, 2)? as usize;
    let rank = x.rank() + added;
    let mut axes: Vec<usize> = (0..rank).collect();
    while axes.len() > added {
        let drop = g.index(axes.len())?;
        axes.remove(drop);
    }
    let axes = axes
        .into_iter()
        .map(|axis| g.maybe_negative(axis, rank))
        .collect::<Result<_>>()?;
    let (mut inputs, mut attributes) = (vec![x.name], Vec::new());
    g.axes_operand(b, schema, axes, &mut inputs, &mut attributes);
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `Slice` of some known dimensions: a start inside, a nonempty end, a
/// step of 1 or 2 (sometimes -1 from the end); attributes before opset
/// 10, inputs from then on (axes and steps sometimes left out).
fn slice(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let known: Vec<(usize, i64)> = x
        .shape
        .iter()
        .enumerate()
        .filter_map(|(i, d)| Some((i, d.value()?)))
        .collect();
    if known.is_empty() {
        return Ok(false);
    }
    let with_steps = schema.inputs().len() == 5;
    let (mut starts, mut ends, mut axes, mut steps) = (vec![], vec![], vec![], vec![]);
    for (axis, dim) in known {
        if !axes.is_empty() && g.chance(1, 2)? {
            continue;
        }
        let start = g.int(0, dim - 1)?;
        let (start, end, step) = if with_steps && g.chance(1, 4)? {
            // Backwards from `start` to the beginning.
            (start, -dim - 1, -1)
        } else {
            let end = g.int(start + 1, dim)?;
            let end = if end == dim && g.chance(1, 3)? {
                i64::MAX
            } else {
                end
            };
            (start, end, if with_steps { g.int(1, 2)? } else { 1 })
        };
        starts.push(start);
        ends.push(end);
        axes.push(g.maybe_negative(axis, x.rank())?);
        steps.push(step);
    }
    let mut inputs = vec![x.name];
    let mut attributes = Vec::new();
    if schema.attribute("starts").is_some() {
        attributes.push(ints_attribute("starts", starts));
        attributes.push(ints_attribute("ends", ends));
        attributes.push(ints_attribute("axes", axes));
    } else {
        let leading = axes.iter().enumerate().all(|(i, &a)| a == i as i64);
        let unit_steps = steps.iter().all(|&s| s == 1);
        inputs.push(g.ints(b, &starts));
        inputs.push(g.ints(b, &ends));
        // Axes may be left out when they are the leading ones, and steps
        // when all are 1.
        let keep_steps = with_steps && (!unit_steps || g.chance(1, 2)?);
        if keep_steps || !leading || g.chance(1, 2)? {
            inputs.push(g.ints(b, &axes));
            if keep_steps {
                inputs.push(g.ints(b, &steps));
            }
        }
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `Split` of a known dimension into up to three parts: equal ones
/// (`split` left out, or `num_outputs` from opset 18) or given sizes.
fn split(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let Some((axis, dim)) = g.known_axis(&x.shape)? else {
        return Ok(false);
    };
    let parts = g.int(1, dim.min(3))?;
    let mut attributes = vec![int_attribute("axis", g.maybe_negative(axis, x.rank())?)];
    let mut inputs = vec![x.name];
    if dim % parts == 0 && g.chance(1, 2)? {
        if schema.attribute("num_outputs").is_some() {
            attributes.push(int_attribute("num_outputs", parts));
        }
    } else {
        let sizes = g.partition(dim, parts)?;
        if schema.attribute("split").is_some() {
            attributes.push(ints_attribute("split", sizes));
        } else {
            inputs.push(g.ints(b, &sizes));
        }
    }
    Ok(g.add(b, node(schema, inputs, attributes), parts as usize))
}

/// `Pad` of some dimensions: in `constant` mode by up to 2 each side
/// (sometimes cutting 1 off), with a constant value sometimes; in `edge`,
/// `reflect` and `wrap` (from opset 19) modes by less than the known
/// dimension. Pads an attribute before opset 11, axes an input from 18.
fn pad(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let mut modes = vec!["constant", "edge", "reflect"];
    if schema.since_version() >= 19 {
        modes.push("wrap");
    }
    let mode = g.pick(&modes)?;
    let rank = x.rank();
    let with_axes = schema.inputs().len() == 4 && g.chance(1, 3)?;
    let axes: Vec<usize> = if with_axes {
        let axes = g.axes(rank)?;
        axes.iter()
            .map(|&a| a.rem_euclid(rank as i64) as usize)
            .collect()
    } else {
        (0..rank).collect()
    };
    let mut begins = Vec::with_capacity(axes.len());
    let mut ends = Vec::with_capacity(axes.len());
    for &axis in &axes {
        let dim = x.shape[axis].value();
        for side in [&mut begins, &mut ends] {
            let pad = match (mode, dim) {
                ("constant", Some(d)) if d > 2 && g.chance(1, 6)? => -1,
                ("constant", _) => g.int(0, 2)?,
                (_, Some(d)) => g.int(0, (d - 1).min(2))?,
                (_, None) => 0,
            };
            side.push(pad);
        }
    }
    let pads: Vec<i64> = begins.into_iter().chain(ends).collect();
    let mut inputs = vec![x.name.clone()];
    let mut attributes = vec![string_attribute("mode", mode)];
    if schema.attribute("pads").is_some() {
        attributes.push(ints_attribute("pads", pads));
        if mode == "constant" && g.chance(1, 2)? {
            attributes.push(float_attribute("value", g.int(-4, 4)? as f32));
        }
    } else {
        inputs.push(g.ints(b, &pads));
        let value = mode == "constant" && x.elem != ElementType::String && g.chance(1, 2)?;
        if value || with_axes {
            inputs.push(if value {
                let v = g.int(0, 4)? as f64;
                g.constant(b, x.elem, Vec::new(), &[v])
            } else {
                String::new()
            });
        }
        if with_axes {
            let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
            inputs.push(g.ints(b, &axes));
        }
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `CenterCropPad` to a shape of small dimensions, of all axes or some
/// (`axes`).
fn center_crop_pad(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(1, usize::MAX))? else {
        return Ok(false);
    };
    let mut attributes = Vec::new();
    let count = if g.chance(1, 2)? {
        let axes = g.axes(x.rank())?;
        let count = axes.len();
        attributes.push(ints_attribute("axes", axes));
        count
    } else {
        x.rank()
    };
    let mut sizes = Vec::with_capacity(count);
    for _ in 0..count {
        sizes.push(g.int(1, g.config.max_dim)?);
    }
    let shape = g.ints(b, &sizes);
    Ok(g.add(b, node(schema, vec![x.name, shape], attributes), 1))
}

/// `Resize` of the dimensions after the first two (all of a tensor of
/// rank 1 or 2 in `nearest` mode) by scales or to sizes: opset 10's
/// `(X, scales)`, and from 13 on `(X, "", scales)` or `(X, "", "",
/// sizes)` with a mode and coordinate transformation drawn.
fn resize(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    // Opset 11's version needs `roi` and `scales` even with sizes.
    if schema.since_version() == 11 {
        return Ok(false);
    }
    // Numbers only: resizing booleans or strings means nothing.
    let elems = g.accepted_where(schema, 0, |e| e.is_number());
    let Some(x) = g.operand(b, &elems, Need::rank(1, usize::MAX))? else {
        return Ok(false);
    };
    let rank = x.rank();
    let first_resized = if rank > 2 { 2 } else { 0 };
    let modes: &[&str] = if first_resized == 0 {
        &["nearest"]
    } else {
        &["nearest", "linear", "cubic"]
    };
    let mode = g.pick(modes)?;
    let by_sizes = schema.since_version() >= 13 && g.chance(1, 2)?;
    let mut scales = vec![1.0; rank];
    let mut sizes = x.dims();
    for i in first_resized..rank {
        if by_sizes {
            sizes[i] = g.int(1, g.config.max_dim)?;
        } else {
            scales[i] = g.pick(&[1.0, 2.0, 1.5, 3.0])?;
        }
    }
    let mut attributes = vec![string_attribute("mode", mode)];
    let mut inputs = vec![x.name];
    if schema.since_version() == 10 {
        inputs.push(g.constant(b, ElementType::Float, vec![rank as i64], &scales));
    } else {
        let transforms = [
            "half_pixel",
            "asymmetric",
            "align_corners",
            "pytorch_half_pixel",
        ];
        let transform = g.pick(&transforms)?;
        attributes.push(string_attribute(
            "coordinate_transformation_mode",
            transform,
        ));
        if mode == "nearest" {
            let rounding = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"];
            attributes.push(string_attribute("nearest_mode", g.pick(&rounding)?));
        }
        inputs.push(String::new());
        if by_sizes {
            inputs.push(String::new());
            let sizes_dims = vec![rank as i64];
            let values: Vec<f64> = sizes.iter().map(|&s| s as f64).collect();
            inputs.push(g.constant(b, ElementType::Int64, sizes_dims, &values));
        } else {
            inputs.push(g.constant(b, ElementType::Float, vec![rank as i64], &scales));
        }
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `DepthToSpace` with a block size whose square divides the channels
/// (1 when no other does), `DCR` or `CRD` mode (from opset 11).
fn depth_to_space(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.accepted(schema, 0);
    let need = Need::rank(4, 4).fixed_in(1, 2);
    let Some(x) = g.operand(b, &elems, need)? else {
        return Ok(false);
    };
    let channels = x.dims()[1];
    let sizes: Vec<i64> = (1..=3).filter(|s| channels % (s * s) == 0).collect();
    let size = g.pick(&sizes)?;
    let mut attributes = vec![int_attribute("blocksize", size)];
    if schema.attribute("mode").is_some() {
        attributes.push(string_attribute("mode", g.pick(&["DCR", "CRD"])?));
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// `SpaceToDepth` with a block size dividing height and width.
fn space_to_depth(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.accepted(schema, 0);
    let need = Need::rank(4, 4).fixed_in(2, 4);
    let Some(x) = g.operand(b, &elems, need)? else {
        return Ok(false);
    };
    let dims = x.dims();
    let sizes: Vec<i64> = (1..=3)
        .filter(|s| dims[2] % s == 0 && dims[3] % s == 0)
        .collect();
    let size = g.pick(&sizes)?;
    let attributes = vec![int_attribute("blocksize", size)];
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// `ConstantOfShape` of a constant shape, its value a random one of an
/// element type of the config (or left out: float zeros).
fn constant_of_shape(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let rank = g.int(0, g.config.max_rank.min(4) as i64)? as usize;
    let mut dims = Vec::with_capacity(rank);
    for _ in 0..rank {
        dims.push(g.int(1, g.config.max_dim)?);
    }
    let shape = g.ints(b, &dims);
    let mut attributes = Vec::new();
    let elems = g.output_elems(schema, 0);
    if let Ok(&elem) = g.u.choose(&elems) {
        if elem != ElementType::Float || g.chance(1, 2)? {
            let value = g.random_tensor(None, elem, vec![1])?;
            attributes.push(tensor_attribute("value", value));
        }
    }
    Ok(g.add(b, node(schema, vec![shape], attributes), 1))
}

/// `Range` of up to 8 values from constant scalars.
fn range(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.output_elems(schema, 0);
    let Ok(&elem) = g.u.choose(&elems) else {
        return Ok(false);
    };
    let start = g.int(-4, 4)? as f64;
    let magnitude = if elem.is_float() {
        g.pick(&[0.5, 1.0, 2.0])?
    } else {
        g.int(1, 3)? as f64
    };
    let delta = if g.chance(1, 4)? {
        -magnitude
    } else {
        magnitude
    };
    let limit = start + delta * g.int(0, 8)? as f64;
    let inputs = [start, limit, delta]
        .iter()
        .map(|&v| g.constant(b, elem, Vec::new(), &[v]))
        .collect();
    Ok(g.add(b, node(schema, inputs, Vec::new()), 1))
}

/// `EyeLike` of a 2-D tensor, its diagonal shifted by `k`, sometimes of
/// another element type.
fn eye_like(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(2, 2))? else {
        return Ok(false);
    };
    let mut attributes = Vec::new();
    if g.chance(1, 2)? {
        let max = g.config.max_dim;
        attributes.push(int_attribute("k", g.int(-max, max)?));
    }
    let targets = g.output_elems(schema, 0);
    if let (true, Ok(&dtype)) = (g.chance(1, 2)?, g.u.choose(&targets)) {
        attributes.push(int_attribute("dtype", dtype.data_type() as i64));
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// `Trilu`, upper or lower, sometimes shifted by `k`.
fn trilu(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(2))? else {
        return Ok(false);
    };
    let mut inputs = vec![x.name];
    if g.chance(1, 2)? {
        let max = g.config.max_dim;
        let k = g.int(-max, max)?;
        inputs.push(g.int_scalar(b, k));
    }
    let upper = int_attribute("upper", i64::from(g.u.arbitrary::<bool>()?));
    Ok(g.add(b, node(schema, inputs, vec![upper]), 1))
}

/// `Compress` by a constant condition no longer than the axis (or the
/// flattened tensor, without one).
fn compress(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1).fixed())? else {
        return Ok(false);
    };
    let dims = x.dims();
    let mut attributes = Vec::new();
    let limit = if g.chance(2, 3)? {
        let axis = g.index(x.rank())?;
        attributes.push(int_attribute("axis", g.maybe_negative(axis, x.rank())?));
        dims[axis]
    } else {
        dims.iter().product()
    };
    let len = g.int(1, limit)?;
    let cond = g.constant_in(b, ElementType::Bool, vec![len], 0.0, 1.0)?;
    Ok(g.add(b, node(schema, vec![x.name, cond], attributes), 1))
}

/// `Unique` of the flattened tensor or along an axis, sorted or not, with
/// up to all four outputs.
fn unique(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let mut attributes = vec![int_attribute("sorted", i64::from(g.u.arbitrary::<bool>()?))];
    if g.chance(1, 2)? {
        let axis = g.axis(x.rank())?;
        attributes.push(int_attribute("axis", axis));
    }
    let outputs = g.int(1, 4)? as usize;
    Ok(g.add(b, node(schema, vec![x.name], attributes), outputs))
}

/// `ReverseSequence` over time and batch axes 0 and 1 (either way), the
/// lengths constants from 1 to the time dimension.
fn reverse_sequence(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let elems = g.accepted(schema, 0);
    let need = Need::rank(2, usize::MAX).fixed_in(0, 2);
    let Some(x) = g.operand(b, &elems, need)? else {
        return Ok(false);
    };
    let time_axis = g.index(2)?;
    let batch_axis = 1 - time_axis;
    let dims = x.dims();
    let lens = (0..dims[batch_axis])
        .map(|_| Ok(g.int(1, dims[time_axis])? as f64))
        .collect::<Result<Vec<f64>>>()?;
    let lens = g.constant(b, ElementType::Int64, vec![dims[batch_axis]], &lens);
    let attributes = vec![
        int_attribute("time_axis", time_axis as i64),
        int_attribute("batch_axis", batch_axis as i64),
    ];
    Ok(g.add(b, node(schema, vec![x.name, lens], attributes), 1))
}
