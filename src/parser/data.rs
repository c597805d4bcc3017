//! [ext] Data values and the data sets of a test case (see
//! [`crate::testcase`]): `seq(KIND) name = [value, ...]`, `map(KEY) name =
//! {keys: [...], string_keys: [...], values: seq(...) [...]}`,
//! `optional(KIND) name = [value]`, tensors as tensor constants, and
//! `NAME { input x: value ... output y: value ... }` after a model.

use chumsky::prelude::*;

use super::common::{integer, keyword, quotable_id, string_literal};
use super::types::element_type;
use super::{Fail, Parsed, Tokens};
use crate::lexer::Token;
use crate::proto::{MapProto, OptionalProto, SequenceProto, SparseTensorProto, TensorProto};
use crate::test_data::{Value, ELEMENT_KINDS};
use crate::vocabulary::{MAP, OPTIONAL, SEQ};

/// A value inside a sequence or an optional: a data value, or a sparse
/// tensor. (Each is made once and moved straight into its message: the
/// size of the variants does not matter.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub(crate) enum Element {
    Value(Value),
    Sparse(SparseTensorProto),
}

/// One value of a data set as written: which side, the graph value it is
/// labelled with (and the label's span), and the value.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) output: bool,
    pub(crate) label: String,
    pub(crate) label_span: std::ops::Range<usize>,
    pub(crate) value: Value,
}

/// A data set as written: its name (and span) and entries.
#[derive(Debug, Clone)]
pub(crate) struct RawDataSet {
    pub(crate) name: String,
    pub(crate) name_span: std::ops::Range<usize>,
    pub(crate) entries: Vec<Entry>,
}

