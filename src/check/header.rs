//! The header and the operator sets: the model has an `ir_version`, imports
//! operator sets (each domain once) and has a graph; every node's domain is
//! imported where the node is (a function's nodes by the function's own
//! `opset_import`, as onnx.checker reads it); a function that imports
//! another version of a domain than the model does not use an operator
//! that changed in between; model-local functions are not defined twice;
//! and a second graph that reads as a function without a header is pointed
//! out. An operator set newer than the registry knows is a warning (its
//! nodes cannot be checked; runtimes refuse it). The main graph's inputs
//! and outputs have a type and shape, and before IR version 4 its
//! initializers are graph inputs, as the IR spec says and onnx.checker
//! requires; so do the IR version's range, metadata keys given once, and
//! graphs and functions that have names (functions domains too).

use std::collections::HashMap;

use super::findings::{function_subject, named_subject, node_subject, quoted, Findings};
use super::model::{is_headless, BodyKind, Model, Site};
use crate::name_key::{function_key, NameKey};
use crate::ops::{self, AI_ONNX};
use crate::proto::OperatorSetIdProto;

/// The version of the default domain (`ai.onnx`) that help suggests
/// importing: the one `ir_version` 10 goes with, which the examples and
/// the help for a missing `ir_version` use.
const SUGGESTED_DEFAULT_OPSET: i64 = 21;

/// Checks the model header and the functions' headers (the walk checks
/// each node's domain: [`check_node`]).
pub(crate) fn check(model: &Model<'_>, findings: &mut Findings) {
    required_fields(model, findings);
    ir_version_and_metadata(model, findings);
    graph_names(model, findings);
    main_graph_shapes(model, findings);
    initializers_as_inputs(model, findings);
    duplicate_imports(&model.proto.opset_import, "opset_import", "model", findings);
    beyond_known(&model.proto.opset_import, "opset_import", "model", findings);
    duplicate_functions(model, findings);
    for (index, function) in model.proto.functions.iter().enumerate() {
        let path = format!("functions[{index}]");
        let subject = function_subject(function, &path);
        if is_headless(function) {
            headless_function(function, &path, &subject, findings);
        } else {
            function_identity(model, function, &path, &subject, findings);
            let imports = format!("{path}.opset_import");
            duplicate_imports(&function.opset_import, &imports, &subject, findings);
            beyond_known(&function.opset_import, &imports, &subject, findings);
        }
    }
}

/// Checks the domain of the node at `site`: imported where it is, and in
/// a function's own body, imported at a version that agrees with the
/// model's.
pub(crate) fn check_node(model: &Model<'_>, site: &Site<'_>, findings: &mut Findings) {
    node_domain(site, findings);
    if site.body.kind == BodyKind::Function {
        opset_mismatch(model, site, findings);
    }
}

/// `ir_version`, `opset_import` and the graph.
fn required_fields(model: &Model<'_>, findings: &mut Findings) {
    let proto = model.proto;
    if proto.ir_version.is_none() {
        findings
            .error(
                "onnxtxt::check::missing_ir_version",
                "model",
                "ir_version",
                "the model has no `ir_version`",
            )
            .help("add `ir_version: 10` to the `<...>` header");
    }
    if proto.opset_import.is_empty() {
        findings
            .error(
                "onnxtxt::check::missing_opset_import",
                "model",
                "opset_import",
                "the model imports no operator set",
            )
            .help(format!(
                "add `opset_import: [\"\": {SUGGESTED_DEFAULT_OPSET}]` to the `<...>` header"
            ));
    }
    if proto.graph.is_none() {
        findings.error(
            "onnxtxt::check::missing_graph",
            "model",
            "graph",
            "the model has no graph",
        );
    }
}

/// A function has a name, and from IR version 8 on a domain (onnx.checker:
/// "Field 'name' of 'function' is required to be non-empty", "Field
/// 'domain' of 'function' is required but missing").
fn function_identity(
    model: &Model<'_>,
    function: &crate::proto::FunctionProto,
    path: &str,
    subject: &str,
    findings: &mut Findings,
) {
    let code = "onnxtxt::check::function_header";
    if function.name.as_deref().unwrap_or("").is_empty() {
        findings.error(
            code,
            subject,
            format!("{path}.name"),
            "the function has no name",
        );
    }
    if function.domain.is_none() && model.proto.ir_version.unwrap_or(0) >= 8 {
        findings
            .error(
                code,
                subject,
                format!("{path}.domain"),
                "the function has no domain",
            )
            .help("give it one in its header: `<domain: \"local\", opset_import: [...]>`");
    }
}

