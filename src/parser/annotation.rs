//! `@<key: value, ...>` annotations: the one extension form that carries what
//! the reference syntax cannot hold (doc strings, metadata, storage details,
//! field presence). The grammar parses an annotation into [`Entry`] values;
//! the `apply_*` functions below give them meaning for each construct.

use crate::error::{Diagnostic, Span};
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, SparseTensorProto,
    TensorProto, TypeProto, ValueInfoProto,
};

/// One `key: value` entry of an annotation.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key, e.g. `doc_string`.
    pub key: String,
    /// Where the key is written.
    pub key_span: Span,
    /// The value.
    pub value: Value,
}

/// An annotation value. Numbers keep their source text so each field can
/// convert them with its own type's rules.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer or float literal, as written (with its sign).
    Number(String, Span),
    /// A string or byte-string literal, unescaped.
    Bytes(Vec<u8>, Span),
    /// A bare identifier such as `true`, `false` or `unset`.
    Ident(String, Span),
    /// `[v, v, ...]`
    List(Vec<Value>, Span),
    /// `["key": value, ...]`, the form of `metadata_props` and `opset_import`.
    Pairs(Vec<(Vec<u8>, Value)>, Span),
    /// `{key: value, ...}`, a nested message.
    Message(Vec<Entry>, Span),
    /// A graph, e.g. in `training_info`.
    Graph(Box<GraphProto>, Span),
    /// A tensor constant.
    Tensor(Box<TensorProto>, Span),
    /// A sparse tensor constant.
    SparseTensor(Box<SparseTensorProto>, Span),
    /// A type.
    Type(Box<TypeProto>, Span),
}

impl Value {
    /// Where the value is written.
    pub fn span(&self) -> Span {
        match self {
            Value::Number(_, s)
            | Value::Bytes(_, s)
            | Value::Ident(_, s)
            | Value::List(_, s)
            | Value::Pairs(_, s)
            | Value::Message(_, s)
            | Value::Graph(_, s)
            | Value::Tensor(_, s)
            | Value::SparseTensor(_, s)
            | Value::Type(_, s) => s.clone(),
        }
    }
}

fn unknown_key(entry: &Entry, construct: &str) -> Diagnostic {
    Diagnostic::new(
        "onnxtxt::parse::unknown_annotation",
        format!("`{}` is not an annotation key of a {construct}", entry.key),
        entry.key_span.clone(),
    )
}

/// Applies a model header entry whose key is not one of the reference's
/// (`training_info`, `configuration`, `graph: unset`, ...): any model field,
/// by its proto name.
pub(crate) fn apply_model_entry(model: &mut ModelProto, entry: Entry) -> Result<(), Diagnostic> {
    model.apply_entry(entry)
}

/// Applies a function header entry whose key is not one of the reference's
/// (`metadata_props`, `name: unset`, ...): any function field.
pub(crate) fn apply_function_entry(
    function: &mut FunctionProto,
    entry: Entry,
) -> Result<(), Diagnostic> {
    function.apply_entry(entry)
}

fn apply_all<M: Msg>(target: &mut M, entries: Vec<Entry>) -> Result<(), Diagnostic> {
    entries.into_iter().try_for_each(|e| target.apply_entry(e))
}

/// Applies the annotation written before a graph.
pub(crate) fn apply_graph(graph: &mut GraphProto, entries: Vec<Entry>) -> Result<(), Diagnostic> {
    apply_all(graph, entries)
}

/// Applies the annotation written before a node.
pub(crate) fn apply_node(node: &mut NodeProto, entries: Vec<Entry>) -> Result<(), Diagnostic> {
    apply_all(node, entries)
}

/// Applies the annotation written before a value info.
pub(crate) fn apply_value_info(
    value_info: &mut ValueInfoProto,
    entries: Vec<Entry>,
) -> Result<(), Diagnostic> {
    apply_all(value_info, entries)
}

