//! Structural differences between two models: what changed, said of the
//! model's parts (`onnxtxt diff --structural`), rather than of the lines
//! of its text.
//!
//! Graphs are compared part by part. Nodes are matched by name when both
//! have the same name (unique in its graph), the others by position and
//! operator (an alignment of their operator sequences, as diff aligns
//! lines), or, when node order is ignored, by operator alone, preferring
//! the node with the most inputs and outputs in common. Values are renamed
//! when the matched places that hold them (graph inputs and outputs, node
//! inputs and outputs, by position) hold another name consistently, a name
//! the other model does not use. Inputs, outputs and initializers are
//! matched by name (after renames), functions by domain, name and
//! overload, subgraphs through the attribute that holds them.

use std::collections::{HashMap, HashSet};
use std::fmt;

use similar::{capture_diff_slices, Algorithm, DiffOp};

use super::{
    compare, function_name, plural, position, qualified_name, take_values, typed_len, DiffOptions,
    Shape, Tally, TYPED_FIELDS,
};
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, StringStringEntryProto,
    TensorProto, ValueInfoProto,
};
use crate::tensor_data::field_name;

/// A change between two models, in the part `scope` names.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change {
    /// Where: `model`, `graph main`, `function local.MyFn`, or a subgraph
    /// `graph main / node loop / body`.
    pub scope: String,
    /// What changed: "node `conv3`: attribute `pads` [0, 0] → [1, 1]".
    pub what: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.scope, self.what)
    }
}

/// Attribute values written longer than this are reported as changed
/// without their text (a tensor or a graph would fill the screen).
const VALUE_TEXT_MAX: usize = 80;

/// The structural changes from `old` to `new`, in the order of the parts
/// of the model: header, main graph, functions. `options` can leave out
/// doc strings and metadata ([`DiffOptions::ignore_doc_strings`],
/// [`DiffOptions::ignore_metadata`]), value renames
/// ([`DiffOptions::ignore_renames`]) and node order
/// ([`DiffOptions::ignore_node_order`]).
///
/// ```
/// use onnxtxt::diff::{structural_diff, DiffOptions};
///
/// let old = onnxtxt::parse_model(r#"<ir_version: 10, opset_import: ["": 21]>
///     main (float[2] x) => (float[2] y) { [act] y = LeakyRelu <alpha: float = 0.1> (x) }"#)?;
/// let new = onnxtxt::parse_model(r#"<ir_version: 10, opset_import: ["": 21]>
///     main (float[2] input) => (float[2] y) { [act] y = LeakyRelu <alpha: float = 0.2> (input) }"#)?;
/// let changes: Vec<String> = structural_diff(&old, &new, &DiffOptions::default())
///     .iter()
///     .map(ToString::to_string)
///     .collect();
/// assert_eq!(changes, [
///     "graph main: value `x` renamed to `input`",
///     "graph main: node `act`: attribute `alpha` 0.1 → 0.2",
/// ]);
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn structural_diff(old: &ModelProto, new: &ModelProto, options: &DiffOptions) -> Vec<Change> {
    let plain = DiffOptions {
        summarize_tensors: false,
        ..options.clone()
    };
    let (old, _) = super::prepare(old, &plain);
    let (new, _) = super::prepare(new, &plain);
    let mut out = Report {
        options,
        changes: Vec::new(),
    };
    out.header(&old, &new);
    let empty = GraphProto::default();
    let (g_old, g_new) = (
        old.graph.as_ref().unwrap_or(&empty),
        new.graph.as_ref().unwrap_or(&empty),
    );
    let scope = format!("graph {}", g_new.name.as_deref().unwrap_or(""));
    out.graph(&scope, g_old, g_new, &Renames::default());
    out.functions(&old.functions, &new.functions);
    if !same_list(&old.training_info, &new.training_info) {
        out.add("model", "training info changed".into());
    }
    // Every difference counts, so that this report and the diff of the
    // texts agree on whether the models differ: what no line above names
    // still gets one.
    let complete = !options.ignore_renames && !options.ignore_node_order;
    if complete && out.changes.is_empty() && !same(&old, &new) {
        out.add("model", OTHER_CHANGES.into());
    }
    out.changes
}

/// The change reported when the models differ in a way no other line
/// names.
const OTHER_CHANGES: &str = "changed elsewhere (`onnxtxt diff` shows where)";

