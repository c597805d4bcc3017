//! Decoding binary ONNX models, with errors that name the byte offset and the
//! IR path of the problem.
//!
//! `prost` alone is not enough here: it silently discards fields it does not
//! know (so printing such a model would lose them) and its errors say neither
//! where the problem is nor what was being decoded. [`decode_model`] first
//! walks the protobuf wire format guided by the ONNX schema (the compiled
//! `grammar/onnx.proto`, embedded by the build script), checking everything
//! `prost` checks plus the absence of unknown fields and of integers too wide
//! for their field, and only then lets `prost` build the IR. The walk is one
//! linear pass over the bytes that copies nothing: payloads such as
//! `raw_data` are skipped by their length. Strings are checked once: by
//! `prost` as it decodes them, or in place by the walk where `prost` runs
//! later (the nodes of a model decoded lazily); when either fails, a walk
//! that checks every string finds the first problem of the input, the
//! error reported.
//!
//! The print of a binary model ([`decode_model_lazily`]) leaves the main
//! graph's nodes and initializers encoded and decodes each as it prints
//! it. Most nodes it reads without `prost` into a view that borrows their
//! strings (`node_view.rs`), the graphs of `If`, `Loop` and `Scan` with
//! their nodes and initializers into views too (`graph_view.rs`), and
//! most initializers and `Constant` tensors into one that borrows their
//! weights' bytes (`tensor_view.rs`), and the main graph's inputs,
//! outputs and value infos, as the walk passes them, into views that it
//! does not walk (`value_info_view.rs`); a print that keeps nothing of a
//! model with a problem (into a string) lets the walk skip the contents
//! of the main graph's nodes and initializers, and each is checked as it
//! is read (the views accept only what the walk would, and leave anything
//! else to the walk of the node or initializer and `prost`), with the same
//! errors.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::OnceLock;

use prost::Message as _;
use prost_types::field_descriptor_proto::{Label as FieldLabel, Type};
use prost_types::{DescriptorProto, FileDescriptorSet};

use crate::error::{Diagnostic, Error};
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, MapProto, ModelProto, NodeProto, OptionalProto,
    SequenceProto, SparseTensorProto, TensorProto, TypeProto, ValueInfoProto,
};

mod graph_view;
mod kept_list;
mod node_view;
mod tensor_view;
mod value_info_view;

pub(crate) use graph_view::GraphView;
pub(crate) use node_view::{AttributeView, NodeView};
pub(crate) use tensor_view::TensorView;
pub(crate) use value_info_view::{Dim, ValueInfoView, ValueInfoViews};

/// How deeply messages may nest, counting the decoded message (the model)
/// as depth 0 and its `graph` as depth 1: `prost`'s recursion limit (the protobuf C++
/// library's default is the same), beyond which it refuses to decode.
pub const MAX_MESSAGE_DEPTH: usize = 100;

/// How deeply a node or an initializer of the main graph is nested in the
/// model (the model 0, its graph 1).
const MAIN_GRAPH_ITEM_DEPTH: usize = 2;

/// The compiled schema, as written by `build.rs`.
static SCHEMA_FDS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/onnx.fds"));

/// Decodes a binary ONNX model (protobuf wire format).
///
/// Unlike a bare `ModelProto::decode`, this refuses input that would not
/// print losslessly, and says where the problem is. The error's primary
/// [`Diagnostic`] has a code `onnxtxt::decode::*`, its [`Diagnostic::span`]
/// is the offending byte range of `bytes`, and [`Diagnostic::path`] the IR
/// path being decoded (e.g. `graph.node[12].attribute[0].t.raw_data`; `None`
/// at the top level of the model). It reports:
///
/// - input that ends early or a length that runs past the end of its
///   enclosing message (`truncated`, `length`);
/// - fields the ONNX schema does not have, which `prost` would silently
///   drop (`unknown_field`);
/// - malformed varints and tags (`varint`, `tag`), a wire type that does not
///   match the field's type (`wire_type`), packed data whose length is not a
///   whole number of elements (`packed`);
/// - `string` fields that are not UTF-8 (`utf8`);
/// - integers too wide for a 32-bit field, which would be truncated
///   (`range`);
/// - messages nested more than [`MAX_MESSAGE_DEPTH`] deep (`nesting`).
///
/// Packed and unpacked encodings of repeated numbers are both accepted, as
/// are repeated occurrences of singular fields (the last one wins, as
/// protobuf specifies).
///
/// # Example
///
/// ```
/// use onnxtxt::prost::Message;
///
/// let model = onnxtxt::parse_model(
///     r#"<ir_version: 10, opset_import: ["": 21]> g (float[N] x) => (float[N] y) { y = Relu(x) }"#,
/// )?;
/// let bytes = model.encode_to_vec();
/// assert_eq!(onnxtxt::decode_model(&bytes)?, model);
///
/// let error = onnxtxt::decode_model(&bytes[..bytes.len() - 3]).unwrap_err();
/// let diagnostic = error.primary();
/// assert_eq!(diagnostic.code, "onnxtxt::decode::truncated");
/// assert_eq!(diagnostic.path.as_deref(), Some("opset_import[0]"));
/// assert!(diagnostic.message.starts_with("length "));
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn decode_model(bytes: &[u8]) -> Result<ModelProto, Error> {
    decode(bytes)
}

/// Decodes any IR kind the printer prints from its protobuf wire format, as
/// [`decode_model`] decodes a model: unknown fields refused, every problem
/// located by byte range and IR path (relative to the decoded message).
///
/// ```
/// use onnxtxt::prost::Message;
/// use onnxtxt::proto::{GraphProto, NodeProto};
///
/// let node = onnxtxt::parse_node("y = Relu (x)")?;
/// assert_eq!(onnxtxt::decode::<NodeProto>(&node.encode_to_vec())?, node);
///
/// // Field 99 of a graph: prost would drop it, and printing would lose it.
/// let error = onnxtxt::decode::<GraphProto>(&[0x98, 0x06, 0x01]).unwrap_err();
/// assert_eq!(error.primary().code, "onnxtxt::decode::unknown_field");
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn decode<T: Decode>(bytes: &[u8]) -> Result<T, Error> {
    // prost checks the strings as it decodes them: the walk leaves them to
    // it.
    walk::<T>(bytes, Utf8::Nowhere)
        .and_then(|()| T::decode(bytes).map_err(|e| not_decoded::<T>(&e, 0..bytes.len())))
        .map_err(|error| first_problem::<T>(bytes, error))
}

/// Which strings a walk checks are UTF-8: those that `prost` does not
/// decode straight after it (`prost` checks the strings it decodes).
#[derive(Clone, Copy, PartialEq)]
enum Utf8 {
    /// Every string: the walk that says where the first problem is.
    Everywhere,
    /// None.
    Nowhere,
}

/// Checks that `bytes` decode as a `T` (the walk that [`decode`] makes
/// before `prost` runs), the strings `utf8` says included.
fn walk<T: Decode>(bytes: &[u8], utf8: Utf8) -> Result<(), Error> {
    walk_with(&Walker::new::<T>(bytes, Nodes::Walked), utf8)
}

/// [`walk`] with `walker`, which may leave the main graph's nodes or
/// split the model as it goes.
fn walk_with(walker: &Walker, utf8: Utf8) -> Result<(), Error> {
    walker
        .message(
            walker.top,
            0,
            walker.bytes.len(),
            0,
            utf8 == Utf8::Everywhere,
        )
        .map_err(|failure| Error::from_diagnostics(vec![failure.into_diagnostic()]))
}

/// Whether the walk of a model looks inside the nodes and initializers of
/// its main graph.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Nodes {
    /// It does: the model is checked whole before anything is printed.
    Walked,
    /// It checks only that the length of each node and initializer is
    /// within the graph: each is checked as it is printed
    /// ([`Encoded::decode_into`], [`NodeView::read`],
    /// [`TensorView::read`]), for a print that keeps nothing of what it
    /// made when it fails.
    Left,
}

/// The error to report for `bytes`, where a walk that left some strings
/// unchecked, or `prost` after it, failed with `error`: the first problem
/// of the input, as the walk that checks every string finds it (`error`
/// when that walk finds none).
fn first_problem<T: Decode>(bytes: &[u8], error: Error) -> Error {
    walk::<T>(bytes, Utf8::Everywhere).err().unwrap_or(error)
}

/// The error of `prost` failing on the bytes at `span` that the walk
/// accepted. The walk checks everything prost checks but the strings, so
/// this is not expected once the walk that checks them ([`first_problem`])
/// found nothing; if it happens, it is still reported rather than a panic.
fn not_decoded<T: Decode>(error: &prost::DecodeError, span: Range<usize>) -> Error {
    Error::from_diagnostics(vec![Diagnostic::new(
        "onnxtxt::decode::invalid",
        format!("not a valid binary ONNX {}: {error}", T::MESSAGE),
        span,
    )])
}

/// A binary model decoded but for the nodes and initializers of its main
/// graph, which stay encoded, slices of the input, until each is decoded on
/// its own as it is printed ([`crate::Printer::write_binary_model`]): a
/// node-heavy model's IR takes several times its encoding, a weight-heavy
/// model's as much as its encoding, and a model decoded whole holds all of
/// it at once.
pub(crate) struct LazyModel<'a> {
    /// The model, its graph (if any) without nodes and initializers.
    pub(crate) model: ModelProto,
    /// The encoding of each node of the main graph, in order.
    pub(crate) nodes: Vec<Encoded<'a>>,
    /// The encoding of each initializer of the main graph, in order.
    pub(crate) initializers: Vec<Encoded<'a>>,
    /// The main graph's inputs, outputs and value infos, when views read
    /// them all (the graph of `model` has none then), else `None` (they
    /// are the graph's).
    pub(crate) values: Option<ValueInfoViews<'a>>,
}

/// The encoding of one message (the payload of its field, without tag and
/// length), from the model `input` that [`decode_model_lazily`] walked,
/// its strings not yet checked, nor its fields when the walk left them
/// ([`Nodes::Left`]).
pub(crate) struct Encoded<'a> {
    input: &'a [u8],
    range: Range<usize>,
    walked: bool,
}

impl<'a> Encoded<'a> {
    /// Decodes the message into `message`, cleared first (a print decodes
    /// one node after another into the same one, whose lists keep their
    /// room), or gives the first problem of the whole model, located in
    /// it, when the message has one: one the walk finds, when the walk of
    /// the model left it, or one `prost` finds (a string that is not UTF-8).
    pub(crate) fn decode_into<M: Decode>(&self, message: &mut M) -> Result<(), Error> {
        message.clear();
        let fail = |error| first_problem::<ModelProto>(self.input, error);
        if !self.walked {
            // A message of the main graph.
            let walker = Walker::new::<ModelProto>(self.input, Nodes::Walked);
            let index = walker
                .schema
                .index(M::MESSAGE)
                .expect("a message of the schema");
            let (start, end) = (self.range.start, self.range.end);
            let walked = walker.message(index, start, end, MAIN_GRAPH_ITEM_DEPTH, false);
            walked.map_err(|failure| {
                fail(Error::from_diagnostics(vec![failure.into_diagnostic()]))
            })?;
        }
        message
            .merge(self.bytes())
            .map_err(|e| fail(not_decoded::<M>(&e, self.range.clone())))
    }

    /// The encoding.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        &self.input[self.range.clone()]
    }

    /// The length of the encoding.
    pub(crate) fn len(&self) -> usize {
        self.range.len()
    }
}

/// `ModelProto.graph`'s field number.
pub(crate) const MODEL_GRAPH: u32 = 7;
/// `GraphProto.node`'s field number.
pub(crate) const GRAPH_NODE: u32 = 1;
/// `GraphProto.initializer`'s field number.
pub(crate) const GRAPH_INITIALIZER: u32 = 5;
/// `GraphProto.input`'s field number.
const GRAPH_INPUT: u32 = 11;
/// `GraphProto.output`'s field number.
const GRAPH_OUTPUT: u32 = 12;
/// `GraphProto.value_info`'s field number.
const GRAPH_VALUE_INFO: u32 = 13;

