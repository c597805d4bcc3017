//! Writing a model's binary encoding straight into the output, the bytes
//! prost gives: through one buffer no larger than the encoding (at most
//! 256 KiB), never into a vector the size of the whole binary, with the
//! main graph's nodes and initializers that the parse left encoded
//! ([`Parser::write_model`](super::Parser::write_model)) put back where
//! they go; or, with [`EncodedModel::encode`], straight into a slice
//! made its length, with no buffer between.
//!
//! prost computes a nested message's length each time a message around it
//! is encoded or measured: `encode_to_vec` measures the main graph's nodes
//! three times (for the model's length, the graph's, their own). An
//! [`EncodedModel`] measures the model once, when it is made, and writes
//! the model's framing and the graph's first fields (its nodes, name and
//! initializers, around the runs left encoded) itself: each node is
//! measured once, its length kept for its framing. (Measured again when
//! written, as prost does, they cost the small models of the conformance
//! corpus 1-2% of their parse from Python.)

use std::io::{self, Write};

use prost::bytes::buf::UninitSlice;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{encode_key, encode_varint, encoded_len_varint, key_len, WireType};
use prost::Message;

use super::fast::pieces::{EncodedRun, EncodedRuns};
use crate::decode::{GRAPH_INITIALIZER, GRAPH_NODE, MODEL_GRAPH};
use crate::proto::{GraphProto, ModelProto, NodeProto, TensorProto};

/// `GraphProto.name`'s field number.
const GRAPH_NAME: u32 = 2;

/// The largest buffer between the encoder and the output (256 KiB): big
/// enough that a write call is rare next to the encoding, small enough to
/// stay in the cache and cost nothing to allocate. A shorter encoding gets
/// a buffer of its own length.
const BUFFER_BYTES: usize = 256 * 1024;

/// Encodes `message` into `out` as `prost` would into a `Vec`, the same
/// bytes, holding at most [`BUFFER_BYTES`] of them at a time.
pub(super) fn write_encoded(message: &impl Message, out: &mut dyn Write) -> io::Result<()> {
    write_encoded_with(message, out, BUFFER_BYTES)
}

/// [`write_encoded`] through a buffer of at most `capacity` bytes.
fn write_encoded_with(
    message: &impl Message,
    out: &mut dyn Write,
    capacity: usize,
) -> io::Result<()> {
    // `encode` would measure the message again to check the room: the
    // writer has room for any length.
    let mut writer = BufWriter::new(out, message.encoded_len().min(capacity));
    message.encode_raw(&mut writer);
    writer.finish()
}

/// The length of a length-delimited field of `number` whose payload is
/// `len` bytes long, tag and length included.
pub(super) fn field_len(number: u32, len: usize) -> usize {
    key_len(number) + encoded_len_varint(len as u64) + len
}

/// A model parsed and not yet written: what [`Parser::encode_model`]
/// returns. Its length is known before any byte is written (measured once,
/// when it is made), so the output can be made the right size at once (a
/// Python `bytes`, a file) and written in place.
///
/// [`Parser::encode_model`]: crate::Parser::encode_model
#[derive(Debug)]
pub struct EncodedModel {
    /// The model, its main graph's nodes, name and initializers taken out;
    /// boxed as the grammar gives it.
    model: Box<ModelProto>,
    /// The main graph's fields that prost writes first, in its order:
    /// nodes (field 1), name (2), initializers (5), those in the IR...
    nodes: Vec<NodeProto>,
    /// The length of each node's encoding.
    node_lens: Vec<usize>,
    name: Option<String>,
    initializers: Vec<TensorProto>,
    /// ... and the nodes and initializers the parse left encoded, in runs.
    encoded: EncodedRuns,
    /// The length of the main graph's encoding (its field's payload).
    graph_len: usize,
    /// The length of the model's encoding.
    len: usize,
    /// How deep the text's plain brackets nest.
    depth: usize,
}

