//! Sequence models: `RNN`, `GRU`, `LSTM`, `Attention`,
//! `RotaryEmbedding`, `LinearAttention`, `CausalConvWithState`. Weights,
//! states and caches are new operands of the sizes the input and the
//! attributes (hidden size, heads, directions) call for; sequence lengths
//! and position ids are constants in range.

use arbitrary::Result;

use super::{float_attribute, int_attribute, node, string_attribute, Builder, Need, Recipe, Valid};
use crate::infer::Dim;
use crate::ops::Schema;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("RNN", recurrence),
    ("GRU", recurrence),
    ("LSTM", recurrence),
    ("Attention", attention),
    ("RotaryEmbedding", rotary_embedding),
    ("LinearAttention", linear_attention),
    ("CausalConvWithState", causal_conv_with_state),
];

impl Valid<'_, '_> {
    /// New operands of `elem` for `shapes` (from the pool where one has
    /// the shape), in order; `None` when one cannot be.
    fn operands_of(
        &mut self,
        b: &mut Builder,
        elem: ElementType,
        shapes: &[Vec<Dim>],
    ) -> Result<Option<Vec<String>>> {
        let mut names = Vec::with_capacity(shapes.len());
        for shape in shapes {
            let Some(name) = self.value_of(b, elem, shape)? else {
                return Ok(None);
            };
            names.push(name);
        }
        Ok(Some(names))
    }
}

/// `RNN`, `GRU` and `LSTM` over a sequence of known input size, forward,
/// reverse or both ways, batch-major sometimes (from opset 14), the
/// optional inputs (bias, lengths, initial states, peepholes) each
/// sometimes, as many outputs as drawn.
fn recurrence(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(3, 3).fixed())? else {
        return Ok(false);
    };
    let gates = match schema.name() {
        "GRU" => 3,
        "LSTM" => 4,
        _ => 1,
    };
    let batch_major = schema.attribute("layout").is_some() && g.chance(1, 3)?;
    let dims = x.dims();
    let (seq, batch) = if batch_major {
        (dims[1], dims[0])
    } else {
        (dims[0], dims[1])
    };
    let hidden = g.int(1, 3)?;
    let direction = g.pick(&["forward", "reverse", "bidirectional"])?;
    let dirs = if direction == "bidirectional" { 2 } else { 1 };
    let weights = [
        vec![dirs, gates * hidden, dims[2]],
        vec![dirs, gates * hidden, hidden],
    ];
    let weights: Vec<Vec<Dim>> = weights
        .iter()
        .map(|s| s.iter().map(|&d| d.into()).collect())
        .collect();
    let Some(mut inputs) = g.operands_of(b, x.elem, &weights)? else {
        return Ok(false);
    };
    inputs.insert(0, x.name);
    let state = if batch_major {
        [batch, dirs, hidden]
    } else {
        [dirs, batch, hidden]
    };
    let mut optional: Vec<Option<String>> = Vec::new();
    let extra = schema.inputs().len() - 3;
    for index in 0..extra {
        if !g.chance(1, 2)? {
            optional.push(None);
            continue;
        }
        let operand = match index {
            0 => g.value_of(b, x.elem, &[dirs.into(), (2 * gates * hidden).into()])?,
            1 => {
                let lens = g.constant_in(b, ElementType::Int32, vec![batch], 1.0, seq as f64)?;
                Some(lens)
            }
            // Peepholes: LSTM's last input.
            4 => g.value_of(b, x.elem, &[dirs.into(), (3 * hidden).into()])?,
            _ => g.value_of(b, x.elem, &state.map(Dim::Value))?,
        };
        let Some(operand) = operand else {
            return Ok(false);
        };
        optional.push(Some(operand));
    }
    while optional.last().is_some_and(Option::is_none) {
        optional.pop();
    }
    inputs.extend(optional.into_iter().map(Option::unwrap_or_default));
    let mut attributes = vec![
        int_attribute("hidden_size", hidden),
        string_attribute("direction", direction),
    ];
    if batch_major {
        attributes.push(int_attribute("layout", 1));
    }
    if schema.attribute("linear_before_reset").is_some() && g.chance(1, 3)? {
        attributes.push(int_attribute("linear_before_reset", 1));
    }
    if g.chance(1, 4)? {
        attributes.push(float_attribute("clip", 4.0));
    }
    let outputs = g.int(1, schema.outputs().len() as i64)? as usize;
    Ok(g.add(b, node(schema, inputs, attributes), outputs))
}

