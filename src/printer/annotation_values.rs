//! The annotation key scheme: every key is the name of a proto field, and
//! every value is written in the form of that field's type (numbers,
//! strings, lists, `["k": "v"]` pair lists for string maps, `{key: value}`
//! messages, graphs, tensor constants, sparse tensor constants). The only
//! pseudo-keys are `raw` on tensors (`raw: true`: the `{...}` elements are
//! stored packed in `raw_data`) and `bits` inside a float value
//! (`{bits: 2143289345}`, a float given by its IEEE bit pattern, for NaN
//! payloads that have no decimal text).
//!
//! `crate::vocabulary::message_table!` lists, once, the key of every field
//! of the nested messages that annotations spell out in full; the printer
//! derives [`AnnMessage`] from it here and the parser's `apply_*` functions
//! derive the reading side from the same table, so the two cannot drift
//! apart.

use crate::proto::{simple_sharded_dim_proto, OperatorSetIdProto};
use crate::proto::{
    tensor_shape_proto, type_proto, GraphProto, SimpleShardedDimProto, SparseTensorProto,
    StringStringEntryProto, TensorProto, TypeProto,
};

/// An annotation value to print, borrowing from the IR.
#[derive(Debug, Clone)]
pub(crate) enum Ann<'a> {
    Int(i64),
    Uint(u64),
    F32(f32),
    F64(f64),
    Str(&'a [u8]),
    Ident(&'static str),
    List(Vec<Ann<'a>>),
    Pairs(Vec<(&'a [u8], Ann<'a>)>),
    Msg(Entries<'a>),
    Graph(&'a GraphProto),
    Tensor(&'a TensorProto),
    Sparse(&'a SparseTensorProto),
}

/// The entries of one annotation or message value.
pub(crate) type Entries<'a> = Vec<(&'static str, Ann<'a>)>;

/// `unset`: the field is absent.
pub(crate) const UNSET: Ann<'static> = Ann::Ident("unset");

/// Adds `(key, value)` to `$entries` for each of `$fields` of `$message`
/// that is set, its key being the field's name (every annotation key is
/// the name of a proto field).
macro_rules! set_fields {
    ($entries:expr, $message:expr, $($field:ident),+ $(,)?) => {
        $(if let Some(value) = $crate::printer::annotation_values::Field::ann(&$message.$field) {
            $entries.push((stringify!($field), value));
        })+
    };
}
pub(crate) use set_fields;

/// A field as an annotation value; `None` when it is absent or empty.
pub(crate) trait Field {
    fn ann(&self) -> Option<Ann<'_>>;
    /// Whether [`Field::ann`] gives a value, without building it.
    fn is_set(&self) -> bool;
}

/// A message as an annotation value.
pub(crate) trait AnnMessage {
    /// Every field that is set, in field order.
    fn ann_entries(&self) -> Entries<'_>;

    /// The message as one value.
    fn ann_one(&self) -> Ann<'_> {
        Ann::Msg(self.ann_entries())
    }

    /// A repeated field of these messages.
    fn ann_list(items: &[Self]) -> Ann<'_>
    where
        Self: Sized,
    {
        default_list(items)
    }
}

macro_rules! scalar_fields {
    ($($ty:ty => |$v:ident| $e:expr),* $(,)?) => {$(
        impl Field for Option<$ty> {
            fn ann(&self) -> Option<Ann<'_>> {
                self.as_ref().map(|$v| $e)
            }
            fn is_set(&self) -> bool {
                self.is_some()
            }
        }
        impl Field for Vec<$ty> {
            fn ann(&self) -> Option<Ann<'_>> {
                (!self.is_empty()).then(|| Ann::List(self.iter().map(|$v| $e).collect()))
            }
            fn is_set(&self) -> bool {
                !self.is_empty()
            }
        }
    )*};
}

scalar_fields! {
    i64 => |v| Ann::Int(*v),
    i32 => |v| Ann::Int(i64::from(*v)),
    u64 => |v| Ann::Uint(*v),
    f32 => |v| Ann::F32(*v),
    f64 => |v| Ann::F64(*v),
    String => |v| Ann::Str(v.as_bytes()),
    Vec<u8> => |v| Ann::Str(v),
}

impl<M: AnnMessage> Field for Option<M> {
    fn ann(&self) -> Option<Ann<'_>> {
        self.as_ref().map(AnnMessage::ann_one)
    }
    fn is_set(&self) -> bool {
        self.is_some()
    }
}

/// The message fields the IR boxes (see build.rs).
macro_rules! boxed_fields {
    ($($ty:ty),*) => {$(
        impl Field for Option<Box<$ty>> {
            fn ann(&self) -> Option<Ann<'_>> {
                self.as_deref().map(AnnMessage::ann_one)
            }
            fn is_set(&self) -> bool {
                self.is_some()
            }
        }
    )*};
}

boxed_fields!(TypeProto, TensorProto, GraphProto, SparseTensorProto);

impl<M: AnnMessage> Field for Vec<M> {
    fn ann(&self) -> Option<Ann<'_>> {
        (!self.is_empty()).then(|| M::ann_list(self))
    }
    fn is_set(&self) -> bool {
        !self.is_empty()
    }
}

