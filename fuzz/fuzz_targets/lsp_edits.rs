//! `cargo fuzz run lsp_edits`: see `onnxtxt::lsp::fuzz::check_edits`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = onnxtxt::lsp::fuzz::check_edits(data) {
        panic!("{e}");
    }
});
