//! Plain models, graphs and value infos: a model whose header entries are
//! numbers, strings and `["domain": version]` lists, with any functions
//! after its graph read by the grammar; a graph without annotations, its
//! `<...>` list of value infos and initializers `@<raw: true>? type name =
//! {numbers}` (the forms the printers write); value infos `type? name`,
//! with tensor types read by `tensor.rs` and other types by the grammar's
//! type production.
//!
//! The main graph of a model parsed to its encoding has its inputs and
//! outputs encoded as read ([`EncodedMainGraph`]), as its nodes are: the
//! bytes `prost` writes of them, no `ValueInfoProto` built, measured at
//! every level of its type and dropped.

use prost::encoding::{encode_key, encode_varint, int32, int64, message, WireType};
use prost::Message;

use super::node::{encoded_node_list, node_list};
use super::tensor::{plain_tensor_type, tensor_type, values, Dim};
use super::{
    attempt, eat, encode_string, expect, hand, name_in_text, next_name, or_grammar, separated,
    separated_onto, up_to, up_to_into, Handoff, Reader,
};
use crate::lexer::Token;
use crate::parser::annotation::{apply_tensor, Entry, Value};
use crate::parser::common::unquote;
use crate::parser::graph::{apply_model_header, apply_reference_model_header};
use crate::parser::write::field_len;
use crate::parser::{Fail, Parsed, Tokens};
use crate::proto::{FunctionProto, GraphProto, ModelProto, TensorProto, TypeProto, ValueInfoProto};
use crate::vocabulary::starts_type;

/// `<header>? graph function*`, the functions read by `function`.
pub(super) fn model<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    grammar: &Handoff<'t, 's, I, E>,
    function: &Parsed<'t, I, E, FunctionProto>,
) -> Option<Box<ModelProto>> {
    // Made in its box, the header's fields set as read, the graph moved in
    // once.
    let mut model = Box::<ModelProto>::default();
    // The header's entries from the first the reference does not know on
    // (an [ext] annotation may set any field, the graph's too), applied
    // after the graph and functions, as before.
    let mut others = Vec::new();
    if eat(inp, Token::LAngle) {
        let after = separated_onto(inp, &mut others, |inp, others| {
            let entry = entry(inp, &grammar.header_value)?;
            let other = if others.is_empty() {
                apply_reference_model_header(&mut model, entry).ok()?.err()
            } else {
                Some(entry)
            };
            others.extend(other);
            Some(())
        })?;
        (after == Token::RAngle).then_some(())?;
    }
    // A model parsed to its encoding whose header sets its graph
    // (`graph: unset`, `graph: {node: unset}`, ...) goes to the grammar: the
    // entry must apply to the main graph's nodes and value infos, which
    // this reader would hold encoded, out of its reach.
    let encoding = inp.state().main_graph.is_some();
    if encoding && others.iter().any(|entry| entry.key == "graph") {
        return None;
    }
    // Taken out, and put back only when the model is read: a model given
    // back to the grammar has its nodes and value infos in the IR.
    let mut encoded = inp.state().main_graph.take();
    let graph = graph(inp, grammar, encoded.as_mut())?;
    let mut functions = Vec::new();
    while inp.peek().is_some() {
        functions.push(hand(inp, function)?);
    }
    model.graph = Some(graph);
    model.functions = functions;
    for entry in others {
        apply_model_header(&mut model, entry).ok()?;
    }
    inp.state().main_graph = encoded;
    Some(model)
}

/// `key: value`, the value read here when it is a number, a string or a
/// `["key": literal, ...]` list, else by `value`.
fn entry<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    value: &Parsed<'t, I, E, Value>,
) -> Option<Entry> {
    let before = inp.cursor();
    let Token::Ident(key) = inp.next()? else {
        return None;
    };
    let key_span = inp.span_since(&before).into_range();
    expect(inp, Token::Colon)?;
    let value = or_grammar(inp, header_value, value)?;
    Some(Entry {
        key: key.to_owned(),
        key_span,
        value,
    })
}

