//! The sink every printed byte goes through.
//!
//! It writes into a buffer of its own: the whole text for
//! [`Printer::print`](super::Printer::print), or pieces of about 64 KiB
//! handed to the caller's `io::Write`, keeping the first I/O error for the
//! end so the structure walk never checks results. It owns indentation and
//! the IR path used in compat reports; quoting (`quoting.rs`), numbers
//! (`number_text.rs`) and lists (`lists.rs`) write through it.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::comments::Comments;
use super::lists::Formatted;

use super::{Dropped, Printer};

/// Bytes the sink holds before handing them to its writer.
pub(super) const FLUSH: usize = 1 << 16;

/// The output of a print: a buffer (the whole text, or the part not yet
/// handed to a writer), the options, the indentation level and the
/// compat-mode report. Opaque outside the printer.
pub struct Sink<'a> {
    pub(super) buf: Vec<u8>,
    out: Option<&'a mut dyn Write>,
    pub(super) error: Option<io::Error>,
    pub(crate) opts: Printer,
    pub(super) level: usize,
    pub(super) dropped: Vec<Dropped>,
    pub(super) path: String,
    pub(super) comments: Option<&'a Comments>,
    /// Whether [`Sink::each_item`] may hand half a list to another thread
    /// (not in a sink that already shares the work with one).
    pub(super) may_split: bool,
    /// The buffers of [`Sink::fill_numbers`]' two threads, kept from one
    /// list to the next.
    pub(super) number_texts: Vec<Formatted>,
    /// The share of each segment of a long number list, in 32nds, that
    /// this thread formats while the helper formats the rest, as the last
    /// list left it (see `Sink::fill_pipelined`).
    pub(super) number_share: usize,
    /// The indexes of the attributes a node writes (`graph::node`), their
    /// room kept from one node to the next.
    pub(super) kept_attributes: Vec<usize>,
}

impl<'a> Sink<'a> {
    /// A sink that hands what it writes to `out`, in pieces of about
    /// [`FLUSH`] bytes; [`Sink::finish`] writes the rest.
    pub(crate) fn new(out: &'a mut dyn Write, opts: Printer) -> Self {
        let mut sink = Sink::in_memory(opts);
        sink.buf.reserve(FLUSH + 1024);
        sink.out = Some(out);
        sink
    }

    /// A sink that keeps the whole text ([`Sink::finish_text`]).
    pub(crate) fn in_memory(opts: Printer) -> Self {
        Sink {
            buf: Vec::new(),
            out: None,
            error: None,
            opts,
            level: 0,
            dropped: Vec::new(),
            path: String::with_capacity(PATH_ROOM),
            comments: None,
            may_split: true,
            number_texts: Vec::new(),
            number_share: super::lists::MINE_32NDS,
            kept_attributes: Vec::new(),
        }
    }

    /// A sink that also writes `comments` where they belong.
    pub(crate) fn with_comments(mut self, comments: &'a Comments) -> Self {
        self.comments = Some(comments);
        self
    }

    /// The comments `table` holds for the current path.
    pub(crate) fn comments_at(
        &self,
        table: impl Fn(&Comments) -> &HashMap<String, Vec<String>>,
    ) -> Vec<String> {
        match self.comments {
            Some(comments) => table(comments).get(&self.path).cloned().unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// Writes what is left to the writer; the report, or the first I/O
    /// error.
    pub(crate) fn finish(mut self) -> io::Result<Vec<Dropped>> {
        self.flush();
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.dropped),
        }
    }

    /// The text of an [`in_memory`](Sink::in_memory) sink and the report,
    /// or the error that failed the print ([`Sink::fail`]).
    pub(crate) fn finish_text(self) -> io::Result<(String, Vec<Dropped>)> {
        if let Some(error) = self.error {
            return Err(error);
        }
        // The sink writes UTF-8 only: strings that are not UTF-8 are escaped
        // (or, in compat mode, replaced), comments are source text.
        let text = String::from_utf8(self.buf).expect("the printer writes UTF-8");
        Ok((text, self.dropped))
    }

    /// Makes room for about `bytes` more bytes of text at once when the
    /// whole text stays in memory, rather than copying the text each time
    /// it doubles. A failed reservation is not an error: the buffer grows
    /// as it goes.
    pub(crate) fn expect_text(&mut self, bytes: usize) {
        if self.out.is_none() {
            let _ = self.buf.try_reserve(bytes);
        }
    }

    /// [`Sink::flush`] once the buffer holds [`FLUSH`] bytes.
    pub(super) fn flush_when_full(&mut self) {
        if self.buf.len() >= FLUSH {
            self.flush();
        }
    }

    /// Hands the buffer to the writer, if there is one (keeping the first
    /// error and writing nothing after it).
    fn flush(&mut self) {
        if self.out.is_some() {
            let buf = std::mem::take(&mut self.buf);
            self.hand_over(&buf);
            self.buf = buf;
            self.buf.clear();
        }
    }

