//! Attributes: `name (: type)? = value`, where a value is a literal, a
//! tensor constant, a type, a graph, an `@reference`, or a list of these.
//!
//! The value's kind decides the attribute type unless a type is written;
//! the rules follow the reference, including its implicit int-to-float
//! conversion, except that lists of tensors, graphs, types and sparse
//! tensors are kept rather than silently emptied.

use chumsky::prelude::*;

use super::annotation::{self, Entry};
use super::common::{ident, quotable_id, string_literal, text_literal};
use super::hints::{quote, with_help};
use super::landmarks::{landmark, Kind};
use super::tensor::{build_tensor, data, is_special_float, parse_float, tensor_tail, Data};
use super::{emit_diagnostic, CustomError, Extra, Fail, Parsed, Problem, Tokens};
use crate::lexer::Token;
use crate::proto::attribute_proto::AttributeType;
use crate::proto::tensor_proto::DataType;
use crate::proto::type_proto::Value as TypeValue;
use crate::proto::{AttributeProto, GraphProto, SparseTensorProto, TensorProto, TypeProto};
use crate::vocabulary::{attribute_type_by_name, attribute_type_name};

/// One attribute value before the attribute's type is known.
#[derive(Debug, Clone)]
pub(crate) enum Single<'s> {
    Int(&'s str),
    Float(&'s str),
    Bytes(Vec<u8>),
    Tensor(Box<TensorProto>),
    Type(Box<TypeProto>),
    Graph(Box<GraphProto>),
    Sparse(Box<SparseTensorProto>),
    Reference(String),
    /// A data type written by its name (`FLOAT`) where a value is wanted:
    /// reported, with its number, when the attribute is filled.
    DataTypeName(&'s str),
}

/// A value as written: one item or a bracketed list.
#[derive(Debug, Clone)]
pub(crate) enum Written<'s> {
    One(Single<'s>, SimpleSpan),
    List(Vec<(Single<'s>, SimpleSpan)>),
}

/// A graph, when what follows a name shows that it is one: a graph name is
/// followed by its input list or by `=>`.
pub(crate) fn graph_value<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    graph: Parsed<'t, I, E, GraphProto>,
) -> Parsed<'t, I, E, GraphProto> {
    let name = select! { Token::Ident(_) => (), Token::Str(_) => (), Token::Bytes(_) => () };
    let follows = choice((just(Token::LParen), just(Token::Arrow)));
    let annotated = just(Token::AnnotationOpen).ignored();
    annotated
        .or(name.then(follows).ignored())
        .rewind()
        .ignore_then(graph)
        .boxed()
}

/// A single attribute value.
pub(crate) fn single_value<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    ty: Parsed<'t, I, E, TypeProto>,
    graph: Parsed<'t, I, E, GraphProto>,
    sparse: Parsed<'t, I, E, SparseTensorProto>,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, Single<'s>> {
    let tensor_or_type = annotation
        .or_not()
        .then(ty.map_with(|t, e| (t, e.span())))
        .then(tensor_tail().or_not())
        .validate(|((entries, ty), tail), e, emitter| match (tail, entries) {
            (Some((name, data)), entries) => {
                let mut tensor = build_tensor(ty, name, data, &mut |e| emitter.emit(e));
                super::tensor::annotate_tensor(&mut tensor, entries, emitter);
                Single::Tensor(Box::new(tensor))
            }
            (None, Some(_)) => {
                emitter.emit(E::custom(
                    e.span(),
                    "an annotation here must be followed by a tensor constant",
                ));
                Single::Type(Box::new(ty.0))
            }
            (None, None) => Single::Type(Box::new(ty.0)),
        });
    let literal = select! {
        Token::Int(text) => Single::Int(text),
        Token::Float(text) => Single::Float(text),
        Token::Ident(text) if is_special_float(text) => Single::Float(text),
    };
    let reference = just(Token::At)
        .ignore_then(landmark(Kind::Name, quotable_id()))
        .map(Single::Reference);
    let reference = landmark(Kind::Reference, reference);
    choice((
        literal,
        sparse.map(|s| Single::Sparse(Box::new(s))),
        tensor_or_type,
        graph_value(graph).map(|g| Single::Graph(Box::new(g))),
        reference,
        string_literal().map(Single::Bytes),
    ))
    .labelled("an attribute value")
    .or(mistaken_value())
    .boxed()
}

/// Values people write that are not values in this syntax, reported with
/// the fix: Python's booleans, tensor values without their type, and data
/// types by name (`FLOAT`, reported by [`fill`], which knows the
/// attribute). Tried only when no value matches.
fn mistaken_value<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>() -> Parsed<'t, I, E, Single<'s>> {
    let boolean = select! { Token::Ident(word) if ["True", "False", "true", "false"].contains(&word) => word }
        .validate(|word, e, emitter| {
            let digit = if word.eq_ignore_ascii_case("true") { "1" } else { "0" };
            emitter.emit(E::custom(
                e.span(),
                with_help(
                    format!("`{word}` is not a value: there are no boolean attributes"),
                    format!("flags are integers: write `{digit}`"),
                ),
            ));
            Single::Int(digit)
        });
    let untyped_tensor = data().validate(|data, e, emitter| {
        let (element, count) = match &data {
            Data::Numbers(text, _) => {
                let float = text.contains(['.', 'e', 'E', 'n', 'N']);
                (
                    if float { "float" } else { "int64" },
                    text.split(',').count(),
                )
            }
            Data::Literals(items) => ("string", items.len()),
            Data::Absent | Data::External(_) => ("float", 1),
        };
        emitter.emit(E::custom(
            e.span(),
            with_help(
                "tensor values need their element type and shape in front",
                format!("write e.g. `{element}[{count}] {}`", quote(e.span())),
            ),
        ));
        Single::Tensor(Box::default())
    });
    let data_type = select! {
        Token::Ident(word) if DataType::from_str_name(word).is_some() => Single::DataTypeName(word),
    };
    boolean
        .or(untyped_tensor)
        .or(data_type)
        .labelled("an attribute value")
        .boxed()
}

/// A value or a list of values.
pub(crate) fn written_value<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    single: impl Parser<'t, I, Single<'s>, Extra<E>> + Clone + 't,
) -> Parsed<'t, I, E, Written<'s>> {
    let spanned = single.map_with(|v, e| (v, e.span()));
    let list = spanned
        .clone()
        .separated_by(just(Token::Comma))
        .collect()
        .delimited_by(just(Token::LBracket), just(Token::RBracket))
        .map(Written::List);
    list.or(spanned.map(|(v, s)| Written::One(v, s))).boxed()
}

/// An attribute name: an identifier or [ext] a quoted string.
pub(crate) fn attribute_name<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, String> {
    ident()
        .map(str::to_owned)
        .or(text_literal())
        .labelled("an attribute name")
        .boxed()
}

/// `: type`, as an attribute type.
pub(crate) fn type_annotation<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, AttributeType> {
    just(Token::Colon)
        .ignore_then(
            select! { Token::Ident(name) => name }
                .labelled("an attribute type")
                .try_map(|name, span| {
                    attribute_type_by_name(name).ok_or_else(|| {
                        E::custom(span, format!("`{name}` is not an attribute type"))
                    })
                }),
        )
        .boxed()
}

/// A whole attribute: `annotation? name (: type)? = value`.
pub(crate) fn attribute<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    value: impl Parser<'t, I, Written<'s>, Extra<E>> + Clone + 't,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, AttributeProto> {
    let attribute = annotation
        .or_not()
        .then(landmark(Kind::Name, attribute_name()))
        .then(type_annotation().or_not())
        .then_ignore(just(Token::Eq))
        .then(value)
        .validate(|(((entries, name), declared), value), e, emitter| {
            let mut attribute = AttributeProto {
                name: Some(name),
                ..AttributeProto::default()
            };
            if let Err((message, span)) = fill(&mut attribute, declared, value) {
                emitter.emit(E::custom(span.unwrap_or(e.span()), message));
            }
            annotate(&mut attribute, entries, emitter);
            attribute
        });
    attribute.boxed()
}

