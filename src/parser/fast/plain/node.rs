//! Node lists, and plain nodes: `[label] outputs = domain.Op <attrs>
//! (inputs)`, with bare or quoted names and attributes without
//! annotations. An attribute's value, unless it is a number, a string or a
//! flat list of those, is read by the grammar's value production; a node
//! of any other form by the grammar's node production.
//!
//! A plain node is read into a [`PlainNode`], its bare names borrowed from
//! the text, then built into a `NodeProto`, or encoded straight into the
//! bytes `prost` gives of it ([`encoded_node_list`], the main graph's
//! nodes of a model parsed to its encoding); there, its attributes of the
//! common forms (a number, a string, a flat list of those, a tensor) are
//! encoded as read too ([`encode_attribute`]), the others built by `fill`
//! and encoded.

use std::borrow::Cow;

use chumsky::prelude::*;
use prost::encoding::{float, int32, int64, message};

use super::tensor::constant;
use super::{
    attempt, eat, encode_bytes, encode_delimited, encode_string, exact, expect, hand, name_in_text,
    or_grammar, separated_onto, up_to, up_to_onto, Handoff, Reader,
};
use crate::decode::GRAPH_NODE;
use crate::lexer::Token;
use crate::parser::attribute::{fill, float, Single, Written};
use crate::parser::common::unquote;
use crate::parser::tensor::is_special_float;
use crate::parser::{Fail, Parsed, Tokens};
use crate::proto::attribute_proto::AttributeType;
use crate::proto::{AttributeProto, NodeProto};
use crate::vocabulary::attribute_type_by_name;

/// `{ node* }`, each node read here when it is plain, else by the
/// grammar's node production. A [`Token::Spliced`] in the list stands for
/// the nodes of a piece of the text read apart (see `parser::fast::pieces`).
pub(super) fn node_list<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    grammar: &Handoff<'t, 's, I, E>,
) -> Option<Vec<NodeProto>> {
    let open = inp.cursor();
    expect(inp, Token::LBrace)?;
    let list = inp.span_since(&open).start;
    let mut nodes = Vec::new();
    loop {
        match inp.peek()? {
            Token::RBrace => {
                inp.skip();
                return Some(nodes);
            }
            Token::Spliced => {
                let before = inp.cursor();
                inp.skip();
                let start = inp.span_since(&before).start;
                let splice = &mut inp.state().pieces.splice;
                let mut spliced = splice.take(start, list, nodes.len())?;
                if nodes.is_empty() {
                    nodes = spliced;
                } else {
                    nodes.reserve(spliced.len() + splice.nodes_left());
                    nodes.append(&mut spliced);
                }
            }
            _ => nodes.push(node(inp, grammar)?),
        }
    }
}

/// Nodes up to the end of the input.
pub(super) fn node_run<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    grammar: &Handoff<'t, 's, I, E>,
) -> Option<Vec<NodeProto>> {
    let mut nodes = Vec::new();
    // Only a hint: text that is not nodes may have many `=`, and a
    // reservation the allocator refuses leaves the vector to grow.
    let _ = nodes.try_reserve_exact(inp.state().pieces.run_items);
    while inp.peek().is_some() {
        nodes.push(node(inp, grammar)?);
    }
    Some(nodes)
}

/// A node, read here when it is plain, else by the grammar.
fn node<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    grammar: &Handoff<'t, 's, I, E>,
) -> Option<NodeProto> {
    let plain = |inp: &mut Reader<'t, '_, I, E>| {
        let mut node = PlainNode::default();
        plain_node(inp, &grammar.attribute_value, &mut node)?;
        Some(node.into_proto())
    };
    or_grammar(inp, plain, &grammar.node)
}

/// `{ node* }` as [`node_list`] reads it (but for pieces read apart, which
/// it gives back), each node appended to `out` as a graph's `node` field,
/// its tag, length and encoding: the bytes `prost` writes of it in the
/// graph. Plain nodes are encoded from their [`PlainNode`], no `NodeProto`
/// built, measured and dropped.
pub(super) fn encoded_node_list<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    grammar: &Handoff<'t, 's, I, E>,
    out: &mut Vec<u8>,
) -> Option<()> {
    expect(inp, Token::LBrace)?;
    // One node read into after another, its vectors' room kept.
    let mut node = PlainNode {
        encoded_attributes: Some(Vec::new()),
        ..PlainNode::default()
    };
    loop {
        if eat(inp, Token::RBrace) {
            return Some(());
        }
        match attempt(inp, |inp| {
            plain_node(inp, &grammar.attribute_value, &mut node)
        }) {
            Some(()) => node.encode(out),
            None => message::encode(GRAPH_NODE, &hand(inp, &grammar.node)?, out),
        }
    }
}

