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
    #[test]
    fn errors_name_what_was_expected_and_where() {
        let text = "g (float x) = (float y) {}";
        let error = crate::parse_graph(text).unwrap_err();
        assert_eq!(&text[error.span()], "=");
        assert!(error.to_string().contains("`=>`"), "{error}");
    }
}
