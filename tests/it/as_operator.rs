//! A function checked against the operator it stands for
//! (`onnxtxt::check::check_function_against`, `check --as-operator`):
//! onnx's own function bodies, whose type checks must fail exactly where
//! onnx's inference of them fails (conformance/as_operator_reference.py),
//! and local functions that differ from their operator.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use onnxtxt::check::check_function_against;
use onnxtxt::ops;
use onnxtxt::proto::FunctionProto;
use onnxtxt::Severity;

use crate::support::{reference_python, run_stdin};

/// `body` as onnx calls it for a node of `schema`: an attribute the node
/// leaves out takes the schema's default.
fn as_called(mut body: FunctionProto, schema: &ops::Schema) -> FunctionProto {
    let default = |name: &str| schema.attribute(name).and_then(|a| a.default_value());
    let (defaulted, bare): (Vec<String>, Vec<String>) = body
        .attribute
        .drain(..)
        .partition(|name| default(name).is_some());
    body.attribute = bare;
    for name in defaulted {
        body.attribute_proto
            .extend(default(&name).map(|v| v.to_attribute(&name)));
    }
    body
}

/// Each of onnx's plain function bodies (`NAME-SINCE (opset N)`) with the
/// findings of checking it against its operator, as called.
fn registry_findings() -> Vec<(String, Vec<onnxtxt::Finding>)> {
    let schemas = ops::domains()
        .iter()
        .flat_map(|d| d.operators())
        .flat_map(|op| op.versions());
    let mut checked = Vec::new();
    for schema in schemas {
        for body in schema.function_bodies() {
            let function = as_called(body.parse().expect("the registry's bodies parse"), schema);
            let name = format!(
                "{}-{} (opset {})",
                schema.name(),
                schema.since_version(),
                body.opset()
            );
            checked.push((
                name,
                check_function_against(&function, schema, Severity::Warning),
            ));
        }
    }
    checked
}

