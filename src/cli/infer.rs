//! `onnxtxt infer`: a model (text or binary) in, the same model with the
//! inferred types of its values (`value_info`, graph outputs) out.

use std::path::PathBuf;

use prost::Message;

use super::check::show_findings;
use super::diagnostic_output::ErrorFormat;
use super::input::read_input;
use super::io::{load_model, write_output, Failure, Loaded};

/// What `infer` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// The text syntax, in the canonical style.
    Text,
    /// A binary ONNX model.
    Binary,
}

/// Arguments of `onnxtxt infer`.
#[derive(Debug, clap::Args)]
pub(crate) struct InferArgs {
    /// The model, text or binary (`-` or nothing for standard input).
    pub(crate) input: Option<PathBuf>,
    /// Where to write the model (standard output by default).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Write text or binary (by default what the input is).
    #[arg(long, value_enum)]
    pub(crate) to: Option<Format>,
}

impl InferArgs {
    /// Infers the model; writes it unless inference finds errors (which are
    /// shown, like `check`'s).
    pub(crate) fn run(self, format: ErrorFormat) -> Result<(), Failure> {
        let mut loaded = load_model(read_input(self.input.as_deref())?)?;
        let findings = onnxtxt::infer::fill_value_info(&mut loaded.model, Default::default());
        let text = loaded.text.as_deref();
        show_findings(&loaded.name, text, findings, format, false)?;
        write_model(&loaded, self.output.as_ref(), self.to)
    }
}

/// Writes `loaded`'s model to `output` (standard output for `None`) as `to`
/// says, by default in the form it was read.
pub(crate) fn write_model(
    loaded: &Loaded,
    output: Option<&PathBuf>,
    to: Option<Format>,
) -> Result<(), Failure> {
    let to = to.unwrap_or(if loaded.text.is_some() {
        Format::Text
    } else {
        Format::Binary
    });
    match to {
        Format::Text => {
            let text = onnxtxt::to_text(&loaded.model);
            write_output(output, text.as_bytes(), false)
        }
        Format::Binary => write_output(output, &loaded.model.encode_to_vec(), true),
    }
}
