//! Sliding windows and image sampling: the convolutions (`Conv`,
//! `ConvTranspose`, `ConvInteger`, `QLinearConv`, `DeformConv`), the
//! poolings, `MaxUnpool`, `MaxRoiPool`, `RoiAlign`, `Col2Im`,
//! `GridSample`, `AffineGrid`. Inputs are `N × C × D1 ...` with known
//! channels and spatial dimensions; a window (kernel, strides, pads,
//! dilations) always fits at least once, its pads smaller than the kernel.

use arbitrary::Result;

use super::{
    int_attribute, ints_attribute, node, string_attribute, Builder, Need, Recipe, Tensor, Valid,
};
use crate::infer::{Dim, Type};
use crate::ops::Schema;
use crate::proto::AttributeProto;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("Conv", conv),
    ("ConvInteger", conv),
    ("QLinearConv", conv),
    ("ConvTranspose", conv_transpose),
    ("DeformConv", deform_conv),
    ("AveragePool", pool),
    ("MaxPool", pool),
    ("LpPool", pool),
    ("GlobalAveragePool", global_pool),
    ("GlobalMaxPool", global_pool),
    ("GlobalLpPool", global_pool),
    ("MaxUnpool", max_unpool),
    ("MaxRoiPool", max_roi_pool),
    ("RoiAlign", roi_align),
    ("Col2Im", col2im),
    ("GridSample", grid_sample),
    ("AffineGrid", affine_grid),
];

/// A window over the spatial dimensions of an input.
struct Window {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    /// Begins, then ends.
    pads: Vec<i64>,
    /// `SAME_UPPER`, `SAME_LOWER` or `VALID` instead of pads.
    auto_pad: Option<&'static str>,
}

impl Window {
    /// The output size along each spatial axis of an input of `spatial`
    /// (explicit pads).
    fn output(&self, spatial: &[i64]) -> Vec<i64> {
        let n = spatial.len();
        (0..n)
            .map(|i| {
                let padded = spatial[i] + self.pads[i] + self.pads[i + n];
                (padded - self.effective(i)) / self.strides[i] + 1
            })
            .collect()
    }

    /// The span of the dilated kernel along axis `i`.
    fn effective(&self, i: usize) -> i64 {
        (self.kernel[i] - 1) * self.dilations[i] + 1
    }

    /// The window's attributes: `kernel_shape` when `with_kernel`,
    /// `dilations` when `with_dilations`, the pads or `auto_pad`.
    fn attributes(&self, with_kernel: bool, with_dilations: bool) -> Vec<AttributeProto> {
        let mut attributes = vec![ints_attribute("strides", self.strides.clone())];
        if with_kernel {
            attributes.push(ints_attribute("kernel_shape", self.kernel.clone()));
        }
        if with_dilations {
            attributes.push(ints_attribute("dilations", self.dilations.clone()));
        }
        match self.auto_pad {
            Some(mode) => attributes.push(string_attribute("auto_pad", mode)),
            None => attributes.push(ints_attribute("pads", self.pads.clone())),
        }
        attributes
    }
}

impl Valid<'_, '_> {
    /// A window over `spatial` dimensions: kernels of up to 3 that fit,
    /// strides of 1 or 2, dilations of 1 or 2 where `dilated`, pads
    /// smaller than the kernel, or an `auto_pad` mode where `auto_pad`.
    fn window(&mut self, spatial: &[i64], dilated: bool, auto_pad: bool) -> Result<Window> {
        let n = spatial.len();
        let mut w = Window {
            kernel: Vec::with_capacity(n),
            strides: Vec::with_capacity(n),
            dilations: Vec::with_capacity(n),
            pads: vec![0; 2 * n],
            auto_pad: None,
        };
        for (i, &size) in spatial.iter().enumerate() {
            let dilation = if dilated && size > 2 && self.chance(1, 4)? {
                2
            } else {
                1
            };
            let kernel = self.int(1, ((size - 1) / dilation + 1).min(3))?;
            w.kernel.push(kernel);
            w.dilations.push(dilation);
            w.strides.push(self.int(1, 2)?);
            w.pads[i] = self.int(0, kernel - 1)?;
            w.pads[i + n] = self.int(0, kernel - 1)?;
        }
        if auto_pad && self.chance(1, 4)? {
            w.auto_pad = Some(self.pick(&["SAME_UPPER", "SAME_LOWER", "VALID"])?);
            w.pads.fill(0);
        }
        Ok(w)
    }

