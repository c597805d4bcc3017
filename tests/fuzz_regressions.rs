//! Replays what the fuzzers found, and smoke-runs every fuzz target's check
//! on stable, so that plain `cargo test` exercises the fuzzing logic.
//!
//! * `fuzz/regressions/<target>/*`: inputs that once crashed or broke an
//!   invariant. Each must now pass its target's check
//!   ([`onnxtxt::roundtrip::Target::check`]), unless it is listed in
//!   [`KNOWN_FAILING`], in which case it must still fail (so the list is
//!   emptied as bugs get fixed).
//! * `fuzz/corpus/<target>/*`: the seed corpora.
//! * Seeded models from [`onnxtxt::smith::model_from_seed`].

use std::path::{Path, PathBuf};

use onnxtxt::roundtrip::{self, Target};
use prost::Message;

/// Regression files (relative to `fuzz/regressions/`) for bugs not fixed
/// yet. Each must still fail; remove its line once the bug is fixed.
const KNOWN_FAILING: &[&str] = &[
    // A TYPE_PROTO attribute whose `tp` has no kind prints as
    // `@<tp: {}> a: type_proto = float` and parses back with tp = float.
    "decode_binary/kindless_type_proto_attribute.onnx",
];

/// Signatures (a substring of the `--- where:` line of a round-trip
/// mismatch) of the known bugs above, for the seeded smoke test: a seeded
/// model failing only because of one of them is skipped, and counted.
/// Remove an entry with its `KNOWN_FAILING` files. The same table is in
/// `tests/roundtrip_prop.rs`.
const KNOWN_BUG_SIGNATURES: &[(&str, &str)] =
    &[("kindless_type_proto_attribute", "tp: Some( TypeProto {\n")];

fn known_bug(error: &str) -> Option<&'static str> {
    let line = error.lines().find(|l| l.starts_with("--- where:"))?;
    let line = format!("{line}\n");
    KNOWN_BUG_SIGNATURES
        .iter()
        .find(|(_, signature)| line.ends_with(signature))
        .map(|(name, _)| *name)
}

fn dir(parts: &[&str]) -> PathBuf {
    let mut p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    p.extend(parts);
    p
}

/// The files of `dir`, sorted; none if it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.retain(|p| p.is_file() && p.file_name().is_none_or(|n| n != "README.md"));
    out.sort();
    out
}

#[test]
fn regressions_stay_fixed() {
    if !KNOWN_FAILING.is_empty() {
        eprintln!("known-failing fuzz regressions (bugs not fixed yet):");
        for name in KNOWN_FAILING {
            eprintln!("  fuzz/regressions/{name}");
        }
    }
    let mut failures = Vec::new();
    let mut seen = 0;
    for target in Target::ALL {
        for path in files(&dir(&["regressions", target.name()])) {
            seen += 1;
            let rel = format!(
                "{}/{}",
                target.name(),
                path.file_name().unwrap().to_string_lossy()
            );
            let data = std::fs::read(&path).unwrap();
            let result = target.check(&data);
            let known = KNOWN_FAILING.contains(&rel.as_str());
            match (result, known) {
                (Ok(()), false) | (Err(_), true) => {}
                (Err(e), false) => failures.push(format!("{rel}: {e}")),
                (Ok(()), true) => failures.push(format!(
                    "{rel} passes now: remove it from KNOWN_FAILING in tests/fuzz_regressions.rs"
                )),
            }
        }
    }
    for name in KNOWN_FAILING {
        assert!(
            dir(&["regressions"]).join(name).is_file(),
            "KNOWN_FAILING names a missing file: {name}"
        );
    }
    eprintln!("{seen} regression files replayed");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn seed_corpora_pass() {
    let mut failures = Vec::new();
    for target in Target::ALL {
        let corpus = files(&dir(&["corpus", target.name()]));
        assert!(!corpus.is_empty(), "no seed corpus for {}", target.name());
        for path in corpus {
            if let Err(e) = target.check(&std::fs::read(&path).unwrap()) {
                failures.push(format!("{}: {e}", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every target's logic over seeded smith models: the model itself, its
/// encoding, its text, and the generator's input bytes.
#[test]
fn seeded_smith_models_pass_every_target() {
    let mut skipped = Vec::new();
    for seed in 0..32 {
        let model = onnxtxt::smith::model_from_seed(seed);
        let text = onnxtxt::to_text(&model);
        let checks = [
            ("check_model", roundtrip::check_model(&model)),
            (
                "check_binary",
                roundtrip::check_binary(&model.encode_to_vec()),
            ),
            ("check_text", roundtrip::check_text(&text)),
            (
                "check_fmt_idempotent",
                roundtrip::check_fmt_idempotent(&text),
            ),
            (
                "structured_model",
                Target::StructuredModel.check(&onnxtxt::smith::seeded_bytes(seed, 2048)),
            ),
        ];
        for (name, result) in checks {
            if let Err(e) = result {
                match known_bug(&e) {
                    Some(bug) => skipped.push(format!("seed {seed} ({name}): {bug}")),
                    None => panic!("seed {seed}, {name}: {e}"),
                }
            }
        }
    }
    if !skipped.is_empty() {
        eprintln!("seeds failing only because of known bugs:");
        for line in &skipped {
            eprintln!("  {line}");
        }
    }
}