/// A literal, or a `["key": literal, ...]` list.
fn header_value<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
) -> Option<Value> {
    let before = inp.cursor();
    if !eat(inp, Token::LBracket) {
        return literal(inp);
    }
    let pair = |inp: &mut Reader<'t, '_, I, E>| {
        let Token::Str(key) = inp.next()? else {
            return None;
        };
        expect(inp, Token::Colon)?;
        Some((unquote(key).into_bytes(), literal(inp)?))
    };
    let (pairs, after) = separated(inp, pair)?;
    (after == Token::RBracket).then_some(())?;
    Some(Value::Pairs(pairs, inp.span_since(&before).into_range()))
}

/// A number, or a `"..."` string as bytes.
fn literal<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
) -> Option<Value> {
    let before = inp.cursor();
    let token = inp.next()?;
    let span = inp.span_since(&before).into_range();
    match token {
        Token::Int(text) | Token::Float(text) => Some(Value::Number(text.to_owned(), span)),
        Token::Str(raw) => Some(Value::Bytes(unquote(raw).into_bytes(), span)),
        _ => None,
    }
}

/// The main graph's fields that the plain model reader encodes as it reads
/// them (see `State::main_graph`): the bytes `prost` writes of them in the
/// graph, tags and lengths included.
#[derive(Debug, Default)]
pub(crate) struct EncodedMainGraph {
    /// Its nodes (field 1).
    pub(crate) nodes: Vec<u8>,
    /// Its inputs and outputs (fields 11 and 12), in that order.
    pub(crate) inputs_and_outputs: Vec<u8>,
}

/// The most room made for the nodes of a text before they are read.
const MOST_NODE_ROOM: usize = 1 << 20;

/// The room made for the main graph's inputs and outputs before they are
/// read: a small model's (a few value infos of 20 to 50 bytes) fit, where
/// growing from nothing took three allocations.
const SIGNATURE_ROOM: usize = 256;

impl EncodedMainGraph {
    /// Room for the nodes of `text` made at once (up to
    /// [`MOST_NODE_ROOM`]): their encoding is mostly shorter than their
    /// text (a fifth of it for the corpus's median model, never more than
    /// all of it there), and growing the buffer by doubling, a copy each
    /// time, cost the corpus's parse from Python 5%; and
    /// [`SIGNATURE_ROOM`] for its inputs and outputs.
    pub(crate) fn with_room_for(text: &str) -> Self {
        EncodedMainGraph {
            nodes: Vec::with_capacity(text.len().min(MOST_NODE_ROOM)),
            inputs_and_outputs: Vec::with_capacity(SIGNATURE_ROOM),
        }
    }
}

/// `GraphProto`'s field numbers of the value infos a graph's signature
/// declares.
const GRAPH_INPUT: u32 = 11;
const GRAPH_OUTPUT: u32 = 12;

/// `name (inputs)? => (outputs) <value infos>? { nodes }`, its inputs,
/// outputs and nodes encoded into `encoded` when it is given (the graph's
/// lists of them left empty).
pub(super) fn graph<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    grammar: &Handoff<'t, 's, I, E>,
    mut encoded: Option<&mut EncodedMainGraph>,
) -> Option<GraphProto> {
    let name = next_name(inp)?;
    // One vector for the dimensions of every type encoded, its room kept.
    let mut dims = Vec::new();
    let mut signature = |inp: &mut Reader<'t, '_, I, E>, number| match encoded.as_deref_mut() {
        Some(encoded) => {
            let out = &mut encoded.inputs_and_outputs;
            up_to_into(inp, Token::RParen, out, |inp, out| {
                encoded_value_info(inp, &grammar.ty, number, &mut dims, out)
            })?;
            Some(Vec::new())
        }
        None => up_to(inp, Token::RParen, |inp| value_info(inp, &grammar.ty)),
    };
    let input = if eat(inp, Token::LParen) {
        signature(inp, GRAPH_INPUT)?
    } else {
        Vec::new()
    };
    expect(inp, Token::Arrow)?;
    expect(inp, Token::LParen)?;
    let output = signature(inp, GRAPH_OUTPUT)?;
    let open = inp.cursor();
    let (value_info, initializer) = if eat(inp, Token::LAngle) {
        let start = inp.span_since(&open).start;
        listed(inp, start, &grammar.ty)?
    } else {
        Default::default()
    };
    let node = match encoded {
        Some(encoded) => {
            encoded_node_list(inp, grammar, &mut encoded.nodes).map(|()| Vec::new())?
        }
        None => node_list(inp, grammar)?,
    };
    Some(GraphProto {
        name: Some(name),
        input,
        output,
        value_info,
        initializer,
        node,
        ..GraphProto::default()
    })
}

