//! `cargo fuzz run lsp_framing`: see `onnxtxt::lsp::fuzz::check_framing`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = onnxtxt::lsp::fuzz::check_framing(data) {
        panic!("{e}");
    }
});