impl EncodedModel {
    /// `model` with the nodes and initializers of `encoded` back in its
    /// graph's lists (each run before the item of its index, in order),
    /// measured; parsed from a text whose `(`, `[` and `{` nest `depth`
    /// deep.
    pub(super) fn new(mut model: Box<ModelProto>, encoded: EncodedRuns, depth: usize) -> Self {
        if !encoded.nodes.is_empty()
            || !encoded.initializers.is_empty()
            || !encoded.inputs_and_outputs.is_empty()
        {
            // The runs come from the graph's lists: there is a graph.
            model.graph.get_or_insert_default();
        }
        // The model's other fields measured without the graph, so that the
        // rest of the graph (its value infos, ...) is measured once.
        let mut graph = model.graph.take();
        let others_len = model.encoded_len();
        let (nodes, name, initializers) = graph.as_mut().map_or_else(Default::default, |graph| {
            (
                std::mem::take(&mut graph.node),
                graph.name.take(),
                std::mem::take(&mut graph.initializer),
            )
        });
        model.graph = graph;
        let node_lens: Vec<usize> = nodes.iter().map(Message::encoded_len).collect();
        let (graph_len, len) = match &model.graph {
            None => (0, others_len),
            Some(rest) => {
                let graph_len = repeated_len(GRAPH_NODE, node_lens.iter().copied(), &encoded.nodes)
                    + name
                        .as_ref()
                        .map_or(0, |name| field_len(GRAPH_NAME, name.len()))
                    + repeated_len(
                        GRAPH_INITIALIZER,
                        initializers.iter().map(Message::encoded_len),
                        &encoded.initializers,
                    )
                    + encoded.inputs_and_outputs.len()
                    + rest.encoded_len();
                (graph_len, others_len + field_len(MODEL_GRAPH, graph_len))
            }
        };
        EncodedModel {
            model,
            nodes,
            node_lens,
            name,
            initializers,
            encoded,
            graph_len,
            len,
            depth,
        }
    }

    /// How deep the `(`, `[` and `{` of the text nest, those in strings and
    /// comments left out. Each level holds at most three levels of
    /// messages (a graph's `{`: a node, its attribute, the attribute's
    /// graph), so a caller that must not write a model nested deeper than
    /// decoders read ([`MAX_MESSAGE_DEPTH`](crate::MAX_MESSAGE_DEPTH)) can
    /// tell from it, before writing, whether the model may be.
    ///
    /// ```
    /// let text = "g (float[2] x) => (float[2] y) { y = Relu(x) }";
    /// let encoded = onnxtxt::Parser::new().encode_model(text)?;
    /// assert_eq!(encoded.deepest_brackets(), 2);
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn deepest_brackets(&self) -> usize {
        self.depth
    }

    /// The length of the model's binary encoding: how many bytes
    /// [`EncodedModel::write`] writes.
    pub fn encoded_len(&self) -> usize {
        self.len
    }

    /// Writes the model's binary encoding to `out`, as
    /// [`Parser::write_model`](crate::Parser::write_model) does.
    pub fn write<W: Write>(self, mut out: W) -> io::Result<()> {
        let mut writer = BufWriter::new(&mut out, self.len.min(BUFFER_BYTES));
        self.encode_raw(&mut writer);
        writer.finish()
    }

