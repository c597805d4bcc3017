//! Formatting text in the canonical style, keeping its comments: the core
//! of `onnxtxt fmt`.
//!
//! The text is parsed with its source map; each comment is attached to the
//! item it belongs to, and the printer writes it back there:
//!
//! * a comment after a node on the same line stays at the end of that
//!   node's line;
//! * a comment inside a node (between its attributes, say) moves to the
//!   line before that node;
//! * a comment between nodes goes before the next node of the same node
//!   list, or, after the last one, before the list's closing `}`;
//! * a comment at the top of the file stays at the top, one before a graph
//!   or function goes before it, and one after everything stays last.
//!
//! Numbers keep the author's spelling (`1e-5`, `0.7978845608`, `1` for a
//! float) when it denotes the value the canonical spelling does, once
//! parsed to its element type: the canonical text's numbers are matched
//! with the source's in order, and the result is kept only if it parses
//! to the very same model.

use std::collections::HashMap;
use std::ops::Range;

use crate::error::Error;
use crate::ir_path::{self, IrPath};
use crate::parser::{parse_model_with_comments, SourceMap};
use crate::printer::{Comments, Printer};

/// Reformats a text model in the canonical style, keeping its comments.
///
/// ```
/// let text = "g (float x) => (float y) {\n  # the activation\n  y = Relu (x)   # in place\n}\n";
/// let formatted = onnxtxt::format(text)?;
/// assert_eq!(formatted, "g (float x) => (float y) {\n  # the activation\n  y = Relu (x) # in place\n}\n");
/// # Ok::<(), onnxtxt::Error>(())
/// ```
///
/// Type comments (`#: float[B,4]`, as `onnxtxt print --types` writes them)
/// are refreshed: when the text has any, each node's are replaced by the
/// types inferred now (see [`crate::infer::print_with_types`]).
pub fn format(text: &str) -> Result<String, Error> {
    let (model, map, comments) = parse_model_with_comments(text)?;
    let mut table = attach(text, &map, &comments);
    if crate::infer::annotate::strip_type_comments(&mut table.trailing) {
        crate::infer::annotate::add_type_comments(&model, &mut table);
    }
    let canonical = Printer::new().print_with_comments(&model, &table);
    Ok(keep_spellings(text, canonical, &model))
}

/// `canonical` (the text of `model`) with each number spelled as the
/// author of `source` spelled it, where that spelling denotes the same
/// value; `canonical` itself unless the result parses to `model`, byte
/// for byte once encoded.
fn keep_spellings(source: &str, canonical: String, model: &crate::proto::ModelProto) -> String {
    let (mut authored, mut printed) = (Numbers::of(source), Numbers::of(&canonical));
    let mut kept = String::new();
    let mut copied = 0;
    for (theirs, ours) in authored.by_ref().zip(printed.by_ref()) {
        let (theirs, ours_text) = (&source[theirs], &canonical[ours.clone()]);
        if theirs != ours_text && same_number(theirs, ours_text) {
            kept.push_str(&canonical[copied..ours.start]);
            kept.push_str(theirs);
            copied = ours.end;
        }
    }
    // Numbers that do not pair up: the canonical text.
    if copied == 0 || authored.next().is_some() || printed.next().is_some() {
        return canonical;
    }
    kept.push_str(&canonical[copied..]);
    use prost::Message;
    match crate::parse_model(&kept) {
        Ok(reparsed) if reparsed.encode_to_vec() == model.encode_to_vec() => kept,
        _ => canonical,
    }
}

/// The spans of the number literals of a text, in order: integer and
/// float tokens, and the items of number lists (comments left out), one at
/// a time.
struct Numbers<'t> {
    tokens: std::vec::IntoIter<(crate::lexer::Token<'t>, chumsky::span::SimpleSpan)>,
    /// The number list being read: where its text starts, and its items.
    list: Option<(usize, &'t [u8], crate::lexer::ListItems<'t>)>,
}

impl<'t> Numbers<'t> {
    fn of(text: &'t str) -> Self {
        Numbers {
            tokens: crate::lexer::scan(text).0.into_iter(),
            list: None,
        }
    }
}

impl Iterator for Numbers<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        use crate::lexer::{list_items, number_in_item, Token};
        loop {
            if let Some((start, text, items)) = &mut self.list {
                if let Some(item) = items.next() {
                    let item = number_in_item(text, item.span.clone()).unwrap_or(item.span);
                    return Some(*start + item.start..*start + item.end);
                }
                self.list = None;
            }
            let (token, span) = self.tokens.next()?;
            match token {
                Token::Int(_) | Token::Float(_) => return Some(span.start..span.end),
                // The list's text starts after its `{`.
                Token::Numbers(list) => {
                    self.list =
                        Some((span.start + 1, list.as_bytes(), list_items(list.as_bytes())));
                }
                _ => {}
            }
        }
    }
}

