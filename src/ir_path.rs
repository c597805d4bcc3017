//! IR paths, the names of the items of a model (`graph.node[3]`,
//! `graph.node[3].attribute["axes"]`, `functions[0].node[1].input[0]`):
//! what findings point at, what the [`SourceMap`](crate::SourceMap) gives
//! spans for, and what `format` and `diff` read back. One type, [`IrPath`],
//! builds, prints and parses them, and [`IrPath::attribute`] holds the one
//! rule for naming an item of an attribute list, so that every module names
//! every item the same way.
//!
//! ```
//! use onnxtxt::ir_path::{IrPath, ItemKind};
//!
//! let path = IrPath::root("graph").item("node", 3).field("op_type");
//! assert_eq!(path.to_string(), "graph.node[3].op_type");
//! let node = path.parent().unwrap();
//! assert_eq!(node.kind(), ItemKind::Node);
//! assert_eq!(IrPath::parse("graph.node[3]"), Some(node));
//! ```

use std::fmt;

use foldhash::{HashSet, HashSetExt};

use crate::proto::AttributeProto;

/// One step of an [`IrPath`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    /// A field of a message: `.node`, `.op_type` (`graph` when first).
    Field(String),
    /// An item of a list by its position: `[3]`.
    Index(usize),
    /// An item of a list by its name, quoted as Rust quotes strings:
    /// `["axes"]`.
    Name(String),
}

/// What an [`IrPath`] names, as far as the path itself tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ItemKind {
    /// The model itself (the empty path).
    Model,
    /// A graph: `graph`, `...attribute["body"].g`, `...graphs[1]`.
    Graph,
    /// A model-local function: `functions[2]`.
    Function,
    /// A node: `graph.node[3]`.
    Node,
    /// An attribute of a node, or one a function declares:
    /// `graph.node[3].attribute["axes"]`, `functions[0].attribute_proto[1]`.
    Attribute,
    /// Anything else (a field, a value info, an input name, ...).
    Other,
}

/// The path of an item of a model, from the model down.
///
/// Printed and parsed as `graph.node[3].attribute["axes"]`;
/// [`parse`](IrPath::parse) reads exactly what [`Display`](fmt::Display)
/// writes, and gives `None` for anything else.
///
/// ```
/// use onnxtxt::ir_path::IrPath;
///
/// let text = r#"functions[0].node[1].attribute["then_branch"].g"#;
/// let path = IrPath::parse(text).unwrap();
/// assert_eq!(path.to_string(), text);
/// assert_eq!(path.node().unwrap().to_string(), "functions[0].node[1]");
/// assert_eq!(IrPath::parse("graph..node"), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct IrPath {
    steps: Vec<Step>,
}

impl IrPath {
    /// The path of a top-level field of the model: `graph`, `functions`,
    /// `opset_import`.
    pub fn root(field: &str) -> IrPath {
        IrPath::default().field(field)
    }

    /// This path followed by field `name`: `.op_type`.
    pub fn field(mut self, name: &str) -> IrPath {
        self.steps.push(Step::Field(name.to_owned()));
        self
    }

    /// This path followed by `.field[index]`: `.node[3]`.
    pub fn item(mut self, field: &str, index: usize) -> IrPath {
        self.steps.push(Step::Field(field.to_owned()));
        self.steps.push(Step::Index(index));
        self
    }

    /// This path followed by attribute `index` of `attributes`, the list
    /// `field` (`attribute` of a node, `attribute_proto` of a function),
    /// named by the one rule: by its name, as the printer writes it, when
    /// no other attribute of the list has the same name; by its index
    /// otherwise (no name, or a name given twice).
    ///
    /// ```
    /// use onnxtxt::ir_path::IrPath;
    ///
    /// let node = onnxtxt::parse_node("y = Squeeze <axes = [0], k = 1, k = 2> (x)")?;
    /// let at = |i| IrPath::root("graph").item("node", 0).attribute("attribute", &node.attribute, i);
    /// assert_eq!(at(0).to_string(), r#"graph.node[0].attribute["axes"]"#);
    /// assert_eq!(at(2).to_string(), "graph.node[0].attribute[2]");
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn attribute(mut self, field: &str, attributes: &[AttributeProto], index: usize) -> IrPath {
        self.steps.push(Step::Field(field.to_owned()));
        self.steps.push(AttributeKeys::new(attributes).step(index));
        self
    }

