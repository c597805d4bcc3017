//! The invariants of the language server's fuzz targets (and of their
//! smoke tests in `cargo test`):
//!
//! - `lsp_edits` ([`check_edits`]): a [`Server`] fed any sequence of edits
//!   and requests never fails a request on a panic, and every diagnostic it
//!   publishes lies inside its document;
//! - `lsp_framing` ([`check_framing`]): the client's bytes, whatever they
//!   are, read as messages and refusals (see `super::transport`).
//!
//! For `lsp_edits`, the input bytes are read as a program: the first byte
//! picks a starting text (an example, or nothing), then each step is an
//! edit (a range given by bytes, which may point anywhere, inside a
//! character or past the end, and text from a dictionary of tokens or the
//! input's own bytes) or, every so often, a request at a position. After each step the server publishes
//! the diagnostics of the new version and the check reads them.

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId};
use lsp_types::{ClientCapabilities, Position, Range, Uri};
use serde_json::{json, Value};

use super::transport::{Incoming, MessageReader};
use super::Server;

/// The texts a run starts from.
const STARTS: [&str; 5] = [
    "",
    include_str!("../../examples/mlp.onnxtxt"),
    include_str!("../../examples/control_flow.onnxtxt"),
    include_str!("../../examples/local_function.onnxtxt"),
    "<ir_version: 10, opset_import: [\"\": 21]>\ng (float[N] \"𝔵\") => (float[N] y) {\n  \"é\" = Relu (\"𝔵\")\n  y = Neg (\"é\")\n}\n",
];

/// Pieces of text an edit inserts: tokens, and characters that are more
/// than one byte or one UTF-16 unit.
const PIECES: [&str; 24] = [
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    "[",
    "]",
    "=",
    "=>",
    ",",
    ":",
    "@",
    "\"",
    "\n",
    " ",
    "#",
    "y = Relu (x)\n",
    "Add",
    "float[N]",
    "\"é\"",
    "𝔵",
    "\r\n",
    "<alpha = 0.5>",
];

/// The requests asked along the way.
const REQUESTS: [&str; 11] = [
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/documentHighlight",
    "textDocument/prepareRename",
    "textDocument/rename",
    "textDocument/completion",
    "textDocument/formatting",
    "textDocument/documentSymbol",
    "textDocument/foldingRange",
    "textDocument/semanticTokens/full",
];

/// The most steps one input runs: each analyses the whole text.
const MAX_STEPS: usize = 64;

/// Reads bytes one at a time; zeros once they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        let (&first, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        first
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A position: a line near the document's, a column that may be past
    /// the line's end.
    fn position(&mut self, lines: u32) -> Position {
        let line = u32::from(self.next()) % (lines + 2);
        Position::new(line, u32::from(self.next()) % 80)
    }

    /// Text to insert: a piece, or a few of the input's own bytes.
    fn text(&mut self) -> String {
        let choice = usize::from(self.next());
        match PIECES.get(choice % (PIECES.len() + 4)) {
            Some(piece) => (*piece).to_owned(),
            None => {
                let length = usize::from(self.next() % 8).min(self.0.len());
                let (taken, rest) = self.0.split_at(length);
                self.0 = rest;
                String::from_utf8_lossy(taken).into_owned()
            }
        }
    }
}

/// Runs the program in `data` (see the module documentation); `Err` says
/// which invariant broke.
pub fn check_edits(data: &[u8]) -> Result<(), String> {
    let mut bytes = Bytes(data);
    let uri: Uri = "file:///fuzz.onnxtxt".parse().expect("a valid URI");
    let mut server = Server::new(&ClientCapabilities::default());
    let start = STARTS[usize::from(bytes.next()) % STARTS.len()];
    let open =
        json!({"textDocument": {"uri": uri, "languageId": "onnxtxt", "version": 0, "text": start}});
    server.handle(notification("textDocument/didOpen", open));
    check_published(&mut server, &uri)?;
    for version in 1..=MAX_STEPS as i32 {
        if bytes.is_empty() {
            break;
        }
        let lines = line_count(&server, &uri);
        let (from, to) = (bytes.position(lines), bytes.position(lines));
        let change = json!({
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": Range::new(from, to), "text": bytes.text()}]
        });
        server.handle(notification("textDocument/didChange", change));
        check_published(&mut server, &uri)?;
        let ask = bytes.next();
        if ask % 4 == 0 {
            let method = REQUESTS[usize::from(ask / 4) % REQUESTS.len()];
            let position = bytes.position(line_count(&server, &uri));
            check_request(&mut server, &uri, method, position, version)?;
        }
    }
    Ok(())
}