/// Whether two spellings of a number denote the same value as integers,
/// doubles or floats (the result is checked whole after).
fn same_number(a: &str, b: &str) -> bool {
    fn equal<T: PartialEq>(x: Option<T>, y: Option<T>) -> bool {
        x.is_some() && x == y
    }
    let as_int = |s: &str| s.parse::<i128>().ok();
    let as_f64 = |s: &str| s.parse::<f64>().ok().map(f64::to_bits);
    let as_f32 = |s: &str| s.parse::<f32>().ok().map(f32::to_bits);
    equal(as_int(a), as_int(b)) || equal(as_f64(a), as_f64(b)) || equal(as_f32(a), as_f32(b))
}

/// What a comment can be attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ItemKind {
    Node,
    /// A graph or a function: something that holds a node list.
    Body,
}

struct Item<'a> {
    path: &'a str,
    span: Range<usize>,
    kind: ItemKind,
    /// The path of what holds the item: for a node, its graph or
    /// function; empty for the model's graph and functions.
    parent: &'a str,
}

/// The item at `path` of the source map, if comments can be attached to it.
fn item(path: &str, span: Range<usize>) -> Option<Item<'_>> {
    let ir_path = IrPath::parse(path)?;
    let kind = match ir_path.kind() {
        ir_path::ItemKind::Node => ItemKind::Node,
        ir_path::ItemKind::Graph | ir_path::ItemKind::Function => ItemKind::Body,
        _ => return None,
    };
    let parent = IrPath::parent_text(path).unwrap_or_default();
    Some(Item {
        path,
        span,
        kind,
        parent,
    })
}

/// Attaches each comment of `text` to an item of `map`.
fn attach(text: &str, map: &SourceMap, comments: &[Range<usize>]) -> Comments {
    let items = items_by_start(map);
    let mut placer = Placer::new(text, &items);
    let mut table = Comments::default();
    for comment in comments {
        let line = text[comment.clone()].trim_end().to_owned();
        let (table_field, path) = placer.place(comment);
        let field = match table_field {
            Place::Leading => &mut table.leading,
            Place::Trailing => &mut table.trailing,
            Place::Closing => &mut table.closing,
        };
        field.entry(path.to_owned()).or_default().push(line);
    }
    table
}

/// The items of `map` comments can be attached to, by where they start,
/// an item before the items inside it.
fn items_by_start(map: &SourceMap) -> Vec<Item<'_>> {
    let mut items: Vec<Item<'_>> = map
        .iter()
        .filter_map(|(path, span)| item(path, span))
        .collect();
    items.sort_by_key(|item| (item.span.start, std::cmp::Reverse(item.span.end)));
    items
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Place {
    Leading,
    Trailing,
    Closing,
}

/// Places the comments of a text, taken in text order, in one sweep over
/// its items: the items around the comment are kept as a stack (the spans
/// of the source map nest as the text does), and the nodes that could
/// end a comment's line or follow it are found by binary search, so that
/// placing every comment takes `O((comments + items) log items)`.
struct Placer<'i, 'a> {
    text: &'i str,
    /// Where the first token starts: comments before it stay at the top.
    first_token: usize,
    /// The items, by start (see [`items_by_start`]).
    items: &'i [Item<'a>],
    /// How many of `items` start at or before the last comment placed.
    started: usize,
    /// The items around the last comment placed, outermost first.
    open: Vec<&'i Item<'a>>,
    /// The nodes, by where they end (by start where they end alike).
    nodes_by_end: Vec<&'i Item<'a>>,
    /// By kind and holder (`""` for the model), the items it holds, by
    /// start.
    held: HashMap<(ItemKind, &'i str), Vec<&'i Item<'a>>>,
}

impl<'i, 'a> Placer<'i, 'a> {
    fn new(text: &'i str, items: &'i [Item<'a>]) -> Self {
        let mut nodes_by_end: Vec<_> = items.iter().filter(|i| i.kind == ItemKind::Node).collect();
        nodes_by_end.sort_by_key(|node| node.span.end);
        let mut held: HashMap<_, Vec<_>> = HashMap::new();
        for item in items {
            held.entry((item.kind, item.parent)).or_default().push(item);
        }
        Placer {
            text,
            first_token: text.len() - skip_blank_and_comments(text).len(),
            items,
            started: 0,
            open: Vec::new(),
            nodes_by_end,
            held,
        }
    }

    /// Where the comment at `comment` goes; comments are placed in text
    /// order.
    fn place(&mut self, comment: &Range<usize>) -> (Place, &'a str) {
        if let Some(node) = self.node_ending_line_at(comment.start) {
            return (Place::Trailing, node.path);
        }
        match self.innermost_around(comment.start) {
            Some(node) if node.kind == ItemKind::Node => (Place::Leading, node.path),
            Some(body) => match self.first_held_after(ItemKind::Node, body.path, comment.end) {
                Some(node) => (Place::Leading, node.path),
                None => (Place::Closing, body.path),
            },
            None if comment.start < self.first_token => (Place::Leading, ""),
            None => match self.first_held_after(ItemKind::Body, "", comment.end) {
                Some(body) => (Place::Leading, body.path),
                None => (Place::Closing, ""),
            },
        }
    }

    /// The node that ends last at or before `at` with only blanks between
    /// it and `at` on the line, if any (the innermost of those ending
    /// together).
    fn node_ending_line_at(&self, at: usize) -> Option<&'i Item<'a>> {
        let blanks_from = self.text[..at]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c != '\n' && c.is_whitespace())
            .last()
            .map_or(at, |(blank, _)| blank);
        let ended = self
            .nodes_by_end
            .partition_point(|node| node.span.end <= at);
        let node = *self.nodes_by_end[..ended].last()?;
        (node.span.end >= blanks_from).then_some(node)
    }

