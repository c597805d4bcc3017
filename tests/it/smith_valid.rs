//! `onnxtxt::smith::valid_model` over seeds: every operator the generator
//! knows appears (each family: convolutions, poolings, normalizations,
//! recurrences, sequences, optionals, quantization, random, text, control
//! flow...), `onnxtxt check` finds no error in any model, and the config's
//! operator choices are kept even when they allow a single operator.

use std::collections::BTreeSet;

use onnxtxt::check::{check_model, Severity};
use onnxtxt::proto::{GraphProto, ModelProto};
use onnxtxt::smith::{operator_names, valid_model_from_seed, Config};

/// The operators of a graph and its subgraphs.
fn operators(graph: &GraphProto, found: &mut BTreeSet<String>) {
    for node in &graph.node {
        found.insert(node.op_type.clone().unwrap_or_default());
        for attribute in &node.attribute {
            for g in attribute.g.as_deref().into_iter().chain(&attribute.graphs) {
                operators(g, found);
            }
        }
    }
}

/// The error findings of `onnxtxt check` on a model.
fn errors(model: &ModelProto) -> Vec<String> {
    check_model(model)
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| f.diagnostic.message)
        .collect()
}

/// Every operator of the generator appears in the models of 600 seeds at
/// any opset of the default config and 150 at the latest (where the
/// newest operators are), and check finds no error in any of them.
#[test]
fn every_operator_appears_and_checks() {
    let latest = Config {
        min_opset: Config::default().max_opset,
        ..Config::default()
    };
    let mut found = BTreeSet::new();
    for (config, seeds) in [(Config::default(), 0..600), (latest, 600..750)] {
        for seed in seeds {
            let model = valid_model_from_seed(seed, &config);
            let errors = errors(&model);
            assert!(errors.is_empty(), "seed {seed}: {errors:?}");
            operators(model.graph.as_ref().unwrap(), &mut found);
        }
    }
    let missing: Vec<&str> = operator_names().filter(|op| !found.contains(*op)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    for family in [
        "Conv",
        "MaxPool",
        "LSTM",
        "SequenceAt",
        "OptionalGetElement",
        "Loop",
        "Scan",
    ] {
        assert!(found.contains(family), "{family}");
    }
}

/// A config that allows one operator gets models of it (the generator
/// draws among what the config allows), and no subgraph when subgraphs
/// are off.
#[test]
fn narrow_configs_are_kept() {
    for op in ["Relu", "Conv", "Gather", "SequenceConstruct"] {
        let config = Config {
            allowed_operators: vec![op.into()],
            ..Config::default()
        };
        for seed in 0..20 {
            let model = valid_model_from_seed(seed, &config);
            let mut found = BTreeSet::new();
            operators(model.graph.as_ref().unwrap(), &mut found);
            assert_eq!(found, BTreeSet::from([op.to_owned()]), "seed {seed}");
        }
    }
    let config = Config {
        subgraphs: false,
        ..Config::default()
    };
    for seed in 0..200 {
        let model = valid_model_from_seed(seed, &config);
        let graph = model.graph.unwrap();
        for node in &graph.node {
            assert!(
                node.attribute.iter().all(|a| a.g.is_none()),
                "seed {seed}: {:?}",
                node.op_type
            );
        }
    }
}
