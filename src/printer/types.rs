//! Types and value infos.
//!
//! The type syntax cannot say everything a `TypeProto` holds (denotations,
//! unknown element type codes, absent members). [`type_image`] is the part
//! it can say; the rest goes, as a `type: {...}` entry merged into the
//! parsed type, into the annotation of the value info (or attribute) that
//! owns the type. Dimension and type denotations travel that way, e.g.
//! `@<type: {denotation: "IMAGE"}> float[N] x`.

use std::borrow::Cow;

use super::annotation::{self, Place};
use super::annotation_values::{set_fields, type_diff, Ann, Entries, UNSET};
use super::quoting::is_qualified;
use super::sink::Sink;
use crate::decode::{Dim, ValueInfoView, ValueInfoViews};
use crate::proto::tensor_proto::DataType;
use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::{type_proto, GraphProto, TensorShapeProto, TypeProto, ValueInfoProto};
use crate::vocabulary;

fn nameable(elem_type: Option<i32>) -> bool {
    elem_type.and_then(vocabulary::element_type_name).is_some()
}

fn shape_image(shape: &Option<TensorShapeProto>) -> Option<TensorShapeProto> {
    shape.as_ref().map(|shape| TensorShapeProto {
        dim: shape
            .dim
            .iter()
            .map(|d| Dimension {
                value: d.value.clone(),
                denotation: None,
            })
            .collect(),
    })
}

fn boxed_image(t: &Option<Box<TypeProto>>) -> Option<Box<TypeProto>> {
    Some(Box::new(
        t.as_deref()
            .and_then(type_image)
            .unwrap_or_else(placeholder_type),
    ))
}

/// `float`: what stands in for a type the syntax needs but the IR lacks.
pub(crate) fn placeholder_type() -> TypeProto {
    TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(DataType::Float as i32),
            shape: Some(TensorShapeProto::default()),
        })),
        denotation: None,
    }
}

/// What the type syntax can say of `t`: the type that printing it and
/// parsing it back gives. `None` when `t` has no kind at all.
pub(crate) fn type_image(t: &TypeProto) -> Option<TypeProto> {
    use type_proto::Value as V;
    let value = match t.value.as_ref()? {
        V::TensorType(x) => V::TensorType(type_proto::Tensor {
            elem_type: Some(if nameable(x.elem_type) {
                x.elem_type.unwrap_or(1)
            } else {
                DataType::Float as i32
            }),
            shape: shape_image(&x.shape),
        }),
        V::SparseTensorType(x) => V::SparseTensorType(type_proto::SparseTensor {
            elem_type: Some(if nameable(x.elem_type) {
                x.elem_type.unwrap_or(1)
            } else {
                DataType::Float as i32
            }),
            shape: shape_image(&x.shape),
        }),
        V::SequenceType(x) => V::SequenceType(Box::new(type_proto::Sequence {
            elem_type: boxed_image(&x.elem_type),
        })),
        V::OptionalType(x) => V::OptionalType(Box::new(type_proto::Optional {
            elem_type: boxed_image(&x.elem_type),
        })),
        V::MapType(x) => V::MapType(Box::new(type_proto::Map {
            key_type: Some(if nameable(x.key_type) {
                x.key_type.unwrap_or(7)
            } else {
                DataType::Int64 as i32
            }),
            value_type: boxed_image(&x.value_type),
        })),
        V::OpaqueType(x) => V::OpaqueType(match (&x.domain, &x.name) {
            (Some(d), Some(n)) => type_proto::Opaque {
                domain: Some(d.clone()),
                name: Some(n.clone()),
            },
            (None, Some(n)) => type_proto::Opaque {
                domain: None,
                name: Some(n.clone()),
            },
            (_, None) => type_proto::Opaque::default(),
        }),
    };
    Some(TypeProto {
        value: Some(value),
        denotation: None,
    })
}

