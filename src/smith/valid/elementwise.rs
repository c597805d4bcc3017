//! Elementwise operators: unary ones (activations included), binary and
//! variadic ones that broadcast, `Where`, the casts, `Clip`, `Dropout`,
//! `Constant`.

use arbitrary::Result;

use super::{
    float_attribute, int_attribute, node, string_attribute, tensor_attribute, Builder, Need,
    Recipe, Valid,
};
use crate::infer::Dim;
use crate::ops::Schema;
use crate::proto::attribute_proto::AttributeType;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("Abs", unary),
    ("Acos", unary),
    ("Acosh", unary),
    ("Asin", unary),
    ("Asinh", unary),
    ("Atan", unary),
    ("Atanh", unary),
    ("BitwiseNot", unary),
    ("Ceil", unary),
    ("Celu", unary),
    ("Cos", unary),
    ("Cosh", unary),
    ("Elu", unary),
    ("Erf", unary),
    ("Exp", unary),
    ("Floor", unary),
    ("Gelu", unary),
    ("HardSigmoid", unary),
    ("HardSwish", unary),
    ("Identity", unary),
    ("IsInf", unary),
    ("IsNaN", unary),
    ("LeakyRelu", unary),
    ("Log", unary),
    ("Mish", unary),
    ("Neg", unary),
    ("Not", unary),
    ("Reciprocal", unary),
    ("Relu", unary),
    ("Round", unary),
    ("Selu", unary),
    ("Shrink", unary),
    ("Sigmoid", unary),
    ("Sign", unary),
    ("Sin", unary),
    ("Sinh", unary),
    ("Softplus", unary),
    ("Softsign", unary),
    ("Sqrt", unary),
    ("Swish", unary),
    ("Tan", unary),
    ("Tanh", unary),
    ("ThresholdedRelu", unary),
    ("Add", broadcast),
    ("And", broadcast),
    ("BitShift", broadcast),
    ("BitwiseAnd", broadcast),
    ("BitwiseOr", broadcast),
    ("BitwiseXor", broadcast),
    ("Div", broadcast),
    ("Equal", broadcast),
    ("Greater", broadcast),
    ("GreaterOrEqual", broadcast),
    ("Less", broadcast),
    ("LessOrEqual", broadcast),
    ("Max", broadcast),
    ("Mean", broadcast),
    ("Min", broadcast),
    ("Mod", broadcast),
    ("Mul", broadcast),
    ("Or", broadcast),
    ("Pow", broadcast),
    ("PRelu", broadcast),
    ("Sub", broadcast),
    ("Sum", broadcast),
    ("Xor", broadcast),
    ("SwiGLU", same_shape),
    ("Where", where_node),
    ("Cast", cast),
    ("CastLike", cast_like),
    ("BitCast", bit_cast),
    ("Clip", clip),
    ("Dropout", dropout),
    ("Constant", constant),
];

