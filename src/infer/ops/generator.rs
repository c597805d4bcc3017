//! Operators whose output type comes from an attribute or a value rather
//! than from their inputs' types: `Constant`, `ConstantOfShape`, `Cast`,
//! `CastLike`, `EyeLike`, `Range` and the random generators; with data
//! propagation through `Cast`.

use super::common::*;
use crate::infer::data::{float_values, int_values, MAX_GENERATED_ELEMENTS};
use crate::proto::TensorProto;

pub(super) const RULES: &[Rule] = &[
    Rule::new("Constant", 1, constant),
    Rule::new("ConstantOfShape", 9, constant_of_shape).propagate_beyond_onnx(constant_of_shape_data),
    Rule::new("Cast", 6, cast).until(12).propagate_beyond_onnx(cast_data),
    Rule::new("Cast", 13, cast).propagate(cast_data),
    Rule::new("CastLike", 15, cast_like),
    Rule::new("EyeLike", 9, eye_like),
    Rule::new("RandomNormal", 1, random),
    Rule::new("RandomUniform", 1, random),
    Rule::new("RandomNormalLike", 1, random_like),
    Rule::new("RandomUniformLike", 1, random_like),
    Rule::new("Bernoulli", 15, random_like),
    Rule::new("Multinomial", 7, multinomial),
    Rule::new("Range", 11, range).propagate_beyond_onnx(range_data),
];

/// The element type an `int` attribute names, checked.
fn element_type(node: &Node, name: &str) -> Result<i32, Stop> {
    let code = node.int(name).known()?;
    if DataType::try_from(code as i32).is_err() || i32::try_from(code).is_err() {
        return failed(ErrorKind::Invalid, format!("`{name}` is {code}, which names no element type"));
    }
    Ok(code as i32)
}

fn constant(node: &mut Node) -> Outcome {
    const VALUES: [&str; 8] = [
        "value",
        "sparse_value",
        "value_int",
        "value_ints",
        "value_float",
        "value_floats",
        "value_string",
        "value_strings",
    ];
    let given: Vec<&str> = VALUES.into_iter().filter(|n| node.attr(n).is_some()).collect();
    let [which] = given[..] else {
        return failed(
            ErrorKind::Invalid,
            format!(
                "a Constant has exactly one of `value`, `sparse_value` and `value_*`; this one has {}",
                if given.is_empty() { "none".to_owned() } else { given.join(", ") }
            ),
        );
    };
    let attr = node.attr(which).known()?;
    let ty = match which {
        "value" => crate::infer::data::tensor_type(attr.t.as_deref().known()?),
        // onnx's rule gives a sparse constant a dense type (with no
        // element type); a sparse tensor type would fail its own type
        // check. Nothing is inferred.
        "sparse_value" => return Ok(()),
        "value_int" => Type::tensor(INT64, Vec::new()),
        "value_ints" => Type::tensor(INT64, vec![Dim::Value(attr.ints.len() as i64)]),
        "value_float" => Type::tensor(FLOAT, Vec::new()),
        "value_floats" => Type::tensor(FLOAT, vec![Dim::Value(attr.floats.len() as i64)]),
        "value_string" => Type::tensor(STRING, Vec::new()),
        _ => Type::tensor(STRING, vec![Dim::Value(attr.strings.len() as i64)]),
    };
    node.set(0, ty);
    Ok(())
}

fn constant_of_shape(node: &mut Node) -> Outcome {
    let elem = match node.tensor_attr("value") {
        Some(value) if value.dims.len() != 1 => {
            return failed(ErrorKind::Invalid, "`value` must be a one-element tensor of rank 1");
        }
        Some(value) => value.data_type.unwrap_or(UNDEFINED),
        None => FLOAT,
    };
    node.set_elem(0, elem);
    if let Some(shape) = node.shape_input(0)? {
        if let Some(v) = shape.iter().find_map(|d| d.value().filter(|v| *v < 0)) {
            return failed(ErrorKind::Invalid, format!("the shape has the size {v}"));
        }
        node.set_shape(0, shape);
    }
    Ok(())
}

