//! `onnxtxt lsp`: the language server, on standard input and output.

use super::io::Failure;

/// Arguments of `onnxtxt lsp` (none: the client talks over standard input
/// and output).
#[derive(Debug, clap::Args)]
pub(crate) struct LspArgs {}

impl LspArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        onnxtxt::lsp::run().map_err(|error| Failure::Io(format!("language server: {error}")))
    }
}
