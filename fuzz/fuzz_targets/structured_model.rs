//! `cargo fuzz run structured_model`: see `onnxtxt::roundtrip::Target::StructuredModel`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnxtxt::roundtrip::Target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = Target::StructuredModel.check(data) {
        panic!("{e}");
    }
});
