//! Node lists, and plain nodes: `[label] outputs = domain.Op <attrs>
//! (inputs)`, with bare or quoted names and attributes without
//! annotations. An attribute's value, unless it is a number, a string or a
//! flat list of those, is read by the grammar's value production; a node
//! of any other form by the grammar's node production.
//!
//! A plain node is read into a [`PlainNode`], its bare names borrowed from
//! the text, then built into a `NodeProto`, or encoded straight into the
//! bytes `prost` gives of it ([`encoded_node_list`], the main graph's
//! nodes of a model parsed to its encoding).

use std::borrow::Cow;

use chumsky::prelude::*;
use prost::encoding::{encode_key, encode_varint, encoded_len_varint, message, WireType};

use super::tensor::constant;
use super::{
    attempt, eat, encode_string, exact, expect, hand, name, name_in_text, or_grammar,
    separated_onto, up_to, up_to_onto, Handoff, Reader,
};
use crate::decode::GRAPH_NODE;
use crate::lexer::Token;
use crate::parser::attribute::{fill, Single, Written};
use crate::parser::common::unquote;
use crate::parser::tensor::is_special_float;
use crate::parser::{Fail, Parsed, Tokens};
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
    let mut node = PlainNode::default();
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
/// attributes built.
#[derive(Default)]
struct PlainNode<'s> {
    input: Vec<Cow<'s, str>>,
    output: Vec<Cow<'s, str>>,
    name: Option<Cow<'s, str>>,
    op_type: &'s str,
    attribute: Vec<AttributeProto>,
    domain: Option<String>,
}

/// `NodeProto`'s field numbers, of the fields a [`PlainNode`] has.
const NODE_INPUT: u32 = 1;
const NODE_OUTPUT: u32 = 2;
const NODE_NAME: u32 = 3;
const NODE_OP_TYPE: u32 = 4;
const NODE_ATTRIBUTE: u32 = 5;
const NODE_DOMAIN: u32 = 7;

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
    /// order (that of the field numbers). The length goes before the
    /// encoding: one byte is left for it, and widened in place (the
    /// encoding moved along, no vector made) when the encoding is 128
    /// bytes or more.
    fn encode(&self, out: &mut Vec<u8>) {
        encode_key(GRAPH_NODE, WireType::LengthDelimited, out);
        let length_at = out.len();
        out.push(0);
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
        if let Some(domain) = &self.domain {
            encode_string(NODE_DOMAIN, domain, out);
        }
        let end = out.len();
        let len = (end - length_at - 1) as u64;
        let width = encoded_len_varint(len);
        if width > 1 {
            out.resize(end + width - 1, 0);
            out.copy_within(length_at + 1..end, length_at + width);
        }
        encode_varint(len, &mut &mut out[length_at..length_at + width]);
    }
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
            attributes(inp, value, &mut node.attribute)?;
            expect(inp, Token::LParen)?;
            up_to_onto(inp, Token::RParen, &mut node.input, next_name)
        }
        Token::LParen => {
            up_to_onto(inp, Token::RParen, &mut node.input, next_name)?;
            if eat(inp, Token::LAngle) {
                attributes(inp, value, &mut node.attribute)?;
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

/// The attributes after their `<`, up to and including the `>`, each
/// filled in place onto `attributes`.
fn attributes<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    value: &Parsed<'t, I, E, Written<'s>>,
    attributes: &mut Vec<AttributeProto>,
) -> Option<()> {
    let after = separated_onto(inp, attributes, |inp, attributes| {
        attributes.push(AttributeProto::default());
        attribute(inp, value, attributes.last_mut()?)
    })?;
    (after == Token::RAngle).then_some(())
}

/// `name (: type)? = value`, into `attribute`.
fn attribute<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    value: &Parsed<'t, I, E, Written<'s>>,
    attribute: &mut AttributeProto,
) -> Option<()> {
    attribute.name = Some(name(inp.next()?)?);
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
    fill(attribute, declared, written).ok()
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
