//! `onnxtxt smith`: print a random model, like `wasm-tools smith`: by
//! default a valid one (what `onnx.checker` accepts, for fuzzing other
//! tools) within a configuration, or with `--ir-random` one that only
//! needs to be well-formed (for onnxtxt's own round trips). `--count N`
//! writes a campaign's models into a directory.

use std::path::PathBuf;

use onnxtxt::smith::{Config, ElementType};

use super::io::{write_output, Failure};

/// Arguments of `onnxtxt smith`.
#[derive(Debug, clap::Args)]
pub(crate) struct SmithArgs {
    /// The seed; the same seed always gives the same model. Without one a
    /// seed is taken from the clock and printed on standard error.
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// Where to write the model (standard output by default); with
    /// `--count`, the directory to write the models into.
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Write N models, of seeds SEED, SEED+1, ..., into the directory
    /// `-o` names, each as `SEED.onnxtxt` (or `SEED.onnx`); seeds no node
    /// fits are skipped (an error if all are).
    #[arg(long, value_name = "N", requires = "output")]
    pub(crate) count: Option<u64>,
    /// Write the binary encoding instead of text.
    #[arg(long)]
    pub(crate) binary: bool,
    /// Write text with onnxtxt's extensions (`@<raw: true>` for tensors
    /// stored raw), which parses back to the same bytes; by default the
    /// text uses only what `onnx.parser` reads.
    #[arg(long, conflicts_with = "binary")]
    pub(crate) extensions: bool,
    /// Any IR value the syntax can express, not a valid model (the
    /// round-trip fuzzing of onnxtxt itself); the configuration flags do
    /// not apply.
    #[arg(long)]
    pub(crate) ir_random: bool,
    /// A configuration as JSON (the fields of `onnxtxt::smith::Config`);
    /// the flags below override it.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Draw the configuration from the seed too (swarm testing).
    #[arg(long, conflicts_with = "config")]
    pub(crate) swarm: bool,
    /// The lowest ai.onnx opset.
    #[arg(long)]
    pub(crate) min_opset: Option<i64>,
    /// The highest ai.onnx opset.
    #[arg(long)]
    pub(crate) max_opset: Option<i64>,
    /// Use only these operators (`Add`, or `domain:Op`), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub(crate) allow: Vec<String>,
    /// Never use these operators, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub(crate) forbid: Vec<String>,
    /// The element types values may have (`float,int64`, ...).
    #[arg(long, value_delimiter = ',', value_parser = parse_element_type)]
    pub(crate) types: Vec<ElementType>,
    /// The most nodes of the main graph.
    #[arg(long)]
    pub(crate) max_nodes: Option<usize>,
    /// The highest rank of a value.
    #[arg(long)]
    pub(crate) max_rank: Option<usize>,
    /// The largest dimension of an input.
    #[arg(long)]
    pub(crate) max_dim: Option<i64>,
    /// The most bytes a value may hold.
    #[arg(long)]
    pub(crate) max_tensor_bytes: Option<usize>,
    /// No subgraphs (`If`, `Loop`, `Scan`, `SequenceMap`).
    #[arg(long)]
    pub(crate) no_subgraphs: bool,
    /// No model-local functions.
    #[arg(long)]
    pub(crate) no_functions: bool,
    /// No symbolic dimensions on inputs.
    #[arg(long)]
    pub(crate) no_symbolic_dims: bool,
}

fn parse_element_type(name: &str) -> Result<ElementType, String> {
    ElementType::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = ElementType::ALL.iter().map(|e| e.name()).collect();
        format!("unknown element type; one of {}", names.join(", "))
    })
}

/// Bytes drawn from the seed for one model.
const SEED_BYTES: usize = 8192;

