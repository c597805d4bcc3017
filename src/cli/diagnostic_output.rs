//! How the CLI shows diagnostics: drawn over the source text by
//! `onnxtxt::report` (`FILE:LINE:COL`, colour only on a terminal,
//! `NO_COLOR` honoured), as one line per diagnostic for binary input, or, with
//! `--error-format json`, as one JSON object per line for editors and
//! scripts.

use std::cell::OnceCell;
use std::io::IsTerminal;
use std::ops::Range;

use onnxtxt::report::{severity_name, Renderer};
use onnxtxt::{tidy_message, Diagnostic, LineIndex, Severity};

/// How diagnostics are written to stderr.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ErrorFormat {
    /// Drawn over the source lines, for people.
    #[default]
    Human,
    /// One JSON object per diagnostic and line, for tools.
    Json,
}

/// Shows the diagnostics about `file`, whose text is known for text input
/// (spans are bytes of it) and unknown for binary input (spans are bytes
/// of the binary), in one format: the text's lines are read once, for all
/// of them.
pub(crate) struct Reporter<'a> {
    format: ErrorFormat,
    file: &'a str,
    text: Option<&'a str>,
    renderer: Renderer<'a>,
    lines: OnceCell<LineIndex>,
}

impl<'a> Reporter<'a> {
    pub(crate) fn new(format: ErrorFormat, file: &'a str, text: Option<&'a str>) -> Self {
        let renderer = match text {
            Some(text) => Renderer::text(file, text).colour(colour()),
            None => Renderer::binary(file),
        };
        Reporter {
            format,
            file,
            text,
            renderer,
            lines: OnceCell::new(),
        }
    }

    /// Writes one diagnostic to stderr, with `label` under its primary
    /// span.
    pub(crate) fn show(&self, level: Severity, diagnostic: &Diagnostic, label: &str) {
        match self.format {
            ErrorFormat::Json => eprintln!("{}", self.json(level, diagnostic)),
            ErrorFormat::Human => eprint!("{}", self.renderer.diagnostic(level, diagnostic, label)),
        }
    }

    fn json(&self, level: Severity, d: &Diagnostic) -> serde_json::Value {
        let position = |span: &Range<usize>| match self.text {
            Some(text) => {
                let lines = self.lines.get_or_init(|| LineIndex::new(text));
                let (line, column) = lines.line_column(text, span.start);
                serde_json::json!({"start": span.start, "end": span.end, "line": line, "column": column})
            }
            None => serde_json::json!({"start": span.start, "end": span.end}),
        };
        let tidy = |text: &str| tidy_message(text).into_owned();
        serde_json::json!({
            "level": severity_name(level),
            "code": d.code,
            "message": tidy(&d.message),
            "file": self.file,
            "path": d.path,
            "span": position(&d.span),
            "labels": d.labels.iter().map(|l| serde_json::json!({"span": position(&l.span), "message": tidy(&l.message)})).collect::<Vec<_>>(),
            "help": d.help.as_deref().map(tidy),
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_everything_a_tool_needs() {
        let d = Diagnostic::new("onnxtxt::parse::syntax", "expected `=>`", 4..6)
            .with_help("write `=>`");
        let reporter = Reporter::new(ErrorFormat::Json, "m.onnxtxt", Some("g ()\n-> ()"));
        let value = reporter.json(Severity::Error, &d);
        assert_eq!(value["span"]["line"], 1);
        assert_eq!(value["span"]["column"], 5);
        assert_eq!(value["code"], "onnxtxt::parse::syntax");
        assert_eq!(value["help"], "write `=>`");
    }
}