/// The IR version onnx.checker (onnx 1.23.2) knows; a model of a later one
/// it rejects.
const LATEST_IR_VERSION: i64 = 14;

/// What onnx.checker requires of the IR version with the other header
/// fields: not beyond the one it knows; no `opset_import` before IR
/// version 3 (where the default domain was implied); metadata keys given
/// once.
fn ir_version_and_metadata(model: &Model<'_>, findings: &mut Findings) {
    let proto = model.proto;
    let ir_version = proto.ir_version.unwrap_or(LATEST_IR_VERSION);
    if ir_version > LATEST_IR_VERSION {
        findings
            .error(
                "onnxtxt::check::ir_version",
                "model",
                "ir_version",
                format!(
                    "IR version {ir_version} is beyond the latest, {LATEST_IR_VERSION} (onnx {})",
                    ops::ONNX_VERSION
                ),
            )
            .help(format!(
                "use `ir_version: {LATEST_IR_VERSION}` or an earlier one"
            ));
    }
    if ir_version < 3 && !proto.opset_import.is_empty() {
        findings
            .error(
                "onnxtxt::check::ir_version",
                "model",
                "ir_version",
                format!("a model of IR version {ir_version} imports no operator sets"),
            )
            .help("operator set imports came with IR version 3: use `ir_version: 3` or later");
    }
    let mut keys = std::collections::HashSet::new();
    for (index, entry) in proto.metadata_props.iter().enumerate() {
        let key = entry.key.as_deref().unwrap_or("");
        if !keys.insert(key) {
            findings.error(
                "onnxtxt::check::duplicate_metadata",
                "model",
                format!("metadata_props[{index}]"),
                format!("metadata key {} is given twice", quoted(key)),
            );
        }
    }
}

/// Every graph, subgraphs too, has a name (onnx.checker: "Field 'name' of
/// 'graph' is required to be non-empty").
fn graph_names(model: &Model<'_>, findings: &mut Findings) {
    for body in model.bodies() {
        let Some(graph) = body.graph else {
            continue;
        };
        if graph.name.as_deref().unwrap_or("").is_empty() {
            findings
                .error(
                    "onnxtxt::check::graph_without_name",
                    &body.path,
                    body.path.clone(),
                    "the graph has no name",
                )
                .help("name it: `g (float[N] x) => ...`");
        }
    }
}

/// The IR spec: "Each main (top-level) graph MUST define the names, types
/// and shapes of its inputs and outputs [...] required to have a shape,
/// indicating the rank" (onnx.checker: "Field 'shape' of 'type' is
/// required but missing"): a tensor input or output with no shape.
fn main_graph_shapes(model: &Model<'_>, findings: &mut Findings) {
    use crate::proto::type_proto::Value;
    let Some(graph) = &model.proto.graph else {
        return;
    };
    for (field, infos) in [("input", &graph.input), ("output", &graph.output)] {
        for (index, info) in infos.iter().enumerate() {
            let missing = match info.r#type.as_ref().map(|t| t.value.as_ref()) {
                None => "type",
                Some(None) => "kind of type",
                Some(Some(Value::TensorType(t))) if t.elem_type.is_none() => "element type",
                Some(Some(Value::SparseTensorType(t))) if t.elem_type.is_none() => "element type",
                Some(Some(Value::TensorType(t))) if t.shape.is_none() => "shape",
                Some(Some(Value::SparseTensorType(t))) if t.shape.is_none() => "shape",
                Some(Some(Value::SequenceType(t))) if t.elem_type.is_none() => "element type",
                Some(Some(Value::OptionalType(t))) if t.elem_type.is_none() => "element type",
                Some(Some(Value::MapType(t))) if t.key_type.is_none() => "key type",
                Some(Some(Value::MapType(t))) if t.value_type.is_none() => "value type",
                Some(Some(Value::OpaqueType(t))) if t.name.as_deref().unwrap_or("").is_empty() => {
                    "name for its opaque type"
                }
                _ => continue,
            };
            let name = info.name.as_deref().unwrap_or("");
            let path = format!("graph.{field}[{index}]");
            findings
                .error(
                    "onnxtxt::check::missing_shape",
                    &named_subject(&path, name),
                    path.clone(),
                    format!("the main graph's {field} `{name}` has no {missing}"),
                )
                .help("give it a shape, at least its rank: `float[N, 3]`, or `float` for a scalar");
        }
    }
}