fn cast(node: &mut Node) -> Outcome {
    let to = element_type(node, "to")?;
    node.set_elem(0, to);
    if node.shape_opt(0).is_some() {
        node.copy_shape(0, 0)?;
    }
    Ok(())
}

fn cast_data(p: &mut DataNode) -> Outcome {
    let data = p.input(0).known()?.to_vec();
    p.set(0, data);
    Ok(())
}

fn cast_like(node: &mut Node) -> Outcome {
    node.copy_elem(1, 0)?;
    if node.shape_opt(0).is_some() {
        node.copy_shape(0, 0)?;
    }
    Ok(())
}

/// The element type from `dtype`, else input 0's.
fn dtype_or_input(node: &mut Node) -> Outcome {
    if node.attr("dtype").is_some() {
        let dtype = element_type(node, "dtype")?;
        node.set_elem(0, dtype);
        Ok(())
    } else {
        node.copy_elem(0, 0)
    }
}

fn eye_like(node: &mut Node) -> Outcome {
    dtype_or_input(node)?;
    if let Some(shape) = node.shape_opt(0) {
        if shape.len() != 2 {
            return failed(ErrorKind::Invalid, "the input must have rank 2");
        }
    }
    node.copy_shape(0, 0)
}

fn random(node: &mut Node) -> Outcome {
    let dtype = if node.attr("dtype").is_some() { element_type(node, "dtype")? } else { FLOAT };
    node.set_elem(0, dtype);
    let shape = node.ints("shape").known()?;
    if shape.iter().any(|&d| d < 0) {
        return failed(ErrorKind::Invalid, "`shape` has a negative size");
    }
    let shape = shape.iter().map(|&d| Dim::Value(d)).collect();
    node.set_shape(0, shape);
    Ok(())
}

fn random_like(node: &mut Node) -> Outcome {
    dtype_or_input(node)?;
    if node.shape_opt(0).is_some() {
        node.copy_shape(0, 0)?;
    }
    Ok(())
}

fn multinomial(node: &mut Node) -> Outcome {
    let dtype = if node.attr("dtype").is_some() { node.int_or("dtype", 0) as i32 } else { INT32 };
    if dtype != INT32 && dtype != INT64 {
        return failed(ErrorKind::Invalid, "`dtype` must be int32 or int64");
    }
    node.set_elem(0, dtype);
    let batch = match node.shape_opt(0) {
        Some([batch, _]) => batch.clone(),
        Some(_) => return failed(ErrorKind::Invalid, "the input must have rank 2"),
        None => Dim::Unknown,
    };
    let samples = node.int_or("sample_size", 1);
    node.set_shape(0, vec![batch, Dim::Value(samples)]);
    Ok(())
}

fn range(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    node.set_shape(0, vec![Dim::Unknown]);
    let (Some(start), Some(limit), Some(delta)) = (node.constant(0), node.constant(1), node.constant(2))
    else {
        // Integers whose values data propagation knows.
        let scalar = |i: usize| match node.constant_ints(i).as_deref() {
            Some([v]) => Some(*v),
            _ => None,
        };
        if let (Some(start), Some(limit), Some(delta)) = (scalar(0), scalar(1), scalar(2)) {
            if let Some(n) = int_range_count(start, limit, delta) {
                node.set_shape(0, vec![Dim::Value(n)]);
            }
        }
        return Ok(());
    };
    if start.data_type != limit.data_type || start.data_type != delta.data_type {
        return failed(ErrorKind::Invalid, "`start`, `limit` and `delta` differ in type");
    }
    if let Some(n) = range_length(start, limit, delta)? {
        node.set_shape(0, vec![Dim::Value(n)]);
    }
    Ok(())
}

