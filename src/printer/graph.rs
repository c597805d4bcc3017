//! Graphs, nodes and attributes.
//!
//! Layout: a graph is `name (inputs) => (outputs) <initializers, value infos>
//! {`, one node per line indented one level, and `}` at the graph's own
//! indentation. Each of the three lists stays on the line when it has at
//! most [`INLINE_ITEMS_MAX`](super::lists::INLINE_ITEMS_MAX) items (the
//! `<...>` list only when it holds no initializer), else it is broken one
//! item per line. A node is
//! `[label] outputs = domain.Op:overload <attributes> (inputs)` on one
//! line, whatever its width; when it has more than [`INLINE_ATTRIBUTES_MAX`]
//! attributes, or a graph-valued one, the attributes move after the inputs,
//! one per line, so a nested graph body sits two levels deeper than its
//! node and its `}` lines up with its attribute. The structure decides, not
//! the width of the text: renaming a value or changing an attribute never
//! moves a neighbour to another line.

use super::annotation::{self, Place};
use super::annotation_values::{set_fields, Ann, Entries, Field, UNSET};
use super::lists::ListLayout;
use super::number_text::PrintedFloat;
use super::quoting::{graph_name_is_bare, is_qualified};
use super::sink::Sink;
use super::tensor::{self, TensorPlace};
use super::types::{self, print_type};
use crate::decode::{Decode, Encoded};
use crate::ir_path::AttributeKeys;
use crate::proto::attribute_proto::AttributeType as A;
use crate::proto::{AttributeProto, GraphProto, NodeProto, TensorProto, TypeProto, ValueInfoProto};
use crate::vocabulary;

/// Where a graph is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum GraphPlace {
    /// The graph of a model, or a graph printed alone.
    Top,
    /// An attribute value or annotation value.
    Value,
}

/// [`crate::Print`] for a graph alone.
pub(crate) fn top_graph(s: &mut Sink<'_>, g: &GraphProto) {
    graph(s, g, GraphPlace::Top);
    s.end_line();
}

/// A node or initializer of a graph as the printer gets it: from the IR,
/// or still encoded and decoded only as it is printed (see
/// [`crate::Printer::write_binary_model`]).
pub(crate) trait Listed<M>: Sync {
    /// The item, or why it could not be decoded: the IR's own, or decoded
    /// into `scratch` (whose lists the next item decoded there reuses).
    fn item<'a>(&'a self, scratch: &'a mut M) -> Result<&'a M, crate::Error>;
    /// The length of its encoding.
    fn encoded_len(&self) -> usize;
}

macro_rules! listed_in_the_ir {
    ($($ty:ty),*) => {$(
        impl Listed<$ty> for $ty {
            fn item<'a>(&'a self, _: &'a mut $ty) -> Result<&'a $ty, crate::Error> {
                Ok(self)
            }

            fn encoded_len(&self) -> usize {
                prost::Message::encoded_len(self)
            }
        }
    )*};
}

listed_in_the_ir!(NodeProto, TensorProto);

impl<M: Decode> Listed<M> for Encoded<'_> {
    fn item<'a>(&'a self, scratch: &'a mut M) -> Result<&'a M, crate::Error> {
        self.decode_into(scratch).map(|()| &*scratch)
    }

    fn encoded_len(&self) -> usize {
        self.len()
    }
}

/// Writes a graph.
pub(crate) fn graph(s: &mut Sink<'_>, g: &GraphProto, place: GraphPlace) {
    graph_with(s, g, place, &g.node, &g.initializer);
}

