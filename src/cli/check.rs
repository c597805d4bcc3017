//! `onnxtxt check`: parse a model (text or binary) and validate what the
//! grammar cannot: single assignment, definitions before use, duplicate
//! names, imported domains, attribute references, tensor constants.

use std::io::IsTerminal;
use std::path::PathBuf;

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};
use onnxtxt::check::{Finding, Severity};

use super::io::{read_input, Failure};

/// Arguments of `onnxtxt check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// The model, text or binary (`-` or nothing for standard input).
    pub(crate) input: Option<PathBuf>,
}

impl CheckArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        let input = read_input(self.input.as_deref())?;
        let name = input.name.clone();
        let findings = if looks_like_text(&input.bytes) {
            let bytes = input.bytes.clone();
            let (name, text) = input.into_text()?;
            match onnxtxt::check::check_text(&text) {
                Ok((_, findings)) => {
                    for finding in &findings {
                        render_located(&name, &text, finding);
                    }
                    findings
                }
                // Rarely a binary model looks like text (see `print`).
                Err(error) => match onnxtxt::decode_model(&bytes) {
                    Ok(model) => render_unlocated(&name, onnxtxt::check_model(&model)),
                    Err(_) => return Err(Failure::Invalid { name, text, error }),
                },
            }
        } else {
            let model = onnxtxt::decode_model(&input.bytes)
                .map_err(|error| Failure::Corrupt(binary_error(&input.name, &error)))?;
            render_unlocated(&input.name, onnxtxt::check_model(&model))
        };
        let errors = findings.iter().filter(|f| f.is_error()).count();
        let warnings = findings.len() - errors;
        let summary = format!(
            "{name}: {}, {}",
            plural(errors, "error"),
            plural(warnings, "warning")
        );
        if errors > 0 {
            Err(Failure::Corrupt(summary))
        } else {
            if warnings > 0 {
                eprintln!("{summary}");
            }
            Ok(())
        }
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Findings of a binary model, which has no text to show:
/// `FILE: graph.node[3] "x": message`.
fn render_unlocated(name: &str, findings: Vec<Finding>) -> Vec<Finding> {
    for finding in &findings {
        let kind = match finding.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let d = &finding.diagnostic;
        eprintln!("{kind}[{}]: {name}: {}", d.code, d.message);
        for related in &finding.related {
            eprintln!("  note: {}: {}", related.path, related.message);
        }
        if let Some(help) = &d.help {
            eprintln!("  help: {help}");
        }
    }
    findings
}

/// A finding over the text, drawn like the parser's diagnostics (see
/// `io::render`), as an error or a warning.
fn render_located(name: &str, text: &str, finding: &Finding) {
    let colour = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let config = Config::default()
        .with_index_type(IndexType::Byte)
        .with_color(colour);
    let clamp = |s: &std::ops::Range<usize>| s.start.min(text.len())..s.end.min(text.len());
    let d = &finding.diagnostic;
    let span = clamp(&d.span);
    let (kind, colour) = match finding.severity {
        Severity::Error => (ReportKind::Error, Color::Red),
        Severity::Warning => (ReportKind::Warning, Color::Yellow),
    };
    let mut spans: Vec<(std::ops::Range<usize>, &str, bool)> =
        vec![(span.clone(), &finding.summary, true)];
    spans.extend(
        d.labels
            .iter()
            .map(|l| (clamp(&l.span), l.message.as_str(), false)),
    );
    // ariadne starts a new section (repeating the report's location) for a
    // label on an earlier line than the one before it: add them in order.
    spans.sort_by_key(|(s, _, _)| s.start);
    let labels = spans.into_iter().map(|(s, message, primary)| {
        let label = Label::new((name, s)).with_message(message);
        if primary {
            label.with_color(colour)
        } else {
            label
        }
    });
    let mut report = Report::build(kind, (name, span))
        .with_config(config)
        .with_code(d.code)
        .with_message(&d.message)
        .with_labels(labels);
    if let Some(help) = &d.help {
        report = report.with_help(help);
    }
    // Rendering can only fail if stderr is closed; nothing is left to tell.
    let _ = report.finish().eprint((name, Source::from(text)));
}

/// `NAME: byte N: PATH: MESSAGE` for an error decoding a binary model.
fn binary_error(name: &str, error: &onnxtxt::Error) -> String {
    let lines: Vec<String> = error
        .diagnostics()
        .iter()
        .map(|d| {
            let path = d
                .path
                .as_deref()
                .map(|p| format!("{p}: "))
                .unwrap_or_default();
            format!("{name}: byte {}: {path}{}", d.span.start, d.message)
        })
        .collect();
    lines.join("\nerror: ")
}

/// Whether the input is text rather than protobuf (as `print` decides).
fn looks_like_text(bytes: &[u8]) -> bool {
    let start = onnxtxt::lexer::skip_blank(bytes, 0);
    !bytes.contains(&0)
        && std::str::from_utf8(bytes).is_ok()
        && matches!(
            bytes.get(start),
            Some(b'<' | b'@' | b'"' | b'_' | b'A'..=b'Z' | b'a'..=b'z')
        )
}
