//! Valid models, by construction: what `onnx.checker.check_model(m,
//! full_check=True)` accepts, for fuzzing ONNX consumers.
//!
//! The generator keeps the type of every value it made and adds nodes by
//! recipes, one an operator, grouped by family in the files under
//! `valid/` (each file's `RECIPES` lists its operators). A recipe builds a
//! node from what is valid at that point: operands of element types the
//! operator's type constraints allow (from the registry, [`crate::ops`])
//! and of shapes its rules need, attributes of the right kinds and in
//! range, and constant operands (shapes, axes, indices, sizes) whose values
//! make the node valid and runnable too (indices in range, sizes that add
//! up). A recipe does not work out the node's output types: the shape
//! inference of [`crate::infer`] does, on the node alone, as onnx.checker's
//! strict inference does. A node that inference finds fault with is
//! dropped (the tests hold that no recipe makes one), as is one whose
//! outputs the config rules out (element types, bytes): what the generator
//! cannot make valid, it does not make.

mod control;
mod convolution;
mod elementwise;
mod generator;
mod index;
mod linalg;
mod normalization;
mod recurrent;
mod reduce;
mod sequence;
mod shape;
mod text;

use std::collections::HashSet;
use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};

use super::config::{Config, ElementType, Kernel, MIN_SUPPORTED_OPSET};
use crate::infer::{self, Dim, Options, Type};
use crate::ops::{self, Schema};
use crate::proto::attribute_proto::AttributeType;
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, ValueInfoProto,
};

/// How many operators the generator tries for one node before giving up
/// on it (a restrictive config can rule most of them out).
const TRIES_PER_NODE: usize = 16;
/// The domain of the model-local function.
const LOCAL_DOMAIN: &str = "local";
/// The IR version from which an initializer need not be a graph input too.
const IR_OPTIONAL_INITIALIZER_INPUTS: i64 = 4;
/// Symbolic dimension names of graph inputs.
const SYMBOLS: &[&str] = &["N", "M"];

/// Builds one node of `schema`'s operator into a graph; `false` when it
/// does not fit there (no operand the config allows, a limit).
type Recipe = fn(&mut Valid<'_, '_>, &mut Builder, &'static Schema) -> Result<bool>;

/// The `ai.onnx` operators the generator makes, by family.
const FAMILIES: &[&[(&str, Recipe)]] = &[
    elementwise::RECIPES,
    reduce::RECIPES,
    shape::RECIPES,
    index::RECIPES,
    linalg::RECIPES,
    convolution::RECIPES,
    normalization::RECIPES,
    recurrent::RECIPES,
    generator::RECIPES,
    sequence::RECIPES,
    control::RECIPES,
    text::RECIPES,
];

/// The names of the operators the valid generator can make.
pub fn operator_names() -> impl Iterator<Item = &'static str> {
    FAMILIES
        .iter()
        .flat_map(|f| f.iter().map(|(name, _)| *name))
}

