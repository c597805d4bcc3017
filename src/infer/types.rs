//! The types inference works with: a value's kind (tensor, sparse tensor,
//! sequence, optional, map), element type and shape, each part possibly
//! unknown, with conversions from and to the IR's `TypeProto`, and the
//! comparison of an inferred type with a declared one.

use std::fmt;
use std::sync::Arc;

use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::type_proto::{self, Value};
use crate::proto::{TensorShapeProto, TypeProto};

/// `TensorProto.DataType.UNDEFINED`: an element type nobody knows.
pub const UNDEFINED: i32 = 0;

/// One dimension of a shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Dim {
    /// A known size.
    Value(i64),
    /// A named size (`N`, `batch`): unknown, but the same wherever the name
    /// is.
    Param(Arc<str>),
    /// Nothing known.
    #[default]
    Unknown,
}

impl Dim {
    /// The size, when known.
    pub fn value(&self) -> Option<i64> {
        match self {
            Dim::Value(v) => Some(*v),
            _ => None,
        }
    }

    /// A named dimension.
    pub fn param(name: &str) -> Dim {
        Dim::Param(name.into())
    }

    /// Whether anything is known (a size or a name).
    pub fn is_known(&self) -> bool {
        !matches!(self, Dim::Unknown)
    }

    /// Whether this is the size `v`.
    pub fn is(&self, v: i64) -> bool {
        self.value() == Some(v)
    }
}

impl From<i64> for Dim {
    fn from(v: i64) -> Dim {
        Dim::Value(v)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Value(v) => write!(f, "{v}"),
            Dim::Param(p) => f.write_str(p),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// A shape: one [`Dim`] per axis.
pub type Shape = Vec<Dim>;

/// A tensor's (or sparse tensor's) element type and shape.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TensorType {
    /// The `TensorProto.DataType` code; [`UNDEFINED`] when unknown.
    pub elem_type: i32,
    /// `None` when even the rank is unknown.
    pub shape: Option<Shape>,
}

/// The type of a value, as far as it is known.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Type {
    /// Nothing known (a `TypeProto` with no kind).
    #[default]
    Unknown,
    /// A dense tensor.
    Tensor(TensorType),
    /// A sparse tensor.
    SparseTensor(TensorType),
    /// A sequence of values of the inner type.
    Sequence(Box<Type>),
    /// A value of the inner type, or none.
    Optional(Box<Type>),
    /// A map from a key element type ([`UNDEFINED`] if unknown) to values.
    Map(i32, Box<Type>),
    /// An opaque type, by domain and name.
    Opaque(String, String),
}

impl Type {
    /// A tensor of `elem_type` and `shape`.
    pub fn tensor(elem_type: i32, shape: Shape) -> Type {
        Type::Tensor(TensorType {
            elem_type,
            shape: Some(shape),
        })
    }

    /// A tensor of `elem_type` whose rank is unknown.
    pub fn tensor_of(elem_type: i32) -> Type {
        Type::Tensor(TensorType {
            elem_type,
            shape: None,
        })
    }

