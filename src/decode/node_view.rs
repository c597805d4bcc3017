//! A node of a binary model's main graph read straight from its encoding
//! for the print ([`NodeView`]): its names and strings borrowed from the
//! input and checked as they are read, its numbers in lists kept from one
//! node to the next, no `NodeProto` built.
//!
//! The view holds only the fields most nodes have: the names, the op type,
//! domain and overload, and attributes of a name, a type and the value
//! fields of numbers, strings, tensors and graphs (`f`, `i`, `s`,
//! `floats`, `ints`, `strings`, `t` read by a `TensorView`, the
//! `Constant`s of exported models, and `g` and `graphs` read by a
//! `GraphView`, the bodies of `If`, `Loop` and `Scan`, whose nodes are
//! views too, at every depth). It reads them as `prost` does (the last of
//! a singular field's occurrences wins, packed and unpacked numbers both
//! append) and accepts only what the walk accepts (known fields of the
//! right wire type, varints and lengths that read, UTF-8 strings, an
//! attribute type that fits its `int32`, messages nested at most
//! [`MAX_MESSAGE_DEPTH`] deep). Anything else, well-formed or not, is left
//! to the slow path, which walks the node and decodes it with `prost`: the
//! view never reports an error of its own, so every error is the walk's.
//! A node is read whole, its graphs' nodes included, before any of it is
//! printed.

use std::ops::Range;

use super::graph_view::GraphView;
use super::kept_list::KeptList;
use super::tensor_view::TensorView;
use super::{read_varint, MAIN_GRAPH_ITEM_DEPTH, MAX_MESSAGE_DEPTH};
use crate::proto::{AttributeProto, NodeProto};
use crate::tensor_data::byte_groups;

/// A node read from its encoding (see the module's documentation).
#[derive(Default)]
pub(crate) struct NodeView<'a> {
    pub(crate) input: Vec<&'a str>,
    pub(crate) output: Vec<&'a str>,
    pub(crate) name: Option<&'a str>,
    pub(crate) op_type: Option<&'a str>,
    pub(crate) domain: Option<&'a str>,
    pub(crate) overload: Option<&'a str>,
    pub(crate) attribute: Vec<AttributeView<'a>>,
    /// The `ints` of every attribute, one after another.
    pub(crate) ints: Vec<i64>,
    /// The `floats` of every attribute, one after another.
    pub(crate) floats: Vec<f32>,
    /// The `strings` of every attribute, one after another.
    pub(crate) strings: Vec<&'a [u8]>,
    /// The `t` of every attribute that has one, one after another (their
    /// views kept from one node to the next).
    pub(crate) tensors: KeptList<TensorView<'a>>,
    /// The `g` and `graphs` of every attribute, one after another (their
    /// views kept from one node to the next, at every depth).
    pub(crate) graphs: KeptList<GraphView<'a>>,
    /// The length of its encoding.
    pub(crate) encoded_len: usize,
}

/// An attribute of a [`NodeView`]: the fields the view holds, its lists
/// as ranges of the node's.
#[derive(Default)]
pub(crate) struct AttributeView<'a> {
    pub(crate) name: Option<&'a str>,
    /// The `type` field (`AttributeType`), as `prost` holds it.
    pub(crate) r#type: Option<i32>,
    pub(crate) f: Option<f32>,
    pub(crate) i: Option<i64>,
    pub(crate) s: Option<&'a [u8]>,
    pub(crate) floats: Range<usize>,
    pub(crate) ints: Range<usize>,
    pub(crate) strings: Range<usize>,
    /// The index of its `t` in the node's `tensors`.
    pub(crate) t: Option<usize>,
    /// The index of its `g` in the node's `graphs`.
    pub(crate) g: Option<usize>,
    /// Its `graphs`, a range of the node's.
    pub(crate) graphs: Range<usize>,
}

/// The key (field number and wire type) of a field the view reads.
pub(super) const fn key(number: u64, wire_type: u64) -> u64 {
    number << 3 | wire_type
}

