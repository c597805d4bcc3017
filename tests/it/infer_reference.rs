//! Type and shape inference against the reference, value by value.
//!
//! `conformance/infer_reference.py` writes, for every model of the corpus,
//! what `onnx.shape_inference.infer_shapes(m, strict_mode=True,
//! data_prop=True)` makes of it (or its error), whether
//! `onnx.checker.check_model(m, full_check=True)` accepts it, and the same
//! inference of the model stripped of its declared value types (the main
//! graph's `value_info` and output types). These tests hold onnxtxt's
//! inference (`onnxtxt::infer::fill_value_info`) against that:
//!
//! - `inference_agrees_with_the_reference`: on the originals and on the
//!   stripped models, each value's type after inference (graph outputs,
//!   value infos, subgraph inputs) is compared with the reference's: they
//!   agree, onnxtxt knows less (a dimension or element type the reference
//!   has), knows more, or they disagree. Twice: with data propagation as
//!   onnx does it (`Propagation::Onnx`: at least `MIN_AGREEMENT` must
//!   agree), and with onnxtxt's extended propagation (the default, which
//!   knows more). Prints the shares, a table by operator of what is not
//!   agreed, and every disagreement; fails on a disagreement or an error
//!   where the reference has none.
//! - `declared_outputs_are_reproduced`: inferred from the inputs alone (the
//!   stripped models), how many of the outputs the node test models declare
//!   onnxtxt reproduces exactly; fails if one is contradicted, or if fewer
//!   than `MIN_REPRODUCED` of those the inputs' types determine are
//!   reproduced. An output whose shape depends on the inputs' values
//!   (`axes`, `sizes`, `split` given at run time) is told apart by
//!   inferring the model again with the test's input values as constants.
//! - `check_is_silent_where_the_checker_accepts`: `onnxtxt::check_model`
//!   reports no error on a model `onnx.checker` accepts.
//!
//! They are `#[ignore]`d (they need the corpus): `conformance/run.sh` runs
//! them. Environment: `ONNXTXT_CORPUS` (default `target/conformance`),
//! `ONNXTXT_INFERENCE` (default `target/inference`), both relative to the
//! crate root; `ONNXTXT_CONFORMANCE_FILTER` narrows to cases whose name
//! contains it; `ONNXTXT_INFER_DUMP` (a case name) prints every value of
//! that case, the reference's type and onnxtxt's side by side.

mod compare;
mod corpus;
mod report;
mod values;

use compare::{compare, Verdict};
use corpus::{Corpus, ModelCase};
use report::Tally;
use values::{declared_symbols, values_of, Normalize};

use onnxtxt::infer::{self, Options, Propagation};
use onnxtxt::proto::ModelProto;

/// The share of values that must agree with the reference when inference
/// propagates data as onnx does.
const MIN_AGREEMENT: f64 = 0.98;

/// The share of declared outputs that must be reproduced from the inputs'
/// types, of those the types determine.
const MIN_REPRODUCED: f64 = 0.98;

/// Operators whose outputs' sizes depend on the elements of their inputs,
/// which shape inference does not compute (onnx's neither): how many
/// elements are non-zero, kept, unique, selected, how many iterations a
/// loop runs, what an image file holds. A declared output computed from
/// one of them is not determined by the inputs' types.
const DATA_DEPENDENT: &[&str] = &[
    "Compress",
    "ImageDecoder",
    "Loop",
    "MaxUnpool",
    "NonMaxSuppression",
    "NonZero",
    "StringNormalizer",
    "StringSplit",
    "Unique",
];

/// The names of the values of `model`'s graph computed, directly or not,
/// by a node of a [`DATA_DEPENDENT`] operator.
fn data_dependent_values(model: &ModelProto) -> std::collections::HashSet<String> {
    let mut dependent = std::collections::HashSet::new();
    let Some(graph) = &model.graph else {
        return dependent;
    };
    for node in &graph.node {
        let op = node.op_type.as_deref().unwrap_or("");
        if DATA_DEPENDENT.contains(&op) || node.input.iter().any(|i| dependent.contains(i)) {
            dependent.extend(node.output.iter().cloned());
        }
    }
    dependent
}