    /// The innermost item whose span holds `at`, which is at or after the
    /// position of the last call (the first of several with the same
    /// span).
    fn innermost_around(&mut self, at: usize) -> Option<&'i Item<'a>> {
        for item in &self.items[self.started..] {
            if item.span.start > at {
                break;
            }
            self.started += 1;
            self.close_ended_by(item.span.start);
            if self.open.last().is_none_or(|open| open.span != item.span) {
                self.open.push(item);
            }
        }
        self.close_ended_by(at);
        self.open.last().copied()
    }

    /// Drops the open items that end at or before `at`.
    fn close_ended_by(&mut self, at: usize) {
        while self.open.last().is_some_and(|open| open.span.end <= at) {
            self.open.pop();
        }
    }

    /// The first item of `kind` held by `holder` that starts at or after
    /// `at`.
    fn first_held_after(&self, kind: ItemKind, holder: &str, at: usize) -> Option<&'i Item<'a>> {
        let held = self.held.get(&(kind, holder))?;
        held.get(held.partition_point(|item| item.span.start < at))
            .copied()
    }
}

/// `text` after its leading blanks and comments.
fn skip_blank_and_comments(text: &str) -> &str {
    &text[crate::lexer::skip_blank(text.as_bytes(), 0)..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "smith")]
    /// The rule [`Placer`] follows, as the formatter's first version
    /// applied it: every item scanned for every comment.
    fn place_by_scanning<'a>(
        text: &str,
        items: &[Item<'a>],
        comment: &Range<usize>,
        first_token: usize,
    ) -> (Place, &'a str) {
        let ends_line = |i: &&Item| {
            i.kind == ItemKind::Node
                && i.span.end <= comment.start
                && text[i.span.end..comment.start]
                    .chars()
                    .all(|c| c != '\n' && c.is_whitespace())
        };
        if let Some(node) = items.iter().filter(ends_line).max_by_key(|i| i.span.end) {
            return (Place::Trailing, node.path);
        }
        let first_after = |kind, holder: &'a str| {
            let after = |i: &&Item| i.kind == kind && i.parent == holder;
            let item = items
                .iter()
                .filter(after)
                .find(|i| i.span.start >= comment.end);
            item.map_or((Place::Closing, holder), |item| (Place::Leading, item.path))
        };
        let around = items.iter().filter(|i| i.span.contains(&comment.start));
        match around.min_by_key(|i| i.span.len()) {
            Some(node) if node.kind == ItemKind::Node => (Place::Leading, node.path),
            Some(body) => first_after(ItemKind::Node, body.path),
            None if comment.start < first_token => (Place::Leading, ""),
            None => first_after(ItemKind::Body, ""),
        }
    }

    #[cfg(feature = "smith")]
    /// `text` with a comment after each token that `keep` picks, and one
    /// before the first: right after the token, further on its line, on a
    /// line of its own, or after a blank line, by turns.
    fn commented(text: &str, keep: impl Fn(usize) -> bool) -> String {
        let mut out = String::from("# top\n");
        let mut copied = 0;
        for (k, (_, span)) in crate::lexer::scan(text).0.iter().enumerate() {
            out.push_str(&text[copied..span.end]);
            copied = span.end;
            if keep(k) {
                out.push_str(["# c\n", "  # c\n", "\n# c\n", "\n\n  # c\n\n"][k % 4]);
            }
        }
        out + &text[copied..]
    }

    /// The sweep places every comment where scanning every item does, in
    /// random models (nested graphs, functions, number lists) with
    /// comments after every token, or after some.
    #[cfg(feature = "smith")]
    #[test]
    fn comments_are_placed_as_scanning_every_item_places_them() {
        let mut placed = std::collections::HashSet::new();
        for seed in 0..40 {
            let base = crate::to_text(&crate::smith::model_from_seed(seed));
            let every = commented(&base, |_| true);
            let some = commented(&base, |k| (k as u64 * 7 + seed) % 5 < 2);
            for text in [every, some] {
                let (_, map, comments) =
                    parse_model_with_comments(&text).unwrap_or_else(|e| panic!("{e} in\n{text}"));
                let items = items_by_start(&map);
                let mut placer = Placer::new(&text, &items);
                for comment in &comments {
                    let place = placer.place(comment);
                    let expected = place_by_scanning(&text, &items, comment, placer.first_token);
                    assert_eq!(place, expected, "at {comment:?} in\n{text}");
                    placed.insert(place.0);
                }
            }
        }
        // Every kind of place was tried.
        assert_eq!(placed.len(), 3);
    }

    #[test]
    fn comments_stay_with_their_items() {
        let text = "\
# top of the file
<ir_version: 10, opset_import: [\"\": 21]>
# before the graph
g (float x) => (float y) {
  # before t
  t = Neg(x) # after t
  y = If <k = 1, # inside the If
    then_branch = th () => (float z) {
      # before z
      z = Identity(t)
      # end of then_branch
    }> (t)
  # end of g
}
# before f
<domain: \"d\", opset_import: [\"\": 21]> f (a) => (b) { b = Neg(a) }
# the end
";
        let formatted = format(text).unwrap();
        let expected_order = [
            "# top of the file",
            "# before the graph",
            "# before t",
            "t = Neg (x) # after t",
            "# inside the If",
            "# before z",
            "# end of then_branch",
            "# end of g",
            "# before f",
            "# the end",
        ];
        let mut position = 0;
        for expected in expected_order {
            let found = formatted[position..]
                .find(expected)
                .unwrap_or_else(|| panic!("{expected:?} missing or out of order in\n{formatted}"));
            position += found + expected.len();
        }
        // Formatting is idempotent, comments included.
        assert_eq!(format(&formatted).unwrap(), formatted);
    }

    /// The source map and the printer name the subgraphs of an attribute
    /// given twice alike (by index), so the comments in each stay there.
    #[test]
    fn comments_stay_in_the_subgraphs_of_an_attribute_given_twice() {
        let text = "g (bool c, float x) => (float y) {
  y = If <then_branch = t1 () => (float a) {
    # in t1
    a = Relu(x)
  }, then_branch = t2 () => (float b) {
    # in t2
    b = Relu(x)
  }, else_branch = e () => (float d) { d = Relu(x) }> (c)
}
";
        let formatted = format(text).unwrap();
        for (comment, node) in [("# in t1", "a = Relu"), ("# in t2", "b = Relu")] {
            let line = formatted.lines().position(|l| l.trim() == comment);
            let next = line.and_then(|line| formatted.lines().nth(line + 1));
            assert!(
                next.is_some_and(|next| next.trim_start().starts_with(node)),
                "{comment} not before {node} in\n{formatted}"
            );
        }
    }

    #[test]
    fn numbers_keep_their_spelling_when_it_means_the_same() {
        let text = "g (float x) => (float y) <float[3] w = {1e-5, 0.7978845608, 2}, \
                    double[2] d = {1e-5, 0.1}> {\n  y = LeakyRelu <alpha: float = 1.0e-2> (x)\n}\n";
        let formatted = format(text).unwrap();
        for spelling in [
            "{1e-5, 0.7978845608, 2}",
            "{1e-5, 0.1}",
            "alpha: float = 1.0e-2",
        ] {
            assert!(formatted.contains(spelling), "{spelling} in\n{formatted}");
        }
        assert_eq!(format(&formatted).unwrap(), formatted);
        // What the canonical text says, the kept spellings say too.
        let model = crate::parse_model(text).unwrap();
        assert_eq!(crate::parse_model(&formatted).unwrap(), model);
        // A spelling that denotes another value in its element type is
        // never kept: as a double, 0.7978845608 is not 0.7978846.
        let double = "g () => (double[1] y) <double[1] d = {0.7978846}> {\n  y = Identity (d)\n}\n";
        let model = crate::parse_model(double).unwrap();
        let other = double.replace("0.7978846", "0.7978845608");
        let canonical = crate::to_text(&model);
        assert_eq!(keep_spellings(&other, canonical.clone(), &model), canonical);
        let model = crate::parse_model(text).unwrap();
        // The printer's own spelling stays for the printed model.
        let printed = crate::to_text(&model);
        assert!(
            printed.contains("0.00001") && printed.contains("0.7978846"),
            "{printed}"
        );
    }

    #[test]
    fn comments_inside_number_lists_are_kept() {
        let formatted =
            format("g () => (float[2] y) <float[2] w = {1, # one\n 2}> { y = Identity(w) }")
                .unwrap();
        assert!(formatted.contains("# one"), "{formatted}");
    }
}
