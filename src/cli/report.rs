//! How the CLI shows diagnostics: drawn over the source text by
//! `onnxtxt::report` (`FILE:LINE:COL`, colour only on a terminal,
//! `NO_COLOR` honoured), as one line per diagnostic for binary input, or, with
//! `--error-format json`, as one JSON object per line for editors and
//! scripts.

use std::io::IsTerminal;
use std::ops::Range;

use onnxtxt::report::{severity_name, Renderer};
use onnxtxt::{line_column, Diagnostic, Severity};

/// How diagnostics are written to stderr.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ErrorFormat {
    /// Drawn over the source lines, for people.
    #[default]
    Human,
    /// One JSON object per diagnostic and line, for tools.
    Json,
}

/// One diagnostic about `file`, whose `text` is known for text input (spans
/// are bytes of it) and unknown for binary input (spans are bytes of the
/// binary). `label` is the text under the primary span.
pub(crate) struct Shown<'a> {
    pub(crate) file: &'a str,
    pub(crate) text: Option<&'a str>,
    pub(crate) level: Severity,
    pub(crate) diagnostic: &'a Diagnostic,
    pub(crate) label: &'a str,
}

/// Writes one diagnostic to stderr in `format`.
pub(crate) fn show(format: ErrorFormat, shown: &Shown<'_>) {
    match format {
        ErrorFormat::Json => eprintln!("{}", json(shown)),
        ErrorFormat::Human => {
            let renderer = match shown.text {
                Some(text) => Renderer::text(shown.file, text).colour(colour()),
                None => Renderer::binary(shown.file),
            };
            eprint!(
                "{}",
                renderer.diagnostic(shown.level, shown.diagnostic, shown.label)
            );
        }
    }
}

/// Writes a message that belongs to no diagnostic (an I/O error, a
/// summary) in `format`.
pub(crate) fn show_message(format: ErrorFormat, level: Severity, message: &str) {
    match format {
        ErrorFormat::Human => eprintln!("{}: {message}", severity_name(level)),
        ErrorFormat::Json => eprintln!(
            "{}",
            serde_json::json!({"level": severity_name(level), "message": message})
        ),
    }
}

/// Whether to draw in colour: on a terminal, unless `NO_COLOR` is set.
fn colour() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn json(shown: &Shown<'_>) -> serde_json::Value {
    let d = shown.diagnostic;
    let position = |span: &Range<usize>| match shown.text {
        Some(text) => {
            let (line, column) = line_column(text, span.start);
            serde_json::json!({"start": span.start, "end": span.end, "line": line, "column": column})
        }
        None => serde_json::json!({"start": span.start, "end": span.end}),
    };
    serde_json::json!({
        "level": severity_name(shown.level),
        "code": d.code,
        "message": d.message,
        "file": shown.file,
        "path": d.path,
        "span": position(&d.span),
        "labels": d.labels.iter().map(|l| serde_json::json!({"span": position(&l.span), "message": l.message})).collect::<Vec<_>>(),
        "help": d.help,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_everything_a_tool_needs() {
        let d = Diagnostic::new("onnxtxt::parse::syntax", "expected `=>`", 4..6)
            .with_help("write `=>`");
        let shown = Shown {
            file: "m.onnxtxt",
            text: Some("g ()\n-> ()"),
            level: Severity::Error,
            diagnostic: &d,
            label: "here",
        };
        let value = json(&shown);
        assert_eq!(value["span"]["line"], 1);
        assert_eq!(value["span"]["column"], 5);
        assert_eq!(value["code"], "onnxtxt::parse::syntax");
        assert_eq!(value["help"], "write `=>`");
    }
}
