//! Quantization: `QuantizeLinear`, `DequantizeLinear`,
//! `DynamicQuantizeLinear` (the quantized products are in `linalg` and
//! `conv`).

use super::common::*;

pub(super) const RULES: &[Rule] = &[
    Rule::new("QuantizeLinear", 10, quantize_linear),
    Rule::new("DequantizeLinear", 10, dequantize_linear),
    Rule::new("DynamicQuantizeLinear", 11, dynamic_quantize_linear),
];

/// Output 0 has input 0's shape, when known.
fn shape_of_input(node: &mut Node) -> Outcome {
    if node.shape_opt(0).is_some() {
        node.copy_shape(0, 0)?;
    }
    Ok(())
}

/// Whether the node lists input `i` (an optional input left out has an
/// empty name).
fn given(node: &Node, i: usize) -> bool {
    !node.input_name(i).is_empty()
}

/// The output's type: the zero point's, else `output_dtype` (from version
/// 21), else `uint8`; the zero point and `output_dtype` must agree.
fn quantize_linear(node: &mut Node) -> Outcome {
    let dtype = node.int_or("output_dtype", 0) as i32;
    if given(node, 2) {
        if let Some(zero_point) = node.input(2) {
            let elem = zero_point.elem_type();
            if dtype != UNDEFINED && dtype != elem {
                return failed(
                    ErrorKind::TypeMismatch,
                    format!(
                        "`output_dtype` is {}, but the zero point is {}",
                        crate::infer::types::elem_name(dtype),
                        crate::infer::types::elem_name(elem)
                    ),
                );
            }
            node.copy_elem(2, 0)?;
        }
    } else if dtype != UNDEFINED {
        node.set_elem(0, dtype);
    } else {
        node.set_elem(0, UINT8);
    }
    shape_of_input(node)
}

/// The output's type: `float` before version 19, then the scale's (or
/// `output_dtype`, from version 23).
fn dequantize_linear(node: &mut Node) -> Outcome {
    let dtype = node.int_or("output_dtype", 0) as i32;
    if node.version() < 19 {
        node.set_elem(0, FLOAT);
    } else if dtype != UNDEFINED {
        node.set_elem(0, dtype);
    } else {
        node.copy_elem(1, 0)?;
    }
    shape_of_input(node)
}

fn dynamic_quantize_linear(node: &mut Node) -> Outcome {
    node.set_elem(0, UINT8);
    node.set_tensor(1, FLOAT, Vec::new());
    node.set_tensor(2, UINT8, Vec::new());
    shape_of_input(node)
}