    /// Reads a path as [`Display`](fmt::Display) writes it; `None` when
    /// `text` is not one. The empty text is the model's path.
    pub fn parse(text: &str) -> Option<IrPath> {
        let mut steps = Vec::new();
        read_steps(text, |step, _| {
            steps.push(match step {
                Read::Field(name) => Step::Field(name.to_owned()),
                Read::Item(step) => step,
            })
        })?;
        Some(IrPath { steps })
    }

    /// The text of the innermost node the path `text` is at or inside: what
    /// [`parse`](IrPath::parse) and [`node`](IrPath::node) give, written,
    /// but taken from `text` without building a path.
    ///
    /// ```
    /// use onnxtxt::ir_path::IrPath;
    ///
    /// let text = r#"graph.node[3].attribute["body"].g.node[1].input[0]"#;
    /// assert_eq!(IrPath::node_text(text), Some(r#"graph.node[3].attribute["body"].g.node[1]"#));
    /// assert_eq!(IrPath::node_text("graph.input[0]"), None);
    /// ```
    pub fn node_text(text: &str) -> Option<&str> {
        let (mut node, mut after_node_field) = (None, false);
        read_steps(text, |step, end| {
            if after_node_field && matches!(step, Read::Item(_)) {
                node = Some(end);
            }
            after_node_field = matches!(step, Read::Field("node"));
        })?;
        Some(&text[..node?])
    }

    /// The text of the path of the item the path `text` is part of: what
    /// [`parse`](IrPath::parse) and [`parent`](IrPath::parent) give,
    /// written, but taken from `text` without building a path.
    ///
    /// ```
    /// use onnxtxt::ir_path::IrPath;
    ///
    /// assert_eq!(IrPath::parent_text("graph.node[3]"), Some("graph"));
    /// assert_eq!(IrPath::parent_text(r#"graph.node[3].attribute["body"].g"#), Some(r#"graph.node[3].attribute["body"]"#));
    /// assert_eq!(IrPath::parent_text("graph"), Some(""));
    /// assert_eq!(IrPath::parent_text(""), None);
    /// ```
    pub fn parent_text(text: &str) -> Option<&str> {
        // The last three steps, last first: where each ends, and whether
        // it is a field.
        let mut last: [Option<(usize, bool)>; 3] = [None; 3];
        read_steps(text, |step, end| {
            last = [
                Some((end, matches!(step, Read::Field(_)))),
                last[0],
                last[1],
            ];
        })?;
        let end_of = |step: Option<(usize, bool)>| step.map_or(0, |(end, _)| end);
        let parent_end = match last {
            [None, ..] => return None,
            // An item of a list goes with its field (`.node[3]`).
            [Some((_, false)), Some((_, true)), before] => end_of(before),
            [Some(_), before, _] => end_of(before),
        };
        Some(&text[..parent_end])
    }

    /// The steps, from the model down.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The path of the item this one is part of (`graph.node[3]` for
    /// `graph.node[3].attribute["axes"]` and for `graph.node[3].op_type`,
    /// the model's empty path for `graph`); `None` for the model's.
    pub fn parent(&self) -> Option<IrPath> {
        let mut steps = self.steps.clone();
        if let Some(Step::Index(_) | Step::Name(_)) = steps.pop() {
            if let Some(Step::Field(_)) = steps.last() {
                steps.pop();
            }
        } else if self.steps.is_empty() {
            return None;
        }
        Some(IrPath { steps })
    }

    /// What the path names.
    pub fn kind(&self) -> ItemKind {
        match self.steps.as_slice() {
            [] => ItemKind::Model,
            [.., Step::Field(name)] if name == "graph" || name == "g" => ItemKind::Graph,
            [.., Step::Field(list), Step::Index(_) | Step::Name(_)] => match list.as_str() {
                "graphs" => ItemKind::Graph,
                "functions" => ItemKind::Function,
                "node" => ItemKind::Node,
                "attribute" | "attribute_proto" => ItemKind::Attribute,
                _ => ItemKind::Other,
            },
            _ => ItemKind::Other,
        }
    }

