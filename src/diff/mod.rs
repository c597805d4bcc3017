//! Differences between models, as a unified diff of their canonical texts:
//! the core of `onnxtxt diff` and `onnxtxt fmt --check`.
//!
//! Two models are compared by printing both in the canonical style and
//! diffing the lines (Myers' algorithm, from the `similar` crate). Each hunk
//! is named after the graph or function its first changed line is in, like
//! git's function names: `@@ -12,7 +12,7 @@ graph main_graph`,
//! `@@ -40,3 +40,4 @@ function local.MyFn`. [`DiffOptions`] can leave out
//! doc strings and metadata, and replace tensor elements by a placeholder,
//! summarizing instead how the values of each tensor changed
//! ([`TensorChange`]). [`structural_diff`] says what changed of the
//! model's parts instead: nodes, attributes, values, initializers,
//! functions ([`Change`]).

mod structural;

pub use structural::{structural_diff, Change};

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Range;

use similar::{capture_diff_slices, group_diff_ops, Algorithm, ChangeTag, DiffOp};

use crate::ir_path::{IrPath, ItemKind, Step};
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, SparseTensorProto,
    StringStringEntryProto, TensorProto, ValueInfoProto,
};
use crate::tensor_data::{self, TypedField, TypedValues};
use crate::vocabulary;

/// Lines of unchanged text shown around each change by default, as in
/// diff(1) and git.
pub const DEFAULT_CONTEXT: usize = 3;

/// What [`diff_models`] compares.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiffOptions {
    /// Clear every `doc_string` first: the model's, and those of every
    /// graph, node, attribute, value info, tensor and function.
    pub ignore_doc_strings: bool,
    /// Clear every `metadata_props` first (model, graphs, nodes, value
    /// infos, tensors, functions), and the model's `producer_name`,
    /// `producer_version`, `domain` and `model_version`. `ir_version` and
    /// `opset_import` are kept: they change what the model means.
    pub ignore_metadata: bool,
    /// Replace the elements of every tensor (initializers and tensor
    /// attributes, in every graph and function) by a placeholder,
    /// `float[1000,1000] W = ["elided": "1000000 values"]`, and list a
    /// [`TensorChange`] for each tensor found at the same place in both
    /// models with different values. Values are compared, not how they are
    /// stored (`raw_data` or a typed field).
    pub summarize_tensors: bool,
    /// Compare tensors by type, shape and values, not by the field that
    /// holds them: elements in `raw_data` are moved to the typed field of
    /// their type first (in every graph and function), as if stored there.
    pub ignore_storage: bool,
    /// Lines of unchanged text around each change.
    pub context: usize,
    /// For [`structural_diff`]: do not report values renamed (the nodes
    /// that use them are still compared through the rename), nor nodes
    /// renamed.
    pub ignore_renames: bool,
    /// For [`structural_diff`]: match nodes without regard to their order
    /// (by operator, then shared inputs and outputs, when their names do
    /// not match them), and do not report nodes, inputs or outputs moved.
    pub ignore_node_order: bool,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            ignore_doc_strings: false,
            ignore_metadata: false,
            summarize_tensors: false,
            ignore_storage: false,
            context: DEFAULT_CONTEXT,
            ignore_renames: false,
            ignore_node_order: false,
        }
    }
}

/// Which text a line of a hunk belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineKind {
    /// In both texts (` ` in a unified diff).
    Context,
    /// Only in the old text (`-`).
    Removed,
    /// Only in the new text (`+`).
    Added,
}

impl LineKind {
    /// The mark that starts the line in a unified diff.
    pub fn mark(self) -> char {
        match self {
            LineKind::Context => ' ',
            LineKind::Removed => '-',
            LineKind::Added => '+',
        }
    }
}

/// A line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Line {
    /// Which text it belongs to.
    pub kind: LineKind,
    /// The line, without its line break.
    pub text: String,
    /// Whether a line break ends it (only a text's last line can lack one).
    pub newline: bool,
}

/// A group of changes with the unchanged lines around them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hunk {
    /// The lines of the old text it covers, counted from 0.
    pub old: Range<usize>,
    /// The lines of the new text it covers, counted from 0.
    pub new: Range<usize>,
    /// The graph (`graph NAME`) or function (`function DOMAIN.NAME`) its
    /// first changed line is in, if any.
    pub scope: Option<String>,
    /// Its lines, in order.
    pub lines: Vec<Line>,
}

impl Hunk {
    /// The unified diff header: `@@ -OLD +NEW @@` and the scope. Ranges
    /// are `START,COUNT` with lines counted from 1, `,COUNT` left out when
    /// it is 1, and START the line before when COUNT is 0, as diff(1)
    /// writes them.
    ///
    /// ```
    /// let hunks = onnxtxt::diff::diff_texts("a\nb\nc\n", "a\nB\nc\n", 0);
    /// assert_eq!(hunks[0].header(), "@@ -2 +2 @@");
    /// ```
    pub fn header(&self) -> String {
        fn range(lines: &Range<usize>) -> String {
            match lines.len() {
                0 => format!("{},0", lines.start),
                1 => format!("{}", lines.start + 1),
                n => format!("{},{n}", lines.start + 1),
            }
        }
        let mut header = format!("@@ -{} +{} @@", range(&self.old), range(&self.new));
        if let Some(scope) = &self.scope {
            header.push(' ');
            header.push_str(scope);
        }
        header
    }
}

