"""Mutants: `onnxtxt check` catches, where it is, every mistake onnx.checker
rejects.

Usage: mutants.py ONNXTXT_BINARY [--per-kind N] [--kinds K,K...]

Takes the models of the conformance corpus ($ONNXTXT_CORPUS, default
target/conformance) that onnx.checker.check_model(m, full_check=True)
accepts and makes mutants of them: each with one mistake of one kind (a
function below per kind, in KINDS) in one node of the main graph, named
`mutant` so that its line in the printed text is known. A mutant the
reference rejects is kept; then `onnxtxt check --error-format json` must
report an error located at the mutated node, in the binary (by IR path:
the node's, or one inside it) and in the text `onnxtxt print` writes (on
one of the node's lines, at the node's IR path). Then, for models with
three kept mutants in different nodes and of different kinds, a mutant with
all three mistakes: each must be reported, in one run.

A kind is a function `kind(model, node) -> bool` that makes its mistake in
`node` (a node of `model.graph`, in place) and says whether it could; add
one to KINDS to test a new rule. --per-kind N tries N models per kind
(spread over the corpus; 0 for all of them). Prints the counts per kind,
`mutants(KIND): C caught of K kept (of M made)`, and fails unless every
kept mutant is caught.
"""

import functools
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx
import onnx.defs
from onnx import AttributeProto, helper
from onnx.defs import OpSchema

from checker_agreement import errors_by_file, reference_verdict

# onnx's count for "no upper bound" (max_input, max_output).
UNBOUNDED = 2**31 - 1
# The name given to a mutated node (with its mistake's number in
# three-mistake mutants): the printed text labels the node with it.
LABEL = "mutant"

CRATE = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------
# What the mutations need to know.


def imported(model, domain=""):
    """The version of `domain` the model imports (the last import wins)."""
    version = None
    for opset in model.opset_import:
        if opset.domain == domain or (domain == "" and opset.domain == "ai.onnx"):
            version = opset.version
    return version


def schema_of(model, node):
    """The schema of `node` in force, or None."""
    version = imported(model, node.domain)
    if version is None or node.domain not in ("", "ai.onnx.ml"):
        return None
    try:
        return onnx.defs.get_schema(node.op_type, version, node.domain)
    except onnx.defs.SchemaError:
        return None


def checked(model, node):
    """The schema of a node that the checker checks against it (not
    deprecated, attributes checked), or None."""
    schema = schema_of(model, node)
    if schema is None or schema.deprecated:
        return None
    if schema.name == "LayerNormalization" and schema.since_version == 17:
        return None  # its attributes go unchecked
    return schema


def all_operators(domain=""):
    """Every operator name of `domain`, each with its first since_version."""
    first = {}
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain == domain:
            first[s.name] = min(first.get(s.name, s.since_version), s.since_version)
    return first


OPERATORS = all_operators()


# ---------------------------------------------------------------------------
# The kinds of mistakes, one function each: `kind(model, node) -> bool`.


def misspelt_operator(model, node):
    """`Rleu` for `Relu`: two letters swapped."""
    if checked(model, node) is None or len(node.op_type) < 3:
        return False
    op = node.op_type
    misspelt = op[0] + op[2] + op[1] + op[3:]
    if misspelt == op or misspelt in OPERATORS:
        return False
    node.op_type = misspelt
    return True


def operator_too_new(model, node):
    """An operator that comes in a later opset than the model imports."""
    version = imported(model)
    newer = sorted(op for op, first in OPERATORS.items() if version is not None and first > version)
    if schema_of(model, node) is None or not newer:
        return False
    node.op_type = newer[len(node.op_type) % len(newer)]
    return True


@functools.cache
def deprecated_at(version):
    """The operators deprecated at `version` of the default domain."""
    found = []
    for op in sorted(OPERATORS):
        try:
            if onnx.defs.get_schema(op, version, "").deprecated:
                found.append(op)
        except onnx.defs.SchemaError:
            continue
    return found


