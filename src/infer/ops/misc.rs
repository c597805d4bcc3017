//! Operators with data-dependent or index outputs: `TopK`, `Unique`,
//! `NonMaxSuppression`, `BitCast`.

use super::common::*;

pub(super) const RULES: &[Rule] = &[
    Rule::new("TopK", 1, top_k),
    Rule::new("Unique", 11, unique),
    Rule::new("NonMaxSuppression", 10, non_max_suppression),
    Rule::new("BitCast", 26, bit_cast),
];

fn top_k(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    node.set_elem(1, INT64);
    let input = node.shape(0)?;
    let rank = input.len() as i64;
    let mut axis = node.int_or("axis", -1);
    if axis < 0 {
        axis += rank;
    }
    if axis < 0 || axis >= rank {
        return failed(ErrorKind::AxisOutOfRange, format!("`axis` is out of range for rank {rank}"));
    }
    let axis = axis as usize;
    let k = if node.version() < 10 {
        let k = node.int_or("k", -1);
        if k <= 0 {
            return failed(ErrorKind::Invalid, format!("`k` is {k}"));
        }
        Some(k)
    } else {
        match (node.constant(1), &input[axis]) {
            (Some(k), Dim::Value(size)) => {
                if k.dims != [1] {
                    return failed(ErrorKind::Invalid, "`K` must be a 1-D tensor of one element");
                }
                if k.data_type != Some(INT64) {
                    return failed(ErrorKind::Invalid, "`K` must be int64");
                }
                let k = crate::infer::data::int_values(k).and_then(|v| v.first().copied()).known()?;
                if *size < k {
                    return failed(
                        ErrorKind::IncompatibleShapes,
                        format!("axis {axis} has {size} elements, fewer than k = {k}"),
                    );
                }
                Some(k)
            }
            _ => None,
        }
    };
    let shape = match k {
        Some(k) => {
            let mut shape = input.to_vec();
            shape[axis] = Dim::Value(k);
            shape
        }
        None => vec![Dim::Unknown; input.len()],
    };
    node.set_shape(0, shape.clone());
    node.set_shape(1, shape);
    Ok(())
}

fn unique(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    for i in 1..node.output_count().min(4) {
        node.set_tensor(i, INT64, vec![Dim::Unknown]);
    }
    let Some(given) = node.attr("axis").map(|a| a.i.unwrap_or(0)) else {
        node.set_shape(0, vec![Dim::Unknown]);
        return Ok(());
    };
    let input = node.shape(0)?;
    let rank = input.len() as i64;
    let axis = if given < 0 { given + rank } else { given };
    if axis < 0 || axis >= rank {
        return failed(ErrorKind::AxisOutOfRange, format!("`axis` {given} is out of range for rank {rank}"));
    }
    let mut shape = input.to_vec();
    shape[axis as usize] = Dim::Unknown;
    node.set_shape(0, shape);
    Ok(())
}

fn non_max_suppression(node: &mut Node) -> Outcome {
    if node.version() < 11 {
        node.set_elem(0, INT64);
    } else {
        node.set_tensor(0, INT64, vec![Dim::Unknown, Dim::Value(3)]);
    }
    Ok(())
}

/// The width in bits of an element type, 0 for those without one.
fn bit_width(elem_type: i32) -> u32 {
    use DataType as D;
    match DataType::try_from(elem_type) {
        Ok(D::Float | D::Int32 | D::Uint32) => 32,
        Ok(D::Double | D::Int64 | D::Uint64 | D::Complex64) => 64,
        Ok(D::Complex128) => 128,
        Ok(D::Float16 | D::Bfloat16 | D::Int16 | D::Uint16) => 16,
        Ok(
            D::Int8
            | D::Uint8
            | D::Bool
            | D::Float8e4m3fn
            | D::Float8e4m3fnuz
            | D::Float8e5m2
            | D::Float8e5m2fnuz
            | D::Float8e8m0,
        ) => 8,
        Ok(D::Int4 | D::Uint4 | D::Float4e2m1) => 4,
        Ok(D::Int2 | D::Uint2) => 2,
        _ => 0,
    }
}

fn bit_cast(node: &mut Node) -> Outcome {
    let to = node.int("to").known()? as i32;
    if let Some(input) = node.input(0).and_then(Type::as_tensor) {
        let (from_bits, to_bits) = (bit_width(input.elem_type), bit_width(to));
        if from_bits != 0 && to_bits != 0 && from_bits != to_bits {
            return failed(
                ErrorKind::TypeMismatch,
                format!("`BitCast` keeps the bit width: the input has {from_bits} bits, `to` {to_bits}"),
            );
        }
    }
    if DataType::try_from(to).is_err() {
        return failed(ErrorKind::Invalid, format!("`to` is {to}, which names no element type"));
    }
    node.set_elem(0, to);
    if node.shape_opt(0).is_some() {
        node.copy_shape(0, 0)?;
    }
    Ok(())
}
