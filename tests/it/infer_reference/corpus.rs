//! The models of the conformance corpus and what the reference infers of
//! them (written by `conformance/infer_reference.py`).

use std::fs;
use std::path::{Path, PathBuf};

use onnxtxt::proto::ModelProto;
use prost::Message as _;

/// One model of the corpus.
pub struct ModelCase {
    pub name: String,
    /// Whether `onnx.checker.check_model(full_check=True)` accepts it.
    pub checker_accepts: bool,
}

pub struct Corpus {
    corpus: PathBuf,
    inference: PathBuf,
    pub cases: Vec<ModelCase>,
}

fn crate_path(variable: &str, default: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    root.join(std::env::var_os(variable).unwrap_or_else(|| default.into()))
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

impl Corpus {
    /// Reads the manifest of the reference's inference, panicking with
    /// instructions when it is missing.
    pub fn open() -> Corpus {
        let corpus = crate_path("ONNXTXT_CORPUS", "target/conformance");
        let inference = crate_path("ONNXTXT_INFERENCE", "target/inference");
        let manifest = inference.join("manifest.tsv");
        let text = fs::read_to_string(&manifest).unwrap_or_else(|err| {
            panic!(
                "no reference inference at {} ({err}): run `bash conformance/run.sh`, or \
                 `.venv/bin/python conformance/infer_reference.py` after the corpus is written",
                manifest.display()
            )
        });
        let filter = std::env::var("ONNXTXT_CONFORMANCE_FILTER").unwrap_or_default();
        let cases: Vec<ModelCase> = text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|line| {
                let fields: Vec<&str> = line.split('\t').collect();
                let [name, _, checker, _] = fields[..] else {
                    panic!("bad manifest line: {line:?}")
                };
                ModelCase {
                    name: name.to_owned(),
                    checker_accepts: checker == "ok",
                }
            })
            .filter(|c| c.name.contains(&filter))
            .collect();
        assert!(
            !cases.is_empty(),
            "no cases in {} (filter {filter:?})",
            manifest.display()
        );
        Corpus {
            corpus,
            inference,
            cases,
        }
    }

    fn file(dir: &Path, case: &ModelCase, suffix: &str) -> PathBuf {
        dir.join(format!("{}{suffix}", case.name))
    }

    /// The model, or the model stripped of its declared value types.
    pub fn model(&self, case: &ModelCase, stripped: bool) -> ModelProto {
        let path = if stripped {
            Self::file(&self.inference, case, ".stripped.onnx")
        } else {
            Self::file(&self.corpus, case, ".onnx")
        };
        ModelProto::decode(&read(&path)[..]).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The stripped model with the test's input values as initializers,
    /// for node test models whose inputs are tensors.
    pub fn valued_model(&self, case: &ModelCase) -> Option<ModelProto> {
        let path = Self::file(&self.inference, case, ".valued.onnx");
        let bytes = fs::read(&path).ok()?;
        Some(ModelProto::decode(&bytes[..]).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
    }

    /// What the reference's strict inference makes of the model (or of the
    /// stripped model), or its error.
    pub fn reference(&self, case: &ModelCase, stripped: bool) -> Result<ModelProto, String> {
        let stem = if stripped {
            ".stripped.inferred"
        } else {
            ".inferred"
        };
        let model = Self::file(&self.inference, case, &format!("{stem}.onnx"));
        if model.exists() {
            let bytes = read(&model);
            return Ok(ModelProto::decode(&bytes[..])
                .unwrap_or_else(|e| panic!("{}: {e}", model.display())));
        }
        let error = Self::file(&self.inference, case, &format!("{stem}.err"));
        Err(fs::read_to_string(&error)
            .unwrap_or_else(|err| panic!("{}: {err}", error.display()))
            .trim()
            .to_owned())
    }
}
