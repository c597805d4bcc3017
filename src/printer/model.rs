//! Models and functions: the `<key: value, ...>` headers (one key per line)
//! and the top-level layout (header, main graph, then each function after a
//! blank line).
//!
//! Header keys the reference grammar has are written in its form; the
//! others (`training_info`, `configuration` for models, `metadata_props`
//! for functions, `graph: unset`, `name: unset`) are extension entries of
//! the same `key: value` shape. A reference key whose value the reference
//! form cannot hold (an opset import or metadata entry with a missing
//! field) is written as a list of messages.

use super::annotation::value_of;
use super::annotation_values::{
    metadata_pairs, metadata_props_are_pairs, opset_pairs, opsets_are_pairs, set_fields, Ann,
    AnnMessage, Entries, UNSET,
};
use super::graph::{self, GraphPlace, ListedNode, ListedTensor};
use super::lists::ListLayout;
use super::sink::Sink;
use super::types::{self, GraphValues};
use crate::ir_path::AttributeKeys;
use crate::proto::{
    FunctionProto, GraphProto, ModelProto, OperatorSetIdProto, StringStringEntryProto,
};
use crate::vocabulary::{FUNCTION_HEADER_KEYS, MODEL_HEADER_KEYS};

/// Writes a header: `entries`, one per line; in compat mode without the
/// keys the reference header does not have (any key not in `reference`).
fn header(s: &mut Sink<'_>, entries: &Entries<'_>, reference: &[&str]) {
    let kept: Vec<&(&str, Ann<'_>)> = entries
        .iter()
        .filter(|(key, _)| {
            let extension = !reference.contains(key);
            if extension && s.compat() {
                s.report(format!(
                    "`{key}` dropped (the reference header has no such key)"
                ));
            }
            !(extension && s.compat())
        })
        .collect();
    if kept.is_empty() {
        return;
    }
    s.text("<");
    s.indent();
    for (i, (key, value)) in kept.iter().enumerate() {
        s.newline();
        s.text(key);
        s.text(": ");
        s.at(key, |s| value_of(s, value));
        if i + 1 < kept.len() {
            s.text(",");
        }
    }
    s.dedent();
    s.newline();
    s.text(">");
    s.newline();
}

/// The `opset_import` entry: the reference's `["domain": version]` form
/// when it can hold the list (or in compat mode, with defaults for what
/// is missing), else a list of messages.
fn opset_entry<'a>(s: &mut Sink<'_>, opsets: &'a [OperatorSetIdProto], entries: &mut Entries<'a>) {
    if opsets.is_empty() {
        return;
    }
    let pairs = opsets_are_pairs(opsets);
    if !pairs && s.compat() {
        s.report("opset import entry with a missing domain or version written with the default");
    }
    let value = if pairs || s.compat() {
        opset_pairs(opsets)
    } else {
        OperatorSetIdProto::ann_list(opsets)
    };
    entries.push(("opset_import", value));
}

/// The `metadata_props` entry: the reference's `["key": "value"]` form
/// when it can hold the list (or, in compat mode and where the reference
/// header has the key, with defaults for what is missing), else a list of
/// messages.
fn metadata_entry<'a>(
    s: &mut Sink<'_>,
    props: &'a [StringStringEntryProto],
    reference: &[&str],
    entries: &mut Entries<'a>,
) {
    if props.is_empty() {
        return;
    }
    let pairs = metadata_props_are_pairs(props);
    let defaults = s.compat() && reference.contains(&"metadata_props");
    if !pairs && defaults {
        s.report("metadata entry with a missing key or value written with the default");
    }
    let value = if pairs || defaults {
        metadata_pairs(props)
    } else {
        StringStringEntryProto::ann_list(props)
    };
    entries.push(("metadata_props", value));
}

/// Writes a model.
pub(crate) fn model(s: &mut Sink<'_>, m: &ModelProto) {
    let (nodes, initializers) = match &m.graph {
        Some(g) => (&g.node[..], &g.initializer[..]),
        None => (&[][..], &[][..]),
    };
    model_with(s, m, None::<&GraphProto>, nodes, initializers);
}

