"""What onnxruntime says of models: loads each (binary ONNX) into an
InferenceSession and runs it once on inputs of zeros (a symbolic or
negative dimension taken as 1), and prints `accepted` or the runtime's
message.

    runtime_verdict.py -            # one model on stdin; exit 3 when refused
    runtime_verdict.py a.onnx ...   # one line per model: PATH<TAB>verdict

Used by tests/it/check_reference.rs (a new error of `onnxtxt check` is
proven on a model onnxruntime refuses for that reason) and by
checker_agreement.py (no error on a model onnx.checker and onnxruntime
both accept)."""

import sys

import numpy as np
import onnx
import onnxruntime as ort

ort.set_default_logger_severity(4)


def zeros(value_info):
    """An array of zeros of the value's declared type and shape (a size
    that is symbolic, unknown or negative, which onnxruntime reads as
    unknown, taken as 1)."""
    tensor = value_info.type.tensor_type
    shape = [d.dim_value if d.HasField("dim_value") and d.dim_value >= 0 else 1 for d in tensor.shape.dim]
    dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
    if dtype == np.dtype(object):
        return np.full(shape, "", dtype=object)
    return np.zeros(shape, dtype=dtype)


def verdict(data):
    """None when onnxruntime loads and runs the model, else its message."""
    try:
        options = ort.SessionOptions()
        options.log_severity_level = 4
        session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    except Exception as e:  # the runtime refuses to load it
        return f"load: {e}".strip()
    graph = onnx.load_from_string(data).graph
    initializers = {t.name for t in graph.initializer}
    feeds = {}
    for value in graph.input:
        if value.name in initializers:
            continue
        if not value.type.HasField("tensor_type"):
            return None  # nothing to feed it with: loading is the verdict
        feeds[value.name] = zeros(value)
    try:
        session.run(None, feeds)
    except Exception as e:  # the runtime refuses to run it
        return f"run: {e}".strip()
    return None


def main():
    if sys.argv[1:] == ["-"]:
        message = verdict(sys.stdin.buffer.read())
        print(message or "accepted")
        sys.exit(3 if message else 0)
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            message = verdict(f.read())
        print(f"{path}\t{(message or 'accepted').splitlines()[0]}")


if __name__ == "__main__":
    main()