/// Writes a graph with `nodes` for its nodes and `initializers` for its
/// initializers (those of `g` are not read).
pub(crate) fn graph_with<N: Listed<NodeProto>, T: Listed<TensorProto>>(
    s: &mut Sink<'_>,
    g: &GraphProto,
    place: GraphPlace,
    nodes: &[N],
    initializers: &[T],
) {
    // Room for the initializers' text at once, so that the text of a
    // weight-heavy graph is not copied each time it doubles: a float of
    // raw data (4 bytes) takes 11 to 16 bytes of text.
    s.expect_text(initializers.iter().map(|t| 4 * t.encoded_len()).sum());
    let mut entries: Entries<'_> = Vec::new();
    if g.name.is_none() {
        entries.push(("name", UNSET));
    }
    set_fields!(
        entries,
        g,
        doc_string,
        sparse_initializer,
        quantization_annotation,
        metadata_props
    );
    annotation::annotation(
        s,
        &entries,
        if place == GraphPlace::Top {
            Place::Line
        } else {
            Place::Inline
        },
    );

    let name = g.name.as_deref().unwrap_or("");
    match place {
        GraphPlace::Top => s.name(name),
        GraphPlace::Value => s.ext_name(name, graph_name_is_bare, "graph name"),
    }
    let values = |s: &mut Sink<'_>, field: &str, list: &[ValueInfoProto]| {
        s.block_list(
            "(",
            ")",
            list,
            ListLayout::by_count(list.len()),
            |s, i, vi| s.at_index(field, i, |s| types::value_info(s, vi)),
        );
    };
    s.text(" ");
    values(s, "input", &g.input);
    s.text(" => ");
    values(s, "output", &g.output);
    if !initializers.is_empty() || !g.value_info.is_empty() {
        enum Item<'a, T> {
            Init(usize, &'a T),
            Info(usize, &'a ValueInfoProto),
        }
        let items: Vec<Item<'_, T>> = initializers
            .iter()
            .enumerate()
            .map(|(i, t)| Item::Init(i, t))
            .chain(
                g.value_info
                    .iter()
                    .enumerate()
                    .map(|(i, v)| Item::Info(i, v)),
            )
            .collect();
        let item = |s: &mut Sink<'_>, _, item: &Item<'_, T>| match item {
            Item::Init(i, t) => s.at_index("initializer", *i, |s| {
                // A tensor of its own: one kept from the last would hold on
                // to the largest weights' room.
                match t.item(&mut TensorProto::default()) {
                    Ok(t) => tensor::tensor_constant(s, t, TensorPlace::Initializer),
                    Err(error) => s.fail(error),
                }
            }),
            Item::Info(i, v) => s.at_index("value_info", *i, |s| types::value_info(s, v)),
        };
        s.text(" ");
        if initializers.is_empty() {
            s.block_list("<", ">", &items, ListLayout::by_count(items.len()), item);
        } else {
            // Initializers are data, each on a line of its own.
            let weight = |item: &Item<'_, T>| match item {
                Item::Init(_, t) => t.encoded_len(),
                Item::Info(..) => 0,
            };
            s.block_lines("<", ">", &items, weight, item);
        }
    }
    s.text(" {");
    node_lines(s, nodes);
    s.text("}");
}

/// The inside of a node list: one node per line, one level deeper than
/// the braces, with their comments, then the comments that close the list.
/// A node that cannot be decoded fails the print (see [`Sink::fail`]).
pub(crate) fn node_lines<N: Listed<NodeProto>>(s: &mut Sink<'_>, nodes: &[N]) {
    s.indent();
    s.each_item(nodes, N::encoded_len, |s, i, n| {
        s.newline();
        s.at_index("node", i, |s| {
            let mut scratch = std::mem::take(&mut s.node_scratch);
            match n.item(&mut scratch) {
                Ok(n) => {
                    s.leading_comments();
                    node(s, n);
                    s.trailing_comments();
                }
                Err(error) => s.fail(error),
            }
            s.node_scratch = scratch;
        });
    });
    s.closing_comments();
    s.dedent();
    s.newline();
}

/// [`crate::Print`] for one node.
pub(crate) fn single_node(s: &mut Sink<'_>, n: &NodeProto) {
    node(s, n);
    s.end_line();
}

/// [`crate::Print`] for a node list: `{`, one node per line, `}`.
pub(crate) fn node_list(s: &mut Sink<'_>, nodes: &[NodeProto]) {
    s.text("{");
    node_lines(s, nodes);
    s.text("}");
    s.end_line();
}

