//! `onnxtxt print`: binary (or text) model in, canonical text out.

use std::path::PathBuf;

use super::io::{load_model, read_input, write_output, Failure};

/// Arguments of `onnxtxt print`.
#[derive(Debug, clap::Args)]
pub(crate) struct PrintArgs {
    /// The model, binary or text (`-` or nothing for standard input).
    pub(crate) input: Option<PathBuf>,
    /// Where to write the text (standard output by default).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Use only the reference syntax; list on stderr what had to be dropped.
    #[arg(long)]
    pub(crate) compat: bool,
}

impl PrintArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        let loaded = load_model(read_input(self.input.as_deref())?)?;
        let printed = onnxtxt::Printer::new()
            .compat(self.compat)
            .print(&loaded.model);
        for dropped in &printed.dropped {
            eprintln!("warning: dropped {dropped}");
        }
        write_output(self.output.as_ref(), printed.text.as_bytes(), false)
    }
}
