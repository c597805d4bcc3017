//! Diagnostics drawn as the `onnxtxt` command draws them, into a string:
//! over the source lines of a text (`FILE:LINE:COL`, with ariadne), or as
//! one line with `note:` and `help:` lines for a binary model, which has
//! no lines to draw. Colour is the caller's choice (off by default), so
//! the same text can go to a terminal, a log or an exception message.
//!
//! ```
//! use onnxtxt::report::Renderer;
//!
//! let text = "g (float x) => (float y) {\n  y = Relu(x$)\n}";
//! let error = onnxtxt::parse_graph(text).unwrap_err();
//! let drawn = Renderer::text("model.onnxtxt", text).error(&error);
//! assert!(drawn.starts_with("[onnxtxt::parse::character] Error: unexpected character `$`\n"));
//! assert!(drawn.contains("model.onnxtxt:2:13"));
//! assert!(drawn.contains(r#"Help: a name that is not a plain identifier must be quoted: "x$""#));
//! ```

use std::fmt::Write as _;
use std::ops::Range;

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};

use crate::check::{Finding, Severity};
use crate::error::{Diagnostic, Error};

/// Draws the diagnostics of one input: a text (spans are bytes of it) or a
/// binary model (spans are bytes of the binary), named `file`.
#[derive(Debug, Clone, Copy)]
pub struct Renderer<'a> {
    file: &'a str,
    text: Option<&'a str>,
    colour: bool,
}

impl<'a> Renderer<'a> {
    /// For diagnostics about `text`, drawn over its lines.
    pub fn text(file: &'a str, text: &'a str) -> Self {
        Renderer {
            file,
            text: Some(text),
            colour: false,
        }
    }

    /// For diagnostics about a binary model, one line each (by byte offset
    /// and IR path).
    pub fn binary(file: &'a str) -> Self {
        Renderer {
            file,
            text: None,
            colour: false,
        }
    }

    /// With `true`, ANSI colours (for a terminal). Off by default.
    #[must_use]
    pub fn colour(mut self, colour: bool) -> Self {
        self.colour = colour;
        self
    }

    /// Every diagnostic of `error`, each drawn as an error, one after the
    /// other.
    pub fn error(&self, error: &Error) -> String {
        error
            .diagnostics()
            .iter()
            .map(|d| self.diagnostic(Severity::Error, d, &d.message))
            .collect()
    }

    /// One finding of [`crate::check`], labelled with its summary.
    pub fn finding(&self, finding: &Finding) -> String {
        self.diagnostic(finding.severity, &finding.diagnostic, &finding.summary)
    }

    /// One diagnostic, with `label` under its primary span (a text only).
    /// The result ends with a newline.
    pub fn diagnostic(&self, severity: Severity, diagnostic: &Diagnostic, label: &str) -> String {
        match self.text {
            Some(text) => self.draw(text, severity, diagnostic, label),
            None => self.one_line(severity, diagnostic),
        }
    }

    /// `error[code]: FILE: byte N: PATH: message`, with `note:` and
    /// `help:` lines.
    fn one_line(&self, severity: Severity, d: &Diagnostic) -> String {
        let mut line = format!("{}[{}]: {}: ", severity_name(severity), d.code, self.file);
        if !d.span.is_empty() {
            let _ = write!(line, "byte {}: ", d.span.start);
        }
        // Messages that already name their item (`graph.node[3] "x": ...`)
        // are not prefixed with its path again.
        if let Some(path) = &d.path {
            let mut named = path
                .match_indices(['.', '['])
                .map(|(i, _)| &path[..i])
                .chain([path.as_str()]);
            if !named.any(|item| !item.is_empty() && d.message.starts_with(item)) {
                let _ = write!(line, "{path}: ");
            }
        }
        line.push_str(&d.message);
        for label in &d.labels {
            let _ = write!(line, "\n  note: {}", label.message);
        }
        if let Some(help) = &d.help {
            let _ = write!(line, "\n  help: {help}");
        }
        line.push('\n');
        line
    }

    /// The diagnostic drawn over the source lines.
    fn draw(&self, text: &str, severity: Severity, d: &Diagnostic, label: &str) -> String {
        let config = Config::default()
            .with_index_type(IndexType::Byte)
            .with_color(self.colour);
        let file = self.file;
        let clamp = |s: &Range<usize>| s.start.min(text.len())..s.end.min(text.len());
        let span = clamp(&d.span);
        let (kind, colour) = match severity {
            Severity::Error => (ReportKind::Error, Color::Red),
            Severity::Warning => (ReportKind::Warning, Color::Yellow),
        };
        let mut spans: Vec<(Range<usize>, &str, bool)> = vec![(span.clone(), label, true)];
        spans.extend(
            d.labels
                .iter()
                .map(|l| (clamp(&l.span), l.message.as_str(), false)),
        );
        // ariadne starts a new section (repeating the report's location)
        // for a label on an earlier line than the one before it: add them
        // in order.
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
        let mut out = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = report.finish().write((file, Source::from(text)), &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// How the severity is written in a one-line diagnostic.
pub fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_drawn_over_its_lines_without_colour() {
        let text = "<ir_version: 10, opset_import: [\"\": 21]>\ng (float x) => (float y) {\n  y = Relu(z)\n}";
        let (_, findings) = crate::check::check_text(text).unwrap();
        let drawn = Renderer::text("m.onnxtxt", text).finding(&findings[0]);
        assert!(!drawn.contains('\x1b'), "{drawn}");
        assert!(drawn.starts_with("[onnxtxt::check::undefined_value] Error: "));
        assert!(drawn.contains("─[ m.onnxtxt:3:12 ]"), "{drawn}");
        assert!(drawn.contains(" 3 │   y = Relu(z)\n"), "{drawn}");
        assert!(drawn.contains("`z` is used but never defined"), "{drawn}");
        assert!(drawn.ends_with('\n'));
        let coloured = Renderer::text("m.onnxtxt", text)
            .colour(true)
            .finding(&findings[0]);
        assert!(coloured.contains('\x1b'));
    }

    #[test]
    fn every_diagnostic_of_an_error_is_drawn() {
        let text = "g (float x) => (float y) { y = Relu(x$) z = Relu(x%) }";
        let error = crate::parse_graph(text).unwrap_err();
        assert_eq!(error.diagnostics().len(), 2);
        let drawn = Renderer::text("<text>", text).error(&error);
        assert_eq!(drawn.matches("] Error: unexpected character").count(), 2);
        assert!(
            drawn.contains("<text>:1:38") && drawn.contains("<text>:1:51"),
            "{drawn}"
        );
    }

    #[test]
    fn a_binary_diagnostic_is_one_line_by_byte_and_path() {
        let model = crate::parse_model("g (float x) => (float y) { y = Relu(x) }").unwrap();
        let bytes = prost::Message::encode_to_vec(&model);
        let error = crate::decode_model(&bytes[..bytes.len() - 2]).unwrap_err();
        let drawn = Renderer::binary("m.onnx").error(&error);
        let d = error.primary();
        assert_eq!(
            drawn,
            format!(
                "error[{}]: m.onnx: byte {}: {}: {}\n  help: {}\n",
                d.code,
                d.span.start,
                d.path.as_deref().unwrap(),
                d.message,
                d.help.as_deref().unwrap()
            )
        );
    }
}
