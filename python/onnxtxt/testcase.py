"""Test cases in onnx's backend test layout (``CASE/model.onnx``,
``CASE/test_data_set_N/input_K.pb`` and ``output_K.pb``): written with the
outputs a real engine computes, and run against their outputs.

onnxtxt never evaluates an operator: the outputs come from
``onnx.reference.ReferenceEvaluator`` or from onnxruntime, as the caller
chooses. ``onnxtxt print CASE`` shows the whole case as text, for review.
"""

from __future__ import annotations

import glob
import os
from typing import Any, Mapping, Sequence

from onnxtxt import _onnxtxt

__all__ = ["ATOL", "ENGINES", "RTOL", "run_case", "write_case"]

#: The tolerances onnx's backend runner compares outputs with by default
#: (``onnx.backend.test.loader``).
RTOL = 1e-3
ATOL = 1e-7

#: The engines that compute outputs.
ENGINES = ("reference", "onnxruntime")

# The message of each kind of graph input or output (its TypeProto field).
_MESSAGES = {
    "tensor_type": "TensorProto",
    "sequence_type": "SequenceProto",
    "map_type": "MapProto",
    "optional_type": "OptionalProto",
}


def _onnx() -> Any:
    try:
        import onnx
    except ImportError as error:
        raise ImportError("onnxtxt.testcase needs the onnx package (pip install onnx)") from error
    return onnx


def _message_name(value_info: Any) -> str:
    """The message a value of this graph input or output is written as."""
    kind = value_info.type.WhichOneof("value")
    if kind not in _MESSAGES:
        raise ValueError(
            f"{value_info.name!r}: a test case holds tensors, sequences, maps and "
            f"optionals, not {kind}"
        )
    return _MESSAGES[kind]


def _to_message(value: Any, value_info: Any) -> Any:
    """``value`` (text, or what onnx's numpy_helper takes) as the message of
    ``value_info``'s type, named after it (as onnx's ``generate-data``
    writes them)."""
    onnx = _onnx()
    from onnx import numpy_helper

    name = _message_name(value_info)
    message = getattr(onnx, name)
    if isinstance(value, str):
        return message.FromString(_onnxtxt.parse(name, value))
    if isinstance(value, message):
        return value
    if name == "SequenceProto":
        return numpy_helper.from_list(value, value_info.name)
    if name == "MapProto":
        return numpy_helper.from_dict(value, value_info.name)
    if name == "OptionalProto":
        return numpy_helper.from_optional(value, value_info.name)
    import numpy as np

    return numpy_helper.from_array(np.asarray(value), value_info.name)


def _to_value(message: Any) -> Any:
    """What an engine takes and gives for a data message."""
    onnx = _onnx()
    from onnx import numpy_helper

    if isinstance(message, onnx.TensorProto):
        return numpy_helper.to_array(message)
    if isinstance(message, onnx.SequenceProto):
        return numpy_helper.to_list(message)
    if isinstance(message, onnx.MapProto):
        return numpy_helper.to_dict(message)
    return numpy_helper.to_optional(message)


def _run(model: Any, feeds: dict[str, Any], engine: str) -> list[Any]:
    """The model's outputs for ``feeds``, computed by ``engine``."""
    if engine == "reference":
        from onnx.reference import ReferenceEvaluator

        return list(ReferenceEvaluator(model).run(None, feeds))
    if engine == "onnxruntime":
        try:
            import onnxruntime
        except ImportError as error:
            raise ImportError(
                "engine='onnxruntime' needs onnxruntime (pip install onnxruntime)"
            ) from error
        session = onnxruntime.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        return list(session.run(None, feeds))
    raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")


def _model(model: Any) -> Any:
    if isinstance(model, str):
        return _onnx().ModelProto.FromString(_onnxtxt.parse("ModelProto", model))
    return model