    /// Whether nothing is known.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Type::Unknown)
    }

    /// The tensor part of a tensor or sparse tensor.
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) | Type::SparseTensor(t) => Some(t),
            _ => None,
        }
    }

    /// The tensor part of a tensor or sparse tensor, mutably.
    pub fn as_tensor_mut(&mut self) -> Option<&mut TensorType> {
        match self {
            Type::Tensor(t) | Type::SparseTensor(t) => Some(t),
            _ => None,
        }
    }

    /// The element type of a tensor or sparse tensor ([`UNDEFINED`] for
    /// other kinds).
    pub fn elem_type(&self) -> i32 {
        self.as_tensor().map_or(UNDEFINED, |t| t.elem_type)
    }

    /// The shape of a tensor or sparse tensor, when its rank is known.
    pub fn shape(&self) -> Option<&[Dim]> {
        self.as_tensor().and_then(|t| t.shape.as_deref())
    }

    /// The kind's name as onnx's messages write it.
    pub fn kind(&self) -> &'static str {
        match self {
            Type::Unknown => "unknown",
            Type::Tensor(_) => "tensor",
            Type::SparseTensor(_) => "sparse tensor",
            Type::Sequence(_) => "sequence",
            Type::Optional(_) => "optional",
            Type::Map(..) => "map",
            Type::Opaque(..) => "opaque",
        }
    }

    /// Whether two types have the same kind.
    pub fn same_kind(&self, other: &Type) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    /// Reads a `TypeProto`.
    pub fn from_proto(proto: &TypeProto) -> Type {
        let inner = |t: &Option<Box<TypeProto>>| {
            Box::new(t.as_deref().map_or(Type::Unknown, Type::from_proto))
        };
        match &proto.value {
            None => Type::Unknown,
            Some(Value::TensorType(t)) => Type::Tensor(tensor_from(t.elem_type, &t.shape)),
            Some(Value::SparseTensorType(t)) => {
                Type::SparseTensor(tensor_from(t.elem_type, &t.shape))
            }
            Some(Value::SequenceType(s)) => Type::Sequence(inner(&s.elem_type)),
            Some(Value::OptionalType(o)) => Type::Optional(inner(&o.elem_type)),
            Some(Value::MapType(m)) => {
                Type::Map(m.key_type.unwrap_or(UNDEFINED), inner(&m.value_type))
            }
            Some(Value::OpaqueType(o)) => Type::Opaque(
                o.domain.clone().unwrap_or_default(),
                o.name.clone().unwrap_or_default(),
            ),
        }
    }

    /// The `TypeProto` of this type (a type with no kind for
    /// [`Type::Unknown`]).
    pub fn to_proto(&self) -> TypeProto {
        let inner = |t: &Type| (!t.is_unknown()).then(|| Box::new(t.to_proto()));
        let value = match self {
            Type::Unknown => None,
            Type::Tensor(t) => Some(Value::TensorType(type_proto::Tensor {
                elem_type: Some(t.elem_type),
                shape: t.shape.as_deref().map(shape_proto),
            })),
            Type::SparseTensor(t) => Some(Value::SparseTensorType(type_proto::SparseTensor {
                elem_type: Some(t.elem_type),
                shape: t.shape.as_deref().map(shape_proto),
            })),
            Type::Sequence(t) => Some(Value::SequenceType(Box::new(type_proto::Sequence {
                elem_type: inner(t),
            }))),
            Type::Optional(t) => Some(Value::OptionalType(Box::new(type_proto::Optional {
                elem_type: inner(t),
            }))),
            Type::Map(key, value) => Some(Value::MapType(Box::new(type_proto::Map {
                key_type: Some(*key),
                value_type: inner(value),
            }))),
            Type::Opaque(domain, name) => Some(Value::OpaqueType(type_proto::Opaque {
                domain: Some(domain.clone()),
                name: Some(name.clone()),
            })),
        };
        TypeProto {
            value,
            denotation: None,
        }
    }

    /// Every dimension, in sequences, optionals and maps too.
    pub fn dims_mut(&mut self, f: &mut impl FnMut(&mut Dim)) {
        match self {
            Type::Tensor(t) | Type::SparseTensor(t) => {
                t.shape.iter_mut().flatten().for_each(f);
            }
            Type::Sequence(t) | Type::Optional(t) | Type::Map(_, t) => t.dims_mut(f),
            Type::Unknown | Type::Opaque(..) => {}
        }
    }

    /// Every dimension, in sequences, optionals and maps too.
    pub fn dims(&self, f: &mut impl FnMut(&Dim)) {
        match self {
            Type::Tensor(t) | Type::SparseTensor(t) => t.shape.iter().flatten().for_each(f),
            Type::Sequence(t) | Type::Optional(t) | Type::Map(_, t) => t.dims(f),
            Type::Unknown | Type::Opaque(..) => {}
        }
    }
}