/// Applies the annotation written before an attribute, if any.
pub(crate) fn annotate<E: CustomError>(
    attribute: &mut AttributeProto,
    entries: Option<Vec<Entry>>,
    emitter: &mut chumsky::input::Emitter<E>,
) {
    if let Some(entries) = entries {
        if let Err(d) = annotation::apply_attribute(attribute, entries) {
            emit_diagnostic(emitter, d);
        }
    }
}

/// Sets the value fields and type of `attribute`.
pub(crate) fn fill(
    attribute: &mut AttributeProto,
    declared: Option<AttributeType>,
    value: Written<'_>,
) -> Result<(), Problem> {
    attribute.r#type = declared.map(|t| t as i32);
    match value {
        Written::One(single, span) => {
            // A reference takes the declared type, list or not.
            if declared.is_some_and(is_list_type) && !matches!(single, Single::Reference(_)) {
                return Err((
                    format!(
                        "the attribute is declared `{}` but its value is not a list",
                        type_name(declared)
                    ),
                    Some(span),
                ));
            }
            let kind = store_single(attribute, single, declared, span)?;
            if let Some(kind) = kind {
                if declared.is_some_and(|d| d != kind) {
                    let message = mismatch(declared, kind);
                    let message = match data_type_of(attribute) {
                        Some(code) if declared == Some(AttributeType::Int) => {
                            let name = attribute.name.as_deref().unwrap_or("");
                            with_help(message, number_help(code, name))
                        }
                        _ => message,
                    };
                    return Err((message, Some(span)));
                }
                attribute.r#type = Some(kind as i32);
            }
        }
        Written::List(items) => {
            if let Some(declared) = declared.filter(|d| !is_list_type(*d)) {
                return Err((
                    format!(
                        "the attribute is declared `{}` but its value is a list",
                        type_name(Some(declared))
                    ),
                    None,
                ));
            }
            if items.is_empty() && declared.is_none() {
                return Err((
                    "an empty list needs its type written, e.g. `name: ints = []`".into(),
                    None,
                ));
            }
            for (single, span) in items {
                let expected = attribute
                    .r#type
                    .and_then(|t| AttributeType::try_from(t).ok())
                    .map(element_type);
                let kind = store_in_list(attribute, single, expected, span)?;
                match expected {
                    Some(expected) if expected != kind && declared.is_some() => {
                        return Err((mismatch(Some(expected), kind), Some(span)));
                    }
                    Some(expected) if expected != kind => {
                        return Err((
                            format!(
                                "a list holds values of one type, but this `{}` follows `{}` values",
                                type_name(Some(kind)),
                                type_name(Some(expected)),
                            ),
                            Some(span),
                        ));
                    }
                    _ => {}
                }
                attribute.r#type = Some(list_type(kind) as i32);
            }
        }
    }
    Ok(())
}

