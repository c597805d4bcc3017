"""Predicate: exit status 0 when onnxruntime and onnx's ReferenceEvaluator
both run MODEL (`.onnx`) on inputs of ones (symbolic dimensions 1) and
give different outputs (beyond a relative tolerance of 1e-3); 1 when they
agree, or either cannot run it.

    python fuzz/findings/ort_disagrees.py MODEL.onnx
"""

import sys
import warnings

import numpy as np
import onnx
import onnxruntime
from onnx.reference import ReferenceEvaluator


def feeds(model):
    out = {}
    for i in model.graph.input:
        t = i.type.tensor_type
        if not t.HasField("shape"):
            return None
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        if dtype == np.object_:
            out[i.name] = np.full(shape, "1", dtype=object)
        else:
            out[i.name] = np.ones(shape, dtype=dtype)
    return out


def differ(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return True
    if a.dtype.kind in "fc":
        return not np.allclose(a, b, rtol=1e-3, atol=1e-5, equal_nan=True)
    return not np.array_equal(a, b)


def main():
    path = sys.argv[1]
    model = onnx.load(path)
    inputs = feeds(model)
    if inputs is None:
        sys.exit(1)
    warnings.simplefilter("ignore")
    try:
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 4
        session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        ours = session.run(None, inputs)
        theirs = ReferenceEvaluator(model).run(None, inputs)
    except Exception:
        sys.exit(1)
    sys.exit(0 if any(differ(a, b) for a, b in zip(ours, theirs)) else 1)


if __name__ == "__main__":
    main()
