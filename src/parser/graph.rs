//! Value infos, graphs, functions and models: the productions that own node
//! lists.

use chumsky::prelude::*;

use super::annotation::{self, Entry, Value};
use super::attribute::{attribute_name, fill, type_annotation, Written};
use super::common::{quotable_id, quotable_non_type_id};
use super::hints::{quote, with_help};
use super::landmarks::{landmark, Kind};
use super::recovery::{function_item, landmarked_list, ANGLES, PARENS};
use super::tensor::{build_tensor, data, Data};
use super::{emit_diagnostic, CustomError, Extra, Fail, Parsed, Tokens};
use crate::error::{Diagnostic, Span};
use crate::lexer::Token;
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    StringStringEntryProto, TensorProto, TypeProto, ValueInfoProto,
};
use crate::vocabulary::{FUNCTION_HEADER_KEYS, MODEL_HEADER_KEYS};

/// A value info's type (with its span) and name, before any annotation is
/// applied.
type BareValueInfo = (Option<(TypeProto, SimpleSpan)>, String);

/// `type? name`. The type is taken whenever the next word starts one, as in
/// the reference.
fn bare_value_info<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    ty: Parsed<'t, I, E, TypeProto>,
) -> Parsed<'t, I, E, BareValueInfo> {
    let typed = ty
        .map_with(|t, e| (t, e.span()))
        .then(landmark(Kind::Name, quotable_id()))
        .map(|(t, name)| (Some(t), name));
    let untyped = landmark(Kind::Name, quotable_non_type_id()).map(|name| (None, name));
    typed.or(untyped).boxed()
}

/// Builds a value info and applies its annotation.
fn make_value_info<E: CustomError>(
    (ty, name): BareValueInfo,
    entries: Option<Vec<Entry>>,
    emitter: &mut chumsky::input::Emitter<E>,
) -> ValueInfoProto {
    let mut info = ValueInfoProto {
        name: Some(name),
        r#type: ty.map(|(t, _)| t),
        ..ValueInfoProto::default()
    };
    if let Some(entries) = entries {
        if let Err(d) = annotation::apply_value_info(&mut info, entries) {
            emit_diagnostic(emitter, d);
        }
    }
    info
}

/// `annotation? type? name`.
pub(crate) fn value_info<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    ty: Parsed<'t, I, E, TypeProto>,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, ValueInfoProto> {
    annotation
        .or_not()
        .then(bare_value_info(ty))
        .validate(|(entries, bare), _, emitter| make_value_info(bare, entries, emitter))
        .boxed()
}

/// `= annotation? values?` after a value info: the value is initialized.
type InitializerTail<'s> = (Option<Vec<Entry>>, Data<'s>, SimpleSpan);

/// One entry of a graph's input list or `<...>` list: an annotation, a
/// value info, and maybe an initializer tail.
type ListItem<'s> = (
    Option<Vec<Entry>>,
    BareValueInfo,
    Option<InitializerTail<'s>>,
);

fn value_info_or_initializer<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    ty: Parsed<'t, I, E, TypeProto>,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, ListItem<'s>> {
    let tail = just(Token::Eq)
        .ignore_then(annotation.clone().or_not())
        .then(data().or_not())
        .map_with(|(entries, data), e| (entries, data.unwrap_or(Data::Absent), e.span()));
    let item = annotation
        .clone()
        .or_not()
        .then(bare_value_info(ty.clone()))
        .then(tail.or_not())
        .map(|((a, v), t)| (a, v, t));
    item.or(values_before_name(ty, annotation)).boxed()
}

/// `float[2] {1, 2} b`: a tensor's values written before its name,
/// reported with the fix. Tried only when an item does not parse.
fn values_before_name<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    ty: Parsed<'t, I, E, TypeProto>,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, ListItem<'s>> {
    let spanned_name = quotable_id().map_with(|name, e| (name, e.span()));
    annotation
        .or_not()
        .then(ty.map_with(|t, e| (t, e.span())))
        .then(data().map_with(|data, e| (data, e.span())))
        .then(spanned_name)
        .validate(
            |(((entries, ty), (data, data_span)), (name, name_span)), e, emitter| {
                emitter.emit(E::custom(
                    e.span(),
                    with_help(
                        "the name of a tensor comes before its values",
                        format!(
                            "write `{} {} = {}`",
                            quote(ty.1),
                            quote(name_span),
                            quote(data_span)
                        ),
                    ),
                ));
                (entries, (Some(ty), name), Some((None, data, data_span)))
            },
        )
        .boxed()
}