macro_rules! impl_ann_message {
    (crate::proto::StringStringEntryProto, $($rest:tt)*) => {
        impl_ann_message!(@impl crate::proto::StringStringEntryProto, ann_string_entries, $($rest)*);
    };
    (crate::proto::OperatorSetIdProto, $($rest:tt)*) => {
        impl_ann_message!(@impl crate::proto::OperatorSetIdProto, ann_opsets, $($rest)*);
    };
    (@impl $ty:ty, $list:ident, $what:literal, { $($key:literal => $field:ident),* $(,)? }) => {
        impl AnnMessage for $ty {
            fn ann_entries(&self) -> Entries<'_> {
                let mut entries = Vec::new();
                $(if let Some(value) = self.$field.ann() {
                    entries.push(($key, value));
                })*
                entries
            }
            fn ann_list(items: &[Self]) -> Ann<'_> {
                $list(items)
            }
        }
    };
    ($ty:ty, $($rest:tt)*) => {
        impl_ann_message!(@impl $ty, default_list, $($rest)*);
    };
}

fn default_list<M: AnnMessage>(items: &[M]) -> Ann<'_> {
    Ann::List(items.iter().map(AnnMessage::ann_one).collect())
}

fn ann_opsets(items: &[OperatorSetIdProto]) -> Ann<'_> {
    if opsets_are_pairs(items) {
        opset_pairs(items)
    } else {
        default_list(items)
    }
}

/// Opset imports in the reference's `["domain": version]` form (a missing
/// domain or version written as its default).
pub(crate) fn opset_pairs(items: &[OperatorSetIdProto]) -> Ann<'_> {
    Ann::Pairs(
        items
            .iter()
            .map(|o| {
                (
                    o.domain.as_deref().unwrap_or("").as_bytes(),
                    Ann::Int(o.version.unwrap_or(0)),
                )
            })
            .collect(),
    )
}

crate::vocabulary::message_table!(impl_ann_message);

// StringStringEntryProto and OperatorSetIdProto lists use the pair form
// `["key": value]` when every entry has both fields.

fn ann_string_entries(items: &[StringStringEntryProto]) -> Ann<'_> {
    if metadata_props_are_pairs(items) {
        metadata_pairs(items)
    } else {
        default_list(items)
    }
}

/// Whether string entries can use the pair form.
pub(crate) fn metadata_props_are_pairs(items: &[StringStringEntryProto]) -> bool {
    items.iter().all(|e| e.key.is_some() && e.value.is_some())
}