/// Whether two messages are the same, encoding and all (floats by their
/// bits: a NaN is the same NaN).
fn same<M: prost::Message>(a: &M, b: &M) -> bool {
    a.encoded_len() == b.encoded_len() && a.encode_to_vec() == b.encode_to_vec()
}

/// Whether two lists of messages are the same, as [`same`] says.
fn same_list<M: prost::Message>(a: &[M], b: &[M]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
}

/// The changes found so far.
struct Report<'o> {
    options: &'o DiffOptions,
    changes: Vec<Change>,
}

/// A graph or function body, as compared.
struct Body<'a> {
    inputs: Vec<(&'a str, String)>,
    outputs: Vec<(&'a str, String)>,
    initializers: &'a [TensorProto],
    nodes: &'a [NodeProto],
}

impl<'a> Body<'a> {
    fn of_graph(g: &'a GraphProto) -> Self {
        let typed = |vi: &'a ValueInfoProto| (vi.name.as_deref().unwrap_or(""), type_text(vi));
        Body {
            inputs: g.input.iter().map(typed).collect(),
            outputs: g.output.iter().map(typed).collect(),
            initializers: &g.initializer,
            nodes: &g.node,
        }
    }

    fn of_function(f: &'a FunctionProto) -> Self {
        let untyped = |name: &'a String| (name.as_str(), String::new());
        Body {
            inputs: f.input.iter().map(untyped).collect(),
            outputs: f.output.iter().map(untyped).collect(),
            initializers: &[],
            nodes: &f.node,
        }
    }

    /// Every value name it uses.
    fn names(&self) -> HashSet<&'a str> {
        let mut names: HashSet<&str> = self.inputs.iter().map(|(n, _)| *n).collect();
        names.extend(self.outputs.iter().map(|(n, _)| *n));
        names.extend(self.initializers.iter().filter_map(|t| t.name.as_deref()));
        for n in self.nodes {
            names.extend(n.input.iter().chain(&n.output).map(String::as_str));
        }
        names
    }
}

/// Value renames from the old model's names to the new one's.
#[derive(Default, Clone)]
struct Renames {
    map: HashMap<String, String>,
}

impl Renames {
    /// The new name of old value `name`.
    fn apply<'n>(&'n self, name: &'n str) -> &'n str {
        self.map.get(name).map_or(name, String::as_str)
    }
}

