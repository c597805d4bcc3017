//! The one place where byte offsets (what the library speaks) and protocol
//! positions (line and UTF-16 code unit, what LSP speaks) meet.
//!
//! Lines end at `\n`; a `\r` before it belongs to no column a position
//! can name inside the line (a position past the end of a line is its
//! end, as the protocol asks). Every conversion is total: a position past
//! the end of the text is its end, an offset inside a character is the
//! start of that character.

use lsp_types::{Position, Range};

/// Where each line of a text starts.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// The index of `text`.
    pub fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|n| n + 1))
            .collect();
        LineIndex { starts }
    }

    /// The position of byte `offset` of `text` (the text indexed).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = floor_char_boundary(text, offset);
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let column = utf16_len(&text[self.starts[line]..offset]);
        Position::new(to_u32(line), to_u32(column))
    }

    /// The range of the byte span `start..end` of `text`.
    pub fn range(&self, text: &str, span: std::ops::Range<usize>) -> Range {
        Range::new(
            self.position(text, span.start),
            self.position(text, span.end),
        )
    }

    /// The byte offset of `position` in `text` (the text indexed).
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(text.len(), |&next| next - 1);
        let line = text[start..end]
            .strip_suffix('\r')
            .unwrap_or(&text[start..end]);
        // A position inside a character (between the two units of a
        // surrogate pair) is taken as its start.
        let mut units = 0;
        for (i, c) in line.char_indices() {
            units += c.len_utf16();
            if units > position.character as usize {
                return start + i;
            }
        }
        start + line.len()
    }

    /// The byte span of `range` in `text`, start and end in order.
    pub fn span(&self, text: &str, range: Range) -> std::ops::Range<usize> {
        let (start, end) = (self.offset(text, range.start), self.offset(text, range.end));
        start.min(end)..start.max(end)
    }

    /// The 0-based line of byte `offset`.
    pub fn line(&self, offset: usize) -> u32 {
        to_u32(self.starts.partition_point(|&s| s <= offset) - 1)
    }
}

/// The largest character boundary of `text` not after `offset`.
fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// Lines and columns past `u32::MAX` (texts of 4 GiB) are clamped.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_utf16_code_units() {
        // `é` is 2 bytes and 1 unit, `𝔵` 4 bytes and 2 units.
        let text = "a = \"é𝔵\"\r\nb";
        let index = LineIndex::new(text);
        let after = text.find("\"\r").unwrap();
        assert_eq!(index.position(text, after), Position::new(0, 8));
        assert_eq!(index.offset(text, Position::new(0, 8)), after);
        assert_eq!(index.offset(text, Position::new(0, 7)), after - 4);
        // Inside a character: its start.
        assert_eq!(index.position(text, after - 1), Position::new(0, 6));
        // Past the end of a line, or of the text.
        assert_eq!(index.offset(text, Position::new(0, 99)), after + 1);
        assert_eq!(index.offset(text, Position::new(5, 0)), text.len());
        assert_eq!(index.position(text, text.len()), Position::new(1, 1));
        assert_eq!(index.position(text, 99), Position::new(1, 1));
    }
}
