//! The sink every printed byte goes through.
//!
//! It writes into a buffer of its own: the whole text for
//! [`Printer::print`](super::Printer::print), or pieces of about 64 KiB
//! handed to the caller's `io::Write`, keeping the first I/O error for the
//! end so the structure walk never checks results. It owns the lexical side
//! of printing: indentation, identifier quoting, string escapes (including
//! the `b"..."` byte-string extension) and number formatting. Layout never
//! depends on the width of the text (see [`ListLayout`] and
//! [`VALUES_PER_LINE`]): a change to one item never moves its neighbours.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::comments::Comments;

use super::{Dropped, Printer};
use crate::vocabulary;

/// Bytes the sink holds before handing them to its writer.
const FLUSH: usize = 1 << 16;

/// The output of a print: a buffer (the whole text, or the part not yet
/// handed to a writer), the options, the indentation level and the
/// compat-mode report. Opaque outside the printer.
pub struct Sink<'a> {
    buf: Vec<u8>,
    out: Option<&'a mut dyn Write>,
    error: Option<io::Error>,
    pub(crate) opts: Printer,
    level: usize,
    dropped: Vec<Dropped>,
    path: String,
    comments: Option<&'a Comments>,
    /// Whether [`Sink::each_item`] may hand half a list to another thread
    /// (not in a sink that already shares the work with one).
    may_split: bool,
}

/// Whether a name must be quoted where a value name is expected: anything
/// that is not an identifier, and the type keywords (which would be read
/// as the start of a type in an optionally typed list).
pub(crate) fn name_needs_quotes(name: &str) -> bool {
    !vocabulary::is_identifier(name) || vocabulary::starts_type(name)
}

