//! The error type of the library: one or more located diagnostics.
//!
//! A [`Diagnostic`] is plain data (code, message, byte spans, help) that any
//! renderer can draw; [`Error`] carries the diagnostics of one failed call and
//! implements [`miette::Diagnostic`] so library users get rich reports for
//! free. `report` (feature `report`) draws the same data over the source
//! lines, as the CLI and the Python module show it.

use std::fmt;
use std::ops::Range;

/// A byte range in the input text.
pub type Span = Range<usize>;

/// The line and column, both counted from 1, the column in characters, of
/// byte `at` of `text` (of the character it falls in; of the end of the
/// text when it is past it). For more than one position in a text, a
/// [`LineIndex`] finds each without reading the text again.
///
/// ```
/// assert_eq!(onnxtxt::line_column("ab\ncé d", 7), (2, 4));
/// assert_eq!(onnxtxt::line_column("x", 0), (1, 1));
/// ```
pub fn line_column(text: &str, at: usize) -> (usize, usize) {
    LineIndex::new(text).line_column(text, at)
}

/// Where the lines of a text start, found once, so that the line and
/// column of each of many diagnostics cost a binary search and a scan of
/// one line rather than of the whole text.
///
/// ```
/// use onnxtxt::LineIndex;
///
/// let text = "ab\ncé d\n";
/// let index = LineIndex::new(text);
/// assert_eq!(index.line_column(text, 7), (2, 4));
/// assert_eq!(index.line_span(text, 1), 3..8);
/// ```
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// The byte each line starts at; the first is 0.
    starts: Vec<usize>,
}

impl LineIndex {
    /// The index of the lines of `text` (ended by `\n`).
    pub fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { starts }
    }

    /// The line of byte `at` (counted from 0).
    fn line_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&start| start <= at) - 1
    }

    /// The bytes of line `line` (counted from 0) of `text`, the text the
    /// index was made from, without its `\n`.
    pub fn line_span(&self, text: &str, line: usize) -> Span {
        let start = self.starts.get(line).copied().unwrap_or(text.len());
        let end = self
            .starts
            .get(line + 1)
            .map_or(text.len(), |next| next - 1);
        start..end.max(start)
    }

    /// The line and column of byte `at` of `text` (the text the index was
    /// made from), as [`line_column`] gives them.
    pub fn line_column(&self, text: &str, at: usize) -> (usize, usize) {
        let mut at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let line = self.line_of(at);
        let column = text[self.starts[line]..at].chars().count() + 1;
        (line + 1, column)
    }

    /// The line (counted from 0) byte `at` of `text` is on.
    pub fn line(&self, text: &str, at: usize) -> usize {
        self.line_of(at.min(text.len()))
    }
}

/// The most characters of a token quoted in a message (between
/// backticks): a longer one is cut there, and `…` marks the cut, so that a
/// 100 MB literal does not make a 100 MB message.
pub const MAX_QUOTED_CHARS: usize = 64;

/// The most characters of a message, a label or a help line; past it, the
/// rest is cut and `…` marks the cut.
pub const MAX_MESSAGE_CHARS: usize = 1024;

/// Whether `c` is a control character a message must not carry raw: C0
/// (but tab), DEL and C1, which could drive the terminal it is shown on.
pub(crate) fn is_control(c: char) -> bool {
    c != '\t' && (c.is_ascii_control() || ('\u{80}'..='\u{9f}').contains(&c))
}

/// `message` as it is shown (by [`Error`]'s and [`Diagnostic`]'s
/// `Display`, the `report` renderer and the command's JSON; the fields
/// keep the words as they were made): control characters escaped (`\u{1b}`), a
/// token quoted between backticks cut after [`MAX_QUOTED_CHARS`]
/// characters, the whole cut after [`MAX_MESSAGE_CHARS`].
///
/// ```
/// use onnxtxt::tidy_message;
///
/// assert_eq!(tidy_message("unexpected `\u{1b}[31m`"), "unexpected `\\u{1b}[31m`");
/// let long = format!("`{}` is too large", "9".repeat(1000));
/// assert_eq!(tidy_message(&long), format!("`{}…` is too large", "9".repeat(64)));
/// assert_eq!(tidy_message("fine"), "fine");
/// ```
pub fn tidy_message(message: &str) -> std::borrow::Cow<'_, str> {
    let long_quote = || {
        message
            .split('`')
            .skip(1)
            .step_by(2)
            .any(|quoted| quoted.chars().nth(MAX_QUOTED_CHARS).is_some())
    };
    if !message.contains(is_control)
        && message.chars().nth(MAX_MESSAGE_CHARS).is_none()
        && !long_quote()
    {
        return std::borrow::Cow::Borrowed(message);
    }
    let mut tidy = String::new();
    let mut shown = 0;
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            tidy.push('`');
        }
        for (n, c) in part.chars().enumerate() {
            if (i % 2 == 1 && n == MAX_QUOTED_CHARS) || shown == MAX_MESSAGE_CHARS {
                tidy.push('…');
                break;
            }
            shown += 1;
            if is_control(c) {
                tidy.extend(c.escape_unicode());
            } else {
                tidy.push(c);
            }
        }
        if shown == MAX_MESSAGE_CHARS {
            break;
        }
    }
    std::borrow::Cow::Owned(tidy)
}

/// A secondary location that helps explain a diagnostic, such as where an
/// unclosed bracket was opened.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Label {
    /// Where, in bytes.
    pub span: Span,
    /// What is there.
    pub message: String,
}

