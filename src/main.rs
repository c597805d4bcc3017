//! The `onnxtxt` command: a thin shell over the library, one file per
//! subcommand under `cli/`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of the system allocator: parsing builds the IR from
/// many small `String`s and `Vec`s, and glibc's malloc (with its
/// free-list consolidation) took a quarter of a node-heavy parse.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    match args.command.run(args.error_format) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(args.error_format),
    }
}