/// The entries of a graph's `<...>` list, or of a run of them read apart
/// (see `fast::pieces`), in the order written.
#[derive(Debug, Default)]
pub(crate) struct ListEntries {
    pub(crate) value_info: Vec<ValueInfoProto>,
    pub(crate) initializer: Vec<TensorProto>,
    /// Whether a run's last entry is followed by a comma, so that the list
    /// goes on after it.
    pub(crate) comma_after: bool,
}

impl ListEntries {
    fn push(&mut self, entry: Listed) {
        match entry {
            Listed::Info(info) => self.value_info.push(info),
            Listed::Initializer(tensor) => self.initializer.push(tensor),
        }
    }

    /// Appends the entries of `run`, which follows these, with room for
    /// `expected` initializers in all when they grow.
    pub(crate) fn append(&mut self, mut run: ListEntries, expected: usize) {
        let initializers = &mut self.initializer;
        if initializers.capacity() - initializers.len() < run.initializer.len() {
            initializers.reserve(
                expected
                    .saturating_sub(initializers.len())
                    .max(run.initializer.len()),
            );
        }
        initializers.append(&mut run.initializer);
        self.value_info.append(&mut run.value_info);
        self.comma_after = run.comma_after;
    }
}

/// The `<...>` list of a graph after its `<`, which starts at `list`, up to
/// and including the `>`. A [`Token::Spliced`] in it stands for a run of
/// its entries read apart.
fn listed<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    list: usize,
    ty: &Parsed<'t, I, E, TypeProto>,
) -> Option<(Vec<ValueInfoProto>, Vec<TensorProto>)> {
    let mut entries = ListEntries::default();
    if !eat(inp, Token::RAngle) {
        loop {
            if inp.peek()? == Token::Spliced {
                let before = inp.cursor();
                inp.skip();
                let start = inp.span_since(&before).start;
                let read = entries.initializer.len();
                let run = (inp.state().pieces.splice).take_entries(start, list, read)?;
                let more = run.comma_after;
                if entries.value_info.is_empty() && entries.initializer.is_empty() {
                    entries = run;
                } else {
                    let expected = entries.initializer.len() + run.initializer.len();
                    entries.append(run, expected);
                }
                if more {
                    continue;
                }
            } else {
                entries.push(list_entry(inp, ty)?);
                if eat(inp, Token::Comma) {
                    continue;
                }
            }
            expect(inp, Token::RAngle)?;
            break;
        }
    }
    Some((entries.value_info, entries.initializer))
}

/// Entries of a graph's `<...>` list up to the end of the input, each but
/// the last followed by a comma, and the last maybe too: a run of them
/// read apart.
pub(super) fn list_run<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    ty: &Parsed<'t, I, E, TypeProto>,
) -> Option<ListEntries> {
    let mut entries = ListEntries::default();
    // Only a hint (one `=` for each initializer), as for a run of nodes.
    let _ = entries
        .initializer
        .try_reserve_exact(inp.state().pieces.run_items);
    loop {
        entries.push(list_entry(inp, ty)?);
        match inp.next() {
            None => return Some(entries),
            Some(Token::Comma) if inp.peek().is_none() => {
                entries.comma_after = true;
                return Some(entries);
            }
            Some(Token::Comma) => {}
            Some(_) => return None,
        }
    }
}

/// An entry of a graph's `<...>` list.
enum Listed {
    Info(ValueInfoProto),
    Initializer(TensorProto),
}

/// A value info, or an initializer `@<raw: true>? type name = {numbers}`
/// built as the grammar builds it.
fn list_entry<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    ty: &Parsed<'t, I, E, TypeProto>,
) -> Option<Listed> {
    let raw = attempt(inp, raw_annotation);
    let before = inp.cursor();
    let info = value_info(inp, ty)?;
    if !eat(inp, Token::Eq) {
        return raw.is_none().then_some(Listed::Info(info));
    }
    // The span is the grammar's for its problems, which give the list back.
    let typed = (info.r#type?, inp.span_since(&before));
    let mut tensor = values(inp, typed, info.name)?;
    if let Some(raw) = raw {
        apply_tensor(&mut tensor, vec![raw]).ok()?;
    }
    Some(Listed::Initializer(tensor))
}

/// `@<raw: true>`, which the printer writes before a tensor stored in
/// `raw_data`, as the grammar's annotation entry.
fn raw_annotation<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
) -> Option<Entry> {
    expect(inp, Token::AnnotationOpen)?;
    let key = inp.cursor();
    expect(inp, Token::Ident("raw"))?;
    let key_span = inp.span_since(&key).into_range();
    expect(inp, Token::Colon)?;
    let value = inp.cursor();
    expect(inp, Token::Ident("true"))?;
    let value_span = inp.span_since(&value).into_range();
    expect(inp, Token::RAngle)?;
    Some(Entry {
        key: "raw".to_owned(),
        key_span,
        value: Value::Ident("true".to_owned(), value_span),
    })
}

