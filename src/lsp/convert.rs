//! The analysis' answers as protocol types: byte spans become ranges
//! through the document's [`LineIndex`](super::line_index::LineIndex), and
//! the analysis' kinds become the protocol's.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionItemTag, CompletionTextEdit, Diagnostic,
    DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol, FoldingRange,
    FoldingRangeKind, InsertTextFormat, Location, NumberOrString, Range, SemanticToken,
    SemanticTokenModifier, SemanticTokenType, SymbolKind, TextEdit, Uri,
};

use super::documents::Document;
use crate::analysis::{
    self, Completion, CompletionKind, Fold, FoldKind, Outline, OutlineKind, Problem, TokenClass,
};
use crate::check::Severity;
use crate::error::Span;

/// The range of `span` in `document`.
pub fn range(document: &Document, span: Span) -> Range {
    document.lines().range(document.text(), span)
}

/// A problem as a diagnostic; related places are in the document `uri`.
pub fn diagnostic(document: &Document, uri: &Uri, problem: &Problem) -> Diagnostic {
    let d = &problem.diagnostic;
    let related = d
        .labels
        .iter()
        .map(|label| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), range(document, label.span.clone())),
            message: label.message.clone(),
        })
        .collect::<Vec<_>>();
    let message = match &d.help {
        Some(help) => format!("{}\nhelp: {help}", d.message),
        None => d.message.clone(),
    };
    Diagnostic {
        range: range(document, d.span.clone()),
        severity: Some(match problem.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_owned())),
        source: Some("onnxtxt".to_owned()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Diagnostic::default()
    }
}

/// A completion; `snippets` tells whether the client takes snippets
/// (without, tab stops are removed and their default text kept).
pub fn completion(document: &Document, completion: Completion, snippets: bool) -> CompletionItem {
    let kind = match completion.kind {
        CompletionKind::Operator | CompletionKind::Function => CompletionItemKind::FUNCTION,
        CompletionKind::Attribute => CompletionItemKind::PROPERTY,
        CompletionKind::Value => CompletionItemKind::VARIABLE,
        CompletionKind::HeaderKey => CompletionItemKind::KEYWORD,
        CompletionKind::Type => CompletionItemKind::TYPE_PARAMETER,
    };
    let (insert, format) = match (completion.snippet, snippets) {
        (true, true) => (completion.insert, InsertTextFormat::SNIPPET),
        (true, false) => (plain(&completion.insert), InsertTextFormat::PLAIN_TEXT),
        (false, _) => (completion.insert, InsertTextFormat::PLAIN_TEXT),
    };
    let edit = TextEdit::new(range(document, completion.replace), insert);
    CompletionItem {
        label: completion.label,
        kind: Some(kind),
        detail: completion.detail,
        text_edit: Some(CompletionTextEdit::Edit(edit)),
        insert_text_format: Some(format),
        tags: completion
            .deprecated
            .then(|| vec![CompletionItemTag::DEPRECATED]),
        ..CompletionItem::default()
    }
}

/// A snippet as plain text: `${1:x}` is `x`, `$1` nothing, `\$` a `$`.
fn plain(snippet: &str) -> String {
    let mut out = String::with_capacity(snippet.len());
    let mut chars = snippet.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '$' if chars.peek() == Some(&'{') => {
                chars.next();
                while chars.next_if(char::is_ascii_digit).is_some() {}
                chars.next_if_eq(&':');
            }
            '$' => while chars.next_if(char::is_ascii_digit).is_some() {},
            '}' => {}
            c => out.push(c),
        }
    }
    out
}

/// An outline entry and its children as document symbols.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be given.
pub fn document_symbol(document: &Document, outline: Outline) -> DocumentSymbol {
    DocumentSymbol {
        name: outline.name,
        detail: outline.detail,
        kind: match outline.kind {
            OutlineKind::Graph => SymbolKind::MODULE,
            OutlineKind::Function => SymbolKind::FUNCTION,
            OutlineKind::Node => SymbolKind::VARIABLE,
        },
        tags: None,
        deprecated: None,
        range: range(document, outline.span),
        selection_range: range(document, outline.name_span),
        children: Some(
            outline
                .children
                .into_iter()
                .map(|child| document_symbol(document, child))
                .collect(),
        ),
    }
}