impl Report<'_> {
    fn add(&mut self, scope: &str, what: String) {
        self.changes.push(Change {
            scope: scope.to_owned(),
            what,
        });
    }

    /// The model header: versions, producer, opsets, doc string, metadata.
    fn header(&mut self, old: &ModelProto, new: &ModelProto) {
        let text = |v: Option<String>| v.unwrap_or_else(|| "unset".into());
        let fields = [
            (
                "ir_version",
                old.ir_version.map(|v| v.to_string()),
                new.ir_version.map(|v| v.to_string()),
            ),
            (
                "producer_name",
                old.producer_name.as_ref().map(|v| format!("{v:?}")),
                new.producer_name.as_ref().map(|v| format!("{v:?}")),
            ),
            (
                "producer_version",
                old.producer_version.as_ref().map(|v| format!("{v:?}")),
                new.producer_version.as_ref().map(|v| format!("{v:?}")),
            ),
            (
                "domain",
                old.domain.as_ref().map(|v| format!("{v:?}")),
                new.domain.as_ref().map(|v| format!("{v:?}")),
            ),
            (
                "model_version",
                old.model_version.map(|v| v.to_string()),
                new.model_version.map(|v| v.to_string()),
            ),
        ];
        for (key, a, b) in fields {
            if a != b {
                self.add("model", format!("`{key}` {} → {}", text(a), text(b)));
            }
        }
        self.annotations(
            "model",
            "",
            [&old.doc_string, &new.doc_string],
            [&old.metadata_props, &new.metadata_props],
        );
        let opsets = |m: &ModelProto| -> Vec<(String, Option<i64>)> {
            m.opset_import
                .iter()
                .map(|o| (o.domain.clone().unwrap_or_default(), o.version))
                .collect()
        };
        if same_list(&old.opset_import, &new.opset_import) {
            return;
        }
        let (a, b) = (opsets(old), opsets(new));
        for (domain, version) in &a {
            match b.iter().find(|(d, _)| d == domain) {
                None => self.add("model", format!("opset import {domain:?} removed")),
                Some((_, v)) if v != version => self.add(
                    "model",
                    format!(
                        "opset import {domain:?} {} → {}",
                        text(version.map(|v| v.to_string())),
                        text(v.map(|v| v.to_string()))
                    ),
                ),
                Some(_) => {}
            }
        }
        for (domain, version) in &b {
            if !a.iter().any(|(d, _)| d == domain) {
                let version = text(version.map(|v| v.to_string()));
                self.add("model", format!("opset import {domain:?} {version} added"));
            }
        }
    }

    /// Functions, matched by domain, name and overload.
    fn functions(&mut self, old: &[FunctionProto], new: &[FunctionProto]) {
        let by_name: HashMap<String, &FunctionProto> =
            new.iter().map(|f| (function_name(f), f)).collect();
        let old_names: HashSet<String> = old.iter().map(function_name).collect();
        for f in old {
            let name = function_name(f);
            let scope = format!("function {name}");
            let Some(g) = by_name.get(&name) else {
                self.add(&scope, "removed".into());
                continue;
            };
            if f.attribute != g.attribute || !same_list(&f.attribute_proto, &g.attribute_proto) {
                self.add(&scope, "attributes changed".into());
            }
            if !same_list(&f.opset_import, &g.opset_import) {
                self.add(&scope, "opset imports changed".into());
            }
            self.annotations(
                &scope,
                "",
                [&f.doc_string, &g.doc_string],
                [&f.metadata_props, &g.metadata_props],
            );
            let renames = self.body(
                &scope,
                &Body::of_function(f),
                &Body::of_function(g),
                &Renames::default(),
            );
            self.value_infos(
                &scope,
                "value info",
                [&f.value_info, &g.value_info],
                &renames,
                true,
            );
        }
        for g in new {
            let name = function_name(g);
            if !old_names.contains(&name) {
                self.add(&format!("function {name}"), "added".into());
            }
        }
    }

    /// A doc string or metadata changed, said after `prefix` (`node
    /// `conv3`: `, or nothing for the part the scope names).
    fn annotations(
        &mut self,
        scope: &str,
        prefix: &str,
        docs: [&Option<String>; 2],
        metadata: [&[StringStringEntryProto]; 2],
    ) {
        if docs[0] != docs[1] {
            self.add(scope, format!("{prefix}doc string changed"));
        }
        if !same_list(metadata[0], metadata[1]) {
            self.add(scope, format!("{prefix}metadata changed"));
        }
    }

    /// A graph: its name, doc string and metadata, its body, and the value
    /// infos and sparse initializers it holds besides; `outer` are the
    /// renames of the graphs around it.
    fn graph(&mut self, scope: &str, old: &GraphProto, new: &GraphProto, outer: &Renames) {
        if old.name != new.name {
            let name = |g: &GraphProto| format!("`{}`", g.name.as_deref().unwrap_or(""));
            self.add(
                scope,
                format!("graph {} renamed to {}", name(old), name(new)),
            );
        }
        self.annotations(
            scope,
            "",
            [&old.doc_string, &new.doc_string],
            [&old.metadata_props, &new.metadata_props],
        );
        let renames = self.body(scope, &Body::of_graph(old), &Body::of_graph(new), outer);
        self.value_infos(scope, "input", [&old.input, &new.input], &renames, false);
        self.value_infos(scope, "output", [&old.output, &new.output], &renames, false);
        self.value_infos(
            scope,
            "value info",
            [&old.value_info, &new.value_info],
            &renames,
            true,
        );
        if !same_list(&old.sparse_initializer, &new.sparse_initializer) {
            self.add(scope, "sparse initializers changed".into());
        }
        if !same_list(&old.quantization_annotation, &new.quantization_annotation) {
            self.add(scope, "quantization annotations changed".into());
        }
    }

    /// Value infos matched by name (after renames): their doc strings and
    /// metadata, and, when `whole` (not inputs or outputs, which
    /// [`Report::values`] compares), their types, and those added or
    /// removed.
    fn value_infos(
        &mut self,
        scope: &str,
        kind: &str,
        [old, new]: [&[ValueInfoProto]; 2],
        renames: &Renames,
        whole: bool,
    ) {
        if same_list(old, new) {
            return;
        }
        let name = |v: &ValueInfoProto| v.name.clone().unwrap_or_default();
        // In place when the names are (names can repeat in an invalid
        // model), else by name.
        let in_place = old.len() == new.len()
            && old
                .iter()
                .zip(new)
                .all(|(a, b)| renames.apply(&name(a)) == name(b));
        let by_name: HashMap<String, &ValueInfoProto> = new.iter().map(|v| (name(v), v)).collect();
        let mut kept = HashSet::new();
        for (i, a) in old.iter().enumerate() {
            let renamed = renames.apply(&name(a)).to_owned();
            let matched = if in_place {
                new.get(i)
            } else {
                by_name.get(&renamed).copied()
            };
            let Some(b) = matched else {
                if whole {
                    self.add(scope, format!("{kind} `{}` removed", name(a)));
                }
                continue;
            };
            let (ta, tb) = (type_text(a), type_text(b));
            if whole && ta != tb {
                self.add(scope, format!("{kind} `{renamed}`: type {ta} → {tb}"));
            }
            self.annotations(
                scope,
                &format!("{kind} `{renamed}`: "),
                [&a.doc_string, &b.doc_string],
                [&a.metadata_props, &b.metadata_props],
            );
            kept.insert(renamed);
        }
        for b in new.iter().filter(|b| whole && !kept.contains(&name(b))) {
            self.add(
                scope,
                format!("{kind} `{}` added: {}", name(b), type_text(b)),
            );
        }
    }

    /// A graph or function body; `outer` are the renames of the graphs
    /// around it. Gives the renames found, `outer` included.
    fn body(&mut self, scope: &str, old: &Body<'_>, new: &Body<'_>, outer: &Renames) -> Renames {
        let pairs = match_nodes(old.nodes, new.nodes, self.options.ignore_node_order);
        let renames = find_renames(old, new, &pairs, outer);
        if !self.options.ignore_renames {
            let mut found: Vec<(&String, &String)> = renames
                .map
                .iter()
                .filter(|(from, _)| !outer.map.contains_key(*from))
                .collect();
            found.sort();
            for (from, to) in found {
                self.add(scope, format!("value `{from}` renamed to `{to}`"));
            }
        }
        self.values(scope, "input", &old.inputs, &new.inputs, &renames);
        self.values(scope, "output", &old.outputs, &new.outputs, &renames);
        self.initializers(scope, old.initializers, new.initializers, &renames);
        self.nodes(scope, old.nodes, new.nodes, &pairs, &renames);
        renames
    }

    /// Graph inputs or outputs, by name after renames.
    fn values(
        &mut self,
        scope: &str,
        kind: &str,
        old: &[(&str, String)],
        new: &[(&str, String)],
        renames: &Renames,
    ) {
        if old.len() == new.len()
            && old
                .iter()
                .zip(new)
                .all(|((x, tx), (y, ty))| renames.apply(x) == *y && tx == ty)
        {
            return;
        }
        let new_types: HashMap<&str, &String> = new.iter().map(|(n, t)| (*n, t)).collect();
        let mut kept = Vec::new();
        for (name, ty) in old {
            let renamed = renames.apply(name);
            match new_types.get(renamed) {
                None => self.add(scope, format!("{kind} `{name}` removed")),
                Some(t) if *t != ty => {
                    self.add(scope, format!("{kind} `{renamed}`: type {ty} → {t}"))
                }
                Some(_) => {}
            }
            kept.push(renamed);
        }
        for (name, ty) in new {
            if !kept.contains(name) {
                let ty = if ty.is_empty() {
                    String::new()
                } else {
                    format!(": {ty}")
                };
                self.add(scope, format!("{kind} `{name}` added{ty}"));
            }
        }
        let order: Vec<&str> = new
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| kept.contains(n))
            .collect();
        let old_order: Vec<&str> = kept
            .into_iter()
            .filter(|n| new_types.contains_key(n))
            .collect();
        if order != old_order && !self.options.ignore_node_order {
            self.add(scope, format!("{kind}s reordered"));
        }
    }

    /// Initializers, by name after renames: added, removed, retyped or
    /// reshaped, values changed.
    fn initializers(
        &mut self,
        scope: &str,
        old: &[TensorProto],
        new: &[TensorProto],
        renames: &Renames,
    ) {
        if same_list(old, new) {
            return;
        }
        let name = |t: &TensorProto| t.name.clone().unwrap_or_default();
        let by_name: HashMap<String, &TensorProto> = new.iter().map(|t| (name(t), t)).collect();
        let mut kept = HashSet::new();
        for a in old {
            let renamed = renames.apply(&name(a)).to_owned();
            match by_name.get(&renamed) {
                None => self.add(scope, format!("initializer `{}` removed", name(a))),
                Some(b) => {
                    if let Some(what) = tensor_change(&renamed, a, b) {
                        self.add(scope, format!("initializer `{renamed}`: {what}"));
                    }
                }
            }
            kept.insert(renamed);
        }
        for b in new {
            if !kept.contains(&name(b)) {
                let shape = Shape::of(b);
                self.add(scope, format!("initializer `{}` added: {shape}", name(b)));
            }
        }
    }

    /// Matched nodes compared, moved ones (unless order is ignored), and
    /// the others removed or added.
    fn nodes(
        &mut self,
        scope: &str,
        old: &[NodeProto],
        new: &[NodeProto],
        pairs: &[(usize, usize)],
        renames: &Renames,
    ) {
        let moved = if self.options.ignore_node_order {
            HashSet::new()
        } else {
            out_of_order(pairs)
        };
        let matched_old: HashSet<usize> = pairs.iter().map(|p| p.0).collect();
        for (i, n) in old.iter().enumerate() {
            if !matched_old.contains(&i) {
                self.add(
                    scope,
                    format!("node {} removed: {}", label(n), node_text(n)),
                );
            }
        }
        for &(i, j) in pairs {
            let (a, b) = (&old[i], &new[j]);
            let node = format!("node {}", label(b));
            self.node(scope, &node, a, b, renames);
            if moved.contains(&j) {
                self.add(scope, format!("{node} moved"));
            }
        }
        let matched_new: HashSet<usize> = pairs.iter().map(|p| p.1).collect();
        for (j, n) in new.iter().enumerate() {
            if !matched_new.contains(&j) {
                self.add(scope, format!("node {} added: {}", label(n), node_text(n)));
            }
        }
    }

    /// Two matched nodes.
    fn node(&mut self, scope: &str, node: &str, a: &NodeProto, b: &NodeProto, renames: &Renames) {
        let op = |n: &NodeProto| {
            qualified_name(
                n.domain.as_deref(),
                n.op_type.as_deref(),
                n.overload.as_deref(),
            )
        };
        if a.name != b.name && !self.options.ignore_renames {
            let what = match (named(a), named(b)) {
                (true, true) => format!("node {} renamed to {}", label(a), label(b)),
                (true, false) => format!("{node}: name {} removed", label(a)),
                (false, true) => format!("{node}: named (was {})", label(a)),
                (false, false) => format!("{node}: name {:?} → {:?}", a.name, b.name),
            };
            self.add(scope, what);
        }
        if op(a) != op(b) {
            self.add(scope, format!("{node}: operator {} → {}", op(a), op(b)));
        }
        for (kind, x, y) in [
            ("inputs", &a.input, &b.input),
            ("outputs", &a.output, &b.output),
        ] {
            let mapped: Vec<&str> = x.iter().map(|v| renames.apply(v)).collect();
            if mapped != y.iter().map(String::as_str).collect::<Vec<_>>() {
                self.add(
                    scope,
                    format!("{node}: {kind} ({}) → ({})", x.join(", "), y.join(", ")),
                );
            }
        }
        self.annotations(
            scope,
            &format!("{node}: "),
            [&a.doc_string, &b.doc_string],
            [&a.metadata_props, &b.metadata_props],
        );
        if !same_list(&a.device_configurations, &b.device_configurations) {
            self.add(scope, format!("{node}: device configurations changed"));
        }
        self.attributes(scope, node, &a.attribute, &b.attribute, renames);
    }

    /// The attributes of two matched nodes, by name; graphs compared
    /// structurally.
    fn attributes(
        &mut self,
        scope: &str,
        node: &str,
        old: &[AttributeProto],
        new: &[AttributeProto],
        renames: &Renames,
    ) {
        // Names can repeat (in an invalid model): lists that are the same
        // are not matched by name.
        if same_list(old, new) {
            return;
        }
        let name = |a: &AttributeProto| a.name.clone().unwrap_or_default();
        let by_name: HashMap<String, &AttributeProto> = new.iter().map(|a| (name(a), a)).collect();
        for a in old {
            let key = name(a);
            let Some(b) = by_name.get(&key) else {
                self.add(scope, format!("{node}: attribute `{key}` removed"));
                continue;
            };
            if same(a, *b) {
                continue;
            }
            fn graphs(x: &AttributeProto) -> Vec<&GraphProto> {
                x.g.as_deref().into_iter().chain(&x.graphs).collect()
            }
            let (ga, gb) = (graphs(a), graphs(b));
            if !ga.is_empty() && ga.len() == gb.len() {
                for (k, (x, y)) in ga.into_iter().zip(gb).enumerate() {
                    let sub = if b.g.is_some() {
                        format!("{scope} / {node} / {key}")
                    } else {
                        format!("{scope} / {node} / {key}[{k}]")
                    };
                    self.graph(&sub, x, y, renames);
                }
                continue;
            }
            let what = match (&a.t, &b.t, value_text(a), value_text(b)) {
                (Some(x), Some(y), _, _) => {
                    tensor_change(&key, x, y).map(|what| format!(": {what}"))
                }
                (_, _, Some(x), Some(y)) if x != y => Some(format!(" {x} → {y}")),
                _ => None,
            };
            let what = what.unwrap_or_else(|| " changed".into());
            self.add(scope, format!("{node}: attribute `{key}`{what}"));
        }
        for b in new {
            let key = name(b);
            if !old.iter().any(|a| name(a) == key) {
                let value = value_text(b).map(|v| format!(" = {v}")).unwrap_or_default();
                self.add(scope, format!("{node}: attribute `{key}` added{value}"));
            }
        }
    }
}

