//! One function per request: each finds the document, converts the
//! position to a byte offset, asks the analysis and converts the answer.

use std::collections::HashMap;

use lsp_server::ErrorCode;
use lsp_types::{
    CompletionParams, CompletionResponse, DocumentFormattingParams, DocumentHighlight,
    DocumentHighlightKind, DocumentHighlightParams, DocumentSymbolParams, DocumentSymbolResponse,
    FoldingRange, FoldingRangeParams, GotoDefinitionParams, GotoDefinitionResponse, Hover,
    HoverContents, HoverParams, Location, MarkupContent, MarkupKind, PrepareRenameResponse,
    ReferenceParams, RenameParams, SemanticTokens, SemanticTokensParams, SemanticTokensResult,
    TextDocumentIdentifier, TextDocumentPositionParams, TextEdit, Uri, WorkspaceEdit,
};

use super::convert;
use super::documents::{Document, MAX_ANALYSED_BYTES};
use super::server::{Failure, Server};
use crate::analysis::{Analysis, Role};

/// What a handler gives: its result, or why there is none.
pub type Handled<T> = Result<T, Failure>;

/// The document a request is about.
fn document<'a>(server: &'a Server, id: &TextDocumentIdentifier) -> Handled<&'a Document> {
    server.document(&id.uri).ok_or_else(|| Failure {
        code: ErrorCode::InvalidParams,
        message: format!("{} is not open", id.uri.as_str()),
    })
}

/// The analysis of `document`, if it is not too large to have one.
fn analysed(document: &Document) -> Handled<&Analysis> {
    document.analysis().ok_or_else(|| Failure {
        code: ErrorCode::RequestFailed,
        message: too_large(document),
    })
}

/// Why a document has no analysis.
pub fn too_large(document: &Document) -> String {
    format!(
        "the document is {} bytes, past the {MAX_ANALYSED_BYTES} the onnxtxt language server \
         analyses: no diagnostics, navigation or formatting (`onnxtxt check` and `onnxtxt fmt` \
         read it)",
        document.text().len()
    )
}

/// The document and byte offset of a position.
fn at<'a>(
    server: &'a Server,
    position: &TextDocumentPositionParams,
) -> Handled<(&'a Document, usize)> {
    let document = document(server, &position.text_document)?;
    let offset = document.lines().offset(document.text(), position.position);
    Ok((document, offset))
}

pub fn hover(server: &Server, params: HoverParams) -> Handled<Option<Hover>> {
    let (document, offset) = at(server, &params.text_document_position_params)?;
    Ok(analysed(document)?
        .hover(offset)
        .map(|(span, markdown)| Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: markdown,
            }),
            range: Some(convert::range(document, span)),
        }))
}

pub fn definition(
    server: &Server,
    params: GotoDefinitionParams,
) -> Handled<Option<GotoDefinitionResponse>> {
    let position = &params.text_document_position_params;
    let (document, offset) = at(server, position)?;
    Ok(analysed(document)?.definition(offset).map(|span| {
        let uri = position.text_document.uri.clone();
        GotoDefinitionResponse::Scalar(Location::new(uri, convert::range(document, span)))
    }))
}

pub fn references(server: &Server, params: ReferenceParams) -> Handled<Option<Vec<Location>>> {
    let position = &params.text_document_position;
    let (document, offset) = at(server, position)?;
    let with_definitions = params.context.include_declaration;
    let locations = analysed(document)?
        .references(offset)
        .into_iter()
        .filter(|r| with_definitions || r.role != Role::Definition)
        .map(|r| {
            Location::new(
                position.text_document.uri.clone(),
                convert::range(document, r.span),
            )
        })
        .collect();
    Ok(Some(locations))
}

pub fn highlight(
    server: &Server,
    params: DocumentHighlightParams,
) -> Handled<Option<Vec<DocumentHighlight>>> {
    let (document, offset) = at(server, &params.text_document_position_params)?;
    let highlights = analysed(document)?
        .references(offset)
        .into_iter()
        .map(|r| DocumentHighlight {
            range: convert::range(document, r.span),
            kind: Some(match r.role {
                Role::Definition => DocumentHighlightKind::WRITE,
                Role::Use => DocumentHighlightKind::READ,
                Role::Declaration => DocumentHighlightKind::TEXT,
            }),
        })
        .collect();
    Ok(Some(highlights))
}

/// A rename that cannot be done: the request fails with the reason.
fn refused(error: crate::analysis::RenameError) -> Failure {
    Failure {
        code: ErrorCode::RequestFailed,
        message: error.to_string(),
    }
}

pub fn prepare_rename(
    server: &Server,
    params: TextDocumentPositionParams,
) -> Handled<Option<PrepareRenameResponse>> {
    let (document, offset) = at(server, &params)?;
    let span = analysed(document)?
        .prepare_rename(offset)
        .map_err(refused)?;
    Ok(Some(PrepareRenameResponse::Range(convert::range(
        document, span,
    ))))
}

pub fn rename(server: &Server, params: RenameParams) -> Handled<Option<WorkspaceEdit>> {
    let position = &params.text_document_position;
    let (document, offset) = at(server, position)?;
    let edits = analysed(document)?
        .rename(offset, &params.new_name)
        .map_err(refused)?;
    Ok(Some(workspace_edit(
        document,
        &position.text_document.uri,
        edits,
    )))
}

fn workspace_edit(
    document: &Document,
    uri: &Uri,
    edits: Vec<(crate::error::Span, String)>,
) -> WorkspaceEdit {
    let edits = edits
        .into_iter()
        .map(|(span, text)| TextEdit::new(convert::range(document, span), text))
        .collect();
    WorkspaceEdit::new(HashMap::from([(uri.clone(), edits)]))
}

pub fn completion(
    server: &Server,
    params: CompletionParams,
) -> Handled<Option<CompletionResponse>> {
    let (document, offset) = at(server, &params.text_document_position)?;
    let items = analysed(document)?
        .completions(offset)
        .into_iter()
        .map(|c| convert::completion(document, c, server.snippets()))
        .collect();
    Ok(Some(CompletionResponse::Array(items)))
}

pub fn formatting(
    server: &Server,
    params: DocumentFormattingParams,
) -> Handled<Option<Vec<TextEdit>>> {
    let document = document(server, &params.text_document)?;
    Ok(analysed(document)?.format_edits().map(|edits| {
        edits
            .into_iter()
            .map(|(span, text)| TextEdit::new(convert::range(document, span), text))
            .collect()
    }))
}

pub fn document_symbols(
    server: &Server,
    params: DocumentSymbolParams,
) -> Handled<Option<DocumentSymbolResponse>> {
    let document = document(server, &params.text_document)?;
    let symbols = analysed(document)?
        .outline()
        .into_iter()
        .map(|o| convert::document_symbol(document, o))
        .collect();
    Ok(Some(DocumentSymbolResponse::Nested(symbols)))
}

pub fn folding_ranges(
    server: &Server,
    params: FoldingRangeParams,
) -> Handled<Option<Vec<FoldingRange>>> {
    let document = document(server, &params.text_document)?;
    let folds = analysed(document)?.folding_ranges();
    Ok(Some(
        folds
            .into_iter()
            .filter_map(|f| convert::folding_range(document, f))
            .collect(),
    ))
}

pub fn semantic_tokens(
    server: &Server,
    params: SemanticTokensParams,
) -> Handled<Option<SemanticTokensResult>> {
    let document = document(server, &params.text_document)?;
    let tokens = convert::semantic_tokens(document, analysed(document)?.semantic_tokens());
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data: tokens,
    })))
}
