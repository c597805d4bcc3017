//! Validation of what the grammar cannot express: single assignment of
//! values, definition before use, duplicate names, imported domains,
//! attribute references, tensor constants that match their shape and type,
//! and the required model header fields.
//!
//! [`check_model`] works on any [`ModelProto`] and reports IR paths
//! (`graph.node[3]`, `functions[0].node[1].input[0]`, ...). For text input,
//! [`check_text`] parses, checks and gives every finding the span of the
//! offending text (through the parser's [`SourceMap`]).
//!
//! ```
//! let (_, findings) = onnxtxt::check::check_text(r#"
//!     <ir_version: 10, opset_import: ["": 21]>
//!     g (float x) => (float y) { y = Relu(z) }
//! "#)?;
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].diagnostic.path.as_deref(), Some("graph.node[0].input[0]"));
//! assert_eq!(findings[0].summary, "`z` is used but never defined");
//! # Ok::<(), onnxtxt::Error>(())
//! ```

use std::collections::{HashMap, HashSet};

use crate::error::{Diagnostic, Error, Label};
use crate::parser::SourceMap;
use crate::proto::tensor_proto::{DataLocation, DataType};
use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
use crate::proto::type_proto::Value as TypeValue;
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    SparseTensorProto, TensorProto, TypeProto, ValueInfoProto,
};
use crate::tensor_data::{raw_byte_len, typed_field, TypedField};

/// The version of the default domain (`ai.onnx`) that help suggests
/// importing: the one `ir_version` 10 goes with, which the examples and
/// the help for a missing `ir_version` use.
const SUGGESTED_DEFAULT_OPSET: i64 = 21;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Severity {
    /// The model is invalid (`onnxtxt check` exits with 1).
    Error,
    /// The model is valid but probably not what was meant.
    Warning,
}

/// Another IR item worth showing with a finding, such as the first
/// definition of a value assigned twice.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Related {
    /// Its IR path.
    pub path: String,
    /// What it is.
    pub message: String,
}

/// One problem found by [`check_model`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The diagnostic: `message` is `SUBJECT: SUMMARY` (the subject being
    /// the IR path of the construct and its name, like
    /// `graph.node[12] "Conv_3"`), `path` the precise IR path. Its `span`
    /// is empty until [`locate`] (or [`check_text`]) fills it; `labels`
    /// are filled from [`Finding::related`] the same way.
    pub diagnostic: Diagnostic,
    /// The message without its subject (short enough for a label under
    /// the offending text).
    pub summary: String,
    /// Other places worth showing.
    pub related: Vec<Related>,
}

impl Finding {
    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The IR path of `attributes[index]`: by name, as the printer writes it,
/// unless another attribute has the same name; then by index.
fn attribute_path(path: &str, field: &str, index: usize, attributes: &[AttributeProto]) -> String {
    let name = attributes[index].name.as_deref();
    let unique = name.is_some()
        && attributes
            .iter()
            .filter(|a| a.name.as_deref() == name)
            .count()
            == 1;
    match name {
        Some(name) if unique => format!("{path}.{field}[{name:?}]"),
        _ => format!("{path}.{field}[{index}]"),
    }
}

/// Each item's name with its IR path `{path}.{field}[i]`.
fn named<'a, T>(
    items: &'a [T],
    name: impl Fn(&'a T) -> &'a str,
    path: &str,
    field: &str,
) -> Vec<(&'a str, String)> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| (name(item), format!("{path}.{field}[{i}]")))
        .collect()
}

/// A value info's name (`""` when it has none).
fn value_name(info: &ValueInfoProto) -> &str {
    info.name.as_deref().unwrap_or("")
}

/// Checks `model` and returns its findings, errors and warnings, in the
/// order of the model (header, graph, functions).
pub fn check_model(model: &ModelProto) -> Vec<Finding> {
    let mut checker = Checker::default();
    checker.model(model);
    checker.findings
}

/// Parses `text` as a model, checks it, and locates every finding in the
/// text ([`locate`]). A syntax error is returned as the parser's error.
pub fn check_text(text: &str) -> Result<(ModelProto, Vec<Finding>), Error> {
    let (model, map) = crate::parse_model_with_source_map(text)?;
    let mut findings = check_model(&model);
    locate(&map, &mut findings);
    Ok((model, findings))
}

/// Gives each finding (and its related items) the span of the text of the
/// IR item its path names, or of the nearest enclosing item that has one.
/// `map` must come from parsing the text of the checked model.
pub fn locate(map: &SourceMap, findings: &mut [Finding]) {
    // Header fields have no text of their own when they are missing: the
    // header stands for them, or, without one, the graph's name.
    // A graph or function is shown by its name; anything else whole.
    let find = |path: &str| {
        let body = path == "graph"
            || path.ends_with(".g")
            || path.ends_with(']')
                && path.rsplit('.').next().is_some_and(|last| {
                    last.starts_with("graphs[") || last.starts_with("functions[")
                });
        body.then(|| map.span(&format!("{path}.name")))
            .flatten()
            .or_else(|| map.find(path))
            .or_else(|| map.span("header"))
            .or_else(|| map.span("graph.name"))
            .unwrap_or(0..0)
    };
    for finding in findings {
        let path = finding.diagnostic.path.clone().unwrap_or_default();
        finding.diagnostic.span = find(&path);
        finding.diagnostic.labels = finding
            .related
            .iter()
            .map(|r| Label {
                span: find(&r.path),
                message: r.message.clone(),
            })
            .collect();
    }
}

// ---------------------------------------------------------------------------
// The checker
// ---------------------------------------------------------------------------

/// What the nodes of one graph or function body may refer to.
struct Context<'a> {
    /// The imported domains (`ai.onnx` written as `""`).
    domains: HashSet<&'a str>,
    /// Where the domains are imported (`opset_import` or
    /// `functions[0].opset_import`).
    imports: String,
    /// The enclosing function's name and declared attributes, if any.
    function: Option<(String, HashSet<&'a str>)>,
}

/// The values visible in one graph or body: its own, then its ancestors'.
struct Scope<'p, 'a> {
    /// Name to the IR path that defines it.
    local: HashMap<&'a str, String>,
    parent: Option<&'p Scope<'p, 'a>>,
}

impl<'a> Scope<'_, 'a> {
    fn outer(&self, name: &str) -> Option<&String> {
        let mut scope = self.parent;
        while let Some(s) = scope {
            if let Some(path) = s.local.get(name) {
                return Some(path);
            }
            scope = s.parent;
        }
        None
    }