/// Applies the annotation written before a tensor constant. Besides the
/// proto fields, `raw: true` moves the written elements (the typed field of
/// the element type) into `raw_data`, packed; it is applied last.
pub(crate) fn apply_tensor(
    tensor: &mut TensorProto,
    entries: Vec<Entry>,
) -> Result<(), Diagnostic> {
    let mut raw = None;
    for entry in entries {
        if entry.key == "raw" {
            raw = Some((boolean(&entry.value)?, entry.key_span.clone()));
        } else {
            tensor.apply_entry(entry)?;
        }
    }
    if let Some((true, span)) = raw {
        pack_into_raw(tensor).map_err(|message| Diagnostic::new(CODE, message, span))?;
    }
    Ok(())
}

/// Moves the elements of `tensor`'s typed field into `raw_data`.
fn pack_into_raw(tensor: &mut TensorProto) -> Result<(), String> {
    use crate::tensor_data::{pack_raw, typed_field, TypedField, TypedValues};
    let data_type = tensor.data_type.unwrap_or(0);
    let field =
        typed_field(data_type).ok_or("`raw: true` needs a tensor with a known element type")?;
    let values = match field {
        TypedField::Int32Data => TypedValues::Int32(std::mem::take(&mut tensor.int32_data)),
        TypedField::Int64Data => TypedValues::Int64(std::mem::take(&mut tensor.int64_data)),
        TypedField::Uint64Data => TypedValues::Uint64(std::mem::take(&mut tensor.uint64_data)),
        TypedField::FloatData => TypedValues::Float(std::mem::take(&mut tensor.float_data)),
        TypedField::DoubleData => TypedValues::Double(std::mem::take(&mut tensor.double_data)),
        TypedField::StringData => return Err("string tensors cannot use `raw: true`".into()),
    };
    tensor.raw_data = Some(pack_raw(data_type, &values)?);
    Ok(())
}

/// Applies the annotation written before a sparse tensor constant.
pub(crate) fn apply_sparse_tensor(
    sparse: &mut SparseTensorProto,
    entries: Vec<Entry>,
) -> Result<(), Diagnostic> {
    apply_all(sparse, entries)
}

/// Applies the annotation written before an attribute.
pub(crate) fn apply_attribute(
    attribute: &mut AttributeProto,
    entries: Vec<Entry>,
) -> Result<(), Diagnostic> {
    apply_all(attribute, entries)
}

// ---------------------------------------------------------------------------
// The key scheme: one key per proto field (see `crate::vocabulary`, whose
// tables generate the `Msg` implementations below). A field is set
// from a value of its type; `unset` clears it. A `{...}` value merges into a
// singular message field (its own keys replace what they name); a list
// replaces a repeated field.
// ---------------------------------------------------------------------------

const CODE: &str = "onnxtxt::parse::annotation";

fn expected(what: &str, value: &Value) -> Diagnostic {
    Diagnostic::new(CODE, format!("expected {what} here"), value.span())
}

fn is_unset(value: &Value) -> bool {
    matches!(value, Value::Ident(word, _) if word == "unset")
}

fn boolean(value: &Value) -> Result<bool, Diagnostic> {
    match value {
        Value::Ident(word, _) if word == "true" => Ok(true),
        Value::Ident(word, _) if word == "false" => Ok(false),
        _ => Err(expected("`true` or `false`", value)),
    }
}

/// A scalar field value.
trait Scalar: Sized {
    fn scalar(value: Value) -> Result<Self, Diagnostic>;
}

fn integer<T: std::str::FromStr>(value: Value) -> Result<T, Diagnostic> {
    match &value {
        Value::Number(text, span) => text.parse().map_err(|_| {
            Diagnostic::new(
                CODE,
                format!("`{text}` is not an integer of this field's type"),
                span.clone(),
            )
        }),
        _ => Err(expected("an integer", &value)),
    }
}

