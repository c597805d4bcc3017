//! Attributes: a node gives each attribute once, with a type that its
//! value agrees with; what it gives is what its operator has (by name and
//! type), and the operator's required attributes are all there; a call of
//! a model-local function gives what the function declares. Attribute
//! references (`@name`) are meaningful in function bodies and name an
//! attribute the function declares; a function declares each attribute
//! parameter once.

use std::collections::HashMap;

use super::findings::{function_subject, Findings, Severity};
use super::model::{declared_attributes, is_headless, Model, Site};
use super::operators::Callee;
use crate::ops::{self, Schema};
use crate::proto::attribute_proto::AttributeType;
use crate::proto::tensor_proto::DataType;
use crate::proto::type_proto::Value as TypeValue;
use crate::proto::{AttributeProto, FunctionProto};
use crate::vocabulary::attribute_type_name;

const DUPLICATE_ATTRIBUTE: &str = "onnxtxt::check::duplicate_attribute";
const ATTRIBUTE_REFERENCE: &str = "onnxtxt::check::attribute_reference";
const UNKNOWN_ATTRIBUTE: &str = "onnxtxt::check::unknown_attribute";
const ATTRIBUTE_TYPE: &str = "onnxtxt::check::attribute_type";

/// The attributes of the node at `site`, against what it calls.
pub(crate) fn check_node(
    model: &Model<'_>,
    site: &Site<'_>,
    callee: &Callee<'_>,
    findings: &mut Findings,
) {
    let attributes = &site.node.attribute;
    for (index, attribute) in attributes.iter().enumerate() {
        let name = attribute.name.as_deref().unwrap_or("");
        // Nodes have few attributes: looking back is cheaper than a map.
        let earlier = attributes[..index]
            .iter()
            .position(|a| a.name.as_deref().unwrap_or("") == name);
        if let Some(earlier) = earlier {
            findings
                .error(
                    DUPLICATE_ATTRIBUTE,
                    &site.subject(),
                    site.attribute_path(index),
                    format!("attribute `{name}` is given twice"),
                )
                .related(site.at(format!("attribute[{earlier}]")), "first given here");
        }
        let reference = attribute.ref_attr_name.as_deref();
        if let Some(reference) = reference {
            check_reference(site, index, reference, findings);
        }
        if !well_formed(site, index, findings) {
            continue;
        }
        match callee {
            Callee::Schema(schema) => against_schema(site, index, schema, findings),
            Callee::Function(f, function) if model.takes_attribute(*f, name) => {
                function_attribute_type(site, index, function, findings)
            }
            Callee::Function(_, function) => undeclared(site, index, function, findings),
            Callee::Unknown => {}
        }
    }
    if let Callee::Schema(schema) = callee {
        required(site, schema, findings);
    }
}

/// Attribute `index` has a type, and its value fields agree with it, as
/// onnx.checker requires of every attribute; a reference in a function
/// body or subgraph holds no value. Returns whether it does.
fn well_formed(site: &Site<'_>, index: usize, findings: &mut Findings) -> bool {
    let attribute = &site.node.attribute[index];
    let name = attribute.name.as_deref().unwrap_or("");
    let path = || site.attribute_path(index);
    let Some(ty) = attribute.r#type else {
        findings
            .error(
                ATTRIBUTE_TYPE,
                &site.subject(),
                path(),
                format!("attribute `{name}` has no type"),
            )
            .help(format!("write its type: `{name}: int = ...`"));
        return false;
    };
    let (fields, mismatch) = value_fields(attribute, ty);
    let summary = if fields > 1 {
        format!("attribute `{name}` holds values of {fields} kinds")
    } else if let Some(field) = mismatch {
        format!(
            "attribute `{name}` is declared {} but holds {} values",
            type_name(ty),
            type_name(field as i32)
        )
    } else if attribute.ref_attr_name.is_some() && fields > 0 && !site.body.is_main_graph {
        format!("attribute `{name}` refers to an attribute but holds a value too")
    } else {
        return true;
    };
    findings.error(
        "onnxtxt::check::attribute_value",
        &site.subject(),
        path(),
        summary,
    );
    false
}

