//! The checks on the tokens before the grammar runs: text the lexer could
//! not read, brackets that do not pair up, and nesting deeper than
//! [`MAX_NESTING`] are reported here, so that the grammar never recurses
//! on the Rust stack without bound. One quick pass ([`well_formed`])
//! clears the common case.

use chumsky::span::SimpleSpan;

use super::errors::FirstErrors;
use super::{hints, MAX_ERRORS, MAX_NESTING};
use crate::error::{Diagnostic, Error};
use crate::lexer::{scan, SpannedTokens, Token};

/// Lexes `source` and checks the tokens before parsing: unreadable text
/// and excessive nesting are reported here. The tokens, and how deep
/// their plain brackets nest (see [`check_tokens`]).
pub(super) fn tokenize(source: &str) -> Result<(SpannedTokens<'_>, usize), Error> {
    check_tokens(scan(source).0, source)
}

/// Checks lexed tokens before parsing: unreadable text, unpaired brackets
/// and excessive nesting are reported here. The tokens, and how deep
/// their plain brackets nest ([`Brackets::deepest_plain`]; [`MAX_NESTING`]
/// for tokens that are not [`well_formed`] but not refused either).
pub(super) fn check_tokens<'s>(
    tokens: SpannedTokens<'s>,
    source: &str,
) -> Result<(SpannedTokens<'s>, usize), Error> {
    match well_formed_depth(&tokens) {
        Some(depth) => Ok((tokens, depth)),
        None => {
            explain_malformed(&tokens, source)?;
            Ok((tokens, MAX_NESTING))
        }
    }
}

