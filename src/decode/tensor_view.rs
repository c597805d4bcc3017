//! A tensor of a binary model read straight from its encoding for the
//! print ([`TensorView`]): its name and its elements borrowed from the
//! input (`raw_data`, or a packed `float_data`), no `TensorProto` built,
//! so that a weight's bytes reach the number formatting with no copy.
//!
//! The view holds only the fields the tensors of weights have: `dims`,
//! `data_type`, `name`, `raw_data`, one packed run of `float_data` and
//! of `double_data`, and `int32_data` and `int64_data` (the trip counts of
//! `Loop`s, shapes, axes, small integer weights). It reads them as `prost`
//! does (the last of a singular field's occurrences wins, packed and
//! unpacked integers both append) and accepts only what the walk accepts,
//! as the node view does (`node_view.rs`, whose reader it shares): any
//! other field, a second run of `float_data` or `double_data`, a
//! `data_type` beyond `i32::MAX`, an `int32_data` value wider than 32
//! bits, anything the walk could refuse, leaves the tensor to the walk and
//! `prost`, so every error is the walk's.

use super::fits_32_bits;
use super::node_view::{int64, key, some_int64, Reader, LEN, VARINT};
use crate::proto::TensorProto;
use crate::tensor_data::byte_groups;

/// A tensor read from its encoding (see the module's documentation).
#[derive(Default)]
pub(crate) struct TensorView<'a> {
    pub(crate) dims: Vec<i64>,
    pub(crate) data_type: Option<i32>,
    pub(crate) name: Option<&'a str>,
    pub(crate) raw_data: Option<&'a [u8]>,
    /// The `float_data`, as the encoding packs it: little-endian floats, a
    /// whole number of them.
    pub(crate) float_data: &'a [u8],
    /// The `double_data`, as the encoding packs it.
    pub(crate) double_data: &'a [u8],
    pub(crate) int32_data: Vec<i32>,
    pub(crate) int64_data: Vec<i64>,
    /// The length of its encoding.
    pub(crate) encoded_len: usize,
}

impl<'a> TensorView<'a> {
    /// Reads the tensor `bytes` encode into this view, cleared first;
    /// `false`, the view's content unspecified, when the tensor holds a
    /// field the view does not, or does not read.
    pub(crate) fn read(&mut self, bytes: &'a [u8]) -> bool {
        self.read_from(Reader::new(bytes)).is_some()
    }

    /// [`TensorView::read`] of the message `reader` reads.
    pub(super) fn read_from(&mut self, mut reader: Reader<'a>) -> Option<()> {
        self.dims.clear();
        self.int32_data.clear();
        self.int64_data.clear();
        (self.data_type, self.name, self.raw_data) = (None, None, None);
        (self.float_data, self.double_data) = (&[], &[]);
        self.encoded_len = reader.remaining();
        while !reader.done() {
            match reader.varint()? {
                k if k == key(1, VARINT) => self.dims.push(int64(reader.varint()?)),
                k if k == key(1, LEN) => reader.message()?.packed(&mut self.dims, some_int64)?,
                k if k == key(2, VARINT) => {
                    self.data_type = Some(i32::try_from(reader.varint()?).ok()?);
                }
                // A second run would be appended to the first: left.
                k if k == key(4, LEN) && self.float_data.is_empty() => {
                    self.float_data = Some(reader.payload()?).filter(|run| run.len() % 4 == 0)?;
                }
                k if k == key(5, VARINT) => self.int32_data.push(int32(reader.varint()?)?),
                k if k == key(5, LEN) => reader.message()?.packed(&mut self.int32_data, int32)?,
                k if k == key(10, LEN) && self.double_data.is_empty() => {
                    self.double_data = Some(reader.payload()?).filter(|run| run.len() % 8 == 0)?;
                }
                k if k == key(7, VARINT) => self.int64_data.push(int64(reader.varint()?)),
                k if k == key(7, LEN) => {
                    reader.message()?.packed(&mut self.int64_data, some_int64)?
                }
                k if k == key(8, LEN) => self.name = Some(reader.string()?),
                k if k == key(9, LEN) => self.raw_data = Some(reader.payload()?),
                _ => return None,
            }
        }
        Some(())
    }

    /// The tensor as the IR holds it: what `prost` decodes of its encoding.
    pub(crate) fn to_proto(&self) -> TensorProto {
        TensorProto {
            dims: self.dims.clone(),
            data_type: self.data_type,
            name: self.name.map(str::to_owned),
            raw_data: self.raw_data.map(<[u8]>::to_vec),
            float_data: (byte_groups(self.float_data).iter())
                .map(|&b| f32::from_le_bytes(b))
                .collect(),
            double_data: (byte_groups(self.double_data).iter())
                .map(|&b| f64::from_le_bytes(b))
                .collect(),
            int32_data: self.int32_data.clone(),
            int64_data: self.int64_data.clone(),
            ..TensorProto::default()
        }
    }
}

/// An `int32` from its varint as `prost` reads it, when the walk accepts
/// it (it fits in 32 bits).
#[allow(clippy::cast_possible_truncation)]
fn int32(value: u64) -> Option<i32> {
    fits_32_bits(value).then_some(value as i32)
}