/// String entries in the reference's `["key": "value"]` form (a missing
/// key or value written as empty).
pub(crate) fn metadata_pairs(items: &[StringStringEntryProto]) -> Ann<'_> {
    Ann::Pairs(
        items
            .iter()
            .map(|e| {
                (
                    e.key.as_deref().unwrap_or("").as_bytes(),
                    Ann::Str(e.value.as_deref().unwrap_or("").as_bytes()),
                )
            })
            .collect(),
    )
}

/// Whether an opset import list can use the pair form.
pub(crate) fn opsets_are_pairs(items: &[OperatorSetIdProto]) -> bool {
    items
        .iter()
        .all(|o| o.domain.is_some() && o.version.is_some())
}

// The constructs print as themselves.

impl AnnMessage for GraphProto {
    fn ann_entries(&self) -> Entries<'_> {
        Vec::new()
    }
    fn ann_one(&self) -> Ann<'_> {
        Ann::Graph(self)
    }
}

impl AnnMessage for TensorProto {
    fn ann_entries(&self) -> Entries<'_> {
        Vec::new()
    }
    fn ann_one(&self) -> Ann<'_> {
        Ann::Tensor(self)
    }
}

impl AnnMessage for SparseTensorProto {
    fn ann_entries(&self) -> Entries<'_> {
        Vec::new()
    }
    fn ann_one(&self) -> Ann<'_> {
        Ann::Sparse(self)
    }
}

impl AnnMessage for TypeProto {
    fn ann_entries(&self) -> Entries<'_> {
        type_diff(&TypeProto::default(), self)
    }
}

impl AnnMessage for tensor_shape_proto::Dimension {
    fn ann_entries(&self) -> Entries<'_> {
        use tensor_shape_proto::dimension::Value;
        let mut entries = Vec::new();
        match &self.value {
            Some(Value::DimValue(v)) => entries.push(("dim_value", Ann::Int(*v))),
            Some(Value::DimParam(p)) => entries.push(("dim_param", Ann::Str(p.as_bytes()))),
            None => {}
        }
        set_fields!(entries, self, denotation);
        entries
    }
}

impl AnnMessage for SimpleShardedDimProto {
    fn ann_entries(&self) -> Entries<'_> {
        use simple_sharded_dim_proto::Dim;
        let mut entries = Vec::new();
        match &self.dim {
            Some(Dim::DimValue(v)) => entries.push(("dim_value", Ann::Int(*v))),
            Some(Dim::DimParam(p)) => entries.push(("dim_param", Ann::Str(p.as_bytes()))),
            None => {}
        }
        set_fields!(entries, self, num_shards);
        entries
    }
}

// ----- diffs: what an annotation must say to turn `image` into `actual` ---

/// An optional field: the actual value, or `unset`, when it differs.
fn diff_field<'a, T>(image: &T, actual: &'a T, entries: &mut Entries<'a>, key: &'static str)
where
    T: Field + PartialEq,
{
    if image != actual {
        entries.push((key, actual.ann().unwrap_or(UNSET)));
    }
}

/// A nested message field merged by the annotation: its own diff, in braces.
fn diff_nested<'a, T>(
    image: Option<&T>,
    actual: Option<&'a T>,
    entries: &mut Entries<'a>,
    key: &'static str,
    diff: impl Fn(&T, &'a T) -> Entries<'a>,
) where
    T: Default,
{
    match (image, actual) {
        (_, None) => {
            if image.is_some() {
                entries.push((key, UNSET));
            }
        }
        (Some(i), Some(a)) => {
            let sub = diff(i, a);
            if !sub.is_empty() {
                entries.push((key, Ann::Msg(sub)));
            }
        }
        (None, Some(a)) => entries.push((key, Ann::Msg(diff(&T::default(), a)))),
    }
}

