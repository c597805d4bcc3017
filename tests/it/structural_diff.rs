//! `onnxtxt::diff::structural_diff` on the pairs of models in
//! `tests/structural/`: `NAME.old.onnxtxt` and `NAME.new.onnxtxt`, whose
//! report is the snapshot `snapshots/structural_NAME.snap`. A line
//! `# options: ignore_renames ignore_node_order` in the old model sets
//! those options. And the two ways of `onnxtxt diff`, text and
//! `--structural`, agree on whether two models differ.

use std::path::Path;

use onnxtxt::diff::{diff_models, structural_diff, DiffOptions};
use onnxtxt::proto::{GraphProto, ModelProto, NodeProto, StringStringEntryProto, TensorProto};

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

/// The models the agreement test edits: the examples, the pairs above,
/// and models `smith` makes from seeds (subgraphs, functions, every
/// field).
fn models_to_edit() -> Vec<(String, ModelProto)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut models = Vec::new();
    for folder in ["examples", "tests/structural"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(folder))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "onnxtxt"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.strip_prefix(root).unwrap().display().to_string();
            models.push((name, onnxtxt::parse_model(&text).unwrap()));
        }
    }
    for seed in 0..40 {
        models.push((
            format!("smith seed {seed}"),
            onnxtxt::smith::model_from_seed(seed),
        ));
    }
    models
}

/// A small deterministic generator of choices (xorshift).
struct Choices(u64);

impl Choices {
    /// An index below `len` (`len` > 0).
    fn below(&mut self, len: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % len as u64) as usize
    }

    /// One of the items for which `accept` holds, if any.
    fn pick<'m, T>(
        &mut self,
        items: &'m mut [T],
        accept: impl Fn(&T) -> bool,
    ) -> Option<&'m mut T> {
        let fitting: Vec<usize> = (0..items.len()).filter(|&i| accept(&items[i])).collect();
        if fitting.is_empty() {
            return None;
        }
        let at = fitting[self.below(fitting.len())];
        Some(&mut items[at])
    }
}

/// One kind of edit: changes the model and says whether it could.
type Edit = fn(&mut ModelProto, &mut Choices) -> bool;

fn graph(model: &mut ModelProto) -> Option<&mut GraphProto> {
    model.graph.as_mut()
}

fn node<'m>(
    model: &'m mut ModelProto,
    c: &mut Choices,
    accept: impl Fn(&NodeProto) -> bool,
) -> Option<&'m mut NodeProto> {
    c.pick(&mut graph(model)?.node, accept)
}

fn named(n: &NodeProto) -> bool {
    n.name.as_deref().is_some_and(|s| !s.is_empty())
}

fn entry(key: &str) -> StringStringEntryProto {
    StringStringEntryProto {
        key: Some(key.into()),
        value: Some("edited".into()),
    }
}

