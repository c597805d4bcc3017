//! What the model checks report: a [`Finding`] (plain data: severity,
//! diagnostic with its IR path, related places, help). [`crate::check`]
//! collects findings from its passes and [`crate::infer`] makes its own;
//! both build on this file, which builds on nothing but [`crate::error`]
//! and the IR's types; so do the words messages name nodes with.
//!
//! ```
//! let findings = onnxtxt::check_model(&onnxtxt::parse_model(r#"
//!     <ir_version: 10, opset_import: ["": 21]>
//!     g (float x) => (float y) { y = Relu(z) }
//! "#)?);
//! assert_eq!(findings[0].severity, onnxtxt::Severity::Error);
//! assert!(findings[0].is_error());
//! # Ok::<(), onnxtxt::Error>(())
//! ```

use std::fmt::Write;

use crate::error::Diagnostic;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Severity {
    /// The model is invalid (`onnxtxt check` exits with 1).
    Error,
    /// The model is valid but probably not what was meant.
    Warning,
}

/// Another IR item worth showing with a finding, such as the first
/// definition of a value assigned twice.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Related {
    /// Its IR path.
    pub path: String,
    /// What it is.
    pub message: String,
}

/// One problem found by [`check_model`](crate::check::check_model) or by
/// inference ([`crate::infer`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The diagnostic: `message` is `SUBJECT: SUMMARY` (the subject being
    /// the IR path of the construct and its name, like
    /// `graph.node[12] "Conv_3"`), `path` the precise IR path. Its `span`
    /// is empty until [`locate`](crate::check::locate) (or
    /// [`check_text`](crate::check::check_text)) fills it; `labels` are
    /// filled from the `related` places the same way.
    pub diagnostic: Diagnostic,
    /// The message without its subject (short enough for a label under
    /// the offending text).
    pub summary: String,
    /// Other places worth showing.
    pub related: Vec<Related>,
}

impl Finding {
    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Sets the help line.
    pub(crate) fn help(&mut self, help: impl Into<String>) -> &mut Self {
        self.diagnostic.help = Some(help.into());
        self
    }

    /// Adds a related place.
    pub(crate) fn related(
        &mut self,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> &mut Self {
        self.related.push(Related {
            path: path.into(),
            message: message.into(),
        });
        self
    }
}

/// How a message names a node: its path and its name, or its operator when
/// it has no name (`graph.node[3] "conv1"`, `graph.node[4] (Relu)`).
pub(crate) fn node_subject(node: &crate::proto::NodeProto, path: &str) -> String {
    match (node.name.as_deref(), node.op_type.as_deref()) {
        (Some(name), _) if !name.is_empty() => named_subject(path, name),
        (_, Some(op)) if !op.is_empty() => format!("{path} ({op})"),
        _ => path.to_string(),
    }
}

/// How a message names an item with a name: `graph.input[0] "x"`.
pub(crate) fn named_subject(path: &str, name: &str) -> String {
    let mut subject = String::with_capacity(path.len() + name.len() + 3);
    subject.push_str(path);
    subject.push(' ');
    push_quoted(&mut subject, name);
    subject
}

/// `name` in double quotes, escaped as Rust escapes strings.
pub(crate) fn quoted(name: &str) -> String {
    let mut text = String::with_capacity(name.len() + 2);
    push_quoted(&mut text, name);
    text
}

/// Adds `name` to `text` as [`quoted`] writes it (`{name:?}`): a name of
/// printable ASCII without quotes or backslashes, as most are, is copied
/// whole, not escaped a character at a time.
fn push_quoted(text: &mut String, name: &str) {
    let plain = name
        .bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\');
    if plain {
        text.push('"');
        text.push_str(name);
        text.push('"');
    } else {
        let _ = write!(text, "{name:?}");
    }
}

/// A diagnostic's message: what it is about, then what is wrong with it
/// (`{subject}: {summary}`).
pub(crate) fn message(subject: &str, summary: &str) -> String {
    let mut message = String::with_capacity(subject.len() + 2 + summary.len());
    message.push_str(subject);
    message.push_str(": ");
    message.push_str(summary);
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_and_subjects_written_as_the_formatter_writes_them() {
        let names = [
            "x",
            "/blocks.0/conv/Conv_output_0",
            "",
            "it's",
            "say \"hi\"",
            "back\\slash",
            "tab\there",
            "new\nline",
            "\u{7f}",
            "é",
            "e\u{301}",
            "\u{200b}",
            "~ !",
        ];
        for name in names {
            assert_eq!(quoted(name), format!("{name:?}"));
            assert_eq!(
                named_subject("graph.node[1]", name),
                format!("graph.node[1] {name:?}")
            );
            assert_eq!(message(name, "it is wrong"), format!("{name}: it is wrong"));
        }
    }
}