/// Stores one value as the attribute's single value; returns its kind
/// (`None` for a reference, which has no kind of its own).
fn store_single(
    attribute: &mut AttributeProto,
    single: Single<'_>,
    declared: Option<AttributeType>,
    span: SimpleSpan,
) -> Result<Option<AttributeType>, Problem> {
    let kind = match single {
        Single::Reference(name) => {
            attribute.ref_attr_name = Some(name);
            return Ok(None);
        }
        Single::DataTypeName(word) => {
            let name = attribute.name.as_deref().unwrap_or("");
            return Err((data_type_by_name(word, name), Some(span)));
        }
        Single::Int(text) if declared == Some(AttributeType::Float) => {
            attribute.f = Some(float(text, span)?);
            AttributeType::Float
        }
        Single::Int(text) => {
            attribute.i = Some(
                text.parse()
                    .map_err(|_| (super::common::out_of_range::<i64>(text), Some(span)))?,
            );
            AttributeType::Int
        }
        Single::Float(text) => {
            attribute.f = Some(float(text, span)?);
            AttributeType::Float
        }
        Single::Bytes(bytes) => {
            attribute.s = Some(bytes);
            AttributeType::String
        }
        Single::Tensor(t) => {
            attribute.t = Some(t);
            AttributeType::Tensor
        }
        Single::Type(t) => {
            attribute.tp = Some(t);
            AttributeType::TypeProto
        }
        Single::Graph(g) => {
            attribute.g = Some(g);
            AttributeType::Graph
        }
        Single::Sparse(s) => {
            attribute.sparse_tensor = Some(s);
            AttributeType::SparseTensor
        }
    };
    Ok(Some(kind))
}

