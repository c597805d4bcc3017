//! Attention and the transformer building blocks: `Attention`,
//! `RotaryEmbedding`, `TensorScatter`, `SwiGLU`, `CausalConvWithState`,
//! `LinearAttention`, and `FlexAttention` of `ai.onnx.preview`.

use super::common::*;

pub(super) const RULES: &[Rule] = &[
    Rule::new("Attention", 23, attention),
    Rule::new("RotaryEmbedding", 23, rotary_embedding),
    Rule::new("TensorScatter", 24, tensor_scatter),
    Rule::new("SwiGLU", 28, swiglu),
    Rule::new("CausalConvWithState", 27, causal_conv_with_state),
    Rule::new("LinearAttention", 27, linear_attention),
    Rule::new("FlexAttention", 1, flex_attention).domain("ai.onnx.preview"),
];

/// Input `i`'s shape, which must have rank 3 or 4 when known.
fn rank_3_or_4<'a>(node: &Node<'a, '_>, i: usize, what: &str) -> Result<Option<&'a [Dim]>, Stop> {
    match node.shape_opt(i) {
        Some(s) if s.len() != 3 && s.len() != 4 => {
            failed(ErrorKind::Invalid, format!("`{what}` must have rank 3 or 4"))
        }
        s => Ok(s),
    }
}

/// An integer attribute the 3-D form needs.
fn heads(node: &Node, name: &str) -> Result<i64, Stop> {
    match node.attr(name) {
        Some(a) => Ok(a.i.unwrap_or(0)),
        None => failed(ErrorKind::Invalid, format!("3-D inputs need `{name}`")),
    }
}

fn attention(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let mut kv_length: i64 = -1;
    let mut qk: Shape = Vec::new();
    if let Some(q) = rank_3_or_4(node, 0, "Q")? {
        if q.len() == 3 {
            heads(node, "q_num_heads")?;
            heads(node, "kv_num_heads")?;
        }
        let mut y = vec![q[0].clone(), q[1].clone()];
        qk.push(q[0].clone());
        rank_3_or_4(node, 1, "K")?;
        if let Some(v) = rank_3_or_4(node, 2, "V")? {
            if v.len() == 4 && q.len() == 4 {
                kv_length = v[2].value().unwrap_or(0);
                y.extend([q[2].clone(), v[3].clone()]);
                node.set_shape(0, y);
                qk.extend([q[1].clone(), q[2].clone(), Dim::Value(kv_length)]);
            } else if v.len() == 3 && q.len() == 3 {
                kv_length = v[1].value().unwrap_or(0);
                let (q_heads, kv_heads) = (heads(node, "q_num_heads")?, heads(node, "kv_num_heads")?);
                let head_size = v[2].value().unwrap_or(0).checked_div(kv_heads).known()?;
                y.push(Dim::Value(head_size.wrapping_mul(q_heads)));
                node.set_shape(0, y);
                qk.extend([Dim::Value(q_heads), q[1].clone(), Dim::Value(kv_length)]);
            }
        }
    }
    let present: Vec<bool> = (0..4).map(|i| !node.output_name(i).is_empty()).collect();
    let has_output = |i: usize| present[i];
    if has_output(3) {
        node.copy_elem(0, 3)?;
        node.set_shape(3, qk.clone());
    }
    if !(has_output(1) && has_output(2) && node.has_input(4) && node.has_input(5)) {
        return Ok(());
    }
    node.copy_elem(4, 1)?;
    node.copy_elem(5, 2)?;
    let (Some(past_key), Some(past_value)) = (node.shape_opt(4), node.shape_opt(5)) else {
        return Ok(());
    };
    if past_key.len() != 4 || past_value.len() != 4 {
        return failed(ErrorKind::Invalid, "`past_key` and `past_value` must have rank 4");
    }
    let (Some(past), true) = (past_key[2].value(), kv_length > 0) else {
        return Ok(());
    };
    let total = Dim::Value(kv_length + past);
    if has_output(3) && qk.len() == 4 {
        qk[3] = total.clone();
        node.set_shape(3, qk);
    }
    let mut key = past_key.to_vec();
    let mut value = past_value.to_vec();
    key[2] = total.clone();
    value[2] = total;
    node.set_shape(1, key);
    node.set_shape(2, value);
    Ok(())
}

fn rotary_embedding(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    node.copy_shape(0, 0)?;
    let input = node.shape(0)?;
    if !(3..=4).contains(&input.len()) {
        return failed(ErrorKind::Invalid, "the input must have rank 3 or 4");
    }
    if input.len() == 3 && node.attr("num_heads").is_none() {
        return failed(ErrorKind::Invalid, "a 3-D input needs `num_heads`");
    }
    Ok(())
}