/// A float: a number, `inf`/`nan` (any case), or `{bits: N}` (the IEEE bit
/// pattern, for NaN payloads).
fn float<T: std::str::FromStr, B: std::str::FromStr>(
    value: Value,
    from_bits: fn(B) -> T,
) -> Result<T, Diagnostic> {
    match &value {
        Value::Number(text, span) | Value::Ident(text, span) => text
            .parse()
            .map_err(|_| Diagnostic::new(CODE, format!("`{text}` is not a number"), span.clone())),
        Value::Message(entries, _) if entries.len() == 1 && entries[0].key == "bits" => {
            Ok(from_bits(integer(entries[0].value.clone())?))
        }
        _ => Err(expected("a number", &value)),
    }
}

impl Scalar for i64 {
    fn scalar(value: Value) -> Result<Self, Diagnostic> {
        integer(value)
    }
}
impl Scalar for i32 {
    fn scalar(value: Value) -> Result<Self, Diagnostic> {
        integer(value)
    }
}
impl Scalar for u64 {
    fn scalar(value: Value) -> Result<Self, Diagnostic> {
        integer(value)
    }
}
impl Scalar for f32 {
    fn scalar(value: Value) -> Result<Self, Diagnostic> {
        float(value, f32::from_bits)
    }
}
impl Scalar for f64 {
    fn scalar(value: Value) -> Result<Self, Diagnostic> {
        float(value, f64::from_bits)
    }
}
impl Scalar for Vec<u8> {
    fn scalar(value: Value) -> Result<Self, Diagnostic> {
        match value {
            Value::Bytes(bytes, _) => Ok(bytes),
            other => Err(expected("a string", &other)),
        }
    }
}
impl Scalar for String {
    fn scalar(value: Value) -> Result<Self, Diagnostic> {
        match value {
            Value::Bytes(bytes, span) => String::from_utf8(bytes)
                .map_err(|_| Diagnostic::new(CODE, "this field holds UTF-8 text", span)),
            other => Err(expected("a string", &other)),
        }
    }
}

/// A proto message as an annotation value.
pub(crate) trait Msg: Default + Sized {
    /// Sets the field `entry.key` names.
    fn apply_entry(&mut self, entry: Entry) -> Result<(), Diagnostic>;

    /// A whole message from a value: `{key: value, ...}` (or, for graphs,
    /// tensors, sparse tensors and types, their own syntax).
    fn from_value(value: Value) -> Result<Self, Diagnostic> {
        let mut message = Self::default();
        message.merge_value(value)?;
        Ok(message)
    }

    /// Merges `{key: value, ...}` into the message, or replaces it with a
    /// value in the message's own syntax.
    fn merge_value(&mut self, value: Value) -> Result<(), Diagnostic> {
        match value {
            Value::Message(entries, _) => apply_all(self, entries),
            other => Err(expected("a message `{key: value, ...}`", &other)),
        }
    }

    /// One entry of a `["key": value]` list of these messages.
    fn from_pair(key: Vec<u8>, value: Value) -> Result<Self, Diagnostic> {
        let _ = key;
        Err(expected("a list of messages `[{...}, ...]`", &value))
    }
}

/// A field that an annotation entry sets.
trait SetField {
    fn set(&mut self, value: Value) -> Result<(), Diagnostic>;
}

macro_rules! scalar_set_field {
    ($($ty:ty),*) => {$(
        impl SetField for Option<$ty> {
            fn set(&mut self, value: Value) -> Result<(), Diagnostic> {
                *self = if is_unset(&value) { None } else { Some(<$ty>::scalar(value)?) };
                Ok(())
            }
        }
        impl SetField for Vec<$ty> {
            fn set(&mut self, value: Value) -> Result<(), Diagnostic> {
                *self = match value {
                    Value::List(items, _) => items.into_iter().map(<$ty>::scalar).collect::<Result<_, _>>()?,
                    v if is_unset(&v) => Vec::new(),
                    other => return Err(expected("a list `[...]`", &other)),
                };
                Ok(())
            }
        }
    )*};
}

scalar_set_field!(i64, i32, u64, f32, f64, Vec<u8>, String);

