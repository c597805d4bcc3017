//! Completion: what may be written at an offset, found from the tokens
//! around it (which work on half-typed text) and the index (for what is in
//! scope and imported):
//!
//! * after a node's `=` (or `domain.`): the operators of the domains the
//!   graph or function imports, in force at the imported opset, and the
//!   model-local functions;
//! * in a node's `<...>`: the operator's attributes not written yet, with
//!   their default as a snippet; after `name:` the attribute types; after
//!   `@` the attributes of the enclosing function;
//! * in a node's `(...)`: the values in scope;
//! * in a model or function header: the keys not written yet;
//! * where a value info may start (signatures, `<...>` lists of a graph)
//!   and inside `seq(`, `optional(`, `map(`: the element types and type
//!   constructors.

use super::index::Index;
use super::lexemes::{Bracket, Lex, Lexemes};
use super::{Analysis, SymbolKind};
use crate::error::Span;
use crate::ops;
use crate::parser::unquote;
use crate::vocabulary::{
    ATTRIBUTE_TYPES, ELEMENT_TYPES, FUNCTION_HEADER_KEYS, MODEL_HEADER_KEYS, TYPE_KEYWORDS,
};

/// What a [`Completion`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompletionKind {
    /// An operator of the registry.
    Operator,
    /// A model-local function.
    Function,
    /// An attribute name.
    Attribute,
    /// A value name.
    Value,
    /// A header key.
    HeaderKey,
    /// A type word.
    Type,
}

/// One thing that may be written at an offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// What the list shows.
    pub label: String,
    /// What it is.
    pub kind: CompletionKind,
    /// A short description (an operator's domain and version, an
    /// attribute's type and default, ...).
    pub detail: Option<String>,
    /// The text that replaces [`Completion::replace`].
    pub insert: String,
    /// Whether `insert` is a snippet, with `$1`-style tab stops.
    pub snippet: bool,
    /// The text replaced: the word being typed, or an empty span at the
    /// offset.
    pub replace: Span,
    /// Whether it is deprecated (an operator's schema).
    pub deprecated: bool,
}

/// Where the offset is, as completion sees it.
#[derive(Debug, PartialEq, Eq)]
enum Place {
    /// Where a node's operator goes, with the domain written before it.
    Operator(Option<String>),
    /// An attribute name in the `<...>` of a node with this operator.
    AttributeName {
        domain: String,
        op_type: String,
        opener: usize,
    },
    /// An attribute type, after `name:`.
    AttributeType,
    /// An attribute reference, after `@`.
    Reference,
    /// A node input.
    Value,
    /// A key of a model's (`true`) or function's header.
    HeaderKey { model: bool, opener: usize },
    /// Where a type may start.
    Type,
}

pub(super) fn completions(analysis: &Analysis, offset: usize) -> Vec<Completion> {
    let lexemes = &analysis.lexemes;
    let word = lexemes.name_at(offset);
    let replace = word.map_or(offset..offset, |w| lexemes.tokens[w].span.clone());
    let at = word.unwrap_or_else(|| lexemes.before(offset).map_or(0, |b| b + 1));
    let Some(place) = place(analysis, at) else {
        return Vec::new();
    };
    let make = |label: String, kind, detail, insert, snippet| Completion {
        label,
        kind,
        detail,
        insert,
        snippet,
        replace: replace.clone(),
        deprecated: false,
    };
    let index = &analysis.index;
    let body = index.body_at(offset);
    match place {
        Place::Operator(domain) => operators(index, body, domain.as_deref(), &replace),
        Place::AttributeName {
            domain,
            op_type,
            opener,
        } => attributes(analysis, body, &domain, &op_type, opener, &replace),
        Place::AttributeType => ATTRIBUTE_TYPES
            .iter()
            .map(|(name, _)| {
                make(
                    name.to_string(),
                    CompletionKind::Type,
                    None,
                    name.to_string(),
                    false,
                )
            })
            .collect(),
        Place::Reference => {
            let function = body.and_then(|b| outermost(index, b));
            index
                .symbols
                .iter()
                .filter(|s| s.kind == SymbolKind::FunctionAttribute && Some(s.body) == function)
                .map(|s| {
                    make(
                        s.name.clone(),
                        CompletionKind::Attribute,
                        None,
                        s.name.clone(),
                        false,
                    )
                })
                .collect()
        }
        Place::Value => body
            .map(|b| index.values_in_scope(b, offset))
            .unwrap_or_default()
            .into_iter()
            .map(|id| {
                let symbol = &index.symbols[id];
                let detail = symbol.ty.as_ref().map(crate::to_text);
                make(
                    symbol.name.clone(),
                    CompletionKind::Value,
                    detail,
                    written_name(&symbol.name),
                    false,
                )
            })
            .collect(),
        Place::HeaderKey { model, opener } => {
            let keys: &[&str] = if model {
                &MODEL_HEADER_KEYS
            } else {
                &FUNCTION_HEADER_KEYS
            };
            let written = keys_written(analysis, opener);
            keys.iter()
                .filter(|k| !written.contains(&k.to_string()))
                .map(|k| {
                    make(
                        k.to_string(),
                        CompletionKind::HeaderKey,
                        None,
                        format!("{k}: $1"),
                        true,
                    )
                })
                .collect()
        }
        Place::Type => ELEMENT_TYPES
            .iter()
            .map(|(name, _)| *name)
            .chain(TYPE_KEYWORDS.iter().copied())
            .map(|name| {
                make(
                    name.to_owned(),
                    CompletionKind::Type,
                    None,
                    name.to_owned(),
                    false,
                )
            })
            .collect(),
    }
}

