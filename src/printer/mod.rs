//! The printer: IR to text, losslessly.
//!
//! Files of this module:
//!
//! * `mod.rs`: the public API ([`to_text`], [`Printer`] and its options,
//!   the [`Print`] trait, the [`Dropped`] report of compat mode).
//! * `sink.rs`: the sink every byte goes through. It owns the buffer, the
//!   flushing to a writer, indentation and the IR path used in reports.
//! * `quoting.rs`: bare or quoted names, string escapes, compat identifiers.
//! * `number_text.rs`: the text of integers and floats.
//! * `lists.rs`: list layouts, and the two-thread paths of long lists.
//! * `annotation_values.rs`: the annotation key scheme (one key per proto
//!   field) as a table shared with the parser's `apply_*` functions, and the
//!   printing side of it (`annotation_values::Ann` values built from IR
//!   fields).
//! * `annotation.rs`: writing `@<key: value, ...>` annotations.
//! * `comments.rs`: source comments carried through by `onnxtxt fmt`.
//! * `types.rs`: types and value infos (what the type syntax can say, and the
//!   `type` annotation for what it cannot).
//! * `tensor.rs`: tensor constants, sparse tensor constants, element data.
//! * `data.rs`: [ext] sequences, maps, optionals and test cases.
//! * `graph.rs`: graphs, nodes and attributes.
//! * `model.rs`: model and function headers, the top-level layout.
//!
//! The walk follows one rule everywhere: print what the main syntax can say
//! (the "image" of the value), then put every field where the image differs
//! from the IR into the annotation of the smallest construct that owns it.

mod annotation;
pub(crate) mod annotation_values;
mod comments;
mod data;
mod graph;
mod lists;
mod model;
mod number_text;
mod quoting;
mod sink;
mod tensor;
mod types;

use std::io::{self, Write};

use crate::decode::Nodes;

use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, MapProto, ModelProto, NodeProto, OptionalProto,
    SequenceProto, SparseTensorProto, TensorProto, TypeProto, ValueInfoProto,
};
use crate::test_data::{TestCase, Value};

pub(crate) use comments::Comments;
pub(crate) use quoting::name_needs_quotes;
#[doc(hidden)]
pub use sink::Sink;

/// Printing options.
///
/// ```
/// use onnxtxt::proto::{ModelProto, OperatorSetIdProto};
/// use onnxtxt::Printer;
///
/// let model = ModelProto {
///     ir_version: Some(8),
///     opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(18) }],
///     graph: Some(Default::default()),
///     ..Default::default()
/// };
/// let printed = Printer::new().compat(true).print(&model);
/// assert!(printed.text.starts_with("<\n  ir_version: 8,\n"));
/// // The graph has no name: `name: unset` needs an annotation, which compat mode drops.
/// assert_eq!(printed.dropped.len(), 1);
/// assert_eq!(printed.dropped[0].to_string(), "graph: `name` dropped (it needs an annotation)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Printer {
    compat: bool,
    narrow_float_decimals: bool,
    elide: Option<usize>,
    threads: bool,
}

impl Default for Printer {
    fn default() -> Self {
        Printer {
            compat: false,
            narrow_float_decimals: false,
            elide: None,
            threads: true,
        }
    }
}

/// Something the printer could not write in compat mode: where it is in the
/// IR and what was dropped or changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Dropped {
    /// The IR path, e.g. `graph.node[3].attribute["axes"]`.
    pub path: String,
    /// What was dropped or changed.
    pub what: String,
}

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.what)
        } else {
            write!(f, "{}: {}", self.path, self.what)
        }
    }
}

/// The result of [`Printer::print`]: the text, and what compat mode dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Printed {
    /// The printed text.
    pub text: String,
    /// Everything that could not be written (always empty unless compat mode
    /// is on, or a value has no syntax of its own, like a bare type's
    /// denotation).
    pub dropped: Vec<Dropped>,
}

impl Printer {
    /// The default printer: lossless, extensions where needed.
    pub fn new() -> Self {
        Self::default()
    }

    /// With `compat`, the output uses only the reference grammar (onnx
    /// 1.23.2's `onnx.parser`); whatever that cannot express is left out and
    /// listed in [`Printed::dropped`].
    #[must_use]
    pub fn compat(mut self, compat: bool) -> Self {
        self.compat = compat;
        self
    }

