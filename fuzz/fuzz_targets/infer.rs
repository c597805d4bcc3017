//! `cargo fuzz run infer`: see `onnxtxt::roundtrip::Target::Infer`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnxtxt::roundtrip::Target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = Target::Infer.check(data) {
        panic!("{e}");
    }
});