/// The entries that turn the type `image` into `actual` when merged into it:
/// scalar fields are replaced, repeated fields replaced as a whole, nested
/// messages merged, and a oneof member of another kind starts from empty.
pub(crate) fn type_diff<'a>(image: &TypeProto, actual: &'a TypeProto) -> Entries<'a> {
    use type_proto::Value as V;
    let mut entries = Vec::new();
    let key = |v: &V| match v {
        V::TensorType(_) => "tensor_type",
        V::SequenceType(_) => "sequence_type",
        V::MapType(_) => "map_type",
        V::OptionalType(_) => "optional_type",
        V::SparseTensorType(_) => "sparse_tensor_type",
        V::OpaqueType(_) => "opaque_type",
    };
    match (&image.value, &actual.value) {
        (Some(i), None) => entries.push((key(i), UNSET)),
        (None, None) => {}
        (i, Some(a)) => {
            let k = key(a);
            let sub = match (i, a) {
                (Some(V::TensorType(i)), V::TensorType(a)) => {
                    tensor_type_diff(i.elem_type, &i.shape, a.elem_type.as_ref(), &a.shape)
                }
                (Some(V::SparseTensorType(i)), V::SparseTensorType(a)) => {
                    tensor_type_diff(i.elem_type, &i.shape, a.elem_type.as_ref(), &a.shape)
                }
                (Some(V::SequenceType(i)), V::SequenceType(a)) => {
                    elem_diff(&i.elem_type, &a.elem_type)
                }
                (Some(V::OptionalType(i)), V::OptionalType(a)) => {
                    elem_diff(&i.elem_type, &a.elem_type)
                }
                (Some(V::MapType(i)), V::MapType(a)) => {
                    let mut sub = Vec::new();
                    diff_field(&i.key_type, &a.key_type, &mut sub, "key_type");
                    diff_nested(
                        i.value_type.as_deref(),
                        a.value_type.as_deref(),
                        &mut sub,
                        "value_type",
                        type_diff,
                    );
                    sub
                }
                (Some(V::OpaqueType(i)), V::OpaqueType(a)) => {
                    let mut sub = Vec::new();
                    diff_field(&i.domain, &a.domain, &mut sub, "domain");
                    diff_field(&i.name, &a.name, &mut sub, "name");
                    sub
                }
                (_, a) => match a {
                    V::TensorType(a) => a.ann_entries(),
                    V::SparseTensorType(a) => a.ann_entries(),
                    V::SequenceType(a) => a.ann_entries(),
                    V::OptionalType(a) => a.ann_entries(),
                    V::MapType(a) => a.ann_entries(),
                    V::OpaqueType(a) => a.ann_entries(),
                },
            };
            let same_kind = i.as_ref().is_some_and(|i| key(i) == k);
            if !sub.is_empty() || !same_kind {
                entries.push((k, Ann::Msg(sub)));
            }
        }
    }
    diff_field(
        &image.denotation,
        &actual.denotation,
        &mut entries,
        "denotation",
    );
    entries
}

fn tensor_type_diff<'a>(
    image_elem: Option<i32>,
    image_shape: &Option<crate::proto::TensorShapeProto>,
    actual_elem: Option<&'a i32>,
    actual_shape: &'a Option<crate::proto::TensorShapeProto>,
) -> Entries<'a> {
    let mut sub = Vec::new();
    if image_elem.as_ref() != actual_elem {
        sub.push((
            "elem_type",
            actual_elem.map_or(UNSET, |v| Ann::Int(i64::from(*v))),
        ));
    }
    diff_nested(
        image_shape.as_ref(),
        actual_shape.as_ref(),
        &mut sub,
        "shape",
        |i, a| {
            let mut e = Vec::new();
            if i.dim != a.dim {
                e.push(("dim", a.dim.ann().unwrap_or(Ann::List(Vec::new()))));
            }
            e
        },
    );
    sub
}

fn elem_diff<'a>(
    image: &Option<Box<TypeProto>>,
    actual: &'a Option<Box<TypeProto>>,
) -> Entries<'a> {
    let mut sub = Vec::new();
    diff_nested(
        image.as_deref(),
        actual.as_deref(),
        &mut sub,
        "elem_type",
        type_diff,
    );
    sub
}