    /// Print the elements of float16, bfloat16, float8, float6 and float4
    /// tensors as decimal numbers (an extension) instead of the bit patterns
    /// of the reference grammar. Ignored in compat mode. Off by default.
    #[must_use]
    pub fn narrow_float_decimals(mut self, on: bool) -> Self {
        self.narrow_float_decimals = on;
        self
    }

    /// With `Some(n)`, tensor constants with more than `n` elements show
    /// only the first `n`, followed by `... K more`, for reading: such text
    /// is not a model, and the parser rejects it. Values in annotations
    /// (`raw_data`, typed fields beside another one) are not elided. `None`
    /// (print everything) by default.
    ///
    /// ```
    /// use onnxtxt::Printer;
    ///
    /// let tensor = onnxtxt::parse_tensor("int64[5] {1, 2, 3, 4, 5}")?;
    /// let text = Printer::new().elide(Some(2)).print(&tensor).text;
    /// assert_eq!(text, "int64[5] {1, 2, ... 3 more}");
    /// let error = onnxtxt::parse_tensor(&text).unwrap_err();
    /// assert!(error.to_string().contains("values were elided by `print --elide`"));
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    #[must_use]
    pub fn elide(mut self, elide: Option<usize>) -> Self {
        self.elide = elide;
        self
    }

    /// With `false`, everything is printed on the calling thread. By
    /// default long lists are printed with a second thread (node and
    /// initializer lists of 1024 items or 1 MiB of encoding and more,
    /// number lists of 32Ki numbers and more, of 4Ki in a binary model of
    /// 1 MiB and more, whose lists share one helper); the text is the same.
    #[must_use]
    pub fn threads(mut self, threads: bool) -> Self {
        self.threads = threads;
        self
    }

    /// Prints `item` to a string.
    pub fn print<T: Print + ?Sized>(&self, item: &T) -> Printed {
        self.print_in_memory(0, |sink| item.print_to(sink))
            .expect("only a part left encoded fails a print")
    }

