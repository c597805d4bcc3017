//! Valid models, by construction: what `onnx.checker.check_model(m,
//! full_check=True)` accepts, for fuzzing ONNX consumers.
//!
//! The generator tracks every value's element type and shape and adds
//! nodes of the operators in [`OPERATORS`], each with a [`Rule`] saying
//! what inputs it needs and what shape it makes. Which element types an
//! operator accepts, whether it exists at the model's opset and whether an
//! attribute or an input carries its axes come from the registry
//! ([`crate::ops`]); the shape rules are written here. An operator goes in
//! only where its rule is known exactly, so the set is a subset of the
//! registry: what the generator cannot make valid, it does not make.

use arbitrary::{Result, Unstructured};

use super::config::{Config, ElementType, MIN_SUPPORTED_OPSET};
use crate::ops::{self, Schema};
use crate::proto::attribute_proto::AttributeType;
use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::{
    type_proto, AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
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

/// How an operator's inputs and output shape relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// One input; the output has its shape.
    Elementwise,
    /// One input of rank ≥ 1 (an `axis` at its default); the output has
    /// its shape.
    Ranked,
    /// Two inputs, the second's shape a suffix of the first's (with some
    /// dimensions 1); the output has the first's shape.
    Broadcast,
    /// A reduction over all axes, `keepdims` drawn.
    Reduce,
    /// `ArgMax`/`ArgMin`: one axis, `keepdims` drawn.
    ArgReduce,
    /// `Shape`: the rank, as a 1-D tensor.
    Shape,
    /// `Size`: a scalar.
    Size,
    Transpose,
    /// `MatMul` of a rank ≥ 2 input and a new `[k, n]` one.
    MatMul,
    /// `Gemm` of a `[m, k]` input and a new `[k, n]` one.
    Gemm,
    /// An input concatenated with itself along a fixed axis.
    Concat,
    /// `Flatten` at its default axis (fixed dimensions).
    Flatten,
    /// `Where(cond, x, y)`, cond and y broadcast to x.
    Where,
    /// `Cast` to an element type of the config.
    Cast,
    /// `Reshape` to a constant shape with the same element count.
    Reshape,
    /// `Expand` with a new leading dimension.
    Expand,
    /// `Tile` with repeats of 1 or 2 (fixed dimensions).
    Tile,
    /// `Unsqueeze` of axis 0.
    Unsqueeze,
    /// `Squeeze` of the dimensions of size 1.
    Squeeze,
    /// `Constant` holding a small tensor.
    Constant,
    /// `If` on a new boolean input, both branches giving a value of the
    /// same type.
    If,
}

