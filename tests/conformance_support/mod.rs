//! The machinery of `tests/conformance.rs`: the corpus, onnxtxt applied to
//! it, the reference parser run in batch, IR normalisation, diffs and
//! reports.

pub mod corpus;
pub mod diff;
pub mod ir;
pub mod normalise;
pub mod reference;
pub mod report;