impl SmithArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        let first = self.seed.unwrap_or_else(|| {
            let seed = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            eprintln!("seed: {seed}");
            seed
        });
        let nothing_fits = |seeds: &str| {
            Failure::Io(format!(
                "{seeds}: no node of an operator the configuration allows fits \
                 (its operators, element types, opsets, limits and profile)"
            ))
        };
        let Some(count) = self.count else {
            let bytes = self
                .model_bytes(first)?
                .ok_or_else(|| nothing_fits(&format!("seed {first}")))?;
            return write_output(self.output.as_ref(), &bytes, self.binary);
        };
        let dir = self.output.clone().unwrap_or_default();
        std::fs::create_dir_all(&dir)
            .map_err(|e| Failure::Io(format!("cannot make {}: {e}", dir.display())))?;
        let extension = if self.binary { "onnx" } else { "onnxtxt" };
        let mut skipped = 0;
        for k in 0..count {
            let seed = first.wrapping_add(k);
            let Some(bytes) = self.model_bytes(seed)? else {
                skipped += 1;
                continue;
            };
            let path = dir.join(format!("{seed}.{extension}"));
            write_output(Some(&path), &bytes, self.binary)?;
        }
        if skipped == count {
            return Err(nothing_fits(&format!(
                "seeds {first} to {}",
                first.wrapping_add(count - 1)
            )));
        }
        if skipped > 0 {
            eprintln!("{skipped} of {count} seeds made no model: no node fits them");
        }
        Ok(())
    }

    /// The model of `seed`, encoded or as text; `None` when no node fits.
    fn model_bytes(&self, seed: u64) -> Result<Option<Vec<u8>>, Failure> {
        let model = if self.ir_random {
            onnxtxt::smith::model_from_seed(seed)
        } else {
            let bytes = onnxtxt::smith::seeded_bytes(seed, SEED_BYTES);
            let mut u = arbitrary::Unstructured::new(&bytes);
            let config = self.config(&mut u)?;
            config.check().map_err(Failure::Io)?;
            let model = onnxtxt::smith::valid_model(&mut u, &config).unwrap_or_default();
            if model.graph.as_ref().is_none_or(|g| g.node.is_empty()) {
                return Ok(None);
            }
            model
        };
        Ok(Some(if self.binary {
            onnxtxt::prost::Message::encode_to_vec(&model)
        } else {
            // The IR-random models use every extension; they are for
            // onnxtxt's own round trips.
            let compat = !self.extensions && !self.ir_random;
            onnxtxt::Printer::new()
                .compat(compat)
                .print(&model)
                .text
                .into_bytes()
        }))
    }

    /// The configuration: the file's, or drawn from `u`, or the default,
    /// then the flags.
    fn config(&self, u: &mut arbitrary::Unstructured<'_>) -> Result<Config, Failure> {
        let mut config = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| Failure::Io(format!("{}: {e}", path.display())))?;
                serde_json::from_str(&text)
                    .map_err(|e| Failure::Io(format!("{}: {e}", path.display())))?
            }
            None if self.swarm => Config::swarm(u).unwrap_or_default(),
            None => Config::default(),
        };
        config.min_opset = self.min_opset.unwrap_or(config.min_opset);
        config.max_opset = self.max_opset.unwrap_or(config.max_opset);
        if !self.allow.is_empty() {
            config.allowed_operators = self.allow.clone();
        }
        config
            .forbidden_operators
            .extend(self.forbid.iter().cloned());
        if !self.types.is_empty() {
            config.element_types = self.types.clone();
        }
        config.max_nodes = self.max_nodes.unwrap_or(config.max_nodes);
        config.max_rank = self.max_rank.unwrap_or(config.max_rank);
        config.max_dim = self.max_dim.unwrap_or(config.max_dim);
        config.max_tensor_bytes = self.max_tensor_bytes.unwrap_or(config.max_tensor_bytes);
        config.subgraphs &= !self.no_subgraphs;
        config.functions &= !self.no_functions;
        config.symbolic_dims &= !self.no_symbolic_dims;
        Ok(config)
    }
}