fn tensor_scatter(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    if let (Some(cache), Some(update)) = (node.shape_opt(0), node.shape_opt(1)) {
        if cache.len() != update.len() {
            return failed(ErrorKind::IncompatibleShapes, "`past_cache` and `update` differ in rank");
        }
        let rank = cache.len() as i64;
        let mut axis = node.int_or("axis", -2);
        if axis < 0 {
            axis += rank;
        }
        if axis <= 0 || axis >= rank {
            return failed(ErrorKind::AxisOutOfRange, format!("`axis` is out of range for rank {rank}"));
        }
        for (i, (c, u)) in cache.iter().zip(update).enumerate() {
            if i as i64 != axis {
                merge_dim(u, c, || format!("`past_cache` and `update` differ in dimension {i}"))?;
            }
        }
    }
    if let Some(indices) = node.shape_opt(2) {
        expect_rank(node, 2, 1)?;
        if let Some(cache) = node.shape_opt(0) {
            if let (Some(batch), Some(first)) = (indices.first(), cache.first()) {
                merge_dim(batch, first, || "`write_indices` has not one value per batch".into())?;
            }
        }
    }
    if node.shape_opt(0).is_some() {
        node.copy_shape(0, 0)?;
    }
    Ok(())
}

fn swiglu(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let (Some(a), Some(b)) = (node.shape_opt(0), node.shape_opt(1)) else {
        return Ok(());
    };
    if a.len() != b.len() {
        return failed(ErrorKind::IncompatibleShapes, "`A` and `B` differ in rank");
    }
    let shape = a
        .iter()
        .zip(b)
        .enumerate()
        .map(|(i, (a, b))| merge_dim(b, a, || format!("`A` and `B` differ in dimension {i}")))
        .collect::<Result<Shape, Stop>>()?;
    node.set_shape(0, shape);
    Ok(())
}

/// `input`'s shape, which must have rank `rank`, or an error.
fn shape_of_rank<'a>(node: &Node<'a, '_>, i: usize, rank: usize) -> Result<Option<&'a [Dim]>, Stop> {
    expect_rank(node, i, rank)?;
    Ok(node.shape_opt(i))
}

fn causal_conv_with_state(node: &mut Node) -> Outcome {
    if let Some(activation) = node.attr("activation").and_then(|_| node.string("activation")) {
        if !["none", "silu", "swish"].contains(&activation) {
            return failed(ErrorKind::Invalid, format!("unknown `activation` {activation:?}"));
        }
    }
    node.copy_elem(0, 0)?;
    node.copy_elem(0, 1)?;
    node.copy_shape(0, 0)?;
    let (mut b, mut c, mut k, mut state) = (Dim::Unknown, Dim::Unknown, Dim::Unknown, Dim::Unknown);
    if let Some(x) = shape_of_rank(node, 0, 3)? {
        (b, c) = (x[0].clone(), x[1].clone());
    }
    if let Some(w) = shape_of_rank(node, 1, 3)? {
        c = merge_dim(&w[0], &c, || "the weights do not have one kernel per channel".into())?;
        merge_dim(&w[1], &Dim::Value(1), || "the weights' second dimension must be 1".into())?;
        k = w[2].clone();
    }
    if node.has_input(2) {
        if let Some(bias) = shape_of_rank(node, 2, 1)? {
            c = merge_dim(&bias[0], &c, || "the bias does not have one value per channel".into())?;
        }
    }
    if node.has_input(3) {
        if let Some(past) = shape_of_rank(node, 3, 3)? {
            b = merge_dim(&past[0], &b, || "the state differs from the input in batch size".into())?;
            c = merge_dim(&past[1], &c, || "the state differs from the input in channels".into())?;
            state = past[2].clone();
        }
    }
    if let Dim::Value(k) = k {
        if k < 1 {
            return failed(ErrorKind::Invalid, format!("the kernel size is {k}"));
        }
        state = merge_dim(&Dim::Value(k - 1), &state, || "the state's length is not the kernel size - 1".into())?;
    }
    node.set_shape(1, vec![b, c, state]);
    Ok(())
}

/// Whether the node lists input `i`.
fn listed(node: &Node, i: usize) -> bool {
    !node.input_name(i).is_empty()
}