/// Reference errors onnxtxt knowingly does not report, with the reason.
const KNOWN_REFERENCE_FAILURES: &[(&str, &str)] = &[(
    "node/test_mvn",
    "onnx's attribute binder leaves MeanVarianceNormalization's `Constant <value_ints = @axes>` \
     without its value when `axes` takes its default, then rejects the Constant",
)];

fn infer(model: &ModelProto, propagation: Propagation) -> (ModelProto, Vec<onnxtxt::Finding>) {
    let mut inferred = model.clone();
    let options = Options {
        propagation,
        ..Options::default()
    };
    let findings = infer::fill_value_info(&mut inferred, options);
    (inferred, findings)
}

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn inference_agrees_with_the_reference() {
    let corpus = Corpus::open();
    let mut failures = Vec::new();
    for propagation in [Propagation::Onnx, Propagation::Extended] {
        for stripped in [false, true] {
            let what = match (propagation, stripped) {
                (Propagation::Onnx, false) => "original, onnx propagation",
                (Propagation::Onnx, true) => "stripped, onnx propagation",
                (_, false) => "original",
                (_, true) => "stripped",
            };
            let mut tally = Tally::new(what);
            for case in &corpus.cases {
                compare_case(
                    &corpus,
                    case,
                    (stripped, propagation),
                    &mut tally,
                    &mut failures,
                );
            }
            tally.print();
            if propagation == Propagation::Onnx && tally.agreement() < MIN_AGREEMENT {
                failures.push(format!("{what}: {:.2}% agree", 100.0 * tally.agreement()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "inference disagrees with the reference:\n{}",
        failures.join("\n")
    );
}

fn compare_case(
    corpus: &Corpus,
    case: &ModelCase,
    (stripped, propagation): (bool, Propagation),
    tally: &mut Tally,
    failures: &mut Vec<String>,
) {
    let model = corpus.model(case, stripped);
    let (inferred, findings) = infer(&model, propagation);
    let errors: Vec<String> = findings
        .iter()
        .filter(|f| f.is_error())
        .map(|f| f.diagnostic.message.clone())
        .collect();
    let reference = match corpus.reference(case, stripped) {
        Ok(reference) => reference,
        Err(message) => {
            let known = KNOWN_REFERENCE_FAILURES
                .iter()
                .any(|(name, _)| *name == case.name);
            tally.reference_failed(&case.name, &message, !errors.is_empty(), known);
            return;
        }
    };
    if !errors.is_empty() {
        failures.push(format!(
            "{}{}: onnxtxt reports an error where the reference infers the model: {}",
            case.name,
            if stripped { " (stripped)" } else { "" },
            errors.join("; ")
        ));
        tally.false_alarm(&case.name, &errors[0]);
    }
    let normalize = Normalize::new(declared_symbols(&model));
    let ours = values_of(&inferred, &normalize);
    let theirs = values_of(&reference, &normalize);
    let keys: std::collections::BTreeSet<_> = ours.keys().chain(theirs.keys()).collect();
    let dump = std::env::var("ONNXTXT_INFER_DUMP").is_ok_and(|d| d == case.name);
    for key in keys {
        let (our, their) = (ours.get(key), theirs.get(key));
        let op = our.or(their).map_or("?", |v| v.producer.as_str());
        let verdict = compare(their.map(|v| &v.ty), our.map(|v| &v.ty));
        if dump {
            let show = |v: Option<&values::Value>| v.map_or("-".into(), |v| v.ty.to_string());
            println!("{} {}: {} | {}", key.0, key.1, show(their), show(our));
        }
        let describe = || {
            format!(
                "{}{} {} `{}`: reference {}, onnxtxt {}",
                case.name,
                if stripped { " (stripped)" } else { "" },
                key.0,
                key.1,
                their.map_or("-".into(), |v| v.ty.to_string()),
                our.map_or("-".into(), |v| v.ty.to_string()),
            )
        };
        if let Verdict::Disagree(why) = &verdict {
            failures.push(format!("{} ({op}): {why}", describe()));
        }
        tally.add(op, &verdict, describe);
    }
}

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn declared_outputs_are_reproduced() {
    let corpus = Corpus::open();
    // Reproduced, partly, more precise, contradicted; of the partly ones,
    // how many the input values determine.
    let mut counts = [0usize; 4];
    let mut value_dependent = 0;
    let mut reference_reproduced = 0;
    let mut contradicted = Vec::new();
    let mut missed = Vec::new();
    for case in corpus.cases.iter().filter(|c| c.name.starts_with("node/")) {
        let original = corpus.model(case, false);
        let normalize = Normalize::new(declared_symbols(&original));
        let declared = values_of(&original, &normalize);
        let (inferred, _) = infer(&corpus.model(case, true), Propagation::Extended);
        let ours = values_of(&inferred, &normalize);
        let with_values = corpus
            .valued_model(case)
            .map(|m| values_of(&infer(&m, Propagation::Extended).0, &normalize));
        let reference = corpus.reference(case, true).ok();
        let theirs = reference.as_ref().map(|r| values_of(r, &normalize));
        let dynamic = data_dependent_values(&original);
        let graph = original.graph.as_ref().expect("a model has a graph");
        for output in &graph.output {
            let key = ("graph".to_owned(), output.name.clone().unwrap_or_default());
            let Some(declared) = declared.get(&key) else {
                continue;
            };
            if theirs
                .as_ref()
                .and_then(|t| t.get(&key))
                .is_some_and(|t| t.ty == declared.ty)
            {
                reference_reproduced += 1;
            }
            let inferred = ours.get(&key).map(|v| &v.ty);
            let verdict = compare(Some(&declared.ty), inferred);
            // Names that differ (`N` declared, `M` inferred) are not
            // reproduced, but do not contradict each other.
            let contradicts =
                inferred.is_some_and(|t| infer::contradiction(t, &declared.ty).is_some());
            let slot = match verdict {
                Verdict::Agree => 0,
                Verdict::More => 2,
                _ if contradicts => 3,
                Verdict::Less | Verdict::Disagree(_) => 1,
            };
            counts[slot] += 1;
            let line = format!(
                "{} `{}` ({}): declared {}, inferred {}",
                case.name,
                key.1,
                declared.producer,
                declared.ty,
                inferred.map_or("-".into(), ToString::to_string)
            );
            match slot {
                1 => {
                    let valued = with_values
                        .as_ref()
                        .and_then(|v| v.get(&key))
                        .map(|v| &v.ty);
                    if compare(Some(&declared.ty), valued) == Verdict::Agree
                        || dynamic.contains(&key.1)
                    {
                        value_dependent += 1;
                    } else {
                        missed.push(line);
                    }
                }
                3 => contradicted.push(line),
                _ => {}
            }
        }
    }
    let total: usize = counts.iter().sum();
    let share = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
    println!(
        "declared outputs not reproduced, though the inputs' types determine them ({}):",
        missed.len()
    );
    for line in &missed {
        println!("  {line}");
    }
    let determined = total - value_dependent;
    let reproduced = counts[0] + counts[2];
    println!(
        "infer(declared outputs): {total} declared outputs of the node test models, inferred from \
         the inputs' types alone: {} reproduced ({:.2}%), {} more precise, {} not, {} contradicted; \
         the reference reproduces {} ({:.2}%). {value_dependent} depend on the inputs' values \
         (reproduced with them as constants, or computed by an operator whose output size \
         depends on its inputs' elements); of the {determined} the types determine, onnxtxt \
         reproduces {:.2}%",
        counts[0],
        share(counts[0], total),
        counts[2],
        counts[1] - value_dependent,
        counts[3],
        reference_reproduced,
        share(reference_reproduced, total),
        share(reproduced, determined)
    );
    assert!(
        contradicted.is_empty(),
        "contradicted:\n{}",
        contradicted.join("\n")
    );
    assert!(
        reproduced as f64 >= MIN_REPRODUCED * determined as f64,
        "{:.2}% of the declared outputs the inputs' types determine are reproduced",
        share(reproduced, determined)
    );
}

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn check_is_silent_where_the_checker_accepts() {
    let corpus = Corpus::open();
    let mut accepted = 0;
    let mut alarms = Vec::new();
    for case in corpus.cases.iter().filter(|c| c.checker_accepts) {
        accepted += 1;
        let model = corpus.model(case, false);
        for finding in onnxtxt::check_model(&model).iter().filter(|f| f.is_error()) {
            alarms.push(format!("{}: {}", case.name, finding.diagnostic.message));
        }
    }
    println!(
        "infer(check): {accepted} models onnx.checker accepts, {} errors from onnxtxt check",
        alarms.len()
    );
    assert!(alarms.is_empty(), "false alarms:\n{}", alarms.join("\n"));
}
