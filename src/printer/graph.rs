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
use super::types::{self, print_type, GraphValues};
use crate::decode::{AttributeView, Encoded, GraphView, NodeView, TensorView};
use crate::ir_path::{AttributeKeys, Named};
use crate::proto::attribute_proto::AttributeType as A;
use crate::proto::{AttributeProto, GraphProto, NodeProto, TensorProto, TypeProto};
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

/// An initializer of a graph as the printer gets it: from the IR, read
/// from its encoding (one of a graph attribute's), or still encoded and
/// read or decoded only as it is printed (see
/// [`crate::Printer::write_binary_model`]).
pub(crate) trait ListedTensor: Sync {
    /// What the initializer is read into to be printed, if anything: one
    /// room for the initializers a thread prints, one after another.
    type Room: Default + Send;
    /// Writes the initializer, or gives why it could not be decoded.
    fn print(&self, s: &mut Sink<'_>, room: &mut Self::Room) -> Result<(), crate::Error>;
    /// The length of its encoding.
    fn encoded_len(&self) -> usize;
}

impl ListedTensor for TensorProto {
    type Room = ();

    fn print(&self, s: &mut Sink<'_>, (): &mut ()) -> Result<(), crate::Error> {
        tensor::tensor_constant(s, self, TensorPlace::Initializer);
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        prost::Message::encoded_len(self)
    }
}

impl ListedTensor for TensorView<'_> {
    type Room = ();

    fn print(&self, s: &mut Sink<'_>, (): &mut ()) -> Result<(), crate::Error> {
        tensor::tensor_constant(s, self, TensorPlace::Initializer);
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        self.encoded_len
    }
}

impl<'a> ListedTensor for Encoded<'a> {
    type Room = TensorView<'a>;

    /// Prints the initializer from a [`TensorView`] of its encoding, read
    /// into `view`, when the view holds it, else from the tensor `prost`
    /// decodes.
    fn print(&self, s: &mut Sink<'_>, view: &mut TensorView<'a>) -> Result<(), crate::Error> {
        if view.read(self.bytes()) {
            tensor::tensor_constant(s, view, TensorPlace::Initializer);
            return Ok(());
        }
        // A tensor of its own: one kept from the last would hold on to
        // the largest weights' room.
        let mut decoded = TensorProto::default();
        let printed = self.decode_into(&mut decoded);
        printed.map(|()| tensor::tensor_constant(s, &decoded, TensorPlace::Initializer))
    }

    fn encoded_len(&self) -> usize {
        self.len()
    }
}

/// Writes a graph.
pub(crate) fn graph(s: &mut Sink<'_>, g: &GraphProto, place: GraphPlace) {
    graph_with(s, g, place, g, &g.node, &g.initializer);
}

