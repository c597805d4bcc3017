//! `cargo fuzz run fmt_idempotent`: see `onnxtxt::roundtrip::Target::FmtIdempotent`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnxtxt::roundtrip::Target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = Target::FmtIdempotent.check(data) {
        panic!("{e}");
    }
});
