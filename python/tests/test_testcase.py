"""onnxtxt.testcase against onnx's own test cases: a case written with the
outputs of onnx's ReferenceEvaluator or onnxruntime is one onnx's backend
loader and runner read, and its outputs match onnx's expected ones for a
sample of operators."""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx.backend.test.case.node import collect_testcases
from onnx.backend.test.loader import load_model_tests
from onnx.backend.test.runner import Runner

import onnxtxt
from onnxtxt.testcase import ATOL, RTOL, run_case, write_case

# Operators of every kind of value: tensors of several element types,
# broadcasting, a sequence in and out, an optional.
SAMPLE = [
    "test_relu",
    "test_add_bcast",
    "test_concat_2d_axis_1",
    "test_matmul_2d",
    "test_cast_FLOAT_to_DOUBLE",
    "test_sequence_insert_at_back",
    "test_identity_opt",
]

ENGINES = ["reference", "onnxruntime"]

MODEL = """\
<ir_version: 10, opset_import: ["": 21]>
g (float[N] x, float[N] z) => (float[N] y) {
  y = Add(x, z)
}
"""


@pytest.fixture(scope="module")
def node_cases():
    cases = {case.name: case for case in collect_testcases(None)}
    return {name: cases[name] for name in SAMPLE}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", SAMPLE)
def test_outputs_match_onnxs_for_a_sample_of_operators(tmp_path, node_cases, name, engine):
    case = node_cases[name]
    inputs, expected = case.data_sets[0]
    # Some expected outputs are given as TensorProto (the runner reads them so).
    expected = [
        onnx.numpy_helper.to_array(e) if isinstance(e, onnx.TensorProto) else e for e in expected
    ]
    directory = tmp_path / "simple" / name
    outputs = write_case(directory, case.model, inputs, engine=engine)
    Runner.assert_similar_outputs(expected, outputs, rtol=RTOL, atol=ATOL)
    # onnx's loader finds the case, and its runner's comparison passes on it.
    (loaded,) = load_model_tests(data_dir=str(tmp_path), kind="simple")
    assert loaded.name == name and loaded.rtol == RTOL and loaded.atol == ATOL
    assert run_case(directory, engine=engine) == 1


def test_a_case_from_text_and_its_review_as_text(tmp_path):
    directory = tmp_path / "add"
    outputs = write_case(directory, MODEL, ["float[2] x = {1, 2}", np.array([10, 20], np.float32)])
    np.testing.assert_array_equal(outputs[0], np.array([11, 22], np.float32))
    write_case(directory, MODEL, {"x": np.ones(3, np.float32), "z": "float[3] z = {1, 2, 3}"},
               data_set=1)
    assert sorted(os.listdir(directory)) == ["model.onnx", "test_data_set_0", "test_data_set_1"]
    assert run_case(directory) == 2
    output = onnx.load_tensor(str(directory / "test_data_set_1" / "output_0.pb"))
    assert output.name == "y"
    assert onnx.numpy_helper.to_array(output).tolist() == [2.0, 3.0, 4.0]


def test_run_case_fails_on_an_output_that_differs(tmp_path):
    directory = tmp_path / "add"
    write_case(directory, MODEL, [np.ones(2, np.float32), np.ones(2, np.float32)])
    wrong = onnx.numpy_helper.from_array(np.array([2, 2.01], np.float32), "y")
    (directory / "test_data_set_0" / "output_0.pb").write_bytes(wrong.SerializeToString())
    with pytest.raises(AssertionError):
        run_case(directory)


def test_data_messages_parse_and_print():
    sequence = onnxtxt.parse_sequence("seq(tensor) xs = [float[2] {1, 2}]")
    assert isinstance(sequence, onnx.SequenceProto)
    assert onnx.numpy_helper.to_list(sequence)[0].tolist() == [1.0, 2.0]
    optional = onnx.numpy_helper.from_optional(None, "o", onnx.OptionalProto.TENSOR)
    assert onnxtxt.to_text(optional) == "optional(tensor) o = []"
    assert onnxtxt.parse_optional(onnxtxt.to_text(optional)) == optional
    mapping = onnx.numpy_helper.from_dict({np.int64(3): np.array(1.0, np.float32)}, "m")
    assert onnxtxt.parse_map(onnxtxt.to_text(mapping)) == mapping


def test_unknown_engine_is_refused(tmp_path):
    with pytest.raises(ValueError, match="engine"):
        write_case(tmp_path, MODEL, [np.ones(1, np.float32)] * 2, engine="mine")