/// Writes a graph with `values` for its inputs, outputs and value infos,
/// `nodes` for its nodes and `initializers` for its initializers (those
/// of `g` are not read).
pub(crate) fn graph_with<V: GraphValues, N: ListedNode, T: ListedTensor>(
    s: &mut Sink<'_>,
    g: &GraphProto,
    place: GraphPlace,
    values: &V,
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
    let list = |s: &mut Sink<'_>, field: &str, list: &[V::Value]| {
        s.block_list(
            "(",
            ")",
            list,
            ListLayout::by_count(list.len()),
            |s, i, vi| s.at_index(field, i, |s| values.print(s, vi)),
        );
    };
    s.text(" ");
    list(s, "input", values.input());
    s.text(" => ");
    list(s, "output", values.output());
    if !initializers.is_empty() || !values.value_info().is_empty() {
        enum Item<'a, T, V> {
            Init(usize, &'a T),
            Info(usize, &'a V),
        }
        let items: Vec<Item<'_, T, V::Value>> = initializers
            .iter()
            .enumerate()
            .map(|(i, t)| Item::Init(i, t))
            .chain(
                (values.value_info().iter())
                    .enumerate()
                    .map(|(i, v)| Item::Info(i, v)),
            )
            .collect();
        let item =
            |s: &mut Sink<'_>, room: &mut T::Room, _, item: &Item<'_, T, V::Value>| match item {
                Item::Init(i, t) => s.at_index("initializer", *i, |s| {
                    if let Err(error) = t.print(s, room) {
                        s.fail(error);
                    }
                }),
                Item::Info(i, v) => s.at_index("value_info", *i, |s| values.print(s, v)),
            };
        s.text(" ");
        if initializers.is_empty() {
            let mut room = T::Room::default();
            let item =
                |s: &mut Sink<'_>, i, info: &Item<'_, T, V::Value>| item(s, &mut room, i, info);
            s.block_list("<", ">", &items, ListLayout::by_count(items.len()), item);
        } else {
            // Initializers are data, each on a line of its own.
            let weight = |item: &Item<'_, T, V::Value>| match item {
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

/// A node of a graph as the printer gets it: from the IR, or still
/// encoded and read only as it is printed (see
/// [`crate::Printer::write_binary_model`]).
pub(crate) trait ListedNode: Sync {
    /// What the node is read into to be printed, if anything: one room
    /// for the nodes a thread prints, one after another.
    type Room: Default + Send;
    /// Writes the node with [`commented_node`], or gives why it could not
    /// be decoded.
    fn print(&self, s: &mut Sink<'_>, room: &mut Self::Room) -> Result<(), crate::Error>;
    /// The length of its encoding.
    fn encoded_len(&self) -> usize;
}

impl ListedNode for NodeProto {
    type Room = ();

    fn print(&self, s: &mut Sink<'_>, (): &mut ()) -> Result<(), crate::Error> {
        commented_node(s, self);
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        prost::Message::encoded_len(self)
    }
}

impl ListedNode for NodeView<'_> {
    type Room = ();

    fn print(&self, s: &mut Sink<'_>, (): &mut ()) -> Result<(), crate::Error> {
        commented_node(s, self);
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        self.encoded_len
    }
}

/// What nodes still encoded are read or decoded into, one after another,
/// as they are printed.
#[derive(Default)]
pub(crate) struct NodeRoom<'a> {
    view: NodeView<'a>,
    decoded: NodeProto,
}

impl<'a> ListedNode for Encoded<'a> {
    type Room = NodeRoom<'a>;

    /// Prints the node from a [`NodeView`] of its encoding when the view
    /// holds it, else from the node `prost` decodes (which checks it first
    /// when the walk of the model left it).
    fn print(&self, s: &mut Sink<'_>, room: &mut NodeRoom<'a>) -> Result<(), crate::Error> {
        if room.view.read(self.bytes()) {
            commented_node(s, &room.view);
            return Ok(());
        }
        self.decode_into(&mut room.decoded)?;
        commented_node(s, &room.decoded);
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        self.len()
    }
}

/// The inside of a node list: one node per line, one level deeper than
/// the braces, with their comments, then the comments that close the list.
/// A node that cannot be decoded fails the print (see [`Sink::fail`]).
pub(crate) fn node_lines<N: ListedNode>(s: &mut Sink<'_>, nodes: &[N]) {
    s.indent();
    s.each_item(nodes, N::encoded_len, |s, room, i, n| {
        s.newline();
        s.at_index("node", i, |s| {
            if let Err(error) = n.print(s, room) {
                s.fail(error);
            }
        });
    });
    s.closing_comments();
    s.dedent();
    s.newline();
}

/// Writes a node with the comments before and after it.
fn commented_node(s: &mut Sink<'_>, n: &impl NodeFields) {
    s.leading_comments();
    node(s, n);
    s.trailing_comments();
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

/// What [`node`] prints of a node: a `NodeProto`, or a [`NodeView`] of
/// its encoding.
pub(crate) trait NodeFields {
    type Name: AsRef<str>;
    type Attribute: AttributeFields;
    /// What the node's annotation holds.
    fn entries(&self) -> Entries<'_>;
    fn label(&self) -> Option<&str>;
    fn outputs(&self) -> &[Self::Name];
    fn domain(&self) -> Option<&str>;
    fn op_type(&self) -> Option<&str>;
    fn overload(&self) -> Option<&str>;
    fn attributes(&self) -> &[Self::Attribute];
    fn inputs(&self) -> &[Self::Name];
    /// Writes attribute `a` of the node (at its path).
    fn attribute(&self, s: &mut Sink<'_>, a: &Self::Attribute);
}

/// What the layout of a node reads of its attributes.
pub(crate) trait AttributeFields: Named {
    /// A sparse tensor value, which compat mode drops.
    fn is_sparse_value(&self) -> bool;
    /// Whether it holds a graph, which moves the attributes after the
    /// inputs.
    fn holds_graph(&self) -> bool;
}

impl AttributeFields for AttributeProto {
    fn is_sparse_value(&self) -> bool {
        self.ref_attr_name.is_none() && self.r#type == Some(A::SparseTensor as i32)
    }

    fn holds_graph(&self) -> bool {
        self.ref_attr_name.is_none() && (self.g.is_some() || !self.graphs.is_empty())
    }
}

impl NodeFields for NodeProto {
    type Name = String;
    type Attribute = AttributeProto;

    fn entries(&self) -> Entries<'_> {
        let mut entries: Entries<'_> = Vec::new();
        if self.op_type.is_none() {
            entries.push(("op_type", UNSET));
        }
        set_fields!(
            entries,
            self,
            doc_string,
            metadata_props,
            device_configurations
        );
        entries
    }

    fn label(&self) -> Option<&str> {
        self.name.as_deref()
    }

    fn outputs(&self) -> &[String] {
        &self.output
    }

    fn domain(&self) -> Option<&str> {
        self.domain.as_deref()
    }

    fn op_type(&self) -> Option<&str> {
        self.op_type.as_deref()
    }

    fn overload(&self) -> Option<&str> {
        self.overload.as_deref()
    }

    fn attributes(&self) -> &[AttributeProto] {
        &self.attribute
    }

    fn inputs(&self) -> &[String] {
        &self.input
    }

    fn attribute(&self, s: &mut Sink<'_>, a: &AttributeProto) {
        attribute(s, a, false);
    }
}

impl Named for AttributeView<'_> {
    fn name(&self) -> Option<&str> {
        self.name
    }
}

impl AttributeFields for AttributeView<'_> {
    fn is_sparse_value(&self) -> bool {
        self.r#type == Some(A::SparseTensor as i32)
    }

    fn holds_graph(&self) -> bool {
        self.g.is_some() || !self.graphs.is_empty()
    }
}

impl<'a> NodeFields for NodeView<'a> {
    type Name = &'a str;
    type Attribute = AttributeView<'a>;

    fn entries(&self) -> Entries<'_> {
        match self.op_type {
            None => vec![("op_type", UNSET)],
            Some(_) => Vec::new(),
        }
    }

    fn label(&self) -> Option<&str> {
        self.name
    }

    fn outputs(&self) -> &[&'a str] {
        &self.output
    }

    fn domain(&self) -> Option<&str> {
        self.domain
    }

    fn op_type(&self) -> Option<&str> {
        self.op_type
    }

    fn overload(&self) -> Option<&str> {
        self.overload
    }

    fn attributes(&self) -> &[AttributeView<'a>] {
        &self.attribute
    }

    fn inputs(&self) -> &[&'a str] {
        &self.input
    }

    /// An attribute whose text says all it holds is written from the view;
    /// any other as the IR's attribute, made of what the view holds.
    fn attribute(&self, s: &mut Sink<'_>, a: &AttributeView<'a>) {
        match (a.name, plain_value(a, self)) {
            (Some(name), Some(value)) => {
                s.ext_name(name, vocabulary::is_identifier, "attribute name");
                type_and_value(s, value);
            }
            _ => attribute(s, &a.to_proto(self), false),
        }
    }
}

