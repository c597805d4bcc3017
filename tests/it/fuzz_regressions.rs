//! Replays what the fuzzers found, and smoke-runs every fuzz target's check
//! on stable, so that plain `cargo test` exercises the fuzzing logic.
//!
//! * `fuzz/regressions/<target>/*`: inputs that once crashed or broke an
//!   invariant. Each must now pass its target's check
//!   ([`onnxtxt::roundtrip::Target::check`]).
//! * `fuzz/corpus/<target>/*`: the seed corpora.
//! * Seeded models from [`onnxtxt::smith::model_from_seed`].

use std::path::{Path, PathBuf};

use onnxtxt::roundtrip::{self, Target};
use prost::Message;

fn dir(parts: &[&str]) -> PathBuf {
    let mut p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    p.extend(parts);
    p
}

/// The files of `dir`, sorted; none if it does not exist (a target with no
/// regressions has no folder).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.retain(|p| p.is_file() && p.file_name().is_none_or(|n| n != "README.md"));
    out.sort();
    out
}

/// The fuzz targets whose regressions another module replays:
/// `lsp_edits` and `lsp_framing` (`lsp_edits.rs`), which check the language
/// server.
const OTHER_TARGETS: [&str; 2] = ["lsp_edits", "lsp_framing"];

/// Every file under `fuzz/regressions/`, which must be there and hold
/// some: a replay of nothing would pass.
#[test]
fn regressions_stay_fixed() {
    let root = dir(&["regressions"]);
    let folders: Vec<String> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|entry| entry.ok().filter(|e| e.path().is_dir()))
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    for folder in &folders {
        assert!(
            Target::ALL.iter().any(|t| t.name() == folder)
                || OTHER_TARGETS.contains(&folder.as_str()),
            "fuzz/regressions/{folder} is not named after a fuzz target"
        );
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
            if let Err(e) = target.check(&data) {
                failures.push(format!("{rel}: {e}"));
            }
        }
    }
    eprintln!("{seen} regression files replayed");
    assert!(seen > 0, "no regression files under {}", root.display());
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
    for seed in 0..32 {
        let model = onnxtxt::smith::model_from_seed(seed);
        let text = onnxtxt::to_text(&model);
        let checks = [
            ("model_round_trips", roundtrip::model_round_trips(&model)),
            (
                "binary_round_trips",
                roundtrip::binary_round_trips(&model.encode_to_vec()),
            ),
            ("text_round_trips", roundtrip::text_round_trips(&text)),
            ("fmt_is_idempotent", roundtrip::fmt_is_idempotent(&text)),
            (
                "structured_model",
                Target::StructuredModel.check(&onnxtxt::smith::seeded_bytes(seed, 2048)),
            ),
        ];
        for (name, result) in checks {
            if let Err(e) = result {
                panic!("seed {seed}, {name}: {e}");
            }
        }
    }
}

/// The rest of the line of `text` from `start` on, without the backtick
/// that ends a command quoted in Markdown.
fn command_from<'a>(text: &'a str, start: &str) -> &'a str {
    let at = text.find(start).unwrap_or_else(|| panic!("no `{start}`"));
    let line = text[at..].lines().next().unwrap_or_default();
    line.trim_end().trim_end_matches('`')
}

/// `fuzz/run.sh` and `fuzz/README.md` give the same command to minimise a
/// crash, which builds as the runs do; and the fuzz crate's lock file is
/// tracked, pinning what the fuzzers are built with.
#[test]
fn the_fuzz_scripts_agree_and_pin_their_dependencies() {
    let read = |name: &str| std::fs::read_to_string(dir(&[name])).unwrap();
    let (script, readme) = (read("run.sh"), read("README.md"));
    let tmin = "RUSTC_BOOTSTRAP=1 cargo fuzz tmin";
    assert_eq!(command_from(&script, tmin), command_from(&readme, tmin));
    let run = command_from(&script, "exec cargo fuzz run ");
    let flags = &run["exec cargo fuzz run ".len()..run.find(" \"$target\"").unwrap()];
    let expected = format!("{tmin} {flags} TARGET fuzz/artifacts/TARGET/crash-...");
    assert_eq!(command_from(&script, tmin), expected);

    let lock = std::fs::read_to_string(dir(&["Cargo.lock"])).expect("fuzz/Cargo.lock");
    assert!(lock.contains("name = \"libfuzzer-sys\""));
    let ignored = read(".gitignore");
    assert!(!ignored.lines().any(|line| line.trim() == "Cargo.lock"));
}

/// The inference target over seeded operator models.
#[test]
fn seeded_operator_models_pass_the_inference_target() {
    let seeds: u64 = std::env::var("ONNXTXT_INFER_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64);
    let mut failures = Vec::new();
    for seed in 0..seeds {
        let bytes = onnxtxt::smith::seeded_bytes(seed, 4096);
        if let Err(e) = Target::Infer.check(&bytes) {
            failures.push(format!("seed {seed}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
