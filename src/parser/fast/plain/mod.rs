//! The plain forms, read token by token before the grammar: the shapes
//! nearly all text comes in, written as the reference printer writes them.
//!
//! | file | reads |
//! |---|---|
//! | `node.rs` | node lists, and nodes `[label] outputs = domain.Op <attrs> (inputs)` |
//! | `graph.rs` | models with a header, graphs, their value infos and initializers |
//! | `tensor.rs` | tensor types, and tensor constants as attribute values |
//!
//! The grammar reads every form, but its layers of combinators cost
//! several times what reading the tokens does: for a small model, such as
//! the conformance corpus's, far more than lexing it. Each reader here
//! builds its construct with the grammar's own pieces (attributes are typed
//! by `fill`, header entries applied by `apply_model_header`), and hands
//! what it does not read itself (a subgraph, a tensor of strings, a `seq`
//! type, a node with an annotation, a function) to the grammar's
//! production for it. On anything else, and on any mistake, a reader
//! gives its construct back untouched and the grammar reads it, and
//! explains the mistake.
//!
//! A parse that records landmarks (for a source map) always takes the
//! grammar, which records them; comparing the two parses is how the tests
//! and the `parse_text` fuzz target check that these readers read exactly
//! what the grammar would.

mod graph;
mod node;
mod tensor;

pub(crate) use graph::{EncodedMainGraph, ListEntries};

use std::borrow::Cow;

use chumsky::input::InputRef;
use chumsky::prelude::*;
use prost::encoding::{encode_key, encode_varint, encoded_len_varint, WireType};

use crate::lexer::Token;
use crate::parser::annotation::Value;
use crate::parser::attribute::Written;
use crate::parser::common::unquote;
use crate::parser::recovery::no_match;
use crate::parser::{Extra, Fail, Parsed, Tokens};
use crate::proto::{FunctionProto, GraphProto, ModelProto, NodeProto, TypeProto};

/// The tokens, as the readers see them.
type Reader<'t, 'p, I, E> = InputRef<'t, 'p, I, Extra<E>>;

/// The grammar's productions that the readers hand parts to.
pub(crate) struct Handoff<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>> {
    /// A type.
    pub(crate) ty: Parsed<'t, I, E, TypeProto>,
    /// The value of a header entry.
    pub(crate) header_value: Parsed<'t, I, E, Value>,
    /// The value of an attribute.
    pub(crate) attribute_value: Parsed<'t, I, E, Written<'s>>,
    /// A node.
    pub(crate) node: Parsed<'t, I, E, NodeProto>,
}

impl<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>> Clone for Handoff<'t, 's, I, E> {
    fn clone(&self) -> Self {
        Handoff {
            ty: self.ty.clone(),
            header_value: self.header_value.clone(),
            attribute_value: self.attribute_value.clone(),
            node: self.node.clone(),
        }
    }
}

/// A model, `<header>? graph function*`, its functions read by the
/// grammar's `function` production; boxed, as the grammar's.
pub(crate) fn model<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    grammar: Handoff<'t, 's, I, E>,
    function: Parsed<'t, I, E, FunctionProto>,
) -> impl Parser<'t, I, Box<ModelProto>, Extra<E>> + Clone {
    fast_path(move |inp| graph::model(inp, &grammar, &function))
}

/// A graph without annotations.
pub(crate) fn graph<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    grammar: Handoff<'t, 's, I, E>,
) -> impl Parser<'t, I, GraphProto, Extra<E>> + Clone {
    fast_path(move |inp| graph::graph(inp, &grammar, None))
}

/// `{ node* }`.
pub(crate) fn node_list<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    grammar: Handoff<'t, 's, I, E>,
) -> impl Parser<'t, I, Vec<NodeProto>, Extra<E>> + Clone {
    fast_path(move |inp| node::node_list(inp, &grammar))
}

/// Nodes up to the end of the input, with no braces.
pub(crate) fn node_run<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    grammar: Handoff<'t, 's, I, E>,
) -> impl Parser<'t, I, Vec<NodeProto>, Extra<E>> + Clone {
    fast_path(move |inp| node::node_run(inp, &grammar))
}

