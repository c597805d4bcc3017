//! Where each IR item came from in the text: the parser records the span of
//! every graph, node, attribute, value info and function it completes (a
//! "landmark", kept in chumsky's parser state and rolled back when the
//! parser backtracks), and [`SourceMap`] matches them to IR paths such as
//! `graph.node[3].attribute[0]` by walking the IR beside them.

use foldhash::{HashMap, HashSet};

use chumsky::prelude::*;

use super::{Extra, Fail, Parsed, Tokens};
use crate::error::Span;
use crate::ir_path::{AttributeKeys, NodePaths};
use crate::proto::{
    attribute_proto::AttributeType, AttributeProto, FunctionProto, GraphProto, ModelProto,
    NodeProto,
};

/// What a landmark marks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Kind {
    #[default]
    Graph,
    Node,
    Attribute,
    Function,
    /// A graph input; `true` when it is also initialized.
    Input(bool),
    Output,
    /// An entry of a graph's `<...>` list; `true` for an initializer.
    ListEntry(bool),
    /// An `@<...>` annotation: what it contains is not part of the
    /// construct's own structure.
    Annotation,
    /// A name in a node's output or input list, a graph's or a function's
    /// name, the name of a value info, of an attribute, or of what an
    /// attribute reference refers to.
    Name,
    /// A node's operator: `domain.Op:overload`.
    Operator,
    /// An attribute reference, `@name`.
    Reference,
    /// A function's attribute declared by its name alone.
    AttributeName,
    /// A model's header.
    Header,
    /// A header entry `opset_import: [...]`.
    OpsetImports,
    /// Any other header entry, fenced so that what its value holds (a
    /// graph, say) is not taken for part of the enclosing construct.
    HeaderEntry,
    /// A `"key": value` pair of a `[...]` list of pairs.
    Pair,
}

/// A completed construct: its kind, its span, and how many landmarks
/// existed when it started (those after that, up to it, are inside it).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Landmark {
    kind: Kind,
    span: SimpleSpan,
    start: usize,
}

/// The parser state: landmarks in the order their constructs completed,
/// kept only when a source map is wanted (plain parsing skips the work).
/// Backtracking drops the landmarks recorded since the point it returns to.
#[derive(Debug, Default)]
pub(crate) struct Landmarks {
    recorded: Vec<Landmark>,
    recording: bool,
}

impl Landmarks {
    /// A state that records landmarks.
    pub(crate) fn recording() -> Self {
        Landmarks {
            recorded: Vec::new(),
            recording: true,
        }
    }

    /// Whether landmarks are being recorded.
    pub(crate) fn is_recording(&self) -> bool {
        self.recording
    }

    /// The landmarks recorded, in the order their constructs completed.
    pub(crate) fn recorded(&self) -> &[Landmark] {
        &self.recorded
    }
}

impl Landmarks {
    /// Where the parse is in the recording, for [`Landmarks::rewind`].
    #[inline(always)]
    pub(crate) fn save(&self) -> usize {
        self.recorded.len()
    }

    /// Forgets what was recorded since [`Landmarks::save`] gave `saved`:
    /// the parse backtracked.
    #[inline(always)]
    pub(crate) fn rewind(&mut self, saved: usize) {
        self.recorded.truncate(saved);
    }
}

/// Records `parser`'s span as a landmark of `kind`.
pub(crate) fn landmark<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O: 't>(
    kind: Kind,
    parser: impl Parser<'t, I, O, Extra<E>> + Clone + 't,
) -> Parsed<'t, I, E, O> {
    landmark_with(move |_| kind, parser)
}

