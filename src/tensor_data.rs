//! Tensor element storage: which typed field of `TensorProto` holds the
//! values of each data type, how those values are laid out in `raw_data`,
//! and conversions between decimal values and the bit patterns of the narrow
//! floating-point types (float16, bfloat16, float8, float6, float4).
//!
//! The typed representation is the one the reference text parser produces:
//! every element type narrower than 32 bits (including the float-ish ones,
//! as bit patterns, and the sub-byte ones, one entry per element) lives in
//! `int32_data`; `raw_data` is the packed little-endian form described in the
//! ONNX IR specification.
//!
//! Narrow float rounding follows what `onnx.helper.make_tensor` (onnx 1.23.2)
//! does to Python floats; see [`float_to_bits`] for the exact rules.

use crate::proto::tensor_proto::DataType;
use crate::vocabulary::ELEMENT_TYPES;

const FLOAT: i32 = DataType::Float as i32;
const UINT8: i32 = DataType::Uint8 as i32;
const INT8: i32 = DataType::Int8 as i32;
const UINT16: i32 = DataType::Uint16 as i32;
const INT16: i32 = DataType::Int16 as i32;
const INT32: i32 = DataType::Int32 as i32;
const INT64: i32 = DataType::Int64 as i32;
const STRING: i32 = DataType::String as i32;
const BOOL: i32 = DataType::Bool as i32;
const FLOAT16: i32 = DataType::Float16 as i32;
const DOUBLE: i32 = DataType::Double as i32;
const UINT32: i32 = DataType::Uint32 as i32;
const UINT64: i32 = DataType::Uint64 as i32;
const COMPLEX64: i32 = DataType::Complex64 as i32;
const COMPLEX128: i32 = DataType::Complex128 as i32;
const BFLOAT16: i32 = DataType::Bfloat16 as i32;
const FLOAT8E4M3FN: i32 = DataType::Float8e4m3fn as i32;
const FLOAT8E4M3FNUZ: i32 = DataType::Float8e4m3fnuz as i32;
const FLOAT8E5M2: i32 = DataType::Float8e5m2 as i32;
const FLOAT8E5M2FNUZ: i32 = DataType::Float8e5m2fnuz as i32;
const UINT4: i32 = DataType::Uint4 as i32;
const INT4: i32 = DataType::Int4 as i32;
const FLOAT4E2M1: i32 = DataType::Float4e2m1 as i32;
const FLOAT8E8M0: i32 = DataType::Float8e8m0 as i32;
const UINT2: i32 = DataType::Uint2 as i32;
const INT2: i32 = DataType::Int2 as i32;
const FLOAT6E2M3: i32 = DataType::Float6e2m3 as i32;
const FLOAT6E3M2: i32 = DataType::Float6e3m2 as i32;

// ---------------------------------------------------------------------------
// Typed fields
// ---------------------------------------------------------------------------

/// One of the typed repeated fields of `TensorProto`, each variant named
/// after its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(clippy::enum_variant_names)]
pub(crate) enum TypedField {
    /// `int32_data`.
    Int32Data,
    /// `int64_data`.
    Int64Data,
    /// `uint64_data`.
    Uint64Data,
    /// `float_data`.
    FloatData,
    /// `double_data`.
    DoubleData,
    /// `string_data`.
    StringData,
}

/// Element values in the representation of one typed field of `TensorProto`.
///
/// For types narrower than 32 bits the `Int32` entries are small integers
/// (one entry per element, sub-byte types included) or, for the float-ish
/// narrow types, the raw bit pattern (float16 1.0 is 15360). Complex types
/// hold two entries per element, real part first.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TypedValues {
    /// Contents of `int32_data`.
    Int32(Vec<i32>),
    /// Contents of `int64_data`.
    Int64(Vec<i64>),
    /// Contents of `uint64_data`.
    Uint64(Vec<u64>),
    /// Contents of `float_data`.
    Float(Vec<f32>),
    /// Contents of `double_data`.
    Double(Vec<f64>),
    /// Contents of `string_data` (made only by `diff`).
    #[cfg_attr(not(feature = "diff"), allow(dead_code))]
    Bytes(Vec<Vec<u8>>),
}

impl TypedValues {
    /// The field these values belong in.
    pub fn field(&self) -> TypedField {
        match self {
            TypedValues::Int32(_) => TypedField::Int32Data,
            TypedValues::Int64(_) => TypedField::Int64Data,
            TypedValues::Uint64(_) => TypedField::Uint64Data,
            TypedValues::Float(_) => TypedField::FloatData,
            TypedValues::Double(_) => TypedField::DoubleData,
            TypedValues::Bytes(_) => TypedField::StringData,
        }
    }

    /// Number of entries (not elements: complex types have two per
    /// element). Used by `diff`.
    #[cfg_attr(not(feature = "diff"), allow(dead_code))]
    pub fn len(&self) -> usize {
        match self {
            TypedValues::Int32(v) => v.len(),
            TypedValues::Int64(v) => v.len(),
            TypedValues::Uint64(v) => v.len(),
            TypedValues::Float(v) => v.len(),
            TypedValues::Double(v) => v.len(),
            TypedValues::Bytes(v) => v.len(),
        }
    }
}

/// The typed field the reference text parser stores literals of
/// `data_type` in; `None` for `UNDEFINED` and unknown codes.
pub fn typed_field(data_type: i32) -> Option<TypedField> {
    Some(match data_type {
        INT2 | INT4 | INT8 | INT16 | INT32 | UINT2 | UINT4 | UINT8 | UINT16 | BOOL | FLOAT16
        | BFLOAT16 | FLOAT8E4M3FN | FLOAT8E4M3FNUZ | FLOAT8E5M2 | FLOAT8E5M2FNUZ | FLOAT8E8M0
        | FLOAT4E2M1 | FLOAT6E2M3 | FLOAT6E3M2 => TypedField::Int32Data,
        INT64 => TypedField::Int64Data,
        UINT32 | UINT64 => TypedField::Uint64Data,
        FLOAT | COMPLEX64 => TypedField::FloatData,
        DOUBLE | COMPLEX128 => TypedField::DoubleData,
        STRING => TypedField::StringData,
        _ => return None,
    })
}

fn type_name(data_type: i32) -> String {
    ELEMENT_TYPES
        .iter()
        .find(|(_, t)| *t as i32 == data_type)
        .map_or_else(
            || format!("data type {data_type}"),
            |(n, _)| (*n).to_string(),
        )
}

/// The name of `field` in `TensorProto`.
pub(crate) fn field_name(field: TypedField) -> &'static str {
    match field {
        TypedField::Int32Data => "int32_data",
        TypedField::Int64Data => "int64_data",
        TypedField::Uint64Data => "uint64_data",
        TypedField::FloatData => "float_data",
        TypedField::DoubleData => "double_data",
        TypedField::StringData => "string_data",
    }
}

// ---------------------------------------------------------------------------
// raw_data layout
// ---------------------------------------------------------------------------

