//! The plain forms, read token by token before the grammar: the shapes
//! nearly all text comes in, written as the reference printer writes them.
//!
//! | file | reads |
//! |---|---|
//! | `node.rs` | node lists, and nodes `[label] outputs = domain.Op <attrs> (inputs)` |
//! | `graph.rs` | models with a header, graphs, value infos and tensor types |
//!
//! The grammar reads every form, but its layers of combinators cost
//! several times what reading the tokens does: for a small model, such as
//! the conformance corpus's, far more than lexing it. Each reader here
//! builds its construct with the grammar's own pieces (attributes are typed
//! by `fill`, header entries applied by `apply_model_header`), and hands
//! what it does not read itself (a tensor constant, a subgraph, a `seq`
//! type, a node with an annotation) to the grammar's production for it.
//! On anything else, and on any mistake, a reader gives its construct back
//! untouched and the grammar reads it, and explains the mistake.
//!
//! A parse that records landmarks (for a source map) always takes the
//! grammar, which records them; comparing the two parses is how the tests
//! and the `parse_text` fuzz target check that these readers read exactly
//! what the grammar would.

mod graph;
mod node;

use chumsky::input::InputRef;
use chumsky::prelude::*;

use super::common::unquote;
use super::recovery::no_match;
use super::{Extra, Fail, Tokens};
use crate::lexer::Token;

pub(crate) use graph::{graph, model};
pub(crate) use node::node_list;

/// The tokens, as the readers see them.
type Reader<'t, 'p, I, E> = InputRef<'t, 'p, I, Extra<E>>;

/// The production that `read` reads, or no match (consuming nothing) when
/// it gives up, or when landmarks are being recorded.
fn fast_path<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O>(
    read: impl Fn(&mut Reader<'t, '_, I, E>) -> Option<O> + Clone,
) -> impl Parser<'t, I, O, Extra<E>> + Clone {
    custom(move |inp: &mut Reader<'t, '_, I, E>| {
        let before = inp.cursor();
        if !inp.state().is_recording() {
            let start = inp.save();
            if let Some(output) = read(inp) {
                return Ok(output);
            }
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
    match token {
        Token::Ident(name) => Some(name.to_owned()),
        Token::Str(raw) => Some(unquote(raw)),
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
    // The capacity a first push gives, without the cost of growing.
    let mut items = Vec::with_capacity(4);
    loop {
        items.push(item(inp)?);
        match inp.next()? {
            Token::Comma => {}
            after => return Some((items, after)),
        }
    }
}

/// Items separated by commas, or none, up to and including `close`.
fn up_to<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, T>(
    inp: &mut Reader<'t, '_, I, E>,
    close: Token<'s>,
    item: impl FnMut(&mut Reader<'t, '_, I, E>) -> Option<T>,
) -> Option<Vec<T>> {
    if eat(inp, close) {
        return Some(Vec::new());
    }
    let (items, after) = separated(inp, item)?;
    (after == close).then_some(items)
}
