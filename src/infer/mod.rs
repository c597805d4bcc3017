//! Type and shape inference: the element type and shape of every value of
//! a model, as `onnx.shape_inference.infer_shapes(model, strict_mode=True,
//! data_prop=True)` computes them, with the mistakes it finds as located
//! findings.
//!
//! ```
//! use onnxtxt::infer::{self, Options};
//!
//! let model = onnxtxt::parse_model(r#"
//!     <ir_version: 10, opset_import: ["": 21]>
//!     g (float[B, 3] x, float[3, 4] w) => (float[B, 4] y) {
//!         h = MatMul(x, w)
//!         y = Relu(h)
//!     }
//! "#)?;
//! let inference = infer::infer_model(&model, Options::default());
//! assert!(inference.findings().is_empty());
//! assert_eq!(inference.value_type("graph", "h").unwrap().to_string(), "float[B,4]");
//! # Ok::<(), onnxtxt::Error>(())
//! ```
//!
//! Mistakes are findings with the node's IR path, as [`crate::check`]
//! reports them (`onnxtxt check` runs inference with the other checks):
//!
//! ```
//! let model = onnxtxt::parse_model(r#"
//!     <ir_version: 10, opset_import: ["": 21]>
//!     g (float[2, 3] a, float[4, 5] b) => (float[] y) { y = MatMul(a, b) }
//! "#)?;
//! let inference = onnxtxt::infer::infer_model(&model, Default::default());
//! let finding = &inference.findings()[0];
//! assert_eq!(finding.diagnostic.path.as_deref(), Some("graph.node[0]"));
//! assert_eq!(finding.diagnostic.code, "onnxtxt::infer::incompatible_shapes");
//! # Ok::<(), onnxtxt::Error>(())
//! ```
//!
//! # How it works
//!
//! The engine (`engine.rs`) walks each graph in node order, as onnx does:
//! values start with the types their graph declares and initializers'
//! types; each node is inferred from its inputs' types (`context.rs`), its
//! outputs' types are merged with what is declared of them (a
//! contradiction is a finding), and `Constant` values and the contents of
//! small integer tensors (data propagation: `Shape`, `Gather`, `Concat`,
//! ...) are kept for the nodes after it. A node is inferred by, in order:
//!
//! 1. the **rule** written for its operator and schema version, from the
//!    rule table (`rules.rs`);
//! 2. else its operator's **function body** (from the registry), inferred
//!    for the node's inputs and attributes (`call.rs`); a call to a
//!    **function of the model** is inferred the same way, per call site;
//! 3. else the **type constraints** alone (`constraints.rs`): an output
//!    whose type variable an input binds gets that element type.
//!
//! Unknown stays unknown: a rule that lacks something it needs stops
//! without a finding, and only what onnx's strict inference rejects is an
//! error.
//!
//! # The rule table
//!
//! Each operator family has one file under `ops/` (`elementwise.rs`,
//! `shape.rs`, ...) holding its rule functions and, at the top, a `RULES`
//! constant that lists which function infers which operator versions:
//!
//! ```text
//! pub(super) const RULES: &[Rule] = &[
//!     Rule::new("Relu", 6, same_as_input),
//!     Rule::new("Squeeze", 1, squeeze_with_attribute).until(11),
//!     Rule::new("Squeeze", 13, squeeze_with_input).propagate(squeeze_data),
//!     Rule::new("LabelEncoder", 1, label_encoder).domain("ai.onnx.ml"),
//! ];
//! ```
//!
//! The numbers are schema versions (`since_version`): a rule covers its
//! first version and every later one, up to `until`. A rule function takes the node's
//! context (`Node`: input types and shapes, attributes with the schema's
//! defaults, constant and propagated inputs) and sets the output types;
//! `?` on a missing piece (`node.shape(0)?`) stops quietly. To add a
//! family, write `ops/<family>.rs` with its `RULES` and add its name to
//! the `families!` list in `ops/mod.rs`; nothing else changes.

pub(crate) mod annotate;
mod call;
mod constants;
mod constraints;
mod context;
mod data;
mod engine;
mod error;
pub(crate) mod names;
mod ops;
mod rules;
mod symbols;
mod types;
mod value_info;

use std::sync::Arc;

use foldhash::HashMap;

pub use annotate::{print_with_types, TYPE_COMMENT};
pub use symbols::FRESH_PREFIX;
pub use types::{contradiction, Dim, Shape, TensorType, Type, UNDEFINED};
pub use value_info::fill_value_info;

use crate::finding::Finding;
use crate::proto::{FunctionProto, GraphProto, ModelProto, OperatorSetIdProto};