/// How one data type is laid out in `raw_data`.
#[derive(Clone, Copy)]
enum Layout {
    /// `int32_data` entries in `[min, max]`, stored in `width` bytes each
    /// (sign-extended on the way back when `min < 0`).
    Narrow {
        width: usize,
        min: i32,
        max: i32,
    },
    /// `int32_data` entries of `bits` bits (2, 4 or 6) packed LSB first.
    Packed {
        bits: u32,
        signed: bool,
    },
    Int64,
    /// `uint64_data` entries stored in `width` bytes (4 or 8).
    Uint64 {
        width: usize,
    },
    /// `float_data`, `per_element` entries per element.
    Float {
        per_element: usize,
    },
    /// `double_data`, `per_element` entries per element.
    Double {
        per_element: usize,
    },
}

fn layout(data_type: i32) -> Option<Layout> {
    let narrow = |width, min, max| Layout::Narrow { width, min, max };
    Some(match data_type {
        INT32 => narrow(4, i32::MIN, i32::MAX),
        INT16 => narrow(2, i16::MIN.into(), i16::MAX.into()),
        UINT16 | FLOAT16 | BFLOAT16 => narrow(2, 0, u16::MAX.into()),
        INT8 => narrow(1, i8::MIN.into(), i8::MAX.into()),
        UINT8 | FLOAT8E4M3FN | FLOAT8E4M3FNUZ | FLOAT8E5M2 | FLOAT8E5M2FNUZ | FLOAT8E8M0 => {
            narrow(1, 0, u8::MAX.into())
        }
        BOOL => narrow(1, 0, 1),
        UINT4 | FLOAT4E2M1 => Layout::Packed {
            bits: 4,
            signed: false,
        },
        INT4 => Layout::Packed {
            bits: 4,
            signed: true,
        },
        UINT2 => Layout::Packed {
            bits: 2,
            signed: false,
        },
        INT2 => Layout::Packed {
            bits: 2,
            signed: true,
        },
        FLOAT6E2M3 | FLOAT6E3M2 => Layout::Packed {
            bits: 6,
            signed: false,
        },
        INT64 => Layout::Int64,
        UINT32 => Layout::Uint64 { width: 4 },
        UINT64 => Layout::Uint64 { width: 8 },
        FLOAT => Layout::Float { per_element: 1 },
        COMPLEX64 => Layout::Float { per_element: 2 },
        DOUBLE => Layout::Double { per_element: 1 },
        COMPLEX128 => Layout::Double { per_element: 2 },
        _ => return None,
    })
}

/// Number of `raw_data` bytes `element_count` elements of `data_type`
/// occupy; `None` for strings, unknown types and arithmetic overflow.
pub fn raw_byte_len(data_type: i32, element_count: usize) -> Option<usize> {
    match layout(data_type)? {
        Layout::Narrow { width, .. } => element_count.checked_mul(width),
        Layout::Packed { bits, .. } => Some(element_count.checked_mul(bits as usize)?.div_ceil(8)),
        Layout::Int64 => element_count.checked_mul(8),
        Layout::Uint64 { width } => element_count.checked_mul(width),
        Layout::Float { per_element } => element_count.checked_mul(4 * per_element),
        Layout::Double { per_element } => element_count.checked_mul(8 * per_element),
    }
}