/// Records `parser`'s span as a landmark whose kind depends on its output.
/// (Boxed, as most productions are: the type of a construct's parser would
/// otherwise spell out every parser inside it, and debug builds keep every
/// such name.)
pub(crate) fn landmark_with<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, O: 't>(
    kind: impl Fn(&O) -> Kind + Clone + 't,
    parser: impl Parser<'t, I, O, Extra<E>> + Clone + 't,
) -> Parsed<'t, I, E, O> {
    empty()
        .map_with(
            |(), e: &mut chumsky::input::MapExtra<'t, '_, I, Extra<E>>| {
                e.state().landmarks.recorded.len()
            },
        )
        .then(parser)
        .map_with(move |(start, output), e| {
            if e.state().landmarks.recording {
                let landmark = Landmark {
                    kind: kind(&output),
                    span: e.span(),
                    start,
                };
                e.state().landmarks.recorded.push(landmark);
            }
            output
        })
        .boxed()
}

/// Spans of IR items, by IR path (`graph.node[3]`, `functions[0]`,
/// `graph.node[3].attribute["then_branch"].g.node[0]`,
/// `graph.initializer[2]`, `graph.node[3].input[1]`, `header`, ...): the
/// paths the printer and the checker use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMap {
    spans: HashMap<String, Span>,
}

impl SourceMap {
    /// The span of the item at `path`, if the text had one.
    pub fn span(&self, path: &str) -> Option<Span> {
        self.spans.get(path).cloned()
    }

    /// The span of the item at `path` or, failing that, of the nearest
    /// enclosing item that has one (`graph.node[3].attribute[1].t`, then
    /// `graph.node[3].attribute[1]`, then `graph.node[3]`, ...).
    pub fn find(&self, path: &str) -> Option<Span> {
        enclosing(path).find_map(|item| self.spans.get(item).cloned())
    }

    /// Every item with its span, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Span)> + '_ {
        self.spans
            .iter()
            .map(|(path, span)| (path.as_str(), span.clone()))
    }

    /// Matches the landmarks of a parsed model with its IR.
    pub(crate) fn of_model(model: &ModelProto, landmarks: &[Landmark]) -> Self {
        Self::of_model_keeping(model, landmarks, &Kept::All)
    }

    /// Matches the landmarks of a parsed model with the items of its IR
    /// that `kept` names, skipping every item that holds none of them.
    pub(crate) fn of_model_keeping(
        model: &ModelProto,
        landmarks: &[Landmark],
        kept: &Kept,
    ) -> Self {
        let mut map = SourceMap::default();
        let mut walk = Walk {
            landmarks,
            map: &mut map,
            kept,
        };
        let top = walk.children_of_range(0, landmarks.len());
        let graphs: Vec<_> = top
            .iter()
            .copied()
            .filter(|&i| landmarks[i].kind == Kind::Graph)
            .collect();
        if let (Some(graph), Some(&main)) = (&model.graph, graphs.last()) {
            walk.graph(graph, main, "graph".into());
        }
        if let Some(&header) = top.iter().find(|&&i| landmarks[i].kind == Kind::Header) {
            walk.record("header".into(), header);
            walk.opset_imports(header, "opset_import");
        }
        let functions = top
            .iter()
            .copied()
            .filter(|&i| landmarks[i].kind == Kind::Function);
        for (index, (function, landmark)) in model.functions.iter().zip(functions).enumerate() {
            walk.function(function, landmark, format!("functions[{index}]"));
        }
        map
    }
}

/// `path` (`graph.node[3].attribute[1]`), then each item that encloses
/// it, innermost first (`graph.node[3]`, `graph`).
fn enclosing(path: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(path), |item| {
        item.rfind(['.', '[']).map(|end| &item[..end])
    })
}

/// The items of a [`SourceMap`] to keep: every one, or only those
/// [`SourceMap::find`] and [`SourceMap::span`] need for some paths.
#[derive(Debug)]
pub(crate) enum Kept {
    All,
    /// Each path given, the items enclosing it and the names of all of
    /// these (`{item}.name`), the header, and the main graph and its name
    /// (what stands for an item that has no span).
    Around(HashSet<String>),
}