/// Writes a node (its annotation, if any, on the line before).
pub(crate) fn node<N: NodeFields>(s: &mut Sink<'_>, n: &N) {
    annotation::annotation(s, &n.entries(), Place::Line);

    if let Some(label) = n.label() {
        s.text("[");
        s.name(label);
        s.text("] ");
    }
    let outputs = n.outputs();
    s.list(outputs, |s, _, o| s.name(o.as_ref()));
    s.text(if outputs.is_empty() { "= " } else { " = " });
    match n.domain() {
        None => {}
        // In compat mode `Op` stands for it: the reference reads the domain as "".
        Some("") if s.compat() => {}
        Some("") => s.text("\"\"."),
        Some(d) => {
            s.ext_name(d, is_qualified, "domain");
            s.text(".");
        }
    }
    let op = n.op_type().unwrap_or("");
    s.ext_name(op, vocabulary::is_identifier, "op type");
    if let Some(overload) = n.overload() {
        s.text(":");
        s.ext_name(overload, vocabulary::is_identifier, "overload");
    }
    let all = n.attributes();
    // The room of the indexes kept, lent by the sink (a node inside one of
    // these attributes' graphs makes its own).
    let mut kept = std::mem::take(&mut s.kept_attributes);
    keep_attributes(s, all, &mut kept);
    let keys = AttributeKeys::new(all);
    let attributes = |s: &mut Sink<'_>, layout: ListLayout| {
        s.block_list("<", ">", &kept, layout, |s, _, &i| {
            at_attribute(s, "attribute", &keys, i, |s| n.attribute(s, &all[i]))
        });
    };
    let inputs = |s: &mut Sink<'_>| {
        s.text(" (");
        s.list(n.inputs(), |s, _, i| s.name(i.as_ref()));
        s.text(")");
    };
    if kept.is_empty() {
        inputs(s);
    } else if attributes_stay_inline(&kept, all) {
        s.text(" ");
        attributes(s, ListLayout::OneLine);
        inputs(s);
    } else {
        inputs(s);
        s.text(" ");
        attributes(s, ListLayout::OnePerLine);
    }
    s.kept_attributes = kept;
}

