//! The language server, `onnxtxt lsp`: the Language Server Protocol over
//! standard input and output, a thin shell over [`crate::analysis`].
//!
//! | file | what |
//! |---|---|
//! | `server.rs` | the state (open documents, what was published) and what each message does, no I/O |
//! | `handlers.rs` | one function per request |
//! | `documents.rs` | a document's text, version, edits and analysis |
//! | `line_index.rs` | byte offsets to protocol positions (UTF-16) and back: the one place they meet |
//! | `convert.rs` | the analysis' answers as protocol types |
//! | `capabilities.rs` | what the server offers |
//! | `transport.rs` | the messages read and written over standard input and output, bounded, malformed ones answered |
//! | `fuzz.rs` | the invariant the `lsp_edits` fuzz target checks |
//!
//! [`run`] is the main loop: it takes every message waiting, handles each
//! in turn (a request is answered on the text as it is after the changes
//! before it), and when none is waiting publishes the diagnostics of the
//! documents that changed, so a burst of edits is analysed once.
//!
//! The protocol's scaffold is rust-analyzer's `lsp-server` (synchronous,
//! over crossbeam channels) and its types `lsp-types`.

mod capabilities;
mod convert;
mod documents;
pub mod fuzz;
mod handlers;
mod line_index;
mod server;
pub mod transport;

use lsp_server::{Connection, Message};
use lsp_types::notification::{Exit, Notification as _};
use lsp_types::{InitializeParams, InitializeResult, ServerInfo};

pub use capabilities::capabilities;
pub use documents::{Document, MAX_ANALYSED_BYTES};
pub use line_index::LineIndex;
pub use server::{Failure, Server, MAX_DIAGNOSTICS_PER_DOCUMENT};

/// The most messages handled in a row before diagnostics are published:
/// while a client keeps sending (a long burst of edits), the editor still
/// gets diagnostics this often.
const MAX_MESSAGES_BEFORE_PUBLISHING: usize = 64;

/// What can stop the server: the connection failed.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// Serves one client on standard input and output until it asks the
/// server to exit.
pub fn run() -> Result<(), Error> {
    let (connection, io_threads) = transport::stdio();
    let served = serve(&connection);
    drop(connection);
    match served {
        Ok(()) => io_threads.join()?,
        // What was sent before the failure still reaches the client; the
        // reader may be waiting for input that never comes.
        Err(error) => {
            io_threads.join_writer()?;
            return Err(error);
        }
    }
    Ok(())
}

/// Initializes the server and runs it until the client asks it to exit.
fn serve(connection: &Connection) -> Result<(), Error> {
    let (id, params) = connection.initialize_start()?;
    let params: InitializeParams = serde_json::from_value(params)?;
    let result = InitializeResult {
        capabilities: capabilities(),
        server_info: Some(ServerInfo {
            name: "onnxtxt".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        }),
    };
    connection.initialize_finish(id, serde_json::to_value(result)?)?;
    main_loop(connection, Server::new(&params.capabilities))
}

/// Handles messages until the client has shut the server down and asked
/// it to exit (or closes the connection).
fn main_loop(connection: &Connection, mut server: Server) -> Result<(), Error> {
    while let Ok(first) = connection.receiver.recv() {
        let mut next = Some(first);
        let mut handled = 0;
        while let Some(message) = next.take() {
            match &message {
                Message::Request(request) if connection.handle_shutdown(request)? => return Ok(()),
                Message::Notification(n) if n.method == Exit::METHOD => return Ok(()),
                _ => {}
            }
            for reply in server.handle(message) {
                connection.sender.send(reply)?;
            }
            handled += 1;
            if handled < MAX_MESSAGES_BEFORE_PUBLISHING {
                next = connection.receiver.try_recv().ok();
            }
        }
        for notification in server.publish() {
            connection.sender.send(notification)?;
        }
    }
    Ok(())
}
