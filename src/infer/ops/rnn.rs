//! Recurrent networks: `RNN`, `GRU`, `LSTM`.

use super::common::*;

pub(super) const RULES: &[Rule] = &[
    Rule::new("RNN", 1, recurrent),
    Rule::new("GRU", 3, recurrent),
    Rule::new("LSTM", 1, recurrent),
];

/// `Y` is `[seq_length, num_directions, batch_size, hidden_size]`, `Y_h`
/// and `Y_c` are `[num_directions, batch_size, hidden_size]` (batch first
/// with `layout` 1); before version 7, only with `output_sequence`.
fn recurrent(node: &mut Node) -> Outcome {
    let directions = match node.string("direction") {
        Some("forward" | "reverse") => Dim::Value(1),
        Some("bidirectional") => Dim::Value(2),
        _ => Dim::Unknown,
    };
    let hidden = match node.int_or("hidden_size", -1) {
        h if h > 0 => Dim::Value(h),
        _ => Dim::Unknown,
    };
    let batch_first = node.int_or("layout", 0) != 0;
    let (mut sequence, mut batch) = (Dim::Unknown, Dim::Unknown);
    if let Some(input) = node.shape_opt(0) {
        let [a, b, _] = input else {
            return failed(
                ErrorKind::Invalid,
                format!("`X` must have rank 3, but its shape is {}", shape_text(input)),
            );
        };
        (sequence, batch) = if batch_first { (b.clone(), a.clone()) } else { (a.clone(), b.clone()) };
    }
    let outputs = node.output_count();
    for i in 0..outputs.min(3) {
        node.copy_elem(0, i)?;
    }
    if node.version() < 7 && node.int_or("output_sequence", 0) == 0 {
        // Before version 7, which outputs are there without
        // `output_sequence` is unclear: onnx gives no shapes.
        return Ok(());
    }
    let (y, state) = if batch_first {
        (
            vec![batch.clone(), sequence, directions.clone(), hidden.clone()],
            vec![batch, directions, hidden],
        )
    } else {
        (
            vec![sequence, directions.clone(), batch.clone(), hidden.clone()],
            vec![directions, batch, hidden],
        )
    };
    if outputs > 0 {
        node.set_shape(0, y);
    }
    for i in 1..outputs.min(3) {
        node.set_shape(i, state.clone());
    }
    Ok(())
}
