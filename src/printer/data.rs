//! [ext] Data messages and test cases: the values of a test case's
//! `input_K.pb` and `output_K.pb` files, and a whole case.
//!
//! A tensor is a tensor constant (`float[2] x = {1, 2}`, see `tensor.rs`).
//! Sequences, maps and optionals have no reference syntax; they are written
//! `seq(KIND) name = [value, ...]`, `map(KEY) name = {keys: [...], values:
//! seq(...) [...]}` and `optional(KIND) name = [value]` (see
//! [`crate::testcase`] and `grammar/onnxtxt.ebnf`). Every field is in the
//! main syntax: no annotation is needed. Compat mode drops them and says so.

use super::lists::ListLayout;
use super::model;
use super::sink::Sink;
use super::tensor::{sparse_constant, tensor_constant, TensorPlace};
use crate::proto::{MapProto, OptionalProto, SequenceProto, TensorProto};
use crate::test_data::{DataSet, TestCase, Value, ELEMENT_KINDS};
use crate::vocabulary;

/// [`crate::Print`] for a data value alone.
pub(crate) fn bare_value(s: &mut Sink<'_>, value: &Value) {
    match value {
        Value::Tensor(t) => tensor(s, t),
        Value::Sequence(q) => sequence(s, q),
        Value::Map(m) => map(s, m),
        Value::Optional(o) => optional(s, o),
    }
}

/// [`crate::Print`] for a sequence alone.
pub(crate) fn sequence(s: &mut Sink<'_>, q: &SequenceProto) {
    if dropped_in_compat(s, "sequence") {
        return;
    }
    header(
        s,
        vocabulary::SEQ,
        q.elem_type.map(kind_word),
        q.name.as_deref(),
    );
    elements(s, &Elements::of_sequence(q));
}

/// [`crate::Print`] for a map alone.
pub(crate) fn map(s: &mut Sink<'_>, m: &MapProto) {
    if dropped_in_compat(s, "map") {
        return;
    }
    let key_type = m.key_type.map(|code| {
        vocabulary::element_type_name(code).map_or_else(|| code.to_string(), str::to_owned)
    });
    header(s, vocabulary::MAP, key_type, m.name.as_deref());
    let mut fields: Vec<MapField<'_>> = Vec::new();
    let keys = |s: &mut Sink<'_>| {
        s.text("[");
        s.list(&m.keys, |s, _, k| s.int(*k));
        s.text("]");
    };
    let string_keys = |s: &mut Sink<'_>| {
        s.text("[");
        s.list(&m.string_keys, |s, _, k| s.string(k));
        s.text("]");
    };
    let values = |s: &mut Sink<'_>| {
        if let Some(values) = &m.values {
            s.at("values", |s| sequence(s, values));
        }
    };
    if !m.keys.is_empty() {
        fields.push(("keys", &keys));
    }
    if !m.string_keys.is_empty() {
        fields.push(("string_keys", &string_keys));
    }
    if m.values.is_some() {
        fields.push(("values", &values));
    }
    s.block_list(
        "{",
        "}",
        &fields,
        ListLayout::OnePerLine,
        |s, _, (key, f)| {
            s.text(key);
            s.text(": ");
            f(s);
        },
    );
}

/// A field of a map: its key, and what writes its value.
type MapField<'a> = (&'static str, &'a dyn Fn(&mut Sink<'_>));

/// [`crate::Print`] for an optional alone.
pub(crate) fn optional(s: &mut Sink<'_>, o: &OptionalProto) {
    if dropped_in_compat(s, "optional") {
        return;
    }
    header(
        s,
        vocabulary::OPTIONAL,
        o.elem_type.map(kind_word),
        o.name.as_deref(),
    );
    elements(s, &Elements::of_optional(o));
}

/// [`crate::Print`] for a test case: the model, then each data set.
pub(crate) fn test_case(s: &mut Sink<'_>, case: &TestCase) {
    model::model(s, &case.model);
    if s.compat() {
        if !case.data_sets.is_empty() {
            s.report("data sets dropped (the reference grammar has no test cases)");
        }
        return;
    }
    let graph = case.model.graph.clone().unwrap_or_default();
    for set in &case.data_sets {
        s.end_line();
        data_set(s, set, &graph);
        s.end_line();
    }
}

/// `NAME { input x: VALUE ... output y: VALUE ... }`, each value labelled
/// with the name of the graph input or output it is for.
fn data_set(s: &mut Sink<'_>, set: &DataSet, graph: &crate::proto::GraphProto) {
    s.name(&set.name);
    s.text(" {");
    s.indent();
    let sides = [
        ("input", &set.inputs, &graph.input),
        ("output", &set.outputs, &graph.output),
    ];
    for (side, values, declared) in sides {
        for (k, value) in values.iter().enumerate() {
            s.newline();
            s.text(side);
            s.text(" ");
            s.name(
                declared
                    .get(k)
                    .and_then(|v| v.name.as_deref())
                    .unwrap_or(""),
            );
            s.text(": ");
            s.at(&format!("{}/{side}_{k}.pb", set.name), |s| {
                bare_value(s, value)
            });
        }
    }
    s.dedent();
    s.newline();
    s.text("}");
}