/// The operators the generator makes that are in force, not deprecated,
/// at `opset`, with their recipes (worked out once an opset).
fn operators_at(opset: i64) -> &'static [(&'static Schema, Recipe)] {
    static MENUS: OnceLock<Vec<Vec<(&'static Schema, Recipe)>>> = OnceLock::new();
    let menus = MENUS.get_or_init(|| {
        let latest = ops::domain("").map_or(MIN_SUPPORTED_OPSET, |d| d.last_opset());
        (MIN_SUPPORTED_OPSET..=latest)
            .map(|opset| {
                let recipes = FAMILIES.iter().flat_map(|family| family.iter());
                recipes
                    .filter_map(|&(name, recipe)| {
                        let schema = ops::schema("", name, opset)?;
                        (!schema.deprecated()).then_some((schema, recipe))
                    })
                    .collect()
            })
            .collect()
    });
    usize::try_from(opset - MIN_SUPPORTED_OPSET)
        .ok()
        .and_then(|i| menus.get(i))
        .map_or(&[], Vec::as_slice)
}

/// A value nodes may read, with its type as inference gives it (tensors
/// of a known rank; dimensions known, one of [`SYMBOLS`], or unknown).
#[derive(Debug, Clone, PartialEq)]
struct Value {
    name: String,
    ty: Type,
    /// How many tensors a sequence holds (or values an optional: 0 or 1),
    /// when the generator knows.
    len: Option<usize>,
}

impl Value {
    /// The element type and shape of a tensor value.
    fn tensor(&self) -> Option<Tensor> {
        let Type::Tensor(t) = &self.ty else {
            return None;
        };
        Some(Tensor {
            name: self.name.clone(),
            elem: ElementType::from_code(t.elem_type)?,
            shape: t.shape.clone()?,
        })
    }
}

/// A tensor operand: its name, element type and shape.
#[derive(Debug, Clone, PartialEq)]
struct Tensor {
    name: String,
    elem: ElementType,
    shape: Vec<Dim>,
}

impl Tensor {
    fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The dimensions, the ones not known counted as 1.
    fn dims(&self) -> Vec<i64> {
        fixed_dims(&self.shape)
    }
}

/// What an operator's tensor operand must be like.
#[derive(Debug, Clone, Copy)]
struct Need {
    min_rank: usize,
    max_rank: usize,
    /// The dimensions `fixed.0..fixed.1` are known numbers.
    fixed: (usize, usize),
    /// At least one dimension is 1.
    unit_dim: bool,
    /// Dimensions nothing is known of are allowed (only for operators
    /// that relate no dimension of the operand to another value's).
    unknown_dims: bool,
    /// Dimensions of 0 are allowed (only for operators that take no
    /// element out of the operand).
    empty: bool,
}

impl Need {
    /// Any tensor of a known rank.
    const ANY: Need = Need {
        min_rank: 0,
        max_rank: usize::MAX,
        fixed: (0, 0),
        unit_dim: false,
        unknown_dims: true,
        empty: false,
    };

    /// A tensor of rank `min..=max` whose dimensions are known or symbolic.
    fn rank(min_rank: usize, max_rank: usize) -> Need {
        Need {
            min_rank,
            max_rank,
            unknown_dims: false,
            ..Need::ANY
        }
    }

    fn min_rank(self, min_rank: usize) -> Need {
        Need { min_rank, ..self }
    }

    /// Every dimension a known number.
    fn fixed(self) -> Need {
        self.fixed_in(0, usize::MAX)
    }

    /// The dimensions `from..to` known numbers.
    fn fixed_in(self, from: usize, to: usize) -> Need {
        Need {
            fixed: (from, to),
            ..self
        }
    }

    /// Dimensions of 0 allowed too.
    fn or_empty(self) -> Need {
        Need {
            empty: true,
            ..self
        }
    }

    fn with_unit_dim(self) -> Need {
        Need {
            unit_dim: true,
            ..self
        }
    }

    /// Whether dimension `i` must be a known number.
    fn fixes(&self, i: usize) -> bool {
        (self.fixed.0..self.fixed.1).contains(&i)
    }

    fn met_by(&self, shape: &[Dim]) -> bool {
        (self.min_rank..=self.max_rank).contains(&shape.len())
            && shape.iter().enumerate().all(|(i, d)| match d {
                Dim::Value(v) => *v > 0 || self.empty,
                Dim::Param(_) => !self.fixes(i),
                Dim::Unknown => !self.fixes(i) && self.unknown_dims,
            })
            && (!self.unit_dim || shape.contains(&Dim::Value(1)))
    }
}

/// Builds a model that `onnx.checker.check_model(m, full_check=True)`
/// accepts, within `config`, from the bytes of `u`. Any byte string gives a
/// model (exhausted input gives the smallest choices).
///
/// ```
/// let bytes = onnxtxt::smith::seeded_bytes(3, 4096);
/// let mut u = arbitrary::Unstructured::new(&bytes);
/// let config = onnxtxt::smith::Config::default();
/// let model = onnxtxt::smith::valid_model(&mut u, &config).unwrap();
/// let findings = onnxtxt::check::check_model(&model);
/// assert!(findings.iter().all(|f| f.severity != onnxtxt::check::Severity::Error));
/// ```
pub fn valid_model(u: &mut Unstructured<'_>, config: &Config) -> Result<ModelProto> {
    if config.check().is_err() {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    Valid::new(u, config)?.model()
}

/// The IR version onnx released with `opset` of `ai.onnx` (the lowest a
/// model importing it may declare).
fn ir_version(opset: i64) -> i64 {
    match opset {
        ..=8 => 3,
        9 => 4,
        10 => 5,
        11 => 6,
        12..=14 => 7,
        15..=18 => 8,
        19..=20 => 9,
        21..=22 => 10,
        23 => 11,
        24 => 12,
        25..=27 => 13,
        _ => 14,
    }
}

/// The model-local function: the element type it takes and gives.
struct LocalFunction {
    elem: ElementType,
}

/// The generator's state for one model.
struct Valid<'a, 'u> {
    u: &'u mut Unstructured<'a>,
    config: &'u Config,
    opset: i64,
    /// The operators the config allows at the opset, with their recipes.
    menu: Vec<(&'static Schema, Recipe)>,
    /// The config's profile at the opset: operators and signatures.
    implemented: HashSet<(&'u str, &'u str)>,
    counter: usize,
    /// How deep in subgraphs the node being made is.
    depth: usize,
    function: Option<LocalFunction>,
    /// What inference found wrong with the nodes recipes made (the tests
    /// hold that there is nothing).
    #[cfg(test)]
    rejected: Vec<String>,
}

/// A graph being built: its inputs, initializers, nodes and the values
/// nodes may read.
#[derive(Default)]
struct Builder {
    inputs: Vec<ValueInfoProto>,
    initializers: Vec<TensorProto>,
    nodes: Vec<NodeProto>,
    /// The values nodes may read: an enclosing graph's, then this one's.
    pool: Vec<Value>,
    /// The outputs of this graph's nodes, in order.
    made: Vec<Value>,
    /// Whether operands may be new graph inputs (not in a subgraph, whose
    /// inputs its operator fixes).
    open: bool,
}

/// How far a builder had got, to undo a recipe that did not fit.
struct Mark([usize; 5]);

impl Builder {
    fn mark(&self) -> Mark {
        Mark([
            self.inputs.len(),
            self.initializers.len(),
            self.nodes.len(),
            self.pool.len(),
            self.made.len(),
        ])
    }

    fn rollback(&mut self, Mark([inputs, initializers, nodes, pool, made]): Mark) {
        self.inputs.truncate(inputs);
        self.initializers.truncate(initializers);
        self.nodes.truncate(nodes);
        self.pool.truncate(pool);
        self.made.truncate(made);
    }

    /// The tensors of the pool meeting `need` with an element type among
    /// `elems`.
    fn tensors(&self, elems: &[ElementType], need: Need) -> Vec<Tensor> {
        self.pool
            .iter()
            .filter_map(Value::tensor)
            .filter(|t| elems.contains(&t.elem) && need.met_by(&t.shape))
            .collect()
    }
}

impl<'a, 'u> Valid<'a, 'u> {
    /// The generator for a model within `config`, at an opset drawn from
    /// `u`.
    fn new(u: &'u mut Unstructured<'a>, config: &'u Config) -> Result<Self> {
        let latest = ops::domain("").map_or(MIN_SUPPORTED_OPSET, |d| d.last_opset());
        let max = config.max_opset.clamp(MIN_SUPPORTED_OPSET, latest);
        let min = config.min_opset.clamp(MIN_SUPPORTED_OPSET, max);
        // A profile's opsets, where it has any in range.
        let mut profiled: Vec<i64> = config
            .implemented
            .iter()
            .flat_map(|k| k.opsets.iter().copied())
            .filter(|o| (min..=max).contains(o))
            .collect();
        profiled.sort_unstable();
        profiled.dedup();
        let opset = match profiled.as_slice() {
            [] => u.int_in_range(min..=max)?,
            opsets => *u.choose(opsets)?,
        };
        let allows = config.operator_test("");
        let implemented: HashSet<(&'u str, &'u str)> = config
            .implemented
            .iter()
            .filter(|k| k.opsets.contains(&opset))
            .map(|k| (k.operator.as_str(), k.signature.as_str()))
            .collect();
        let profiled = |name: &str| {
            config.implemented.is_empty() || implemented.iter().any(|(op, _)| *op == name)
        };
        let menu = operators_at(opset)
            .iter()
            .filter(|(schema, _)| allows(schema.name()) && profiled(schema.name()))
            .copied()
            .collect();
        Ok(Valid {
            u,
            config,
            opset,
            menu,
            implemented,
            counter: 0,
            depth: 0,
            function: None,
            #[cfg(test)]
            rejected: Vec::new(),
        })
    }
}

impl Valid<'_, '_> {
    fn model(&mut self) -> Result<ModelProto> {
        let mut functions = Vec::new();
        if self.config.functions && self.u.ratio(1, 4)? {
            if let Some(f) = self.function()? {
                functions.push(f);
            }
        }
        let mut graph = self.main_graph()?;
        let ir = ir_version(self.opset);
        if ir < IR_OPTIONAL_INITIALIZER_INPUTS {
            let declared: Vec<ValueInfoProto> =
                graph.initializer.iter().map(initializer_input).collect();
            graph.input.extend(declared);
            // A subgraph's initializers would have to be its inputs too,
            // which an `If` branch or a `Loop` body cannot have.
            graph.node.iter_mut().for_each(subgraph_constants);
        }
        let mut opset_import = vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(self.opset),
        }];
        if !functions.is_empty() {
            opset_import.push(OperatorSetIdProto {
                domain: Some(LOCAL_DOMAIN.into()),
                version: Some(1),
            });
        }
        // Model-local functions came with IR version 8.
        let ir = if functions.is_empty() { ir } else { ir.max(8) };
        Ok(ModelProto {
            ir_version: Some(ir),
            producer_name: Some("onnxtxt smith".into()),
            opset_import,
            graph: Some(graph),
            functions,
            ..Default::default()
        })
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    fn chance(&mut self, numerator: u8, denominator: u8) -> Result<bool> {
        if self.u.is_empty() {
            return Ok(false);
        }
        self.u.ratio(numerator, denominator)
    }

    /// A number in `lo..=hi` (`lo` when `hi < lo`).
    fn int(&mut self, lo: i64, hi: i64) -> Result<i64> {
        self.u.int_in_range(lo..=hi.max(lo))
    }

    /// An index below `len` (0 when `len` is 0).
    fn index(&mut self, len: usize) -> Result<usize> {
        self.u.int_in_range(0..=len.max(1) - 1)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> Result<T> {
        self.u.choose(items).copied()
    }

    /// An axis of a tensor of rank `rank` (at least 1), sometimes counted
    /// from the end (from opset 13, where every operator takes that).
    fn axis(&mut self, rank: usize) -> Result<i64> {
        let axis = self.index(rank)?;
        self.maybe_negative(axis, rank)
    }

    /// `axis` of a tensor of rank `rank`, sometimes counted from the end.
    fn maybe_negative(&mut self, axis: usize, rank: usize) -> Result<i64> {
        let negative = self.opset >= 13 && self.chance(1, 4)?;
        Ok(axis as i64 - if negative { rank as i64 } else { 0 })
    }

    /// A nonempty set of distinct axes of a tensor of rank `rank` (at
    /// least 1), in increasing order but for the ones counted from the end.
    fn axes(&mut self, rank: usize) -> Result<Vec<i64>> {
        let mut axes = Vec::new();
        for axis in 0..rank {
            if self.chance(1, 2)? {
                axes.push(axis);
            }
        }
        if axes.is_empty() {
            axes.push(self.index(rank)?);
        }
        axes.into_iter()
            .map(|axis| self.maybe_negative(axis, rank))
            .collect()
    }

    fn main_graph(&mut self) -> Result<GraphProto> {
        let mut b = Builder {
            open: true,
            ..Builder::default()
        };
        let nodes = self.u.int_in_range(1..=self.config.max_nodes.max(1))?;
        self.nodes(&mut b, nodes)?;
        if b.made.is_empty() {
            // Nothing the config allows fits: the graph passes an input
            // through, which is still a valid model.
            let elem = self.pick(self.config.element_types())?;
            self.new_tensor(&mut b, elem, Need::ANY)?;
            b.made.extend(b.pool.last().cloned());
        }
        let outputs = self.u.int_in_range(1..=3)?.min(b.made.len());
        let outputs = b.made[b.made.len() - outputs..].to_vec();
        let name = self.fresh("graph");
        Ok(graph(b, name, &outputs))
    }

    /// Adds up to `count` nodes to `b`.
    fn nodes(&mut self, b: &mut Builder, count: usize) -> Result<()> {
        for _ in 0..count {
            for _ in 0..TRIES_PER_NODE {
                if self.node(b)? {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The schema of `name` at the model's opset, when the config allows
    /// it and it is not deprecated there.
    fn schema(&self, name: &str) -> Option<&'static Schema> {
        let schema = ops::schema("", name, self.opset)?;
        (!schema.deprecated() && self.config.allows_operator("", name)).then_some(schema)
    }

    /// Element types of the config that input `index` of `schema` accepts.
    fn accepted(&self, schema: &'static Schema, index: usize) -> Vec<ElementType> {
        schema
            .inputs()
            .get(index)
            .map_or_else(Vec::new, |p| self.allowed_by(schema.allowed_types(p)))
    }

    /// Element types of the config that output `index` of `schema` may
    /// have.
    fn output_elems(&self, schema: &'static Schema, index: usize) -> Vec<ElementType> {
        schema
            .outputs()
            .get(index)
            .map_or_else(Vec::new, |p| self.allowed_by(schema.allowed_types(p)))
    }

    /// An element type of the config that input `index` of `schema`
    /// accepts; `None` when there is none.
    fn accepted_elem(
        &mut self,
        schema: &'static Schema,
        index: usize,
    ) -> Result<Option<ElementType>> {
        let elems = self.accepted(schema, index);
        Ok(self.u.choose(&elems).ok().copied())
    }

    /// The element types of the config that input `index` of `schema`
    /// accepts and `keep` keeps.
    fn accepted_where(
        &self,
        schema: &'static Schema,
        index: usize,
        keep: fn(&ElementType) -> bool,
    ) -> Vec<ElementType> {
        self.accepted(schema, index)
            .into_iter()
            .filter(keep)
            .collect()
    }

    /// An operand for input 0 of `schema`, of a type it accepts, meeting
    /// `need` (see [`Valid::operand`]).
    fn input0(
        &mut self,
        b: &mut Builder,
        schema: &'static Schema,
        need: Need,
    ) -> Result<Option<Tensor>> {
        let elems = self.accepted(schema, 0);
        self.operand(b, &elems, need)
    }

    /// A dimension of `shape` known to be a number, and its axis; `None`
    /// when there is none.
    fn known_axis(&mut self, shape: &[Dim]) -> Result<Option<(usize, i64)>> {
        let known: Vec<(usize, i64)> = shape
            .iter()
            .enumerate()
            .filter_map(|(i, d)| Some((i, d.value()?)))
            .collect();
        Ok(self.u.choose(&known).ok().copied())
    }

    /// `parts` sizes of at least 1 that add up to `total`.
    fn partition(&mut self, total: i64, parts: i64) -> Result<Vec<i64>> {
        let mut sizes = vec![1; parts.max(0) as usize];
        for _ in parts..total {
            let i = self.index(sizes.len())?;
            sizes[i] += 1;
        }
        Ok(sizes)
    }

    /// Element types the generator knows that input `index` of `schema`
    /// accepts, whatever the config says (for constant operands).
    fn types_of(schema: &'static Schema, index: usize) -> Vec<ElementType> {
        let allowed = schema
            .inputs()
            .get(index)
            .map_or(&[][..], |p| schema.allowed_types(p));
        ElementType::ALL
            .iter()
            .copied()
            .filter(|e| allowed.contains(&tensor_type(*e).as_str()))
            .collect()
    }

    /// Element types of the config whose tensors are among `allowed`.
    fn allowed_by(&self, allowed: &[&str]) -> Vec<ElementType> {
        self.config
            .element_types()
            .iter()
            .copied()
            .filter(|e| allowed.contains(&tensor_type(*e).as_str()))
            .collect()
    }

    /// Adds one node of a random operator of the menu to `b`; `false` when
    /// the one drawn does not fit (no operand, a limit).
    fn node(&mut self, b: &mut Builder) -> Result<bool> {
        if self.depth == 0 && self.function.is_some() && self.chance(1, 6)? {
            return self.call(b);
        }
        let Ok(&(schema, recipe)) = self.u.choose(&self.menu) else {
            return Ok(false);
        };
        let mark = b.mark();
        let made = recipe(self, b, schema)?;
        if !made {
            b.rollback(mark);
        }
        Ok(made)
    }

    /// Adds `node` to `b` with `outputs` new outputs, their types inferred;
    /// `false` (and nothing added) when inference finds fault with the
    /// node or the config does not allow an output.
    fn add(&mut self, b: &mut Builder, node: NodeProto, outputs: usize) -> bool {
        self.add_known(b, node, outputs, &[])
    }

    /// [`Valid::add`], the types of `known` taken for the outputs (the
    /// first ones) whose type inference leaves unknown: what the recipe
    /// made sure of and onnx's inference does not work out.
    fn add_known(
        &mut self,
        b: &mut Builder,
        mut node: NodeProto,
        outputs: usize,
        known: &[Type],
    ) -> bool {
        node.output = (0..outputs).map(|_| self.fresh("v")).collect();
        let Some(types) = self.infer(b, &node) else {
            return false;
        };
        if !self.config.implemented.is_empty() && !self.implements(b, &node, types.first()) {
            return false;
        }
        let mut values = Vec::with_capacity(outputs);
        for (i, (name, mut ty)) in node.output.iter().zip(types).enumerate() {
            if let (true, Some(known)) = (ty.shape().is_none(), known.get(i)) {
                ty = known.clone();
            }
            forget_other_symbols(&mut ty);
            if !self.allows(&ty) {
                return false;
            }
            values.push(Value {
                name: name.clone(),
                ty,
                len: None,
            });
        }
        b.nodes.push(node);
        b.pool.extend(values.iter().cloned());
        b.made.extend(values);
        true
    }

    /// Whether the config's profile lists `node` (whose first output has
    /// type `output`) at the model's opset.
    fn implements(&self, b: &Builder, node: &NodeProto, output: Option<&Type>) -> bool {
        let input = node.input.first().filter(|i| !i.is_empty()).map(|name| {
            match b.pool.iter().rev().find(|v| &v.name == name) {
                Some(v) => v.ty.clone(),
                None => b
                    .initializers
                    .iter()
                    .find(|t| t.name.as_ref() == Some(name))
                    .map_or(Type::Unknown, |t| Type::tensor_of(t.data_type())),
            }
        });
        let signature = Kernel::signature(input.as_ref(), output);
        self.implemented
            .contains(&(node.op_type(), signature.as_str()))
    }

    /// A node of `schema`'s operator on `operand` alone, with one output;
    /// `false` when there is no operand.
    fn of_one(
        &mut self,
        b: &mut Builder,
        schema: &'static Schema,
        operand: Option<String>,
    ) -> Result<bool> {
        let Some(operand) = operand else {
            return Ok(false);
        };
        Ok(self.add(b, node(schema, vec![operand], Vec::new()), 1))
    }

    /// [`Valid::add`] of a node whose outputs are sequences of `len`
    /// tensors, or optionals holding `len` values (0 or 1).
    fn add_counted(
        &mut self,
        b: &mut Builder,
        node: NodeProto,
        outputs: usize,
        len: Option<usize>,
    ) -> bool {
        if !self.add(b, node, outputs) {
            return false;
        }
        let (pool, made) = (b.pool.len(), b.made.len());
        for value in b.pool[pool - outputs..]
            .iter_mut()
            .chain(&mut b.made[made - outputs..])
        {
            value.len = len;
        }
        true
    }

    /// The types inference gives the outputs of `node` in `b`, inferred on
    /// the node alone (its operands declared with their types, constants
    /// as initializers); `None` when it finds fault or leaves one unknown.
    fn infer(&mut self, b: &Builder, node: &NodeProto) -> Option<Vec<Type>> {
        let mut graph = GraphProto::default();
        let mut seen = HashSet::new();
        let mut names = Vec::new();
        node_reads(node, &mut names);
        for name in names {
            if name.is_empty() || !seen.insert(name) {
                continue;
            }
            let named = |t: &&TensorProto| t.name.as_deref() == Some(name);
            if let Some(t) = b.initializers.iter().find(named) {
                graph.initializer.push(t.clone());
            } else if let Some(v) = b.pool.iter().rev().find(|v| v.name == name) {
                graph.input.push(value_info(v));
            }
        }
        graph.node.push(node.clone());
        let opsets = [OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(self.opset),
        }];
        let inference = infer::infer_graph(&graph, &opsets, Options::checker());
        if !inference.findings().is_empty() {
            #[cfg(test)]
            self.rejected.extend(inference.findings().iter().map(|f| {
                let op = node.op_type.as_deref().unwrap_or_default();
                format!("{op}: {}", f.diagnostic.message)
            }));
            return None;
        }
        node.output
            .iter()
            .map(|o| inference.value_type("graph", o).cloned())
            .collect()
    }

    /// Whether the config allows a value of type `ty`: tensors (alone or
    /// in a sequence or optional) of a known rank, of its element types,
    /// within its bytes.
    fn allows(&self, ty: &Type) -> bool {
        match ty {
            Type::Tensor(t) => {
                let Some(elem) = ElementType::from_code(t.elem_type) else {
                    return false;
                };
                let Some(shape) = &t.shape else {
                    return false;
                };
                self.config.element_types().contains(&elem)
                    && bytes(elem, shape) <= self.config.max_tensor_bytes
            }
            Type::Sequence(inner) | Type::Optional(inner) => {
                // A sequence's tensors may differ in shape: only their
                // element type need be known.
                match &**inner {
                    Type::Tensor(t) => ElementType::from_code(t.elem_type)
                        .is_some_and(|e| self.config.element_types().contains(&e)),
                    other => matches!(ty, Type::Optional(_)) && self.allows(other),
                }
            }
            _ => false,
        }
    }

    /// A tensor operand among `elems` meeting `need`: a value of the pool
    /// mostly, else a new one; `None` when none can be (no element type,
    /// a rank the config does not allow).
    fn operand(
        &mut self,
        b: &mut Builder,
        elems: &[ElementType],
        need: Need,
    ) -> Result<Option<Tensor>> {
        if elems.is_empty() || need.min_rank > self.config.max_rank {
            return Ok(None);
        }
        let candidates = b.tensors(elems, need);
        if !candidates.is_empty() && self.chance(3, 4)? {
            return Ok(Some(self.u.choose(&candidates)?.clone()));
        }
        let elem = self.pick(elems)?;
        Ok(Some(self.new_tensor(b, elem, need)?))
    }

    /// A new tensor of `elem` with a shape meeting `need`: a graph input,
    /// or in a subgraph an initializer.
    fn new_tensor(&mut self, b: &mut Builder, elem: ElementType, need: Need) -> Result<Tensor> {
        let symbolic = b.open && self.config.symbolic_dims;
        let shape = self.shape(elem, need, symbolic)?;
        let name = self.fresh(if b.open { "x" } else { "w" });
        if !b.open {
            let t = self.random_tensor(Some(name.clone()), elem, fixed_dims(&shape))?;
            b.initializers.push(t);
        }
        let value = Value {
            name: name.clone(),
            ty: Type::tensor(elem.data_type() as i32, shape.clone()),
            len: None,
        };
        if b.open {
            b.inputs.push(value_info(&value));
        }
        b.pool.push(value);
        Ok(Tensor { name, elem, shape })
    }

    /// A random shape meeting `need` within the config's limits, with
    /// symbolic dimensions where `symbolic` and `need` allow.
    fn shape(&mut self, elem: ElementType, need: Need, symbolic: bool) -> Result<Vec<Dim>> {
        let max_rank = need.max_rank.min(self.config.max_rank).max(need.min_rank);
        let rank = self.u.int_in_range(need.min_rank..=max_rank)?;
        let max_dim = self.config.max_dim.max(1);
        let mut shape = Vec::with_capacity(rank);
        for i in 0..rank {
            let dim = if symbolic && !need.fixes(i) && self.chance(1, 6)? {
                Dim::param(self.pick(SYMBOLS)?)
            } else {
                Dim::Value(self.u.int_in_range(1..=max_dim)?)
            };
            shape.push(dim);
        }
        if need.unit_dim && !shape.contains(&Dim::Value(1)) {
            if let Some(first) = shape.first_mut() {
                *first = Dim::Value(1);
            }
        }
        // Within the byte limit: shrink dimensions to 1 from the front.
        for i in 0..shape.len() {
            if bytes(elem, &shape) <= self.config.max_tensor_bytes {
                break;
            }
            shape[i] = Dim::Value(1);
        }
        Ok(shape)
    }

    /// A value of `elem` and exactly `shape`: one of the pool, a new
    /// initializer (known dimensions, sometimes) or a new graph input;
    /// `None` when none can be (unknown dimensions, or symbolic ones in a
    /// subgraph).
    fn value_of(
        &mut self,
        b: &mut Builder,
        elem: ElementType,
        shape: &[Dim],
    ) -> Result<Option<String>> {
        let same: Vec<String> = b
            .tensors(&[elem], Need::ANY)
            .into_iter()
            .filter(|t| t.shape == shape)
            .map(|t| t.name)
            .collect();
        if !same.is_empty() && self.chance(1, 2)? {
            return Ok(Some(self.u.choose(&same)?.clone()));
        }
        self.new_value(b, elem, shape, None)
    }

    /// A new value of `elem` and `shape` whose values matter to the
    /// operator (coordinates, offsets): a constant of values in `lo..=hi`
    /// (known dimensions, sometimes), or a graph input.
    fn value_in(
        &mut self,
        b: &mut Builder,
        elem: ElementType,
        shape: &[Dim],
        lo: f64,
        hi: f64,
    ) -> Result<Option<String>> {
        self.new_value(b, elem, shape, Some((lo, hi)))
    }

    /// A new initializer (known dimensions, sometimes; its values in
    /// `range` when given) or graph input of `elem` and `shape`.
    fn new_value(
        &mut self,
        b: &mut Builder,
        elem: ElementType,
        shape: &[Dim],
        range: Option<(f64, f64)>,
    ) -> Result<Option<String>> {
        let fixed = shape.iter().all(|d| d.value().is_some());
        let known = shape.iter().all(Dim::is_known);
        if !(fixed || b.open && known) || bytes(elem, shape) > self.config.max_tensor_bytes {
            return Ok(None);
        }
        let initializer = fixed && (!b.open || self.chance(1, 2)?);
        let name = if initializer {
            let dims = fixed_dims(shape);
            match range {
                Some((lo, hi)) => self.constant_in(b, elem, dims, lo, hi)?,
                None => {
                    let name = self.fresh("w");
                    let t = self.random_tensor(Some(name.clone()), elem, dims)?;
                    b.initializers.push(t);
                    name
                }
            }
        } else {
            self.fresh("x")
        };
        let value = Value {
            name: name.clone(),
            ty: Type::tensor(elem.data_type() as i32, shape.to_vec()),
            len: None,
        };
        if !initializer {
            b.inputs.push(value_info(&value));
        }
        b.pool.push(value);
        Ok(Some(name))
    }

    /// A tensor of `elem` and `dims` with values from the bytes (any bit
    /// pattern; strings of digits).
    fn random_tensor(
        &mut self,
        name: Option<String>,
        elem: ElementType,
        dims: Vec<i64>,
    ) -> Result<TensorProto> {
        let count = dims.iter().product::<i64>().max(0) as usize;
        let mut t = TensorProto {
            name,
            dims,
            data_type: Some(elem.data_type() as i32),
            ..Default::default()
        };
        if elem == ElementType::String {
            for _ in 0..count {
                let n: u16 = self.u.arbitrary()?;
                t.string_data.push(n.to_string().into_bytes());
            }
            return Ok(t);
        }
        let mut raw = vec![0u8; count * elem.size()];
        self.u.fill_buffer(&mut raw)?;
        if elem == ElementType::Bool {
            raw.iter_mut().for_each(|byte| *byte &= 1);
        }
        t.raw_data = Some(raw);
        Ok(t)
    }

    /// A constant tensor of `elem` and `dims` with values in `lo..=hi`
    /// (whole numbers for integer types), as a new initializer.
    fn constant_in(
        &mut self,
        b: &mut Builder,
        elem: ElementType,
        dims: Vec<i64>,
        lo: f64,
        hi: f64,
    ) -> Result<String> {
        let count = dims.iter().product::<i64>().max(0) as usize;
        let mut values = Vec::with_capacity(count);
        for _ in 0..count {
            let fraction = f64::from(self.u.arbitrary::<u16>()?) / f64::from(u16::MAX);
            let v = lo + (hi - lo) * fraction;
            values.push(if elem.is_float() { v } else { v.round() });
        }
        Ok(self.constant(b, elem, dims, &values))
    }

    /// A constant tensor of `elem`, `dims` and `values`, as a new
    /// initializer.
    fn constant(
        &mut self,
        b: &mut Builder,
        elem: ElementType,
        dims: Vec<i64>,
        values: &[f64],
    ) -> String {
        self.constant_tensor(b, tensor_of(None, elem, dims, values))
    }

    /// `t` as a new initializer, named here.
    fn constant_tensor(&mut self, b: &mut Builder, mut t: TensorProto) -> String {
        let name = self.fresh("k");
        t.name = Some(name.clone());
        b.initializers.push(t);
        name
    }

    /// A constant 1-D `int64` tensor holding `values`.
    fn ints(&mut self, b: &mut Builder, values: &[i64]) -> String {
        let t = int64_tensor(vec![values.len() as i64], values);
        self.constant_tensor(b, t)
    }

    /// A constant `int64` scalar.
    fn int_scalar(&mut self, b: &mut Builder, value: i64) -> String {
        self.constant_tensor(b, int64_tensor(Vec::new(), &[value]))
    }

    /// The model-local function `local.F(x) -> y`: `Identity` twice over
    /// one element type (calls give it values of that type only).
    fn function(&mut self) -> Result<Option<FunctionProto>> {
        if self.schema("Identity").is_none() {
            return Ok(None);
        }
        let elem = self.pick(self.config.element_types())?;
        let ty = Type::tensor_of(elem.data_type() as i32);
        let signature = Kernel::signature(Some(&ty), Some(&ty));
        if !self.config.implemented.is_empty()
            && !self.implemented.contains(&("Identity", signature.as_str()))
        {
            return Ok(None);
        }
        self.function = Some(LocalFunction { elem });
        let identity = |input: &str, output: &str| NodeProto {
            op_type: Some("Identity".into()),
            input: vec![input.into()],
            output: vec![output.into()],
            ..Default::default()
        };
        Ok(Some(FunctionProto {
            name: Some("F".into()),
            domain: Some(LOCAL_DOMAIN.into()),
            input: vec!["x".into()],
            output: vec!["y".into()],
            node: vec![identity("x", "t"), identity("t", "y")],
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(self.opset),
            }],
            ..Default::default()
        }))
    }

    /// A call of the local function on a value of its element type (its
    /// output has the value's type).
    fn call(&mut self, b: &mut Builder) -> Result<bool> {
        let Some(f) = &self.function else {
            return Ok(false);
        };
        let elem = f.elem;
        let Some(x) = self.operand(b, &[elem], Need::ANY)? else {
            return Ok(false);
        };
        let value = Value {
            name: self.fresh("v"),
            ty: Type::tensor(elem.data_type() as i32, x.shape),
            len: None,
        };
        b.nodes.push(NodeProto {
            op_type: Some("F".into()),
            domain: Some(LOCAL_DOMAIN.into()),
            input: vec![x.name],
            output: vec![value.name.clone()],
            ..Default::default()
        });
        b.pool.push(value.clone());
        b.made.push(value);
        Ok(true)
    }
}

/// The graph `b` built, with `outputs`.
fn graph(b: Builder, name: String, outputs: &[Value]) -> GraphProto {
    GraphProto {
        name: Some(name),
        input: b.inputs,
        initializer: b.initializers,
        node: b.nodes,
        output: outputs.iter().map(value_info).collect(),
        ..Default::default()
    }
}

/// The names `node` reads: its inputs, and those its subgraphs read from
/// outside them.
fn node_reads<'n>(node: &'n NodeProto, names: &mut Vec<&'n str>) {
    names.extend(node.input.iter().map(String::as_str));
    for attribute in &node.attribute {
        for g in attribute.g.as_deref().into_iter().chain(&attribute.graphs) {
            let mut inner = Vec::new();
            for n in &g.node {
                node_reads(n, &mut inner);
            }
            let defined: HashSet<&str> = g
                .input
                .iter()
                .filter_map(|i| i.name.as_deref())
                .chain(g.initializer.iter().filter_map(|t| t.name.as_deref()))
                .chain(
                    g.node
                        .iter()
                        .flat_map(|n| n.output.iter().map(String::as_str)),
                )
                .collect();
            names.extend(inner.into_iter().filter(|n| !defined.contains(n)));
        }
    }
}

/// Makes the dimension names inference made up (for sizes known only when
/// the model runs) unknown dimensions: every model's inference would
/// number them afresh, so the same name in two nodes' types says nothing.
fn forget_other_symbols(ty: &mut Type) {
    ty.dims_mut(&mut |d| {
        if matches!(d, Dim::Param(p) if !SYMBOLS.contains(&&**p)) {
            *d = Dim::Unknown;
        }
    });
}

/// The dimensions of a shape, the ones not known counted as 1.
fn fixed_dims(shape: &[Dim]) -> Vec<i64> {
    shape.iter().map(|d| d.value().unwrap_or(1)).collect()
}

/// The bytes of a value (dimensions not known counted as 1).
fn bytes(elem: ElementType, shape: &[Dim]) -> usize {
    let count = fixed_dims(shape)
        .iter()
        .fold(1usize, |n, &d| n.saturating_mul(d.max(0) as usize));
    count.saturating_mul(elem.size())
}

fn tensor_type(elem: ElementType) -> String {
    format!("tensor({})", elem.name())
}

fn value_info(v: &Value) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(v.name.clone()),
        r#type: Some(v.ty.to_proto()),
        ..Default::default()
    }
}