/// `type? name`: typed when the first word starts a type, as in the
/// grammar.
fn value_info<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    ty: &Parsed<'t, I, E, TypeProto>,
) -> Option<ValueInfoProto> {
    let r#type = match inp.peek()? {
        Token::Ident(word) if starts_type(word) => Some(or_grammar(inp, tensor_type, ty)?),
        _ => None,
    };
    Some(ValueInfoProto {
        name: Some(next_name(inp)?),
        r#type,
        ..ValueInfoProto::default()
    })
}

/// `ValueInfoProto`'s and `TypeProto`'s field numbers.
const INFO_NAME: u32 = 1;
const INFO_TYPE: u32 = 2;
const TYPE_TENSOR: u32 = 1;
/// `TypeProto.Tensor`'s, `TensorShapeProto`'s and its `Dimension`'s.
const TENSOR_ELEM_TYPE: u32 = 1;
const TENSOR_SHAPE: u32 = 2;
const SHAPE_DIM: u32 = 1;
const DIM_VALUE: u32 = 1;
const DIM_PARAM: u32 = 2;

/// A value info's type as read for its encoding.
enum InfoType {
    /// A plain tensor type, its dimensions (the shape's payload) encoded
    /// apart; `tensor_len` is the length of its `TypeProto.Tensor`.
    Tensor {
        elem_type: i32,
        known_shape: bool,
        tensor_len: usize,
    },
    /// Another type, read by the grammar.
    Other(TypeProto),
}

/// `type? name` as [`value_info`] reads it, appended to `out` as the
/// graph's field `number`: the bytes `prost` writes of its
/// `ValueInfoProto`, none built when the type is a plain tensor type (its
/// dimensions encoded into `dims`, emptied first).
fn encoded_value_info<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    ty: &Parsed<'t, I, E, TypeProto>,
    number: u32,
    dims: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Option<()> {
    let read = match inp.peek()? {
        Token::Ident(word) if starts_type(word) => {
            dims.clear();
            let plain = attempt(inp, |inp| {
                plain_tensor_type(inp, |dim| encode_dim(dim, dims))
            });
            Some(match plain {
                Some((elem_type, known_shape)) => {
                    let shape_len = if known_shape {
                        field_len(TENSOR_SHAPE, dims.len())
                    } else {
                        0
                    };
                    InfoType::Tensor {
                        elem_type,
                        known_shape,
                        tensor_len: int32::encoded_len(TENSOR_ELEM_TYPE, &elem_type) + shape_len,
                    }
                }
                None => InfoType::Other(hand(inp, ty)?),
            })
        }
        _ => None,
    };
    let name = name_in_text(inp.next()?)?;
    let type_len = read.as_ref().map_or(0, |read| {
        let len = match read {
            InfoType::Tensor { tensor_len, .. } => field_len(TYPE_TENSOR, *tensor_len),
            InfoType::Other(ty) => ty.encoded_len(),
        };
        field_len(INFO_TYPE, len)
    });
    encode_key(number, WireType::LengthDelimited, out);
    encode_varint((field_len(INFO_NAME, name.len()) + type_len) as u64, out);
    encode_string(INFO_NAME, &name, out);
    match read {
        None => {}
        Some(InfoType::Other(ty)) => message::encode(INFO_TYPE, &ty, out),
        Some(InfoType::Tensor {
            elem_type,
            known_shape,
            tensor_len,
        }) => {
            encode_key(INFO_TYPE, WireType::LengthDelimited, out);
            encode_varint(field_len(TYPE_TENSOR, tensor_len) as u64, out);
            encode_key(TYPE_TENSOR, WireType::LengthDelimited, out);
            encode_varint(tensor_len as u64, out);
            int32::encode(TENSOR_ELEM_TYPE, &elem_type, out);
            if known_shape {
                encode_key(TENSOR_SHAPE, WireType::LengthDelimited, out);
                encode_varint(dims.len() as u64, out);
                out.extend_from_slice(dims);
            }
        }
    }
    Some(())
}