    fn visible(&self, name: &str) -> bool {
        self.local.contains_key(name) || self.outer(name).is_some()
    }
}

/// A graph or a function body, seen the same way.
struct Body<'a> {
    path: &'a str,
    /// Inputs: name, IR path, subject.
    inputs: Vec<(&'a str, String)>,
    /// Initializers (with sparse initializers): name, IR path.
    initializers: Vec<(&'a str, String)>,
    nodes: &'a [NodeProto],
    outputs: Vec<(&'a str, String)>,
    /// `graph` or `function`.
    kind: &'static str,
}

#[derive(Default)]
struct Checker {
    findings: Vec<Finding>,
}

fn normalize_domain(domain: &str) -> &str {
    if domain == "ai.onnx" {
        ""
    } else {
        domain
    }
}

fn quoted(name: &str) -> String {
    format!("{name:?}")
}

fn node_subject(node: &NodeProto, path: &str) -> String {
    match node.name.as_deref() {
        Some(name) if !name.is_empty() => format!("{path} {}", quoted(name)),
        _ => format!("{path} ({})", node.op_type.as_deref().unwrap_or("")),
    }
}

fn named_subject(path: &str, name: &str) -> String {
    format!("{path} {}", quoted(name))
}

impl Checker {
    fn push(
        &mut self,
        severity: Severity,
        code: &'static str,
        subject: &str,
        path: String,
        summary: String,
    ) -> &mut Finding {
        let mut diagnostic = Diagnostic::new(code, format!("{subject}: {summary}"), 0..0);
        diagnostic.path = Some(path);
        self.findings.push(Finding {
            severity,
            diagnostic,
            summary,
            related: Vec::new(),
        });
        self.findings.last_mut().expect("just pushed")
    }

    fn error(&mut self, code: &'static str, subject: &str, path: String, summary: String) {
        self.push(Severity::Error, code, subject, path, summary);
    }

    fn error_with(
        &mut self,
        code: &'static str,
        subject: &str,
        path: String,
        summary: String,
        related: Related,
        help: Option<String>,
    ) {
        let finding = self.push(Severity::Error, code, subject, path, summary);
        finding.related.push(related);
        finding.diagnostic.help = help;
    }

    fn model(&mut self, model: &ModelProto) {
        if model.ir_version.is_none() {
            let f = self.push(
                Severity::Error,
                "onnxtxt::check::missing_ir_version",
                "model",
                "ir_version".into(),
                "the model has no `ir_version`".into(),
            );
            f.diagnostic.help = Some("add `ir_version: 10` to the `<...>` header".into());
        }
        if model.opset_import.is_empty() {
            let f = self.push(
                Severity::Error,
                "onnxtxt::check::missing_opset_import",
                "model",
                "opset_import".into(),
                "the model imports no operator set".into(),
            );
            f.diagnostic.help = Some(format!(
                "add `opset_import: [\"\": {SUGGESTED_DEFAULT_OPSET}]` to the `<...>` header"
            ));
        }
        let domains = self.opsets(&model.opset_import, "opset_import", "model");

        let mut seen: HashMap<(&str, &str, &str), usize> = HashMap::new();
        for (index, function) in model.functions.iter().enumerate() {
            let key = (
                function.domain.as_deref().unwrap_or(""),
                function.name.as_deref().unwrap_or(""),
                function.overload.as_deref().unwrap_or(""),
            );
            let path = format!("functions[{index}]");
            if let Some(&first) = seen.get(&key) {
                let what = if key.2.is_empty() {
                    format!("`{}.{}`", key.0, key.1)
                } else {
                    format!("`{}.{}:{}`", key.0, key.1, key.2)
                };
                self.error_with(
                    "onnxtxt::check::duplicate_function",
                    &function_subject(function, &path),
                    path.clone(),
                    format!("function {what} is defined twice"),
                    Related {
                        path: format!("functions[{first}]"),
                        message: "first defined here".into(),
                    },
                    Some("give one of them another name, domain or overload".into()),
                );
            } else {
                seen.insert(key, index);
            }
        }

        if let Some(graph) = &model.graph {
            let context = Context {
                domains,
                imports: "opset_import".into(),
                function: None,
            };
            self.graph(graph, "graph", None, &context);
        } else {
            self.error(
                "onnxtxt::check::missing_graph",
                "model",
                "graph".into(),
                "the model has no graph".into(),
            );
        }
        for (index, function) in model.functions.iter().enumerate() {
            self.function(function, &format!("functions[{index}]"));
        }
    }

    /// The domains `imports` imports; reports domains imported twice.
    fn opsets<'a>(
        &mut self,
        imports: &'a [OperatorSetIdProto],
        path: &str,
        subject: &str,
    ) -> HashSet<&'a str> {
        let mut domains = HashSet::new();
        for (index, opset) in imports.iter().enumerate() {
            let domain = normalize_domain(opset.domain.as_deref().unwrap_or(""));
            if !domains.insert(domain) {
                // onnx.checker accepts this; which version is meant is unclear.
                let f = self.push(
                    Severity::Warning,
                    "onnxtxt::check::duplicate_opset_import",
                    subject,
                    format!("{path}[{index}]"),
                    format!("domain {} is imported twice", quoted(domain)),
                );
                f.diagnostic.help = Some("keep one version of each domain".into());
            }
        }
        domains
    }

    fn function(&mut self, function: &FunctionProto, path: &str) {
        let subject = function_subject(function, path);
        if function.domain.is_none() && function.opset_import.is_empty() {
            // Text without a header after the graph reads as a function,
            // but was most likely meant as a second graph.
            let name = function.name.as_deref().unwrap_or("");
            let f = self.push(
                Severity::Error,
                "onnxtxt::check::function_without_header",
                &subject,
                format!("{path}.name"),
                format!("`{name}` is read as a function, but it has no domain and imports no operator set"),
            );
            f.diagnostic.help = Some(
                "a model has one graph; what follows it are functions, each with a header \
                 such as `<domain: \"local\", opset_import: [\"\": 21]>` before its name"
                    .into(),
            );
            return;
        }
        let domains = self.opsets(
            &function.opset_import,
            &format!("{path}.opset_import"),
            &subject,
        );
        // Attribute parameters: bare names (`attribute`), then those with a
        // default or type (`attribute_proto`).
        let mut declared: HashMap<&str, (String, &str)> = HashMap::new();
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
        for (name, list, index) in parameters {
            let attribute_path = format!("{path}.{list}[{index}]");
            let Some((first, first_list)) = declared.get(name) else {
                declared.insert(name, (attribute_path, list));
                continue;
            };
            // onnx.checker rejects a bare name given twice, and accepts the
            // other repetitions (which one applies is then unclear).
            let severity = if *first_list == "attribute" && list == "attribute" {
                Severity::Error
            } else {
                Severity::Warning
            };
            let f = self.push(
                severity,
                "onnxtxt::check::duplicate_attribute",
                &subject,
                attribute_path,
                format!("attribute parameter `{name}` is declared twice"),
            );
            f.related.push(Related {
                path: first.clone(),
                message: "first declared here".into(),
            });
        }
        for (index, attribute) in function.attribute_proto.iter().enumerate() {
            // Defaults are constants: they may not refer to other attributes.
            let attribute_path =
                attribute_path(path, "attribute_proto", index, &function.attribute_proto);
            self.attribute_values(attribute, &attribute_path, &subject);
        }
        for (index, info) in function.value_info.iter().enumerate() {
            let info_path = format!("{path}.value_info[{index}]");
            let name = info.name.as_deref().unwrap_or("");
            if let Some(ty) = &info.r#type {
                self.type_dims(ty, &info_path, &named_subject(&info_path, name));
            }
        }
        let context = Context {
            domains,
            imports: format!("{path}.opset_import"),
            function: Some((
                function.name.clone().unwrap_or_default(),
                declared.keys().copied().collect(),
            )),
        };
        let body = Body {
            path,
            inputs: named(&function.input, String::as_str, path, "input"),
            initializers: Vec::new(),
            nodes: &function.node,
            outputs: named(&function.output, String::as_str, path, "output"),
            kind: "function",
        };
        self.body(&body, None, &context);
    }

    fn graph(
        &mut self,
        graph: &GraphProto,
        path: &str,
        parent: Option<&Scope<'_, '_>>,
        context: &Context<'_>,
    ) {
        let infos = [
            ("input", &graph.input),
            ("output", &graph.output),
            ("value_info", &graph.value_info),
        ];
        for (field, list) in infos {
            for (index, info) in list.iter().enumerate() {
                let info_path = format!("{path}.{field}[{index}]");
                let name = info.name.as_deref().unwrap_or("");
                if let Some(ty) = &info.r#type {
                    self.type_dims(ty, &info_path, &named_subject(&info_path, name));
                }
            }
        }
        for (index, tensor) in graph.initializer.iter().enumerate() {
            let tensor_path = format!("{path}.initializer[{index}]");
            let subject = named_subject(&tensor_path, tensor.name.as_deref().unwrap_or(""));
            self.tensor(tensor, &tensor_path, &subject);
        }
        for (index, sparse) in graph.sparse_initializer.iter().enumerate() {
            let sparse_path = format!("{path}.sparse_initializer[{index}]");
            let name = sparse_name(sparse);
            self.sparse(sparse, &sparse_path, &named_subject(&sparse_path, name));
        }
        let body = Body {
            path,
            inputs: named(&graph.input, value_name, path, "input"),
            initializers: named(
                &graph.initializer,
                |t| t.name.as_deref().unwrap_or(""),
                path,
                "initializer",
            )
            .into_iter()
            .chain(named(
                &graph.sparse_initializer,
                sparse_name,
                path,
                "sparse_initializer",
            ))
            .collect(),
            nodes: &graph.node,
            outputs: named(&graph.output, value_name, path, "output"),
            kind: "graph",
        };
        self.body(&body, parent, context);
    }

    /// Single assignment, definition before use, duplicates and unused
    /// values of one graph or function body, and its nodes.
    fn body(&mut self, body: &Body<'_>, parent: Option<&Scope<'_, '_>>, context: &Context<'_>) {
        let mut scope = Scope {
            local: HashMap::new(),
            parent,
        };
        for (name, path) in &body.inputs {
            if name.is_empty() {
                continue;
            }
            if let Some(first) = scope.local.get(name) {
                let first = first.clone();
                self.error_with(
                    "onnxtxt::check::duplicate_input",
                    &named_subject(path, name),
                    path.clone(),
                    format!("the {} has two inputs named `{name}`", body.kind),
                    Related {
                        path: first,
                        message: "first input of that name".into(),
                    },
                    None,
                );
            } else {
                scope.local.insert(name, path.clone());
            }
        }
        let mut initializers: HashMap<&str, String> = HashMap::new();
        for (name, path) in &body.initializers {
            if let Some(first) = initializers.get(name) {
                let first = first.clone();
                self.error_with(
                    "onnxtxt::check::duplicate_initializer",
                    &named_subject(path, name),
                    path.clone(),
                    format!("the graph has two initializers named `{name}`"),
                    Related {
                        path: first,
                        message: "first initializer of that name".into(),
                    },
                    None,
                );
                continue;
            }
            initializers.insert(name, path.clone());
            // An initializer may also be an input (a default value).
            scope.local.entry(name).or_insert_with(|| path.clone());
        }

        // Which node first produces each value, to tell "used before it is
        // defined" from "never defined".
        let mut producers: HashMap<&str, usize> = HashMap::new();
        for (index, node) in body.nodes.iter().enumerate() {
            for output in &node.output {
                producers.entry(output.as_str()).or_insert(index);
            }
        }

        for (index, node) in body.nodes.iter().enumerate() {
            let path = format!("{}.node[{index}]", body.path);
            let subject = node_subject(node, &path);
            self.node(node, &path, &subject, &scope, context);
            for (slot, input) in node.input.iter().enumerate() {
                if input.is_empty() || scope.visible(input) {
                    continue;
                }
                let input_path = format!("{path}.input[{slot}]");
                match producers.get(input.as_str()) {
                    Some(&later) => {
                        let producer = &body.nodes[later];
                        let later_path = format!("{}.node[{later}]", body.path);
                        let slot = producer.output.iter().position(|o| o == input).unwrap_or(0);
                        let summary = if later == index {
                            format!("`{input}` is used by the node that produces it")
                        } else {
                            format!("`{input}` is used before it is defined")
                        };
                        self.error_with(
                            "onnxtxt::check::use_before_definition",
                            &subject,
                            input_path,
                            summary,
                            Related {
                                path: format!("{later_path}.output[{slot}]"),
                                message: format!(
                                    "`{input}` is defined here, by {}",
                                    node_subject(producer, &later_path)
                                ),
                            },
                            Some("nodes must come after the nodes whose outputs they use".into()),
                        );
                    }
                    None => {
                        let f = self.push(
                            Severity::Error,
                            "onnxtxt::check::undefined_value",
                            &subject,
                            input_path,
                            format!("`{input}` is used but never defined"),
                        );
                        f.diagnostic.help = Some(format!(
                            "a value must be a {} input{}, or the output of an earlier node",
                            body.kind,
                            if body.kind == "graph" {
                                ", an initializer"
                            } else {
                                ""
                            }
                        ));
                    }
                }
            }
            for (slot, output) in node.output.iter().enumerate() {
                if output.is_empty() {
                    continue;
                }
                let output_path = format!("{path}.output[{slot}]");
                if let Some(first) = scope.local.get(output.as_str()) {
                    let first = first.clone();
                    self.error_with(
                        "onnxtxt::check::reassigned",
                        &subject,
                        output_path,
                        format!("`{output}` is assigned a second time"),
                        Related {
                            path: first,
                            message: format!("`{output}` is first defined here"),
                        },
                        Some(
                            "every value must be assigned exactly once; rename one of them".into(),
                        ),
                    );
                } else if let Some(first) = scope.outer(output) {
                    let first = first.clone();
                    self.error_with(
                        "onnxtxt::check::reassigned",
                        &subject,
                        output_path,
                        format!("`{output}` is already defined in an enclosing graph"),
                        Related {
                            path: first,
                            message: format!("`{output}` is defined here"),
                        },
                        Some("a subgraph may not redefine a value of an enclosing graph".into()),
                    );
                } else {
                    scope.local.insert(output, output_path);
                }
            }
        }

        let mut listed: HashSet<&str> = HashSet::new();
        for (name, path) in &body.outputs {
            if name.is_empty() {
                continue;
            }
            if !scope.visible(name) {
                // onnx.checker rejects this in a graph, not in a function.
                let severity = if body.kind == "graph" {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                let f = self.push(
                    severity,
                    "onnxtxt::check::output_not_assigned",
                    &named_subject(path, name),
                    path.clone(),
                    format!("{} output `{name}` is never assigned", body.kind),
                );
                f.diagnostic.help = Some(format!(
                    "assign `{name}` in a node, or remove it from the outputs"
                ));
            }
            if !listed.insert(name) {
                self.push(
                    Severity::Warning,
                    "onnxtxt::check::duplicate_output",
                    &named_subject(path, name),
                    path.clone(),
                    format!("`{name}` is listed twice among the outputs"),
                );
            }
        }

        // Unused values: node outputs and initializers nobody reads.
        let mut used: HashSet<&str> = body.outputs.iter().map(|(n, _)| *n).collect();
        for node in body.nodes {
            uses_of_node(node, &mut used);
        }
        for (index, node) in body.nodes.iter().enumerate() {
            for (slot, output) in node.output.iter().enumerate() {
                if output.is_empty() || used.contains(output.as_str()) {
                    continue;
                }
                let path = format!("{}.node[{index}]", body.path);
                let f = self.push(
                    Severity::Warning,
                    "onnxtxt::check::unused_value",
                    &node_subject(node, &path),
                    format!("{path}.output[{slot}]"),
                    format!("`{output}` is never used"),
                );
                f.diagnostic.help = Some(format!(
                    "use it, make it a {} output, or leave the output name empty",
                    body.kind
                ));
            }
        }
        for (name, path) in &body.initializers {
            if !used.contains(name) {
                self.push(
                    Severity::Warning,
                    "onnxtxt::check::unused_initializer",
                    &named_subject(path, name),
                    path.clone(),
                    format!("initializer `{name}` is never used"),
                );
            }
        }
    }

    /// A node's domain, attributes and subgraphs.
    fn node(
        &mut self,
        node: &NodeProto,
        path: &str,
        subject: &str,
        scope: &Scope<'_, '_>,
        context: &Context<'_>,
    ) {
        let domain = node.domain.as_deref().unwrap_or("");
        if !context.domains.contains(normalize_domain(domain)) {
            let shown = if domain.is_empty() {
                "the default domain \"\" (ai.onnx)".to_string()
            } else {
                format!("domain {}", quoted(domain))
            };
            let f = self.push(
                Severity::Error,
                "onnxtxt::check::domain_not_imported",
                subject,
                path.to_string(),
                format!("{shown} is not imported by `{}`", context.imports),
            );
            let version = if normalize_domain(domain).is_empty() {
                SUGGESTED_DEFAULT_OPSET
            } else {
                1
            };
            f.diagnostic.help = Some(format!(
                "add `{}: {version}` (with the right version) to `{}`",
                quoted(domain),
                context.imports
            ));
        }
        let mut names: HashMap<&str, usize> = HashMap::new();
        for (index, attribute) in node.attribute.iter().enumerate() {
            let attribute_path = attribute_path(path, "attribute", index, &node.attribute);
            let name = attribute.name.as_deref().unwrap_or("");
            if let Some(&first) = names.get(name) {
                self.error_with(
                    "onnxtxt::check::duplicate_attribute",
                    subject,
                    attribute_path.clone(),
                    format!("attribute `{name}` is given twice"),
                    Related {
                        path: format!("{path}.attribute[{first}]"),
                        message: "first given here".into(),
                    },
                    None,
                );
            } else {
                names.insert(name, index);
            }
            if let Some(reference) = attribute.ref_attr_name.as_deref() {
                match &context.function {
                    // Both are warnings: onnx.checker accepts them, and a
                    // reference that the call does not resolve is absent.
                    None => {
                        let f = self.push(
                            Severity::Warning,
                            "onnxtxt::check::attribute_reference",
                            subject,
                            attribute_path.clone(),
                            format!(
                                "attribute `{name}` refers to `@{reference}` outside a function"
                            ),
                        );
                        f.diagnostic.help = Some(
                            "attribute references are only meaningful in function bodies".into(),
                        );
                    }
                    Some((function, declared)) if !declared.contains(reference) => {
                        let mut known: Vec<&str> = declared.iter().copied().collect();
                        known.sort_unstable();
                        let f = self.push(
                            Severity::Warning,
                            "onnxtxt::check::attribute_reference",
                            subject,
                            attribute_path.clone(),
                            format!("`@{reference}` is not an attribute of function `{function}`"),
                        );
                        f.diagnostic.help = Some(if known.is_empty() {
                            format!("declare it: `{function} <{reference}> (...)`")
                        } else {
                            format!("its attributes are: {}", known.join(", "))
                        });
                    }
                    Some(_) => {}
                }
            }
            self.attribute_values(attribute, &attribute_path, subject);
            if let Some(graph) = &attribute.g {
                self.graph(graph, &format!("{attribute_path}.g"), Some(scope), context);
            }
            for (g, graph) in attribute.graphs.iter().enumerate() {
                self.graph(
                    graph,
                    &format!("{attribute_path}.graphs[{g}]"),
                    Some(scope),
                    context,
                );
            }
        }
    }

    /// The tensors, sparse tensors and types an attribute holds.
    fn attribute_values(&mut self, attribute: &AttributeProto, path: &str, subject: &str) {
        let name = attribute.name.as_deref().unwrap_or("");
        let subject = format!("{subject} attribute `{name}`");
        if let Some(t) = &attribute.t {
            self.tensor(t, &format!("{path}.t"), &subject);
        }
        for (i, t) in attribute.tensors.iter().enumerate() {
            self.tensor(t, &format!("{path}.tensors[{i}]"), &subject);
        }
        if let Some(s) = &attribute.sparse_tensor {
            self.sparse(s, &format!("{path}.sparse_tensor"), &subject);
        }
        for (i, s) in attribute.sparse_tensors.iter().enumerate() {
            self.sparse(s, &format!("{path}.sparse_tensors[{i}]"), &subject);
        }
        if let Some(tp) = &attribute.tp {
            self.type_dims(tp, &format!("{path}.tp"), &subject);
        }
        for (i, tp) in attribute.type_protos.iter().enumerate() {
            self.type_dims(tp, &format!("{path}.type_protos[{i}]"), &subject);
        }
    }

    /// Negative dimensions in a type.
    fn type_dims(&mut self, ty: &TypeProto, path: &str, subject: &str) {
        let shape = match &ty.value {
            Some(TypeValue::TensorType(t)) => t.shape.as_ref(),
            Some(TypeValue::SparseTensorType(t)) => t.shape.as_ref(),
            Some(TypeValue::SequenceType(s)) => {
                if let Some(e) = &s.elem_type {
                    self.type_dims(e, path, subject);
                }
                None
            }
            Some(TypeValue::OptionalType(s)) => {
                if let Some(e) = &s.elem_type {
                    self.type_dims(e, path, subject);
                }
                None
            }
            Some(TypeValue::MapType(m)) => {
                if let Some(e) = &m.value_type {
                    self.type_dims(e, path, subject);
                }
                None
            }
            _ => None,
        };
        let dims = shape.map(|s| s.dim.as_slice()).unwrap_or_default();
        // A warning in a type: onnx.checker rejects a negative dimension of
        // a tensor constant, but not of a declared type by itself.
        self.negative_dimensions(
            Severity::Warning,
            dims.iter().map(|dim| match dim.value {
                Some(DimValue::DimValue(v)) => v,
                _ => 0,
            }),
            path,
            subject,
        );
    }

    /// Reports every negative value of `dims`, a shape's dimensions (0 for
    /// one that has no value), as `severity`; returns whether there was one.
    fn negative_dimensions(
        &mut self,
        severity: Severity,
        dims: impl IntoIterator<Item = i64>,
        path: &str,
        subject: &str,
    ) -> bool {
        let mut any = false;
        for (index, d) in dims.into_iter().enumerate() {
            if d < 0 {
                self.push(
                    severity,
                    "onnxtxt::check::negative_dimension",
                    subject,
                    path.to_string(),
                    format!("dimension {index} is {d}; dimensions cannot be negative"),
                );
                any = true;
            }
        }
        any
    }

    fn sparse(&mut self, sparse: &SparseTensorProto, path: &str, subject: &str) {
        self.negative_dimensions(Severity::Error, sparse.dims.iter().copied(), path, subject);
        if let Some(values) = &sparse.values {
            self.tensor(values, &format!("{path}.values"), subject);
        }
        if let Some(indices) = &sparse.indices {
            self.tensor(indices, &format!("{path}.indices"), subject);
        }
    }

    /// A tensor constant: dims, element count against the stored values,
    /// and values that fit the element type.
    fn tensor(&mut self, tensor: &TensorProto, path: &str, subject: &str) {
        let code_size = "onnxtxt::check::tensor_size";
        let mut count: u64 = 1;
        if self.negative_dimensions(Severity::Error, tensor.dims.iter().copied(), path, subject) {
            return;
        }
        for &d in &tensor.dims {
            match count.checked_mul(d as u64) {
                Some(c) => count = c,
                None => {
                    self.error(
                        code_size,
                        subject,
                        path.to_string(),
                        format!(
                            "the shape {:?} has more elements than can be counted",
                            tensor.dims
                        ),
                    );
                    return;
                }
            }
        }
        let data_type = tensor.data_type.unwrap_or(0);
        let type_name = crate::vocabulary::element_type_name(data_type);
        let Some(field) = typed_field(data_type) else {
            self.error(
                "onnxtxt::check::tensor_type",
                subject,
                path.to_string(),
                if data_type == 0 {
                    "the tensor has no element type".to_string()
                } else {
                    format!("the tensor has an unknown element type ({data_type})")
                },
            );
            return;
        };
        let type_name = type_name.unwrap_or("?");
        if tensor.data_location == Some(DataLocation::External as i32) || tensor.segment.is_some() {
            return;
        }
        let shape = shape_text(&tensor.dims);
        let fields = [
            (TypedField::Int32Data, "int32_data", tensor.int32_data.len()),
            (TypedField::Int64Data, "int64_data", tensor.int64_data.len()),
            (
                TypedField::Uint64Data,
                "uint64_data",
                tensor.uint64_data.len(),
            ),
            (TypedField::FloatData, "float_data", tensor.float_data.len()),
            (
                TypedField::DoubleData,
                "double_data",
                tensor.double_data.len(),
            ),
            (
                TypedField::StringData,
                "string_data",
                tensor.string_data.len(),
            ),
        ];
        let (_, expected_field, len) = fields
            .iter()
            .copied()
            .find(|(f, _, _)| *f == field)
            .expect("every field is listed");
        for (f, name, n) in fields {
            if f != field && n > 0 {
                self.error(
                    "onnxtxt::check::tensor_field",
                    subject,
                    path.to_string(),
                    format!("{type_name} values belong in {expected_field}, but {n} are in {name}"),
                );
                return;
            }
        }
        if let Some(raw) = &tensor.raw_data {
            if data_type == DataType::String as i32 {
                self.error(
                    "onnxtxt::check::tensor_field",
                    subject,
                    path.to_string(),
                    "string tensors cannot be stored in raw_data".into(),
                );
                return;
            }
            if len > 0 {
                self.error(
                    "onnxtxt::check::tensor_field",
                    subject,
                    path.to_string(),
                    format!("the values are stored twice, in raw_data and in {expected_field}"),
                );
                return;
            }
            let expected = usize::try_from(count)
                .ok()
                .and_then(|n| raw_byte_len(data_type, n));
            if expected != Some(raw.len()) {
                let takes = expected.map_or_else(|| "too many".to_string(), |e| e.to_string());
                self.push(
                    size_severity(raw.len(), expected),
                    code_size,
                    subject,
                    path.to_string(),
                    format!(
                        "raw_data holds {} bytes, but {count} {type_name} elements (shape {shape}) take {takes}",
                        raw.len()
                    ),
                );
                return;
            }
            if data_type == DataType::Bool as i32 {
                if let Some(i) = raw.iter().position(|&b| b > 1) {
                    self.push(
                        Severity::Warning,
                        "onnxtxt::check::tensor_value",
                        subject,
                        path.to_string(),
                        format!("element {i} is {}; bool values are 0 or 1", raw[i]),
                    );
                }
            }
            return;
        }
        let complex =
            data_type == DataType::Complex64 as i32 || data_type == DataType::Complex128 as i32;
        let per_element: u64 = if complex { 2 } else { 1 };
        let expected = count.checked_mul(per_element);
        let packed = sub_byte_bits(data_type)
            .and_then(|bits| count.checked_mul(bits))
            .map(|b| b.div_ceil(8));
        let len = len as u64;
        let range = element_range(data_type);
        if Some(len) == expected {
            if let Some((min, max)) = range {
                self.values_in_range(tensor, path, subject, type_name, min, max, "element");
            }
        } else if packed.is_some() && Some(len) == packed {
            // The IR's packed layout: two (or four) elements per entry.
            self.values_in_range(tensor, path, subject, type_name, 0, 255, "packed entry");
        } else {
            let values = if complex {
                format!(
                    "{len} numbers ({count} elements need {} real and imaginary parts)",
                    2 * count
                )
            } else {
                format!("{len} values")
            };
            let (summary, help) = if len == 0 && tensor.dims.is_empty() {
                (
                    "the tensor has no values".to_string(),
                    Some("a scalar needs one value".to_string()),
                )
            } else {
                let elements = if count == 1 { "element" } else { "elements" };
                (
                    format!(
                        "the shape {shape} holds {count} {elements}, but the tensor has {values}"
                    ),
                    Some("the number of values must be the product of the dimensions".to_string()),
                )
            };
            // onnx.checker counts the entries of sub-byte types only as
            // "some or none".
            let fewest = if packed.is_some() { Some(1) } else { expected };
            let fewest = fewest.and_then(|n| usize::try_from(n).ok());
            let severity = size_severity(usize::try_from(len).unwrap_or(usize::MAX), fewest);
            let f = self.push(severity, code_size, subject, path.to_string(), summary);
            f.diagnostic.help = help;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn values_in_range(
        &mut self,
        tensor: &TensorProto,
        path: &str,
        subject: &str,
        type_name: &str,
        min: i64,
        max: i64,
        what: &str,
    ) {
        let values: Box<dyn Iterator<Item = i128>> =
            if tensor.data_type == Some(DataType::Uint32 as i32) {
                Box::new(tensor.uint64_data.iter().map(|&v| i128::from(v)))
            } else {
                Box::new(tensor.int32_data.iter().map(|&v| i128::from(v)))
            };
        for (index, value) in values.enumerate() {
            if value < i128::from(min) || value > i128::from(max) {
                // onnx.checker does not look at values; runtimes truncate.
                let f = self.push(
                    Severity::Warning,
                    "onnxtxt::check::tensor_value",
                    subject,
                    path.to_string(),
                    format!(
                        "{what} {index} is {value}, which does not fit {type_name} (range {min} to {max})"
                    ),
                );
                if is_float_bits(tensor.data_type.unwrap_or(0)) {
                    f.diagnostic.help = Some(format!(
                        "integers in a {type_name} tensor are bit patterns; write a decimal (`1.0`) for a value"
                    ));
                }
                return;
            }
        }
    }
}

/// How bad a tensor holding the wrong number of values (or bytes),
/// `stored`, is: fewer than onnx.checker accepts (`fewest_accepted`) is an
/// error; more than the shape needs is only a warning, since the checker
/// accepts them (and readers ignore the rest).
fn size_severity(stored: usize, fewest_accepted: Option<usize>) -> Severity {
    match fewest_accepted {
        Some(fewest) if stored >= fewest => Severity::Warning,
        _ => Severity::Error,
    }
}

fn function_subject(function: &FunctionProto, path: &str) -> String {
    let name = function.name.as_deref().unwrap_or("");
    match function.domain.as_deref() {
        Some(domain) if !domain.is_empty() => {
            format!("{path} {}", quoted(&format!("{domain}.{name}")))
        }
        _ => named_subject(path, name),
    }
}

fn sparse_name(sparse: &SparseTensorProto) -> &str {
    sparse
        .values
        .as_ref()
        .and_then(|v| v.name.as_deref())
        .unwrap_or("")
}

fn shape_text(dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// Every value name a node reads, with those its subgraphs read (outer
/// values are visible in subgraphs) or list as outputs.
fn uses_of_node<'a>(node: &'a NodeProto, used: &mut HashSet<&'a str>) {
    used.extend(node.input.iter().map(String::as_str));
    for attribute in &node.attribute {
        for graph in attribute.g.as_deref().into_iter().chain(&attribute.graphs) {
            used.extend(graph.output.iter().filter_map(|o| o.name.as_deref()));
            for inner in &graph.node {
                uses_of_node(inner, used);
            }
        }
    }
}

/// The bits per element of the sub-byte types.
fn sub_byte_bits(data_type: i32) -> Option<u64> {
    use DataType as D;
    Some(match DataType::try_from(data_type).ok()? {
        D::Int4 | D::Uint4 | D::Float4e2m1 => 4,
        D::Int2 | D::Uint2 => 2,
        D::Float6e2m3 | D::Float6e3m2 => 6,
        _ => return None,
    })
}

fn is_float_bits(data_type: i32) -> bool {
    crate::tensor_data::is_narrow_float(data_type)
}

/// The range of one `int32_data` (or, for uint32, `uint64_data`) entry.
fn element_range(data_type: i32) -> Option<(i64, i64)> {
    use DataType as D;
    Some(match DataType::try_from(data_type).ok()? {
        D::Int8 => (-128, 127),
        D::Uint8 => (0, 255),
        D::Int16 => (-32768, 32767),
        D::Uint16 | D::Float16 | D::Bfloat16 => (0, 65535),
        D::Bool => (0, 1),
        D::Int4 => (-8, 7),
        D::Uint4 | D::Float4e2m1 => (0, 15),
        D::Int2 => (-2, 1),
        D::Uint2 => (0, 3),
        D::Float6e2m3 | D::Float6e3m2 => (0, 63),
        D::Float8e4m3fn | D::Float8e4m3fnuz | D::Float8e5m2 | D::Float8e5m2fnuz | D::Float8e8m0 => {
            (0, 255)
        }
        D::Uint32 => (0, i64::from(u32::MAX)),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// Locating IR items in the text
// ---------------------------------------------------------------------------