/// Entries of a graph's `<...>` list up to the end of the input, with no
/// brackets around them.
pub(crate) fn list_run<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    grammar: Handoff<'t, 's, I, E>,
) -> impl Parser<'t, I, ListEntries, Extra<E>> + Clone {
    fast_path(move |inp| graph::list_run(inp, &grammar.ty))
}

/// The production that `read` reads, or no match (consuming nothing) when
/// it gives up, or when landmarks are being recorded.
fn fast_path<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O>(
    read: impl Fn(&mut Reader<'t, '_, I, E>) -> Option<O> + Clone,
) -> impl Parser<'t, I, O, Extra<E>> + Clone {
    custom(move |inp: &mut Reader<'t, '_, I, E>| {
        let before = inp.cursor();
        if !inp.state().landmarks.is_recording() {
            let start = inp.save();
            if let Some(output) = read(inp) {
                #[cfg(test)]
                super::tally::read();
                return Ok(output);
            }
            #[cfg(test)]
            super::tally::given_back();
            inp.rewind(start);
        }
        Err(no_match(inp, &before))
    })
}

/// What `read` reads, or `None` with nothing consumed.
fn attempt<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O>(
    inp: &mut Reader<'t, '_, I, E>,
    read: impl FnOnce(&mut Reader<'t, '_, I, E>) -> Option<O>,
) -> Option<O> {
    let start = inp.save();
    let output = read(inp);
    if output.is_none() {
        inp.rewind(start);
    }
    output
}

/// What `read` reads, or else what the grammar's `production` parses
/// there: how a reader hands a part it does not read to the grammar.
fn or_grammar<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O>(
    inp: &mut Reader<'t, '_, I, E>,
    read: impl FnOnce(&mut Reader<'t, '_, I, E>) -> Option<O>,
    production: &Parsed<'t, I, E, O>,
) -> Option<O> {
    attempt(inp, read).or_else(|| hand(inp, production))
}

/// What the grammar's `production` parses here: a part a reader does not
/// read itself.
fn hand<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O>(
    inp: &mut Reader<'t, '_, I, E>,
    production: &Parsed<'t, I, E, O>,
) -> Option<O> {
    #[cfg(test)]
    super::tally::handed();
    inp.parse(production).ok()
}

/// Consumes the next token, which must be `token`.
fn expect<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    token: Token<'s>,
) -> Option<()> {
    (inp.next()? == token).then_some(())
}

/// Consumes the next token if it is `token`.
fn eat<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    token: Token<'s>,
) -> bool {
    let found = inp.peek() == Some(token);
    if found {
        inp.skip();
    }
    found
}

/// A bare or quoted name.
fn name(token: Token<'_>) -> Option<String> {
    name_in_text(token).map(Cow::into_owned)
}

/// A bare or quoted name, borrowed from the text when it is bare.
fn name_in_text(token: Token<'_>) -> Option<Cow<'_, str>> {
    match token {
        Token::Ident(name) => Some(Cow::Borrowed(name)),
        Token::Str(raw) => Some(Cow::Owned(unquote(raw))),
        _ => None,
    }
}

/// The next token, as a name.
fn next_name<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
) -> Option<String> {
    name(inp.next()?)
}

/// Items separated by commas, at least one; returns them and the token
/// after the last.
fn separated<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, T>(
    inp: &mut Reader<'t, '_, I, E>,
    mut item: impl FnMut(&mut Reader<'t, '_, I, E>) -> Option<T>,
) -> Option<(Vec<T>, Token<'s>)> {
    separated_into(inp, |inp, items| {
        items.push(item(inp)?);
        Some(())
    })
}

/// `items` in a vector of their exact size. Each move of an
/// `AttributeProto` copies 328 bytes, so attributes are filled in place in
/// a vector read into, then moved once, into one of their exact size: most
/// nodes have one or two attributes, so room for four made the attributes
/// take two or more times the memory they fill, and the time to build a
/// node-heavy IR grows with the memory it takes (see `bench/README.md`).
/// The vector read into is freed at once, so the allocator hands the same
/// memory, still in the cache, to the next list.
fn exact<T>(mut items: Vec<T>) -> Vec<T> {
    if items.len() < items.capacity() {
        let mut exact = Vec::with_capacity(items.len());
        exact.append(&mut items);
        items = exact;
    }
    items
}