/// Writes a node (its annotation, if any, on the line before).
pub(crate) fn node(s: &mut Sink<'_>, n: &NodeProto) {
    let mut entries: Entries<'_> = Vec::new();
    if n.op_type.is_none() {
        entries.push(("op_type", UNSET));
    }
    set_fields!(
        entries,
        n,
        doc_string,
        metadata_props,
        device_configurations
    );
    annotation::annotation(s, &entries, Place::Line);

    if let Some(label) = &n.name {
        s.text("[");
        s.name(label);
        s.text("] ");
    }
    s.list(&n.output, |s, _, o| s.name(o));
    s.text(if n.output.is_empty() { "= " } else { " = " });
    match n.domain.as_deref() {
        None => {}
        // In compat mode `Op` stands for it: the reference reads the domain as "".
        Some("") if s.compat() => {}
        Some("") => s.text("\"\"."),
        Some(d) => {
            s.ext_name(d, is_qualified, "domain");
            s.text(".");
        }
    }
    let op = n.op_type.as_deref().unwrap_or("");
    s.ext_name(op, vocabulary::is_identifier, "op type");
    if let Some(overload) = &n.overload {
        s.text(":");
        s.ext_name(overload, vocabulary::is_identifier, "overload");
    }
    let kept = kept_attributes(s, &n.attribute);
    let keys = AttributeKeys::new(&n.attribute);
    let attributes = |s: &mut Sink<'_>, layout: ListLayout| {
        s.block_list("<", ">", &kept, layout, |s, _, (i, a)| {
            at_attribute(s, "attribute", &keys, *i, |s| attribute(s, a, false))
        });
    };
    let inputs = |s: &mut Sink<'_>| {
        s.text(" (");
        s.list(&n.input, |s, _, i| s.name(i));
        s.text(")");
    };
    if kept.is_empty() {
        inputs(s);
    } else if attributes_stay_inline(&kept) {
        s.text(" ");
        attributes(s, ListLayout::OneLine);
        inputs(s);
    } else {
        inputs(s);
        s.text(" ");
        attributes(s, ListLayout::OnePerLine);
    }
}

/// The most attributes a node holds on its line: 99.7% of the nodes of
/// onnx's test models and model zoo samples have at most 4 (a Conv
/// exported with all five of `dilations`, `group`, `kernel_shape`, `pads`
/// and `strides` gets one line per attribute).
pub(crate) const INLINE_ATTRIBUTES_MAX: usize = 4;

/// Whether a node's attributes stay on its line: at most
/// [`INLINE_ATTRIBUTES_MAX`] of them, none holding a graph.
fn attributes_stay_inline(kept: &[(usize, &AttributeProto)]) -> bool {
    let holds_graph =
        |a: &AttributeProto| a.ref_attr_name.is_none() && (a.g.is_some() || !a.graphs.is_empty());
    kept.len() <= INLINE_ATTRIBUTES_MAX && !kept.iter().any(|(_, a)| holds_graph(a))
}

/// The attributes to write, with their index. In compat mode sparse tensor
/// values, which the reference grammar cannot write, are left out (and
/// reported).
pub(crate) fn kept_attributes<'a>(
    s: &mut Sink<'_>,
    attributes: &'a [AttributeProto],
) -> Vec<(usize, &'a AttributeProto)> {
    let sparse = A::SparseTensor as i32;
    attributes
        .iter()
        .enumerate()
        .filter(|&(i, a)| {
            let drop = s.compat() && a.ref_attr_name.is_none() && a.r#type == Some(sparse);
            if drop {
                let keys = AttributeKeys::new(attributes);
                at_attribute(s, "attribute", &keys, i, |s| {
                    s.report(
                        "attribute dropped (the reference grammar has no sparse tensor values)",
                    )
                });
            }
            !drop
        })
        .collect()
}

