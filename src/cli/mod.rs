//! Command-line arguments and what every subcommand shares: reading input,
//! writing output atomically, and rendering diagnostics.

mod case;
mod check;
mod diagnostic_output;
mod diff;
mod fmt;
mod infer;
mod inline;
mod input;
mod io;
mod lsp;
mod ops;
mod parse;
mod print;
mod progress;
mod shrink;
mod smith;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use onnxtxt::Severity;

use diagnostic_output::{show_message, ErrorFormat, Reporter};
pub(crate) use io::Failure;

/// Parse and print the ONNX textual syntax.
#[derive(Debug, Parser)]
#[command(name = "onnxtxt", version, about)]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// How to write diagnostics to stderr.
    #[arg(long, global = true, value_enum, default_value_t)]
    pub(crate) error_format: ErrorFormat,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Parse a text model into a binary ONNX model.
    Parse(parse::ParseArgs),
    /// Print a binary (or text) model as canonical text.
    Print(print::PrintArgs),
    /// Print a random well-formed model (for fuzzing other tools).
    Smith(smith::SmithArgs),
    /// Shrink a model to the smallest one a predicate still finds
    /// interesting (for bug reports and regression tests).
    ///
    /// PREDICATE runs with a candidate's path as its one argument; exit
    /// status 0 means interesting. Candidates are valid models unless
    /// --allow-invalid. Exit status: 0 done, 1 the input is not
    /// interesting (or invalid), 2 usage or I/O errors, 130 interrupted
    /// (the smallest model so far written).
    Shrink(shrink::ShrinkArgs),
    /// Check models (text or binary) for what the grammar cannot catch.
    #[command(long_about = check::LONG_ABOUT)]
    Check(check::CheckArgs),
    /// Infer the types and shapes of a model's values, and write the model
    /// with them (text or binary).
    Infer(infer::InferArgs),
    /// Replace the calls of a model's local functions by their bodies.
    Inline(inline::InlineArgs),
    /// Rewrite text models in the canonical style, keeping comments.
    Fmt(fmt::FmtArgs),
    /// Show how two models (text or binary) differ, as a unified diff.
    ///
    /// Exit status: 0 when they are the same, 1 when they differ, 2 for
    /// usage or I/O errors and invalid models.
    Diff(diff::DiffArgs),
    /// Show an operator's signature at an opset, or list the operators.
    Ops(ops::OpsArgs),
    /// Run the language server on standard input and output (for editors).
    ///
    /// It speaks the Language Server Protocol: diagnostics as you type,
    /// hover, go to definition, references, rename, completion,
    /// formatting, outline, folding and semantic tokens for `.onnxtxt`
    /// documents.
    Lsp(lsp::LspArgs),
}

impl Command {
    /// Runs the subcommand.
    pub(crate) fn run(self, format: ErrorFormat) -> Result<(), Failure> {
        match self {
            Command::Parse(args) => args.run(format),
            Command::Print(args) => args.run(),
            Command::Smith(args) => args.run(),
            Command::Shrink(args) => args.run(),
            Command::Check(args) => args.run(format),
            Command::Fmt(args) => args.run(format),
            Command::Diff(args) => args.run(format),
            Command::Ops(args) => args.run(),
            Command::Lsp(args) => args.run(),
            Command::Infer(args) => args.run(format),
            Command::Inline(args) => args.run(),
        }
    }
}

/// Ends the process with exit status `status`, standard output flushed,
/// without the teardown that returning from `main` runs: `atexit` handlers,
/// among them the allocator's, which walks every heap and gives its memory
/// back to the system page by page (`madvise`) just before the system
/// takes the whole process back anyway. The output files are written and
/// in place by then, and every thread the command started is done with
/// its work (a helper may still wait for work or signals: ending the
/// process ends it, as returning from `main` does).
pub(crate) fn end(status: u8) -> ! {
    // A failed flush (a reader that closed the pipe) changes nothing now:
    // returning from `main` ignores it too.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // SAFETY: `_exit` ends the process; it only asks that nothing be left
    // to do in it, which the caller has made so.
    unsafe { libc::_exit(status.into()) }
}

impl Failure {
    /// The exit code: 1 for invalid input, 2 for usage and I/O problems.
    pub(crate) fn code(&self) -> u8 {
        match self {
            Failure::Invalid { .. }
            | Failure::Located { .. }
            | Failure::Binary { .. }
            | Failure::Corrupt(_) => 1,
            Failure::Io(_) => 2,
            Failure::Exit(code) => *code,
        }
    }

    /// Shows the failure in `format` and gives its exit code.
    pub(crate) fn report(self, format: ErrorFormat) -> ExitCode {
        let code = ExitCode::from(self.code());
        let diagnostics = |file: &str, text: Option<&str>, error: &onnxtxt::Error| {
            let reporter = Reporter::new(format, file, text);
            for diagnostic in error.diagnostics() {
                reporter.show(Severity::Error, diagnostic, &diagnostic.message);
            }
        };
        match self {
            Failure::Invalid { name, text, error } => diagnostics(&name, Some(&text), &error),
            Failure::Binary { name, error } => diagnostics(&name, None, &error),
            Failure::Located {
                name,
                text,
                diagnostic,
            } => Reporter::new(format, &name, Some(&text)).show(
                Severity::Error,
                &diagnostic,
                &diagnostic.message,
            ),
            Failure::Corrupt(message) | Failure::Io(message) => {
                show_message(format, Severity::Error, &message);
            }
            Failure::Exit(_) => {}
        }
        code
    }
}