def deprecated_operator(model, node):
    """An operator deprecated at the imported opset (`Upsample` from 10)."""
    version = imported(model)
    if schema_of(model, node) is None or version is None or not deprecated_at(version):
        return False
    node.op_type = deprecated_at(version)[0]
    return True


def no_operator(model, node):
    """`y = (x)`: the operator left out."""
    if schema_of(model, node) is None:
        return False
    node.op_type = ""
    return True


def domain_written_ai_onnx(model, node):
    """The default domain written `ai.onnx` in the node."""
    if schema_of(model, node) is None or node.domain != "":
        return False
    node.domain = "ai.onnx"
    return True


def call_into_unimported_domain(model, node):
    """A call of a function of a domain the model does not import."""
    if schema_of(model, node) is None:
        return False
    node.domain, node.op_type = "local.mutants", "Undeclared"
    return True


def unknown_attribute(model, node):
    """An attribute the operator does not have: a misspelt one of its own."""
    schema = checked(model, node)
    if schema is None:
        return False
    names = sorted(schema.attributes) or ["alpha"]
    name = names[0]
    misspelt = name[0] + name[2] + name[1] + name[3:] if len(name) > 2 else name + "x"
    if misspelt in schema.attributes or misspelt.startswith("__"):
        misspelt = "zz" + name
    node.attribute.append(helper.make_attribute(misspelt, 1.0))
    return True


# Another attribute type for each, and a value of it.
WRONG_TYPES = {
    AttributeProto.INT: lambda name: helper.make_attribute(name, 1.5),
    AttributeProto.FLOAT: lambda name: helper.make_attribute(name, 2),
    AttributeProto.STRING: lambda name: helper.make_attribute(name, 3),
    AttributeProto.INTS: lambda name: helper.make_attribute(name, [1.5, 2.5]),
    AttributeProto.FLOATS: lambda name: helper.make_attribute(name, [1, 2]),
    AttributeProto.STRINGS: lambda name: helper.make_attribute(name, 4),
    AttributeProto.TENSOR: lambda name: helper.make_attribute(name, 5),
    AttributeProto.GRAPH: lambda name: helper.make_attribute(name, "graph"),
}


def attribute_wrong_type(model, node):
    """An attribute of the operator given a value of another type."""
    schema = checked(model, node)
    if schema is None:
        return False
    given = {a.name: i for i, a in enumerate(node.attribute)}
    for name, attribute in sorted(schema.attributes.items()):
        wrong = WRONG_TYPES.get(int(attribute.type.value))
        if wrong is None:
            continue
        if name in given:
            if node.attribute[given[name]].ref_attr_name:
                continue
            node.attribute[given[name]].CopyFrom(wrong(name))
        else:
            node.attribute.append(wrong(name))
        return True
    return False


def required_attribute_missing(model, node):
    """A required attribute left out."""
    schema = checked(model, node)
    if schema is None:
        return False
    for i, attribute in enumerate(node.attribute):
        required = schema.attributes.get(attribute.name)
        if required is not None and required.required:
            del node.attribute[i]
            return True
    return False


def too_few_inputs(model, node):
    """One input fewer than the operator needs."""
    schema = checked(model, node)
    if schema is None or schema.min_input < 1 or len(node.input) < schema.min_input:
        return False
    del node.input[schema.min_input - 1:]
    return True


def too_many_inputs(model, node):
    """One input more than the operator takes."""
    schema = checked(model, node)
    if schema is None or schema.max_input == UNBOUNDED or not node.input or not node.input[0]:
        return False
    while len(node.input) <= schema.max_input:
        node.input.append(node.input[0])
    return True


def too_few_outputs(model, node):
    """One output fewer than the operator needs."""
    schema = checked(model, node)
    if schema is None or schema.min_output < 1 or len(node.output) < schema.min_output:
        return False
    del node.output[schema.min_output - 1:]
    return bool(node.input or node.output)


def too_many_outputs(model, node):
    """One output more than the operator has."""
    schema = checked(model, node)
    if schema is None or schema.max_output == UNBOUNDED:
        return False
    while len(node.output) <= schema.max_output:
        node.output.append(f"{LABEL}_extra_{len(node.output)}")
    return True


