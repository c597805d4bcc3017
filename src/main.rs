//! The `onnxtxt` command: a thin shell over the library, one file per
//! subcommand under `cli/`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    match args.command.run(args.error_format) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(args.error_format),
    }
}
