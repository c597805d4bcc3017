//! Random models of real operators, for fuzzing inference.
//!
//! [`operator_model`] builds a model whose nodes are operators of the
//! registry ([`crate::ops`]) at a random opset: inputs mostly of a type
//! the operator's parameter allows, attributes of the schema's kinds with
//! small values, small `int64` initializers where shapes, axes and sizes
//! are read, subgraphs that see the outer scope, and sometimes a
//! model-local function (with an attribute reference) called from the
//! graph. Unlike [`super::arbitrary_model`], which aims at the printer and
//! parser, this one aims at the inference rules: the models are close
//! enough to valid that the rules run deep, and wrong often enough that
//! every error path runs too.

use arbitrary::{Result, Unstructured};

use crate::ops::{self, ParameterOption, Schema};
use crate::proto::attribute_proto::AttributeType;
use crate::proto::tensor_proto::DataType;
use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::type_proto::Value;
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};

/// How deep subgraphs nest (the main graph is depth 0).
const MAX_DEPTH: usize = 2;
/// The domain of the model-local function.
const LOCAL: &str = "local";

/// Builds a model of registry operators from the bytes of `u`; any byte
/// string gives a model (exhausted input gives the smallest choices).
///
/// ```
/// let bytes = onnxtxt::smith::seeded_bytes(7, 2000);
/// let mut u = arbitrary::Unstructured::new(&bytes);
/// let model = onnxtxt::smith::inference_models::operator_model(&mut u).unwrap();
/// assert!(model.graph.is_some());
/// ```
pub fn operator_model(u: &mut Unstructured<'_>) -> Result<ModelProto> {
    let last = ops::domain("").map_or(21, |d| d.last_opset());
    let mut g = Gen {
        u,
        opset: 7,
        ml_opset: 1,
        counter: 0,
        function: None,
        new_inputs: Vec::new(),
    };
    g.opset = g.u.int_in_range(7..=last)?;
    let ml_last = ops::domain("ai.onnx.ml").map_or(1, |d| d.last_opset());
    g.ml_opset = g.u.int_in_range(1..=ml_last)?;
    let mut functions = Vec::new();
    if g.chance(1, 5)? {
        let f = g.function()?;
        g.function = Some(f.input.len());
        functions.push(f);
    }
    let graph = g.graph(0, &[])?;
    let mut opset_import = vec![
        OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(g.opset),
        },
        OperatorSetIdProto {
            domain: Some("ai.onnx.ml".into()),
            version: Some(g.ml_opset),
        },
    ];
    if !functions.is_empty() {
        opset_import.push(OperatorSetIdProto {
            domain: Some(LOCAL.into()),
            version: Some(1),
        });
    }
    Ok(ModelProto {
        ir_version: Some(if g.opset >= 21 { 10 } else { 8 }),
        opset_import,
        graph: Some(graph),
        functions,
        ..Default::default()
    })
}

/// A value the next nodes may read: its name and what is known of its
/// type (for picking inputs a parameter allows).
#[derive(Clone)]
struct Avail {
    name: String,
    ty: Option<TypeProto>,
}

struct Gen<'a, 'u> {
    u: &'u mut Unstructured<'a>,
    opset: i64,
    ml_opset: i64,
    counter: usize,
    /// The model-local function's input count, once there is one.
    function: Option<usize>,
    /// Inputs the graph being built gets for parameters no value of the
    /// pool fits.
    new_inputs: Vec<ValueInfoProto>,
}

const ELEMS: &[DataType] = &[
    DataType::Float,
    DataType::Float,
    DataType::Int64,
    DataType::Int64,
    DataType::Int32,
    DataType::Bool,
    DataType::Float16,
    DataType::Double,
    DataType::Uint8,
    DataType::Int8,
    DataType::String,
];

const SYMBOLS: &[&str] = &["N", "M", "B"];

/// String attribute values the rules read (modes, directions, ...).
const STRINGS: &[&str] = &[
    "NOTSET",
    "SAME_UPPER",
    "SAME_LOWER",
    "VALID",
    "constant",
    "reflect",
    "edge",
    "wrap",
    "linear",
    "nearest",
    "cubic",
    "forward",
    "reverse",
    "bidirectional",
    "Tanh",
    "Sigmoid",
    "Relu",
    "ij,jk->ik",
    "i,i",
    "...ii->...i",
    "bij,bjk->bik",
    "none",
    "tanh",
    "DCR",
    "CRD",
    "half_pixel",
    "LEFT",
    "RIGHT",
    "",
];

