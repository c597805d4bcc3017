//! Products and quantization: `MatMul`, `Gemm`, `Einsum`, `Det`, the
//! integer and quantized products, `QuantizeLinear`,
//! `DequantizeLinear`, `DynamicQuantizeLinear`. Scales are positive
//! constants and zero points constants of the quantized type.

use arbitrary::Result;

use super::{float_attribute, int_attribute, node, string_attribute, Builder, Need, Recipe, Valid};
use crate::infer::Dim;
use crate::ops::Schema;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("MatMul", matmul),
    ("Gemm", gemm),
    ("Einsum", einsum),
    ("Det", det),
    ("MatMulInteger", matmul_integer),
    ("QLinearMatMul", qlinear_matmul),
    ("QuantizeLinear", quantize_linear),
    ("DequantizeLinear", dequantize_linear),
    ("DynamicQuantizeLinear", dynamic_quantize_linear),
];

impl Valid<'_, '_> {
    /// A new dimension of up to the config's largest.
    pub(super) fn dim(&mut self) -> Result<Dim> {
        Ok(Dim::Value(self.int(1, self.config.max_dim)?))
    }

    /// The shape of the right operand of a product whose left one has
    /// `left`: `[k]`, `[k, n]`, or that after batch dimensions that
    /// broadcast to the left one's.
    fn right_operand_shape(&mut self, left: &[Dim]) -> Result<Vec<Dim>> {
        let k = left[left.len() - 1].clone();
        if self.chance(1, 5)? {
            return Ok(vec![k]);
        }
        let mut shape = if left.len() > 2 && self.chance(1, 2)? {
            self.broadcast_shape(&left[..left.len() - 2])?
        } else {
            Vec::new()
        };
        shape.push(k);
        shape.push(self.dim()?);
        Ok(shape)
    }

    /// A positive scale: a scalar of `elem`, or per `axis` values where
    /// `per_axis` has the dimension.
    pub(super) fn scale(
        &mut self,
        b: &mut Builder,
        elem: ElementType,
        per_axis: Option<i64>,
    ) -> Result<String> {
        let dims = per_axis.map_or_else(Vec::new, |d| vec![d]);
        let (low, high) = if elem.is_float() {
            (0.01, 1.0)
        } else {
            (1.0, 3.0)
        };
        self.constant_in(b, elem, dims, low, high)
    }

    /// A zero point of `elem`: a scalar, or per axis values where `per_axis`
    /// has the dimension.
    pub(super) fn zero_point(
        &mut self,
        b: &mut Builder,
        elem: ElementType,
        per_axis: Option<i64>,
    ) -> Result<String> {
        let dims = per_axis.map_or_else(Vec::new, |d| vec![d]);
        let (low, high) = match elem {
            ElementType::Int8 => (-128.0, 127.0),
            ElementType::Int16 => (-32768.0, 32767.0),
            ElementType::Uint16 => (0.0, 65535.0),
            ElementType::Uint8 => (0.0, 255.0),
            _ => (0.0, 0.0),
        };
        self.constant_in(b, elem, dims, low, high)
    }
}

/// `MatMul` of a tensor of rank 1 or more and a new or chosen right operand.
fn matmul(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(1, usize::MAX))? else {
        return Ok(false);
    };
    let shape = g.right_operand_shape(&x.shape)?;
    let Some(w) = g.value_of(b, x.elem, &shape)? else {
        return Ok(false);
    };
    Ok(g.add(b, node(schema, vec![x.name, w], Vec::new()), 1))
}

