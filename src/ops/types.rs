//! Types as schemas write them (`tensor(float)`, `seq(tensor(int64))`,
//! `map(int64, float)`, `optional(tensor(bool))`, `sparse_tensor(float)`),
//! and the IR's `TypeProto`s they name.
//!
//! As in onnx, a bare element type stands for a tensor of it (the `float`
//! of `map(int64, float)`), and shapes are no part of a type string.

use crate::proto::type_proto::{Map, Optional, Sequence, SparseTensor, Tensor, Value};
use crate::proto::TypeProto;
use crate::vocabulary::{element_type_by_name, element_type_name};

use super::schema::TypeConstraint;

/// The type `type_str` names, without a shape; `None` for a type
/// parameter (`T`) or text that names no type.
///
/// ```
/// use onnxtxt::ops::{type_proto, type_string};
///
/// let zip_map = type_proto("seq(map(string, float))").unwrap();
/// assert_eq!(type_string(&zip_map).unwrap(), "seq(map(string,tensor(float)))");
/// assert!(type_proto("T").is_none());
/// ```
pub fn type_proto(type_str: &str) -> Option<TypeProto> {
    let value = match split(type_str) {
        None => tensor(type_str)?,
        Some(("tensor", inner)) => tensor(inner)?,
        Some(("sparse_tensor", inner)) => Value::SparseTensorType(SparseTensor {
            elem_type: Some(element(inner)?),
            shape: None,
        }),
        Some(("seq", inner)) => Value::SequenceType(Box::new(Sequence {
            elem_type: Some(Box::new(type_proto(inner)?)),
        })),
        Some(("optional", inner)) => Value::OptionalType(Box::new(Optional {
            elem_type: Some(Box::new(type_proto(inner)?)),
        })),
        Some(("map", inner)) => {
            let (key, value) = inner.split_once(',')?;
            Value::MapType(Box::new(Map {
                key_type: Some(element(key)?),
                value_type: Some(Box::new(type_proto(value)?)),
            }))
        }
        Some(_) => return None,
    };
    Some(TypeProto {
        value: Some(value),
        denotation: None,
    })
}

/// Whether `ty` is of the type `type_str` names (shapes aside). Allocates
/// nothing.
///
/// ```
/// use onnxtxt::ops::{type_matches, type_proto};
///
/// let floats = type_proto("tensor(float)").unwrap();
/// assert!(type_matches("tensor(float)", &floats));
/// assert!(!type_matches("tensor(double)", &floats));
/// assert!(!type_matches("seq(tensor(float))", &floats));
/// ```
pub fn type_matches(type_str: &str, ty: &TypeProto) -> bool {
    // The registry's own spelling of a tensor type, `tensor(float)`, is
    // compared without taking the string apart: most calls are of it.
    if let Some(Value::TensorType(t)) = &ty.value {
        let element = type_str.strip_prefix("tensor(");
        if let Some(element) = element.and_then(|e| e.strip_suffix(')')) {
            if t.elem_type.and_then(element_type_name) == Some(element) {
                return true;
            }
            // No spaces to trim: it names another element type.
            if element.is_ascii() && !element.bytes().any(|b| b.is_ascii_whitespace()) {
                return false;
            }
        }
    }
    let inner = |t: &Option<Box<TypeProto>>, s| t.as_deref().is_some_and(|t| type_matches(s, t));
    match (split(type_str), &ty.value) {
        (None, Some(Value::TensorType(t))) => same_element(type_str, t.elem_type),
        (Some(("tensor", s)), Some(Value::TensorType(t))) => same_element(s, t.elem_type),
        (Some(("sparse_tensor", s)), Some(Value::SparseTensorType(t))) => {
            same_element(s, t.elem_type)
        }
        (Some(("seq", s)), Some(Value::SequenceType(t))) => inner(&t.elem_type, s),
        (Some(("optional", s)), Some(Value::OptionalType(t))) => inner(&t.elem_type, s),
        (Some(("map", s)), Some(Value::MapType(t))) => {
            s.split_once(',').is_some_and(|(key, value)| {
                same_element(key, t.key_type) && inner(&t.value_type, value)
            })
        }
        _ => false,
    }
}

