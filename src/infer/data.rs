//! What inference knows of values' contents: the elements of constant
//! tensors (initializers, `Constant` nodes), read as integers or floats, and
//! the small integer tensors that data propagation computes (a shape taken
//! with `Shape`, gathered, sliced, concatenated), held as [`Dim`]s so that a
//! named size stays named.

use crate::proto::tensor_proto::{DataLocation, DataType};
use crate::proto::TensorProto;
use crate::tensor_data::{bits_to_f64, is_narrow_float, unpack_raw, TypedValues};

use super::types::{Dim, Type};

/// The most elements a constant may have for inference to read it. Shapes,
/// axes, pads and the like are small; reading a weight matrix would only
/// cost time.
pub const MAX_CONSTANT_ELEMENTS: usize = 1 << 16;

/// The most elements data propagation keeps for one value: a value whose
/// contents would be longer (a `Concat` of a value with itself, again and
/// again) gets unknown contents; its shape is still inferred.
pub const MAX_PROPAGATED_ELEMENTS: usize = MAX_CONSTANT_ELEMENTS;

/// The most elements data propagation reads and makes in one inference,
/// all nodes together (subgraphs and function bodies included): past it,
/// the values after get unknown contents, so that memory and time stay
/// bounded on any model.
pub const MAX_PROPAGATED_TOTAL: usize = 1 << 22;

/// The most elements `Range` and `ConstantOfShape` generate as propagated
/// contents: the shapes they make are short.
pub const MAX_GENERATED_ELEMENTS: usize = 1 << 10;

/// The number of elements `tensor`'s dims say it has; `None` on a negative
/// dim, an overflow or more than [`MAX_CONSTANT_ELEMENTS`].
pub fn element_count(tensor: &TensorProto) -> Option<usize> {
    let mut count: usize = 1;
    for &d in &tensor.dims {
        count = count.checked_mul(usize::try_from(d).ok()?)?;
    }
    (count <= MAX_CONSTANT_ELEMENTS).then_some(count)
}

/// The elements of an integer tensor (any width, `bool` too), in order;
/// `None` for other types, external data, or data that does not match the
/// dims.
pub fn int_values(tensor: &TensorProto) -> Option<Vec<i64>> {
    let data_type = tensor.data_type?;
    if !is_integer(data_type) {
        return None;
    }
    let values = typed_values(tensor)?;
    let ints: Vec<i64> = match values {
        TypedValues::Int32(v) => v.into_iter().map(i64::from).collect(),
        TypedValues::Int64(v) => v,
        TypedValues::Uint64(v) => v.into_iter().map(|x| x as i64).collect(),
        _ => return None,
    };
    Some(ints)
}

/// The elements of a numeric tensor as `f64` (integers converted); `None`
/// for strings, complex numbers, external data, or data that does not match
/// the dims.
pub fn float_values(tensor: &TensorProto) -> Option<Vec<f64>> {
    let data_type = tensor.data_type?;
    if is_integer(data_type) {
        return Some(int_values(tensor)?.into_iter().map(|v| v as f64).collect());
    }
    Some(match typed_values(tensor)? {
        TypedValues::Float(v) => v.into_iter().map(f64::from).collect(),
        TypedValues::Double(v) => v,
        TypedValues::Int32(bits) if is_narrow_float(data_type) => bits
            .into_iter()
            .map(|b| bits_to_f64(data_type, b as u32))
            .collect::<Option<_>>()?,
        _ => return None,
    })
}

fn is_integer(data_type: i32) -> bool {
    use DataType as D;
    [
        D::Int8,
        D::Int16,
        D::Int32,
        D::Int64,
        D::Uint8,
        D::Uint16,
        D::Uint32,
        D::Uint64,
        D::Bool,
        D::Int4,
        D::Uint4,
        D::Int2,
        D::Uint2,
    ]
    .iter()
    .any(|&t| t as i32 == data_type)
}

