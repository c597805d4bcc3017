"""onnx's verdict on its own function bodies, for `check --as-operator`.

Usage: as_operator_reference.py

For every operator version onnx defines by a plain function body, at each
opset the body is written for, and for every combination of the types the
operator's constraints allow its inputs: infers the body with
onnx.shape_inference.infer_function_output_types (the schema's attribute
defaults given), and requires each output to be of a type the operator
allows it. Prints one line per combination:

    NAME-SINCE (opset N): with T = tensor(float): ok
    NAME-SINCE (opset N): with T = tensor(int16): fail: REASON

tests/it/as_operator.rs compares the failures with those
`onnxtxt::check::check_function_against` finds.
"""

from __future__ import annotations

import itertools

import onnx
import onnx.defs
import onnx.shape_inference


def type_proto(type_str: str) -> onnx.TypeProto:
    """The TypeProto a schema's type string names (`tensor(float)`, `seq(tensor(int64))`)."""
    head, _, inner = type_str.partition("(")
    inner = inner[:-1]
    proto = onnx.TypeProto()
    if head == "tensor":
        proto.tensor_type.elem_type = elem_type(inner)
    elif head == "seq":
        proto.sequence_type.elem_type.CopyFrom(type_proto(inner))
    elif head == "optional":
        proto.optional_type.elem_type.CopyFrom(type_proto(inner))
    elif head == "sparse_tensor":
        proto.sparse_tensor_type.elem_type = elem_type(inner)
    else:
        raise ValueError(f"no type for {type_str}")
    return proto


def elem_type(name: str) -> int:
    """The TensorProto.DataType code of an element type as schemas write it."""
    aliases = {"float": "FLOAT", "double": "DOUBLE", "string": "STRING", "bool": "BOOL"}
    return onnx.TensorProto.DataType.Value(aliases.get(name, name.upper()))


def type_string(proto: onnx.TypeProto) -> str | None:
    """The schema type string of `proto`, None where not known."""
    kind = proto.WhichOneof("value")
    if kind == "tensor_type" and proto.tensor_type.elem_type:
        name = onnx.TensorProto.DataType.Name(proto.tensor_type.elem_type).lower()
        return f"tensor({name})"
    if kind == "sequence_type":
        inner = type_string(proto.sequence_type.elem_type)
        return inner and f"seq({inner})"
    if kind == "optional_type":
        inner = type_string(proto.optional_type.elem_type)
        return inner and f"optional({inner})"
    return None


def verdict(schema, function: onnx.FunctionProto, binding: dict[str, str]) -> str:
    """`ok`, or `fail: ` and why, for the body inferred with the inputs' types bound by `binding`."""
    inputs = [type_proto(binding.get(p.type_str, p.type_str)) for p in schema.inputs]
    inputs = inputs[: len(function.input)]
    defaults = [
        a.default_value for a in schema.attributes.values() if a.default_value.name
    ]
    try:
        outputs = onnx.shape_inference.infer_function_output_types(function, inputs, defaults)
    except Exception as error:  # noqa: BLE001 - any refusal is the verdict
        return f"fail: {str(error).splitlines()[0]}"
    constraints = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
    for parameter, output in zip(schema.outputs, outputs):
        expected = binding.get(parameter.type_str, parameter.type_str)
        allowed = constraints.get(expected, [expected])
        found = type_string(output)
        if found is not None and found not in allowed:
            return f"fail: output {parameter.name} is {found}"
    return "ok"


def main() -> None:
    schemas = onnx.defs.get_all_schemas_with_history()
    for schema in sorted(schemas, key=lambda s: (s.domain, s.name, s.since_version)):
        used = {p.type_str for p in schema.inputs}
        constraints = [c for c in schema.type_constraints if c.type_param_str in used]
        for opset in schema.function_opset_versions:
            function = onnx.FunctionProto.FromString(schema.get_function_with_opset_version(opset))
            choices = [[(c.type_param_str, t) for t in c.allowed_type_strs] for c in constraints]
            for combination in itertools.product(*choices):
                binding = dict(combination)
                text = ", ".join(f"{name} = {ty}" for name, ty in combination) or "its types"
                print(f"{schema.name}-{schema.since_version} (opset {opset}): with {text}: "
                      f"{verdict(schema, function, binding)}")


if __name__ == "__main__":
    main()
