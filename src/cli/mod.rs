//! Command-line arguments and what every subcommand shares: reading input,
//! writing output atomically, and rendering diagnostics.

mod check;
mod io;
mod parse;
mod print;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub(crate) use io::Failure;

/// Parse and print the ONNX textual syntax.
#[derive(Debug, Parser)]
#[command(name = "onnxtxt", version, about)]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Parse a text model into a binary ONNX model.
    Parse(parse::ParseArgs),
    /// Print a binary (or text) model as canonical text.
    Print(print::PrintArgs),
    /// Check a model (text or binary) for what the grammar cannot catch.
    Check(check::CheckArgs),
}

impl Command {
    /// Runs the subcommand.
    pub(crate) fn run(self) -> Result<(), Failure> {
        match self {
            Command::Parse(args) => args.run(),
            Command::Print(args) => args.run(),
            Command::Check(args) => args.run(),
        }
    }
}

impl Failure {
    /// Prints the failure and gives the exit code: 1 for invalid input, 2
    /// for usage and I/O problems.
    pub(crate) fn report(self) -> ExitCode {
        match self {
            Failure::Invalid { name, text, error } => {
                io::render(&name, &text, &error);
                ExitCode::from(1)
            }
            Failure::Corrupt(message) => {
                eprintln!("error: {message}");
                ExitCode::from(1)
            }
            Failure::Io(message) => {
                eprintln!("error: {message}");
                ExitCode::from(2)
            }
        }
    }
}