/// [`decode_model`], but leaving the main graph's nodes and initializers
/// encoded: the same checks and errors, and the same model once they are
/// decoded. The strings of what it leaves encoded are checked when each
/// is decoded ([`Encoded::decode_into`], `prost` checks them), not here: a
/// print finds a string that is not UTF-8 as it goes; so are their other
/// fields with [`Nodes::Left`].
///
/// Protobuf merges the occurrences of a message field and appends those of
/// a repeated one, so the model is the model's fields but its graphs, the
/// graph all its occurrences' fields but their nodes and initializers
/// (decoded as one message, which merges them as `prost` does), and the
/// nodes and initializers each in order. The walk that checks the model
/// finds where each of those is as it passes it ([`Split`]): one pass over
/// the fields before `prost` decodes the model's and the graph's. The
/// graph's inputs, outputs and value infos are read into views by that
/// pass when views hold them all, else decoded with the graph.
pub(crate) fn decode_model_lazily(bytes: &[u8], nodes: Nodes) -> Result<LazyModel<'_>, Error> {
    let first_problem = |error| first_problem::<ModelProto>(bytes, error);
    let mut walker = Walker::new::<ModelProto>(bytes, nodes);
    walker.split = Some(RefCell::new(Split::new(walker.schema)));
    walk_with(&walker, Utf8::Nowhere).map_err(first_problem)?;
    let split = walker.split.take().unwrap_or_default().into_inner();
    let encoded = |ranges: Vec<Range<usize>>| -> Vec<Encoded<'_>> {
        let walked = nodes == Nodes::Walked;
        (ranges.into_iter())
            .map(|range| Encoded {
                input: bytes,
                range,
                walked,
            })
            .collect()
    };
    let mut model = merged::<ModelProto>(bytes, &split.model_fields)
        .map_err(|e| first_problem(not_decoded::<ModelProto>(&e, 0..bytes.len())))?;
    let mut values = None;
    if split.has_graph {
        let mut graph_fields = split.graph_fields;
        match split.values {
            Some(views) => values = Some(views),
            // The value infos are the graph's, decoded with its other
            // fields (each is a repeated field of its own: their order
            // among the other fields does not matter).
            None => graph_fields.extend(split.value_fields),
        }
        let graph = merged::<GraphProto>(bytes, &graph_fields)
            .map_err(|e| first_problem(not_decoded::<GraphProto>(&e, 0..bytes.len())))?;
        model.graph = Some(graph);
    }
    Ok(LazyModel {
        model,
        nodes: encoded(split.nodes),
        initializers: encoded(split.initializers),
        values,
    })
}

/// The message of the whole fields at `ranges` of `bytes`, merged one
/// range after the other: what `prost` decodes of their concatenation
/// (protobuf merges a message's encodings as it decodes the message of
/// their concatenation), each read from one slice.
fn merged<M: Decode>(bytes: &[u8], ranges: &[Range<usize>]) -> Result<M, prost::DecodeError> {
    let mut message = M::default();
    for range in ranges {
        message.merge(&bytes[range.clone()])?;
    }
    Ok(message)
}

/// The model's fields as the walk of [`decode_model_lazily`] passes them,
/// split in the one pass that checks them: the model's fields but its
/// graphs, every occurrence of its graph's fields but the nodes,
/// initializers and value infos, those nodes and initializers (their
/// payloads), each list in order, and the value infos, read by views as
/// the walk passes them, or (when a view refuses one) their fields.
#[derive(Default)]
struct Split<'a> {
    /// The index of `GraphProto` in the schema.
    graph_index: usize,
    has_graph: bool,
    model_fields: Vec<Range<usize>>,
    graph_fields: Vec<Range<usize>>,
    nodes: Vec<Range<usize>>,
    initializers: Vec<Range<usize>>,
    /// The main graph's inputs, outputs and value infos, tag included.
    value_fields: Vec<Range<usize>>,
    /// Their views, `None` once a view refused one (the walk walked it).
    values: Option<ValueInfoViews<'a>>,
}

impl<'a> Split<'a> {
    fn new(schema: &Schema) -> Self {
        Split {
            graph_index: (schema.index(GraphProto::MESSAGE)).expect("a message of the schema"),
            values: Some(ValueInfoViews::default()),
            ..Split::default()
        }
    }

    /// Whether the message of the main graph's field `number`, encoded at
    /// `payload` of `bytes`, is one of its value infos that a view read
    /// (checking it as the walk would): the walk does not walk it then.
    fn viewed(&mut self, number: u64, bytes: &'a [u8], payload: Range<usize>) -> bool {
        let Ok(number @ (GRAPH_INPUT | GRAPH_OUTPUT | GRAPH_VALUE_INFO)) = u32::try_from(number)
        else {
            return false;
        };
        let Some(views) = &mut self.values else {
            return false;
        };
        let read = views.read(number, bytes, payload);
        if !read {
            self.values = None;
        }
        read
    }

    /// Records the field `number` of the message of type `index` at
    /// `depth` that the walk has just checked: `whole`, tag included, its
    /// payload from `payload_start()` (after the length of a
    /// length-delimited field), which is asked only of the main graph's
    /// nodes and initializers. Only the model (depth 0) and its main
    /// graph (the only graph at depth 1) are split.
    fn record(
        &mut self,
        index: usize,
        depth: usize,
        number: u64,
        whole: Range<usize>,
        payload_start: impl FnOnce() -> usize,
    ) {
        match depth {
            0 if number == u64::from(MODEL_GRAPH) => self.has_graph = true,
            0 => self.model_fields.push(whole),
            1 if index == self.graph_index => match number {
                n if n == u64::from(GRAPH_NODE) => self.nodes.push(payload_start()..whole.end),
                n if n == u64::from(GRAPH_INITIALIZER) => {
                    self.initializers.push(payload_start()..whole.end);
                }
                n if [GRAPH_INPUT, GRAPH_OUTPUT, GRAPH_VALUE_INFO]
                    .map(u64::from)
                    .contains(&n) =>
                {
                    self.value_fields.push(whole);
                }
                _ => self.graph_fields.push(whole),
            },
            _ => {}
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// An IR kind [`decode`] reads: every kind the printer prints.
pub trait Decode: sealed::Sealed + prost::Message + Default {
    /// Its message's name in the ONNX schema.
    #[doc(hidden)]
    const MESSAGE: &'static str;
}

macro_rules! decodable {
    ($($ty:ident),* $(,)?) => {$(
        impl sealed::Sealed for $ty {}
        impl Decode for $ty {
            const MESSAGE: &'static str = stringify!($ty);
        }
    )*};
}

decodable!(
    ModelProto,
    GraphProto,
    FunctionProto,
    NodeProto,
    TypeProto,
    TensorProto,
    SparseTensorProto,
    AttributeProto,
    ValueInfoProto,
    SequenceProto,
    MapProto,
    OptionalProto,
);

// ---------------------------------------------------------------------------
// The schema, from the embedded FileDescriptorSet.

/// The messages of the ONNX schema, reduced to what the walk needs.
struct Schema {
    messages: Vec<MessageInfo>,
}

impl Schema {
    /// The index in `messages` of the message named `name` (relative to
    /// the package, like `ModelProto`).
    fn index(&self, name: &str) -> Option<usize> {
        self.messages.iter().position(|m| m.name == name)
    }
}

struct MessageInfo {
    /// The name relative to the package, e.g. `TensorProto.Segment`.
    name: String,
    fields: Vec<FieldInfo>,
    /// Field number → index in `fields`, or [`NO_FIELD`].
    by_number: Vec<u16>,
    /// Reserved field numbers (end exclusive).
    reserved: Vec<Range<u64>>,
}

const NO_FIELD: u16 = u16::MAX;

impl MessageInfo {
    fn field(&self, number: u64) -> Option<&FieldInfo> {
        let index = *self.by_number.get(usize::try_from(number).ok()?)?;
        self.fields.get(usize::from(index))
    }
}

struct FieldInfo {
    name: String,
    number: u64,
    kind: Kind,
    repeated: bool,
    /// The schema's type, e.g. `int64` or `TensorProto`, for messages.
    type_name: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A varint: 32-bit integers and enums (`wide: false`), 64-bit
    /// integers, or bools (`wide: true`: every varint fits).
    Varint {
        wide: bool,
    },
    Fixed32,
    Fixed64,
    Str,
    Bytes,
    Message(usize),
    Group,
}

impl Kind {
    fn is_scalar(self) -> bool {
        matches!(self, Kind::Varint { .. } | Kind::Fixed32 | Kind::Fixed64)
    }

    /// The wire type of one value of this kind.
    fn wire_type(self) -> u64 {
        match self {
            Kind::Varint { .. } => VARINT,
            Kind::Fixed64 => FIXED64,
            Kind::Str | Kind::Bytes | Kind::Message(_) => LEN,
            Kind::Group => START_GROUP,
            Kind::Fixed32 => FIXED32,
        }
    }
}

const VARINT: u64 = 0;
const FIXED64: u64 = 1;
const LEN: u64 = 2;
const START_GROUP: u64 = 3;
const FIXED32: u64 = 5;

fn wire_type_name(wire_type: u64) -> &'static str {
    match wire_type {
        VARINT => "varint",
        FIXED64 => "64-bit",
        LEN => "length-delimited",
        START_GROUP => "start group",
        4 => "end group",
        FIXED32 => "32-bit",
        _ => "invalid",
    }
}

fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let set = FileDescriptorSet::decode(SCHEMA_FDS)
            .expect("the schema embedded by build.rs is a valid FileDescriptorSet");
        Schema::from_descriptors(&set)
    })
}

impl Schema {
    fn from_descriptors(set: &FileDescriptorSet) -> Schema {
        // Every message with its fully qualified name (`.onnx.TensorProto`)
        // and its name within the package (`TensorProto`).
        let mut all: Vec<(String, String, &DescriptorProto)> = Vec::new();
        fn collect<'a>(
            prefix: &str,
            local: &str,
            messages: &'a [DescriptorProto],
            all: &mut Vec<(String, String, &'a DescriptorProto)>,
        ) {
            for message in messages {
                let full = format!("{prefix}.{}", message.name());
                let name = if local.is_empty() {
                    message.name().to_owned()
                } else {
                    format!("{local}.{}", message.name())
                };
                all.push((full.clone(), name.clone(), message));
                collect(&full, &name, &message.nested_type, all);
            }
        }
        for file in &set.file {
            let prefix = match file.package() {
                "" => String::new(),
                package => format!(".{package}"),
            };
            collect(&prefix, "", &file.message_type, &mut all);
        }
        let index_of = |type_name: &str| all.iter().position(|(full, _, _)| full == type_name);

        let messages = all
            .iter()
            .map(|(_, name, message)| {
                let fields: Vec<FieldInfo> = message
                    .field
                    .iter()
                    .map(|field| {
                        let kind = match field.r#type() {
                            Type::Int32 | Type::Uint32 | Type::Sint32 | Type::Enum => {
                                Kind::Varint { wide: false }
                            }
                            Type::Int64 | Type::Uint64 | Type::Sint64 | Type::Bool => {
                                Kind::Varint { wide: true }
                            }
                            Type::Fixed32 | Type::Sfixed32 | Type::Float => Kind::Fixed32,
                            Type::Fixed64 | Type::Sfixed64 | Type::Double => Kind::Fixed64,
                            Type::String => Kind::Str,
                            Type::Bytes => Kind::Bytes,
                            Type::Message => {
                                index_of(field.type_name()).map_or(Kind::Group, Kind::Message)
                            }
                            Type::Group => Kind::Group,
                        };
                        let type_name = match field.r#type() {
                            Type::Message | Type::Enum | Type::Group => field
                                .type_name()
                                .rsplit('.')
                                .next()
                                .unwrap_or_default()
                                .to_owned(),
                            other => other
                                .as_str_name()
                                .trim_start_matches("TYPE_")
                                .to_ascii_lowercase(),
                        };
                        FieldInfo {
                            name: field.name().to_owned(),
                            number: u64::try_from(field.number()).unwrap_or(0),
                            kind,
                            repeated: field.label() == FieldLabel::Repeated,
                            type_name,
                        }
                    })
                    .collect();
                let max = fields.iter().map(|f| f.number).max().unwrap_or(0);
                let mut by_number = vec![NO_FIELD; usize::try_from(max).unwrap_or(0) + 1];
                for (index, field) in fields.iter().enumerate() {
                    if let (Ok(number), Ok(index)) =
                        (usize::try_from(field.number), u16::try_from(index))
                    {
                        by_number[number] = index;
                    }
                }
                let reserved = message
                    .reserved_range
                    .iter()
                    .map(|r| {
                        u64::try_from(r.start()).unwrap_or(0)..u64::try_from(r.end()).unwrap_or(0)
                    })
                    .collect();
                MessageInfo {
                    name: name.clone(),
                    fields,
                    by_number,
                    reserved,
                }
            })
            .collect();
        Schema { messages }
    }
}

// ---------------------------------------------------------------------------
// The walk.

/// A problem found by the walk, with the IR path built up as it returns
/// through the enclosing messages.
struct Failure {
    code: &'static str,
    message: String,
    span: Range<usize>,
    help: Option<&'static str>,
    /// Path segments, innermost first.
    path: Vec<String>,
    /// For a problem inside a packed run, the element's index in the run.
    element: Option<usize>,
    /// Whether the problem is with a packed run as a whole.
    run: bool,
}

type Walk<T> = Result<T, Box<Failure>>;

fn fail(code: &'static str, message: impl Into<String>, span: Range<usize>) -> Box<Failure> {
    Box::new(Failure {
        code,
        message: message.into(),
        span,
        help: None,
        path: Vec::new(),
        element: None,
        run: false,
    })
}

impl Failure {
    fn with_help(mut self: Box<Self>, help: &'static str) -> Box<Self> {
        self.help = Some(help);
        self
    }

    fn into_diagnostic(self) -> Diagnostic {
        let mut diagnostic = Diagnostic::new(self.code, self.message, self.span);
        if !self.path.is_empty() {
            let mut path = String::new();
            for (i, segment) in self.path.iter().rev().enumerate() {
                if i > 0 {
                    path.push('.');
                }
                path.push_str(segment);
            }
            diagnostic.path = Some(path);
        }
        diagnostic.help = self.help.map(str::to_owned);
        diagnostic
    }
}

