//! onnxtxt: the ONNX textual syntax, parsed and printed losslessly.

pub mod error;
pub mod names;
pub mod proto;
pub mod tensor_data;

pub use error::{Diagnostic, Error};
