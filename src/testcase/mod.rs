//! Test cases as text: the data files of ONNX's backend test layout
//! (`CASE/model.onnx`, `CASE/test_data_set_N/input_K.pb` and
//! `output_K.pb`), each a [`Value`], and whole cases ([`TestCase`]).
//!
//! A data file is a `TensorProto`, `SequenceProto`, `MapProto` or
//! `OptionalProto`. A tensor is written as a tensor constant; the others
//! with a syntax of their own, an extension (see `grammar/onnxtxt.ebnf`):
//!
//! ```text
//! float[2,2] x = {1, 2, 3, 4}
//! seq(tensor) xs = [float[2] {1, 2}, float[3] {1, 2, 3}]
//! map(int64) m = {keys: [1, 2], values: seq(tensor) [float {1}, float {2}]}
//! optional(tensor) o = [float[2] {1, 2}]
//! optional(tensor) none = []
//! ```
//!
//! Every field of each message has its place in that text, so that printing
//! and parsing give back the same bytes. A whole case is its model's text
//! followed by its data sets, each value labelled with the graph input or
//! output it is for:
//!
//! ```text
//! test_data_set_0 {
//!   input x: float[2] x = {1, 2}
//!   output y: float[2] y = {2, 4}
//! }
//! ```
//!
//! onnxtxt never computes a value: the Python package writes cases whose
//! outputs a real engine computed.

mod case;
mod check;

use crate::error::Error;

pub use crate::test_data::{DataSet, Kind, TestCase, TextKind, Value};
pub use case::{CaseError, CaseProblem, DATA_SET_PREFIX, MODEL_FILE};

/// Tells what `text` holds by its first tokens (a type word starts a data
/// value) and its shape (a name followed by `{` outside any bracket starts
/// a data set, which no model has), without parsing it.
///
/// ```
/// use onnxtxt::testcase::{text_kind, TextKind};
///
/// assert_eq!(text_kind("float[2] t = {1, 2}"), TextKind::Value);
/// assert_eq!(text_kind("g (float x) => (float y) { y = Relu(x) }"), TextKind::Model);
/// let case = "g (float x) => (float y) { y = Relu(x) }\ntest_data_set_0 { input x: float x = {1} }";
/// assert_eq!(text_kind(case), TextKind::Case);
/// ```
pub fn text_kind(text: &str) -> TextKind {
    crate::parser::text_kind(text)
}

/// The model's part of a test case's text: what comes before its first
/// data set (all of `text` when it has none).
///
/// ```
/// let text = "g (float x) => (float y) { y = Relu(x) }\ntest_data_set_0 { input x: float x = {1} }";
/// assert_eq!(onnxtxt::testcase::model_text(text), "g (float x) => (float y) { y = Relu(x) }\n");
/// ```
pub fn model_text(text: &str) -> &str {
    &text[..crate::parser::data_sets_offset(text).unwrap_or(text.len())]
}

/// [`crate::format`] for any text `onnxtxt fmt` takes: a model, a data
/// value or a test case. A case's model keeps its comments and its data
/// sets are written in the canonical style; a comment in a data value or a
/// data set is an error (nothing would keep it), so that formatting never
/// loses one.
///
/// ```
/// let text = "# relu\ng (float x) => (float y) { y = Relu(x) }\ntest_data_set_0 { input x: float x = {1} }";
/// let formatted = onnxtxt::testcase::format_text(text)?;
/// assert_eq!(
///     formatted,
///     "# relu\ng (float x) => (float y) {\n  y = Relu (x)\n}\n\ntest_data_set_0 {\n  input x: float x = {1.0}\n}\n"
/// );
/// assert!(onnxtxt::testcase::format_text("float x = {1}  # one").is_err());
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn format_text(text: &str) -> Result<String, Error> {
    match text_kind(text) {
        TextKind::Model => crate::format(text),
        TextKind::Value => {
            let value = crate::parse_value(text)?;
            no_comment_from(text, 0)?;
            Ok(crate::to_text(&value) + "\n")
        }
        TextKind::Case => {
            let case = TestCase::parse(text)?;
            let model_end = model_text(text).len();
            no_comment_from(text, model_end)?;
            let canonical = crate::to_text(&case);
            let data_sets = &canonical[model_text(&canonical).len()..];
            Ok(crate::format(&text[..model_end])? + "\n" + data_sets)
        }
    }
}

/// An error at the first comment of `text` from byte `from` on, if any.
fn no_comment_from(text: &str, from: usize) -> Result<(), Error> {
    let (_, comments) = crate::lexer::scan(text);
    match comments.into_iter().find(|comment| comment.start >= from) {
        Some(comment) => Err(Error::single(
            "onnxtxt::format::comment",
            "a comment in a data value: only a model's comments are kept, so this text is \
             left as it is",
            comment,
        )
        .located_in(text)),
        None => Ok(()),
    }
}