/// A unary operator on any tensor it accepts; its float attributes
/// (`alpha`, `beta`...) sometimes set to a small positive number, `Gelu`'s
/// approximation sometimes `tanh`.
fn unary(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.or_empty())? else {
        return Ok(false);
    };
    let mut attributes = Vec::new();
    for a in schema.attributes() {
        if a.ty() == AttributeType::Float && !a.required() && g.chance(1, 3)? {
            let sixteenths = g.int(1, 32)?;
            attributes.push(float_attribute(a.name(), sixteenths as f32 / 16.0));
        }
    }
    if schema.attribute("approximate").is_some() && g.chance(1, 2)? {
        attributes.push(string_attribute("approximate", "tanh"));
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// A binary (or variadic) operator: the other operands' shapes suffixes
/// of the first's with some dimensions 1, in either order where the
/// operator broadcasts both ways; all the same shape where it does not
/// broadcast yet (opset 7's variadic operators).
fn broadcast(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let variadic = schema.inputs().len() == 1;
    // Pow's exponent may have another type: keep the first's where it is
    // allowed.
    let other_elems = g.accepted(schema, if variadic { 0 } else { 1 });
    let elem = if other_elems.contains(&x.elem) {
        x.elem
    } else {
        let Ok(&elem) = g.u.choose(&other_elems) else {
            return Ok(false);
        };
        elem
    };
    let others = if variadic { g.int(1, 2)? } else { 1 };
    let same_shape = variadic && schema.since_version() < 8;
    let mut inputs = vec![x.name.clone()];
    for _ in 0..others {
        let shape = if same_shape {
            x.shape.clone()
        } else {
            g.broadcast_shape(&x.shape)?
        };
        // No negative integer exponents (their result is not defined).
        let y = if schema.name() == "Pow" && elem.is_integer() {
            g.value_in(b, elem, &shape, 0.0, 3.0)?
        } else {
            g.value_of(b, elem, &shape)?
        };
        let Some(y) = y else {
            return Ok(false);
        };
        inputs.push(y);
    }
    let symmetric = !matches!(schema.name(), "PRelu" | "Pow")
        && schema
            .inputs()
            .iter()
            .all(|p| p.type_str() == schema.inputs()[0].type_str());
    if symmetric && g.chance(1, 3)? {
        inputs.reverse();
    }
    let mut attributes = Vec::new();
    match schema.name() {
        "BitShift" => {
            let direction = g.pick(&["LEFT", "RIGHT"])?;
            attributes.push(string_attribute("direction", direction));
        }
        // Mod of floats must say so (fmod = 1).
        "Mod" => {
            let fmod = x.elem.is_float() || g.chance(1, 3)?;
            attributes.push(int_attribute("fmod", i64::from(fmod)));
        }
        _ => {}
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

impl Valid<'_, '_> {
    /// A shape that broadcasts to `shape`: a suffix of it with some
    /// dimensions (and every unknown one) 1.
    pub(super) fn broadcast_shape(&mut self, shape: &[Dim]) -> Result<Vec<Dim>> {
        let keep = self.int(0, shape.len() as i64)? as usize;
        let mut suffix = shape[shape.len() - keep..].to_vec();
        for dim in &mut suffix {
            if !dim.is_known() || self.chance(1, 4)? {
                *dim = Dim::Value(1);
            }
        }
        Ok(suffix)
    }
}

/// A binary operator on two tensors of one shape (`SwiGLU`).
fn same_shape(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::rank(0, usize::MAX))? else {
        return Ok(false);
    };
    let Some(y) = g.value_of(b, x.elem, &x.shape)? else {
        return Ok(false);
    };
    Ok(g.add(b, node(schema, vec![x.name, y], Vec::new()), 1))
}

/// `Where(cond, x, y)`, the condition and `y` broadcast to `x`.
fn where_node(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.accepted(schema, 1);
    let Some(x) = g.operand(b, &elems, Need::ANY)? else {
        return Ok(false);
    };
    let cond_shape = g.broadcast_shape(&x.shape)?;
    let y_shape = g.broadcast_shape(&x.shape)?;
    let Some(cond) = g.value_of(b, ElementType::Bool, &cond_shape)? else {
        return Ok(false);
    };
    let Some(y) = g.value_of(b, x.elem, &y_shape)? else {
        return Ok(false);
    };
    Ok(g.add(b, node(schema, vec![cond, x.name, y], Vec::new()), 1))
}

/// `Cast` to an element type of the config.
fn cast(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.or_empty())? else {
        return Ok(false);
    };
    let targets = g.output_elems(schema, 0);
    let Ok(&to) = g.u.choose(&targets) else {
        return Ok(false);
    };
    let to = int_attribute("to", to.data_type() as i64);
    Ok(g.add(b, node(schema, vec![x.name], vec![to]), 1))
}

/// `CastLike` to the type of another tensor.
fn cast_like(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let targets = g.accepted(schema, 1);
    let Some(like) = g.operand(b, &targets, Need::ANY)? else {
        return Ok(false);
    };
    Ok(g.add(b, node(schema, vec![x.name, like.name], Vec::new()), 1))
}

/// `BitCast` to another element type of the same width (not to `bool`,
/// whose other bit patterns mean nothing).
fn bit_cast(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let targets: Vec<ElementType> = g
        .output_elems(schema, 0)
        .into_iter()
        .filter(|e| e.size() == x.elem.size() && *e != ElementType::Bool)
        .collect();
    let Ok(&to) = g.u.choose(&targets) else {
        return Ok(false);
    };
    let to = int_attribute("to", to.data_type() as i64);
    Ok(g.add(b, node(schema, vec![x.name], vec![to]), 1))
}

/// `Clip` between a bound at most 0 and one at least 0: scalar inputs
/// (each sometimes left out), attributes before opset 11.
fn clip(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let low = -(g.int(0, 64)? as f64) / 16.0;
    let high = g.int(0, 64)? as f64 / 16.0;
    let mut inputs = vec![x.name];
    let mut attributes = Vec::new();
    if schema.inputs().len() == 1 {
        attributes.push(float_attribute("min", low as f32));
        attributes.push(float_attribute("max", high as f32));
    } else {
        let unsigned = matches!(
            x.elem,
            ElementType::Uint8 | ElementType::Uint16 | ElementType::Uint32 | ElementType::Uint64
        );
        let low = if unsigned { 0.0 } else { low };
        for bound in [low, high] {
            if g.chance(1, 4)? {
                inputs.push(String::new());
            } else {
                inputs.push(g.constant(b, x.elem, Vec::new(), &[bound]));
            }
        }
        while inputs.last().is_some_and(String::is_empty) {
            inputs.pop();
        }
    }
    Ok(g.add(b, node(schema, inputs, attributes), 1))
}

/// `Dropout`, with its ratio and training mode as inputs from opset 12
/// (training sometimes on), and sometimes its mask.
fn dropout(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let mut inputs = vec![x.name];
    if schema.inputs().len() == 3 && g.chance(1, 2)? {
        let ratio_elems = g.accepted(schema, 1);
        let ratio_elem = if ratio_elems.contains(&x.elem) {
            x.elem
        } else {
            ElementType::Float
        };
        inputs.push(g.constant_in(b, ratio_elem, Vec::new(), 0.0, 0.75)?);
        if g.chance(1, 2)? {
            let training = f64::from(u8::from(g.chance(1, 2)?));
            inputs.push(g.constant(b, ElementType::Bool, Vec::new(), &[training]));
        }
    }
    let outputs = if g.chance(1, 3)? { 2 } else { 1 };
    Ok(g.add(b, node(schema, inputs, Vec::new()), outputs))
}

/// A `Constant` node holding a small tensor of the config's types.
fn constant(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.output_elems(schema, 0);
    let Ok(&elem) = g.u.choose(&elems) else {
        return Ok(false);
    };
    let shape = g.shape(elem, Need::ANY.fixed(), false)?;
    let t = g.random_tensor(None, elem, super::fixed_dims(&shape))?;
    Ok(g.add(
        b,
        node(schema, Vec::new(), vec![tensor_attribute("value", t)]),
        1,
    ))
}