def write_case(
    directory: str | os.PathLike[str],
    model: Any,
    inputs: Sequence[Any] | Mapping[str, Any],
    *,
    engine: str = "reference",
    data_set: int = 0,
) -> list[Any]:
    """Writes a test case to ``directory``: ``model.onnx`` and
    ``test_data_set_{data_set}`` with ``input_K.pb`` for each input and
    ``output_K.pb`` for each output of the graph, the outputs computed by
    ``engine``: ``"reference"`` (``onnx.reference.ReferenceEvaluator``) or
    ``"onnxruntime"``.

    ``model`` is its text or an ``onnx.ModelProto``. ``inputs`` gives the
    graph's first inputs in order (or by name, all of them), each as its
    text (``"float[2] x = {1, 2}"``), a message, or what onnx's
    ``numpy_helper`` makes one of (an array for a tensor, a list for a
    sequence, a dict for a map, a value or ``None`` for an optional).
    Another data set of the same model goes beside the first with
    ``data_set=1``, and so on. Returns the outputs, as the engine gave them.
    """
    model = _model(model)
    graph_inputs = list(model.graph.input)
    if isinstance(inputs, Mapping):
        unknown = set(inputs) - {i.name for i in graph_inputs}
        if unknown:
            raise ValueError(f"not inputs of the graph: {sorted(unknown)}")
        given = [inputs[i.name] for i in graph_inputs if i.name in inputs]
        if len(given) != len(inputs) or any(
            i.name not in inputs for i in graph_inputs[: len(given)]
        ):
            raise ValueError("inputs by name must be the graph's first inputs, with no gap")
    else:
        given = list(inputs)
    if len(given) > len(graph_inputs):
        raise ValueError(f"{len(given)} inputs for a graph of {len(graph_inputs)}")
    messages = [_to_message(v, info) for v, info in zip(given, graph_inputs)]
    feeds = {info.name: _to_value(m) for m, info in zip(messages, graph_inputs)}
    outputs = _run(model, feeds, engine)
    out_messages = [_to_message(v, info) for v, info in zip(outputs, model.graph.output)]

    set_dir = os.path.join(directory, f"test_data_set_{data_set}")
    os.makedirs(set_dir, exist_ok=True)
    for stale in glob.glob(os.path.join(set_dir, "*.pb")):
        os.remove(stale)
    with open(os.path.join(directory, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for side, written in (("input", messages), ("output", out_messages)):
        for k, message in enumerate(written):
            with open(os.path.join(set_dir, f"{side}_{k}.pb"), "wb") as f:
                f.write(message.SerializeToString())
    return outputs


def _load(path: str, value_info: Any) -> Any:
    """A data file as onnx's backend runner loads it, by the graph's type."""
    message = getattr(_onnx(), _message_name(value_info))()
    with open(path, "rb") as f:
        message.ParseFromString(f.read())
    return _to_value(message)


def run_case(
    directory: str | os.PathLike[str],
    *,
    engine: str = "reference",
    rtol: float = RTOL,
    atol: float = ATOL,
) -> int:
    """Runs the test case in ``directory`` with ``engine`` and compares
    each data set's outputs with its ``output_K.pb``, as onnx's backend
    runner does (``Runner.assert_similar_outputs``, with its default
    ``rtol`` and ``atol``). Returns how many data sets it ran; raises
    AssertionError at the first output that differs."""
    onnx = _onnx()
    from onnx.backend.test.runner import Runner

    model = onnx.load(os.path.join(directory, "model.onnx"))
    sets = sorted(glob.glob(os.path.join(directory, "test_data_set*")))
    for set_dir in sets:

        def files(side: str, infos: Any, set_dir: str = set_dir) -> list[Any]:
            count = len(glob.glob(os.path.join(set_dir, f"{side}_*.pb")))
            return [
                _load(os.path.join(set_dir, f"{side}_{k}.pb"), infos[k]) for k in range(count)
            ]

        inputs = files("input", model.graph.input)
        expected = files("output", model.graph.output)
        feeds = {info.name: value for info, value in zip(model.graph.input, inputs)}
        outputs = _run(model, feeds, engine)[: len(expected)]
        Runner.assert_similar_outputs(expected, outputs, rtol=rtol, atol=atol, model_dir=set_dir)
    return len(sets)
