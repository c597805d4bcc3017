//! The analysis on small texts: each question asked where its answer is
//! known from the text.

use super::*;

const MODEL: &str = r#"<ir_version: 10, opset_import: ["": 21, "local": 1]>
main (float[N] x, float[1] w = {2}) => (float[N] y) <float[N] t> {
  t = Mul (x, w)
  [act] a = LeakyRelu <alpha = 0.2> (t)
  c = Constant <value = bool {1}> ()
  y = If (c) <
    then_branch = then () => (float[N] r) { r = Neg (a) },
    else_branch = else () => (float[N] r) { r = local.Scale <factor = 2.0> (a) }
  >
}
<domain: "local", opset_import: ["": 21]>
Scale <factor: float = 1.0> (v) => (out) {
  f = Constant <value_float: float = @factor> ()
  out = Mul (v, f)
}
"#;

/// The offset of the `n`-th (from 0) occurrence of `needle` in `text`.
fn nth(text: &str, needle: &str, n: usize) -> usize {
    text.match_indices(needle)
        .nth(n)
        .unwrap_or_else(|| panic!("no {n}th `{needle}`"))
        .0
}

/// The line and text of each span.
fn shown(text: &str, spans: impl IntoIterator<Item = Span>) -> Vec<(usize, String)> {
    spans
        .into_iter()
        .map(|s| (text[..s.start].lines().count().max(1), text[s].to_owned()))
        .collect()
}

#[test]
fn the_example_has_no_problems() {
    let analysis = Analysis::new(MODEL);
    assert_eq!(analysis.diagnostics(), []);
}

#[test]
fn values_are_found_across_subgraphs() {
    let analysis = Analysis::new(MODEL);
    // `a` used in both branches is the LeakyRelu output.
    let use_in_else = nth(MODEL, "(a)", 1) + 1;
    let definition = analysis.definition(use_in_else).unwrap();
    assert_eq!(definition.start, nth(MODEL, "a = LeakyRelu", 0));
    let references = analysis.references(use_in_else);
    assert_eq!(
        references.iter().map(|r| r.role).collect::<Vec<_>>(),
        [Role::Definition, Role::Use, Role::Use]
    );
    // The two `r`s are different values, one per branch.
    let r_then = analysis.references(nth(MODEL, "r = Neg", 0));
    assert_eq!(r_then.len(), 2);
    assert!(r_then
        .iter()
        .all(|r| r.span.start < nth(MODEL, "else_branch", 0)));
    // `t`: its value info, its definition and its use.
    let t = analysis.references(nth(MODEL, "(t)", 0) + 1);
    assert_eq!(
        t.iter().map(|r| r.role).collect::<Vec<_>>(),
        [Role::Declaration, Role::Definition, Role::Use]
    );
}

#[test]
fn functions_and_their_attributes() {
    let analysis = Analysis::new(MODEL);
    let call = nth(MODEL, "Scale <factor = 2.0>", 0);
    let definition = analysis.definition(call).unwrap();
    assert_eq!(definition.start, nth(MODEL, "Scale <factor: float", 0));
    let reference = nth(MODEL, "@factor", 0) + 1;
    let declared = analysis.definition(reference).unwrap();
    assert_eq!(&MODEL[declared.clone()], "factor");
    assert_eq!(declared.start, nth(MODEL, "factor: float", 0));
    let item = analysis.item_at(nth(MODEL, "factor = 2.0", 0)).unwrap();
    assert_eq!(
        item.kind,
        ItemKind::AttributeName {
            name: "factor",
            op_type: "Scale"
        }
    );
}

