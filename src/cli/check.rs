//! `onnxtxt check`: parse a model (text or binary) and validate what the
//! grammar cannot: single assignment, definitions before use, duplicate
//! names, imported domains, attribute references, tensor constants.

use std::path::PathBuf;

use onnxtxt::check::Finding;

use super::io::{load_model, read_input, Failure};
use super::report::{show, show_message, ErrorFormat, Level, Shown};

/// Arguments of `onnxtxt check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// The model, text or binary (`-` or nothing for standard input).
    pub(crate) input: Option<PathBuf>,
}

impl CheckArgs {
    /// Checks the model and shows its findings; errors fail the command,
    /// warnings do not.
    pub(crate) fn run(self, format: ErrorFormat) -> Result<(), Failure> {
        let loaded = load_model(read_input(self.input.as_deref())?)?;
        let mut findings = onnxtxt::check_model(&loaded.model);
        if let Some((_, map)) = &loaded.text {
            onnxtxt::check::locate(map, &mut findings);
        }
        let text = loaded.text.as_ref().map(|(text, _)| text.as_str());
        for finding in &findings {
            show(format, &shown(&loaded.name, text, finding));
        }
        let errors = findings.iter().filter(|f| f.is_error()).count();
        let warnings = findings.len() - errors;
        let summary = format!(
            "{}: {}, {}",
            loaded.name,
            plural(errors, "error"),
            plural(warnings, "warning")
        );
        if errors > 0 {
            Err(Failure::Corrupt(summary))
        } else {
            if warnings > 0 {
                show_message(format, Level::Warning, &summary);
            }
            Ok(())
        }
    }
}

fn shown<'a>(file: &'a str, text: Option<&'a str>, finding: &'a Finding) -> Shown<'a> {
    let level = if finding.is_error() {
        Level::Error
    } else {
        Level::Warning
    };
    Shown {
        file,
        text,
        level,
        diagnostic: &finding.diagnostic,
        label: &finding.summary,
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
