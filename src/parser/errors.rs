//! What a failed parse reports: the grammar's errors, turned into
//! diagnostics in the words of the grammar (`hints.rs` then says how to
//! fix them).

use chumsky::error::Rich;

use super::{hints, MAX_ERRORS};
use crate::error::{Diagnostic, Error};
use crate::lexer::Token;

/// Converts the errors of a failed parse of `source`: in the order of the
/// text, at most [`MAX_ERRORS`] of them.
pub(super) fn to_error(mut errors: Vec<Rich<'_, Token<'_>>>, source: &str) -> Error {
    errors.sort_by_key(|e| e.span().start);
    let mut diagnostics: Vec<Diagnostic> = errors
        .iter()
        .take(MAX_ERRORS)
        .map(|e| {
            let mut diagnostic = diagnostic_of(e);
            hints::improve(&mut diagnostic, source);
            diagnostic
        })
        .collect();
    diagnostics.sort_by_key(|d| d.span.start);
    diagnostics.dedup();
    Error::from_diagnostics(diagnostics)
}

/// Diagnostics gathered as a check finds them, of which only the first
/// [`MAX_ERRORS`] in the order of the text are kept: however many mistakes
/// a text has, at most twice that many are ever held, and one that cannot
/// be among the first is not even built ([`FirstErrors::wants`]).
#[derive(Debug, Default)]
pub(crate) struct FirstErrors {
    kept: Vec<Diagnostic>,
    /// Once [`MAX_ERRORS`] are kept: where the last of them starts.
    past: Option<usize>,
}

impl FirstErrors {
    /// Whether a diagnostic starting at byte `start` may be among the
    /// first.
    pub(crate) fn wants(&self, start: usize) -> bool {
        self.past.is_none_or(|past| start < past)
    }

    /// Adds `diagnostic`, if it may be among the first.
    pub(crate) fn push(&mut self, diagnostic: Diagnostic) {
        if !self.wants(diagnostic.span.start) {
            return;
        }
        self.kept.push(diagnostic);
        if self.kept.len() == 2 * MAX_ERRORS {
            self.keep_first();
        }
    }

    fn keep_first(&mut self) {
        self.kept.sort_by_key(|d| d.span.start);
        self.kept.truncate(MAX_ERRORS);
        if self.kept.len() == MAX_ERRORS {
            self.past = self.kept.last().map(|d| d.span.start);
        }
    }

    /// The first diagnostics, in the order of the text.
    pub(crate) fn into_sorted(mut self) -> Vec<Diagnostic> {
        self.keep_first();
        self.kept
    }
}

/// Names an expected item in grammar terms (chumsky's own wording quotes
/// tokens a second time).
fn describe(pattern: &chumsky::error::RichPattern<'_, Token<'_>>) -> String {
    use chumsky::error::RichPattern;
    match pattern {
        RichPattern::Token(token) => token.to_string(),
        RichPattern::Label(label) => label.to_string(),
        RichPattern::EndOfInput => "the end of the input".to_owned(),
        other => other.to_string(),
    }
}

/// Turns a chumsky error into a diagnostic.
pub(super) fn diagnostic_of(error: &Rich<'_, Token<'_>>) -> Diagnostic {
    use chumsky::error::RichReason;
    let span = error.span().into_range();
    match error.reason() {
        RichReason::Custom(message) => {
            let (code, message, help) = hints::split_custom(message);
            let code = code
                .and_then(hints::emitted_code)
                .unwrap_or("onnxtxt::parse::invalid");
            let diagnostic = Diagnostic::new(code, message, span);
            match help {
                Some(help) => diagnostic.with_help(help),
                None => diagnostic,
            }
        }
        RichReason::ExpectedFound { expected, found } => {
            let mut expected: Vec<String> = expected.iter().map(describe).collect();
            expected.sort();
            expected.dedup();
            let found = found
                .as_ref()
                .map_or_else(|| "the end of the input".to_owned(), |t| t.to_string());
            let at_end = expected.iter().any(|e| e == "the end of the input");
            let message = match expected.as_slice() {
                _ if at_end && found != "the end of the input" => {
                    format!("unexpected {found} after the end of the text")
                }
                [] => format!("unexpected {found}"),
                [one] => format!("expected {one}, found {found}"),
                [init @ .., last] => {
                    format!("expected {} or {last}, found {found}", init.join(", "))
                }
            };
            Diagnostic::new("onnxtxt::parse::syntax", message, span)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_first_errors_are_kept_however_many_come() {
        let mut errors = FirstErrors::default();
        for start in (0..100_000).rev().chain(100_000..200_000) {
            errors.push(Diagnostic::new("onnxtxt::parse::syntax", "", start..start));
            assert!(errors.kept.len() < 2 * MAX_ERRORS);
        }
        assert!(!errors.wants(MAX_ERRORS));
        let starts: Vec<usize> = errors.into_sorted().iter().map(|d| d.span.start).collect();
        assert_eq!(starts, (0..MAX_ERRORS).collect::<Vec<_>>());
    }

    #[test]
    fn errors_name_what_was_expected_and_where() {
        let text = "g (float x) = (float y) {}";
        let error = crate::parse_graph(text).unwrap_err();
        assert_eq!(&text[error.span()], "=");
        assert!(error.to_string().contains("`=>`"), "{error}");
    }
}
