//! How the CLI shows diagnostics: drawn over the source text with ariadne
//! (`FILE:LINE:COL`, colour only on a terminal, `NO_COLOR` honoured), as
//! one line per diagnostic for binary input, or, with
//! `--error-format json`, as one JSON object per line for editors and
//! scripts.

use std::io::IsTerminal;
use std::ops::Range;

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};
use onnxtxt::{line_column, Diagnostic};

/// How diagnostics are written to stderr.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ErrorFormat {
    /// Drawn over the source lines, for people.
    #[default]
    Human,
    /// One JSON object per diagnostic and line, for tools.
    Json,
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    Error,
    Warning,
}

impl Level {
    fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
        }
    }
}

/// One diagnostic about `file`, whose `text` is known for text input (spans
/// are bytes of it) and unknown for binary input (spans are bytes of the
/// binary). `label` is the text under the primary span.
pub(crate) struct Shown<'a> {
    pub(crate) file: &'a str,
    pub(crate) text: Option<&'a str>,
    pub(crate) level: Level,
    pub(crate) diagnostic: &'a Diagnostic,
    pub(crate) label: &'a str,
}

/// Writes one diagnostic to stderr in `format`.
pub(crate) fn show(format: ErrorFormat, shown: &Shown<'_>) {
    match (format, shown.text) {
        (ErrorFormat::Json, _) => eprintln!("{}", json(shown)),
        (ErrorFormat::Human, Some(text)) => draw(shown, text),
        (ErrorFormat::Human, None) => eprintln!("{}", one_line(shown)),
    }
}

/// Writes a message that belongs to no diagnostic (an I/O error, a
/// summary) in `format`.
pub(crate) fn show_message(format: ErrorFormat, level: Level, message: &str) {
    match format {
        ErrorFormat::Human => eprintln!("{}: {message}", level.name()),
        ErrorFormat::Json => eprintln!(
            "{}",
            serde_json::json!({"level": level.name(), "message": message})
        ),
    }
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
        "level": shown.level.name(),
        "code": d.code,
        "message": d.message,
        "file": shown.file,
        "path": d.path,
        "span": position(&d.span),
        "labels": d.labels.iter().map(|l| serde_json::json!({"span": position(&l.span), "message": l.message})).collect::<Vec<_>>(),
        "help": d.help,
    })
}

/// `error[code]: FILE: byte N: PATH: message`, with `note:` and `help:`
/// lines: for binary input, which has no source lines to draw.
fn one_line(shown: &Shown<'_>) -> String {
    let d = shown.diagnostic;
    let mut line = format!("{}[{}]: {}: ", shown.level.name(), d.code, shown.file);
    if !d.span.is_empty() {
        line.push_str(&format!("byte {}: ", d.span.start));
    }
    // Messages that already name their item (`graph.node[3] "x": ...`)
    // are not prefixed with its path again.
    if let Some(path) = &d.path {
        let named = path
            .match_indices(['.', '['])
            .map(|(i, _)| &path[..i])
            .chain([path.as_str()]);
        if !named
            .into_iter()
            .any(|item| !item.is_empty() && d.message.starts_with(item))
        {
            line.push_str(&format!("{path}: "));
        }
    }
    line.push_str(&d.message);
    for label in &d.labels {
        line.push_str(&format!("\n  note: {}", label.message));
    }
    if let Some(help) = &d.help {
        line.push_str(&format!("\n  help: {help}"));
    }
    line
}

/// Draws the diagnostic over the source lines.
fn draw(shown: &Shown<'_>, text: &str) {
    let colour = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let config = Config::default()
        .with_index_type(IndexType::Byte)
        .with_color(colour);
    let file = shown.file;
    let clamp = |s: &Range<usize>| s.start.min(text.len())..s.end.min(text.len());
    let d = shown.diagnostic;
    let span = clamp(&d.span);
    let (kind, colour) = match shown.level {
        Level::Error => (ReportKind::Error, Color::Red),
        Level::Warning => (ReportKind::Warning, Color::Yellow),
    };
    let mut spans: Vec<(Range<usize>, &str, bool)> = vec![(span.clone(), shown.label, true)];
    spans.extend(
        d.labels
            .iter()
            .map(|l| (clamp(&l.span), l.message.as_str(), false)),
    );
    // ariadne starts a new section (repeating the report's location) for a
    // label on an earlier line than the one before it: add them in order.
    spans.sort_by_key(|(s, _, _)| s.start);
    let labels = spans.into_iter().map(|(s, message, primary)| {
        let label = Label::new((file, s)).with_message(message);
        if primary {
            label.with_color(colour)
        } else {
            label
        }
    });
    let mut report = Report::build(kind, (file, span))
        .with_config(config)
        .with_code(d.code)
        .with_message(&d.message)
        .with_labels(labels);
    if let Some(help) = &d.help {
        report = report.with_help(help);
    }
    // Rendering can only fail if stderr is closed; nothing is left to tell.
    let _ = report.finish().eprint((file, Source::from(text)));
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
            level: Level::Error,
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