/// The hunks of a line diff of `old` and `new`, each with `context`
/// unchanged lines around its changes; none when the texts are equal.
/// When a text parses as a model, hunks are named after the graph or
/// function their first changed line is in.
///
/// ```
/// let old = "<ir_version: 10>\nmain (float x) => (float y) {\n  y = Relu (x)\n}\n";
/// let new = "<ir_version: 10>\nmain (float x) => (float y) {\n  y = Abs (x)\n}\n";
/// let hunks = onnxtxt::diff::diff_texts(old, new, 1);
/// assert_eq!(hunks.len(), 1);
/// assert_eq!(hunks[0].header(), "@@ -2,3 +2,3 @@ graph main");
/// assert_eq!(hunks[0].lines[1].text, "  y = Relu (x)");
/// assert!(onnxtxt::diff::diff_texts(old, old, 3).is_empty());
/// ```
pub fn diff_texts(old: &str, new: &str, context: usize) -> Vec<Hunk> {
    let (old_lines, new_lines): (Vec<&str>, Vec<&str>) = (
        old.split_inclusive('\n').collect(),
        new.split_inclusive('\n').collect(),
    );
    let groups = group_diff_ops(line_ops(&old_lines, &new_lines), context);
    if groups.is_empty() {
        return Vec::new();
    }
    let outlines = [Outline::of(old), Outline::of(new)];
    groups
        .iter()
        .map(|group| {
            let (first, last) = (&group[0], &group[group.len() - 1]);
            // The text and line of the first change.
            let mut first_change = None;
            let mut lines = Vec::new();
            for change in group
                .iter()
                .flat_map(|op| op.iter_changes(&old_lines, &new_lines))
            {
                let (kind, at) = match change.tag() {
                    ChangeTag::Equal => (LineKind::Context, None),
                    ChangeTag::Delete => (LineKind::Removed, change.old_index().map(|l| (0, l))),
                    ChangeTag::Insert => (LineKind::Added, change.new_index().map(|l| (1, l))),
                };
                first_change = first_change.or(at);
                let text = change.value();
                let body = text.strip_suffix('\n').unwrap_or(text);
                lines.push(Line {
                    kind,
                    text: body.to_owned(),
                    newline: body.len() < text.len(),
                });
            }
            Hunk {
                old: first.old_range().start..last.old_range().end,
                new: first.new_range().start..last.new_range().end,
                scope: first_change
                    .and_then(|(side, line)| outlines[side].scope_at(line))
                    .map(str::to_owned),
                lines,
            }
        })
        .collect()
}

/// The operations that turn the lines `old` into `new`: a shortest edit
/// script (Myers' algorithm), made near-linear where most lines changed.
/// A line that is nowhere in the other text cannot be kept, so it is
/// removed or added without being given to the algorithm, whose time
/// grows with the product of the lines and the edits; the lines left hold
/// every common subsequence, so the script is as short (as GNU diff
/// discards such lines).
fn line_ops(old: &[&str], new: &[&str]) -> Vec<DiffOp> {
    let in_old: HashSet<&str> = old.iter().copied().collect();
    let in_new: HashSet<&str> = new.iter().copied().collect();
    let old_kept: Vec<usize> = (0..old.len())
        .filter(|&i| in_new.contains(old[i]))
        .collect();
    let new_kept: Vec<usize> = (0..new.len())
        .filter(|&j| in_old.contains(new[j]))
        .collect();
    let a: Vec<&str> = old_kept.iter().map(|&i| old[i]).collect();
    let b: Vec<&str> = new_kept.iter().map(|&j| new[j]).collect();
    // The kept lines' matches, in the indices of all lines, and an end.
    let mut matches = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            matches.extend((0..len).map(|k| (old_kept[old_index + k], new_kept[new_index + k])));
        }
    }
    matches.push((old.len(), new.len()));
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    for (next_i, next_j) in matches {
        let (old_len, new_len) = (next_i - i, next_j - j);
        match (old_len, new_len) {
            (0, 0) => {}
            (_, 0) => ops.push(DiffOp::Delete {
                old_index: i,
                old_len,
                new_index: j,
            }),
            (0, _) => ops.push(DiffOp::Insert {
                old_index: i,
                new_index: j,
                new_len,
            }),
            _ => ops.push(DiffOp::Replace {
                old_index: i,
                old_len,
                new_index: j,
                new_len,
            }),
        }
        if next_i < old.len() {
            match ops.last_mut() {
                Some(DiffOp::Equal { len, .. }) if old_len == 0 && new_len == 0 => *len += 1,
                _ => ops.push(DiffOp::Equal {
                    old_index: next_i,
                    new_index: next_j,
                    len: 1,
                }),
            }
        }
        (i, j) = (next_i + 1, next_j + 1);
    }
    ops
}

/// The graphs and functions of a text model, with the lines each spans.
#[derive(Debug, Default)]
struct Outline {
    scopes: Vec<(Range<usize>, String)>,
}