/// Whether the type syntax says all of `t`, so that [`type_image`] of it is
/// `t` itself: a type printed as it is, with no image made and compared
/// (the types of nearly every value info).
fn is_own_image(t: &TypeProto) -> bool {
    use type_proto::Value as V;
    let tensor = |elem_type: Option<i32>, shape: &Option<TensorShapeProto>| {
        nameable(elem_type)
            && (shape.iter()).all(|shape| shape.dim.iter().all(|d| d.denotation.is_none()))
    };
    let member = |t: &Option<Box<TypeProto>>| t.as_deref().is_some_and(is_own_image);
    t.denotation.is_none()
        && match &t.value {
            None => false,
            Some(V::TensorType(x)) => tensor(x.elem_type, &x.shape),
            Some(V::SparseTensorType(x)) => tensor(x.elem_type, &x.shape),
            Some(V::SequenceType(x)) => member(&x.elem_type),
            Some(V::OptionalType(x)) => member(&x.elem_type),
            Some(V::MapType(x)) => nameable(x.key_type) && member(&x.value_type),
            Some(V::OpaqueType(x)) => x.name.is_some() || x.domain.is_none(),
        }
}

/// Writes a type image (see [`type_image`]).
pub(crate) fn print_type(s: &mut Sink<'_>, t: &TypeProto) {
    use type_proto::Value as V;
    match &t.value {
        None => s.text("float"),
        Some(V::TensorType(x)) => tensor_type(s, x.elem_type, &x.shape),
        Some(V::SparseTensorType(x)) => {
            s.text(vocabulary::SPARSE_TENSOR);
            s.text("(");
            tensor_type(s, x.elem_type, &x.shape);
            s.text(")");
        }
        Some(V::SequenceType(x)) => {
            s.text(vocabulary::SEQ);
            s.text("(");
            print_type(s, x.elem_type.as_deref().unwrap_or(&placeholder_type()));
            s.text(")");
        }
        Some(V::OptionalType(x)) => {
            s.text(vocabulary::OPTIONAL);
            s.text("(");
            print_type(s, x.elem_type.as_deref().unwrap_or(&placeholder_type()));
            s.text(")");
        }
        Some(V::MapType(x)) => {
            s.text(vocabulary::MAP);
            s.text("(");
            s.text(
                x.key_type
                    .and_then(vocabulary::element_type_name)
                    .unwrap_or("int64"),
            );
            s.text(", ");
            print_type(s, x.value_type.as_deref().unwrap_or(&placeholder_type()));
            s.text(")");
        }
        Some(V::OpaqueType(x)) => {
            s.text(vocabulary::OPAQUE);
            s.text("(");
            match (&x.domain, &x.name) {
                (Some(d), Some(n)) => {
                    if d.is_empty() && s.compat() {
                        // The reference reads `opaque(n)` with no domain: the same up to defaults.
                        s.ext_name(n, is_qualified, "opaque type name");
                    } else {
                        s.ext_name(d, is_qualified, "opaque type domain");
                        s.text(", ");
                        s.ext_name(n, vocabulary::is_identifier, "opaque type name");
                    }
                }
                (None, Some(n)) => s.ext_name(n, is_qualified, "opaque type name"),
                _ => {}
            }
            s.text(")");
        }
    }
}

/// Writes a tensor type of the IR.
fn tensor_type(s: &mut Sink<'_>, elem_type: Option<i32>, shape: &Option<TensorShapeProto>) {
    fn dim(d: &Dimension) -> Dim<'_> {
        match &d.value {
            Some(dimension::Value::DimValue(v)) => Dim::Value(*v),
            Some(dimension::Value::DimParam(p)) => Dim::Param(p),
            None => Dim::Unknown,
        }
    }
    tensor_type_with(
        s,
        elem_type,
        shape.as_ref().map(|shape| &shape.dim[..]),
        dim,
    );
}

