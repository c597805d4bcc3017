//! Operators: what each node calls, and whether it calls it rightly.
//!
//! A node calls an operator of onnx's registry (`ai.onnx`, `ai.onnx.ml`,
//! the preview domains), a model-local function (of a custom or preview
//! domain), or something this check cannot know (an operator of a custom
//! domain). The operator is resolved as onnx.checker resolves it: the
//! schema in force at the version the node's body imports. A node with no
//! operator, an operator its domain does not have (yet, or any more), or a
//! domain written `ai.onnx` is an error where the checker rejects it; then
//! the node's attributes ([`attributes`](super::attributes)) and inputs and
//! outputs ([`arity`](super::arity)) are checked against what it calls.

use super::findings::{quoted, Findings, Severity};
use super::header::display_name;
use super::model::{Model, Site};
use crate::name_key::callee_key;
use crate::ops::{self, Schema, SchemaMemo, AI_ONNX};
use crate::proto::FunctionProto;

/// What a node calls.
pub(crate) enum Callee<'a> {
    /// An operator of onnx's registry: the node is checked as onnx.checker
    /// checks it, and its mistakes are errors.
    Schema(&'static Schema),
    /// A model-local function, and its index: the call is checked against
    /// what the function declares (onnx.checker does not; runtimes do).
    Function(usize, &'a FunctionProto),
    /// Nothing known to check the node against.
    Unknown,
}

/// The domains in which onnx.checker rejects a node whose operator it has
/// no schema for (in other domains it does not check such nodes).
/// `ai.onnx.training` has no operators at all.
const CHECKED_DOMAINS: &[&str] = &["", "ai.onnx.ml", "ai.onnx.training"];

/// Operators of the default domain that onnx.checker accepts without a
/// schema, unchecked: early experimental operators, since removed from
/// ONNX, that its checker still lists.
const UNCHECKED_EXPERIMENTAL: &[&str] = &[
    "ATen",
    "Affine",
    "ConstantFill",
    "Crop",
    "DynamicSlice",
    "GRUUnit",
    "GivenTensorFill",
    "ImageScaler",
    "ParametricSoftplus",
    "Scale",
    "ScaledTanh",
];

/// Checks what the node at `site` calls, and how (`schemas` remembering
/// the schemas found for the walk's earlier nodes).
pub(crate) fn check_node<'a>(
    model: &Model<'a>,
    site: &Site<'a>,
    schemas: &mut SchemaMemo<'a>,
    findings: &mut Findings,
) {
    let callee = resolve(model, site, schemas, findings);
    super::attributes::check_node(model, site, &callee, findings);
    super::arity::check_node(site, &callee, findings);
}

/// What the node at `site` calls, reporting an operator that cannot be
/// called there.
fn resolve<'a>(
    model: &Model<'a>,
    site: &Site<'a>,
    schemas: &mut SchemaMemo<'a>,
    findings: &mut Findings,
) -> Callee<'a> {
    if !has_operator_and_values(site, findings) {
        return Callee::Unknown;
    }
    let (domain, op) = (site.domain(), site.op());
    // An unimported domain is the header pass's to report, except
    // `ai.onnx`, which is an error wherever it is imported.
    let version = site.imports.version_for_node(domain);
    if domain == AI_ONNX {
        ai_onnx_domain(site, version.is_some(), findings);
        return Callee::Unknown;
    }
    let Some(version) = version else {
        return Callee::Unknown;
    };
    match schemas.get(domain, op, version) {
        Some(schema) if !schema.deprecated() => Callee::Schema(schema),
        Some(schema) => {
            deprecated(site, schema, version, findings);
            Callee::Unknown
        }
        None => not_in_registry(model, site, version, findings),
    }
}

/// Whether the node at `site` has an operator, and inputs or outputs
/// (reporting it when it does not).
fn has_operator_and_values(site: &Site<'_>, findings: &mut Findings) -> bool {
    if site.op().is_empty() {
        findings
            .error(
                "onnxtxt::check::missing_operator",
                &site.subject(),
                site.path(),
                "the node has no operator",
            )
            .help("write the operator before the inputs: `y = Identity (x)`");
        return false;
    }
    if site.node.input.is_empty() && site.node.output.is_empty() {
        findings.error(
            "onnxtxt::check::empty_node",
            &site.subject(),
            site.path(),
            "the node has neither inputs nor outputs",
        );
        return false;
    }
    true
}

/// A node whose domain is written `ai.onnx` (`imported` when that
/// spelling is imported): onnx.checker finds no operator there, but lets
/// its early experimental operators through.
fn ai_onnx_domain(site: &Site<'_>, imported: bool, findings: &mut Findings) {
    let op = site.op();
    if imported && UNCHECKED_EXPERIMENTAL.contains(&op) {
        experimental(site, findings);
        return;
    }
    findings
        .error(
            "onnxtxt::check::ai_onnx_domain",
            &site.subject(),
            site.at("op_type"),
            format!(
                "the domain of `{op}` is written `ai.onnx`, where onnx.checker finds no operator"
            ),
        )
        .help(format!("write the default domain as nothing: `{op}`"));
}

/// A node calling one of onnx.checker's early experimental operators,
/// which it lets through unchecked.
fn experimental(site: &Site<'_>, findings: &mut Findings) {
    findings
        .warning(
            "onnxtxt::check::unknown_operator",
            &site.subject(),
            site.at("op_type"),
            format!(
                "`{}` is an early experimental operator, no longer in ONNX",
                site.op()
            ),
        )
        .help("onnx.checker accepts it without checking it; runtimes may not know it");
}

