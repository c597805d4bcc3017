//! Sequences and optionals: `SequenceConstruct`, `SequenceEmpty`,
//! `SequenceAt`, `SequenceInsert`, `SequenceErase`, `SequenceLength`,
//! `SplitToSequence`, `ConcatFromSequence`, `Optional`,
//! `OptionalHasElement`, `OptionalGetElement`. The generator counts the
//! tensors of the sequences it makes (and whether an optional holds one),
//! so that positions are in range and nothing reads from an empty one.

use arbitrary::Result;

use super::{attribute, int_attribute, node, Builder, Need, Recipe, Valid, Value};
use crate::infer::Type;
use crate::ops::Schema;
use crate::proto::attribute_proto::AttributeType;
use crate::proto::AttributeProto;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("SequenceConstruct", sequence_construct),
    ("SequenceEmpty", sequence_empty),
    ("SequenceAt", sequence_at),
    ("SequenceInsert", sequence_insert),
    ("SequenceErase", sequence_erase),
    ("SequenceLength", |g, b, schema| {
        let s = sequence(g, b, None)?;
        g.of_one(b, schema, s.map(|s| s.name))
    }),
    ("SplitToSequence", split_to_sequence),
    ("ConcatFromSequence", concat_from_sequence),
    ("Optional", optional),
    ("OptionalHasElement", |g, b, schema| {
        let o = optional_operand(g, b, false)?;
        g.of_one(b, schema, o.map(|o| o.name))
    }),
    // Only of an optional known to hold a value.
    ("OptionalGetElement", |g, b, schema| {
        let o = optional_operand(g, b, true)?;
        g.of_one(b, schema, o.map(|o| o.name))
    }),
];

impl Value {
    /// The tensor type of a sequence's (or optional's) elements.
    fn element(&self) -> Option<&Type> {
        match &self.ty {
            Type::Sequence(inner) | Type::Optional(inner) => Some(inner),
            _ => None,
        }
    }
}

/// A sequence holding at least `min_len` tensors (a known count), or any
/// sequence when `min_len` is `None`: one of the pool mostly, else a new
/// one of `SequenceConstruct` (when the config allows it).
pub(super) fn sequence(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    min_len: Option<usize>,
) -> Result<Option<Value>> {
    let sequences: Vec<Value> = b
        .pool
        .iter()
        .filter(|v| matches!(v.ty, Type::Sequence(_)))
        .filter(|v| min_len.is_none_or(|min| v.len.is_some_and(|len| len >= min)))
        .cloned()
        .collect();
    if !sequences.is_empty() && g.chance(3, 4)? {
        return Ok(Some(g.u.choose(&sequences)?.clone()));
    }
    match g.schema("SequenceConstruct") {
        Some(schema) if sequence_construct(g, b, schema)? => Ok(b.pool.last().cloned()),
        _ => Ok(g.u.choose(&sequences).ok().cloned()),
    }
}

/// A position in a sequence of `len` tensors (`len + 1` places when
/// `insert`), from the end sometimes, as a constant scalar.
fn position(g: &mut Valid<'_, '_>, b: &mut Builder, len: usize, insert: bool) -> Result<String> {
    let places = len as i64 + i64::from(insert);
    let position = g.int(0, places - 1)?;
    let position = if g.chance(1, 3)? {
        position - places + i64::from(insert)
    } else {
        position
    };
    let elem = g.pick(&[ElementType::Int64, ElementType::Int32])?;
    Ok(g.constant(b, elem, Vec::new(), &[position as f64]))
}

/// `SequenceConstruct` of up to three tensors of one element type, of one
/// shape mostly.
fn sequence_construct(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let same_shape = g.chance(2, 3)?;
    let mut inputs = vec![x.name.clone()];
    for _ in 0..g.int(0, 2)? {
        let y = if same_shape {
            g.value_of(b, x.elem, &x.shape)?
        } else {
            g.operand(b, &[x.elem], Need::ANY)?.map(|t| t.name)
        };
        let Some(y) = y else {
            return Ok(false);
        };
        inputs.push(y);
    }
    let len = inputs.len();
    Ok(g.add_counted(b, node(schema, inputs, Vec::new()), 1, Some(len)))
}

fn sequence_empty(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.allowed_by(
        &schema
            .outputs()
            .first()
            .map(|p| schema.allowed_types(p))
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t.strip_prefix("seq(")?.strip_suffix(')'))
            .collect::<Vec<_>>(),
    );
    let Ok(&elem) = g.u.choose(&elems) else {
        return Ok(false);
    };
    let dtype = int_attribute("dtype", elem.data_type() as i64);
    Ok(g.add_counted(b, node(schema, Vec::new(), vec![dtype]), 1, Some(0)))
}

fn sequence_at(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(s) = sequence(g, b, Some(1))? else {
        return Ok(false);
    };
    let position = position(g, b, s.len.unwrap_or(1), false)?;
    Ok(g.add(b, node(schema, vec![s.name, position], Vec::new()), 1))
}