/// The initializer tensor of `value-info = values`, named after the value.
fn initializer<'s, E: CustomError>(
    (ty, name): BareValueInfo,
    (entries, data, span): InitializerTail<'s>,
    emitter: &mut chumsky::input::Emitter<E>,
) -> TensorProto {
    let ty = ty.unwrap_or_else(|| (TypeProto::default(), span));
    let mut tensor = build_tensor(ty, Some(name), data, &mut |e| emitter.emit(e));
    super::tensor::annotate_tensor(&mut tensor, entries, emitter);
    tensor
}

/// Concatenates two optional annotations.
fn join(a: Option<Vec<Entry>>, b: Option<Vec<Entry>>) -> Option<Vec<Entry>> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            a.extend(b);
            Some(a)
        }
        (a, b) => a.or(b),
    }
}

/// A graph: `annotation? name (inputs)? => (outputs) <value infos and
/// initializers>? { nodes }`.
pub(crate) fn graph<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    ty: Parsed<'t, I, E, TypeProto>,
    nodes: impl Parser<'t, I, Vec<NodeProto>, Extra<E>> + Clone + 't,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, GraphProto> {
    let item = value_info_or_initializer(ty.clone(), annotation.clone());
    // The input list and the `<...>` list hold the same items; landmarks
    // record which list and whether the item is initialized. An item that
    // does not parse is recorded too, so that landmarks and items pair up.
    let list = |open, close, kind: fn(bool) -> Kind| {
        let dummy = (None, (None, String::new()), None);
        landmarked_list(
            item.clone(),
            (open, close),
            0,
            dummy,
            move |(_, _, tail): &ListItem<'s>| kind(tail.is_some()),
        )
    };
    let output = value_info(ty, annotation.clone());
    let outputs = landmarked_list(output, PARENS, 0, ValueInfoProto::default(), |_| {
        Kind::Output
    });
    let graph = annotation
        .or_not()
        .then(landmark(Kind::Name, quotable_id()))
        .then(list(Token::LParen, Token::RParen, Kind::Input).or_not())
        .then_ignore(arrow())
        .then(outputs)
        .then(list(Token::LAngle, Token::RAngle, Kind::ListEntry).or_not())
        .then(nodes)
        .validate(
            |(((((entries, name), inputs), output), infos), node), _, emitter| {
                let mut graph = GraphProto {
                    name: Some(name),
                    output,
                    node,
                    ..GraphProto::default()
                };
                // In the input list an initialized entry is both an input and an
                // initializer; the annotation before it belongs to the input.
                for (before, bare, tail) in inputs.unwrap_or_default() {
                    if let Some(tail) = tail {
                        graph
                            .initializer
                            .push(initializer(bare.clone(), tail, emitter));
                    }
                    graph.input.push(make_value_info(bare, before, emitter));
                }
                // In the `<...>` list an initialized entry is only an initializer.
                for (before, bare, tail) in infos.unwrap_or_default() {
                    match tail {
                        Some((after, data, span)) => {
                            graph.initializer.push(initializer(
                                bare,
                                (join(before, after), data, span),
                                emitter,
                            ));
                        }
                        None => graph
                            .value_info
                            .push(make_value_info(bare, before, emitter)),
                    }
                }
                if let Some(entries) = entries {
                    if let Err(d) = annotation::apply_graph(&mut graph, entries) {
                        emit_diagnostic(emitter, d);
                    }
                }
                graph
            },
        )
        .labelled("a graph");
    landmark(Kind::Graph, graph)
}

/// `=>` between the input and output lists. A `->` in its place, or
/// nothing before the output list, is reported and parsing goes on.
fn arrow<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>() -> impl Parser<'t, I, (), Extra<E>> + Clone
{
    let instead = just(Token::ThinArrow)
        .ignored()
        .or(just(Token::LParen).rewind().ignored());
    just(Token::Arrow)
        .ignored()
        .recover_with(via_parser(instead))
}