/// The elements in the typed field's representation, from `raw_data` or
/// the typed field, when their count matches the dims.
fn typed_values(tensor: &TensorProto) -> Option<TypedValues> {
    if tensor.data_location == Some(DataLocation::External as i32)
        || !tensor.external_data.is_empty()
    {
        return None;
    }
    let data_type = tensor.data_type?;
    let count = element_count(tensor)?;
    if let Some(raw) = &tensor.raw_data {
        return unpack_raw(data_type, raw, count);
    }
    use DataType as D;
    let values = match DataType::try_from(data_type).ok()? {
        D::Int64 => TypedValues::Int64(tensor.int64_data.clone()),
        D::Uint32 | D::Uint64 => TypedValues::Uint64(tensor.uint64_data.clone()),
        D::Float => TypedValues::Float(tensor.float_data.clone()),
        D::Double => TypedValues::Double(tensor.double_data.clone()),
        D::String | D::Complex64 | D::Complex128 | D::Undefined => return None,
        _ => TypedValues::Int32(tensor.int32_data.clone()),
    };
    (values.len() == count).then_some(values)
}

/// The symbolic contents of a constant, as data propagation reads it: an
/// `int64` or `int32` tensor of rank 0 or 1, as dims.
pub fn constant_dims(tensor: &TensorProto) -> Option<Vec<Dim>> {
    let int_type = [DataType::Int64 as i32, DataType::Int32 as i32];
    if tensor.dims.len() > 1 || !int_type.contains(&tensor.data_type?) {
        return None;
    }
    Some(int_values(tensor)?.into_iter().map(Dim::Value).collect())
}

/// What data propagation assumes of a 1-D tensor of known length whose
/// elements it does not know: that many unknown dims.
pub fn unknown_dims_of(ty: &Type) -> Option<Vec<Dim>> {
    match ty {
        Type::Tensor(t) => match t.shape.as_deref() {
            Some([Dim::Value(n)]) if (0..=MAX_CONSTANT_ELEMENTS as i64).contains(n) => {
                Some(vec![Dim::Unknown; *n as usize])
            }
            _ => None,
        },
        _ => None,
    }
}

/// The type of a constant tensor: its element type and dims.
pub fn tensor_type(tensor: &TensorProto) -> Type {
    Type::tensor(
        tensor.data_type.unwrap_or(0),
        tensor.dims.iter().map(|&d| Dim::Value(d)).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(text: &str) -> TensorProto {
        crate::parse_tensor(text).unwrap()
    }

    #[test]
    fn integers_and_floats_are_read_from_typed_fields_and_raw_data() {
        assert_eq!(
            int_values(&tensor("int64[3] {1, -2, 3}")),
            Some(vec![1, -2, 3])
        );
        assert_eq!(int_values(&tensor("int32[2] {7, 8}")), Some(vec![7, 8]));
        assert_eq!(
            float_values(&tensor("float[2] {0.5, 2}")),
            Some(vec![0.5, 2.0])
        );
        assert_eq!(float_values(&tensor("int8[1] {-3}")), Some(vec![-3.0]));
        assert_eq!(int_values(&tensor("float[1] {1}")), None);
        let mut raw = tensor("int64[2] {5, 6}");
        raw.int64_data.clear();
        raw.raw_data = Some([5i64, 6].iter().flat_map(|v| v.to_le_bytes()).collect());
        assert_eq!(int_values(&raw), Some(vec![5, 6]));
        raw.dims = vec![3];
        assert_eq!(int_values(&raw), None, "the data does not match the dims");
    }

    #[test]
    fn rank_0_and_1_integer_constants_are_dims() {
        assert_eq!(
            constant_dims(&tensor("int64[2] {2, 3}")),
            Some(vec![Dim::Value(2), Dim::Value(3)])
        );
        assert_eq!(
            constant_dims(&tensor("int64 {4}")),
            Some(vec![Dim::Value(4)])
        );
        assert_eq!(constant_dims(&tensor("int64[1,1] {4}")), None);
        assert_eq!(constant_dims(&tensor("int8[1] {4}")), None);
    }
}