impl Outline {
    /// The outline of `text`; empty if it does not parse.
    fn of(text: &str) -> Self {
        let Ok((model, map)) = crate::parse_model_with_source_map(text) else {
            return Outline::default();
        };
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let line_of = |byte: usize| line_starts.partition_point(|&start| start <= byte) - 1;
        let scopes = map
            .iter()
            .filter_map(|(path, span)| {
                let ir_path = IrPath::parse(path)?;
                let name = if let Some(function) = function_index(&ir_path) {
                    function_label(model.functions.get(function)?)
                } else if ir_path.kind() == ItemKind::Graph {
                    match map.span(&format!("{path}.name")) {
                        Some(name) => format!("graph {}", &text[name]),
                        None => "graph".to_owned(),
                    }
                } else {
                    return None;
                };
                let lines = line_of(span.start)..line_of(span.end.max(span.start + 1) - 1) + 1;
                Some((lines, name))
            })
            .collect();
        Outline { scopes }
    }

    /// The innermost graph or function that holds `line`.
    fn scope_at(&self, line: usize) -> Option<&str> {
        self.scopes
            .iter()
            .filter(|(lines, _)| lines.contains(&line))
            .min_by_key(|(lines, _)| lines.len())
            .map(|(_, name)| name.as_str())
    }
}

/// `i` for the source map path `functions[i]`.
fn function_index(path: &IrPath) -> Option<usize> {
    match path.steps() {
        [Step::Field(field), Step::Index(index)] if field == "functions" => Some(*index),
        _ => None,
    }
}

/// `function DOMAIN.NAME:OVERLOAD`.
fn function_label(f: &FunctionProto) -> String {
    format!("function {}", function_name(f))
}

/// `DOMAIN.NAME:OVERLOAD`, without what is unset or empty.
fn function_name(f: &FunctionProto) -> String {
    qualified_name(
        f.domain.as_deref(),
        f.name.as_deref(),
        f.overload.as_deref(),
    )
}

/// `DOMAIN.NAME:OVERLOAD` (a function's, or an operator's), without what
/// is unset or empty.
fn qualified_name(domain: Option<&str>, name: Option<&str>, overload: Option<&str>) -> String {
    let mut text = String::new();
    if let Some(domain) = domain.filter(|d| !d.is_empty()) {
        text.push_str(domain);
        text.push('.');
    }
    text.push_str(name.unwrap_or(""));
    if let Some(overload) = overload.filter(|o| !o.is_empty()) {
        text.push(':');
        text.push_str(overload);
    }
    text
}

/// How two models differ.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ModelDiff {
    /// The hunks of the diff of their canonical texts.
    pub hunks: Vec<Hunk>,
    /// With [`DiffOptions::summarize_tensors`], the tensors whose values
    /// changed, in the order of the old model.
    pub tensors: Vec<TensorChange>,
}

impl ModelDiff {
    /// Whether the models are the same (as far as the options look).
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty() && self.tensors.is_empty()
    }
}

/// Compares two models through their canonical texts.
///
/// ```
/// use onnxtxt::diff::{diff_models, DiffOptions};
///
/// let old = onnxtxt::parse_model(r#"<ir_version: 10, opset_import: ["": 21]>
///     main (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}> { y = Add (x, w) }"#)?;
/// let new = onnxtxt::parse_model(r#"<ir_version: 10, opset_import: ["": 21]>
///     main (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.5}> { y = Add (x, w) }"#)?;
///
/// let diff = diff_models(&old, &new, &DiffOptions::default());
/// assert_eq!(diff.hunks[0].scope.as_deref(), Some("graph main"));
///
/// let mut options = DiffOptions::default();
/// options.summarize_tensors = true;
/// let diff = diff_models(&old, &new, &options);
/// assert!(diff.hunks.is_empty());
/// assert_eq!(diff.tensors[0].to_string(), "w: 2 float, 1 value changed, max abs diff 0.5\n  w[1]: 2.0 → 2.5");
/// assert!(diff_models(&old, &old, &options).is_empty());
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn diff_models(old: &ModelProto, new: &ModelProto, options: &DiffOptions) -> ModelDiff {
    let (old, old_tensors) = prepare(old, options);
    let (new, new_tensors) = prepare(new, options);
    let hunks = diff_texts(
        &crate::to_text(&old),
        &crate::to_text(&new),
        options.context,
    );
    let mut by_place: HashMap<&str, &Elided> = HashMap::new();
    for tensor in &new_tensors {
        by_place.entry(tensor.place.as_str()).or_insert(tensor);
    }
    let tensors = old_tensors
        .iter()
        .filter_map(|before| TensorChange::between(before, by_place.get(before.place.as_str())?))
        .collect();
    ModelDiff { hunks, tensors }
}

/// A copy of `model` with what `options` leave out cleared, and, with
/// [`DiffOptions::summarize_tensors`], the tensors whose elements were
/// replaced by a placeholder.
fn prepare(model: &ModelProto, options: &DiffOptions) -> (ModelProto, Vec<Elided>) {
    let mut model = model.clone();
    if options.ignore_doc_strings {
        model.doc_string = None;
    }
    if options.ignore_metadata {
        model.metadata_props.clear();
        model.producer_name = None;
        model.producer_version = None;
        model.domain = None;
        model.model_version = None;
    }
    let mut elided = Vec::new();
    walk_model(&mut model, &mut |mut item| {
        if options.ignore_doc_strings {
            *item.doc_string() = None;
        }
        if options.ignore_metadata {
            if let Some(props) = item.metadata_props() {
                props.clear();
            }
        }
        if let (true, Item::Tensor(tensor, _)) = (options.ignore_storage, &mut item) {
            if tensor.raw_data.is_some() {
                if let Some(values) = take_elements(tensor) {
                    put_elements(tensor, values);
                }
            }
        }
        if let (true, Item::Tensor(tensor, Some(place))) = (options.summarize_tensors, item) {
            if let Some(values) = take_values(tensor) {
                elided.push(Elided {
                    place,
                    shape: Shape::of(tensor),
                    values,
                });
            }
        }
    });
    (model, elided)
}