/// Appends a dimension (`None` for `?`) to `dims` as a shape's `dim`
/// field, as `prost` writes it.
fn encode_dim(dim: Option<Dim<'_>>, dims: &mut Vec<u8>) {
    encode_key(SHAPE_DIM, WireType::LengthDelimited, dims);
    match dim {
        None => dims.push(0),
        Some(Dim::Value(value)) => {
            encode_varint(int64::encoded_len(DIM_VALUE, &value) as u64, dims);
            int64::encode(DIM_VALUE, &value, dims);
        }
        Some(Dim::Param(param)) => {
            encode_varint(field_len(DIM_PARAM, param.len()) as u64, dims);
            encode_string(DIM_PARAM, &param, dims);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::parser::fast::tests::assert_read_as_the_grammar_reads;

    /// Models of every form: the plain ones, the ones with parts the
    /// grammar reads for this module, the ones it gives back, and mistakes.
    const MODELS: &[&str] = &[
        "g () => () {}",
        "g => (float y) { y = Relu (x) }",
        "\"my graph\" (float[N, ?, 3, \"a b\"] x, int64 n, bool[] b) => (float y) {}",
        "g (x, \"y z\") => (w) {}",
        "g (float[2] x) => (float[2] y) <float[2] t, seq(float[2]) s> { t = Relu (x) y = Relu (t) }",
        "g (seq(float) x, map(int64, float) m, optional(int8) o) => (sparse_tensor(float[2]) y) {}",
        "g (float[99999999999999999999] x) => (float y) {}",
        "g (float[-1] x) => (float y) {}",
        "g (float[1.5] x) => (float y) {}",
        "g (float[] x) => (float y) {}",
        "g (float[,] x) => (float y) {}",
        "g (float[2, ] x) => (float y) {}",
        "g (float x,) => (float y) {}",
        "g (float) => (float y) {}",
        "g (seq, float x) => (float y) {}",
        "g (wrongtype[2] x) => (float y) {}",
        "g (float[2] x = {1, 2}) => (float y) {}",
        "g (float x) => (float y) <float[2] w = {1, 2}> {}",
        "g (float x) => (float y) <> {}",
        "g (@<doc_string: \"d\"> float x) => (float y) {}",
        "@<doc_string: \"d\"> g (float x) => (float y) {}",
        "g (float x) -> (float y) {}",
        "g (float x) (float y) {}",
        "b\"g\" (float x) => (float y) {}",
        "g (float[b\"N\"] x) => (float y) {}",
        "<ir_version: 10, opset_import: [\"\" : 22, \"com.x\": 1], producer_name: \"t\"> g () => () {}",
        "<ir_version: 10> g () => () { y = Relu (x) }",
        "<opset_import: []> g () => () {}",
        "<metadata_props: [\"k\": \"v\", \"a\": \"b\"], doc_string: \"d\", model_version: 3> g () => () {}",
        "<producer_name: \"p\", producer_version: \"1.0\", domain: \"x.y\"> g () => () {}",
        "<ir_version: 1.5> g () => () {}",
        "<ir_version: 99999999999999999999> g () => () {}",
        "<ir_version: \"ten\"> g () => () {}",
        "<producer_name: 10> g () => () {}",
        "<opset_import: [\"\" : 1.5]> g () => () {}",
        "<opset_import: [\"\" : \"x\"]> g () => () {}",
        "<opset_import: [b\"\" : 1]> g () => () {}",
        "<opset_import: [\"\" : 1,]> g () => () {}",
        "<nonsense_key: 1> g () => () {}",
        "<> g () => () {}",
        "<ir_version: 10,> g () => () {}",
        "<ir_version 10> g () => () {}",
        "<producer_name: \"g\" (x) => (y) {}> g () => () {}",
        "<training_info: [{algorithm: g () => () {}}]> g () => () {}",
        "<ir_version: 10> g () => () {} <domain: \"d\"> f (x) => (y) { y = Relu (x) }",
        "g () => () {} f (x) => (y) { y = Relu (x) }",
        "g () => () {} f (x) => (y) { y = Relu (x) } <domain: \"d\"> h <a> (x) => (y) { y = Neg (x) }",
        "g () => () {} f (x) => (y) { y = = Relu (x) }",
        "<ir_version: \"ten\"> g () => () {} f (x) => (y) { y = Relu (x) }",
        "g () => () {} f (x) => (y) { y = Relu (x) } trailing",
        "g () => () {} trailing",
        "g () => () { y = If <then_branch = t () => (float z) { z = Relu (x) }> (c) }",
        "g () => () { y = Relu (x) z = Op <k = 1,> (y) }",
        "g () => () { @<doc_string: \"d\"> y = Relu (x) }",
        "g () => () { y = Relu (x)",
        "g () => ()",
    ];

    #[test]
    fn plain_models_read_as_the_grammar_reads_them() {
        for text in MODELS {
            assert_read_as_the_grammar_reads(text);
        }
    }

    /// Model headers whose entries the reference knows, applied as read,
    /// mixed with [ext] annotations, which may set any field and are
    /// applied after the graph and functions, from the first on: each the
    /// same as the grammar's model, or its diagnostics.
    #[test]
    fn header_entries_apply_in_their_order_around_annotations() {
        let headers = [
            "ir_version: 8, opset_import: [\"\": 18], graph: unset",
            "graph: unset, ir_version: 8",
            "ir_version: 8, functions: unset, ir_version: 9",
            "ir_version: 8, training_info: [], opset_import: [\"\": 18]",
            "opset_import: [\"\": 18], opset_import: [\"x\": 1]",
            "metadata_props: [\"k\": \"v\"], metadata_props: [\"a\": \"b\"]",
            "ir_version: 8, nonsense_key: 1, ir_version: 9",
            "ir_version: 8, opset_import: [\"\": 1.5], graph: unset",
        ];
        for header in headers {
            let text = format!("<{header}> g (float x) => (float y) {{ y = Relu (x) }}");
            assert_read_as_the_grammar_reads(&text);
        }
    }

    /// A graph's inputs and outputs of every form: every kind of type and
    /// dimension, types the grammar reads for the plain reader, names and
    /// types whose encoding is 128 bytes and more, and mistakes.
    const SIGNATURES: &[&str] = &[
        "x",
        "\"x y\"",
        "float x",
        "float[] x",
        "float[2, 3] x",
        "float[N, ?, \"a b\", 1] \"x y\"",
        "float[0] x",
        "int64[9223372036854775807] x",
        "uint8 x, bfloat16[1] h, string[2] s, bool b, complex128[1] c",
        "seq(float[2]) s",
        "map(int64, float) m, optional(int8) o, sparse_tensor(float[2]) t",
        "seq(float) s, float x",
        "float[-1] x",
        "float[99999999999999999999] x",
        "float[1.5] x",
        "float[,] x",
        "float[2, ] x",
        "float[b\"N\"] x",
        "wrongtype[2] x",
        "float",
        "float x,",
    ];

    /// Every form of [`SIGNATURES`] as a main graph's inputs and outputs,
    /// alone and all the parseable ones together; value infos and types
    /// whose encoding is 128 bytes and more: the inputs and outputs of
    /// every model that parses here are encoded as read. Those, the models
    /// of [`MODELS`] (some given back to the grammar), each cut and with
    /// stray tokens: the bytes are those of the model's IR.
    #[test]
    fn inputs_and_outputs_encoded_as_read_are_the_bytes_of_their_ir() {
        use crate::parser::fast::tests::{broken, encoded_as_read};
        let model = |signature: &str| {
            format!(
                "<ir_version: 10, opset_import: [\"\": 21]>\n\
                 g ({signature}) => ({signature}) {{ y = Relu (x) }}"
            )
        };
        let plain: Vec<&str> = (SIGNATURES.iter().copied())
            .filter(|signature| crate::parse_model(&model(signature)).is_ok())
            .collect();
        let long_name = "n".repeat(200);
        let long_shape: Vec<String> = (0..70).map(|i| format!("d{i}")).collect();
        let mut texts: Vec<String> = SIGNATURES.iter().map(|s| model(s)).collect();
        texts.push(model(&plain.join(", ")));
        texts.push(model(&format!("float[{long_name}] x, {long_name}")));
        texts.push(model(&format!("float[{}] x", long_shape.join(", "))));
        for text in &texts {
            let parses = crate::parse_model(text).is_ok();
            let read = encoded_as_read(text).is_some_and(|read| read.inputs_and_outputs);
            assert_eq!(read, parses, "{text}");
        }
        for text in texts
            .iter()
            .map(String::as_str)
            .chain(MODELS.iter().copied())
        {
            encoded_as_read(text);
            for broken in broken(text) {
                encoded_as_read(&broken);
            }
        }
    }

    /// `<...>` lists of a graph, and whether the plain reader reads them
    /// (else it gives the graph back to the grammar): every element type
    /// and form the printers write, and the forms next to them it leaves.
    const LISTS: &[(&str, bool)] = &[
        ("float[2] w = {1, -2.5}", true),
        ("float[2] w = {1, -2.5}, int64 k = {3}", true),
        (
            "float[2] w = {1, -2.5},\n  float t,\n  int64[1] k = {3}",
            true,
        ),
        (
            "double[2] d = {1e300, -0}, int32[3] i = {-1, 0, 2147483647}, uint8[2] u = {0, 255}",
            true,
        ),
        (
            "int8[2] a = {-128, 127}, int16 b = {7}, uint16 c = {65535}",
            true,
        ),
        (
            "uint32 a = {4294967295}, uint64 b = {18446744073709551615}",
            true,
        ),
        (
            "bool[2] b = {1, 0}, float16[2] h = {15360, 1.5}, bfloat16 f = {16256}",
            true,
        ),
        (
            "float[3] w = {inf, -inf, nan}, float[2] e = {1e-45, 3.4028235e38}",
            true,
        ),
        ("float[2, 2] \"/a/b.weight\" = {0.1, 0.2, 0.3, 0.4}", true),
        ("float[1] w = {1 # one\n}", true),
        ("@<raw: true> float[2] w = {1, 2}", true),
        (
            "@<raw: true> int64 k = {3}, @<raw: true> uint8[2] u = {1, 2}",
            true,
        ),
        (
            "@<raw: true> double[1] d = {2.5}, float t, @<raw: true> int32[1] i = {-4}",
            true,
        ),
        (
            "@<raw: true> float16[1] h = {15360}, @<raw: true> bool[2] b = {1, 0}",
            true,
        ),
        // What the plain reader gives back to the grammar.
        ("@<raw: false> float[2] w = {1, 2}", false),
        ("@<raw: true, doc_string: \"d\"> float[2] w = {1, 2}", false),
        ("@<doc_string: \"d\"> float[2] w = {1, 2}", false),
        ("@<raw: true> float t", false),
        ("@<raw: true> string[1] s = {\"a\"}", false),
        ("float[2] w = @<raw: true> {1, 2}", false),
        ("float[2] w = , float t", false),
        ("float[0] w = {}", false),
        ("string[1] s = {\"a\"}", false),
        ("float[2] w = [\"location\": \"w.bin\"]", false),
        ("w = {1}", false),
        ("float[N] w = {1}", false),
        ("float[] w = {1}", false),
        ("float[3] w = {1, 2}", true),
        ("int8[1] w = {300}", true),
        ("int64[1] w = {99999999999999999999}", false),
        ("int64[1] w = {1.5}", false),
        ("float[2] w = {1, x}", false),
        ("seq(float) s = {1}", false),
        ("float[2] {1, 2} w", false),
        ("float[1] w = {1},", false),
        ("float[1] w = {1} float t", false),
        ("float[1] w = {1}, , float t", false),
        ("float[1] w = {1}, float[1] w = {2}", true),
    ];

    /// The plain reader reads each list of [`LISTS`] it is meant to, and
    /// gives back the others, to the model the grammar reads.
    #[test]
    fn initializer_lists_read_as_the_grammar_reads_them() {
        use crate::parser::fast::tally;
        let mut wrong = Vec::new();
        for &(list, plain) in LISTS {
            let text = format!("g (float x) => (float y) <{list}> {{ y = Relu (x) }}");
            assert_read_as_the_grammar_reads(&text);
            let (_, tally) = tally::of(|| {
                crate::Parser::new()
                    .threads(false)
                    .parse::<crate::proto::ModelProto>(&text)
            });
            // Given back, the graph and its model go to the grammar.
            if (tally.given_back == 0) != plain {
                wrong.push(format!("{list}: {tally:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
