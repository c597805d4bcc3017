//! Comments carried from source text to printed text by `onnxtxt fmt`:
//! each is attached to an IR path, as a line before the item, a comment at
//! the end of its line, or a line before the closing brace of a node list.

use std::collections::HashMap;

use super::sink::Sink;

/// Comments keyed by the IR path of the item they belong to (the paths
/// the printer tracks, e.g. `graph.node[3]`, `functions[0]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Comments {
    /// Lines written before the item.
    pub(crate) leading: HashMap<String, Vec<String>>,
    /// Written after the item, at the end of its (last) line.
    pub(crate) trailing: HashMap<String, Vec<String>>,
    /// Lines written before the `}` that closes the node list of the graph
    /// or function at this path (`""` for the end of the text).
    pub(crate) closing: HashMap<String, Vec<String>>,
}

impl Sink<'_> {
    /// Writes the comments that go before the item at the current path,
    /// each followed by a line break at the current indentation.
    pub(crate) fn leading_comments(&mut self) {
        for line in self.comments_at(|c| &c.leading) {
            self.text(&line);
            self.newline();
        }
    }

    /// Writes the comments that go at the end of the current item's line.
    pub(crate) fn trailing_comments(&mut self) {
        for line in self.comments_at(|c| &c.trailing) {
            self.text(" ");
            self.text(&line);
        }
    }

    /// Writes the comments that go before the closing brace of the node
    /// list at the current path, each on a line of its own.
    pub(crate) fn closing_comments(&mut self) {
        for line in self.comments_at(|c| &c.closing) {
            self.newline();
            self.text(&line);
        }
    }
}
