//! The problems of a text: the parser's errors when it does not parse,
//! else the findings of [`crate::check`].

use super::Problem;
use crate::check::{self, Severity};
use crate::error::Diagnostic;
use crate::parser::Partial;

/// The code of the parser's diagnostic for a bracket never closed.
const UNCLOSED: &str = "onnxtxt::parse::unclosed_delimiter";

/// The problems of `text`, which parsed as `partial`.
pub(super) fn problems(text: &str, partial: &Partial) -> Vec<Problem> {
    if !partial.diagnostics.is_empty() {
        let mut problems = Vec::with_capacity(partial.diagnostics.len());
        for diagnostic in &partial.diagnostics {
            if diagnostic.code == UNCLOSED {
                problems.push(error(at_the_end(text, diagnostic)));
            }
            problems.push(error(diagnostic.clone()));
        }
        problems.sort_by_key(|p| p.diagnostic.span.start);
        return problems;
    }
    let Some(model) = &partial.model else {
        return Vec::new();
    };
    let mut findings = check::check_model(model);
    check::locate(&partial.map, &mut findings);
    findings
        .into_iter()
        .map(|finding| Problem {
            severity: finding.severity,
            diagnostic: Diagnostic {
                message: finding.summary,
                ..finding.diagnostic
            },
        })
        .collect()
}

fn error(diagnostic: Diagnostic) -> Problem {
    Problem {
        severity: Severity::Error,
        diagnostic,
    }
}

/// A bracket never closed, reported where the text ends too (where the
/// closer is missing while the text is being typed), pointing back to it.
fn at_the_end(text: &str, unclosed: &Diagnostic) -> Diagnostic {
    let end = text.len();
    let opener = &text[unclosed.span.clone()];
    let help = unclosed.help.clone().unwrap_or_default();
    Diagnostic::new(
        UNCLOSED,
        format!("the text ends before `{opener}` is closed"),
        end..end,
    )
    .with_label(unclosed.span.clone(), format!("`{opener}` opened here"))
    .with_help(help)
}