/// One entry of a function's attribute list: a name, or a name with a
/// default value, or (as the reference accepts) a name with only a type.
#[derive(Clone)]
enum FunctionAttribute {
    Name(String),
    Proto(Box<AttributeProto>),
}

/// A function: `<header>? name <attributes>? (inputs) => (outputs)
/// <value infos>? { nodes }`.
pub(crate) fn function<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    ty: Parsed<'t, I, E, TypeProto>,
    nodes: impl Parser<'t, I, Vec<NodeProto>, Extra<E>> + Clone + 't,
    header: impl Parser<'t, I, Vec<Entry>, Extra<E>> + Clone + 't,
    attribute_value: impl Parser<'t, I, Written<'s>, Extra<E>> + Clone + 't,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, FunctionProto> {
    let default = just(Token::Eq).ignore_then(attribute_value);
    let parameter = annotation
        .clone()
        .or_not()
        .then(landmark(Kind::Name, attribute_name()))
        .then(type_annotation().or_not())
        .then(default.or_not())
        .validate(|(((entries, name), declared), value), e, emitter| {
            match (declared, value, entries) {
                (None, None, None) => FunctionAttribute::Name(name),
                (declared, value, entries) => {
                    let mut proto = AttributeProto {
                        name: Some(name),
                        r#type: declared.map(|t| t as i32),
                        ..Default::default()
                    };
                    if let Some(value) = value {
                        if let Err((message, span)) = fill(&mut proto, declared, value) {
                            emitter.emit(E::custom(span.unwrap_or(e.span()), message));
                        }
                    }
                    super::attribute::annotate(&mut proto, entries, emitter);
                    FunctionAttribute::Proto(Box::new(proto))
                }
            }
        });
    let parameters = landmarked_list(
        parameter,
        ANGLES,
        1,
        FunctionAttribute::Name(String::new()),
        |p: &FunctionAttribute| match p {
            FunctionAttribute::Proto(_) => Kind::Attribute,
            FunctionAttribute::Name(_) => Kind::AttributeName,
        },
    );
    let io = annotation
        .clone()
        .or_not()
        .then(bare_value_info(ty.clone()));
    let io = |kind: Kind| {
        let dummy = (None, (None, String::new()));
        landmarked_list(io.clone(), PARENS, 0, dummy, move |_| kind)
    };
    let infos = landmarked_list(
        value_info(ty, annotation),
        ANGLES,
        0,
        ValueInfoProto::default(),
        |_| Kind::ListEntry(false),
    );
    let function = header
        .or_not()
        .then(landmark(Kind::Name, quotable_id()))
        .then(parameters.or_not())
        .then(io(Kind::Input(false)))
        .then_ignore(arrow())
        .then(io(Kind::Output))
        .then(infos.or_not())
        .then(nodes)
        .validate(
            |((((((header, name), parameters), inputs), outputs), infos), node), _, emitter| {
                let mut function = FunctionProto {
                    name: Some(name),
                    node,
                    ..FunctionProto::default()
                };
                for parameter in parameters.unwrap_or_default() {
                    match parameter {
                        FunctionAttribute::Name(name) => function.attribute.push(name),
                        FunctionAttribute::Proto(proto) => function.attribute_proto.push(*proto),
                    }
                }
                // A typed or annotated input or output also gets a value info.
                for (list, names) in [
                    (inputs, &mut function.input),
                    (outputs, &mut function.output),
                ] {
                    for (entries, (ty, name)) in list {
                        names.push(name.clone());
                        if ty.is_some() || entries.is_some() {
                            function
                                .value_info
                                .push(make_value_info((ty, name), entries, emitter));
                        }
                    }
                }
                function.value_info.extend(infos.unwrap_or_default());
                for entry in header.unwrap_or_default() {
                    if let Err(d) = apply_function_header(&mut function, entry) {
                        emit_diagnostic(emitter, d);
                    }
                }
                function
            },
        )
        .labelled("a function");
    function.boxed()
}

