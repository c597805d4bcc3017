//! The tools some tests need beside the command (the reference's Python,
//! Neovim): found, or the test is skipped saying so, or fails under CI.
//! Apart from `support`, which needs the command, so that the tests of the
//! library alone (`--no-default-features`) use them too.

use std::path::{Path, PathBuf};

/// The reference's Python (`.venv/bin/python`, onnx 1.23.2 and onnxruntime,
/// made by `conformance/setup.sh`); `None`, with a line saying the test is
/// skipped, when it is missing outside CI; under CI a missing venv fails
/// the test.
pub fn reference_python() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    let name = python.display().to_string();
    tool_available(python.exists(), &name, "run conformance/setup.sh").then_some(python)
}

/// Whether `tool`, which a test needs, was `found`. When it was not, the
/// test is skipped outside CI, with a line saying so, and fails under CI
/// (`CI` set), where every test must run; `setup` says how to get it.
pub fn tool_available(found: bool, tool: &str, setup: &str) -> bool {
    if found {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{tool} is missing ({setup})"
    );
    eprintln!("skipped: no {tool} ({setup})");
    false
}