/// `Attention` of new 4-D query, key and value (the query's heads a
/// multiple of the key's), sometimes with a mask of the query and key
/// lengths, sometimes causal or scaled.
fn attention(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(elem) = g.accepted_elem(schema, 0)? else {
        return Ok(false);
    };
    let batch = g.dim()?;
    let kv_heads = g.int(1, 2)?;
    let q_heads = kv_heads * g.int(1, 2)?;
    let (q_len, kv_len) = (g.int(1, 3)?, g.int(1, 3)?);
    let (head, value_head) = (g.int(1, 4)?, g.int(1, 4)?);
    let shapes = [
        vec![batch.clone(), q_heads.into(), q_len.into(), head.into()],
        vec![batch.clone(), kv_heads.into(), kv_len.into(), head.into()],
        vec![batch, kv_heads.into(), kv_len.into(), value_head.into()],
    ];
    let Some(mut inputs) = g.operands_of(b, elem, &shapes)? else {
        return Ok(false);
    };
    let mut attributes = Vec::new();
    if g.chance(1, 3)? {
        let mask = [Dim::Value(q_len), Dim::Value(kv_len)];
        let mask_elem = if g.u.arbitrary()? {
            ElementType::Bool
        } else {
            elem
        };
        let Some(mask) = g.value_of(b, mask_elem, &mask)? else {
            return Ok(false);
        };
        inputs.push(mask);
    } else if g.chance(1, 3)? {
        attributes.push(int_attribute("is_causal", 1));
    }
    if g.chance(1, 3)? {
        attributes.push(float_attribute("scale", 0.5));
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `RotaryEmbedding` of a new 4-D input of an even head size, with
/// caches of half of it for positions given as constants, or (without
/// them) for each batch and position.
fn rotary_embedding(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(elem) = g.accepted_elem(schema, 0)? else {
        return Ok(false);
    };
    let (batch, heads, seq, half) = (g.int(1, 2)?, g.int(1, 2)?, g.int(1, 3)?, g.int(1, 2)?);
    let x_shape = [batch, heads, seq, 2 * half].map(Dim::Value);
    let Some(x) = g.value_of(b, elem, &x_shape)? else {
        return Ok(false);
    };
    let with_positions = g.u.arbitrary::<bool>()?;
    let cache: Vec<Dim> = if with_positions {
        vec![g.dim()?, half.into()]
    } else {
        vec![batch.into(), seq.into(), half.into()]
    };
    let Some(mut inputs) = g.operands_of(b, elem, &[cache.clone(), cache.clone()])? else {
        return Ok(false);
    };
    inputs.insert(0, x);
    if with_positions {
        let positions = cache[0].value().unwrap_or(1);
        let ids = g.constant_in(
            b,
            ElementType::Int64,
            vec![batch, seq],
            0.0,
            (positions - 1) as f64,
        )?;
        inputs.push(ids);
    }
    let interleaved = int_attribute("interleaved", i64::from(g.u.arbitrary::<bool>()?));
    Ok(g.add(b, node(schema, inputs, vec![interleaved]), 1))
}

/// `LinearAttention` of new packed query, key and value, an update rule
/// drawn with the decay and beta it takes, a past state sometimes.
fn linear_attention(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(elem) = g.accepted_elem(schema, 0)? else {
        return Ok(false);
    };
    let (batch, length) = (g.int(1, 2)?, g.int(1, 3)?);
    let kv_heads = g.int(1, 2)?;
    let q_heads = kv_heads * g.int(1, 2)?;
    let (key_size, value_size) = (g.int(1, 3)?, g.int(1, 3)?);
    let packed = |width: i64| vec![batch.into(), length.into(), Dim::Value(width)];
    let shapes = [
        packed(q_heads * key_size),
        packed(kv_heads * key_size),
        packed(kv_heads * value_size),
    ];
    let Some(mut inputs) = g.operands_of(b, elem, &shapes)? else {
        return Ok(false);
    };
    let rule = g.pick(&["linear", "gated", "delta", "gated_delta"])?;
    let (decay, beta) = (rule.starts_with("gated"), rule.ends_with("delta"));
    let mut optional = vec![None; 3];
    if g.chance(1, 2)? {
        optional[0] = Some(
            [batch, kv_heads, key_size, value_size]
                .map(Dim::Value)
                .to_vec(),
        );
    }
    if decay {
        let width = if g.u.arbitrary()? {
            kv_heads
        } else {
            kv_heads * key_size
        };
        optional[1] = Some(packed(width));
    }
    if beta {
        optional[2] = Some(packed(if g.u.arbitrary()? { kv_heads } else { 1 }));
    }
    while optional.last().is_some_and(Option::is_none) {
        optional.pop();
    }
    for shape in optional {
        let name = match shape {
            Some(shape) => match g.value_of(b, elem, &shape)? {
                Some(name) => name,
                None => return Ok(false),
            },
            None => String::new(),
        };
        inputs.push(name);
    }
    let attributes = vec![
        int_attribute("q_num_heads", q_heads),
        int_attribute("kv_num_heads", kv_heads),
        string_attribute("update_rule", rule),
    ];
    Ok(g.add(b, node(schema, inputs, attributes), 2))
}

/// `CausalConvWithState` of a `B × C × L` input by per-channel kernels,
/// a bias and a past state of the kernel size less one sometimes.
fn causal_conv_with_state(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(3, 3).fixed_in(1, 2))? else {
        return Ok(false);
    };
    let channels = x.shape[1].clone();
    let kernel = g.int(1, 3)?;
    let Some(w) = g.value_of(b, x.elem, &[channels.clone(), 1.into(), kernel.into()])? else {
        return Ok(false);
    };
    let mut inputs = vec![x.name.clone(), w];
    if g.chance(1, 2)? {
        let bias = g.value_of(b, x.elem, std::slice::from_ref(&channels))?;
        inputs.push(bias.unwrap_or_default());
        if g.chance(1, 2)? {
            let state = [x.shape[0].clone(), channels, (kernel - 1).into()];
            let Some(state) = g.value_of(b, x.elem, &state)? else {
                return Ok(false);
            };
            inputs.push(state);
        }
    }
    let activation = string_attribute("activation", g.pick(&["none", "silu", "swish"])?);
    Ok(g.add(b, node(schema, inputs, vec![activation]), 2))
}