/// Whether the reference parser would read `name`, at the start of an
/// attribute value, as `inf`, `infinity` or `nan`: it looks at up to nine
/// leading letters (and gives up if a digit follows them).
pub(crate) fn reads_as_float_keyword(name: &str) -> bool {
    let bytes = name.as_bytes();
    let run = bytes
        .iter()
        .take(9)
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    if bytes.get(run).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    let word = &name[..run];
    ["inf", "infinity", "nan"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
}

/// Whether a graph name can be written bare as an attribute value.
pub(crate) fn graph_name_is_bare(name: &str) -> bool {
    vocabulary::is_identifier(name)
        && !vocabulary::starts_type(name)
        && !reads_as_float_keyword(name)
}

/// Whether `text` is a dotted name whose parts are identifiers (`ai.onnx.ml`).
pub(crate) fn is_qualified(text: &str) -> bool {
    text.split('.').all(vocabulary::is_identifier)
}

/// An identifier made from `text` for compat mode, where quoting is not
/// available: every other character becomes `_`.
pub(crate) fn sanitize(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

/// A float the printer writes as its shortest decimal that reads back to
/// the same value (Żmij's algorithm, through [`zmij`]).
pub(crate) trait PrintedFloat: zmij::Float {
    /// Whether some text reads back as exactly these bits: every value but
    /// the NaNs other than the default quiet NaN (of either sign).
    fn has_text(self) -> bool;
    /// NaN.
    fn is_nan(self) -> bool;
    /// ±infinity.
    fn is_infinite(self) -> bool;
    /// Has the sign bit set.
    fn is_sign_negative(self) -> bool;
}

macro_rules! printed_float {
    ($float:ty, $quiet_nan:expr) => {
        impl PrintedFloat for $float {
            fn has_text(self) -> bool {
                !self.is_nan() || self.abs().to_bits() == $quiet_nan
            }
            fn is_nan(self) -> bool {
                <$float>::is_nan(self)
            }
            fn is_infinite(self) -> bool {
                <$float>::is_infinite(self)
            }
            fn is_sign_negative(self) -> bool {
                <$float>::is_sign_negative(self)
            }
        }
    };
}
printed_float!(f32, 0x7fc0_0000);
printed_float!(f64, 0x7ff8_0000_0000_0000);

/// The longest text of a [`Number`]: a float64 (`-2.2250738585072014e-308`).
const NUMBER_MAX: usize = 24;

/// A tensor element written by [`Sink::fill_numbers`]: an integer in
/// decimal, or a float as [`Sink::float`] writes it.
pub(crate) trait Number: Copy + Send + Sync {
    /// Writes the text at the start of `out` and returns its length.
    fn write(self, out: &mut [u8; NUMBER_MAX]) -> usize;
}

macro_rules! int_number {
    ($($int:ty),*) => {$(
        impl Number for $int {
            #[inline]
            fn write(self, out: &mut [u8; NUMBER_MAX]) -> usize {
                copy_small(out, itoa::Buffer::new().format(self).as_bytes())
            }
        }
    )*};
}
int_number!(i32, i64, u64);

macro_rules! float_number {
    ($($float:ty),*) => {$(
        impl Number for $float {
            #[inline]
            fn write(self, out: &mut [u8; NUMBER_MAX]) -> usize {
                let mut buffer = zmij::Buffer::new();
                let text = if self.is_finite() {
                    buffer.format_finite(self)
                } else {
                    float_or_nan(self, &mut buffer)
                };
                copy_small(out, text.as_bytes())
            }
        }
    )*};
}
float_number!(f32, f64);

/// Copies `src` (at most [`NUMBER_MAX`] bytes) to the start of `out` with a
/// few fixed-size (overlapping) moves instead of a `memcpy` call, and
/// returns its length.
#[inline(always)]
fn copy_small(out: &mut [u8; NUMBER_MAX], src: &[u8]) -> usize {
    let n = src.len();
    if n >= 16 {
        out[..16].copy_from_slice(&src[..16]);
        out[n - 16..n].copy_from_slice(&src[n - 16..]);
    } else if n >= 8 {
        out[..8].copy_from_slice(&src[..8]);
        out[n - 8..n].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        out[..4].copy_from_slice(&src[..4]);
        out[n - 4..n].copy_from_slice(&src[n - 4..]);
    } else if n > 0 {
        out[0] = src[0];
        out[n / 2] = src[n / 2];
        out[n - 1] = src[n - 1];
    }
    n
}

/// [`float_text`], or `nan` with the value's sign when there is none.
fn float_or_nan<F: PrintedFloat>(value: F, buffer: &mut zmij::Buffer) -> &str {
    let negative = value.is_sign_negative();
    float_text(value, buffer).unwrap_or(if negative { "-nan" } else { "nan" })
}

/// The text of a float that reads back to the same bits, if there is one
/// (see [`PrintedFloat::has_text`]).
pub(crate) fn float_text<F: PrintedFloat>(value: F, buffer: &mut zmij::Buffer) -> Option<&str> {
    if !value.has_text() {
        None
    } else if value.is_nan() || value.is_infinite() {
        Some(match (value.is_nan(), value.is_sign_negative()) {
            (true, false) => "nan",
            (true, true) => "-nan",
            (false, false) => "inf",
            (false, true) => "-inf",
        })
    } else {
        Some(buffer.format_finite(value))
    }
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
            path: String::new(),
            comments: None,
            may_split: true,
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

    /// The text of an [`in_memory`](Sink::in_memory) sink, and the report.
    pub(crate) fn finish_text(self) -> (String, Vec<Dropped>) {
        // The sink writes UTF-8 only: strings that are not UTF-8 are escaped
        // (or, in compat mode, replaced), comments are source text.
        let text = String::from_utf8(self.buf).expect("the printer writes UTF-8");
        (text, self.dropped)
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
    fn flush_when_full(&mut self) {
        if self.buf.len() >= FLUSH {
            self.flush();
        }
    }

    /// Hands the buffer to the writer, if there is one (keeping the first
    /// error and writing nothing after it).
    fn flush(&mut self) {
        if let Some(out) = &mut self.out {
            if self.error.is_none() {
                if let Err(e) = out.write_all(&self.buf) {
                    self.error = Some(e);
                }
            }
            self.buf.clear();
        }
    }

    /// Fails the print here with `error` (a part that could not be
    /// decoded): [`Sink::finish`] returns it, unless an earlier error came
    /// first, and nothing more is handed to the writer.
    pub(crate) fn fail(&mut self, error: crate::Error) {
        let message = format!("{}: {error}", self.path);
        self.error
            .get_or_insert_with(|| io::Error::new(io::ErrorKind::InvalidData, message));
    }

    pub(crate) fn compat(&self) -> bool {
        self.opts.compat
    }

    // ----- raw output --------------------------------------------------

    /// Writes `bytes`, which stay on the current line ([`Sink::put_lines`]
    /// writes text that may break it).
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        debug_assert!(!bytes.contains(&b'\n'), "a line break passed to `put`");
        self.buf.extend_from_slice(bytes);
        self.flush_when_full();
    }

    /// Writes `bytes`, which may break lines.
    fn put_lines(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        self.flush_when_full();
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

    // ----- lexical forms -----------------------------------------------

    /// A value name (graph input, node output, ...): bare when it is an
    /// identifier that cannot be read as a type, quoted otherwise.
    pub(crate) fn name(&mut self, name: &str) {
        if name_needs_quotes(name) {
            self.string(name.as_bytes());
        } else {
            self.text(name);
        }
    }

    /// A name that the reference grammar only allows bare (attribute names,
    /// op types, ...): bare when `bare` accepts it, else quoted (an
    /// extension) or, in compat mode, replaced by an identifier and reported.
    pub(crate) fn ext_name(&mut self, name: &str, bare: fn(&str) -> bool, what: &str) {
        if bare(name) {
            self.text(name);
        } else if self.compat() {
            let mut fixed = sanitize(name);
            if !bare(&fixed) {
                fixed.insert(0, '_');
            }
            self.report(format!("{what} {name:?} written as `{fixed}`"));
            self.text(&fixed);
        } else {
            self.string(name.as_bytes());
        }
    }

    /// A string literal. UTF-8 text without NUL is written `"..."` with only
    /// `"` and `\` escaped; anything else uses the byte-string extension
    /// `b"..."` with `\xHH` for the bytes that are not UTF-8 and for NUL. In
    /// compat mode such bytes are replaced and reported instead.
    pub(crate) fn string(&mut self, bytes: &[u8]) {
        match std::str::from_utf8(bytes) {
            Ok(text) if !text.contains('\0') => {
                self.put(b"\"");
                self.escaped(text);
                self.put(b"\"");
            }
            Ok(_) | Err(_) if self.compat() => {
                // The reference reads strings as C strings: NUL ends them.
                self.report(
                    "string bytes that are not UTF-8 replaced by U+FFFD, NUL bytes removed",
                );
                let text = String::from_utf8_lossy(bytes).replace('\0', "");
                self.put(b"\"");
                self.escaped(&text);
                self.put(b"\"");
            }
            _ => {
                self.put(b"b\"");
                for chunk in bytes.utf8_chunks() {
                    let mut rest = chunk.valid();
                    while let Some(nul) = rest.find('\0') {
                        self.escaped(&rest[..nul]);
                        self.put(b"\\x00");
                        rest = &rest[nul + 1..];
                    }
                    self.escaped(rest);
                    for byte in chunk.invalid() {
                        let hex = format!("\\x{byte:02x}");
                        self.put(hex.as_bytes());
                    }
                }
                self.put(b"\"");
            }
        }
    }

    fn escaped(&mut self, text: &str) {
        // `"` and `\` are ASCII: they are never part of a longer character.
        let bytes = text.as_bytes();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'"' || b == b'\\' {
                self.put_lines(&bytes[start..i]);
                self.put(b"\\");
                start = i;
            }
        }
        self.put_lines(&bytes[start..]);
    }

    /// An integer in decimal.
    pub(crate) fn int(&mut self, value: impl itoa::Integer) {
        self.put(itoa::Buffer::new().format(value).as_bytes());
    }

    /// A float as the shortest text that reads back to the same value. A
    /// NaN with a payload other than the default has no such text: it is
    /// written `nan` (callers check [`PrintedFloat::has_text`] first and
    /// carry the bits elsewhere).
    pub(crate) fn float<F: PrintedFloat + Number>(&mut self, value: F) {
        let mut text = [0; NUMBER_MAX];
        let n = value.write(&mut text);
        self.put(&text[..n]);
    }

    /// Writes `items` separated by `, `.
    pub(crate) fn list<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Self, usize, &T)) {
        for (i, value) in items.iter().enumerate() {
            if i > 0 {
                self.text(", ");
            }
            item(self, i, value);
        }
    }

    /// Writes `items` separated by `, `, starting a new line (at the
    /// current indentation) after every [`VALUES_PER_LINE`] items: the
    /// layout of tensor values, which are many and short. Line `k` holds
    /// the items from `k * VALUES_PER_LINE` on, whatever their text, so a
    /// changed value changes one line. With `fill` false, all items stay on
    /// the current line.
    pub(crate) fn fill<T>(
        &mut self,
        fill: bool,
        items: &[T],
        mut item: impl FnMut(&mut Self, usize, &T),
    ) {
        for (i, value) in items.iter().enumerate() {
            if i > 0 {
                if breaks_line(fill, i) {
                    self.text(",");
                    self.newline();
                } else {
                    self.text(", ");
                }
            }
            item(self, i, value);
        }
    }

    /// [`Sink::fill`] for numbers, the bulk of large tensors: each item is
    /// formatted straight into the buffer, with no call per item. Long
    /// lists are formatted on two threads ([`Sink::fill_pipelined`]).
    pub(crate) fn fill_numbers<T: Number>(&mut self, fill: bool, items: &[T]) {
        // A float takes up to 16 bytes with its separator.
        self.expect_text(items.len().saturating_mul(16));
        let mut at = FillState {
            fill,
            indent: 2 * self.level,
            index: 0,
        };
        if items.len() >= PARALLEL_MIN && crate::parallel::available() {
            self.fill_pipelined(&mut at, items);
        } else {
            // About `FLUSH` bytes of text at a time, for a writer.
            for chunk in items.chunks(FLUSH / 16) {
                for x in chunk {
                    let mut text = [0; NUMBER_MAX];
                    let n = x.write(&mut text);
                    at.item(&mut self.buf, &text, n);
                }
                self.flush_when_full();
            }
        }
    }

    /// The two-thread path of [`Sink::fill_numbers`], a pipeline over
    /// segments of the list: a helper formats most of each segment into a
    /// buffer of texts ([`Formatted`]), one segment ahead, while this
    /// thread formats the first [`MINE_32NDS`]/32 of the segment into a
    /// buffer of its own, then lays out and copies both. The layout, which
    /// depends on every text before, stays on this thread, and so does
    /// every first write to the output's memory (page faults). Formatting
    /// a run of numbers into a buffer first, rather than each straight
    /// into the output between layout steps, measured faster on this
    /// thread too (see `bench/README.md`).
    fn fill_pipelined<T: Number>(&mut self, at: &mut FillState, items: &[T]) {
        // This thread formats the first part of each segment, the helper the rest.
        let mine = |segment: &[T]| segment.len() * MINE_32NDS / 32;
        crate::parallel::pipeline(
            &mut (self, at, Formatted::default()),
            items.chunks(SEGMENT),
            |segment, formatted: &mut Formatted| formatted.format(&segment[mine(segment)..]),
            |(sink, at, own), segment| {
                own.format(&segment[..mine(segment)]);
                sink.fill_formatted(at, own);
            },
            |(sink, at, _), _, formatted| sink.fill_formatted(at, formatted),
        );
    }

    /// Lays out the numbers of `formatted` after the text so far, handing
    /// it to the writer when there is one and the buffer is full.
    fn fill_formatted(&mut self, at: &mut FillState, formatted: &Formatted) {
        let mut start = 0;
        for &n in &formatted.lens {
            let n = usize::from(n);
            let text: &[u8; NUMBER_MAX] = formatted.texts[start..start + NUMBER_MAX]
                .try_into()
                .expect("room after each text");
            at.item(&mut self.buf, text, n);
            start += n;
        }
        self.flush_when_full();
    }

    /// Writes each of `items` with `write` (given the item's index), one
    /// after the other. A long list is written on two threads, in chunks
    /// of [`SPLIT_CHUNK`] items taken in turn: this thread writes the even
    /// chunks, a helper the odd ones, one chunk ahead, into a sink of its
    /// own (same path, indentation and comments) whose text and compat reports this thread
    /// appends in order. At most a few chunks of text wait in memory, so a
    /// sink that streams to a writer still does.
    pub(crate) fn each_item<T: Sync>(
        &mut self,
        items: &[T],
        write: impl Fn(&mut Sink<'_>, usize, &T) + Sync,
    ) {
        let split = self.may_split && items.len() >= SPLIT_MIN && crate::parallel::available();
        if !split {
            for (i, x) in items.iter().enumerate() {
                write(self, i, x);
            }
            return;
        }
        // Room for the whole list at once, so that the text is not copied
        // as it grows.
        self.expect_text(items.len().saturating_mul(ITEM_TEXT));
        let (opts, level, comments) = (self.opts, self.level, self.comments);
        let path = self.path.clone();
        let write = &write;
        // A unit is two chunks: this thread writes the first, the helper
        // the second (empty at the end of an odd count).
        let units = items.chunks(2 * SPLIT_CHUNK).enumerate();
        let mine = |unit: &[T]| unit.len().min(SPLIT_CHUNK);
        self.may_split = false;
        crate::parallel::pipeline(
            self,
            units,
            |&(u, unit), (text, dropped, error): &mut Made| {
                let mut other = Sink::in_memory(opts);
                other.level = level;
                other.path.clone_from(&path);
                other.comments = comments;
                other.may_split = false;
                other.buf = std::mem::take(text);
                other.buf.clear();
                let chunk = &unit[mine(unit)..];
                other.expect_text(chunk.len().saturating_mul(ITEM_TEXT));
                let start = u * 2 * SPLIT_CHUNK + SPLIT_CHUNK;
                for (i, x) in chunk.iter().enumerate() {
                    write(&mut other, start + i, x);
                }
                *text = other.buf;
                *dropped = other.dropped;
                *error = other.error;
            },
            |sink, &(u, unit)| {
                for (i, x) in unit[..mine(unit)].iter().enumerate() {
                    write(sink, u * 2 * SPLIT_CHUNK + i, x);
                }
            },
            |sink, _, (text, dropped, error)| {
                sink.put_lines(text);
                sink.dropped.append(dropped);
                if let Some(error) = error.take() {
                    sink.error.get_or_insert(error);
                }
            },
        );
        self.may_split = true;
    }

    /// Writes a bracketed list: on one line or one item per line, indented
    /// one level, with the closing bracket on its own line, as `layout` says.
    pub(crate) fn block_list<T>(
        &mut self,
        open: &str,
        close: &str,
        items: &[T],
        layout: ListLayout,
        mut item: impl FnMut(&mut Self, usize, &T),
    ) {
        let mut one_line = |s: &mut Self| {
            s.text(open);
            s.list(items, &mut item);
            s.text(close);
        };
        if items.is_empty() || layout == ListLayout::OneLine {
            return one_line(self);
        }
        self.text(open);
        self.indent();
        for (i, value) in items.iter().enumerate() {
            self.newline();
            item(self, i, value);
            if i + 1 < items.len() {
                self.text(",");
            }
        }
        self.dedent();
        self.newline();
        self.text(close);
    }
}

/// What the helper of [`Sink::each_item`] makes of a chunk: its text, its
/// compat reports and the error that failed it, if any.
type Made = (Vec<u8>, Vec<Dropped>, Option<io::Error>);

/// How [`Sink::block_list`] lays out a list that is not empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListLayout {
    /// On one line.
    OneLine,
    /// One item per line.
    OnePerLine,
}

