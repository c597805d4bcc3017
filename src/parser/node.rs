//! Nodes (`[label] outputs = domain.Op:overload <attrs> (inputs)`) and node
//! lists (`{ node* }`).

use chumsky::prelude::*;

use super::annotation::{self, Entry};
use super::common::{id_list, ident, quotable_id, text_literal};
use super::hints::{quote, with_help};
use super::landmarks::{landmark, Kind};
use super::recovery::{landmarked_list, no_match, statement, ANGLES};
use super::{emit_diagnostic, Fail, Parsed, Tokens};
use crate::lexer::Token;
use crate::proto::{AttributeProto, NodeProto};

/// The operator part of a node: its domain, op type and overload.
#[derive(Debug, Clone, Default, PartialEq)]
struct Operator {
    domain: Option<String>,
    op_type: String,
    overload: Option<String>,
}

/// `domain.Op:overload`. The domain is dotted identifiers or [ext] one
/// quoted string (`"".Op` is an explicitly empty domain); the op type and
/// overload may be [ext] quoted. Like the reference, an empty op type is
/// accepted and a leading `.` gives an empty domain.
fn operator<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>() -> Parsed<'t, I, E, Operator> {
    let part = ident().map(str::to_owned).or(text_literal());
    let first = part.clone().or_not();
    let rest = just(Token::Dot)
        .ignore_then(part.clone())
        .repeated()
        .collect::<Vec<_>>();
    let overload = just(Token::Colon).ignore_then(part).or_not();
    first
        .then(rest)
        .then(overload)
        .map(|((first, mut rest), overload)| {
            let Some(op_type) = rest.pop() else {
                return Operator {
                    domain: None,
                    op_type: first.unwrap_or_default(),
                    overload,
                };
            };
            let domain = first
                .into_iter()
                .chain(rest)
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(".");
            Operator {
                domain: Some(domain),
                op_type,
                overload,
            }
        })
        .boxed()
}

/// `<attr, ...>`, at least one attribute.
fn attribute_list<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    attribute: Parsed<'t, I, E, AttributeProto>,
) -> Parsed<'t, I, E, Vec<AttributeProto>> {
    let default = AttributeProto::default();
    landmarked_list(attribute, ANGLES, 1, default, |_| Kind::Attribute)
        .labelled("an attribute list")
        .boxed()
}

/// `(x, axis = 1)`: attributes written among the inputs, reported with
/// the fix. Tried only when a node's inputs do not parse.
fn attributes_among_inputs<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    attribute: Parsed<'t, I, E, AttributeProto>,
) -> Parsed<'t, I, E, (Vec<AttributeProto>, Vec<String>)> {
    let input = quotable_id().map_with(|name, e| (name, e.span()));
    let attributes = landmark(Kind::Attribute, attribute)
        .separated_by(just(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|attributes, e| (attributes, e.span()));
    looks_like_attributes_among_inputs()
        .ignore_then(
            input
                .then_ignore(just(Token::Comma))
                .repeated()
                .collect::<Vec<_>>()
                .then(attributes)
                .delimited_by(just(Token::LParen), just(Token::RParen)),
        )
        .validate(|(inputs, (attributes, span)), _, emitter| {
            let written: Vec<String> = inputs.iter().map(|(_, span)| quote(*span)).collect();
            emitter.emit(E::custom(
                span,
                with_help(
                    "attributes are not inputs: they are written in `<...>`",
                    format!(
                        "write `<{}> ({})` after the operator",
                        quote(span),
                        written.join(", ")
                    ),
                ),
            ));
            (
                attributes,
                inputs.into_iter().map(|(name, _)| name).collect(),
            )
        })
        .boxed()
}

/// Whether `(` starts names separated by commas and then `name =` or
/// `name: type =`. Looks ahead without consuming anything and, when the
/// answer is no, fails where it started: its error never joins (and
/// muddles) the one that the real inputs report further on.
fn looks_like_attributes_among_inputs<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, ()> {
    custom(|inp| {
        let before = inp.cursor();
        let start = inp.save();
        let mut found = inp.next() == Some(Token::LParen);
        while found {
            let name = matches!(inp.next(), Some(Token::Ident(_) | Token::Str(_)));
            match (name, inp.next()) {
                (true, Some(Token::Comma)) => {}
                (true, Some(Token::Eq)) => break,
                (true, Some(Token::Colon)) => {
                    found = matches!(inp.next(), Some(Token::Ident(_)))
                        && inp.next() == Some(Token::Eq);
                    break;
                }
                _ => found = false,
            }
        }
        inp.rewind(start);
        if found {
            return Ok(());
        }
        Err(no_match(inp, &before))
    })
    .boxed()
}

