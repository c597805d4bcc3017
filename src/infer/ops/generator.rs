//! Operators whose output type comes from an attribute or a value rather
//! than from their inputs' types: `Constant`, `ConstantOfShape`, `Cast`,
//! `CastLike`, `EyeLike`, `Range` and the random generators; with data
//! propagation through `Cast`.

use super::common::*;
use crate::infer::data::{float_values, int_values, MAX_GENERATED_ELEMENTS};
use crate::name_key::same;
use crate::proto::{AttributeProto, TensorProto};

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
    // One pass over the attributes: which of the names are given (each
    // once, however often it is written), and the first attribute of each.
    let mut first: [Option<&AttributeProto>; VALUES.len()] = [None; VALUES.len()];
    for attribute in node.attributes {
        let name = attribute.name.as_deref().unwrap_or("");
        if let Some(k) = VALUES.iter().position(|v| same(v, name)) {
            first[k].get_or_insert(attribute);
        }
    }
    let given = || VALUES.into_iter().zip(first).filter_map(|(n, a)| Some((n, a?)));
    let mut found = given();
    let (Some((which, attr)), None) = (found.next(), found.next()) else {
        let given: Vec<&str> = given().map(|(n, _)| n).collect();
        return failed(
            ErrorKind::Invalid,
            format!(
                "a Constant has exactly one of `value`, `sparse_value` and `value_*`; this one has {}",
                if given.is_empty() { "none".to_owned() } else { given.join(", ") }
            ),
        );
    };
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

#[cfg(test)]
mod tests {
    use crate::infer::{infer_model, Options};
    use crate::proto::{AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto};

    /// The names a `Constant` may be given its value by, each with the
    /// type a `Constant` holding only it has (`None`: nothing inferred).
    const KINDS: [(&str, Option<&str>); 8] = [
        ("value", Some("int32[3]")),
        ("sparse_value", None),
        ("value_int", Some("int64")),
        ("value_ints", Some("int64[2]")),
        ("value_float", Some("float")),
        ("value_floats", Some("float[4]")),
        ("value_string", Some("string")),
        ("value_strings", Some("string[5]")),
    ];

    fn attribute(name: &str) -> AttributeProto {
        AttributeProto {
            name: Some(name.to_owned()),
            t: Some(Box::new(TensorProto {
                dims: vec![3],
                data_type: Some(6),
                int32_data: vec![1, 2, 3],
                ..TensorProto::default()
            })),
            ints: vec![1, 2],
            floats: vec![0.5; 4],
            strings: vec![b"s".to_vec(); 5],
            ..AttributeProto::default()
        }
    }

    /// What inference makes of a `Constant` node with attributes named
    /// `names`, in this order: the output's type or the error's message.
    fn constant(names: &[&str]) -> Result<Option<String>, String> {
        let node = NodeProto {
            op_type: Some("Constant".into()),
            output: vec!["c".into()],
            attribute: names.iter().map(|n| attribute(n)).collect(),
            ..NodeProto::default()
        };
        let model = ModelProto {
            ir_version: Some(10),
            opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(21) }],
            graph: Some(GraphProto { name: Some("g".into()), node: vec![node], ..GraphProto::default() }),
            ..ModelProto::default()
        };
        let inference = infer_model(&model, Options::default());
        if let Some(finding) = inference.findings().first() {
            return Err(finding.summary.clone());
        }
        Ok(inference.value_type("graph", "c").map(ToString::to_string))
    }

    #[test]
    fn a_constant_has_the_type_of_the_one_value_it_is_given_and_two_are_an_error() {
        for (name, ty) in KINDS {
            // An attribute of another name, before or after, changes nothing.
            for names in [vec![name], vec!["other", name], vec![name, "other"]] {
                assert_eq!(constant(&names).as_ref().map(Option::as_deref), Ok(ty), "{names:?}");
            }
        }
        // The same name twice counts once: the first is read.
        assert_eq!(constant(&["value_ints", "value_ints"]), Ok(Some("int64[2]".into())));
        let error = |given: &str| {
            Err(format!(
                "a Constant has exactly one of `value`, `sparse_value` and `value_*`; this one has {given}"
            ))
        };
        assert_eq!(constant(&[]), error("none"));
        assert_eq!(constant(&["other"]), error("none"));
        // Two names are listed in the order of the schema, however written.
        for (i, (first, _)) in KINDS.iter().enumerate() {
            for (second, _) in &KINDS[i + 1..] {
                let listed = error(&format!("{first}, {second}"));
                assert_eq!(constant(&[first, second]), listed);
                assert_eq!(constant(&[second, first, second]), listed);
            }
        }
    }
}