/// Writes a tensor type of element type `elem_type` and the dimensions
/// `shape` holds (`None`: no shape), each as `dim` reads it.
fn tensor_type_with<'d, D>(
    s: &mut Sink<'_>,
    elem_type: Option<i32>,
    shape: Option<&'d [D]>,
    dim: impl Fn(&'d D) -> Dim<'d>,
) {
    s.text(
        elem_type
            .and_then(vocabulary::element_type_name)
            .unwrap_or("float"),
    );
    match shape {
        None => s.text("[]"),
        Some([]) => {}
        Some(dims) => {
            s.text("[");
            for (i, d) in dims.iter().enumerate() {
                if i > 0 {
                    s.text(",");
                }
                match dim(d) {
                    Dim::Value(v) => s.int(v),
                    Dim::Param(p) => {
                        if vocabulary::is_identifier(p) {
                            s.text(p);
                        } else {
                            s.quoted(p);
                        }
                    }
                    Dim::Unknown => s.text("?"),
                }
            }
            s.text("]");
        }
    }
}

/// For a type the syntax must show even when the IR has none of it (an
/// attribute's `tp`): pushes `key`'s annotation turning the shown type into
/// `t`, if they differ, and returns the shown type — the placeholder when
/// `t` has no kind, so that the annotation clears the placeholder's kind.
pub(crate) fn shown_type_entry<'a>(
    t: &'a TypeProto,
    entries: &mut Entries<'a>,
    key: &'static str,
) -> TypeProto {
    let image = type_image(t).unwrap_or_else(placeholder_type);
    push_type_diff(&image, t, entries, key);
    image
}

/// For an optional type (a value info's): pushes `key`'s annotation for
/// what the type syntax cannot say of `t`, and returns the type to print,
/// `None` when `t` has no kind and so no type is printed.
pub(crate) fn type_entry<'a>(
    t: Option<&'a TypeProto>,
    entries: &mut Entries<'a>,
    key: &'static str,
) -> Option<Cow<'a, TypeProto>> {
    let t = t?;
    if is_own_image(t) {
        return Some(Cow::Borrowed(t));
    }
    let image = type_image(t);
    match &image {
        Some(image) => push_type_diff(image, t, entries, key),
        // Even an empty annotation says the type is there.
        None => entries.push((key, Ann::Msg(type_diff(&TypeProto::default(), t)))),
    }
    image.map(Cow::Owned)
}

fn push_type_diff<'a>(
    image: &TypeProto,
    t: &'a TypeProto,
    entries: &mut Entries<'a>,
    key: &'static str,
) {
    let diff = type_diff(image, t);
    if !diff.is_empty() {
        entries.push((key, Ann::Msg(diff)));
    }
}