/// Before IR version 4, a graph's initializers (a subgraph's too) are
/// among its inputs (the IR spec's rule then; onnx.checker: "in
/// initializer but not in graph input").
fn initializers_as_inputs(model: &Model<'_>, findings: &mut Findings) {
    let Some(ir_version) = model.proto.ir_version.filter(|&v| v <= 3) else {
        return;
    };
    for body in model.bodies() {
        let Some(graph) = body.graph else {
            continue;
        };
        for (index, tensor) in graph.initializer.iter().enumerate() {
            let name = tensor.name.as_deref().unwrap_or("");
            if graph.input.iter().any(|i| i.name.as_deref() == Some(name)) {
                continue;
            }
            let path = format!("{}.initializer[{index}]", body.path);
            findings
                .error(
                    "onnxtxt::check::initializer_not_input",
                    &named_subject(&path, name),
                    path.clone(),
                    format!("`{name}` is an initializer but not a graph input, which IR version {ir_version} requires"),
                )
                .help("list it among the graph's inputs, or use `ir_version: 4` or later");
        }
    }
}

/// Imports (at `path`) of a domain of the registry at a version beyond
/// the last one it knows: its nodes are not checked, and runtimes refuse
/// what they do not know.
fn beyond_known(
    imports: &[OperatorSetIdProto],
    path: &str,
    subject: &str,
    findings: &mut Findings,
) {
    for (index, opset) in imports.iter().enumerate() {
        let Some(domain) = ops::domain(opset.domain.as_deref().unwrap_or("")) else {
            continue;
        };
        let (version, last) = (opset.version.unwrap_or(0), domain.last_opset());
        if version <= last {
            continue;
        }
        findings
            .warning(
                "onnxtxt::check::opset_beyond_known",
                subject,
                format!("{path}[{index}]"),
                format!(
                    "onnx {} defines {} opsets {} to {last}; nodes are not checked beyond it",
                    ops::ONNX_VERSION,
                    domain.display_name(),
                    domain.first_opset()
                ),
            )
            .help(format!("import opset {last} or an earlier one"));
    }
}

/// Domains imported twice (`ai.onnx` being `""`) in the imports at `path`.
fn duplicate_imports(
    imports: &[OperatorSetIdProto],
    path: &str,
    subject: &str,
    findings: &mut Findings,
) {
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (index, opset) in imports.iter().enumerate() {
        let domain = ops::canonical_domain(opset.domain.as_deref().unwrap_or(""));
        let Some(&earlier) = first.get(domain) else {
            first.insert(domain, index);
            continue;
        };
        // onnx.checker accepts this (the last import wins); which version
        // is meant is unclear.
        findings
            .warning(
                "onnxtxt::check::duplicate_opset_import",
                subject,
                format!("{path}[{index}]"),
                format!("domain {} is imported twice", quoted(domain)),
            )
            .related(format!("{path}[{earlier}]"), "first imported here")
            .help("keep one version of each domain");
    }
}

/// Two functions of one domain, name and overload.
fn duplicate_functions(model: &Model<'_>, findings: &mut Findings) {
    for (index, function) in model.proto.functions.iter().enumerate() {
        let key = function_key(function);
        let Some((first, _)) = model.function(key).filter(|&(first, _)| first != index) else {
            continue;
        };
        let (NameKey(domain), NameKey(name), NameKey(overload)) = key;
        let what = if overload.is_empty() {
            format!("`{domain}.{name}`")
        } else {
            format!("`{domain}.{name}:{overload}`")
        };
        let path = format!("functions[{index}]");
        findings
            .error(
                "onnxtxt::check::duplicate_function",
                &function_subject(function, &path),
                path.clone(),
                format!("function {what} is defined twice"),
            )
            .related(format!("functions[{first}]"), "first defined here")
            .help("give one of them another name, domain or overload");
    }
}

