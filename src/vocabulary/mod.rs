//! The words of the syntax, shared by the parser and the printer so that
//! whatever the printer writes the parser reads back the same:
//!
//! | file | words |
//! |---|---|
//! | `words.rs` | element and attribute type names, type keywords, bare names |
//! | `headers.rs` | the reference's model and function header keys |
//! | `annotation_keys.rs` | the annotation keys of every construct and nested message |

mod annotation_keys;
mod headers;
mod words;

pub(crate) use annotation_keys::{construct_table, message_table};
pub(crate) use headers::{FUNCTION_HEADER_KEYS, MODEL_HEADER_KEYS};
pub(crate) use words::*;
