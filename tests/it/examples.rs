//! Tests of the models in `examples/`, found by listing the folder so that a
//! new example is covered as soon as it is added: each parses, has no
//! `check` findings (neither errors nor warnings), round-trips
//! (`roundtrip::model_round_trips`: print, parse back, same bytes), is already in
//! the canonical style (`onnxtxt::format` leaves it as it is, comments
//! included), and is listed in docs/syntax.md. That the reference parser and
//! checker accept them is `conformance/examples.py`'s job.

use std::path::{Path, PathBuf};

use onnxtxt::proto::ModelProto;

/// The `examples/*.onnxtxt` files, sorted, with their text.
fn examples() -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/ is readable")
        .map(|entry| entry.expect("examples/ lists").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "onnxtxt"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no .onnxtxt file in {}", dir.display());
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("an example is UTF-8 text");
            (path, text)
        })
        .collect()
}

/// The file name of an example, for messages.
fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn parse(path: &Path, text: &str) -> ModelProto {
    onnxtxt::parse_model(text).unwrap_or_else(|e| panic!("{} does not parse: {e:?}", name(path)))
}

#[test]
fn examples_have_no_check_findings() {
    for (path, text) in examples() {
        let findings = onnxtxt::check_model(&parse(&path, &text));
        assert!(
            findings.is_empty(),
            "{} has check findings: {findings:#?}",
            name(&path)
        );
    }
}

#[test]
#[cfg(feature = "smith")]
fn examples_round_trip() {
    for (path, text) in examples() {
        if let Err(broken) = onnxtxt::roundtrip::model_round_trips(&parse(&path, &text)) {
            panic!("{} does not round-trip: {broken}", name(&path));
        }
    }
}

#[test]
fn examples_are_canonical() {
    for (path, text) in examples() {
        let formatted = onnxtxt::format(&text)
            .unwrap_or_else(|e| panic!("{} does not format: {e:?}", name(&path)));
        assert!(
            formatted == text,
            "{} is not in the canonical style; formatted, it reads:\n{formatted}",
            name(&path)
        );
    }
}

#[test]
fn examples_are_listed_in_the_syntax_page() {
    let page = include_str!("../../docs/syntax.md");
    for (path, _) in examples() {
        let listed = format!("`examples/{}`", name(&path));
        assert!(
            page.contains(&listed),
            "docs/syntax.md does not mention {listed}"
        );
    }
}
