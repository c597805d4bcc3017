#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod check;
pub mod decode;
#[cfg(feature = "diff")]
pub mod diff;
pub mod error;
pub mod external;
mod format;
pub mod lexer;
pub mod names;
mod numbers;
pub mod ops;
mod parallel;
mod parser;
pub mod printer;
pub mod proto;
#[cfg(feature = "smith")]
pub mod roundtrip;
#[cfg(feature = "smith")]
pub mod smith;
pub mod tensor_data;

pub use check::{check_model, Finding, Severity};
pub use decode::decode_model;
pub use error::{Diagnostic, Error};
pub use format::format;
pub use parser::{
    parse_attribute, parse_function, parse_graph, parse_model, parse_model_with_source_map,
    parse_node, parse_nodes, parse_tensor, parse_type, parse_value_info, SourceMap, MAX_NESTING,
};
pub use printer::{to_text, Print, Printer};
