//! Operators that make values rather than transform them: the random
//! ones (`RandomNormal`, `RandomUniform`, their `Like` forms,
//! `Bernoulli`, `Multinomial`), the windows, `MelWeightMatrix`, and the
//! spectral `DFT` and `STFT`. Sizes are small constants; probabilities lie
//! in `[0, 1]`.

use arbitrary::Result;

use super::{float_attribute, int_attribute, ints_attribute, node, Builder, Need, Recipe, Valid};
use crate::infer::Dim;
use crate::ops::Schema;
use crate::proto::AttributeProto;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("RandomNormal", random),
    ("RandomUniform", random),
    ("RandomNormalLike", random_like),
    ("RandomUniformLike", random_like),
    ("Bernoulli", bernoulli),
    ("Multinomial", multinomial),
    ("HannWindow", window),
    ("HammingWindow", window),
    ("BlackmanWindow", window),
    ("MelWeightMatrix", mel_weight_matrix),
    ("DFT", dft),
    ("STFT", stft),
];

impl Valid<'_, '_> {
    /// A random operator's attributes: its distribution's parameters and
    /// a seed, each sometimes.
    fn distribution(&mut self, schema: &'static Schema) -> Result<Vec<AttributeProto>> {
        let mut attributes = Vec::new();
        for (name, low, high) in [
            ("mean", -2, 2),
            ("scale", 1, 4),
            ("low", -4, 0),
            ("high", 1, 4),
        ] {
            if schema.attribute(name).is_some() && self.chance(1, 3)? {
                attributes.push(float_attribute(name, self.int(low, high)? as f32));
            }
        }
        if self.chance(1, 2)? {
            attributes.push(float_attribute("seed", self.int(0, 1000)? as f32));
        }
        Ok(attributes)
    }

    /// The `dtype` attribute for an element type output 0 of `schema`
    /// may have; `None` when the config allows none.
    fn dtype(&mut self, schema: &'static Schema, name: &str) -> Result<Option<AttributeProto>> {
        let elems = self.output_elems(schema, 0);
        Ok(match self.u.choose(&elems) {
            Ok(&elem) => Some(int_attribute(name, elem.data_type() as i64)),
            Err(_) => None,
        })
    }
}

/// `RandomNormal`/`RandomUniform` of a small constant shape (not a
/// scalar's: onnx's evaluator refuses an empty shape).
fn random(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(dtype) = g.dtype(schema, "dtype")? else {
        return Ok(false);
    };
    if g.config.max_rank == 0 {
        return Ok(false);
    }
    let rank = g.int(1, g.config.max_rank.min(4) as i64)?;
    let shape = (0..rank)
        .map(|_| g.int(1, g.config.max_dim))
        .collect::<Result<Vec<i64>>>()?;
    let mut attributes = g.distribution(schema)?;
    attributes.push(ints_attribute("shape", shape));
    attributes.push(dtype);
    Ok(g.add(b, node(schema, Vec::new(), attributes), 1))
}

