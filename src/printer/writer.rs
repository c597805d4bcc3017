//! The sink every printed byte goes through.
//!
//! It writes into a buffer of its own: the whole text for
//! [`Printer::print`](super::Printer::print), or pieces of about 64 KiB
//! handed to the caller's `io::Write`, keeping the first I/O error for the
//! end so the structure walk never checks results. It owns the lexical side of printing: indentation,
//! identifier quoting, string escapes (including the `b"..."` byte-string
//! extension) and number formatting. It can also *probe*: run a piece of the
//! walk, measuring whether it fits on the rest of the line, which is how
//! lists decide to break one item per line. A probe either writes nothing
//! ([`Sink::fits`]) or writes as it measures and takes the text back if it
//! does not fit ([`Sink::write_if_fits`]), so that what fits, the common
//! case, is printed once.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::comments::Comments;

use super::{Dropped, Printer};
use crate::vocabulary;

/// A measurement of what is printed on the current line: the columns
/// left, and whether the text has run past them (or broken the line).
#[derive(Debug, Clone, Copy)]
struct Probe {
    budget: usize,
    overflow: bool,
    /// Whether the text is written meanwhile, to be kept if it fits
    /// ([`Sink::write_if_fits`]); if not, nothing is written, reported
    /// or tracked ([`Sink::fits`]).
    writes: bool,
}

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
    column: usize,
    probe: Option<Probe>,
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
            column: 0,
            probe: None,
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

    /// The comments `table` holds for the current path (none while probing
    /// the width).
    pub(crate) fn comments_at(
        &self,
        table: impl Fn(&Comments) -> &HashMap<String, Vec<String>>,
    ) -> Vec<String> {
        match self.comments {
            Some(comments) if !self.measuring() => {
                table(comments).get(&self.path).cloned().unwrap_or_default()
            }
            _ => Vec::new(),
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

    /// [`Sink::flush`] once the buffer holds [`FLUSH`] bytes, unless a
    /// probe is running: what it writes may yet be taken back.
    fn flush_when_full(&mut self) {
        if self.probe.is_none() && self.buf.len() >= FLUSH {
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

    pub(crate) fn compat(&self) -> bool {
        self.opts.compat
    }

    // ----- raw output --------------------------------------------------

    /// Writes `bytes`, which stay on the current line ([`Sink::put_lines`]
    /// writes text that may break it).
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        debug_assert!(!bytes.contains(&b'\n'), "a line break passed to `put`");
        if let Some(probe) = &mut self.probe {
            if !probe.overflow {
                if bytes.len() > probe.budget {
                    probe.overflow = true;
                } else {
                    probe.budget -= bytes.len();
                }
            }
            // Text that overflowed is taken back: no need to write it.
            if !probe.writes || probe.overflow {
                return;
            }
        }
        self.buf.extend_from_slice(bytes);
        self.column += bytes.len();
        self.flush_when_full();
    }

    /// Writes `bytes`, which may break lines: the column is counted from
    /// the last break, and a probe overflows at the first.
    fn put_lines(&mut self, bytes: &[u8]) {
        let Some(last_break) = memchr::memrchr(b'\n', bytes) else {
            return self.put(bytes);
        };
        if let Some(probe) = &mut self.probe {
            probe.overflow = true;
            return;
        }
        self.buf.extend_from_slice(bytes);
        self.column = bytes.len() - last_break - 1;
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
        if self.probe.is_some() {
            return self.put_lines(b"\n");
        }
        let indent = 2 * self.level;
        self.buf.push(b'\n');
        self.indentation(indent);
        self.column = indent;
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

    /// Whether a probe is running and has already overflowed: loops over
    /// large data stop early.
    pub(crate) fn exhausted(&self) -> bool {
        self.probe.is_some_and(|p| p.overflow)
    }

    /// Whether a probe that writes nothing is running ([`Sink::fits`]):
    /// then nothing is reported, and comments and IR paths are not needed.
    fn measuring(&self) -> bool {
        self.probe.is_some_and(|p| !p.writes)
    }

    /// Whether what `f` prints fits on the current line within the width,
    /// with no line break. Nothing is written and nothing is reported.
    ///
    /// Inside a probe the answer is always yes: the caller then writes the
    /// inline form, which the outer probe measures. Probing again at every
    /// level would make nested layouts cost time exponential in their depth.
    pub(crate) fn fits(&mut self, f: impl FnOnce(&mut Self)) -> bool {
        self.probe_with(false, f)
    }

    /// Writes what `f` prints if it fits on the current line within the
    /// width, with no line break, and says whether it did; if it does not
    /// fit, the text (and what it reported) is taken back. This is
    /// [`Sink::fits`] followed by writing the same text, in one pass: the
    /// common case, where the text fits, is printed once.
    pub(crate) fn write_if_fits(&mut self, f: impl FnOnce(&mut Self)) -> bool {
        let (len, column, dropped) = (self.buf.len(), self.column, self.dropped.len());
        if self.probe_with(true, f) {
            self.flush_when_full();
            return true;
        }
        self.buf.truncate(len);
        self.column = column;
        self.dropped.truncate(dropped);
        false
    }

    /// Runs `f` under a [`Probe`] of the rest of the line that `writes` or
    /// not; whether it fitted. Inside a probe the answer is yes, and `f`
    /// runs as part of that probe only if it `writes` (its text is the
    /// inline form the caller would write).
    fn probe_with(&mut self, writes: bool, f: impl FnOnce(&mut Self)) -> bool {
        if self.probe.is_some() {
            if writes {
                f(self);
            }
            return true;
        }
        self.probe = Some(Probe {
            budget: self.opts.width.saturating_sub(self.column),
            overflow: false,
            writes,
        });
        f(self);
        self.probe.take().is_some_and(|p| !p.overflow)
    }

    /// Whether what `f` prints fits in one line of the width at the current
    /// indentation (wherever the current line is): short lists stay inline
    /// even late in a long line.
    pub(crate) fn fits_on_a_line(&mut self, f: impl FnOnce(&mut Self)) -> bool {
        let column = std::mem::replace(&mut self.column, 2 * self.level + 2);
        let fits = self.fits(f);
        self.column = column;
        fits
    }

    // ----- the compat report and IR paths ------------------------------

    /// Records, in compat mode, that something was dropped or changed here.
    pub(crate) fn report(&mut self, what: impl Into<String>) {
        if !self.measuring() {
            self.dropped.push(Dropped {
                path: self.path.clone(),
                what: what.into(),
            });
        }
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
    /// IR path (which probes leave alone: they report nothing).
    fn at_with<R>(
        &mut self,
        field: &str,
        subscript: impl FnOnce(&mut String),
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let len = self.path.len();
        if !self.measuring() {
            if !self.path.is_empty() {
                self.path.push('.');
            }
            self.path.push_str(field);
            subscript(&mut self.path);
        }
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
    pub(crate) fn float<F: PrintedFloat>(&mut self, value: F) {
        self.put(float_or_nan(value, &mut zmij::Buffer::new()).as_bytes());
    }

    /// Writes `items` separated by `, `.
    pub(crate) fn list<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Self, usize, &T)) {
        for (i, value) in items.iter().enumerate() {
            if self.exhausted() {
                return;
            }
            if i > 0 {
                self.text(", ");
            }
            item(self, i, value);
        }
    }

    /// Writes `items` separated by `, `, starting a new line (at the
    /// current indentation) after any item that leaves less than
    /// [`FILL_SLACK`] columns: the layout of tensor values, which are many
    /// and short. Lines stay within the width unless one item is longer
    /// than the slack.
    /// With `fill` false, all items stay on the current line.
    pub(crate) fn fill<T>(
        &mut self,
        fill: bool,
        items: &[T],
        mut item: impl FnMut(&mut Self, usize, &T),
    ) {
        for (i, value) in items.iter().enumerate() {
            if self.exhausted() {
                return;
            }
            if i > 0 {
                if breaks_line(fill, self.column, self.opts.width) {
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
        if self.probe.is_some() {
            // Deciding a layout: the item-by-item path stops at the first
            // overflow.
            return self.fill(fill, items, |s, _, x| {
                let mut text = [0; NUMBER_MAX];
                let n = x.write(&mut text);
                s.put(&text[..n]);
            });
        }
        // A float takes up to 16 bytes with its separator.
        self.expect_text(items.len().saturating_mul(16));
        let mut at = FillState {
            fill,
            width: self.opts.width,
            indent: 2 * self.level,
            column: self.column,
            first: true,
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
        self.column = at.column;
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
    /// own (same path, indentation and comments; `write` must not depend on
    /// the column it starts at) whose text and compat reports this thread
    /// appends in order. At most a few chunks of text wait in memory, so a
    /// sink that streams to a writer still does.
    pub(crate) fn each_item<T: Sync>(
        &mut self,
        items: &[T],
        write: impl Fn(&mut Sink<'_>, usize, &T) + Sync,
    ) {
        let split = self.may_split
            && self.probe.is_none()
            && items.len() >= SPLIT_MIN
            && crate::parallel::available();
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
            |&(u, unit), (text, dropped): &mut (Vec<u8>, Vec<Dropped>)| {
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
            },
            |sink, &(u, unit)| {
                for (i, x) in unit[..mine(unit)].iter().enumerate() {
                    write(sink, u * 2 * SPLIT_CHUNK + i, x);
                }
            },
            |sink, _, (text, dropped)| {
                sink.put_lines(text);
                sink.dropped.append(dropped);
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
        match layout {
            _ if items.is_empty() => return one_line(self),
            ListLayout::OneLine => return one_line(self),
            ListLayout::Fit if self.write_if_fits(&mut one_line) => return,
            ListLayout::Fit | ListLayout::OnePerLine => {}
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

/// How [`Sink::block_list`] lays out a list that is not empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListLayout {
    /// On one line when it fits, else one item per line.
    Fit,
    /// On one line (the caller has measured it).
    OneLine,
    /// One item per line.
    OnePerLine,
}

/// Spaces to indent with.
const SPACES: &[u8; 32] = b"                                ";

/// Where [`Sink::fill_numbers`] is in its list.
struct FillState {
    fill: bool,
    width: usize,
    indent: usize,
    column: usize,
    first: bool,
}

impl FillState {
    /// Appends one item to `buf`: the separator (and line break), then the
    /// first `n` bytes of `text`. Every append is of a fixed size, cut
    /// back after (no call to `memcpy`).
    #[inline(always)]
    fn item(&mut self, buf: &mut Vec<u8>, text: &[u8; NUMBER_MAX], n: usize) {
        if !self.first {
            if breaks_line(self.fill, self.column, self.width) {
                buf.extend_from_slice(b",\n");
                let indent = self.indent;
                if indent <= SPACES.len() {
                    buf.extend_from_slice(SPACES);
                    buf.truncate(buf.len() - SPACES.len() + indent);
                } else {
                    buf.resize(buf.len() + indent, b' ');
                }
                self.column = indent;
            } else {
                buf.extend_from_slice(b", ");
                self.column += 2;
            }
        }
        self.first = false;
        buf.extend_from_slice(text);
        buf.truncate(buf.len() - NUMBER_MAX + n);
        self.column += n;
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

/// Room left for the next tensor value before [`Sink::fill`] breaks the
/// line: the longest float text (`-1.1754944e-38`) and its comma.
const FILL_SLACK: usize = 16;

/// Whether a filled list ([`Sink::fill`], [`FillState::item`]) breaks the
/// line before its next item: when `fill` is on and less than
/// [`FILL_SLACK`] columns are left.
#[inline(always)]
fn breaks_line(fill: bool, column: usize, width: usize) -> bool {
    fill && column + FILL_SLACK > width
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
        for (width, level, fill) in [
            (100, 1, true),
            (40, 3, true),
            (100, 0, false),
            (3, 20, true),
        ] {
            let opts = Printer::new().width(width);
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
            assert!(
                fast.0 == slow.0,
                "width {width}, level {level}, fill {fill}"
            );
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
        for count in [PARALLEL_MIN - 1, 4 * PARALLEL_MIN] {
            let floats: Vec<f32> = (0..count).map(|i| i as f32 / 7.0).collect();
            let mut writes = Writes(Vec::new());
            let mut sink = Sink::new(&mut writes, Printer::new());
            sink.fill_numbers(true, &floats);
            sink.finish().unwrap();
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
    fn lists_break_when_too_long() {
        let items: Vec<String> = (0..5).map(|i| format!("item{i}")).collect();
        let short = render_with(Printer::new().width(80), |s| {
            s.block_list("(", ")", &items, ListLayout::Fit, |s, _, x| s.text(x))
        });
        assert_eq!(short.0, "(item0, item1, item2, item3, item4)");
        let long = render_with(Printer::new().width(20), |s| {
            s.block_list("(", ")", &items, ListLayout::Fit, |s, _, x| s.text(x))
        });
        assert_eq!(
            long.0,
            "(\n  item0,\n  item1,\n  item2,\n  item3,\n  item4\n)"
        );
    }

    #[test]
    fn text_that_does_not_fit_is_taken_back_with_its_reports() {
        let attempt = |s: &mut Sink<'_>| {
            s.text("key = ");
            s.ext_name("odd name", vocabulary::is_identifier, "op type");
        };
        for (width, fits) in [(40, true), (10, false)] {
            let (text, dropped) = render_with(Printer::new().compat(true).width(width), |s| {
                s.text("> ");
                let written = s.write_if_fits(attempt);
                assert_eq!(written, fits, "width {width}");
                assert_eq!(s.column, s.buf.len(), "width {width}");
                s.text("|");
            });
            let (expected, reports) = if fits {
                ("> key = odd_name|", 1)
            } else {
                ("> |", 0)
            };
            assert_eq!((text.as_str(), dropped.len()), (expected, reports));
        }
        // A line break does not fit either, whatever the width.
        let (text, _) = render_with(Printer::new(), |s| {
            assert!(!s.write_if_fits(|s| s.string(b"two\nlines")));
            assert!(s.write_if_fits(|s| s.string(b"one line")));
        });
        assert_eq!(text, "\"one line\"");
    }
}