/// An item of a model that has a doc string.
enum Item<'a> {
    Graph(&'a mut GraphProto),
    Node(&'a mut NodeProto),
    Attribute(&'a mut AttributeProto),
    ValueInfo(&'a mut ValueInfoProto),
    Function(&'a mut FunctionProto),
    /// A tensor, with where it is (`W`, `local.MyFn/c.value`,
    /// `loop.body/W`) unless it is part of a sparse tensor.
    Tensor(&'a mut TensorProto, Option<String>),
}

impl Item<'_> {
    fn doc_string(&mut self) -> &mut Option<String> {
        match self {
            Item::Graph(g) => &mut g.doc_string,
            Item::Node(n) => &mut n.doc_string,
            Item::Attribute(a) => &mut a.doc_string,
            Item::ValueInfo(v) => &mut v.doc_string,
            Item::Function(f) => &mut f.doc_string,
            Item::Tensor(t, _) => &mut t.doc_string,
        }
    }

    fn metadata_props(&mut self) -> Option<&mut Vec<StringStringEntryProto>> {
        match self {
            Item::Graph(g) => Some(&mut g.metadata_props),
            Item::Node(n) => Some(&mut n.metadata_props),
            Item::Attribute(_) => None,
            Item::ValueInfo(v) => Some(&mut v.metadata_props),
            Item::Function(f) => Some(&mut f.metadata_props),
            Item::Tensor(t, _) => Some(&mut t.metadata_props),
        }
    }
}

type Visit<'v> = dyn FnMut(Item<'_>) + 'v;

/// Visits every item of `model` (not the model itself), inner items first.
fn walk_model(model: &mut ModelProto, visit: &mut Visit<'_>) {
    if let Some(graph) = &mut model.graph {
        walk_graph(graph, "", visit);
    }
    for (i, training) in model.training_info.iter_mut().enumerate() {
        for (field, graph) in [
            ("initialization", &mut training.initialization),
            ("algorithm", &mut training.algorithm),
        ] {
            if let Some(graph) = graph {
                walk_graph(graph, &format!("training_info[{i}].{field}/"), visit);
            }
        }
    }
    for function in &mut model.functions {
        let prefix = format!("{}/", function_name(function));
        for attribute in &mut function.attribute_proto {
            let place = format!("{prefix}{}", attribute.name.as_deref().unwrap_or(""));
            walk_attribute(attribute, &place, visit);
        }
        walk_nodes(&mut function.node, &prefix, visit);
        for value_info in &mut function.value_info {
            visit(Item::ValueInfo(value_info));
        }
        visit(Item::Function(function));
    }
}

/// Visits a graph and what it holds; `prefix` starts the places of its
/// tensors.
fn walk_graph(graph: &mut GraphProto, prefix: &str, visit: &mut Visit<'_>) {
    for value_info in graph
        .input
        .iter_mut()
        .chain(&mut graph.output)
        .chain(&mut graph.value_info)
    {
        visit(Item::ValueInfo(value_info));
    }
    for tensor in &mut graph.initializer {
        let place = format!("{prefix}{}", tensor.name.as_deref().unwrap_or(""));
        visit(Item::Tensor(tensor, Some(place)));
    }
    for sparse in &mut graph.sparse_initializer {
        walk_sparse(sparse, visit);
    }
    walk_nodes(&mut graph.node, prefix, visit);
    visit(Item::Graph(graph));
}

/// Visits nodes; a node is named by its name, else its first output, else
/// its index.
fn walk_nodes(nodes: &mut [NodeProto], prefix: &str, visit: &mut Visit<'_>) {
    for (i, node) in nodes.iter_mut().enumerate() {
        let id = match (node.name.as_deref(), node.output.first()) {
            (Some(name), _) if !name.is_empty() => name.to_owned(),
            (_, Some(output)) if !output.is_empty() => output.clone(),
            _ => format!("node[{i}]"),
        };
        for attribute in &mut node.attribute {
            let place = format!("{prefix}{id}.{}", attribute.name.as_deref().unwrap_or(""));
            walk_attribute(attribute, &place, visit);
        }
        visit(Item::Node(node));
    }
}

/// Visits an attribute at `place` and the tensors and graphs it holds.
fn walk_attribute(attribute: &mut AttributeProto, place: &str, visit: &mut Visit<'_>) {
    if let Some(tensor) = &mut attribute.t {
        visit(Item::Tensor(tensor, Some(place.to_owned())));
    }
    for (i, tensor) in attribute.tensors.iter_mut().enumerate() {
        visit(Item::Tensor(tensor, Some(format!("{place}[{i}]"))));
    }
    if let Some(graph) = &mut attribute.g {
        walk_graph(graph, &format!("{place}/"), visit);
    }
    for (i, graph) in attribute.graphs.iter_mut().enumerate() {
        walk_graph(graph, &format!("{place}[{i}]/"), visit);
    }
    for sparse in attribute
        .sparse_tensor
        .as_deref_mut()
        .into_iter()
        .chain(&mut attribute.sparse_tensors)
    {
        walk_sparse(sparse, visit);
    }
    visit(Item::Attribute(attribute));
}

fn walk_sparse(sparse: &mut SparseTensorProto, visit: &mut Visit<'_>) {
    for tensor in sparse.values.iter_mut().chain(&mut sparse.indices) {
        visit(Item::Tensor(tensor, None));
    }
}

/// The values of a tensor whose elements were replaced by a placeholder.
struct Elided {
    place: String,
    shape: Shape,
    values: TypedValues,
}

/// Takes the elements out of `tensor`, leaving a placeholder (written as
/// external data, which has no elements), if they are stored in the one
/// field its type uses or in `raw_data` in the standard layout. Other
/// tensors are left as they are.
fn take_values(tensor: &mut TensorProto) -> Option<TypedValues> {
    let values = take_elements(tensor)?;
    tensor.data_location = Some(1);
    let count = values.len();
    tensor.external_data = vec![StringStringEntryProto {
        key: Some("elided".into()),
        value: Some(format!("{count} {}", plural(count, "value"))),
    }];
    Some(values)
}

/// Puts `values` in the typed field they belong in.
fn put_elements(tensor: &mut TensorProto, values: TypedValues) {
    match values {
        TypedValues::Int32(v) => tensor.int32_data = v,
        TypedValues::Int64(v) => tensor.int64_data = v,
        TypedValues::Uint64(v) => tensor.uint64_data = v,
        TypedValues::Float(v) => tensor.float_data = v,
        TypedValues::Double(v) => tensor.double_data = v,
        TypedValues::Bytes(v) => tensor.string_data = v,
    }
}

/// Takes the elements out of `tensor`, leaving it with none, if they are
/// stored as [`take_values`] reads them.
fn take_elements(tensor: &mut TensorProto) -> Option<TypedValues> {
    let data_type = tensor.data_type?;
    let field = tensor_data::typed_field(data_type)?;
    let count = tensor
        .dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))?;
    let stray = TYPED_FIELDS
        .into_iter()
        .any(|other| other != field && typed_len(tensor, other) > 0);
    if stray || tensor.data_location == Some(1) {
        return None;
    }
    let values = match &tensor.raw_data {
        Some(raw) if typed_len(tensor, field) == 0 => {
            tensor_data::unpack_raw(data_type, raw, count)?
        }
        Some(_) => return None,
        None => match field {
            TypedField::Int32Data => TypedValues::Int32(std::mem::take(&mut tensor.int32_data)),
            TypedField::Int64Data => TypedValues::Int64(std::mem::take(&mut tensor.int64_data)),
            TypedField::Uint64Data => TypedValues::Uint64(std::mem::take(&mut tensor.uint64_data)),
            TypedField::FloatData => TypedValues::Float(std::mem::take(&mut tensor.float_data)),
            TypedField::DoubleData => TypedValues::Double(std::mem::take(&mut tensor.double_data)),
            TypedField::StringData => TypedValues::Bytes(std::mem::take(&mut tensor.string_data)),
        },
    };
    tensor.raw_data = None;
    Some(values)
}

const TYPED_FIELDS: [TypedField; 6] = [
    TypedField::Int32Data,
    TypedField::Int64Data,
    TypedField::Uint64Data,
    TypedField::FloatData,
    TypedField::DoubleData,
    TypedField::StringData,
];

/// How many entries `field` of `tensor` holds.
fn typed_len(tensor: &TensorProto, field: TypedField) -> usize {
    match field {
        TypedField::Int32Data => tensor.int32_data.len(),
        TypedField::Int64Data => tensor.int64_data.len(),
        TypedField::Uint64Data => tensor.uint64_data.len(),
        TypedField::FloatData => tensor.float_data.len(),
        TypedField::DoubleData => tensor.double_data.len(),
        TypedField::StringData => tensor.string_data.len(),
    }
}

fn plural(count: usize, word: &str) -> String {
    if count == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

/// A tensor's element type and dimensions.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Shape {
    /// `TensorProto.DataType` code.
    pub data_type: i32,
    /// Dimensions; none for a scalar.
    pub dims: Vec<i64>,
}

impl Shape {
    fn of(tensor: &TensorProto) -> Self {
        Shape {
            data_type: tensor.data_type.unwrap_or(0),
            dims: tensor.dims.clone(),
        }
    }
}

impl fmt::Display for Shape {
    /// `1000×1000 float`, `scalar int64`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.dims.is_empty() {
            f.write_str("scalar")?;
        }
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str("×")?;
            }
            write!(f, "{d}")?;
        }
        match vocabulary::element_type_name(self.data_type) {
            Some(name) => write!(f, " {name}"),
            None => write!(f, " (data type {})", self.data_type),
        }
    }
}

