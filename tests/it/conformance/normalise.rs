//! IR compared as values in which an optional field holding its default
//! counts as unset: the reference fills in some fields the text never
//! mentions (every node's `domain` is set to "", for one) where onnxtxt
//! leaves them unset. The normalisation is generic, driven by the schema
//! (`grammar/onnx.proto`, compiled here with `protox` into a `prost-reflect`
//! descriptor pool), not written per field.

use std::path::Path;

use prost::Message as _;
use prost_reflect::{
    DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MessageDescriptor, ReflectMessage, Value,
};

use super::diff::ir_diff;

/// A known way in which the reference parser gets the IR wrong: `apply`
/// rewrites onnxtxt's IR the way the reference would have got it wrong
/// (returning whether it changed anything), and a case that matches only
/// after that passes, listed by name with `reason`.
pub struct KnownDefect {
    pub reason: &'static str,
    pub apply: fn(&mut DynamicMessage) -> bool,
}

pub const KNOWN_REFERENCE_DEFECTS: &[KnownDefect] = &[KnownDefect {
    reason: "the reference parser empties attribute values that are lists of \
             tensors, graphs, type protos or sparse tensors \
             (`ts: tensors = [...]` parses as a TENSORS attribute with no tensors)",
    apply: empty_attribute_value_lists,
}];

/// The transformation for the defect above: clears `tensors`, `graphs`,
/// `type_protos` and `sparse_tensors` of every `AttributeProto`, at any depth.
fn empty_attribute_value_lists(message: &mut DynamicMessage) -> bool {
    let mut changed = false;
    for_each_message(message, &mut |m| {
        if m.descriptor().full_name() != "onnx.AttributeProto" {
            return;
        }
        for name in ["tensors", "graphs", "type_protos", "sparse_tensors"] {
            let field = m
                .descriptor()
                .get_field_by_name(name)
                .expect("AttributeProto field");
            if m.has_field(&field) {
                m.clear_field(&field);
                changed = true;
            }
        }
    });
    changed
}

/// The ONNX schema as a descriptor pool, compiled at test time.
pub fn descriptor_pool() -> DescriptorPool {
    let grammar = Path::new(env!("CARGO_MANIFEST_DIR")).join("grammar");
    let files = protox::compile(["onnx.proto"], [grammar]).expect("grammar/onnx.proto compiles");
    DescriptorPool::from_file_descriptor_set(files).expect("descriptor pool")
}

/// How two encoded messages compare.
pub enum Comparison {
    Same,
    /// The same once the second went through these known reference defects.
    SameModulo(Vec<&'static str>),
    /// The first hunk of a diff of the two, normalised (before any defect
    /// was applied).
    Differs(String),
}

/// Decodes `bytes` as `descriptor`, panicking when they do not decode (the
/// bytes come from an encoder, so that is a bug of the test or the corpus).
pub fn decode(descriptor: &MessageDescriptor, bytes: &[u8], whose: &str) -> DynamicMessage {
    DynamicMessage::decode(descriptor.clone(), bytes).unwrap_or_else(|err| {
        panic!(
            "{whose} IR does not decode as {}: {err}",
            descriptor.full_name()
        )
    })
}

/// Compares two encoded messages of type `descriptor` modulo defaults, then
/// (when `defects`) modulo the known reference defects applied to `plus`.
/// `labels` name the two sides in the diff.
pub fn compare(
    descriptor: &MessageDescriptor,
    minus: &[u8],
    plus: &[u8],
    labels: (&str, &str),
    defects: &[KnownDefect],
) -> Comparison {
    let normalised = |bytes: &[u8], whose: &str| {
        let mut message = decode(descriptor, bytes, whose);
        clear_defaults(&mut message);
        message
    };
    let minus = normalised(minus, labels.0);
    let mut plus = normalised(plus, labels.1);
    if same(&minus, &plus) {
        return Comparison::Same;
    }
    let first_diff = ir_diff(&minus, &plus, labels);
    let mut reasons = Vec::new();
    for defect in defects {
        if (defect.apply)(&mut plus) {
            reasons.push(defect.reason);
            if same(&minus, &plus) {
                return Comparison::SameModulo(reasons);
            }
        }
    }
    Comparison::Differs(first_diff)
}

/// Equal as IR: the encodings are compared, so that floats compare by bits
/// (NaN equals itself, -0 differs from 0) as losslessness requires.
fn same(a: &DynamicMessage, b: &DynamicMessage) -> bool {
    a.encode_to_vec() == b.encode_to_vec()
}

/// Calls `f` on `message` and on every message inside it, at any depth.
fn for_each_message(message: &mut DynamicMessage, f: &mut dyn FnMut(&mut DynamicMessage)) {
    f(message);
    for (_, value) in message.fields_mut() {
        match value {
            Value::Message(inner) => for_each_message(inner, f),
            Value::List(items) => {
                for item in items {
                    if let Value::Message(inner) = item {
                        for_each_message(inner, f);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Unsets every singular scalar field that is set to its default value, at
/// any depth. Message fields are left alone (an empty `shape {}` is a
/// scalar's shape, not an unknown one), and so are members of a `oneof`
/// (which member is set is itself information: `dim_value: 0` is not `?`).
fn clear_defaults(message: &mut DynamicMessage) {
    for_each_message(message, &mut |m| {
        let descriptor = m.descriptor();
        for field in descriptor.fields() {
            if is_clearable(&field)
                && m.has_field(&field)
                && is_default(m.get_field(&field).as_ref(), &field)
            {
                m.clear_field(&field);
            }
        }
    });
}

fn is_clearable(field: &FieldDescriptor) -> bool {
    field.supports_presence()
        && !field.is_list()
        && !field.is_map()
        && !matches!(field.kind(), Kind::Message(_))
        && field.containing_oneof().is_none()
}

fn is_default(value: &Value, field: &FieldDescriptor) -> bool {
    match (value, &field.default_value()) {
        // By bits: -0.0 is not the default 0.0.
        (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
        (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
        (a, b) => a == b,
    }
}