/// The type in the text syntax (`float[N,3]`, `seq(int64[?])`; `float[]`
/// when the rank is unknown), with `?` for an unknown element type.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Unknown => f.write_str("?"),
            Type::Tensor(t) => tensor_text(f, t),
            Type::SparseTensor(t) => {
                f.write_str("sparse_tensor(")?;
                tensor_text(f, t)?;
                f.write_str(")")
            }
            Type::Sequence(t) => write!(f, "seq({t})"),
            Type::Optional(t) => write!(f, "optional({t})"),
            Type::Map(key, value) => write!(f, "map({}, {value})", elem_text(*key)),
            Type::Opaque(domain, name) => write!(f, "opaque({domain}, {name})"),
        }
    }
}

/// An element type's name, `?` when unknown.
fn elem_text(code: i32) -> String {
    if code == UNDEFINED {
        "?".to_owned()
    } else {
        elem_name(code)
    }
}

fn tensor_text(f: &mut fmt::Formatter<'_>, t: &TensorType) -> fmt::Result {
    f.write_str(&elem_text(t.elem_type))?;
    match &t.shape {
        None => f.write_str("[]"),
        Some(dims) if dims.is_empty() => Ok(()),
        Some(dims) => {
            f.write_str("[")?;
            for (i, d) in dims.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                match d {
                    Dim::Param(p) if !crate::vocabulary::is_identifier(p) => {
                        write!(f, "{:?}", &**p)?
                    }
                    d => write!(f, "{d}")?,
                }
            }
            f.write_str("]")
        }
    }
}

fn tensor_from(elem_type: Option<i32>, shape: &Option<TensorShapeProto>) -> TensorType {
    TensorType {
        elem_type: elem_type.unwrap_or(UNDEFINED),
        shape: shape.as_ref().map(|s| s.dim.iter().map(dim_from).collect()),
    }
}

/// The [`Dim`] of a `TensorShapeProto` dimension (denotations aside).
pub fn dim_from(d: &Dimension) -> Dim {
    match &d.value {
        Some(dimension::Value::DimValue(v)) => Dim::Value(*v),
        Some(dimension::Value::DimParam(p)) => Dim::Param(p.as_str().into()),
        None => Dim::Unknown,
    }
}

/// The `TensorShapeProto` of `dims`.
pub fn shape_proto(dims: &[Dim]) -> TensorShapeProto {
    TensorShapeProto {
        dim: dims
            .iter()
            .map(|d| Dimension {
                value: match d {
                    Dim::Value(v) => Some(dimension::Value::DimValue(*v)),
                    Dim::Param(p) => Some(dimension::Value::DimParam(p.to_string())),
                    Dim::Unknown => None,
                },
                denotation: None,
            })
            .collect(),
    }
}

/// The element type's name (`float`, `int64`), or its number.
pub fn elem_name(code: i32) -> String {
    crate::vocabulary::element_type_name(code).map_or_else(|| code.to_string(), str::to_owned)
}

/// How an inferred type contradicts a declared one, if it does: a different
/// kind, element type, rank or size (the rules of onnx's
/// `checkShapesAndTypes`). Unknown parts never contradict.
pub fn contradiction(inferred: &Type, declared: &Type) -> Option<String> {
    match (inferred, declared) {
        (Type::Unknown, _) | (_, Type::Unknown) => None,
        (Type::Tensor(i), Type::Tensor(d)) | (Type::SparseTensor(i), Type::SparseTensor(d)) => {
            tensor_contradiction(i, d)
        }
        (Type::Sequence(i), Type::Sequence(d)) | (Type::Optional(i), Type::Optional(d)) => {
            contradiction(i, d)
        }
        (Type::Map(ik, iv), Type::Map(dk, dv)) => {
            if ik != dk {
                Some(format!(
                    "the map's key type is {}, but {} is declared",
                    elem_name(*ik),
                    elem_name(*dk)
                ))
            } else {
                contradiction(iv, dv)
            }
        }
        (Type::Opaque(..), Type::Opaque(..)) => None,
        _ => Some(format!(
            "it is a {}, but a {} is declared",
            inferred.kind(),
            declared.kind()
        )),
    }
}

