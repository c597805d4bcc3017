//! Hover text, in Markdown: an operator's signature at the opset the text
//! imports (from [`crate::ops`]), a value's type and where it is defined,
//! an attribute's type and default, a function's signature, what a header
//! key holds.

use foldhash::HashMap;
use std::fmt::Write as _;

use super::index::{EntryKind, Index, Node, Symbol};
use super::{Analysis, SymbolKind, TokenClass, ValueOrigin};
use crate::error::Span;
use crate::infer::Type;
use crate::ops;
use crate::proto::ModelProto;

pub(super) fn hover(analysis: &Analysis, offset: usize) -> Option<(Span, String)> {
    let Some(entry) = analysis.index.entry_at(offset) else {
        let (span, class) = analysis.word_at(offset)?;
        let key = &analysis.text[span.clone()];
        return (class == TokenClass::Keyword)
            .then(|| header_key(key))
            .flatten()
            .map(|text| (span, text.to_owned()));
    };
    let index = &analysis.index;
    let text = match entry.kind {
        EntryKind::Operator(node) => operator(index, &index.nodes[node]),
        EntryKind::AttributeName(node, attribute) => {
            attribute_name(index, &index.nodes[node], attribute)?
        }
        EntryKind::Symbol(id, _) => symbol(analysis, &index.symbols[id]),
        EntryKind::Reference => {
            "an attribute reference: it names an attribute of the function that holds it, \
             and this function declares none by that name"
                .to_owned()
        }
        EntryKind::Label(_) => return None,
    };
    Some((entry.span.clone(), text))
}

/// A code block of `text`, in `language`.
fn code(language: &str, text: &str) -> String {
    format!("```{language}\n{text}\n```\n")
}

/// The 1-based line of `offset` in `text`.
fn line(text: &str, offset: usize) -> usize {
    text[..offset].bytes().filter(|&b| b == b'\n').count() + 1
}

/// The domain as people write it: `ai.onnx` for `""`.
fn domain_name(domain: &str) -> &str {
    ops::domain(domain).map_or(domain, |d| d.display_name())
}

fn operator(index: &Index, node: &Node) -> String {
    let domain = domain_name(&node.domain);
    let Some(opset) = index.opset(node.body, &node.domain) else {
        return format!(
            "`{}`: the domain `{domain}` is not imported (add it to `opset_import`)",
            node.op_type
        );
    };
    match ops::schema(&node.domain, &node.op_type, opset) {
        Some(schema) => signature(schema),
        None => match ops::operator(&node.domain, &node.op_type) {
            Some(op) => format!(
                "`{}` is not in `{domain}` at opset {opset}: it came in opset {}\n\n{}\n",
                node.op_type,
                op.versions()[0].since_version(),
                op.doc_url()
            ),
            None => format!("no operator `{}` in `{domain}`", node.op_type),
        },
    }
}

/// A schema's signature as a code block, and its link.
fn signature(schema: &'static ops::Schema) -> String {
    let url = schema.doc_url();
    let text = schema.signature().to_string();
    let lines: Vec<&str> = text.lines().filter(|l| *l != url).collect();
    format!(
        "{}\n[{url}]({url})\n",
        code("text", lines.join("\n").trim_end())
    )
}

fn attribute_name(index: &Index, node: &Node, attribute: usize) -> Option<String> {
    let name = &node.attributes[attribute];
    if let Some(function) = node.function {
        let function = &index.symbols[function];
        let declared = index.symbols.iter().find(|s| {
            s.kind == SymbolKind::FunctionAttribute && s.body == function.body && &s.name == name
        });
        return Some(match declared {
            Some(declared) => function_attribute(index, declared),
            None => format!("`{}` declares no attribute `{name}`", function.name),
        });
    }
    let opset = index.opset(node.body, &node.domain)?;
    let schema = ops::schema(&node.domain, &node.op_type, opset)?;
    let Some(declared) = schema.attribute(name) else {
        return Some(format!(
            "`{}` version {} has no attribute `{name}`",
            schema.name(),
            schema.since_version()
        ));
    };
    let mut text = code("onnxtxt", &declared.to_string());
    let _ = write!(
        text,
        "attribute of `{}` ({} version {})",
        schema.name(),
        domain_name(schema.domain()),
        schema.since_version()
    );
    if declared.default_value().is_some() {
        text.push_str(", with this default");
    }
    Some(text)
}

fn symbol(analysis: &Analysis, symbol: &Symbol) -> String {
    let index = &analysis.index;
    match symbol.kind {
        SymbolKind::Value(origin) => value(analysis, symbol, origin),
        SymbolKind::Function => {
            let body = &index.bodies[symbol.body];
            let span = body.span.clone().unwrap_or_default();
            let written = &analysis.text[span.clone()];
            let head = written.find('{').map_or(written, |brace| &written[..brace]);
            let mut text = code("onnxtxt", head.trim());
            let _ = write!(
                text,
                "model-local function, {} nodes, line {}",
                body.nodes.len(),
                line(&analysis.text, span.start)
            );
            text
        }
        SymbolKind::FunctionAttribute => function_attribute(index, symbol),
    }
}