use engine::{opsets_of, Run, Scope};
use names::{Names, Tables};

/// What inference does besides inferring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Check every node's inputs and outputs against its operator's type
    /// constraints, as `onnx.checker.check_model(full_check=True)` does
    /// (`onnxtxt check`). Without it, only operators that have no rule
    /// get their outputs' element types from the constraints.
    pub check_types: bool,
    /// How far to follow the contents of small integer tensors (shapes
    /// taken with `Shape`, then gathered, sliced, concatenated...) to the
    /// nodes that read them (`Reshape`, `Expand`, `Slice`...).
    pub propagation: Propagation,
}

impl Default for Options {
    /// No type checking; extended data propagation.
    fn default() -> Self {
        Options {
            check_types: false,
            propagation: Propagation::Extended,
        }
    }
}

impl Options {
    /// What `onnx.checker.check_model(full_check=True)` does: type
    /// checking, and no data propagation. `onnxtxt check` reports what
    /// this finds wrong, and nothing more: no false alarms.
    pub fn checker() -> Self {
        Options {
            check_types: true,
            propagation: Propagation::Off,
        }
    }
}

/// How far inference follows the contents of small integer tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Propagation {
    /// Not at all: only constants (initializers, `Constant` outputs) are
    /// read.
    Off,
    /// As onnx's `data_prop=True` does: through `Shape`, `Size`, `Cast`,
    /// `Gather`, `Slice`, `Concat`, `Squeeze`, `Unsqueeze`, and `Add`,
    /// `Sub`, `Mul` from their version 14 (each at the versions onnx
    /// does); `Reshape` before version 14, `Slice`'s starts and the like
    /// read constants only.
    Onnx,
    /// Further: through `Div`, `Neg`, `Abs`, `Max`, `Min`, `Mod`,
    /// `Identity`, `Range`, `ConstantOfShape`, `Reshape`, and the versions
    /// of the operators above onnx skips; and every input read as a list
    /// of integers (`axes`, `starts`, `split`, `repeats`, `pads`...) may be
    /// propagated contents, not only a constant. More shapes are known
    /// than onnx knows.
    Extended,
}

/// The types inferred for one graph of a model.
#[derive(Debug)]
pub struct GraphTypes<'m> {
    /// Its IR path: `graph`, or a subgraph's
    /// (`graph.node[3].attribute["body"].g`).
    pub path: String,
    /// The values that had no declared type and got one, in the order
    /// onnx adds them to `value_info`.
    pub appended: Vec<&'m str>,
    /// The graph's value names, numbered.
    names: Arc<Names<'m>>,
    /// The type known of each value, by number.
    types: Vec<Option<Type>>,
}

impl<'m> GraphTypes<'m> {
    /// The type of value `name`, when the graph knows it: one of its
    /// inputs, initializers and node outputs (what it declares, merged
    /// with what was inferred).
    pub fn get(&self, name: &str) -> Option<&Type> {
        self.types[self.names.id(name)? as usize].as_ref()
    }

    /// The type of input `slot` of the graph's node `node` (which has
    /// `inputs` inputs): what [`get`](Self::get) gives for that input's
    /// name, found by its number rather than by hashing the name again.
    pub(crate) fn node_input(&self, node: usize, inputs: usize, slot: usize) -> Option<&Type> {
        let id = *self.names.inputs(node, inputs).get(slot)?;
        self.types[id as usize].as_ref()
    }

    /// Every value the graph knows the type of, with that type (in no
    /// particular order).
    ///
    /// ```
    /// let model = onnxtxt::parse_model(r#"
    ///     <ir_version: 10, opset_import: ["": 21]>
    ///     g (float[2] x) => (float[2] y) { h = Neg(x)  y = Relu(h) }
    /// "#)?;
    /// let inference = onnxtxt::infer::infer_model(&model, Default::default());
    /// let graph = inference.graph("graph").unwrap();
    /// assert_eq!(graph.get("h").unwrap().to_string(), "float[2]");
    /// let mut names: Vec<_> = graph.types().map(|(name, _)| name).collect();
    /// names.sort();
    /// assert_eq!(names, ["h", "x", "y"]);
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn types(&self) -> impl Iterator<Item = (&'m str, &Type)> + '_ {
        let types = self.names.iter().zip(&self.types);
        types.filter_map(|((_, name), ty)| Some((name, ty.as_ref()?)))
    }
}

/// The result of inferring a model or graph.
#[derive(Debug)]
pub struct Inference<'m> {
    graphs: Vec<GraphTypes<'m>>,
    findings: Vec<Finding>,
}

