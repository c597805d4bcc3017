//! Renaming a value or a model-local function everywhere it occurs.
//!
//! A new name is written as given: a name that must be quoted in this
//! syntax (not an identifier, or a word that starts a type) is refused
//! unless it is given with its quotes, and a name that something in reach
//! already has (a value visible where this one is, or defined inside a
//! subgraph that sees this one; another function of the same domain, or an
//! operator of the registry) is refused.

use std::fmt;

use super::index::EntryKind;
use super::{Analysis, SymbolKind};
use crate::error::Span;
use crate::lexer::{scan, Token};
use crate::printer::name_needs_quotes;

/// Why a rename cannot be done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenameError {
    /// There is no value or model-local function at the offset.
    NothingToRename,
    /// The new name is empty.
    Empty,
    /// The new name must be quoted in this syntax; the quoted form is
    /// given.
    NeedsQuotes(String),
    /// Something in reach already has the new name.
    Taken(String),
}

impl fmt::Display for RenameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenameError::NothingToRename => {
                f.write_str("only values and model-local functions can be renamed")
            }
            RenameError::Empty => f.write_str("a name cannot be empty"),
            RenameError::NeedsQuotes(quoted) => {
                write!(f, "this name must be quoted: write {quoted}")
            }
            RenameError::Taken(name) => write!(f, "`{name}` is taken here"),
        }
    }
}

impl std::error::Error for RenameError {}

/// The symbol at `offset` that may be renamed, and the span of its
/// occurrence there.
fn renamable(analysis: &Analysis, offset: usize) -> Result<(usize, Span), RenameError> {
    let entry = analysis
        .index
        .entry_at(offset)
        .ok_or(RenameError::NothingToRename)?;
    match entry.kind {
        EntryKind::Symbol(id, _)
            if matches!(
                analysis.index.symbols[id].kind,
                SymbolKind::Value(_) | SymbolKind::Function
            ) =>
        {
            Ok((id, entry.span.clone()))
        }
        _ => Err(RenameError::NothingToRename),
    }
}

pub(super) fn prepare(analysis: &Analysis, offset: usize) -> Result<Span, RenameError> {
    renamable(analysis, offset).map(|(_, span)| span)
}

/// The name `written` stands for: itself, or unquoted when it is one
/// quoted string.
fn name_of(written: &str) -> Result<String, RenameError> {
    if written.is_empty() {
        return Err(RenameError::Empty);
    }
    if written.starts_with('"') {
        let (tokens, _) = scan(written);
        if let [(Token::Str(raw), _)] = tokens.as_slice() {
            return Ok(crate::parser::unquote(raw));
        }
    } else if !name_needs_quotes(written) {
        return Ok(written.to_owned());
    }
    Err(RenameError::NeedsQuotes(super::quoted(written)))
}

pub(super) fn rename(
    analysis: &Analysis,
    offset: usize,
    written: &str,
) -> Result<Vec<(Span, String)>, RenameError> {
    let (id, _) = renamable(analysis, offset)?;
    let name = name_of(written)?;
    let index = &analysis.index;
    let symbol = &index.symbols[id];
    if name != symbol.name {
        let taken = match symbol.kind {
            SymbolKind::Function => {
                index.symbols.iter().any(|s| {
                    s.kind == SymbolKind::Function
                        && s.name == name
                        && s.domain == symbol.domain
                        && s.overload == symbol.overload
                }) || crate::ops::operator(&symbol.domain, &name).is_some()
            }
            _ => index
                .bodies_within(symbol.body)
                .into_iter()
                .any(|body| index.resolve(body, &name).is_some()),
        };
        if taken {
            return Err(RenameError::Taken(name));
        }
    }
    Ok(index
        .occurrences(id)
        .map(|(span, _)| (span.clone(), written.to_owned()))
        .collect())
}