/// The most attributes a node holds on its line: 99.7% of the nodes of
/// onnx's test models and model zoo samples have at most 4 (a Conv
/// exported with all five of `dilations`, `group`, `kernel_shape`, `pads`
/// and `strides` gets one line per attribute).
pub(crate) const INLINE_ATTRIBUTES_MAX: usize = 4;

/// Whether a node's attributes stay on its line: at most
/// [`INLINE_ATTRIBUTES_MAX`] of them (`kept`, indexes of `attributes`),
/// none holding a graph.
fn attributes_stay_inline<T: AttributeFields>(kept: &[usize], attributes: &[T]) -> bool {
    kept.len() <= INLINE_ATTRIBUTES_MAX && !kept.iter().any(|&i| attributes[i].holds_graph())
}

/// The attributes to write, with their index ([`keep_attributes`]).
pub(crate) fn kept_attributes<'a, T: AttributeFields>(
    s: &mut Sink<'_>,
    attributes: &'a [T],
) -> Vec<(usize, &'a T)> {
    let mut kept = Vec::new();
    keep_attributes(s, attributes, &mut kept);
    kept.into_iter().map(|i| (i, &attributes[i])).collect()
}

/// Sets `kept` to the indexes of the attributes to write. In compat mode
/// sparse tensor values, which the reference grammar cannot write, are
/// left out (and reported).
fn keep_attributes<T: AttributeFields>(s: &mut Sink<'_>, attributes: &[T], kept: &mut Vec<usize>) {
    kept.clear();
    for (i, a) in attributes.iter().enumerate() {
        if s.compat() && a.is_sparse_value() {
            let keys = AttributeKeys::new(attributes);
            at_attribute(s, "attribute", &keys, i, |s| {
                s.report("attribute dropped (the reference grammar has no sparse tensor values)")
            });
        } else {
            kept.push(i);
        }
    }
}

