//! The language server's fuzz targets' checks on stable, as part of `cargo
//! test`: `lsp_edits` on its seed corpus, the inputs it ever failed on
//! (`fuzz/regressions/lsp_edits/`) and inputs from a fixed seed;
//! `lsp_framing` on its seed corpus and regressions.

use std::path::PathBuf;

use onnxtxt::lsp::fuzz::{check_edits, check_framing};

/// How many seeded inputs, and how long each: enough to reach every
/// request and the half-typed texts, a few seconds in a debug build.
const SEEDED_INPUTS: usize = 150;
const SEEDED_LENGTH: usize = 400;

/// The files of `fuzz/FOLDER/TARGET/`, sorted.
fn files(folder: &str, target: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(folder)
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file());
    files.sort();
    files
}

/// Runs `check` on the seed corpus and the regressions of `target`.
fn corpus_and_regressions_of(target: &str, check: fn(&[u8]) -> Result<(), String>) {
    let corpus = files("corpus", target);
    assert!(!corpus.is_empty(), "no seed corpus for {target}");
    for path in corpus.into_iter().chain(files("regressions", target)) {
        let data = std::fs::read(&path).unwrap();
        if let Err(e) = check(&data) {
            panic!("{}: {e}", path.display());
        }
    }
}

#[test]
fn corpus_and_regressions_pass() {
    corpus_and_regressions_of("lsp_edits", check_edits);
}

#[test]
fn framing_corpus_and_regressions_pass() {
    corpus_and_regressions_of("lsp_framing", check_framing);
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
