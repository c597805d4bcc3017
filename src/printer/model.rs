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

use super::annot::value_of;
use super::graph::{self, GraphPlace};
use super::schema::{opset_pairs, opsets_are_pairs, Ann, AnnMessage, Field, UNSET};
use super::types;
use super::writer::{ListLayout, Sink};
use crate::proto::{
    FunctionProto, GraphProto, ModelProto, OperatorSetIdProto, StringStringEntryProto,
};

/// A header entry: its key, its value, and whether it is an extension.
struct HeaderEntry<'a> {
    key: &'static str,
    value: Ann<'a>,
    ext: bool,
}

fn header(s: &mut Sink<'_>, entries: &[HeaderEntry<'_>]) {
    let kept: Vec<&HeaderEntry<'_>> = entries
        .iter()
        .filter(|e| {
            if e.ext && s.compat() {
                s.report(format!(
                    "`{}` dropped (the reference header has no such key)",
                    e.key
                ));
                false
            } else {
                true
            }
        })
        .collect();
    if kept.is_empty() {
        return;
    }
    s.text("<");
    s.indent();
    for (i, e) in kept.iter().enumerate() {
        s.newline();
        s.text(e.key);
        s.text(": ");
        s.at(e.key, |s| value_of(s, &e.value));
        if i + 1 < kept.len() {
            s.text(",");
        }
    }
    s.dedent();
    s.newline();
    s.text(">");
    s.newline();
}

fn opset_entry<'a>(
    s: &mut Sink<'_>,
    opsets: &'a [OperatorSetIdProto],
    entries: &mut Vec<HeaderEntry<'a>>,
) {
    if opsets.is_empty() {
        return;
    }
    let value = if opsets_are_pairs(opsets) || s.compat() {
        if !opsets_are_pairs(opsets) {
            s.report(
                "opset import entry with a missing domain or version written with the default",
            );
        }
        opset_pairs(opsets)
    } else {
        OperatorSetIdProto::ann_list(opsets)
    };
    entries.push(HeaderEntry {
        key: "opset_import",
        value,
        ext: false,
    });
}

fn metadata_entry<'a>(
    s: &mut Sink<'_>,
    props: &'a [StringStringEntryProto],
    ext: bool,
    entries: &mut Vec<HeaderEntry<'a>>,
) {
    if props.is_empty() {
        return;
    }
    let complete = props.iter().all(|e| e.key.is_some() && e.value.is_some());
    let value = if complete || (s.compat() && !ext) {
        if !complete {
            s.report("metadata entry with a missing key or value written with the default");
        }
        Ann::Pairs(
            props
                .iter()
                .map(|e| {
                    (
                        e.key.as_deref().unwrap_or("").as_bytes(),
                        Ann::Str(e.value.as_deref().unwrap_or("").as_bytes()),
                    )
                })
                .collect(),
        )
    } else {
        StringStringEntryProto::ann_list(props)
    };
    entries.push(HeaderEntry {
        key: "metadata_props",
        value,
        ext,
    });
}

/// Writes a model.
pub(crate) fn model(s: &mut Sink<'_>, m: &ModelProto) {
    s.leading_comments();
    let mut entries = Vec::new();
    if let Some(v) = m.ir_version.ann() {
        entries.push(HeaderEntry {
            key: "ir_version",
            value: v,
            ext: false,
        });
    }
    opset_entry(s, &m.opset_import, &mut entries);
    for (key, value) in [
        ("producer_name", m.producer_name.ann()),
        ("producer_version", m.producer_version.ann()),
        ("domain", m.domain.ann()),
        ("model_version", m.model_version.ann()),
        ("doc_string", m.doc_string.ann()),
    ] {
        if let Some(value) = value {
            entries.push(HeaderEntry {
                key,
                value,
                ext: false,
            });
        }
    }
    metadata_entry(s, &m.metadata_props, false, &mut entries);
    if let Some(v) = m.training_info.ann() {
        entries.push(HeaderEntry {
            key: "training_info",
            value: v,
            ext: true,
        });
    }
    if let Some(v) = m.configuration.ann() {
        entries.push(HeaderEntry {
            key: "configuration",
            value: v,
            ext: true,
        });
    }
    if m.graph.is_none() {
        entries.push(HeaderEntry {
            key: "graph",
            value: UNSET,
            ext: true,
        });
    }
    header(s, &entries);
    let placeholder = GraphProto {
        name: Some("_".into()),
        ..Default::default()
    };
    s.at("graph", |s| {
        s.leading_comments();
        graph::graph(s, m.graph.as_ref().unwrap_or(&placeholder), GraphPlace::Top)
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
    if let Some(v) = f.domain.ann() {
        entries.push(HeaderEntry {
            key: "domain",
            value: v,
            ext: false,
        });
    }
    if let Some(v) = f.overload.ann() {
        entries.push(HeaderEntry {
            key: "overload",
            value: v,
            ext: false,
        });
    }
    opset_entry(s, &f.opset_import, &mut entries);
    if let Some(v) = f.doc_string.ann() {
        entries.push(HeaderEntry {
            key: "doc_string",
            value: v,
            ext: false,
        });
    }
    metadata_entry(s, &f.metadata_props, true, &mut entries);
    if f.name.is_none() {
        entries.push(HeaderEntry {
            key: "name",
            value: UNSET,
            ext: true,
        });
    }
    header(s, &entries);

    s.name(f.name.as_deref().unwrap_or(""));
    s.text(" ");
    let kept = graph::kept_attributes(s, &f.attribute_proto);
    if !f.attribute.is_empty() || !kept.is_empty() {
        s.text("<");
        s.list(&f.attribute, |s, _, a| s.name(a));
        if !f.attribute.is_empty() && !kept.is_empty() {
            s.text(", ");
        }
        s.list(&kept, |s, _, (_, a)| {
            let key = a.name.as_deref().unwrap_or("");
            s.at_key("attribute_proto", key, |s| graph::attribute(s, a, true));
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
        s.block_list("<", ">", rest, ListLayout::Fit, |s, i, vi| {
            s.at_index("value_info", next + i, |s| types::value_info(s, vi))
        });
    }
    s.text(" {");
    graph::node_lines(s, &f.node);
    s.text("}");
}