/// Makes the initializers of `node`'s subgraphs (at any depth) `Constant`
/// nodes at the start of their graph (IR versions below 4).
fn subgraph_constants(node: &mut NodeProto) {
    for attribute in &mut node.attribute {
        for g in attribute
            .g
            .as_deref_mut()
            .into_iter()
            .chain(&mut attribute.graphs)
        {
            g.node.iter_mut().for_each(subgraph_constants);
            let constants = g
                .initializer
                .drain(..)
                .map(|t| crate::shrink::constant_node(&t.name.clone().unwrap_or_default(), t));
            g.node.splice(0..0, constants);
        }
    }
}

/// The graph input that declares initializer `t` (IR versions below 4).
fn initializer_input(t: &TensorProto) -> ValueInfoProto {
    let shape = t.dims.iter().map(|&d| Dim::Value(d)).collect();
    ValueInfoProto {
        name: t.name.clone(),
        r#type: Some(Type::tensor(t.data_type.unwrap_or_default(), shape).to_proto()),
        ..Default::default()
    }
}

/// A tensor of `elem` and `dims` holding `values` (rounded and wrapped to
/// integer types, nonzero as `true`, decimal text for strings).
fn tensor_of(
    name: Option<String>,
    elem: ElementType,
    dims: Vec<i64>,
    values: &[f64],
) -> TensorProto {
    let mut t = TensorProto {
        name,
        dims,
        data_type: Some(elem.data_type() as i32),
        ..Default::default()
    };
    if elem == ElementType::String {
        t.string_data = values.iter().map(|v| v.to_string().into_bytes()).collect();
        return t;
    }
    let mut raw = Vec::with_capacity(values.len() * elem.size());
    for &v in values {
        match elem {
            ElementType::Float => raw.extend((v as f32).to_le_bytes()),
            ElementType::Double => raw.extend(v.to_le_bytes()),
            ElementType::Float16 => raw.extend(half::f16::from_f64(v).to_le_bytes()),
            ElementType::Bool => raw.push(u8::from(v != 0.0)),
            _ => raw.extend_from_slice(&(v as i64).to_le_bytes()[..elem.size()]),
        }
    }
    t.raw_data = Some(raw);
    t
}