/// What a function starts with: its header, or a name followed by its
/// attribute or input list.
fn function_start<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>() -> Parsed<'t, I, E, ()> {
    just(Token::LAngle)
        .ignored()
        .or(quotable_id()
            .then(one_of([Token::LAngle, Token::LParen]))
            .ignored())
        .boxed()
}

/// Text after a model's last function that cannot start another one:
/// consumed and reported as one error at its first token (a broken
/// function is left to the function parser, which reports what is wrong
/// inside it).
fn trailing_text<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>() -> Parsed<'t, I, E, ()> {
    function_start()
        .not()
        .ignore_then(any().map_with(|token: Token<'s>, e| (token, e.span())))
        .then_ignore(any().repeated())
        .validate(|(token, span), _, emitter| {
            emitter.emit(E::custom(
                span,
                format!("unexpected {token} after the end of the model"),
            ));
        })
        .boxed()
}

/// A model: `<header>? graph function*`.
pub(crate) fn model<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    header: impl Parser<'t, I, Vec<Entry>, Extra<E>> + Clone + 't,
    graph: impl Parser<'t, I, GraphProto, Extra<E>> + Clone + 't,
    function: Parsed<'t, I, E, FunctionProto>,
) -> Parsed<'t, I, E, Box<ModelProto>> {
    landmark(Kind::Header, header)
        .or_not()
        .then(graph)
        .then(
            landmark(
                Kind::Function,
                function_item(function, FunctionProto::default()),
            )
            .repeated()
            .collect::<Vec<_>>(),
        )
        .then_ignore(trailing_text().or_not())
        .validate(|((header, graph), functions), _, emitter| {
            let mut model = Box::new(ModelProto {
                graph: Some(graph),
                functions,
                ..ModelProto::default()
            });
            for entry in header.unwrap_or_default() {
                if let Err(d) = apply_model_header(&mut model, entry) {
                    emit_diagnostic(emitter, d);
                }
            }
            model
        })
        .boxed()
}

/// The error for the header entry `key` whose value, at `span`, is not
/// what the key takes.
fn header_error(key: &str, span: Span, expected: &str) -> Diagnostic {
    Diagnostic::new(
        "onnxtxt::parse::header_value",
        format!("`{key}` takes {expected}"),
        span,
    )
}

fn int_value(key: &str, value: &Value) -> Result<i64, Diagnostic> {
    match value {
        Value::Number(text, span) => text.parse().map_err(|_| {
            let is_integer = text.bytes().all(|b| b == b'-' || b.is_ascii_digit());
            if is_integer {
                return Diagnostic::new(
                    "onnxtxt::parse::header_value",
                    super::common::out_of_range::<i64>(text),
                    span.clone(),
                );
            }
            let diagnostic = Diagnostic::new(
                "onnxtxt::parse::header_value",
                format!("`{key}` takes an integer, found `{text}`"),
                span.clone(),
            );
            match text.parse::<f64>() {
                Ok(value) if value.fract() == 0.0 && value.abs() < 1e15 => {
                    diagnostic.with_help(format!("write `{value}` without a fraction or exponent"))
                }
                _ => diagnostic,
            }
        }),
        _ => Err(header_error(key, value.span(), "an integer")),
    }
}

fn text_value(entry: Entry) -> Result<String, Diagnostic> {
    match entry.value {
        Value::Bytes(bytes, span) => {
            String::from_utf8(bytes).map_err(|_| header_error(&entry.key, span, "UTF-8 text"))
        }
        other => Err(header_error(&entry.key, other.span(), "a string")),
    }
}

/// `["domain": version, ...]`.
fn opset_value(entry: Entry) -> Result<Vec<OperatorSetIdProto>, Diagnostic> {
    let span = entry.value.span();
    match entry.value {
        Value::List(items, _) if items.is_empty() => Ok(Vec::new()),
        Value::Pairs(pairs, _) => pairs
            .into_iter()
            .map(|(domain, version)| {
                let version = int_value(&entry.key, &version)?;
                let domain = String::from_utf8(domain)
                    .map_err(|_| header_error(&entry.key, span.clone(), "UTF-8 domains"))?;
                Ok(OperatorSetIdProto {
                    domain: Some(domain),
                    version: Some(version),
                })
            })
            .collect(),
        _ => Err(header_error(&entry.key, span, "a list like `[\"\": 18]`")),
    }
}