impl<M: Msg> SetField for Option<M> {
    fn set(&mut self, value: Value) -> Result<(), Diagnostic> {
        if is_unset(&value) {
            *self = None;
            Ok(())
        } else {
            self.get_or_insert_with(M::default).merge_value(value)
        }
    }
}

/// The message fields the IR boxes (see build.rs).
macro_rules! boxed_set_field {
    ($($ty:ty),*) => {$(
        impl SetField for Option<Box<$ty>> {
            fn set(&mut self, value: Value) -> Result<(), Diagnostic> {
                if is_unset(&value) {
                    *self = None;
                    Ok(())
                } else {
                    self.get_or_insert_with(Box::default).merge_value(value)
                }
            }
        }
    )*};
}

boxed_set_field!(TypeProto, TensorProto, GraphProto, SparseTensorProto);

impl<M: Msg> SetField for Vec<M> {
    fn set(&mut self, value: Value) -> Result<(), Diagnostic> {
        *self = match value {
            Value::List(items, _) => items
                .into_iter()
                .map(M::from_value)
                .collect::<Result<_, _>>()?,
            Value::Pairs(pairs, _) => pairs
                .into_iter()
                .map(|(k, v)| M::from_pair(k, v))
                .collect::<Result<_, _>>()?,
            v if is_unset(&v) => Vec::new(),
            other => return Err(expected("a list `[...]`", &other)),
        };
        Ok(())
    }
}

macro_rules! impl_msg {
    (crate::proto::$name:ident, $what:literal, $fields:tt) => {
        impl_msg!(@impl crate::proto::$name, $name, $what, $fields);
    };
    (crate::proto::$module:ident::$name:ident, $what:literal, $fields:tt) => {
        impl_msg!(@impl crate::proto::$module::$name, $name, $what, $fields);
    };
    (@impl $ty:ty, $name:ident, $what:literal, { $($key:literal => $field:ident),* $(,)? }) => {
        impl Msg for $ty {
            fn apply_entry(&mut self, entry: Entry) -> Result<(), Diagnostic> {
                match entry.key.as_str() {
                    $($key => self.$field.set(entry.value),)*
                    _ => Err(unknown_key(&entry, $what)),
                }
            }
            impl_msg!(@extra $name);
        }
    };
    (@extra StringStringEntryProto) => {
        fn from_pair(key: Vec<u8>, value: Value) -> Result<Self, Diagnostic> {
            let span = value.span();
            let key = String::from_utf8(key).map_err(|_| Diagnostic::new(CODE, "keys are UTF-8 text", span))?;
            Ok(crate::proto::StringStringEntryProto { key: Some(key), value: Some(String::scalar(value)?) })
        }
    };
    (@extra OperatorSetIdProto) => {
        fn from_pair(key: Vec<u8>, value: Value) -> Result<Self, Diagnostic> {
            let span = value.span();
            let domain = String::from_utf8(key).map_err(|_| Diagnostic::new(CODE, "domains are UTF-8 text", span))?;
            Ok(crate::proto::OperatorSetIdProto { domain: Some(domain), version: Some(integer(value)?) })
        }
    };
    (@extra GraphProto) => {
        fn merge_value(&mut self, value: Value) -> Result<(), Diagnostic> {
            match value {
                Value::Graph(graph, _) => {
                *self = *graph;
                Ok(())
            },
                Value::Message(entries, _) => apply_all(self, entries),
                other => Err(expected("a graph", &other)),
            }
        }
    };
    (@extra TensorProto) => {
        fn merge_value(&mut self, value: Value) -> Result<(), Diagnostic> {
            match value {
                Value::Tensor(tensor, _) => {
                *self = *tensor;
                Ok(())
            },
                Value::Message(entries, _) => apply_all(self, entries),
                other => Err(expected("a tensor constant", &other)),
            }
        }
    };
    (@extra SparseTensorProto) => {
        fn merge_value(&mut self, value: Value) -> Result<(), Diagnostic> {
            match value {
                Value::SparseTensor(sparse, _) => {
                *self = *sparse;
                Ok(())
            },
                Value::Message(entries, _) => apply_all(self, entries),
                other => Err(expected("a sparse tensor constant", &other)),
            }
        }
    };
    (@extra $other:ident) => {};
}