/// A data file read by its content ([`decode_value`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Decoded {
    /// The value, of the first kind of [`Kind::ALL`] the bytes decode as.
    pub value: Value,
    /// The other kinds the same bytes decode as (an optional holding one
    /// value is, byte for byte, a sequence of one value): printed as
    /// `value`, they still parse back to the same bytes.
    pub also: Vec<Kind>,
}

/// Decodes a data file, telling its kind by its content: of the kinds of
/// [`Kind::ALL`] that the bytes decode as (unknown fields refused), the
/// first whose fields agree with each other (a tensor with data for its
/// shape, a sequence or optional holding values of its `elem_type`, a map
/// with a key type and as many values as keys), with the others that fit
/// too. The error, when none decodes, is the tensor's; when none agrees,
/// `onnxtxt::decode::kind` ([`Value::decode_as`] reads any of them).
///
/// ```
/// use onnxtxt::testcase::{decode_value, Kind};
///
/// let tensor = onnxtxt::parse_value("int64[2] shape = {3, 4}")?;
/// let decoded = decode_value(&tensor.encode_to_vec())?;
/// assert_eq!(decoded.value, tensor);
///
/// let sequence = onnxtxt::parse_value("seq(tensor) xs = [int64 {1}, int64 {2}]")?;
/// assert_eq!(decode_value(&sequence.encode_to_vec())?.value.kind(), Kind::Sequence);
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn decode_value(bytes: &[u8]) -> Result<Decoded, Error> {
    let mut decoded = Vec::new();
    let mut tensor_error = None;
    for kind in Kind::ALL {
        match Value::decode_as(kind, bytes) {
            Ok(value) => decoded.push(value),
            Err(error) if kind == Kind::Tensor => tensor_error = Some(error),
            Err(_) => {}
        }
    }
    let some_decoded = !decoded.is_empty();
    decoded.retain(is_consistent);
    let mut decoded = decoded.into_iter();
    match (decoded.next(), tensor_error) {
        (Some(value), _) => Ok(Decoded {
            value,
            also: decoded.map(|value| value.kind()).collect(),
        }),
        (None, Some(error)) if !some_decoded => Err(error),
        (None, _) => Err(Error::single(
            "onnxtxt::decode::kind",
            "not a tensor, sequence, map or optional whose fields agree (say which it is to \
             read it as one)",
            0..bytes.len(),
        )),
    }
}

/// Whether a value's fields agree with each other, as those of a file
/// written as that kind do.
fn is_consistent(value: &Value) -> bool {
    /// How many values of each kind, in `ELEMENT_KINDS` order.
    fn holds_only(counts: [usize; 5], elem_type: Option<i32>) -> bool {
        match elem_type {
            None | Some(0) => counts.iter().all(|&n| n == 0),
            Some(kind @ 1..=5) => counts
                .iter()
                .enumerate()
                .all(|(i, &n)| n == 0 || i + 1 == kind as usize),
            Some(_) => false,
        }
    }
    match value {
        Value::Tensor(t) => {
            let Some(data_type) = t.data_type else {
                return false;
            };
            let count = t
                .dims
                .iter()
                .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?));
            let typed = t.float_data.len()
                + t.int32_data.len()
                + t.string_data.len()
                + t.int64_data.len()
                + t.double_data.len()
                + t.uint64_data.len();
            match (count, &t.raw_data) {
                _ if t.data_location == Some(1) => true,
                (Some(count), Some(raw)) => {
                    crate::tensor_data::raw_byte_len(data_type, count) == Some(raw.len())
                }
                // Complex elements take two entries; elements narrower
                // than a byte are packed as in raw data, a byte an entry.
                (Some(count), None) => {
                    typed == count
                        || typed == 2 * count
                        || crate::tensor_data::raw_byte_len(data_type, count) == Some(typed)
                }
                (None, _) => false,
            }
        }
        Value::Sequence(q) => holds_only(
            [
                q.tensor_values.len(),
                q.sparse_tensor_values.len(),
                q.sequence_values.len(),
                q.map_values.len(),
                q.optional_values.len(),
            ],
            q.elem_type,
        ),
        Value::Map(m) => {
            let keys = m.keys.len().max(m.string_keys.len());
            let values = m.values.as_ref().map_or(0, |v| {
                v.tensor_values.len()
                    + v.sparse_tensor_values.len()
                    + v.sequence_values.len()
                    + v.map_values.len()
                    + v.optional_values.len()
            });
            matches!(m.key_type, Some(2..=8 | 12 | 13)) && keys == values
        }
        Value::Optional(o) => holds_only(
            [
                usize::from(o.tensor_value.is_some()),
                usize::from(o.sparse_tensor_value.is_some()),
                usize::from(o.sequence_value.is_some()),
                usize::from(o.map_value.is_some()),
                usize::from(o.optional_value.is_some()),
            ],
            o.elem_type,
        ),
    }
}
