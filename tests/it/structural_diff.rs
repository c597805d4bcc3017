//! `onnxtxt::diff::structural_diff` on the pairs of models in
//! `tests/structural/`: `NAME.old.onnxtxt` and `NAME.new.onnxtxt`, whose
//! report is the snapshot `snapshots/structural_NAME.snap`. A line
//! `# options: ignore_renames ignore_node_order` in the old model sets
//! those options.

use std::path::Path;

use onnxtxt::diff::{structural_diff, DiffOptions};

#[test]
fn every_pair_has_its_report() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/structural");
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            Some(name.strip_suffix(".old.onnxtxt")?.to_owned())
        })
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    for name in names {
        let read = |side: &str| {
            std::fs::read_to_string(folder.join(format!("{name}.{side}.onnxtxt"))).unwrap()
        };
        let old_text = read("old");
        let old = onnxtxt::parse_model(&old_text).unwrap();
        let new = onnxtxt::parse_model(&read("new")).unwrap();
        let mut options = DiffOptions::default();
        let flags = old_text
            .lines()
            .find_map(|l| l.strip_prefix("# options:"))
            .unwrap_or("");
        options.ignore_renames = flags.contains("ignore_renames");
        options.ignore_node_order = flags.contains("ignore_node_order");
        let report: Vec<String> = structural_diff(&old, &new, &options)
            .iter()
            .map(ToString::to_string)
            .collect();
        insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, description => format!("tests/structural/{name}.*.onnxtxt")}, {
            insta::assert_snapshot!(format!("structural_{name}"), report.join("\n"));
        });
        // The same models are the same.
        assert!(structural_diff(&old, &old, &options).is_empty(), "{name}");
    }
}