/// A plain node as read: its bare names borrowed from the text, its
/// attributes built, or encoded as read when the node is to be encoded.
#[derive(Default)]
struct PlainNode<'s> {
    input: Vec<Cow<'s, str>>,
    output: Vec<Cow<'s, str>>,
    name: Option<Cow<'s, str>>,
    op_type: &'s str,
    attribute: Vec<AttributeProto>,
    /// For a node to be encoded, in place of `attribute`: its attributes
    /// encoded as read, each as a node's `attribute` field.
    encoded_attributes: Option<Vec<u8>>,
    domain: Option<String>,
}

/// `NodeProto`'s field numbers, of the fields a [`PlainNode`] has.
const NODE_INPUT: u32 = 1;
const NODE_OUTPUT: u32 = 2;
const NODE_NAME: u32 = 3;
const NODE_OP_TYPE: u32 = 4;
const NODE_ATTRIBUTE: u32 = 5;
const NODE_DOMAIN: u32 = 7;

/// `AttributeProto`'s field numbers, of the fields an attribute encoded as
/// read has.
const ATTRIBUTE_NAME: u32 = 1;
const ATTRIBUTE_F: u32 = 2;
const ATTRIBUTE_I: u32 = 3;
const ATTRIBUTE_S: u32 = 4;
const ATTRIBUTE_T: u32 = 5;
const ATTRIBUTE_FLOATS: u32 = 7;
const ATTRIBUTE_INTS: u32 = 8;
const ATTRIBUTE_STRINGS: u32 = 9;
const ATTRIBUTE_TYPE: u32 = 20;

impl PlainNode<'_> {
    fn into_proto(self) -> NodeProto {
        NodeProto {
            input: self.input.into_iter().map(Cow::into_owned).collect(),
            output: self.output.into_iter().map(Cow::into_owned).collect(),
            name: self.name.map(Cow::into_owned),
            op_type: Some(self.op_type.to_owned()),
            domain: self.domain,
            attribute: exact(self.attribute),
            ..NodeProto::default()
        }
    }

    /// Appends the node to `out` as a graph's `node` field, in `prost`'s
    /// order (that of the field numbers).
    fn encode(&self, out: &mut Vec<u8>) {
        let encoded = encode_delimited(GRAPH_NODE, out, |out| {
            for input in &self.input {
                encode_string(NODE_INPUT, input, out);
            }
            for output in &self.output {
                encode_string(NODE_OUTPUT, output, out);
            }
            if let Some(name) = &self.name {
                encode_string(NODE_NAME, name, out);
            }
            encode_string(NODE_OP_TYPE, self.op_type, out);
            for attribute in &self.attribute {
                message::encode(NODE_ATTRIBUTE, attribute, out);
            }
            if let Some(attributes) = &self.encoded_attributes {
                out.extend_from_slice(attributes);
            }
            if let Some(domain) = &self.domain {
                encode_string(NODE_DOMAIN, domain, out);
            }
            Some(())
        });
        debug_assert!(encoded.is_some());
    }
}

/// Appends the attribute `name (: declared)? = value` to `out` as a node's
/// `attribute` field, the bytes `prost` writes of the attribute `fill`
/// makes of it, when its value is a number, a string, a flat list of
/// numbers or of strings, or a tensor, and is of the declared type if one
/// is written; else (another value, or one `fill` refuses) appends nothing
/// and gives `None`.
fn encode_attribute(
    name: &str,
    declared: Option<AttributeType>,
    value: &Written<'_>,
    out: &mut Vec<u8>,
) -> Option<()> {
    encode_delimited(NODE_ATTRIBUTE, out, |out| {
        encode_string(ATTRIBUTE_NAME, name, out);
        let kind = match value {
            Written::One(single, span) => encode_single(single, *span, declared, out)?,
            Written::List(items) => encode_list(items, declared, out)?,
        };
        int32::encode(ATTRIBUTE_TYPE, &(kind as i32), out);
        Some(())
    })
}

