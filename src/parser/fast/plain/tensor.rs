//! Plain tensor types, `elem` (a scalar), `elem[]` and `elem[dim, ...]`,
//! and tensor constants `type {numbers}`, as attribute values such as a
//! Constant node's.

use std::borrow::Cow;

use chumsky::span::SimpleSpan;

use super::{eat, name_in_text, Reader};
use crate::lexer::Token;
use crate::parser::attribute::{Single, Written};
use crate::parser::tensor::{build_tensor, Data};
use crate::parser::{Fail, Problem, Tokens};
use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::type_proto::{self, Value as TypeValue};
use crate::proto::{TensorProto, TensorShapeProto, TypeProto};
use crate::vocabulary::element_type_by_name;

/// `type {numbers}`: a tensor type, then its values as one
/// [`Token::Numbers`], built as the grammar builds them.
pub(super) fn constant<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
) -> Option<Written<'s>> {
    let before = inp.cursor();
    let ty = tensor_type(inp)?;
    let type_span = inp.span_since(&before);
    let tensor = values(inp, (ty, type_span), None)?;
    let whole = inp.span_since(&before);
    Some(Written::One(Single::Tensor(Box::new(tensor)), whole))
}

/// The tensor of type `ty` (with its span) named `name` whose values are
/// the next token, a [`Token::Numbers`], built as the grammar builds it;
/// `None` when the grammar would report a problem.
pub(super) fn values<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    ty: (TypeProto, SimpleSpan),
    name: Option<String>,
) -> Option<TensorProto> {
    let before = inp.cursor();
    let Token::Numbers(text) = inp.next()? else {
        return None;
    };
    let list = inp.span_since(&before);
    let values = SimpleSpan::from(list.start + 1..list.end - 1);
    let mut failed = false;
    let tensor = build_tensor(ty, name, Data::Numbers(text, values), &mut |_: Problem| {
        failed = true
    });
    (!failed).then_some(tensor)
}

/// `elem` (a scalar), `elem[]` (rank unknown) or `elem[dim, ...]`.
pub(super) fn tensor_type<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
) -> Option<TypeProto> {
    let mut dim = Vec::new();
    let (elem_type, known) = plain_tensor_type(inp, |value| {
        dim.push(Dimension {
            value: value.map(Dim::into_proto),
            denotation: None,
        })
    })?;
    Some(TypeProto {
        value: Some(TypeValue::TensorType(type_proto::Tensor {
            elem_type: Some(elem_type),
            shape: known.then_some(TensorShapeProto { dim }),
        })),
        denotation: None,
    })
}

/// A dimension's value as read: its symbol borrowed from the text when
/// it is bare.
pub(super) enum Dim<'s> {
    Value(i64),
    Param(Cow<'s, str>),
}

impl Dim<'_> {
    fn into_proto(self) -> dimension::Value {
        match self {
            Dim::Value(value) => dimension::Value::DimValue(value),
            Dim::Param(param) => dimension::Value::DimParam(param.into_owned()),
        }
    }
}

/// `elem` (a scalar), `elem[]` (rank unknown) or `elem[dim, ...]`, each
/// dimension's value (`None` for `?`) given to `dim` in order: the element
/// type, and whether the shape is known (not `elem[]`).
pub(super) fn plain_tensor_type<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
    mut dim: impl FnMut(Option<Dim<'s>>),
) -> Option<(i32, bool)> {
    let Token::Ident(word) = inp.next()? else {
        return None;
    };
    let elem_type = element_type_by_name(word)? as i32;
    if !eat(inp, Token::LBracket) {
        return Some((elem_type, true));
    }
    if eat(inp, Token::RBracket) {
        return Some((elem_type, false));
    }
    loop {
        dim(match inp.next()? {
            Token::Int(text) => Some(Dim::Value(text.parse().ok()?)),
            Token::Question => None,
            token => Some(Dim::Param(name_in_text(token)?)),
        });
        match inp.next()? {
            Token::Comma => {}
            Token::RBracket => return Some((elem_type, true)),
            _ => return None,
        }
    }
}