#[test]
fn hover_shows_signatures_types_and_attributes() {
    let analysis = Analysis::new(MODEL);
    let (_, mul) = analysis.hover(nth(MODEL, "Mul", 0)).unwrap();
    assert!(mul.contains("Mul (ai.onnx) version 14"), "{mul}");
    assert!(
        mul.contains("https://onnx.ai/onnx/operators/onnx__Mul.html"),
        "{mul}"
    );
    let (_, w) = analysis.hover(nth(MODEL, "w)", 0)).unwrap();
    assert!(w.contains("float[1] w"), "{w}");
    assert!(w.contains("input of graph `main`"), "{w}");
    let (_, a) = analysis.hover(nth(MODEL, "(a)", 0) + 1).unwrap();
    assert!(a.contains("output 0 of node `act` (`LeakyRelu`)"), "{a}");
    // `a` declares no type: the hover shows the inferred one.
    assert!(a.contains("float[N] a"), "{a}");
    assert!(a.contains("type inferred, none declared"), "{a}");
    let (_, alpha) = analysis.hover(nth(MODEL, "alpha", 0)).unwrap();
    assert!(alpha.contains("alpha: float = 0.01"), "{alpha}");
    let (_, factor) = analysis.hover(nth(MODEL, "@factor", 0) + 2).unwrap();
    assert!(factor.contains("factor: float = 1.0"), "{factor}");
    let (_, key) = analysis.hover(1).unwrap();
    assert!(key.starts_with("`ir_version`"), "{key}");
}

#[test]
fn renames_values_and_functions_and_refuses_what_would_break() {
    let analysis = Analysis::new(MODEL);
    let a = nth(MODEL, "a = LeakyRelu", 0);
    let edits = analysis.rename(a, "activated").unwrap();
    assert_eq!(edits.len(), 3);
    assert!(edits.iter().all(|(span, _)| &MODEL[span.clone()] == "a"));
    // `r` is defined inside the subgraphs that read `a`.
    assert_eq!(analysis.rename(a, "r"), Err(RenameError::Taken("r".into())));
    assert_eq!(analysis.rename(a, "w"), Err(RenameError::Taken("w".into())));
    assert_eq!(
        analysis.rename(a, "my value"),
        Err(RenameError::NeedsQuotes("\"my value\"".into()))
    );
    assert_eq!(analysis.rename(a, "\"my value\"").unwrap().len(), 3);
    assert_eq!(
        analysis.rename(a, "float"),
        Err(RenameError::NeedsQuotes("\"float\"".into()))
    );
    let scale = analysis
        .rename(nth(MODEL, "Scale <factor: float", 0), "Twice")
        .unwrap();
    assert_eq!(shown(MODEL, scale.into_iter().map(|(s, _)| s)).len(), 2);
    assert_eq!(
        analysis.prepare_rename(nth(MODEL, "Mul", 0)),
        Err(RenameError::NothingToRename)
    );
}

#[test]
fn completion_by_place() {
    let labels = |text: &str, offset: usize| -> Vec<String> {
        let mut labels: Vec<String> = Analysis::new(text)
            .completions(offset)
            .into_iter()
            .map(|c| c.label)
            .collect();
        labels.sort();
        labels
    };
    // Operators at the opset imported: Gelu came in opset 20.
    let text =
        "<ir_version: 10, opset_import: [\"\": 19]>\ng (float x) => (float y) {\n  y = Ge\n}";
    let ops = labels(text, nth(text, "Ge", 0) + 2);
    assert!(
        ops.contains(&"Gemm".to_owned()) && !ops.contains(&"Gelu".to_owned()),
        "{ops:?}"
    );
    // Attributes not written yet, in a half-typed node.
    let text = "<opset_import: [\"\": 21]>\ng (float x) => (float y) {\n  y = LeakyRelu <\n}";
    assert_eq!(labels(text, nth(text, "<\n", 0) + 1), ["alpha"]);
    // Values in scope in an input list: not the node's own outputs.
    let text = "g (float x) => (float y) {\n  t = Relu (x)\n  y = Add (t, )\n}";
    assert_eq!(labels(text, nth(text, ", )", 0) + 2), ["t", "x"]);
    // Header keys not written yet.
    let text = "<ir_version: 10, >\ng () => () {}";
    let keys = labels(text, nth(text, ", >", 0) + 2);
    assert!(keys.contains(&"opset_import".to_owned()) && !keys.contains(&"ir_version".to_owned()));
    // Element types where a value info starts.
    let text = "g (fl) => () {}";
    assert!(labels(text, 5).contains(&"float".to_owned()));
}