def required_input_left_empty(model, node):
    """A required (single) input given the empty name."""
    schema = checked(model, node)
    if schema is None:
        return False
    for i, (name, parameter) in enumerate(zip(node.input, schema.inputs)):
        if name and parameter.option == OpSchema.FormalParameterOption.Single:
            node.input[i] = ""
            return True
    return False


KINDS = [
    misspelt_operator,
    operator_too_new,
    deprecated_operator,
    no_operator,
    domain_written_ai_onnx,
    call_into_unimported_domain,
    unknown_attribute,
    attribute_wrong_type,
    required_attribute_missing,
    too_few_inputs,
    too_many_inputs,
    too_few_outputs,
    too_many_outputs,
    required_input_left_empty,
]


# ---------------------------------------------------------------------------
# Making and judging mutants.


def reference_rejects(model):
    return reference_verdict(model) is not None


def accepted_models(corpus):
    """The corpus's models that the reference accepts, by case name."""
    for line in (corpus / "manifest.tsv").read_text().splitlines()[1:]:
        name, kind, _ = line.split("\t")
        if kind != "model":
            continue
        model = onnx.load(str(corpus / f"{name}.onnx"), load_external_data=False)
        if model.graph.node and not reference_rejects(model):
            yield name, model


def mutate(model, kind, seed):
    """A copy of `model` with `kind`'s mistake in one node, named LABEL;
    with the node's index, or None."""
    mutant = onnx.ModelProto()
    mutant.CopyFrom(model)
    index = mutate_in_place(mutant, kind, set(), seed)
    if index is None:
        return None
    mutant.graph.node[index].name = LABEL
    return mutant, index


def mutate_in_place(model, kind, avoid, seed):
    """Makes `kind`'s mistake in a node of `model` not in `avoid` (trying them
    from one chosen by `seed`); the node's index, or None."""
    nodes = len(model.graph.node)
    start = random.Random(seed).randrange(nodes)
    for offset in range(nodes):
        index = (start + offset) % nodes
        if index in avoid:
            continue
        trial = onnx.NodeProto()
        trial.CopyFrom(model.graph.node[index])
        if kind(model, trial):
            model.graph.node[index].CopyFrom(trial)
            return index
    return None


class Mutant:
    """A mutant written out: its binary and its printed text, and the nodes
    whose mistakes must be reported (index, label)."""

    def __init__(self, directory, name, model, nodes):
        self.binary = directory / f"{name}.onnx"
        self.text = directory / f"{name}.onnxtxt"
        self.nodes = nodes
        self.binary.write_bytes(model.SerializeToString())

    def print(self, onnxtxt):
        run = subprocess.run([onnxtxt, "print", str(self.binary), "-o", str(self.text)], capture_output=True)
        if run.returncode != 0:
            sys.exit(f"{self.binary}: onnxtxt print failed\n{run.stderr.decode()}")

    def missed(self, errors):
        """The mistakes (node labels, and where) that no error reports."""
        lines = self.text.read_text().splitlines()
        missed = []
        for index, label in self.nodes:
            path = f"graph.node[{index}]"
            if not any(at_node(e, path) for e in errors[str(self.binary)]):
                missed.append(f"{label} in the binary")
            span = node_lines(lines, label)
            if not any(at_node(e, path) and e["span"].get("line") in span for e in errors[str(self.text)]):
                missed.append(f"{label} in the text (lines {span.start}-{span.stop - 1})")
        return missed


def at_node(error, path):
    """Whether `error` is located at the node at `path` or inside it."""
    found = error.get("path") or ""
    return found == path or found.startswith((path + ".", path + "["))