    /// An input of `N × C × D1 ...` (1 to 3 spatial dimensions, known but
    /// for N) among `elems`.
    fn image(
        &mut self,
        b: &mut Builder,
        elems: &[ElementType],
        max_spatial: usize,
    ) -> Result<Option<Tensor>> {
        let need = Need::rank(3, 2 + max_spatial).fixed_in(1, usize::MAX);
        self.operand(b, elems, need)
    }
}

/// The divisors of `n` up to 4.
fn small_divisors(n: i64) -> Vec<i64> {
    (1..=n.min(4)).filter(|d| n % d == 0).collect()
}

/// `Conv`, `ConvInteger` and `QLinearConv`: weights of `M × C/group × k
/// ...` (M a multiple of the group), a bias sometimes; the integer ones'
/// zero points and the quantized one's scales scalars, or per output
/// channel for `QLinearConv`'s weights.
fn conv(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.accepted(schema, 0);
    let Some(x) = g.image(b, &elems, 3)? else {
        return Ok(false);
    };
    let quantized = schema.name() == "QLinearConv";
    let w_index = if quantized { 3 } else { 1 };
    let Some(w_elem) = g.param_elem(schema, w_index, x.elem)? else {
        return Ok(false);
    };
    let dims = x.dims();
    let channels = dims[1];
    let group = g.pick(&small_divisors(channels))?;
    let out_channels = group * g.int(1, 2)?;
    let window = g.window(&dims[2..], true, true)?;
    let mut w_dims = vec![out_channels, channels / group];
    w_dims.extend(&window.kernel);
    let w_shape: Vec<Dim> = w_dims.iter().map(|&d| d.into()).collect();
    let Some(w) = g.value_of(b, w_elem, &w_shape)? else {
        return Ok(false);
    };
    let mut attributes = window.attributes(g.chance(1, 2)?, true);
    if group > 1 || g.chance(1, 4)? {
        attributes.push(int_attribute("group", group));
    }
    let inputs = match schema.name() {
        "QLinearConv" => {
            let y_elems = g.output_elems(schema, 0);
            let Ok(&y_elem) = g.u.choose(&y_elems) else {
                return Ok(false);
            };
            let per_channel = g.chance(1, 2)?.then_some(out_channels);
            let mut inputs = vec![
                x.name,
                g.scale(b, ElementType::Float, None)?,
                g.zero_point(b, x.elem, None)?,
                w,
                g.scale(b, ElementType::Float, per_channel)?,
                g.zero_point(b, w_elem, per_channel)?,
                g.scale(b, ElementType::Float, None)?,
                g.zero_point(b, y_elem, None)?,
            ];
            if g.chance(1, 2)? {
                inputs.push(g.constant_in(
                    b,
                    ElementType::Int32,
                    vec![out_channels],
                    -64.0,
                    64.0,
                )?);
            }
            inputs
        }
        "ConvInteger" => {
            let mut inputs = vec![x.name, w];
            if g.chance(1, 2)? {
                inputs.push(g.zero_point(b, x.elem, None)?);
                inputs.push(g.zero_point(b, w_elem, None)?);
            }
            inputs
        }
        _ => {
            let mut inputs = vec![x.name, w];
            if g.chance(1, 2)? {
                let Some(bias) = g.value_of(b, x.elem, &[out_channels.into()])? else {
                    return Ok(false);
                };
                inputs.push(bias);
            }
            inputs
        }
    };
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `ConvTranspose` with weights of `C × M/group × k ...`, output padding
/// below the stride or dilation, pads that leave an output.
fn conv_transpose(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.accepted(schema, 0);
    let Some(x) = g.image(b, &elems, 3)? else {
        return Ok(false);
    };
    let dims = x.dims();
    let channels = dims[1];
    let group = g.pick(&small_divisors(channels))?;
    let mut window = g.window(&dims[2..], true, false)?;
    let spatial = dims.len() - 2;
    let mut output_padding = Vec::with_capacity(spatial);
    for i in 0..spatial {
        let limit = window.strides[i].max(window.dilations[i]) - 1;
        output_padding.push(g.int(0, limit)?);
        // The output, stride × (size - 1) + padding + span - pads, stays
        // positive.
        let room =
            window.strides[i] * (dims[2 + i] - 1) + output_padding[i] + window.effective(i) - 1;
        while window.pads[i] + window.pads[i + spatial] > room {
            window.pads[i] = 0;
            window.pads[i + spatial] = window.pads[i + spatial].min(room);
        }
    }
    let mut w_dims = vec![channels, g.int(1, 2)?];
    w_dims.extend(&window.kernel);
    let w_shape: Vec<Dim> = w_dims.iter().map(|&d| d.into()).collect();
    let Some(w) = g.value_of(b, x.elem, &w_shape)? else {
        return Ok(false);
    };
    let mut attributes = window.attributes(g.chance(1, 2)?, true);
    attributes.push(ints_attribute("output_padding", output_padding));
    if group > 1 {
        attributes.push(int_attribute("group", group));
    }
    let mut inputs = vec![x.name, w];
    if g.chance(1, 2)? {
        let Some(bias) = g.value_of(b, x.elem, &[(w_dims[1] * group).into()])? else {
            return Ok(false);
        };
        inputs.push(bias);
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `DeformConv` of a 2-D image: offsets (and a mask, sometimes) of the
/// output's spatial size for each offset group's kernel positions, new
/// and finite (they are coordinates).
fn deform_conv(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(4, 4).fixed())? else {
        return Ok(false);
    };
    let dims = x.dims();
    let channels = dims[1];
    let group = g.pick(&small_divisors(channels))?;
    let offset_group = g.pick(&small_divisors(channels))?;
    let out_channels = group * g.int(1, 2)?;
    let window = g.window(&dims[2..], true, false)?;
    let out = window.output(&dims[2..]);
    let positions = window.kernel[0] * window.kernel[1];
    let shapes = [
        vec![
            out_channels,
            channels / group,
            window.kernel[0],
            window.kernel[1],
        ],
        vec![dims[0], offset_group * 2 * positions, out[0], out[1]],
    ];
    let w_shape: Vec<Dim> = shapes[0].iter().map(|&d| d.into()).collect();
    let offset_shape: Vec<Dim> = shapes[1].iter().map(|&d| d.into()).collect();
    let (Some(w), Some(offset)) = (
        g.value_of(b, x.elem, &w_shape)?,
        g.value_in(b, x.elem, &offset_shape, -2.0, 2.0)?,
    ) else {
        return Ok(false);
    };
    let mut inputs = vec![x.name, w, offset];
    if g.chance(1, 2)? {
        let Some(bias) = g.value_of(b, x.elem, &[out_channels.into()])? else {
            return Ok(false);
        };
        inputs.push(bias);
        if g.chance(1, 2)? {
            let mask = [dims[0], offset_group * positions, out[0], out[1]].map(Dim::Value);
            let Some(mask) = g.value_in(b, x.elem, &mask, 0.0, 1.0)? else {
                return Ok(false);
            };
            inputs.push(mask);
        }
    }
    let mut attributes = window.attributes(true, true);
    attributes.push(int_attribute("group", group));
    attributes.push(int_attribute("offset_group", offset_group));
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `AveragePool`, `MaxPool` (sometimes with its indices) and `LpPool`,
/// with the attributes their version has: dilations, `ceil_mode`,
/// `count_include_pad`, `p`, `storage_order`.
fn pool(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.accepted(schema, 0);
    let Some(x) = g.image(b, &elems, 3)? else {
        return Ok(false);
    };
    let dims = x.dims();
    let dilated = schema.attribute("dilations").is_some();
    let window = g.window(&dims[2..], dilated, true)?;
    let mut attributes = window.attributes(true, dilated);
    for (name, values) in [
        ("ceil_mode", 1),
        ("count_include_pad", 1),
        ("storage_order", 1),
        ("p", 3),
    ] {
        if schema.attribute(name).is_some() && g.chance(1, 3)? {
            attributes.push(int_attribute(name, g.int(1, values)?));
        }
    }
    let outputs = if schema.outputs().len() > 1 && g.chance(1, 3)? {
        2
    } else {
        1
    };
    Ok(g.add(b, node(schema, vec![x.name], attributes), outputs))
}

/// The global poolings, `GlobalLpPool`'s `p` sometimes set.
fn global_pool(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(3))? else {
        return Ok(false);
    };
    let mut attributes = Vec::new();
    if schema.attribute("p").is_some() && g.chance(1, 2)? {
        attributes.push(int_attribute("p", g.int(1, 3)?));
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// `MaxUnpool` of a `MaxPool`'s output and indices (the pooling added
/// first, with the same window) to the pooled input's shape, which the
/// indices point into (the shape the window gives back may be smaller).
fn max_unpool(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(max_pool) = g.schema("MaxPool").filter(|s| s.outputs().len() > 1) else {
        return Ok(false);
    };
    let pooled = g.accepted(max_pool, 0);
    let elems: Vec<ElementType> = g
        .accepted(schema, 0)
        .into_iter()
        .filter(|e| pooled.contains(e))
        .collect();
    let Some(x) = g.operand(b, &elems, Need::rank(3, 5).fixed())? else {
        return Ok(false);
    };
    let dims = x.dims();
    let window = g.window(&dims[2..], false, false)?;
    let attributes = window.attributes(true, false);
    let pooled = node(max_pool, vec![x.name], attributes.clone());
    if !g.add(b, pooled, 2) {
        return Ok(false);
    }
    let mut inputs = b.nodes[b.nodes.len() - 1].output.clone();
    inputs.push(g.ints(b, &dims));
    // onnx's inference leaves the shape to the runtime; it is the input's.
    let unpooled = Type::tensor(x.elem.data_type() as i32, x.shape);
    Ok(g.add_known(b, node(schema, inputs, attributes), 1, &[unpooled]))
}

/// Up to 3 boxes inside a `height × width` image: `[x1, y1, x2, y2]`
/// each, after a batch index below `batch` where `batch` is given.
fn boxes(
    g: &mut Valid<'_, '_>,
    height: i64,
    width: i64,
    batch: Option<i64>,
) -> Result<Vec<Vec<f64>>> {
    let count = g.int(1, 3)?;
    let mut boxes = Vec::new();
    for _ in 0..count {
        let mut row = Vec::new();
        if let Some(batch) = batch {
            row.push(g.int(0, batch - 1)? as f64);
        }
        let (x1, y1) = (g.int(0, width - 1)?, g.int(0, height - 1)?);
        let (x2, y2) = (g.int(x1, width - 1)?, g.int(y1, height - 1)?);
        row.extend([x1, y1, x2, y2].map(|v| v as f64));
        boxes.push(row);
    }
    Ok(boxes)
}

/// `MaxRoiPool` of boxes (with their batch index) inside the image.
fn max_roi_pool(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(4, 4).fixed())? else {
        return Ok(false);
    };
    let dims = x.dims();
    let rois = boxes(g, dims[2], dims[3], Some(dims[0]))?;
    let count = rois.len() as i64;
    let values: Vec<f64> = rois.concat();
    let rois = g.constant(b, x.elem, vec![count, 5], &values);
    let pooled = ints_attribute("pooled_shape", vec![g.int(1, 3)?, g.int(1, 3)?]);
    Ok(g.add(b, node(schema, vec![x.name, rois], vec![pooled]), 1))
}

/// `RoiAlign` of boxes inside the image and their batch indices, the mode
/// and output size drawn.
fn roi_align(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(4, 4).fixed())? else {
        return Ok(false);
    };
    let dims = x.dims();
    let rois = boxes(g, dims[2], dims[3], None)?;
    let count = rois.len() as i64;
    let values: Vec<f64> = rois.concat();
    let rois = g.constant(b, x.elem, vec![count, 4], &values);
    let indices = g.constant_in(
        b,
        ElementType::Int64,
        vec![count],
        0.0,
        (dims[0] - 1) as f64,
    )?;
    let mut attributes = vec![
        int_attribute("output_height", g.int(1, 3)?),
        int_attribute("output_width", g.int(1, 3)?),
        int_attribute("sampling_ratio", g.int(0, 2)?),
        string_attribute("mode", g.pick(&["avg", "max"])?),
    ];
    if schema.attribute("coordinate_transformation_mode").is_some() {
        let mode = g.pick(&["half_pixel", "output_half_pixel"])?;
        attributes.push(string_attribute("coordinate_transformation_mode", mode));
    }
    Ok(g.add(b, node(schema, vec![x.name, rois, indices], attributes), 1))
}

/// `Col2Im` of a new `N × C·∏block × L` input into a 2-D image, `L` the
/// number of blocks the window fits.
fn col2im(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    // Numbers only: the blocks are summed.
    let elems = g.accepted_where(schema, 0, |e| e.is_number());
    let Ok(&elem) = g.u.choose(&elems) else {
        return Ok(false);
    };
    let image = [g.int(1, g.config.max_dim)?, g.int(1, g.config.max_dim)?];
    let window = g.window(&image, true, false)?;
    let blocks: i64 = window.output(&image).iter().product();
    let (batch, channels) = (g.int(1, 2)?, g.int(1, 2)?);
    let shape = [
        batch,
        channels * window.kernel[0] * window.kernel[1],
        blocks,
    ]
    .map(Dim::Value);
    let Some(x) = g.value_of(b, elem, &shape)? else {
        return Ok(false);
    };
    let image_shape = g.ints(b, &image);
    let block_shape = g.ints(b, &window.kernel);
    let attributes = vec![
        ints_attribute("dilations", window.dilations),
        ints_attribute("pads", window.pads),
        ints_attribute("strides", window.strides),
    ];
    Ok(g.add(
        b,
        node(schema, vec![x, image_shape, block_shape], attributes),
        1,
    ))
}

/// `GridSample` of a 2-D image by a new grid (finite coordinates) of its
/// batch size, the modes drawn (their names changed in opset 20).
fn grid_sample(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    // Numbers only: the samples are interpolated.
    let elems = g.accepted_where(schema, 0, |e| e.is_number());
    let Some(x) = g.operand(b, &elems, Need::rank(4, 4))? else {
        return Ok(false);
    };
    let grid_elems = g.accepted(schema, 1);
    let Ok(&grid_elem) = g.u.choose(&grid_elems) else {
        return Ok(false);
    };
    let grid_shape = [x.shape[0].clone(), g.dim()?, g.dim()?, Dim::Value(2)];
    let Some(grid) = g.value_in(b, grid_elem, &grid_shape, -1.5, 1.5)? else {
        return Ok(false);
    };
    let modes = if schema.since_version() >= 20 {
        ["linear", "nearest", "cubic"]
    } else {
        ["bilinear", "nearest", "bicubic"]
    };
    let attributes = vec![
        string_attribute("mode", g.pick(&modes)?),
        string_attribute("padding_mode", g.pick(&["zeros", "border", "reflection"])?),
        int_attribute("align_corners", i64::from(g.u.arbitrary::<bool>()?)),
    ];
    Ok(g.add(b, node(schema, vec![x.name, grid], attributes), 1))
}

/// `AffineGrid` of new 2-D or 3-D transforms to a constant size.
fn affine_grid(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(elem) = g.accepted_elem(schema, 0)? else {
        return Ok(false);
    };
    let spatial = g.int(2, 3)?;
    let batch = g.int(1, 2)?;
    let theta_shape = [batch, spatial, spatial + 1].map(Dim::Value);
    let Some(theta) = g.value_of(b, elem, &theta_shape)? else {
        return Ok(false);
    };
    let mut size = vec![batch, g.int(1, 3)?];
    for _ in 0..spatial {
        size.push(g.int(1, g.config.max_dim)?);
    }
    let size = g.ints(b, &size);
    let align = int_attribute("align_corners", i64::from(g.u.arbitrary::<bool>()?));
    Ok(g.add(b, node(schema, vec![theta, size], vec![align]), 1))
}
