//! onnx's own backend test cases through text, byte for byte:
//! `conformance/testcases.py` writes them with onnx 1.23.2
//! (`python -m onnx.backend.test.cmd_tools generate-data`) to
//! `ONNXTXT_TESTCASES` (default `target/testcases`, relative to the crate
//! root), and these tests check that
//!
//! - `files`: every data file (`input_K.pb`, `output_K.pb`), read by its
//!   content alone, prints as text that parses back to the same bytes;
//! - `cases`: every case directory (one with a `model.onnx`) prints as one
//!   text that parses back to the same files, the same bytes, nothing more.
//!
//! Each ends with a line `testcases(<check>): N passed, M failed`. Ignored
//! in `cargo test` (they fail, not pass, when the cases are missing);
//! `bash conformance/run.sh` runs them. Beside them, run by `cargo test`:
//! data files mutated at random never make the reader panic, and what they
//! read as prints as text that parses back to it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use onnxtxt::testcase::{decode_value, TestCase};

/// Where the generated cases are.
fn cases_root() -> PathBuf {
    let root = std::env::var_os("ONNXTXT_TESTCASES")
        .map_or_else(|| PathBuf::from("target/testcases"), PathBuf::from);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
    assert!(
        root.is_dir(),
        "{} is missing: run `bash conformance/run.sh` (or conformance/testcases.py)",
        root.display()
    );
    root
}

/// Every file under `dir`, relative to it, with its bytes.
pub(crate) fn files_under(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.insert(path.strip_prefix(dir).unwrap().to_owned(), bytes);
            }
        }
    }
    files
}

/// The case directories: the folders holding a `model.onnx`.
fn case_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = files_under(root)
        .into_keys()
        .filter(|file| file.file_name() == Some("model.onnx".as_ref()))
        .filter_map(|file| file.parent().map(|dir| root.join(dir)))
        .collect();
    dirs.sort();
    dirs
}

/// Prints the tally, and fails with the first misses when there are any.
fn report(check: &str, passed: usize, failed: &[String]) {
    for miss in failed.iter().take(20) {
        eprintln!("  {miss}");
    }
    println!(
        "testcases({check}): {passed} passed, {} failed",
        failed.len()
    );
    assert!(failed.is_empty(), "{} {check} failed", failed.len());
    assert!(passed > 0, "no {check} found");
}

#[test]
#[ignore = "needs the generated test cases: bash conformance/run.sh"]
fn files() {
    let root = cases_root();
    let (mut passed, mut failed) = (0, Vec::new());
    for (file, bytes) in files_under(&root) {
        if file.extension() != Some("pb".as_ref()) {
            continue;
        }
        let round_trip = decode_value(&bytes)
            .map_err(|e| format!("does not decode: {e}"))
            .and_then(|decoded| {
                let text = onnxtxt::to_text(&decoded.value);
                onnxtxt::parse_value(&text)
                    .map_err(|e| format!("its text does not parse: {e}\n{text}"))
            })
            .and_then(|value| {
                (value.encode_to_vec() == bytes)
                    .then_some(())
                    .ok_or_else(|| "parses back to other bytes".to_owned())
            });
        match round_trip {
            Ok(()) => passed += 1,
            Err(why) => failed.push(format!("{}: {why}", file.display())),
        }
    }
    report("files", passed, &failed);
}

#[test]
#[ignore = "needs the generated test cases: bash conformance/run.sh"]
fn cases() {
    let root = cases_root();
    let (mut passed, mut failed) = (0, Vec::new());
    for dir in case_dirs(&root) {
        let name = dir.strip_prefix(&root).unwrap().display().to_string();
        let round_trip = TestCase::read_dir(&dir)
            .map_err(|e| format!("cannot be read: {e}"))
            .and_then(|case| {
                let text = onnxtxt::to_text(&case);
                TestCase::parse(&text).map_err(|e| format!("its text does not parse: {e}"))
            })
            .and_then(|case| {
                let written: BTreeMap<PathBuf, Vec<u8>> = case.files().into_iter().collect();
                let original = files_under(&dir);
                match written.keys().ne(original.keys()) {
                    true => Err(format!(
                        "other files: {:?} instead of {:?}",
                        written.keys().collect::<Vec<_>>(),
                        original.keys().collect::<Vec<_>>()
                    )),
                    false => match written
                        .iter()
                        .find(|(file, bytes)| original[*file] != **bytes)
                    {
                        Some((file, _)) => Err(format!("{} has other bytes", file.display())),
                        None => Ok(()),
                    },
                }
            });
        match round_trip {
            Ok(()) => passed += 1,
            Err(why) => failed.push(format!("{name}: {why}")),
        }
    }
    report("cases", passed, &failed);
}

/// Data values of every kind, nested, as seeds for the mutations below.
const SEEDS: [&str; 5] = [
    "@<raw: true> float[2,2] x = {1, 2, 3, 4}",
    r#"seq(seq) xs = [seq(tensor) [int64[2] {1, 2}, string[1] {"a"}], seq(tensor) []]"#,
    r#"map(string) m = {string_keys: ["a", "b"], values: seq(tensor) [float {1}, float {2}]}"#,
    "optional(optional) o = [optional(tensor) [double[1] {0.5}]]",
    "seq(sparse_tensor) s = [sparse_tensor[4] {values: float[1] {1}, indices: int64[1] {2}}]",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// Any bytes: reading them as a data file never panics, and what
    /// reads prints as text that parses back to the same value, compared
    /// by its encoding (a flipped bit can make a NaN, which `==` on the
    /// values would call different from itself).
    #[test]
    fn any_bytes_read_as_data_print_and_parse_back(
        seed in 0..SEEDS.len(),
        flips in proptest::collection::vec((proptest::num::usize::ANY, proptest::num::u8::ANY), 0..4),
        cut in proptest::option::of(proptest::num::usize::ANY),
    ) {
        let mut bytes = onnxtxt::parse_value(SEEDS[seed]).unwrap().encode_to_vec();
        for (at, byte) in flips {
            let at = at % bytes.len();
            bytes[at] ^= byte;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut % (bytes.len() + 1));
        }
        if let Ok(decoded) = decode_value(&bytes) {
            let text = onnxtxt::to_text(&decoded.value);
            let parsed = onnxtxt::parse_value(&text);
            proptest::prop_assert_eq!(
                parsed.ok().map(|value| value.encode_to_vec()),
                Some(decoded.value.encode_to_vec()),
                "{}",
                text
            );
        }
    }
}

/// The case that made the property above compare encodings: a float of a
/// map's values turned into a NaN with a payload, which prints with its
/// bits and must parse back to them.
#[test]
fn a_nan_with_a_payload_read_from_data_prints_and_parses_back_to_its_bits() {
    let mut bytes = onnxtxt::parse_value(SEEDS[2]).unwrap().encode_to_vec();
    let one = 1f32.to_le_bytes();
    let at = bytes.windows(4).position(|w| w == one).unwrap();
    bytes[at..at + 4].copy_from_slice(&0x7f80_0001u32.to_le_bytes());
    let decoded = decode_value(&bytes).unwrap();
    let text = onnxtxt::to_text(&decoded.value);
    assert!(text.contains("{nan}"), "{text}");
    let parsed = onnxtxt::parse_value(&text).unwrap();
    assert_eq!(
        parsed.encode_to_vec(),
        decoded.value.encode_to_vec(),
        "{text}"
    );
}