impl Kept {
    /// What [`SourceMap::find`] needs for `paths`: see [`Kept::Around`].
    pub(crate) fn around<'p>(paths: impl IntoIterator<Item = &'p str>) -> Self {
        let mut kept = HashSet::default();
        for path in paths.into_iter().chain(["header", "graph"]) {
            for item in enclosing(path) {
                if kept.contains(item) {
                    break;
                }
                kept.insert(format!("{item}.name"));
                kept.insert(item.to_owned());
            }
        }
        Kept::Around(kept)
    }

    /// Whether the item at `path` is kept. The set is closed under
    /// enclosing: when an item is not kept, nothing inside it is.
    fn keeps(&self, path: &str) -> bool {
        match self {
            Kept::All => true,
            Kept::Around(kept) => kept.contains(path),
        }
    }
}

/// The walk that pairs IR items with landmarks.
struct Walk<'a> {
    landmarks: &'a [Landmark],
    map: &'a mut SourceMap,
    kept: &'a Kept,
}

impl Walk<'_> {
    /// The landmarks directly inside the range `start..end` (not inside
    /// one of them), in text order.
    fn children_of_range(&self, start: usize, end: usize) -> Vec<usize> {
        let mut children = Vec::new();
        let mut index = end;
        while index > start {
            let child = index - 1;
            children.push(child);
            index = self.landmarks[child].start.max(start);
        }
        children.reverse();
        children
    }

    fn children(&self, parent: usize, kind: impl Fn(Kind) -> bool) -> Vec<usize> {
        let start = self.landmarks[parent].start;
        self.children_of_range(start, parent)
            .into_iter()
            .filter(|&i| kind(self.landmarks[i].kind))
            .collect()
    }

    fn record(&mut self, path: String, landmark: usize) {
        if !self.kept.keeps(&path) {
            return;
        }
        // A construct that consumes nothing (the empty name before a comma
        // in `Op(x, , y)`) can end before it starts: it is where it starts.
        let span = self.landmarks[landmark].span.into_range();
        let span = span.start..span.end.max(span.start);
        self.map.spans.insert(path, span);
    }

    /// Records the first child of `parent` of `kind`, if any, at `path`.
    fn record_child(&mut self, path: String, parent: usize, kind: Kind) {
        if !self.kept.keeps(&path) {
            return;
        }
        if let Some(&child) = self.children(parent, |k| k == kind).first() {
            self.record(path, child);
        }
    }

    /// Records a value info, or an entry of a list of them, at `path`,
    /// and its name at `path.name`.
    fn record_value_info(&mut self, path: String, landmark: usize) {
        self.record_child(format!("{path}.name"), landmark, Kind::Name);
        self.record(path, landmark);
    }

    fn graph(&mut self, graph: &GraphProto, landmark: usize, path: String) {
        if !self.kept.keeps(&path) {
            return;
        }
        self.record(path.clone(), landmark);
        // The children are found once: a main graph has one per node.
        let children = self.children(landmark, |_| true);
        let landmarks = self.landmarks;
        let of_kind = |kind| {
            children
                .iter()
                .copied()
                .filter(move |&i| landmarks[i].kind == kind)
        };
        if let Some(name) = of_kind(Kind::Name).next() {
            self.record(format!("{path}.name"), name);
        }
        let nodes: Vec<usize> = of_kind(Kind::Node).collect();
        let (mut input, mut output, mut initializer, mut value_info) = (0, 0, 0, 0);
        for &child in &children {
            let item = match self.landmarks[child].kind {
                Kind::Input(initialized) => {
                    if initialized {
                        self.record_value_info(format!("{path}.initializer[{initializer}]"), child);
                        initializer += 1;
                    }
                    input += 1;
                    format!("{path}.input[{}]", input - 1)
                }
                Kind::Output => {
                    output += 1;
                    format!("{path}.output[{}]", output - 1)
                }
                Kind::ListEntry(true) => {
                    initializer += 1;
                    format!("{path}.initializer[{}]", initializer - 1)
                }
                Kind::ListEntry(false) => {
                    value_info += 1;
                    format!("{path}.value_info[{}]", value_info - 1)
                }
                _ => continue,
            };
            self.record_value_info(item, child);
        }
        self.nodes(&graph.node, &nodes, &path);
    }

    fn nodes(&mut self, nodes: &[NodeProto], landmarks: &[usize], path: &str) {
        // Most nodes are not kept: skipping one allocates nothing.
        let mut paths = NodePaths::new(path);
        for (index, (node, &landmark)) in nodes.iter().zip(landmarks).enumerate() {
            let node_path = paths.of(index);
            if !self.kept.keeps(node_path) {
                continue;
            }
            let node_path = node_path.to_owned();
            self.record(node_path.clone(), landmark);
            self.record_child(format!("{node_path}.op_type"), landmark, Kind::Operator);
            let names = self.children(landmark, |k| k == Kind::Name);
            let (outputs, inputs) = names.split_at(node.output.len().min(names.len()));
            for (field, landmarks) in [("output", outputs), ("input", inputs)] {
                for (i, &name) in landmarks.iter().enumerate() {
                    self.record(format!("{node_path}.{field}[{i}]"), name);
                }
            }
            let attributes = self.children(landmark, |k| k == Kind::Attribute);
            self.attributes(&node.attribute, &attributes, &node_path, "attribute");
        }
    }

    fn attributes(
        &mut self,
        attributes: &[AttributeProto],
        landmarks: &[usize],
        path: &str,
        field: &str,
    ) {
        let keys = AttributeKeys::new(attributes);
        for (index, (attribute, &landmark)) in attributes.iter().zip(landmarks).enumerate() {
            // Attributes are named by the rule of IR paths (and found by
            // index too).
            let by_index = format!("{path}.{field}[{index}]");
            let attribute_path = format!("{path}.{}", keys.item(field, index));
            for item in [&by_index, &attribute_path] {
                if !self.map.spans.contains_key(item) {
                    self.record(item.clone(), landmark);
                    self.record_child(format!("{item}.name"), landmark, Kind::Name);
                    if let Some(&reference) =
                        self.children(landmark, |k| k == Kind::Reference).first()
                    {
                        self.record_child(format!("{item}.ref_attr_name"), reference, Kind::Name);
                    }
                }
            }
            let graphs = self.children(landmark, |k| k == Kind::Graph);
            if attribute.r#type == Some(AttributeType::Graphs as i32) {
                for (i, (graph, &g)) in attribute.graphs.iter().zip(&graphs).enumerate() {
                    self.graph(graph, g, format!("{attribute_path}.graphs[{i}]"));
                }
            } else if let (Some(graph), Some(&g)) = (&attribute.g, graphs.first()) {
                self.graph(graph, g, format!("{attribute_path}.g"));
            }
        }
    }

    fn function(&mut self, function: &FunctionProto, landmark: usize, path: String) {
        if !self.kept.keeps(&path) {
            return;
        }
        self.record(path.clone(), landmark);
        self.record_child(format!("{path}.name"), landmark, Kind::Name);
        self.opset_imports(landmark, &format!("{path}.opset_import"));
        // Inputs and outputs are names; the value infos written in `<...>`
        // come after those of the typed inputs and outputs.
        let infos = self.children(landmark, |k| k == Kind::ListEntry(false));
        let first_info = function.value_info.len().saturating_sub(infos.len());
        for (field, kind) in [
            ("input", Kind::Input(false)),
            ("output", Kind::Output),
            ("attribute", Kind::AttributeName),
        ] {
            for (i, child) in self
                .children(landmark, |k| k == kind)
                .into_iter()
                .enumerate()
            {
                match kind {
                    Kind::AttributeName => self.record(format!("{path}.{field}[{i}]"), child),
                    _ => self.record_child(format!("{path}.{field}[{i}]"), child, Kind::Name),
                }
            }
        }
        for (i, child) in infos.into_iter().enumerate() {
            self.record_value_info(format!("{path}.value_info[{}]", first_info + i), child);
        }
        let attributes = self.children(landmark, |k| k == Kind::Attribute);
        self.attributes(
            &function.attribute_proto,
            &attributes,
            &path,
            "attribute_proto",
        );
        let nodes = self.children(landmark, |k| k == Kind::Node);
        self.nodes(&function.node, &nodes, &path);
    }
}