/// The `ai.onnx` operators the generator makes, with their rules.
const OPERATORS: &[(&str, Rule)] = &[
    ("Abs", Rule::Elementwise),
    ("Acos", Rule::Elementwise),
    ("Acosh", Rule::Elementwise),
    ("Asin", Rule::Elementwise),
    ("Asinh", Rule::Elementwise),
    ("Atan", Rule::Elementwise),
    ("Atanh", Rule::Elementwise),
    ("BitwiseNot", Rule::Elementwise),
    ("Ceil", Rule::Elementwise),
    ("Celu", Rule::Elementwise),
    ("Cos", Rule::Elementwise),
    ("Cosh", Rule::Elementwise),
    ("Elu", Rule::Elementwise),
    ("Erf", Rule::Elementwise),
    ("Exp", Rule::Elementwise),
    ("Floor", Rule::Elementwise),
    ("Gelu", Rule::Elementwise),
    ("HardSigmoid", Rule::Elementwise),
    ("HardSwish", Rule::Elementwise),
    ("Identity", Rule::Elementwise),
    ("IsInf", Rule::Elementwise),
    ("IsNaN", Rule::Elementwise),
    ("LeakyRelu", Rule::Elementwise),
    ("Log", Rule::Elementwise),
    ("Mish", Rule::Elementwise),
    ("Neg", Rule::Elementwise),
    ("Not", Rule::Elementwise),
    ("Reciprocal", Rule::Elementwise),
    ("Relu", Rule::Elementwise),
    ("Round", Rule::Elementwise),
    ("Selu", Rule::Elementwise),
    ("Shrink", Rule::Elementwise),
    ("Sigmoid", Rule::Elementwise),
    ("Sign", Rule::Elementwise),
    ("Sin", Rule::Elementwise),
    ("Sinh", Rule::Elementwise),
    ("Softplus", Rule::Elementwise),
    ("Softsign", Rule::Elementwise),
    ("Sqrt", Rule::Elementwise),
    ("Tan", Rule::Elementwise),
    ("Tanh", Rule::Elementwise),
    ("ThresholdedRelu", Rule::Elementwise),
    ("Hardmax", Rule::Ranked),
    ("LogSoftmax", Rule::Ranked),
    ("Softmax", Rule::Ranked),
    ("CumSum", Rule::Ranked),
    ("Add", Rule::Broadcast),
    ("And", Rule::Broadcast),
    ("BitShift", Rule::Broadcast),
    ("BitwiseAnd", Rule::Broadcast),
    ("BitwiseOr", Rule::Broadcast),
    ("BitwiseXor", Rule::Broadcast),
    ("Div", Rule::Broadcast),
    ("Equal", Rule::Broadcast),
    ("Greater", Rule::Broadcast),
    ("GreaterOrEqual", Rule::Broadcast),
    ("Less", Rule::Broadcast),
    ("LessOrEqual", Rule::Broadcast),
    ("Max", Rule::Broadcast),
    ("Mean", Rule::Broadcast),
    ("Min", Rule::Broadcast),
    ("Mod", Rule::Broadcast),
    ("Mul", Rule::Broadcast),
    ("Or", Rule::Broadcast),
    ("Pow", Rule::Broadcast),
    ("PRelu", Rule::Broadcast),
    ("Sub", Rule::Broadcast),
    ("Sum", Rule::Broadcast),
    ("Xor", Rule::Broadcast),
    ("ReduceL1", Rule::Reduce),
    ("ReduceL2", Rule::Reduce),
    ("ReduceLogSum", Rule::Reduce),
    ("ReduceLogSumExp", Rule::Reduce),
    ("ReduceMax", Rule::Reduce),
    ("ReduceMean", Rule::Reduce),
    ("ReduceMin", Rule::Reduce),
    ("ReduceProd", Rule::Reduce),
    ("ReduceSum", Rule::Reduce),
    ("ReduceSumSquare", Rule::Reduce),
    ("ArgMax", Rule::ArgReduce),
    ("ArgMin", Rule::ArgReduce),
    ("Shape", Rule::Shape),
    ("Size", Rule::Size),
    ("Transpose", Rule::Transpose),
    ("MatMul", Rule::MatMul),
    ("Gemm", Rule::Gemm),
    ("Concat", Rule::Concat),
    ("Flatten", Rule::Flatten),
    ("Where", Rule::Where),
    ("Cast", Rule::Cast),
    ("Reshape", Rule::Reshape),
    ("Expand", Rule::Expand),
    ("Tile", Rule::Tile),
    ("Unsqueeze", Rule::Unsqueeze),
    ("Squeeze", Rule::Squeeze),
    ("Constant", Rule::Constant),
    ("If", Rule::If),
];

/// The names of the operators the valid generator can make.
pub fn operator_names() -> impl Iterator<Item = &'static str> {
    OPERATORS.iter().map(|(name, _)| *name)
}

/// A dimension of a tracked value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dim {
    Fixed(i64),
    Symbol(&'static str),
}

/// A value nodes may read, with its exact type.
#[derive(Debug, Clone, PartialEq)]
struct Value {
    name: String,
    elem: ElementType,
    shape: Vec<Dim>,
}

/// What an operator's main input must be like.
#[derive(Debug, Clone, Copy, Default)]
struct Need {
    min_rank: usize,
    /// Every dimension fixed.
    fixed: bool,
    /// At least one dimension fixed at 1.
    unit_dim: bool,
}

impl Need {
    fn ranked(min_rank: usize) -> Need {
        Need {
            min_rank,
            ..Need::default()
        }
    }

    fn fixed(min_rank: usize) -> Need {
        Need {
            min_rank,
            fixed: true,
            ..Need::default()
        }
    }