/// Any element: a sequence, map or optional, a sparse tensor constant or
/// a tensor constant.
pub(crate) fn element<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    tensor: Parsed<'t, I, E, TensorProto>,
    sparse: Parsed<'t, I, E, SparseTensorProto>,
) -> Parsed<'t, I, E, Element> {
    recursive(|element| {
        let element = element.boxed();
        let kind = choice((
            select! { Token::Ident(word) => word }.try_map(|word, span| {
                ELEMENT_KINDS
                    .iter()
                    .find(|(w, _)| *w == word)
                    .map(|&(_, code)| code)
                    .ok_or_else(|| {
                        E::custom(
                            span,
                            format!(
                                "`{word}` is not a kind of value: tensor, sparse_tensor, seq, map \
                                 or optional (or a number)"
                            ),
                        )
                    })
            }),
            integer::<I, E, i32>(),
        ))
        .delimited_by(just(Token::LParen), just(Token::RParen))
        .or_not()
        .boxed();
        let name = quotable_id()
            .or_not()
            .then_ignore(just(Token::Eq).or_not())
            .boxed();
        let items = bracketed(element.clone().map_with(|item, e| (item, e.span())).boxed());

        let sequence = keyword(SEQ)
            .ignore_then(kind.clone())
            .then(name.clone())
            .then(items.clone())
            .map(|((elem_type, name), items)| {
                let mut q = SequenceProto {
                    name,
                    elem_type,
                    ..SequenceProto::default()
                };
                for (item, _) in items {
                    match item {
                        Element::Value(Value::Tensor(t)) => q.tensor_values.push(t),
                        Element::Sparse(t) => q.sparse_tensor_values.push(t),
                        Element::Value(Value::Sequence(v)) => q.sequence_values.push(v),
                        Element::Value(Value::Map(m)) => q.map_values.push(m),
                        Element::Value(Value::Optional(o)) => q.optional_values.push(o),
                    }
                }
                Element::Value(Value::Sequence(q))
            });

        let optional = keyword(OPTIONAL)
            .ignore_then(kind)
            .then(name.clone())
            .then(items)
            .validate(|((elem_type, name), items), _, emitter| {
                let mut o = OptionalProto {
                    name,
                    elem_type,
                    ..OptionalProto::default()
                };
                for (item, span) in items {
                    let taken = match item {
                        Element::Value(Value::Tensor(t)) => {
                            o.tensor_value.replace(Box::new(t)).is_some()
                        }
                        Element::Sparse(t) => o.sparse_tensor_value.replace(Box::new(t)).is_some(),
                        Element::Value(Value::Sequence(v)) => {
                            o.sequence_value.replace(Box::new(v)).is_some()
                        }
                        Element::Value(Value::Map(m)) => o.map_value.replace(Box::new(m)).is_some(),
                        Element::Value(Value::Optional(v)) => {
                            o.optional_value.replace(Box::new(v)).is_some()
                        }
                    };
                    if taken {
                        emitter.emit(E::custom(
                            span,
                            "an optional holds at most one value of each kind",
                        ));
                    }
                }
                Element::Value(Value::Optional(o))
            });

        let key_type = choice((element_type(), integer::<I, E, i32>()))
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .or_not();
        let field = choice((
            just(Token::Ident("keys"))
                .ignore_then(just(Token::Colon))
                .ignore_then(bracketed(integer::<I, E, i64>()))
                .map(MapField::Keys),
            just(Token::Ident("string_keys"))
                .ignore_then(just(Token::Colon))
                .ignore_then(bracketed(string_literal()))
                .map(MapField::StringKeys),
            just(Token::Ident("values"))
                .ignore_then(just(Token::Colon))
                .ignore_then(element)
                .map(MapField::Values),
        ))
        .map_with(|field, e| (field, e.span()));
        let fields = field
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(just(Token::LBrace), just(Token::RBrace));
        let map = keyword(MAP)
            .ignore_then(key_type)
            .then(name)
            .then(fields)
            .validate(|((key_type, name), fields), _, emitter| {
                let mut m = MapProto {
                    name,
                    key_type,
                    ..MapProto::default()
                };
                let mut seen = [false; 3];
                for (field, span) in fields {
                    let (slot, key) = match &field {
                        MapField::Keys(_) => (0, "keys"),
                        MapField::StringKeys(_) => (1, "string_keys"),
                        MapField::Values(_) => (2, "values"),
                    };
                    if std::mem::replace(&mut seen[slot], true) {
                        emitter.emit(E::custom(span, format!("`{key}` is given twice")));
                    }
                    match field {
                        MapField::Keys(keys) => m.keys = keys,
                        MapField::StringKeys(keys) => m.string_keys = keys,
                        MapField::Values(Element::Value(Value::Sequence(values))) => {
                            m.values = Some(values);
                        }
                        MapField::Values(_) => emitter.emit(E::custom(
                            span,
                            "a map's values are a sequence: `values: seq(KIND) [...]`",
                        )),
                    }
                }
                Element::Value(Value::Map(m))
            });

        choice((
            sequence,
            optional,
            map,
            sparse.map(Element::Sparse),
            tensor.map(|t| Element::Value(Value::Tensor(t))),
        ))
        .labelled("a value")
    })
    .boxed()
}

/// `[item, ...]`.
fn bracketed<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, T: 't>(
    item: Parsed<'t, I, E, T>,
) -> Parsed<'t, I, E, Vec<T>> {
    item.separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBracket), just(Token::RBracket))
        .boxed()
}

/// A field of a map as written.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
enum MapField {
    Keys(Vec<i64>),
    StringKeys(Vec<Vec<u8>>),
    Values(Element),
}

/// A data value on its own: any element but a sparse tensor, which is no
/// data file of a test case.
pub(crate) fn value<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    element: Parsed<'t, I, E, Element>,
) -> Parsed<'t, I, E, Value> {
    element
        .validate(|element, e, emitter| match element {
            Element::Value(value) => value,
            Element::Sparse(_) => {
                emitter.emit(E::custom(
                    e.span(),
                    "a sparse tensor is no data value of its own: put it in a sequence or an optional",
                ));
                Value::Tensor(TensorProto::default())
            }
        })
        .boxed()
}

/// `value` when it is of the kind `pick` takes (`what`, for the error).
pub(crate) fn only<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, T: 't>(
    value: Parsed<'t, I, E, Value>,
    what: &'static str,
    pick: fn(Value) -> Option<T>,
) -> Parsed<'t, I, E, T> {
    value
        .try_map(move |value, span| {
            pick(value).ok_or_else(|| E::custom(span, format!("expected {what}")))
        })
        .boxed()
}

