//! The fast readers: what reads most text without the grammar's layers of
//! combinators. Both give their input back untouched when it is not what
//! they read, and the grammar reads it instead; the `parse_text` fuzz
//! target and the tests check that they read exactly what it would.
//!
//! | file | reads |
//! |---|---|
//! | `plain/` | the common forms of model, graph and node, token by token |
//! | `pieces.rs` | a long node list, in pieces on two threads |

pub(super) mod pieces;
pub(super) mod plain;