pub(super) const VARINT: u64 = super::VARINT;
const FIXED64: u64 = super::FIXED64;
const FIXED32: u64 = super::FIXED32;
pub(super) const LEN: u64 = super::LEN;

/// The most an `AttributeProto.type` the view reads may be: the walk checks
/// that it fits in 32 bits, every value up to this does.
const TYPE_MAX: u64 = 14;

impl<'a> NodeView<'a> {
    /// Reads the node `bytes` encode into this view, cleared first (its
    /// lists keep their room); `false`, the view's content unspecified,
    /// when the node holds a field the view does not, or does not read.
    pub(crate) fn read(&mut self, bytes: &'a [u8]) -> bool {
        self.read_at(Reader::with_text(bytes), MAIN_GRAPH_ITEM_DEPTH)
            .is_some()
    }

    /// Reads the node `reader` reads, nested `depth` deep in the model,
    /// into this view, cleared first: `None` where [`NodeView::read`] is
    /// `false`.
    pub(super) fn read_at(&mut self, reader: Reader<'a>, depth: usize) -> Option<()> {
        self.clear();
        self.encoded_len = reader.remaining();
        self.read_node(reader, depth)
    }

    fn clear(&mut self) {
        self.input.clear();
        self.output.clear();
        (self.name, self.op_type, self.domain, self.overload) = (None, None, None, None);
        self.attribute.clear();
        self.ints.clear();
        self.floats.clear();
        self.strings.clear();
        self.tensors.clear();
        self.graphs.clear();
    }

    fn read_node(&mut self, mut reader: Reader<'a>, depth: usize) -> Option<()> {
        while !reader.done() {
            match reader.varint()? {
                k if k == key(1, LEN) => self.input.push(reader.string()?),
                k if k == key(2, LEN) => self.output.push(reader.string()?),
                k if k == key(3, LEN) => self.name = Some(reader.string()?),
                k if k == key(4, LEN) => self.op_type = Some(reader.string()?),
                k if k == key(7, LEN) => self.domain = Some(reader.string()?),
                k if k == key(8, LEN) => self.overload = Some(reader.string()?),
                k if k == key(5, LEN) => {
                    let attribute = reader.message()?;
                    let attribute = self.read_attribute(attribute, within_nesting(depth + 1)?)?;
                    self.attribute.push(attribute);
                }
                _ => return None,
            }
        }
        Some(())
    }

    /// Reads an attribute, nested `depth` deep in the model.
    fn read_attribute(
        &mut self,
        mut reader: Reader<'a>,
        depth: usize,
    ) -> Option<AttributeView<'a>> {
        let mut a = AttributeView {
            floats: self.floats.len()..self.floats.len(),
            ints: self.ints.len()..self.ints.len(),
            strings: self.strings.len()..self.strings.len(),
            graphs: self.graphs.len()..self.graphs.len(),
            ..AttributeView::default()
        };
        while !reader.done() {
            match reader.varint()? {
                k if k == key(1, LEN) => a.name = Some(reader.string()?),
                k if k == key(2, FIXED32) => a.f = Some(reader.float()?),
                k if k == key(3, VARINT) => a.i = Some(int64(reader.varint()?)),
                k if k == key(4, LEN) => a.s = Some(reader.payload()?),
                k if k == key(7, FIXED32) => self.floats.push(reader.float()?),
                k if k == key(7, LEN) => {
                    let run = reader.payload()?;
                    if run.len() % 4 != 0 {
                        return None;
                    }
                    let floats = byte_groups(run).iter().map(|&b| f32::from_le_bytes(b));
                    self.floats.extend(floats);
                }
                k if k == key(8, VARINT) => self.ints.push(int64(reader.varint()?)),
                k if k == key(8, LEN) => reader.message()?.packed(&mut self.ints, some_int64)?,
                k if k == key(9, LEN) => self.strings.push(reader.payload()?),
                // A second `t` would be merged into the first: left.
                k if k == key(5, LEN) && a.t.is_none() => {
                    within_nesting(depth + 1)?;
                    a.t = Some(self.tensors.len());
                    self.tensors.push_kept().read_from(reader.message()?)?;
                }
                // A second `g` would be merged into the first, and a `g`
                // among `graphs` would break their range: left.
                k if k == key(6, LEN) && a.g.is_none() && self.graphs.len() == a.graphs.start => {
                    a.g = Some(self.graphs.len());
                    self.read_graph(reader.message()?, depth)?;
                    a.graphs = self.graphs.len()..self.graphs.len();
                }
                k if k == key(11, LEN) && a.g.is_none() => {
                    self.read_graph(reader.message()?, depth)?;
                }
                k if k == key(20, VARINT) => {
                    let value = reader.varint()?;
                    a.r#type = Some(i32::try_from(value).ok().filter(|_| value <= TYPE_MAX)?);
                }
                _ => return None,
            }
        }
        a.floats.end = self.floats.len();
        a.ints.end = self.ints.len();
        a.strings.end = self.strings.len();
        a.graphs.end = self.graphs.len();
        Some(a)
    }

    /// Reads the graph `reader` reads, a value of an attribute nested
    /// `depth` deep in the model, into the next of `graphs`.
    fn read_graph(&mut self, reader: Reader<'a>, depth: usize) -> Option<()> {
        let depth = within_nesting(depth + 1)?;
        self.graphs.push_kept().read(reader, depth)
    }
}

