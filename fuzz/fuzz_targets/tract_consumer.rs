//! `cargo fuzz run --features tract tract_consumer` (or `fuzz/run.sh
//! tract_consumer SECONDS`): a real ONNX consumer, tract, fed valid models
//! from `onnxtxt::smith::valid_model`, the config drawn from the bytes too
//! (swarm testing). tract may refuse a model (an operator or a type it
//! lacks): that is an error, not a finding. A panic is one. This is the
//! template to copy for another consumer: replace the body of `consume`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnxtxt::smith::{valid_model, Config};
use tract_onnx::prelude::*;

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

/// Loads the model, optimizes it and runs it on ones of its inputs' shapes
/// (symbolic dimensions 1). Ones, not zeros: tract 0.23.9 panics on an
/// integer `Mod` (or division) by zero ("attempt to calculate the
/// remainder with a divisor of zero", tract-core src/ops/math/mod.rs), a
/// known finding (fuzz/README.md) that zeros would hit at once.
fn consume(bytes: &[u8]) -> TractResult<()> {
    let model = tract_onnx::onnx()
        .model_for_read(&mut &*bytes)?
        .into_optimized()?;
    let mut inputs = TVec::new();
    for i in 0..model.inputs.len() {
        let fact = model.input_fact(i)?;
        let shape: Vec<usize> = fact
            .shape
            .iter()
            .map(|d| d.to_i64().map_or(1, |d| d.max(0) as usize))
            .collect();
        let one = tensor0(1i64).cast_to_dt(fact.datum_type)?.into_owned();
        inputs.push(one.broadcast_scalar_to_shape(&shape)?.into_tvalue());
    }
    model.into_runnable()?.run(inputs)?;
    Ok(())
}