/// Appends one list element; returns its kind.
fn store_in_list(
    attribute: &mut AttributeProto,
    single: Single<'_>,
    expected: Option<AttributeType>,
    span: SimpleSpan,
) -> Result<AttributeType, Problem> {
    Ok(match single {
        Single::Reference(_) => {
            return Err((
                "a list cannot hold an attribute reference".into(),
                Some(span),
            ));
        }
        Single::DataTypeName(word) => return Err((data_type_by_name(word, ""), Some(span))),
        Single::Int(text) if expected == Some(AttributeType::Float) => {
            attribute.floats.push(float(text, span)?);
            AttributeType::Float
        }
        Single::Int(text) => {
            attribute.ints.push(
                text.parse()
                    .map_err(|_| (super::common::out_of_range::<i64>(text), Some(span)))?,
            );
            AttributeType::Int
        }
        Single::Float(text) => {
            attribute.floats.push(float(text, span)?);
            AttributeType::Float
        }
        Single::Bytes(bytes) => {
            attribute.strings.push(bytes);
            AttributeType::String
        }
        Single::Tensor(t) => {
            attribute.tensors.push(*t);
            AttributeType::Tensor
        }
        Single::Type(t) => {
            attribute.type_protos.push(*t);
            AttributeType::TypeProto
        }
        Single::Graph(g) => {
            attribute.graphs.push(*g);
            AttributeType::Graph
        }
        Single::Sparse(s) => {
            attribute.sparse_tensors.push(*s);
            AttributeType::SparseTensor
        }
    })
}

/// The message for data type `word` written by name where an attribute
/// (`name`, or an element of a list when empty) wants its number.
fn data_type_by_name(word: &str, name: &str) -> String {
    let code = DataType::from_str_name(word).map_or(0, |t| t as i32);
    with_help(
        format!("`{word}` is a data type's name; attributes hold data types as numbers"),
        number_help(code, name),
    )
}

/// Help that writes data type `code` by its number: as attribute `name`'s
/// value, or (with no name) alone.
fn number_help(code: i32, name: &str) -> String {
    let word = DataType::try_from(code).map_or("?", |t| t.as_str_name());
    if name.is_empty() {
        format!("write its number: `{code}` ({word})")
    } else {
        format!("write its number: `{name}: int = {code}` ({word})")
    }
}

/// The element type of the tensor type an attribute holds, if it holds
/// one (`int64` where a data type's number was meant).
fn data_type_of(attribute: &AttributeProto) -> Option<i32> {
    match attribute.tp.as_ref()?.value.as_ref()? {
        TypeValue::TensorType(tensor) => tensor.elem_type,
        _ => None,
    }
}

/// A `float` attribute value.
pub(crate) fn float(text: &str, span: SimpleSpan) -> Result<f32, Problem> {
    parse_float(text, span)
}

fn mismatch(declared: Option<AttributeType>, kind: AttributeType) -> String {
    format!(
        "the attribute is declared `{}` but the value is of type `{}`",
        type_name(declared),
        type_name(Some(kind))
    )
}