/// How many elements `Range` makes: ⌈(limit - start) / delta⌉, at least 0,
/// for the types onnx computes it for.
fn range_length(start: &TensorProto, limit: &TensorProto, delta: &TensorProto) -> Result<Option<i64>, Stop> {
    let computed = [FLOAT, INT32, INT64, code(DataType::Double)];
    if !computed.contains(&start.data_type.unwrap_or(UNDEFINED)) {
        return Ok(None);
    }
    if [start, limit, delta].iter().any(|t| !t.dims.is_empty()) {
        return failed(ErrorKind::Invalid, "`start`, `limit` and `delta` must be scalars");
    }
    let elem = start.data_type.unwrap_or(UNDEFINED);
    if elem == INT64 || elem == INT32 {
        let first = |t: &TensorProto| int_values(t)?.first().copied();
        let (Some(s), Some(l), Some(d)) = (first(start), first(limit), first(delta)) else {
            return Ok(None);
        };
        // An `int32` difference wraps, as onnx computes it in the
        // elements' own type.
        let (s, l) = if elem == INT32 { (0, i64::from((l as i32).wrapping_sub(s as i32))) } else { (s, l) };
        return Ok(int_range_count(s, l, d));
    }
    let first = |t: &TensorProto| float_values(t)?.first().copied();
    let (Some(s), Some(l), Some(d)) = (first(start), first(limit), first(delta)) else {
        return Ok(None);
    };
    // The difference in the elements' own type, as onnx computes it.
    let span = if elem == FLOAT { f64::from(l as f32 - s as f32) } else { l - s };
    Ok(count_of(span / d))
}

/// How many elements an integer `Range` makes, ⌈(limit - start) / delta⌉
/// (at least 0) as onnx computes it; `None` for a `delta` of 0 or a
/// difference past `int64`, whose count is unknown rather than wrong.
fn int_range_count(start: i64, limit: i64, delta: i64) -> Option<i64> {
    let span = limit.checked_sub(start)?;
    (delta != 0).then_some(())?;
    count_of(span as f64 / delta as f64)
}

/// The element count of a `Range` whose exact quotient is `quotient`: its
/// ceiling, at least 0; `None` when it is not finite or past `int64`.
fn count_of(quotient: f64) -> Option<i64> {
    let n = quotient.ceil().max(0.0);
    // 2^63 is the first f64 past `int64`.
    (n.is_finite() && n < 9_223_372_036_854_775_808.0).then_some(n as i64)
}

/// A 1-D integer `ConstantOfShape` of known length is its value repeated.
fn constant_of_shape_data(p: &mut DataNode) -> Outcome {
    let [Dim::Value(n)] = p.input(0).known()? else { return Ok(()) };
    if !(0..=MAX_GENERATED_ELEMENTS as i64).contains(n) {
        return Ok(());
    }
    let value = match p.node().tensor_attr("value") {
        Some(t) if matches!(t.data_type, Some(INT64 | INT32)) => {
            int_values(t).and_then(|v| v.first().copied()).known()?
        }
        Some(_) => return Ok(()),
        None => return Ok(()),
    };
    p.set(0, vec![Dim::Value(value); *n as usize]);
    Ok(())
}

/// An integer `Range` of known scalars.
fn range_data(p: &mut DataNode) -> Outcome {
    if !matches!(p.node().input(0).map(Type::elem_type), Some(INT64 | INT32)) {
        return Ok(());
    }
    let scalar = |i: usize| match p.input(i) {
        Some([Dim::Value(v)]) => Some(*v),
        _ => None,
    };
    let (Some(start), Some(limit), Some(delta)) = (scalar(0), scalar(1), scalar(2)) else {
        return Ok(());
    };
    let Some(count) = int_range_count(start, limit, delta) else {
        return Ok(());
    };
    if count > MAX_GENERATED_ELEMENTS as i64 {
        return Ok(());
    }
    let value = |i: i64| i.checked_mul(delta).and_then(|step| start.checked_add(step));
    let values = (0..count).map(|i| value(i).map_or(Dim::Unknown, Dim::Value)).collect();
    p.set(0, values);
    Ok(())
}
