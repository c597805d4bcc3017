//! What [`super::valid_model`] may put in a model: opsets, operators,
//! element types, sizes, subgraphs, functions, symbolic dimensions.
//!
//! A [`Config`] is plain data (serde, so a JSON file can hold one; the
//! command's flags fill the same fields). [`Config::swarm`] draws one from
//! fuzzer bytes, so that one fuzzing run explores many feature subsets
//! (swarm testing).

use std::collections::HashSet;

use arbitrary::{Result, Unstructured};

use crate::infer::Type;
use crate::proto::tensor_proto::DataType;

/// The lowest opset the valid generator supports: broadcasting as onnx
/// has it today (numpy's rules) starts at opset 7.
pub const MIN_SUPPORTED_OPSET: i64 = 7;

/// The most nodes [`Config::max_nodes`] may ask for: a model of this many
/// nodes takes about a second to make (100,000 took 85 s).
pub const MAX_NODES: usize = 1000;
/// The highest rank [`Config::max_rank`] may allow.
pub const MAX_RANK: usize = 8;
/// The largest dimension [`Config::max_dim`] may allow.
pub const MAX_DIM: i64 = 1 << 16;
/// The most bytes [`Config::max_tensor_bytes`] may allow a value (64 MiB).
pub const MAX_TENSOR_BYTES: usize = 64 << 20;

/// An element type the generator can give a tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)] // each variant is the onnx type of the same name
pub enum ElementType {
    Float,
    Double,
    Float16,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Bool,
    String,
}

impl ElementType {
    /// Every element type the generator knows.
    pub const ALL: &'static [ElementType] = &[
        ElementType::Float,
        ElementType::Double,
        ElementType::Float16,
        ElementType::Int8,
        ElementType::Int16,
        ElementType::Int32,
        ElementType::Int64,
        ElementType::Uint8,
        ElementType::Uint16,
        ElementType::Uint32,
        ElementType::Uint64,
        ElementType::Bool,
        ElementType::String,
    ];

    /// The name onnx gives the type (`float`, `int64`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ElementType::Float => "float",
            ElementType::Double => "double",
            ElementType::Float16 => "float16",
            ElementType::Int8 => "int8",
            ElementType::Int16 => "int16",
            ElementType::Int32 => "int32",
            ElementType::Int64 => "int64",
            ElementType::Uint8 => "uint8",
            ElementType::Uint16 => "uint16",
            ElementType::Uint32 => "uint32",
            ElementType::Uint64 => "uint64",
            ElementType::Bool => "bool",
            ElementType::String => "string",
        }
    }

    /// The type called `name` (as [`ElementType::name`] spells it).
    pub fn from_name(name: &str) -> Option<ElementType> {
        ElementType::ALL.iter().copied().find(|e| e.name() == name)
    }

    /// The `TensorProto.data_type` of the type.
    pub fn data_type(self) -> DataType {
        match self {
            ElementType::Float => DataType::Float,
            ElementType::Double => DataType::Double,
            ElementType::Float16 => DataType::Float16,
            ElementType::Int8 => DataType::Int8,
            ElementType::Int16 => DataType::Int16,
            ElementType::Int32 => DataType::Int32,
            ElementType::Int64 => DataType::Int64,
            ElementType::Uint8 => DataType::Uint8,
            ElementType::Uint16 => DataType::Uint16,
            ElementType::Uint32 => DataType::Uint32,
            ElementType::Uint64 => DataType::Uint64,
            ElementType::Bool => DataType::Bool,
            ElementType::String => DataType::String,
        }
    }

    /// The type whose `TensorProto.data_type` is `code`.
    pub fn from_code(code: i32) -> Option<ElementType> {
        ElementType::ALL
            .iter()
            .copied()
            .find(|e| e.data_type() as i32 == code)
    }

    /// Bytes per element in `raw_data` (for strings, which have none, a
    /// short string's).
    pub fn size(self) -> usize {
        match self {
            ElementType::Int8 | ElementType::Uint8 | ElementType::Bool => 1,
            ElementType::Float16 | ElementType::Int16 | ElementType::Uint16 => 2,
            ElementType::Float | ElementType::Int32 | ElementType::Uint32 => 4,
            ElementType::Double
            | ElementType::Int64
            | ElementType::Uint64
            | ElementType::String => 8,
        }
    }

    /// Whether the type is a number's (not `bool` nor `string`).
    pub fn is_number(self) -> bool {
        self.is_float() || self.is_integer()
    }

    /// Whether the type is an integer one.
    pub fn is_integer(self) -> bool {
        !self.is_float() && !matches!(self, ElementType::Bool | ElementType::String)
    }

    /// Whether the type is a floating-point one.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElementType::Float | ElementType::Double | ElementType::Float16
        )
    }
}

