//! The ONNX IR as Rust types, generated from `grammar/onnx.proto` by `prost`.
//!
//! proto2 `optional` fields are `Option<T>`, so a field explicitly set to its
//! default value is distinguishable from an unset one; repeated numeric fields
//! marked `packed` in the schema are encoded packed. Encoding is deterministic
//! (fields in number order), which is what "byte-identical" means throughout
//! this crate.
#![allow(missing_docs, clippy::all, clippy::pedantic)]

include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
