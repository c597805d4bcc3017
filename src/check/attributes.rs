//! Attributes: a node gives each attribute once; attribute references
//! (`@name`) are meaningful in function bodies and name an attribute the
//! function declares; a function declares each attribute parameter once.

use std::collections::HashMap;

use super::findings::{function_subject, Findings, Severity};
use super::model::{declared_attributes, is_headless, Model, Site};

const DUPLICATE_ATTRIBUTE: &str = "onnxtxt::check::duplicate_attribute";
const ATTRIBUTE_REFERENCE: &str = "onnxtxt::check::attribute_reference";

/// The attributes of the node at `site`: duplicates and references.
pub(crate) fn check_node(site: &Site<'_>, findings: &mut Findings) {
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (index, attribute) in site.node.attribute.iter().enumerate() {
        let name = attribute.name.as_deref().unwrap_or("");
        match first.get(name) {
            Some(&earlier) => {
                findings
                    .error(
                        DUPLICATE_ATTRIBUTE,
                        &site.subject,
                        site.attribute_path(index),
                        format!("attribute `{name}` is given twice"),
                    )
                    .related(site.at(format!("attribute[{earlier}]")), "first given here");
            }
            None => {
                first.insert(name, index);
            }
        }
        if let Some(reference) = attribute.ref_attr_name.as_deref() {
            check_reference(site, index, reference, findings);
        }
    }
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
                &site.subject,
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
    let mut known: Vec<&str> = declared_attributes(function).collect();
    known.sort_unstable();
    known.dedup();
    let help = if known.is_empty() {
        format!("declare it: `{function_name} <{reference}> (...)`")
    } else {
        format!("its attributes are: {}", known.join(", "))
    };
    findings
        .warning(
            ATTRIBUTE_REFERENCE,
            &site.subject,
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