/// A value name as written: quoted when it must be.
fn written_name(name: &str) -> String {
    if crate::printer::name_needs_quotes(name) {
        super::quoted(name)
    } else {
        name.to_owned()
    }
}

/// The function body that body `body` is in, if any.
fn outermost(index: &Index, mut body: usize) -> Option<usize> {
    while let Some(parent) = index.bodies[body].parent {
        body = parent;
    }
    index.bodies[body].function.map(|_| body)
}

/// The name token `i` stands for (unquoted).
fn name(analysis: &Analysis, i: usize) -> String {
    let text = &analysis.text[analysis.lexemes.tokens[i].span.clone()];
    if text.starts_with('"') && text.len() >= 2 && text.ends_with('"') {
        unquote(text)
    } else {
        text.to_owned()
    }
}

/// Where the token at `at` (or the end of the text) is.
fn place(analysis: &Analysis, at: usize) -> Option<Place> {
    let lexemes = &analysis.lexemes;
    let before = at.checked_sub(1).and_then(|b| lexemes.lex(b));
    let enclosing = lexemes.enclosing(at);
    let opener = enclosing.map(|o| lexemes.tokens[o].lex);
    let item_start = matches!(before, Some(Lex::Comma | Lex::Open(_)));
    match (opener, before) {
        (Some(Lex::Open(Bracket::Brace)), Some(Lex::Eq)) => Some(Place::Operator(None)),
        (Some(Lex::Open(Bracket::Brace)), Some(Lex::Dot)) => {
            let domain = domain_before(analysis, at - 1)?;
            Some(Place::Operator(Some(domain)))
        }
        (Some(Lex::Open(Bracket::Angle)), _) => {
            let o = enclosing?;
            if let Some((domain, op_type)) = operator_before(analysis, o) {
                return match before {
                    Some(Lex::Colon) => Some(Place::AttributeType),
                    Some(Lex::At) => Some(Place::Reference),
                    _ if item_start => Some(Place::AttributeName {
                        domain,
                        op_type,
                        opener: o,
                    }),
                    _ => None,
                };
            }
            if is_header(lexemes, o) && item_start {
                return Some(Place::HeaderKey {
                    model: o == 0,
                    opener: o,
                });
            }
            (item_start && follows_outputs(lexemes, o)).then_some(Place::Type)
        }
        (Some(Lex::Open(Bracket::Paren)), _) if item_start => {
            let o = enclosing?;
            if node_inputs(analysis, o) {
                return Some(Place::Value);
            }
            let type_constructor = o > 0
                && lexemes.tokens[o - 1].lex == Lex::Ident
                && matches!(name(analysis, o - 1).as_str(), "seq" | "optional" | "map");
            let signature = o > 0
                && matches!(
                    lexemes.lex(o - 1),
                    Some(Lex::Ident | Lex::Quoted | Lex::Arrow | Lex::Close(Bracket::Angle))
                );
            (type_constructor || signature).then_some(Place::Type)
        }
        _ => None,
    }
}

