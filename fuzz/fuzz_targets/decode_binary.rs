//! `cargo fuzz run decode_binary`: see `onnxtxt::roundtrip::Target::DecodeBinary`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnxtxt::roundtrip::Target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = Target::DecodeBinary.check(data) {
        panic!("{e}");
    }
});