/// `Gemm` of a matrix, sometimes transposed, and a new one, with a bias
/// that broadcasts to the result (required before opset 11), `alpha` and
/// `beta` sometimes set.
fn gemm(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(a) = g.input0(b, schema, Need::rank(2, 2))? else {
        return Ok(false);
    };
    let trans_a = g.u.arbitrary::<bool>()?;
    let (m, k) = if trans_a {
        (a.shape[1].clone(), a.shape[0].clone())
    } else {
        (a.shape[0].clone(), a.shape[1].clone())
    };
    let n = g.dim()?;
    let trans_b = g.u.arbitrary::<bool>()?;
    let b_shape = if trans_b {
        [n.clone(), k]
    } else {
        [k, n.clone()]
    };
    let Some(right) = g.value_of(b, a.elem, &b_shape)? else {
        return Ok(false);
    };
    let mut inputs = vec![a.name, right];
    if schema.min_inputs() > 2 || g.chance(1, 2)? {
        let one = Dim::Value(1);
        let c_shapes = [
            vec![],
            vec![n.clone()],
            vec![one.clone(), n.clone()],
            vec![m.clone(), one],
            vec![m, n],
        ];
        let c_shape = c_shapes[g.index(c_shapes.len())?].clone();
        let Some(c) = g.value_of(b, a.elem, &c_shape)? else {
            return Ok(false);
        };
        inputs.push(c);
    }
    let mut attributes = vec![
        int_attribute("transA", i64::from(trans_a)),
        int_attribute("transB", i64::from(trans_b)),
    ];
    for name in ["alpha", "beta"] {
        if g.chance(1, 3)? {
            attributes.push(float_attribute(name, g.int(-8, 8)? as f32 / 4.0));
        }
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `Einsum` of one operand (a permutation, summing some axes away) or two
/// (sharing some axes, each with axes of its own), the output's axes any
/// of theirs in any order.
fn einsum(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(1, 4))? else {
        return Ok(false);
    };
    let letters: Vec<char> = ('a'..).take(x.rank()).collect();
    // Each axis letter with its dimension.
    let mut axes: Vec<(char, Dim)> = letters.iter().copied().zip(x.shape.clone()).collect();
    let mut terms = vec![letters.iter().collect::<String>()];
    let mut inputs = vec![x.name.clone()];
    if g.chance(1, 2)? {
        let mut y_axes = Vec::new();
        for (letter, dim) in &axes {
            if g.chance(1, 2)? {
                y_axes.push((*letter, dim.clone()));
            }
        }
        for letter in ('a'..).skip(x.rank()).take(g.int(0, 2)? as usize) {
            let dim = g.dim()?;
            y_axes.push((letter, dim.clone()));
            axes.push((letter, dim));
        }
        let order = g.permutation(y_axes.len())?;
        let y_axes: Vec<(char, Dim)> = order.iter().map(|&i| y_axes[i as usize].clone()).collect();
        let shape: Vec<Dim> = y_axes.iter().map(|(_, d)| d.clone()).collect();
        let Some(y) = g.value_of(b, x.elem, &shape)? else {
            return Ok(false);
        };
        inputs.push(y);
        terms.push(y_axes.iter().map(|(l, _)| l).collect());
    }
    let order = g.permutation(axes.len())?;
    let mut output = String::new();
    for i in order {
        if g.chance(2, 3)? {
            output.push(axes[i as usize].0);
        }
    }
    let equation = format!("{}->{output}", terms.join(","));
    let attributes = vec![string_attribute("equation", &equation)];
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `Det` of a new batch of square matrices.
fn det(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(elem) = g.accepted_elem(schema, 0)? else {
        return Ok(false);
    };
    let n = g.int(1, 3)?;
    let mut shape: Vec<Dim> = g.small_dims(1)?.into_iter().map(Dim::Value).collect();
    shape.extend([Dim::Value(n), Dim::Value(n)]);
    let Some(x) = g.value_of(b, elem, &shape)? else {
        return Ok(false);
    };
    Ok(g.add(b, node(schema, vec![x], Vec::new()), 1))
}

/// `MatMulInteger` of 8-bit matrices, zero points sometimes.
fn matmul_integer(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(a) = g.input0(b, schema, Need::rank(2, 2))? else {
        return Ok(false);
    };
    let right_elems = g.accepted(schema, 1);
    let Ok(&right_elem) = g.u.choose(&right_elems) else {
        return Ok(false);
    };
    let shape = [a.shape[1].clone(), g.dim()?];
    let Some(right) = g.value_of(b, right_elem, &shape)? else {
        return Ok(false);
    };
    let mut inputs = vec![a.name, right];
    if g.chance(1, 2)? {
        inputs.push(g.zero_point(b, a.elem, None)?);
        inputs.push(g.zero_point(b, right_elem, None)?);
    }
    Ok(g.add(b, node(schema, inputs, Vec::new()), 1))
}

/// `QLinearMatMul` of 8-bit matrices with scalar scales and zero points.
fn qlinear_matmul(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(a) = g.input0(b, schema, Need::rank(2, 2))? else {
        return Ok(false);
    };
    let [right_elems, out_elems] = [g.accepted(schema, 3), g.output_elems(schema, 0)];
    let (Ok(&right_elem), Ok(&out_elem)) = (g.u.choose(&right_elems), g.u.choose(&out_elems))
    else {
        return Ok(false);
    };
    let scale_elems = Valid::types_of(schema, 1);
    let scale_elem = g.pick(&scale_elems)?;
    let shape = [a.shape[1].clone(), g.dim()?];
    let Some(right) = g.value_of(b, right_elem, &shape)? else {
        return Ok(false);
    };
    let inputs = vec![
        a.name,
        g.scale(b, scale_elem, None)?,
        g.zero_point(b, a.elem, None)?,
        right,
        g.scale(b, scale_elem, None)?,
        g.zero_point(b, right_elem, None)?,
        g.scale(b, scale_elem, None)?,
        g.zero_point(b, out_elem, None)?,
    ];
    Ok(g.add(b, node(schema, inputs, Vec::new()), 1))
}

/// A per-axis quantization's axis of `x` (from opset 13), sometimes:
/// the attribute and the dimension its scale and zero point have.
fn quantization_axis(
    g: &mut Valid<'_, '_>,
    schema: &'static Schema,
    shape: &[Dim],
) -> Result<Option<(i64, i64)>> {
    if schema.attribute("axis").is_none() || !g.chance(1, 3)? {
        return Ok(None);
    }
    let Some((axis, dim)) = g.known_axis(shape)? else {
        return Ok(None);
    };
    Ok(Some((g.maybe_negative(axis, shape.len())?, dim)))
}

/// `QuantizeLinear` to an integer type of the config (its zero point's),
/// per tensor or per axis.
fn quantize_linear(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let out_elems = g.accepted_where(schema, 2, |e| e.is_integer());
    let Ok(&out_elem) = g.u.choose(&out_elems) else {
        return Ok(false);
    };
    let scale_elem = if schema.inputs()[1].type_str() == schema.inputs()[0].type_str() {
        x.elem
    } else {
        g.pick(&Valid::types_of(schema, 1))?
    };
    let per_axis = quantization_axis(g, schema, &x.shape)?;
    let dim = per_axis.map(|(_, d)| d);
    let inputs = vec![
        x.name,
        g.scale(b, scale_elem, dim)?,
        g.zero_point(b, out_elem, dim)?,
    ];
    let attributes = per_axis.map_or_else(Vec::new, |(axis, _)| vec![int_attribute("axis", axis)]);
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `DequantizeLinear` of an integer tensor, per tensor or per axis, its
/// zero point sometimes left out (always for `int32`).
fn dequantize_linear(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let elems = g.accepted_where(schema, 0, |e| e.is_integer());
    let Some(x) = g.operand(b, &elems, Need::ANY)? else {
        return Ok(false);
    };
    let scale_elems: Vec<ElementType> = Valid::types_of(schema, 1)
        .into_iter()
        .filter(|e| e.is_float())
        .collect();
    let scale_elem = g.pick(&scale_elems)?;
    let per_axis = quantization_axis(g, schema, &x.shape)?;
    let dim = per_axis.map(|(_, d)| d);
    let mut inputs = vec![x.name, g.scale(b, scale_elem, dim)?];
    if x.elem != ElementType::Int32 && g.chance(2, 3)? {
        inputs.push(g.zero_point(b, x.elem, dim)?);
    }
    let attributes = per_axis.map_or_else(Vec::new, |(axis, _)| vec![int_attribute("axis", axis)]);
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

fn dynamic_quantize_linear(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let elems = g.accepted(schema, 0);
    // Not of dimensions the data decides: the range of nothing is none.
    let Some(x) = g.operand(b, &elems, Need::rank(0, usize::MAX))? else {
        return Ok(false);
    };
    Ok(g.add(b, node(schema, vec![x.name], Vec::new()), 3))
}