/// The largest absolute difference between two values of a tensor.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum MaxAbsDiff {
    /// For floating-point types (narrow ones too); NaN when a value became
    /// or stopped being NaN.
    Float(f64),
    /// For integer types (and `bool`).
    Int(u128),
}

impl fmt::Display for MaxAbsDiff {
    /// Floats to 6 significant digits, the shortest way (`0.02`, `1e-7`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MaxAbsDiff::Int(d) => write!(f, "{d}"),
            MaxAbsDiff::Float(d) => {
                let rounded: f64 = format!("{d:.5e}").parse().unwrap_or(d);
                // Debug writes the shortest digits, with an exponent for
                // very small and very large values.
                let text = format!("{rounded:?}");
                f.write_str(text.strip_suffix(".0").unwrap_or(&text))
            }
        }
    }
}

/// How the values of a tensor found at the same place in both models
/// changed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TensorChange {
    /// Where it is: its name for an initializer of the main graph, else
    /// what holds it, `/`-separated: `loop_node.body/W` (a graph attribute
    /// of a node, named by its name or first output), `local.MyFn/c.value`
    /// (an attribute of a function's node), `c.value[1]` (an element of a
    /// list of tensors).
    pub place: String,
    /// Its type and dimensions in the old model.
    pub old: Shape,
    /// Its type and dimensions in the new model.
    pub new: Shape,
    /// When the shapes are the same, how many values changed and by how
    /// much at most (`None` for strings).
    pub values: Option<(usize, Option<MaxAbsDiff>)>,
    /// When the shapes are the same, the first [`FIRST_CHANGES_SHOWN`]
    /// changed values, in storage order.
    pub first_changes: Vec<ValueChange>,
}