impl<'m> Inference<'m> {
    /// The mistakes found, as errors with the IR path of their node.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The findings, owned.
    pub fn into_findings(self) -> Vec<Finding> {
        self.findings
    }

    /// The findings, taken out (none are left), for a caller that still
    /// wants the types.
    pub(crate) fn take_findings(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.findings)
    }

    /// The types of each graph inferred, main graph first.
    pub fn graphs(&self) -> &[GraphTypes<'m>] {
        &self.graphs
    }

    /// The types of the graph at `path` (`graph`, or a subgraph's path).
    pub fn graph(&self, path: &str) -> Option<&GraphTypes<'m>> {
        self.graphs.iter().rev().find(|g| g.path == path)
    }

    /// The type of value `name` in the graph at `path`.
    pub fn value_type(&self, path: &str, name: &str) -> Option<&Type> {
        self.graph(path)?.get(name)
    }
}

/// Infers the types of every value of `model`'s graph and subgraphs.
pub fn infer_model(model: &ModelProto, options: Options) -> Inference<'_> {
    infer_model_with(model, options, Tables::default())
}

/// [`infer_model`], with the value names of the model's bodies numbered
/// already in `tables` (those it lacks are numbered as they come).
pub(crate) fn infer_model_with<'m>(
    model: &'m ModelProto,
    options: Options,
    tables: Tables<'m>,
) -> Inference<'m> {
    let mut run = Run::new(options, &model.functions, tables);
    if let Some(graph) = &model.graph {
        run.symbols.take_from(graph);
    }
    infer_main_graph(run, model, |_| {})
}

/// [`infer_model_with`], calling `beside` with the index of each node of
/// the main graph just before that node is inferred: a caller that reads
/// the same nodes ([`crate::check`]'s walk) reads each one while inference
/// has it at hand, not in a pass of its own over a model gone cold.
/// `graphs` are the main graph and every subgraph in it, as the caller
/// found them: fresh dimension names avoid their names without a read of
/// every node to find the subgraphs again.
pub(crate) fn infer_model_beside<'m>(
    model: &'m ModelProto,
    options: Options,
    tables: Tables<'m>,
    graphs: impl IntoIterator<Item = &'m GraphProto>,
    beside: impl FnMut(usize),
) -> Inference<'m> {
    let mut run = Run::new(options, &model.functions, tables);
    run.symbols.take_from_each(graphs);
    infer_main_graph(run, model, beside)
}

/// Infers `model`'s main graph with `run` (its dimension names taken
/// already), `beside` called before each node.
fn infer_main_graph<'m>(
    mut run: Run<'m>,
    model: &'m ModelProto,
    beside: impl FnMut(usize),
) -> Inference<'m> {
    if let Some(graph) = &model.graph {
        let opsets = opsets_of(&model.opset_import);
        run.top_graph(graph, &opsets, model.ir_version.unwrap_or(0), beside);
    }
    Inference {
        graphs: run.graphs,
        findings: run.findings,
    }
}

/// What inference finds wrong in `model` as `onnx.checker.check_model(m,
/// full_check=True)` would (type constraints checked, no data
/// propagation): the inference part of [`crate::check::check_model`].
///
/// ```
/// let model = onnxtxt::parse_model(r#"
///     <ir_version: 10, opset_import: ["": 21]>
///     g (float[2] a, int64[2] b) => (float[2] c) { c = Add(a, b) }
/// "#)?;
/// let findings = onnxtxt::infer::check(&model);
/// assert_eq!(findings[0].diagnostic.code, "onnxtxt::infer::type_mismatch");
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn check(model: &ModelProto) -> Vec<Finding> {
    infer_model(model, Options::checker()).into_findings()
}

/// Infers the types of every value of a graph on its own, with the
/// operator sets `opset_import` and no functions.
pub fn infer_graph<'m>(
    graph: &'m GraphProto,
    opset_import: &'m [OperatorSetIdProto],
    options: Options,
) -> Inference<'m> {
    let mut run = Run::new(options, &[], Tables::default());
    run.symbols.take_from(graph);
    let opsets = opsets_of(opset_import);
    run.top_graph(graph, &opsets, i64::MAX, |_| {});
    Inference {
        graphs: run.graphs,
        findings: run.findings,
    }
}

/// The types inferred for a function's values.
#[derive(Debug)]
pub struct FunctionTypes<'m> {
    /// The type of each of its outputs (`Type::Unknown` where nothing is
    /// known).
    pub outputs: Vec<Type>,
    /// The type of every value of its body known.
    pub types: HashMap<&'m str, Type>,
    /// The mistakes found, with paths `node[i]` into the body.
    pub findings: Vec<Finding>,
}

