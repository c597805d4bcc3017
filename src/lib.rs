//! Parse and print the [ONNX textual syntax] in both directions, losslessly.
//!
//! onnxtxt reads the syntax of onnx's `docs/Syntax.md` (the one of
//! `onnx.parser` and `onnx.printer`) into the ONNX IR, the protobuf types of
//! [`proto`], and prints any IR value back as canonical text that parses to
//! the same bytes. What the reference syntax cannot hold (doc strings,
//! metadata, raw tensor storage, ...) is written with a few marked
//! extensions, which [`Printer::compat`] leaves out.
//!
//! ```
//! use onnxtxt::prost::Message;
//!
//! let model = onnxtxt::parse_model(r#"
//!     <ir_version: 10, opset_import: ["": 21]>
//!     g (float[N] x) => (float[N] y) { y = Relu(x) }
//! "#)?;
//! let bytes = model.encode_to_vec();                 // the binary model
//! let text = onnxtxt::to_text(&onnxtxt::decode_model(&bytes)?);
//! assert_eq!(onnxtxt::parse_model(&text)?.encode_to_vec(), bytes);
//! # Ok::<(), onnxtxt::Error>(())
//! ```
//!
//! # Where to look
//!
//! * Text to IR: one function per IR kind, [`parse_model`], [`parse_graph`],
//!   [`parse_function`], [`parse_node`], [`parse_nodes`], [`parse_type`],
//!   [`parse_tensor`], [`parse_attribute`], [`parse_value_info`];
//!   [`parse_model_with_source_map`] also gives the span of every graph,
//!   node, attribute, value info, function and value name ([`SourceMap`]),
//!   [`parse_model_with_source_map_for`] only of the items some IR paths
//!   need (to locate a checker's findings in a big model).
//!   [`Parser`] holds the options.
//! * IR to text: [`to_text`], or a [`Printer`] for the options (compat
//!   mode, elision, threads) and for writing to any `io::Write`.
//! * Binary models: [`decode_model`] decodes with located errors
//!   ([`decode`] any other IR kind the printer prints); encode with
//!   [`prost::Message`] (re-exported, so no `prost` of your own is
//!   needed). [`looks_like_text`] tells the two forms apart.
//! * Errors: every fallible function returns an [`Error`], one or more
//!   [`Diagnostic`]s with byte spans, codes and help; it implements
//!   [`miette::Diagnostic`].
//! * [`check`]: what the grammar cannot catch (values used before they are
//!   defined, duplicate names, domains not imported, ...).
//! * [`format()`]: the canonical style with the comments kept (`onnxtxt fmt`).
//! * [`infer`]: type and shape inference, as onnx's `infer_shapes` does
//!   it, with located findings (`onnxtxt infer`, `print --types`; `check`
//!   reports what it finds wrong).
//! * [`inline`]: a model's local functions expanded into its graph
//!   (`onnxtxt inline`).
//! * [`ir_path`]: the IR paths (`graph.node[3].attribute["axes"]`) by
//!   which findings, the source map, `fmt` and `diff` name a model's items.
//! * [`analysis`]: what an editor asks of a text (diagnostics, definitions
//!   and references, hover, completion, rename, outline, semantic tokens),
//!   answered in byte offsets; `lsp` (feature `lsp`) serves it as a
//!   language server, `onnxtxt lsp`.
//! * [`external`]: tensor data moved to a file and back.
//! * [`testcase`]: test cases as text, ONNX's backend test layout (a model
//!   and data sets of tensors, sequences, maps and optionals):
//!   [`parse_value`], [`parse_sequence`], [`parse_map`], [`parse_optional`].
//! * [`ops`]: the operator registry, every schema of onnx 1.23.2 (inputs,
//!   outputs, attributes, type constraints, function bodies) by opset.
//! * `diff` (feature `diff`): model diffs with named hunks and tensor
//!   summaries.
//! * `report` (feature `report`): diagnostics drawn over their source
//!   lines, as the `onnxtxt` command draws them, into a string.
//! * [`shrink`]: from a model a predicate finds interesting to the
//!   smallest one it still does, valid (`onnxtxt shrink`).
//! * `smith` and `roundtrip` (feature `smith`): random well-formed models,
//!   and the round-trip invariants the tests and fuzzers check.
//!
//! # Features
//!
//! * `cli` (default): the `onnxtxt` command; turns on `diff`, `lsp`,
//!   `report` and `smith`.
//!   A library user can leave it out with `default-features = false`.
//! * `diff`: the `diff` module (adds `similar`).
//! * `lsp`: the `lsp` module, the language server (adds `lsp-server`,
//!   `lsp-types`, `serde` and `serde_json`).
//! * `report`: the `report` module (adds `ariadne`).
//! * `smith`: the `smith` and `roundtrip` modules (adds `arbitrary`).
//!
//! # Threads
//!
//! Long inputs are read and printed with a second thread (to read: texts
//! of 256 KiB and more, number lists of 256 KiB and more; to print: node
//! and initializer lists of 1024 items or 1 MiB of encoding and more,
//! number lists of 32Ki numbers and more, of 4Ki in a binary model of 1
//! MiB and more, whose lists share one helper); the result is always what
//! one thread gives.
//! [`Parser::threads`] and [`Printer::threads`] turn that off, for an
//! embedder with a thread pool of its own or a target without threads.
//!
//! [ONNX textual syntax]: https://github.com/onnx/onnx/blob/main/docs/Syntax.md
#![deny(missing_docs)]

#[cfg(test)]
mod allocations;
pub mod analysis;
pub mod check;
mod decode;
#[cfg(feature = "diff")]
pub mod diff;
mod error;
pub mod external;
mod finding;
mod format;
pub mod infer;
pub mod inline;
pub mod ir_path;
mod lexer;
#[cfg(feature = "lsp")]
pub mod lsp;
mod name_key;
mod numbers;
pub mod ops;
mod parallel;
mod parser;
mod printer;
pub mod proto;
#[cfg(feature = "report")]
pub mod report;
#[cfg(feature = "smith")]
pub mod roundtrip;
pub mod shrink;
#[cfg(feature = "smith")]
pub mod smith;
mod tensor_data;
mod test_data;
pub mod testcase;
mod vocabulary;

pub use check::{check_model, Finding, Severity};
pub use decode::{decode, decode_model, Decode, MAX_MESSAGE_DEPTH};
pub use error::{
    line_column, tidy_message, Diagnostic, Error, Label, LineIndex, Span, MAX_MESSAGE_CHARS,
    MAX_QUOTED_CHARS,
};
pub use format::format;
pub use lexer::looks_like_text;
pub use parser::parse_model_with_source_map_for;
pub use parser::EncodedModel;
pub use parser::{
    parse_attribute, parse_function, parse_graph, parse_model, parse_model_with_source_map,
    parse_node, parse_nodes, parse_tensor, parse_type, parse_value_info, Parse, Parser, SourceMap,
    MAX_NESTING,
};
pub use parser::{parse_map, parse_optional, parse_sequence, parse_value};
pub use printer::{to_text, Dropped, Print, Printed, Printer};
/// The protobuf runtime of [`proto`]: `prost::Message` encodes and decodes
/// the IR, with no `prost` dependency of your own to keep in step.
pub use prost;