const TRUNCATED_HELP: &str =
    "the input ends early: the file may be truncated (an interrupted download or copy?)";

struct Walker<'a> {
    bytes: &'a [u8],
    schema: &'static Schema,
    /// The index of the message being decoded, the one whose end is the
    /// end of the input.
    top: usize,
    /// The index of `GraphProto` when the walk of a model leaves the
    /// contents of its main graph's nodes and initializers
    /// ([`Nodes::Left`]).
    leaves_nodes_of: Option<usize>,
    /// Where the walk of a model for [`decode_model_lazily`] splits it.
    split: Option<RefCell<Split<'a>>>,
}

impl<'a> Walker<'a> {
    /// The walk of `bytes` as a `T`.
    fn new<T: Decode>(bytes: &'a [u8], nodes: Nodes) -> Self {
        let schema = schema();
        let index =
            |name| (schema.index(name)).expect("every Decode kind is a message of the schema");
        let top = index(T::MESSAGE);
        let leaves_nodes_of = (nodes == Nodes::Left && T::MESSAGE == ModelProto::MESSAGE)
            .then(|| index(GraphProto::MESSAGE));
        Walker {
            bytes,
            schema,
            top,
            leaves_nodes_of,
            split: None,
        }
    }

    /// A "runs past the end" failure for `what` starting at `at`, in a
    /// message (`message`) ending at `end`. Only the top message ends at
    /// the end of the input: lengths are checked before what they enclose,
    /// so input cut short shows at the top level first.
    fn overrun(
        &self,
        what: String,
        at: usize,
        left: usize,
        end: usize,
        message: &MessageInfo,
    ) -> Box<Failure> {
        if std::ptr::eq(message, &self.schema.messages[self.top]) {
            let message = format!(
                "{what} runs past the end of the input ({} left)",
                bytes(left)
            );
            fail("onnxtxt::decode::truncated", message, at..end).with_help(TRUNCATED_HELP)
        } else {
            let message = format!(
                "{what} runs past the end of the enclosing {} ({} left)",
                message.name,
                bytes(left)
            );
            fail("onnxtxt::decode::length", message, at..end)
        }
    }

    /// Reads a varint at `*pos`, which must end by `end`.
    #[inline]
    fn varint(&self, pos: &mut usize, end: usize, what: &str, message: &MessageInfo) -> Walk<u64> {
        let start = *pos;
        match read_varint(self.bytes, start, end) {
            Ok((value, next)) => {
                *pos = next;
                Ok(value)
            }
            Err(VarintError::Overrun) => Err(self.overrun(
                format!("{what} (a varint)"),
                start,
                end - start,
                end,
                message,
            )),
            Err(VarintError::Invalid) => Err(invalid_varint(what, start, end)),
        }
    }

    /// Reads a length prefix at `*pos` and checks the bytes it announces are
    /// there; returns the end of the payload (the payload starts at `*pos`).
    #[inline]
    fn length(&self, pos: &mut usize, end: usize, message: &MessageInfo) -> Walk<usize> {
        let at = *pos;
        let len = self.varint(pos, end, "length", message)?;
        let left = end - *pos;
        match usize::try_from(len) {
            Ok(len) if len <= left => Ok(*pos + len),
            _ => Err(self.overrun(format!("length {len}"), at, left, end, message)),
        }
    }

    /// Walks the fields of a message of type `index` in `start..end`, at
    /// nesting `depth` (the top message is 0), checking its strings if
    /// `utf8`.
    fn message(
        &self,
        index: usize,
        start: usize,
        end: usize,
        depth: usize,
        utf8: bool,
    ) -> Walk<()> {
        let info = &self.schema.messages[index];
        let mut pos = start;
        while pos < end {
            let tag_at = pos;
            let key = self.varint(&mut pos, end, "field tag", info)?;
            let wire_type = key & 7;
            let number = key >> 3;
            if key > u64::from(u32::MAX) || number == 0 {
                return Err(fail(
                    "onnxtxt::decode::tag",
                    format!("{} has an invalid field tag {key}", info.name),
                    tag_at..pos,
                ));
            }
            let Some(field) = info.field(number) else {
                return Err(self.unknown_field(info, number, wire_type, tag_at..pos));
            };
            let tag_end = pos;
            self.value(info, field, wire_type, &mut pos, end, tag_at, depth, utf8)
                .map_err(|failure| self.locate(failure, field, start, tag_at))?;
            if let Some(split) = &self.split {
                let payload_start = || {
                    if wire_type == LEN {
                        read_varint(self.bytes, tag_end, pos).map_or(pos, |(_, at)| at)
                    } else {
                        tag_end
                    }
                };
                (split.borrow_mut()).record(index, depth, number, tag_at..pos, payload_start);
            }
        }
        Ok(())
    }

    fn unknown_field(
        &self,
        info: &MessageInfo,
        number: u64,
        wire_type: u64,
        span: Range<usize>,
    ) -> Box<Failure> {
        if wire_type > FIXED32 {
            return fail(
                "onnxtxt::decode::wire_type",
                format!(
                    "{} field {number} has an invalid wire type {wire_type}",
                    info.name
                ),
                span,
            );
        }
        let what = if info.reserved.iter().any(|r| r.contains(&number)) {
            "is reserved in the ONNX schema (a field of older ONNX versions)"
        } else {
            "is not in the ONNX schema"
        };
        fail(
            "onnxtxt::decode::unknown_field",
            format!(
                "{} field {number} (wire type {wire_type}, {}) {what}; printing would lose it",
                info.name,
                wire_type_name(wire_type)
            ),
            span,
        )
        .with_help(
            "onnxtxt knows the schema of onnx 1.23; the model may come from a newer \
             ONNX version, or be corrupt",
        )
    }

    /// Walks one occurrence of `field` (its tag ends at `*pos`).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn value(
        &self,
        info: &MessageInfo,
        field: &FieldInfo,
        wire_type: u64,
        pos: &mut usize,
        end: usize,
        tag_at: usize,
        depth: usize,
        utf8: bool,
    ) -> Walk<()> {
        match (field.kind, wire_type) {
            (Kind::Varint { wide }, VARINT) => {
                let at = *pos;
                let value = self.varint(pos, end, "value", info)?;
                if !wide {
                    check_32_bits(value, field, at..*pos)?;
                }
            }
            (Kind::Fixed32, FIXED32) => *pos = self.fixed(*pos, 4, end, info)?,
            (Kind::Fixed64, FIXED64) => *pos = self.fixed(*pos, 8, end, info)?,
            (kind, LEN) if field.repeated && kind.is_scalar() => {
                let mark_run = |mut failure: Box<Failure>| {
                    failure.run = failure.element.is_none();
                    failure
                };
                let payload_end = self.length(pos, end, info).map_err(mark_run)?;
                self.packed(kind, field, *pos, payload_end)
                    .map_err(mark_run)?;
                *pos = payload_end;
            }
            (Kind::Str, LEN) => {
                let payload_end = self.length(pos, end, info)?;
                let checked = if utf8 {
                    std::str::from_utf8(&self.bytes[*pos..payload_end]).map(|_| ())
                } else {
                    Ok(())
                };
                if let Err(e) = checked {
                    let bad = *pos + e.valid_up_to();
                    let bad_end = bad + e.error_len().unwrap_or(payload_end - bad);
                    return Err(fail(
                        "onnxtxt::decode::utf8",
                        format!(
                            "the string ({}) is not valid UTF-8: the invalid sequence starts \
                             at its byte {}",
                            bytes(payload_end - *pos),
                            e.valid_up_to()
                        ),
                        bad..bad_end,
                    )
                    .with_help(
                        "ONNX `string` fields must be UTF-8; other ONNX readers reject \
                         this model too",
                    ));
                }
                *pos = payload_end;
            }
            (Kind::Bytes, LEN) => *pos = self.length(pos, end, info)?,
            (Kind::Message(index), LEN) => {
                let payload_end = self.length(pos, end, info)?;
                if depth >= MAX_MESSAGE_DEPTH {
                    return Err(fail(
                        "onnxtxt::decode::nesting",
                        format!(
                            "messages are nested more than {MAX_MESSAGE_DEPTH} deep, \
                             beyond what protobuf decoders accept"
                        ),
                        tag_at..payload_end,
                    ));
                }
                if !self.leaves(info, field, depth)
                    && !self.viewed(info, field, depth, *pos..payload_end)
                {
                    self.message(index, *pos, payload_end, depth + 1, utf8)?;
                }
                *pos = payload_end;
            }
            (kind, _) => {
                let expected = if field.repeated && kind.is_scalar() {
                    format!(
                        "wire type {} ({}) or 2 (packed)",
                        kind.wire_type(),
                        wire_type_name(kind.wire_type())
                    )
                } else {
                    format!(
                        "wire type {} ({})",
                        kind.wire_type(),
                        wire_type_name(kind.wire_type())
                    )
                };
                let label = if field.repeated { "repeated " } else { "" };
                return Err(fail(
                    "onnxtxt::decode::wire_type",
                    format!(
                        "wire type {wire_type} ({}) does not fit this field \
                         ({label}{} {} = {}), which takes {expected}",
                        wire_type_name(wire_type),
                        field.type_name,
                        field.name,
                        field.number
                    ),
                    tag_at..*pos,
                ));
            }
        }
        Ok(())
    }

    /// Whether the walk leaves the contents of `field` of `info` at
    /// `depth`: a node or an initializer of the main graph (the only graph
    /// at depth 1), when it leaves those.
    fn leaves(&self, info: &MessageInfo, field: &FieldInfo, depth: usize) -> bool {
        self.leaves_nodes_of.is_some_and(|graph| {
            depth == 1
                && (field.number == u64::from(GRAPH_NODE)
                    || field.number == u64::from(GRAPH_INITIALIZER))
                && std::ptr::eq(info, &self.schema.messages[graph])
        })
    }

    /// Whether a view of the split read the message of `field` of `info`
    /// at `payload`, in a message at `depth`: one of the main graph's
    /// value infos (the only graph at depth 1; see [`Split::viewed`]).
    fn viewed(
        &self,
        info: &MessageInfo,
        field: &FieldInfo,
        depth: usize,
        payload: Range<usize>,
    ) -> bool {
        // Checked before the split is borrowed: the walk of a model's
        // nodes asks at every message field.
        depth == 1
            && self.split.as_ref().is_some_and(|split| {
                let mut split = split.borrow_mut();
                std::ptr::eq(info, &self.schema.messages[split.graph_index])
                    && split.viewed(field.number, self.bytes, payload)
            })
    }

    /// Checks a fixed-width value of `width` bytes at `at`; returns its end.
    #[inline]
    fn fixed(&self, at: usize, width: usize, end: usize, info: &MessageInfo) -> Walk<usize> {
        if end - at < width {
            let what = format!("{}-bit value", width * 8);
            return Err(self.overrun(what, at, end - at, end, info));
        }
        Ok(at + width)
    }

    /// Checks a packed run of `kind` values in `start..end`.
    fn packed(&self, kind: Kind, field: &FieldInfo, start: usize, end: usize) -> Walk<()> {
        let width = match kind {
            Kind::Fixed32 => 4,
            Kind::Fixed64 => 8,
            Kind::Varint { wide } => {
                let mut pos = start;
                let mut element = 0;
                while pos < end {
                    let at = pos;
                    let checked = self
                        .packed_varint(&mut pos, end)
                        .and_then(|value| match wide {
                            true => Ok(()),
                            false => check_32_bits(value, field, at..pos),
                        });
                    if let Err(mut failure) = checked {
                        failure.element = Some(element);
                        return Err(failure);
                    }
                    element += 1;
                }
                return Ok(());
            }
            _ => return Ok(()),
        };
        let len = end - start;
        if len % width != 0 {
            return Err(fail(
                "onnxtxt::decode::packed",
                format!(
                    "packed {} data of {len} bytes is not a whole number of {width}-byte values",
                    field.type_name
                ),
                start..end,
            ));
        }
        Ok(())
    }

    /// A varint inside a packed run (which has no message of its own to
    /// name in errors).
    fn packed_varint(&self, pos: &mut usize, end: usize) -> Walk<u64> {
        let start = *pos;
        match read_varint(self.bytes, start, end) {
            Ok((value, next)) => {
                *pos = next;
                Ok(value)
            }
            Err(VarintError::Overrun) => Err(fail(
                "onnxtxt::decode::length",
                format!(
                    "a varint runs past the end of the packed data ({} left)",
                    bytes(end - start)
                ),
                start..end,
            )),
            Err(VarintError::Invalid) => Err(invalid_varint("value", start, end)),
        }
    }

    /// Adds the path segment of `field` (whose occurrence has its tag at
    /// `tag_at`, in a message starting at `start`) to `failure`.
    fn locate(
        &self,
        mut failure: Box<Failure>,
        field: &FieldInfo,
        start: usize,
        tag_at: usize,
    ) -> Box<Failure> {
        let mut segment = field.name.clone();
        if field.repeated && !failure.run {
            let index = self.count_before(field, start, tag_at) + failure.element.unwrap_or(0);
            let _ = write!(segment, "[{index}]");
        }
        failure.element = None;
        failure.run = false;
        failure.path.push(segment);
        failure
    }

    /// How many elements of repeated `field` the message starting at `start`
    /// holds before `tag_at`. Only called on error, over bytes the walk has
    /// already checked.
    fn count_before(&self, field: &FieldInfo, start: usize, tag_at: usize) -> usize {
        let mut count = 0;
        let mut pos = start;
        let next = |pos: &mut usize| -> Option<u64> {
            let (value, next) = read_varint(self.bytes, *pos, self.bytes.len()).ok()?;
            *pos = next;
            Some(value)
        };
        while pos < tag_at {
            let Some(key) = next(&mut pos) else { break };
            let end = match key & 7 {
                VARINT => next(&mut pos).map(|_| pos),
                FIXED64 => Some(pos + 8),
                FIXED32 => Some(pos + 4),
                LEN => next(&mut pos).and_then(|len| pos.checked_add(usize::try_from(len).ok()?)),
                _ => None,
            };
            let Some(end) = end else { break };
            if key >> 3 == field.number {
                count += match (field.kind, key & 7) {
                    (Kind::Fixed32, LEN) => (end - pos) / 4,
                    (Kind::Fixed64, LEN) => (end - pos) / 8,
                    (Kind::Varint { .. }, LEN) => self
                        .bytes
                        .get(pos..end)
                        .map_or(0, |run| run.iter().filter(|&&b| b < 0x80).count()),
                    _ => 1,
                };
            }
            pos = end;
        }
        count
    }
}

