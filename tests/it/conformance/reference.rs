//! The reference parser, run once over a batch of texts:
//! `conformance/reference_parse.py DIR` reads `DIR/list.tsv` (name, kind),
//! parses each `DIR/<name>.txt` with `onnx.parser` and writes
//! `DIR/<name>.ref.pb` or `DIR/<name>.ref.err` next to it.
//!
//! The Python is `$ONNXTXT_PYTHON`, else `.venv/bin/python` in the crate
//! root (made by `conformance/setup.sh`).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::corpus::{crate_root, CaseKind};

/// A scratch folder of texts for the reference parser.
pub struct Batch {
    dir: PathBuf,
    list: String,
}

/// What the reference made of one text.
pub enum Parsed {
    Ok(Vec<u8>),
    Err(String),
    /// Neither file: the batch died before this text.
    Missing,
}

impl Batch {
    /// Empties (or makes) `dir`.
    pub fn new(dir: PathBuf) -> Batch {
        if dir.exists() {
            fs::remove_dir_all(&dir)
                .unwrap_or_else(|err| panic!("removing {}: {err}", dir.display()));
        }
        fs::create_dir_all(&dir).unwrap_or_else(|err| panic!("making {}: {err}", dir.display()));
        Batch {
            dir,
            list: String::new(),
        }
    }

    fn file(&self, name: &str, suffix: &str) -> PathBuf {
        self.dir.join(format!("{name}{suffix}"))
    }

    /// Adds `text` as `name` (a relative path without suffix).
    pub fn add(&mut self, name: &str, kind: CaseKind, text: &str) {
        assert!(
            !name.contains(['\t', '\n']),
            "case name {name:?} cannot go in list.tsv"
        );
        let path = self.file(name, ".txt");
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .unwrap_or_else(|err| panic!("making {}: {err}", parent.display()));
        }
        fs::write(&path, text).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        let _ = writeln!(self.list, "{name}\t{}", kind.name());
    }

    /// Runs the reference parser over the batch. Returns the script's
    /// summary line, or a description of how it failed (its results so far
    /// stay readable); panics when there is no Python to run it with.
    pub fn run(&self) -> Result<String, String> {
        let list = self.dir.join("list.tsv");
        fs::write(&list, &self.list).unwrap_or_else(|err| panic!("{}: {err}", list.display()));
        let root = crate_root();
        let python = python(root);
        let script = root.join("conformance/reference_parse.py");
        let output = Command::new(&python)
            .arg(&script)
            .arg(&self.dir)
            .current_dir(root)
            .output()
            .unwrap_or_else(|err| {
                panic!(
                    "cannot run {} ({err}): run `bash conformance/setup.sh`, \
                     or set ONNXTXT_PYTHON to a Python with onnx==1.23.2",
                    python.display()
                )
            });
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
        } else {
            Err(format!(
                "{} {} {} exited with {}:\n{}{}",
                python.display(),
                script.display(),
                self.dir.display(),
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ))
        }
    }

    /// The reference's result for `name`, once [`Batch::run`] has run.
    pub fn result(&self, name: &str) -> Parsed {
        if let Ok(bytes) = fs::read(self.file(name, ".ref.pb")) {
            Parsed::Ok(bytes)
        } else if let Ok(err) = fs::read_to_string(self.file(name, ".ref.err")) {
            Parsed::Err(err.trim().to_owned())
        } else {
            Parsed::Missing
        }
    }
}

fn python(root: &Path) -> PathBuf {
    match std::env::var_os("ONNXTXT_PYTHON") {
        Some(python) => PathBuf::from(python),
        None => root.join(".venv/bin/python"),
    }
}