crate::vocabulary::message_table!(impl_msg);
crate::vocabulary::construct_table!(impl_msg);

fn plain<T>(member: &mut T) -> &mut T {
    member
}

fn unbox<T>(member: &mut Box<T>) -> &mut T {
    member
}

impl Msg for TypeProto {
    fn apply_entry(&mut self, entry: Entry) -> Result<(), Diagnostic> {
        use crate::proto::type_proto::{self as tp, Value as V};
        macro_rules! member {
            ($variant:ident, $boxed:expr, $unbox:expr) => {{
                if is_unset(&entry.value) {
                    if matches!(self.value, Some(V::$variant(_))) {
                        self.value = None;
                    }
                    return Ok(());
                }
                if !matches!(self.value, Some(V::$variant(_))) {
                    self.value = Some(V::$variant($boxed));
                }
                let Some(V::$variant(member)) = &mut self.value else {
                    unreachable!()
                };
                $unbox(member).merge_value(entry.value)
            }};
        }
        match entry.key.as_str() {
            "tensor_type" => member!(TensorType, tp::Tensor::default(), plain),
            "sequence_type" => {
                member!(SequenceType, Box::default(), unbox)
            }
            "map_type" => member!(MapType, Box::default(), unbox),
            "optional_type" => {
                member!(OptionalType, Box::default(), unbox)
            }
            "sparse_tensor_type" => {
                member!(SparseTensorType, tp::SparseTensor::default(), plain)
            }
            "opaque_type" => member!(OpaqueType, tp::Opaque::default(), plain),
            "denotation" => self.denotation.set(entry.value),
            _ => Err(unknown_key(&entry, "type")),
        }
    }

    fn merge_value(&mut self, value: Value) -> Result<(), Diagnostic> {
        match value {
            Value::Type(ty, _) => {
                *self = *ty;
                Ok(())
            }
            Value::Message(entries, _) => apply_all(self, entries),
            other => Err(expected("a type or a message `{...}`", &other)),
        }
    }
}

/// Sets the member of a oneof that `wrap` makes from `value`: a value
/// replaces whichever member was set; `unset` clears the oneof if this
/// member (`is_this`) was the one set.
fn set_member<T, O>(
    oneof: &mut Option<O>,
    value: Value,
    wrap: fn(T) -> O,
    is_this: fn(&O) -> bool,
) -> Result<(), Diagnostic>
where
    Option<T>: SetField,
{
    let mut member = None;
    member.set(value)?;
    *oneof = match member {
        Some(member) => Some(wrap(member)),
        None => oneof.take().filter(|other| !is_this(other)),
    };
    Ok(())
}

impl Msg for crate::proto::tensor_shape_proto::Dimension {
    fn apply_entry(&mut self, entry: Entry) -> Result<(), Diagnostic> {
        use crate::proto::tensor_shape_proto::dimension::Value as V;
        match entry.key.as_str() {
            "dim_value" => set_member(&mut self.value, entry.value, V::DimValue, |v| {
                matches!(v, V::DimValue(_))
            }),
            "dim_param" => set_member(&mut self.value, entry.value, V::DimParam, |v| {
                matches!(v, V::DimParam(_))
            }),
            "denotation" => self.denotation.set(entry.value),
            _ => Err(unknown_key(&entry, "dimension")),
        }
    }
}