fn function_attribute(index: &Index, symbol: &Symbol) -> String {
    let function = &index.bodies[symbol.body].name;
    match &symbol.declaration {
        Some(declaration) => format!(
            "{}attribute of function `{function}`",
            code("onnxtxt", &crate::to_text(declaration))
        ),
        None => format!(
            "{}attribute of function `{function}`, declared with no type or default",
            code("onnxtxt", &symbol.name)
        ),
    }
}

/// The type inference gives each value of the model's graphs, as text
/// (`float[B,4]`), by the graph's IR path and the value's name; values it
/// knows nothing of are left out.
pub(super) type InferredTypes = HashMap<(String, String), String>;

pub(super) fn inferred_types(model: Option<&ModelProto>) -> InferredTypes {
    let Some(model) = model else {
        return InferredTypes::default();
    };
    let inference = crate::infer::infer_model(model, crate::infer::Options::default());
    let mut types = InferredTypes::default();
    for graph in inference.graphs() {
        for (name, ty) in graph.types() {
            if *ty != Type::Unknown {
                types.insert((graph.path.clone(), (*name).to_owned()), ty.to_string());
            }
        }
    }
    types
}

/// A value's type, as far as it is known: the type the text declares,
/// or else the one inferred (`true` when inferred).
fn value_type(analysis: &Analysis, symbol: &Symbol) -> Option<(String, bool)> {
    if let Some(declared) = &symbol.ty {
        return Some((crate::to_text(declared), false));
    }
    let body = &analysis.index.bodies[symbol.body];
    let inferred = analysis
        .inferred
        .get_or_init(|| inferred_types(analysis.model.as_ref()));
    let key = (body.path.clone(), symbol.name.clone());
    inferred.get(&key).map(|ty| (ty.clone(), true))
}

fn value(analysis: &Analysis, symbol: &Symbol, origin: ValueOrigin) -> String {
    let index = &analysis.index;
    let body = &index.bodies[symbol.body];
    let ty = value_type(analysis, symbol);
    let written = match &ty {
        Some((ty, _)) => format!("{ty} {}", symbol.name),
        None => symbol.name.clone(),
    };
    let mut text = code("onnxtxt", &written);
    let kind = match body.kind {
        super::BodyKind::Graph => "graph",
        super::BodyKind::Function => "function",
    };
    let of = format!("{kind} `{}`", body.name);
    let defined = match origin {
        ValueOrigin::GraphInput => format!("input of {of}"),
        ValueOrigin::Initializer => format!("initializer of {of}"),
        ValueOrigin::FunctionInput => format!("input of {of}"),
        ValueOrigin::NodeOutput { slot } => {
            let node = symbol.definition.as_ref().and_then(|d| {
                body.nodes
                    .iter()
                    .map(|&n| &index.nodes[n])
                    .find(|n| n.span.as_ref().is_some_and(|s| s.contains(&d.start)))
            });
            match node {
                Some(node) => {
                    let label = match &node.label {
                        Some(label) if !label.is_empty() => format!("`{label}` "),
                        _ => String::new(),
                    };
                    format!("output {slot} of node {label}(`{}`) in {of}", node.op_type)
                }
                None => format!("output {slot} of a node of {of}"),
            }
        }
        ValueOrigin::Undefined => format!("used in {of} but never defined"),
    };
    text.push_str(&defined);
    if let Some(definition) = &symbol.definition {
        let _ = write!(text, ", line {}", line(&analysis.text, definition.start));
    }
    match ty {
        Some((_, true)) => text.push_str("\n\ntype inferred, none declared"),
        None if origin != ValueOrigin::Undefined => {
            text.push_str("\n\nno type declared or inferred")
        }
        _ => {}
    }
    text
}

/// What a header key holds, in a line.
fn header_key(key: &str) -> Option<&'static str> {
    Some(match key {
        "ir_version" => "`ir_version`: the version of the ONNX IR the model is written for (an integer)",
        "opset_import" => "`opset_import`: the operator sets used, as `[\"domain\": version, ...]` (`\"\"` is `ai.onnx`)",
        "producer_name" => "`producer_name`: the tool that made the model",
        "producer_version" => "`producer_version`: the version of that tool",
        "domain" => "`domain`: the model's (or function's) namespace, in reverse domain-name order",
        "model_version" => "`model_version`: the version of the model itself (an integer)",
        "doc_string" => "`doc_string`: free text about the model or function",
        "metadata_props" => "`metadata_props`: `[\"key\": \"value\", ...]` pairs",
        "overload" => "`overload`: tells apart functions of the same domain and name",
        _ => return None,
    })
}
