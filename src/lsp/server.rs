//! The server's state and what it does with each message, with no I/O:
//! [`Server::handle`] takes a message and gives the responses,
//! [`Server::publish`] gives the diagnostics of the documents that changed
//! since it was last called (at most one set per document version). The
//! main loop (`super::run`) moves messages between these and the client.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use lsp_server::{ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentHighlightRequest, DocumentSymbolRequest, FoldingRangeRequest, Formatting,
    GotoDefinition, HoverRequest, PrepareRenameRequest, References, Rename, Request as _,
    SemanticTokensFullRequest,
};
use lsp_types::{
    ClientCapabilities, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, PublishDiagnosticsParams, Uri,
};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::convert;
use super::documents::Document;
use super::handlers::{self, Handled};
use crate::analysis::Problem;
use crate::check::Severity;
use crate::error::Diagnostic;

/// The most diagnostics published for one document; the rest are counted
/// in one more. An editor shows no more at once, and each costs the client
/// memory and time (1.2 million warnings took the server past 8 GB).
pub const MAX_DIAGNOSTICS_PER_DOCUMENT: usize = 1000;

/// The code of the diagnostic that counts the problems not published.
const TOO_MANY: &str = "onnxtxt::lsp::too_many_problems";

/// The code of the diagnostic of a document too large to analyse.
const TOO_LARGE: &str = "onnxtxt::lsp::too_large";

/// Why a request has no result: an error code and a message.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The protocol's error code.
    pub code: ErrorCode,
    /// What went wrong.
    pub message: String,
}

/// The server: the open documents and what has been published.
#[derive(Debug, Default)]
pub struct Server {
    documents: HashMap<Uri, Document>,
    /// Documents opened, changed or closed since the last [`Server::publish`].
    changed: HashSet<Uri>,
    /// The version each open document's diagnostics were last published for.
    published: HashMap<Uri, i32>,
    /// Whether the client takes snippets in completions.
    snippets: bool,
}