/// A function with neither a domain nor an operator set: most likely a
/// second graph.
fn headless_function(
    function: &crate::proto::FunctionProto,
    path: &str,
    subject: &str,
    findings: &mut Findings,
) {
    let name = function.name.as_deref().unwrap_or("");
    findings
        .error(
            "onnxtxt::check::function_without_header",
            subject,
            format!("{path}.name"),
            format!(
                "`{name}` is read as a function, but it has no domain and imports no operator set"
            ),
        )
        .help(
            "a model has one graph; what follows it are functions, each with a header \
             such as `<domain: \"local\", opset_import: [\"\": 21]>` before its name",
        );
}

/// The domain of the node at `site` must be imported there. A domain
/// written `ai.onnx` is left to the operator rules, which report it
/// whether imported or not.
fn node_domain(site: &Site<'_>, findings: &mut Findings) {
    let (domain, imports) = (site.domain(), site.imports);
    if domain == AI_ONNX || imports.version_for_node(domain).is_some() {
        return;
    }
    let path = site.path();
    let shown = if domain.is_empty() {
        "the default domain \"\" (ai.onnx)".to_string()
    } else {
        format!("domain {}", quoted(domain))
    };
    let finding = findings.error(
        "onnxtxt::check::domain_not_imported",
        &node_subject(site.node, &path),
        path,
        format!("{shown} is not imported by `{}`", imports.path),
    );
    if domain.is_empty() && imports.literal(AI_ONNX).is_some() {
        finding.help(
            "in a function, onnx.checker wants the default domain imported as `\"\"`, not `ai.onnx`",
        );
    } else {
        let version = if domain.is_empty() {
            SUGGESTED_DEFAULT_OPSET
        } else {
            1
        };
        finding.help(format!(
            "add `{}: {version}` (with the right version) to `{}`",
            quoted(domain),
            imports.path
        ));
    }
}

/// The node at `site`, in a function body, whose domain the function
/// imports at another version than the model (or, for a domain the model
/// does not import, than the first function that does): onnx.checker
/// requires the operator to be the same at both versions.
fn opset_mismatch(model: &Model<'_>, site: &Site<'_>, findings: &mut Findings) {
    let (domain, op, body) = (site.domain(), site.op(), site.body);
    let Some(own) = site.imports.literal(domain) else {
        return;
    };
    let Some(&models) = model.merged_imports.get(domain) else {
        return;
    };
    if own == models || domain == AI_ONNX {
        return;
    }
    let since = |version| ops::schema(domain, op, version).map(|s| s.since_version());
    let (at_own, at_models) = (since(own), since(models));
    if at_own == at_models {
        return;
    }
    let versions = |v: Option<i64>| v.map_or_else(|| "none".to_string(), |v| v.to_string());
    let finding = findings.error(
        "onnxtxt::check::opset_mismatch",
        &site.subject(),
        site.at("op_type"),
        format!(
            "`{op}` differs between opset {own} of {}, which this function imports, \
             and opset {models}, which the model imports (versions {} and {})",
            display_name(domain),
            versions(at_own),
            versions(at_models),
        ),
    );
    if let Some(entry) = body
        .function
        .and_then(|f| import_entry(&f.opset_import, domain))
    {
        let entry = format!("{}.opset_import[{entry}]", body.path);
        finding.related(entry, "the function's import");
    }
    if let Some(entry) = import_entry(&model.proto.opset_import, domain) {
        finding.related(format!("opset_import[{entry}]"), "the model's import");
    }
    finding.help(format!(
        "import the same version of {} in the function as in the model",
        display_name(domain)
    ));
}

/// `ai.onnx` for the default domain, else the domain.
pub(crate) fn display_name(domain: &str) -> &str {
    if domain.is_empty() {
        AI_ONNX
    } else {
        domain
    }
}

/// The index of the import of `domain` (as written) that is in force: the
/// last one.
fn import_entry(imports: &[OperatorSetIdProto], domain: &str) -> Option<usize> {
    imports
        .iter()
        .rposition(|o| o.domain.as_deref().unwrap_or("") == domain)
}
