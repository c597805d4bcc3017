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
//!
//! By job: `hunks` diffs the lines and names the hunks, `prepare` clears
//! what the options leave out and elides tensor elements, `summary` says
//! how the elided tensors changed, `structural` compares the parts.

mod hunks;
mod prepare;
mod structural;
mod summary;

pub use hunks::{diff_texts, Hunk, Line, LineKind};
pub use structural::{structural_diff, Change};
pub use summary::{MaxAbsDiff, Shape, TensorChange, ValueChange, FIRST_CHANGES_SHOWN};

use std::collections::HashMap;

use crate::proto::{FunctionProto, ModelProto};
use prepare::{prepare, Elided};
// Reused by the structural diff.
use prepare::{take_values, typed_len, TYPED_FIELDS};
use summary::{compare, position, Tally};

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

fn plural(count: usize, word: &str) -> String {
    if count == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