/// How many value fields `attribute` has set, and the first of them whose
/// type is not `ty`.
fn value_fields(attribute: &AttributeProto, ty: i32) -> (usize, Option<AttributeType>) {
    use AttributeType as T;
    let a = attribute;
    let set = [
        (a.f.is_some(), T::Float),
        (a.i.is_some(), T::Int),
        (a.s.is_some(), T::String),
        (a.t.is_some(), T::Tensor),
        (a.g.is_some(), T::Graph),
        (a.tp.is_some(), T::TypeProto),
        (a.sparse_tensor.is_some(), T::SparseTensor),
        (!a.floats.is_empty(), T::Floats),
        (!a.ints.is_empty(), T::Ints),
        (!a.strings.is_empty(), T::Strings),
        (!a.tensors.is_empty(), T::Tensors),
        (!a.graphs.is_empty(), T::Graphs),
        (!a.sparse_tensors.is_empty(), T::SparseTensors),
        (!a.type_protos.is_empty(), T::TypeProtos),
    ];
    let fields = set.iter().filter(|(is_set, _)| *is_set).count();
    let mismatch = set
        .iter()
        .find(|&&(is_set, field)| is_set && field as i32 != ty)
        .map(|&(_, field)| field);
    (fields, mismatch)
}

/// How the text syntax writes attribute type `ty`.
fn type_name(ty: i32) -> &'static str {
    attribute_type_name(ty).unwrap_or("undefined")
}

/// Attribute `index` against the operator's schema: a name it has (unless
/// the schema leaves attributes unchecked, or the name is internal: two
/// leading underscores), and its type.
fn against_schema(site: &Site<'_>, index: usize, schema: &Schema, findings: &mut Findings) {
    let attribute = &site.node.attribute[index];
    let name = attribute.name.as_deref().unwrap_or("");
    let path = || site.attribute_path(index);
    let op = schema.name();
    let Some(expected) = schema.attribute(name) else {
        if name.starts_with("__") {
            return;
        }
        let severity = if schema.allows_unchecked_attributes() {
            Severity::Warning
        } else {
            Severity::Error
        };
        let finding = findings.push(
            severity,
            UNKNOWN_ATTRIBUTE,
            &site.subject(),
            path(),
            format!("`{op}` has no attribute `{name}`"),
        );
        let version = site.imports.version_for_node(site.domain()).unwrap_or(0);
        match (
            changed(site, schema, name, version),
            schema.closest_attribute(name),
        ) {
            (Some(change), _) => finding.help(change),
            (None, Some(known)) => finding.help(format!("did you mean `{}`?", known.name())),
            (None, None) => finding.help(attributes_of(schema)),
        };
        return;
    };
    let ty = attribute.r#type.unwrap_or(0);
    if ty != expected.ty() as i32 {
        let finding = findings.error(
            ATTRIBUTE_TYPE,
            &site.subject(),
            path(),
            format!(
                "attribute `{name}` is {}, but `{op}` takes {}",
                a_type(ty),
                a_type(expected.ty() as i32)
            ),
        );
        match data_type_written_as_type(attribute, expected.ty()) {
            Some(help) => finding.help(help),
            None => finding.help(format!("`{op}` has `{expected}`")),
        };
        return;
    }
    if let Some(reference) = attribute.ref_attr_name.as_deref() {
        reference_type(site, index, reference, expected.ty(), findings);
    } else if let Some(missing) = missing_value(attribute, expected.ty()) {
        findings.error(
            "onnxtxt::check::attribute_value",
            &site.subject(),
            site.attribute_path(index),
            format!(
                "attribute `{name}` of type {} holds no {missing}",
                type_name(ty)
            ),
        );
    }
}

/// "`Relu`'s attributes are ..." or "`Relu` has no attributes".
/// What became of attribute `name` of `schema`'s operator, which the
/// version in force at `opset` (as the node at `site` imports it) does not
/// have, from the registry.
fn changed(site: &Site<'_>, schema: &Schema, name: &str, opset: i64) -> Option<String> {
    let op = schema.name();
    let change = ops::operator(schema.domain(), op)?.attribute_change(name, opset)?;
    Some(match change {
        ops::AttributeChange::BecameInput { since } => format!(
            "`{name}` is an input of `{op}` from opset {since} on; up to {} it was an attribute",
            since - 1
        ),
        ops::AttributeChange::Dropped { since } => format!(
            "`{op}` has had no attribute `{name}` since opset {since}; up to {} it had",
            since - 1
        ),
        ops::AttributeChange::Arrives { since } => format!(
            "`{op}` has attribute `{name}` from opset {since} on; {} imports opset {opset}",
            super::operators::importer(site)
        ),
    })
}