/// The loop of [`separated`]: `push` reads an item onto the list.
fn separated_into<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, T>(
    inp: &mut Reader<'t, '_, I, E>,
    push: impl FnMut(&mut Reader<'t, '_, I, E>, &mut Vec<T>) -> Option<()>,
) -> Option<(Vec<T>, Token<'s>)> {
    // The capacity a first push gives, without the cost of growing.
    let mut items = Vec::with_capacity(4);
    let after = separated_onto(inp, &mut items, push)?;
    Some((items, after))
}

/// [`separated_into`] onto `items`, a vector read into before (its room
/// kept), or any other place `push` writes the items to; returns the token
/// after the last item.
fn separated_onto<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, C>(
    inp: &mut Reader<'t, '_, I, E>,
    items: &mut C,
    mut push: impl FnMut(&mut Reader<'t, '_, I, E>, &mut C) -> Option<()>,
) -> Option<Token<'s>> {
    loop {
        push(inp, items)?;
        match inp.next()? {
            Token::Comma => {}
            after => return Some(after),
        }
    }
}

/// Items separated by commas, or none, up to and including `close`.
fn up_to<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, T>(
    inp: &mut Reader<'t, '_, I, E>,
    close: Token<'s>,
    item: impl FnMut(&mut Reader<'t, '_, I, E>) -> Option<T>,
) -> Option<Vec<T>> {
    let mut items = Vec::new();
    up_to_onto(inp, close, &mut items, item)?;
    Some(items)
}

/// [`up_to`] onto `items`, a vector read into before (its room kept).
fn up_to_onto<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, T>(
    inp: &mut Reader<'t, '_, I, E>,
    close: Token<'s>,
    items: &mut Vec<T>,
    mut item: impl FnMut(&mut Reader<'t, '_, I, E>) -> Option<T>,
) -> Option<()> {
    up_to_into(inp, close, items, |inp, items| {
        items.push(item(inp)?);
        Some(())
    })
}

/// Items separated by commas, or none, up to and including `close`, each
/// written to `into` by `push`.
fn up_to_into<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, C>(
    inp: &mut Reader<'t, '_, I, E>,
    close: Token<'s>,
    into: &mut C,
    push: impl FnMut(&mut Reader<'t, '_, I, E>, &mut C) -> Option<()>,
) -> Option<()> {
    if eat(inp, close) {
        return Some(());
    }
    let after = separated_onto(inp, into, push)?;
    (after == close).then_some(())
}

/// Appends the string field `number` holding `value`, as `prost` does.
fn encode_string(number: u32, value: &str, out: &mut Vec<u8>) {
    encode_bytes(number, value.as_bytes(), out);
}

/// Appends the bytes field `number` holding `value`, as `prost` does.
fn encode_bytes(number: u32, value: &[u8], out: &mut Vec<u8>) {
    encode_key(number, WireType::LengthDelimited, out);
    encode_varint(value.len() as u64, out);
    out.extend_from_slice(value);
}

/// Appends the message field `number` whose encoding `encode` appends, as
/// `prost` does: its length goes before the encoding, so one byte is left
/// for it, and widened in place (the encoding moved along, no vector made)
/// when the encoding is 128 bytes or more. When `encode` gives `None`,
/// `out` is left as it was.
fn encode_delimited(
    number: u32,
    out: &mut Vec<u8>,
    encode: impl FnOnce(&mut Vec<u8>) -> Option<()>,
) -> Option<()> {
    let start = out.len();
    encode_key(number, WireType::LengthDelimited, out);
    let length_at = out.len();
    out.push(0);
    if encode(out).is_none() {
        out.truncate(start);
        return None;
    }
    let end = out.len();
    let len = (end - length_at - 1) as u64;
    let width = encoded_len_varint(len);
    if width > 1 {
        out.resize(end + width - 1, 0);
        out.copy_within(length_at + 1..end, length_at + width);
    }
    encode_varint(len, &mut &mut out[length_at..length_at + width]);
    Some(())
}