/// The domain written before the `.` at `dot`, back to a node's `=`.
fn domain_before(analysis: &Analysis, dot: usize) -> Option<String> {
    let lexemes = &analysis.lexemes;
    let mut parts = Vec::new();
    let mut i = dot;
    while i >= 1 && lexemes.tokens[i - 1].is_name() {
        parts.push(name(analysis, i - 1));
        if i >= 2 && lexemes.lex(i - 2) == Some(Lex::Dot) {
            i -= 2;
        } else {
            i -= 1;
            break;
        }
    }
    (i >= 1 && lexemes.lex(i - 1) == Some(Lex::Eq)).then(|| {
        parts.reverse();
        parts.join(".")
    })
}

/// The operator written just before token `o` (`= domain.Op:overload`),
/// as `(domain, op_type)`.
fn operator_before(analysis: &Analysis, o: usize) -> Option<(String, String)> {
    let lexemes = &analysis.lexemes;
    let mut i = o.checked_sub(1)?;
    if i >= 2 && lexemes.lex(i - 1) == Some(Lex::Colon) && lexemes.tokens[i].is_name() {
        i -= 2;
    }
    if !lexemes.tokens[i].is_name() {
        return None;
    }
    let op_type = name(analysis, i);
    let mut domain = Vec::new();
    while i >= 2 && lexemes.lex(i - 1) == Some(Lex::Dot) && lexemes.tokens[i - 2].is_name() {
        domain.push(name(analysis, i - 2));
        i -= 2;
    }
    if i >= 1 && lexemes.lex(i - 1) == Some(Lex::Dot) {
        i -= 1;
    }
    (i >= 1 && lexemes.lex(i - 1) == Some(Lex::Eq)).then(|| {
        domain.reverse();
        (domain.join("."), op_type)
    })
}

/// Whether the `(` at `o` opens a node's inputs: it follows the operator,
/// or the `<...>` that follows it.
fn node_inputs(analysis: &Analysis, o: usize) -> bool {
    let lexemes = &analysis.lexemes;
    if operator_before(analysis, o).is_some() {
        return true;
    }
    o > 0
        && lexemes.lex(o - 1) == Some(Lex::Close(Bracket::Angle))
        && lexemes
            .opener_of(o - 1)
            .is_some_and(|angle| operator_before(analysis, angle).is_some())
}

/// Whether the `<` at `o` opens a header: the model's (at the start of the
/// text) or a function's (after the end of a graph or function).
fn is_header(lexemes: &Lexemes, o: usize) -> bool {
    o == 0 || lexemes.lex(o - 1) == Some(Lex::Close(Bracket::Brace))
}

/// Whether the `<` at `o` follows a graph's output list (`=> (...)`).
fn follows_outputs(lexemes: &Lexemes, o: usize) -> bool {
    o > 0
        && lexemes.lex(o - 1) == Some(Lex::Close(Bracket::Paren))
        && lexemes
            .opener_of(o - 1)
            .is_some_and(|paren| paren > 0 && lexemes.lex(paren - 1) == Some(Lex::Arrow))
}

/// The keys (of a header) or attribute names written in the `<...>`
/// opened at token `opener`: names directly inside it, each at the start
/// of an item and followed by `:` or `=`.
fn keys_written(analysis: &Analysis, opener: usize) -> Vec<String> {
    let lexemes = &analysis.lexemes;
    let end = lexemes.closer_of(opener).unwrap_or(lexemes.tokens.len());
    (opener + 1..end)
        .filter(|&i| {
            lexemes.tokens[i].is_name()
                && matches!(lexemes.lex(i + 1), Some(Lex::Eq | Lex::Colon))
                && matches!(lexemes.lex(i - 1), Some(Lex::Comma | Lex::Open(_)))
                && lexemes.enclosing(i) == Some(opener)
        })
        .map(|i| name(analysis, i))
        .collect()
}