    /// Encodes the model into `buf` with no buffer between, as
    /// [`Message::encode`] does: an error (`WriteZero`), and nothing written, if `buf`
    /// has room for fewer than [`EncodedModel::encoded_len`] bytes. Into a
    /// slice of that length (a `bytes` made for it, ...), no byte is
    /// copied after it is encoded.
    ///
    /// ```
    /// use onnxtxt::prost::Message;
    ///
    /// let text = "g (float[2] x) => (float[2] y) { y = Relu(x) }";
    /// let encoded = onnxtxt::Parser::new().encode_model(text)?;
    /// let mut bytes = vec![0; encoded.encoded_len()];
    /// encoded.encode(&mut bytes.as_mut_slice()).unwrap();
    /// assert_eq!(bytes, onnxtxt::parse_model(text)?.encode_to_vec());
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn encode(&self, buf: &mut impl BufMut) -> io::Result<()> {
        let room = buf.remaining_mut();
        if room < self.len {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!("an encoding of {} bytes, room for {room}", self.len),
            ));
        }
        self.encode_raw(buf);
        Ok(())
    }

    /// Encodes the model into `buf`, which has room for it.
    fn encode_raw(&self, buf: &mut impl BufMut) {
        use prost::encoding::{int64, message, string};
        // prost's order, that of the field numbers. Named one by one (no
        // `..`), so that a field the schema gains cannot be left out.
        let ModelProto {
            ir_version,
            producer_name,
            producer_version,
            domain,
            model_version,
            doc_string,
            graph,
            opset_import,
            metadata_props,
            training_info,
            functions,
            configuration,
        } = &*self.model;
        if let Some(value) = ir_version {
            int64::encode(1, value, buf);
        }
        for (number, value) in [(2, producer_name), (3, producer_version), (4, domain)] {
            if let Some(value) = value {
                string::encode(number, value, buf);
            }
        }
        if let Some(value) = model_version {
            int64::encode(5, value, buf);
        }
        if let Some(value) = doc_string {
            string::encode(6, value, buf);
        }
        if let Some(rest) = graph {
            encode_key(MODEL_GRAPH, WireType::LengthDelimited, buf);
            encode_varint(self.graph_len as u64, buf);
            let nodes = self.nodes.iter().zip(self.node_lens.iter().copied());
            write_repeated(GRAPH_NODE, nodes, &self.encoded.nodes, buf);
            if let Some(name) = &self.name {
                string::encode(GRAPH_NAME, name, buf);
            }
            let initializers = (self.initializers.iter()).map(|item| (item, item.encoded_len()));
            write_repeated(
                GRAPH_INITIALIZER,
                initializers,
                &self.encoded.initializers,
                buf,
            );
            write_graph_rest(rest, &self.encoded.inputs_and_outputs, buf);
        }
        message::encode_repeated(8, opset_import, buf);
        message::encode_repeated(14, metadata_props, buf);
        message::encode_repeated(20, training_info, buf);
        message::encode_repeated(25, functions, buf);
        message::encode_repeated(26, configuration, buf);
    }
}

/// Writes the graph's fields that prost writes after its initializers,
/// in its order, with `inputs_and_outputs` (the inputs and outputs left
/// encoded, when `rest` has none) where they go.
fn write_graph_rest(rest: &GraphProto, inputs_and_outputs: &[u8], buf: &mut impl BufMut) {
    use prost::encoding::{message, string};
    // Named one by one (no `..`), so that a field the schema gains cannot
    // be left out; the first three were taken out of `rest`.
    let GraphProto {
        node: _,
        name: _,
        initializer: _,
        doc_string,
        input,
        output,
        value_info,
        quantization_annotation,
        sparse_initializer,
        metadata_props,
    } = rest;
    if let Some(value) = doc_string {
        string::encode(10, value, buf);
    }
    buf.put_slice(inputs_and_outputs);
    message::encode_repeated(11, input, buf);
    message::encode_repeated(12, output, buf);
    message::encode_repeated(13, value_info, buf);
    message::encode_repeated(14, quantization_annotation, buf);
    message::encode_repeated(15, sparse_initializer, buf);
    message::encode_repeated(16, metadata_props, buf);
}

/// The length of the repeated field `number` holding items of the
/// lengths `item_lens` and the runs of `encoded` (the same field, left
/// encoded) between them.
fn repeated_len(
    number: u32,
    item_lens: impl Iterator<Item = usize>,
    encoded: &[EncodedRun],
) -> usize {
    let items_len: usize = item_lens.map(|len| field_len(number, len)).sum();
    let runs_len: usize = (encoded.iter().flat_map(|run| &run.pieces))
        .map(Vec::len)
        .sum();
    items_len + runs_len
}