enum VarintError {
    /// The varint does not end before the end of its message.
    Overrun,
    /// More than 10 bytes, or more than 64 bits.
    Invalid,
}

/// Reads a varint at `start` that must end by `end`, as prost does: at most
/// 10 bytes, the last of which may only hold the 64th bit. Returns the
/// value and the position after it. The common case, one byte, is read
/// where it is called (the walk reads a varint or two a field); the
/// others by [`read_long_varint`].
#[inline(always)]
fn read_varint(bytes: &[u8], start: usize, end: usize) -> Result<(u64, usize), VarintError> {
    match bytes.get(start) {
        Some(&b) if b < 0x80 && start < end => Ok((u64::from(b), start + 1)),
        _ => read_long_varint(bytes, start, end),
    }
}

/// [`read_varint`] of a varint that is not one byte (or not there).
#[inline(never)]
fn read_long_varint(bytes: &[u8], start: usize, end: usize) -> Result<(u64, usize), VarintError> {
    let end = end.min(bytes.len());
    let mut value = 0u64;
    for i in 0..10 {
        let at = start + i;
        if at >= end {
            return Err(VarintError::Overrun);
        }
        let b = bytes[at];
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            if i == 9 && b >= 0x02 {
                break;
            }
            return Ok((value, at + 1));
        }
    }
    Err(VarintError::Invalid)
}

fn invalid_varint(what: &str, start: usize, end: usize) -> Box<Failure> {
    fail(
        "onnxtxt::decode::varint",
        format!("{what}: invalid varint (longer than 10 bytes or more than 64 bits)"),
        start..(start + 10).min(end),
    )
}

/// `1 byte`, `2 bytes`.
fn bytes(n: usize) -> String {
    if n == 1 {
        "1 byte".into()
    } else {
        format!("{n} bytes")
    }
}

/// Whether the varint of a 32-bit field survives prost's `as i32`/`as u32`
/// truncation: it fits in 32 bits, or is a sign-extended negative `int32`.
fn fits_32_bits(value: u64) -> bool {
    #[allow(clippy::cast_possible_wrap)]
    let signed = value as i64;
    value <= u64::from(u32::MAX) || (i64::from(i32::MIN)..0).contains(&signed)
}