/// The most items a graph's input, output or `<initializers, value
/// infos>` list holds on one line: 96% of the graphs of onnx's test
/// models and model zoo samples have at most 4 inputs and 4 outputs.
pub(crate) const INLINE_ITEMS_MAX: usize = 4;

impl ListLayout {
    /// One line for at most [`INLINE_ITEMS_MAX`] items, else one item per
    /// line: the count decides, not the width of the text, so that renaming
    /// an item never reflows the others.
    pub(crate) fn by_count(count: usize) -> Self {
        if count <= INLINE_ITEMS_MAX {
            ListLayout::OneLine
        } else {
            ListLayout::OnePerLine
        }
    }
}

/// Spaces to indent with.
const SPACES: &[u8; 32] = b"                                ";

/// Where [`Sink::fill_numbers`] is in its list.
struct FillState {
    fill: bool,
    indent: usize,
    /// The index of the next item.
    index: usize,
}

impl FillState {
    /// Appends one item to `buf`: the separator (and line break), then the
    /// first `n` bytes of `text`. Every append is of a fixed size, cut
    /// back after (no call to `memcpy`).
    #[inline(always)]
    fn item(&mut self, buf: &mut Vec<u8>, text: &[u8; NUMBER_MAX], n: usize) {
        if self.index > 0 {
            if breaks_line(self.fill, self.index) {
                buf.extend_from_slice(b",\n");
                let indent = self.indent;
                if indent <= SPACES.len() {
                    buf.extend_from_slice(SPACES);
                    buf.truncate(buf.len() - SPACES.len() + indent);
                } else {
                    buf.resize(buf.len() + indent, b' ');
                }
            } else {
                buf.extend_from_slice(b", ");
            }
        }
        self.index += 1;
        buf.extend_from_slice(text);
        buf.truncate(buf.len() - NUMBER_MAX + n);
    }
}