    /// The path of the innermost node this path is at or inside
    /// (`graph.node[3].attribute["body"].g.node[1]` for
    /// `graph.node[3].attribute["body"].g.node[1].input[0]`), if any.
    pub fn node(&self) -> Option<IrPath> {
        let mut path = self.clone();
        loop {
            if path.kind() == ItemKind::Node {
                return Some(path);
            }
            path = path.parent()?;
        }
    }

    /// The indices of the nodes along the path, outermost first
    /// (`[3, 1]` for `graph.node[3].attribute["body"].g.node[1]`).
    pub fn node_indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.steps.windows(2).filter_map(|pair| match pair {
            [Step::Field(field), Step::Index(index)] if field == "node" => Some(*index),
            _ => None,
        })
    }
}

impl fmt::Display for IrPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.steps.iter().enumerate() {
            match step {
                Step::Field(name) if i == 0 => f.write_str(name)?,
                Step::Field(name) => write!(f, ".{name}")?,
                Step::Index(index) => write!(f, "[{index}]")?,
                Step::Name(name) => write!(f, "[{name:?}]")?,
            }
        }
        Ok(())
    }
}

/// The one rule for naming the items of a list of attributes
/// ([`IrPath::attribute`]), with what it needs found once for the list, so
/// that naming every item of a long list stays linear. The attributes are
/// the IR's, or any that have a name ([`Named`]).
pub(crate) struct AttributeKeys<'a, A = AttributeProto> {
    attributes: &'a [A],
    /// The names given more than once; `None` for a short list, which
    /// is scanned instead.
    repeated: Option<HashSet<&'a str>>,
}

/// An attribute as [`AttributeKeys`] names it: by its name, if it has one.
pub(crate) trait Named {
    fn name(&self) -> Option<&str>;
}

impl Named for AttributeProto {
    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

/// How many attributes a list has at most for a scan to be cheaper than a
/// set of its names.
const SHORT_LIST: usize = 16;

impl<'a, A: Named> AttributeKeys<'a, A> {
    pub(crate) fn new(attributes: &'a [A]) -> Self {
        let repeated = (attributes.len() > SHORT_LIST).then(|| {
            let mut seen = HashSet::new();
            let mut repeated = HashSet::new();
            for name in attributes.iter().filter_map(Named::name) {
                if !seen.insert(name) {
                    repeated.insert(name);
                }
            }
            repeated
        });
        AttributeKeys {
            attributes,
            repeated,
        }
    }

    /// The name attribute `index` goes by; `None` when it goes by its index.
    pub(crate) fn name(&self, index: usize) -> Option<&'a str> {
        let name = self.attributes[index].name()?;
        let unique = match &self.repeated {
            Some(repeated) => !repeated.contains(name),
            None => {
                let mut same = self.attributes.iter().filter(|a| a.name() == Some(name));
                same.nth(1).is_none()
            }
        };
        unique.then_some(name)
    }

    fn step(&self, index: usize) -> Step {
        match self.name(index) {
            Some(name) => Step::Name(name.to_owned()),
            None => Step::Index(index),
        }
    }

    /// `field[...]` for attribute `index`, for appending to a path held as
    /// text.
    pub(crate) fn item(&self, field: &str, index: usize) -> String {
        match self.name(index) {
            Some(name) => format!("{field}[{name:?}]"),
            None => format!("{field}[{index}]"),
        }
    }
}

/// `field[...]` for attribute `index` of `attributes`, named by the one
/// rule ([`IrPath::attribute`]), for appending to a path held as text.
pub(crate) fn attribute_item(field: &str, attributes: &[AttributeProto], index: usize) -> String {
    AttributeKeys::new(attributes).item(field, index)
}

/// Whether `attribute` holds a graph (`g`) or graphs (`graphs`): what a
/// walk into subgraphs looks for before naming the attribute.
pub(crate) fn holds_graph(attribute: &AttributeProto) -> bool {
    attribute.g.is_some() || !attribute.graphs.is_empty()
}

/// The IR paths of the nodes of one body (`graph.node[0]`,
/// `graph.node[1]`, ...), each written over the last in one buffer: for a
/// walk that looks each node's path up (is it flagged, is it kept) and
/// keeps few of them, with no allocation per node.
pub(crate) struct NodePaths {
    buffer: String,
    /// The length of `{body}.node[`.
    prefix: usize,
}