/// Writes the repeated field `number` holding `items`, each with the
/// length of its encoding, each run of `encoded` before the item of its
/// index, in order.
fn write_repeated<'m, T: Message + 'm>(
    number: u32,
    items: impl Iterator<Item = (&'m T, usize)>,
    encoded: &[EncodedRun],
    buf: &mut impl BufMut,
) {
    let mut runs = encoded.iter().peekable();
    for (index, (item, len)) in items.enumerate() {
        while let Some(run) = runs.next_if(|run| run.at <= index) {
            run.pieces.iter().for_each(|piece| buf.put_slice(piece));
        }
        encode_key(number, WireType::LengthDelimited, buf);
        encode_varint(len as u64, buf);
        item.encode_raw(buf);
    }
    for piece in runs.flat_map(|run| &run.pieces) {
        buf.put_slice(piece);
    }
}

/// Writes the encoding of `model` with the nodes and initializers of
/// `encoded` back in its graph's lists (each run before the item of its
/// index, in order):
/// the bytes `prost` gives of that model, which never exists whole. (For
/// the tests of the pieces reader; the parser goes through
/// [`EncodedModel`].)
#[cfg(test)]
pub(super) fn write_model(
    model: Box<ModelProto>,
    encoded: EncodedRuns,
    out: &mut dyn Write,
) -> io::Result<()> {
    EncodedModel::new(model, encoded, 0).write(out)
}

/// A `BufMut` over a writer: the encoder fills `buffer`, which goes to
/// `out` whenever it is full; slices at least as long as the buffer go
/// straight to `out`. `BufMut` cannot fail, so the first write error is
/// kept in `error` and everything after it dropped.
struct BufWriter<'w> {
    out: &'w mut dyn Write,
    buffer: Vec<u8>,
    error: Option<io::Error>,
}

impl<'w> BufWriter<'w> {
    /// A writer to `out` through a buffer of `capacity` bytes.
    fn new(out: &'w mut dyn Write, capacity: usize) -> Self {
        BufWriter {
            out,
            buffer: Vec::with_capacity(capacity.max(1)),
            error: None,
        }
    }

    /// Writes `bytes` to `out` unless a write has failed.
    fn write_out(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }

    /// Writes out and empties the buffer.
    fn drain(&mut self) {
        let buffer = std::mem::take(&mut self.buffer);
        self.write_out(&buffer);
        self.buffer = buffer;
        self.buffer.clear();
    }

    /// Makes room for `len` more bytes in the buffer if they fit in it.
    fn make_room(&mut self, len: usize) {
        if self.buffer.capacity() - self.buffer.len() < len {
            self.drain();
        }
    }