fn linear_attention(node: &mut Node) -> Outcome {
    let q_heads = node.attr("q_num_heads").and_then(|a| a.i).unwrap_or(0);
    let kv_heads = node.attr("kv_num_heads").and_then(|a| a.i).unwrap_or(0);
    if q_heads <= 0 || kv_heads <= 0 || q_heads % kv_heads != 0 {
        return failed(
            ErrorKind::Invalid,
            "`q_num_heads` and `kv_num_heads` must be positive, the first a multiple of the second",
        );
    }
    let rule = node.attr("update_rule").map_or("gated_delta", |_| node.string("update_rule").unwrap_or(""));
    let (decay, beta) = (listed(node, 4), listed(node, 5));
    let (needs_decay, needs_beta) = match rule {
        "linear" => (false, false),
        "gated" => (true, false),
        "delta" => (false, true),
        "gated_delta" => (true, true),
        _ => return failed(ErrorKind::Invalid, format!("unknown `update_rule` {rule:?}")),
    };
    if decay != needs_decay || beta != needs_beta {
        return failed(
            ErrorKind::Invalid,
            format!("`update_rule` {rule:?} takes `decay` {needs_decay} and `beta` {needs_beta}"),
        );
    }
    node.copy_elem(0, 0)?;
    if listed(node, 3) && node.input(3).is_some_and(|t| t.as_tensor().is_some()) {
        node.copy_elem(3, 1)?;
    } else {
        node.copy_elem(0, 1)?;
    }
    let (mut b, mut t) = (Dim::Unknown, Dim::Unknown);
    let mut packed = [Dim::Unknown, Dim::Unknown, Dim::Unknown];
    for (i, slot) in packed.iter_mut().enumerate() {
        if let Some(s) = shape_of_rank(node, i, 3)? {
            b = merge_dim(&s[0], &b, || "the inputs differ in batch size".into())?;
            t = merge_dim(&s[1], &t, || "the inputs differ in length".into())?;
            *slot = s[2].clone();
        }
    }
    let (mut dk, mut dv) = (Dim::Unknown, Dim::Unknown);
    let hkv = Dim::Value(kv_heads);
    if listed(node, 3) {
        if let Some(s) = shape_of_rank(node, 3, 4)? {
            b = merge_dim(&s[0], &b, || "the state differs in batch size".into())?;
            merge_dim(&s[1], &hkv, || "the state's heads are not `kv_num_heads`".into())?;
            dk = s[2].clone();
            dv = s[3].clone();
        }
    }
    for (i, present) in [(4, decay), (5, beta)] {
        if present {
            if let Some(s) = shape_of_rank(node, i, 3)? {
                b = merge_dim(&s[0], &b, || "the inputs differ in batch size".into())?;
                t = merge_dim(&s[1], &t, || "the inputs differ in length".into())?;
            }
        }
    }
    for (dim, heads, slot) in [(&packed[0], q_heads, 0), (&packed[1], kv_heads, 0), (&packed[2], kv_heads, 1)] {
        if let Dim::Value(v) = dim {
            if v % heads != 0 {
                return failed(
                    ErrorKind::IncompatibleShapes,
                    format!("a packed dimension of {v} is not divisible by {heads} heads"),
                );
            }
            let target = if slot == 0 { &mut dk } else { &mut dv };
            *target = merge_dim(&Dim::Value(v / heads), target, || "the head sizes differ".into())?;
        }
    }
    let out = dv.value().map_or(Dim::Unknown, |v| Dim::Value(q_heads.wrapping_mul(v)));
    node.set_shape(0, vec![b.clone(), t, out]);
    node.set_shape(1, vec![b, hkv, dk, dv]);
    Ok(())
}

fn flex_attention(node: &mut Node) -> Outcome {
    let (q, k, v) = (node.tensor(0)?, node.tensor(1)?, node.tensor(2)?);
    if q.elem_type != k.elem_type || q.elem_type != v.elem_type {
        return failed(ErrorKind::TypeMismatch, "`query`, `key` and `value` differ in element type");
    }
    node.set_elem(0, q.elem_type);
    let (Some(q), Some(k), Some(v)) = (&q.shape, &k.shape, &v.shape) else {
        return Ok(());
    };
    if q.len() != 4 || k.len() != 4 || v.len() != 4 {
        return failed(ErrorKind::Invalid, "`query`, `key` and `value` must have rank 4");
    }
    let differ = |a: &Dim, b: &Dim| matches!((a, b), (Dim::Value(x), Dim::Value(y)) if x != y);
    if differ(&k[1], &v[1]) || differ(&k[2], &v[2]) || differ(&q[3], &k[3]) {
        return failed(ErrorKind::IncompatibleShapes, "`query`, `key` and `value` do not fit together");
    }
    if let (Dim::Value(hq), Dim::Value(hkv)) = (&q[1], &k[1]) {
        if hq != hkv && (*hkv <= 0 || hq % hkv != 0) {
            return failed(ErrorKind::IncompatibleShapes, "the query heads are not a multiple of the key heads");
        }
    }
    node.set_shape(0, vec![q[0].clone(), q[1].clone(), q[2].clone(), v[3].clone()]);
    Ok(())
}
