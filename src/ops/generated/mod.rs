//! The registry's data, generated from the onnx package by
//! `grammar/operators.py` (never edited by hand; the first line of each file
//! says so, with the counts `ops::tests` recounts): `data.rs` the schemas,
//! `function_bodies.rs` the bodies that define operators, and
//! `context_bodies.rs` the bodies onnx builds for nodes of context-dependent
//! operators.

// Generated one fact a line, which rustfmt would spread over many.
#[rustfmt::skip]
pub(super) mod context_bodies;
#[rustfmt::skip]
pub(super) mod data;
#[rustfmt::skip]
pub(super) mod function_bodies;