/// What a node calls that has no schema at the imported `version`: a
/// model-local function, or (reported) an operator that comes later, or
/// none.
fn not_in_registry<'a>(
    model: &Model<'a>,
    site: &Site<'_>,
    version: i64,
    findings: &mut Findings,
) -> Callee<'a> {
    let (domain, op) = (site.domain(), site.op());
    if domain.is_empty() && UNCHECKED_EXPERIMENTAL.contains(&op) {
        experimental(site, findings);
        return Callee::Unknown;
    }
    let checked = CHECKED_DOMAINS.contains(&domain);
    if !checked {
        if let Some((index, function)) = model.function(callee_key(site.node)) {
            return Callee::Function(index, function);
        }
    }
    let severity = if checked {
        Severity::Error
    } else {
        Severity::Warning
    };
    if let Some(operator) = ops::operator(domain, op) {
        too_new(site, operator, version, severity, findings);
    } else if checked || ops::domain(domain).is_some() {
        unknown_operator(model, site, severity, findings);
    } else {
        unknown_function(model, site, findings);
    }
    Callee::Unknown
}

/// What imports the node's domain: `this model` or `this function`.
pub(super) fn importer(site: &Site<'_>) -> &'static str {
    if site.imports.of_function {
        "this function"
    } else {
        "this model"
    }
}

/// A node whose operator is deprecated at the imported version.
fn deprecated(site: &Site<'_>, schema: &Schema, version: i64, findings: &mut Findings) {
    let (op, since) = (schema.name(), schema.since_version());
    let domain = display_name(schema.domain());
    let last = ops::operator(schema.domain(), op)
        .and_then(|operator| operator.at(since - 1))
        .filter(|earlier| !earlier.deprecated());
    let help = match last {
        Some(_) => format!(
            "use what replaces it ({}), or import an opset of {domain} before {since}",
            schema.doc_url()
        ),
        None => format!(
            "the operator's page says what replaces it: {}",
            schema.doc_url()
        ),
    };
    findings
        .error(
            "onnxtxt::check::deprecated_operator",
            &site.subject(),
            site.at("op_type"),
            format!(
                "`{op}` is deprecated from opset {since} of {domain} on; {} imports opset {version}",
                importer(site)
            ),
        )
        .help(help);
}

/// A node whose operator comes in a later version of its domain.
fn too_new(
    site: &Site<'_>,
    operator: &ops::Operator,
    version: i64,
    severity: Severity,
    findings: &mut Findings,
) {
    let first = operator.versions()[0].since_version();
    let domain = display_name(operator.domain());
    findings
        .push(
            severity,
            "onnxtxt::check::operator_too_new",
            &site.subject(),
            site.at("op_type"),
            format!(
                "`{}` is defined from opset {first} of {domain} on; {} imports opset {version}",
                operator.name(),
                importer(site)
            ),
        )
        .help(format!(
            "import opset {first} or later of {domain}: `{}: {first}` in `{}`",
            quoted(operator.domain()),
            site.imports.path
        ));
}

/// A node whose operator its domain (one of the registry's, or one the
/// checker checks) does not have.
fn unknown_operator(
    model: &Model<'_>,
    site: &Site<'_>,
    severity: Severity,
    findings: &mut Findings,
) {
    let (domain, op) = (site.domain(), site.op());
    let suggestion = ops::domain(domain).and_then(|d| d.closest_operator(op));
    let finding = findings.push(
        severity,
        "onnxtxt::check::unknown_operator",
        &site.subject(),
        site.at("op_type"),
        format!("{} has no operator `{op}`", display_name(domain)),
    );
    if let Some(operator) = suggestion {
        finding.help(format!("did you mean `{}`?", operator.name()));
    } else if model.function(callee_key(site.node)).is_some() {
        finding.help(format!(
            "onnx.checker does not call model-local functions of {}: give the function a domain of its own",
            display_name(domain)
        ));
    }
}

/// A call into a custom domain whose model-local functions do not include
/// the one called: onnx.checker does not check such calls, but nothing
/// defines the operator (onnxruntime: "my:Gleu(-1) is not a registered
/// function/op").
fn unknown_function(model: &Model<'_>, site: &Site<'_>, findings: &mut Findings) {
    let (domain, op) = (site.domain(), site.op());
    let functions: Vec<&FunctionProto> = model.functions_of(domain).collect();
    if functions.is_empty() {
        return;
    }
    let overload = site.node.overload.as_deref().unwrap_or("");
    let same_name = functions.iter().any(|f| f.name.as_deref() == Some(op));
    let finding = findings.error(
        "onnxtxt::check::unknown_function",
        &site.subject(),
        site.at("op_type"),
        if same_name {
            format!(
                "no function `{domain}.{op}` has the overload {}",
                quoted(overload)
            )
        } else {
            format!("domain {} has no function `{op}`", quoted(domain))
        },
    );
    let names = functions.iter().filter_map(|f| f.name.as_deref());
    if same_name {
        let overloads: Vec<String> = functions
            .iter()
            .filter(|f| f.name.as_deref() == Some(op))
            .map(|f| quoted(f.overload.as_deref().unwrap_or("")))
            .collect();
        finding.help(format!("its overloads are: {}", overloads.join(", ")));
    } else if let Some(name) = ops::closest_by(op, names, |n| n) {
        finding.help(format!("did you mean `{name}`?"));
    }
}
