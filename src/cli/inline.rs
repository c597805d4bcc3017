//! `onnxtxt inline`: a model (text or binary) in, the same model with the
//! calls of its local functions replaced by their bodies out. A thin shell
//! over `onnxtxt::inline`.

use std::path::PathBuf;

use super::infer::{write_model, Format};
use super::input::read_input;
use super::io::{load_model, Failure};
use onnxtxt::inline::{inline_functions, inline_schema_functions, Selection};

/// Arguments of `onnxtxt inline`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  onnxtxt inline model.onnx -o flat.onnx              every local function
  onnxtxt inline model.onnxtxt --only com.example.F   the calls of one
  onnxtxt inline model.onnx --schema-functions        Softplus, Gelu, ... too")]
pub(crate) struct InlineArgs {
    /// The model, text or binary (`-` or nothing for standard input).
    pub(crate) input: Option<PathBuf>,
    /// Where to write the model (standard output by default).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Inline only the function `DOMAIN.NAME` (repeatable) [default: all].
    #[arg(long, value_name = "DOMAIN.NAME")]
    pub(crate) only: Vec<String>,
    /// Also expand the operators onnx defines by a function body (at the
    /// opset in force), as `Softplus` into `Exp`, `Add`, `Log`, ...; those
    /// whose body onnx builds for each node (`Gelu`, `LayerNormalization`)
    /// where the node's input types are known and the registry has its
    /// body, else the node stays and a warning says so.
    #[arg(long)]
    pub(crate) schema_functions: bool,
    /// Write text or binary (by default what the input is).
    #[arg(long, value_enum)]
    pub(crate) to: Option<Format>,
}

impl InlineArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        let selection = if self.only.is_empty() {
            Selection::All
        } else {
            Selection::Only(self.only)
        };
        let mut loaded = load_model(read_input(self.input.as_deref())?)?;
        let failed = |e: onnxtxt::Error| {
            Failure::Corrupt(format!("{}: {}", loaded.name, e.primary().message))
        };
        let mut model = inline_functions(&loaded.model, &selection).map_err(failed)?;
        if self.schema_functions {
            let expansion = inline_schema_functions(&model).map_err(failed)?;
            for unexpanded in &expansion.unexpanded {
                eprintln!("warning: {unexpanded}");
            }
            model = expansion.model;
        }
        loaded.model = model;
        write_model(&loaded, self.output.as_ref(), self.to)
    }
}