impl NodePaths {
    /// The paths of the nodes of the body at `body` (`graph`,
    /// `functions[0]`).
    pub(crate) fn new(body: &str) -> Self {
        let buffer = format!("{body}.node[");
        NodePaths {
            prefix: buffer.len(),
            buffer,
        }
    }

    /// The path of node `index`: `{body}.node[{index}]`.
    pub(crate) fn of(&mut self, index: usize) -> &str {
        use std::fmt::Write;
        self.buffer.truncate(self.prefix);
        write!(self.buffer, "{index}]").expect("writing to a String cannot fail");
        &self.buffer
    }
}

/// `field[...]` for every attribute of `attributes`, in order, named by
/// the one rule ([`IrPath::attribute`]).
pub(crate) fn attribute_items(field: &str, attributes: &[AttributeProto]) -> Vec<String> {
    let keys = AttributeKeys::new(attributes);
    (0..attributes.len())
        .map(|index| keys.item(field, index))
        .collect()
}

/// A step as [`read_steps`] reads it: a field's name borrowed from the
/// text.
#[derive(Debug, Clone, PartialEq)]
enum Read<'t> {
    Field(&'t str),
    /// An index or a name.
    Item(Step),
}

/// Reads the path `text` step by step, giving each step and where in the
/// text it ends to `each`; `None` when `text` is not a path as
/// [`Display`](fmt::Display) writes it.
fn read_steps<'t>(text: &'t str, mut each: impl FnMut(Read<'t>, usize)) -> Option<()> {
    let mut rest = text;
    let mut first = true;
    while !rest.is_empty() {
        let (step, after) = if let Some(after) = rest.strip_prefix('[') {
            let (step, after) = bracketed(after)?;
            (Read::Item(step), after.strip_prefix(']')?)
        } else {
            let after = match rest.strip_prefix('.') {
                Some(after) if !first => after,
                None if first => rest,
                _ => return None,
            };
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let name = &after[..end];
            if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
                return None;
            }
            (Read::Field(name), &after[end..])
        };
        each(step, text.len() - after.len());
        first = false;
        rest = after;
    }
    Some(())
}

/// What is inside `[...]`: an index (digits, without leading zeros) or a
/// quoted name; and the text after it.
fn bracketed(text: &str) -> Option<(Step, &str)> {
    if let Some(quoted) = text.strip_prefix('"') {
        let (name, after) = unquote(quoted)?;
        return Some((Step::Name(name), after));
    }
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let digits = &text[..end];
    if digits.is_empty() || digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    Some((Step::Index(digits.parse().ok()?), &text[end..]))
}

/// The string `text` starts with, up to its closing quote, with Rust's
/// escapes undone, and the text after the quote; `None` unless it is
/// written as `{:?}` writes it.
fn unquote(text: &str) -> Option<(String, &str)> {
    let mut name = String::new();
    let mut rest = text;
    loop {
        let mut chars = rest.chars();
        match chars.next()? {
            '"' => break,
            '\\' => {
                let (c, after) = unescape(chars.as_str())?;
                name.push(c);
                rest = after;
            }
            c => {
                name.push(c);
                rest = chars.as_str();
            }
        }
    }
    let quoted = &text[..text.len() - rest.len()];
    // Only what `{:?}` writes reads back.
    (format!("{name:?}") == format!("\"{quoted}\"")).then_some((name, &rest[1..]))
}

/// The character an escape stands for (`text` follows its backslash), and
/// the text after the escape.
fn unescape(text: &str) -> Option<(char, &str)> {
    let mut chars = text.chars();
    let c = match chars.next()? {
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        '0' => '\0',
        c @ ('\\' | '"' | '\'') => c,
        'u' => {
            let (hex, after) = chars.as_str().strip_prefix('{')?.split_once('}')?;
            return Some((char::from_u32(u32::from_str_radix(hex, 16).ok()?)?, after));
        }
        _ => return None,
    };
    Some((c, chars.as_str()))
}

