//! A model-local function checked against the standard operator it stands
//! for: one named after an operator of a standard domain (`ai.onnx`,
//! `ai.onnx.ml`, ...), or the one `onnxtxt check --as-operator` names.
//!
//! Two families of findings, about the function:
//! - `operator_signature`: each difference from the operator's schema at
//!   the function's opset: its inputs and outputs (how many, their names),
//!   its attributes (missing, extra, of another type) and their defaults;
//! - `operator_body_types`: the body inferred ([`crate::infer`]) for every
//!   combination of the types the operator's constraints allow its inputs,
//!   one finding per combination that fails: the first node whose
//!   inference fails, or an output whose type is not the operator's. A
//!   model's bodies are inferred up to a budget (a warning says how many
//!   combinations were when it runs out).
//!
//! The specs do not forbid a local function to differ from an operator of
//! the same name, so these are warnings; they are errors only when the
//! function is asked for as the operator ([`check_model_as_operator`]).
//!
//! ```
//! let model = onnxtxt::parse_model(r#"
//!     <ir_version: 10, opset_import: ["": 20, "local": 1]>
//!     g (float[N] x) => (float[N] y) { y = local.Gelu(x) }
//!     <domain: "local", opset_import: ["": 20]>
//!     Gelu (X) => (Y) {
//!         half = Constant <value_float = 0.5> ()
//!         Y = Mul(X, half)
//!     }
//! "#)?;
//! let findings = onnxtxt::check::check_model_as_operator(&model, "ai.onnx.Gelu").unwrap();
//! let summaries: Vec<_> = findings.iter().map(|f| f.summary.as_str()).collect();
//! assert!(summaries.contains(&"does not declare the operator's attribute `approximate`"));
//! assert!(findings.iter().any(|f| f.summary.starts_with("with T = tensor(double):")));
//! # Ok::<(), onnxtxt::Error>(())
//! ```

use crate::infer::{infer_function, Options, Type};
use crate::ops::{self, Parameter, Schema};
use crate::proto::{AttributeProto, FunctionProto, ModelProto};

use super::findings::{function_subject, Finding, Findings};
use super::model::{is_headless, Model};
use super::Severity;

const SIGNATURE: &str = "onnxtxt::check::operator_signature";
const BODY_TYPES: &str = "onnxtxt::check::operator_body_types";

/// How much body one model's check infers at most, in encoded bytes of
/// the bodies, over all their type combinations (`OneHot` allows 1,936):
/// about a second of inference in a debug build. Past it the rest are not inferred, and a
/// warning says how many were.
const INFERENCE_BUDGET: usize = 4 << 20;

/// The pass: warnings about each function of a standard domain named after
/// one of its operators.
pub(super) fn check(model: &Model<'_>, findings: &mut Findings) {
    let mut budget = INFERENCE_BUDGET;
    let functions = model.proto.functions.iter().enumerate();
    for (index, function) in functions.filter(|(_, f)| !is_headless(f)) {
        let domain = function.domain.as_deref().unwrap_or("");
        let name = function.name.as_deref().unwrap_or("");
        if let Some(schema) = schema_for(model.proto, function, domain, name) {
            let path = format!("functions[{index}]");
            check_function(
                function,
                schema,
                &path,
                Severity::Warning,
                findings,
                &mut budget,
            );
        }
    }
}

/// Checks `model` ([`check_model`](super::check_model)), and its function
/// `operator` names (`ai.onnx.Gelu`, `ai.onnx.ml.Binarizer`, or `Gelu` for
/// `ai.onnx`) against that operator, its differences as errors. The
/// function is the one of that name, in any domain, or the model's only
/// function. The operator's schema is the one in force at the version of
/// its domain the function imports (else the model, else the latest).
///
/// Gives why when there is no such operator or function.
pub fn check_model_as_operator(model: &ModelProto, operator: &str) -> Result<Vec<Finding>, String> {
    let (domain, name) = match operator.rsplit_once('.') {
        Some((domain, name)) => (ops::canonical_domain(domain), name),
        None => ("", operator),
    };
    let Some(op) = ops::operator(domain, name) else {
        return Err(format!(
            "`{operator}` is no operator of onnx {}",
            ops::ONNX_VERSION
        ));
    };
    let named: Vec<_> = model
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.name.as_deref() == Some(name))
        .collect();
    let (index, function) = match (&named[..], &model.functions[..]) {
        ([one], _) => *one,
        ([], [only]) => (0, only),
        ([], _) => return Err(format!("the model has no function `{name}`")),
        _ => return Err(format!("the model has several functions `{name}`")),
    };
    let opset = import_of(model, function, domain)
        .unwrap_or(ops::domain(domain).map_or(1, |d| d.last_opset()));
    let Some(schema) = op.at(opset) else {
        return Err(format!(
            "`{operator}` came after opset {opset} of its domain"
        ));
    };
    let path = format!("functions[{index}]");
    let mut findings: Vec<Finding> = super::check_model(model)
        .into_iter()
        .filter(|f| {
            !(is_own(f)
                && f.diagnostic
                    .path
                    .as_deref()
                    .is_some_and(|p| within(p, &path)))
        })
        .collect();
    let mut own = Findings::default();
    check_function(
        function,
        schema,
        &path,
        Severity::Error,
        &mut own,
        &mut INFERENCE_BUDGET.clone(),
    );
    findings.extend(own.in_model_order());
    Ok(findings)
}

