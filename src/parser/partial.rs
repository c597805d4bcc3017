//! Reading as much as possible of a model that does not parse, for an
//! editor: the model the recovering grammar builds, its source map and
//! every diagnostic, where [`crate::parse_model_with_source_map`] gives
//! only the diagnostics.
//!
//! Text that parses takes the usual fast path. Otherwise the grammar runs
//! once with rich errors and its recovery (see `recovery.rs`): a node, an
//! attribute or a list item that does not parse stands as a default item,
//! recorded as a landmark over the text it skipped, so the source map still
//! pairs items with their text. Brackets that do not pair up, which stop
//! the normal parse before the grammar, are repaired first: a closer that
//! closes nothing is dropped, and a bracket left open is closed by an
//! empty closer where it had to end (before the closer of an enclosing
//! bracket, or at the end of the text). The delimiter diagnostics say what
//! was wrong; the grammar's errors at the closers added are left out, as
//! they would say the same again.

use chumsky::input::Input as _;
use chumsky::prelude::*;

use super::errors::diagnostic_of;
use super::grammar::{run, Grammar, State, FAST_GRAMMAR};
use super::hints::{self, closer_of, is_closer};
use super::tokens::{deepest, explain_malformed, well_formed, with_room_for};
use super::{MAX_ERRORS, MAX_NESTING};
use crate::error::Diagnostic;
use crate::lexer::{scan, Token};
use crate::proto::ModelProto;
use crate::SourceMap;