    /// What `print` prints of an encoding of `weight` bytes (0 when not
    /// known) into a string made at once with room for the most text
    /// that makes ([`TEXT_PER_ENCODED_BYTE`]) and a small model's, or the
    /// error a part that could not be decoded failed it with
    /// ([`Sink::fail`]). The text is never copied to grow but in rare
    /// layouts, and only the pages written are touched.
    fn print_in_memory(
        &self,
        weight: usize,
        print: impl FnOnce(&mut Sink<'_>),
    ) -> io::Result<Printed> {
        self.on_threads(weight, || {
            let mut sink = Sink::in_memory(*self);
            sink.expect_text(text_room(weight));
            print(&mut sink);
            let (text, dropped) = sink.finish_text()?;
            Ok(Printed { text, dropped })
        })
    }

    /// Prints a model with `comments` where they belong (for `fmt`).
    pub(crate) fn print_with_comments(&self, model: &ModelProto, comments: &Comments) -> String {
        self.on_threads(0, || {
            let mut sink = Sink::in_memory(*self).with_comments(comments);
            model.print_to(&mut sink);
            let printed = sink.finish_text();
            printed.expect("only a part left encoded fails a print").0
        })
    }

    /// Prints `item` to `out` through one buffer, never holding the whole
    /// text in memory. Returns what compat mode dropped.
    ///
    /// ```
    /// use onnxtxt::proto::NodeProto;
    /// use onnxtxt::Printer;
    ///
    /// let node = NodeProto {
    ///     input: vec!["x".into()],
    ///     output: vec!["y".into()],
    ///     op_type: Some("Relu".into()),
    ///     ..Default::default()
    /// };
    /// let mut out = Vec::new();
    /// let dropped = Printer::new().write(&node, &mut out).unwrap();
    /// assert_eq!(String::from_utf8(out).unwrap(), "y = Relu (x)\n");
    /// assert!(dropped.is_empty());
    /// ```
    pub fn write<T: Print + ?Sized, W: Write>(&self, item: &T, out: W) -> io::Result<Vec<Dropped>> {
        self.write_with(0, out, |sink| item.print_to(sink))
    }

    /// Prints the binary model `bytes` to `out`: the text that
    /// [`Printer::write`] writes of [`decode_model`](crate::decode_model)`(bytes)`,
    /// but each node and initializer of the main graph is decoded only as it
    /// is printed, so that at most a few of them are in memory as IR at a
    /// time (a node-heavy model's IR takes several times its encoding, a
    /// weight-heavy model's as much as its encoding).
    ///
    /// `Err` is the error of [`decode_model`](crate::decode_model): found
    /// before anything is written, or, for a string that is not UTF-8 in
    /// one of the main graph's nodes and initializers, when it is printed
    /// (`out` has the text before it then). `Ok` holds what writing gave,
    /// as [`Printer::write`] returns it.
    ///
    /// ```
    /// use onnxtxt::prost::Message;
    /// use onnxtxt::Printer;
    ///
    /// let model = onnxtxt::parse_model("g (float x) => (float y) { y = Relu(x) }")?;
    /// let bytes = model.encode_to_vec();
    /// let mut out = Vec::new();
    /// let dropped = Printer::new().write_binary_model(&bytes, &mut out)?.unwrap();
    /// assert_eq!(String::from_utf8(out).unwrap(), onnxtxt::to_text(&model));
    /// assert!(dropped.is_empty());
    ///
    /// let error = Printer::new().write_binary_model(&bytes[1..], Vec::new()).unwrap_err();
    /// assert!(error.primary().code.starts_with("onnxtxt::decode::"));
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn write_binary_model<W: Write>(
        &self,
        bytes: &[u8],
        out: W,
    ) -> Result<io::Result<Vec<Dropped>>, crate::Error> {
        // Nothing is written of a model that has a problem outside strings.
        let lazy = crate::decode::decode_model_lazily(bytes, Nodes::Walked)?;
        let written = self.write_with(bytes.len(), out, |sink| {
            let values = lazy.values.as_ref();
            model::model_with(sink, &lazy.model, values, &lazy.nodes, &lazy.initializers);
        });
        match written {
            Ok(dropped) => Ok(Ok(dropped)),
            Err(error) => sink::undecoded(error).map(Err),
        }
    }

    /// Prints the binary model `bytes` to a string: the text
    /// [`Printer::write_binary_model`] writes, each node and initializer
    /// of the main graph decoded as it is printed, in one string made at
    /// once with room for the most text the encoding makes (its capacity
    /// can be a few times its length: only the pages written are touched).
    /// For a caller that keeps the whole text anyway, such as the Python
    /// package.
    /// `Err` is the error of [`decode_model`](crate::decode_model).
    ///
    /// ```
    /// use onnxtxt::prost::Message;
    /// use onnxtxt::Printer;
    ///
    /// let model = onnxtxt::parse_model("g (float x) => (float y) { y = Relu(x) }")?;
    /// let printed = Printer::new().print_binary_model(&model.encode_to_vec())?;
    /// assert_eq!(printed.text, onnxtxt::to_text(&model));
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn print_binary_model(&self, bytes: &[u8]) -> Result<Printed, crate::Error> {
        // The text of a model that has a problem is dropped: each node is
        // checked as it is printed.
        let lazy = crate::decode::decode_model_lazily(bytes, Nodes::Left)?;
        let printed = self.print_in_memory(bytes.len(), |sink| {
            let values = lazy.values.as_ref();
            model::model_with(sink, &lazy.model, values, &lazy.nodes, &lazy.initializers);
        });
        // A sink without a writer fails only on a part it cannot decode.
        printed.map_err(|error| match sink::undecoded(error) {
            Err(undecoded) => undecoded,
            Ok(other) => crate::Error::single(
                "onnxtxt::decode::invalid",
                other.to_string(),
                0..bytes.len(),
            ),
        })
    }

    /// Runs the print `print` of an encoding of `weight` bytes (0 when not
    /// known) with this printer's threads: helpers allowed or not, and
    /// from [`SHARED_HELPER_MIN`] one helper shared by the whole print
    /// (`parallel::with_helper`), started at its first long number list.
    fn on_threads<T>(&self, weight: usize, print: impl FnOnce() -> T) -> T {
        crate::parallel::with_threads(self.threads, || {
            if weight >= SHARED_HELPER_MIN {
                crate::parallel::with_helper(print)
            } else {
                print()
            }
        })
    }

    /// Writes what `print` prints of an encoding of `weight` bytes (0 when
    /// not known) to `out` through one buffer; returns what compat mode
    /// dropped.
    fn write_with<W: Write>(
        &self,
        weight: usize,
        mut out: W,
        print: impl FnOnce(&mut Sink<'_>),
    ) -> io::Result<Vec<Dropped>> {
        self.on_threads(weight, || {
            // The sink buffers: it hands `out` pieces of about 64 KiB.
            let mut sink = Sink::new(&mut out, *self);
            print(&mut sink);
            let dropped = sink.finish()?;
            out.flush()?;
            Ok(dropped)
        })
    }
}

/// The bytes of text a byte of encoding makes at most, but in rare
/// layouts: a name's byte makes one (two with quotes around a short one),
/// a float's four bytes up to 16 with their separator, and a nested
/// graph's lines their indentation too (the bench's `subgraphs`, floats two
/// graphs deep: 4.8). Beyond it (bytes escaped as `\xHH`, 8-bit numbers,
/// deeper graphs) the text grows as it goes.
const TEXT_PER_ENCODED_BYTE: usize = 5;

/// The room [`Printer::print_in_memory`] makes for the text of `weight`
/// bytes of encoding: the most they make, and a small model's text (which
/// would otherwise be copied a dozen times as it doubles from nothing).
fn text_room(weight: usize) -> usize {
    weight
        .saturating_mul(TEXT_PER_ENCODED_BYTE)
        .saturating_add(1 << 12)
}

/// The encoding (bytes) of a print from which its number lists share one
/// helper thread, from 4Ki numbers: starting it costs about a list of
/// 16Ki numbers' gain, so a lighter print splits its lists only from
/// 32Ki numbers, each with a helper of its own (`bench/results.md`, "A
/// print helper for the whole print, session 5").
pub(super) const SHARED_HELPER_MIN: usize = 1 << 20;

/// Prints any IR value the parser accepts, with the default [`Printer`].
///
/// ```
/// use onnxtxt::proto::{type_proto, TypeProto, TensorShapeProto};
/// use onnxtxt::proto::tensor_shape_proto::{dimension, Dimension};
///
/// let ty = TypeProto {
///     value: Some(type_proto::Value::TensorType(type_proto::Tensor {
///         elem_type: Some(1),
///         shape: Some(TensorShapeProto {
///             dim: vec![
///                 Dimension { value: Some(dimension::Value::DimParam("N".into())), denotation: None },
///                 Dimension { value: Some(dimension::Value::DimValue(3)), denotation: None },
///             ],
///         }),
///     })),
///     denotation: None,
/// };
/// assert_eq!(onnxtxt::to_text(&ty), "float[N,3]");
/// ```
pub fn to_text<T: Print + ?Sized>(item: &T) -> String {
    Printer::new().print(item).text
}

mod sealed {
    pub trait Sealed {}
}

/// An IR value the printer can write: every kind the parser reads.
pub trait Print: sealed::Sealed {
    #[doc(hidden)]
    fn print_to(&self, sink: &mut Sink<'_>);
}

macro_rules! printable {
    ($($ty:ty => $f:path),* $(,)?) => {$(
        impl sealed::Sealed for $ty {}
        impl Print for $ty {
            fn print_to(&self, sink: &mut Sink<'_>) {
                $f(sink, self)
            }
        }
    )*};
}

printable! {
    ModelProto => model::model,
    GraphProto => graph::top_graph,
    FunctionProto => model::function,
    NodeProto => graph::single_node,
    [NodeProto] => graph::node_list,
    TypeProto => types::bare_type,
    TensorProto => tensor::bare_tensor,
    SparseTensorProto => tensor::bare_sparse,
    AttributeProto => graph::bare_attribute,
    ValueInfoProto => types::bare_value_info,
    SequenceProto => data::sequence,
    MapProto => data::map,
    OptionalProto => data::optional,
    Value => data::bare_value,
    TestCase => data::test_case,
}

impl sealed::Sealed for Vec<NodeProto> {}
impl Print for Vec<NodeProto> {
    fn print_to(&self, sink: &mut Sink<'_>) {
        graph::node_list(sink, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    /// A model of `nodes` nodes named as exporters name them (quoted), and
    /// in an `If` two graphs deep, `Constant` nodes of `floats` floats each.
    fn exported_model(nodes: usize, floats: usize) -> ModelProto {
        let mut text = String::from(
            "<ir_version: 10, opset_import: [\"\": 21]>\n\
             g (float[64] x, bool c) => (float[64] y) {\n",
        );
        // Nodes that set more, fewer or other fields than the one before.
        text += "  [\"n\"] a, b = com.x.Op:ov <k: ints = [1, 2, 3], s: string = \"s\"> (x, x, x)\n\
                 = Foo ()\n  c = Relu (a)\n";
        let mut last = String::from("x");
        for i in 0..nodes {
            let out = format!("\"/blocks.{i}/act/Relu_output_0\"");
            text += &format!(
                "  [\"/blocks.{i}/act/Relu\"] {out} = LeakyRelu <alpha: float = 0.01> ({last})\n"
            );
            last = out;
        }
        // Floats of every length of text, from `0.5` to `-1.2345679e-05`.
        let values: Vec<String> = (0..floats)
            .map(|i| (i as f32 * 0.7548776 - 11.0).powi(5) * 1e-6)
            .map(|v| format!("{v:e}"))
            .collect();
        let branch = |name: &str| {
            format!(
                "{name} () => (float[{floats}] w) {{ w = Constant <value: tensor = float[{floats}] {{{}}}> () }}",
                values.join(", ")
            )
        };
        text += &format!(
            "  y = If <then_branch: graph = {}, else_branch: graph = {}> (c)\n}}",
            branch("then"),
            branch("else")
        );
        crate::parse_model(&text).unwrap()
    }

    #[test]
    fn a_binary_model_is_printed_into_a_text_made_once() {
        for (nodes, floats) in [(0, 0), (1, 1), (3000, 0), (0, 20_000), (2000, 5000)] {
            let bytes = exported_model(nodes, floats).encode_to_vec();
            for compat in [false, true] {
                let printer = Printer::new().compat(compat);
                let printed = printer.print_binary_model(&bytes).unwrap();
                let expected = printer.print(&crate::decode_model(&bytes).unwrap());
                assert_eq!(printed.text, expected.text);
                // Had the text outgrown its room, it would have doubled.
                assert_eq!(printed.text.capacity(), text_room(bytes.len()));
            }
        }
    }

    #[test]
    fn a_small_binary_model_is_printed_with_few_allocations() {
        use crate::allocations::made_by;
        use crate::decode::{decode_model_lazily, Nodes};
        // The print's own, apart from the decode before it (10 and 16 on
        // main): its IR path made with room (it grew from nothing by
        // reallocations), no vector of the node list's weights (too short
        // to be split), one room for the indexes of every node's
        // attributes (a vector a node).
        let one_node =
            r#"<ir_version: 8, opset_import: ["": 18]> g (float x) => (float y) { y = Relu(x) }"#;
        let three_nodes = r#"<ir_version: 8, opset_import: ["": 18]> g (float[2,3] x) => (float y) {
            a = Transpose<perm: ints = [1, 0]>(x)
            b = Softmax<axis: int = 1>(a)
            y = ReduceSum<keepdims: int = 0>(b)
        }"#;
        for (text, most) in [(one_node, 8), (three_nodes, 11)] {
            let bytes = crate::parse_model(text).unwrap().encode_to_vec();
            let printer = Printer::new();
            printer.print_binary_model(&bytes).unwrap();
            let (made, printed) = made_by(|| printer.print_binary_model(&bytes).unwrap());
            let (decoded, _) = made_by(|| decode_model_lazily(&bytes, Nodes::Left).unwrap());
            assert_eq!(
                printed.text,
                crate::to_text(&crate::decode_model(&bytes).unwrap())
            );
            assert!(
                made - decoded <= most,
                "{made} allocations, {decoded} of them the decode's"
            );
        }
    }
}