impl Walk<'_> {
    /// The entries of the `opset_import` lists directly inside `parent`
    /// (a header or a function), as `{path}[i]`.
    fn opset_imports(&mut self, parent: usize, path: &str) {
        let mut index = 0;
        for list in self.children(parent, |k| k == Kind::OpsetImports) {
            for pair in self.children(list, |k| k == Kind::Pair) {
                self.record(format!("{path}[{index}]"), pair);
                index += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{parse_model_with_source_map, parse_model_with_source_map_for, SourceMap};

    /// The source map of `text`, and a function giving the text at a path.
    fn spans_of<'t>(text: &'t str) -> (SourceMap, impl Fn(&str) -> &'t str + 't) {
        let (_, map) = parse_model_with_source_map(text).unwrap();
        let at = {
            let map = map.clone();
            move |path: &str| -> &'t str {
                let span = map
                    .span(path)
                    .unwrap_or_else(|| panic!("no span for {path}"));
                &text[span]
            }
        };
        (map, at)
    }

    #[test]
    fn paths_lead_to_their_text() {
        let text = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
main (float[2] x, float[2] w = {1, 2}) => (float[2] y) <float[1] b = {3}, float[2] t> {
  t = Add (x, w)
  @<doc_string: "checks"> y = If <then_branch: graph = th () => (float[2] z) { z = Identity (t) }, k: int = 1> (c)
}
<domain: "local", opset_import: ["": 21]>
f <alpha: float = 1.0, beta> (a) => (b) {
  b = Mul (a, a)
}"#;
        let (map, at) = spans_of(text);
        assert_eq!(at("graph.node[0]"), "t = Add (x, w)");
        assert_eq!(at("graph.node[0].output[0]"), "t");
        assert_eq!(at("graph.node[0].input[1]"), "w");
        assert_eq!(
            &text[map.find("graph.node[0].attribute[7].t").unwrap()],
            "t = Add (x, w)"
        );
        assert!(at("graph.node[1]").starts_with("@<doc_string: \"checks\"> y = If"));
        assert!(at("graph.node[1].attribute[\"then_branch\"]")
            .starts_with("then_branch: graph = th ()"));
        assert_eq!(at("graph.node[1].attribute[\"k\"]"), "k: int = 1");
        assert_eq!(at("graph.node[1].attribute[1]"), "k: int = 1");
        assert_eq!(
            at("graph.node[1].attribute[\"then_branch\"].g.node[0]"),
            "z = Identity (t)"
        );
        assert_eq!(at("graph.input[1]"), "float[2] w = {1, 2}");
        assert_eq!(at("graph.initializer[0]"), "float[2] w = {1, 2}");
        assert_eq!(at("graph.initializer[1]"), "float[1] b = {3}");
        assert_eq!(at("graph.value_info[0]"), "float[2] t");
        assert_eq!(at("graph.output[0]"), "float[2] y");
        assert!(at("functions[0]").starts_with("<domain: \"local\""));
        assert_eq!(
            at("functions[0].attribute_proto[\"alpha\"]"),
            "alpha: float = 1.0"
        );
        assert_eq!(at("functions[0].node[0]"), "b = Mul (a, a)");
        assert_eq!(map.span("functions[0].attribute_proto[\"beta\"]"), None);
        // Names, operators and references have spans of their own.
        assert_eq!(at("graph.node[0].op_type"), "Add");
        assert_eq!(at("graph.input[1].name"), "w");
        assert_eq!(at("graph.initializer[1].name"), "b");
        assert_eq!(at("graph.node[1].attribute[\"k\"].name"), "k");
        assert_eq!(at("functions[0].attribute[0]"), "beta");
        assert_eq!(at("functions[0].attribute_proto[0].name"), "alpha");
        assert_eq!(at("functions[0].input[0]"), "a");
        assert_eq!(at("functions[0].output[0]"), "b");
    }

    #[test]
    fn attribute_references_and_function_value_infos() {
        let text = r#"g (float x) => (float y) { y = local.f <k = 2> (x) }
<domain: "local", opset_import: ["": 21]>
f <k> (float a) => (b) <float t> {
  t = Constant <value_int: int = @k> ()
  b = Add (a, t)
}"#;
        let (_, at) = spans_of(text);
        assert_eq!(at("functions[0].node[0].attribute[0].ref_attr_name"), "k");
        assert_eq!(
            at("functions[0].node[0].attribute[\"value_int\"].name"),
            "value_int"
        );
        // The typed input has the first value info, the `<...>` list the next.
        assert_eq!(at("functions[0].value_info[1].name"), "t");
        assert_eq!(at("functions[0].input[0]"), "a");
    }

    #[test]
    fn a_map_kept_around_paths_finds_them_as_the_whole_map_does() {
        // Node indices of one and two digits (`node[1]`, `node[11]`).
        let chain: String = (1..13)
            .map(|i| format!("v{i} = Relu (v{})\n", i - 1))
            .collect();
        let chain = format!("g (float v0) => (float v12) {{\n{chain}}}");
        let texts = [
            chain.as_str(),
            "<ir_version: 10, opset_import: [\"\": 21, \"local\": 1]>\r\n\
             main (float[2] x, float[2] w = {1, 2}) => (float[2] y) <float[1] b = {3}> {\r\n\
             \x20 t = local.f <alpha: float = 2.0> (x, w)\r\n\
             \x20 @<doc_string: \"é日本\"> \"é\" = If <then_branch: graph = th () => (float[2] z) \
             { z = Identity (t) }, k: int = 1> (c)\r\n\
             \x20 y = Relu (\"é\")}\r\n\
             <domain: \"local\", opset_import: [\"\": 21]>\r\n\
             f <alpha: float = 1.0, beta> (a, float[2] c) => (b) <float t> {\r\n\
             \x20 t = Constant <value_int: int = @alpha> ()\r\n\
             \x20 b = Mul (a, t)\r\n}",
            "g (float x) => (float y) { y = Relu(x) }",
        ];
        for text in texts {
            let (_, whole) = parse_model_with_source_map(text).unwrap();
            let paths: Vec<String> = whole.iter().map(|(path, _)| path.to_owned()).collect();
            let beyond = paths
                .iter()
                .flat_map(|p| [format!("{p}.t"), format!("{p}.node[9]")]);
            for path in paths.iter().cloned().chain(beyond).chain([String::new()]) {
                let (_, kept) = parse_model_with_source_map_for(text, [path.as_str()]).unwrap();
                for asked in [&path, &format!("{path}.name"), "header", "graph.name"] {
                    assert_eq!(kept.find(asked), whole.find(asked), "{asked} in\n{text}");
                }
                for (item, span) in kept.iter() {
                    assert_eq!(whole.span(item), Some(span), "{item} in\n{text}");
                }
            }
            let all = paths.iter().map(String::as_str);
            let (_, kept) = parse_model_with_source_map_for(text, all).unwrap();
            assert_eq!(kept, whole);
        }
    }

    #[test]
    fn opset_imports_have_their_own_spans() {
        let text = r#"<ir_version: 10, opset_import: ["": 21, "local": 1], producer_name: "p">
main (float[2] x) => (float[2] y) {
  y = local.f:o <alpha: float = 2.0> (x)
}
<domain: "local", overload: "o", opset_import: ["": 21, "ai.onnx.ml": 3]>
f <alpha: float = 1.0, beta, gamma> (a, float[2] c) => (b, d) {
  b = Mul (a, a)
}"#;
        let (_, at) = spans_of(text);
        assert_eq!(at("graph.node[0].op_type"), "local.f:o");
        assert_eq!(at("opset_import[0]"), "\"\": 21");
        assert_eq!(at("opset_import[1]"), "\"local\": 1");
        assert_eq!(at("functions[0].opset_import[1]"), "\"ai.onnx.ml\": 3");
        assert_eq!(at("functions[0].attribute[1]"), "gamma");
        assert_eq!(at("functions[0].output[1]"), "d");
        assert_eq!(at("functions[0].name"), "f");
    }
}
