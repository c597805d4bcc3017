//! Writing `@<key: value, ...>` annotations and their values.
//!
//! An annotation is written only when it has entries. In compat mode it is
//! never written: each of its keys is reported as dropped instead.

use super::annotation_values::{Ann, Entries};
use super::number_text::PrintedFloat;
use super::sink::Sink;
use super::{graph, tensor};

/// Where an annotation goes relative to its construct.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// On its own line, at the construct's indentation (nodes, top-level graphs).
    Line,
    /// On the same line, followed by a space (value infos, tensors, attributes).
    Inline,
}

/// Writes the annotation made of `entries` (nothing when it is empty).
pub(crate) fn annotation(s: &mut Sink<'_>, entries: &Entries<'_>, place: Place) {
    if entries.is_empty() {
        return;
    }
    if s.compat() {
        for (key, _) in entries {
            s.report(format!("`{key}` dropped (it needs an annotation)"));
        }
        return;
    }
    s.text("@<");
    entries_inline(s, entries);
    s.text(">");
    match place {
        Place::Line => s.newline(),
        Place::Inline => s.text(" "),
    }
}

/// Writes `key: value, key: value`.
pub(crate) fn entries_inline(s: &mut Sink<'_>, entries: &Entries<'_>) {
    s.list(entries, |s, _, (key, value)| {
        s.text(key);
        s.text(": ");
        value_of(s, value);
    });
}

/// Writes one annotation value.
pub(crate) fn value_of(s: &mut Sink<'_>, value: &Ann<'_>) {
    match value {
        Ann::Int(v) => s.int(*v),
        Ann::Uint(v) => s.int(*v),
        Ann::F32(v) => {
            if v.has_text() {
                s.float(*v);
            } else {
                s.text("{bits: ");
                s.int(u64::from(v.to_bits()));
                s.text("}");
            }
        }
        Ann::F64(v) => {
            if v.has_text() {
                s.float(*v);
            } else {
                s.text("{bits: ");
                s.int(v.to_bits());
                s.text("}");
            }
        }
        Ann::Str(bytes) => s.string(bytes),
        Ann::Ident(word) => s.text(word),
        Ann::List(items) => {
            s.text("[");
            s.list(items, |s, _, item| value_of(s, item));
            s.text("]");
        }
        Ann::Pairs(pairs) => {
            s.text("[");
            s.list(pairs, |s, _, (key, value)| {
                s.string(key);
                s.text(": ");
                value_of(s, value);
            });
            s.text("]");
        }
        Ann::Msg(entries) => {
            s.text("{");
            entries_inline(s, entries);
            s.text("}");
        }
        Ann::Graph(g) => graph::graph(s, g, graph::GraphPlace::Value),
        Ann::Tensor(t) => tensor::tensor_constant(s, *t, tensor::TensorPlace::Value),
        Ann::Sparse(t) => tensor::sparse_constant(s, t),
    }
}