/// What a valid model may contain. `Default` allows everything the
/// generator knows, at opsets 13 to the registry's latest.
///
/// ```
/// let config: onnxtxt::smith::Config =
///     serde_json::from_str(r#"{"element_types": ["float"], "max_nodes": 4}"#).unwrap();
/// assert_eq!(config.max_nodes, 4);
/// assert!(config.subgraphs); // fields left out keep their default
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The lowest `ai.onnx` opset a model may import (at least
    /// [`MIN_SUPPORTED_OPSET`]).
    pub min_opset: i64,
    /// The highest `ai.onnx` opset a model may import.
    pub max_opset: i64,
    /// The only operators nodes may use (`Add`, or `domain:Op` for another
    /// domain); empty allows every operator the generator knows.
    pub allowed_operators: Vec<String>,
    /// Operators nodes never use (same spelling).
    pub forbidden_operators: Vec<String>,
    /// The only domains nodes may use (`""` or `ai.onnx` for the default);
    /// empty allows all.
    pub allowed_domains: Vec<String>,
    /// Domains nodes never use.
    pub forbidden_domains: Vec<String>,
    /// The element types values may have; empty allows all of
    /// [`ElementType::ALL`]. The constant operands an operator reads as
    /// numbers (shapes, axes, indices, sizes, scales and zero points, in the
    /// types onnx requires) are made whatever this says.
    pub element_types: Vec<ElementType>,
    /// The most nodes of the main graph.
    pub max_nodes: usize,
    /// The highest rank of a value.
    pub max_rank: usize,
    /// The largest dimension of a graph input or initializer.
    pub max_dim: i64,
    /// The most bytes a value may hold (inputs, initializers, node
    /// outputs).
    pub max_tensor_bytes: usize,
    /// Whether nodes may carry subgraphs (`If`, `Loop`, `Scan`,
    /// `SequenceMap`).
    pub subgraphs: bool,
    /// Whether the model may define and call a model-local function.
    pub functions: bool,
    /// Whether graph inputs may have symbolic dimensions (`N`).
    pub symbolic_dims: bool,
    /// What a consumer implements (a profile): when not empty, the model's
    /// opset is one it lists, and an `ai.onnx` node is made only if its
    /// operator, with the element types of its first input and first
    /// output, is listed at that opset.
    /// `fuzz/probe_onnxruntime.py` makes onnxruntime's.
    pub implemented: Vec<Kernel>,
}

/// One entry of a consumer profile ([`Config::implemented`]): an
/// operator, the types of its first input and first output (as
/// [`Kernel::signature`] spells them), and the opsets at which the
/// consumer runs it.
///
/// ```
/// let kernel: onnxtxt::smith::Kernel = serde_json::from_str(
///     r#"{"operator": "Erf", "signature": "float -> float", "opsets": [13, 21]}"#,
/// ).unwrap();
/// assert_eq!(kernel.opsets, [13, 21]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kernel {
    /// The `ai.onnx` operator.
    pub operator: String,
    /// `"IN -> OUT"`: each a tensor's element type (`float`), `seq(T)` or
    /// `optional(T)`, or empty for no first input (output).
    pub signature: String,
    /// The opsets of the models it was seen in.
    pub opsets: Vec<i64>,
}

impl Kernel {
    /// The signature of a node whose first input has type `input` and
    /// first output `output`.
    ///
    /// ```
    /// use onnxtxt::infer::Type;
    /// let float = Type::tensor_of(1);
    /// let seq = Type::Sequence(Box::new(Type::tensor_of(7)));
    /// assert_eq!(onnxtxt::smith::Kernel::signature(Some(&float), Some(&seq)), "float -> seq(int64)");
    /// ```
    pub fn signature(input: Option<&Type>, output: Option<&Type>) -> String {
        fn name(ty: &Type) -> String {
            match ty {
                Type::Tensor(t) => crate::vocabulary::element_type_name(t.elem_type)
                    .map_or_else(|| t.elem_type.to_string(), str::to_owned),
                Type::Sequence(inner) => format!("seq({})", name(inner)),
                Type::Optional(inner) => format!("optional({})", name(inner)),
                _ => "?".into(),
            }
        }
        let [input, output] = [input, output].map(|t| t.map(name).unwrap_or_default());
        format!("{input} -> {output}")
    }
}

/// The default highest opset: the registry's latest for `ai.onnx`.
fn latest_opset() -> i64 {
    crate::ops::domain("").map_or(MIN_SUPPORTED_OPSET, |d| d.last_opset())
}

impl Default for Config {
    fn default() -> Config {
        Config {
            min_opset: 13,
            max_opset: latest_opset(),
            allowed_operators: Vec::new(),
            forbidden_operators: Vec::new(),
            allowed_domains: Vec::new(),
            forbidden_domains: Vec::new(),
            element_types: Vec::new(),
            max_nodes: 10,
            max_rank: 4,
            max_dim: 4,
            max_tensor_bytes: 4096,
            subgraphs: true,
            functions: true,
            symbolic_dims: true,
            implemented: Vec::new(),
        }
    }
}

