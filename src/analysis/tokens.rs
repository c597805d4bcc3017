//! Semantic classes of tokens, for colouring: names from the index (values,
//! operators, functions, attributes, labels), then words known by their
//! place (header and annotation keys, types, dimensions, operator
//! domains), then strings, numbers and comments.

use foldhash::HashSet;

use super::index::{EntryKind, Index};
use super::lexemes::{Bracket, Lex, Lexemes};
use super::{Analysis, Role, SymbolKind, ValueOrigin};
use crate::error::Span;
use crate::vocabulary::{attribute_type_by_name, starts_type};
use crate::SourceMap;

/// What a token is, for colouring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenClass {
    /// An operator of a node.
    Operator,
    /// The domain of a node's operator.
    Namespace,
    /// A model-local function: its name, or a call of it.
    Function,
    /// An input of a graph or function.
    Parameter,
    /// Any other value.
    Value,
    /// An attribute's name, or an attribute a function declares (at its
    /// declaration and its `@name` references).
    Attribute,
    /// A type word: element types, type constructors, attribute types.
    Type,
    /// A dimension name in a shape.
    Dimension,
    /// A key of a model or function header.
    Keyword,
    /// A key of an `@<...>` annotation.
    AnnotationKey,
    /// A node's label.
    Label,
    /// A string that is not a name.
    String,
    /// A number.
    Number,
    /// A comment.
    Comment,
}

/// A token with its class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemanticToken {
    /// Its text.
    pub span: Span,
    /// What it is.
    pub class: TokenClass,
    /// Whether it is where a name is defined.
    pub definition: bool,
    /// Whether it names something of the operator registry.
    pub registry: bool,
}

/// The words known by their place: header and annotation keys, types,
/// dimensions and operator domains, in the order of the text.
pub(super) fn words(
    text: &str,
    lexemes: &Lexemes,
    map: &SourceMap,
    index: &Index,
) -> Vec<(Span, TokenClass)> {
    let taken: HashSet<usize> = index.entries.iter().map(|e| e.span.start).collect();
    let headers = header_openers(lexemes, map, index);
    let tokens = &lexemes.tokens;
    let mut words = domains(lexemes, index);
    // Each open bracket, and whether it opens a shape (follows a type).
    let mut open: Vec<(usize, bool)> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        match token.lex {
            Lex::Open(bracket) => {
                let shape = bracket == Bracket::Square
                    && i > 0
                    && tokens[i - 1].lex == Lex::Ident
                    && starts_type(&text[tokens[i - 1].span.clone()]);
                open.push((i, shape));
            }
            Lex::Close(_) => {
                open.pop();
            }
            Lex::Ident if !taken.contains(&token.span.start) => {
                let word = &text[token.span.clone()];
                let next = tokens.get(i + 1).map(|t| t.lex);
                let before = i.checked_sub(1).map(|b| tokens[b].lex);
                let enclosing = open.last().copied();
                let class = match enclosing {
                    _ if next == Some(Lex::Colon)
                        && enclosing.is_some_and(|(o, _)| headers.contains(&o)) =>
                    {
                        TokenClass::Keyword
                    }
                    Some((o, _))
                        if next == Some(Lex::Colon)
                            && tokens[o].lex == Lex::Open(Bracket::Annotation) =>
                    {
                        TokenClass::AnnotationKey
                    }
                    Some((_, true)) => TokenClass::Dimension,
                    _ if starts_type(word) => TokenClass::Type,
                    _ if before == Some(Lex::Colon) && attribute_type_by_name(word).is_some() => {
                        TokenClass::Type
                    }
                    _ => continue,
                };
                words.push((token.span.clone(), class));
            }
            _ => {}
        }
    }
    words.sort_by_key(|(span, _)| span.start);
    words
}

