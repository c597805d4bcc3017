//! `key: value` entries: the model and function headers of the reference
//! syntax, and [ext] `@<...>` annotations, which reuse the same form.

use chumsky::prelude::*;

use super::annotation::{Entry, Value};
use super::common::string_literal;
use super::landmarks::{landmark, landmark_with, Kind};
use super::recovery::item_list;
use super::tensor::tensor_tail;
use super::{Extra, Fail, Parsed, Tokens};
use crate::lexer::Token;
use crate::proto::{GraphProto, SparseTensorProto, TypeProto};

/// `key: value`, a landmark that tells `opset_import` from other keys.
pub(crate) fn entry<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    value: impl Parser<'t, I, Value, Extra<E>> + Clone + 't,
) -> Parsed<'t, I, E, Entry> {
    let kind = |entry: &Entry| match entry.key.as_str() {
        "opset_import" => Kind::OpsetImports,
        _ => Kind::HeaderEntry,
    };
    let entry = select! { Token::Ident(key) = e => (key.to_owned(), e.span()) }
        .labelled("a key")
        .then_ignore(just(Token::Colon))
        .then(value)
        .map(
            |((key, key_span), value): ((String, SimpleSpan), Value)| Entry {
                key,
                key_span: key_span.into_range(),
                value,
            },
        );
    landmark_with(kind, entry)
}

/// `<entry, ...>` (a header) when `open` is `<`, or `@<entry, ...>` (an
/// annotation) when it is `@<`.
pub(crate) fn entries<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    open: Token<'s>,
    value: impl Parser<'t, I, Value, Extra<E>> + Clone + 't,
) -> Parsed<'t, I, E, Vec<Entry>> {
    item_list(entry(value).map(Some), (open, Token::RAngle), 1, None)
        .map(|entries| entries.into_iter().flatten().collect())
        .boxed()
}

/// Any value an entry may hold.
pub(crate) fn value<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    ty: Parsed<'t, I, E, TypeProto>,
    graph: Parsed<'t, I, E, GraphProto>,
    sparse: Parsed<'t, I, E, SparseTensorProto>,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, Value> {
    recursive(|value| {
        let span = |e: SimpleSpan| e.into_range();
        let number = select! {
            Token::Int(text) = e => Value::Number(text.to_owned(), span(e.span())),
            Token::Float(text) = e => Value::Number(text.to_owned(), span(e.span())),
        };
        let bytes = string_literal().map_with(move |b, e| Value::Bytes(b, span(e.span())));
        let pair = string_literal()
            .then_ignore(just(Token::Colon))
            .then(value.clone());
        let pair = landmark(Kind::Pair, pair);
        let pairs = pair
            .separated_by(just(Token::Comma))
            .at_least(1)
            .collect()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map_with(move |p, e| Value::Pairs(p, span(e.span())));
        let list = value
            .clone()
            .separated_by(just(Token::Comma))
            .collect()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map_with(move |l, e| Value::List(l, span(e.span())));
        let message = entry(value.clone())
            .separated_by(just(Token::Comma))
            .collect()
            .delimited_by(just(Token::LBrace), just(Token::RBrace))
            .map_with(move |m, e| Value::Message(m, span(e.span())));
        let tensor_or_type = annotation
            .clone()
            .or_not()
            .then(ty.map_with(|t, e| (t, e.span())))
            .then(tensor_tail().or_not())
            .validate(move |((entries, ty), tail), e, emitter| {
                let whole = span(e.span());
                match tail {
                    Some((name, data)) => {
                        let mut tensor =
                            super::tensor::build_tensor(ty, name, data, &mut |e| emitter.emit(e));
                        super::tensor::annotate_tensor(&mut tensor, entries, emitter);
                        Value::Tensor(Box::new(tensor), whole)
                    }
                    None => Value::Type(Box::new(ty.0), whole),
                }
            });
        let graph = super::attribute::graph_value(graph)
            .map_with(move |g, e| Value::Graph(Box::new(g), span(e.span())));
        let ident =
            select! { Token::Ident(word) = e => Value::Ident(word.to_owned(), span(e.span())) };
        // Numbers and bracketed values first: the common header values,
        // which no sparse tensor, tensor, type or graph can start like.
        choice((
            number,
            pairs,
            list,
            message,
            sparse.map_with(move |s, e| Value::SparseTensor(Box::new(s), span(e.span()))),
            tensor_or_type,
            graph,
            bytes,
            ident,
        ))
        .labelled("a value")
    })
    .boxed()
}