/// A fold, by lines: from the bracket's line to the line before the
/// closer's when the closer starts its line (so it stays in sight), else
/// to the closer's line. `None` when that folds no line.
pub fn folding_range(document: &Document, fold: Fold) -> Option<FoldingRange> {
    let lines = document.lines();
    let text = document.text();
    let start = lines.line(fold.span.start);
    // Where its last character starts.
    let last = text[fold.span.clone()]
        .char_indices()
        .next_back()
        .map_or(fold.span.start, |(i, _)| fold.span.start + i);
    let mut end = lines.line(last);
    let line_start = text[..last].rfind('\n').map_or(0, |n| n + 1);
    if fold.kind == FoldKind::Region && text[line_start..last].trim().is_empty() {
        end = end.saturating_sub(1);
    }
    (end > start).then(|| FoldingRange {
        start_line: start,
        end_line: end,
        kind: Some(match fold.kind {
            FoldKind::Region => FoldingRangeKind::Region,
            FoldKind::Comment => FoldingRangeKind::Comment,
        }),
        ..FoldingRange::default()
    })
}

/// The semantic token types, in the order of their indices.
pub const TOKEN_TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::FUNCTION,
    SemanticTokenType::NAMESPACE,
    SemanticTokenType::PARAMETER,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::TYPE,
    SemanticTokenType::TYPE_PARAMETER,
    SemanticTokenType::KEYWORD,
    SemanticTokenType::DECORATOR,
    SemanticTokenType::new("label"),
    SemanticTokenType::STRING,
    SemanticTokenType::NUMBER,
    SemanticTokenType::COMMENT,
];

/// The semantic token modifiers, in the order of their bits.
pub const TOKEN_MODIFIERS: &[SemanticTokenModifier] = &[
    SemanticTokenModifier::DECLARATION,
    SemanticTokenModifier::DEFAULT_LIBRARY,
];

/// The index of a class in [`TOKEN_TYPES`].
fn token_type(class: TokenClass) -> u32 {
    match class {
        TokenClass::Operator | TokenClass::Function => 0,
        TokenClass::Namespace => 1,
        TokenClass::Parameter => 2,
        TokenClass::Value => 3,
        TokenClass::Attribute => 4,
        TokenClass::Type => 5,
        TokenClass::Dimension => 6,
        TokenClass::Keyword => 7,
        TokenClass::AnnotationKey => 8,
        TokenClass::Label => 9,
        TokenClass::String => 10,
        TokenClass::Number => 11,
        TokenClass::Comment => 12,
    }
}

/// The analysis' tokens in the protocol's relative encoding; a token over
/// several lines becomes one per line.
pub fn semantic_tokens(
    document: &Document,
    tokens: Vec<analysis::SemanticToken>,
) -> Vec<SemanticToken> {
    let text = document.text();
    let lines = document.lines();
    let mut encoded = Vec::with_capacity(tokens.len());
    let (mut line, mut column) = (0, 0);
    for token in tokens {
        let modifiers = u32::from(token.definition) | u32::from(token.registry) << 1;
        let mut start = token.span.start;
        for piece in text[token.span.clone()].split_inclusive('\n') {
            let end = start + piece.trim_end_matches(['\n', '\r']).len();
            let (from, to) = (lines.position(text, start), lines.position(text, end));
            if to.character > from.character {
                let delta_line = from.line - line;
                let delta_start = if delta_line == 0 {
                    from.character - column
                } else {
                    from.character
                };
                encoded.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length: to.character - from.character,
                    token_type: token_type(token.class),
                    token_modifiers_bitset: modifiers,
                });
                (line, column) = (from.line, from.character);
            }
            start += piece.len();
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_as_plain_text() {
        assert_eq!(plain("alpha = ${1:0.01}"), "alpha = 0.01");
        assert_eq!(plain("ir_version: $1"), "ir_version: ");
        assert_eq!(plain("a = ${1:[1, 2]}"), "a = [1, 2]");
    }
}
