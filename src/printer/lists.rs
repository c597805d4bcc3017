//! Lists: items separated by commas, bracketed blocks laid out by count,
//! tensor values filled a fixed count to a line, and the two-thread paths
//! of long lists (node lists split in chunks, numbers formatted in a
//! pipeline). Layout never depends on the width of the text (see
//! [`ListLayout`] and [`VALUES_PER_LINE`]): a change to one item never
//! moves its neighbours.

use std::cell::Cell;
use std::io;

use super::number_text::{copy_small, Number, NUMBER_MAX};
use super::sink::{Sink, FLUSH, SPACES};
use super::Dropped;
use crate::parallel::Waited;

impl Sink<'_> {
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
    /// lists are formatted on two threads ([`Sink::fill_pipelined`]): from
    /// [`PARALLEL_MIN_SHARED`] items in a print that shares one helper
    /// (`parallel::with_helper`) and whose other thread has no list of its
    /// own to print (see [`Sink::each_item`]), else from [`PARALLEL_MIN`].
    pub(crate) fn fill_numbers<T: Number>(&mut self, fill: bool, items: &[T]) {
        // A float takes up to 16 bytes with its separator.
        self.expect_text(items.len().saturating_mul(16));
        let start = FillState {
            fill,
            indent: 2 * self.level,
            index: 0,
        };
        let shared = crate::parallel::has_helper() && !crate::parallel::other_busy();
        let min = if shared {
            PARALLEL_MIN_SHARED
        } else {
            PARALLEL_MIN
        };
        if items.len() >= min && crate::parallel::available() {
            crate::parallel::with_helper(|| self.fill_pipelined(start, items));
        } else {
            let mut at = start;
            // About `FLUSH` bytes of text at a time, for a writer.
            for chunk in items.chunks(FLUSH / 16) {
                at.lay_out(&mut self.buf, chunk);
                self.flush_when_full();
            }
        }
    }

    /// The two-thread path of [`Sink::fill_numbers`], a pipeline over
    /// segments of the list on the print's helper (`parallel::ahead`): the
    /// helper formats a copy of the last part of each segment into a
    /// buffer of texts ([`Formatted`]), a segment or two ahead, while this
    /// thread formats the first part; this thread then lays out both parts
    /// straight into the output, its own and the helper's texts (the
    /// layout depends on an item's index only, never on the text before
    /// it). Laid out by the helper, its part would be copied once more
    /// (`bench/results.md`, "Weights printed from bytes, session 9").
    /// Formatting a part before laying it out, in two short loops,
    /// measured faster than one loop that does both (see
    /// `bench/README.md`). The buffers are the sink's, reused from list to
    /// list.
    ///
    /// This thread's part is the sink's [`Sink::number_share`] of each
    /// segment, which follows the two threads' pace from segment to
    /// segment ([`next_share`]): this thread also lays out the helper's
    /// part, and in memory touches every page of the output first, so the
    /// even share depends on the print and on the other core's load.
    fn fill_pipelined<T: Number>(&mut self, start: FillState, items: &[T]) {
        let at = |index| FillState { index, ..start };
        let mut spare = std::mem::take(&mut self.number_texts);
        let own = spare.pop().unwrap_or_default();
        // This thread's share, in 32nds, as it is when a segment is handed over.
        let share = Cell::new(self.number_share);
        let segments = items.chunks(SEGMENT).enumerate().map(|(k, segment)| {
            let split = segment.len() * share.get() / 32;
            (k * SEGMENT, segment, split)
        });
        let mut state = (self, own);
        crate::parallel::ahead(
            &mut state,
            segments,
            &mut spare,
            |&(_, segment, split)| {
                let theirs = segment[split..].to_vec();
                move |made: &mut Formatted| made.format(&theirs)
            },
            |(sink, own), &(first, segment, split)| {
                own.format(&segment[..split]);
                at(first).lay_out_formatted(&mut sink.buf, own);
            },
            |(sink, _), &(first, _, split), made, waited| {
                at(first + split).lay_out_formatted(&mut sink.buf, made);
                sink.flush_when_full();
                share.set(next_share(share.get(), waited));
            },
        );
        let (sink, own) = state;
        sink.number_share = share.get();
        spare.push(own);
        sink.number_texts = spare;
    }

    /// Writes each of `items` with `write` (given the item's index), one
    /// after the other. A long or heavy list (by `weight`, the length of an
    /// item's encoding) is written on two threads, in units
    /// ([`split_units`]): this thread writes the first part of each unit, a
    /// helper the rest, one unit ahead, into a sink of its own (same path,
    /// indentation and comments) whose text and compat reports this thread
    /// appends in order. At most a few units of text wait in memory, so a
    /// sink that streams to a writer still does. In a print that shares one
    /// helper, a list whose weight is mostly in heavy items (weights,
    /// `Constant` nodes) stays on this thread: their number lists are split
    /// with the print's helper ([`Sink::fill_numbers`]), where the two
    /// threads' parts are even, and no third thread is started for them.
    /// Each thread lends `write` a `room` of its own, kept from one item
    /// to the next (what an item still encoded is read into).
    pub(crate) fn each_item<T: Sync, R: Default + Send>(
        &mut self,
        items: &[T],
        weight: impl Fn(&T) -> usize,
        write: impl Fn(&mut Sink<'_>, &mut R, usize, &T) + Sync,
    ) {
        let weights: Vec<usize> = match self.may_split && may_be_split(items, &weight) {
            true => items.iter().map(weight).collect(),
            false => Vec::new(),
        };
        let numbers_shared = crate::parallel::has_helper() && mostly_heavy(&weights);
        let units = match numbers_shared {
            true => Vec::new(),
            false => split_units(&weights),
        };
        let mut room = R::default();
        if units.is_empty() {
            for (i, x) in items.iter().enumerate() {
                write(self, &mut room, i, x);
            }
            return;
        }
        // Room for the whole list at once, so that the text is not copied
        // as it grows.
        self.expect_text(text_room(&weights));
        let (opts, level, comments) = (self.opts, self.level, self.comments);
        let path = self.path.clone();
        let (write, weights) = (&write, &weights);
        self.may_split = false;
        // While the helper writes its parts, this thread's number lists
        // take the other core only from `PARALLEL_MIN` items.
        let mut helper_room = R::default();
        crate::parallel::with_other_busy(true, || {
            crate::parallel::pipeline(
                self,
                units.iter(),
                move |&&(start, mine, end), (text, dropped, error): &mut Made| {
                    let mut other = Sink::in_memory(opts);
                    other.level = level;
                    other.path.clone_from(&path);
                    other.comments = comments;
                    other.may_split = false;
                    other.buf = std::mem::take(text);
                    other.buf.clear();
                    other.expect_text(text_room(&weights[start + mine..end]));
                    for (i, x) in items.iter().enumerate().take(end).skip(start + mine) {
                        write(&mut other, &mut helper_room, i, x);
                    }
                    *text = other.buf;
                    *dropped = other.dropped;
                    *error = other.error;
                },
                |sink, &&(start, mine, _)| {
                    for (i, x) in items.iter().enumerate().skip(start).take(mine) {
                        write(sink, &mut room, i, x);
                    }
                },
                |sink, _, (text, dropped, error)| {
                    sink.put_lines(text);
                    sink.dropped.append(dropped);
                    if let Some(error) = error.take() {
                        sink.error.get_or_insert(error);
                    }
                },
            )
        });
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
        self.one_per_line(open, close, |s| {
            for (i, value) in items.iter().enumerate() {
                s.item_line(i + 1 == items.len(), |s| item(s, i, value));
            }
        });
    }

    /// [`Sink::block_list`] one item per line, for lists that may be long:
    /// written by [`Sink::each_item`] (`item` lent its rooms), on two
    /// threads when long enough.
    pub(crate) fn block_lines<T: Sync, R: Default + Send>(
        &mut self,
        open: &str,
        close: &str,
        items: &[T],
        weight: impl Fn(&T) -> usize,
        item: impl Fn(&mut Sink<'_>, &mut R, usize, &T) + Sync,
    ) {
        if items.is_empty() {
            self.text(open);
            return self.text(close);
        }
        self.one_per_line(open, close, |s| {
            s.each_item(items, weight, |s, room, i, value| {
                s.item_line(i + 1 == items.len(), |s| item(s, room, i, value));
            });
        });
    }

    /// `open`, what `lines` writes one level deeper, and `close` on a line
    /// of its own.
    fn one_per_line(&mut self, open: &str, close: &str, lines: impl FnOnce(&mut Self)) {
        self.text(open);
        self.indent();
        lines(self);
        self.dedent();
        self.newline();
        self.text(close);
    }

    /// An item of a list laid out one per line: on a new line, followed by
    /// a comma unless it is the `last`.
    fn item_line(&mut self, last: bool, item: impl FnOnce(&mut Self)) {
        self.newline();
        item(self);
        if !last {
            self.text(",");
        }
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

/// Where [`Sink::fill_numbers`] is in its list.
#[derive(Clone, Copy)]
struct FillState {
    fill: bool,
    indent: usize,
    /// The index of the next item.
    index: usize,
}

impl FillState {
    /// Formats `items` and appends them, from the item at `self.index` on.
    fn lay_out<T: Number>(&mut self, buf: &mut Vec<u8>, items: &[T]) {
        each_text(items, |text| {
            self.separator(buf);
            // Copied into the output in place, not into a slot of its own
            // first: read back whole just after its bytes were stored
            // piecemeal, that slot would stall the store buffer.
            let start = buf.len();
            buf.extend_from_slice(&[0; NUMBER_MAX]);
            let slot = (&mut buf[start..])
                .try_into()
                .expect("a slot of NUMBER_MAX bytes");
            let n = copy_small(slot, text.as_bytes());
            buf.truncate(start + n);
        });
    }

    /// Appends the numbers `formatted` holds, from the item at
    /// `self.index` on.
    fn lay_out_formatted(&mut self, buf: &mut Vec<u8>, formatted: &Formatted) {
        buf.reserve(formatted.lens.len().saturating_mul(16));
        let mut start = 0;
        for &n in &formatted.lens {
            let n = usize::from(n);
            let text: &[u8; NUMBER_MAX] = formatted.texts[start..start + NUMBER_MAX]
                .try_into()
                .expect("room after each text");
            self.separator(buf);
            buf.extend_from_slice(text);
            buf.truncate(buf.len() - NUMBER_MAX + n);
            start += n;
        }
    }

    /// Appends the separator before the next item to `buf` (and the line
    /// break), if it is not the first, and counts the item. Every append
    /// of an item is of a fixed size, cut back after (no call to `memcpy`).
    #[inline(always)]
    fn separator(&mut self, buf: &mut Vec<u8>) {
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
    }
}

/// Whether [`split_units`] may split `items` on two threads, found without
/// a vector of their weights: none of a short, light list's units is made,
/// so a small model's print makes none.
fn may_be_split<T>(items: &[T], weight: impl Fn(&T) -> usize) -> bool {
    crate::parallel::available() && long_or_heavy(items.len(), || items.iter().map(weight).sum())
}

/// Whether a list of `len` items that weigh `total` is long or heavy
/// enough to be written on two threads.
fn long_or_heavy(len: usize, total: impl FnOnce() -> usize) -> bool {
    len >= SPLIT_MIN || total() >= SPLIT_MIN_WEIGHT
}

/// The units [`Sink::each_item`] cuts a list whose items weigh `weights`
/// (bytes of encoding) into, as the index of each unit's first item, how
/// many of them this thread writes, and the index after its last: this
/// thread's part ends after [`SPLIT_MINE_32NDS`]/32
/// of [`SPLIT_UNIT`] items or of [`SPLIT_UNIT_WEIGHT`], whichever comes
/// first, then the helper's after the rest of either. None when the list
/// is neither long ([`SPLIT_MIN`]) nor heavy ([`SPLIT_MIN_WEIGHT`]), or
/// when the helper would get little of its weight ([`HELPER_SHARE_MIN`]).
fn split_units(weights: &[usize]) -> Vec<(usize, usize, usize)> {
    if !long_or_heavy(weights.len(), || weights.iter().sum()) {
        return Vec::new();
    }
    // The end of a part from `start` that holds `share`/32 of a unit.
    let part = |start: usize, share: usize| {
        let (most, heaviest) = (SPLIT_UNIT * share / 32, SPLIT_UNIT_WEIGHT * share / 32);
        let (mut end, mut total) = (start, 0);
        while end < weights.len() && end - start < most && total < heaviest {
            total += weights[end];
            end += 1;
        }
        end
    };
    let mut units = Vec::new();
    let mut start = 0;
    while start < weights.len() {
        let mine = part(start, SPLIT_MINE_32NDS);
        let end = part(mine, 32 - SPLIT_MINE_32NDS);
        units.push((start, mine - start, end));
        start = end;
    }
    // The helper's parts: when they weigh little (light nodes after a
    // heavy one, as in nested `If`s), the helper would wait for its units
    // while this thread writes the heavy items alone, and the lists nested
    // in them would be kept from the other core.
    let helpers: usize = units
        .iter()
        .flat_map(|&(start, mine, end)| &weights[start + mine..end])
        .sum();
    if helpers < weights.iter().sum::<usize>() / HELPER_SHARE_MIN {
        units.clear();
    }
    units
}

/// Whether items of `weights` (bytes of encoding) of at least
/// [`HEAVY_ITEM`] carry 3/4 of the list's weight or more.
fn mostly_heavy(weights: &[usize]) -> bool {
    let total: usize = weights.iter().sum();
    let heavy: usize = weights.iter().filter(|&&w| w >= HEAVY_ITEM).sum();
    heavy > 0 && heavy >= total / 4 * 3
}

/// The weight (bytes of encoding) of an item heavy enough to hold a number
/// list that a print sharing a helper splits itself: [`PARALLEL_MIN_SHARED`]
/// floats of 4 bytes.
const HEAVY_ITEM: usize = PARALLEL_MIN_SHARED * 4;

/// [`split_units`] leaves a list whole when the helper's parts would weigh
/// less than 1/`HELPER_SHARE_MIN` of it.
const HELPER_SHARE_MIN: usize = 4;

/// Lists of at least this many items (nodes) are written by
/// [`Sink::each_item`] on two threads.
const SPLIT_MIN: usize = 1 << 10;

/// Lists whose items weigh at least this much (bytes of encoding) are
/// written by [`Sink::each_item`] on two threads, however few they are.
const SPLIT_MIN_WEIGHT: usize = 1 << 20;

/// The most items of a list that [`Sink::each_item`] passes through its
/// pipeline at a time.
const SPLIT_UNIT: usize = 1 << 10;

/// The most weight (bytes of encoding) of a unit of [`Sink::each_item`]'s
/// pipeline, give or take an item.
const SPLIT_UNIT_WEIGHT: usize = 1 << 19;

/// The share of each unit, in 32nds, that [`Sink::each_item`]'s own
/// thread writes (besides handing the whole unit on). 17 measured best
/// from Python (`to_text(bytes)` of initializers and nodes-4N 4 to 6% less
/// wall time than at 14, 20 worse; file to file the same):
/// `bench/results.md`, "Session 9: the session's branches merged".
const SPLIT_MINE_32NDS: usize = 17;

/// Room for the text of items of [`Sink::each_item`] that weigh `weights`
/// (bytes of encoding), reserved at once so that the text is not copied
/// (and its memory touched anew) each time it doubles: [`TEXT_PER_BYTE`]
/// a byte, or [`ITEM_TEXT`] an item if that is more.
fn text_room(weights: &[usize]) -> usize {
    let weight: usize = weights.iter().sum();
    let items = weights.len().saturating_mul(ITEM_TEXT);
    weight.saturating_mul(TEXT_PER_BYTE).max(items)
}

/// About the most text an item of [`Sink::each_item`] takes (a node: 160
/// bytes on average in the node-heavy benchmark), to reserve room by.
const ITEM_TEXT: usize = 256;

/// About the most text a byte of an item's encoding makes: a float of 4
/// bytes takes up to 16 with its separator (numbers are the bulk of heavy
/// items).
const TEXT_PER_BYTE: usize = 4;

/// Lists at least this long are formatted on two threads, a helper
/// started for the list alone if need be (its start costs 50 to 70 µs).
const PARALLEL_MIN: usize = 1 << 15;

/// Lists at least this long are formatted on two threads in a print that
/// shares one helper between its lists (started once, at the first).
const PARALLEL_MIN_SHARED: usize = 1 << 12;

/// The items of a list that [`Sink::fill_pipelined`] passes through its
/// pipeline at a time.
const SEGMENT: usize = 1 << 14;

/// The share of each segment, in 32nds, that [`Sink::fill_pipelined`]'s
/// own thread formats and lays out (besides handing the whole segment on)
/// at the start of a print, before [`next_share`] follows the threads'
/// pace.
pub(super) const MINE_32NDS: usize = 14;

/// The least and most of each segment, in 32nds, that [`next_share`] gives
/// [`Sink::fill_pipelined`]'s own thread.
const MINE_32NDS_RANGE: std::ops::RangeInclusive<usize> = 2..=30;

/// The share of the next segments, in 32nds, that
/// [`Sink::fill_pipelined`]'s own thread formats, after its share `share`
/// of a segment whose helper's part it `waited` for or not: one 32nd more
/// when it waited (the helper's part was the longer), one less when the
/// helper's part was ready, the same when there was no helper.
fn next_share(share: usize, waited: Waited) -> usize {
    let next = match waited {
        Waited::Yes => share + 1,
        Waited::No => share.saturating_sub(1),
        Waited::MadeHere => share,
    };
    next.clamp(*MINE_32NDS_RANGE.start(), *MINE_32NDS_RANGE.end())
}

/// Numbers formatted by [`Sink::fill_pipelined`]: their texts one after
/// the other, each followed by room for a whole [`NUMBER_MAX`] text, and
/// their lengths.
#[derive(Default)]
pub(crate) struct Formatted {
    texts: Vec<u8>,
    lens: Vec<u8>,
}

impl Formatted {
    /// Replaces the texts with those of `items` ([`each_text`]).
    fn format<T: Number>(&mut self, items: &[T]) {
        let size = (items.len() + 1) * NUMBER_MAX;
        if self.texts.len() < size {
            self.texts.resize(size, 0);
        }
        self.lens.clear();
        let mut start = 0;
        each_text(items, |text| {
            let out: &mut [u8; NUMBER_MAX] = (&mut self.texts[start..start + NUMBER_MAX])
                .try_into()
                .expect("room for one number");
            let n = copy_small(out, text.as_bytes());
            self.lens.push(n as u8);
            start += n;
        });
    }
}

/// Calls `each` on the text of each of `items`, in order, formatted
/// [`BATCH`] at a time before any of them is handed on: a text read back
/// right after it is written waits for the writes to reach the cache (the
/// CPU cannot forward zmij's stores of mixed widths to the wider loads of
/// a copy), which took most of the time of copying each text as soon as
/// it was made (`bench/results.md`, "Weights printed from Python, session
/// 8").
#[inline(always)]
fn each_text<T: Number>(items: &[T], mut each: impl FnMut(&str)) {
    let mut buffers: [T::Buffer; BATCH] = std::array::from_fn(|_| T::buffer());
    for batch in items.chunks(BATCH) {
        let mut texts = [""; BATCH];
        for ((x, buffer), text) in batch.iter().zip(&mut buffers).zip(&mut texts) {
            *text = x.format(buffer);
        }
        texts[..batch.len()].iter().for_each(|text| each(text));
    }
}

/// The numbers [`each_text`] formats before it hands their texts on.
const BATCH: usize = 8;

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
    use std::io::Write;

    use super::*;
    use crate::printer::number_text::PrintedFloat;
    use crate::printer::sink::testing::{render, render_with};
    use crate::Printer;

    #[test]
    fn long_item_lists_split_between_threads_write_what_one_thread_writes() {
        // Units ending with a part of each thread, the last unit of one
        // item the helper's alone; a few heavy items, cut by weight.
        for (count, each) in [
            (3 * SPLIT_MIN + 1, 1),
            (4 * SPLIT_UNIT.max(SPLIT_MIN) - 3, 1),
            (41, SPLIT_UNIT_WEIGHT / 7),
        ] {
            let items: Vec<String> = (0..count).map(|i| format!("n{i}")).collect();
            let weight = |_: &String| each;
            let weights: Vec<usize> = items.iter().map(weight).collect();
            assert!(!split_units(&weights).is_empty());
            let print = |may_split: bool| {
                render_with(Printer::new().compat(true), |s| {
                    s.may_split = may_split;
                    s.at("graph", |s| {
                        s.indent();
                        s.each_item(&items, weight, |s, _: &mut (), i, x| {
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
    fn short_light_lists_and_heavy_items_with_light_ones_stay_on_one_thread() {
        let weights = [
            vec![1; SPLIT_MIN - 1],
            vec![10, 10, SPLIT_MIN_WEIGHT],
            vec![10, SPLIT_MIN_WEIGHT, 10, 10],
            vec![SPLIT_MIN_WEIGHT, SPLIT_MIN_WEIGHT / 8, SPLIT_MIN_WEIGHT / 8],
        ];
        for weights in weights {
            assert_eq!(split_units(&weights), vec![]);
        }
        let units = split_units(&[SPLIT_MIN_WEIGHT; 3]);
        assert_eq!(units, vec![(0, 1, 2), (2, 1, 3)]);
    }

    /// What `fill_numbers` prints of `items` (at `level`, filled or not),
    /// as [`Sink::fill`] prints them item by item with `one`: the same
    /// text, into a writer and in memory, on one thread, and on two (with
    /// the helper of a print, shared, or one for the list alone).
    fn assert_fill_matches<T: Number>(
        items: &[T],
        level: usize,
        fill: bool,
        one: impl Fn(&mut Sink<'_>, &T),
    ) {
        let opts = Printer::new();
        let open = |s: &mut Sink<'_>| {
            (0..level).for_each(|_| s.indent());
            s.text("{");
        };
        let slow = render_with(opts, |s| {
            open(s);
            s.fill(fill, items, |s, _, x| one(s, x));
            s.text("}");
        })
        .0;
        let fast = |s: &mut Sink<'_>| {
            open(s);
            s.fill_numbers(fill, items);
            s.text("}");
        };
        let count = items.len();
        /// Runs its work one way.
        type Way = fn(&mut dyn FnMut());
        let ways: [(&str, Way); 3] = [
            ("shared", |f| crate::parallel::with_helper(f)),
            ("alone", |f| f()),
            ("one thread", |f| crate::parallel::with_threads(false, f)),
        ];
        for (way, run) in ways {
            let (mut streamed, mut memory) = (String::new(), String::new());
            run(&mut || {
                streamed = render_with(opts, fast).0;
                let mut sink = Sink::in_memory(opts);
                fast(&mut sink);
                memory = sink.finish_text().unwrap().0;
            });
            assert!(streamed == slow, "{way}: {count} items, {level}, {fill}");
            assert!(memory == slow, "{way}: {count} items in memory");
        }
    }

    #[test]
    fn long_lists_print_the_same_whatever_share_this_thread_formats() {
        let floats: Vec<f32> = (0..3 * SEGMENT)
            .map(|i| match i % 7 {
                0 => f32::NAN,
                1 => -0.0,
                2 => f32::NEG_INFINITY,
                _ => i as f32 / 3.0 - 100.0,
            })
            .collect();
        let int64s: Vec<i64> = (0..3 * SEGMENT as i64).map(|i| i * -7919).collect();
        let doubles: Vec<f64> = (0..3 * SEGMENT).map(|i| 1.0 / (i as f64 + 0.5)).collect();
        let (first, last) = (*MINE_32NDS_RANGE.start(), *MINE_32NDS_RANGE.end());
        for count in [SEGMENT + 1, 2 * SEGMENT - 1, 3 * SEGMENT] {
            for share in [first, first + 1, MINE_32NDS, last - 1, last] {
                let fast = |fill: &dyn Fn(&mut Sink<'_>)| {
                    crate::parallel::with_helper(|| {
                        let mut sink = Sink::in_memory(Printer::new());
                        sink.indent();
                        sink.number_share = share;
                        fill(&mut sink);
                        sink.finish_text().unwrap().0
                    })
                };
                let slow = |fill: &dyn Fn(&mut Sink<'_>)| {
                    render(|s| {
                        s.indent();
                        fill(s)
                    })
                };
                let floats = &floats[..count];
                let (f, s) = (
                    fast(&|s| s.fill_numbers(true, floats)),
                    slow(&|s| s.fill(true, floats, |s, _, x| s.float(*x))),
                );
                assert!(f == s, "{count} floats, {share}/32");
                let int64s = &int64s[..count];
                let (f, s) = (
                    fast(&|s| s.fill_numbers(true, int64s)),
                    slow(&|s| s.fill(true, int64s, |s, _, x| s.int(*x))),
                );
                assert!(f == s, "{count} int64s, {share}/32");
                let doubles = &doubles[..count];
                let (f, s) = (
                    fast(&|s| s.fill_numbers(false, doubles)),
                    slow(&|s| s.fill(false, doubles, |s, _, x| s.float(*x))),
                );
                assert!(f == s, "{count} doubles, {share}/32");
            }
        }
    }

    /// The texts `Formatted::format` makes of `items`, one by one.
    fn formatted_texts<T: Number>(items: &[T]) -> Vec<String> {
        let mut formatted = Formatted::default();
        formatted.format(items);
        let mut start = 0;
        (formatted.lens.iter())
            .map(|&n| {
                let text = &formatted.texts[start..start + usize::from(n)];
                start += usize::from(n);
                String::from_utf8(text.to_vec()).unwrap()
            })
            .collect()
    }

    /// What `Number::write` writes of each of `items`.
    fn written_texts<T: Number>(items: &[T]) -> Vec<String> {
        (items.iter())
            .map(|x| {
                let mut text = [0; NUMBER_MAX];
                let n = x.write(&mut text);
                String::from_utf8(text[..n].to_vec()).unwrap()
            })
            .collect()
    }

    #[test]
    fn numbers_formatted_in_batches_are_the_numbers_written_one_by_one() {
        let floats = [
            0.0,
            -0.0,
            1.0,
            -1.5e-7,
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
            0.1,
            -123.456,
            1e16,
            3.0e-6,
            7.0,
        ];
        let doubles = [
            -0.0,
            f64::NAN,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
            0.1,
            -2.5,
        ];
        let int32s = [0, -1, i32::MIN, i32::MAX, 10, -100_000];
        let int64s = [0, i64::MIN, i64::MAX, -9, 1 << 40];
        let uint64s = [0, u64::MAX, 1, 1 << 63];
        // Every length from empty to past two batches: a last batch of every size.
        for len in 0..=2 * BATCH + 1 {
            let pick = |i: usize| i * 7 % 16;
            let floats: Vec<f32> = (0..len).map(|i| floats[pick(i)]).collect();
            assert_eq!(formatted_texts(&floats), written_texts(&floats));
            let doubles: Vec<f64> = (0..len).map(|i| doubles[pick(i) % 7]).collect();
            assert_eq!(formatted_texts(&doubles), written_texts(&doubles));
            let int32s: Vec<i32> = (0..len).map(|i| int32s[pick(i) % 6]).collect();
            assert_eq!(formatted_texts(&int32s), written_texts(&int32s));
            let int64s: Vec<i64> = (0..len).map(|i| int64s[pick(i) % 5]).collect();
            assert_eq!(formatted_texts(&int64s), written_texts(&int64s));
            let uint64s: Vec<u64> = (0..len).map(|i| uint64s[pick(i) % 4]).collect();
            assert_eq!(formatted_texts(&uint64s), written_texts(&uint64s));
        }
        // A buffer reused for a shorter list holds that list only.
        let mut formatted = Formatted::default();
        formatted.format(&floats);
        formatted.format(&floats[..3]);
        assert_eq!(formatted.lens.len(), 3);
    }

    #[test]
    fn this_threads_share_follows_who_waited_within_its_range() {
        let (first, last) = (*MINE_32NDS_RANGE.start(), *MINE_32NDS_RANGE.end());
        assert_eq!(next_share(MINE_32NDS, Waited::Yes), MINE_32NDS + 1);
        assert_eq!(next_share(MINE_32NDS, Waited::No), MINE_32NDS - 1);
        assert_eq!(next_share(MINE_32NDS, Waited::MadeHere), MINE_32NDS);
        assert_eq!(next_share(last, Waited::Yes), last);
        assert_eq!(next_share(first, Waited::No), first);
    }

    #[test]
    fn number_fill_matches_item_by_item() {
        // On either side of the two-thread path's thresholds, and segments
        // ending with a part of each thread (the last of one or two items
        // is the helper's alone).
        let counts = [
            PARALLEL_MIN_SHARED - 1,
            PARALLEL_MIN_SHARED,
            PARALLEL_MIN_SHARED + 1,
            SEGMENT - 1,
            PARALLEL_MIN - 1,
            PARALLEL_MIN,
            SEGMENT + PARALLEL_MIN + 7,
            2 * SEGMENT + 1,
            2 * SEGMENT + 2,
        ];
        let count = counts.into_iter().max().unwrap();
        let mut bits = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            bits
        };
        let floats: Vec<f32> = (0..count)
            .map(|i| {
                let x = f32::from_bits(next() as u32);
                match i % 5 {
                    0 if x.has_text() => x,
                    1 => (x.to_bits() % 2000) as f32 / 1e4,
                    2 => -1e-7 * (i as f32),
                    _ => i as f32 * 0.25,
                }
            })
            .collect();
        let doubles: Vec<f64> = (0..count)
            .map(|i| match f64::from_bits(next()) {
                x if i % 3 > 0 && x.has_text() => x,
                _ => i as f64 / 3.0,
            })
            .collect();
        let int64s: Vec<i64> = (0..count).map(|_| next() as i64).collect();
        let int32s: Vec<i32> = (0..count).map(|_| next() as i32).collect();
        let uint64s: Vec<u64> = (0..count).map(|_| next()).collect();
        let configurations = [(1, true), (3, true), (0, false), (20, true)];
        for (count, &(level, fill)) in counts.into_iter().zip(configurations.iter().cycle()) {
            assert_fill_matches(&floats[..count], level, fill, |s, x| s.float(*x));
            assert_fill_matches(&doubles[..count], level, fill, |s, x| s.float(*x));
            assert_fill_matches(&int64s[..count], level, fill, |s, x| s.int(*x));
            assert_fill_matches(&int32s[..count], level, fill, |s, x| s.int(*x));
            assert_fill_matches(&uint64s[..count], level, fill, |s, x| s.int(*x));
        }
    }

    #[test]
    fn a_print_starts_one_helper_for_all_its_lists_and_none_for_short_ones() {
        let short = vec![0.5f32; PARALLEL_MIN_SHARED - 1];
        let long = vec![0.5f32; PARALLEL_MIN_SHARED];
        let helpers = |lists: &[&[f32]]| {
            crate::parallel::tests::helpers_of(|| {
                crate::parallel::with_helper(|| {
                    render(|s| lists.iter().for_each(|list| s.fill_numbers(true, list)))
                })
            })
            .0
        };
        assert_eq!(helpers(&[&short, &short, &short]), 0);
        let two_cores = crate::parallel::available();
        assert_eq!(
            helpers(&[&short, &long, &long, &long]),
            usize::from(two_cores)
        );
    }

    #[test]
    fn only_a_heavy_binary_print_shares_a_helper_between_its_lists() {
        use prost::Message as _;
        // Lists of 4Ki floats: 16 KiB of encoding each.
        let model = |lists: usize| {
            let values = vec!["0.5"; PARALLEL_MIN_SHARED].join(", ");
            let weights: Vec<String> = (0..lists)
                .map(|i| format!("float[{PARALLEL_MIN_SHARED}] w{i} = {{{values}}}"))
                .collect();
            let text = format!(
                "<ir_version: 10, opset_import: [\"\": 21]>\n\
                 g (float x) => (float y) <{}> {{ y = Relu(x) }}",
                weights.join(", ")
            );
            crate::parse_model(&text).unwrap().encode_to_vec()
        };
        let two_cores = crate::parallel::available();
        for (lists, shared) in [(8, false), (70, true)] {
            let bytes = model(lists);
            assert_eq!(bytes.len() >= super::super::SHARED_HELPER_MIN, shared);
            let (started, printed) = crate::parallel::tests::helpers_of(|| {
                Printer::new().print_binary_model(&bytes).unwrap().text
            });
            assert_eq!(started, usize::from(shared && two_cores), "{lists} lists");
            let alone = Printer::new().threads(false).print_binary_model(&bytes);
            assert!(printed == alone.unwrap().text, "{lists} lists");
        }
    }

    #[test]
    fn heavy_items_of_a_print_sharing_a_helper_split_only_their_numbers() {
        use prost::Message as _;
        // `count` initializers of `floats` floats each, then `light` ones
        // of two floats.
        let model = |count: usize, floats: usize, light: usize| {
            let values = vec!["0.25"; floats].join(", ");
            let weights = (0..count)
                .map(|i| format!("float[{floats}] w{i} = {{{values}}}"))
                .chain((0..light).map(|i| format!("float[2] l{i} = {{1.5, -2.0}}")));
            let text = format!(
                "<ir_version: 10, opset_import: [\"\": 21]>\n\
                 g (float x) => (float y) <{}> {{ y = Relu(x) }}",
                weights.collect::<Vec<_>>().join(", ")
            );
            crate::parse_model(&text).unwrap().encode_to_vec()
        };
        let two_cores = crate::parallel::available();
        // Lists long enough for helpers of their own (split as items, the
        // thread writing the helper's items would start one for each), heavy
        // items among light ones, and light items only (split as items).
        for (count, floats, light) in [
            (10, PARALLEL_MIN, 0),
            (70, HEAVY_ITEM / 4, 10_000),
            (0, 0, 60_000),
        ] {
            let bytes = model(count, floats, light);
            assert!(bytes.len() >= super::super::SHARED_HELPER_MIN);
            let (started, printed) = crate::parallel::tests::helpers_of(|| {
                Printer::new().print_binary_model(&bytes).unwrap().text
            });
            assert_eq!(started, usize::from(two_cores), "{count} × {floats}");
            let alone = Printer::new().threads(false).print_binary_model(&bytes);
            assert!(printed == alone.unwrap().text, "{count} × {floats}");
        }
    }

    #[test]
    fn lists_in_a_nested_graph_share_the_prints_helper_and_print_as_one_thread() {
        use prost::Message as _;
        // An `If` whose branch holds `Constant`s of `SEGMENT` floats, one
        // level down, and a `Loop` body two levels down: one node at the
        // top, whose lists are all in graph attributes.
        let values: Vec<String> = (0..SEGMENT)
            .map(|i| format!("{}", i as f32 / 7.0))
            .collect();
        let constant = |i: usize| {
            let values = values.join(", ");
            format!("c{i} = Constant <value: tensor = float[{SEGMENT}] {{{values}}}> ()")
        };
        let constants = |range: std::ops::Range<usize>| range.map(constant).collect::<Vec<_>>();
        let text = format!(
            "<ir_version: 10, opset_import: [\"\": 21]>\n\
             g (bool b, int64 n) => (float y) {{\n\
               y = If (b) <then_branch: graph = t () => (float c0) {{\n{}\n\
                 r = Loop <body: graph = l (int64 i, bool c) => (bool c) {{\n{}\n}}> (n, b)\n\
               }}, else_branch: graph = e () => (float c12) {{\n{}\n}}>\n\
             }}",
            constants(0..6).join("\n"),
            constants(6..12).join("\n"),
            constants(12..18).join("\n"),
        );
        let model = crate::parse_model(&text).unwrap();
        let bytes = model.encode_to_vec();
        assert!(bytes.len() >= super::super::SHARED_HELPER_MIN);
        let (started, printed) = crate::parallel::tests::helpers_of(|| {
            Printer::new().print_binary_model(&bytes).unwrap().text
        });
        assert_eq!(started, usize::from(crate::parallel::available()));
        let alone = Printer::new().threads(false).print_binary_model(&bytes);
        assert!(printed == alone.unwrap().text);
        assert!(printed == crate::to_text(&model));
        // Cut anywhere, in a list or between them: the same text or error,
        // and the same bytes streamed before the error, on two threads or one.
        for cut in (0..bytes.len()).step_by(bytes.len() / 29) {
            let cut = &bytes[..cut];
            let print = |threads: bool| {
                let printer = Printer::new().threads(threads);
                let mut out = Vec::new();
                let written = printer.write_binary_model(cut, &mut out);
                let printed = printer.print_binary_model(cut).map(|p| p.text);
                (format!("{printed:?}"), format!("{written:?}"), out)
            };
            assert!(print(true) == print(false), "cut at {}", cut.len());
        }
    }

    #[test]
    fn a_list_is_mostly_heavy_from_three_quarters_of_its_weight() {
        let light = HEAVY_ITEM - 1;
        assert!(mostly_heavy(&[HEAVY_ITEM, HEAVY_ITEM, HEAVY_ITEM, light]));
        assert!(mostly_heavy(&[
            3 * HEAVY_ITEM,
            HEAVY_ITEM / 2,
            HEAVY_ITEM / 2
        ]));
        assert!(!mostly_heavy(&[
            3 * HEAVY_ITEM,
            HEAVY_ITEM / 2,
            HEAVY_ITEM / 2 + 4
        ]));
        assert!(!mostly_heavy(&[light; 100]));
        assert!(!mostly_heavy(&[]));
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
