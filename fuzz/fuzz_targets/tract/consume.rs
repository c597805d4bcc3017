//! What `tract_consumer` and `tract_repro` do with a model: tract loads
//! it, optimizes it and runs it.

use tract_onnx::prelude::*;

/// Loads the model, optimizes it and runs it on ones of its inputs' shapes
/// (symbolic dimensions 1). Ones, not zeros: tract 0.23.9 panics on an
/// integer `Mod` (or division) by zero ("attempt to calculate the
/// remainder with a divisor of zero", tract-core src/ops/math/mod.rs), a
/// known finding (fuzz/README.md) that zeros would hit at once.
pub fn consume(bytes: &[u8]) -> TractResult<()> {
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
