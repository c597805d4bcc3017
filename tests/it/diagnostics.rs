//! The diagnostics suite: one small model per mistake people make, in
//! `tests/diagnostics/*.onnxtxt`, each with the diagnostics `onnxtxt check`
//! renders for it as a snapshot (`snapshots/diagnostics_NAME.snap`); and a
//! mutation test: single-character edits of every example, suite file and
//! generated model never make the parser (or the checker) panic, and every
//! span they report lies within the text.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::trim_lines;

const SUITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/diagnostics");

fn suite_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(SUITE)
        .expect("tests/diagnostics exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "onnxtxt"))
        .collect();
    files.sort();
    files
}

/// Runs `onnxtxt check FILE` in the suite directory, so the rendered
/// location is `FILE:LINE:COL` with no directory.
fn check(file: &Path) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_onnxtxt"))
        .arg("check")
        .arg(file.file_name().unwrap())
        .current_dir(SUITE)
        .env("NO_COLOR", "1")
        .output()
        .expect("onnxtxt runs");
    let stderr = String::from_utf8(output.stderr).expect("stderr is UTF-8");
    (output.status.code().expect("onnxtxt exits"), stderr)
}

#[test]
fn every_mistake_has_its_snapshot() {
    let files = suite_files();
    assert!(files.len() >= 40, "only {} mistakes", files.len());
    for file in &files {
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let (code, stderr) = check(file);
        assert!(
            code == 1 || (code == 0 && stderr.contains("warning")),
            "{stem}: a mistake must give an error or a warning (exit {code})\n{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stem}:\n{stderr}");
        let text = format!("exit: {code}\n{}", trim_lines(&stderr));
        insta::with_settings!({
            snapshot_path => "../../snapshots",
            prepend_module_to_snapshot => false,
            input_file => file,
            description => std::fs::read_to_string(file).unwrap(),
        }, {
            insta::assert_snapshot!(format!("diagnostics_{stem}"), text);
        });
    }
}

/// Recovery goes on after every error, but a run reports at most 50, in the
/// order of the text.
#[test]
fn errors_are_capped_and_in_order() {
    let broken: String = (0..200).map(|i| format!("  v{i} = Relu x{i}\n")).collect();
    let text = format!("g (float x) => (float y) {{\n{broken}  y = Relu(x)\n}}\n");
    let error = onnxtxt::parse_model(&text).unwrap_err();
    let starts: Vec<usize> = error.diagnostics().iter().map(|d| d.span.start).collect();
    assert_eq!(starts.len(), 50);
    assert!(starts.windows(2).all(|w| w[0] < w[1]), "{starts:?}");
    assert_eq!(&text[error.span()], "x0");
}

// ---------------------------------------------------------------------------
// Mutations.
// ---------------------------------------------------------------------------

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const INSERTIONS: &[&str] = &[
    "(", ")", "[", "]", "{", "}", "<", ">", ",", ":", "=", "\"", "@", "#", "a", "1", "-",
];

/// The texts to mutate: the examples, the suite, and generated models.
fn corpus() -> Vec<(String, String)> {
    let mut texts = Vec::new();
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "onnxtxt"))
        .chain(suite_files())
        .collect();
    paths.sort();
    for path in paths {
        texts.push((
            path.display().to_string(),
            std::fs::read_to_string(&path).unwrap(),
        ));
    }
    for seed in 0..12 {
        let model = onnxtxt::smith::model_from_seed(seed);
        texts.push((format!("smith seed {seed}"), onnxtxt::to_text(&model)));
    }
    texts
}

fn assert_within(what: &str, text: &str, span: &std::ops::Range<usize>) {
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "{what}: span {span:?} outside the text ({} bytes):\n{text}",
        text.len()
    );
}

/// Parses `text`; on error every span must be within it, on success the
/// checker's located findings must be too.
fn parse_and_check(what: &str, text: &str) {
    match onnxtxt::parse_model_with_source_map(text) {
        Err(error) => {
            for d in error.diagnostics() {
                assert_within(what, text, &d.span);
                for label in &d.labels {
                    assert_within(what, text, &label.span);
                }
            }
        }
        Ok((model, map)) => {
            let mut findings = onnxtxt::check_model(&model);
            onnxtxt::check::locate(&map, &mut findings);
            for f in &findings {
                assert_within(what, text, &f.diagnostic.span);
                for label in &f.diagnostic.labels {
                    assert_within(what, text, &label.span);
                }
            }
        }
    }
}

#[test]
fn single_character_edits_never_panic_and_stay_in_bounds() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut edits = 0;
    for (name, text) in corpus() {
        parse_and_check(&name, &text);
        let boundaries: Vec<usize> = text
            .char_indices()
            .map(|(i, _)| i)
            .chain([text.len()])
            .collect();
        let samples = 40.min(boundaries.len());
        for _ in 0..samples {
            let at = boundaries[rng.below(boundaries.len())];
            // Delete the character at `at` (if any).
            if let Some(c) = text[at..].chars().next() {
                let mut edited = text.clone();
                edited.replace_range(at..at + c.len_utf8(), "");
                parse_and_check(&format!("{name}, deleting byte {at}"), &edited);
                edits += 1;
            }
            // Insert one of the troublesome characters.
            let insert = INSERTIONS[rng.below(INSERTIONS.len())];
            let mut edited = text.clone();
            edited.insert_str(at, insert);
            parse_and_check(
                &format!("{name}, inserting {insert:?} at byte {at}"),
                &edited,
            );
            edits += 1;
        }
    }
    assert!(edits > 1000, "only {edits} edits");
}
