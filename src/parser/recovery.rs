//! Error recovery, so that one run reports every independent mistake.
//!
//! A production that fails at a synchronisation point (a node in a node
//! list, an item of a `(...)` or `<...>` list, an entry of a header or an
//! annotation, an attribute of a node, a function of a model) is reported
//! and skipped up to where the next one can start; parsing goes on from
//! there. Skipping goes by token trees: a bracketed group is passed over
//! whole (brackets are known to pair up, `check_tokens` rejects text where
//! they do not), so a skip never stops inside a group and the next item
//! starts where a person would expect it to.
//!
//! None of this runs on valid text: a recovering production runs as usual
//! and only when it fails does the skipping start, so the success path keeps
//! its speed and never backtracks more than before. Anything recovered is an
//! error, so the parse as a whole still fails.
//!
//! After [`MAX_ERRORS`] skips, a broken construct is skipped with the rest
//! of its list, up to the closing bracket or the end of the text: a text
//! with millions of mistakes costs no more errors than one with a few
//! dozen (one more per bracket level at most).

use chumsky::error::{LabelError, RichPattern};
use chumsky::input::{Cursor, InputRef};
use chumsky::prelude::*;

use super::grammar::State;
use super::hints::{closer_of, is_closer};
use super::landmarks::{landmark_with, Kind};
use super::{Extra, Fail, Parsed, Tokens, MAX_ERRORS};
use crate::lexer::Token;

/// Skips one token tree: a bracketed group with everything in it, or one
/// token that is not a bracket. Returns the tree's first token, or `None`,
/// consuming nothing, at a closing bracket or at the end of the input.
fn skip_tree<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut InputRef<'t, '_, I, Extra<E>>,
) -> Option<Token<'s>> {
    let first = inp.peek().filter(|&t| !is_closer(t))?;
    let mut depth = 0usize;
    while let Some(token) = inp.next() {
        if closer_of(token).is_some() {
            depth += 1;
        } else if is_closer(token) {
            depth -= 1;
        }
        if depth == 0 {
            break;
        }
    }
    Some(first)
}

/// The error of a custom parser that does not match at `before`, where
/// it stands: it expects nothing, so it adds nothing to the error that
/// the other alternatives report. Its span is the token found there.
pub(crate) fn no_match<'t, 'p, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut InputRef<'t, 'p, I, Extra<E>>,
    before: &Cursor<'t, 'p, I>,
) -> E {
    let found = inp.peek_maybe();
    let here = inp.save();
    inp.skip();
    let span = inp.span_since(before);
    inp.rewind(here);
    LabelError::<I, _>::expected_found(None::<RichPattern<'t, Token<'s>>>, found, span)
}

/// Skips at least one token tree, then more until `resume` (given the
/// first token of the tree just skipped, and the input after it) finds the
/// start of the next construct, or up to a closing bracket or the end of
/// the input; yields `output` in place of what was skipped. Fails,
/// consuming nothing, if there is nothing to skip, so that an empty list
/// stays empty and a list's end is never skipped.
///
/// Whatever `resume` reads is given back.
fn skip_to<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O: Clone>(
    resume: impl Fn(Token<'s>, &mut InputRef<'t, '_, I, Extra<E>>) -> bool + Clone,
    output: O,
) -> impl Parser<'t, I, O, Extra<E>> + Clone {
    custom(move |inp| {
        let before = inp.cursor();
        let Some(mut skipped) = skip_tree(inp) else {
            return Err(no_match(inp, &before));
        };
        let state: &mut State = inp.state();
        state.recoveries += 1;
        let give_up = state.recoveries > MAX_ERRORS;
        loop {
            if !give_up {
                let here = inp.save();
                let resumes = resume(skipped, inp);
                inp.rewind(here);
                if resumes {
                    return Ok(output.clone());
                }
            }
            match skip_tree(inp) {
                Some(next) => skipped = next,
                None => return Ok(output.clone()),
            }
        }
    })
}

/// `item`, which must be followed by `,` or the closing bracket of its list
/// (not consumed). When it is not, the error is reported and everything up
/// to the next `,` or the end of the list is skipped, standing for `dummy`.
pub(crate) fn list_item<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O: Clone>(
    item: impl Parser<'t, I, O, Extra<E>> + Clone,
    close: Token<'s>,
    dummy: O,
) -> impl Parser<'t, I, O, Extra<E>> + Clone {
    let next_item = |_, inp: &mut InputRef<'t, '_, I, Extra<E>>| inp.peek() == Some(Token::Comma);
    item.then_ignore(one_of([Token::Comma, close]).rewind())
        .recover_with(via_parser(skip_to(next_item, dummy)))
}

/// The brackets of an input or output list.
pub(crate) const PARENS: (Token<'static>, Token<'static>) = (Token::LParen, Token::RParen);

/// The brackets of an attribute list or a `<...>` list.
pub(crate) const ANGLES: (Token<'static>, Token<'static>) = (Token::LAngle, Token::RAngle);

