//! `cargo fuzz run --features tract tract_consumer` (or `fuzz/run.sh
//! tract_consumer SECONDS`): a real ONNX consumer, tract, fed valid models
//! from `onnxtxt::smith::valid_model`, the config drawn from the bytes too
//! (swarm testing). tract may refuse a model (an operator or a type it
//! lacks): that is an error, not a finding. A panic is one. This is the
//! template to copy for another consumer: replace the body of `consume`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnxtxt::smith::{valid_model, Config};

#[path = "tract/consume.rs"]
mod tract;
use tract::consume;

fuzz_target!(|data: &[u8]| {
    let mut u = arbitrary::Unstructured::new(data);
    let Ok(config) = Config::swarm(&mut u) else {
        return;
    };
    let Ok(model) = valid_model(&mut u, &config) else {
        return;
    };
    let bytes = onnxtxt::prost::Message::encode_to_vec(&model);
    // Only panics matter: errors are tract declining the model.
    let _ = consume(&bytes);
});