/// Writes a value info: `@<...> type name`, the type being optional.
pub(crate) fn value_info(s: &mut Sink<'_>, vi: &ValueInfoProto) {
    let mut entries = Vec::new();
    if vi.name.is_none() {
        entries.push(("name", UNSET));
    }
    let image = type_entry(vi.r#type.as_ref(), &mut entries, "type");
    set_fields!(entries, vi, doc_string, metadata_props);
    annotation::annotation(s, &entries, Place::Inline);
    if let Some(image) = &image {
        print_type(s, image);
        s.text(" ");
    }
    s.name(vi.name.as_deref().unwrap_or(""));
}

/// The value infos of a graph as the printer gets them: the lists of a
/// `GraphProto`, or views of their encodings (those of a binary model's
/// main graph, see [`crate::Printer::write_binary_model`]).
pub(crate) trait GraphValues: Sync {
    type Value: Sync;
    fn input(&self) -> &[Self::Value];
    fn output(&self) -> &[Self::Value];
    fn value_info(&self) -> &[Self::Value];
    /// Writes one of them, as [`value_info`] writes it.
    fn print(&self, s: &mut Sink<'_>, value: &Self::Value);
}

impl GraphValues for GraphProto {
    type Value = ValueInfoProto;

    fn input(&self) -> &[ValueInfoProto] {
        &self.input
    }

    fn output(&self) -> &[ValueInfoProto] {
        &self.output
    }

    fn value_info(&self) -> &[ValueInfoProto] {
        &self.value_info
    }

    fn print(&self, s: &mut Sink<'_>, value: &ValueInfoProto) {
        value_info(s, value);
    }
}

impl<'a> GraphValues for ValueInfoViews<'a> {
    type Value = ValueInfoView<'a>;

    fn input(&self) -> &[ValueInfoView<'a>] {
        &self.input
    }

    fn output(&self) -> &[ValueInfoView<'a>] {
        &self.output
    }

    fn value_info(&self) -> &[ValueInfoView<'a>] {
        &self.value_info
    }

    /// A view holds a name and a type the syntax says whole (its own
    /// image): no annotation.
    fn print(&self, s: &mut Sink<'_>, view: &ValueInfoView<'a>) {
        tensor_type_with(s, Some(view.elem_type), self.shape(view), |d| *d);
        s.text(" ");
        s.name(view.name);
    }
}

/// [`crate::Print`] for a type alone. There is no annotation in front of a
/// bare type, so what the type syntax cannot say is reported as dropped.
pub(crate) fn bare_type(s: &mut Sink<'_>, t: &TypeProto) {
    let image = type_image(t).unwrap_or_else(placeholder_type);
    for (key, _) in type_diff(&image, t) {
        s.report(format!("`{key}` dropped (a type alone has no annotation)"));
    }
    print_type(s, &image);
}

/// [`crate::Print`] for a value info alone.
pub(crate) fn bare_value_info(s: &mut Sink<'_>, vi: &ValueInfoProto) {
    value_info(s, vi);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Types of every kind, each with and without what the type syntax
    /// cannot say (denotations, unnamed or missing element types, absent
    /// members), nested up to `depth` times.
    fn types(depth: usize) -> Vec<TypeProto> {
        use type_proto::Value as V;
        let elem_types = [None, Some(1), Some(7), Some(0), Some(999)];
        let dims = |denotation: Option<&str>| Dimension {
            value: Some(dimension::Value::DimParam("N".into())),
            denotation: denotation.map(Into::into),
        };
        let shapes = [
            None,
            Some(TensorShapeProto::default()),
            Some(TensorShapeProto {
                dim: vec![dims(None), Dimension::default()],
            }),
            Some(TensorShapeProto {
                dim: vec![dims(None), dims(Some("BATCH"))],
            }),
        ];
        let mut values = Vec::new();
        for elem_type in elem_types {
            for shape in &shapes {
                let shape = shape.clone();
                values.push(V::TensorType(type_proto::Tensor {
                    elem_type,
                    shape: shape.clone(),
                }));
                values.push(V::SparseTensorType(type_proto::SparseTensor {
                    elem_type,
                    shape,
                }));
            }
        }
        for (domain, name) in [
            (None, None),
            (Some("d"), None),
            (None, Some("n")),
            (Some(""), Some("n")),
        ] {
            values.push(V::OpaqueType(type_proto::Opaque {
                domain: domain.map(Into::into),
                name: name.map(Into::into),
            }));
        }
        let inner: Vec<Option<Box<TypeProto>>> = match depth {
            0 => vec![None],
            _ => std::iter::once(None)
                .chain(
                    types(depth - 1)
                        .into_iter()
                        .step_by(3)
                        .map(|t| Some(Box::new(t))),
                )
                .collect(),
        };
        for member in &inner {
            values.push(V::SequenceType(Box::new(type_proto::Sequence {
                elem_type: member.clone(),
            })));
            values.push(V::OptionalType(Box::new(type_proto::Optional {
                elem_type: member.clone(),
            })));
            for key_type in [None, Some(7), Some(1), Some(999)] {
                values.push(V::MapType(Box::new(type_proto::Map {
                    key_type,
                    value_type: member.clone(),
                })));
            }
        }
        let mut types = vec![TypeProto::default()];
        for value in values {
            for denotation in [None, Some("IMAGE")] {
                types.push(TypeProto {
                    value: Some(value.clone()),
                    denotation: denotation.map(Into::into),
                });
            }
        }
        types
    }

    #[test]
    fn a_type_is_its_own_image_when_its_image_equals_it() {
        let types = types(2);
        assert!(types.len() > 1000);
        let own = types.iter().filter(|t| is_own_image(t)).count();
        assert!(
            own >= 30 && own < types.len() / 2,
            "{own} of {}",
            types.len()
        );
        for t in &types {
            assert_eq!(is_own_image(t), type_image(t).as_ref() == Some(t), "{t:?}");
        }
    }
}
