//! Signal processing: `DFT`, `STFT`, the windows (`HannWindow`,
//! `HammingWindow`, `BlackmanWindow`) and `MelWeightMatrix`.

use super::common::*;
use crate::infer::data::int_values;
use crate::proto::TensorProto;

pub(super) const RULES: &[Rule] = &[
    Rule::new("DFT", 17, dft),
    Rule::new("STFT", 17, stft),
    Rule::new("HannWindow", 17, window),
    Rule::new("HammingWindow", 17, window),
    Rule::new("BlackmanWindow", 17, window),
    Rule::new("MelWeightMatrix", 17, mel_weight_matrix),
];

/// The value of a scalar integer constant (which must have rank 0).
fn scalar(tensor: &TensorProto, what: &str) -> Result<i64, Stop> {
    if !tensor.dims.is_empty() {
        return failed(ErrorKind::Invalid, format!("`{what}` must be a scalar"));
    }
    int_values(tensor).and_then(|v| v.first().copied()).known()
}

fn dft(node: &mut Node) -> Outcome {
    let onesided = node.int_or("onesided", 0) != 0;
    let inverse = node.int_or("inverse", 0) != 0;
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    let rank = input.len() as i64;
    if rank < 2 {
        return failed(ErrorKind::Invalid, "the input must have rank 2 or more (the last is the complex one)");
    }
    if onesided {
        let (want, what) = if inverse { (2, "complex") } else { (1, "real") };
        if let Dim::Value(last) = input[input.len() - 1] {
            if last != want {
                return failed(
                    ErrorKind::IncompatibleShapes,
                    format!("a one-sided DFT of this direction takes {what} input: the last dimension must be {want}"),
                );
            }
        }
    }
    let last = Dim::Value(if onesided && inverse { 1 } else { 2 });
    let listed = |i: usize| !node.input_name(i).is_empty();
    let axis = if node.version() < 20 {
        node.int_or("axis", 1)
    } else if listed(2) {
        match node.constant(2) {
            Some(t) => scalar(t, "axis")?,
            None => {
                let shape = if onesided || listed(1) {
                    let mut s = vec![Dim::Unknown; input.len()];
                    s[input.len() - 1] = last;
                    s
                } else {
                    let mut s = input.to_vec();
                    s[input.len() - 1] = last;
                    s
                };
                node.set_shape(0, shape);
                return Ok(());
            }
        }
    } else {
        -2
    };
    if !(-rank <= axis && axis != -1 && axis < rank - 1) {
        return failed(
            ErrorKind::AxisOutOfRange,
            format!("`axis` {axis} is out of range for rank {rank} (it must be in [-rank, rank-1) and not -1)"),
        );
    }
    let axis = if axis < 0 { axis + rank } else { axis } as usize;
    let mut shape = input.to_vec();
    if listed(1) {
        match node.constant(1) {
            Some(t) => {
                let length = scalar(t, "dft_length")?;
                shape[axis] = Dim::Value(if onesided && !inverse { (length >> 1) + 1 } else { length });
            }
            None if node.version() < 20 => return Ok(()),
            None => {
                if let Dim::Value(_) = shape[axis] {
                    shape[axis] = Dim::Unknown;
                }
            }
        }
    } else if onesided {
        shape[axis] = match shape[axis] {
            Dim::Value(v) if inverse => Dim::Value(2 * (v - 1)),
            Dim::Value(v) => Dim::Value((v >> 1) + 1),
            _ => Dim::Unknown,
        };
    }
    let n = shape.len();
    shape[n - 1] = last;
    node.set_shape(0, shape);
    Ok(())
}

fn stft(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    if input.len() < 2 {
        return failed(ErrorKind::Invalid, "the signal must have rank 2 or more");
    }
    let Dim::Value(signal) = input[1] else { return Ok(()) };
    let step = scalar_any(node.constant(1).known()?)?;
    let frame_length = if !node.input_name(3).is_empty() {
        Some(node.constant(3).known()?)
    } else {
        None
    };
    let window = if node.input_count() >= 3 { node.shape_opt(2) } else { None };
    let size = match (window, frame_length) {
        (None, None) => return Ok(()),
        (Some(window), Some(length)) => {
            let length = scalar(length, "frame_length")?;
            let [w] = window else {
                return failed(ErrorKind::Invalid, "`window` must have rank 1");
            };
            if w.value().is_some_and(|w| w != length) {
                return failed(
                    ErrorKind::IncompatibleShapes,
                    "the window's length is not `frame_length`",
                );
            }
            length
        }
        (Some(window), None) => {
            let [w] = window else {
                return failed(ErrorKind::Invalid, "`window` must have rank 1");
            };
            w.value().known()?
        }
        (None, Some(length)) => scalar(length, "frame_length")?,
    };
    let onesided = node.int_or("onesided", 0) != 0;
    let bins = if onesided { (size >> 1) + 1 } else { size };
    let frames = ((i128::from(signal) - i128::from(size)) as f32 / step as f32) as i64;
    let frames = frames.saturating_add(1);
    let batch = if input[0].value().is_some() { input[0].clone() } else { Dim::Unknown };
    node.set_shape(0, vec![batch, Dim::Value(frames), Dim::Value(bins), Dim::Value(2)]);
    Ok(())
}

/// The first value of an integer constant, whatever its rank.
fn scalar_any(tensor: &TensorProto) -> Result<i64, Stop> {
    int_values(tensor).and_then(|v| v.first().copied()).known()
}

fn window(node: &mut Node) -> Outcome {
    let dtype = node.int_or("output_datatype", i64::from(FLOAT)) as i32;
    node.set_elem(0, dtype);
    node.shape(0)?;
    let size = scalar(node.constant(0).known()?, "size")?;
    if size <= 0 {
        return failed(ErrorKind::Invalid, format!("`size` is {size}"));
    }
    node.set_shape(0, vec![Dim::Value(size)]);
    Ok(())
}

fn mel_weight_matrix(node: &mut Node) -> Outcome {
    let dtype = node.int_or("output_datatype", i64::from(FLOAT)) as i32;
    node.set_elem(0, dtype);
    node.shape(0)?;
    node.shape(1)?;
    let (Some(bins), Some(length)) = (node.constant(0), node.constant(1)) else {
        return Ok(());
    };
    let bins = scalar(bins, "num_mel_bins")?;
    let length = scalar(length, "dft_length")?;
    if bins > 0 && length > 0 {
        node.set_shape(0, vec![Dim::Value((length >> 1) + 1), Dim::Value(bins)]);
    }
    Ok(())
}
