"""onnxtxt ops --function for context-dependent operators against onnx.

    context_bodies.py ONNXTXT              every node context the registry has
    context_bodies.py ONNXTXT --cases JSON the given nodes (tests/it/ops_cli.rs)

For each node, onnx builds the body (OpSchema.get_context_dependent_function
with the node's input types and attributes), onnxtxt print prints it inside a
model (without its documentation text, which the registry does not keep), and the body `onnxtxt ops NAME --function --input-types ... --attr ...
--outputs N` prints must be that text. For every node context of the
registry (the ones grammar/operators.py writes), a type written as any type
("*") is checked too: onnx builds the same body for each type it allows.
A case of --cases is {"domain", "name", "opset", "inputs": [text-syntax
types], "outputs": n, "attributes": [text-syntax attributes]}.
Ends with `context_bodies: N passed, M failed`; exits 1 when any failed.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx
import onnx.defs
import onnx.parser
from onnx import helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "grammar"))
import operators  # noqa: E402  (the generator, for the node contexts it writes)


def element_name(type_str):
    """The text syntax's name of a type string's element: float of tensor(float)."""
    return type_str[len("tensor("):-1]


def text_value(value):
    """An attribute value as the text syntax writes it."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(str, value)) + "]"
    return repr(value)


def type_proto(text):
    """The TypeProto of a text-syntax type, read by onnx's parser."""
    graph = onnx.parser.parse_graph(f"g ({text} x) => ({text} y) {{ y = Identity(x) }}")
    return graph.input[0].type


def node_attributes(texts):
    """The AttributeProtos of text-syntax attributes, read by onnx's parser."""
    if not texts:
        return []
    return list(onnx.parser.parse_node(f"y = Op <{', '.join(texts)}> (x)").attribute)


def onnx_body(schema, opset, types, outputs, attributes):
    """The FunctionProto onnx builds for such a node, or None."""
    node = helper.make_node(
        schema.name, [f"i{k}" for k in range(len(types))], [f"o{k}" for k in range(outputs)],
        domain=schema.domain,
    )
    node.attribute.extend(attributes)
    built = schema.get_context_dependent_function_with_opset_version(
        opset, node.SerializeToString(), [t.SerializeToString() for t in types]
    )
    function = onnx.FunctionProto.FromString(built)
    # The registry keeps no documentation text (onnx's printer drops it too).
    function.ClearField("doc_string")
    unset_empty_names(function.node)
    return function if function.node else None


def unset_empty_names(nodes):
    """Nodes (and those of their graphs) whose domain, or whose tensor's name,
    is set to "" made ones without: the same, and written the same by onnx's
    printer (which writes the registry's bodies)."""
    for node in nodes:
        if node.HasField("domain") and not node.domain:
            node.ClearField("domain")
        for attribute in node.attribute:
            if attribute.HasField("t") and attribute.t.HasField("name") and not attribute.t.name:
                attribute.t.ClearField("name")
            for graph in [attribute.g, *attribute.graphs]:
                unset_empty_names(graph.node)


def printed(onnxtxt, function, directory):
    """onnxtxt print's text of `function`, inside a model of its own."""
    model = helper.make_model(
        helper.make_graph([], "g", [], []), functions=[function],
        opset_imports=list(function.opset_import),
    )
    path = Path(directory) / "model.onnx"
    path.write_bytes(model.SerializeToString())
    return subprocess.run([onnxtxt, "print", str(path)], capture_output=True, text=True).stdout


def ours(onnxtxt, case):
    args = [onnxtxt, "ops", case["name"], "--domain", case["domain"] or "ai.onnx",
            "--opset", str(case["opset"]), "--function", "--outputs", str(case["outputs"])]
    if case["inputs"]:
        args += ["--input-types", ",".join(case["inputs"])]
    for attribute in case["attributes"]:
        args += ["--attr", attribute]
    out = subprocess.run(args, capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else "error: " + out.stderr


def check(onnxtxt, case, directory):
    """None when onnxtxt prints what onnx builds for the case, else why not."""
    schema = onnx.defs.get_schema(case["name"], case["opset"], case["domain"])
    types = [type_proto(t) for t in case["inputs"]]
    function = onnx_body(schema, case["opset"], types, case["outputs"],
                         node_attributes(case["attributes"]))
    if function is None:
        return "onnx builds no body"
    theirs = printed(onnxtxt, function, directory)
    mine = ours(onnxtxt, case)
    if not mine.startswith("error: ") and theirs.endswith(mine):
        return None
    return f"onnxtxt ops printed\n{mine}\nonnx's body prints as\n{theirs}"


def registry_cases():
    """Every node context grammar/operators.py writes, as a case; and the
    wildcard claims: (schema, opset, context) for each context with "*"."""
    cases, wildcards = [], []
    for s in operators.schemas():
        if s.name in operators.LEFT_OUT:
            continue
        for opset in sorted(s.context_dependent_function_opset_versions):
            for inputs, outputs, attributes, rank, _ in operators.context_variants(s, opset):
                rank = rank or operators.DEFAULT_RANK
                dims = ",".join(f"d{k}" for k in range(rank))
                base = {c.type_param_str: operators.tensor_types(c) for c in s.type_constraints}
                concrete = [
                    base[p.type_str][0] if t == "*" else t for p, t in zip(s.inputs, inputs)
                ]
                case = {
                    "domain": s.domain, "name": s.name, "opset": opset, "outputs": outputs,
                    "inputs": [f"{element_name(t)}[{dims}]" for t in concrete],
                    "attributes": [f"{k} = {text_value(v)}" for k, v in sorted(attributes.items())],
                }
                cases.append(case)
                if "*" in inputs:
                    wildcards.append((s, opset, case, inputs, base, dims))
    return cases, wildcards


def wildcard_holds(s, opset, case, inputs, base, dims):
    """None when onnx builds the same body for every type a "*" input allows
    (all such inputs of one type parameter at once), else why not."""
    attributes = node_attributes(case["attributes"])
    def body(texts):
        function = onnx_body(s, opset, [type_proto(t) for t in texts], case["outputs"], attributes)
        return function.SerializeToString() if function else None
    expected = body(case["inputs"])
    for param in {p.type_str for p, t in zip(s.inputs, inputs) if t == "*"}:
        for allowed in base[param]:
            texts = [
                f"{element_name(allowed)}[{dims}]" if p.type_str == param else text
                for p, text in zip(s.inputs, case["inputs"])
            ]
            if body(texts) != expected:
                return f"{param} = {allowed} builds another body"
    return None


def main(args):
    if len(args) not in (1, 3) or (len(args) == 3 and args[1] != "--cases"):
        sys.exit(__doc__)
    onnxtxt = args[0]
    if len(args) == 3:
        cases, wildcards = json.loads(args[2]), []
    else:
        cases, wildcards = registry_cases()
    passed = failed = 0
    with tempfile.TemporaryDirectory() as directory:
        for case in cases:
            why = check(onnxtxt, case, directory)
            if why is None:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {json.dumps(case)}: {why}")
    for s, opset, case, inputs, base, dims in wildcards:
        why = wildcard_holds(s, opset, case, inputs, base, dims)
        if why is None:
            passed += 1
        else:
            failed += 1
            print(f"FAIL any type of {json.dumps(case)}: {why}")
    print(f"context_bodies: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