/// Runs `f` at the IR path of attribute `index` of the list `field`
/// whose names `keys` holds, named by the rule of IR paths.
pub(crate) fn at_attribute<R>(
    s: &mut Sink<'_>,
    field: &str,
    keys: &AttributeKeys<'_>,
    index: usize,
    f: impl FnOnce(&mut Sink<'_>) -> R,
) -> R {
    match keys.name(index) {
        Some(key) => s.at_key(field, key, f),
        None => s.at_index(field, index, f),
    }
}

/// [`crate::Print`] for an attribute alone.
pub(crate) fn bare_attribute(s: &mut Sink<'_>, a: &AttributeProto) {
    attribute(s, a, false);
}

/// The value fields of an attribute, in field order, under their
/// annotation keys. Those from [`FIRST_LIST`] on are lists.
const VALUE_KEYS: [&str; 14] = [
    "f",
    "i",
    "s",
    "t",
    "g",
    "sparse_tensor",
    "tp",
    "floats",
    "ints",
    "strings",
    "tensors",
    "graphs",
    "sparse_tensors",
    "type_protos",
];

/// The first list in [`VALUE_KEYS`].
const FIRST_LIST: usize = 7;

/// The index in [`VALUE_KEYS`] of the field that an attribute of type `ty`
/// stores its value in.
fn value_field(ty: A) -> usize {
    match ty {
        A::Float => 0,
        A::Int => 1,
        A::String => 2,
        A::Tensor => 3,
        A::Graph => 4,
        A::SparseTensor => 5,
        A::TypeProto => 6,
        A::Floats => 7,
        A::Undefined | A::Ints => 8,
        A::Strings => 9,
        A::Tensors => 10,
        A::Graphs => 11,
        A::SparseTensors => 12,
        A::TypeProtos => 13,
    }
}

/// Writes an attribute: `@<...> name: type = value`, or `name = @ref`.
/// `quotable_name` says whether the reference grammar accepts a quoted
/// name here (function attribute lists do).
pub(crate) fn attribute(s: &mut Sink<'_>, a: &AttributeProto, quotable_name: bool) {
    let ty = a
        .r#type
        .and_then(|t| A::try_from(t).ok())
        .filter(|t| *t != A::Undefined);
    let is_ref = a.ref_attr_name.is_some();
    // The field the value is written from (none for a reference).
    let main = (!is_ref).then(|| value_field(ty.unwrap_or(A::Ints)));

    let mut entries: Entries<'_> = Vec::new();
    if a.name.is_none() {
        entries.push(("name", UNSET));
    }
    set_fields!(entries, a, doc_string);
    if is_ref {
        if a.r#type.is_some() && ty.is_none() {
            entries.push(("type", a.r#type.ann().unwrap_or(UNSET)));
        }
    } else if ty.is_none() {
        entries.push(("type", a.r#type.ann().unwrap_or(UNSET)));
    }
    let mut tp_image: Option<TypeProto> = None;
    // The value field is annotated only when its text cannot say it exactly.
    let main_is_exact = || match ty {
        Some(A::Float) => a.f.is_none_or(PrintedFloat::has_text),
        Some(A::Floats) => a.floats.iter().all(|x| x.has_text()),
        Some(A::TypeProtos) => a
            .type_protos
            .iter()
            .all(|t| types::type_image(t).as_ref() == Some(t)),
        _ => true,
    };
    let fields: [&dyn Field; 14] = [
        &a.f,
        &a.i,
        &a.s,
        &a.t,
        &a.g,
        &a.sparse_tensor,
        &a.tp,
        &a.floats,
        &a.ints,
        &a.strings,
        &a.tensors,
        &a.graphs,
        &a.sparse_tensors,
        &a.type_protos,
    ];
    // Most attributes set their main field only, exactly written by the
    // value: then no value field is annotated, and the loop is skipped.
    let set = fields
        .iter()
        .enumerate()
        .fold(0u16, |bits, (index, field)| {
            bits | u16::from(field.is_set()) << index
        });
    let others_set = set & !main.map_or(0, |m| 1 << m) != 0;
    let main_annotated = main.is_some_and(|m| {
        ty == Some(A::TypeProto) || (set & 1 << m == 0 && m < FIRST_LIST) || !main_is_exact()
    });
    if others_set || main_annotated {
        for (index, (key, field)) in VALUE_KEYS.into_iter().zip(fields).enumerate() {
            if Some(index) != main {
                if let Some(value) = field.ann() {
                    entries.push((key, value));
                }
            } else if ty == Some(A::TypeProto) {
                tp_image = Some(match a.tp.as_ref() {
                    Some(tp) => types::shown_type_entry(tp, &mut entries, key),
                    None => {
                        entries.push((key, UNSET));
                        types::placeholder_type()
                    }
                });
            } else if !field.is_set() && index < FIRST_LIST {
                // Lists are always shown (empty or not); singular values need
                // a placeholder when absent.
                entries.push((key, UNSET));
            } else if !main_is_exact() {
                entries.push((key, field.ann().unwrap_or(Ann::List(Vec::new()))));
            }
        }
    }
    annotation::annotation(s, &entries, Place::Inline);

    let name = a.name.as_deref().unwrap_or("");
    if quotable_name {
        s.name(name);
    } else {
        s.ext_name(name, vocabulary::is_identifier, "attribute name");
    }
    if is_ref {
        if let Some(t) = ty {
            s.text(": ");
            s.text(vocabulary::attribute_type_name(t as i32).unwrap_or("ints"));
        }
        s.text(" = @");
        s.name(a.ref_attr_name.as_deref().unwrap_or(""));
        return;
    }
    let ty = ty.unwrap_or(A::Ints);
    s.text(": ");
    s.text(vocabulary::attribute_type_name(ty as i32).unwrap_or("ints"));
    s.text(" = ");
    match ty {
        A::Undefined | A::Ints => {
            s.text("[");
            s.list(&a.ints, |s, _, v| s.int(*v));
            s.text("]");
        }
        A::Float => s.float(a.f.unwrap_or(0.0)),
        A::Int => s.int(a.i.unwrap_or(0)),
        A::String => s.string(a.s.as_deref().unwrap_or(b"")),
        A::Tensor => match &a.t {
            Some(t) => s.at("t", |s| tensor::tensor_constant(s, t, TensorPlace::Value)),
            None => s.text("float {}"),
        },
        A::Graph => match &a.g {
            Some(g) => s.at("g", |s| graph(s, g, GraphPlace::Value)),
            None => s.text("g () => () {}"),
        },
        A::SparseTensor => match &a.sparse_tensor {
            Some(t) => s.at("sparse_tensor", |s| tensor::sparse_constant(s, t)),
            None => s.text("sparse_tensor[] {}"),
        },
        A::TypeProto => print_type(s, tp_image.as_ref().unwrap_or(&types::placeholder_type())),
        A::Floats => {
            s.text("[");
            s.list(&a.floats, |s, _, v| s.float(*v));
            s.text("]");
        }
        A::Strings => {
            s.text("[");
            s.list(&a.strings, |s, _, v| s.string(v));
            s.text("]");
        }
        A::Tensors => dropped_list(s, a.tensors.len(), "tensors", |s| {
            s.list(&a.tensors, |s, i, t| {
                s.at_index("tensors", i, |s| {
                    tensor::tensor_constant(s, t, TensorPlace::Value)
                })
            })
        }),
        A::Graphs => dropped_list(s, a.graphs.len(), "graphs", |s| {
            s.list(&a.graphs, |s, i, g| {
                s.at_index("graphs", i, |s| graph(s, g, GraphPlace::Value))
            })
        }),
        A::SparseTensors => dropped_list(s, a.sparse_tensors.len(), "sparse tensors", |s| {
            s.list(&a.sparse_tensors, |s, i, t| {
                s.at_index("sparse_tensors", i, |s| tensor::sparse_constant(s, t))
            })
        }),
        A::TypeProtos => dropped_list(s, a.type_protos.len(), "types", |s| {
            s.list(&a.type_protos, |s, _, t| {
                print_type(
                    s,
                    &types::type_image(t).unwrap_or_else(types::placeholder_type),
                )
            })
        }),
    }
}

/// A list value the reference parser would read and then empty: in compat
/// mode it is written `[]` and reported.
fn dropped_list(s: &mut Sink<'_>, len: usize, what: &str, items: impl FnOnce(&mut Sink<'_>)) {
    s.text("[");
    if s.compat() {
        if len > 0 {
            s.report(format!(
                "{len} {what} dropped (the reference parser empties lists of {what})"
            ));
        }
    } else {
        items(s);
    }
    s.text("]");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Printer;

    /// A node, or one that cannot be decoded.
    struct Maybe(Option<NodeProto>);

    impl Listed<NodeProto> for Maybe {
        fn item<'a>(&'a self, _: &'a mut NodeProto) -> Result<&'a NodeProto, crate::Error> {
            match &self.0 {
                Some(node) => Ok(node),
                None => Err(crate::parse_node("=").unwrap_err()),
            }
        }

        fn encoded_len(&self) -> usize {
            self.0.as_ref().map_or(0, prost::Message::encoded_len)
        }
    }

    #[test]
    fn a_node_that_cannot_be_decoded_fails_the_print_where_it_is() {
        let relu = crate::parse_node("y = Relu (x)").unwrap();
        let graph = GraphProto {
            name: Some("g".into()),
            ..GraphProto::default()
        };
        // Long enough to be printed on two threads: the failing node is
        // the helper's (600) or this thread's (1500).
        for broken in [0, 600, 1500] {
            for threads in [true, false] {
                let nodes: Vec<Maybe> = (0..2000)
                    .map(|i| Maybe((i != broken).then(|| relu.clone())))
                    .collect();
                let mut out = Vec::new();
                let printer = Printer::new().threads(threads);
                let error = crate::parallel::with_threads(threads, || {
                    let mut sink = Sink::new(&mut out, printer);
                    let initializers: &[TensorProto] = &[];
                    graph_with(&mut sink, &graph, GraphPlace::Top, &nodes, initializers);
                    sink.finish().unwrap_err()
                });
                let undecoded = crate::printer::sink::undecoded(error).unwrap_err();
                let expected = crate::parse_node("=").unwrap_err();
                assert_eq!(undecoded.diagnostics(), expected.diagnostics());
                // Nothing from the failing node on reaches the writer.
                let lines = out.iter().filter(|&&b| b == b'\n').count();
                assert!(lines <= broken + 1, "{broken}: {lines} lines written");
            }
        }
    }
}
