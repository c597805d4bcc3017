//! The integration tests, in one binary: each test binary links the whole
//! library, so one binary instead of one per file builds much faster. The
//! modules that run the `onnxtxt` command need the `cli` feature; those
//! that use `onnxtxt::smith` or `onnxtxt::roundtrip`, the `smith` feature
//! (both default). The reference-backed ones are `#[ignore]`d and run by
//! `bash conformance/run.sh`.

mod architecture;
#[cfg(feature = "cli")]
mod as_operator;
mod check;
mod check_checker;
#[cfg(feature = "cli")]
mod check_cli;
mod check_names;
mod check_reference;
#[cfg(feature = "cli")]
mod cli;
mod conformance;
#[cfg(feature = "cli")]
mod diagnostics;
#[cfg(feature = "cli")]
mod diff_cli;
#[cfg(feature = "cli")]
mod docs;
#[cfg(feature = "cli")]
mod elide;
mod examples;
#[cfg(feature = "cli")]
mod external_data;
#[cfg(feature = "cli")]
mod fmt_cli;
#[cfg(feature = "smith")]
mod fuzz_regressions;
#[cfg(feature = "cli")]
mod git_textconv;
#[cfg(feature = "cli")]
mod hostile_budgets;
#[cfg(feature = "cli")]
mod hostile_io;
#[cfg(feature = "cli")]
mod infer_cli;
mod infer_reference;
#[cfg(feature = "cli")]
mod initializer_lists;
#[cfg(feature = "cli")]
mod inline_cli;
#[cfg(feature = "cli")]
mod lsp;
#[cfg(feature = "lsp")]
mod lsp_edits;
#[cfg(feature = "cli")]
mod lsp_neovim;
#[cfg(feature = "cli")]
mod number_lists;
#[cfg(feature = "cli")]
mod ops_cli;
mod ops_reference;
mod printer;
#[cfg(feature = "smith")]
mod roundtrip_prop;
mod schema;
#[cfg(feature = "cli")]
mod shrink;
#[cfg(feature = "diff")]
mod single_edits;
#[cfg(feature = "cli")]
mod smith_cli;
#[cfg(feature = "smith")]
mod smith_valid;
mod streamed;
#[cfg(feature = "diff")]
mod structural_diff;
#[cfg(feature = "cli")]
mod support;
#[cfg(feature = "cli")]
mod testcase;
mod testcase_conformance;
mod tools;
