//! The `lsp_edits` fuzz target's check on stable, as part of `cargo test`:
//! its seed corpus, the inputs it ever failed on (`fuzz/regressions/
//! lsp_edits/`), and inputs from a fixed seed.

use std::path::PathBuf;

use onnxtxt::lsp::fuzz::check_edits;

/// How many seeded inputs, and how long each: enough to reach every
/// request and the half-typed texts, a few seconds in a debug build.
const SEEDED_INPUTS: usize = 150;
const SEEDED_LENGTH: usize = 400;

fn files(folder: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(folder)
        .join("lsp_edits");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file());
    files.sort();
    files
}

#[test]
fn corpus_and_regressions_pass() {
    let corpus = files("corpus");
    assert!(!corpus.is_empty(), "no seed corpus for lsp_edits");
    for path in corpus.into_iter().chain(files("regressions")) {
        let data = std::fs::read(&path).unwrap();
        if let Err(e) = check_edits(&data) {
            panic!("{}: {e}", path.display());
        }
    }
}

#[test]
fn seeded_edit_sequences_pass() {
    // xorshift64*: the same inputs on every run.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
    };
    for input in 0..SEEDED_INPUTS {
        let data: Vec<u8> = (0..SEEDED_LENGTH).map(|_| next()).collect();
        if let Err(e) = check_edits(&data) {
            panic!("seeded input {input} ({data:?}): {e}");
        }
    }
}