fn attributes_of(schema: &Schema) -> String {
    let names: Vec<&str> = schema.attributes().iter().map(|a| a.name()).collect();
    if names.is_empty() {
        format!("`{}` has no attributes", schema.name())
    } else {
        format!(
            "the attributes of `{}` are: {}",
            schema.name(),
            names.join(", ")
        )
    }
}

/// `an int`, `a float`, `ints`, ... (or `untyped`).
fn a_type(ty: i32) -> String {
    let name = type_name(ty);
    if name.ends_with('s') || name == "undefined" {
        return name.to_string();
    }
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

/// For an int attribute given a tensor type (`to = float`): help that says
/// a data type is written by its number.
fn data_type_written_as_type(
    attribute: &AttributeProto,
    expected: AttributeType,
) -> Option<String> {
    let Some(TypeValue::TensorType(tensor)) = attribute.tp.as_ref()?.value.as_ref() else {
        return None;
    };
    let code = tensor.elem_type?;
    (expected == AttributeType::Int).then(|| {
        let name = attribute.name.as_deref().unwrap_or("");
        let shown = DataType::try_from(code).map_or("?", |t| t.as_str_name());
        format!("a data type is written by its number: `{name}: int = {code}` ({shown})")
    })
}

/// The value a non-list attribute of type `ty` needs but lacks, as onnx.checker
/// requires (numbers and strings read as their default when absent).
fn missing_value(attribute: &AttributeProto, ty: AttributeType) -> Option<&'static str> {
    use AttributeType as T;
    match ty {
        T::Tensor if attribute.t.is_none() => Some("tensor"),
        T::SparseTensor if attribute.sparse_tensor.is_none() => Some("sparse tensor"),
        T::Graph if attribute.g.is_none() => Some("graph"),
        T::TypeProto if attribute.tp.is_none() => Some("type"),
        _ => None,
    }
}

/// Every attribute the schema requires is given (a reference counts).
fn required(site: &Site<'_>, schema: &Schema, findings: &mut Findings) {
    for attribute in schema.attributes().iter().filter(|a| a.required()) {
        let given = site
            .node
            .attribute
            .iter()
            .any(|a| a.name.as_deref() == Some(attribute.name()));
        if given {
            continue;
        }
        let ty = type_name(attribute.ty() as i32);
        findings
            .error(
                "onnxtxt::check::missing_attribute",
                &site.subject(),
                site.at("op_type"),
                format!("`{}` needs attribute `{}`", schema.name(), attribute.name()),
            )
            .help(format!("add `<{}: {ty} = ...>`", attribute.name()));
    }
}

/// Attribute `index` of a call of `function` that the function neither
/// declares nor refers to (a warning: onnx.checker does not check calls).
fn undeclared(site: &Site<'_>, index: usize, function: &FunctionProto, findings: &mut Findings) {
    let name = site.node.attribute[index].name.as_deref().unwrap_or("");
    let function_name = function.name.as_deref().unwrap_or("");
    let finding = findings.warning(
        UNKNOWN_ATTRIBUTE,
        &site.subject(),
        site.attribute_path(index),
        format!("function `{function_name}` has no attribute `{name}`"),
    );
    match ops::closest_by(name, declared_attributes(function), |n| n) {
        Some(known) => finding.help(format!("did you mean `{known}`?")),
        None => finding.help(declared_list(function)),
    };
}