/// How two tensors of the same name differ, if they do: their shape or
/// type, how many values and which first, their storage, doc string or
/// metadata.
fn tensor_change(place: &str, a: &TensorProto, b: &TensorProto) -> Option<String> {
    // The names were matched (through a rename, maybe).
    let (mut a, mut b) = (a.clone(), b.clone());
    a.name = None;
    b.name = None;
    if same(&a, &b) {
        return None;
    }
    let (sa, sb) = (Shape::of(&a), Shape::of(&b));
    if sa != sb {
        return Some(format!("{sa} → {sb}"));
    }
    let storage = [storage(&a), storage(&b)];
    let values = take_values(&mut a).zip(take_values(&mut b));
    let Some(tally) = values.and_then(|(x, y)| compare(sa.data_type, &x, &y)) else {
        return Some("changed".into());
    };
    let mut parts = Vec::new();
    if tally.changed > 0 {
        parts.push(values_changed(place, &sa, &tally));
    } else if storage[0] != storage[1] {
        parts.push(format!(
            "stored as {} (was {}), values unchanged",
            storage[1], storage[0]
        ));
    }
    if a.doc_string != b.doc_string {
        parts.push("doc string changed".into());
    }
    if !same_list(&a.metadata_props, &b.metadata_props) {
        parts.push("metadata changed".into());
    }
    if parts.is_empty() {
        parts.push("changed".into());
    }
    Some(parts.join(", "))
}