    fn met_by(self, shape: &[Dim]) -> bool {
        shape.len() >= self.min_rank
            && (!self.fixed || shape.iter().all(|d| matches!(d, Dim::Fixed(_))))
            && (!self.unit_dim || shape.contains(&Dim::Fixed(1)))
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
    let latest = ops::domain("").map_or(MIN_SUPPORTED_OPSET, |d| d.last_opset());
    let max = config.max_opset.clamp(MIN_SUPPORTED_OPSET, latest);
    let min = config.min_opset.clamp(MIN_SUPPORTED_OPSET, max);
    let opset = u.int_in_range(min..=max)?;
    let mut g = Valid {
        u,
        config,
        opset,
        counter: 0,
        function: None,
    };
    let mut functions = Vec::new();
    if config.functions && g.u.ratio(1, 4)? {
        if let Some(f) = g.function()? {
            functions.push(f);
        }
    }
    let mut graph = g.main_graph()?;
    let ir = ir_version(opset);
    if ir < IR_OPTIONAL_INITIALIZER_INPUTS {
        let declared: Vec<ValueInfoProto> =
            graph.initializer.iter().map(initializer_input).collect();
        graph.input.extend(declared);
    }
    let mut opset_import = vec![OperatorSetIdProto {
        domain: Some(String::new()),
        version: Some(opset),
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

/// The model-local function: its element type and the operators its body
/// chains.
struct LocalFunction {
    elem: ElementType,
}

struct Valid<'a, 'u> {
    u: &'u mut Unstructured<'a>,
    config: &'u Config,
    opset: i64,
    counter: usize,
    function: Option<LocalFunction>,
}

/// A graph being built: its inputs, initializers, nodes and the values
/// nodes may read.
#[derive(Default)]
struct Builder {
    inputs: Vec<ValueInfoProto>,
    initializers: Vec<TensorProto>,
    nodes: Vec<NodeProto>,
    pool: Vec<Value>,
    made: Vec<Value>,
}

impl Valid<'_, '_> {
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

    fn main_graph(&mut self) -> Result<GraphProto> {
        let mut b = Builder::default();
        let nodes = self.u.int_in_range(1..=self.config.max_nodes.max(1))?;
        for _ in 0..nodes {
            for _ in 0..TRIES_PER_NODE {
                if self.node(&mut b)? {
                    break;
                }
            }
        }
        if b.made.is_empty() {
            // Nothing the config allows fits: the graph passes an input
            // through, which is still a valid model.
            let elem = *self.u.choose(self.config.element_types())?;
            let v = self.new_input(&mut b, elem, Need::default())?;
            b.made.push(v);
        }
        let name = self.fresh("graph");
        self.finish(b, name)
    }

    /// The graph of `b`, its outputs the last values made.
    fn finish(&mut self, b: Builder, name: String) -> Result<GraphProto> {
        let outputs = self.u.int_in_range(1..=3)?.min(b.made.len());
        let output = b.made[b.made.len() - outputs..]
            .iter()
            .map(value_info)
            .collect();
        Ok(GraphProto {
            name: Some(name),
            input: b.inputs,
            initializer: b.initializers,
            node: b.nodes,
            output,
            ..Default::default()
        })
    }

    /// The schema of `name` at the model's opset, when the config allows
    /// it and it is not deprecated there.
    fn schema(&self, name: &str) -> Option<&'static Schema> {
        let schema = ops::schema("", name, self.opset)?;
        (!schema.deprecated() && self.config.allows_operator("", name)).then_some(schema)
    }

    /// Element types of the config that input `index` of `schema` accepts.
    fn accepted(&self, schema: &'static Schema, index: usize) -> Vec<ElementType> {
        let Some(param) = schema.inputs().get(index) else {
            return Vec::new();
        };
        self.allowed_by(schema.allowed_types(param))
    }

    /// Element types of the config that output 0 of `schema` may have.
    fn output_elems(&self, schema: &'static Schema) -> Vec<ElementType> {
        schema.outputs().first().map_or_else(Vec::new, |output| {
            self.allowed_by(schema.allowed_types(output))
        })
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

    /// The element type of output 0 of `schema` when input 0 has `elem`:
    /// the same when they share a type parameter, else the one type the
    /// output allows; `None` when that is not one the config allows.
    fn output_elem(&self, schema: &'static Schema, elem: ElementType) -> Option<ElementType> {
        let output = schema.outputs().first()?;
        let input = schema.inputs().first()?;
        if output.type_str() == input.type_str() {
            return Some(elem);
        }
        let [only] = schema.allowed_types(output) else {
            return None;
        };
        let name = only.strip_prefix("tensor(")?.strip_suffix(')')?;
        ElementType::from_name(name).filter(|e| self.config.element_types().contains(e))
    }

    /// Adds one node of a random operator to `b`; `false` when the one
    /// drawn does not fit (not allowed, absent at the opset, no input).
    fn node(&mut self, b: &mut Builder) -> Result<bool> {
        if self.function.is_some() && self.chance(1, 6)? {
            return self.call(b);
        }
        let (name, rule) = *self.u.choose(OPERATORS)?;
        let Some(schema) = self.schema(name) else {
            return Ok(false);
        };
        match rule {
            Rule::Constant => self.constant(b, schema),
            Rule::If => self.if_node(b, schema),
            _ => self.shaped_node(b, schema, rule),
        }
    }

    /// A node of a rule that reads one main input.
    fn shaped_node(
        &mut self,
        b: &mut Builder,
        schema: &'static Schema,
        rule: Rule,
    ) -> Result<bool> {
        let need = match rule {
            // Before opset 13 the softmax family's default axis is 1.
            Rule::Ranked => Need::ranked(2),
            Rule::ArgReduce | Rule::Concat => Need::ranked(1),
            Rule::MatMul => Need::ranked(2),
            Rule::Gemm => Need {
                min_rank: 2,
                ..Need::default()
            },
            Rule::Flatten | Rule::Reshape | Rule::Tile => Need::fixed(1),
            Rule::Squeeze => Need {
                min_rank: 1,
                unit_dim: true,
                ..Need::default()
            },
            _ => Need::default(),
        };
        // Gemm's third input is optional from opset 11 on only.
        let gemm_needs_c = rule == Rule::Gemm && schema.min_inputs() > 2;
        if gemm_needs_c || need.min_rank > self.config.max_rank {
            return Ok(false);
        }
        // Where's main input is its second (the first is the condition).
        let main = usize::from(rule == Rule::Where);
        let elems = self.accepted(schema, main);
        let Some(x) = self.operand(b, &elems, need, rule == Rule::Gemm)? else {
            return Ok(false);
        };
        let mut node = NodeProto {
            op_type: Some(schema.name().to_owned()),
            input: vec![x.name.clone()],
            ..Default::default()
        };
        let shape = match rule {
            Rule::Elementwise | Rule::Ranked => {
                if schema.name() == "CumSum" {
                    let axis = self.int_tensor(b, vec![0], true);
                    node.input.push(axis);
                }
                x.shape.clone()
            }
            Rule::Broadcast => self.broadcast(b, schema, &x, &mut node)?,
            Rule::Reduce => self.reduce(&x, &mut node)?,
            Rule::ArgReduce => self.arg_reduce(&x, &mut node)?,
            Rule::Shape => vec![Dim::Fixed(x.shape.len() as i64)],
            Rule::Size => Vec::new(),
            Rule::Transpose => self.transpose(&x, &mut node)?,
            Rule::MatMul | Rule::Gemm => self.matmul(b, &x, &mut node)?,
            Rule::Concat => self.concat(&x, &mut node)?,
            Rule::Flatten => flatten(&x.shape),
            Rule::Where => return self.where_node(b, x, node),
            Rule::Cast => return self.cast(b, schema, x, node),
            Rule::Reshape => self.reshape(b, &x, &mut node)?,
            Rule::Expand => self.expand(b, &x, &mut node)?,
            Rule::Tile => self.tile(b, &x, &mut node)?,
            Rule::Unsqueeze => self.squeeze(b, schema, &x, &mut node, true),
            Rule::Squeeze => self.squeeze(b, schema, &x, &mut node, false),
            Rule::Constant | Rule::If => return Ok(false),
        };
        let Some(elem) = self.output_elem(schema, x.elem) else {
            return Ok(false);
        };
        if bytes(elem, &shape) > self.config.max_tensor_bytes {
            return Ok(false);
        }
        self.special_attributes(schema, elem, &mut node);
        self.emit(b, node, elem, shape);
        Ok(true)
    }

    /// Attributes some operators need for valid (or runnable) nodes.
    fn special_attributes(
        &mut self,
        schema: &'static Schema,
        elem: ElementType,
        node: &mut NodeProto,
    ) {
        match schema.name() {
            "BitShift" => node.attribute.push(string_attribute("direction", "LEFT")),
            // Mod of floats must say so (fmod = 1), else runtimes refuse it.
            "Mod" if elem.is_float() => node.attribute.push(int_attribute("fmod", 1)),
            _ => {}
        }
    }

    /// Adds `node` to `b` with one new output of `elem` and `shape`.
    fn emit(&mut self, b: &mut Builder, mut node: NodeProto, elem: ElementType, shape: Vec<Dim>) {
        let out = Value {
            name: self.fresh("v"),
            elem,
            shape,
        };
        node.output.push(out.name.clone());
        b.nodes.push(node);
        b.pool.push(out.clone());
        b.made.push(out);
    }

    /// An input of `b` among `elems` meeting `need`: a value of the pool
    /// mostly, else a new graph input. `rank2` asks for rank exactly 2.
    fn operand(
        &mut self,
        b: &mut Builder,
        elems: &[ElementType],
        need: Need,
        rank2: bool,
    ) -> Result<Option<Value>> {
        let fits = |v: &&Value| {
            elems.contains(&v.elem) && need.met_by(&v.shape) && (!rank2 || v.shape.len() == 2)
        };
        let candidates: Vec<&Value> = b.pool.iter().filter(fits).collect();
        if !candidates.is_empty() && self.chance(3, 4)? {
            return Ok(Some((*self.u.choose(&candidates)?).clone()));
        }
        if elems.is_empty() {
            return Ok(None);
        }
        let elem = *self.u.choose(elems)?;
        let need = if rank2 {
            Need {
                min_rank: 2,
                ..need
            }
        } else {
            need
        };
        let mut v = self.new_input(b, elem, need)?;
        if rank2 {
            v.shape.truncate(2);
            b.inputs.last_mut().expect("just added").r#type = Some(tensor_of(elem, &v.shape));
            b.pool.last_mut().expect("just added").shape = v.shape.clone();
        }
        Ok(Some(v))
    }

    /// A random shape meeting `need` within the config's limits.
    fn shape(&mut self, elem: ElementType, need: Need) -> Result<Vec<Dim>> {
        let max_rank = self.config.max_rank.max(need.min_rank);
        let rank = self.u.int_in_range(need.min_rank..=max_rank)?;
        let max_dim = self.config.max_dim.max(1);
        let mut shape = Vec::with_capacity(rank);
        for _ in 0..rank {
            let dim = if !need.fixed && self.config.symbolic_dims && self.chance(1, 6)? {
                Dim::Symbol(self.u.choose(SYMBOLS)?)
            } else {
                Dim::Fixed(self.u.int_in_range(1..=max_dim)?)
            };
            shape.push(dim);
        }
        if need.unit_dim && !shape.contains(&Dim::Fixed(1)) {
            shape[0] = Dim::Fixed(1);
        }
        // Within the byte limit: shrink dimensions to 1 from the front.
        for i in 0..shape.len() {
            if bytes(elem, &shape) <= self.config.max_tensor_bytes {
                break;
            }
            shape[i] = Dim::Fixed(1);
        }
        Ok(shape)
    }

    /// A new graph input of `elem` with a shape meeting `need`.
    fn new_input(&mut self, b: &mut Builder, elem: ElementType, need: Need) -> Result<Value> {
        let shape = self.shape(elem, need)?;
        let v = Value {
            name: self.fresh("x"),
            elem,
            shape,
        };
        b.inputs.push(value_info(&v));
        b.pool.push(v.clone());
        Ok(v)
    }

    /// A value of `elem` and exactly `shape`: one of the pool, a new
    /// initializer (fixed shapes, sometimes) or a new graph input.
    fn value_of(&mut self, b: &mut Builder, elem: ElementType, shape: Vec<Dim>) -> Result<String> {
        let same: Vec<&Value> = b
            .pool
            .iter()
            .filter(|v| v.elem == elem && v.shape == shape)
            .collect();
        if !same.is_empty() && self.chance(1, 2)? {
            return Ok(self.u.choose(&same)?.name.clone());
        }
        let v = Value {
            name: self.fresh("w"),
            elem,
            shape,
        };
        let fixed: Option<Vec<i64>> = v
            .shape
            .iter()
            .map(|d| match d {
                Dim::Fixed(n) => Some(*n),
                Dim::Symbol(_) => None,
            })
            .collect();
        match fixed {
            Some(dims) if self.chance(1, 2)? => {
                let t = self.tensor(Some(v.name.clone()), elem, dims)?;
                b.initializers.push(t);
            }
            _ => b.inputs.push(value_info(&v)),
        }
        b.pool.push(v.clone());
        Ok(v.name)
    }

    /// A tensor of `elem` and `dims` with values from the bytes.
    fn tensor(
        &mut self,
        name: Option<String>,
        elem: ElementType,
        dims: Vec<i64>,
    ) -> Result<TensorProto> {
        let count: i64 = dims.iter().product();
        let len = count as usize * elem.size();
        let mut raw = vec![0u8; len];
        self.u.fill_buffer(&mut raw)?;
        if elem == ElementType::Bool {
            raw.iter_mut().for_each(|byte| *byte &= 1);
        }
        Ok(TensorProto {
            name,
            dims,
            data_type: Some(elem.data_type() as i32),
            raw_data: Some(raw),
            ..Default::default()
        })
    }

    /// A constant `int64` operand holding `values`: an initializer named
    /// for it (1-D, or a scalar when `scalar`).
    fn int_tensor(&mut self, b: &mut Builder, values: Vec<i64>, scalar: bool) -> String {
        let name = self.fresh("k");
        b.initializers.push(TensorProto {
            name: Some(name.clone()),
            dims: if scalar {
                Vec::new()
            } else {
                vec![values.len() as i64]
            },
            data_type: Some(ElementType::Int64.data_type() as i32),
            int64_data: values,
            ..Default::default()
        });
        name
    }

    /// The second operand of a broadcasting node, added to `node`; the
    /// output shape.
    fn broadcast(
        &mut self,
        b: &mut Builder,
        schema: &'static Schema,
        x: &Value,
        node: &mut NodeProto,
    ) -> Result<Vec<Dim>> {
        let keep = self.u.int_in_range(0..=x.shape.len())?;
        let mut shape = x.shape[x.shape.len() - keep..].to_vec();
        for dim in &mut shape {
            if self.chance(1, 4)? {
                *dim = Dim::Fixed(1);
            }
        }
        // The second input's type parameter may differ (Pow's T1): keep
        // the element type where it is allowed, else pick another.
        let elems = self.accepted(schema, 1);
        let elem = if elems.contains(&x.elem) || elems.is_empty() {
            x.elem
        } else {
            *self.u.choose(&elems)?
        };
        let y = self.value_of(b, elem, shape)?;
        node.input.push(y);
        Ok(x.shape.clone())
    }

    fn reduce(&mut self, x: &Value, node: &mut NodeProto) -> Result<Vec<Dim>> {
        let keep = self.u.arbitrary::<bool>()?;
        node.attribute.push(int_attribute("keepdims", keep as i64));
        Ok(if keep {
            vec![Dim::Fixed(1); x.shape.len()]
        } else {
            Vec::new()
        })
    }

    fn arg_reduce(&mut self, x: &Value, node: &mut NodeProto) -> Result<Vec<Dim>> {
        let axis = self.u.int_in_range(0..=x.shape.len() - 1)?;
        let keep = self.u.arbitrary::<bool>()?;
        node.attribute.push(int_attribute("axis", axis as i64));
        node.attribute.push(int_attribute("keepdims", keep as i64));
        let mut shape = x.shape.clone();
        if keep {
            shape[axis] = Dim::Fixed(1);
        } else {
            shape.remove(axis);
        }
        Ok(shape)
    }

    fn transpose(&mut self, x: &Value, node: &mut NodeProto) -> Result<Vec<Dim>> {
        if x.shape.is_empty() {
            return Ok(Vec::new());
        }
        let mut perm: Vec<usize> = (0..x.shape.len()).collect();
        for i in (1..perm.len()).rev() {
            let j = self.u.int_in_range(0..=i)?;
            perm.swap(i, j);
        }
        let values = perm.iter().map(|&p| p as i64).collect();
        node.attribute.push(ints_attribute("perm", values));
        Ok(perm.iter().map(|&p| x.shape[p]).collect())
    }

    /// `x` times a new `[k, n]` operand.
    fn matmul(&mut self, b: &mut Builder, x: &Value, node: &mut NodeProto) -> Result<Vec<Dim>> {
        let k = *x.shape.last().expect("rank >= 2");
        let n = Dim::Fixed(self.u.int_in_range(1..=self.config.max_dim.max(1))?);
        let w = self.value_of(b, x.elem, vec![k, n])?;
        node.input.push(w);
        let mut shape = x.shape.clone();
        *shape.last_mut().expect("rank >= 2") = n;
        Ok(shape)
    }

    /// `x` concatenated with itself along a fixed dimension.
    fn concat(&mut self, x: &Value, node: &mut NodeProto) -> Result<Vec<Dim>> {
        let axes: Vec<usize> = (0..x.shape.len())
            .filter(|&i| matches!(x.shape[i], Dim::Fixed(_)))
            .collect();
        let Ok(&axis) = self.u.choose(&axes) else {
            // Only symbolic dimensions: a concatenation of one input.
            node.attribute.push(int_attribute("axis", 0));
            return Ok(x.shape.clone());
        };
        node.input.push(x.name.clone());
        node.attribute.push(int_attribute("axis", axis as i64));
        let mut shape = x.shape.clone();
        if let Dim::Fixed(n) = shape[axis] {
            shape[axis] = Dim::Fixed(2 * n);
        }
        Ok(shape)
    }

    fn where_node(&mut self, b: &mut Builder, x: Value, mut node: NodeProto) -> Result<bool> {
        if !self.config.element_types().contains(&ElementType::Bool) {
            return Ok(false);
        }
        let keep = self.u.int_in_range(0..=x.shape.len())?;
        let cond_shape = x.shape[x.shape.len() - keep..].to_vec();
        let cond = self.value_of(b, ElementType::Bool, cond_shape)?;
        let y = self.value_of(b, x.elem, x.shape.clone())?;
        node.input = vec![cond, x.name.clone(), y];
        self.emit(b, node, x.elem, x.shape);
        Ok(true)
    }

    fn cast(
        &mut self,
        b: &mut Builder,
        schema: &'static Schema,
        x: Value,
        mut node: NodeProto,
    ) -> Result<bool> {
        let targets = self.output_elems(schema);
        let Ok(&to) = self.u.choose(&targets) else {
            return Ok(false);
        };
        node.attribute
            .push(int_attribute("to", to.data_type() as i64));
        self.emit(b, node, to, x.shape);
        Ok(true)
    }

    /// `x` reshaped to one of: all in one dimension, its dimensions
    /// reversed, a leading 1 added.
    fn reshape(&mut self, b: &mut Builder, x: &Value, node: &mut NodeProto) -> Result<Vec<Dim>> {
        let dims = fixed_dims(&x.shape);
        let target: Vec<i64> = match self.u.int_in_range(0..=2)? {
            0 => vec![dims.iter().product()],
            1 => dims.iter().rev().copied().collect(),
            _ => std::iter::once(1).chain(dims.iter().copied()).collect(),
        };
        let shape = target.iter().map(|&d| Dim::Fixed(d)).collect();
        let k = self.int_tensor(b, target, false);
        node.input.push(k);
        Ok(shape)
    }

    /// `x` expanded with a new leading dimension.
    fn expand(&mut self, b: &mut Builder, x: &Value, node: &mut NodeProto) -> Result<Vec<Dim>> {
        let lead = self.u.int_in_range(1..=self.config.max_dim.max(1))?;
        let target = std::iter::once(lead)
            .chain(x.shape.iter().map(|_| 1))
            .collect();
        let k = self.int_tensor(b, target, false);
        node.input.push(k);
        Ok(std::iter::once(Dim::Fixed(lead))
            .chain(x.shape.iter().copied())
            .collect())
    }

    fn tile(&mut self, b: &mut Builder, x: &Value, node: &mut NodeProto) -> Result<Vec<Dim>> {
        let mut repeats = Vec::with_capacity(x.shape.len());
        for _ in &x.shape {
            repeats.push(self.u.int_in_range(1..=2)?);
        }
        let shape = fixed_dims(&x.shape)
            .iter()
            .zip(&repeats)
            .map(|(d, r)| Dim::Fixed(d * r))
            .collect();
        let k = self.int_tensor(b, repeats, false);
        node.input.push(k);
        Ok(shape)
    }

    /// `Unsqueeze` of axis 0 (`unsqueeze`) or `Squeeze` of every dimension
    /// of size 1; the axes an attribute or an input, as the schema says.
    fn squeeze(
        &mut self,
        b: &mut Builder,
        schema: &'static Schema,
        x: &Value,
        node: &mut NodeProto,
        unsqueeze: bool,
    ) -> Vec<Dim> {
        let (axes, shape): (Vec<i64>, Vec<Dim>) = if unsqueeze {
            let shape = std::iter::once(Dim::Fixed(1)).chain(x.shape.iter().copied());
            (vec![0], shape.collect())
        } else {
            let axes = (0..x.shape.len())
                .filter(|&i| x.shape[i] == Dim::Fixed(1))
                .map(|i| i as i64)
                .collect();
            let shape = x.shape.iter().copied().filter(|d| *d != Dim::Fixed(1));
            (axes, shape.collect())
        };
        if schema.attribute("axes").is_some() {
            node.attribute.push(ints_attribute("axes", axes));
        } else {
            let k = self.int_tensor(b, axes, false);
            node.input.push(k);
        }
        shape
    }

    /// A `Constant` node holding a small tensor of the config's types.
    fn constant(&mut self, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
        let elems = self.output_elems(schema);
        let Ok(&elem) = self.u.choose(&elems) else {
            return Ok(false);
        };
        let shape = self.shape(elem, Need::fixed(0))?;
        let t = self.tensor(None, elem, fixed_dims(&shape))?;
        let node = NodeProto {
            op_type: Some("Constant".into()),
            attribute: vec![AttributeProto {
                name: Some("value".into()),
                r#type: Some(AttributeType::Tensor as i32),
                t: Some(Box::new(t)),
                ..Default::default()
            }],
            ..Default::default()
        };
        self.emit(b, node, elem, shape);
        Ok(true)
    }

    /// An `If` on a new boolean scalar input: each branch passes a value
    /// of the outer scope through `Identity` (so both give the same type).
    fn if_node(&mut self, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
        let identity = self.schema("Identity");
        if !self.config.subgraphs
            || identity.is_none()
            || !self.config.element_types().contains(&ElementType::Bool)
            || b.pool.is_empty()
        {
            return Ok(false);
        }
        let x = self.u.choose(&b.pool)?.clone();
        let cond = self.value_of(b, ElementType::Bool, Vec::new())?;
        let mut branches = Vec::new();
        for branch in ["then_branch", "else_branch"] {
            let mut inner = Builder::default();
            let node = NodeProto {
                op_type: Some("Identity".into()),
                input: vec![x.name.clone()],
                ..Default::default()
            };
            self.emit(&mut inner, node, x.elem, x.shape.clone());
            let name = self.fresh(branch);
            let mut graph = self.finish(inner, name)?;
            graph.output.truncate(1);
            branches.push(AttributeProto {
                name: Some(branch.into()),
                r#type: Some(AttributeType::Graph as i32),
                g: Some(Box::new(graph)),
                ..Default::default()
            });
        }
        let node = NodeProto {
            op_type: Some(schema.name().to_owned()),
            input: vec![cond],
            attribute: branches,
            ..Default::default()
        };
        self.emit(b, node, x.elem, x.shape);
        Ok(true)
    }

    /// The model-local function `local.F(x) -> y`: `Identity` twice over
    /// one element type (calls give it values of that type only).
    fn function(&mut self) -> Result<Option<FunctionProto>> {
        if self.schema("Identity").is_none() {
            return Ok(None);
        }
        let elem = *self.u.choose(self.config.element_types())?;
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

    /// A call of the local function on a value of its element type.
    fn call(&mut self, b: &mut Builder) -> Result<bool> {
        let Some(f) = &self.function else {
            return Ok(false);
        };
        let elem = f.elem;
        let Some(x) = self.operand(b, &[elem], Need::default(), false)? else {
            return Ok(false);
        };
        let node = NodeProto {
            op_type: Some("F".into()),
            domain: Some(LOCAL_DOMAIN.into()),
            input: vec![x.name.clone()],
            ..Default::default()
        };
        self.emit(b, node, elem, x.shape);
        Ok(true)
    }
}

/// `Flatten`'s output at axis 1.
fn flatten(shape: &[Dim]) -> Vec<Dim> {
    let dims = fixed_dims(shape);
    vec![Dim::Fixed(dims[0]), Dim::Fixed(dims[1..].iter().product())]
}

/// The dimensions of a shape known to be all fixed.
fn fixed_dims(shape: &[Dim]) -> Vec<i64> {
    shape
        .iter()
        .map(|d| match d {
            Dim::Fixed(n) => *n,
            Dim::Symbol(_) => 1,
        })
        .collect()
}

/// The bytes of a value (symbolic dimensions counted as 1).
fn bytes(elem: ElementType, shape: &[Dim]) -> usize {
    let count: i64 = fixed_dims(shape).iter().product();
    (count as usize).saturating_mul(elem.size())
}

fn tensor_type(elem: ElementType) -> String {
    format!("tensor({})", elem.name())
}

fn tensor_of(elem: ElementType, shape: &[Dim]) -> TypeProto {
    let dim = shape
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                Dim::Fixed(n) => dimension::Value::DimValue(*n),
                Dim::Symbol(s) => dimension::Value::DimParam((*s).to_owned()),
            }),
            denotation: None,
        })
        .collect();
    TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(elem.data_type() as i32),
            shape: Some(TensorShapeProto { dim }),
        })),
        denotation: None,
    }
}