/// Writes a model with `values` (if any) for its graph's inputs, outputs
/// and value infos, `nodes` and `initializers` for its graph's (those of
/// `m`'s graph are not read).
pub(crate) fn model_with<V: GraphValues, N: ListedNode, T: ListedTensor>(
    s: &mut Sink<'_>,
    m: &ModelProto,
    values: Option<&V>,
    nodes: &[N],
    initializers: &[T],
) {
    s.leading_comments();
    let mut entries = Vec::new();
    set_fields!(entries, m, ir_version);
    opset_entry(s, &m.opset_import, &mut entries);
    set_fields!(
        entries,
        m,
        producer_name,
        producer_version,
        domain,
        model_version,
        doc_string
    );
    metadata_entry(s, &m.metadata_props, &MODEL_HEADER_KEYS, &mut entries);
    set_fields!(entries, m, training_info, configuration);
    if m.graph.is_none() {
        entries.push(("graph", UNSET));
    }
    header(s, &entries, &MODEL_HEADER_KEYS);
    let placeholder = GraphProto {
        name: Some("_".into()),
        ..Default::default()
    };
    s.at("graph", |s| {
        s.leading_comments();
        let graph = m.graph.as_ref().unwrap_or(&placeholder);
        match values {
            Some(values) => {
                graph::graph_with(s, graph, GraphPlace::Top, values, nodes, initializers)
            }
            None => graph::graph_with(s, graph, GraphPlace::Top, graph, nodes, initializers),
        }
    });
    s.end_line();
    for (i, f) in m.functions.iter().enumerate() {
        s.end_line();
        s.at_index("functions", i, |s| {
            s.leading_comments();
            function_body(s, f)
        });
        s.end_line();
    }
    // Comments after everything else.
    for line in s.comments_at(|c| &c.closing) {
        s.text(&line);
        s.end_line();
    }
}

/// [`crate::Print`] for a function alone.
pub(crate) fn function(s: &mut Sink<'_>, f: &FunctionProto) {
    function_body(s, f);
    s.end_line();
}

fn function_body(s: &mut Sink<'_>, f: &FunctionProto) {
    let mut entries = Vec::new();
    set_fields!(entries, f, domain, overload);
    opset_entry(s, &f.opset_import, &mut entries);
    set_fields!(entries, f, doc_string);
    metadata_entry(s, &f.metadata_props, &FUNCTION_HEADER_KEYS, &mut entries);
    if f.name.is_none() {
        entries.push(("name", UNSET));
    }
    header(s, &entries, &FUNCTION_HEADER_KEYS);

    s.name(f.name.as_deref().unwrap_or(""));
    s.text(" ");
    let kept = graph::kept_attributes(s, &f.attribute_proto);
    if !f.attribute.is_empty() || !kept.is_empty() {
        s.text("<");
        s.list(&f.attribute, |s, _, a| s.name(a));
        if !f.attribute.is_empty() && !kept.is_empty() {
            s.text(", ");
        }
        let keys = AttributeKeys::new(&f.attribute_proto);
        s.list(&kept, |s, _, (i, a)| {
            graph::at_attribute(s, "attribute_proto", &keys, *i, |s| {
                graph::attribute(s, a, true)
            });
        });
        s.text("> ");
    }
    // Typed inputs and outputs create value infos in order; the value infos
    // that match that order are written inline, the rest after the outputs.
    let mut next = 0;
    let mut io_list = |s: &mut Sink<'_>, names: &[String]| {
        s.text("(");
        s.list(names, |s, _, name| {
            let inline = f.value_info.get(next).filter(|vi| {
                vi.name.as_deref() == Some(name.as_str())
                    && vi.r#type.as_ref().and_then(types::type_image).is_some()
            });
            match inline {
                Some(vi) => {
                    let index = next;
                    s.at_index("value_info", index, |s| types::value_info(s, vi));
                    next += 1;
                }
                None => s.name(name),
            }
        });
        s.text(")");
    };
    io_list(s, &f.input);
    s.text(" => ");
    io_list(s, &f.output);
    let rest = &f.value_info[next..];
    if !rest.is_empty() {
        s.text(" ");
        s.block_list(
            "<",
            ">",
            rest,
            ListLayout::by_count(rest.len()),
            |s, i, vi| s.at_index("value_info", next + i, |s| types::value_info(s, vi)),
        );
    }
    s.text(" {");
    graph::node_lines(s, &f.node);
    s.text("}");
}