#[test]
fn onnx_function_bodies_have_their_operators_signatures() {
    let checked = registry_findings();
    assert!(checked.len() > 40, "only {} bodies", checked.len());
    let differences: Vec<String> = checked
        .iter()
        .flat_map(|(name, found)| found.iter().map(move |f| (name, f)))
        .filter(|(_, f)| f.diagnostic.code == "onnxtxt::check::operator_signature")
        .map(|(name, f)| format!("{name}: {}", f.summary))
        .collect();
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// onnx's bodies fail to type-check for some types their operators allow
/// (onnx's defects: MeanVarianceNormalization with other than float,
/// Range-11 with int16, ReduceLogSum-18 with integers, Shrink-9 with
/// unsigned integers): the check finds exactly the combinations onnx's
/// own inference of the bodies refuses.
#[test]
fn onnx_function_bodies_fail_where_onnx_inference_fails() {
    let Some(python) = reference_python() else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/as_operator_reference.py");
    let out = Command::new(python).arg(script).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reference_bodies = BTreeSet::new();
    let mut reference_failures = BTreeSet::new();
    for line in stdout.lines() {
        let (body, rest) = line.split_once(": ").expect("BODY: with TYPES: VERDICT");
        let (with, verdict) = rest.split_once(": ").expect("with TYPES: VERDICT");
        reference_bodies.insert(body.to_string());
        if verdict.starts_with("fail") {
            reference_failures.insert(format!("{body}: {with}"));
        }
    }
    let checked = registry_findings();
    let bodies: BTreeSet<String> = checked.iter().map(|(name, _)| name.clone()).collect();
    assert_eq!(bodies, reference_bodies);
    let failures: BTreeSet<String> = checked
        .iter()
        .flat_map(|(name, found)| {
            found.iter().map(move |f| {
                let with = f.summary.split_once(": ").map_or("", |(with, _)| with);
                format!("{name}: {with}")
            })
        })
        .collect();
    assert!(!reference_failures.is_empty());
    assert_eq!(failures, reference_failures);
}

/// A local stand-in for `Gelu`, written for float only, without its
/// attribute, with another name for its input.
const GELU: &str = r#"<ir_version: 10, opset_import: ["": 20, "local": 1]>
g (float[N] x) => (float[N] y) { y = local.Gelu (x) }
<domain: "local", opset_import: ["": 20]>
Gelu (x) => (Y) {
  half = Constant <value_float: float = 0.5> ()
  Y = Mul (x, half)
}
"#;

#[test]
fn as_operator_reports_each_difference_as_an_error() {
    let run = run_stdin(&["check", "--as-operator", "ai.onnx.Gelu"], GELU.as_bytes());
    assert_eq!(run.code, 1, "{}", run.stderr);
    for expected in [
        "input 0 is `x`; the operator's is `X`",
        "does not declare the operator's attribute `approximate`",
        "with T = tensor(float16): input 1 (`half`) is tensor(float)",
        "with T = tensor(double): ",
        "with T = tensor(bfloat16): ",
        "operator_signature",
        "operator_body_types",
    ] {
        assert!(
            run.stderr.contains(expected),
            "no {expected:?} in {}",
            run.stderr
        );
    }
    assert!(
        !run.stderr.contains("with T = tensor(float):"),
        "{}",
        run.stderr
    );
    // Not asked for, and not in a standard domain: nothing to say.
    let plain = run_stdin(&["check"], GELU.as_bytes());
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert!(!plain.stderr.contains("operator_"), "{}", plain.stderr);
}

#[test]
fn a_function_named_after_an_operator_of_its_standard_domain_gets_warnings() {
    let text = r#"<ir_version: 10, opset_import: ["": 20, "ai.onnx.ml": 3]>
g (float[N] x) => (float[N] y) { y = ai.onnx.ml.Binarizer (x) }
<domain: "ai.onnx.ml", opset_import: ["": 20]>
Binarizer <threshold: float = 1.0> (X) => (Y) {
  t = Constant <value_float: float = @threshold> ()
  b = Greater (X, t)
  Y = CastLike (b, X)
}
"#;
    let run = run_stdin(&["check"], text.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("gives attribute `threshold` the default threshold: float = 1.0; the operator's is threshold: float = 0.0"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("with T = tensor(double): "),
        "{}",
        run.stderr
    );
    let denied = run_stdin(&["check", "--deny-warnings"], text.as_bytes());
    assert_eq!(denied.code, 1, "{}", denied.stderr);
}

#[test]
fn as_operator_refuses_unknown_operators_and_functions() {
    let unknown = run_stdin(&["check", "--as-operator", "ai.onnx.Gelo"], GELU.as_bytes());
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("`ai.onnx.Gelo` is no operator"),
        "{}",
        unknown.stderr
    );
    let two = format!(
        "{GELU}<domain: \"local\", opset_import: [\"\": 20]>\nOther (a) => (b) {{ b = Relu (a) }}\n"
    );
    let missing = run_stdin(&["check", "--as-operator", "Relu"], two.as_bytes());
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(
        missing.stderr.contains("no function `Relu`"),
        "{}",
        missing.stderr
    );
}

/// A large body named after an operator with many type combinations
/// (`OneHot`: 1,815 at opset 11) is inferred for as many as the budget
/// allows, and says so, instead of taking minutes.
#[test]
fn a_large_body_is_inferred_for_as_many_combinations_as_the_budget_allows() {
    let chain: String = (0..3000)
        .map(|i| format!("  v{} = Identity (v{i})\n", i + 1))
        .collect();
    let text = format!(
        "<ir_version: 10, opset_import: [\"\": 11]>\n\
         g (int64[N] x, int64 d, float[2] v) => (float[N,3] y) {{ y = OneHot (x, d, v) }}\n\
         <domain: \"\", opset_import: [\"\": 11]>\n\
         OneHot (indices, depth, values) => (output) {{\n  v0 = Identity (values)\n{chain}  output = Identity (v3000)\n}}\n"
    );
    let started = std::time::Instant::now();
    let run = run_stdin(&["check"], text.as_bytes());
    assert!(
        run.stderr
            .contains(" of the 1815 type combinations the operator allows"),
        "{}",
        run.stderr
    );
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

/// Every context-dependent body of the registry, inferred for the element
/// types of the node context onnx built it for (shapes unknown; an input
/// the body takes of any type at the node's first element type, else
/// int64, else float, where allowed) and its attributes: no node fails,
/// and each output known is of a type the operator allows.
#[test]
fn onnx_context_dependent_bodies_type_check_for_their_contexts() {
    use onnxtxt::infer::{infer_function, Options, Type};
    let schemas = ops::domains()
        .iter()
        .flat_map(|d| d.operators())
        .flat_map(|op| op.versions());
    let mut checked = 0;
    let mut failures = Vec::new();
    for schema in schemas {
        for &opset in schema.context_dependent_function_opsets() {
            for context in schema.node_contexts(opset).filter(|c| c.opset() == opset) {
                let mut body = as_called(context.body().parse().unwrap(), schema);
                let set = context.attributes().iter();
                body.attribute_proto
                    .extend(set.map(|(name, value)| value.to_attribute(name)));
                let given: Vec<_> = context.inputs().iter().zip(schema.inputs()).collect();
                let concrete = given.iter().map(|(ty, _)| **ty).find(|ty| *ty != "*");
                let bound = |parameter: &'static ops::Parameter| {
                    let allowed = schema.allowed_types(parameter);
                    let preferred = [concrete, Some("tensor(int64)"), Some("tensor(float)")];
                    let fits = preferred
                        .into_iter()
                        .flatten()
                        .find(|t| allowed.contains(t));
                    fits.unwrap_or(allowed[0])
                };
                let inputs: Vec<Type> = given
                    .iter()
                    .map(|(ty, parameter)| {
                        let ty = if **ty == "*" { bound(parameter) } else { **ty };
                        ops::type_proto(ty).map_or(Type::Unknown, |t| Type::from_proto(&t))
                    })
                    .collect();
                let inferred = infer_function(&body, &inputs, Options::checker());
                checked += 1;
                let name = format!("{} {opset} ({context})", schema.name());
                if let Some(failure) = inferred.findings.iter().find(|f| f.is_error()) {
                    failures.push(format!("{name}: {}", failure.summary));
                }
                let outputs = schema.outputs().iter().zip(&inferred.outputs);
                for (parameter, ty) in outputs {
                    let proto = ty.to_proto();
                    let allowed = schema.allowed_types(parameter);
                    let known = ops::type_string(&proto).is_some();
                    if known && !allowed.iter().any(|t| ops::type_matches(t, &proto)) {
                        failures.push(format!("{name}: output {ty} is not {allowed:?}"));
                    }
                }
            }
        }
    }
    assert!(checked > 300, "only {checked} bodies");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