/// One problem found in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// A stable identifier such as `onnxtxt::parse::syntax`.
    pub code: &'static str,
    /// What is wrong, in terms of the grammar.
    pub message: String,
    /// The offending text, in bytes. For binary input it is empty and
    /// [`Diagnostic::path`] says where the problem is.
    pub span: Span,
    /// Where in the IR the problem is (e.g. `graph.node[3]`), when known.
    pub path: Option<String>,
    /// Other places worth showing.
    pub labels: Vec<Label>,
    /// How to fix it, when that is clear.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with only a code, a message and a span.
    pub fn new(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Diagnostic {
            code,
            message: message.into(),
            span,
            path: None,
            labels: Vec::new(),
            help: None,
        }
    }

    /// Adds a help line.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds a secondary label.
    #[must_use]
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }
}

/// The error of every fallible function in this crate: at least one
/// [`Diagnostic`], the first being the primary one.
///
/// It is one pointer wide, so `Result<T, Error>` stays small.
pub struct Error(Box<Inner>);

struct Inner {
    diagnostics: Vec<Diagnostic>,
    source: Option<miette::NamedSource<String>>,
    /// The line and column of the primary diagnostic, when the error was
    /// made from a text (see [`Error::located_in`]).
    position: Option<(usize, usize)>,
}

impl Error {
    /// An error made of `diagnostics`, which must not be empty.
    pub(crate) fn from_diagnostics(diagnostics: Vec<Diagnostic>) -> Self {
        debug_assert!(!diagnostics.is_empty());
        Error(Box::new(Inner {
            diagnostics,
            source: None,
            position: None,
        }))
    }

    /// The error with the line and column of its primary diagnostic in
    /// `text`, the text its spans are in, for [`Display`](fmt::Display).
    pub(crate) fn located_in(mut self, text: &str) -> Self {
        self.0.position = Some(line_column(text, self.primary().span.start));
        self
    }

    /// An error with a single diagnostic.
    pub(crate) fn single(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Self::from_diagnostics(vec![Diagnostic::new(code, message, span)])
    }

    /// Every diagnostic, primary first.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.0.diagnostics
    }

    /// The primary diagnostic.
    pub fn primary(&self) -> &Diagnostic {
        &self.0.diagnostics[0]
    }

    /// The primary diagnostic's span.
    pub fn span(&self) -> Span {
        self.primary().span.clone()
    }

    /// Attaches the input text and its name so `miette` can draw the source
    /// lines under the message.
    #[must_use]
    pub fn with_source(mut self, name: impl AsRef<str>, text: impl Into<String>) -> Self {
        self.0.source = Some(miette::NamedSource::new(name, text.into()));
        self
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.diagnostics()).finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let primary = self.primary();
        write!(f, "{}", tidy_message(&primary.message))?;
        if let Some(path) = &primary.path {
            write!(f, " (at {path})")?;
        } else if let Some((line, column)) = self.0.position {
            write!(f, " (at line {line}, column {column})")?;
        } else if primary.span.start != primary.span.end || primary.span.start != 0 {
            write!(
                f,
                " (at bytes {}..{})",
                primary.span.start, primary.span.end
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&tidy_message(&self.message))
    }
}

impl std::error::Error for Diagnostic {}

fn labels_of(d: &Diagnostic) -> impl Iterator<Item = miette::LabeledSpan> + '_ {
    let primary = miette::LabeledSpan::new_primary_with_span(Some("here".into()), d.span.clone());
    std::iter::once(primary).chain(
        d.labels
            .iter()
            .map(|l| miette::LabeledSpan::new_with_span(Some(l.message.clone()), l.span.clone())),
    )
}

impl miette::Diagnostic for Diagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        Some(Box::new(labels_of(self)))
    }
}

impl miette::Diagnostic for Error {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.primary().code))
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.primary()
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        Some(Box::new(labels_of(self.primary())))
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.0.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        let rest = &self.0.diagnostics[1..];
        (!rest.is_empty())
            .then(|| Box::new(rest.iter().map(|d| d as &dyn miette::Diagnostic)) as Box<_>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_pointer_wide() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn miette_sees_code_help_and_labels() {
        use miette::Diagnostic as _;
        let error = Error::from_diagnostics(vec![Diagnostic::new(
            "onnxtxt::parse::syntax",
            "expected `=>`",
            3..5,
        )
        .with_help("write `=>` between the lists")
        .with_label(0..1, "list opened here")]);
        assert_eq!(error.code().unwrap().to_string(), "onnxtxt::parse::syntax");
        assert_eq!(
            error.help().unwrap().to_string(),
            "write `=>` between the lists"
        );
        let spans: Vec<_> = error
            .labels()
            .unwrap()
            .map(|l| (l.offset(), l.len()))
            .collect();
        assert_eq!(spans, vec![(3, 2), (0, 1)]);
        assert_eq!(error.to_string(), "expected `=>` (at bytes 3..5)");
        let error = error.located_in("g\n  é=>");
        assert_eq!(error.to_string(), "expected `=>` (at line 2, column 2)");
    }

    #[test]
    fn parse_errors_say_where_by_line_and_column() {
        let error = crate::parse_graph("g (float x)\n  = (float y) {}").unwrap_err();
        assert!(
            error.to_string().ends_with("(at line 2, column 3)"),
            "{error}"
        );
        let error = crate::format("# é\ng (x) => (y) { y = Relu(x$) }").unwrap_err();
        assert!(
            error.to_string().ends_with("(at line 2, column 26)"),
            "{error}"
        );
    }
}
