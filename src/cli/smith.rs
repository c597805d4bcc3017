//! `onnxtxt smith`: print a random well-formed model (for fuzzing and
//! testing other tools), like `wasm-tools smith`.

use std::path::PathBuf;

use super::io::{write_output, Failure};

/// Arguments of `onnxtxt smith`.
#[derive(Debug, clap::Args)]
pub(crate) struct SmithArgs {
    /// The seed; the same seed always gives the same model. Without one a
    /// seed is taken from the clock and printed on standard error.
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// Where to write the text (standard output by default).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
}

impl SmithArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        let seed = self.seed.unwrap_or_else(|| {
            let seed = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            eprintln!("seed: {seed}");
            seed
        });
        let model = onnxtxt::smith::model_from_seed(seed);
        let text = onnxtxt::to_text(&model);
        write_output(self.output.as_ref(), text.as_bytes(), false)
    }
}