/// The tokens that open a header: the model's and each function's.
fn header_openers(lexemes: &Lexemes, map: &SourceMap, index: &Index) -> HashSet<usize> {
    let starts = map.span("header").map(|s| s.start).into_iter().chain(
        index
            .bodies
            .iter()
            .filter(|b| b.function.is_some())
            .filter_map(|b| b.span.as_ref().map(|s| s.start)),
    );
    let mut openers: HashSet<usize> = starts
        .filter_map(|start| {
            let i = lexemes.tokens.partition_point(|t| t.span.start < start);
            (lexemes.lex(i) == Some(Lex::Open(Bracket::Angle))).then_some(i)
        })
        .collect();
    // Text read no further than its header: the `<` it starts with.
    if index.bodies.is_empty() && lexemes.lex(0) == Some(Lex::Open(Bracket::Angle)) {
        openers.insert(0);
    }
    openers
}

/// The domains of node operators: the names before the operator's name,
/// back to the `=`.
fn domains(lexemes: &Lexemes, index: &Index) -> Vec<(Span, TokenClass)> {
    let mut words = Vec::new();
    for node in &index.nodes {
        let Some(op) = &node.op_span else { continue };
        let mut i = lexemes.tokens.partition_point(|t| t.span.start < op.start);
        while i >= 2 && lexemes.lex(i - 1) == Some(Lex::Dot) && lexemes.tokens[i - 2].is_name() {
            words.push((lexemes.tokens[i - 2].span.clone(), TokenClass::Namespace));
            i -= 2;
        }
    }
    words
}

/// The class of an index entry, and whether it is a definition.
fn entry_class(analysis: &Analysis, kind: EntryKind) -> (TokenClass, bool, bool) {
    match kind {
        EntryKind::Symbol(id, role) => {
            let class = match analysis.index.symbols[id].kind {
                SymbolKind::Value(ValueOrigin::GraphInput | ValueOrigin::FunctionInput) => {
                    TokenClass::Parameter
                }
                SymbolKind::Value(_) => TokenClass::Value,
                SymbolKind::Function => TokenClass::Function,
                SymbolKind::FunctionAttribute => TokenClass::Attribute,
            };
            (class, role == Role::Definition, false)
        }
        EntryKind::Operator(node) => {
            let node = &analysis.index.nodes[node];
            let known = crate::ops::operator(&node.domain, &node.op_type).is_some();
            (TokenClass::Operator, false, known)
        }
        EntryKind::AttributeName(..) => (TokenClass::Attribute, false, false),
        EntryKind::Reference => (TokenClass::Attribute, false, false),
        EntryKind::Label(_) => (TokenClass::Label, true, false),
    }
}

/// Every token worth colouring, in the order of the text, none
/// overlapping another.
pub(super) fn semantic_tokens(analysis: &Analysis) -> Vec<SemanticToken> {
    let token = |span: Span, class, definition, registry| SemanticToken {
        span,
        class,
        definition,
        registry,
    };
    let mut tokens: Vec<SemanticToken> = analysis
        .index
        .entries
        .iter()
        .map(|e| {
            let (class, definition, registry) = entry_class(analysis, e.kind);
            token(e.span.clone(), class, definition, registry)
        })
        .collect();
    tokens.extend(
        (analysis.words.iter()).map(|(span, class)| token(span.clone(), *class, false, false)),
    );
    let taken: HashSet<usize> = tokens.iter().map(|t| t.span.start).collect();
    for lexeme in &analysis.lexemes.tokens {
        let class = match lexeme.lex {
            Lex::Quoted => TokenClass::String,
            // A whole list of numbers is left to the grammar: it may span
            // many lines and hold millions of values.
            Lex::Number if !analysis.text[lexeme.span.clone()].starts_with('{') => {
                TokenClass::Number
            }
            _ => continue,
        };
        if !taken.contains(&lexeme.span.start) {
            tokens.push(token(lexeme.span.clone(), class, false, false));
        }
    }
    tokens.extend(
        (analysis.lexemes.comments.iter())
            .map(|span| token(span.clone(), TokenClass::Comment, false, false)),
    );
    tokens.sort_by_key(|t| (t.span.start, std::cmp::Reverse(t.span.end)));
    let mut end = 0;
    tokens.retain(|t| {
        let keep = t.span.start >= end && !t.span.is_empty();
        if keep {
            end = t.span.end;
        }
        keep
    });
    tokens
}