def node_lines(lines, label):
    """The lines (from 1) of the node labelled `label`: its first line, and
    those after it that are indented more (its attributes and subgraphs),
    up to the `> (inputs)` that closes a list of attributes on lines of
    their own, or the `}` that closes a tensor written over several lines
    (`}, next: ... > (inputs)`)."""
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith(f"[{label}]"))
    indent = len(lines[first]) - len(lines[first].lstrip())
    last = first + 1
    while last < len(lines):
        depth = len(lines[last]) - len(lines[last].lstrip())
        if depth < indent or depth == indent and not lines[last].lstrip().startswith((">", "}")):
            break
        last += 1
    return range(first + 1, last + 1)


def chosen(models, per_kind, kind_index):
    """`per_kind` models spread over `models` (all for 0), a different
    spread for each kind."""
    if per_kind == 0 or per_kind >= len(models):
        return models
    step = len(models) / per_kind
    return [models[int(i * step + kind_index) % len(models)] for i in range(per_kind)]


def main(args):
    onnxtxt = args[0]
    per_kind = int(args[args.index("--per-kind") + 1]) if "--per-kind" in args else 0
    kinds = KINDS
    if "--kinds" in args:
        wanted = args[args.index("--kinds") + 1].split(",")
        kinds = [k for k in KINDS if k.__name__ in wanted]
    corpus = Path(os.environ.get("ONNXTXT_CORPUS", "target/conformance"))
    corpus = corpus if corpus.is_absolute() else CRATE / corpus
    models = list(accepted_models(corpus))
    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        mutants = []
        for k, kind in enumerate(kinds):
            made = 0
            for name, model in chosen(models, per_kind, k):
                found = mutate(model, kind, f"{name} {kind.__name__}")
                if found is None:
                    continue
                made += 1
                mutant, index = found
                if not reference_rejects(mutant):
                    continue
                file = f"{kind.__name__}__{name.replace('/', '__')}"
                mutants.append((kind.__name__, Mutant(directory, file, mutant, [(index, LABEL)])))
            counts[kind.__name__] = made
        mutants += three_mistakes(directory, models, kinds, per_kind)
        for _, mutant in mutants:
            mutant.print(onnxtxt)
        errors = errors_by_file(onnxtxt, [f for _, m in mutants for f in (m.binary, m.text)])
        failures = report(mutants, counts, errors)
    return 1 if failures else 0


def three_mistakes(directory, models, kinds, per_kind):
    """Mutants with three mistakes, of different kinds in different nodes of
    one model (the kinds taken in turn, from a different one for each
    model), kept when the reference rejects them."""
    mutants = []
    candidates = [(n, m) for n, m in models if len(m.graph.node) >= 3]
    for number, (name, original) in enumerate(chosen(candidates, per_kind, 0)):
        model = onnx.ModelProto()
        model.CopyFrom(original)
        nodes = []
        for k in range(len(kinds)):
            kind = kinds[(number + k) % len(kinds)]
            index = mutate_in_place(model, kind, {i for i, _ in nodes}, f"{name} {kind.__name__}")
            if index is not None:
                label = f"{LABEL}{len(nodes) + 1}"
                model.graph.node[index].name = label
                nodes.append((index, label))
            if len(nodes) == 3:
                break
        if len(nodes) == 3 and reference_rejects(model):
            file = f"three__{name.replace('/', '__')}"
            mutants.append(("three_mistakes", Mutant(directory, file, model, nodes)))
    return mutants


def report(mutants, counts, errors):
    """Prints the counts per kind and each mistake not caught; returns how
    many were not."""
    kept, caught = {}, {}
    failures = 0
    for kind, mutant in mutants:
        kept[kind] = kept.get(kind, 0) + 1
        missed = mutant.missed(errors)
        if missed:
            failures += 1
            print(f"NOT CAUGHT ({kind}) {mutant.binary.name}: {', '.join(missed)}")
        else:
            caught[kind] = caught.get(kind, 0) + 1
    for kind in [*counts, "three_mistakes"]:
        made = f" (of {counts[kind]} made)" if kind in counts else ""
        print(f"mutants({kind}): {caught.get(kind, 0)} caught of {kept.get(kind, 0)} kept{made}")
    total = sum(kept.values())
    print(f"mutants: {total - failures} caught of {total} kept")
    return failures


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