/// The texts of `examples/`, `tests/diagnostics` and `tests/structural`,
/// each with its file's path, in the order of the paths: models that have
/// something of every kind of item, and every kind of finding.
#[cfg(test)]
pub(crate) fn corpus_texts() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut corpus = Vec::new();
    for dir in ["examples", "tests/diagnostics", "tests/structural"] {
        for entry in std::fs::read_dir(root.join(dir)).expect(dir) {
            let file = entry.expect(dir).path();
            if file.extension().is_some_and(|e| e == "onnxtxt") {
                let text = std::fs::read_to_string(&file).expect("corpus file");
                corpus.push((file.display().to_string(), text));
            }
        }
    }
    corpus.sort();
    corpus
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            "[a-z_][a-z0-9_]{0,8}".prop_map(Step::Field),
            Just(Step::Field("node".into())),
            any::<usize>().prop_map(Step::Index),
            any::<String>().prop_map(Step::Name),
            "[\"\\\\\\n\\t\\u{301}\\u{7f}\\u{200b}'a.\\[\\]]{0,6}".prop_map(Step::Name),
        ]
    }

    fn path() -> impl Strategy<Value = IrPath> {
        ("[a-z_][a-z0-9_]{0,8}", prop::collection::vec(step(), 0..6)).prop_map(|(root, rest)| {
            let mut path = IrPath::root(&root);
            path.steps.extend(rest);
            path
        })
    }

    proptest! {
        #[test]
        fn parse_reads_what_display_writes(path in path()) {
            let text = path.to_string();
            prop_assert_eq!(IrPath::parse(&text), Some(path));
        }

        #[test]
        fn display_writes_what_parse_reads(text in r#"[a-z.\[\]"0-9\\u{}]{0,16}"#) {
            if let Some(path) = IrPath::parse(&text) {
                prop_assert_eq!(path.to_string(), text);
            }
        }

        #[test]
        fn node_and_parent_text_are_the_paths_node_and_parent(path in path()) {
            let text = path.to_string();
            let node = path.node().map(|n| n.to_string());
            prop_assert_eq!(IrPath::node_text(&text), node.as_deref());
            let parent = path.parent().map(|p| p.to_string());
            prop_assert_eq!(IrPath::parent_text(&text), parent.as_deref());
        }

        #[test]
        fn node_and_parent_text_read_only_paths(text in r#"[a-z.\[\]"0-9\\u{}]{0,16}"#) {
            let path = IrPath::parse(&text);
            let node = path.as_ref().and_then(IrPath::node).map(|n| n.to_string());
            prop_assert_eq!(IrPath::node_text(&text), node.as_deref());
            let parent = path.as_ref().and_then(IrPath::parent).map(|p| p.to_string());
            prop_assert_eq!(IrPath::parent_text(&text), parent.as_deref());
        }

        #[test]
        fn parse_never_panics(text in any::<String>()) {
            if let Some(path) = IrPath::parse(&text) {
                prop_assert_eq!(path.to_string(), text);
            }
        }
    }

    #[test]
    fn long_and_short_attribute_lists_follow_the_same_rule() {
        for len in [4, SHORT_LIST + 4] {
            let mut attributes: Vec<AttributeProto> = (0..len)
                .map(|i| AttributeProto {
                    name: Some(format!("a{i}")),
                    ..AttributeProto::default()
                })
                .collect();
            attributes[1].name = Some("a0".into());
            attributes[2].name = None;
            let items = attribute_items("attribute", &attributes);
            let expected = [
                "attribute[0]",
                "attribute[1]",
                "attribute[2]",
                r#"attribute["a3"]"#,
            ];
            assert_eq!(items[..4], expected, "{len} attributes");
        }
    }

    #[test]
    fn kinds_and_parents() {
        let cases = [
            ("", ItemKind::Model, None),
            ("graph", ItemKind::Graph, Some("")),
            ("functions[2]", ItemKind::Function, Some("")),
            ("graph.node[3]", ItemKind::Node, Some("graph")),
            (
                "graph.node[3].op_type",
                ItemKind::Other,
                Some("graph.node[3]"),
            ),
            (
                r#"graph.node[3].attribute["a.node[1]"]"#,
                ItemKind::Attribute,
                Some("graph.node[3]"),
            ),
            (
                r#"graph.node[3].attribute["b"].g"#,
                ItemKind::Graph,
                Some(r#"graph.node[3].attribute["b"]"#),
            ),
            (
                "graph.node[3].attribute[0].graphs[1]",
                ItemKind::Graph,
                Some("graph.node[3].attribute[0]"),
            ),
            (
                "functions[0].attribute_proto[1]",
                ItemKind::Attribute,
                Some("functions[0]"),
            ),
        ];
        for (text, kind, parent) in cases {
            let path = IrPath::parse(text).expect(text);
            assert_eq!(path.kind(), kind, "{text}");
            assert_eq!(
                path.parent().map(|p| p.to_string()).as_deref(),
                parent,
                "{text}"
            );
        }
    }

    /// The paths every corpus model's items get by the rules of this file
    /// are the ones the source map gives spans for; and every path a
    /// finding names reads back, and is inside an item the source map has
    /// (the last model: a subgraph of an attribute given twice).
    #[test]
    fn node_paths_written_over_each_other_are_the_paths_formatted_alone() {
        for body in [
            "graph",
            r#"graph.node[12].attribute["body"].g"#,
            "functions[3]",
        ] {
            let mut paths = NodePaths::new(body);
            for index in [0, 1, 9, 10, 11, 100, 7, 1000, 2] {
                assert_eq!(paths.of(index), format!("{body}.node[{index}]"));
            }
        }
    }

    #[test]
    fn source_map_and_findings_name_corpus_items_alike() {
        let mut corpus = corpus_texts();
        let twice = r#"
            <ir_version: 10, opset_import: ["": 21]>
            g (bool c, float x) => (float y) {
                y = If <then_branch = t1 () => (float a) { a = Relu(z) },
                        then_branch = t2 () => (float b) { b = Relu(x) },
                        else_branch = e () => (float d) { d = Relu(x) }> (c)
            }
        "#;
        corpus.push(("an attribute given twice".into(), twice.into()));
        let mut models = 0;
        for (name, text) in &corpus {
            let Ok((model, map)) = crate::parse_model_with_source_map(text) else {
                continue;
            };
            models += 1;
            let mut items = Vec::new();
            if let Some(graph) = &model.graph {
                graph_items(graph, IrPath::root("graph"), &mut items);
            }
            for (i, function) in model.functions.iter().enumerate() {
                let path = IrPath::default().item("functions", i);
                items.push(path.clone());
                nodes_items(&function.node, &path, &mut items);
            }
            for item in items {
                let item = item.to_string();
                assert!(map.span(&item).is_some(), "{name}: no span for {item}");
            }
            for finding in crate::check_model(&model) {
                let paths = finding
                    .diagnostic
                    .path
                    .iter()
                    .chain(finding.related.iter().map(|r| &r.path));
                for path in paths {
                    let parsed = IrPath::parse(path).unwrap_or_else(|| panic!("{name}: {path}"));
                    assert_eq!(&parsed.to_string(), path, "{name}");
                    let mut item = Some(parsed);
                    while let Some(path) = item.take_if(|p| !has_text(p.kind())) {
                        item = path.parent().filter(|p| p.kind() != ItemKind::Model);
                    }
                    // Header fields are shown by the header (check's `locate`).
                    if let Some(item) = item.map(|p| p.to_string()) {
                        assert!(
                            map.span(&item).is_some(),
                            "{name}: {path}: no span for {item}"
                        );
                    }
                }
            }
        }
        assert!(models > 70, "only {models} corpus models parsed");
    }

    /// Whether the source map has a span for every item of `kind`.
    fn has_text(kind: ItemKind) -> bool {
        matches!(
            kind,
            ItemKind::Graph | ItemKind::Function | ItemKind::Node | ItemKind::Attribute
        )
    }

    fn graph_items(graph: &crate::proto::GraphProto, path: IrPath, items: &mut Vec<IrPath>) {
        items.push(path.clone());
        nodes_items(&graph.node, &path, items);
    }

    fn nodes_items(nodes: &[crate::proto::NodeProto], path: &IrPath, items: &mut Vec<IrPath>) {
        for (i, node) in nodes.iter().enumerate() {
            let node_path = path.clone().item("node", i);
            items.push(node_path.clone());
            for (j, attribute) in node.attribute.iter().enumerate() {
                let attribute_path = node_path.clone().attribute("attribute", &node.attribute, j);
                items.push(attribute_path.clone());
                if let Some(graph) = &attribute.g {
                    graph_items(graph, attribute_path.clone().field("g"), items);
                }
                for (k, graph) in attribute.graphs.iter().enumerate() {
                    graph_items(graph, attribute_path.clone().item("graphs", k), items);
                }
            }
        }
    }
}