/// The value field of a single value, as `fill` stores it; its type.
fn encode_single(
    single: &Single<'_>,
    span: SimpleSpan,
    declared: Option<AttributeType>,
    out: &mut Vec<u8>,
) -> Option<AttributeType> {
    use AttributeType as A;
    Some(match (single, declared) {
        (Single::Int(text), None | Some(A::Int)) => {
            int64::encode(ATTRIBUTE_I, &text.parse().ok()?, out);
            A::Int
        }
        (Single::Float(text), None | Some(A::Float)) | (Single::Int(text), Some(A::Float)) => {
            float::encode(ATTRIBUTE_F, &float(text, span).ok()?, out);
            A::Float
        }
        (Single::Bytes(bytes), None | Some(A::String)) => {
            encode_bytes(ATTRIBUTE_S, bytes, out);
            A::String
        }
        (Single::Tensor(tensor), None | Some(A::Tensor)) => {
            message::encode(ATTRIBUTE_T, &**tensor, out);
            A::Tensor
        }
        _ => return None,
    })
}

/// The value fields of a flat list of numbers or of strings, as `fill`
/// stores them (an `int` among `float`s made a `float`); its type.
fn encode_list(
    items: &[(Single<'_>, SimpleSpan)],
    declared: Option<AttributeType>,
    out: &mut Vec<u8>,
) -> Option<AttributeType> {
    use AttributeType as A;
    let element = match (declared, items.first()) {
        (Some(A::Ints), _) | (None, Some((Single::Int(_), _))) => A::Int,
        (Some(A::Floats), _) | (None, Some((Single::Float(_), _))) => A::Float,
        (Some(A::Strings), _) | (None, Some((Single::Bytes(_), _))) => A::String,
        _ => return None,
    };
    for (single, span) in items {
        match (element, single) {
            (A::Int, Single::Int(text)) => int64::encode(ATTRIBUTE_INTS, &text.parse().ok()?, out),
            (A::Float, Single::Int(text) | Single::Float(text)) => {
                float::encode(ATTRIBUTE_FLOATS, &float(text, *span).ok()?, out);
            }
            (A::String, Single::Bytes(bytes)) => encode_bytes(ATTRIBUTE_STRINGS, bytes, out),
            _ => return None,
        }
    }
    Some(match element {
        A::Int => A::Ints,
        A::Float => A::Floats,
        _ => A::Strings,
    })
}

/// `[label] outputs = operator call`, into `node` (emptied first).
fn plain_node<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    value: &Parsed<'t, I, E, Written<'s>>,
    node: &mut PlainNode<'s>,
) -> Option<()> {
    node.input.clear();
    node.output.clear();
    node.attribute.clear();
    if let Some(attributes) = &mut node.encoded_attributes {
        attributes.clear();
    }
    node.name = if eat(inp, Token::LBracket) {
        match inp.next()? {
            Token::RBracket => Some(Cow::Borrowed("")),
            token => {
                let label = name_in_text(token)?;
                expect(inp, Token::RBracket)?;
                Some(label)
            }
        }
    } else {
        None
    };
    let next_name = |inp: &mut Reader<'t, '_, I, E>| name_in_text(inp.next()?);
    let after = separated_onto(inp, &mut node.output, |inp, output| {
        output.push(next_name(inp)?);
        Some(())
    })?;
    (after == Token::Eq).then_some(())?;
    let (domain, op_type, after) = operator(inp)?;
    (node.domain, node.op_type) = (domain, op_type);
    match after {
        Token::LAngle => {
            attributes(inp, value, node)?;
            expect(inp, Token::LParen)?;
            up_to_onto(inp, Token::RParen, &mut node.input, next_name)
        }
        Token::LParen => {
            up_to_onto(inp, Token::RParen, &mut node.input, next_name)?;
            if eat(inp, Token::LAngle) {
                attributes(inp, value, node)?;
            }
            Some(())
        }
        _ => None,
    }
}

/// `Op` or `domain.parts.Op`, as (domain, op type, the token after it).
fn operator<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
) -> Option<(Option<String>, &'s str, Token<'s>)> {
    let Token::Ident(first) = inp.next()? else {
        return None;
    };
    let mut domain: Option<String> = None;
    let mut last = first;
    loop {
        match inp.next()? {
            Token::Dot => {
                let Token::Ident(part) = inp.next()? else {
                    return None;
                };
                let domain = domain.get_or_insert_with(String::new);
                if !domain.is_empty() {
                    domain.push('.');
                }
                domain.push_str(last);
                last = part;
            }
            after => return Some((domain, last, after)),
        }
    }
}