/// The data sets after a test case's model: `NAME { (input|output) label:
/// value ... }`, one or more.
pub(crate) fn data_sets<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    value: Parsed<'t, I, E, Value>,
) -> Parsed<'t, I, E, Vec<RawDataSet>> {
    let side = choice((keyword("input").to(false), keyword("output").to(true)))
        .labelled("`input` or `output`");
    let entry = side
        .then(
            quotable_id()
                .map_with(|label, e| (label, SimpleSpan::into_range(e.span())))
                .boxed(),
        )
        .then_ignore(just(Token::Colon))
        .then(value)
        .map(|((output, (label, label_span)), value)| Entry {
            output,
            label,
            label_span,
            value,
        });
    quotable_id()
        .map_with(|name, e| (name, SimpleSpan::into_range(e.span())))
        .then(
            entry
                .repeated()
                .collect::<Vec<_>>()
                .delimited_by(just(Token::LBrace), just(Token::RBrace)),
        )
        .map(|((name, name_span), entries)| RawDataSet {
            name,
            name_span,
            entries,
        })
        .repeated()
        .at_least(1)
        .collect()
        .boxed()
}

/// Where the data sets of a test case's text start: the first identifier
/// (or quoted name) followed by `{` outside any bracket, which no model
/// has (a graph's or function's body follows `)` or `>`). `None` for a
/// text with no data set.
pub(crate) fn data_sets_start<'s>(
    tokens: impl IntoIterator<Item = (Token<'s>, SimpleSpan)>,
) -> Option<usize> {
    let mut depth = 0usize;
    let mut previous: Option<(Token<'s>, SimpleSpan)> = None;
    for (token, span) in tokens {
        if let Some((Token::Ident(_) | Token::Str(_), name)) = previous {
            if depth == 0 && token == Token::LBrace {
                return Some(name.start);
            }
        }
        match token {
            Token::LParen
            | Token::LBracket
            | Token::LBrace
            | Token::LAngle
            | Token::AnnotationOpen => depth += 1,
            Token::RParen | Token::RBracket | Token::RBrace | Token::RAngle => {
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        previous = Some((token, span));
    }
    None
}

/// Whether `text` may have data sets: somewhere a name, then `{` (a cheap
/// look at the bytes, before [`data_sets_start`] reads the tokens).
pub(crate) fn may_have_data_sets(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'{'
            && bytes[..i]
                .iter()
                .rev()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|&before| {
                    before.is_ascii_alphanumeric() || matches!(before, b'_' | b'"')
                })
    })
}

/// The tokens of `text`, comments left out, lexed one at a time as they
/// are read (so that a look at the first ones costs nothing more).
pub(crate) fn lazy_tokens(text: &str) -> impl Iterator<Item = (Token<'_>, SimpleSpan)> {
    use logos::Logos as _;
    let mut lexer = Token::lexer(text);
    std::iter::from_fn(move || loop {
        let token = lexer.next()?;
        let span = SimpleSpan::from(lexer.span());
        match token {
            Ok(Token::Comment) => continue,
            Ok(token) => return Some((token, span)),
            Err(()) => return Some((Token::Error, span)),
        }
    })
}

/// Whether `tokens` start with a data value: a type word (an element type,
/// `seq`, `map`, `optional` or `sparse_tensor`) first, after an annotation
/// if there is one. A model starts with its header or its graph's name.
pub(crate) fn starts_with_value<'s>(
    tokens: impl IntoIterator<Item = (Token<'s>, SimpleSpan)>,
) -> bool {
    let mut tokens = tokens.into_iter();
    let mut first = tokens.next();
    if let Some((Token::AnnotationOpen, _)) = first {
        let mut depth = 1usize;
        for (token, _) in tokens.by_ref() {
            match token {
                Token::AnnotationOpen | Token::LAngle => depth += 1,
                Token::RAngle => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
        }
        first = tokens.next();
    }
    matches!(first, Some((Token::Ident(word), _)) if crate::vocabulary::starts_type(word))
}
