//! The value infos of a binary model's main graph (its inputs, outputs and
//! `value_info`) read straight from their encoding for the print
//! ([`ValueInfoViews`]), by the walk of the model as it passes them: their
//! names borrowed from the input and checked as UTF-8 as they are read,
//! their dimensions in one list for them all, no `ValueInfoProto` built.
//!
//! A view holds only what most value infos are: a name and a tensor type
//! whose element type the type syntax names, with or without a shape of
//! dimensions that are a value, a parameter or neither. It reads them as
//! `prost` does (the last of a singular field's occurrences wins) and
//! accepts only what the walk accepts. Anything else (a doc string, a
//! denotation, another kind of type, a message field given twice, which
//! `prost` would merge, a field the view does not read) is refused, and
//! the walk walks that value info as it walks any other message: the
//! view never reports an error of its own, so every error is the walk's.

use std::ops::Range;

use super::node_view::{int64, key, Reader, LEN, VARINT};
use super::{fits_32_bits, GRAPH_INPUT, GRAPH_OUTPUT, GRAPH_VALUE_INFO};
use crate::vocabulary;

/// A dimension of a shape, as the type syntax prints it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Dim<'a> {
    Value(i64),
    Param(&'a str),
    /// Neither a value nor a parameter: `?`.
    Unknown,
}

/// A value info read from its encoding (see the module's documentation).
pub(crate) struct ValueInfoView<'a> {
    pub(crate) name: &'a str,
    /// Its tensor type's element type, one the type syntax names.
    pub(crate) elem_type: i32,
    /// Its shape's dimensions, a range of [`ValueInfoViews::dims`]; `None`
    /// when the type has no shape.
    pub(crate) shape: Option<Range<usize>>,
}

/// The value infos of the main graph, each list in order, when every one
/// of them was read by a view.
#[derive(Default)]
pub(crate) struct ValueInfoViews<'a> {
    pub(crate) input: Vec<ValueInfoView<'a>>,
    pub(crate) output: Vec<ValueInfoView<'a>>,
    pub(crate) value_info: Vec<ValueInfoView<'a>>,
    /// The dimensions of every view's shape, one after another.
    pub(crate) dims: Vec<Dim<'a>>,
}

impl<'a> ValueInfoViews<'a> {
    /// Reads the value info of the graph's field `number` (an input, an
    /// output or a value info) that `bytes[range]` encodes into the next
    /// view of that list; `false` when the view does not hold it (these
    /// views are not to be printed then). Not inlined into the walk, which
    /// asks at every message field but reads only a few value infos.
    #[inline(never)]
    pub(crate) fn read(&mut self, number: u32, bytes: &'a [u8], range: Range<usize>) -> bool {
        let view = self.read_value_info(Reader::with_text(&bytes[range]));
        let list = match number {
            GRAPH_INPUT => &mut self.input,
            GRAPH_OUTPUT => &mut self.output,
            GRAPH_VALUE_INFO => &mut self.value_info,
            _ => return false,
        };
        view.map(|view| list.push(view)).is_some()
    }

    /// The dimensions of `view`'s shape, `None` when it has none.
    pub(crate) fn shape(&self, view: &ValueInfoView<'a>) -> Option<&[Dim<'a>]> {
        view.shape.clone().map(|range| &self.dims[range])
    }

    fn read_value_info(&mut self, mut reader: Reader<'a>) -> Option<ValueInfoView<'a>> {
        let mut name = None;
        let mut tensor = None;
        while !reader.done() {
            match reader.varint()? {
                k if k == key(1, LEN) => name = Some(reader.string()?),
                // A second type would be merged into the first: refused.
                k if k == key(2, LEN) && tensor.is_none() => {
                    tensor = Some(self.read_type(reader.message()?)?);
                }
                _ => return None,
            }
        }
        let (elem_type, shape) = tensor?;
        Some(ValueInfoView {
            name: name?,
            elem_type,
            shape,
        })
    }

    /// A type that is a tensor type: its element type and shape.
    fn read_type(&mut self, mut reader: Reader<'a>) -> Option<(i32, Option<Range<usize>>)> {
        let mut tensor = None;
        while !reader.done() {
            match reader.varint()? {
                k if k == key(1, LEN) && tensor.is_none() => {
                    tensor = Some(self.read_tensor(reader.message()?)?);
                }
                _ => return None,
            }
        }
        tensor
    }

    fn read_tensor(&mut self, mut reader: Reader<'a>) -> Option<(i32, Option<Range<usize>>)> {
        let mut elem_type = None;
        let mut shape = None;
        while !reader.done() {
            match reader.varint()? {
                k if k == key(1, VARINT) => {
                    let value = reader.varint()?;
                    #[allow(clippy::cast_possible_truncation)]
                    let value = fits_32_bits(value).then_some(value as i32)?;
                    elem_type = Some(value);
                }
                k if k == key(2, LEN) && shape.is_none() => {
                    shape = Some(self.read_shape(reader.message()?)?);
                }
                _ => return None,
            }
        }
        let elem_type = elem_type.filter(|&t| vocabulary::element_type_name(t).is_some())?;
        Some((elem_type, shape))
    }

    fn read_shape(&mut self, mut reader: Reader<'a>) -> Option<Range<usize>> {
        let start = self.dims.len();
        while !reader.done() {
            match reader.varint()? {
                k if k == key(1, LEN) => {
                    let dim = read_dim(reader.message()?)?;
                    self.dims.push(dim);
                }
                _ => return None,
            }
        }
        Some(start..self.dims.len())
    }
}

/// A dimension: the last of its value and parameter wins, as in `prost`'s
/// `oneof`.
fn read_dim(mut reader: Reader<'_>) -> Option<Dim<'_>> {
    let mut dim = Dim::Unknown;
    while !reader.done() {
        match reader.varint()? {
            k if k == key(1, VARINT) => dim = Dim::Value(int64(reader.varint()?)),
            k if k == key(2, LEN) => dim = Dim::Param(reader.string()?),
            _ => return None,
        }
    }
    Some(dim)
}

#[cfg(test)]
impl ValueInfoViews<'_> {
    /// The value infos as the IR holds them: what `prost` decodes of their
    /// encodings, in the lists of a graph.
    pub(crate) fn to_proto(&self, graph: &mut crate::proto::GraphProto) {
        use crate::proto::tensor_shape_proto::{dimension, Dimension};
        use crate::proto::{type_proto, TensorShapeProto, TypeProto, ValueInfoProto};
        let proto = |view: &ValueInfoView<'_>| ValueInfoProto {
            name: Some(view.name.to_owned()),
            r#type: Some(TypeProto {
                value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                    elem_type: Some(view.elem_type),
                    shape: self.shape(view).map(|dims| TensorShapeProto {
                        dim: (dims.iter())
                            .map(|dim| Dimension {
                                value: match *dim {
                                    Dim::Value(v) => Some(dimension::Value::DimValue(v)),
                                    Dim::Param(p) => Some(dimension::Value::DimParam(p.into())),
                                    Dim::Unknown => None,
                                },
                                denotation: None,
                            })
                            .collect(),
                    }),
                })),
                denotation: None,
            }),
            ..ValueInfoProto::default()
        };
        graph.input.extend(self.input.iter().map(proto));
        graph.output.extend(self.output.iter().map(proto));
        graph.value_info.extend(self.value_info.iter().map(proto));
    }
}