/// `open item, item, ... close`, at least `min` items, each a
/// [`list_item`] (`dummy` standing for one that does not parse).
pub(crate) fn item_list<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O: Clone + 't>(
    item: impl Parser<'t, I, O, Extra<E>> + Clone + 't,
    (open, close): (Token<'s>, Token<'s>),
    min: usize,
    dummy: O,
) -> Parsed<'t, I, E, Vec<O>> {
    delimited(list_item(item, close, dummy), (open, close), min)
}

/// An [`item_list`] whose items are recorded as landmarks of the kind
/// `kind` gives each, one that does not parse (its `dummy`) included, so
/// that the landmarks and the items of the list pair up.
pub(crate) fn landmarked_list<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O: Clone + 't>(
    item: impl Parser<'t, I, O, Extra<E>> + Clone + 't,
    (open, close): (Token<'s>, Token<'s>),
    min: usize,
    dummy: O,
    kind: impl Fn(&O) -> Kind + Clone + 't,
) -> Parsed<'t, I, E, Vec<O>> {
    let item = landmark_with(kind, list_item(item, close, dummy));
    delimited(item, (open, close), min)
}

/// `open item, item, ... close`, at least `min` items.
fn delimited<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O: 't>(
    item: impl Parser<'t, I, O, Extra<E>> + Clone + 't,
    (open, close): (Token<'s>, Token<'s>),
    min: usize,
) -> Parsed<'t, I, E, Vec<O>> {
    item.separated_by(just(Token::Comma))
        .at_least(min)
        .collect()
        .delimited_by(just(open), just(close))
        .boxed()
}

/// A node of a node list; a node that does not parse is reported and
/// skipped up to where the next node starts (see [`starts_node`]) or the
/// end of the list.
pub(crate) fn statement<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O: Clone>(
    node: impl Parser<'t, I, O, Extra<E>> + Clone,
    dummy: O,
) -> impl Parser<'t, I, O, Extra<E>> + Clone {
    node.recover_with(via_parser(skip_to(|_, inp| starts_node(inp), dummy)))
}

/// Whether a node starts here: a label `[`, an annotation `@<`, or an
/// output list (names separated by commas) followed by `=`.
fn starts_node<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut InputRef<'t, '_, I, Extra<E>>,
) -> bool {
    let is_name = |t: Token<'_>| matches!(t, Token::Ident(_) | Token::Str(_) | Token::Bytes(_));
    if matches!(inp.peek(), Some(Token::LBracket | Token::AnnotationOpen)) {
        return true;
    }
    let mut after_name = false;
    let mut any = false;
    loop {
        match inp.next() {
            Some(Token::Eq) => return any,
            Some(Token::Comma) => after_name = false,
            Some(t) if is_name(t) && !after_name => after_name = true,
            _ => return false,
        }
        any = true;
    }
}

/// A function of a model; one that does not parse is reported and skipped
/// up to the end of its body (the first `{...}` group) or of the text.
pub(crate) fn function_item<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O: Clone>(
    function: impl Parser<'t, I, O, Extra<E>> + Clone,
    dummy: O,
) -> impl Parser<'t, I, O, Extra<E>> + Clone {
    let after_body = skip_to(|skipped, _| skipped == Token::LBrace, dummy);
    function.recover_with(via_parser(after_body))
}

#[cfg(test)]
mod tests {
    /// The messages of the errors of parsing `text` as a model, in order.
    fn errors(text: &str) -> Vec<String> {
        crate::parse_model(text)
            .unwrap_err()
            .diagnostics()
            .iter()
            .map(|d| format!("{}: {}", &text[d.span.clone()], d.message))
            .collect()
    }

    #[test]
    fn header_entries_recover() {
        assert_eq!(
            errors("<ir_version 10, opset_import: [\"\": 21]>\ng () => (y) { y = Relu x }"),
            vec![
                "10: expected `:`, found `10`",
                "x: expected `(`, `.`, `:` or an attribute list, found `x`"
            ]
        );
    }

    #[test]
    fn a_broken_node_is_skipped_up_to_the_next_one() {
        // The rest of `a = Relu x` must not read as a node of its own, and
        // the nodes after it are parsed (the second error is theirs).
        assert_eq!(
            errors("g () => (y) {\n a = Relu x\n b, c = Split(a)\n y = Add(b c)\n}"),
            vec![
                "x: expected `(`, `.`, `:` or an attribute list, found `x`",
                "c: expected `)` or `,`, found `c`"
            ]
        );
    }

    #[test]
    fn a_broken_function_is_skipped_up_to_its_body() {
        let f = |body: &str| format!("<domain: \"d\", opset_import: [\"\": 21]> {body}\n");
        let text = format!(
            "g () => (y) {{ y = d.f() }}\n{}{}",
            f("f () => y { y = A() }"),
            f("h () => (y) { y = B(,) <> }")
        );
        assert_eq!(
            errors(&text),
            vec![
                "y: expected `(`, found `y`",
                ">: expected `@<` or an attribute name, found `>`"
            ]
        );
    }
}