/// Which field holds a tensor's elements: `raw_data`, a typed field
/// (`float_data`), or `external data`.
fn storage(t: &TensorProto) -> &'static str {
    if t.data_location == Some(1) {
        "external data"
    } else if t.raw_data.is_some() {
        "raw_data"
    } else {
        TYPED_FIELDS
            .into_iter()
            .find(|&field| typed_len(t, field) > 0)
            .map_or("no field", field_name)
    }
}

/// `37 values changed, max abs diff 0.02 (W[3,17]: -0.14 → 0.0, ...)`.
fn values_changed(place: &str, shape: &Shape, tally: &Tally) -> String {
    let mut what = format!(
        "{} {} changed",
        tally.changed,
        plural(tally.changed, "value")
    );
    if let Some(max) = &tally.max {
        what.push_str(&format!(", max abs diff {max}"));
    }
    let first: Vec<String> = tally
        .first
        .iter()
        .map(|(index, x, y)| {
            let at: Vec<String> = position(&shape.dims, *index)
                .iter()
                .map(usize::to_string)
                .collect();
            format!("{place}[{}]: {x} → {y}", at.join(","))
        })
        .collect();
    what.push_str(&format!(" ({}", first.join(", ")));
    if tally.changed > first.len() {
        what.push_str(", ...");
    }
    what.push(')');
    what
}