/// Whether the finding is one of this module's.
fn is_own(finding: &Finding) -> bool {
    [SIGNATURE, BODY_TYPES].contains(&finding.diagnostic.code)
}

/// Whether IR path `path` is `item` or inside it.
fn within(path: &str, item: &str) -> bool {
    path.strip_prefix(item)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The schema a function `domain.name` of `model` stands for, if
/// `domain` is a standard one with such an operator at the function's
/// opset.
fn schema_for(
    model: &ModelProto,
    function: &FunctionProto,
    domain: &str,
    name: &str,
) -> Option<&'static Schema> {
    let domain = ops::domain(domain)?.name();
    ops::schema(domain, name, import_of(model, function, domain)?)
}

/// The version of `domain` the function imports, else the model.
fn import_of(model: &ModelProto, function: &FunctionProto, domain: &str) -> Option<i64> {
    let version = |imports: &[crate::proto::OperatorSetIdProto]| {
        imports
            .iter()
            .rev()
            .find(|i| ops::canonical_domain(i.domain.as_deref().unwrap_or("")) == domain)
            .and_then(|i| i.version)
    };
    version(&function.opset_import).or_else(|| version(&model.opset_import))
}

/// The findings, at `severity`, of `function` checked against `schema`:
/// each difference from it, and each combination of the input types it
/// allows that the body fails for. Their paths are into the function
/// (`node[3]`), or empty for the function itself.
///
/// onnx's own bodies pass, where its inference of them does (see
/// `tests/it/as_operator.rs`); `Softsign`'s, for every type its `T`
/// allows:
///
/// ```
/// use onnxtxt::check::check_function_against;
///
/// let softsign = onnxtxt::ops::schema("", "Softsign", 22).unwrap();
/// let body = softsign.function_bodies()[0].parse()?;
/// let findings = check_function_against(&body, softsign, onnxtxt::Severity::Error);
/// assert!(findings.is_empty(), "{findings:?}");
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn check_function_against(
    function: &FunctionProto,
    schema: &'static Schema,
    severity: Severity,
) -> Vec<Finding> {
    let mut findings = Findings::default();
    check_function(
        function,
        schema,
        "",
        severity,
        &mut findings,
        &mut INFERENCE_BUDGET.clone(),
    );
    findings.in_model_order()
}

/// Adds to `findings`, at `severity`, what [`check_function_against`]
/// finds of `function`, at IR path `path` of the model, inferring no more
/// than `budget` (bytes of body) and taking from it what it infers.
fn check_function(
    function: &FunctionProto,
    schema: &'static Schema,
    path: &str,
    severity: Severity,
    findings: &mut Findings,
    budget: &mut usize,
) {
    let subject = function_subject(function, path).trim_start().to_string();
    let help = format!(
        "compare with `onnxtxt ops {} --domain {} --opset {}`",
        schema.name(),
        ops::domain(schema.domain()).map_or("ai.onnx", |d| d.display_name()),
        schema.since_version()
    );
    let mut differ = |summary: String| {
        findings
            .push(severity, SIGNATURE, &subject, path, summary)
            .help(help.clone());
    };
    compare_parameters("input", &function.input, schema.inputs(), &mut differ);
    compare_parameters("output", &function.output, schema.outputs(), &mut differ);
    compare_attributes(function, schema, &mut differ);
    if function.input.len() == schema.inputs().len() {
        check_body_types(function, schema, path, &subject, severity, findings, budget);
    }
}

/// Reports how the function's `names` differ from the schema's
/// `parameters` of that side.
fn compare_parameters(
    side: &str,
    names: &[String],
    parameters: &[Parameter],
    differ: &mut impl FnMut(String),
) {
    if names.len() != parameters.len() {
        let theirs: Vec<_> = parameters.iter().map(Parameter::name).collect();
        differ(format!(
            "has {} {side}s ({}); the operator has {} ({})",
            names.len(),
            names.join(", "),
            parameters.len(),
            theirs.join(", ")
        ));
        return;
    }
    for (i, (name, parameter)) in names.iter().zip(parameters).enumerate() {
        if name != parameter.name() {
            differ(format!(
                "{side} {i} is `{name}`; the operator's is `{}`",
                parameter.name()
            ));
        }
    }
}

