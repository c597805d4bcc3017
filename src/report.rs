//! Diagnostics drawn as the `onnxtxt` command draws them, into a string:
//! over the source lines of a text (`FILE:LINE:COL`, with ariadne), or as
//! one line with `note:` and `help:` lines for a binary model, which has
//! no lines to draw. Colour is the caller's choice (off by default), so
//! the same text can go to a terminal, a log or an exception message.
//!
//! What a hostile text could do to a terminal or a log is bounded: control
//! characters in the source lines are drawn as visible symbols (and
//! escaped in messages, see [`crate::tidy_message`]); a line longer than
//! [`MAX_DRAWN_LINE`] bytes is not drawn, the diagnostic is one line with
//! its `FILE:LINE:COL`; and a renderer reads its text's lines once, for
//! every diagnostic it draws.
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

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt::Write as _;
use std::ops::Range;

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};

use crate::check::{Finding, Severity};
use crate::error::{is_control, tidy_message, Diagnostic, Error, LineIndex};

/// The longest source line drawn, in bytes: a diagnostic on a longer one
/// is shown as one line with its position, so that a text that is one
/// 100 MB line does not print it again for each diagnostic.
pub const MAX_DRAWN_LINE: usize = 1000;

/// Draws the diagnostics of one input: a text (spans are bytes of it) or a
/// binary model (spans are bytes of the binary), named `file`.
#[derive(Debug, Clone)]
pub struct Renderer<'a> {
    file: &'a str,
    text: Option<&'a str>,
    colour: bool,
    /// The text's lines, and the text as drawn, made for the first
    /// diagnostic and kept for the others.
    lines: OnceCell<Lines<'a>>,
}

/// What drawing a text's diagnostics needs of it, made once.
#[derive(Debug, Clone)]
struct Lines<'a> {
    index: LineIndex,
    /// The text with its control characters but tab and line ends made
    /// visible ([`visible`]), as ariadne draws it.
    source: Source<Cow<'a, str>>,
    /// Where the text has a character `source` shows with more bytes: the
    /// byte after it, and how many bytes were added up to there.
    shifts: Vec<(usize, usize)>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let (drawn, shifts) = visible(text);
        Lines {
            index: LineIndex::new(text),
            source: Source::from(drawn),
            shifts,
        }
    }

    /// Where byte `at` of the text is in `source`.
    fn shifted(&self, at: usize) -> usize {
        let before = self.shifts.partition_point(|&(end, _)| end <= at);
        at + before.checked_sub(1).map_or(0, |i| self.shifts[i].1)
    }
}

/// `text` with the control characters that could drive a terminal
/// replaced by visible symbols (C0 and DEL by their control pictures,
/// `␛`; C1 by `�`), tab, line feed and the carriage return before one
/// kept; and where bytes were added (see [`Lines::shifts`]).
fn visible(text: &str) -> (Cow<'_, str>, Vec<(usize, usize)>) {
    if !has_hostile(text) {
        return (Cow::Borrowed(text), Vec::new());
    }
    let mut drawn = String::with_capacity(text.len());
    let mut shifts = Vec::new();
    let mut added = 0;
    for (i, c) in text.char_indices() {
        if !is_hostile(text, i, c) {
            drawn.push(c);
            continue;
        }
        let symbol = match c as u32 {
            code @ 0..=0x1f => char::from_u32(0x2400 + code).unwrap_or('\u{fffd}'),
            0x7f => '\u{2421}',
            _ => '\u{fffd}',
        };
        drawn.push(symbol);
        added += symbol.len_utf8() - c.len_utf8();
        shifts.push((i + c.len_utf8(), added));
    }
    (Cow::Owned(drawn), shifts)
}

/// Whether the character `c` at byte `i` of `text` is one [`visible`]
/// replaces: a control character but tab, line feed, and a carriage
/// return before a line feed.
fn is_hostile(text: &str, i: usize, c: char) -> bool {
    is_control(c) && c != '\n' && !(c == '\r' && text[i + 1..].starts_with('\n'))
}

/// Whether `text` has a character [`is_hostile`] says is, read byte by
/// byte rather than character by character (most texts have none, and a
/// big one is read whole): C0 and DEL are single bytes, C1's characters
/// (U+0080 to U+009F) the bytes `C2 80` to `C2 9F`.
fn has_hostile(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &byte)| match byte {
        b'\t' | b'\n' => false,
        b'\r' => bytes.get(i + 1) != Some(&b'\n'),
        0..=0x1f | 0x7f => true,
        0xc2 => matches!(bytes.get(i + 1), Some(0x80..=0x9f)),
        _ => false,
    })
}

impl<'a> Renderer<'a> {
    /// For diagnostics about `text`, drawn over its lines.
    pub fn text(file: &'a str, text: &'a str) -> Self {
        Renderer {
            file,
            text: Some(text),
            colour: false,
            lines: OnceCell::new(),
        }
    }