impl TensorChange {
    /// The change from `old` to `new`, if any.
    fn between(old: &Elided, new: &Elided) -> Option<Self> {
        let mut first_changes = Vec::new();
        let values = if old.shape == new.shape {
            let tally = compare(old.shape.data_type, &old.values, &new.values)?;
            if tally.changed == 0 {
                return None;
            }
            first_changes = tally
                .first
                .into_iter()
                .map(|(index, old_text, new_text)| ValueChange {
                    position: position(&old.shape.dims, index),
                    old: old_text,
                    new: new_text,
                })
                .collect();
            Some((tally.changed, tally.max))
        } else {
            None
        };
        Some(TensorChange {
            place: old.place.clone(),
            old: old.shape.clone(),
            new: new.shape.clone(),
            values,
            first_changes,
        })
    }
}

impl fmt::Display for TensorChange {
    /// `W: 1000×1000 float, 37 values changed, max abs diff 0.02`, then one
    /// line per listed change, `  W[3,17]: -0.14128697 → 0.0`, and
    /// `  ... 34 more` when there are more; or `W: 4×8 float → 8×8 float`
    /// when the shape or type changed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.old)?;
        let Some((changed, max)) = self.values else {
            return write!(f, " → {}", self.new);
        };
        write!(f, ", {changed} {} changed", plural(changed, "value"))?;
        if let Some(max) = max {
            write!(f, ", max abs diff {max}")?;
        }
        for change in &self.first_changes {
            write!(f, "\n  {}", self.place)?;
            if !change.position.is_empty() {
                let indices: Vec<String> = change.position.iter().map(usize::to_string).collect();
                write!(f, "[{}]", indices.join(","))?;
            }
            write!(f, ": {} → {}", change.old, change.new)?;
        }
        if changed > self.first_changes.len() {
            write!(f, "\n  ... {} more", changed - self.first_changes.len())?;
        }
        Ok(())
    }
}

/// The changed values a [`TensorChange`] lists, the first ones in storage
/// order: enough to find a change without flooding the summary.
pub const FIRST_CHANGES_SHOWN: usize = 3;

/// One value that changed, at its position.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValueChange {
    /// Its position, one index per dimension (none for a scalar).
    pub position: Vec<usize>,
    /// The old value, as printed (`-0.14128697`, `3`, `"a"`).
    pub old: String,
    /// The new value.
    pub new: String,
}

/// How the entries of two lists of values of the same type and length
/// differ: how many, by how much at most, and the first ones.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub(crate) changed: usize,
    pub(crate) max: Option<MaxAbsDiff>,
    /// Flat indices and texts of the first [`FIRST_CHANGES_SHOWN`] changes.
    pub(crate) first: Vec<(usize, String, String)>,
}

impl Tally {
    /// Counts the pairs that differ (by `differs`), keeping the first ones
    /// as `text` writes them; `distance` is told of each.
    fn of<T>(
        old: &[T],
        new: &[T],
        differs: impl Fn(&T, &T) -> bool,
        text: impl Fn(&T) -> String,
        mut distance: impl FnMut(&T, &T),
    ) -> Tally {
        let mut tally = Tally::default();
        for (i, (a, b)) in old.iter().zip(new).enumerate() {
            if differs(a, b) {
                tally.changed += 1;
                distance(a, b);
                if tally.first.len() < FIRST_CHANGES_SHOWN {
                    tally.first.push((i, text(a), text(b)));
                }
            }
        }
        tally
    }

    /// With floats, which differ when their bits do.
    fn floats<T: Copy + Into<f64>>(old: &[T], new: &[T], text: impl Fn(&T) -> String) -> Tally {
        let mut max: Option<f64> = None;
        let mut tally = Tally::of(
            old,
            new,
            |&a, &b| a.into().to_bits() != b.into().to_bits(),
            text,
            |&a, &b| {
                let d = (a.into() - b.into()).abs();
                max = Some(match max {
                    Some(m) if m.is_nan() || d.is_nan() => f64::NAN,
                    Some(m) => m.max(d),
                    None => d,
                });
            },
        );
        tally.max = max.map(MaxAbsDiff::Float);
        tally
    }

    /// With integers.
    fn ints<T: Copy + Into<i128> + ToString>(old: &[T], new: &[T]) -> Tally {
        let mut max: Option<u128> = None;
        let mut tally = Tally::of(
            old,
            new,
            |&a, &b| a.into() != b.into(),
            T::to_string,
            |&a, &b| {
                let d = a.into().abs_diff(b.into());
                max = Some(max.map_or(d, |m| m.max(d)));
            },
        );
        tally.max = max.map(MaxAbsDiff::Int);
        tally
    }
}