impl Server {
    /// A server for a client with `capabilities`.
    pub fn new(capabilities: &ClientCapabilities) -> Self {
        let snippets = capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.snippet_support)
            .unwrap_or(false);
        Server {
            snippets,
            ..Server::default()
        }
    }

    /// The open document `uri`.
    pub fn document(&self, uri: &Uri) -> Option<&Document> {
        self.documents.get(uri)
    }

    /// Whether the client takes snippets in completions.
    pub fn snippets(&self) -> bool {
        self.snippets
    }

    /// Handles one message from the client; gives the messages to send
    /// back (a response for a request, nothing for the rest). A handler
    /// that panics (a bug) fails its request; the server goes on.
    pub fn handle(&mut self, message: Message) -> Vec<Message> {
        match message {
            Message::Request(request) => {
                let id = request.id.clone();
                let response = catch_unwind(AssertUnwindSafe(|| self.request(request)))
                    .unwrap_or_else(|_| {
                        Response::new_err(
                            id,
                            ErrorCode::InternalError as i32,
                            "the onnxtxt language server failed on this request".to_owned(),
                        )
                    });
                vec![Message::Response(response)]
            }
            Message::Notification(notification) => {
                self.notification(notification);
                Vec::new()
            }
            Message::Response(_) => Vec::new(),
        }
    }

    fn request(&mut self, request: Request) -> Response {
        let Request { id, method, params } = request;
        let result = match method.as_str() {
            HoverRequest::METHOD => self.run(params, handlers::hover),
            GotoDefinition::METHOD => self.run(params, handlers::definition),
            References::METHOD => self.run(params, handlers::references),
            DocumentHighlightRequest::METHOD => self.run(params, handlers::highlight),
            PrepareRenameRequest::METHOD => self.run(params, handlers::prepare_rename),
            Rename::METHOD => self.run(params, handlers::rename),
            Completion::METHOD => self.run(params, handlers::completion),
            Formatting::METHOD => self.run(params, handlers::formatting),
            DocumentSymbolRequest::METHOD => self.run(params, handlers::document_symbols),
            FoldingRangeRequest::METHOD => self.run(params, handlers::folding_ranges),
            SemanticTokensFullRequest::METHOD => self.run(params, handlers::semantic_tokens),
            _ => Err(Failure {
                code: ErrorCode::MethodNotFound,
                message: format!("no method {method}"),
            }),
        };
        match result {
            Ok(value) => Response::new_ok(id, value),
            Err(failure) => Response::new_err(id, failure.code as i32, failure.message),
        }
    }

    /// Reads `params` and runs `handler` on them.
    fn run<P: DeserializeOwned, R: Serialize>(
        &self,
        params: serde_json::Value,
        handler: fn(&Server, P) -> Handled<R>,
    ) -> Result<serde_json::Value, Failure> {
        let failure = |code, error: serde_json::Error| Failure {
            code,
            message: error.to_string(),
        };
        let params =
            serde_json::from_value(params).map_err(|e| failure(ErrorCode::InvalidParams, e))?;
        let result = handler(self, params)?;
        serde_json::to_value(result).map_err(|e| failure(ErrorCode::InternalError, e))
    }

    fn notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    notification.extract::<DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD)
                {
                    let document = Document::new(p.text_document.text, p.text_document.version);
                    self.documents.insert(p.text_document.uri.clone(), document);
                    self.changed.insert(p.text_document.uri);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) = notification
                    .extract::<DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD)
                {
                    let uri = p.text_document.uri;
                    if let Some(document) = self.documents.get_mut(&uri) {
                        document.change(p.content_changes, p.text_document.version);
                        self.changed.insert(uri);
                    }
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    notification.extract::<DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
                {
                    self.documents.remove(&p.text_document.uri);
                    self.changed.insert(p.text_document.uri);
                }
            }
            _ => {}
        }
    }

    /// The diagnostics of the documents opened, changed or closed since
    /// the last call, one notification each: none for a version already
    /// published, an empty set for a document closed.
    pub fn publish(&mut self) -> Vec<Message> {
        let mut notifications = Vec::new();
        for uri in std::mem::take(&mut self.changed) {
            let Some(document) = self.documents.get(&uri) else {
                self.published.remove(&uri);
                notifications.push(notify(uri, Vec::new(), None));
                continue;
            };
            let version = document.version();
            if self.published.get(&uri) == Some(&version) {
                continue;
            }
            let diagnostics = catch_unwind(AssertUnwindSafe(|| diagnostics(document, &uri)));
            // A document whose analysis fails (a bug) gets none.
            let Ok(diagnostics) = diagnostics else {
                continue;
            };
            self.published.insert(uri.clone(), version);
            notifications.push(notify(uri, diagnostics, Some(version)));
        }
        notifications
    }
}

/// The diagnostics published for `document`: its first
/// [`MAX_DIAGNOSTICS_PER_DOCUMENT`] problems, and one more saying how many
/// were left out; for a document too large to analyse, one saying so.
fn diagnostics(document: &Document, uri: &Uri) -> Vec<lsp_types::Diagnostic> {
    let warning = |code, message, span| Problem {
        severity: Severity::Warning,
        diagnostic: Diagnostic::new(code, message, span),
    };
    let Some(analysis) = document.analysis() else {
        let problem = warning(TOO_LARGE, handlers::too_large(document), 0..0);
        return vec![convert::diagnostic(document, uri, &problem)];
    };
    let problems = analysis.diagnostics();
    let mut diagnostics: Vec<_> = (problems.iter())
        .take(MAX_DIAGNOSTICS_PER_DOCUMENT)
        .map(|p| convert::diagnostic(document, uri, p))
        .collect();
    if let Some(first_left_out) = problems.get(MAX_DIAGNOSTICS_PER_DOCUMENT) {
        let message = format!(
            "{} more problems from here on are not shown: the onnxtxt language server \
             publishes at most {MAX_DIAGNOSTICS_PER_DOCUMENT} a document (`onnxtxt check` lists \
             them all)",
            problems.len() - MAX_DIAGNOSTICS_PER_DOCUMENT
        );
        let span = first_left_out.diagnostic.span.clone();
        let problem = warning(TOO_MANY, message, span);
        diagnostics.push(convert::diagnostic(document, uri, &problem));
    }
    diagnostics
}

fn notify(uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) -> Message {
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version,
    };
    Message::Notification(Notification::new(
        PublishDiagnostics::METHOD.to_owned(),
        params,
    ))
}