/// `SequenceInsert` of a tensor of the elements' type (and shape, when
/// the sequence's is known), at a position or the end.
fn sequence_insert(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(s) = sequence(g, b, None)? else {
        return Ok(false);
    };
    let Some(Type::Tensor(element)) = s.element() else {
        return Ok(false);
    };
    let Some(elem) = ElementType::from_code(element.elem_type) else {
        return Ok(false);
    };
    let tensor = match &element.shape {
        Some(shape) if g.chance(2, 3)? => g.value_of(b, elem, shape)?,
        _ => g.operand(b, &[elem], Need::ANY)?.map(|t| t.name),
    };
    let Some(tensor) = tensor else {
        return Ok(false);
    };
    let mut inputs = vec![s.name.clone(), tensor];
    if let (Some(len), true) = (s.len, g.chance(1, 2)?) {
        inputs.push(position(g, b, len, true)?);
    }
    Ok(g.add_counted(b, node(schema, inputs, Vec::new()), 1, s.len.map(|n| n + 1)))
}

/// `SequenceErase` of a position, or the last tensor.
fn sequence_erase(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(s) = sequence(g, b, Some(1))? else {
        return Ok(false);
    };
    let len = s.len.unwrap_or(1);
    let mut inputs = vec![s.name];
    if g.chance(1, 2)? {
        inputs.push(position(g, b, len, false)?);
    }
    Ok(g.add_counted(b, node(schema, inputs, Vec::new()), 1, Some(len - 1)))
}

/// `SplitToSequence` of a known axis: into pieces of 1 (the axis kept or
/// not), of a constant size (the last one shorter), or of constant sizes.
fn split_to_sequence(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY.min_rank(1))? else {
        return Ok(false);
    };
    let Some((axis, dim)) = g.known_axis(&x.shape)? else {
        return Ok(false);
    };
    let mut attributes = vec![int_attribute("axis", g.maybe_negative(axis, x.rank())?)];
    let mut inputs = vec![x.name];
    let len = match g.int(0, 2)? {
        0 => {
            attributes.push(int_attribute(
                "keepdims",
                i64::from(g.u.arbitrary::<bool>()?),
            ));
            dim
        }
        1 => {
            let size = g.int(1, dim)?;
            inputs.push(g.int_scalar(b, size));
            (dim + size - 1) / size
        }
        _ => {
            let parts = g.int(1, dim)?;
            let sizes = g.partition(dim, parts)?;
            inputs.push(g.ints(b, &sizes));
            parts
        }
    };
    Ok(g.add_counted(b, node(schema, inputs, attributes), 1, Some(len as usize)))
}

/// `ConcatFromSequence` of a nonempty sequence of tensors of one known
/// shape, along an axis or a new one.
fn concat_from_sequence(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(s) = sequence(g, b, Some(1))? else {
        return Ok(false);
    };
    let Some(Type::Tensor(element)) = s.element() else {
        return Ok(false);
    };
    let Some(shape) = element
        .shape
        .as_ref()
        .filter(|s| Need::rank(0, usize::MAX).met_by(s))
    else {
        return Ok(false);
    };
    let rank = shape.len();
    let new_axis = rank == 0 || g.u.arbitrary::<bool>()?;
    let places = rank + usize::from(new_axis);
    let axis = g.index(places)?;
    let attributes = vec![
        int_attribute("axis", g.maybe_negative(axis, places)?),
        int_attribute("new_axis", i64::from(new_axis)),
    ];
    Ok(g.add(b, node(schema, vec![s.name], attributes), 1))
}

/// `Optional` of a tensor or sequence of the pool, or an empty one of a
/// tensor type.
fn optional(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    if g.chance(1, 3)? {
        let Some(elem) = g.accepted_elem(schema, 0)? else {
            return Ok(false);
        };
        let ty = AttributeProto {
            tp: Some(Box::new(
                Type::tensor_of(elem.data_type() as i32).to_proto(),
            )),
            ..attribute("type", AttributeType::TypeProto)
        };
        return Ok(g.add_counted(b, node(schema, Vec::new(), vec![ty]), 1, Some(0)));
    }
    let values: Vec<Value> = b
        .pool
        .iter()
        .filter(|v| matches!(v.ty, Type::Tensor(_) | Type::Sequence(_)))
        .cloned()
        .collect();
    let Ok(x) = g.u.choose(&values) else {
        return Ok(false);
    };
    let x = x.clone();
    Ok(g.add_counted(b, node(schema, vec![x.name], Vec::new()), 1, Some(1)))
}

/// An optional, one known to hold a value when `full`: one of the pool
/// mostly, else a new one of `Optional` (when the config allows it).
fn optional_operand(g: &mut Valid<'_, '_>, b: &mut Builder, full: bool) -> Result<Option<Value>> {
    let optionals: Vec<Value> = b
        .pool
        .iter()
        .filter(|v| matches!(v.ty, Type::Optional(_)) && (!full || v.len == Some(1)))
        .cloned()
        .collect();
    if !optionals.is_empty() && g.chance(3, 4)? {
        return Ok(Some(g.u.choose(&optionals)?.clone()));
    }
    let made = match g.schema("Optional") {
        Some(schema) => optional(g, b, schema)?,
        None => false,
    };
    match b.pool.last() {
        Some(v) if made && (!full || v.len == Some(1)) => Ok(Some(v.clone())),
        _ => Ok(g.u.choose(&optionals).ok().cloned()),
    }
}