/// What [`parse_model_partial`] read.
#[derive(Debug, Default)]
pub(crate) struct Partial {
    /// The model, when the grammar could recover from every error; items
    /// that did not parse are default items.
    pub model: Option<ModelProto>,
    /// Where each item of `model` is in the text.
    pub map: SourceMap,
    /// Every problem found, in the order of the text; empty when the text
    /// parses.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses `text` as a model as far as it can be read (see the module
/// documentation).
pub(crate) fn parse_model_partial(text: &str) -> Partial {
    let (tokens, _) = scan(text);
    if well_formed(&tokens) {
        let fast = FAST_GRAMMAR
            .with(|cache| run(cache.get().model.clone(), &tokens, text, State::recording()));
        if let Ok((model, state)) = fast {
            let map = SourceMap::of_model(&model, state.landmarks.recorded());
            return Partial {
                model: Some(*model),
                map,
                diagnostics: Vec::new(),
            };
        }
    }
    let mut diagnostics = match explain_malformed(&tokens, text) {
        Ok(()) => Vec::new(),
        Err(error) => error.diagnostics().to_vec(),
    };
    let (repaired, added) = repair_brackets(&tokens, text.len());
    let mut partial = Partial::default();
    if deepest(&repaired) <= MAX_NESTING {
        let grammar = Grammar::<_, Rich<_>>::new();
        let eoi = SimpleSpan::from(text.len()..text.len());
        let mut state = State::recording();
        let (model, errors) = with_room_for(&repaired, || {
            grammar
                .model
                .clone()
                .then_ignore(end())
                .parse_with_state(repaired.as_slice().split_token_span(eoi), &mut state)
                .into_output_errors()
        });
        let known = diagnostics.clone();
        let new = errors.iter().filter_map(|error| {
            let span = error.span().into_range();
            let at_added = span.is_empty() && added.contains(&span.start);
            let repeated = known
                .iter()
                .any(|d| d.span.contains(&span.start) || d.span == span);
            (!at_added && !repeated).then(|| {
                let mut diagnostic = diagnostic_of(error);
                hints::improve(&mut diagnostic, text);
                diagnostic
            })
        });
        diagnostics.extend(new);
        if let Some(model) = model {
            partial.map = SourceMap::of_model(&model, state.landmarks.recorded());
            partial.model = Some(*model);
        }
    }
    diagnostics.sort_by_key(|d| d.span.start);
    diagnostics.dedup();
    diagnostics.truncate(MAX_ERRORS);
    partial.diagnostics = diagnostics;
    partial
}

/// `tokens` with brackets that pair up: closers that close nothing are
/// dropped, and brackets left open get an empty closer where they had to
/// end. Also returns where closers were added.
fn repair_brackets<'s>(
    tokens: &[(Token<'s>, SimpleSpan)],
    end: usize,
) -> (Vec<(Token<'s>, SimpleSpan)>, Vec<usize>) {
    let mut repaired = Vec::with_capacity(tokens.len());
    let mut added = Vec::new();
    let mut open: Vec<Token<'static>> = Vec::new();
    let mut close = |closer: Token<'static>, at: usize, out: &mut Vec<_>| {
        out.push((closer, SimpleSpan::from(at..at)));
        added.push(at);
    };
    for &(token, span) in tokens {
        if let Some(closer) = closer_of(token) {
            open.push(closer);
        } else if is_closer(token) {
            let Some(depth) = open.iter().rposition(|&c| c == token) else {
                continue;
            };
            for closer in open.drain(depth + 1..).rev() {
                close(closer, span.start, &mut repaired);
            }
            open.pop();
        }
        repaired.push((token, span));
    }
    for closer in open.into_iter().rev() {
        close(closer, end, &mut repaired);
    }
    (repaired, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(partial: &Partial, text: &str) -> Vec<String> {
        partial
            .diagnostics
            .iter()
            .map(|d| format!("{}: {}", &text[d.span.clone()], d.message))
            .collect()
    }

    #[test]
    fn text_that_parses_has_no_diagnostics() {
        let text = "g (float x) => (float y) { y = Relu(x) }";
        let partial = parse_model_partial(text);
        assert!(partial.diagnostics.is_empty());
        let span = partial.map.span("graph.node[0].op_type").unwrap();
        assert_eq!(&text[span], "Relu");
    }

    #[test]
    fn nodes_after_a_broken_one_keep_their_places() {
        let text = "g (float x) => (float y) {\n a = Relu x\n b = Neg(a)\n y = Abs(b c)\n}";
        let partial = parse_model_partial(text);
        assert_eq!(partial.diagnostics.len(), 2, "{:?}", partial.diagnostics);
        let model = partial.model.unwrap();
        let nodes = &model.graph.unwrap().node;
        assert_eq!(nodes.len(), 3);
        assert_eq!(nodes[1].op_type.as_deref(), Some("Neg"));
        let at = |path: &str| &text[partial.map.span(path).unwrap()];
        assert_eq!(at("graph.node[0]"), "a = Relu x");
        assert_eq!(at("graph.node[1]"), "b = Neg(a)");
        assert_eq!(at("graph.node[1].input[0]"), "a");
    }

    #[test]
    fn an_unclosed_bracket_is_closed_at_the_end() {
        let text = "g (float x) => (float y) {\n t = Relu(x)\n y = Neg(t";
        let partial = parse_model_partial(text);
        assert_eq!(
            messages(&partial, text),
            ["{: `{` is never closed", "(: `(` is never closed"]
        );
        let model = partial.model.unwrap();
        assert_eq!(model.graph.unwrap().node[1].input, ["t"]);
        assert_eq!(
            &text[partial.map.span("graph.node[1].input[0]").unwrap()],
            "t"
        );
    }

    #[test]
    fn a_stray_closer_is_dropped_and_the_rest_still_read() {
        let text = "g (float x) => (float y) {\n t = Relu(x))\n y = Neg <> (t)\n}";
        let partial = parse_model_partial(text);
        assert_eq!(
            messages(&partial, text),
            [
                "): `)` closes nothing",
                ">: expected `@<` or an attribute name, found `>`"
            ]
        );
        assert!(partial.model.is_some());
    }

    #[test]
    fn half_typed_text_never_fails() {
        let text = "<ir_version: 10, opset_import: [\"\": 21]>\ng (float x) => (float y) {\n y = Relu(x)\n}";
        for end in 0..=text.len() {
            let partial = parse_model_partial(&text[..end]);
            for d in &partial.diagnostics {
                assert!(d.span.end <= end, "{end}: {d:?}");
            }
        }
    }
}