/// A node. Its attributes may come before or after its inputs.
pub(crate) fn node<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    attribute: Parsed<'t, I, E, AttributeProto>,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, NodeProto> {
    let label = quotable_id()
        .or_not()
        .map(Option::unwrap_or_default)
        .delimited_by(just(Token::LBracket), just(Token::RBracket));
    let inputs = id_list().delimited_by(just(Token::LParen), just(Token::RParen));
    let attributes = attribute_list(attribute.clone());
    let call = choice((
        attributes.clone().then(inputs.clone()),
        inputs
            .then(attributes.or_not().map(Option::unwrap_or_default))
            .map(|(i, a)| (a, i)),
        attributes_among_inputs(attribute),
    ))
    .boxed();
    let node = annotation
        .or_not()
        .then(label.or_not())
        .then(id_list())
        .then_ignore(just(Token::Eq))
        .then(landmark(Kind::Operator, operator()))
        .then(call)
        .validate(
            |((((entries, name), output), op), (attribute, input)), _, emitter| {
                let mut node = NodeProto {
                    input,
                    output,
                    name,
                    op_type: Some(op.op_type),
                    domain: op.domain,
                    overload: op.overload,
                    attribute,
                    ..NodeProto::default()
                };
                if let Some(entries) = entries {
                    if let Err(d) = annotation::apply_node(&mut node, entries) {
                        emit_diagnostic(emitter, d);
                    }
                }
                node
            },
        )
        .labelled("a node");
    node.boxed()
}

/// `{ node* }`, each node reported and skipped when it does not parse
/// (and recorded as a landmark either way, so that landmarks and nodes
/// pair up). Text that parses is read by `plain::node_list` first.
pub(crate) fn node_list<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    node: Parsed<'t, I, E, NodeProto>,
) -> Parsed<'t, I, E, Vec<NodeProto>> {
    landmark(Kind::Node, statement(node, NodeProto::default()))
        .repeated()
        .collect()
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .boxed()
}

#[cfg(test)]
mod tests {
    use crate::{parse_node, parse_nodes};

    #[test]
    fn operator_forms() {
        let n = parse_node("y = com.microsoft.Foo:v2 (x)").unwrap();
        assert_eq!(
            (
                n.domain.as_deref(),
                n.op_type.as_deref(),
                n.overload.as_deref()
            ),
            (Some("com.microsoft"), Some("Foo"), Some("v2"))
        );
        let n = parse_node("y = Relu (x)").unwrap();
        assert_eq!((n.domain, n.op_type.as_deref()), (None, Some("Relu")));
        let n = parse_node("y = \"\".Relu (x)").unwrap();
        assert_eq!(n.domain.as_deref(), Some(""));
        let n = parse_node("y = \"my-dom\".\"Op 1\" (x)").unwrap();
        assert_eq!(
            (n.domain.as_deref(), n.op_type.as_deref()),
            (Some("my-dom"), Some("Op 1"))
        );
    }

    #[test]
    fn empty_inputs_follow_the_reference() {
        let inputs = |text: &str| parse_node(text).unwrap().input;
        assert_eq!(inputs("y = Op()"), Vec::<String>::new());
        assert_eq!(inputs("y = Op(,x)"), vec!["", "x"]);
        assert_eq!(inputs("y = Op(x,)"), vec!["x"]);
        assert_eq!(inputs("y = Op(,)"), vec![""]);
        assert_eq!(inputs("y = Op(\"\")"), vec![""]);
        assert_eq!(inputs("y = Op(a,,b)"), vec!["a", "", "b"]);
    }

    #[test]
    fn labels_outputs_and_attribute_positions() {
        let n = parse_node("[n1] a, \"b c\" = Op <k = 1> (x)").unwrap();
        assert_eq!(
            (n.name.as_deref(), n.output.clone(), n.attribute.len()),
            (Some("n1"), vec!["a".to_string(), "b c".to_string()], 1)
        );
        let n = parse_node("y = Op (x) <k = 1, j = 2.0>").unwrap();
        assert_eq!(n.attribute.len(), 2);
        assert_eq!(
            parse_node("[] y = Op (x)").unwrap().name.as_deref(),
            Some("")
        );
        assert!(parse_node("y = Op <k = 1> (x) <j = 2>").is_err());
        assert!(parse_node("y = Op <> (x)").is_err());
    }

    #[test]
    fn node_lists() {
        assert_eq!(parse_nodes("{ a = A() b = B(a) }").unwrap().len(), 2);
        assert_eq!(parse_nodes("{}").unwrap().len(), 0);
    }
}
