//! The one place where byte offsets (what the library speaks) and protocol
//! positions (line and UTF-16 code unit, what LSP speaks) meet.
//!
//! Lines end as the protocol says: at `\n`, `\r\n` or a `\r` alone; no
//! column names the line break itself (a position past the end of a line
//! is its end). Every conversion is total: a position past the end of the
//! text is its end, an offset inside a character or a line break is the
//! start of it.

use lsp_types::{Position, Range};

/// Where each line of a text starts and where its text ends (before its
/// line break).
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    ends: Vec<usize>,
}

impl LineIndex {
    /// The index of `text`.
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let (mut starts, mut ends) = (vec![0], Vec::new());
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            match bytes[i] {
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => continue,
                b'\n' if i > 0 && bytes[i - 1] == b'\r' => ends.push(i - 1),
                _ => ends.push(i),
            }
            starts.push(i + 1);
        }
        ends.push(text.len());
        LineIndex { starts, ends }
    }

    /// The position of byte `offset` of `text` (the text indexed).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let line = self
            .starts
            .partition_point(|&s| s <= offset.min(text.len()))
            - 1;
        let offset = floor_char_boundary(text, offset.min(self.ends[line]));
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
        let line = position.line as usize;
        let Some(&start) = self.starts.get(line) else {
            return text.len();
        };
        let end = self.ends[line];
        // A position inside a character (between the two units of a
        // surrogate pair) is taken as its start.
        let mut units = 0;
        for (i, c) in text[start..end].char_indices() {
            units += c.len_utf16();
            if units > position.character as usize {
                return start + i;
            }
        }
        end
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
        // Inside `\r\n`: the end of the line.
        assert_eq!(index.position(text, after + 2), Position::new(0, 9));
    }

    #[test]
    fn a_carriage_return_alone_ends_a_line() {
        let text = "a\rb\r\nc\r";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 2), Position::new(1, 0));
        assert_eq!(index.position(text, 5), Position::new(2, 0));
        assert_eq!(index.position(text, text.len()), Position::new(3, 0));
        assert_eq!(index.offset(text, Position::new(1, 5)), 3);
        assert_eq!(index.offset(text, Position::new(3, 0)), text.len());
        assert_eq!(index.line(4), 1);
    }
}