/// Encodes typed values as `raw_data` bytes (little-endian, sub-byte types
/// packed as the IR specification prescribes, padding bits zero).
///
/// `values` must be in the field [`typed_field`] names for `data_type`, with
/// one entry per element (two for complex types). Entries that do not fit
/// the element type (e.g. 16 for `uint4`, -1 for `float16` bit patterns,
/// 2 for `bool`) are an error, as are string tensors, which cannot use
/// `raw_data`.
pub fn pack_raw(data_type: i32, values: &TypedValues) -> Result<Vec<u8>, String> {
    let Some(layout) = layout(data_type) else {
        return Err(if data_type == STRING {
            "string tensors cannot be stored in raw_data".to_string()
        } else {
            format!("{} has no raw_data encoding", type_name(data_type))
        });
    };
    let expected = typed_field(data_type).expect("every type with a layout has a field");
    let mismatch = || {
        format!(
            "{} values belong in {}, not {}",
            type_name(data_type),
            field_name(expected),
            field_name(values.field())
        )
    };
    match (layout, values) {
        (Layout::Narrow { width, min, max }, TypedValues::Int32(v)) => {
            check_range(data_type, v, min, max)?;
            Ok(match width {
                1 => pack_fixed(v, |x| [x as u8]),
                2 => pack_fixed(v, |x| (x as u16).to_le_bytes()),
                _ => pack_fixed(v, |x| x.to_le_bytes()),
            })
        }
        (Layout::Packed { bits, signed }, TypedValues::Int32(v)) => {
            let (min, max) = if signed {
                (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            } else {
                (0, (1 << bits) - 1)
            };
            check_range(data_type, v, min, max)?;
            Ok(match bits {
                2 => pack_sub_byte::<2>(v),
                4 => pack_sub_byte::<4>(v),
                _ => pack_sub_byte::<6>(v),
            })
        }
        (Layout::Int64, TypedValues::Int64(v)) => Ok(pack_fixed(v, i64::to_le_bytes)),
        (Layout::Uint64 { width: 4 }, TypedValues::Uint64(v)) => {
            if let Some(i) = v.iter().position(|&x| x > u64::from(u32::MAX)) {
                return Err(out_of_range(data_type, i, v[i], 0, u32::MAX));
            }
            Ok(pack_fixed(v, |x| (x as u32).to_le_bytes()))
        }
        (Layout::Uint64 { .. }, TypedValues::Uint64(v)) => Ok(pack_fixed(v, u64::to_le_bytes)),
        (Layout::Float { per_element }, TypedValues::Float(v)) => {
            check_pairs(data_type, v.len(), per_element)?;
            Ok(pack_fixed(v, f32::to_le_bytes))
        }
        (Layout::Double { per_element }, TypedValues::Double(v)) => {
            check_pairs(data_type, v.len(), per_element)?;
            Ok(pack_fixed(v, f64::to_le_bytes))
        }
        _ => Err(mismatch()),
    }
}

/// Decodes `raw_data` bytes holding `element_count` elements of `data_type`
/// into the typed representation [`pack_raw`] takes.
///
/// Returns `None` when the bytes cannot be represented exactly that way:
/// a length other than [`raw_byte_len`], non-zero padding bits after the
/// last sub-byte element, a `bool` byte other than 0 or 1, a string or
/// unknown type. Signed sub-byte types come back sign-extended (`int4`
/// nibble `0xF` is -1). Whenever this returns `Some(v)`,
/// `pack_raw(data_type, &v)` gives back exactly `raw`.
pub fn unpack_raw(data_type: i32, raw: &[u8], element_count: usize) -> Option<TypedValues> {
    let layout = layout(data_type)?;
    if raw.len() != raw_byte_len(data_type, element_count)? {
        return None;
    }
    Some(match layout {
        Layout::Narrow { width, min, max } => {
            let v: Vec<i32> = match (width, min < 0) {
                (1, false) => raw.iter().map(|&b| i32::from(b)).collect(),
                (1, true) => raw.iter().map(|&b| i32::from(b as i8)).collect(),
                (2, false) => unpack_fixed(raw, |b: [u8; 2]| i32::from(u16::from_le_bytes(b))),
                (2, true) => unpack_fixed(raw, |b: [u8; 2]| i32::from(i16::from_le_bytes(b))),
                _ => unpack_fixed(raw, i32::from_le_bytes),
            };
            // Only types whose range is narrower than their width (bool) can
            // hold bytes with no typed form.
            let full_range = i64::from(max) - i64::from(min) == (1i64 << (8 * width)) - 1;
            if !full_range && v.iter().any(|&x| x < min || x > max) {
                return None;
            }
            TypedValues::Int32(v)
        }
        Layout::Packed { bits, signed } => TypedValues::Int32(match bits {
            2 => unpack_sub_byte::<2>(raw, element_count, signed)?,
            4 => unpack_sub_byte::<4>(raw, element_count, signed)?,
            _ => unpack_sub_byte::<6>(raw, element_count, signed)?,
        }),
        Layout::Int64 => TypedValues::Int64(unpack_fixed(raw, i64::from_le_bytes)),
        Layout::Uint64 { width: 4 } => {
            TypedValues::Uint64(unpack_fixed(raw, |b| u64::from(u32::from_le_bytes(b))))
        }
        Layout::Uint64 { .. } => TypedValues::Uint64(unpack_fixed(raw, u64::from_le_bytes)),
        Layout::Float { .. } => TypedValues::Float(unpack_fixed(raw, f32::from_le_bytes)),
        Layout::Double { .. } => TypedValues::Double(unpack_fixed(raw, f64::from_le_bytes)),
    })
}

/// The elements of `raw_data` that [`unpack_raw`] unpacks into floats or
/// doubles (`float`, `double`, `complex64`, `complex128`), borrowed as
/// their little-endian bytes instead: the same elements, when and only
/// when `unpack_raw` gives them, not copied.
pub(crate) enum RawFloats<'a> {
    F32(&'a [[u8; 4]]),
    F64(&'a [[u8; 8]]),
}

/// [`RawFloats`] of `raw`, the `raw_data` of `element_count` elements of
/// `data_type`.
pub(crate) fn raw_floats(
    data_type: i32,
    raw: &[u8],
    element_count: usize,
) -> Option<RawFloats<'_>> {
    let layout = layout(data_type)?;
    if raw.len() != raw_byte_len(data_type, element_count)? {
        return None;
    }
    match layout {
        Layout::Float { .. } => Some(RawFloats::F32(byte_groups(raw))),
        Layout::Double { .. } => Some(RawFloats::F64(byte_groups(raw))),
        _ => None,
    }
}

/// `bytes` as groups of `N` (the last `bytes.len() % N` left out), in
/// place: `slice::as_chunks`, which the crate's oldest supported Rust
/// lacks.
pub(crate) fn byte_groups<const N: usize>(bytes: &[u8]) -> &[[u8; N]] {
    // SAFETY: `[u8; N]` has the size of `N` bytes and the alignment of
    // `u8`, so the first `bytes.len() / N * N` bytes of `bytes`, valid and
    // borrowed for the result's lifetime, are that many groups.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len() / N) }
}

fn out_of_range(
    data_type: i32,
    index: usize,
    value: impl std::fmt::Display,
    min: impl std::fmt::Display,
    max: impl std::fmt::Display,
) -> String {
    format!(
        "value {value} at index {index} is out of range for {} ({min}..={max})",
        type_name(data_type)
    )
}

fn check_range(data_type: i32, v: &[i32], min: i32, max: i32) -> Result<(), String> {
    if min == i32::MIN && max == i32::MAX {
        return Ok(());
    }
    match v.iter().position(|&x| x < min || x > max) {
        Some(i) => Err(out_of_range(data_type, i, v[i], min, max)),
        None => Ok(()),
    }
}

fn check_pairs(data_type: i32, len: usize, per_element: usize) -> Result<(), String> {
    if len % per_element == 0 {
        Ok(())
    } else {
        Err(format!(
            "{} needs {per_element} values per element, got {len} values",
            type_name(data_type)
        ))
    }
}

/// Writes every value as `N` bytes, without per-element allocation.
fn pack_fixed<T: Copy, const N: usize>(v: &[T], encode: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    let mut out = vec![0u8; v.len() * N];
    for (dst, &x) in out.chunks_exact_mut(N).zip(v) {
        dst.copy_from_slice(&encode(x));
    }
    out
}

/// Reads `raw` (whose length is a multiple of `N`) as `N`-byte values.
fn unpack_fixed<T, const N: usize>(raw: &[u8], decode: impl Fn([u8; N]) -> T) -> Vec<T> {
    raw.chunks_exact(N)
        .map(|c| decode(c.try_into().expect("chunk of N bytes")))
        .collect()
}

/// Elements per group and bytes per group of a `BITS`-bit packing: a group
/// is the smallest run of elements that ends on a byte boundary.
const fn group(bits: u32) -> (usize, usize) {
    match bits {
        2 => (4, 1),
        4 => (2, 1),
        _ => (4, 3),
    }
}

/// Packs range-checked values `BITS` bits each, first element in the least
/// significant bits, as one little-endian bit stream.
fn pack_sub_byte<const BITS: u32>(v: &[i32]) -> Vec<u8> {
    let (per_group, group_bytes) = group(BITS);
    let mask = (1u32 << BITS) - 1;
    let word = |c: &[i32]| {
        c.iter().enumerate().fold(0u32, |w, (j, &x)| {
            w | (((x as u32) & mask) << (j as u32 * BITS))
        })
    };
    let total = (v.len() * BITS as usize).div_ceil(8);
    let mut out = Vec::with_capacity(total + 4);
    let mut chunks = v.chunks_exact(per_group);
    for c in &mut chunks {
        out.extend_from_slice(&word(c).to_le_bytes()[..group_bytes]);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let n = total - out.len();
        out.extend_from_slice(&word(rest).to_le_bytes()[..n]);
    }
    out
}

/// Inverse of [`pack_sub_byte`]; `raw` has the right length already.
/// `None` if the padding bits of the last byte are not zero.
fn unpack_sub_byte<const BITS: u32>(raw: &[u8], count: usize, signed: bool) -> Option<Vec<i32>> {
    let (per_group, group_bytes) = group(BITS);
    let mask = (1u32 << BITS) - 1;
    let shift = 32 - BITS;
    let extract = |w: u32, j: usize| {
        let x = (w >> (j as u32 * BITS)) & mask;
        if signed {
            ((x << shift) as i32) >> shift
        } else {
            x as i32
        }
    };
    let full = count / per_group;
    let (body, tail) = raw.split_at(full * group_bytes);
    let mut out = Vec::with_capacity(count);
    for c in body.chunks_exact(group_bytes) {
        let mut b = [0u8; 4];
        b[..group_bytes].copy_from_slice(c);
        let w = u32::from_le_bytes(b);
        for j in 0..per_group {
            out.push(extract(w, j));
        }
    }
    let rest = count - full * per_group;
    if rest > 0 {
        let mut b = [0u8; 4];
        b[..tail.len()].copy_from_slice(tail);
        let w = u32::from_le_bytes(b);
        if w >> (rest as u32 * BITS) != 0 {
            return None;
        }
        for j in 0..rest {
            out.push(extract(w, j));
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------
// Narrow floats
// ---------------------------------------------------------------------------

/// Which encodings of a small binary float format are special.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Flavour {
    /// IEEE 754 style: all-ones exponent is infinity (zero mantissa) or NaN.
    Ieee,
    /// "fn": no infinities; only all-ones exponent and mantissa is NaN.
    Fn,
    /// "fnuz": no infinities, no negative zero; the negative-zero pattern is
    /// the only NaN.
    Fnuz,
    /// No infinities and no NaN: every pattern is a finite number.
    Finite,
}

/// A sign/exponent/mantissa format narrower than f32.
#[derive(Clone, Copy, Debug)]
struct Format {
    exp_bits: u32,
    man_bits: u32,
    bias: i32,
    flavour: Flavour,
    /// Out-of-range values and infinities become the largest finite value
    /// rather than infinity.
    saturate: bool,
    /// Round the f64 to f32 first (ml_dtypes converts float64 to its types
    /// through float32, so onnx double-rounds these).
    via_f32: bool,
}

/// The narrow float types: binary formats, plus the exponent-only E8M0.
#[derive(Clone, Copy, Debug)]
enum NarrowFloat {
    Binary(Format),
    E8M0,
}

fn narrow_float(data_type: i32) -> Option<NarrowFloat> {
    // (exponent bits, mantissa bits, bias, flavour, saturate, via_f32)
    let f = |exp_bits, man_bits, bias, flavour, saturate, via_f32| {
        NarrowFloat::Binary(Format {
            exp_bits,
            man_bits,
            bias,
            flavour,
            saturate,
            via_f32,
        })
    };
    Some(match data_type {
        FLOAT16 => f(5, 10, 15, Flavour::Ieee, false, false),
        BFLOAT16 => f(8, 7, 127, Flavour::Ieee, false, true),
        FLOAT8E4M3FN => f(4, 3, 7, Flavour::Fn, true, true),
        FLOAT8E4M3FNUZ => f(4, 3, 8, Flavour::Fnuz, true, true),
        FLOAT8E5M2 => f(5, 2, 15, Flavour::Ieee, true, true),
        FLOAT8E5M2FNUZ => f(5, 2, 16, Flavour::Fnuz, true, true),
        FLOAT4E2M1 => f(2, 1, 1, Flavour::Finite, true, false),
        FLOAT6E2M3 => f(2, 3, 1, Flavour::Finite, true, false),
        FLOAT6E3M2 => f(3, 2, 3, Flavour::Finite, true, false),
        FLOAT8E8M0 => NarrowFloat::E8M0,
        _ => return None,
    })
}

/// `2^k` for `k` in the normal f64 exponent range.
fn pow2(k: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&k));
    f64::from_bits(((k + 1023) as u64) << 52)
}

impl Format {
    fn sign_bit(self) -> u32 {
        1 << (self.exp_bits + self.man_bits)
    }

    fn mag_mask(self) -> u32 {
        self.sign_bit() - 1
    }

    /// The all-ones-exponent, zero-mantissa magnitude (infinity for Ieee).
    fn inf_code(self) -> u32 {
        ((1 << self.exp_bits) - 1) << self.man_bits
    }

    /// Magnitude bits of the largest finite value.
    fn max_code(self) -> u32 {
        match self.flavour {
            Flavour::Ieee => self.inf_code() - 1,
            Flavour::Fn => self.mag_mask() - 1,
            Flavour::Fnuz | Flavour::Finite => self.mag_mask(),
        }
    }

    fn decode(self, bits: u32) -> Option<f64> {
        if bits > 2 * self.sign_bit() - 1 {
            return None;
        }
        let negative = bits & self.sign_bit() != 0;
        let mag = bits & self.mag_mask();
        let signed = |x: f64| if negative { -x } else { x };
        match self.flavour {
            Flavour::Fnuz if bits == self.sign_bit() => return Some(f64::NAN),
            Flavour::Fn if mag == self.mag_mask() => return Some(signed(f64::NAN)),
            Flavour::Ieee if mag >= self.inf_code() => {
                return Some(signed(if mag == self.inf_code() {
                    f64::INFINITY
                } else {
                    f64::NAN
                }));
            }
            _ => {}
        }
        let m = self.man_bits;
        let exp = (mag >> m) as i32;
        let man = mag & ((1 << m) - 1);
        let value = if exp == 0 {
            f64::from(man) * pow2(1 - self.bias - m as i32)
        } else {
            f64::from(man | (1 << m)) * pow2(exp - self.bias - m as i32)
        };
        Some(signed(value))
    }

    /// Magnitude bits of `a` (finite, non-negative) rounded to nearest, ties
    /// to even. May exceed `max_code` when `a` is out of range.
    fn round_magnitude(self, a: f64) -> u64 {
        let b = a.to_bits();
        let biased = (b >> 52) as i32;
        if biased == 0 {
            // Zero or an f64 subnormal: far below half the smallest subnormal
            // of every format here.
            return 0;
        }
        let m = self.man_bits as i32;
        let e = biased - 1023;
        let mant = (b & ((1 << 52) - 1)) | (1 << 52);
        let e_min = 1 - self.bias;
        let e_t = e.max(e_min);
        // Quantum at exponent e_t is 2^(e_t - m); mant is in units of 2^(e - 52).
        let shift = 52 - m + (e_t - e);
        if shift >= 54 {
            // Below half the quantum (mant < 2^53 <= 2^(shift-1)); e_t == e_min.
            return 0;
        }
        let n = mant >> shift;
        let rem = mant & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        let n = if rem > half || (rem == half && n & 1 == 1) {
            n + 1
        } else {
            n
        };
        // Exponent field e_t + bias, minus the implicit leading bit's
        // contribution to n; a carry out of the mantissa bumps the exponent.
        (((e_t + self.bias - 1) as u64) << m) + n
    }

    fn encode(self, x: f64) -> u32 {
        let sign = if x.is_sign_negative() {
            self.sign_bit()
        } else {
            0
        };
        if x.is_nan() {
            return match self.flavour {
                Flavour::Ieee => sign | self.inf_code() | (1 << (self.man_bits - 1)),
                Flavour::Fn => sign | self.mag_mask(),
                Flavour::Fnuz => self.sign_bit(),
                // What ml_dtypes does: a zero whose sign is the opposite of
                // the NaN's.
                Flavour::Finite => sign ^ self.sign_bit(),
            };
        }
        let overflow = if self.saturate {
            self.max_code()
        } else {
            self.inf_code()
        };
        let a = x.abs();
        // Casting to f32 rounds to nearest even and overflows to infinity.
        let a = if self.via_f32 { f64::from(a as f32) } else { a };
        let mag = if a.is_infinite() {
            overflow
        } else {
            let r = self.round_magnitude(a);
            if r > u64::from(self.max_code()) {
                overflow
            } else {
                r as u32
            }
        };
        if mag == 0 && self.flavour == Flavour::Fnuz {
            return 0;
        }
        sign | mag
    }
}

fn e8m0_decode(bits: u32) -> Option<f64> {
    match bits {
        0xFF => Some(f64::NAN),
        0..=0xFE => Some(pow2(bits as i32 - 127)),
        _ => None,
    }
}

fn e8m0_encode(x: f64) -> u32 {
    // onnx converts to f32 first (round to nearest even; overflow gives
    // infinity, which becomes NaN below), ignores the sign, and rounds the
    // magnitude up to a power of two, saturating at 2^127.
    let f = (x as f32).abs();
    if !f.is_finite() {
        return 0xFF;
    }
    let b = f.to_bits();
    let exp = b >> 23;
    let frac = b & 0x7F_FFFF;
    if exp == 0 {
        // Zero and f32 subnormals: 0x00 (2^-127) up to 2^-127, else 2^-126.
        // (onnx gives 0x01 for every non-zero subnormal, even 2^-127 itself.)
        return u32::from(frac > 1 << 22);
    }
    if frac != 0 && exp < 0xFE {
        exp + 1
    } else {
        exp
    }
}

/// Whether `data_type` is one of the narrow float types [`float_to_bits`]
/// and [`bits_to_f64`] handle: FLOAT16, BFLOAT16, the float8, float6 and
/// float4 types.
pub fn is_narrow_float(data_type: i32) -> bool {
    narrow_float(data_type).is_some()
}

/// The bit pattern (as stored in `int32_data`) of `value` converted to the
/// narrow float type `data_type`; `None` if `data_type` is not a narrow
/// float type.
///
/// The conversion is the one `onnx.helper.make_tensor` (onnx 1.23.2)
/// applies to Python floats:
///
/// * float16: round to nearest, ties to even, directly from the f64;
///   overflow gives infinity; NaN gives `0x7E00` with the input's sign.
/// * bfloat16: the same, except that the f64 is rounded to f32 first (as
///   ml_dtypes does), so a value within half an f32 ulp of a tie rounds to
///   even; NaN gives `0x7FC0` with the input's sign.
/// * float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz: saturating
///   round to nearest even, also through f32 first: anything beyond the
///   largest finite value, infinities included (even for e5m2, which has
///   them), becomes the largest finite value of that sign. NaN gives
///   `0x7F`/`0xFF` (e4m3fn), `0x7E`/`0xFE` (e5m2) or `0x80` (fnuz). The fnuz
///   types have no negative zero: `-0.0` and negative values that round to
///   zero give `0x00`.
/// * float4e2m1, float6e2m3, float6e3m2 (no infinities, no NaN): round to
///   nearest even directly from the f64, saturating; NaN gives a zero of
///   the opposite sign (ml_dtypes' behaviour: `NaN` is `-0`, `-NaN` is
///   `+0`).
/// * float8e8m0 (an unsigned power of two, `0xFF` is NaN): the value is
///   rounded to f32 first, its sign is dropped, and it is rounded *up* to
///   the next power of two, saturating at 2^127 (`0xFE`); NaN, infinities
///   and values whose f32 rounding overflows give `0xFF`; zero gives `0x00`.
///   One deliberate difference from onnx: values in (0, 2^-127] give `0x00`
///   (2^-127) rather than onnx's `0x01`, so that 2^-127 round-trips.
pub fn float_to_bits(data_type: i32, value: f64) -> Option<u32> {
    Some(match narrow_float(data_type)? {
        NarrowFloat::Binary(f) => f.encode(value),
        NarrowFloat::E8M0 => e8m0_encode(value),
    })
}

/// The exact value of the bit pattern `bits` of the narrow float type
/// `data_type`: NaN patterns give NaN, infinity patterns infinity. `None` if
/// `data_type` is not a narrow float type or `bits` is wider than the type.
pub fn bits_to_f64(data_type: i32, bits: u32) -> Option<f64> {
    match narrow_float(data_type)? {
        NarrowFloat::Binary(f) => f.decode(bits),
        NarrowFloat::E8M0 => e8m0_decode(bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int4_packs_two_to_a_byte_and_refuses_what_does_not_fit() {
        let int4 = DataType::Int4 as i32;
        let values = TypedValues::Int32(vec![1, -1, 3]);
        let raw = pack_raw(int4, &values).unwrap();
        assert_eq!(raw, [0xF1, 0x03]);
        assert_eq!(unpack_raw(int4, &raw, 3), Some(values));
        assert!(pack_raw(int4, &TypedValues::Int32(vec![8])).is_err());
    }

    #[test]
    fn narrow_floats_convert_both_ways_and_saturate() {
        let f16 = DataType::Float16 as i32;
        assert_eq!(float_to_bits(f16, 1.0), Some(15360));
        assert_eq!(bits_to_f64(f16, 15360), Some(1.0));
        let e4m3 = DataType::Float8e4m3fn as i32;
        assert_eq!(float_to_bits(e4m3, 1e6), Some(0x7E)); // saturates at 448
        assert_eq!(float_to_bits(DataType::Float as i32, 1.0), None);
    }

    const NARROW_FLOATS: &[i32] = &[
        FLOAT16,
        BFLOAT16,
        FLOAT8E4M3FN,
        FLOAT8E4M3FNUZ,
        FLOAT8E5M2,
        FLOAT8E5M2FNUZ,
        FLOAT8E8M0,
        FLOAT4E2M1,
        FLOAT6E2M3,
        FLOAT6E3M2,
    ];

    fn width(t: i32) -> u32 {
        match t {
            FLOAT16 | BFLOAT16 => 16,
            FLOAT4E2M1 => 4,
            FLOAT6E2M3 | FLOAT6E3M2 => 6,
            _ => 8,
        }
    }

    fn bits(t: i32, v: f64) -> u32 {
        float_to_bits(t, v).unwrap()
    }

    fn value(t: i32, b: u32) -> f64 {
        bits_to_f64(t, b).unwrap()
    }

    /// The patterns that decode to NaN, per type.
    fn nan_patterns(t: i32) -> Vec<u32> {
        match t {
            FLOAT16 => (0x7C01..=0x7FFF).chain(0xFC01..=0xFFFF).collect(),
            BFLOAT16 => (0x7F81..=0x7FFF).chain(0xFF81..=0xFFFF).collect(),
            FLOAT8E4M3FN => vec![0x7F, 0xFF],
            FLOAT8E4M3FNUZ | FLOAT8E5M2FNUZ => vec![0x80],
            FLOAT8E5M2 => vec![0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF],
            FLOAT8E8M0 => vec![0xFF],
            _ => vec![],
        }
    }

    #[test]
    fn nan_patterns_are_exactly_the_documented_ones() {
        for &t in NARROW_FLOATS {
            let nans: Vec<u32> = (0..1u32 << width(t))
                .filter(|&b| value(t, b).is_nan())
                .collect();
            assert_eq!(nans, nan_patterns(t), "type {t}");
            assert_eq!(bits_to_f64(t, 1 << width(t)), None);
        }
    }

    /// Every non-NaN pattern converts back to itself, except the two
    /// float8e5m2 infinities, which saturate to +-57344 (0x7B/0xFB) as in
    /// onnx. fnuz types have no negative zero pattern to lose (0x80 is their
    /// NaN), and float8e8m0's 0x00 (2^-127) round-trips (see e8m0_encode).
    #[test]
    fn exhaustive_round_trip() {
        for &t in NARROW_FLOATS {
            for b in 0..1u32 << width(t) {
                let v = value(t, b);
                if v.is_nan() {
                    continue;
                }
                let expected = match (t, b) {
                    (FLOAT8E5M2, 0x7C) => 0x7B,
                    (FLOAT8E5M2, 0xFC) => 0xFB,
                    _ => b,
                };
                assert_eq!(bits(t, v), expected, "type {t} pattern {b:#x} value {v}");
            }
        }
    }

    #[test]
    fn nan_conversions() {
        let neg_nan = -f64::NAN;
        let cases: &[(i32, u32, u32)] = &[
            (FLOAT16, 0x7E00, 0xFE00),
            (BFLOAT16, 0x7FC0, 0xFFC0),
            (FLOAT8E4M3FN, 0x7F, 0xFF),
            (FLOAT8E4M3FNUZ, 0x80, 0x80),
            (FLOAT8E5M2, 0x7E, 0xFE),
            (FLOAT8E5M2FNUZ, 0x80, 0x80),
            (FLOAT8E8M0, 0xFF, 0xFF),
            (FLOAT4E2M1, 0x8, 0x0),
            (FLOAT6E2M3, 0x20, 0x00),
            (FLOAT6E3M2, 0x20, 0x00),
        ];
        for &(t, pos, neg) in cases {
            assert_eq!(bits(t, f64::NAN), pos, "type {t}");
            assert_eq!(bits(t, neg_nan), neg, "type {t}");
        }
    }

    #[test]
    fn zeros_and_signs() {
        for &t in NARROW_FLOATS {
            assert_eq!(bits(t, 0.0), 0, "type {t}");
            let neg_zero = match t {
                FLOAT8E4M3FNUZ | FLOAT8E5M2FNUZ | FLOAT8E8M0 => 0,
                _ => 1 << (width(t) - 1),
            };
            assert_eq!(bits(t, -0.0), neg_zero, "type {t}");
            // Tiny negatives round to (negative) zero.
            if t != FLOAT8E8M0 {
                assert_eq!(bits(t, -1e-300), neg_zero, "type {t}");
            }
        }
        // e8m0 drops the sign.
        assert_eq!(bits(FLOAT8E8M0, -4.0), bits(FLOAT8E8M0, 4.0));
        assert_eq!(bits(FLOAT8E8M0, -3.0), 0x81);
    }

    /// Sorted finite non-negative patterns of a type, by value.
    fn positive_ladder(t: i32) -> Vec<(u32, f64)> {
        let mut v: Vec<(u32, f64)> = (0..1u32 << width(t))
            .map(|b| (b, value(t, b)))
            .filter(|(_, x)| x.is_finite() && *x >= 0.0 && !(*x == 0.0 && x.is_sign_negative()))
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1));
        v
    }

    #[test]
    fn ties_round_to_even_and_non_ties_to_nearest() {
        for &t in NARROW_FLOATS {
            if t == FLOAT8E8M0 {
                continue;
            }
            let ladder = positive_ladder(t);
            for w in ladder.windows(2) {
                let ((lo_b, lo), (hi_b, hi)) = (w[0], w[1]);
                assert_eq!(hi_b, lo_b + 1, "adjacent patterns are consecutive");
                let mid = (lo + hi) / 2.0;
                assert_eq!((mid - lo), (hi - mid), "midpoint is exact");
                let even = if lo_b % 2 == 0 { lo_b } else { hi_b };
                assert_eq!(bits(t, mid), even, "type {t} tie {mid}");
                let fnuz = matches!(t, FLOAT8E4M3FNUZ | FLOAT8E5M2FNUZ);
                let neg = if even == 0 && fnuz {
                    0
                } else {
                    even | 1 << (width(t) - 1)
                };
                assert_eq!(bits(t, -mid), neg, "type {t} tie -{mid}");
                // Just off the tie (by more than an f32 ulp).
                let eps = (hi - lo) * 2f64.powi(-12);
                assert_eq!(bits(t, mid - eps), lo_b, "type {t} below {mid}");
                assert_eq!(bits(t, mid + eps), hi_b, "type {t} above {mid}");
            }
        }
    }

    /// Within half an f32 ulp of a tie, the types onnx converts through f32
    /// round to even; the others see the f64 as it is.
    #[test]
    fn double_rounding_through_f32() {
        let cases: &[(i32, f64, u32, u32)] = &[
            // (type, tie, pattern below, pattern above)
            (FLOAT16, 1.0 + 2f64.powi(-11), 0x3C00, 0x3C01),
            (BFLOAT16, 1.0 + 2f64.powi(-8), 0x3F80, 0x3F81),
            (FLOAT8E4M3FN, 400.0, 0x7C, 0x7D),
            (FLOAT8E4M3FNUZ, 200.0, 0x7C, 0x7D),
            (FLOAT8E5M2, 36864.0, 0x78, 0x79),
            (FLOAT8E5M2FNUZ, 36864.0, 0x7C, 0x7D),
            (FLOAT4E2M1, 2.5, 0x4, 0x5),
            (FLOAT6E2M3, 1.0625, 0x8, 0x9),
            (FLOAT6E3M2, 1.125, 0xC, 0xD),
        ];
        for &(t, tie, lo_b, hi_b) in cases {
            assert_eq!(bits(t, tie), lo_b, "type {t}");
            let up = tie * (1.0 + 2f64.powi(-40));
            let down = tie * (1.0 - 2f64.powi(-40));
            let direct = matches!(t, FLOAT16 | FLOAT4E2M1 | FLOAT6E2M3 | FLOAT6E3M2);
            let expected_up = if direct { hi_b } else { lo_b };
            assert_eq!(bits(t, up), expected_up, "type {t}");
            assert_eq!(bits(t, down), lo_b, "type {t}");
        }
    }

    #[test]
    fn e8m0_rounds_up() {
        let ladder = positive_ladder(FLOAT8E8M0);
        for w in ladder.windows(2) {
            let ((_, lo), (hi_b, hi)) = (w[0], w[1]);
            for x in [lo * 1.0001, (lo + hi) / 2.0, hi * 0.9999, hi] {
                assert_eq!(bits(FLOAT8E8M0, x), hi_b, "{x}");
            }
        }
        assert_eq!(bits(FLOAT8E8M0, 1.0), 127);
        assert_eq!(bits(FLOAT8E8M0, 1.5), 128);
        // Rounded to f32 first: 1 + 2^-30 is 1.0 in f32.
        assert_eq!(bits(FLOAT8E8M0, 1.0 + 2f64.powi(-30)), 127);
        // Saturates at 2^127 while the f32 is finite, NaN beyond.
        assert_eq!(bits(FLOAT8E8M0, 3.0e38), 0xFE);
        assert_eq!(bits(FLOAT8E8M0, 1e39), 0xFF);
        assert_eq!(bits(FLOAT8E8M0, f64::INFINITY), 0xFF);
        assert_eq!(bits(FLOAT8E8M0, 0.0), 0x00);
        assert_eq!(bits(FLOAT8E8M0, 2f64.powi(-127)), 0x00);
        assert_eq!(bits(FLOAT8E8M0, 2f64.powi(-130)), 0x00);
        assert_eq!(bits(FLOAT8E8M0, 2f64.powi(-127) * 1.5), 0x01);
    }

    #[test]
    fn overflow() {
        // (type, largest finite pattern, its value)
        let cases: &[(i32, u32, f64)] = &[
            (FLOAT8E4M3FN, 0x7E, 448.0),
            (FLOAT8E4M3FNUZ, 0x7F, 240.0),
            (FLOAT8E5M2, 0x7B, 57344.0),
            (FLOAT8E5M2FNUZ, 0x7F, 57344.0),
            (FLOAT4E2M1, 0x7, 6.0),
            (FLOAT6E2M3, 0x1F, 7.5),
            (FLOAT6E3M2, 0x1F, 28.0),
        ];
        for &(t, max_b, max) in cases {
            let sign = 1 << (width(t) - 1);
            assert_eq!(value(t, max_b), max);
            for x in [
                max * 1.01,
                max * 1.5,
                max * 2.0,
                1e300,
                f64::MAX,
                f64::INFINITY,
            ] {
                assert_eq!(bits(t, x), max_b, "type {t} {x}");
                assert_eq!(bits(t, -x), max_b | sign, "type {t} -{x}");
            }
        }
        // Non-saturating IEEE types: round to nearest even up to infinity.
        assert_eq!(bits(FLOAT16, 65504.0), 0x7BFF);
        assert_eq!(bits(FLOAT16, 65519.99), 0x7BFF);
        assert_eq!(bits(FLOAT16, 65520.0), 0x7C00);
        assert_eq!(bits(FLOAT16, -1e10), 0xFC00);
        assert_eq!(bits(FLOAT16, f64::INFINITY), 0x7C00);
        assert_eq!(bits(BFLOAT16, 1e39), 0x7F80);
        assert_eq!(bits(BFLOAT16, f64::NEG_INFINITY), 0xFF80);
    }

    #[test]
    fn subnormals() {
        // Smallest subnormals and half of them (ties to even: zero).
        let cases: &[(i32, f64)] = &[
            (FLOAT16, 2f64.powi(-24)),
            (BFLOAT16, 2f64.powi(-133)),
            (FLOAT8E4M3FN, 2f64.powi(-9)),
            (FLOAT8E4M3FNUZ, 2f64.powi(-10)),
            (FLOAT8E5M2, 2f64.powi(-16)),
            (FLOAT8E5M2FNUZ, 2f64.powi(-17)),
            (FLOAT4E2M1, 0.5),
            (FLOAT6E2M3, 0.125),
            (FLOAT6E3M2, 0.0625),
        ];
        for &(t, tiny) in cases {
            assert_eq!(value(t, 1), tiny, "type {t}");
            assert_eq!(bits(t, tiny), 1);
            assert_eq!(bits(t, tiny * 0.5), 0);
            assert_eq!(bits(t, tiny * 0.5001), 1);
            assert_eq!(bits(t, tiny * 1.5), 2);
        }
    }

    #[test]
    fn half_crate_agrees() {
        use half::{bf16, f16};
        for b in 0..=u16::MAX {
            let (h, g) = (f16::from_bits(b).to_f64(), bf16::from_bits(b).to_f64());
            let (v, w) = (value(FLOAT16, b.into()), value(BFLOAT16, b.into()));
            assert!(h.to_bits() == v.to_bits() || (h.is_nan() && v.is_nan()));
            assert!(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()));
        }
        // From f32 inputs (no sticky bits below f32 precision) half rounds
        // correctly, so the two must agree.
        let mut x = 0x1234_5678u32;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let f = f32::from_bits(x);
            if f.is_nan() {
                continue;
            }
            let v = f64::from(f);
            assert_eq!(
                bits(FLOAT16, v),
                u32::from(f16::from_f32(f).to_bits()),
                "{f}"
            );
            assert_eq!(
                bits(BFLOAT16, v),
                u32::from(bf16::from_f32(f).to_bits()),
                "{f}"
            );
        }
    }

    #[test]
    fn not_narrow_floats() {
        for t in [0, FLOAT, DOUBLE, INT4, UINT8, STRING, 99, -1] {
            assert_eq!(float_to_bits(t, 1.0), None);
            assert_eq!(bits_to_f64(t, 0), None);
            assert!(!is_narrow_float(t));
        }
        assert!(NARROW_FLOATS.iter().all(|&t| is_narrow_float(t)));
    }

    // ---- raw_data ----

    /// Every data type with a raw encoding, with the full valid int32 range
    /// for those stored in int32_data.
    const INT32_TYPES: &[(i32, i32, i32)] = &[
        (INT32, i32::MIN, i32::MAX),
        (INT16, -32768, 32767),
        (INT8, -128, 127),
        (UINT16, 0, 65535),
        (UINT8, 0, 255),
        (BOOL, 0, 1),
        (FLOAT16, 0, 65535),
        (BFLOAT16, 0, 65535),
        (FLOAT8E4M3FN, 0, 255),
        (FLOAT8E4M3FNUZ, 0, 255),
        (FLOAT8E5M2, 0, 255),
        (FLOAT8E5M2FNUZ, 0, 255),
        (FLOAT8E8M0, 0, 255),
        (UINT4, 0, 15),
        (INT4, -8, 7),
        (FLOAT4E2M1, 0, 15),
        (UINT2, 0, 3),
        (INT2, -2, 1),
        (FLOAT6E2M3, 0, 63),
        (FLOAT6E3M2, 0, 63),
    ];

    fn sample_i32(min: i32, max: i32, n: usize) -> Vec<i32> {
        let span = i64::from(max) - i64::from(min) + 1;
        (0..n)
            .map(|i| (i64::from(min) + (i as i64 * 7919 + 13) % span) as i32)
            .collect()
    }

    fn round_trip(t: i32, v: &TypedValues, count: usize) -> Vec<u8> {
        let raw = pack_raw(t, v).unwrap();
        assert_eq!(
            Some(raw.len()),
            raw_byte_len(t, count),
            "type {t} n {count}"
        );
        let back = unpack_raw(t, &raw, count).unwrap();
        assert_eq!(pack_raw(t, &back).unwrap(), raw);
        raw
    }

    #[test]
    fn int32_types_round_trip_all_counts() {
        for &(t, min, max) in INT32_TYPES {
            assert_eq!(typed_field(t), Some(TypedField::Int32Data));
            for n in 0..=13 {
                let mut v = sample_i32(min, max, n);
                if n >= 2 {
                    v[0] = min;
                    v[1] = max;
                }
                let tv = TypedValues::Int32(v);
                round_trip(t, &tv, n);
                let raw = pack_raw(t, &tv).unwrap();
                assert_eq!(unpack_raw(t, &raw, n), Some(tv));
            }
        }
    }

    #[test]
    fn every_byte_string_unpacks_and_repacks() {
        // Property: pack_raw(t, unpack_raw(t, b, n)?) == b for all short b.
        for &(t, _, _) in INT32_TYPES {
            for n in 0..=5usize {
                let len = raw_byte_len(t, n).unwrap();
                if len > 2 {
                    continue;
                }
                for x in 0..1u32 << (8 * len) {
                    let b = &x.to_le_bytes()[..len];
                    if let Some(v) = unpack_raw(t, b, n) {
                        assert_eq!(v.len(), n);
                        assert_eq!(pack_raw(t, &v).unwrap(), b, "type {t} {b:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn sub_byte_layouts() {
        let i4 = TypedValues::Int32(vec![1, -1, 3]);
        assert_eq!(pack_raw(INT4, &i4).unwrap(), [0xF1, 0x03]);
        assert_eq!(unpack_raw(INT4, &[0xF1, 0x03], 3), Some(i4));
        assert_eq!(unpack_raw(INT4, &[0xF1, 0x13], 3), None, "padding");
        assert_eq!(
            unpack_raw(INT4, &[0x8F], 2),
            Some(TypedValues::Int32(vec![-1, -8]))
        );
        let u2 = TypedValues::Int32(vec![1, 2, 3, 1, 2]);
        assert_eq!(pack_raw(UINT2, &u2).unwrap(), [0b01_11_10_01, 0b10]);
        assert_eq!(unpack_raw(UINT2, &[0x79, 0x06], 5), None, "padding");
        let i2 = TypedValues::Int32(vec![-2, -1, 0, 1, -1]);
        assert_eq!(pack_raw(INT2, &i2).unwrap(), [0b01_00_11_10, 0b11]);
        assert_eq!(unpack_raw(INT2, &[0x4E, 0x03], 5), Some(i2));
        // float6: x0 | x1 << 6 | x2 << 12 | x3 << 18, little-endian.
        let f6 = TypedValues::Int32(vec![0x3F, 0x01, 0x2A, 0x15, 0x3F]);
        let w: u32 = 0x3F | (0x01 << 6) | (0x2A << 12) | (0x15 << 18);
        let raw = pack_raw(FLOAT6E2M3, &f6).unwrap();
        assert_eq!(&raw[..3], &w.to_le_bytes()[..3]);
        assert_eq!(raw[3..], [0x3F]);
        assert_eq!(unpack_raw(FLOAT6E2M3, &raw, 5), Some(f6));
        assert_eq!(unpack_raw(FLOAT6E2M3, &[0x3F, 0x40], 2), None, "padding");
        for (n, len) in [
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 3),
            (5, 4),
            (6, 5),
            (7, 6),
            (8, 6),
        ] {
            assert_eq!(raw_byte_len(FLOAT6E3M2, n), Some(len));
            let v = TypedValues::Int32(sample_i32(0, 63, n));
            round_trip(FLOAT6E3M2, &v, n);
        }
    }

    #[test]
    fn wide_types_round_trip() {
        let i64s = TypedValues::Int64(vec![i64::MIN, -1, 0, 1, i64::MAX]);
        assert_eq!(typed_field(INT64), Some(TypedField::Int64Data));
        round_trip(INT64, &i64s, 5);
        let u32s = TypedValues::Uint64(vec![0, 1, u32::MAX.into()]);
        assert_eq!(round_trip(UINT32, &u32s, 3).len(), 12);
        let u64s = TypedValues::Uint64(vec![0, u64::MAX]);
        round_trip(UINT64, &u64s, 2);
        let nan_payload = f32::from_bits(0x7FA0_0001);
        let f = TypedValues::Float(vec![1.5, -0.0, f32::INFINITY, nan_payload]);
        let raw = round_trip(FLOAT, &f, 4);
        assert_eq!(raw[12..], 0x7FA0_0001u32.to_le_bytes());
        round_trip(COMPLEX64, &f, 2);
        let d = TypedValues::Double(vec![1.5, -0.0, f64::NAN, 1e300]);
        round_trip(DOUBLE, &d, 4);
        round_trip(COMPLEX128, &d, 2);
        assert_eq!(typed_field(COMPLEX64), Some(TypedField::FloatData));
        assert_eq!(typed_field(COMPLEX128), Some(TypedField::DoubleData));
        assert_eq!(typed_field(UINT32), Some(TypedField::Uint64Data));
        assert_eq!(typed_field(STRING), Some(TypedField::StringData));
        assert_eq!(typed_field(0), None);
        assert_eq!(typed_field(29), None);
    }

    #[test]
    fn errors() {
        for &(t, min, max) in INT32_TYPES {
            if min == i32::MIN {
                continue;
            }
            for bad in [min - 1, max + 1] {
                let e = pack_raw(t, &TypedValues::Int32(vec![min, bad])).unwrap_err();
                assert!(e.contains("index 1"), "{e}");
            }
        }
        assert!(pack_raw(UINT32, &TypedValues::Uint64(vec![1 << 32])).is_err());
        assert!(pack_raw(COMPLEX64, &TypedValues::Float(vec![1.0])).is_err());
        assert!(pack_raw(COMPLEX128, &TypedValues::Double(vec![1.0; 3])).is_err());
        assert!(pack_raw(FLOAT, &TypedValues::Double(vec![1.0])).is_err());
        assert!(pack_raw(UINT8, &TypedValues::Int64(vec![1])).is_err());
        let s = TypedValues::Bytes(vec![b"a".to_vec()]);
        assert!(pack_raw(STRING, &s).unwrap_err().contains("string"));
        assert!(pack_raw(0, &TypedValues::Int32(vec![])).is_err());
        assert_eq!(unpack_raw(STRING, b"a", 1), None);
        assert_eq!(unpack_raw(0, b"", 0), None);
        // Wrong lengths.
        assert_eq!(unpack_raw(INT32, &[0; 7], 2), None);
        assert_eq!(unpack_raw(INT4, &[0; 2], 2), None);
        assert_eq!(unpack_raw(INT4, &[0; 1], 3), None);
        assert_eq!(unpack_raw(COMPLEX64, &[0; 8], 2), None);
        assert_eq!(unpack_raw(UINT8, &[], usize::MAX), None);
        assert_eq!(unpack_raw(FLOAT6E2M3, &[], usize::MAX), None);
        // bool bytes other than 0 and 1 have no typed form pack_raw accepts.
        assert_eq!(unpack_raw(BOOL, &[2], 1), None);
    }
}
