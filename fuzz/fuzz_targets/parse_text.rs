//! `cargo fuzz run parse_text`: see `onnxtxt::roundtrip::Target::ParseText`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnxtxt::roundtrip::Target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = Target::ParseText.check(data) {
        panic!("{e}");
    }
});