/// Lists of at least this many items (nodes) are written by
/// [`Sink::each_item`] on two threads.
const SPLIT_MIN: usize = 1 << 10;

/// The items [`Sink::each_item`] hands to one thread at a time.
const SPLIT_CHUNK: usize = 1 << 9;

/// About the most text an item of [`Sink::each_item`] takes (a node: 160
/// bytes on average in the node-heavy benchmark), to reserve room by.
const ITEM_TEXT: usize = 256;

/// Lists at least this long are formatted on two threads.
const PARALLEL_MIN: usize = 1 << 15;

/// The items of a list that [`Sink::fill_pipelined`] passes through its
/// pipeline at a time.
const SEGMENT: usize = 1 << 14;

/// The share of each segment, in 32nds, that [`Sink::fill_pipelined`]'s
/// own thread formats (besides laying out the whole segment).
const MINE_32NDS: usize = 13;

/// Numbers formatted by [`Sink::fill_pipelined`]'s helper: their texts one
/// after the other, each followed by room for a whole [`NUMBER_MAX`] text,
/// and their lengths.
#[derive(Default)]
struct Formatted {
    texts: Vec<u8>,
    lens: Vec<u8>,
}

impl Formatted {
    /// Replaces the texts with those of `items`.
    fn format<T: Number>(&mut self, items: &[T]) {
        let size = (items.len() + 1) * NUMBER_MAX;
        if self.texts.len() < size {
            self.texts.resize(size, 0);
        }
        self.lens.resize(items.len(), 0);
        let mut start = 0;
        for (x, len) in items.iter().zip(self.lens.iter_mut()) {
            let text: &mut [u8; NUMBER_MAX] = (&mut self.texts[start..start + NUMBER_MAX])
                .try_into()
                .expect("room for one number");
            let n = x.write(text);
            *len = n as u8;
            start += n;
        }
    }
}

