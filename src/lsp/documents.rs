//! The open documents: each one's text and version, changed as the client
//! edits it, and its analysis, made when first asked for after a change
//! (none past [`MAX_ANALYSED_BYTES`]).

use std::cell::OnceCell;

use lsp_types::TextDocumentContentChangeEvent;

use super::line_index::LineIndex;
use crate::analysis::Analysis;

/// The largest document analysed, in bytes (4 MiB). The analysis runs
/// after every change and costs time and memory with the nodes and names
/// of the text: 2.3 s a keystroke for 4.5 MB of nodes (50,000), 4.7 s for
/// 8.1 MB, on the 2-core VM under load 12 (docs/editors.md). Past this
/// size a document gets one diagnostic saying so, and requests about it
/// fail, instead of the editor waiting seconds after each keystroke.
pub const MAX_ANALYSED_BYTES: usize = 4 << 20;

/// One open document.
#[derive(Debug)]
pub struct Document {
    version: i32,
    text: String,
    lines: LineIndex,
    analysis: OnceCell<Analysis>,
}

impl Document {
    /// A document opened with `text` at `version`.
    pub fn new(text: String, version: i32) -> Self {
        Document {
            version,
            lines: LineIndex::new(&text),
            text,
            analysis: OnceCell::new(),
        }
    }

    /// Its version, as the client numbers them.
    pub fn version(&self) -> i32 {
        self.version
    }

    /// Its text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its line index.
    pub fn lines(&self) -> &LineIndex {
        &self.lines
    }

    /// Its analysis, made now if it has not been since the last change;
    /// `None` for a document larger than [`MAX_ANALYSED_BYTES`].
    pub fn analysis(&self) -> Option<&Analysis> {
        (self.text.len() <= MAX_ANALYSED_BYTES)
            .then(|| self.analysis.get_or_init(|| Analysis::new(&self.text)))
    }

    /// Applies the client's `changes`, in order, and takes `version`. A
    /// change with a range replaces that range (clamped to the text); one
    /// without replaces the whole text.
    pub fn change(&mut self, changes: Vec<TextDocumentContentChangeEvent>, version: i32) {
        for change in changes {
            match change.range {
                Some(range) => {
                    let span = self.lines.span(&self.text, range);
                    self.text.replace_range(span, &change.text);
                }
                None => self.text = change.text,
            }
            self.lines = LineIndex::new(&self.text);
        }
        self.version = version;
        self.analysis = OnceCell::new();
    }
}

#[cfg(test)]
mod tests {
    use lsp_types::{Position, Range};

    use super::*;

    fn edit(range: Option<((u32, u32), (u32, u32))>, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range
                .map(|((a, b), (c, d))| Range::new(Position::new(a, b), Position::new(c, d))),
            range_length: None,
            text: text.to_owned(),
        }
    }

    #[test]
    fn changes_apply_in_order_and_clamp() {
        let mut document = Document::new("g () => () {\n}\n".into(), 1);
        document.change(
            vec![
                edit(Some(((0, 12), (0, 12))), "\n  y = \"é\""),
                edit(Some(((1, 9), (1, 9))), "x"),
                edit(Some(((9, 0), (9, 4))), "#"),
            ],
            2,
        );
        assert_eq!(document.text(), "g () => () {\n  y = \"é\"x\n}\n#");
        assert_eq!(document.version(), 2);
        document.change(vec![edit(None, "g")], 3);
        assert_eq!(document.text(), "g");
    }
}