#[test]
fn half_typed_text_is_still_indexed() {
    let text =
        "<opset_import: [\"\": 21]>\ng (float x) => (float y) {\n  t = Relu (x)\n  y = Add (t, ";
    let analysis = Analysis::new(text);
    let messages: Vec<&str> = analysis
        .diagnostics()
        .iter()
        .map(|p| p.diagnostic.message.as_str())
        .collect();
    assert!(
        messages.iter().any(|m| m.contains("`(` is never closed")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("ends before `{`")),
        "{messages:?}"
    );
    assert!(analysis
        .diagnostics()
        .iter()
        .all(|p| p.diagnostic.span.end <= text.len()));
    let t = nth(text, "(t", 0) + 1;
    assert_eq!(
        analysis.definition(t).map(|d| d.start),
        Some(nth(text, "t = Relu", 0))
    );
}

#[test]
fn check_findings_come_with_their_help_and_related_places() {
    let text = "<ir_version: 10, opset_import: [\"\": 21]>\ng (float x) => (float y) {\n  y = Relu (x)\n  y = Neg (x)\n}";
    let analysis = Analysis::new(text);
    let problem = &analysis.diagnostics()[0];
    assert_eq!(problem.diagnostic.code, "onnxtxt::check::reassigned");
    assert_eq!(&text[problem.diagnostic.span.clone()], "y");
    assert_eq!(problem.diagnostic.labels.len(), 1);
}

#[test]
fn outline_and_folds() {
    let analysis = Analysis::new(MODEL);
    let outline = analysis.outline();
    let names: Vec<&str> = outline.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["main", "local.Scale"]);
    let nodes: Vec<&str> = outline[0]
        .children
        .iter()
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(nodes, ["t", "act", "c", "y"]);
    assert_eq!(outline[0].children[3].children.len(), 2);
    let folds = analysis.folding_ranges();
    assert!(folds
        .iter()
        .any(|f| MODEL[f.span.clone()].starts_with("{\n  t = Mul")));
}

#[test]
fn semantic_tokens_classify_names_and_words() {
    let analysis = Analysis::new(MODEL);
    let class_of = |needle: &str| {
        let start = nth(MODEL, needle, 0);
        analysis
            .semantic_tokens()
            .into_iter()
            .find(|t| t.span.start == start)
            .map(|t| t.class)
    };
    assert_eq!(class_of("ir_version"), Some(TokenClass::Keyword));
    assert_eq!(class_of("float[N] x"), Some(TokenClass::Type));
    assert_eq!(class_of("N] x"), Some(TokenClass::Dimension));
    assert_eq!(class_of("x, float"), Some(TokenClass::Parameter));
    assert_eq!(class_of("Mul"), Some(TokenClass::Operator));
    assert_eq!(class_of("local.Scale"), Some(TokenClass::Namespace));
    assert_eq!(class_of("Scale <factor = 2.0>"), Some(TokenClass::Function));
    assert_eq!(class_of("alpha"), Some(TokenClass::Attribute));
    assert_eq!(class_of("act"), Some(TokenClass::Label));
    assert_eq!(class_of("0.2"), Some(TokenClass::Number));
}

#[test]
fn positions_past_the_end_or_inside_characters_are_harmless() {
    let text = "g (float \"é ü\") => (float y) { y = Relu(\"é ü\") }";
    let analysis = Analysis::new(text);
    for offset in 0..=text.len() + 2 {
        let _ = analysis.item_at(offset);
        let _ = analysis.hover(offset);
        let _ = analysis.completions(offset);
        let _ = analysis.references(offset);
        let _ = analysis.prepare_rename(offset);
    }
    let quoted = nth(text, "\"é ü\")", 1);
    assert_eq!(
        analysis.definition(quoted + 1).map(|d| d.start),
        Some(nth(text, "\"é ü\"", 0))
    );
}

#[test]
fn a_call_of_a_local_function_shows_its_signature_and_leads_to_it() {
    let analysis = Analysis::new(MODEL);
    let call = nth(MODEL, "local.Scale", 0) + "local.".len();
    let (span, text) = analysis.hover(call).unwrap();
    assert_eq!(&MODEL[span], "Scale");
    assert!(
        text.contains("<domain: \"local\", opset_import: [\"\": 21]>\nScale <factor: float = 1.0> (v) => (out)"),
        "{text}"
    );
    assert!(
        text.contains("model-local function, 2 nodes, line 11"),
        "{text}"
    );
    let definition = analysis.definition(call).unwrap();
    assert_eq!(definition.start, nth(MODEL, "Scale <factor: float", 0));
}