    /// Hands `bytes` to the writer (keeping the first error and writing
    /// nothing after it).
    fn hand_over(&mut self, bytes: &[u8]) {
        if let (Some(out), None) = (&mut self.out, &self.error) {
            if let Err(e) = out.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }

    /// Fails the print here with `error` (a part that could not be
    /// decoded): [`Sink::finish`] and [`Sink::finish_text`] return it (as
    /// an [`Undecoded`] I/O error), unless an earlier error came first, and
    /// nothing more is handed to the writer.
    pub(crate) fn fail(&mut self, error: crate::Error) {
        self.error
            .get_or_insert_with(|| io::Error::new(io::ErrorKind::InvalidData, Undecoded(error)));
    }

    pub(crate) fn compat(&self) -> bool {
        self.opts.compat
    }

    // ----- raw output --------------------------------------------------

    /// Writes `bytes`, which stay on the current line ([`Sink::put_lines`]
    /// writes text that may break it).
    #[inline]
    pub(super) fn put(&mut self, bytes: &[u8]) {
        debug_assert!(!bytes.contains(&b'\n'), "a line break passed to `put`");
        self.buf.extend_from_slice(bytes);
        self.flush_when_full();
    }

    /// Writes `bytes`, which may break lines. A writer gets [`FLUSH`]
    /// bytes or more as they are, after the buffer, with no copy.
    pub(super) fn put_lines(&mut self, bytes: &[u8]) {
        if self.out.is_some() && bytes.len() >= FLUSH {
            self.flush();
            self.hand_over(bytes);
        } else {
            self.buf.extend_from_slice(bytes);
            self.flush_when_full();
        }
    }

    /// Writes `text`, which stays on the current line. Inlined, so that a
    /// constant text is copied without a call to `memcpy`.
    #[inline]
    pub(crate) fn text(&mut self, text: &str) {
        self.put(text.as_bytes());
    }

    /// Ends the line, with no indentation after it (the end of a top-level
    /// item).
    pub(crate) fn end_line(&mut self) {
        self.put_lines(b"\n");
    }

    /// A line break followed by the current indentation.
    pub(crate) fn newline(&mut self) {
        self.buf.push(b'\n');
        self.indentation(2 * self.level);
        self.flush_when_full();
    }

    /// Appends `n` spaces to the buffer.
    fn indentation(&mut self, n: usize) {
        match SPACES.get(..n) {
            Some(spaces) => self.buf.extend_from_slice(spaces),
            None => self.buf.resize(self.buf.len() + n, b' '),
        }
    }

    pub(crate) fn indent(&mut self) {
        self.level += 1;
    }

    pub(crate) fn dedent(&mut self) {
        self.level -= 1;
    }

    // ----- the compat report and IR paths ------------------------------

    /// Records, in compat mode, that something was dropped or changed here.
    pub(crate) fn report(&mut self, what: impl Into<String>) {
        self.dropped.push(Dropped {
            path: self.path.clone(),
            what: what.into(),
        });
    }

    /// Runs `f` with `field` appended to the IR path.
    pub(crate) fn at<R>(&mut self, field: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        self.at_with(field, |_| {}, f)
    }

    /// Runs `f` with `field[index]` appended to the IR path.
    pub(crate) fn at_index<R>(
        &mut self,
        field: &str,
        index: usize,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let subscript = |path: &mut String| {
            path.push('[');
            path.push_str(itoa::Buffer::new().format(index));
            path.push(']');
        };
        self.at_with(field, subscript, f)
    }

    /// Runs `f` with `field["key"]` appended to the IR path.
    pub(crate) fn at_key<R>(
        &mut self,
        field: &str,
        key: &str,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let subscript = |path: &mut String| {
            path.push('[');
            if key
                .bytes()
                .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
            {
                // What `{key:?}` writes, without the formatting machinery.
                path.push('"');
                path.push_str(key);
                path.push('"');
            } else {
                let _ = write!(path, "{key:?}");
            }
            path.push(']');
        };
        self.at_with(field, subscript, f)
    }

    /// Runs `f` with `field`, then what `subscript` writes, appended to the
    /// IR path.
    fn at_with<R>(
        &mut self,
        field: &str,
        subscript: impl FnOnce(&mut String),
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let len = self.path.len();
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(field);
        subscript(&mut self.path);
        let result = f(self);
        self.path.truncate(len);
        result
    }
}

/// A part of a binary model that could not be decoded as it was printed
/// ([`Sink::fail`]), carried as the sink's I/O error so that a writer gets
/// nothing after it; [`undecoded`] takes it back out.
#[derive(Debug)]
struct Undecoded(crate::Error);

impl std::fmt::Display for Undecoded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Undecoded {}

/// The decoding error a print failed with ([`Sink::fail`]) as `Err`, any
/// other I/O error as `Ok`.
pub(super) fn undecoded(error: io::Error) -> Result<io::Error, crate::Error> {
    match error.downcast::<Undecoded>() {
        Ok(Undecoded(error)) => Err(error),
        Err(error) => Ok(error),
    }
}

/// The room a sink's IR path is made with, enough for most paths a print
/// passes (`graph.node[12].attribute["kernel_shape"]`), where it grew from
/// nothing by a reallocation or two for every print.
const PATH_ROOM: usize = 64;

/// Spaces to indent with.
pub(super) const SPACES: &[u8; 32] = b"                                ";

/// Helpers for the printer's unit tests: a sink's text and report.
#[cfg(test)]
pub(super) mod testing {
    use super::*;

    pub(crate) fn render(f: impl FnOnce(&mut Sink<'_>)) -> String {
        render_with(Printer::new(), f).0
    }

    pub(crate) fn render_with(
        opts: Printer,
        f: impl FnOnce(&mut Sink<'_>),
    ) -> (String, Vec<Dropped>) {
        let mut out = Vec::new();
        let mut sink = Sink::new(&mut out, opts);
        f(&mut sink);
        let dropped = sink.finish().unwrap();
        (String::from_utf8(out).unwrap(), dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::testing::render_with;
    use super::*;

    #[test]
    fn paths_quote_keys_like_debug() {
        let printable: String = (b' '..=b'~').map(char::from).collect();
        for key in [
            "axes", "a b", "x'y", "q\"", "b\\s", "tab\t", "é", &printable,
        ] {
            let path = render_with(Printer::new(), |s| {
                s.at("node", |s| s.at_key("attribute", key, |s| s.report("x")))
            })
            .1;
            assert_eq!(path[0].path, format!("node.attribute[{key:?}]"));
        }
    }
}
