//! The hunks of a line diff of two texts, each named after the graph or
//! function its first changed line is in.

use std::collections::HashSet;
use std::ops::Range;

use similar::{capture_diff_slices, group_diff_ops, Algorithm, ChangeTag, DiffOp};

use super::function_name;
use crate::ir_path::{IrPath, ItemKind, Step};
use crate::proto::FunctionProto;

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
}