/// Checks that a varint of a 32-bit field is one [`fits_32_bits`].
#[inline]
fn check_32_bits(value: u64, field: &FieldInfo, span: Range<usize>) -> Walk<()> {
    if fits_32_bits(value) {
        return Ok(());
    }
    Err(fail(
        "onnxtxt::decode::range",
        format!(
            "value {value} does not fit in this {} field; printing would lose its high bits",
            field.type_name
        ),
        span,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{tensor_shape_proto, type_proto};

    fn mlp() -> Vec<u8> {
        crate::parse_model(include_str!("../examples/mlp.onnxtxt"))
            .expect("the example parses")
            .encode_to_vec()
    }

    fn varint(mut value: u64) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let b = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                out.push(b);
                return out;
            }
            out.push(b | 0x80);
        }
    }

    fn tag(number: u64, wire_type: u64) -> Vec<u8> {
        varint(number << 3 | wire_type)
    }

    /// A length-delimited field.
    fn field(number: u64, payload: &[u8]) -> Vec<u8> {
        let mut out = tag(number, LEN);
        out.extend(varint(payload.len() as u64));
        out.extend_from_slice(payload);
        out
    }

    fn varint_field(number: u64, value: u64) -> Vec<u8> {
        let mut out = tag(number, VARINT);
        out.extend(varint(value));
        out
    }

    fn error_of(bytes: &[u8]) -> Diagnostic {
        match decode_model(bytes) {
            Ok(model) => panic!("decoded, unexpectedly: {model:?}"),
            Err(error) => {
                let d = error.primary().clone();
                assert!(
                    d.span.start <= d.span.end && d.span.end <= bytes.len(),
                    "{d:?}"
                );
                d
            }
        }
    }

    /// What `decode_model_lazily` decodes, walking the nodes or leaving
    /// them to be checked as each is decoded, its nodes decoded and put
    /// back. Each node the view reads is the node decoded.
    fn lazily(bytes: &[u8], nodes: Nodes) -> Result<ModelProto, Error> {
        let LazyModel {
            mut model,
            nodes: encoded_nodes,
            initializers,
            values,
        } = decode_model_lazily(bytes, nodes)?;
        // Each into the one before it, as a print decodes them.
        let (mut node, mut initializer) = (NodeProto::default(), TensorProto::default());
        let mut view = NodeView::default();
        if let Some(graph) = &mut model.graph {
            if let Some(values) = values {
                values.to_proto(graph);
            }
            for encoded in &encoded_nodes {
                let read = view.read(encoded.bytes());
                encoded.decode_into(&mut node)?;
                if read {
                    assert_eq!(view.to_proto().encode_to_vec(), node.encode_to_vec());
                }
                graph.node.push(node.clone());
            }
            for encoded in &initializers {
                encoded.decode_into(&mut initializer)?;
                graph.initializer.push(initializer.clone());
            }
        }
        Ok(model)
    }

    /// `decode_model` and `prost` agree on whether `bytes` decodes, except
    /// where `decode_model` is deliberately stricter; when both decode, the
    /// models are equal. `decode_model_lazily` agrees with `decode_model`,
    /// walking the nodes or not, and so does the print from bytes (which
    /// reads the nodes it can with the view).
    fn agrees_with_prost(bytes: &[u8]) {
        let ours = decode_model(bytes);
        for nodes in [Nodes::Walked, Nodes::Left] {
            match (&ours, lazily(bytes, nodes)) {
                (Ok(model), Ok(lazy)) => {
                    assert_eq!(model.encode_to_vec(), lazy.encode_to_vec());
                }
                (Err(e), Err(lazy)) => assert_eq!(e.diagnostics(), lazy.diagnostics()),
                (_, lazy) => panic!("decode_model: {ours:?}, lazily ({nodes:?}): {lazy:?}"),
            }
        }
        for printer in [crate::Printer::new(), crate::Printer::new().compat(true)] {
            match (&ours, printer.print_binary_model(bytes)) {
                (Ok(model), Ok(printed)) => assert_eq!(printed, printer.print(model)),
                (Err(e), Err(printed)) => assert_eq!(e.diagnostics(), printed.diagnostics()),
                (_, printed) => panic!("decode_model: {ours:?}, printed: {printed:?}"),
            }
        }
        let theirs = ModelProto::decode(bytes);
        match (ours, theirs) {
            (Ok(a), Ok(b)) => assert_eq!(a.encode_to_vec(), b.encode_to_vec()),
            (Err(e), Ok(_)) => {
                let code = e.primary().code;
                assert!(
                    code == "onnxtxt::decode::unknown_field" || code == "onnxtxt::decode::range",
                    "rejected what prost accepts: {e:?}"
                );
            }
            (Ok(_), Err(e)) => panic!("accepted what prost rejects ({e})"),
            (Err(e), Err(_)) => {
                let d = e.primary();
                assert_ne!(d.code, "onnxtxt::decode::invalid", "{d:?}");
                assert!(d.span.end <= bytes.len(), "{d:?}");
            }
        }
    }

    #[test]
    fn schema_comes_from_the_descriptors() {
        let schema = schema();
        let model = &schema.messages[schema.index("ModelProto").unwrap()];
        assert_eq!(model.name, "ModelProto");
        let graph = model.field(7).unwrap();
        assert_eq!(
            (graph.name.as_str(), graph.type_name.as_str()),
            ("graph", "GraphProto")
        );
        assert!(schema
            .messages
            .iter()
            .any(|m| m.name == "TensorProto.Segment"));
        let tensor = schema
            .messages
            .iter()
            .find(|m| m.name == "TensorProto")
            .unwrap();
        let float_data = tensor.field(4).unwrap();
        assert!(float_data.repeated && float_data.kind == Kind::Fixed32);
        assert!(model.field(99).is_none());
    }

    #[test]
    fn valid_models_decode_as_prost_does() {
        let bytes = mlp();
        let model = decode_model(&bytes).unwrap();
        assert_eq!(model, ModelProto::decode(bytes.as_slice()).unwrap());
        assert_eq!(model.encode_to_vec(), bytes);
        assert_eq!(decode_model(&[]).unwrap(), ModelProto::default());
    }

    #[test]
    fn every_truncation_is_reported_within_the_input() {
        let bytes = mlp();
        for len in 0..bytes.len() {
            let cut = &bytes[..len];
            agrees_with_prost(cut);
            if let Err(e) = decode_model(cut) {
                let d = e.primary();
                assert!(d.span.start <= len, "{len}: {d:?}");
            }
        }
        // Cut inside the last field: its length runs past the end.
        let d = error_of(&bytes[..bytes.len() - 1]);
        assert_eq!(d.code, "onnxtxt::decode::truncated");
        assert_eq!(d.path.as_deref(), Some("opset_import[0]"));
        assert!(
            d.message.contains("runs past the end of the input"),
            "{d:?}"
        );
        assert!(d.help.is_some());
    }

    /// A model of nodes with every field the view reads (attributes of each
    /// plain kind, names to quote, a domain and overload) and some it does
    /// not (a tensor attribute, a doc string).
    fn nodes_model() -> Vec<u8> {
        crate::parse_model(
            r#"<ir_version: 10, opset_import: ["": 21, "com.x": 1]>
g (float[N] x) => (float[N] y) {
  ["n0"] a = Conv <dilations: ints = [1, 1], group: int = 2, pads: ints = [-1, 300, 2, 70000]> (x, "w b", "")
  b, c = com.x.Op:ov <alpha: float = 0.5, betas: floats = [1.5, -2, 1e-7], s: string = "é\"", ss: strings = ["", "x"]> (a)
  d = Constant <value: tensor = int64[2] {3, 4}> ()
  @<doc_string: "d">
  y = Relu (d)
}"#,
        )
        .unwrap()
        .encode_to_vec()
    }

    #[test]
    fn random_corruption_never_panics_and_agrees_with_prost() {
        for original in [mlp(), nodes_model()] {
            corrupt_at_random(&original);
        }
    }

    /// Corrupts a few bytes of `original`, 3000 times, and checks every
    /// decode agrees ([`agrees_with_prost`]).
    fn corrupt_at_random(original: &[u8]) {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let mut bytes = original.to_vec();
            for _ in 0..=(next() % 3) {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] = next() as u8;
            }
            agrees_with_prost(&bytes);
        }
    }

    #[test]
    fn nodes_and_initializers_left_encoded_merge_as_prost_merges() {
        let node = |op: &str| {
            let node = NodeProto {
                op_type: Some(op.into()),
                ..Default::default()
            };
            field(1, &node.encode_to_vec())
        };
        let tensor = |name: &str| {
            let tensor = TensorProto {
                name: Some(name.into()),
                raw_data: Some(vec![1, 2, 3, 4]),
                ..Default::default()
            };
            field(5, &tensor.encode_to_vec())
        };
        // The graph in two occurrences, the model's other fields between
        // and after them, nodes and initializers among the graph's other
        // fields; a name given twice (the last wins) and value infos
        // appended.
        let graph_a = [
            field(2, b"first"),
            node("A"),
            tensor("t"),
            field(11, &field(1, b"x")),
            node("B"),
        ]
        .concat();
        let graph_b = [
            tensor("u"),
            node("C"),
            field(2, b"second"),
            field(11, &field(1, b"y")),
        ]
        .concat();
        let bytes = [
            varint_field(1, 10),
            field(7, &graph_a),
            field(2, b"producer"),
            field(7, &graph_b),
            field(7, &[]),
            varint_field(1, 11),
        ]
        .concat();
        let model = decode_model(&bytes).unwrap();
        let graph = model.graph.as_ref().unwrap();
        let ops: Vec<_> = graph.node.iter().map(|n| n.op_type()).collect();
        assert_eq!(ops, ["A", "B", "C"]);
        let names: Vec<_> = graph.initializer.iter().map(|t| t.name()).collect();
        assert_eq!(names, ["t", "u"]);
        assert_eq!(graph.name(), "second");
        assert_eq!(graph.input.len(), 2);
        assert_eq!(model.ir_version, Some(11));
        assert_eq!(lazily(&bytes, Nodes::Left).unwrap(), model);
        let lazy = decode_model_lazily(&bytes, Nodes::Walked).unwrap();
        assert_eq!((lazy.nodes.len(), lazy.initializers.len()), (3, 2));
        let graph = lazy.model.graph.unwrap();
        assert!(graph.node.is_empty() && graph.initializer.is_empty());

        // No graph, and a graph without nodes.
        for bytes in [varint_field(1, 10), field(7, &field(2, b"g"))] {
            assert_eq!(
                lazily(&bytes, Nodes::Left).unwrap(),
                decode_model(&bytes).unwrap()
            );
        }
        assert_eq!(
            lazily(&mlp(), Nodes::Left).unwrap(),
            decode_model(&mlp()).unwrap()
        );
    }

    #[test]
    fn the_walk_splits_the_model_and_its_main_graph_where_their_fields_are() {
        // The input, built part by part, each part's range kept.
        let mut bytes = Vec::new();
        let mut put = |part: Vec<u8>| {
            let start = bytes.len();
            bytes.extend(part);
            start..bytes.len()
        };
        let node = NodeProto {
            op_type: Some("Relu".into()),
            ..Default::default()
        }
        .encode_to_vec();
        let tensor = TensorProto {
            name: Some("t".into()),
            ..Default::default()
        }
        .encode_to_vec();
        // The payload of a length-delimited field of one-byte tag and length.
        let payload = |whole: &Range<usize>| whole.start + 2..whole.end;
        // Messages with a field 1 or 5 that are not the main graph: an
        // opset's domain, a function's node (7, but its name is 1), a
        // training graph's nodes (depth 2): the model's fields, whole.
        let ir_version = put(varint_field(1, 10));
        let graph_a = [field(2, b"g"), field(1, &node), field(5, &tensor)];
        let graph_a_start = put([tag(7, LEN), varint(graph_a.concat().len() as u64)].concat());
        let graph_name = put(graph_a[0].clone());
        let first_node = put(graph_a[1].clone());
        let first_tensor = put(graph_a[2].clone());
        let opset = put(field(8, &[field(1, b"ai"), varint_field(2, 1)].concat()));
        let function = field(25, &[field(1, b"f"), field(7, &node)].concat());
        let function = put(function);
        let training = field(
            20,
            &field(1, &[field(1, &node), field(5, &tensor)].concat()),
        );
        let training = put(training);
        let graph_b = [field(1, &node), field(11, &field(1, b"x"))];
        put([tag(7, LEN), varint(graph_b.concat().len() as u64)].concat());
        let second_node = put(graph_b[0].clone());
        let input = put(graph_b[1].clone());
        assert_eq!(graph_a_start.len(), 2);

        for nodes in [Nodes::Walked, Nodes::Left] {
            let mut walker = Walker::new::<ModelProto>(&bytes, nodes);
            walker.split = Some(RefCell::new(Split::new(walker.schema)));
            walk_with(&walker, Utf8::Everywhere).unwrap();
            let split = walker.split.unwrap().into_inner();
            assert!(split.has_graph);
            let model_fields = [
                ir_version.clone(),
                opset.clone(),
                function.clone(),
                training.clone(),
            ];
            assert_eq!(split.model_fields, model_fields);
            assert_eq!(split.graph_fields, std::slice::from_ref(&graph_name));
            // A value info without a type: no view reads it.
            assert_eq!(split.value_fields, std::slice::from_ref(&input));
            assert!(split.values.is_none());
            assert_eq!(split.nodes, [payload(&first_node), payload(&second_node)]);
            assert_eq!(split.initializers, [payload(&first_tensor)]);
        }
        let lazy = decode_model_lazily(&bytes, Nodes::Left).unwrap();
        assert_eq!(lazy.model.functions.len(), 1);
        assert_eq!(lazy.model.training_info.len(), 1);
        assert_eq!(lazy.model.opset_import.len(), 1);
        let graph = lazy.model.graph.unwrap();
        assert_eq!((graph.name(), graph.input.len()), ("g", 1));
        assert_eq!((lazy.nodes.len(), lazy.initializers.len()), (2, 1));
    }

    #[test]
    fn fields_merged_range_by_range_are_their_concatenation_decoded() {
        // A scalar and a string given twice (the last wins), repeated
        // messages, in the model and in its graph, from the walk's split.
        let graph = [field(2, b"g"), field(11, &field(1, b"x")), field(2, b"h")].concat();
        let bytes = [
            varint_field(1, 10),
            field(2, b"first"),
            field(7, &graph),
            field(8, &[field(1, b""), varint_field(2, 21)].concat()),
            varint_field(1, 11),
            field(2, b"second"),
            field(8, &[field(1, b"ai"), varint_field(2, 1)].concat()),
            field(7, &field(12, &field(1, b"y"))),
        ]
        .concat();
        let mut walker = Walker::new::<ModelProto>(&bytes, Nodes::Left);
        walker.split = Some(RefCell::new(Split::new(walker.schema)));
        walk_with(&walker, Utf8::Everywhere).unwrap();
        let split = walker.split.unwrap().into_inner();
        let concatenated = |ranges: &[Range<usize>]| -> Vec<u8> {
            ranges
                .iter()
                .flat_map(|r| bytes[r.clone()].to_vec())
                .collect()
        };
        let model = merged::<ModelProto>(&bytes, &split.model_fields).unwrap();
        let whole = ModelProto::decode(&concatenated(&split.model_fields)[..]).unwrap();
        assert_eq!(model, whole);
        assert_eq!(
            (model.ir_version, model.producer_name()),
            (Some(11), "second")
        );
        assert_eq!(model.opset_import.len(), 2);
        let graph_fields = [&split.graph_fields[..], &split.value_fields].concat();
        let graph = merged::<GraphProto>(&bytes, &graph_fields).unwrap();
        let whole = GraphProto::decode(&concatenated(&graph_fields)[..]).unwrap();
        assert_eq!(graph, whole);
        assert_eq!(
            (graph.name(), graph.input.len(), graph.output.len()),
            ("h", 1, 1)
        );
        assert_eq!(
            merged::<GraphProto>(&bytes, &[]).unwrap(),
            GraphProto::default()
        );
    }

    #[test]
    fn nodes_and_initializers_left_unwalked_are_checked_as_each_is_decoded() {
        // An unknown field in a node, or in an initializer, of the main
        // graph: left by the walk that leaves them, found when it is
        // decoded, with the error of the whole model.
        let relu = field(1, &field(4, b"Relu"));
        let unknown = varint_field(99, 1);
        for graph in [
            [relu.clone(), field(1, &unknown)].concat(),
            [relu.clone(), field(5, &unknown)].concat(),
        ] {
            let bytes = field(7, &graph);
            let expected = decode_model(&bytes).unwrap_err();
            assert_eq!(expected.primary().code, "onnxtxt::decode::unknown_field");
            let Err(walked) = decode_model_lazily(&bytes, Nodes::Walked) else {
                panic!("the walk of every node and initializer accepted it");
            };
            assert_eq!(walked.diagnostics(), expected.diagnostics());
            assert!(decode_model_lazily(&bytes, Nodes::Left).is_ok());
            let printed = crate::Printer::new().print_binary_model(&bytes);
            assert_eq!(printed.unwrap_err().diagnostics(), expected.diagnostics());
        }
    }

    #[test]
    fn a_node_decoded_into_the_one_before_is_the_node_decoded_alone() {
        // Nodes that set more, fewer or other fields than each other: lists
        // of every length, attributes holding a tensor and a graph, a
        // domain and overload, a doc string and metadata.
        let mut documented = crate::parse_node("y = Relu (x)").unwrap();
        documented.doc_string = Some("doc".into());
        documented.metadata_props = vec![crate::proto::StringStringEntryProto {
            key: Some("k".into()),
            value: Some("v".into()),
        }];
        let mut nodes = vec![documented];
        for text in [
            "[label] y, z = com.x.Op:ov <a: int = 1, b: ints = [1, 2], \
             t: tensor = float[2] {1, 2}, g: graph = g () => () { q = Relu (p) }> \
             (x1, x2, x3, x4, x5, x6)",
            "y = Relu (x)",
            "= Foo ()",
            "[\"\"] \"a b\" = \"\".Add <alpha: float = 0.5> (x, \"\")",
        ] {
            nodes.push(crate::parse_node(text).unwrap());
        }
        let encoded: Vec<Vec<u8>> = nodes.iter().map(prost::Message::encode_to_vec).collect();
        let mut scratch = NodeProto::default();
        for before in &encoded {
            for after in &encoded {
                for bytes in [before, after] {
                    let node = Encoded {
                        input: bytes,
                        range: 0..bytes.len(),
                        walked: true,
                    };
                    node.decode_into(&mut scratch).unwrap();
                    assert_eq!(scratch, NodeProto::decode(bytes.as_slice()).unwrap());
                    assert_eq!(&scratch.encode_to_vec(), bytes);
                }
            }
        }
    }

    #[test]
    fn a_node_view_reads_what_prost_decodes_and_leaves_the_rest() {
        let attribute = |fields: &[Vec<u8>]| field(5, &fields.concat());
        let fixed32 =
            |number: u64, value: f32| [tag(number, FIXED32), value.to_le_bytes().to_vec()].concat();
        let floats = [1.5f32, -0.0, f32::from_bits(0x7fc0_0001)];
        let packed_floats: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
        let mut wide = varint(u64::MAX);
        wide.truncate(9);
        wide.push(0x02);
        let read = [
            // Singular fields given twice (the last wins), a tag written
            // in two bytes, every string field.
            [
                field(3, b"a"),
                field(3, b"b"),
                field(4, b"Relu"),
                vec![0x8a, 0x00, 1, b'x'],
                field(2, "é".as_bytes()),
                field(7, b""),
                field(8, b"ov"),
                field(7, b"com.x"),
            ]
            .concat(),
            Vec::new(),
            // Unpacked and packed ints and floats, interleaved, and values
            // of every width.
            attribute(&[
                field(1, b"k"),
                varint_field(20, 7),
                varint_field(8, 1),
                field(8, &[2, 0x7f, 0xff, 0x01]),
                varint_field(8, u64::MAX),
                fixed32(7, 0.25),
                field(7, &packed_floats),
                varint_field(8, 1 << 40),
            ]),
            // Each value field, several at once, names given twice, an
            // attribute without a name or a type, types the view does not
            // print itself.
            [
                attribute(&[field(1, b"f"), fixed32(2, 0.5), varint_field(20, 1)]),
                attribute(&[
                    field(1, b"i"),
                    varint_field(3, u64::MAX),
                    varint_field(3, 3),
                ]),
                attribute(&[field(4, &[0xff, 0]), field(1, b"s"), varint_field(20, 3)]),
                attribute(&[field(9, b""), field(9, &[0xfe]), varint_field(20, 8)]),
                attribute(&[fixed32(2, 1.0), varint_field(3, 2), varint_field(20, 4)]),
                attribute(&[varint_field(20, 0), varint_field(20, 14)]),
                attribute(&[]),
                field(4, b"Op"),
            ]
            .concat(),
            // Tensors (`Constant` nodes), read by the tensor view.
            [
                attribute(&[field(5, &varint_field(2, 1))]),
                attribute(&[
                    field(1, b"value"),
                    varint_field(20, 4),
                    field(5, &weights()),
                ]),
            ]
            .concat(),
        ];
        let left = [
            // Fields the view does not hold.
            field(6, b"doc"),
            field(9, &[field(1, b"k"), field(2, b"v")].concat()),
            attribute(&[field(13, b"doc")]),
            attribute(&[field(21, b"ref")]),
            attribute(&[field(5, &varint_field(12, 1))]),
            // Two tensors, which `prost` merges.
            attribute(&[field(5, &varint_field(2, 1)), field(5, &varint_field(2, 1))]),
            // A type wider than the view reads, or than 32 bits.
            attribute(&[varint_field(20, 15)]),
            attribute(&[varint_field(20, 1 << 33)]),
            // What the walk refuses: a name that is not UTF-8, a length past
            // the end, packed floats that are not whole, a varint of more
            // than 64 bits, an unknown field, a wrong wire type.
            field(3, &[0xc3]),
            field(3, b"abc")[..4].to_vec(),
            attribute(&[field(7, &[0; 6])]),
            attribute(&[field(8, &[0xff, 0xff])]),
            [tag(8, VARINT), wide].concat(),
            varint_field(42, 1),
            varint_field(4, 1),
        ];
        let mut view = NodeView::default();
        for bytes in &read {
            assert!(view.read(bytes), "{bytes:?}");
            let decoded = decode::<NodeProto>(bytes).unwrap();
            assert_eq!(view.to_proto().encode_to_vec(), decoded.encode_to_vec());
        }
        for bytes in &left {
            assert!(!NodeView::default().read(bytes), "{bytes:?}");
            let node = [field(4, b"Relu"), bytes.clone()].concat();
            assert!(!NodeView::default().read(&node), "{bytes:?}");
        }
    }

    #[test]
    fn a_node_views_strings_are_checked_before_and_after_its_first_byte_that_is_not_utf8() {
        // The view checks a node's bytes as UTF-8 at once up to the first
        // that is not (here the float's 0x80) and each string after it on
        // its own: names of characters of every width on both sides, and
        // names that are not UTF-8 (cut characters, a stray continuation
        // byte, an overlong form) on both sides.
        let float = field(
            5,
            &[field(1, b"f"), tag(2, FIXED32), vec![0, 0, 0x80, 0x3f]].concat(),
        );
        let good: [&[u8]; 5] = [
            b"",
            b"x",
            "é".as_bytes(),
            "日本".as_bytes(),
            "a🙂".as_bytes(),
        ];
        let bad: [&[u8]; 4] = [&[0xc3], &[0xe6, 0x97], &[b'a', 0x80], &[0xc0, 0xaf]];
        for name in good.iter().chain(&bad) {
            let before = [field(1, name), float.clone(), field(7, b"d")].concat();
            let after = [
                field(1, b"x"),
                float.clone(),
                field(3, name),
                field(7, name),
            ]
            .concat();
            for bytes in [before, after] {
                let mut view = NodeView::default();
                match decode::<NodeProto>(&bytes) {
                    Ok(decoded) => {
                        assert!(view.read(&bytes), "{bytes:?}");
                        assert_eq!(view.to_proto(), decoded, "{bytes:?}");
                    }
                    Err(_) => assert!(!view.read(&bytes), "{bytes:?}"),
                }
            }
        }
    }

    /// A tensor of weights as exporters write them, with the variations
    /// the tensor view reads: dims packed and unpacked (negative too),
    /// singular fields given twice, an empty run of floats before one.
    fn weights() -> Vec<u8> {
        let floats = [1.5f32, -0.0, f32::INFINITY, f32::from_bits(0x7fc0_0001)];
        let packed_floats: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
        [
            varint_field(1, 2),
            field(1, &[3, 0x7f]),
            varint_field(1, u64::MAX),
            varint_field(2, 7),
            varint_field(2, 1),
            field(8, b"w"),
            field(8, "wé".as_bytes()),
            field(9, &[1, 2, 3]),
            field(9, &[0, 0, 0x80, 0x3f]),
            field(4, b""),
            field(4, &packed_floats),
        ]
        .concat()
    }

    #[test]
    fn a_tensor_view_reads_what_prost_decodes_and_leaves_the_rest() {
        let read = [
            weights(),
            Vec::new(),
            varint_field(2, i32::MAX as u64),
            field(9, b""),
            // `int64_data` and `int32_data` packed and unpacked, appended
            // (negative `int32`s sign-extended, 32-bit patterns), runs of
            // doubles.
            [
                varint_field(2, 7),
                varint_field(7, 5),
                field(7, &[1, 0xff, 0x01]),
                varint_field(7, u64::MAX),
                field(7, b""),
                varint_field(5, u64::MAX),
                field(5, &[[1].as_slice(), &varint(u64::from(u32::MAX))].concat()),
                varint_field(5, 1 << 31),
                field(10, b""),
                field(
                    10,
                    &[1.5f64.to_le_bytes(), (-0.0f64).to_le_bytes()].concat(),
                ),
            ]
            .concat(),
        ];
        let left = [
            // Fields the view does not hold.
            field(3, &varint_field(1, 0)),
            field(6, b"s"),
            field(11, &[1]),
            field(12, b"doc"),
            field(13, &[field(1, b"k"), field(2, b"v")].concat()),
            varint_field(14, 1),
            field(16, &[field(1, b"k"), field(2, b"v")].concat()),
            // Unpacked floats or doubles, or a second run, appended by
            // `prost`.
            [tag(4, FIXED32), 1.0f32.to_le_bytes().to_vec()].concat(),
            [field(4, &[0; 4]), field(4, &[0; 4])].concat(),
            [tag(10, FIXED64), 1.0f64.to_le_bytes().to_vec()].concat(),
            [field(10, &[0; 8]), field(10, &[0; 8])].concat(),
            // An `int32` wider than 32 bits, unpacked or packed.
            varint_field(5, 1 << 32),
            field(5, &varint(1 << 40)),
            // A data type beyond `i32::MAX`, a negative one, one wider
            // than 32 bits.
            varint_field(2, u64::from(u32::MAX)),
            varint_field(2, u64::MAX),
            varint_field(2, 1 << 33),
            // What the walk refuses: a name that is not UTF-8, floats that
            // are not whole, a length past the end, a wrong wire type, an
            // unknown field, a cut varint.
            field(8, &[0xc3]),
            field(4, &[0; 6]),
            field(10, &[0; 12]),
            field(9, b"abc")[..4].to_vec(),
            varint_field(9, 1),
            varint_field(42, 1),
            vec![0x08, 0x80],
            field(7, &[1, 0x80]),
        ];
        let mut view = TensorView::default();
        for bytes in &read {
            assert!(view.read(bytes), "{bytes:?}");
            let decoded = decode::<TensorProto>(bytes).unwrap();
            let decoded = decoded.encode_to_vec();
            assert_eq!(view.to_proto().encode_to_vec(), decoded, "{bytes:?}");
        }
        for bytes in &left {
            assert!(!TensorView::default().read(bytes), "{bytes:?}");
            let tensor = [varint_field(2, 1), bytes.clone()].concat();
            assert!(!TensorView::default().read(&tensor), "{bytes:?}");
        }
    }

    /// A model of nested graphs as exporters write them: `If` branches
    /// and a `Loop` body holding `Constant`s, initializers, value infos,
    /// a doc string, and an `If` two levels deeper.
    fn subgraphs_model() -> Vec<u8> {
        crate::parse_model(
            r#"<ir_version: 10, opset_import: ["": 21]>
g (bool c, float[2] x) => (float[2] y) {
  y = If (c) <then_branch: graph = then (float[2] unused) => (float[2] a) <float[2] w = {1, 2}, float[2] seen> {
    a = Add (x, w)
  }, else_branch: graph = else () => (float[2] b) {
    n = Constant <value: tensor = int64 {3}> ()
    b = Loop (n, c, x) <body: graph = body (int64 i, bool ci, float[2] acc) => (bool co, float[2] out) {
      co = Identity (ci)
      k = Constant <value: tensor = float[2] {0.5, -1}> ()
      out = If (ci) <then_branch: graph = inner () => (float[2] p) { p = Mul (acc, k) }, else_branch: graph = other () => (float[2] q) { q = Identity (acc) }>
    }>
  }>
}"#,
        )
        .unwrap()
        .encode_to_vec()
    }

    /// `inner` nested in `levels` graphs, each the `then_branch` of an
    /// `If` of the graph around it: a node `2 + 3 * levels` deep in the
    /// model (its attributes one deeper, their tensors and graphs two).
    fn nested_ifs(levels: usize, inner: NodeProto) -> Vec<u8> {
        let mut node = inner;
        for _ in 0..levels {
            node = NodeProto {
                op_type: Some("If".into()),
                attribute: vec![AttributeProto {
                    name: Some("then_branch".into()),
                    r#type: Some(5),
                    g: Some(Box::new(GraphProto {
                        node: vec![node],
                        ..Default::default()
                    })),
                    ..Default::default()
                }],
                ..Default::default()
            };
        }
        let graph = GraphProto {
            node: vec![node],
            ..Default::default()
        };
        ModelProto {
            graph: Some(graph),
            ..Default::default()
        }
        .encode_to_vec()
    }

    /// A model whose graph has the value info `value_info` as an input,
    /// between a node and a plain output.
    fn with_input(value_info: &[u8]) -> Vec<u8> {
        let node = NodeProto {
            op_type: Some("Relu".into()),
            ..Default::default()
        }
        .encode_to_vec();
        let output = [field(1, b"y"), field(2, &field(1, &varint_field(1, 1)))].concat();
        let graph = [field(1, &node), field(11, value_info), field(12, &output)].concat();
        [varint_field(1, 10), field(7, &graph)].concat()
    }

    #[test]
    fn a_value_info_view_reads_what_prost_decodes_and_leaves_the_rest() {
        let name = |name: &[u8]| field(1, name);
        let tensor = |fields: &[Vec<u8>]| field(2, &field(1, &fields.concat()));
        let elem = |t: u64| varint_field(1, t);
        let shape = |dims: &[Vec<u8>]| {
            let dims: Vec<Vec<u8>> = dims.iter().map(|d| field(1, d)).collect();
            field(2, &dims.concat())
        };
        let (value, param) = (|v: u64| varint_field(1, v), |p: &[u8]| field(2, p));
        // Each value info, and whether a view reads it.
        let cases: Vec<(Vec<u8>, bool)> = vec![
            ([name(b"x"), tensor(&[elem(1)])].concat(), true),
            ([name(b"x"), tensor(&[elem(7), shape(&[])])].concat(), true),
            (
                [
                    name(b"x"),
                    tensor(&[
                        elem(1),
                        shape(&[
                            value(3),
                            value(u64::MAX),
                            param(b"N"),
                            param(b"a b"),
                            param("\u{e9}".as_bytes()),
                            Vec::new(),
                            // The last of a dimension's value and
                            // parameter wins.
                            [value(3), param(b"M")].concat(),
                            [param(b"M"), value(4)].concat(),
                        ]),
                    ]),
                ]
                .concat(),
                true,
            ),
            // A name and an element type given twice: the last wins.
            (
                [name(b"a"), tensor(&[elem(2), elem(1)]), name(b"x")].concat(),
                true,
            ),
            // The type first, the name after.
            (
                [tensor(&[shape(&[value(1)]), elem(1)]), name(b"x")].concat(),
                true,
            ),
            // What the view leaves: no name, no type, an element type the
            // syntax does not name (none, 0, 999, negative), a message
            // field given twice (prost merges them), a doc string, a
            // denotation, another kind of type, a dimension's denotation.
            (tensor(&[elem(1)]), false),
            (name(b"x"), false),
            ([name(b"x"), tensor(&[shape(&[])])].concat(), false),
            ([name(b"x"), tensor(&[elem(0)])].concat(), false),
            ([name(b"x"), tensor(&[elem(999)])].concat(), false),
            ([name(b"x"), tensor(&[elem(u64::MAX)])].concat(), false),
            (
                [name(b"x"), tensor(&[elem(1)]), tensor(&[elem(1)])].concat(),
                false,
            ),
            (
                [
                    name(b"x"),
                    field(2, &[field(1, &elem(1)), field(1, &elem(1))].concat()),
                ]
                .concat(),
                false,
            ),
            (
                [name(b"x"), tensor(&[elem(1), shape(&[]), shape(&[])])].concat(),
                false,
            ),
            (
                [name(b"x"), tensor(&[elem(1)]), field(3, b"doc")].concat(),
                false,
            ),
            (
                [
                    name(b"x"),
                    field(2, &[field(1, &elem(1)), field(6, b"IMAGE")].concat()),
                ]
                .concat(),
                false,
            ),
            (
                [
                    name(b"x"),
                    field(2, &field(4, &field(1, &field(1, &elem(1))))),
                ]
                .concat(),
                false,
            ),
            (
                [
                    name(b"x"),
                    tensor(&[elem(1), shape(&[[value(1), field(3, b"N")].concat()])]),
                ]
                .concat(),
                false,
            ),
            // What the walk refuses: a name and a dimension that are not
            // UTF-8, an unknown field, a wrong wire type, an element type
            // beyond 32 bits, a bad varint.
            ([name(b"\xff"), tensor(&[elem(1)])].concat(), false),
            (
                [name(b"x"), tensor(&[elem(1), shape(&[param(b"\xc3")])])].concat(),
                false,
            ),
            (
                [name(b"x"), tensor(&[elem(1)]), varint_field(9, 1)].concat(),
                false,
            ),
            ([name(b"x"), tensor(&[varint_field(2, 1)])].concat(), false),
            ([name(b"x"), tensor(&[elem(1 << 40)])].concat(), false),
            (
                [
                    name(b"x"),
                    tensor(&[elem(1), [tag(1, VARINT), vec![0x80; 11]].concat()]),
                ]
                .concat(),
                false,
            ),
            (
                [
                    name(b"x"),
                    tensor(&[[tag(1, FIXED32), vec![1, 0, 0, 0]].concat()]),
                ]
                .concat(),
                false,
            ),
        ];
        for (value_info, viewed) in &cases {
            let bytes = with_input(value_info);
            let views = decode_model_lazily(&bytes, Nodes::Left).map(|lazy| lazy.values.is_some());
            assert_eq!(views.unwrap_or(false), *viewed, "{value_info:?}");
            agrees_with_prost(&bytes);
            for len in 0..bytes.len() {
                agrees_with_prost(&bytes[..len]);
            }
        }
        // The plain output is read by a view too, and the graph decoded
        // holds no value info.
        let bytes = with_input(&cases[0].0);
        let lazy = decode_model_lazily(&bytes, Nodes::Walked).unwrap();
        let values = lazy.values.unwrap();
        fn names<'a>(list: &[ValueInfoView<'a>]) -> Vec<&'a str> {
            list.iter().map(|v| v.name).collect()
        }
        assert_eq!(
            (names(&values.input), names(&values.output)),
            (vec!["x"], vec!["y"])
        );
        assert!(lazy.model.graph.unwrap().input.is_empty());
    }

    #[test]
    fn a_graph_view_reads_what_prost_decodes_and_leaves_the_rest() {
        let attribute = |fields: &[Vec<u8>]| field(5, &fields.concat());
        let graph_attribute =
            |graph: &[u8]| attribute(&[field(1, b"g"), varint_field(20, 5), field(6, graph)]);
        let relu = field(
            1,
            &[field(1, b"x"), field(2, b"y"), field(4, b"Relu")].concat(),
        );
        let initializer = field(5, &weights());
        let value_info = field(11, &field(1, b"v"));
        let read = [
            // Nodes, initializers and the other fields interleaved, given
            // twice (a name: the last wins; inputs: appended), a sparse
            // initializer and a doc string (decoded with the rest).
            graph_attribute(
                &[
                    field(2, b"first"),
                    relu.clone(),
                    initializer.clone(),
                    value_info.clone(),
                    field(11, &field(1, b"w")),
                    relu.clone(),
                    field(2, "sécond".as_bytes()),
                    field(10, b"doc"),
                    field(15, &field(3, &varint_field(1, 4))),
                    initializer.clone(),
                ]
                .concat(),
            ),
            // An empty graph, a `graphs` list (empty graphs among them),
            // graphs in graphs.
            [
                graph_attribute(b""),
                attribute(&[field(1, b"gs"), varint_field(20, 10)]),
                attribute(&[
                    field(1, b"gs"),
                    varint_field(20, 10),
                    field(11, b""),
                    field(11, &relu),
                    field(11, b""),
                ]),
                graph_attribute(&field(
                    1,
                    &graph_attribute(&field(1, &graph_attribute(&relu))),
                )),
            ]
            .concat(),
            // A graph not of its type, or with no type: the attribute is
            // printed from its IR.
            [
                attribute(&[field(1, b"i"), varint_field(20, 2), field(6, &relu)]),
                attribute(&[field(6, &relu)]),
            ]
            .concat(),
            subgraphs_node(),
        ];
        // Each in a graph attribute, and in a node of one.
        let in_graph = |graph_field: Vec<u8>| {
            let graph = [relu.clone(), graph_field].concat();
            [
                graph_attribute(&graph),
                graph_attribute(&field(1, &graph_attribute(&graph))),
            ]
        };
        let left = [
            // What the node view leaves, in a graph's node.
            field(1, &field(6, b"doc")),
            field(1, &attribute(&[field(13, b"doc")])),
            // A node or initializer of a graph that is not UTF-8, or cut,
            // an initializer the tensor view does not read.
            field(1, &field(3, &[0xc3])),
            field(1, &field(3, b"abc")[..4]),
            field(5, &field(8, &[0xff])),
            field(5, &field(12, b"doc")),
            // The other fields: a name that is not UTF-8, in a value info,
            // an unknown field, a reserved one, a wrong wire type, a cut
            // varint, a wire type no field has.
            field(2, &[0xc3]),
            field(11, &field(1, &[0xff])),
            varint_field(99, 1),
            varint_field(3, 1),
            varint_field(2, 1),
            field(11, &[0x08, 0x80]),
            vec![0x17],
        ]
        .into_iter()
        .flat_map(in_graph)
        .chain([
            // Two graphs in a `g`, which `prost` merges; a `g` among
            // `graphs`, or after them.
            attribute(&[field(6, &relu), field(6, &relu)]),
            attribute(&[field(11, &relu), field(6, &relu), field(11, &relu)]),
            attribute(&[field(11, &relu), field(6, &relu)]),
            attribute(&[field(6, &relu), field(11, &relu)]),
            // A graph or a list of them cut, or a `g` as a varint.
            attribute(&[field(6, &relu)[..4].to_vec()]),
            attribute(&[field(11, &relu)[..4].to_vec()]),
            attribute(&[varint_field(6, 1)]),
        ])
        .collect::<Vec<_>>();
        let mut view = NodeView::default();
        for bytes in &read {
            assert!(view.read(bytes), "{bytes:?}");
            let decoded = decode::<NodeProto>(bytes).unwrap();
            assert_eq!(view.to_proto().encode_to_vec(), decoded.encode_to_vec());
        }
        for bytes in &left {
            assert!(!NodeView::default().read(bytes), "{bytes:?}");
            let node = [field(4, b"If"), bytes.clone()].concat();
            assert!(!NodeView::default().read(&node), "{bytes:?}");
            // The print from bytes fails as the decoder does, or prints
            // what it decodes.
            agrees_with_prost(&field(7, &field(1, &node)));
        }
        // Reused after any node, read or left, whose graphs' views (their
        // nodes', tensors' and graphs' at every depth) it keeps, the view
        // reads what a fresh one reads.
        for before in read.iter().chain(&left) {
            for bytes in &read {
                view.read(before);
                assert!(view.read(bytes), "{bytes:?}");
                let decoded = decode::<NodeProto>(bytes).unwrap();
                assert_eq!(view.to_proto().encode_to_vec(), decoded.encode_to_vec());
            }
        }
    }

    /// The main graph's node of [`subgraphs_model`].
    fn subgraphs_node() -> Vec<u8> {
        let model = decode_model(&subgraphs_model()).unwrap();
        model.graph.unwrap().node[0].encode_to_vec()
    }

    #[test]
    fn graphs_nested_up_to_the_limit_are_read_and_beyond_it_left() {
        let constant = crate::parse_node("k = Constant <value: tensor = float {1}> ()").unwrap();
        let named = |input: Vec<ValueInfoProto>| NodeProto {
            attribute: vec![AttributeProto {
                name: Some("body".into()),
                r#type: Some(5),
                g: Some(Box::new(GraphProto {
                    name: Some("b".into()),
                    input,
                    ..Default::default()
                })),
                ..Default::default()
            }],
            ..Default::default()
        };
        let typed = ValueInfoProto {
            name: Some("x".into()),
            ..Default::default()
        };
        // The deepest node 98 deep: its tensor, its graph at the limit
        // (100), the graph's value info beyond it; a node beyond it.
        let levels = (MAX_MESSAGE_DEPTH - 2 - 2) / 3;
        let cases = [
            (levels, constant.clone(), true),
            (levels, named(Vec::new()), true),
            (levels, named(vec![typed]), false),
            (levels + 1, constant, false),
        ];
        for (levels, inner, within) in cases {
            let bytes = nested_ifs(levels, inner);
            let lazy = decode_model_lazily(&bytes, Nodes::Left).unwrap();
            assert_eq!(NodeView::default().read(lazy.nodes[0].bytes()), within);
            match decode_model(&bytes) {
                Ok(_) => assert!(within),
                Err(error) => {
                    assert!(!within);
                    assert_eq!(error.primary().code, "onnxtxt::decode::nesting");
                }
            }
            agrees_with_prost(&bytes);
        }
    }

    #[test]
    fn subgraphs_cut_or_corrupted_agree_with_prost() {
        let bytes = subgraphs_model();
        for end in 0..bytes.len() {
            agrees_with_prost(&bytes[..end]);
        }
        corrupt_at_random(&bytes);
    }

    #[test]
    fn the_fields_left_encoded_are_the_schemas() {
        let schema = schema();
        let model = &schema.messages[schema.index("ModelProto").unwrap()];
        assert_eq!(model.field(MODEL_GRAPH.into()).unwrap().name, "graph");
        let graph = &schema.messages[schema.index("GraphProto").unwrap()];
        assert_eq!(graph.field(GRAPH_NODE.into()).unwrap().name, "node");
        let initializer = graph.field(GRAPH_INITIALIZER.into()).unwrap();
        assert_eq!(initializer.name, "initializer");
    }

    #[test]
    fn unknown_fields_are_refused() {
        let mut bytes = mlp();
        let at = bytes.len();
        bytes.extend(varint_field(99, 1));
        let d = error_of(&bytes);
        assert_eq!(d.code, "onnxtxt::decode::unknown_field");
        assert_eq!(d.path, None);
        assert_eq!(d.span, at..at + 2);
        assert_eq!(
            d.message,
            "ModelProto field 99 (wire type 0, varint) is not in the ONNX schema; \
             printing would lose it"
        );

        // Deep inside: the third node of the graph.
        let node = NodeProto {
            op_type: Some("Relu".into()),
            ..Default::default()
        }
        .encode_to_vec();
        let mut third = node.clone();
        let at_in_node = third.len();
        third.extend(field(42, b"xyz"));
        let graph = [field(1, &node), field(1, &node), field(1, &third)].concat();
        let bytes = field(7, &graph);
        let d = error_of(&bytes);
        assert_eq!(d.code, "onnxtxt::decode::unknown_field");
        assert_eq!(d.path.as_deref(), Some("graph.node[2]"));
        let node_start = bytes.len() - third.len();
        assert_eq!(d.span.start, node_start + at_in_node);
        assert!(d
            .message
            .starts_with("NodeProto field 42 (wire type 2, length-delimited)"));

        // A reserved field (GraphProto 3) says so.
        let d = error_of(&field(7, &field(3, b"")));
        assert!(d.message.contains("reserved"), "{d:?}");
        assert_eq!(d.path.as_deref(), Some("graph"));
    }

    #[test]
    fn a_varint_reads_the_same_in_one_byte_or_more() {
        // Every length, in place and at an offset, cut at every byte, in a
        // message that ends early, as prost reads it.
        let values = [
            0,
            1,
            0x7f,
            0x80,
            300,
            1 << 21,
            u64::from(u32::MAX),
            u64::MAX,
        ];
        for value in values {
            let encoded = [vec![0xff], varint(value)].concat();
            let whole = Ok((value, encoded.len()));
            let read =
                |end| read_varint(&encoded, 1, end).map_err(|e| matches!(e, VarintError::Overrun));
            assert_eq!(read(encoded.len()), whole);
            let prost = prost::encoding::decode_varint(&mut &encoded[1..]).unwrap();
            assert_eq!(prost, value);
            for end in 1..encoded.len() {
                assert_eq!(read(end), Err(true), "{value} ending at {end}");
                let cut = &encoded[..end];
                let in_cut = read_varint(cut, 1, encoded.len());
                assert!(
                    matches!(in_cut, Err(VarintError::Overrun)),
                    "{value} cut at {end}"
                );
            }
        }
        let eleven = [0x80; 11];
        assert!(matches!(
            read_varint(&eleven, 0, 11),
            Err(VarintError::Invalid)
        ));
        let too_wide = [[0xff; 9].as_slice(), &[0x02]].concat();
        assert!(matches!(
            read_varint(&too_wide, 0, 10),
            Err(VarintError::Invalid)
        ));
        assert!(matches!(read_varint(&[], 0, 0), Err(VarintError::Overrun)));
    }

    #[test]
    fn bad_varints_are_refused() {
        let mut eleven = vec![0x08];
        eleven.extend([0xff; 10]);
        eleven.push(0x01);
        let d = error_of(&eleven);
        assert_eq!(d.code, "onnxtxt::decode::varint");
        assert_eq!((d.span.start, d.path.as_deref()), (1, Some("ir_version")));

        // Ten bytes, but more than 64 bits.
        let mut overflow = vec![0x08];
        overflow.extend([0xff; 9]);
        overflow.push(0x02);
        assert_eq!(error_of(&overflow).code, "onnxtxt::decode::varint");
        // Ten bytes holding exactly 64 bits are fine.
        let mut max = vec![0x08];
        max.extend([0xff; 9]);
        max.push(0x01);
        assert_eq!(decode_model(&max).unwrap().ir_version, Some(-1));

        // A tag cut short at the end.
        let d = error_of(&[0x08, 0x01, 0x80]);
        assert_eq!(d.code, "onnxtxt::decode::truncated");
        assert_eq!(d.span.start, 2);
        assert!(d.message.starts_with("field tag"), "{d:?}");

        // Field number 0, and an invalid wire type.
        assert_eq!(error_of(&[0x00, 0x00]).code, "onnxtxt::decode::tag");
        assert_eq!(error_of(&[0x0f, 0x00]).code, "onnxtxt::decode::wire_type");
    }

    /// The model of `text` encoded, its strings `ZqZ` made `Z\xffZ`, not
    /// UTF-8 (the same length: every length stays right).
    fn with_invalid_utf8(text: &str) -> Vec<u8> {
        let mut bytes = crate::parse_model(text).unwrap().encode_to_vec();
        for at in 0..bytes.len().saturating_sub(2) {
            if &bytes[at..at + 3] == b"ZqZ" {
                bytes[at + 1] = 0xff;
            }
        }
        bytes
    }

    #[test]
    fn invalid_utf8_is_located_at_its_first_place_by_every_decoder() {
        let cases = [
            (
                "producer_name: \"ZqZ\"",
                "G",
                "X",
                "W",
                "W",
                "y",
                "producer_name",
            ),
            ("doc_string: \"d\"", "ZqZ", "X", "W", "W", "y", "graph.name"),
            (
                "doc_string: \"d\"",
                "G",
                "ZqZ",
                "W",
                "W",
                "y",
                "graph.node[0].input[0]",
            ),
            (
                "doc_string: \"d\"",
                "G",
                "X",
                "ZqZ",
                "W",
                "y",
                "graph.node[0].input[1]",
            ),
            (
                "doc_string: \"d\"",
                "G",
                "X",
                "W",
                "ZqZ",
                "y",
                "graph.initializer[0].name",
            ),
            (
                "doc_string: \"d\"",
                "G",
                "X",
                "W",
                "W",
                "ZqZ",
                "functions[0].output[0]",
            ),
            // Two: the first in the bytes is the one reported.
            (
                "producer_name: \"ZqZ\"",
                "G",
                "X",
                "W",
                "W",
                "ZqZ",
                "producer_name",
            ),
        ];
        for (header, graph, input, used, initializer, output, path) in cases {
            let text = format!(
                "<ir_version: 10, opset_import: [\"\": 21], {header}>\n\
                 {graph} (float[1] {input}) => (float[1] Y) <float[1] {initializer} = {{1}}> {{\n\
                 Y = Add({input}, {used})\n}}\n\
                 <domain: \"f\", opset_import: [\"\": 21]> F (x) => ({output}) {{ {output} = Relu(x) }}\n"
            );
            let bytes = with_invalid_utf8(&text);
            let bad = bytes.iter().position(|&b| b == 0xff).unwrap();
            let expected = decode_model(&bytes).unwrap_err().diagnostics().to_vec();
            let d = &expected[0];
            assert_eq!(
                (d.code, d.path.as_deref(), d.span.clone()),
                ("onnxtxt::decode::utf8", Some(path), bad..bad + 1),
                "{text}"
            );
            let lazy = lazily(&bytes, Nodes::Left).unwrap_err();
            let printed = crate::Printer::new()
                .print_binary_model(&bytes)
                .unwrap_err();
            let whole = decode::<ModelProto>(&bytes).unwrap_err();
            for error in [lazy, printed, whole] {
                assert_eq!(error.diagnostics(), &expected[..], "{text}");
            }
            // Before a problem the walk finds without looking at strings,
            // and after one.
            let unknown = varint_field(99, 1);
            let later = [bytes.clone(), unknown.clone()].concat();
            for error in [decode_model(&later), lazily(&later, Nodes::Left)] {
                assert_eq!(error.unwrap_err().diagnostics(), &expected[..], "{text}");
            }
            let earlier = [unknown, bytes].concat();
            for error in [decode_model(&earlier), lazily(&earlier, Nodes::Left)] {
                let error = error.unwrap_err();
                assert_eq!(error.primary().code, "onnxtxt::decode::unknown_field");
            }
        }
    }

    #[test]
    fn invalid_utf8_is_refused() {
        let d = error_of(&field(2, &[b'a', 0xff, b'b']));
        assert_eq!(d.code, "onnxtxt::decode::utf8");
        assert_eq!(
            d.message,
            "the string (3 bytes) is not valid UTF-8: the invalid sequence starts at its byte 1"
        );
        assert_eq!(d.path.as_deref(), Some("producer_name"));
        assert_eq!(d.span, 3..4);

        let node = field(3, &[0xc3]);
        let graph = [field(1, b""), field(1, &node)].concat();
        let d = error_of(&field(7, &graph));
        assert_eq!(d.path.as_deref(), Some("graph.node[1].name"));
        assert!(d.message.contains("not valid UTF-8"));

        // `bytes` fields hold anything.
        let attribute = field(4, &[0xff, 0xfe]);
        let node = field(5, &attribute);
        let model = decode_model(&field(7, &field(1, &node))).unwrap();
        assert_eq!(
            model.graph.unwrap().node[0].attribute[0].s.as_deref(),
            Some(&[0xff, 0xfe][..])
        );
    }

    #[test]
    fn wrong_wire_types_are_refused() {
        let d = error_of(&field(1, b""));
        assert_eq!(d.code, "onnxtxt::decode::wire_type");
        assert_eq!(d.path.as_deref(), Some("ir_version"));
        assert_eq!(
            d.message,
            "wire type 2 (length-delimited) does not fit this field (int64 ir_version = 1), \
             which takes wire type 0 (varint)"
        );
        let d = error_of(&varint_field(7, 1));
        assert_eq!(d.path.as_deref(), Some("graph"));
        assert!(d.message.contains("(GraphProto graph = 7)"), "{d:?}");
        // A repeated float given as a varint.
        let tensor = varint_field(4, 1);
        let d = error_of(&field(7, &field(5, &tensor)));
        assert_eq!(
            d.path.as_deref(),
            Some("graph.initializer[0].float_data[0]")
        );
        assert!(d.message.contains("or 2 (packed)"), "{d:?}");
    }

    #[test]
    fn lengths_past_the_enclosing_message_are_refused() {
        // graph.node[12].attribute[0].t.raw_data, whose length claims 5
        // more bytes than its tensor holds.
        let tensor = [vec![0x4a, 4 + 5], vec![1, 2, 3, 4]].concat();
        let attribute = [field(1, b"value"), field(5, &tensor)].concat();
        let node = field(5, &attribute);
        let mut graph = Vec::new();
        for _ in 0..12 {
            graph.extend(field(1, &field(4, b"Relu")));
        }
        graph.extend(field(1, &node));
        let bytes = field(7, &graph);
        let d = error_of(&bytes);
        assert_eq!(d.code, "onnxtxt::decode::length");
        assert_eq!(
            d.path.as_deref(),
            Some("graph.node[12].attribute[0].t.raw_data")
        );
        assert_eq!(
            d.message,
            "length 9 runs past the end of the enclosing TensorProto (4 bytes left)"
        );
        assert_eq!(d.span.start, bytes.len() - 5);
        agrees_with_prost(&bytes);
    }

    #[test]
    fn packed_and_unpacked_repeated_numbers_both_decode() {
        // AttributeProto.ints (8) is unpacked in the schema, TensorProto
        // float_data (4) packed: write each the other way too.
        let unpacked_ints = [varint_field(8, 1), varint_field(8, 2)].concat();
        let packed_ints = field(8, &[1, 2]);
        let mut unpacked_floats = Vec::new();
        for f in [1.5f32, -2.0] {
            unpacked_floats.extend(tag(4, FIXED32));
            unpacked_floats.extend(f.to_le_bytes());
        }
        let packed_floats = field(4, &[1.5f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat());
        let model_of = |ints: &[u8], floats: &[u8]| {
            let attribute = [ints, &field(5, floats)].concat();
            field(7, &field(1, &field(5, &attribute)))
        };
        let a = decode_model(&model_of(&unpacked_ints, &unpacked_floats)).unwrap();
        let b = decode_model(&model_of(&packed_ints, &packed_floats)).unwrap();
        assert_eq!(a, b);
        let attribute = &a.graph.as_ref().unwrap().node[0].attribute[0];
        assert_eq!(attribute.ints, [1, 2]);
        assert_eq!(attribute.t.as_ref().unwrap().float_data, [1.5, -2.0]);

        // A packed run that is not whole values, and a bad varint in one.
        let bytes = model_of(b"", &field(4, &[0; 6]));
        let d = error_of(&bytes);
        assert_eq!(d.code, "onnxtxt::decode::packed");
        assert_eq!(
            d.path.as_deref(),
            Some("graph.node[0].attribute[0].t.float_data")
        );
        let bytes = model_of(&[varint_field(8, 7), field(8, &[1, 2, 0x80])].concat(), b"");
        let d = error_of(&bytes);
        assert_eq!(d.code, "onnxtxt::decode::length");
        assert_eq!(
            d.path.as_deref(),
            Some("graph.node[0].attribute[0].ints[3]")
        );
        agrees_with_prost(&bytes);
    }

    #[test]
    fn wide_values_in_32_bit_fields_are_refused() {
        let tensor = |value: u64| field(7, &field(5, &varint_field(2, value)));
        let d = error_of(&tensor(1 << 33));
        assert_eq!(d.code, "onnxtxt::decode::range");
        assert_eq!(d.path.as_deref(), Some("graph.initializer[0].data_type"));
        assert_eq!(
            d.message,
            "value 8589934592 does not fit in this int32 field; printing would lose its high bits"
        );
        // Negative values (sign-extended to 64 bits) and full 32-bit
        // patterns are not truncated.
        let data_type =
            |bytes: &[u8]| decode_model(bytes).unwrap().graph.unwrap().initializer[0].data_type;
        assert_eq!(data_type(&tensor(-5i64 as u64)), Some(-5));
        assert_eq!(data_type(&tensor(u64::from(u32::MAX))), Some(-1));
    }

    /// A model whose graph input has a type nested `levels` sequences deep.
    fn nested_model(levels: usize) -> ModelProto {
        let mut ty = TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(crate::proto::TensorShapeProto {
                    dim: vec![tensor_shape_proto::Dimension::default()],
                }),
            })),
            ..Default::default()
        };
        for _ in 0..levels {
            ty = TypeProto {
                value: Some(type_proto::Value::SequenceType(Box::new(
                    type_proto::Sequence {
                        elem_type: Some(Box::new(ty)),
                    },
                ))),
                ..Default::default()
            };
        }
        ModelProto {
            graph: Some(GraphProto {
                input: vec![ValueInfoProto {
                    name: Some("x".into()),
                    r#type: Some(ty),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn nesting_is_limited_as_prost_limits_it() {
        // graph, input, type, then two messages per sequence level, then
        // tensor_type, shape, dim: 6 + 2 * levels messages below the model.
        let mut refused = 0;
        for levels in 40..52 {
            let bytes = nested_model(levels).encode_to_vec();
            agrees_with_prost(&bytes);
            if let Err(e) = decode_model(&bytes) {
                let d = e.primary();
                assert_eq!(d.code, "onnxtxt::decode::nesting");
                let path = d.path.as_deref().unwrap();
                assert!(path.starts_with("graph.input[0].type.sequence_type.elem_type."));
                assert_eq!(path.split('.').count(), MAX_MESSAGE_DEPTH + 1, "{path}");
                refused += 1;
            }
        }
        assert!(refused > 0 && refused < 12);
        // Exactly at the limit decodes.
        let at_limit = nested_model((MAX_MESSAGE_DEPTH - 6) / 2).encode_to_vec();
        assert!(decode_model(&at_limit).is_ok());
        let over = nested_model((MAX_MESSAGE_DEPTH - 6) / 2 + 1).encode_to_vec();
        assert_eq!(error_of(&over).code, "onnxtxt::decode::nesting");
    }

    #[test]
    fn everything_in_a_rich_model_decodes() {
        let tensor = TensorProto {
            dims: vec![2],
            data_type: Some(1),
            float_data: vec![1.0, 2.0],
            raw_data: Some(vec![0; 3]),
            ..Default::default()
        };
        let model = ModelProto {
            ir_version: Some(10),
            graph: Some(GraphProto {
                node: vec![NodeProto {
                    attribute: vec![AttributeProto {
                        name: Some("t".into()),
                        t: Some(Box::new(tensor.clone())),
                        tensors: vec![tensor.clone(), tensor],
                        floats: vec![0.5, f32::NAN],
                        ints: vec![-1, i64::MAX],
                        strings: vec![vec![0xff]],
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        let bytes = model.encode_to_vec();
        assert_eq!(decode_model(&bytes).unwrap().encode_to_vec(), bytes);
    }

    /// `decode::<T>` of `item`'s encoding gives `item` back, and the same
    /// bytes with an unknown field added are refused at the top level.
    fn every_kind_round_trips<T: Decode + std::fmt::Debug + PartialEq>(item: T) {
        let bytes = item.encode_to_vec();
        assert_eq!(decode::<T>(&bytes).unwrap(), item);
        let mut extra = bytes.clone();
        extra.extend(varint_field(999, 1));
        let error = decode::<T>(&extra).unwrap_err();
        let d = error.primary();
        assert_eq!(d.code, "onnxtxt::decode::unknown_field", "{d:?}");
        assert_eq!(d.path, None);
        assert_eq!(d.span.start, bytes.len());
    }

    #[test]
    fn every_printed_kind_decodes_with_the_same_checks() {
        let model = decode_model(&mlp()).unwrap();
        let graph = model.graph.clone().unwrap();
        every_kind_round_trips(graph.node[0].clone());
        every_kind_round_trips(graph.input[0].clone());
        every_kind_round_trips(graph.input[0].r#type.clone().unwrap());
        every_kind_round_trips(graph.initializer[0].clone());
        every_kind_round_trips(graph);
        every_kind_round_trips(model);
        every_kind_round_trips(crate::parse_attribute("axes: ints = [0, 1]").unwrap());
        every_kind_round_trips(
            crate::parse_function(
                "<domain: \"d\", opset_import: [\"\": 21]> f (x) => (y) { y = Relu(x) }",
            )
            .unwrap(),
        );
        every_kind_round_trips(SparseTensorProto {
            dims: vec![4],
            ..Default::default()
        });
    }

    #[test]
    fn a_message_cut_short_is_truncated_input_whatever_its_kind() {
        let node = crate::parse_node("y = Relu (x)").unwrap().encode_to_vec();
        let error = decode::<NodeProto>(&node[..node.len() - 1]).unwrap_err();
        assert_eq!(error.primary().code, "onnxtxt::decode::truncated");
        assert!(
            decode::<GraphProto>(&node).is_err(),
            "a node is not a graph"
        );
    }
}
