//! `onnxtxt parse`: text model in, binary model out.

use std::path::PathBuf;

use prost::Message;

use super::io::{read_input, write_output, Failure};

/// Arguments of `onnxtxt parse`.
#[derive(Debug, clap::Args)]
pub(crate) struct ParseArgs {
    /// The text model (`-` or nothing for standard input).
    pub(crate) input: Option<PathBuf>,
    /// Where to write the binary model (standard output if not a terminal).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
}

impl ParseArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        let (name, text) = read_input(self.input.as_deref())?.into_text()?;
        let model =
            onnxtxt::parse_model(&text).map_err(|error| Failure::Invalid { name, text, error })?;
        write_output(self.output.as_ref(), &model.encode_to_vec(), true)
    }
}
