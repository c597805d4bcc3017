//! The machinery of `tests/infer_reference.rs`: the corpus with the
//! reference's inference, the values of an inferred model, their
//! comparison, and the tallies printed.

pub mod compare;
pub mod corpus;
pub mod report;
pub mod values;