fn type_name(t: Option<AttributeType>) -> &'static str {
    t.and_then(|t| attribute_type_name(t as i32))
        .unwrap_or("undefined")
}

fn is_list_type(t: AttributeType) -> bool {
    element_type(t) != t
}

/// The element type of a list type (other types map to themselves).
fn element_type(t: AttributeType) -> AttributeType {
    use AttributeType as A;
    match t {
        A::Floats => A::Float,
        A::Ints => A::Int,
        A::Strings => A::String,
        A::Tensors => A::Tensor,
        A::Graphs => A::Graph,
        A::SparseTensors => A::SparseTensor,
        A::TypeProtos => A::TypeProto,
        other => other,
    }
}

/// The list type whose elements are `t`.
fn list_type(t: AttributeType) -> AttributeType {
    use AttributeType as A;
    match t {
        A::Float => A::Floats,
        A::Int => A::Ints,
        A::String => A::Strings,
        A::Tensor => A::Tensors,
        A::Graph => A::Graphs,
        A::SparseTensor => A::SparseTensors,
        A::TypeProto => A::TypeProtos,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use crate::parse_attribute;
    use crate::proto::attribute_proto::AttributeType as A;

    fn kind(text: &str) -> i32 {
        parse_attribute(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .r#type
            .unwrap()
    }

    #[test]
    fn value_kinds() {
        assert_eq!(kind("a = 1"), A::Int as i32);
        assert_eq!(kind("a = -1.5"), A::Float as i32);
        assert_eq!(kind("a = inf"), A::Float as i32);
        assert_eq!(kind("a = \"s\""), A::String as i32);
        assert_eq!(kind("a = [1, 2]"), A::Ints as i32);
        assert_eq!(kind("a = [1.5, 2]"), A::Floats as i32);
        assert_eq!(kind("a = [\"x\"]"), A::Strings as i32);
        assert_eq!(kind("a = float[2] {1, 2}"), A::Tensor as i32);
        assert_eq!(kind("a = float[2]"), A::TypeProto as i32);
        assert_eq!(kind("a = g () => (float y) { y = Foo() }"), A::Graph as i32);
        assert_eq!(kind("a: ints = []"), A::Ints as i32);
        assert_eq!(kind("a = [float[1] {1}, float[1] {2}]"), A::Tensors as i32);
        assert_eq!(kind("a = [float, seq(int64)]"), A::TypeProtos as i32);
        assert_eq!(
            kind("a = sparse_tensor[4] {values: float[1] {1}, indices: int64[1] {2}}"),
            A::SparseTensor as i32
        );
    }

    #[test]
    fn declared_float_converts_integers_and_keeps_negative_zero() {
        let a = parse_attribute("a: float = -0").unwrap();
        assert_eq!(a.f.unwrap().to_bits(), (-0.0f32).to_bits());
        assert_eq!(
            parse_attribute("a: floats = [1, 2]").unwrap().floats,
            vec![1.0, 2.0]
        );
    }

    #[test]
    fn references_keep_the_declared_type() {
        let a = parse_attribute("axes: ints = @axes").unwrap();
        assert_eq!(
            (a.ref_attr_name.as_deref(), a.r#type),
            (Some("axes"), Some(A::Ints as i32))
        );
        let a = parse_attribute("a: int = @b").unwrap();
        assert_eq!(
            (a.ref_attr_name.as_deref(), a.r#type),
            (Some("b"), Some(A::Int as i32))
        );
        let a = parse_attribute("a = @\"b c\"").unwrap();
        assert_eq!((a.ref_attr_name.as_deref(), a.r#type), (Some("b c"), None));
    }

    #[test]
    fn mismatches_are_errors() {
        for text in [
            "a: int = 1.5",
            "a: ints = 1",
            "a = []",
            "a = [1, 2.5]",
            "a: int = [1]",
            "a = 99999999999999999999",
            "a: strings = [1]",
        ] {
            assert!(parse_attribute(text).is_err(), "{text}");
        }
    }
}
