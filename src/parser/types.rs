//! Types: tensor types with their shapes, `seq`, `map`, `optional`,
//! `sparse_tensor` and `opaque`.

use chumsky::prelude::*;

use super::common::{ident, integer, keyword, quotable_id, text_literal};
use super::{Fail, Parsed, Tokens};
use crate::lexer::Token;
use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::type_proto::{self, Value};
use crate::proto::{TensorShapeProto, TypeProto};
use crate::vocabulary::{MAP, OPAQUE, OPTIONAL, SEQ, SPARSE_TENSOR};

/// An element type name such as `float`, as its `TensorProto.DataType` code.
pub(crate) fn element_type<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>() -> Parsed<'t, I, E, i32>
{
    select! { Token::Ident(name) => name }
        .labelled("an element type")
        .try_map(|name, span| {
            crate::vocabulary::element_type_by_name(name)
                .map(|t| t as i32)
                .ok_or_else(|| E::custom(span, format!("`{name}` is not an element type")))
        })
        .boxed()
}

/// One dimension: `?`, a symbol (bare or quoted) or an integer.
fn dimension<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>() -> Parsed<'t, I, E, Dimension> {
    let value = |value| Dimension {
        value,
        denotation: None,
    };
    choice((
        integer::<I, E, i64>().map(move |n| value(Some(dimension::Value::DimValue(n)))),
        just(Token::Question).to(value(None)),
        quotable_id().map(move |name| value(Some(dimension::Value::DimParam(name)))),
    ))
    .labelled("a dimension")
    .boxed()
}

/// What follows an element type: nothing (a scalar: a shape with no
/// dimensions), `[]` (rank unknown: no shape) or `[d, ...]`.
pub(crate) fn shape_suffix<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, Option<TensorShapeProto>> {
    let dims = dimension()
        .separated_by(just(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>();
    let bracketed = dims
        .or_not()
        .delimited_by(just(Token::LBracket), just(Token::RBracket));
    bracketed
        .or_not()
        .map(|suffix| match suffix {
            None => Some(TensorShapeProto { dim: Vec::new() }),
            Some(None) => None,
            Some(Some(dim)) => Some(TensorShapeProto { dim }),
        })
        .boxed()
}

/// A type.
pub(crate) fn type_proto<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, TypeProto> {
    recursive(|ty| {
        let open = || just(Token::LParen);
        let close = || just(Token::RParen);
        let typed = |value| TypeProto {
            value: Some(value),
            denotation: None,
        };
        let tensor = element_type()
            .then(shape_suffix())
            .map(move |(elem, shape)| {
                typed(Value::TensorType(type_proto::Tensor {
                    elem_type: Some(elem),
                    shape,
                }))
            });
        let sequence = keyword(SEQ)
            .ignore_then(ty.clone().delimited_by(open(), close()))
            .map(move |elem| {
                typed(Value::SequenceType(Box::new(type_proto::Sequence {
                    elem_type: Some(Box::new(elem)),
                })))
            });
        let map = keyword(MAP)
            .ignore_then(
                element_type()
                    .then_ignore(just(Token::Comma))
                    .then(ty.clone())
                    .delimited_by(open(), close()),
            )
            .map(move |(key, value)| {
                typed(Value::MapType(Box::new(type_proto::Map {
                    key_type: Some(key),
                    value_type: Some(Box::new(value)),
                })))
            });
        let optional = keyword(OPTIONAL)
            .ignore_then(ty.clone().delimited_by(open(), close()))
            .map(move |elem| {
                typed(Value::OptionalType(Box::new(type_proto::Optional {
                    elem_type: Some(Box::new(elem)),
                })))
            });
        let sparse = keyword(SPARSE_TENSOR)
            .ignore_then(
                element_type()
                    .then(shape_suffix())
                    .delimited_by(open(), close()),
            )
            .map(move |(elem, shape)| {
                typed(Value::SparseTensorType(type_proto::SparseTensor {
                    elem_type: Some(elem),
                    shape,
                }))
            });
        // opaque(), opaque(name), opaque(domain, name); a dotted name before
        // `)` is the name, as in the reference. [ext] quoted parts.
        let dotted = ident()
            .map(str::to_owned)
            .foldl(
                just(Token::Dot).ignore_then(ident()).repeated(),
                |mut acc, part| {
                    acc.push('.');
                    acc.push_str(part);
                    acc
                },
            )
            .or(text_literal());
        let opaque = keyword(OPAQUE)
            .ignore_then(
                dotted
                    .then(just(Token::Comma).ignore_then(quotable_id()).or_not())
                    .or_not()
                    .delimited_by(open(), close()),
            )
            .map(move |parts| {
                let (domain, name) = match parts {
                    None => (None, None),
                    Some((name, None)) => (None, Some(name)),
                    Some((domain, Some(name))) => (Some(domain), Some(name)),
                };
                typed(Value::OpaqueType(type_proto::Opaque { domain, name }))
            });
        choice((tensor, sequence, map, optional, sparse, opaque)).labelled("a type")
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use crate::parse_type;
    use crate::proto::type_proto::Value;

    fn tensor(text: &str) -> (i32, Option<Vec<String>>) {
        let Some(Value::TensorType(t)) = parse_type(text).unwrap().value else {
            panic!("not a tensor type")
        };
        let dims = t
            .shape
            .map(|s| s.dim.iter().map(|d| format!("{:?}", d.value)).collect());
        (t.elem_type.unwrap(), dims)
    }

    #[test]
    fn tensor_type_forms() {
        assert_eq!(tensor("float"), (1, Some(vec![])));
        assert_eq!(tensor("float[]"), (1, None));
        assert_eq!(
            tensor("int64[N, ?, 3, \"a b\"]"),
            (
                7,
                Some(vec![
                    "Some(DimParam(\"N\"))".into(),
                    "None".into(),
                    "Some(DimValue(3))".into(),
                    "Some(DimParam(\"a b\"))".into()
                ])
            )
        );
    }

    #[test]
    fn compound_types() {
        for text in [
            "seq(float[2])",
            "map(int64, seq(string))",
            "optional(seq(float))",
            "sparse_tensor(float[3,3])",
            "opaque()",
            "opaque(a.b)",
            "opaque(a.b, c)",
        ] {
            assert!(parse_type(text).is_ok(), "{text}");
        }
        let Some(Value::OpaqueType(o)) = parse_type("opaque(ai.onnx, rng)").unwrap().value else {
            panic!()
        };
        assert_eq!(
            (o.domain.as_deref(), o.name.as_deref()),
            (Some("ai.onnx"), Some("rng"))
        );
        let Some(Value::OpaqueType(o)) = parse_type("opaque(a.b)").unwrap().value else {
            panic!()
        };
        assert_eq!((o.domain, o.name.as_deref()), (None, Some("a.b")));
    }

    #[test]
    fn bad_types_are_errors() {
        for text in [
            "float32",
            "map(seq(float), float)",
            "seq(float",
            "float[1,]",
            "float[99999999999999999999]",
        ] {
            assert!(parse_type(text).is_err(), "{text}");
        }
    }
}