/// `["key": "value", ...]`.
fn string_pairs_value(entry: Entry) -> Result<Vec<StringStringEntryProto>, Diagnostic> {
    let span = entry.value.span();
    let utf8 = |bytes, what| {
        String::from_utf8(bytes).map_err(|_| header_error(&entry.key, span.clone(), what))
    };
    match entry.value {
        Value::List(items, _) if items.is_empty() => Ok(Vec::new()),
        Value::Pairs(pairs, _) => pairs
            .into_iter()
            .map(|(key, value)| match value {
                Value::Bytes(value, _) => Ok(StringStringEntryProto {
                    key: Some(utf8(key, "UTF-8 keys")?),
                    value: Some(utf8(value, "UTF-8 values")?),
                }),
                _ => Err(header_error(&entry.key, span.clone(), "string values")),
            })
            .collect(),
        _ => Err(header_error(
            &entry.key,
            span,
            "a list like `[\"key\": \"value\"]`",
        )),
    }
}

/// Whether an entry's value has the reference's `["key": value, ...]` form
/// (or is `[]`); other forms, such as a list of messages for entries with
/// missing fields, are [ext] annotations.
fn is_pair_list(entry: &Entry) -> bool {
    match &entry.value {
        Value::Pairs(..) => true,
        Value::List(items, _) => items.is_empty(),
        _ => false,
    }
}

/// Words an unknown-key diagnostic for a header (the keys of headers and
/// annotations are checked by the same code, which speaks of
/// annotations), with "did you mean" when `key` looks like a misspelt
/// header key.
fn unknown_header_key(diagnostic: Diagnostic, key: &str, keys: &[&str], of: &str) -> Diagnostic {
    if diagnostic.code != "onnxtxt::parse::unknown_annotation" {
        return diagnostic;
    }
    let unknown = Diagnostic::new(
        "onnxtxt::parse::unknown_header_key",
        format!("`{key}` is not a key of a {of} header"),
        diagnostic.span,
    );
    match super::hints::closest(key, keys.iter().copied()) {
        Some(known) => unknown.with_help(format!("did you mean `{known}`?")),
        None => unknown.with_help(format!("the keys are {}", keys.join(", "))),
    }
}

/// Applies one model header entry; keys the reference does not know are
/// [ext] annotations.
pub(crate) fn apply_model_header(model: &mut ModelProto, entry: Entry) -> Result<(), Diagnostic> {
    let Err(entry) = apply_reference_model_header(model, entry)? else {
        return Ok(());
    };
    let key = entry.key.clone();
    annotation::apply_model_entry(model, entry)
        .map_err(|d| unknown_header_key(d, &key, &MODEL_HEADER_KEYS, "model"))
}

/// Applies one model header entry whose key the reference knows, which
/// sets one of the model's header fields; any other entry is given back
/// (`Ok(Err(entry))`) untouched.
pub(crate) fn apply_reference_model_header(
    model: &mut ModelProto,
    entry: Entry,
) -> Result<Result<(), Entry>, Diagnostic> {
    match entry.key.as_str() {
        "ir_version" => model.ir_version = Some(int_value(&entry.key, &entry.value)?),
        "opset_import" if is_pair_list(&entry) => {
            append(&mut model.opset_import, opset_value(entry)?)
        }
        "producer_name" => model.producer_name = Some(text_value(entry)?),
        "producer_version" => model.producer_version = Some(text_value(entry)?),
        "domain" => model.domain = Some(text_value(entry)?),
        "model_version" => model.model_version = Some(int_value(&entry.key, &entry.value)?),
        "doc_string" => model.doc_string = Some(text_value(entry)?),
        "metadata_props" if is_pair_list(&entry) => {
            append(&mut model.metadata_props, string_pairs_value(entry)?)
        }
        _ => return Ok(Err(entry)),
    }
    Ok(Ok(()))
}