/// Attribute `index` of a call of `function`, one it takes: of the type it
/// declares, if it declares one (a warning, as above).
fn function_attribute_type(
    site: &Site<'_>,
    index: usize,
    function: &FunctionProto,
    findings: &mut Findings,
) {
    let attribute = &site.node.attribute[index];
    let name = attribute.name.as_deref().unwrap_or("");
    let function_name = function.name.as_deref().unwrap_or("");
    let declared = function
        .attribute_proto
        .iter()
        .find(|a| a.name.as_deref() == Some(name))
        .and_then(|a| a.r#type);
    let ty = attribute.r#type.unwrap_or(0);
    if let Some(declared) = declared.filter(|&d| d != ty) {
        findings.warning(
            ATTRIBUTE_TYPE,
            &site.subject(),
            site.attribute_path(index),
            format!(
                "attribute `{name}` is {}, but function `{function_name}` declares {}",
                a_type(ty),
                a_type(declared)
            ),
        );
    }
}

/// "its attributes are: a, b" or "it declares no attributes".
fn declared_list(function: &FunctionProto) -> String {
    let mut known: Vec<&str> = declared_attributes(function).collect();
    known.sort_unstable();
    known.dedup();
    if known.is_empty() {
        "it declares no attributes".to_string()
    } else {
        format!("its attributes are: {}", known.join(", "))
    }
}

/// Attribute `index` refers to `@reference`, which the enclosing function
/// declares with a type: that type should be the one the operator takes
/// (a warning: onnx.checker does not compare them).
fn reference_type(
    site: &Site<'_>,
    index: usize,
    reference: &str,
    expected: AttributeType,
    findings: &mut Findings,
) {
    let Some(function) = site.body.function else {
        return;
    };
    let declared = function
        .attribute_proto
        .iter()
        .find(|a| a.name.as_deref() == Some(reference))
        .and_then(|a| a.r#type);
    let Some(declared) = declared.filter(|&d| d != expected as i32) else {
        return;
    };
    findings.warning(
        ATTRIBUTE_TYPE,
        &site.subject(),
        site.attribute_path(index),
        format!(
            "`@{reference}` is declared {}, but `{}` takes {} here",
            a_type(declared),
            site.op(),
            a_type(expected as i32)
        ),
    );
}

/// Attribute `index` of the node at `site` refers to `@reference`: a
/// warning outside a function, or when the function does not declare it
/// (onnx.checker accepts both, and a reference that the call does not
/// resolve is simply absent).
fn check_reference(site: &Site<'_>, index: usize, reference: &str, findings: &mut Findings) {
    let name = site.node.attribute[index].name.as_deref().unwrap_or("");
    let path = site.attribute_path(index);
    let Some(function) = site.body.function else {
        findings
            .warning(
                ATTRIBUTE_REFERENCE,
                &site.subject(),
                path,
                format!("attribute `{name}` refers to `@{reference}` outside a function"),
            )
            .help("attribute references are only meaningful in function bodies");
        return;
    };
    if declared_attributes(function).any(|declared| declared == reference) {
        return;
    }
    let function_name = function.name.as_deref().unwrap_or("");
    let help = if declared_attributes(function).next().is_none() {
        format!("declare it: `{function_name} <{reference}> (...)`")
    } else {
        declared_list(function)
    };
    findings
        .warning(
            ATTRIBUTE_REFERENCE,
            &site.subject(),
            path,
            format!("`@{reference}` is not an attribute of function `{function_name}`"),
        )
        .help(help);
}

/// Each function's attribute parameters: a name declared twice.
pub(crate) fn check_parameters(model: &Model<'_>, findings: &mut Findings) {
    for (index, function) in model.proto.functions.iter().enumerate() {
        if is_headless(function) {
            continue;
        }
        let path = format!("functions[{index}]");
        let subject = function_subject(function, &path);
        let parameters = function
            .attribute
            .iter()
            .enumerate()
            .map(|(i, name)| (name.as_str(), "attribute", i))
            .chain(
                function
                    .attribute_proto
                    .iter()
                    .enumerate()
                    .map(|(i, a)| (a.name.as_deref().unwrap_or(""), "attribute_proto", i)),
            );
        let mut declared: HashMap<&str, (String, &str)> = HashMap::new();
        for (name, list, i) in parameters {
            let parameter_path = format!("{path}.{list}[{i}]");
            let Some((first, first_list)) = declared.get(name) else {
                declared.insert(name, (parameter_path, list));
                continue;
            };
            // onnx.checker rejects a bare name given twice, and accepts the
            // other repetitions (which one applies is then unclear).
            let severity = if *first_list == "attribute" && list == "attribute" {
                Severity::Error
            } else {
                Severity::Warning
            };
            let first = first.clone();
            findings
                .push(
                    severity,
                    DUPLICATE_ATTRIBUTE,
                    &subject,
                    parameter_path,
                    format!("attribute parameter `{name}` is declared twice"),
                )
                .related(first, "first declared here");
        }
    }
}