/// The type string of `ty` as onnx writes it in its messages
/// (`tensor(float)`, `map(int64,tensor(float))`); `None` when a part of it
/// is missing or is no type a schema can name (an opaque type).
pub fn type_string(ty: &TypeProto) -> Option<String> {
    let inner = |t: &Option<Box<TypeProto>>| t.as_deref().and_then(type_string);
    let name = |code: Option<i32>| code.and_then(element_type_name);
    Some(match ty.value.as_ref()? {
        Value::TensorType(t) => format!("tensor({})", name(t.elem_type)?),
        Value::SparseTensorType(t) => format!("sparse_tensor({})", name(t.elem_type)?),
        Value::SequenceType(t) => format!("seq({})", inner(&t.elem_type)?),
        Value::OptionalType(t) => format!("optional({})", inner(&t.elem_type)?),
        Value::MapType(t) => format!("map({},{})", name(t.key_type)?, inner(&t.value_type)?),
        Value::OpaqueType(_) => return None,
    })
}

impl TypeConstraint {
    /// Whether the type parameter may stand for `ty`.
    pub fn allows(&self, ty: &TypeProto) -> bool {
        self.allowed_types().iter().any(|t| type_matches(t, ty))
    }
}

/// `head(inner)` as `(head, inner)`, spaces trimmed; `None` without
/// parentheses.
fn split(type_str: &str) -> Option<(&str, &str)> {
    let (head, rest) = type_str.trim().split_once('(')?;
    Some((head.trim_end(), rest.strip_suffix(')')?.trim()))
}

/// The `TensorProto.DataType` code of element type `name`.
fn element(name: &str) -> Option<i32> {
    element_type_by_name(name.trim()).map(|t| t as i32)
}

fn tensor(name: &str) -> Option<Value> {
    Some(Value::TensorType(Tensor {
        elem_type: Some(element(name)?),
        shape: None,
    }))
}

fn same_element(name: &str, code: Option<i32>) -> bool {
    // Names and codes are one to one: the code's name is compared, which
    // takes no search by name.
    code.and_then(element_type_name) == Some(name.trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops;

    /// Every type string of the registry.
    fn all_type_strings() -> Vec<&'static str> {
        let mut all: Vec<&str> = ops::domains()
            .iter()
            .flat_map(ops::Domain::operators)
            .flat_map(ops::Operator::versions)
            .flat_map(|s| {
                let constraints = s.type_constraints().iter();
                let parameters = s.inputs().iter().chain(s.outputs());
                let literal =
                    parameters.filter_map(|p| type_proto(p.type_str()).map(|_| p.type_str()));
                constraints
                    .flat_map(|c| c.allowed_types())
                    .copied()
                    .chain(literal)
            })
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// Each type string of the registry names a type, the one the text
    /// syntax writes alike, and matches that type and no other.
    #[test]
    fn every_type_string_names_the_type_the_text_syntax_writes() {
        let all = all_type_strings();
        assert!(all.len() > 100, "{}", all.len());
        for s in &all {
            let ty = type_proto(s).unwrap_or_else(|| panic!("{s} names no type"));
            let text = in_text_syntax(s);
            let parsed = crate::parse_type(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            // The text syntax gives tensors an empty shape: types aside.
            assert_eq!(type_string(&parsed), type_string(&ty), "{s} written {text}");
            assert!(type_matches(s, &parsed), "{s} written {text}");
            for t in &all {
                assert_eq!(type_matches(t, &ty), t == s, "{t} against {s}");
            }
        }
    }

    /// `type_str` as the text syntax writes it: a tensor type as its
    /// element type (`tensor(float)` is `float`), the rest alike.
    fn in_text_syntax(type_str: &str) -> String {
        match split(type_str) {
            None => type_str.trim().to_owned(),
            Some(("tensor", inner)) => inner.to_owned(),
            Some(("map", inner)) => {
                let (key, value) = inner.split_once(',').unwrap();
                format!("map({key}, {})", in_text_syntax(value))
            }
            Some((head, inner)) => format!("{head}({})", in_text_syntax(inner)),
        }
    }

    #[test]
    fn what_is_no_type() {
        for s in [
            "T",
            "",
            "tensor()",
            "tensor(float",
            "tensor(real)",
            "list(float)",
            "map(float)",
        ] {
            assert!(type_proto(s).is_none(), "{s}");
        }
        let untyped = TypeProto::default();
        assert!(!type_matches("tensor(float)", &untyped));
        assert!(type_string(&untyped).is_none());
    }

    #[test]
    fn type_constraints_allow_their_types() {
        let add = ops::schema("", "Add", 14).unwrap();
        let t = add.type_constraint("T").unwrap();
        assert!(t.allows(&type_proto("tensor(float)").unwrap()));
        assert!(!t.allows(&type_proto("tensor(bool)").unwrap()));
        assert!(!t.allows(&type_proto("seq(tensor(float))").unwrap()));
    }
}