/// Reports what is wrong with tokens that are not [`well_formed`].
pub(super) fn explain_malformed(
    tokens: &[(Token<'_>, SimpleSpan)],
    source: &str,
) -> Result<(), Error> {
    let mut diagnostics = FirstErrors::default();
    for diagnostic in lexer_diagnostics(tokens, source) {
        diagnostics.push(diagnostic);
    }
    // An unclosed string runs to the end of the text, taking the closing
    // brackets with it: reporting those would only repeat the one mistake.
    if !tokens
        .iter()
        .any(|(t, _)| matches!(t, Token::UnclosedString(_)))
    {
        hints::check_delimiters(tokens, source, &mut diagnostics);
    }
    let diagnostics = diagnostics.into_sorted();
    if !diagnostics.is_empty() {
        return Err(Error::from_diagnostics(diagnostics));
    }
    check_nesting(tokens)
}

/// Whether `tokens` can go straight to the grammar: the lexer read every
/// token, brackets pair up, and none nest deeper than [`MAX_NESTING`]. One
/// quick pass for the common case; [`explain_malformed`] says what is
/// wrong with tokens that fail it.
pub(super) fn well_formed(tokens: &[(Token<'_>, SimpleSpan)]) -> bool {
    well_formed_depth(tokens).is_some()
}

/// How deep the plain brackets of `tokens` nest
/// ([`Brackets::deepest_plain`]), when they are [`well_formed`].
fn well_formed_depth(tokens: &[(Token<'_>, SimpleSpan)]) -> Option<usize> {
    let mut brackets = Brackets::default();
    let whole = brackets.walk(tokens) == Some(tokens.len()) && brackets.open() == 0;
    whole.then_some(brackets.deepest_plain)
}

/// A walk over the brackets of tokens, one stretch of them after another.
#[derive(Debug, Default)]
pub(super) struct Brackets {
    /// The closers of the brackets open, innermost last.
    closers: Vec<Token<'static>>,
    /// The deepest nesting so far.
    pub(super) deepest: usize,
    /// How many of the brackets open are plain ones, `(`, `[` or `{` (not
    /// `<` or `@<`), and the deepest they nested so far: what a binary
    /// model's messages nest with (see `EncodedModel::deepest_brackets`).
    plain_open: usize,
    pub(super) deepest_plain: usize,
    /// The `=` tokens outside every bracket the walk opened: in a run of
    /// nodes, one for each node.
    pub(super) outer_eqs: usize,
}

impl Brackets {
    /// How many brackets are open.
    pub(super) fn open(&self) -> usize {
        self.closers.len()
    }

    /// How many plain brackets are open (see [`Brackets::deepest_plain`]).
    pub(super) fn plain_open(&self) -> usize {
        self.plain_open
    }

    /// Walks on over `tokens`, up to the first closer that closes no
    /// bracket open: its index, or the number of tokens. `None` if a
    /// bracket is closed by the wrong closer or nests deeper than
    /// [`MAX_NESTING`], or a token could not be read, before that.
    pub(super) fn walk(&mut self, tokens: &[(Token<'_>, SimpleSpan)]) -> Option<usize> {
        for (index, &(token, _)) in tokens.iter().enumerate() {
            if let Some(closer) = hints::closer_of(token) {
                if self.closers.len() == MAX_NESTING {
                    return None;
                }
                self.closers.push(closer);
                self.deepest = self.deepest.max(self.closers.len());
                if closer != Token::RAngle {
                    self.plain_open += 1;
                    self.deepest_plain = self.deepest_plain.max(self.plain_open);
                }
            } else if hints::is_closer(token) {
                match self.closers.pop() {
                    Some(expected) if expected == token => {
                        self.plain_open -= usize::from(token != Token::RAngle);
                    }
                    Some(_) => return None,
                    None => return Some(index),
                }
            } else if token == Token::Eq {
                self.outer_eqs += usize::from(self.closers.is_empty());
            } else if matches!(
                token,
                Token::Error | Token::Elided(_) | Token::UnclosedString(_)
            ) {
                return None;
            }
        }
        Some(tokens.len())
    }
}

/// Diagnostics for text the lexer could not read.
fn lexer_diagnostics(tokens: &[(Token<'_>, SimpleSpan)], source: &str) -> Vec<Diagnostic> {
    let mut last_error_end = None;
    tokens
        .iter()
        .filter_map(|(token, span)| match token {
            // Several bad characters in one word (`/a/b`) are one mistake.
            Token::Error
                if last_error_end
                    .is_some_and(|end| !source[end..span.start].contains(char::is_whitespace)) =>
            {
                last_error_end = Some(span.end);
                None
            }
            Token::Error => {
                last_error_end = Some(span.end);
                let mut diagnostic = Diagnostic::new(
                    "onnxtxt::parse::character",
                    format!("unexpected character `{}`", &source[span.into_range()]),
                    span.into_range(),
                );
                hints::improve(&mut diagnostic, source);
                Some(diagnostic)
            }
            Token::Elided(_) => Some(hints::elided(span.into_range())),
            Token::UnclosedString(_) => Some(
                Diagnostic::new(
                    "onnxtxt::parse::unclosed_string",
                    "this string is never closed",
                    span.start..span.start + 1,
                )
                .with_help("add a closing `\"`"),
            ),
            _ => None,
        })
        .take(MAX_ERRORS)
        .collect()
}

/// Rejects bracket nesting deeper than [`MAX_NESTING`].
fn check_nesting(tokens: &[(Token<'_>, SimpleSpan)]) -> Result<(), Error> {
    let mut depth = 0usize;
    for (token, span) in tokens {
        if hints::closer_of(*token).is_some() {
            depth += 1;
            if depth > MAX_NESTING {
                return Err(Error::single(
                    "onnxtxt::parse::too_deep",
                    format!("brackets are nested more than {MAX_NESTING} deep"),
                    span.into_range(),
                ));
            }
        } else if hints::is_closer(*token) {
            depth = depth.saturating_sub(1);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}float{}", "seq(".repeat(5000), ")".repeat(5000));
        let error = crate::parse_type(&deep).unwrap_err();
        assert_eq!(error.primary().code, "onnxtxt::parse::too_deep");
        let within = format!(
            "{}float{}",
            "seq(".repeat(MAX_NESTING),
            ")".repeat(MAX_NESTING)
        );
        assert!(crate::parse_type(&within).is_ok());
    }

    #[test]
    fn the_quick_token_check_agrees_with_the_explaining_one() {
        let nested = |depth: usize| format!("{}x{}", "(".repeat(depth), ")".repeat(depth));
        let cases = [
            ("g (float x) => (float y) { y = Relu(x) }".to_owned(), true),
            ("<a: [1, 2]> f @<k: 1> (x)".to_owned(), true),
            (nested(MAX_NESTING), true),
            (nested(MAX_NESTING + 1), false),
            ("y = Foo(x".to_owned(), false),
            ("y = Foo(x))".to_owned(), false),
            ("y = Foo[x)".to_owned(), false),
            ("{ ( } )".to_owned(), false),
            ("y = Foo(x$)".to_owned(), false),
            ("y = Foo(\"x)".to_owned(), false),
            ("t = float[3] {1, ... 2 more}".to_owned(), false),
        ];
        for (text, expected) in &cases {
            let tokens = scan(text).0;
            assert_eq!(well_formed(&tokens), *expected, "{text}");
            assert_eq!(
                explain_malformed(&tokens, text).is_ok(),
                *expected,
                "{text}"
            );
        }
    }

    /// The depth that `check_tokens` gives counts `(`, `[` and `{`, not
    /// `<` or `@<`, outside strings and comments.
    #[test]
    fn plain_brackets_are_counted_on_the_way() {
        let cases = [
            ("g () => () { y = Relu (x) }", 2),
            ("g (float[2] x) => () <float[1] w = {1}> {}", 2),
            ("<a: [1, 2]> f @<k: [3]> (x)", 1),
            (
                "y = If (c) <then_branch: graph = t () => () { z = Relu (x) }>",
                2,
            ),
            ("y = Op (\"((\" # [[[\n)", 1),
            ("y = Op <a = [\"x\"]> ()", 1),
            ("y = Op <a = \"x\"> ()", 1),
        ];
        for (text, depth) in cases {
            let (_, found) = check_tokens(scan(text).0, text).unwrap();
            assert_eq!(found, depth, "{text}");
        }
    }

    #[test]
    fn lexer_errors_are_reported_with_their_place() {
        let error = crate::parse_graph("g () => (float y) { y = Foo(\"x) }").unwrap_err();
        assert_eq!(error.primary().code, "onnxtxt::parse::unclosed_string");
        assert_eq!(error.span(), 28..29);
        let error = crate::parse_node("y = Foo(x$)").unwrap_err();
        assert_eq!(error.span(), 9..10);
    }
}