fn tensor_contradiction(inferred: &TensorType, declared: &TensorType) -> Option<String> {
    if inferred.elem_type != UNDEFINED
        && declared.elem_type != UNDEFINED
        && inferred.elem_type != declared.elem_type
    {
        return Some(format!(
            "its element type is {}, but {} is declared",
            elem_name(inferred.elem_type),
            elem_name(declared.elem_type)
        ));
    }
    let (Some(i), Some(d)) = (&inferred.shape, &declared.shape) else {
        return None;
    };
    if i.len() != d.len() {
        return Some(format!(
            "its rank is {} ({}), but rank {} ({}) is declared",
            i.len(),
            shape_text(i),
            d.len(),
            shape_text(d)
        ));
    }
    let differs = i
        .iter()
        .zip(d)
        .position(|(a, b)| matches!((a, b), (Dim::Value(x), Dim::Value(y)) if x != y))?;
    Some(format!(
        "its shape is {}, but {} is declared (dimension {differs})",
        shape_text(i),
        shape_text(d)
    ))
}

/// `[N,3,?]`
pub fn shape_text(dims: &[Dim]) -> String {
    let parts: Vec<String> = dims.iter().map(Dim::to_string).collect();
    format!("[{}]", parts.join(","))
}

/// Merges what `inferred` knows into `declared`, as onnx's
/// `mergeShapesAndTypes` does: unknown parts of the declared type take the
/// inferred ones, a known size replaces a name, and a declared shape of
/// another rank stays as it is. Call [`contradiction`] first.
pub fn merge_into(inferred: &Type, declared: &mut Type) {
    match (inferred, declared) {
        (_, declared @ Type::Unknown) => *declared = inferred.clone(),
        (Type::Tensor(i), Type::Tensor(d)) | (Type::SparseTensor(i), Type::SparseTensor(d)) => {
            merge_tensor(i, d)
        }
        (Type::Sequence(i), Type::Sequence(d)) | (Type::Optional(i), Type::Optional(d)) => {
            merge_into(i, d)
        }
        (Type::Map(ik, iv), Type::Map(dk, dv)) => {
            if *dk == UNDEFINED {
                *dk = *ik;
            }
            merge_into(iv, dv);
        }
        _ => {}
    }
}

fn merge_tensor(inferred: &TensorType, declared: &mut TensorType) {
    if declared.elem_type == UNDEFINED {
        declared.elem_type = inferred.elem_type;
    }
    let Some(i) = &inferred.shape else { return };
    match &mut declared.shape {
        None => declared.shape = Some(i.clone()),
        Some(d) => {
            for (a, b) in i.iter().zip(d.iter_mut()) {
                if !b.is_known() || matches!(a, Dim::Value(_)) {
                    *b = a.clone();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Type {
        Type::from_proto(&crate::parse_type(text).unwrap())
    }

    #[test]
    fn types_round_trip_through_type_protos() {
        for text in [
            "float[N,3,?]",
            "int64",
            "seq(float[2])",
            "optional(seq(bool))",
            "map(int64, float)",
        ] {
            let ty = parse(text);
            assert_eq!(Type::from_proto(&ty.to_proto()), ty, "{text}");
        }
        assert_eq!(parse("float[N,3,?]").to_string(), "float[N,3,?]");
    }

    #[test]
    fn contradictions_are_kind_element_rank_and_size() {
        let check = |a: &str, b: &str| contradiction(&parse(a), &parse(b));
        assert!(check("float[N,3]", "float[M,?]").is_none());
        assert!(check("float[2,3]", "float[2,4]")
            .unwrap()
            .contains("dimension 1"));
        assert!(check("float[2,3]", "float[2]").unwrap().contains("rank"));
        assert!(check("float[2]", "int64[2]")
            .unwrap()
            .contains("element type"));
        assert!(check("seq(float)", "float").unwrap().contains("sequence"));
        assert!(check("seq(float[2])", "seq(float[3])").is_some());
    }

    #[test]
    fn merging_keeps_declared_names_and_fills_the_unknown() {
        let mut declared = parse("float[N,?,?]");
        merge_into(&parse("float[M,3,K]"), &mut declared);
        assert_eq!(declared.to_string(), "float[N,3,K]");
        let mut untyped = Type::Unknown;
        merge_into(&parse("int64[2]"), &mut untyped);
        assert_eq!(untyped.to_string(), "int64[2]");
    }
}