/// The text of a value's type (empty when it has none).
fn type_text(v: &ValueInfoProto) -> String {
    v.r#type.as_ref().map(crate::to_text).unwrap_or_default()
}

/// An attribute's value as printed, if short enough to show.
fn value_text(a: &AttributeProto) -> Option<String> {
    let text = crate::to_text(a);
    let value = text.split_once(" = ").map_or(text.as_str(), |(_, v)| v);
    (value.len() <= VALUE_TEXT_MAX && !value.contains('\n')).then(|| value.to_owned())
}

/// A node's one-line text (its first line).
fn node_text(n: &NodeProto) -> String {
    let text = crate::to_text(n);
    let line = text.lines().find(|l| !l.starts_with("@<")).unwrap_or("");
    if line.len() > VALUE_TEXT_MAX {
        format!(
            "{}...",
            line.chars().take(VALUE_TEXT_MAX).collect::<String>()
        )
    } else {
        line.to_owned()
    }
}

/// How a node is called: `` `name` ``, else `` `y = Relu` `` after its
/// first output.
fn label(n: &NodeProto) -> String {
    match (n.name.as_deref(), n.output.first()) {
        (Some(name), _) if !name.is_empty() => format!("`{name}`"),
        (_, Some(out)) => format!("`{out} = {}`", n.op_type.as_deref().unwrap_or("")),
        _ => format!("`{}`", n.op_type.as_deref().unwrap_or("")),
    }
}