/// The `Like` forms, of any tensor: its element type kept where it is a
/// float one (sometimes), else `dtype` given.
fn random_like(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let mut attributes = g.distribution(schema)?;
    if !x.elem.is_float() || g.chance(1, 2)? {
        let Some(dtype) = g.dtype(schema, "dtype")? else {
            return Ok(false);
        };
        attributes.push(dtype);
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// `Bernoulli` of constant probabilities, `dtype` sometimes given.
fn bernoulli(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(elem) = g.accepted_elem(schema, 0)? else {
        return Ok(false);
    };
    let shape = g.shape(elem, Need::ANY.fixed(), false)?;
    let p = g.constant_in(b, elem, super::fixed_dims(&shape), 0.0, 1.0)?;
    let mut attributes = Vec::new();
    if g.chance(1, 2)? {
        attributes.extend(g.dtype(schema, "dtype")?);
    }
    if g.chance(1, 2)? {
        attributes.push(float_attribute("seed", g.int(0, 1000)? as f32));
    }
    Ok(g.add(b, node(schema, vec![p], attributes), 1))
}

/// `Multinomial` samples from a `batch × classes` tensor of
/// log-probabilities.
fn multinomial(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(2, 2))? else {
        return Ok(false);
    };
    let mut attributes = vec![int_attribute("sample_size", g.int(1, 3)?)];
    if g.chance(1, 2)? {
        attributes.extend(g.dtype(schema, "dtype")?);
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// The windows of a constant size, periodic or symmetric.
fn window(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let size_elem = g.pick(&[ElementType::Int64, ElementType::Int32])?;
    let size = g.int(1, 2 * g.config.max_dim)? as f64;
    let size = g.constant(b, size_elem, Vec::new(), &[size]);
    let mut attributes = vec![int_attribute(
        "periodic",
        i64::from(g.u.arbitrary::<bool>()?),
    )];
    attributes.extend(g.dtype(schema, "output_datatype")?);
    Ok(g.add(b, node(schema, vec![size], attributes), 1))
}

/// `MelWeightMatrix` of a few bins over a band below half the sample rate.
fn mel_weight_matrix(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let int_elem = g.pick(&[ElementType::Int64, ElementType::Int32])?;
    let float_elems: Vec<ElementType> = Valid::types_of(schema, 3);
    let float_elem = g.pick(&float_elems)?;
    let rate = 2 * g.int(8, 50)?;
    let lower = g.int(0, rate / 4)?;
    let upper = g.int(lower + 1, rate / 2)?;
    let (bins, length) = (g.int(1, 4)?, g.int(4, 16)?);
    let inputs = vec![
        g.constant(b, int_elem, Vec::new(), &[bins as f64]),
        g.constant(b, int_elem, Vec::new(), &[length as f64]),
        g.constant(b, int_elem, Vec::new(), &[rate as f64]),
        g.constant(b, float_elem, Vec::new(), &[lower as f64]),
        g.constant(b, float_elem, Vec::new(), &[upper as f64]),
    ];
    let attributes: Vec<AttributeProto> = g.dtype(schema, "output_datatype")?.into_iter().collect();
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `DFT` along the signal axis of a new `batch × n × 1` (real) or `× 2`
/// (complex) signal, sometimes of another length, inverse, or one-sided
/// (real signals only).
fn dft(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(elem) = g.accepted_elem(schema, 0)? else {
        return Ok(false);
    };
    let real = g.u.arbitrary::<bool>()?;
    let n = g.int(1, 2 * g.config.max_dim)?;
    let shape = [
        g.dim()?,
        Dim::Value(n),
        Dim::Value(if real { 1 } else { 2 }),
    ];
    let Some(x) = g.value_of(b, elem, &shape)? else {
        return Ok(false);
    };
    let mut inputs = vec![x];
    if g.chance(1, 3)? {
        let length = g.int(1, n + 2)?;
        inputs.push(g.int_scalar(b, length));
    }
    let mut attributes = Vec::new();
    if real && g.chance(1, 3)? {
        attributes.push(int_attribute("onesided", 1));
    } else if g.chance(1, 3)? {
        attributes.push(int_attribute("inverse", 1));
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `STFT` of a new real signal: frames of a constant length no longer
/// than it, given by a window or its length, a constant step.
fn stft(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(elem) = g.accepted_elem(schema, 0)? else {
        return Ok(false);
    };
    let length = g.int(1, 2 * g.config.max_dim)?;
    let shape = [g.dim()?, Dim::Value(length), Dim::Value(1)];
    let Some(signal) = g.value_of(b, elem, &shape)? else {
        return Ok(false);
    };
    let frame = g.int(1, length)?;
    let step = g.int(1, frame)?;
    let mut inputs = vec![signal, g.int_scalar(b, step)];
    if g.chance(1, 2)? {
        let Some(window) = g.value_of(b, elem, &[Dim::Value(frame)])? else {
            return Ok(false);
        };
        inputs.push(window);
    } else {
        inputs.push(String::new());
        inputs.push(g.int_scalar(b, frame));
    }
    let onesided = int_attribute("onesided", i64::from(g.u.arbitrary::<bool>()?));
    Ok(g.add(b, node(schema, inputs, vec![onesided]), 1))
}
