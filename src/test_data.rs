//! The data IR of test cases: the values of data files ([`Value`], of a
//! [`Kind`]), whole cases ([`TestCase`], [`DataSet`]) and what a text holds
//! ([`TextKind`]), with what they need of the protobuf messages alone.
//!
//! This is the ground floor the parser and the printer build and read
//! (their text: `src/parser/data.rs`, `src/printer/data.rs`); reading and
//! writing case directories, formatting and checking them are in
//! [`crate::testcase`], which re-exports these types.

use prost::Message as _;

use crate::error::Error;
use crate::proto::{MapProto, ModelProto, OptionalProto, SequenceProto, TensorProto};

/// The words of `SequenceProto.DataType` (and `OptionalProto.DataType`):
/// the kinds of value a sequence or an optional holds, as written in
/// `seq(KIND)` and `optional(KIND)`.
pub(crate) const ELEMENT_KINDS: &[(&str, i32)] = &[
    ("tensor", 1),
    ("sparse_tensor", 2),
    ("seq", 3),
    ("map", 4),
    ("optional", 5),
];

/// The value of a test case's data file.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A `TensorProto`.
    Tensor(TensorProto),
    /// A `SequenceProto`.
    Sequence(SequenceProto),
    /// A `MapProto`.
    Map(MapProto),
    /// An `OptionalProto`.
    Optional(OptionalProto),
}

/// Which message a data file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A `TensorProto`.
    Tensor,
    /// A `SequenceProto`.
    Sequence,
    /// A `MapProto`.
    Map,
    /// An `OptionalProto`.
    Optional,
}

impl Kind {
    /// Every kind, in the order [`crate::testcase::decode_value`] tries them.
    pub const ALL: [Kind; 4] = [Kind::Tensor, Kind::Sequence, Kind::Map, Kind::Optional];

    /// Its name in messages: `tensor`, `sequence`, `map`, `optional`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Tensor => "tensor",
            Kind::Sequence => "sequence",
            Kind::Map => "map",
            Kind::Optional => "optional",
        }
    }
}

impl Value {
    /// Which message it is.
    pub fn kind(&self) -> Kind {
        match self {
            Value::Tensor(_) => Kind::Tensor,
            Value::Sequence(_) => Kind::Sequence,
            Value::Map(_) => Kind::Map,
            Value::Optional(_) => Kind::Optional,
        }
    }

    /// Its `name` field.
    pub fn name(&self) -> Option<&str> {
        match self {
            Value::Tensor(t) => t.name.as_deref(),
            Value::Sequence(q) => q.name.as_deref(),
            Value::Map(m) => m.name.as_deref(),
            Value::Optional(o) => o.name.as_deref(),
        }
    }

    /// Its protobuf encoding.
    pub fn encode_to_vec(&self) -> Vec<u8> {
        match self {
            Value::Tensor(t) => t.encode_to_vec(),
            Value::Sequence(q) => q.encode_to_vec(),
            Value::Map(m) => m.encode_to_vec(),
            Value::Optional(o) => o.encode_to_vec(),
        }
    }

    /// Decodes `bytes` as a `kind`, as [`crate::decode`] decodes (unknown
    /// fields refused, problems located).
    ///
    /// ```
    /// use onnxtxt::testcase::{Kind, Value};
    ///
    /// let value = onnxtxt::parse_value("optional(tensor) o = []")?;
    /// let bytes = value.encode_to_vec();
    /// assert_eq!(Value::decode_as(Kind::Optional, &bytes)?, value);
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn decode_as(kind: Kind, bytes: &[u8]) -> Result<Value, Error> {
        Ok(match kind {
            Kind::Tensor => Value::Tensor(crate::decode(bytes)?),
            Kind::Sequence => Value::Sequence(crate::decode(bytes)?),
            Kind::Map => Value::Map(crate::decode(bytes)?),
            Kind::Optional => Value::Optional(crate::decode(bytes)?),
        })
    }
}

/// What a text holds ([`crate::testcase::text_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// A model (or something that is none of these).
    Model,
    /// A data value: a tensor, sequence, map or optional.
    Value,
    /// A test case: a model, then data sets.
    Case,
}

/// A test case as onnx's backend tests lay it out: a model, and data sets
/// of input and output values.
///
/// ```
/// use onnxtxt::testcase::TestCase;
///
/// let text = r#"<
///   ir_version: 10,
///   opset_import: ["": 21]
/// >
/// g (float[N] x) => (float[N] y) {
///   y = Relu (x)
/// }
///
/// test_data_set_0 {
///   input x: float[2] x = {-1.0, 2.0}
///   output y: float[2] y = {0.0, 2.0}
/// }
/// "#;
/// let case = TestCase::parse(text)?;
/// assert_eq!(case.data_sets[0].outputs.len(), 1);
/// assert_eq!(onnxtxt::to_text(&case), text);
/// let files = case.files();
/// assert_eq!(files[1].0, std::path::Path::new("test_data_set_0/input_0.pb"));
/// # Ok::<(), onnxtxt::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    /// `model.onnx`.
    pub model: ModelProto,
    /// The data sets, in the order they are written.
    pub data_sets: Vec<DataSet>,
}

/// One data set: `input_K.pb` is the value of the graph's input `K`,
/// `output_K.pb` that of its output `K`.
#[derive(Debug, Clone, PartialEq)]
pub struct DataSet {
    /// The directory's name, `test_data_set_N`.
    pub name: String,
    /// `input_0.pb`, `input_1.pb`, ...
    pub inputs: Vec<Value>,
    /// `output_0.pb`, `output_1.pb`, ...
    pub outputs: Vec<Value>,
}