fn notification(method: &str, params: Value) -> Message {
    Message::Notification(Notification::new(method.to_owned(), params))
}

fn line_count(server: &Server, uri: &Uri) -> u32 {
    let text = server.document(uri).map_or("", |d| d.text());
    u32::try_from(text.split(['\n', '\r']).count()).unwrap_or(u32::MAX)
}

/// Asks `method` at `position`: any answer will do but a failure.
fn check_request(
    server: &mut Server,
    uri: &Uri,
    method: &str,
    position: Position,
    id: i32,
) -> Result<(), String> {
    let params = json!({
        "textDocument": {"uri": uri},
        "position": position,
        "newName": "renamed",
        "context": {"includeDeclaration": true},
        "options": {"tabSize": 2, "insertSpaces": true}
    });
    let request = Request::new(RequestId::from(id), method.to_owned(), params);
    for reply in server.handle(Message::Request(request)) {
        if let Message::Response(response) = reply {
            if let Err(error) = response.response_result {
                if error.code == ErrorCode::InternalError as i32 {
                    return Err(format!(
                        "{method} at {position:?} failed: {}",
                        error.message
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Publishes, and checks every diagnostic's range (and related
/// location's) against the document's text.
fn check_published(server: &mut Server, uri: &Uri) -> Result<(), String> {
    let published = server.publish();
    let Some(document) = server.document(uri) else {
        return Err("the document is gone".into());
    };
    let text = document.text();
    // Each line's length in UTF-16 units, lines ending as the protocol
    // says (`\n`, `\r\n` or `\r`).
    let lengths: Vec<u32> = text
        .replace("\r\n", "\n")
        .split(['\n', '\r'])
        .map(|line| line.encode_utf16().count() as u32)
        .collect();
    let inside =
        |p: &Position| (p.line as usize) < lengths.len() && p.character <= lengths[p.line as usize];
    for message in published {
        let Message::Notification(notification) = message else {
            continue;
        };
        let params: lsp_types::PublishDiagnosticsParams =
            serde_json::from_value(notification.params).map_err(|e| e.to_string())?;
        if params.version != Some(document.version()) {
            return Err(format!(
                "published for version {:?}, not {}",
                params.version,
                document.version()
            ));
        }
        for diagnostic in &params.diagnostics {
            let ranges = std::iter::once(diagnostic.range)
                .chain((diagnostic.related_information.iter().flatten()).map(|r| r.location.range));
            for range in ranges {
                if !(inside(&range.start) && inside(&range.end) && range.start <= range.end) {
                    return Err(format!(
                        "{range:?} is outside the text:\n{text}\n{diagnostic:?}"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Reads `data` as the bytes a client sent: every read makes progress and
/// ends without a panic; each refusal is a JSON-RPC error response (parse
/// error or invalid request, its `id` null, a number or a string); each
/// message read, written back as the server writes messages, reads back
/// the same. `Err` says what broke.
pub fn check_framing(data: &[u8]) -> Result<(), String> {
    let mut reader = MessageReader::new(data);
    // Each message or refusal takes at least one byte of the input.
    for _ in 0..=data.len() {
        let incoming = reader.read().map_err(|e| format!("reading failed: {e}"))?;
        match incoming {
            None => return Ok(()),
            Some(Incoming::Refused(refusal)) => check_refusal(&refusal)?,
            Some(Incoming::Message(message)) => check_rewritten(&message)?,
        }
    }
    Err(format!(
        "more messages than the {} bytes of input",
        data.len()
    ))
}

fn check_refusal(refusal: &Value) -> Result<(), String> {
    let code = refusal["error"]["code"].as_i64();
    let codes = [ErrorCode::ParseError, ErrorCode::InvalidRequest].map(|c| Some(c as i64));
    let id_ok = matches!(
        refusal["id"],
        Value::Null | Value::Number(_) | Value::String(_)
    );
    if refusal["jsonrpc"] != "2.0" || !codes.contains(&code) || !id_ok {
        return Err(format!("not a JSON-RPC error response: {refusal}"));
    }
    Ok(())
}

fn check_rewritten(message: &Message) -> Result<(), String> {
    let mut written = Vec::new();
    message
        .write(&mut written)
        .map_err(|e| format!("{message:?} cannot be written: {e}"))?;
    match MessageReader::new(written.as_slice()).read() {
        Ok(Some(Incoming::Message(again))) if same(&again, message) => Ok(()),
        again => Err(format!("{message:?} reads back as {again:?}")),
    }
}

/// Whether two messages are the same (`Message` has no `PartialEq`).
fn same(a: &Message, b: &Message) -> bool {
    serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
}
