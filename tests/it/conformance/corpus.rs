//! The corpus written by `conformance/generate.py`: `manifest.tsv` and, per
//! case, the original binary, the reference printer's text and the reference
//! parser's result.

use std::fs;
use std::path::{Path, PathBuf};

use prost_reflect::{DescriptorPool, MessageDescriptor};

/// What a case's binary holds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum CaseKind {
    Model,
    Function,
}

impl CaseKind {
    /// As written in `manifest.tsv` (and in `conformance/reference_parse.py`'s list).
    pub fn name(self) -> &'static str {
        match self {
            CaseKind::Model => "model",
            CaseKind::Function => "function",
        }
    }

    pub fn message(self, pool: &DescriptorPool) -> MessageDescriptor {
        let name = match self {
            CaseKind::Model => "onnx.ModelProto",
            CaseKind::Function => "onnx.FunctionProto",
        };
        pool.get_message_by_name(name)
            .expect("message in onnx.proto")
    }

    /// The suffix of the original binary.
    fn binary_suffix(self) -> &'static str {
        match self {
            CaseKind::Model => ".onnx",
            CaseKind::Function => ".pb",
        }
    }
}

pub struct Case {
    pub name: String,
    pub kind: CaseKind,
    /// `ok` when the reference parsed its own text (there is a `.ref.pb`).
    pub status: String,
}

impl Case {
    /// Where the case comes from, the first component of its name: `node`,
    /// `function`, `wheel` or `extra`.
    pub fn group(&self) -> &str {
        self.name.split('/').next().unwrap_or(&self.name)
    }
}

pub struct Corpus {
    pub dir: PathBuf,
    pub cases: Vec<Case>,
}

impl Corpus {
    /// Reads `manifest.tsv`, panicking with instructions when it is missing
    /// or names no case.
    pub fn open() -> Corpus {
        let dir = crate_root().join(
            std::env::var_os("ONNXTXT_CORPUS").unwrap_or_else(|| "target/conformance".into()),
        );
        let manifest = dir.join("manifest.tsv");
        let text = fs::read_to_string(&manifest).unwrap_or_else(|err| {
            panic!(
                "no conformance corpus at {} ({err}): run `bash conformance/run.sh`, \
                 or `conformance/setup.sh` then `.venv/bin/python conformance/generate.py`",
                manifest.display()
            )
        });
        let filter = std::env::var("ONNXTXT_CONFORMANCE_FILTER").unwrap_or_default();
        let mut cases = Vec::new();
        for line in text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let fields: Vec<&str> = line.split('\t').collect();
            let [name, kind, status] = fields[..] else {
                panic!("bad manifest line: {line:?}")
            };
            let kind = match kind {
                "model" => CaseKind::Model,
                "function" => CaseKind::Function,
                _ => panic!("bad kind in manifest line: {line:?}"),
            };
            if name.contains(&filter) {
                cases.push(Case {
                    name: name.to_owned(),
                    kind,
                    status: status.to_owned(),
                });
            }
        }
        assert!(
            !cases.is_empty(),
            "no cases in {} (filter {filter:?}): run `bash conformance/run.sh`",
            manifest.display()
        );
        Corpus { dir, cases }
    }

    /// `dir/name` with `suffix` appended (names contain dots, so no `with_extension`).
    pub fn file(&self, case: &Case, suffix: &str) -> PathBuf {
        case_file(&self.dir, case, suffix)
    }

    /// The original binary, as generate.py wrote it (panics when missing:
    /// the corpus is broken).
    pub fn original(&self, case: &Case) -> Vec<u8> {
        read(&self.file(case, case.kind.binary_suffix()))
    }
}

pub fn crate_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `dir/name` with `suffix` appended.
pub fn case_file(dir: &Path, case: &Case, suffix: &str) -> PathBuf {
    dir.join(format!("{}{suffix}", case.name))
}

pub fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}