impl NodeView<'_> {
    /// The node as the IR holds it: what `prost` decodes of its encoding.
    pub(crate) fn to_proto(&self) -> NodeProto {
        let names = |list: &[&str]| list.iter().map(|name| (*name).to_owned()).collect();
        NodeProto {
            input: names(&self.input),
            output: names(&self.output),
            name: self.name.map(str::to_owned),
            op_type: self.op_type.map(str::to_owned),
            domain: self.domain.map(str::to_owned),
            overload: self.overload.map(str::to_owned),
            attribute: self.attribute.iter().map(|a| a.to_proto(self)).collect(),
            ..NodeProto::default()
        }
    }
}

/// `depth`, when a message that deep in the model is within
/// [`MAX_MESSAGE_DEPTH`] (the walk refuses it beyond).
pub(super) fn within_nesting(depth: usize) -> Option<usize> {
    (depth <= MAX_MESSAGE_DEPTH).then_some(depth)
}

/// [`int64`], for [`Reader::packed`].
pub(super) fn some_int64(value: u64) -> Option<i64> {
    Some(int64(value))
}

/// An `int64` from its varint, as `prost` reads it.
#[allow(clippy::cast_possible_wrap)]
pub(super) fn int64(value: u64) -> i64 {
    value as i64
}

/// Reads the fields of one message, a part of a node's, a graph's or a
/// tensor's encoding: `None` where the walk could refuse.
#[derive(Clone, Copy)]
pub(super) struct Reader<'a> {
    /// The encoding the message is a part of.
    bytes: &'a [u8],
    /// The longest start of `bytes` that is UTF-8, checked at once: a
    /// string inside it, starting and ending on a character's boundary, is
    /// UTF-8 with no check of its own (empty: every string is checked).
    text: &'a str,
    pos: usize,
    /// Where the message ends.
    end: usize,
}