fn value_info(v: &Value) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(v.name.clone()),
        r#type: Some(tensor_of(v.elem, &v.shape)),
        ..Default::default()
    }
}

/// The graph input that declares initializer `t` (IR versions below 4).
fn initializer_input(t: &TensorProto) -> ValueInfoProto {
    let elem = ElementType::ALL
        .iter()
        .copied()
        .find(|e| e.data_type() as i32 == t.data_type.unwrap_or_default())
        .unwrap_or(ElementType::Int64);
    let shape: Vec<Dim> = t.dims.iter().map(|&d| Dim::Fixed(d)).collect();
    ValueInfoProto {
        name: t.name.clone(),
        r#type: Some(tensor_of(elem, &shape)),
        ..Default::default()
    }
}

fn int_attribute(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(value),
        ..Default::default()
    }
}

fn ints_attribute(name: &str, values: Vec<i64>) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Ints as i32),
        ints: values,
        ..Default::default()
    }
}

fn string_attribute(name: &str, value: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::String as i32),
        s: Some(value.as_bytes().to_vec()),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_model, Severity};

    /// How many seeds the tests try, a config each.
    const SEEDS: u64 = 300;

    /// The models of `config` for the test seeds: `onnxtxt check` finds
    /// no error in them and their text parses back to them.
    fn assert_checked(config: impl Fn(&mut Unstructured<'_>) -> Config) {
        for seed in 0..SEEDS {
            let bytes = super::super::seeded_bytes(seed, 4096);
            let mut u = Unstructured::new(&bytes);
            let config = config(&mut u);
            let model = valid_model(&mut u, &config).unwrap();
            let errors: Vec<String> = check_model(&model)
                .into_iter()
                .filter(|f| f.severity == Severity::Error)
                .map(|f| f.diagnostic.message)
                .collect();
            assert!(errors.is_empty(), "seed {seed}: {errors:?}");
            let text = crate::to_text(&model);
            assert_eq!(crate::parse_model(&text).unwrap(), model, "seed {seed}");
        }
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
            for input in graph.input.iter().chain(&graph.output) {
                let Some(type_proto::Value::TensorType(t)) =
                    input.r#type.as_ref().and_then(|t| t.value.as_ref())
                else {
                    panic!("seed {seed}: not a tensor");
                };
                assert_eq!(t.elem_type, Some(ElementType::Float.data_type() as i32));
                assert!(t.shape.as_ref().unwrap().dim.len() <= 2, "seed {seed}");
            }
        }
    }
}