fn int64_tensor(dims: Vec<i64>, values: &[i64]) -> TensorProto {
    TensorProto {
        dims,
        data_type: Some(ElementType::Int64.data_type() as i32),
        int64_data: values.to_vec(),
        ..Default::default()
    }
}

/// A node of `schema`'s operator reading `inputs`.
fn node(schema: &Schema, inputs: Vec<String>, attribute: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        op_type: Some(schema.name().to_owned()),
        input: inputs,
        attribute,
        ..Default::default()
    }
}

fn attribute(name: &str, kind: AttributeType) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(kind as i32),
        ..Default::default()
    }
}

fn int_attribute(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        i: Some(value),
        ..attribute(name, AttributeType::Int)
    }
}

fn ints_attribute(name: &str, values: Vec<i64>) -> AttributeProto {
    AttributeProto {
        ints: values,
        ..attribute(name, AttributeType::Ints)
    }
}

fn float_attribute(name: &str, value: f32) -> AttributeProto {
    AttributeProto {
        f: Some(value),
        ..attribute(name, AttributeType::Float)
    }
}

fn floats_attribute(name: &str, values: Vec<f32>) -> AttributeProto {
    AttributeProto {
        floats: values,
        ..attribute(name, AttributeType::Floats)
    }
}

fn string_attribute(name: &str, value: &str) -> AttributeProto {
    AttributeProto {
        s: Some(value.as_bytes().to_vec()),
        ..attribute(name, AttributeType::String)
    }
}