/// How the entries of `old` and `new` (same type and length) differ;
/// `None` if they cannot be compared. Floats differ when their bits do.
pub(crate) fn compare(data_type: i32, old: &TypedValues, new: &TypedValues) -> Option<Tally> {
    if old.len() != new.len() {
        return None;
    }
    Some(match (old, new) {
        (TypedValues::Int32(a), TypedValues::Int32(b))
            if tensor_data::is_narrow_float(data_type) =>
        {
            let value = |bits: i32| {
                u32::try_from(bits)
                    .ok()
                    .and_then(|bits| tensor_data::bits_to_f64(data_type, bits))
                    .unwrap_or(f64::NAN)
            };
            let a: Vec<f64> = a.iter().map(|&x| value(x)).collect();
            let b: Vec<f64> = b.iter().map(|&x| value(x)).collect();
            Tally::floats(&a, &b, |x| format!("{x:?}"))
        }
        (TypedValues::Int32(a), TypedValues::Int32(b)) => Tally::ints(a, b),
        (TypedValues::Int64(a), TypedValues::Int64(b)) => Tally::ints(a, b),
        (TypedValues::Uint64(a), TypedValues::Uint64(b)) => Tally::ints(a, b),
        (TypedValues::Float(a), TypedValues::Float(b)) => Tally::floats(a, b, |x| format!("{x:?}")),
        (TypedValues::Double(a), TypedValues::Double(b)) => {
            Tally::floats(a, b, |x| format!("{x:?}"))
        }
        (TypedValues::Bytes(a), TypedValues::Bytes(b)) => Tally::of(
            a,
            b,
            |a, b| a != b,
            |x| format!("{:?}", String::from_utf8_lossy(x)),
            |_, _| {},
        ),
        _ => return None,
    })
}