/// The operators (and model-local functions) that may be written where a
/// node's operator goes in body `body`, of `domain` when one is written.
fn operators(
    index: &Index,
    body: Option<usize>,
    domain: Option<&str>,
    replace: &Span,
) -> Vec<Completion> {
    let imports: Vec<(String, i64)> = match body {
        Some(body) => index.bodies[body].imports.clone(),
        None => ops::domains()
            .iter()
            .map(|d| (d.name().to_owned(), d.last_opset()))
            .collect(),
    };
    let wanted =
        |d: &str| domain.is_none_or(|w| ops::canonical_domain(w) == ops::canonical_domain(d));
    let mut completions = Vec::new();
    for (imported, opset) in &imports {
        if !wanted(imported) {
            continue;
        }
        let prefix = match (domain, ops::canonical_domain(imported)) {
            (Some(_), _) | (None, "") => String::new(),
            (None, other) => format!("{other}."),
        };
        for schema in ops::operators_at(imported, *opset) {
            completions.push(Completion {
                label: schema.name().to_owned(),
                kind: CompletionKind::Operator,
                detail: Some(format!(
                    "{} {opset} (version {})",
                    ops::domain(imported).map_or(imported.as_str(), |d| d.display_name()),
                    schema.since_version()
                )),
                insert: format!("{prefix}{}", schema.name()),
                snippet: false,
                replace: replace.clone(),
                deprecated: schema.deprecated(),
            });
        }
    }
    for symbol in index
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Function)
    {
        if !wanted(&symbol.domain) {
            continue;
        }
        let insert = match domain {
            Some(_) => written_name(&symbol.name),
            None => format!("{}.{}", symbol.domain, written_name(&symbol.name)),
        };
        completions.push(Completion {
            label: symbol.name.clone(),
            kind: CompletionKind::Function,
            detail: Some(format!("model-local function of `{}`", symbol.domain)),
            insert,
            snippet: false,
            replace: replace.clone(),
            deprecated: false,
        });
    }
    completions
}

/// The attributes of operator `op_type` of `domain` (or of the model-local
/// function it names) not written yet in the `<...>` opened at `opener`.
fn attributes(
    analysis: &Analysis,
    body: Option<usize>,
    domain: &str,
    op_type: &str,
    opener: usize,
    replace: &Span,
) -> Vec<Completion> {
    let index = &analysis.index;
    let written = keys_written(analysis, opener);
    let completion = |name: &str, detail: Option<String>, value: Option<String>| Completion {
        label: name.to_owned(),
        kind: CompletionKind::Attribute,
        detail,
        insert: format!(
            "{name} = ${{1:{}}}",
            escape_snippet(&value.unwrap_or_default())
        ),
        snippet: true,
        replace: replace.clone(),
        deprecated: false,
    };
    let function = index
        .symbols
        .iter()
        .find(|s| s.kind == SymbolKind::Function && s.name == op_type && s.domain == domain);
    if let Some(function) = function {
        return index
            .symbols
            .iter()
            .filter(|s| s.kind == SymbolKind::FunctionAttribute && s.body == function.body)
            .filter(|s| !written.contains(&s.name))
            .map(|s| {
                let declared = s.declaration.as_ref().map(crate::to_text);
                let value = declared.as_deref().and_then(default_of).map(str::to_owned);
                completion(&s.name, declared, value)
            })
            .collect();
    }
    let opset = body
        .and_then(|b| index.opset(b, domain))
        .or_else(|| ops::domain(domain).map(|d| d.last_opset()));
    let Some(schema) = opset.and_then(|v| ops::schema(domain, op_type, v)) else {
        return Vec::new();
    };
    schema
        .attributes()
        .iter()
        .filter(|a| !written.contains(&a.name().to_owned()))
        .map(|a| {
            let declared = a.to_string();
            let value = default_of(&declared).map(str::to_owned);
            completion(a.name(), Some(declared), value)
        })
        .collect()
}

/// `text` inside a snippet's placeholder: `\\`, `$` and `}` escaped.
fn escape_snippet(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('$', "\\$")
        .replace('}', "\\}")
}

/// The value in `name: type = value`, if there is one.
fn default_of(declared: &str) -> Option<&str> {
    declared.split_once(" = ").map(|(_, value)| value)
}
