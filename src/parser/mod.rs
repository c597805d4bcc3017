//! The parser: text to the IR in [`crate::proto`], through the tokens of
//! [`crate::lexer`]. Three readers of the one syntax share the work:
//!
//! | reader | where | reads |
//! |---|---|---|
//! | the grammar | `grammar.rs` and the production files below | every form, with located errors, recovery and source maps |
//! | plain | `fast/plain/` | the common forms of model, graph and node, token by token; hands the rest to the grammar |
//! | pieces | `fast/pieces.rs` | a long node list or initializer list, lexed and read in pieces on two threads, then spliced into the grammar's parse |
//!
//! A parse (`entry.rs`) tries pieces on long texts, then runs the grammar
//! with errors that record nothing, whose model, graph and node list
//! productions try the plain reader first; only text that fails is parsed
//! again, with errors that say why (`errors.rs`, `hints.rs`). Before the
//! grammar runs, `tokens.rs` rejects unreadable text, unpaired brackets
//! and nesting deeper than [`MAX_NESTING`], so nothing here recurses on the
//! Rust stack without bound.
//!
//! The grammar is written with `chumsky` over the token slice, one file per
//! group of productions (named as in `grammar/onnxtxt.ebnf`), tied
//! together in `grammar.rs` (a graph holds nodes, whose attributes hold
//! graphs):
//!
//! | file | productions |
//! |---|---|
//! | `common.rs` | identifiers, strings, integers, id lists |
//! | `types.rs` | types and shapes |
//! | `tensor.rs` | tensor constants, their values, sparse constants |
//! | `attribute.rs` | attributes and attribute values |
//! | `node.rs` | nodes and node lists |
//! | `graph.rs` | value infos, graphs, functions, models, headers |
//! | `value.rs` | `key: value` entries of headers and annotations |
//! | `annotation.rs` | what annotation keys mean for each construct |
//! | `data.rs` | [ext] data values (sequences, maps, optionals) and a test case's data sets |
//!
//! `recovery.rs` keeps parsing after a syntax error so that one run reports
//! every independent mistake; `landmarks.rs` records where each construct
//! is, for the [`SourceMap`]; `partial.rs` reads what it can of text that
//! does not parse, for editors.

// Diagnostics are built only when parsing fails, so returning them by value
// (instead of boxed) costs nothing on the hot path.
#![allow(clippy::result_large_err)]

pub(crate) mod annotation;
mod attribute;
mod common;
mod data;
mod entry;
mod errors;
mod fast;
mod grammar;
mod graph;
mod hints;
mod landmarks;
mod node;
mod partial;
mod recovery;
mod tensor;
mod tokens;
mod types;
mod value;
mod write;

pub(crate) use common::unquote;
pub(crate) use data::{Entry as DataEntry, RawDataSet};
pub(crate) use entry::{data_sets_offset, parse_data_sets, parse_model_with_comments, text_kind};
pub use entry::{
    parse_attribute, parse_function, parse_graph, parse_map, parse_model,
    parse_model_with_source_map, parse_model_with_source_map_for, parse_node, parse_nodes,
    parse_optional, parse_sequence, parse_tensor, parse_type, parse_value, parse_value_info, Parse,
    Parser,
};
pub(crate) use grammar::{emit_diagnostic, CustomError, Extra, Fail, Parsed, Problem, Tokens};
pub use landmarks::SourceMap;
pub(crate) use partial::{parse_model_partial, Partial};
pub use write::EncodedModel;

/// The deepest bracket nesting accepted. Protobuf decoders (prost, and the
/// C++ library by default) refuse messages nested more than 100 deep; a
/// bracket level of the text costs at most about two message levels
/// (`seq(` is a TypeProto inside a Sequence), a subgraph about three
/// messages for two brackets, so anything within this limit that prints
/// from a decodable model also parses back.
pub const MAX_NESTING: usize = 100;

/// The errors that one parse reports at most.
const MAX_ERRORS: usize = 50;