/// Tensor values on each line of a filled list ([`Sink::fill`]): a fixed
/// count, so that changing one value changes one line, and the index of
/// the first value on a line is known from the line alone. Eight floats
/// of the usual 10 to 12 characters make lines of about 100 columns, and
/// 64 or 128 values, common dimensions, make whole lines.
pub(crate) const VALUES_PER_LINE: usize = 8;

/// Whether a filled list ([`Sink::fill`], [`FillState::item`]) breaks the
/// line before its item `index` (not the first).
#[inline(always)]
fn breaks_line(fill: bool, index: usize) -> bool {
    fill && index % VALUES_PER_LINE == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(f: impl FnOnce(&mut Sink<'_>)) -> String {
        render_with(Printer::new(), f).0
    }

    fn render_with(opts: Printer, f: impl FnOnce(&mut Sink<'_>)) -> (String, Vec<Dropped>) {
        let mut out = Vec::new();
        let mut sink = Sink::new(&mut out, opts);
        f(&mut sink);
        let dropped = sink.finish().unwrap();
        (String::from_utf8(out).unwrap(), dropped)
    }

    #[test]
    fn strings_escape_only_quotes_and_backslashes() {
        assert_eq!(render(|s| s.string(b"a\"b\\c\nd")), "\"a\\\"b\\\\c\nd\"");
        assert_eq!(render(|s| s.string(b"x\xffy\0")), "b\"x\\xffy\\x00\"");
        assert_eq!(render(|s| s.string("é\"".as_bytes())), "\"é\\\"\"");
        let (text, dropped) = render_with(Printer::new().compat(true), |s| s.string(b"a\xff"));
        assert_eq!(text, "\"a\u{fffd}\"");
        assert_eq!(dropped.len(), 1);
    }

    #[test]
    fn floats_are_shortest_and_exact() {
        assert_eq!(render(|s| s.float(1.0f32)), "1.0");
        assert_eq!(render(|s| s.float(-0.0f32)), "-0.0");
        assert_eq!(render(|s| s.float(0.1f32)), "0.1");
        assert_eq!(render(|s| s.float(1e-7f32)), "1e-7");
        assert_eq!(render(|s| s.float(1e22f32)), "1e+22");
        // Plain from 1e-6 up to 1e16, the exponent form beyond.
        assert_eq!(render(|s| s.float(1e-5f32)), "0.00001");
        assert_eq!(render(|s| s.float(1e-6f32)), "0.000001");
        assert_eq!(render(|s| s.float(100.0f32)), "100.0");
        assert_eq!(render(|s| s.float(f32::INFINITY)), "inf");
        assert_eq!(render(|s| s.float(f32::NEG_INFINITY)), "-inf");
        assert_eq!(render(|s| s.float(f32::NAN)), "nan");
        assert_eq!(render(|s| s.float(-f32::NAN)), "-nan");
        assert_eq!(render(|s| s.float(0.1f64)), "0.1");
        assert_eq!(render(|s| s.float(-f64::NAN)), "-nan");
        let mut b = zmij::Buffer::new();
        assert_eq!(float_text(f32::from_bits(0x7fc0_0001), &mut b), None);
        assert_eq!(
            float_text(f64::from_bits(0xfff8_0000_0000_0001), &mut b),
            None
        );
        for bits in [1u32, 0x3dcc_cccd, 0x7f7f_ffff, 0x0080_0000, 0xc2f6_e979] {
            let v = f32::from_bits(bits);
            let text = float_text(v, &mut b).unwrap().to_owned();
            assert_eq!(text.parse::<f32>().unwrap().to_bits(), bits, "{text}");
        }
    }

    #[test]
    fn names_are_quoted_when_needed() {
        assert_eq!(render(|s| s.name("x_1")), "x_1");
        assert_eq!(render(|s| s.name("a/b")), "\"a/b\"");
        assert_eq!(render(|s| s.name("float")), "\"float\"");
        assert_eq!(render(|s| s.name("")), "\"\"");
        assert!(reads_as_float_keyword("nan_graph"));
        assert!(reads_as_float_keyword("Infinity"));
        assert!(!reads_as_float_keyword("inference"));
        assert!(!reads_as_float_keyword("inf1"));
        assert!(!graph_name_is_bare("seq"));
        assert_eq!(sanitize("my-op.x"), "my_op_x");
        assert_eq!(sanitize("1a"), "_1a");
    }

    #[test]
    fn long_item_lists_split_between_threads_write_what_one_thread_writes() {
        // The last chunk on this thread, then on the helper.
        for count in [3 * SPLIT_MIN + 1, 4 * SPLIT_CHUNK.max(SPLIT_MIN)] {
            let items: Vec<String> = (0..count).map(|i| format!("n{i}")).collect();
            let print = |may_split: bool| {
                render_with(Printer::new().compat(true), |s| {
                    s.may_split = may_split;
                    s.at("graph", |s| {
                        s.indent();
                        s.each_item(&items, |s, i, x| {
                            s.newline();
                            s.at_index("node", i, |s| {
                                s.text(x);
                                if i % 7 == 0 {
                                    s.report(format!("{x} at {i}"));
                                }
                            });
                        });
                        s.dedent();
                        s.newline();
                        s.text("end");
                        s.report("after the list");
                    })
                })
            };
            let (text, dropped) = print(true);
            assert_eq!((&text, &dropped), (&print(false).0, &print(false).1));
            let last = count - 1;
            assert!(text.ends_with(&format!("\n  n{last}\nend")), "{text}");
            assert_eq!(dropped[1].to_string(), "graph.node[7]: n7 at 7");
            assert_eq!(dropped.len(), count.div_ceil(7) + 1);
            assert_eq!(dropped.last().unwrap().path, "graph");
        }
    }

    #[test]
    fn number_fill_matches_item_by_item() {
        // Long enough for the two-thread path, with segments of both kinds.
        let count = SEGMENT + PARALLEL_MIN + 7;
        let mut bits = 0x1234_5678u32;
        let floats: Vec<f32> = (0..count)
            .map(|i| {
                bits ^= bits << 13;
                bits ^= bits >> 17;
                bits ^= bits << 5;
                let x = f32::from_bits(bits);
                match i % 5 {
                    0 if x.has_text() => x,
                    1 => (x.to_bits() % 2000) as f32 / 1e4,
                    2 => -1e-7 * (i as f32),
                    _ => i as f32 * 0.25,
                }
            })
            .collect();
        let ints: Vec<i64> = (0..count as i64)
            .map(|i| i * i * 7919 - 1_000_000_000)
            .collect();
        for (level, fill) in [(1, true), (3, true), (0, false), (20, true)] {
            let opts = Printer::new();
            let fast = render_with(opts, |s| {
                (0..level).for_each(|_| s.indent());
                s.text("{");
                s.fill_numbers(fill, &floats);
                s.fill_numbers(fill, &ints);
                s.text("}");
            });
            let slow = render_with(opts, |s| {
                (0..level).for_each(|_| s.indent());
                s.text("{");
                s.fill(fill, &floats, |s, _, x| s.float(*x));
                s.fill(fill, &ints, |s, _, x| s.int(*x));
                s.text("}");
            });
            assert!(fast.0 == slow.0, "level {level}, fill {fill}");
            let mut memory = Sink::in_memory(opts);
            memory.fill_numbers(fill, &floats[..1000]);
            let mut streamed = Vec::new();
            let mut sink = Sink::new(&mut streamed, opts);
            sink.fill_numbers(fill, &floats[..1000]);
            sink.finish().unwrap();
            assert_eq!(memory.finish_text().0.as_bytes(), streamed);
        }
    }

    #[test]
    fn long_number_lists_reach_the_writer_in_pieces() {
        /// Records the size of each write.
        struct Writes(Vec<usize>);
        impl Write for Writes {
            fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
                self.0.push(bytes.len());
                Ok(bytes.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        // One thread's list, and (with a second core) two threads' list.
        let count = 8 * PARALLEL_MIN;
        for threads in [false, true] {
            let floats: Vec<f32> = (0..count).map(|i| i as f32 / 7.0).collect();
            let mut writes = Writes(Vec::new());
            crate::parallel::with_threads(threads, || {
                let mut sink = Sink::new(&mut writes, Printer::new());
                sink.fill_numbers(true, &floats);
                sink.finish().unwrap();
            });
            let total: usize = writes.0.iter().sum();
            let largest = writes.0.iter().max().copied().unwrap_or(0);
            assert!(total > 4 * FLUSH, "{count} items: {total} bytes");
            assert!(
                largest <= 4 * FLUSH,
                "{count} items: a write of {largest} bytes"
            );
        }
    }

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

    #[test]
    fn lists_break_by_count_not_width() {
        let items: Vec<String> = (0..5).map(|i| format!("item{i}")).collect();
        let print = |count: usize| {
            render(|s| {
                let layout = ListLayout::by_count(count);
                s.block_list("(", ")", &items[..count], layout, |s, _, x| s.text(x))
            })
        };
        assert_eq!(print(INLINE_ITEMS_MAX), "(item0, item1, item2, item3)");
        assert_eq!(
            print(INLINE_ITEMS_MAX + 1),
            "(\n  item0,\n  item1,\n  item2,\n  item3,\n  item4\n)"
        );
    }

    #[test]
    fn filled_lines_hold_a_fixed_count_whatever_the_text() {
        let values: Vec<f32> = (0..2 * VALUES_PER_LINE + 1)
            .map(|i| if i == 3 { -1.1754944e-38 } else { i as f32 })
            .collect();
        let text = render(|s| s.fill_numbers(true, &values));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with("0.0, 1.0, 2.0, -1.1754944e-38, 4.0,"));
        assert_eq!(lines[1], "8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0,");
        assert_eq!(lines[2], "16.0");
    }
}
