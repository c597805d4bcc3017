//! One small edit of a model gives one small diff: the layout depends on
//! the structure, not on the width of the text, so a renamed node, a
//! changed attribute or weight is one changed line (−1/+1), an inserted
//! node one added line, and a renamed value changes only the lines that
//! use it. The structural diff names the part that changed (a renamed
//! node too). On `examples/mlp.onnxtxt` always, and on the model zoo
//! samples of the conformance corpus (`#[ignore]`d: run by
//! `conformance/run.sh`).

use onnxtxt::diff::{diff_texts, structural_diff, DiffOptions, LineKind};
use onnxtxt::proto::attribute_proto::AttributeType;
use onnxtxt::proto::{ModelProto, NodeProto};

/// Lines removed and added by the change from `old` to `new`, as
/// printed.
fn changed_lines(old: &ModelProto, new: &ModelProto) -> (Vec<String>, Vec<String>) {
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for hunk in diff_texts(&onnxtxt::to_text(old), &onnxtxt::to_text(new), 0) {
        for line in hunk.lines {
            match line.kind {
                LineKind::Removed => removed.push(line.text),
                LineKind::Added => added.push(line.text),
                _ => {}
            }
        }
    }
    (removed, added)
}

/// The structural report, one line per change.
fn report(old: &ModelProto, new: &ModelProto) -> Vec<String> {
    structural_diff(old, new, &DiffOptions::default())
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// The index of the node nearest the middle for which `accept` holds.
fn middle(model: &ModelProto, accept: impl Fn(&NodeProto) -> bool) -> Option<usize> {
    let nodes = &model.graph.as_ref()?.node;
    let half = nodes.len() / 2;
    (0..nodes.len())
        .filter(|&i| accept(&nodes[i]))
        .min_by_key(|&i| i.abs_diff(half))
}

fn nodes(model: &mut ModelProto) -> &mut Vec<NodeProto> {
    &mut model.graph.as_mut().unwrap().node
}

/// Applies each edit the model has room for to `model` and checks the
/// size of its diff; returns how many edits were made.
fn check_single_edits(name: &str, model: &ModelProto) -> usize {
    let mut edits = 0;
    let mut check = |what: &str, new: ModelProto, removed: usize, added: usize| {
        let (r, a) = changed_lines(model, &new);
        assert_eq!(
            (r.len(), a.len()),
            (removed, added),
            "{name}, {what}: -{r:#?} +{a:#?}"
        );
        edits += 1;
    };
    // Rename a node.
    if let Some(i) = middle(model, |n| n.name.as_deref().is_some_and(|s| !s.is_empty())) {
        let mut new = model.clone();
        nodes(&mut new)[i].name = Some("renamed_node".into());
        let renamed = report(model, &new);
        assert!(
            renamed.len() == 1 && renamed[0].ends_with(" renamed to `renamed_node`"),
            "{name}: {renamed:?}"
        );
        check("rename a node", new, 1, 1);
    }
    // Change an attribute.
    let numeric = |n: &NodeProto| {
        n.attribute.iter().position(|a| {
            a.r#type == Some(AttributeType::Int as i32)
                || a.r#type == Some(AttributeType::Ints as i32)
        })
    };
    if let Some(i) = middle(model, |n| numeric(n).is_some()) {
        let mut new = model.clone();
        let node = &mut nodes(&mut new)[i];
        let at = numeric(node).unwrap();
        let a = &mut node.attribute[at];
        match a.ints.first_mut() {
            Some(first) => *first += 1,
            None => a.i = Some(a.i.unwrap_or(0) + 1),
        }
        check("change an attribute", new, 1, 1);
    }
    // Change one weight: the middle value of the largest float tensor.
    let graph = model.graph.as_ref().unwrap();
    let largest = (0..graph.initializer.len())
        .filter(|&i| graph.initializer[i].data_type == Some(1))
        .max_by_key(|&i| {
            let t = &graph.initializer[i];
            t.float_data.len() + t.raw_data.as_ref().map_or(0, |r| r.len() / 4)
        });
    if let Some(t) = largest {
        let mut new = model.clone();
        let tensor = &mut new.graph.as_mut().unwrap().initializer[t];
        if let Some(raw) = tensor.raw_data.as_mut().filter(|r| r.len() >= 4) {
            let at = raw.len() / 8 * 4;
            let value = f32::from_le_bytes(raw[at..at + 4].try_into().unwrap());
            raw[at..at + 4].copy_from_slice(&(value * 2.0 + 1.0).to_le_bytes());
            check("change one weight", new, 1, 1);
        } else if !tensor.float_data.is_empty() {
            let at = tensor.float_data.len() / 2;
            tensor.float_data[at] = tensor.float_data[at] * 2.0 + 1.0;
            check("change one weight", new, 1, 1);
        }
    }
    // Insert a node.
    if let Some(i) = middle(model, |n| !n.output.is_empty()) {
        let mut new = model.clone();
        let inserted = NodeProto {
            input: vec![model.graph.as_ref().unwrap().node[i].output[0].clone()],
            output: vec!["inserted_copy".into()],
            op_type: Some("Identity".into()),
            ..Default::default()
        };
        nodes(&mut new).insert(i + 1, inserted);
        check("insert a node", new, 0, 1);
    }
    // Rename a value: only the lines that use it change.
    if let Some(i) = middle(model, |n| n.output.first().is_some_and(|o| !o.is_empty())) {
        let mut new = model.clone();
        let old_name = model.graph.as_ref().unwrap().node[i].output[0].clone();
        for node in nodes(&mut new) {
            for name in node.input.iter_mut().chain(&mut node.output) {
                if *name == old_name {
                    *name = "renamed_value".into();
                }
            }
        }
        let (removed, added) = changed_lines(model, &new);
        assert_eq!(
            removed.len(),
            added.len(),
            "{name}: -{removed:#?} +{added:#?}"
        );
        assert!(
            added.iter().all(|l| l.contains("renamed_value")),
            "{name}: {added:#?}"
        );
        edits += 1;
    }
    edits
}

#[test]
fn one_edit_of_the_example_is_one_line() {
    let model = onnxtxt::parse_model(include_str!("../../examples/mlp.onnxtxt")).unwrap();
    assert_eq!(check_single_edits("mlp", &model), 5);
    // A weight that gets longer does not push its neighbours to the next line.
    let text = include_str!("../../examples/mlp.onnxtxt");
    let longer = text.replacen("0.3, 0.05,", "0.3, -0.123456789,", 1);
    assert_ne!(longer, text);
    let new = onnxtxt::parse_model(&longer).unwrap();
    let (removed, added) = changed_lines(&model, &new);
    assert_eq!(
        (removed.len(), added.len()),
        (1, 1),
        "{removed:#?} {added:#?}"
    );
    assert_eq!(
        report(&model, &new),
        ["graph mlp: initializer `w1`: 1 value changed, max abs diff 0.173457 (w1[0,3]: 0.05 → -0.12345679)"]
    );
}

/// The folder of the corpus's model zoo samples ($ONNXTXT_CORPUS, by
/// default `target/conformance`, then `wheel/light`).
fn zoo() -> std::path::PathBuf {
    let corpus = std::env::var("ONNXTXT_CORPUS").unwrap_or_else(|_| "target/conformance".into());
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(corpus)
        .join("wheel/light")
}

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn one_edit_of_a_zoo_model_is_one_line() {
    let folder = zoo();
    let mut models: Vec<_> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "onnx"))
        .collect();
    models.sort();
    assert!(models.len() >= 8, "{models:?}");
    for path in models {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let model = onnxtxt::decode_model(&std::fs::read(&path).unwrap()).unwrap();
        let edits = check_single_edits(&name, &model);
        assert!(edits >= 4, "{name}: {edits} edits");
    }
}

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn the_structural_diff_names_the_node_and_attribute_of_a_zoo_model() {
    let path = zoo().join("light_resnet50.onnx");
    let model = onnxtxt::decode_model(&std::fs::read(&path).unwrap()).unwrap();
    let mut new = model.clone();
    let node = nodes(&mut new)
        .iter_mut()
        .find(|n| n.name.as_deref() == Some("n39"))
        .unwrap();
    let pads = node
        .attribute
        .iter_mut()
        .find(|a| a.name.as_deref() == Some("pads"))
        .unwrap();
    let old_pads = format!("{:?}", pads.ints);
    pads.ints.iter_mut().for_each(|p| *p += 1);
    let new_pads = format!("{:?}", pads.ints);
    assert_eq!(
        report(&model, &new),
        [format!(
            "graph resnet50: node `n39`: attribute `pads` {old_pads} → {new_pads}"
        )]
    );
}