impl Config {
    /// A configuration drawn from `u`: a random subset of the operators the
    /// generator knows and of the element types, random limits, subgraphs,
    /// functions and symbolic dimensions on or off.
    pub fn swarm(u: &mut Unstructured<'_>) -> Result<Config> {
        let latest = latest_opset();
        let min_opset = u.int_in_range(MIN_SUPPORTED_OPSET..=latest)?;
        let mut element_types = Vec::new();
        for &e in ElementType::ALL {
            if u.ratio(2, 3)? {
                element_types.push(e);
            }
        }
        let mut forbidden_operators = Vec::new();
        for name in super::valid::operator_names() {
            if u.ratio(1, 4)? {
                forbidden_operators.push(name.to_owned());
            }
        }
        Ok(Config {
            min_opset,
            max_opset: u.int_in_range(min_opset..=latest)?,
            forbidden_operators,
            element_types,
            max_nodes: u.int_in_range(1..=20)?,
            max_rank: u.int_in_range(0..=5)?,
            max_dim: u.int_in_range(1..=6)?,
            max_tensor_bytes: u.int_in_range(64..=1 << 16)?,
            subgraphs: u.arbitrary()?,
            functions: u.arbitrary()?,
            symbolic_dims: u.arbitrary()?,
            ..Config::default()
        })
    }

    /// Whether the limits are within the generator's ([`MAX_NODES`],
    /// [`MAX_RANK`], [`MAX_DIM`], [`MAX_TENSOR_BYTES`]), the allowed
    /// `ai.onnx` operators ones it makes and the opsets in order; else
    /// what is wrong. [`super::valid_model`] makes no model
    /// for a configuration that fails this.
    ///
    /// ```
    /// let config = onnxtxt::smith::Config { max_rank: 1 << 20, ..Default::default() };
    /// assert_eq!(config.check().unwrap_err(), "max_rank is 1048576; at most 8");
    /// ```
    pub fn check(&self) -> std::result::Result<(), String> {
        let over = |name: &str, value: u64, limit: u64| {
            (value > limit).then(|| format!("{name} is {value}; at most {limit}"))
        };
        let problem = over("max_nodes", self.max_nodes as u64, MAX_NODES as u64)
            .or_else(|| over("max_rank", self.max_rank as u64, MAX_RANK as u64))
            .or_else(|| {
                (self.max_dim < 1).then(|| format!("max_dim is {}; at least 1", self.max_dim))
            })
            .or_else(|| over("max_dim", self.max_dim as u64, MAX_DIM as u64))
            .or_else(|| {
                let limit = MAX_TENSOR_BYTES as u64;
                over("max_tensor_bytes", self.max_tensor_bytes as u64, limit)
            })
            .or_else(|| {
                let unknown = self.allowed_operators.iter().find(|spec| {
                    let (domain, name) = spec.split_once(':').unwrap_or(("", spec));
                    crate::ops::canonical_domain(domain).is_empty()
                        && !super::valid::operator_names().any(|known| known == name)
                });
                unknown.map(|spec| format!("`{spec}` is not an operator the generator makes"))
            })
            .or_else(|| {
                (self.min_opset > self.max_opset).then(|| {
                    format!(
                        "min_opset {} is above max_opset {}",
                        self.min_opset, self.max_opset
                    )
                })
            });
        problem.map_or(Ok(()), Err)
    }

    /// Whether nodes may use operator `name` of `domain`.
    pub fn allows_operator(&self, domain: &str, name: &str) -> bool {
        self.operator_test(domain)(name)
    }

    /// Whether nodes may use an operator of `domain`, by name: the lists
    /// read once, for testing many names.
    pub(crate) fn operator_test(&self, domain: &str) -> impl Fn(&str) -> bool + '_ {
        let domain = crate::ops::canonical_domain(domain).to_owned();
        let domain_matches = |d: &String| crate::ops::canonical_domain(d) == domain;
        let domain_allowed = (self.allowed_domains.is_empty()
            || self.allowed_domains.iter().any(domain_matches))
            && !self.forbidden_domains.iter().any(domain_matches);
        let allowed = (!self.allowed_operators.is_empty())
            .then(|| names_in(&self.allowed_operators, &domain));
        let forbidden = names_in(&self.forbidden_operators, &domain);
        move |name| {
            domain_allowed
                && allowed.as_ref().is_none_or(|a| a.contains(name))
                && !forbidden.contains(name)
        }
    }

    /// The element types values may have.
    pub fn element_types(&self) -> &[ElementType] {
        if self.element_types.is_empty() {
            ElementType::ALL
        } else {
            &self.element_types
        }
    }
}

/// The names `specs` (`Op` or `domain:Op`) give for operators of `domain`
/// (canonical).
fn names_in<'c>(specs: &'c [String], domain: &str) -> HashSet<&'c str> {
    specs
        .iter()
        .filter_map(|spec| match spec.split_once(':') {
            Some((d, n)) => (crate::ops::canonical_domain(d) == domain).then_some(n),
            None => domain.is_empty().then_some(spec.as_str()),
        })
        .collect()
}