/// `items` after those of `list`: taken as they are when `list` is empty
/// (a header's first `opset_import`, nearly always its only one), where
/// extending the empty list made a vector and copied them into it.
fn append<T>(list: &mut Vec<T>, items: Vec<T>) {
    if list.is_empty() {
        *list = items;
    } else {
        list.extend(items);
    }
}

/// Applies one function header entry; keys the reference does not know are
/// [ext] annotations.
fn apply_function_header(function: &mut FunctionProto, entry: Entry) -> Result<(), Diagnostic> {
    match entry.key.as_str() {
        "opset_import" if is_pair_list(&entry) => {
            append(&mut function.opset_import, opset_value(entry)?)
        }
        "doc_string" => function.doc_string = Some(text_value(entry)?),
        "domain" => function.domain = Some(text_value(entry)?),
        "overload" => function.overload = Some(text_value(entry)?),
        _ => {
            let key = entry.key.clone();
            return annotation::apply_function_entry(function, entry)
                .map_err(|d| unknown_header_key(d, &key, &FUNCTION_HEADER_KEYS, "function"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{parse_function, parse_graph, parse_model, parse_value_info};

    #[test]
    fn graph_inputs_initializers_and_value_infos() {
        let g = parse_graph(
            "g (float[2] x, float[2] w = {1, 2}) => (float[2] y) <float[1] b = {3}, float[2] t> { t = Add(x, w) y = Add(t, b) }",
        )
        .unwrap();
        assert_eq!(g.input.len(), 2);
        let names: Vec<_> = g
            .initializer
            .iter()
            .map(|t| t.name.clone().unwrap())
            .collect();
        assert_eq!(names, vec!["w", "b"]);
        assert_eq!(g.value_info.len(), 1);
        assert_eq!(g.node.len(), 2);
        // Inputs are optional, as in the reference.
        assert!(parse_graph("g => (float y) {}").is_ok());
        assert!(parse_graph("g () = > (float y) {}").is_err());
    }

    #[test]
    fn value_infos_with_and_without_types() {
        let v = parse_value_info("float[N] x").unwrap();
        assert!(v.r#type.is_some());
        let v = parse_value_info("\"a b\"").unwrap();
        assert_eq!((v.name.as_deref(), v.r#type), (Some("a b"), None));
        assert!(parse_value_info("float").is_err());
    }

    #[test]
    fn functions_with_attributes_defaults_and_value_infos() {
        let f = parse_function(
            "<domain: \"local\", opset_import: [\"\": 18], overload: \"o\"> f <a, b: float = 1.0, c: int> (x, float y) => (z) <float t> { t = Add(x, y) z = Mul(t, t) }",
        )
        .unwrap();
        assert_eq!(f.attribute, vec!["a"]);
        assert_eq!(f.attribute_proto.len(), 2);
        assert_eq!(f.attribute_proto[1].i, None);
        assert_eq!(f.input, vec!["x", "y"]);
        let vi: Vec<_> = f
            .value_info
            .iter()
            .map(|v| v.name.clone().unwrap())
            .collect();
        assert_eq!(vi, vec!["y", "t"]);
        assert_eq!(
            (
                f.domain.as_deref(),
                f.overload.as_deref(),
                f.opset_import.len()
            ),
            (Some("local"), Some("o"), 1)
        );
    }

    #[test]
    fn model_header_and_functions() {
        let m = parse_model(
            r#"<ir_version: 8, opset_import: ["": 18, "local": 1], producer_name: "p", model_version: 3, metadata_props: ["k": "v"]>
               g (float x) => (float y) { y = local.f(x) }
               <domain: "local", opset_import: ["": 18]> f (a) => (b) { b = Identity(a) }
               <domain: "local", opset_import: ["": 18]> h (a) => (b) { b = Identity(a) }"#,
        )
        .unwrap();
        assert_eq!(
            (m.ir_version, m.opset_import.len(), m.functions.len()),
            (Some(8), 2, 2)
        );
        assert_eq!(m.metadata_props[0].key.as_deref(), Some("k"));
        assert!(parse_model("<ir_version: \"8\"> g => () {}").is_err());
        assert!(parse_model("<ir_versoin: 8> g => () {}").is_err());
        assert!(parse_model("g => () {} trailing").is_err());
    }
}
