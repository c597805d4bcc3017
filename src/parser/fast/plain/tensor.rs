//! Plain tensor types, `elem` (a scalar), `elem[]` and `elem[dim, ...]`,
//! and tensor constants `type {numbers}`, as attribute values such as a
//! Constant node's.

use chumsky::span::SimpleSpan;

use super::{eat, name, up_to, Reader};
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
    let Token::Ident(word) = inp.next()? else {
        return None;
    };
    let elem_type = element_type_by_name(word)? as i32;
    let shape = if eat(inp, Token::LBracket) {
        let dim = up_to(inp, Token::RBracket, dimension)?;
        (!dim.is_empty()).then_some(TensorShapeProto { dim })
    } else {
        Some(TensorShapeProto::default())
    };
    Some(TypeProto {
        value: Some(TypeValue::TensorType(type_proto::Tensor {
            elem_type: Some(elem_type),
            shape,
        })),
        denotation: None,
    })
}

/// An integer, `?` or a symbol.
fn dimension<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    inp: &mut Reader<'t, '_, I, E>,
) -> Option<Dimension> {
    let value = match inp.next()? {
        Token::Int(text) => Some(dimension::Value::DimValue(text.parse().ok()?)),
        Token::Question => None,
        token => Some(dimension::Value::DimParam(name(token)?)),
    };
    Some(Dimension {
        value,
        denotation: None,
    })
}