/// The attributes after their `<`, up to and including the `>`, onto
/// `node`'s: each filled in place onto its `attribute`, or encoded.
fn attributes<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    value: &Parsed<'t, I, E, Written<'s>>,
    node: &mut PlainNode<'s>,
) -> Option<()> {
    let after = separated_onto(inp, node, |inp, node| {
        let (name, declared, written) = attribute(inp, value)?;
        let Some(out) = &mut node.encoded_attributes else {
            node.attribute.push(AttributeProto::default());
            let attribute = node.attribute.last_mut()?;
            attribute.name = Some(name.into_owned());
            return fill(attribute, declared, written).ok();
        };
        if encode_attribute(&name, declared, &written, out).is_none() {
            #[cfg(test)]
            crate::parser::fast::tally::attribute_built_to_encode();
            let mut attribute = AttributeProto {
                name: Some(name.into_owned()),
                ..AttributeProto::default()
            };
            fill(&mut attribute, declared, written).ok()?;
            message::encode(NODE_ATTRIBUTE, &attribute, out);
        }
        Some(())
    })?;
    (after == Token::RAngle).then_some(())
}

/// `name (: type)? = value`, as (name, declared type, value).
fn attribute<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    value: &Parsed<'t, I, E, Written<'s>>,
) -> Option<(Cow<'s, str>, Option<AttributeType>, Written<'s>)> {
    let name = name_in_text(inp.next()?)?;
    let declared = match inp.next()? {
        Token::Colon => {
            let Token::Ident(ty) = inp.next()? else {
                return None;
            };
            let declared = attribute_type_by_name(ty)?;
            expect(inp, Token::Eq)?;
            Some(declared)
        }
        Token::Eq => None,
        _ => return None,
    };
    let plain =
        |inp: &mut Reader<'t, '_, I, E>| attempt(inp, literals).or_else(|| attempt(inp, constant));
    let written = or_grammar(inp, plain, value)?;
    Some((name, declared, written))
}

/// A literal value, or a bracketed list of literal values.
fn literals<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
) -> Option<Written<'s>> {
    if eat(inp, Token::LBracket) {
        up_to(inp, Token::RBracket, literal).map(Written::List)
    } else {
        literal(inp).map(|(single, span)| Written::One(single, span))
    }
}