impl Gen<'_, '_> {
    fn chance(&mut self, numerator: u8, denominator: u8) -> Result<bool> {
        if self.u.is_empty() {
            return Ok(false);
        }
        self.u.ratio(numerator, denominator)
    }

    fn range(&mut self, lo: i64, hi: i64) -> Result<i64> {
        self.u.int_in_range(lo..=hi)
    }

    fn count(&mut self, lo: usize, hi: usize) -> Result<usize> {
        self.u.int_in_range(lo..=hi)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> Result<T> {
        Ok(*self.u.choose(items)?)
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    /// A small integer, mostly in the range of axes and dimensions.
    fn small(&mut self) -> Result<i64> {
        if self.chance(1, 16)? {
            self.pick(&[i64::MIN, i64::MAX, -100, 100, 1 << 40])
        } else {
            self.range(-3, 5)
        }
    }

    // ----------------------------------------------------------- types

    fn shape(&mut self) -> Result<Option<TensorShapeProto>> {
        if self.chance(1, 10)? {
            return Ok(None);
        }
        let rank = self.count(0, 4)?;
        let mut dim = Vec::with_capacity(rank);
        for _ in 0..rank {
            let value = match self.range(0, 5)? {
                0 => None,
                1 => Some(dimension::Value::DimParam(self.pick(SYMBOLS)?.to_owned())),
                _ => Some(dimension::Value::DimValue(self.range(1, 4)?)),
            };
            dim.push(Dimension {
                value,
                denotation: None,
            });
        }
        Ok(Some(TensorShapeProto { dim }))
    }

    /// A type `type_str` names, with a random shape on its tensors.
    fn shaped(&mut self, type_str: &str) -> Result<Option<TypeProto>> {
        let Some(mut ty) = ops::type_proto(type_str) else {
            return Ok(None);
        };
        self.add_shapes(&mut ty)?;
        Ok(Some(ty))
    }

    fn add_shapes(&mut self, ty: &mut TypeProto) -> Result<()> {
        match &mut ty.value {
            Some(Value::TensorType(t)) => t.shape = self.shape()?,
            Some(Value::SparseTensorType(t)) => t.shape = self.shape()?,
            Some(Value::SequenceType(s)) => {
                if let Some(inner) = s.elem_type.as_deref_mut() {
                    self.add_shapes(inner)?;
                }
            }
            Some(Value::OptionalType(o)) => {
                if let Some(inner) = o.elem_type.as_deref_mut() {
                    self.add_shapes(inner)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn random_tensor_type(&mut self) -> Result<TypeProto> {
        let elem = self.pick(ELEMS)?;
        let mut ty = ops::type_proto(&format!("tensor({})", elem_name(elem))).unwrap_or_default();
        self.add_shapes(&mut ty)?;
        Ok(ty)
    }

    // --------------------------------------------------------- tensors

    /// A small tensor: `int64` values of the kind shapes and axes take, or
    /// a few values of a random element type.
    fn tensor(&mut self, name: Option<String>) -> Result<TensorProto> {
        let elem = if self.chance(2, 3)? {
            DataType::Int64
        } else {
            self.pick(ELEMS)?
        };
        let scalar = self.chance(1, 4)?;
        let len = if scalar { 1 } else { self.count(0, 4)? };
        let mut t = TensorProto {
            name,
            data_type: Some(elem as i32),
            dims: if scalar { vec![] } else { vec![len as i64] },
            ..Default::default()
        };
        for _ in 0..len {
            let v = self.small()?;
            match elem {
                DataType::Int64 => t.int64_data.push(v),
                DataType::Float | DataType::Float16 => {
                    if elem == DataType::Float {
                        t.float_data.push(v as f32)
                    } else {
                        t.int32_data
                            .push(half::f16::from_f32(v as f32).to_bits() as i32)
                    }
                }
                DataType::Double => t.double_data.push(v as f64),
                DataType::String => t.string_data.push(format!("s{v}").into_bytes()),
                _ => t.int32_data.push(v as i32),
            }
        }
        Ok(t)
    }

    // ----------------------------------------------------------- graphs

    /// A graph at `depth` seeing `outer` values. The main graph has inputs
    /// and initializers; a subgraph has a few inputs of its own.
    fn graph(&mut self, depth: usize, outer: &[Avail]) -> Result<GraphProto> {
        let mut pool: Vec<Avail> = outer.to_vec();
        let outer_new_inputs = std::mem::take(&mut self.new_inputs);
        let mut graph = GraphProto {
            name: Some(self.fresh("g")),
            ..Default::default()
        };
        let inputs = if depth == 0 {
            self.count(1, 4)?
        } else {
            self.count(0, 3)?
        };
        for _ in 0..inputs {
            let name = self.fresh("x");
            let ty = self.random_tensor_type()?;
            graph.input.push(ValueInfoProto {
                name: Some(name.clone()),
                r#type: Some(ty.clone()),
                ..Default::default()
            });
            pool.push(Avail { name, ty: Some(ty) });
        }
        if depth == 0 {
            for _ in 0..self.count(0, 3)? {
                let name = self.fresh("c");
                let t = self.tensor(Some(name.clone()))?;
                let ty = tensor_type_of(&t);
                graph.initializer.push(t);
                pool.push(Avail { name, ty: Some(ty) });
            }
        }
        let nodes = if depth == 0 {
            self.count(1, 8)?
        } else {
            self.count(1, 3)?
        };
        for _ in 0..nodes {
            let node = self.node(depth, &mut pool)?;
            graph.node.push(node);
        }
        let new_inputs = std::mem::replace(&mut self.new_inputs, outer_new_inputs);
        graph.input.extend(new_inputs);
        // Outputs: the last values made, with a declared type sometimes
        // (right or wrong).
        let made: Vec<Avail> = pool[outer.len()..].to_vec();
        let outputs = self.count(1, 2)?.min(made.len());
        for v in made.iter().rev().take(outputs) {
            let ty = match self.range(0, 3)? {
                0 => Some(self.random_tensor_type()?),
                1 => v.ty.clone(),
                _ => v.ty.clone().map(|mut t| {
                    strip_shape(&mut t);
                    t
                }),
            };
            graph.output.push(ValueInfoProto {
                name: Some(v.name.clone()),
                r#type: ty,
                ..Default::default()
            });
        }
        if self.chance(1, 4)? && !made.is_empty() {
            let v = made[self.count(0, made.len() - 1)?].clone();
            let ty = self.random_tensor_type()?;
            graph.value_info.push(ValueInfoProto {
                name: Some(v.name),
                r#type: Some(ty),
                ..Default::default()
            });
        }
        Ok(graph)
    }

    /// One node of a registry operator (or a call of the local function),
    /// its outputs added to `pool`.
    fn node(&mut self, depth: usize, pool: &mut Vec<Avail>) -> Result<NodeProto> {
        if let Some(arity) = self.function {
            if self.chance(1, 6)? {
                let mut node = NodeProto {
                    op_type: Some("F".into()),
                    domain: Some(LOCAL.into()),
                    ..Default::default()
                };
                for _ in 0..arity {
                    let v = self.any_value(pool)?;
                    node.input.push(v);
                }
                if self.chance(1, 2)? {
                    node.attribute.push(AttributeProto {
                        name: Some("a".into()),
                        r#type: Some(AttributeType::Int as i32),
                        i: Some(self.small()?),
                        ..Default::default()
                    });
                }
                let out = self.fresh("v");
                node.output.push(out.clone());
                pool.push(Avail {
                    name: out,
                    ty: None,
                });
                return Ok(node);
            }
        }
        let schema = self.schema()?;
        let mut node = NodeProto {
            op_type: Some(schema.name().to_owned()),
            domain: (!schema.domain().is_empty()).then(|| schema.domain().to_owned()),
            ..Default::default()
        };
        // Type variables bound by the inputs chosen, for the outputs' types.
        let mut bound: Vec<(&str, TypeProto)> = Vec::new();
        let params = schema.inputs();
        for (i, param) in params.iter().enumerate() {
            let n = match param.option() {
                ParameterOption::Single => 1,
                ParameterOption::Optional => {
                    if self.chance(1, 2)? {
                        // Skipped: trailing ones left out, others named "".
                        if i + 1 < params.len() {
                            node.input.push(String::new());
                        }
                        continue;
                    }
                    1
                }
                ParameterOption::Variadic => self.count(param.min_arity().max(1), 3)?,
            };
            for _ in 0..n {
                let allowed = schema.allowed_types(param);
                let name = self.input_for(allowed, &mut bound, param.type_str(), pool)?;
                node.input.push(name);
            }
        }
        while node.input.last().is_some_and(String::is_empty) {
            node.input.pop();
        }
        for attr in schema.attributes() {
            if attr.required() || self.chance(1, 3)? {
                let a = self.attribute(attr.name(), attr.ty(), depth, pool)?;
                node.attribute.push(a);
            }
        }
        let outputs = schema.outputs();
        for (i, param) in outputs.iter().enumerate() {
            let n = match param.option() {
                ParameterOption::Optional if i > 0 && self.chance(1, 2)? => 0,
                ParameterOption::Variadic => self.count(1, 3)?,
                _ => 1,
            };
            for _ in 0..n {
                let name = self.fresh("v");
                let ty = bound
                    .iter()
                    .find(|(v, _)| *v == param.type_str())
                    .map(|(_, t)| t.clone())
                    .or_else(|| ops::type_proto(param.type_str()))
                    .map(|mut t| {
                        strip_shape(&mut t);
                        t
                    });
                node.output.push(name.clone());
                pool.push(Avail { name, ty });
            }
        }
        Ok(node)
    }

    /// A schema in force at the model's opsets (of ai.onnx mostly).
    fn schema(&mut self) -> Result<&'static Schema> {
        let (domain, opset) = if self.chance(1, 8)? {
            ("ai.onnx.ml", self.ml_opset)
        } else {
            ("", self.opset)
        };
        let schemas: Vec<&'static Schema> = ops::operators_at(domain, opset)
            .filter(|s| !s.deprecated())
            .collect();
        if schemas.is_empty() {
            return ops::operators_at("", self.opset)
                .next()
                .ok_or(arbitrary::Error::NotEnoughData);
        }
        self.pick(&schemas)
    }

    fn any_value(&mut self, pool: &[Avail]) -> Result<String> {
        if pool.is_empty() || self.chance(1, 20)? {
            return Ok(self.fresh("missing"));
        }
        Ok(pool[self.count(0, pool.len() - 1)?].name.clone())
    }

    /// An input for a parameter of type string `type_str` allowing
    /// `allowed`: mostly a value of the type its type variable is already
    /// bound to, or of an allowed type (binding the variable); sometimes
    /// a new input of the graph of an allowed type, any value of the pool,
    /// or a name nothing defines.
    fn input_for(
        &mut self,
        allowed: &[&str],
        bound: &mut Vec<(&'static str, TypeProto)>,
        type_str: &'static str,
        pool: &[Avail],
    ) -> Result<String> {
        if let Some((_, ty)) = bound.iter().find(|(v, _)| *v == type_str) {
            let same: Vec<&Avail> = pool
                .iter()
                .filter(|v| v.ty.as_ref().is_some_and(|t| same_kind(t, ty)))
                .collect();
            if !same.is_empty() && self.chance(7, 8)? {
                return Ok(same[self.count(0, same.len() - 1)?].name.clone());
            }
            return self.any_value(pool);
        }
        let fitting: Vec<&Avail> = pool
            .iter()
            .filter(|v| {
                v.ty.as_ref()
                    .is_some_and(|t| allowed.iter().any(|a| ops::type_matches(a, t)))
            })
            .collect();
        if !fitting.is_empty() && self.chance(7, 8)? {
            let v = fitting[self.count(0, fitting.len() - 1)?];
            if let Some(t) = &v.ty {
                bound.push((type_str, t.clone()));
            }
            return Ok(v.name.clone());
        }
        if !allowed.is_empty() && self.chance(2, 3)? {
            let pick = self.pick(allowed)?;
            if let Some(ty) = self.shaped(pick)? {
                let name = self.fresh("x");
                bound.push((type_str, ty.clone()));
                self.new_inputs.push(ValueInfoProto {
                    name: Some(name.clone()),
                    r#type: Some(ty),
                    ..Default::default()
                });
                return Ok(name);
            }
        }
        self.any_value(pool)
    }

    fn attribute(
        &mut self,
        name: &str,
        ty: AttributeType,
        depth: usize,
        pool: &[Avail],
    ) -> Result<AttributeProto> {
        use AttributeType as T;
        let mut a = AttributeProto {
            name: Some(name.to_owned()),
            r#type: Some(ty as i32),
            ..Default::default()
        };
        match ty {
            T::Int => a.i = Some(self.small()?),
            T::Float => a.f = Some(self.small()? as f32 * 0.5),
            T::String => a.s = Some(self.pick(STRINGS)?.as_bytes().to_vec()),
            T::Ints => {
                for _ in 0..self.count(0, 4)? {
                    let v = self.small()?;
                    a.ints.push(v);
                }
            }
            T::Floats => {
                for _ in 0..self.count(0, 3)? {
                    let v = self.small()?;
                    a.floats.push(v as f32);
                }
            }
            T::Strings => {
                for _ in 0..self.count(0, 3)? {
                    let s = self.pick(STRINGS)?;
                    a.strings.push(s.as_bytes().to_vec());
                }
            }
            T::Tensor => a.t = Some(Box::new(self.tensor(None)?)),
            T::Graph => {
                if depth < MAX_DEPTH {
                    a.g = Some(Box::new(self.graph(depth + 1, pool)?));
                } else {
                    a.g = Some(Box::default());
                }
            }
            T::TypeProto => {
                let t = self.random_tensor_type()?;
                a.tp = Some(Box::new(t));
            }
            _ => a.r#type = Some(T::Undefined as i32),
        }
        Ok(a)
    }

    /// The model-local function `local.F`: a few nodes over its inputs, an
    /// attribute parameter `a` (default or not) that an `int` attribute of
    /// the body may reference.
    fn function(&mut self) -> Result<FunctionProto> {
        let arity = self.count(1, 2)?;
        let mut pool: Vec<Avail> = (0..arity)
            .map(|i| Avail {
                name: format!("p{i}"),
                ty: None,
            })
            .collect();
        let mut f = FunctionProto {
            name: Some("F".into()),
            domain: Some(LOCAL.into()),
            input: pool.iter().map(|v| v.name.clone()).collect(),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(self.opset),
            }],
            ..Default::default()
        };
        if self.chance(1, 2)? {
            f.attribute_proto.push(AttributeProto {
                name: Some("a".into()),
                r#type: Some(AttributeType::Int as i32),
                i: Some(self.small()?),
                ..Default::default()
            });
        } else {
            f.attribute.push("a".into());
        }
        for _ in 0..self.count(1, 3)? {
            let mut node = self.node(MAX_DEPTH, &mut pool)?;
            for attr in &mut node.attribute {
                if attr.r#type == Some(AttributeType::Int as i32) && self.chance(1, 2)? {
                    attr.i = None;
                    attr.ref_attr_name = Some("a".into());
                }
            }
            f.node.push(node);
        }
        if let Some(last) = pool.last() {
            f.output.push(last.name.clone());
        }
        // Inputs the body's nodes asked for become the function's.
        for input in std::mem::take(&mut self.new_inputs) {
            f.input.extend(input.name);
        }
        Ok(f)
    }
}

/// Two types of the same kind and element type (shapes aside).
fn same_kind(a: &TypeProto, b: &TypeProto) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    strip_shape(&mut a);
    strip_shape(&mut b);
    a == b
}

fn strip_shape(ty: &mut TypeProto) {
    match &mut ty.value {
        Some(Value::TensorType(t)) => t.shape = None,
        Some(Value::SparseTensorType(t)) => t.shape = None,
        Some(Value::SequenceType(s)) => {
            if let Some(inner) = s.elem_type.as_deref_mut() {
                strip_shape(inner);
            }
        }
        Some(Value::OptionalType(o)) => {
            if let Some(inner) = o.elem_type.as_deref_mut() {
                strip_shape(inner);
            }
        }
        _ => {}
    }
}

fn tensor_type_of(t: &TensorProto) -> TypeProto {
    let elem = DataType::try_from(t.data_type.unwrap_or(0)).unwrap_or(DataType::Undefined);
    let mut ty = ops::type_proto(&format!("tensor({})", elem_name(elem))).unwrap_or_default();
    if let Some(Value::TensorType(tt)) = &mut ty.value {
        tt.shape = Some(TensorShapeProto {
            dim: t
                .dims
                .iter()
                .map(|&d| Dimension {
                    value: Some(dimension::Value::DimValue(d)),
                    denotation: None,
                })
                .collect(),
        });
    }
    ty
}

fn elem_name(elem: DataType) -> &'static str {
    match elem {
        DataType::Float => "float",
        DataType::Int64 => "int64",
        DataType::Int32 => "int32",
        DataType::Bool => "bool",
        DataType::Float16 => "float16",
        DataType::Double => "double",
        DataType::Uint8 => "uint8",
        DataType::Int8 => "int8",
        DataType::String => "string",
        _ => "float",
    }
}