fn strings_attribute(name: &str, values: &[&str]) -> AttributeProto {
    AttributeProto {
        strings: values.iter().map(|s| s.as_bytes().to_vec()).collect(),
        ..attribute(name, AttributeType::Strings)
    }
}

fn tensor_attribute(name: &str, t: TensorProto) -> AttributeProto {
    AttributeProto {
        t: Some(Box::new(t)),
        ..attribute(name, AttributeType::Tensor)
    }
}

fn graph_attribute(name: &str, g: GraphProto) -> AttributeProto {
    AttributeProto {
        g: Some(Box::new(g)),
        ..attribute(name, AttributeType::Graph)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_model, Severity};

    /// How many seeds the tests try, a config each.
    const SEEDS: u64 = 2000;

    /// What `onnxtxt check` finds wrong in `model`.
    fn errors(model: &ModelProto) -> Vec<String> {
        check_model(model)
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.diagnostic.message)
            .collect()
    }

    /// For the test seeds, the models of the config `config` draws:
    /// inference rejects no node a recipe made, `onnxtxt check` finds no
    /// error in them, and their text parses back to them.
    fn assert_checked(config: impl Fn(&mut Unstructured<'_>) -> Config) {
        let mut rejected = std::collections::BTreeMap::new();
        for seed in 0..SEEDS {
            let bytes = super::super::seeded_bytes(seed, 8192);
            let mut u = Unstructured::new(&bytes);
            let config = config(&mut u);
            let mut g = Valid::new(&mut u, &config).unwrap();
            let model = g.model().unwrap();
            for message in g.rejected.drain(..) {
                rejected.entry(message).or_insert(seed);
            }
            let errors = errors(&model);
            assert!(errors.is_empty(), "seed {seed}: {errors:?}");
            let text = crate::to_text(&model);
            assert_eq!(crate::parse_model(&text).unwrap(), model, "seed {seed}");
        }
        let rejected: Vec<String> = rejected
            .into_iter()
            .map(|(message, seed)| format!("seed {seed}: {message}"))
            .collect();
        assert!(
            rejected.is_empty(),
            "inference rejected:\n{}",
            rejected.join("\n")
        );
    }

    #[test]
    fn default_config_models_check() {
        assert_checked(|_| Config::default());
    }

    #[test]
    fn swarm_config_models_check() {
        assert_checked(|u| Config::swarm(u).unwrap());
    }

    #[test]
    fn config_limits_are_kept() {
        let config = Config {
            allowed_operators: vec!["Add".into(), "Relu".into()],
            element_types: vec![ElementType::Float],
            max_nodes: 3,
            max_rank: 2,
            subgraphs: false,
            functions: false,
            ..Config::default()
        };
        for seed in 0..SEEDS {
            let bytes = super::super::seeded_bytes(seed, 4096);
            let model = valid_model(&mut Unstructured::new(&bytes), &config).unwrap();
            let graph = model.graph.unwrap();
            assert!(graph.node.len() <= 3, "seed {seed}");
            for node in &graph.node {
                let op = node.op_type.as_deref().unwrap_or_default();
                assert!(op == "Add" || op == "Relu", "seed {seed}: {op}");
            }
            for value in graph.input.iter().chain(&graph.output) {
                let ty = Type::from_proto(value.r#type.as_ref().unwrap());
                assert_eq!(ty.elem_type(), ElementType::Float.data_type() as i32);
                assert!(ty.shape().unwrap().len() <= 2, "seed {seed}");
            }
        }
    }

    /// Exhausted input still gives a valid model, in every config.
    #[test]
    fn empty_input_gives_a_model() {
        for seed in 0..20 {
            let bytes = super::super::seeded_bytes(seed, 64);
            let config = Config::swarm(&mut Unstructured::new(&bytes)).unwrap();
            for len in [0, 1, 7, 64] {
                let model = valid_model(&mut Unstructured::new(&bytes[..len]), &config).unwrap();
                let errors = errors(&model);
                assert!(errors.is_empty(), "seed {seed}, {len} bytes: {errors:?}");
            }
        }
    }
}