/// The position of flat index `index` in a tensor of `dims` (row-major).
pub(crate) fn position(dims: &[i64], mut index: usize) -> Vec<usize> {
    let mut position = vec![0; dims.len()];
    for (p, &d) in position.iter_mut().zip(dims).rev() {
        let d = usize::try_from(d).unwrap_or(0).max(1);
        *p = index % d;
        index /= d;
    }
    position
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scopes(old: &str, new: &str) -> Vec<Option<String>> {
        diff_texts(old, new, 3)
            .into_iter()
            .map(|hunk| hunk.scope)
            .collect()
    }

    const MODEL: &str = r#"<
  ir_version: 10,
  opset_import: ["": 21, "local": 1]
>
main (float[N] x, bool c) => (float[N] y) {
  t = local.Double (x)
  u = Relu (t)
  v = Abs (u)
  y = If (c) <
    then_branch: graph = yes () => (float[N] z) {
      z = Identity (v)
    },
    else_branch: graph = no () => (float[N] z) {
      z = Neg (v)
    }
  >
}

<
  domain: "local",
  opset_import: ["": 21]
>
Double (a) => (b) {
  b = Add (a, a)
}
"#;

    fn changed(from: &str, to: &str) -> String {
        assert!(MODEL.contains(from), "{from}");
        MODEL.replacen(from, to, 1)
    }

    #[test]
    fn hunks_are_named_after_the_innermost_graph_or_function() {
        for (from, to, scope) in [
            ("u = Relu (t)", "u = Elu (t)", "graph main"),
            ("z = Identity (v)", "z = Abs (v)", "graph yes"),
            ("z = Neg (v)", "z = Sigmoid (v)", "graph no"),
            ("b = Add (a, a)", "b = Mul (a, a)", "function local.Double"),
            // A line that the function header holds.
            (
                "opset_import: [\"\": 21]\n>",
                "opset_import: [\"\": 22]\n>",
                "function local.Double",
            ),
        ] {
            assert_eq!(
                scopes(MODEL, &changed(from, to)),
                [Some(scope.to_owned())],
                "{from}"
            );
        }
    }

    #[test]
    fn the_first_changed_line_names_the_hunk_not_its_context() {
        // The context lines before the change are in the main graph.
        let new = changed("  b = Add (a, a)\n", "  b = Add (a, a)\n  c = Abs (b)\n");
        let hunks = diff_texts(MODEL, &new, 30);
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].old.start, 0);
        assert_eq!(hunks[0].scope.as_deref(), Some("function local.Double"));
        // A deleted line is found in the old text.
        let new = changed("  v = Abs (u)\n", "");
        assert_eq!(scopes(MODEL, &new), [Some("graph main".to_owned())]);
    }

    #[test]
    fn the_model_header_and_unparsable_text_have_no_scope() {
        assert_eq!(
            scopes(MODEL, &changed("ir_version: 10", "ir_version: 9")),
            [None]
        );
        assert_eq!(scopes("a\nb\n", "a\nc\n"), [None]);
    }

    #[test]
    fn separate_changes_make_separate_hunks() {
        let new = changed("u = Relu (t)", "u = Elu (t)").replace("Add (a, a)", "Sub (a, a)");
        assert_eq!(
            scopes(MODEL, &new),
            [
                Some("graph main".to_owned()),
                Some("function local.Double".to_owned())
            ]
        );
    }

    #[test]
    fn headers_count_lines_as_diff_does() {
        let hunks = diff_texts("a\nb\n", "a\nb\nc", 3);
        assert_eq!(hunks[0].header(), "@@ -1,2 +1,3 @@");
        let last = hunks[0].lines.last().unwrap();
        assert_eq!(
            (last.kind, last.text.as_str(), last.newline),
            (LineKind::Added, "c", false)
        );
        assert_eq!(diff_texts("a\n", "", 3)[0].header(), "@@ -1 +0,0 @@");
    }

    #[test]
    fn placeholders_keep_the_text_a_model() {
        let text = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
main (float[2] x, float[2] w = {1, 2}) => (float[2] y) <float16[2] h = {1.5, 2.0}> {
  y = If (c) <then_branch: graph = yes () => (float[2] z) <int8[1] i = {3}> {
    z = Constant <value_ints: tensors = [int64[1] {1}, int64[1] {2}]> ()
  }>
}
<domain: "local", opset_import: ["": 21]>
f <p: tensor = float[1] {1.0}> (a) => (b) {
  b = Constant <value: tensor = float[1] {2.0}> ()
}
"#;
        let old = crate::parse_model(text).unwrap();
        let new = crate::parse_model(
            &text
                .replace("1.5, 2.0", "1.5, 2.5")
                .replace("{3}", "{-4}")
                .replace("{2}]", "{7}]")
                .replace("{2.0}", "{2.25}"),
        )
        .unwrap();
        let options = DiffOptions {
            summarize_tensors: true,
            ..DiffOptions::default()
        };
        let (elided, tensors) = prepare(&old, &options);
        let places: Vec<&str> = tensors.iter().map(|t| t.place.as_str()).collect();
        assert_eq!(
            places,
            [
                "w",
                "h",
                "y.then_branch/i",
                "y.then_branch/z.value_ints[0]",
                "y.then_branch/z.value_ints[1]",
                "local.f/p",
                "local.f/b.value"
            ]
        );
        let printed = crate::to_text(&elided);
        for elements in [
            "{1, 2}",
            "{1.5, 2.0}",
            "{3}",
            "{1}",
            "{2}",
            "{1.0}",
            "{2.0}",
        ] {
            assert!(!printed.contains(elements), "{elements} in {printed}");
        }
        assert!(crate::parse_model(&printed).is_ok(), "{printed}");
        let summaries: Vec<String> = diff_models(&old, &new, &options)
            .tensors
            .iter()
            .map(TensorChange::to_string)
            .collect();
        assert_eq!(
            summaries,
            [
                "h: 2 float16, 1 value changed, max abs diff 0.5\n  h[1]: 2.0 → 2.5",
                "y.then_branch/i: 1 int8, 1 value changed, max abs diff 7\n  y.then_branch/i[0]: 3 → -4",
                "y.then_branch/z.value_ints[1]: 1 int64, 1 value changed, max abs diff 5\n  \
                 y.then_branch/z.value_ints[1][0]: 2 → 7",
                "local.f/b.value: 1 float, 1 value changed, max abs diff 0.25\n  \
                 local.f/b.value[0]: 2.0 → 2.25",
            ]
        );
    }

    #[test]
    fn positions_are_row_major_and_the_rest_is_counted() {
        assert_eq!(position(&[64, 128], 3 * 128 + 17), [3, 17]);
        assert_eq!(position(&[2, 3, 4], 23), [1, 2, 3]);
        assert!(position(&[], 0).is_empty());
        // 0.0 stays, 1.0 to 9.0 change sign.
        let old = TypedValues::Float((0..10).map(|i| i as f32).collect());
        let new = TypedValues::Float((0..10).map(|i| -(i as f32)).collect());
        let tally = compare(1, &old, &new).unwrap();
        assert_eq!(tally.changed, 10, "-0.0 is another value than 0.0");
        let old = TypedValues::Float((1..11).map(|i| i as f32).collect());
        let new = TypedValues::Float(
            (1..11)
                .map(|i| if i == 1 { 1.0 } else { -(i as f32) })
                .collect(),
        );
        let tally = compare(1, &old, &new).unwrap();
        assert_eq!(tally.changed, 9);
        assert_eq!(
            tally.first,
            [
                (1, "2.0".into(), "-2.0".into()),
                (2, "3.0".into(), "-3.0".into()),
                (3, "4.0".into(), "-4.0".into())
            ]
        );
        let change = TensorChange {
            place: "W".into(),
            old: Shape {
                data_type: 1,
                dims: vec![10],
            },
            new: Shape {
                data_type: 1,
                dims: vec![10],
            },
            values: Some((tally.changed, tally.max)),
            first_changes: vec![ValueChange {
                position: vec![1],
                old: "2.0".into(),
                new: "-2.0".into(),
            }],
        };
        assert_eq!(
            change.to_string(),
            "W: 10 float, 9 values changed, max abs diff 20\n  W[1]: 2.0 → -2.0\n  ... 8 more"
        );
    }

    #[test]
    fn max_abs_diff_is_short() {
        assert_eq!(MaxAbsDiff::Float(0.019999995827674866).to_string(), "0.02");
        assert_eq!(MaxAbsDiff::Float(2.0).to_string(), "2");
        assert_eq!(MaxAbsDiff::Float(1e-7).to_string(), "1e-7");
        assert_eq!(MaxAbsDiff::Float(3.0000004e20).to_string(), "3e20");
        assert_eq!(MaxAbsDiff::Float(f64::NAN).to_string(), "NaN");
        assert_eq!(MaxAbsDiff::Int(3).to_string(), "3");
    }
}