/// A number or a `"..."` string, with its span.
fn literal<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
) -> Option<(Single<'s>, SimpleSpan)> {
    let before = inp.cursor();
    let single = match inp.next()? {
        Token::Int(text) => Single::Int(text),
        Token::Float(text) => Single::Float(text),
        Token::Ident(text) if is_special_float(text) => Single::Float(text),
        Token::Str(raw) => Single::Bytes(unquote(raw).into_bytes()),
        _ => return None,
    };
    Some((single, inp.span_since(&before)))
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use crate::parser::fast::tests::{broken, encoded_as_read};
    use crate::proto::{GraphProto, NodeProto};
    use crate::{parse_model, parse_model_with_source_map, parse_node, parse_nodes};

    /// Nodes of every form: the plain ones, the ones whose values the
    /// grammar reads for this module, the ones it gives back, and mistakes.
    const NODES: &[&str] = &[
        "y = Relu (x)",
        "y = Relu(x)",
        "[] y = Relu (x)",
        "[n] y = Relu (x)",
        r#"["/a/b"] "/a/b_output_0", z = Split <axis: int = 0> ("/x", "w\"q")"#,
        "y = com.microsoft.Fused <k = 1> (x)",
        "y = a.b.c.Op (x)",
        "y = .Op (x)",
        "y = \"\".Op (x)",
        "y = Op:v2 (x)",
        "y = Op ()",
        "y = Op (,x)",
        "y = Op (x,)",
        "y = Op (x,,z)",
        "y, = Op (x)",
        "= Op (x)",
        "y = Op (x) <k = 1, j = 2.5>",
        "y = Op <k = 1> (x) <j = 2>",
        "y = Op <> (x)",
        "y = Op <k = 1,> (x)",
        "y = Op <k: float = 1, f: floats = [1, 2.5], i: ints = [], s = \"a\\\"b\"> (x)",
        "y = Op <k: int = 1.5> (x)",
        "y = Op <k: ints = 1> (x)",
        "y = Op <k = []> (x)",
        "y = Op <k = [1, 2.5]> (x)",
        "y = Op <k = [\"a\", \"b\"], j = [inf, -inf, nan, 1e5]> (x)",
        "y = Op <k = 99999999999999999999> (x)",
        "y = Op <k = 1e99> (x)",
        "y = Op <k: wrong = 1> (x)",
        "y = Op <value: tensor = int64[2] {1, 2}> ()",
        "y = Op <value = float[2] {1, 2}, t = [int64[1] {1}, int64[1] {2}]> ()",
        "y = Op <ty: type = float[N]> (x)",
        "y = Constant <value = float {3.5}> ()",
        "y = Constant <value = float[2, 2] {1, -2.5e3, nan, -inf}> ()",
        "y = Constant <value = double[2] {1, 2}, v2 = float16[2] {1, 2.5}> ()",
        "y = Constant <value = bool[2] {1, 0}, u = uint64[1] {18446744073709551615}> ()",
        "y = Constant <value = int8[1] {300}> ()",
        "y = Constant <value = float[3] {1, 2}> ()",
        "y = Constant <value = float[N] {1}> ()",
        "y = Constant <value = float[] {1}> ()",
        "y = Constant <value = float[1] {1 2}> ()",
        "y = Constant <value = string[1] {\"a\"}> ()",
        "y = Constant <value = float[1] t {1}, u = float[1] = {1}> ()",
        "y = Constant <value: floats = float[1] {1}> ()",
        "y = If <then_branch = g () => (float z) { z = Relu (x) }> (c)",
        "y = If <then_branch = \"g\" () => (float z) { z = Relu (x) }> (c)",
        "y = Op <k = @outer, j: int = @other> (x)",
        "y = Op <k = [1, @outer]> (x)",
        "y = Op <k = b\"\\x01\"> (x)",
        "y = Op <\"quoted name\" = 1> (x)",
        "y = Op <@<doc_string: \"d\"> k = 1> (x)",
        "@<doc_string: \"d\"> y = Op (x)",
        "y = Op <k = True> (x)",
        "y = Op <k = 1 2> (x)",
        "y = Op <k = [1 2]> (x)",
        "y = Op (x, axis = 1)",
        "b\"y\" = Op (x)",
        "[b\"n\"] y = Op (x)",
        "y = Op (b\"x\")",
    ];

    /// Nodes encoded (as a graph's), so that NaN values compare equal.
    fn encoded(node: Vec<NodeProto>) -> Vec<u8> {
        GraphProto {
            node,
            ..GraphProto::default()
        }
        .encode_to_vec()
    }

    #[test]
    fn plain_nodes_read_as_the_grammar_reads_them() {
        for text in NODES {
            // One node read by the grammar, and a node list, where this
            // module reads it first.
            let grammar = parse_node(text).map(|n| encoded(vec![n]));
            let list = parse_nodes(&format!("{{\n{text}\n}}")).map(encoded);
            match (grammar, list) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
                (Err(_), Err(_)) => {}
                (grammar, list) => panic!(
                    "{text}: the grammar gives {:?}, a node list {:?}",
                    grammar.map(|_| "a node"),
                    list.map(|_| "a node")
                ),
            }
        }
    }

    #[test]
    fn a_model_parses_the_same_with_and_without_a_source_map() {
        let body: Vec<&str> = NODES
            .iter()
            .copied()
            .filter(|text| parse_node(text).is_ok())
            .collect();
        let text = format!(
            "g (float x, bool c) => (float y) {{\n{}\n}}",
            body.join("\n")
        );
        let plain = parse_model(&text).unwrap();
        let (mapped, _) = parse_model_with_source_map(&text).unwrap();
        assert_eq!(plain.encode_to_vec(), mapped.encode_to_vec());
        assert_eq!(plain.graph.unwrap().node.len(), body.len());
    }

    /// Every node form of [`NODES`] in a model's main graph, alone and all
    /// the parseable ones together, after a header and before a function;
    /// nodes whose encoding is 128 bytes and more (a two- and a
    /// three-byte length); the shipped examples; and each of them cut and
    /// with stray tokens: the main graph's nodes of every model that parses
    /// here are encoded as read (the model is plain, its nodes plain or
    /// handed to the grammar), and the bytes are those of its IR.
    #[test]
    fn nodes_encoded_as_read_are_the_bytes_of_their_ir() {
        let model = |body: &str| {
            format!(
                "<ir_version: 10, opset_import: [\"\": 21]>\n\
                 g (float x, bool c) => (float y) {{\n{body}\n}}\n\
                 <domain: \"f\", opset_import: [\"\": 21]> F (x) => (y) {{ y = Relu(x) }}\n"
            )
        };
        let plain: Vec<&str> = NODES
            .iter()
            .copied()
            .filter(|text| parse_node(text).is_ok())
            .collect();
        let long = |inputs: usize| {
            let names: Vec<String> = (0..inputs).map(|i| format!("x{i}")).collect();
            format!("y = Concat <axis = 0> ({})", names.join(", "))
        };
        let mut texts: Vec<String> = NODES.iter().map(|text| model(text)).collect();
        texts.push(model(&plain.join("\n")));
        texts.extend([long(40), long(5_000)].iter().map(|node| model(node)));
        let examples: Vec<String> = crate::parser::fast::tests::examples()
            .into_iter()
            .map(|(_, text)| text)
            .collect();
        texts.extend(examples.iter().cloned());
        for text in &texts {
            let parses = parse_model(text).is_ok();
            let nodes = encoded_as_read(text).is_some_and(|read| read.nodes);
            assert_eq!(nodes, parses, "{text}");
            for broken in broken(text) {
                encoded_as_read(&broken);
            }
        }
    }

    /// How a node's attribute of a model parsed to its encoding is read.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Read {
        /// Encoded as read, no `AttributeProto` built.
        Encoded,
        /// Built by `fill`, then encoded.
        Built,
        /// Refused: the model does not parse.
        Refused,
    }

    /// Attributes of every form, and how each is read.
    const ATTRIBUTES: &[(&str, Read)] = &[
        ("k = 1", Read::Encoded),
        ("k: int = -3", Read::Encoded),
        ("k = -9223372036854775808", Read::Encoded),
        ("k = 2.5", Read::Encoded),
        ("k: float = 1", Read::Encoded),
        ("k: float = -0.0", Read::Encoded),
        ("k = inf, j = -inf, l = nan, m = 1e-45", Read::Encoded),
        (r#"s = "a\"b", t: string = """#, Read::Encoded),
        (r#"s = b"\x01""#, Read::Encoded),
        (r#""quoted name" = 1"#, Read::Encoded),
        ("k = [1, -2, 3], j: ints = [1], l: ints = []", Read::Encoded),
        (
            "k = [1.5, 2], j: floats = [1, 2.5], l: floats = []",
            Read::Encoded,
        ),
        (
            r#"k = ["a", "b"], j: strings = ["a"], l: strings = []"#,
            Read::Encoded,
        ),
        ("value = float[2] {1, 2}", Read::Encoded),
        ("value: tensor = int64[2] {1, 2}", Read::Encoded),
        (r#"value = float {3.5}, s = string[1] {"a"}"#, Read::Encoded),
        ("k = [int64[1] {1}, int64[1] {2}]", Read::Built),
        ("k: tensors = []", Read::Built),
        ("ty: type_proto = float[N]", Read::Built),
        ("ty: type = float[N]", Read::Refused),
        ("g = g () => (float z) { z = Relu (x) }", Read::Built),
        ("k = @outer, j: ints = @other", Read::Built),
        ("k = 9223372036854775808", Read::Refused),
        ("k = 1e99", Read::Refused),
        ("k: int = 1.5", Read::Refused),
        ("k: ints = 1", Read::Refused),
        ("k = []", Read::Refused),
        ("k = [1, 2.5]", Read::Refused),
        ("k: string = 1", Read::Refused),
        (r#"k: float = "a""#, Read::Refused),
        (r#"k: floats = ["a"]"#, Read::Refused),
        ("k: strings = [1]", Read::Refused),
        (r#"k = ["a", 1]"#, Read::Refused),
        ("k: tensor = 1", Read::Refused),
        ("k = [1, @outer]", Read::Refused),
        ("k: ints = [1, 9223372036854775808]", Read::Refused),
        ("k: floats = [1e99]", Read::Refused),
        ("k = FLOAT", Read::Refused),
    ];

    /// Every attribute form of [`ATTRIBUTES`] in a node of a model's main
    /// graph, alone; all the parseable ones in one node, and one a node;
    /// attributes of 128 bytes and more (a two- and a three-byte length);
    /// and each of them cut and with stray tokens: the common forms are
    /// encoded as read, no `AttributeProto` built, and the bytes of every
    /// model are those of its IR (or its diagnostics the same).
    #[test]
    fn attributes_encoded_as_read_are_the_bytes_of_their_ir() {
        use crate::parser::fast::tally::attributes_built_to_encode;
        let model = |body: &str| format!("g (float x) => (float y) {{\n{body}\n}}");
        let node = |attributes: &str| format!("y = Op <{attributes}> (x)");
        let read = |form: &str| {
            let text = model(&node(form));
            match attributes_built_to_encode(|| encoded_as_read(&text)) {
                (None, _) => Read::Refused,
                (Some(_), 0) => Read::Encoded,
                (Some(_), _) => Read::Built,
            }
        };
        let misread: Vec<_> = (ATTRIBUTES.iter())
            .map(|&(form, expected)| (form, expected, read(form)))
            .filter(|(_, expected, read)| expected != read)
            .collect();
        assert!(misread.is_empty(), "{misread:?}");
        let parseable: Vec<&str> = (ATTRIBUTES.iter())
            .filter(|(_, read)| *read != Read::Refused)
            .map(|(form, _)| *form)
            .collect();
        let long_string = format!("s = \"{}\"", "a".repeat(200));
        let long_list = format!("k: ints = [{}]", vec!["-1"; 2_000].join(", "));
        let one_a_node: Vec<String> = parseable.iter().map(|form| node(form)).collect();
        let texts = [
            model(&node(&parseable.join(", "))),
            model(&one_a_node.join("\n")),
            model(&node(&format!("{long_string}, {long_list}, k = 1"))),
        ];
        for text in &texts {
            assert!(
                encoded_as_read(text).is_some_and(|read| read.nodes),
                "{text}"
            );
            for broken in broken(text) {
                encoded_as_read(&broken);
            }
        }
    }

    /// The node buffer of a model parsed to its encoding is made once, with
    /// room for as many bytes as the text has: a model of every plain node
    /// form, and the examples whose nodes are encoded as read.
    #[test]
    fn the_node_buffer_is_made_once_from_the_text_length() {
        use crate::parser::entry::encode_on_one_thread;
        let plain: Vec<&str> = (NODES.iter().copied())
            .filter(|text| parse_node(text).is_ok())
            .collect();
        let mut texts = vec![format!(
            "g (float x, bool c) => (float y) {{\n{}\n}}",
            plain.join("\n")
        )];
        let examples = crate::parser::fast::tests::examples();
        texts.extend(examples.into_iter().map(|(_, text)| text));
        for text in &texts {
            let (_, runs, _) = encode_on_one_thread(text).unwrap();
            // A model given back to the grammar has its nodes in the IR.
            if let Some(run) = runs.nodes.first() {
                assert_eq!(run.pieces[0].capacity(), text.len(), "{text}");
            }
        }
        let (_, runs, _) = encode_on_one_thread(&texts[0]).unwrap();
        assert_eq!(runs.nodes.len(), 1);
    }

    #[test]
    fn attributes_are_kept_in_a_vector_of_their_size() {
        for count in 1..=9 {
            let attributes: Vec<String> = (0..count).map(|i| format!("k{i} = {i}")).collect();
            let text = format!("{{\n  y = Op <{}> (x)\n}}", attributes.join(", "));
            let nodes = parse_nodes(&text).unwrap();
            let attributes = &nodes[0].attribute;
            assert_eq!((attributes.len(), attributes.capacity()), (count, count));
        }
    }

    #[test]
    fn mistakes_in_plain_nodes_are_explained_by_the_grammar() {
        let error = parse_nodes("{\n  y = Relu (x)\n  z = Op <k = 1,> (y)\n}").unwrap_err();
        let message = &error.diagnostics()[0].message;
        assert!(message.contains("found `>`"), "{message}");
    }
}