impl<'a> Reader<'a> {
    /// A reader of the tensor `bytes`, which checks each string it reads.
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Reader {
            bytes,
            text: "",
            pos: 0,
            end: bytes.len(),
        }
    }

    /// A reader of the node `bytes`, whose strings (names, most of them
    /// short) are checked as UTF-8 all at once, up to the first byte that
    /// is not (most often a number's).
    pub(super) fn with_text(bytes: &'a [u8]) -> Self {
        let text = std::str::from_utf8(bytes).unwrap_or_else(|error| {
            std::str::from_utf8(&bytes[..error.valid_up_to()]).unwrap_or_default()
        });
        Reader {
            text,
            ..Reader::new(bytes)
        }
    }

    pub(super) fn done(&self) -> bool {
        self.pos >= self.end
    }

    /// The encoding the message is a part of.
    pub(super) fn input(&self) -> &'a [u8] {
        self.bytes
    }

    /// Where the reader is in [`Reader::input`].
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// The bytes of the message left to read.
    pub(super) fn remaining(&self) -> usize {
        self.end - self.pos
    }

    /// Skips the value of the field whose key (tag) was just read; `None`
    /// for a wire type the schema has no field of.
    pub(super) fn skip(&mut self, key: u64) -> Option<()> {
        match key & 7 {
            VARINT => self.varint().map(drop),
            FIXED64 => self.fixed(8).map(drop),
            LEN => self.message().map(drop),
            FIXED32 => self.fixed(4).map(drop),
            _ => None,
        }
    }

    /// The next `width` bytes.
    fn fixed(&mut self, width: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(width).filter(|&end| end <= self.end)?;
        let bytes = &self.bytes[self.pos..end];
        self.pos = end;
        Some(bytes)
    }

    #[inline]
    pub(super) fn varint(&mut self) -> Option<u64> {
        // Tags and lengths of names: one byte.
        if let Some(&byte) = self.bytes.get(self.pos).filter(|&&b| b < 0x80) {
            if self.pos < self.end {
                self.pos += 1;
                return Some(u64::from(byte));
            }
        }
        let (value, next) = read_varint(self.bytes, self.pos, self.end).ok()?;
        self.pos = next;
        Some(value)
    }

    /// A length-delimited payload, read by a reader of its own.
    pub(super) fn message(&mut self) -> Option<Reader<'a>> {
        let len = usize::try_from(self.varint()?).ok()?;
        let end = self.pos.checked_add(len).filter(|&end| end <= self.end)?;
        let inner = Reader { end, ..*self };
        self.pos = end;
        Some(inner)
    }

    /// A length-delimited payload.
    pub(super) fn payload(&mut self) -> Option<&'a [u8]> {
        let inner = self.message()?;
        Some(&self.bytes[inner.pos..inner.end])
    }

    /// Appends the varints of the packed run this reader reads to `list`,
    /// each as `value` reads it.
    pub(super) fn packed<T>(
        mut self,
        list: &mut Vec<T>,
        value: fn(u64) -> Option<T>,
    ) -> Option<()> {
        while !self.done() {
            list.push(value(self.varint()?)?);
        }
        Some(())
    }

    pub(super) fn string(&mut self) -> Option<&'a str> {
        let inner = self.message()?;
        let range = inner.pos..inner.end;
        (self.text.get(range.clone())).or_else(|| std::str::from_utf8(&self.bytes[range]).ok())
    }

    fn float(&mut self) -> Option<f32> {
        let bytes = self.fixed(4)?;
        Some(f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }
}

impl AttributeView<'_> {
    /// The attribute as the IR holds it, the lists its `node`'s: what
    /// `prost` decodes of its encoding.
    pub(crate) fn to_proto(&self, node: &NodeView<'_>) -> AttributeProto {
        AttributeProto {
            name: self.name.map(str::to_owned),
            r#type: self.r#type,
            f: self.f,
            i: self.i,
            s: self.s.map(<[u8]>::to_vec),
            floats: node.floats[self.floats.clone()].to_vec(),
            ints: node.ints[self.ints.clone()].to_vec(),
            strings: (node.strings[self.strings.clone()].iter())
                .map(|s| s.to_vec())
                .collect(),
            t: self.t.map(|t| Box::new(node.tensors[t].to_proto())),
            g: self.g.map(|g| Box::new(node.graphs[g].to_proto())),
            graphs: (node.graphs[self.graphs.clone()].iter())
                .map(GraphView::to_proto)
                .collect(),
            ..AttributeProto::default()
        }
    }
}
