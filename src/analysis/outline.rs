//! The outline of a text (its graph and functions, their nodes and
//! subgraphs) and the ranges an editor may fold.

use super::index::Index;
use super::lexemes::Lex;
use super::{Analysis, BodyKind};
use crate::error::Span;

/// What an [`Outline`] entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutlineKind {
    /// A graph (the model's, or a subgraph).
    Graph,
    /// A model-local function.
    Function,
    /// A node.
    Node,
}

/// An entry of the outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    /// Its name: a graph's or function's name (a function's with its
    /// domain), a node's label or else its first output.
    pub name: String,
    /// More about it: a node's operator.
    pub detail: Option<String>,
    /// What it is.
    pub kind: OutlineKind,
    /// All its text.
    pub span: Span,
    /// The text that names it (within `span`).
    pub name_span: Span,
    /// What it holds: a body's nodes, a node's subgraphs.
    pub children: Vec<Outline>,
}

/// The outline: the bodies that no node holds, with everything inside.
pub(super) fn outline(analysis: &Analysis) -> Vec<Outline> {
    let index = &analysis.index;
    let mut outline: Vec<Outline> = (0..index.bodies.len())
        .filter(|&b| index.bodies[b].holder.is_none())
        .filter_map(|b| body(index, b))
        .collect();
    outline.sort_by_key(|o| o.span.start);
    outline
}

fn body(index: &Index, id: usize) -> Option<Outline> {
    let body = &index.bodies[id];
    let span = body.span.clone()?;
    let name = match (body.kind, body.function) {
        (BodyKind::Function, Some(_)) => {
            let domain = index
                .symbols
                .iter()
                .find(|s| s.body == id && s.kind == super::SymbolKind::Function)
                .map_or("", |s| s.domain.as_str());
            if domain.is_empty() {
                body.name.clone()
            } else {
                format!("{domain}.{}", body.name)
            }
        }
        _ => body.name.clone(),
    };
    let children = body.nodes.iter().filter_map(|&n| node(index, n)).collect();
    Some(Outline {
        name,
        detail: None,
        kind: match body.kind {
            BodyKind::Graph => OutlineKind::Graph,
            BodyKind::Function => OutlineKind::Function,
        },
        name_span: body.name_span.clone().unwrap_or(span.start..span.start),
        span,
        children,
    })
}

fn node(index: &Index, id: usize) -> Option<Outline> {
    let node = &index.nodes[id];
    let span = node.span.clone()?;
    let name = match &node.label {
        Some(label) if !label.is_empty() => label.clone(),
        _ => node.outputs.iter().find(|o| !o.is_empty()).cloned()?,
    };
    let children = (0..index.bodies.len())
        .filter(|&b| index.bodies[b].holder == Some(id))
        .filter_map(|b| body(index, b))
        .collect();
    let detail = match node.domain.as_str() {
        "" => node.op_type.clone(),
        domain => format!("{domain}.{}", node.op_type),
    };
    Some(Outline {
        name,
        detail: Some(detail),
        kind: OutlineKind::Node,
        name_span: node.op_span.clone().unwrap_or(span.start..span.start),
        span,
        children,
    })
}

/// What a [`Fold`] folds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FoldKind {
    /// A bracketed list or body.
    Region,
    /// Comment lines one after the other.
    Comment,
}

/// A range an editor may fold: from its first line to its last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    /// From the opening bracket to the closing one (or from the first
    /// comment to the end of the last).
    pub span: Span,
    /// What it is.
    pub kind: FoldKind,
}

/// The brackets that span lines, and runs of comment lines.
pub(super) fn folds(analysis: &Analysis) -> Vec<Fold> {
    let text = analysis.text();
    let tokens = &analysis.lexemes.tokens;
    let spans_lines = |span: &Span| text[span.clone()].contains('\n');
    let mut folds = Vec::new();
    let mut open = Vec::new();
    for token in tokens {
        match token.lex {
            Lex::Open(_) => open.push(token.span.start),
            Lex::Close(_) => {
                if let Some(start) = open.pop() {
                    let span = start..token.span.end;
                    if spans_lines(&span) {
                        folds.push(Fold {
                            span,
                            kind: FoldKind::Region,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    let mut run: Option<Span> = None;
    for comment in &analysis.lexemes.comments {
        match &mut run {
            Some(span)
                if text[span.end..comment.start].trim().is_empty()
                    && text[span.end..comment.start].matches('\n').count() == 1 =>
            {
                span.end = comment.end;
            }
            _ => {
                folds.extend(run.take().filter(spans_lines).map(|span| Fold {
                    span,
                    kind: FoldKind::Comment,
                }));
                run = Some(comment.clone());
            }
        }
    }
    folds.extend(run.filter(spans_lines).map(|span| Fold {
        span,
        kind: FoldKind::Comment,
    }));
    folds.sort_by_key(|f| f.span.start);
    folds
}