/// Runs `f` at the IR path of attribute `index` of the list `field`
/// whose names `keys` holds, named by the rule of IR paths.
pub(crate) fn at_attribute<R, T: Named>(
    s: &mut Sink<'_>,
    field: &str,
    keys: &AttributeKeys<'_, T>,
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
    type_head(s, ty);
    match ty {
        A::Undefined | A::Ints => ints_value(s, &a.ints),
        A::Float => s.float(a.f.unwrap_or(0.0)),
        A::Int => s.int(a.i.unwrap_or(0)),
        A::String => s.string(a.s.as_deref().unwrap_or(b"")),
        A::Tensor => match &a.t {
            Some(t) => s.at("t", |s| {
                tensor::tensor_constant(s, &**t, TensorPlace::Value)
            }),
            None => s.text("float {}"),
        },
        A::Graph => match &a.g {
            Some(g) => graph_value(s, &**g),
            None => s.text("g () => () {}"),
        },
        A::SparseTensor => match &a.sparse_tensor {
            Some(t) => s.at("sparse_tensor", |s| tensor::sparse_constant(s, t)),
            None => s.text("sparse_tensor[] {}"),
        },
        A::TypeProto => print_type(s, tp_image.as_ref().unwrap_or(&types::placeholder_type())),
        A::Floats => floats_value(s, &a.floats),
        A::Strings => strings_value(s, &a.strings),
        A::Tensors => dropped_list(s, a.tensors.len(), "tensors", |s| {
            s.list(&a.tensors, |s, i, t| {
                s.at_index("tensors", i, |s| {
                    tensor::tensor_constant(s, t, TensorPlace::Value)
                })
            })
        }),
        A::Graphs => graphs_value(s, &a.graphs),
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

/// A graph as an attribute holds it: from the IR, or read from its
/// encoding.
trait ValueGraph: Sync {
    /// Writes the graph, as a value.
    fn print(&self, s: &mut Sink<'_>);
}

impl ValueGraph for GraphProto {
    fn print(&self, s: &mut Sink<'_>) {
        graph(s, self, GraphPlace::Value);
    }
}

impl ValueGraph for GraphView<'_> {
    fn print(&self, s: &mut Sink<'_>) {
        graph_with(
            s,
            &self.rest,
            GraphPlace::Value,
            &self.rest,
            &self.node[..],
            &self.initializer[..],
        );
    }
}

/// The value of a `graph` attribute, at its path.
fn graph_value(s: &mut Sink<'_>, g: &impl ValueGraph) {
    s.at("g", |s| g.print(s));
}

/// The value of a `graphs` attribute, at its path.
fn graphs_value(s: &mut Sink<'_>, graphs: &[impl ValueGraph]) {
    dropped_list(s, graphs.len(), "graphs", |s| {
        s.list(graphs, |s, i, g| s.at_index("graphs", i, |s| g.print(s)))
    });
}

/// `: type = ` of an attribute's text.
fn type_head(s: &mut Sink<'_>, ty: A) {
    s.text(": ");
    s.text(vocabulary::attribute_type_name(ty as i32).unwrap_or("ints"));
    s.text(" = ");
}

fn ints_value(s: &mut Sink<'_>, ints: &[i64]) {
    s.text("[");
    s.list(ints, |s, _, v| s.int(*v));
    s.text("]");
}

fn floats_value(s: &mut Sink<'_>, floats: &[f32]) {
    s.text("[");
    s.list(floats, |s, _, v| s.float(*v));
    s.text("]");
}

fn strings_value<B: AsRef<[u8]>>(s: &mut Sink<'_>, strings: &[B]) {
    s.text("[");
    s.list(strings, |s, _, v| s.string(v.as_ref()));
    s.text("]");
}

/// The value of an attribute whose text says all it holds: a name, a type
/// of numbers, strings, a tensor or graphs, the field of that type set (or
/// a list, empty) and no other, floats that have a text of their own. Its
/// text is what [`attribute`] writes, with no annotation.
enum PlainValue<'v> {
    Float(f32),
    Int(i64),
    String(&'v [u8]),
    Floats(&'v [f32]),
    Ints(&'v [i64]),
    Strings(&'v [&'v [u8]]),
    Tensor(&'v TensorView<'v>),
    Graph(&'v GraphView<'v>),
    Graphs(&'v [GraphView<'v>]),
}

/// The value of attribute `a` of the node `n` read from its encoding, if
/// its text says all it holds.
fn plain_value<'v>(a: &AttributeView<'v>, n: &'v NodeView<'v>) -> Option<PlainValue<'v>> {
    let ty = A::try_from(a.r#type?).ok()?;
    let set = [
        a.f.is_some(),
        a.i.is_some(),
        a.s.is_some(),
        !a.floats.is_empty(),
        !a.ints.is_empty(),
        !a.strings.is_empty(),
        a.t.is_some(),
        a.g.is_some(),
        !a.graphs.is_empty(),
    ];
    let only = |field: usize| set.iter().enumerate().all(|(i, &on)| !on || i == field);
    Some(match ty {
        A::Float if only(0) => PlainValue::Float(a.f.filter(|f| f.has_text())?),
        A::Int if only(1) => PlainValue::Int(a.i?),
        A::String if only(2) => PlainValue::String(a.s?),
        A::Floats if only(3) => {
            let floats = &n.floats[a.floats.clone()];
            PlainValue::Floats(floats.iter().all(|f| f.has_text()).then_some(floats)?)
        }
        A::Ints if only(4) => PlainValue::Ints(&n.ints[a.ints.clone()]),
        A::Strings if only(5) => PlainValue::Strings(&n.strings[a.strings.clone()]),
        A::Tensor if only(6) => PlainValue::Tensor(&n.tensors[a.t?]),
        A::Graph if only(7) => PlainValue::Graph(&n.graphs[a.g?]),
        A::Graphs if only(8) => PlainValue::Graphs(&n.graphs[a.graphs.clone()]),
        _ => return None,
    })
}

/// `: type = value` of a plain attribute value.
fn type_and_value(s: &mut Sink<'_>, value: PlainValue<'_>) {
    match value {
        PlainValue::Float(v) => {
            type_head(s, A::Float);
            s.float(v);
        }
        PlainValue::Int(v) => {
            type_head(s, A::Int);
            s.int(v);
        }
        PlainValue::String(v) => {
            type_head(s, A::String);
            s.string(v);
        }
        PlainValue::Floats(v) => {
            type_head(s, A::Floats);
            floats_value(s, v);
        }
        PlainValue::Ints(v) => {
            type_head(s, A::Ints);
            ints_value(s, v);
        }
        PlainValue::Strings(v) => {
            type_head(s, A::Strings);
            strings_value(s, v);
        }
        PlainValue::Tensor(t) => {
            type_head(s, A::Tensor);
            s.at("t", |s| tensor::tensor_constant(s, t, TensorPlace::Value));
        }
        PlainValue::Graph(g) => {
            type_head(s, A::Graph);
            graph_value(s, g);
        }
        PlainValue::Graphs(graphs) => {
            type_head(s, A::Graphs);
            graphs_value(s, graphs);
        }
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

    impl ListedNode for Maybe {
        type Room = ();

        fn print(&self, s: &mut Sink<'_>, (): &mut ()) -> Result<(), crate::Error> {
            match &self.0 {
                Some(node) => node.print(s, &mut ()),
                None => Err(crate::parse_node("=").unwrap_err()),
            }
        }

        fn encoded_len(&self) -> usize {
            self.0.as_ref().map_or(0, prost::Message::encoded_len)
        }
    }

    /// An attribute of these fields.
    fn attribute_of(
        name: Option<&str>,
        ty: Option<A>,
        set: impl FnOnce(&mut AttributeProto),
    ) -> AttributeProto {
        let mut a = AttributeProto {
            name: name.map(str::to_owned),
            r#type: ty.map(|ty| ty as i32),
            ..AttributeProto::default()
        };
        set(&mut a);
        a
    }

    #[test]
    fn a_node_read_from_its_encoding_prints_as_its_ir() {
        let mut nodes: Vec<NodeProto> = [
            "y = Relu (x)",
            "= Foo ()",
            "[\"/blocks.0/conv/Conv\"] \"/blocks.0/conv/Conv_output_0\" = Conv <dilations: ints = [1, 1], \
             group: int = 2, kernel_shape: ints = [5, 5], pads: ints = [2, 2, 2, 2], strides: ints = [1, 1]> \
             (input, \"onnx::Conv_1\", \"\")",
            "[l] a, b = com.x.Op:ov <alpha: float = 2.9799721e-05, betas: floats = [1.5, -2, 1e-7, inf], \
             e: floats = [], s: string = \"\\\"é\\\\\", ss: strings = [\"\", \"x y\"], n: ints = []> (x, \"\")",
            "y = \"\".Add <a: int = -9223372036854775808> (x, x)",
            "y = \"my domain\".\"Op-1\":\"2\" (x)",
            // Graphs, read by graph views: initializers, value infos, a
            // `Constant`, a name to quote, a `Loop` body a level deeper.
            "y = If (c) <then_branch: graph = then (float[2] u) => (float[2] a) \
             <float[2] w = {1, 2}, float[2] seen> { a = Add (x, w) }, \
             else_branch: graph = \"else branch\" () => (b) {\n\
               n = Constant <value: tensor = int64 {3}> ()\n\
               b = Loop (n, c, x) <body: graph = body (int64 i, bool ci, float[2] acc) => \
                 (bool co, float[2] out) { co = Identity (ci) \n out = Mul (acc, acc) }>\n\
             }>",
        ]
        .iter()
        .map(|text| crate::parse_node(text).unwrap())
        .collect();
        let body = crate::parse_graph("body (x) => (y) { y = Relu (x) }").unwrap();
        let mut annotated = crate::parse_node("y = Op (x)").unwrap();
        annotated.op_type = None;
        annotated.attribute = vec![
            // A float without a text of its own, floats among which one.
            attribute_of(Some("nan"), Some(A::Float), |a| {
                a.f = Some(f32::from_bits(0x7fc0_0001))
            }),
            attribute_of(Some("nans"), Some(A::Floats), |a| {
                a.floats = vec![1.0, f32::from_bits(0xffc0_0002)]
            }),
            // No name, no type, a type of no value, a value not its type's,
            // two values, a singular value missing.
            attribute_of(None, Some(A::Int), |a| a.i = Some(1)),
            attribute_of(Some("untyped"), None, |a| a.ints = vec![1]),
            attribute_of(Some("t"), Some(A::Tensor), |_| {}),
            attribute_of(Some("sparse"), Some(A::SparseTensor), |_| {}),
            attribute_of(Some("mixed"), Some(A::Int), |a| a.s = Some(b"s".to_vec())),
            attribute_of(Some("two"), Some(A::Ints), |a| {
                a.ints = vec![1];
                a.floats = vec![2.0];
            }),
            attribute_of(Some("missing"), Some(A::String), |_| {}),
            // Names given twice (their paths go by index), one not an
            // identifier, bytes that are not UTF-8.
            attribute_of(Some("twice"), Some(A::Int), |a| a.i = Some(1)),
            attribute_of(Some("twice"), Some(A::Int), |a| a.i = Some(2)),
            attribute_of(Some("not an identifier"), Some(A::Strings), |a| {
                a.strings = vec![vec![0xff, 0], b"\"".to_vec()];
            }),
            // Graphs: a list of them (dropped in compat mode), an empty
            // one, a graph without a name, a graph of no type, one not
            // its type's.
            attribute_of(Some("gs"), Some(A::Graphs), |a| {
                a.graphs = vec![body.clone(), GraphProto::default()];
            }),
            attribute_of(Some("none"), Some(A::Graphs), |_| {}),
            attribute_of(Some("g"), Some(A::Graph), |a| {
                a.g = Some(Box::new(GraphProto::default()));
            }),
            attribute_of(Some("untyped_g"), None, |a| {
                a.g = Some(Box::new(body.clone()))
            }),
            attribute_of(Some("int_g"), Some(A::Int), |a| {
                a.i = Some(1);
                a.g = Some(Box::new(body.clone()));
            }),
        ];
        nodes.push(annotated);
        for node in &nodes {
            let bytes = prost::Message::encode_to_vec(node);
            assert!(NodeView::default().read(&bytes), "{node:?}");
        }
        let model = crate::proto::ModelProto {
            graph: Some(GraphProto {
                name: Some("g".into()),
                node: nodes,
                ..GraphProto::default()
            }),
            ..crate::proto::ModelProto::default()
        };
        let bytes = prost::Message::encode_to_vec(&model);
        for printer in [Printer::new(), Printer::new().compat(true)] {
            let expected = printer.print(&model);
            assert_eq!(printer.print_binary_model(&bytes).unwrap(), expected);
            let mut out = Vec::new();
            let dropped = printer
                .write_binary_model(&bytes, &mut out)
                .unwrap()
                .unwrap();
            assert_eq!(
                (String::from_utf8(out).unwrap(), dropped),
                (expected.text, expected.dropped)
            );
        }
    }

    #[test]
    fn encoded_items_read_one_after_another_print_as_their_ir() {
        // Nodes and initializers the views read among ones they leave to
        // `prost` (a doc string), on one thread and shared with a helper:
        // each thread's rooms, kept from one item to the next, hold
        // nothing of the item before (nor their graphs' views).
        let nodes = [
            "y = Relu (x)",
            "[n] k = Constant <value: tensor = float[3] {1, 2, 3}> ()",
            "y = Foo <a: ints = [1, 2, 3], b: string = \"s\"> (x)",
            "y = If (c) <then_branch: graph = t () => (a) { a = Relu (x) }, \
             else_branch: graph = e () => (b) <float[1] w = {1}> { b = Neg (w) }>",
            "y = If (c) <then_branch: graph = t () => (a) { a = Identity (x) }, \
             else_branch: graph = \"\" () => (b) {}>",
        ];
        let node = (0..3000)
            .map(|i| {
                let mut node = crate::parse_node(nodes[i % nodes.len()]).unwrap();
                if i % 4 == 1 {
                    node.doc_string = Some(format!("doc {i}"));
                }
                node
            })
            .collect();
        let initializer = (0..3000)
            .map(|i| TensorProto {
                name: Some(format!("w{i}")),
                data_type: Some(1),
                dims: vec![(i % 3) as i64],
                float_data: vec![0.5; i % 3],
                doc_string: (i % 5 == 1).then(|| format!("doc {i}")),
                ..TensorProto::default()
            })
            .collect();
        let model = crate::proto::ModelProto {
            graph: Some(GraphProto {
                name: Some("g".into()),
                node,
                initializer,
                ..GraphProto::default()
            }),
            ..crate::proto::ModelProto::default()
        };
        let bytes = prost::Message::encode_to_vec(&model);
        for threads in [true, false] {
            let printer = Printer::new().threads(threads);
            let expected = printer.print(&model);
            assert_eq!(printer.print_binary_model(&bytes).unwrap(), expected);
            let mut out = Vec::new();
            printer
                .write_binary_model(&bytes, &mut out)
                .unwrap()
                .unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), expected.text);
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
                    graph_with(
                        &mut sink,
                        &graph,
                        GraphPlace::Top,
                        &graph,
                        &nodes,
                        initializers,
                    );
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

    #[test]
    fn a_nodes_attributes_are_kept_in_order_around_those_compat_mode_drops() {
        use crate::printer::sink::testing::{render, render_with};
        let mut op =
            crate::parse_node("y = Op <a: int = 1, b: int = 2, c: int = 3, d: int = 4> (x)")
                .unwrap();
        op.attribute.insert(
            1,
            attribute_of(Some("s"), Some(A::SparseTensor), |a| {
                a.sparse_tensor = Some(Box::default());
            }),
        );
        // Four kept stay on the line; five go one per line.
        let (compat, dropped) = render_with(Printer::new().compat(true), |s| {
            s.at_index("node", 0, |s| node(s, &op))
        });
        assert_eq!(
            compat,
            "y = Op <a: int = 1, b: int = 2, c: int = 3, d: int = 4> (x)"
        );
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].path, "node[0].attribute[\"s\"]");
        let lossless = render(|s| node(s, &op));
        assert!(lossless.starts_with("y = Op (x) <\n  a: int = 1,\n  s: sparse_tensor = "));
        assert!(lossless.ends_with("  b: int = 2,\n  c: int = 3,\n  d: int = 4\n>"));
        // A node inside an attribute's graph, with attributes of its own,
        // before and after the outer node's other attributes.
        let outer = crate::parse_node(
            "y = If <k: int = 7, then_branch: graph = t () => (a) { a = Op <j: int = 5, i: int = 6> () }, \
             else_branch: graph = e () => (b) { b = Op <h: int = 8> () }, l: int = 9> (c)",
        )
        .unwrap();
        let text = render(|s| node(s, &outer));
        let reparsed = crate::parse_node(&text).unwrap();
        assert_eq!(reparsed, outer, "{text}");
    }
}