impl Msg for crate::proto::SimpleShardedDimProto {
    fn apply_entry(&mut self, entry: Entry) -> Result<(), Diagnostic> {
        use crate::proto::simple_sharded_dim_proto::Dim as V;
        match entry.key.as_str() {
            "dim_value" => set_member(&mut self.dim, entry.value, V::DimValue, |v| {
                matches!(v, V::DimValue(_))
            }),
            "dim_param" => set_member(&mut self.dim, entry.value, V::DimParam, |v| {
                matches!(v, V::DimParam(_))
            }),
            "num_shards" => self.num_shards.set(entry.value),
            _ => Err(unknown_key(&entry, "sharded dimension")),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::proto::type_proto;
    use crate::{parse_attribute, parse_node, parse_tensor, parse_value_info};

    #[test]
    fn type_entries_merge_into_the_written_type() {
        let vi = parse_value_info(
            r#"@<type: {denotation: "IMAGE", tensor_type: {shape: {dim: [{dim_param: "N", denotation: "BATCH"}]}}}> float[N] x"#,
        )
        .unwrap();
        let ty = vi.r#type.unwrap();
        assert_eq!(ty.denotation.as_deref(), Some("IMAGE"));
        let Some(type_proto::Value::TensorType(t)) = ty.value else {
            panic!()
        };
        assert_eq!(t.elem_type, Some(1));
        assert_eq!(t.shape.unwrap().dim[0].denotation.as_deref(), Some("BATCH"));
    }

    #[test]
    fn a_dimension_holds_one_of_its_members() {
        use crate::proto::tensor_shape_proto::dimension::Value as V;
        let dim = |entries: &str| {
            let text =
                format!("@<type: {{tensor_type: {{shape: {{dim: [{{{entries}}}]}}}}}}> float[N] x");
            let ty = parse_value_info(&text).unwrap().r#type.unwrap();
            let Some(type_proto::Value::TensorType(t)) = ty.value else {
                panic!("{entries}")
            };
            t.shape.unwrap().dim[0].value.clone()
        };
        assert_eq!(dim(r#"dim_param: "N", dim_value: 3"#), Some(V::DimValue(3)));
        assert_eq!(dim("dim_value: 3, dim_param: unset"), Some(V::DimValue(3)));
        assert_eq!(dim("dim_value: 3, dim_value: unset"), None);
        assert_eq!(
            dim(r#"dim_value: 3, dim_param: "M""#),
            Some(V::DimParam("M".into()))
        );
    }

    #[test]
    fn unset_clears_and_raw_packs() {
        let vi = parse_value_info("@<name: unset, doc_string: b\"\\xff\"> x");
        assert!(vi.is_err(), "doc_string is UTF-8 text");
        let vi = parse_value_info("@<name: unset> x").unwrap();
        assert_eq!(vi.name, None);
        let t = parse_tensor("@<raw: true> int16[2] {1, -1}").unwrap();
        assert_eq!(
            (t.raw_data.as_deref(), t.int32_data.len()),
            (Some(&[1, 0, 0xff, 0xff][..]), 0)
        );
        let t = parse_tensor("@<data_type: 0, float_data: [{bits: 2143289345}, -nan]> float[2] {}")
            .unwrap();
        assert_eq!(t.data_type, Some(0));
        assert_eq!(t.float_data[0].to_bits(), 0x7fc0_0001);
        assert_eq!(t.float_data[1].to_bits(), 0xffc0_0000);
    }

    #[test]
    fn pairs_messages_and_unknown_keys() {
        let n = parse_node(
            r#"@<metadata_props: [{key: "k"}, {key: "a", value: "b"}], device_configurations: [{configuration_id: "c", pipeline_stage: 2}]> y = Relu (x)"#,
        )
        .unwrap();
        assert_eq!(n.metadata_props[0].value, None);
        assert_eq!(n.metadata_props[1].value.as_deref(), Some("b"));
        assert_eq!(n.device_configurations[0].pipeline_stage, Some(2));
        let a = parse_attribute(r#"@<type: unset, i: 3, doc_string: "d"> x: ints = []"#).unwrap();
        assert_eq!(
            (a.r#type, a.i, a.doc_string.as_deref()),
            (None, Some(3), Some("d"))
        );
        let error = parse_node("@<nope: 1> y = Relu (x)").unwrap_err();
        assert!(
            error
                .to_string()
                .contains("`nope` is not an annotation key of a node"),
            "{error}"
        );
    }
}