/// A tensor as a data value: `type name = {...}`, or `type {...}` when it
/// has no name.
fn tensor(s: &mut Sink<'_>, t: &TensorProto) {
    let place = if t.name.is_some() {
        TensorPlace::Initializer
    } else {
        TensorPlace::Value
    };
    tensor_constant(s, t, place);
}

/// In compat mode, reports that a `what` cannot be written; true then.
fn dropped_in_compat(s: &mut Sink<'_>, what: &str) -> bool {
    if s.compat() {
        s.report(format!(
            "{what} dropped (the reference grammar has no {what} values)"
        ));
    }
    s.compat()
}

/// `KEYWORD(kind) name = ` (the parts that are set).
fn header(s: &mut Sink<'_>, keyword: &str, kind: Option<String>, name: Option<&str>) {
    s.text(keyword);
    if let Some(kind) = kind {
        s.text("(");
        s.text(&kind);
        s.text(")");
    }
    s.text(" ");
    if let Some(name) = name {
        s.name(name);
        s.text(" = ");
    }
}

/// The word of a `SequenceProto.DataType` (or `OptionalProto.DataType`):
/// its kind's keyword, or the number when it has none.
fn kind_word(code: i32) -> String {
    ELEMENT_KINDS
        .iter()
        .find(|(_, c)| *c == code)
        .map_or_else(|| code.to_string(), |(word, _)| (*word).to_owned())
}

/// The values of a sequence or an optional, by field, in field order.
struct Elements<'a> {
    tensors: &'a [TensorProto],
    sparse: &'a [crate::proto::SparseTensorProto],
    sequences: &'a [SequenceProto],
    maps: &'a [MapProto],
    optionals: &'a [OptionalProto],
    /// The field names, for IR paths.
    fields: [&'static str; 5],
    /// Whether the fields are repeated (a sequence's) or single.
    repeated: bool,
}

impl<'a> Elements<'a> {
    fn of_sequence(q: &'a SequenceProto) -> Self {
        Elements {
            tensors: &q.tensor_values,
            sparse: &q.sparse_tensor_values,
            sequences: &q.sequence_values,
            maps: &q.map_values,
            optionals: &q.optional_values,
            fields: [
                "tensor_values",
                "sparse_tensor_values",
                "sequence_values",
                "map_values",
                "optional_values",
            ],
            repeated: true,
        }
    }

    fn of_optional(o: &'a OptionalProto) -> Self {
        Elements {
            tensors: o.tensor_value.as_deref().map_or(&[], std::slice::from_ref),
            sparse: o
                .sparse_tensor_value
                .as_deref()
                .map_or(&[], std::slice::from_ref),
            sequences: o
                .sequence_value
                .as_deref()
                .map_or(&[], std::slice::from_ref),
            maps: o.map_value.as_deref().map_or(&[], std::slice::from_ref),
            optionals: o
                .optional_value
                .as_deref()
                .map_or(&[], std::slice::from_ref),
            fields: [
                "tensor_value",
                "sparse_tensor_value",
                "sequence_value",
                "map_value",
                "optional_value",
            ],
            repeated: false,
        }
    }

    fn len(&self) -> usize {
        self.tensors.len()
            + self.sparse.len()
            + self.sequences.len()
            + self.maps.len()
            + self.optionals.len()
    }
}

/// `[value, ...]`, one value per line.
fn elements(s: &mut Sink<'_>, e: &Elements<'_>) {
    if e.len() == 0 {
        s.text("[]");
        return;
    }
    s.text("[");
    s.indent();
    let mut left = e.len();
    let mut each = |s: &mut Sink<'_>, field: usize, index: usize, print: &dyn Fn(&mut Sink<'_>)| {
        s.newline();
        if e.repeated {
            s.at_index(e.fields[field], index, print);
        } else {
            s.at(e.fields[field], print);
        }
        left -= 1;
        if left > 0 {
            s.text(",");
        }
    };
    for (i, t) in e.tensors.iter().enumerate() {
        each(s, 0, i, &|s| tensor(s, t));
    }
    for (i, t) in e.sparse.iter().enumerate() {
        each(s, 1, i, &|s| sparse_constant(s, t));
    }
    for (i, q) in e.sequences.iter().enumerate() {
        each(s, 2, i, &|s| sequence(s, q));
    }
    for (i, m) in e.maps.iter().enumerate() {
        each(s, 3, i, &|s| map(s, m));
    }
    for (i, o) in e.optionals.iter().enumerate() {
        each(s, 4, i, &|s| optional(s, o));
    }
    s.dedent();
    s.newline();
    s.text("]");
}