    /// Writes out what is buffered and flushes `out`: the first error of
    /// all the writes, if any.
    fn finish(mut self) -> io::Result<()> {
        self.drain();
        match self.error {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

// SAFETY: `chunk_mut` hands out only the buffer's spare capacity, and
// `advance_mut` is called (by the `BufMut` contract) with at most that many
// bytes, now initialized.
unsafe impl BufMut for BufWriter<'_> {
    fn remaining_mut(&self) -> usize {
        usize::MAX - self.buffer.len()
    }

    unsafe fn advance_mut(&mut self, count: usize) {
        let len = self.buffer.len() + count;
        debug_assert!(len <= self.buffer.capacity());
        // SAFETY: see the impl.
        unsafe { self.buffer.set_len(len) };
    }

    fn chunk_mut(&mut self) -> &mut UninitSlice {
        self.make_room(1);
        UninitSlice::uninit(self.buffer.spare_capacity_mut())
    }

    fn put_slice(&mut self, bytes: &[u8]) {
        self.make_room(bytes.len());
        if bytes.len() <= self.buffer.capacity() - self.buffer.len() {
            self.buffer.extend_from_slice(bytes);
        } else {
            self.write_out(bytes);
        }
    }

    fn put<T: Buf>(&mut self, mut source: T)
    where
        Self: Sized,
    {
        while source.has_remaining() {
            let chunk = source.chunk();
            let len = chunk.len();
            self.put_slice(chunk);
            source.advance(len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::allocations::made_by;
    use crate::{parse_model, Parser};

    #[test]
    fn a_header_that_sets_the_graph_applies_to_the_encoding() {
        // [ext] model header entries that set the main graph or part of it,
        // alone, one after another, and before or after the reference's
        // keys: the encoding, in pieces or on one thread, is the IR's (it
        // kept the nodes and initializers it held encoded).
        let graph = "g (float x) => (float y) <float[2] w = {1.0, 2.0}> { y = Relu(x) z = Neg(y) }";
        let headers = [
            "graph: unset",
            "graph: {node: unset}",
            "graph: {initializer: unset}",
            "graph: {doc_string: \"d\"}",
            "graph: unset, graph: {doc_string: \"d\"}",
            "graph: {doc_string: \"d\"}, graph: unset",
            "ir_version: 8, graph: {node: unset}, opset_import: [\"\": 18]",
        ];
        for header in headers {
            let text = format!("<{header}, producer_name: \"p\"> {graph}");
            let ir = parse_model(&text).unwrap().encode_to_vec();
            for threads in [true, false] {
                let mut written = Vec::new();
                let parser = Parser::new().threads(threads);
                parser.write_model(&text, &mut written).unwrap().unwrap();
                assert!(written == ir, "{header}, threads: {threads}");
            }
        }
    }

    /// A writer that takes at most `step` bytes a call, as a pipe may.
    struct Trickle {
        written: Vec<u8>,
        step: usize,
        calls: usize,
        /// The most bytes one call was given.
        largest: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let n = bytes.len().min(self.step);
            self.written.extend_from_slice(&bytes[..n]);
            self.calls += 1;
            self.largest = self.largest.max(bytes.len());
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A model with many small fields and one payload longer than the
    /// buffers tried.
    fn model() -> crate::proto::ModelProto {
        let mut text = String::from(
            "<ir_version: 10, opset_import: [\"\": 21]> g (float[N] x) => (float[N] y) {\n",
        );
        text.push_str("  big = Constant <value: tensor = float[300] {");
        text.push_str(&vec!["0.25"; 300].join(", "));
        text.push_str("}> ()\n  y0 = Relu(x)\n");
        for i in 1..200 {
            text.push_str(&format!("  y{i} = Relu(y{})\n", i - 1));
        }
        text.push_str("  y = Identity(y199)\n}\n");
        let mut model = crate::parse_model(&text).unwrap();
        // As raw_data: one field of 1,200 bytes.
        let big = &mut model.graph.as_mut().unwrap().node[0].attribute[0];
        let tensor = big.t.as_mut().unwrap();
        tensor.raw_data = Some(
            tensor
                .float_data
                .drain(..)
                .flat_map(f32::to_le_bytes)
                .collect(),
        );
        model
    }

    /// Models of every shape the encoder takes apart: no graph, an empty
    /// graph, fields on both sides of the graph's, nested subgraphs,
    /// functions, many nodes.
    fn models() -> Vec<ModelProto> {
        let nested = "<ir_version: 10, opset_import: [\"\": 21, \"f\": 1], doc_string: \"d\",\n\
                      producer_name: \"p\", producer_version: \"1\", domain: \"m\", model_version: 2,\n\
                      metadata_props: [\"k\": \"v\"]>\n\
                      g (bool c, float[N] x) => (float[N] y) <float[1] w = {1}> {\n\
                      y = If (c) <then_branch: graph = t () => (float[N] a) {\n\
                        a = If (c) <then_branch: graph = u () => (float[N] b) { b = Relu(x) },\n\
                                    else_branch: graph = v () => (float[N] b) { b = f.F(x) }>\n\
                      }, else_branch: graph = e () => (float[N] a) { a = Identity(x) }>\n\
                      }\n\
                      <domain: \"f\", opset_import: [\"\": 21]> F (x) => (y) { y = Relu(x) }\n";
        let mut nested = crate::parse_model(nested).unwrap();
        nested.training_info = vec![crate::proto::TrainingInfoProto::default()];
        nested.configuration = vec![crate::proto::DeviceConfigurationProto::default()];
        let no_graph = ModelProto {
            graph: None,
            ..nested.clone()
        };
        let empty_graph = ModelProto {
            graph: Some(crate::proto::GraphProto::default()),
            ..ModelProto::default()
        };
        vec![
            ModelProto::default(),
            no_graph,
            empty_graph,
            nested,
            model(),
        ]
    }

    #[test]
    fn an_encoded_model_is_the_bytes_prost_gives_written_in_one_call() {
        for model in models() {
            let expected = model.encode_to_vec();
            let encoded = EncodedModel::new(Box::new(model), EncodedRuns::default(), 0);
            assert_eq!(encoded.encoded_len(), expected.len());
            let mut out = Trickle {
                written: Vec::new(),
                step: usize::MAX,
                calls: 0,
                largest: 0,
            };
            encoded.write(&mut out).unwrap();
            assert!(out.written == expected);
            // Through a buffer of the encoding's length: one write.
            assert_eq!(out.calls, usize::from(!expected.is_empty()));
        }
    }

    /// The model is kept boxed, as the grammar gives it: an
    /// `EncodedModel`, which the entry points and Python's extension move
    /// from call to call, is a few vectors and lengths, not the model's
    /// fields (with its graph's, about half a kilobyte).
    #[test]
    fn an_encoded_model_keeps_its_model_boxed() {
        let model = std::mem::size_of::<ModelProto>();
        assert!(std::mem::size_of::<EncodedModel>() < model / 2, "{model}");
    }

    /// The allocations a one-node model's encoding makes, all fixed costs
    /// of a call from Python: its inputs' and outputs' encoding has room
    /// made for it at once (it grew from nothing, three allocations), and
    /// its header's entries are applied as read, not gathered in a vector
    /// first, its opset list the one read, not copied into another.
    #[test]
    fn a_one_node_model_is_encoded_with_few_allocations() {
        let text =
            r#"<ir_version: 8, opset_import: ["": 18]> g (float x) => (float y) { y = Relu(x) }"#;
        // On this thread, as a short text is read in release builds (test
        // builds read texts of a few bytes in pieces).
        let parser = Parser::new().threads(false);
        // The thread's grammar and token vector, made once.
        parser.encode_model(text).unwrap();
        let (made, encoded) = made_by(|| parser.encode_model(text).unwrap());
        assert_eq!(
            encoded.encoded_len(),
            parse_model(text).unwrap().encoded_len()
        );
        assert!(made <= 14, "{made} allocations");
    }

    #[test]
    fn an_encoded_model_is_encoded_into_a_slice_its_length_or_not_at_all() {
        for model in models() {
            let expected = model.encode_to_vec();
            let encoded = EncodedModel::new(Box::new(model), EncodedRuns::default(), 0);
            let mut bytes = vec![0; expected.len()];
            let mut rest = bytes.as_mut_slice();
            encoded.encode(&mut rest).unwrap();
            assert!(rest.is_empty());
            assert!(bytes == expected);
            if let Some(short) = expected.len().checked_sub(1) {
                let mut bytes = vec![0; short];
                assert!(encoded.encode(&mut bytes.as_mut_slice()).is_err());
                assert!(bytes.iter().all(|&byte| byte == 0), "written");
            }
        }
    }

    #[test]
    fn a_long_encoding_goes_out_through_the_largest_buffer() {
        let mut model = model();
        let graph = model.graph.as_mut().unwrap();
        let nodes = graph.node.clone();
        while graph.node.len() * 20 < 2 * BUFFER_BYTES {
            graph.node.extend_from_slice(&nodes);
        }
        let expected = model.encode_to_vec();
        let mut out = Trickle {
            written: Vec::new(),
            step: usize::MAX,
            calls: 0,
            largest: 0,
        };
        EncodedModel::new(Box::new(model), EncodedRuns::default(), 0)
            .write(&mut out)
            .unwrap();
        assert!(out.written == expected);
        assert!(out.calls >= expected.len() / BUFFER_BYTES);
        assert!(out.largest <= BUFFER_BYTES, "a write of {}", out.largest);
    }

    /// `items` but those of index `kept`, which stay IR, in runs of their
    /// field `number` before them (in two pieces when they can be), as
    /// `EncodedModel::new` takes them.
    fn left_encoded<T: Message + Clone>(
        number: u32,
        items: &[T],
        kept: &[usize],
    ) -> (Vec<T>, Vec<EncodedRun>) {
        let encode = |range: std::ops::Range<usize>| {
            let mut bytes = Vec::new();
            for item in &items[range] {
                prost::encoding::message::encode(number, item, &mut bytes);
            }
            bytes
        };
        let mut runs = Vec::new();
        let mut from = 0;
        for (at, &item) in kept.iter().chain([&items.len()]).enumerate() {
            if from < item {
                let middle = (from + item).div_ceil(2);
                let pieces = vec![encode(from..middle), encode(middle..item)];
                runs.push(EncodedRun { at, pieces });
            }
            from = item + 1;
        }
        (kept.iter().map(|&i| items[i].clone()).collect(), runs)
    }

    #[test]
    fn nodes_and_initializers_left_encoded_are_written_where_they_go_and_counted() {
        let text = "<ir_version: 10, opset_import: [\"\": 21], doc_string: \"d\">\n\
                    g (float[N] x) => (float[N] y) <float[1] w = {1}, float[N] t,\n\
                    int64[2] k = {1, 2}, @<raw: true> float[1] r = {3}, double v = {4}, uint8 u = {5}> {\n\
                    a = Relu(x)\n b = Relu(a)\n c = Relu(b)\n d = Relu(c)\n y = Relu(d)\n}\n\
                    <domain: \"f\", opset_import: [\"\": 21]> f (x) => (y) { y = Relu(x) }\n";
        let mut named = crate::parse_model(text).unwrap();
        let graph = named.graph.as_mut().unwrap();
        graph.doc_string = Some("the graph".to_owned());
        assert_eq!((graph.node.len(), graph.initializer.len()), (5, 5));
        let mut unnamed = named.clone();
        unnamed.graph.as_mut().unwrap().name = None;
        // Which nodes and initializers stay IR; the others go in runs
        // before them.
        let kept = [vec![], vec![0], vec![4], vec![1, 3], vec![0, 1, 2, 3, 4]];
        for model in [named, unnamed] {
            let expected = model.encode_to_vec();
            let graph = model.graph.as_ref().unwrap();
            for (nodes_kept, initializers_kept) in
                kept.iter().flat_map(|n| kept.iter().map(move |i| (n, i)))
            {
                let mut partial = model.clone();
                let (node, nodes) = left_encoded(GRAPH_NODE, &graph.node, nodes_kept);
                let (initializer, initializers) =
                    left_encoded(GRAPH_INITIALIZER, &graph.initializer, initializers_kept);
                let rest = partial.graph.as_mut().unwrap();
                (rest.node, rest.initializer) = (node, initializer);
                let runs = EncodedRuns {
                    nodes,
                    initializers,
                    inputs_and_outputs: Vec::new(),
                };
                let encoded = EncodedModel::new(Box::new(partial), runs, 0);
                let kept = format!("nodes {nodes_kept:?}, initializers {initializers_kept:?} kept");
                assert_eq!(encoded.encoded_len(), expected.len(), "{kept}");
                let mut out = Vec::new();
                encoded.write(&mut out).unwrap();
                assert!(out == expected, "{kept}");
            }
        }
    }

    #[test]
    fn the_same_bytes_as_encode_to_vec_through_any_buffer() {
        let model = model();
        let expected = model.encode_to_vec();
        assert!(expected.len() > 5_000);
        for capacity in [0, 1, 7, 64, 1_000, 1_199, 1_200, 1_201, 4_096, BUFFER_BYTES] {
            for step in [1, 3, 4_096, usize::MAX] {
                let mut out = Trickle {
                    written: Vec::new(),
                    step,
                    calls: 0,
                    largest: 0,
                };
                write_encoded_with(&model, &mut out, capacity).unwrap();
                assert_eq!(out.written, expected, "buffer {capacity}, writes of {step}");
            }
        }
    }

    #[test]
    fn the_output_goes_out_in_pieces_as_it_is_encoded() {
        let model = model();
        let mut out = Trickle {
            written: Vec::new(),
            step: usize::MAX,
            calls: 0,
            largest: 0,
        };
        write_encoded_with(&model, &mut out, 64).unwrap();
        // Held whole and written once, it would be one call.
        assert!(
            out.calls > model.encoded_len() / 64 / 2,
            "{} calls",
            out.calls
        );
    }

    /// A writer that fails after `left` bytes.
    struct Failing {
        left: usize,
    }

    impl Write for Failing {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::other("disk full"));
            }
            let n = bytes.len().min(self.left);
            self.left -= n;
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failed_write_is_the_error_not_a_panic() {
        let model = model();
        for (left, capacity) in [(0, 64), (100, 64), (3_000, 64), (0, BUFFER_BYTES)] {
            let error = write_encoded_with(&model, &mut Failing { left }, capacity).unwrap_err();
            assert_eq!(
                error.to_string(),
                "disk full",
                "after {left}, buffer {capacity}"
            );
        }
    }
}