/// Infers a function's body for inputs of types `inputs` (missing or
/// [`Type::Unknown`] ones unknown) and its attributes' defaults, as
/// `onnx.shape_inference.infer_function_output_types` does.
///
/// ```
/// use onnxtxt::infer::{infer_function, Type};
///
/// let f = onnxtxt::parse_function(r#"
///     <domain: "local", opset_import: ["": 21]>
///     Twice (x) => (y) { y = Add(x, x) }
/// "#)?;
/// let x = Type::from_proto(&onnxtxt::parse_type("float[N]")?);
/// let types = infer_function(&f, &[x], Default::default());
/// assert_eq!(types.outputs[0].to_string(), "float[N]");
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn infer_function<'m>(
    function: &'m FunctionProto,
    inputs: &[Type],
    options: Options,
) -> FunctionTypes<'m> {
    let mut run = Run::new(options, &[], Tables::default());
    let opsets = opsets_of(&function.opset_import);
    let defaults = function
        .attribute_proto
        .iter()
        .map(|a| (a.name.clone().unwrap_or_default(), a.clone()))
        .collect();
    let names = run.tables.function(function);
    let mut scope = Scope::new(None, names, &opsets, Some(&defaults), "");
    for (name, ty) in function.input.iter().zip(inputs) {
        if !ty.is_unknown() {
            let id = scope.id(name);
            scope.types[id as usize] = Some(ty.clone());
        }
    }
    run.nodes(&mut scope, &function.node);
    let errors = std::mem::take(&mut scope.errors);
    run.report(errors);
    let outputs = function
        .output
        .iter()
        .map(|o| scope.lookup(scope.id(o)).cloned().unwrap_or_default())
        .collect();
    let types = scope.names.iter().zip(scope.types);
    FunctionTypes {
        outputs,
        types: types
            .filter_map(|((_, name), ty)| Some((name, ty?)))
            .collect(),
        findings: run.findings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_input_by_number_has_the_type_its_name_has() {
        let model = crate::parse_model(
            "<ir_version: 10, opset_import: [\"\": 21]>\n\
             g (bool c, float[2] a, float b) => (float[2] y) {\n\
               m = Clip (a, , b)\n\
               y = If (c) <then_branch = t () => (float[2] z) { z = Add (m, b) },\n\
                           else_branch = e () => (float[2] w) { w = Identity (a) }>\n}",
        )
        .unwrap();
        let inference = infer_model(&model, Options::default());
        let main = model.graph.as_ref().unwrap();
        let branch = main.node[1].attribute[0].g.as_ref().unwrap();
        let graphs = [
            ("graph", main),
            (r#"graph.node[1].attribute["then_branch"].g"#, branch),
        ];
        let mut compared = 0;
        for (path, graph) in graphs {
            let types = inference.graph(path).unwrap();
            for (index, node) in graph.node.iter().enumerate() {
                let inputs = node.input.len();
                for (slot, name) in node.input.iter().enumerate() {
                    let by_number = types.node_input(index, inputs, slot);
                    let by_name = types.get(name);
                    assert_eq!(by_number.map(Type::to_string), by_name.map(Type::to_string));
                    compared += usize::from(by_name.is_some());
                }
            }
        }
        // The main graph's a, b and c; the branch knows no type of the
        // outer m and b it reads, by number as by name.
        assert_eq!(compared, 3);
    }

    /// A 1-D shape input's declared length becomes that many unknown dims
    /// (as onnx gives for a length of 3) only up to the limit constants
    /// have. A length of a trillion made `Expand`-8 ask for 26 TB (the
    /// `infer` fuzzer's find); onnx's `infer_shapes` is killed for memory
    /// on it. Here the output's shape is left unknown.
    #[test]
    fn a_shape_input_declared_huge_leaves_the_output_shape_unknown() {
        let expand = |length: &str| {
            let model = crate::parse_model(&format!(
                "<ir_version: 10, opset_import: [\"\": 8]>\n\
                 g (float[1] x, int64[{length}] s) => (float[a,b,c] y) {{ t = Expand (x, s)\n y = Identity (t) }}"
            ))
            .unwrap();
            let inference = infer_model(&model, Options::default());
            inference
                .graph("graph")
                .unwrap()
                .get("t")
                .map(Type::to_string)
        };
        assert_eq!(expand("3").as_deref(), Some("float[unk__0,unk__1,unk__2]"));
        assert_eq!(expand("1000000000000").as_deref(), Some("float[]"));
    }
}
