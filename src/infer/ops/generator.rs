//! Operators whose output type comes from an attribute or a value rather
//! than from their inputs' types: `Constant`, `ConstantOfShape`, `Cast`,
//! `CastLike`, `EyeLike`, `Range` and the random generators; with data
//! propagation through `Cast`.

use super::common::*;
use crate::infer::data::{float_values, int_values};
use crate::proto::TensorProto;

pub(super) const RULES: &[Rule] = &[
    Rule::new("Constant", 1, constant),
    Rule::new("ConstantOfShape", 9, constant_of_shape),
    Rule::new("Cast", 6, cast).until(12),
    Rule::new("Cast", 13, cast).propagate(cast_data),
    Rule::new("CastLike", 15, cast_like),
    Rule::new("EyeLike", 9, eye_like),
    Rule::new("RandomNormal", 1, random),
    Rule::new("RandomUniform", 1, random),
    Rule::new("RandomNormalLike", 1, random_like),
    Rule::new("RandomUniformLike", 1, random_like),
    Rule::new("Bernoulli", 15, random_like),
    Rule::new("Multinomial", 7, multinomial),
    Rule::new("Range", 11, range),
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
        "sparse_value" => {
            let sparse = attr.sparse_tensor.as_ref().known()?;
            let elem = sparse.values.as_ref().and_then(|v| v.data_type).unwrap_or(UNDEFINED);
            Type::SparseTensor(TensorType {
                elem_type: elem,
                shape: Some(sparse.dims.iter().map(|&d| Dim::Value(d)).collect()),
            })
        }
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

fn cast_data(p: &mut Propagation) -> Outcome {
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
    let first = |t: &TensorProto| -> Option<f64> {
        if elem == INT64 || elem == INT32 {
            int_values(t)?.first().map(|&v| v as f64)
        } else {
            float_values(t)?.first().copied()
        }
    };
    let (Some(s), Some(l), Some(d)) = (first(start), first(limit), first(delta)) else {
        return Ok(None);
    };
    // The difference in the elements' own type, as onnx computes it.
    let span = match elem {
        FLOAT => f64::from(l as f32 - s as f32),
        INT32 => f64::from((l as i32).wrapping_sub(s as i32)),
        _ => l - s,
    };
    let n = (span / d).ceil();
    Ok(n.is_finite().then(|| (n as i64).max(0)))
}