/// Whether a node has a name.
fn named(n: &NodeProto) -> bool {
    n.name.as_deref().is_some_and(|s| !s.is_empty())
}

/// Pairs of matched nodes (old index, new index), in the new order.
fn match_nodes(old: &[NodeProto], new: &[NodeProto], ignore_order: bool) -> Vec<(usize, usize)> {
    fn unique(nodes: &[NodeProto]) -> HashMap<&str, usize> {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for n in nodes {
            if let Some(name) = n.name.as_deref().filter(|s| !s.is_empty()) {
                *count.entry(name).or_default() += 1;
            }
        }
        nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| Some((n.name.as_deref()?, i)))
            .filter(|(name, _)| count.get(name) == Some(&1))
            .collect()
    }
    let (old_names, new_names) = (unique(old), unique(new));
    let mut pairs: Vec<(usize, usize)> = new_names
        .iter()
        .filter_map(|(name, &j)| Some((*old_names.get(name)?, j)))
        .collect();
    let paired_old: HashSet<usize> = pairs.iter().map(|p| p.0).collect();
    let paired_new: HashSet<usize> = pairs.iter().map(|p| p.1).collect();
    let rest_old: Vec<usize> = (0..old.len()).filter(|i| !paired_old.contains(i)).collect();
    let rest_new: Vec<usize> = (0..new.len()).filter(|j| !paired_new.contains(j)).collect();
    let key = |n: &NodeProto| (n.domain.clone().unwrap_or_default(), n.op_type.clone());
    if ignore_order {
        pairs.extend(match_unordered(old, new, &rest_old, &rest_new));
    } else {
        let a: Vec<_> = rest_old.iter().map(|&i| key(&old[i])).collect();
        let b: Vec<_> = rest_new.iter().map(|&j| key(&new[j])).collect();
        // Runs of the same operators, and runs of as many unnamed nodes
        // replaced by others (operators changed in place), are matched in
        // order.
        for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
            let (old_index, new_index, len) = match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => (old_index, new_index, len),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } if old_len == new_len => (old_index, new_index, old_len),
                _ => continue,
            };
            for k in 0..len {
                let (i, j) = (rest_old[old_index + k], rest_new[new_index + k]);
                // A node of another name and operator is another node.
                if key(&old[i]) == key(&new[j]) || (!named(&old[i]) && !named(&new[j])) {
                    pairs.push((i, j));
                }
            }
        }
    }
    pairs.sort_by_key(|p| p.1);
    pairs
}

/// Names held by more old nodes than this do not tell nodes apart, and
/// are not counted as shared (which keeps matching near-linear).
const SHARED_NAME_USERS_MAX: usize = 32;

