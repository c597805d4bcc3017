//! Plain models, graphs and value infos: a model whose header entries are
//! numbers, strings and `["domain": version]` lists, with any functions
//! after its graph read by the grammar; a graph without annotations or
//! initializers; value infos `type? name`, with tensor types read by
//! `tensor.rs` and other types by the grammar's type production.

use super::node::node_list;
use super::tensor::tensor_type;
use super::{eat, expect, hand, next_name, or_grammar, separated, up_to, Handoff, Reader};
use crate::lexer::Token;
use crate::parser::annotation::{Entry, Value};
use crate::parser::common::unquote;
use crate::parser::graph::apply_model_header;
use crate::parser::{Fail, Parsed, Tokens};
use crate::proto::{FunctionProto, GraphProto, ModelProto, TypeProto, ValueInfoProto};
use crate::vocabulary::starts_type;

/// `<header>? graph function*`, the functions read by `function`.
pub(super) fn model<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    grammar: &Handoff<'t, 's, I, E>,
    function: &Parsed<'t, I, E, FunctionProto>,
) -> Option<ModelProto> {
    let header = if eat(inp, Token::LAngle) {
        let (entries, after) = separated(inp, |inp| entry(inp, &grammar.header_value))?;
        (after == Token::RAngle).then_some(entries)?
    } else {
        Vec::new()
    };
    let graph = graph(inp, grammar)?;
    let mut functions = Vec::new();
    while inp.peek().is_some() {
        functions.push(hand(inp, function)?);
    }
    let mut model = ModelProto {
        graph: Some(graph),
        functions,
        ..ModelProto::default()
    };
    for entry in header {
        apply_model_header(&mut model, entry).ok()?;
    }
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

/// `name (inputs)? => (outputs) <value infos>? { nodes }`.
pub(super) fn graph<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    grammar: &Handoff<'t, 's, I, E>,
) -> Option<GraphProto> {
    let name = next_name(inp)?;
    let list = |inp: &mut Reader<'t, '_, I, E>, close| {
        up_to(inp, close, |inp| value_info(inp, &grammar.ty))
    };
    let input = if eat(inp, Token::LParen) {
        list(inp, Token::RParen)?
    } else {
        Vec::new()
    };
    expect(inp, Token::Arrow)?;
    expect(inp, Token::LParen)?;
    let output = list(inp, Token::RParen)?;
    let value_info = if eat(inp, Token::LAngle) {
        list(inp, Token::RAngle)?
    } else {
        Vec::new()
    };
    Some(GraphProto {
        name: Some(name),
        input,
        output,
        value_info,
        node: node_list(inp, grammar)?,
        ..GraphProto::default()
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

#[cfg(test)]
mod tests {
    use prost::Message;

    use crate::{parse_model, parse_model_with_source_map};

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
            // A parse that records a source map takes the grammar only.
            let plain = parse_model(text);
            let grammar = parse_model_with_source_map(text).map(|(model, _)| model);
            match (plain, grammar) {
                (Ok(a), Ok(b)) => assert_eq!(a.encode_to_vec(), b.encode_to_vec(), "{text}"),
                (Err(a), Err(b)) => assert_eq!(a.diagnostics(), b.diagnostics(), "{text}"),
                (plain, grammar) => panic!(
                    "{text}: the plain readers give {:?}, the grammar {:?}",
                    plain.map(|_| "a model"),
                    grammar.map(|_| "a model")
                ),
            }
        }
    }
}