/// Every kind of edit the agreement test makes, named.
const EDITS: &[(&str, Edit)] = &[
    ("rename a node", |m, c| {
        node(m, c, named)
            .map(|n| n.name = Some("renamed_node".into()))
            .is_some()
    }),
    ("remove a node's label", |m, c| {
        node(m, c, named).map(|n| n.name = None).is_some()
    }),
    ("label a node", |m, c| {
        node(m, c, |n| !named(n))
            .map(|n| n.name = Some("labelled".into()))
            .is_some()
    }),
    ("rename the graph", |m, _| {
        graph(m)
            .map(|g| g.name = Some("renamed_graph".into()))
            .is_some()
    }),
    ("rename a subgraph", |m, c| {
        let Some(n) = node(m, c, |n| n.attribute.iter().any(|a| a.g.is_some())) else {
            return false;
        };
        let a = n.attribute.iter_mut().find(|a| a.g.is_some()).unwrap();
        a.g.as_mut().unwrap().name = Some("renamed_subgraph".into());
        true
    }),
    ("rename a function", |m, c| {
        c.pick(&mut m.functions, |_| true)
            .map(|f| f.name = Some("renamed_function".into()))
            .is_some()
    }),
    ("change the model's doc string", |m, _| {
        m.doc_string = Some("edited".into());
        true
    }),
    ("change the graph's doc string", |m, _| {
        graph(m)
            .map(|g| g.doc_string = Some("edited".into()))
            .is_some()
    }),
    ("change a node's doc string", |m, c| {
        node(m, c, |_| true)
            .map(|n| n.doc_string = Some("edited".into()))
            .is_some()
    }),
    ("change a function's doc string", |m, c| {
        c.pick(&mut m.functions, |_| true)
            .map(|f| f.doc_string = Some("edited".into()))
            .is_some()
    }),
    ("change an initializer's doc string", |m, c| {
        graph(m)
            .and_then(|g| c.pick(&mut g.initializer, |_| true))
            .map(|t| t.doc_string = Some("edited".into()))
            .is_some()
    }),
    ("change an input's doc string", |m, c| {
        graph(m)
            .and_then(|g| c.pick(&mut g.input, |_| true))
            .map(|v| v.doc_string = Some("edited".into()))
            .is_some()
    }),
    ("change the model's metadata", |m, _| {
        m.metadata_props.push(entry("model"));
        true
    }),
    ("change the graph's metadata", |m, _| {
        graph(m)
            .map(|g| g.metadata_props.push(entry("graph")))
            .is_some()
    }),
    ("change a node's metadata", |m, c| {
        node(m, c, |_| true)
            .map(|n| n.metadata_props.push(entry("node")))
            .is_some()
    }),
    ("change an initializer's metadata", |m, c| {
        graph(m)
            .and_then(|g| c.pick(&mut g.initializer, |_| true))
            .map(|t| t.metadata_props.push(entry("tensor")))
            .is_some()
    }),
    ("store an initializer as raw_data", |m, c| {
        let Some(t) =
            graph(m).and_then(|g| c.pick(&mut g.initializer, |t| !t.float_data.is_empty()))
        else {
            return false;
        };
        let raw = t.float_data.iter().flat_map(|x| x.to_le_bytes()).collect();
        t.float_data.clear();
        t.raw_data = Some(raw);
        true
    }),
    ("store an initializer in float_data", |m, c| {
        let raw_floats = |t: &TensorProto| t.data_type == Some(1) && t.raw_data.is_some();
        let Some(t) = graph(m).and_then(|g| c.pick(&mut g.initializer, raw_floats)) else {
            return false;
        };
        let raw = t.raw_data.take().unwrap();
        t.float_data = raw
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        true
    }),
    ("change an initializer's value", |m, c| {
        let Some(t) =
            graph(m).and_then(|g| c.pick(&mut g.initializer, |t| !t.float_data.is_empty()))
        else {
            return false;
        };
        let at = c.below(t.float_data.len());
        t.float_data[at] = t.float_data[at] * 2.0 + 1.0;
        true
    }),
    ("change an attribute", |m, c| {
        let Some(n) = node(m, c, |n| n.attribute.iter().any(|a| a.i.is_some())) else {
            return false;
        };
        let a = n.attribute.iter_mut().find(|a| a.i.is_some()).unwrap();
        a.i = Some(a.i.unwrap().wrapping_add(1));
        true
    }),
    ("change an operator", |m, c| {
        node(m, c, |n| n.op_type.as_deref() != Some("Identity"))
            .map(|n| n.op_type = Some("Identity".into()))
            .is_some()
    }),
    ("remove a node", |m, c| {
        let Some(g) = graph(m).filter(|g| !g.node.is_empty()) else {
            return false;
        };
        let at = c.below(g.node.len());
        g.node.remove(at);
        true
    }),
    ("rename a value", |m, c| {
        let Some(g) = graph(m) else {
            return false;
        };
        let Some(old) = c
            .pick(&mut g.node, |n| {
                n.output.first().is_some_and(|o| !o.is_empty())
            })
            .map(|n| n.output[0].clone())
        else {
            return false;
        };
        for n in &mut g.node {
            for name in n.input.iter_mut().chain(&mut n.output) {
                if *name == old {
                    *name = "renamed_value".into();
                }
            }
        }
        for v in g.output.iter_mut().chain(&mut g.value_info) {
            if v.name.as_deref() == Some(old.as_str()) {
                v.name = Some("renamed_value".into());
            }
        }
        true
    }),
    ("change the producer", |m, _| {
        m.producer_name = Some("edited".into());
        true
    }),
    ("change an opset version", |m, c| {
        c.pick(&mut m.opset_import, |_| true)
            .map(|o| o.version = Some(o.version.unwrap_or(0).wrapping_add(1)))
            .is_some()
    }),
    ("change a value info's type", |m, c| {
        graph(m)
            .and_then(|g| c.pick(&mut g.value_info, |v| v.r#type.is_some()))
            .map(|v| v.r#type = None)
            .is_some()
    }),
    ("add training info", |m, _| {
        m.training_info.push(Default::default());
        true
    }),
];

/// `onnxtxt diff` and `onnxtxt diff --structural` say "different" for the
/// same pairs: over every model above, each kind of edit made at a place
/// chosen at random, the structural report is empty exactly when the text
/// diff is, and it names the change (not only that there is one).
#[test]
fn the_text_and_structural_diffs_agree_after_any_one_edit() {
    let options = DiffOptions::default();
    let mut ignore_storage = DiffOptions::default();
    ignore_storage.ignore_storage = true;
    let mut made = vec![0; EDITS.len()];
    for (seed, (name, model)) in models_to_edit().into_iter().enumerate() {
        assert!(diff_models(&model, &model, &options).is_empty(), "{name}");
        let same = structural_diff(&model, &model, &options);
        assert!(same.is_empty(), "{name}: {same:#?}");
        for (kind, (what, edit)) in EDITS.iter().enumerate() {
            let mut new = model.clone();
            let mut choices =
                Choices(0x9e37_79b9_7f4a_7c15 ^ (seed * EDITS.len() + kind + 1) as u64);
            if !edit(&mut new, &mut choices) {
                continue;
            }
            let text_differs = !diff_models(&model, &new, &options).is_empty();
            let report: Vec<String> = structural_diff(&model, &new, &options)
                .iter()
                .map(ToString::to_string)
                .collect();
            assert_eq!(
                text_differs,
                !report.is_empty(),
                "{name}, {what}: {report:#?}"
            );
            assert!(
                !report.iter().any(|line| line.contains("changed elsewhere")),
                "{name}, {what}: not named: {report:#?}"
            );
            // And when storage is ignored.
            assert_eq!(
                diff_models(&model, &new, &ignore_storage).is_empty(),
                structural_diff(&model, &new, &ignore_storage).is_empty(),
                "{name}, {what}, ignoring storage"
            );
            made[kind] += usize::from(text_differs);
        }
    }
    for ((what, _), count) in EDITS.iter().zip(made) {
        assert!(count > 0, "no model had room for: {what}");
    }
}

/// What `work` gives, if it takes less than `seconds` (in a debug build,
/// on a loaded machine: a bound on the algorithm, not a benchmark).
fn within<T: Send + 'static>(seconds: u64, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || send.send(work()));
    receive
        .recv_timeout(std::time::Duration::from_secs(seconds))
        .unwrap_or_else(|_| panic!("not done in {seconds} s"))
}

/// A chain of `n` unnamed `Relu`s from `{prefix}0` to `{prefix}{n}`, in
/// the order `order` gives.
fn chain(prefix: &str, n: usize, order: impl Fn(usize) -> usize) -> String {
    let mut text = format!(
        "<ir_version: 10, opset_import: [\"\": 21]>\nmain (float[4] {prefix}0) => (float[4] {prefix}{n}) {{\n"
    );
    for k in 0..n {
        let i = order(k);
        text.push_str(&format!("  {prefix}{} = Relu ({prefix}{i})\n", i + 1));
    }
    text.push_str("}\n");
    text
}

/// Every value of a 100,000-node model renamed: every line changed. Myers'
/// algorithm alone takes time in lines × changes (hours here); the diff
/// takes a few seconds.
#[test]
fn a_diff_where_every_line_changed_is_near_linear() {
    let n = 100_000;
    let (old, new) = (chain("v", n, |k| k), chain("w", n, |k| k));
    let hunks = within(120, move || onnxtxt::diff::diff_texts(&old, &new, 3));
    assert_eq!(hunks.len(), 1);
    // Each node and the graph's first line removed and added, between the
    // model's header and the closing brace.
    assert_eq!(hunks[0].lines.len(), 2 * (n + 1) + 2);
}

/// 40,000 unnamed nodes in another order, matched whatever their order:
/// each by the names it shares, not by a search of all the others.
#[test]
fn matching_nodes_whatever_their_order_is_near_linear() {
    let n = 40_000;
    // A permutation: k * 7919 mod n (7919 is prime, n is not its multiple).
    let old = onnxtxt::parse_model(&chain("v", n, |k| k)).unwrap();
    let new = onnxtxt::parse_model(&chain("v", n, |k| k * 7919 % n)).unwrap();
    let mut options = DiffOptions::default();
    options.ignore_node_order = true;
    let changes = within(120, move || structural_diff(&old, &new, &options));
    assert!(changes.is_empty(), "{:?}", &changes[..changes.len().min(3)]);
}