/// Reports the attributes the function and the schema do not share, and
/// those whose type or default differ.
fn compare_attributes(
    function: &FunctionProto,
    schema: &'static Schema,
    differ: &mut impl FnMut(String),
) {
    let declared = |name: &str| {
        let with_default = function
            .attribute_proto
            .iter()
            .find(|a| a.name.as_deref() == Some(name));
        let bare = function.attribute.iter().any(|a| a == name);
        (with_default.is_some() || bare).then_some(with_default)
    };
    for attribute in schema.attributes() {
        let name = attribute.name();
        let Some(default) = declared(name) else {
            differ(format!(
                "does not declare the operator's attribute `{name}`"
            ));
            continue;
        };
        let theirs = attribute.default_value().map(|v| v.to_attribute(name));
        match (default, &theirs) {
            (Some(ours), Some(theirs)) if !same_value(ours, theirs) => differ(format!(
                "gives attribute `{name}` the default {}; the operator's is {}",
                crate::to_text(ours),
                crate::to_text(theirs)
            )),
            (None, Some(theirs)) => differ(format!(
                "gives attribute `{name}` no default; the operator's is {}",
                crate::to_text(theirs)
            )),
            (Some(ours), None) if ours.r#type != Some(attribute.ty() as i32) => differ(format!(
                "declares attribute `{name}` as {}; the operator's is {attribute}",
                crate::to_text(ours)
            )),
            _ => {}
        }
    }
    let extra = function.attribute.iter().map(String::as_str).chain(
        function
            .attribute_proto
            .iter()
            .filter_map(|a| a.name.as_deref()),
    );
    for name in extra.filter(|n| schema.attribute(n).is_none()) {
        differ(format!(
            "declares attribute `{name}`, which the operator does not have"
        ));
    }
}

/// Whether two attributes have the same type and value (names and
/// documentation aside).
fn same_value(a: &AttributeProto, b: &AttributeProto) -> bool {
    let bare = |a: &AttributeProto| AttributeProto {
        name: None,
        doc_string: None,
        ..a.clone()
    };
    bare(a) == bare(b)
}

/// The body inferred for each combination of the types the constraints of
/// the schema's inputs allow, as far as `budget` goes; reports the first
/// failure of each.
fn check_body_types(
    function: &FunctionProto,
    schema: &'static Schema,
    path: &str,
    subject: &str,
    severity: Severity,
    findings: &mut Findings,
    budget: &mut usize,
) {
    let bindings = input_bindings(schema);
    let cost = prost::Message::encoded_len(function).max(1);
    let affordable = (*budget / cost).min(bindings.len());
    *budget -= affordable * cost;
    if affordable < bindings.len() {
        findings.push(
            Severity::Warning,
            BODY_TYPES,
            subject,
            path,
            format!(
                "the body is inferred for {affordable} of the {} type combinations the operator allows: the rest would take too long",
                bindings.len()
            ),
        );
    }
    for binding in bindings.into_iter().take(affordable) {
        let resolve = |p: &Parameter| {
            binding
                .iter()
                .find(|(name, _)| *name == p.type_str())
                .map_or(p.type_str(), |(_, ty)| ty)
        };
        let with = match &binding[..] {
            [] => "its types".to_string(),
            binding => binding
                .iter()
                .map(|(name, ty)| format!("{name} = {ty}"))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let inputs: Vec<Type> = schema
            .inputs()
            .iter()
            .map(|p| ops::type_proto(resolve(p)).map_or(Type::Unknown, |t| Type::from_proto(&t)))
            .collect();
        let inferred = infer_function(function, &inputs, Options::checker());
        let failure = inferred.findings.iter().find(|f| f.is_error());
        if let Some(failure) = failure {
            let at = failure.diagnostic.path.as_deref().unwrap_or("");
            let at = if path.is_empty() {
                at.to_string()
            } else {
                format!("{path}.{at}")
            };
            findings.push(
                severity,
                BODY_TYPES,
                subject,
                at,
                format!("with {with}: {}", failure.summary),
            );
            continue;
        }
        let outputs = function.output.iter().zip(&inferred.outputs);
        for (parameter, (name, ty)) in schema.outputs().iter().zip(outputs) {
            let expected = resolve(parameter);
            let allowed = match schema.type_constraint(expected) {
                Some(constraint) => constraint.allowed_types(),
                None => std::slice::from_ref(&expected),
            };
            let proto = ty.to_proto();
            let Some(found) = ops::type_string(&proto) else {
                continue;
            };
            if !allowed.iter().any(|t| ops::type_matches(t, &proto)) {
                findings.push(
                    severity,
                    BODY_TYPES,
                    subject,
                    path,
                    format!(
                        "with {with}: output `{name}` is {found}; the operator's is {expected}"
                    ),
                );
                break;
            }
        }
    }
}

/// Every assignment of allowed types to the type parameters of the
/// schema's inputs, each as (parameter, type) pairs in the order of the
/// schema's constraints.
fn input_bindings(schema: &'static Schema) -> Vec<Vec<(&'static str, &'static str)>> {
    let used = |name: &str| schema.inputs().iter().any(|p| p.type_str() == name);
    let mut bindings = vec![Vec::new()];
    for constraint in schema.type_constraints().iter().filter(|c| used(c.name())) {
        bindings = bindings
            .into_iter()
            .flat_map(|binding: Vec<_>| {
                constraint.allowed_types().iter().map(move |ty| {
                    let mut next = binding.clone();
                    next.push((constraint.name(), *ty));
                    next
                })
            })
            .collect();
    }
    bindings
}