/// Pairs of the nodes `rest_old` of `old` and `rest_new` of `new`
/// (indices, increasing), whatever their order: each new node, in turn,
/// with the free old node of its operator that shares the most input and
/// output names with it, the first such one on a tie.
fn match_unordered(
    old: &[NodeProto],
    new: &[NodeProto],
    rest_old: &[usize],
    rest_new: &[usize],
) -> Vec<(usize, usize)> {
    let key = |n: &NodeProto| (n.domain.clone().unwrap_or_default(), n.op_type.clone());
    let mut free: HashMap<_, std::collections::BTreeSet<usize>> = HashMap::new();
    // The old nodes that hold each name, as an input (false) or output.
    let mut holders: HashMap<(&str, bool), Vec<usize>> = HashMap::new();
    for &i in rest_old {
        free.entry(key(&old[i])).or_default().insert(i);
        for (names, output) in [(&old[i].input, false), (&old[i].output, true)] {
            for name in names {
                holders.entry((name, output)).or_default().push(i);
            }
        }
    }
    let mut pairs = Vec::new();
    for &j in rest_new {
        let b = &new[j];
        let Some(candidates) = free.get_mut(&key(b)) else {
            continue;
        };
        let mut shared: HashMap<usize, usize> = HashMap::new();
        for (names, output) in [(&b.input, false), (&b.output, true)] {
            for name in names {
                let Some(users) = holders.get(&(name.as_str(), output)) else {
                    continue;
                };
                if users.len() <= SHARED_NAME_USERS_MAX {
                    for &i in users.iter().filter(|i| candidates.contains(i)) {
                        *shared.entry(i).or_default() += 1;
                    }
                }
            }
        }
        let best = shared
            .into_iter()
            .max_by_key(|&(i, count)| (count, std::cmp::Reverse(i)))
            .map(|(i, _)| i)
            .or_else(|| candidates.first().copied());
        if let Some(i) = best {
            candidates.remove(&i);
            pairs.push((i, j));
        }
    }
    pairs
}

/// The new indices of the pairs that are not in a longest run of pairs
/// whose old indices increase: the nodes that moved.
fn out_of_order(pairs: &[(usize, usize)]) -> HashSet<usize> {
    // Patience sorting: `tails[k]` ends the best run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, &(i, _)) in pairs.iter().enumerate() {
        let at = tails.partition_point(|&t| pairs[t].0 < i);
        previous[k] = at.checked_sub(1).map(|p| tails[p]);
        if at == tails.len() {
            tails.push(k);
        } else {
            tails[at] = k;
        }
    }
    let mut in_order = HashSet::new();
    let mut k = tails.last().copied();
    while let Some(at) = k {
        in_order.insert(at);
        k = previous[at];
    }
    (0..pairs.len())
        .filter(|k| !in_order.contains(k))
        .map(|k| pairs[k].1)
        .collect()
}

/// The value renames that the matched places show: a name held where the
/// other model holds another, always the same one, that the old model
/// does not use, where the old name is not used in the new model.
fn find_renames(
    old: &Body<'_>,
    new: &Body<'_>,
    pairs: &[(usize, usize)],
    outer: &Renames,
) -> Renames {
    let (old_names, new_names) = (old.names(), new.names());
    let mut candidates: Vec<(&str, &str)> = Vec::new();
    let io = |a: &[(&str, String)], b: &[(&str, String)]| -> Vec<(String, String)> {
        if a.len() != b.len() {
            return Vec::new();
        }
        a.iter()
            .zip(b)
            .map(|((x, _), (y, _))| (x.to_string(), y.to_string()))
            .collect()
    };
    let positional: Vec<(String, String)> = io(&old.inputs, &new.inputs)
        .into_iter()
        .chain(io(&old.outputs, &new.outputs))
        .collect();
    candidates.extend(positional.iter().map(|(x, y)| (x.as_str(), y.as_str())));
    for &(i, j) in pairs {
        let (a, b) = (&old.nodes[i], &new.nodes[j]);
        for (x, y) in [(&a.output, &b.output), (&a.input, &b.input)] {
            if x.len() == y.len() {
                candidates.extend(x.iter().zip(y).map(|(x, y)| (x.as_str(), y.as_str())));
            }
        }
    }
    let mut renames = outer.clone();
    let mut bad: HashSet<&str> = HashSet::new();
    let mut taken: HashMap<&str, &str> = HashMap::new();
    for (x, y) in candidates {
        if x == y || x.is_empty() || y.is_empty() || new_names.contains(x) || old_names.contains(y)
        {
            continue;
        }
        match renames.map.get(x) {
            Some(to) if to != y => {
                bad.insert(x);
            }
            _ => {
                if taken.get(y).is_some_and(|from| *from != x) {
                    bad.insert(x);
                    continue;
                }
                taken.insert(y, x);
                renames.map.insert(x.to_owned(), y.to_owned());
            }
        }
    }
    for x in bad {
        if !outer.map.contains_key(x) {
            renames.map.remove(x);
        }
    }
    renames
}