    /// For diagnostics about a binary model, one line each (by byte offset
    /// and IR path).
    pub fn binary(file: &'a str) -> Self {
        Renderer {
            file,
            text: None,
            colour: false,
            lines: OnceCell::new(),
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
        let Some(text) = self.text else {
            let at =
                (!diagnostic.span.is_empty()).then(|| format!("byte {}", diagnostic.span.start));
            return self.one_line(severity, diagnostic, at);
        };
        let lines = self.lines.get_or_init(|| Lines::new(text));
        let spans =
            std::iter::once(&diagnostic.span).chain(diagnostic.labels.iter().map(|l| &l.span));
        let too_long = spans.flat_map(|s| [s.start, s.end]).any(|at| {
            let line = lines.index.line(text, at);
            lines.index.line_span(text, line).len() > MAX_DRAWN_LINE
        });
        if too_long {
            let (line, column) = lines.index.line_column(text, diagnostic.span.start);
            return self.one_line(severity, diagnostic, Some(format!("{line}:{column}")));
        }
        self.draw(text, lines, severity, diagnostic, label)
    }

    /// `error[code]: FILE: AT: PATH: message`, with `note:` and `help:`
    /// lines; `at` is a byte offset or a line and column.
    fn one_line(&self, severity: Severity, d: &Diagnostic, at: Option<String>) -> String {
        let mut line = format!("{}[{}]: {}: ", severity_name(severity), d.code, self.file);
        if let Some(at) = at {
            let _ = write!(line, "{at}: ");
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
        line.push_str(&tidy_message(&d.message));
        for label in &d.labels {
            let _ = write!(line, "\n  note: {}", tidy_message(&label.message));
        }
        if let Some(help) = &d.help {
            let _ = write!(line, "\n  help: {}", tidy_message(help));
        }
        line.push('\n');
        line
    }

    /// The diagnostic drawn over the source lines.
    fn draw(
        &self,
        text: &str,
        lines: &Lines<'_>,
        severity: Severity,
        d: &Diagnostic,
        label: &str,
    ) -> String {
        let config = Config::default()
            .with_index_type(IndexType::Byte)
            .with_color(self.colour);
        let file = self.file;
        let clamp = |s: &Range<usize>| {
            lines.shifted(s.start.min(text.len()))..lines.shifted(s.end.min(text.len()))
        };
        let span = clamp(&d.span);
        let (kind, colour) = match severity {
            Severity::Error => (ReportKind::Error, Color::Red),
            Severity::Warning => (ReportKind::Warning, Color::Yellow),
        };
        let mut spans: Vec<(Range<usize>, Cow<'_, str>, bool)> =
            vec![(span.clone(), tidy_message(label), true)];
        spans.extend(
            d.labels
                .iter()
                .map(|l| (clamp(&l.span), tidy_message(&l.message), false)),
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
            .with_message(tidy_message(&d.message))
            .with_labels(labels);
        if let Some(help) = &d.help {
            report = report.with_help(tidy_message(help));
        }
        let mut out = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = report.finish().write((file, &lines.source), &mut out);
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
    fn control_characters_are_drawn_visible_and_spans_stay_in_place() {
        let text = "g (float x) => (float y) {\n  y = Relu(x\u{1b}[2J\u{7}\u{9b}q)\n}";
        let error = crate::parse_graph(text).unwrap_err();
        let drawn = Renderer::text("m.onnxtxt", text).error(&error);
        assert!(!drawn.contains(['\u{1b}', '\u{7}', '\u{9b}']), "{drawn}");
        assert!(drawn.contains("Relu(x␛[2J␇\u{fffd}q)"), "{drawn}");
        assert!(drawn.contains("unexpected character `\\u{1b}`"), "{drawn}");
        // The label stays under the character it is about.
        let line = drawn.lines().find(|l| l.contains("Relu(x␛")).unwrap();
        let mark = drawn.lines().find(|l| l.contains('┬')).unwrap();
        let column = |l: &str, c: char| l.chars().position(|x| x == c).unwrap();
        assert_eq!(column(line, '␛'), column(mark, '┬'), "{drawn}");
    }

    #[test]
    fn the_byte_scan_finds_what_the_character_scan_finds() {
        let pieces: Vec<String> = (0..=0xa0u32)
            .filter_map(char::from_u32)
            .map(String::from)
            .chain(["é", "日", "\u{2028}", "\r\n", "a"].map(String::from))
            .collect();
        let by_character = |text: &str| text.char_indices().any(|(i, c)| is_hostile(text, i, c));
        for first in &pieces {
            for second in &pieces {
                for text in [format!("{first}{second}"), format!("x{first}{second}y")] {
                    assert_eq!(has_hostile(&text), by_character(&text), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn a_diagnostic_on_a_line_too_long_to_draw_is_one_line() {
        let text = format!(
            "g () => (y) {{ y = Relu(x) {}$ }}",
            " ".repeat(MAX_DRAWN_LINE)
        );
        let error = crate::parse_graph(&text).unwrap_err();
        let drawn = Renderer::text("m.onnxtxt", &text).error(&error);
        assert_eq!(
            drawn,
            format!(
                "error[onnxtxt::parse::character]: m.onnxtxt: 1:{}: unexpected character `$`\n",
                MAX_DRAWN_LINE + 27
            )
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
