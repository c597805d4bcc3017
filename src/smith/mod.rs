//! Random models, for fuzzing ONNX consumers and onnxtxt itself.
//!
//! Three generators share the module. [`valid_model`] makes models that
//! `onnx.checker.check_model(m, full_check=True)` accepts, within a
//! [`Config`] (opsets, operators, element types, sizes): the models a
//! runtime, converter or optimizer needs to be fuzzed past its input
//! validation, as wasm-smith does for wasm.
//! [`inference_models::operator_model`] makes models of the registry's
//! operators, close to valid, for fuzzing onnxtxt's inference. The rest of
//! this page is about the third, IR-random one, which serves onnxtxt's own
//! round trips.
//!
//! [`arbitrary_model`] turns the bytes of an [`arbitrary::Unstructured`] into
//! a [`ModelProto`]; [`model_from_seed`] does the same from a `u64` seed.
//! "Well-formed" means anything the text syntax (with its extensions) can
//! express, which for onnxtxt is any IR value at all: the models need not
//! pass `onnx.checker`. The generator aims at the corners of the printer and
//! parser:
//!
//! * every type kind (tensors with `?`, symbolic and numeric dimensions,
//!   unknown rank, scalars, `seq`, `map`, `optional`, `sparse_tensor`,
//!   `opaque`, kindless types), denotations on types and dimensions;
//! * every attribute kind, lists of tensors, graphs, types and sparse tensors
//!   included, attribute references, attributes with a missing, unknown or
//!   mismatched type;
//! * nested graphs (`If`/`Loop`-like attributes), model-local functions with
//!   attribute parameters and defaults, training info;
//! * every element type with values in the typed fields and in `raw_data`
//!   (of the right length or not), external data, segments, odd floats
//!   (`-0.0`, infinities, NaNs with payloads, subnormals);
//! * names that need quotes (`/layer1/Conv_output_0`, `onnx::Add_12`, type
//!   keywords, `inf`, empty, non-ASCII, NUL), strings with quotes,
//!   backslashes, newlines and bytes that are not UTF-8;
//! * doc strings, metadata props, quantization annotations, device
//!   configurations, fields explicitly set to their default value.
//!
//! Size and depth are bounded: graphs nest at most [`MAX_GRAPH_DEPTH`] deep
//! and types [`MAX_TYPE_DEPTH`] deep, which keeps the text far below
//! [`crate::MAX_NESTING`] brackets and the encoding far below prost's
//! 100-message recursion limit. When the input bytes run out every choice
//! falls back to its first (smallest) option, so any byte string gives a
//! model, and shorter inputs give smaller models (which is what makes
//! shrinking work).

use arbitrary::{Result, Unstructured};

mod config;
pub mod inference_models;
mod valid;

pub use config::{
    Config, ElementType, Kernel, MAX_DIM, MAX_NODES, MAX_RANK, MAX_TENSOR_BYTES,
    MIN_SUPPORTED_OPSET,
};
pub use valid::{operator_names, valid_model};

use crate::proto::attribute_proto::AttributeType;
use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::{
    simple_sharded_dim_proto, tensor_proto, type_proto, AttributeProto, DeviceConfigurationProto,
    FunctionProto, GraphProto, IntIntListEntryProto, ModelProto, NodeDeviceConfigurationProto,
    NodeProto, OperatorSetIdProto, ShardedDimProto, ShardingSpecProto, SimpleShardedDimProto,
    SparseTensorProto, StringStringEntryProto, TensorAnnotation, TensorProto, TensorShapeProto,
    TrainingInfoProto, TypeProto, ValueInfoProto,
};

/// How deep graphs nest inside attributes (the main graph is depth 0).
pub const MAX_GRAPH_DEPTH: usize = 3;
/// How deep types nest inside `seq`, `map`, `optional`.
pub const MAX_TYPE_DEPTH: usize = 4;
/// Roughly how many nodes, value infos, tensors and attributes one model
/// holds at most.
const BUDGET: u32 = 120;

/// Builds a random well-formed model from the bytes of `u`.
///
/// Never fails for lack of data (exhausted input gives the smallest
/// choices); the `Result` is that of the [`arbitrary`] convention.
///
/// ```
/// let bytes = [7u8; 256];
/// let model = onnxtxt::smith::arbitrary_model(&mut arbitrary::Unstructured::new(&bytes)).unwrap();
/// let text = onnxtxt::to_text(&model);
/// assert!(onnxtxt::parse_model(&text).is_ok());
/// ```
pub fn arbitrary_model(u: &mut Unstructured<'_>) -> Result<ModelProto> {
    Smith {
        u,
        budget: BUDGET,
        graph_depth: 0,
    }
    .model()
}

/// A random well-formed model determined by `seed` (a convenience over
/// [`arbitrary_model`], fed with bytes from a small deterministic generator).
pub fn model_from_seed(seed: u64) -> ModelProto {
    let bytes = seeded_bytes(seed, 8192);
    arbitrary_model(&mut Unstructured::new(&bytes)).unwrap_or_default()
}

/// A valid model (see [`valid_model`]) determined by `seed` and `config`.
pub fn valid_model_from_seed(seed: u64, config: &Config) -> ModelProto {
    let bytes = seeded_bytes(seed, 8192);
    valid_model(&mut Unstructured::new(&bytes), config).unwrap_or_default()
}

/// `len` pseudo-random bytes from `seed` (splitmix64).
pub fn seeded_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Names that stress quoting: identifiers first (the fallback choice), then
/// PyTorch-style names, keywords, empty and odd strings.
const NAMES: &[&str] = &[
    "x",
    "y",
    "X_1",
    "_",
    "hidden",
    "/layer1/Conv_output_0",
    "onnx::Add_12",
    "float",
    "int64",
    "seq",
    "map",
    "optional",
    "sparse_tensor",
    "opaque",
    "string",
    "tensor",
    "graph",
    "ints",
    "inf",
    "Infinity",
    "nan",
    "NaN",
    "",
    "a b",
    "9lives",
    "-1",
    "1e5",
    "a.b",
    "x:y",
    "ünïcödé",
    "名前",
    "quote\"d",
    "back\\slash",
    "new\nline",
    "tab\there",
    "nul\0byte",
    "#not a comment",
    "@at",
    "<angle>",
    "b",
    "raw",
    "unset",
    "true",
    "values",
    "indices",
    "bits",
];

/// Strings for doc strings, metadata and string values.
const STRINGS: &[&str] = &[
    "",
    "doc",
    "a \"quoted\" word",
    "back\\slash\\",
    "two\nlines\r\n",
    "\\n is not a newline",
    "ünï",
    "\0",
    "tab\t",
    "}{><)(][",
    "# comment?",
    "@<doc_string: \"x\">",
];

const OPS: &[&str] = &[
    "Relu", "Add", "If", "Loop", "Scan", "Identity", "", "my op", "float", "Conv", "onnx::Op",
    "nan",
];

const DOMAINS: &[&str] = &[
    "",
    "com.microsoft",
    "ai.onnx.ml",
    "local",
    "my-domain",
    "a.b.c",
    "float",
    "x.float",
    " ",
];

/// Floats the printer has to be careful with.
const FLOATS: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.5,
    0.1,
    1e-7,
    3.402_823_5e38,
    -3.402_823_5e38,
    f32::MIN_POSITIVE,
    1e-45,
    -1e-45,
    5.877_472e-39,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    16_777_217.0,
    1e20,
    123_456_790.0,
];

const DOUBLES: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    0.1,
    1e-300,
    5e-324,
    f64::MAX,
    f64::MIN_POSITIVE,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    9_007_199_254_740_993.0,
];

const INTS: &[i64] = &[0, 1, -1, 2, 127, -128, 255, i64::MAX, i64::MIN, 1 << 40];

struct Smith<'a, 'u> {
    u: &'u mut Unstructured<'a>,
    budget: u32,
    graph_depth: usize,
}

impl Smith<'_, '_> {
    // ------------------------------------------------------------ choices

    fn chance(&mut self, numerator: u8, denominator: u8) -> Result<bool> {
        if self.u.is_empty() {
            return Ok(false);
        }
        self.u.ratio(numerator, denominator)
    }

    fn range(&mut self, lo: usize, hi: usize) -> Result<usize> {
        self.u.int_in_range(lo..=hi)
    }

    /// A count in `0..=max` that also spends the size budget.
    fn count(&mut self, max: usize) -> Result<usize> {
        let max = max.min(self.budget as usize);
        let n = self.range(0, max)?;
        self.budget -= n as u32;
        Ok(n)
    }

    /// Up to `len` bytes of the input (fewer when it runs out).
    fn take(&mut self, len: usize) -> &[u8] {
        let len = len.min(self.u.len());
        self.u.bytes(len).unwrap_or_default()
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> Result<T> {
        Ok(*self.u.choose(items)?)
    }

    fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<Option<T>> {
        if self.chance(1, 2)? {
            f(self).map(Some)
        } else {
            Ok(None)
        }
    }

    fn list<T>(&mut self, max: usize, mut f: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        let n = self.count(max)?;
        (0..n).map(|_| f(self)).collect()
    }

    // ----------------------------------------------------------- scalars

    fn name(&mut self) -> Result<String> {
        match self.range(0, 9)? {
            0..=6 => Ok(self.pick(NAMES)?.to_owned()),
            7 => {
                // A fresh identifier.
                let len = self.range(1, 6)?;
                let mut s = String::new();
                for i in 0..len {
                    let c = if i == 0 {
                        self.pick(b"abcXYZ_")?
                    } else {
                        self.pick(b"az_09Q")?
                    };
                    s.push(c as char);
                }
                Ok(s)
            }
            8 => Ok(format!("{}_{}", self.pick(NAMES)?, self.range(0, 99)?)),
            _ => {
                let len = self.range(0, 8)?;
                let bytes = self.take(len);
                Ok(String::from_utf8_lossy(bytes).into_owned())
            }
        }
    }

    fn opt_name(&mut self) -> Result<Option<String>> {
        // Names are mostly present; `None` exercises `unset`.
        if self.chance(1, 8)? {
            Ok(None)
        } else {
            self.name().map(Some)
        }
    }

    fn text(&mut self) -> Result<String> {
        if self.chance(1, 4)? {
            let len = self.range(0, 12)?;
            let bytes = self.take(len);
            Ok(String::from_utf8_lossy(bytes).into_owned())
        } else {
            Ok(self.pick(STRINGS)?.to_owned())
        }
    }

    fn opt_text(&mut self) -> Result<Option<String>> {
        if self.chance(1, 3)? {
            self.text().map(Some)
        } else {
            Ok(None)
        }
    }

    /// Bytes for `bytes` fields: often not UTF-8.
    fn bytes(&mut self) -> Result<Vec<u8>> {
        match self.range(0, 3)? {
            0 => Ok(self.pick(STRINGS)?.as_bytes().to_vec()),
            1 => Ok(self.name()?.into_bytes()),
            2 => Ok(vec![0xff, b'"', 0x00, b'\\', 0xc3]),
            _ => {
                let len = self.range(0, 10)?;
                Ok(self.take(len).to_vec())
            }
        }
    }

    fn int(&mut self) -> Result<i64> {
        match self.range(0, 2)? {
            0 => Ok(self.range(0, 16)? as i64),
            1 => self.pick(INTS),
            _ => self.u.arbitrary(),
        }
    }

    fn float(&mut self) -> Result<f32> {
        match self.range(0, 2)? {
            0 => Ok(self.range(0, 8)? as f32 * 0.5 - 1.0),
            1 => self.pick(FLOATS),
            // Any bit pattern: NaN payloads, signalling NaNs, subnormals.
            _ => Ok(f32::from_bits(self.u.arbitrary()?)),
        }
    }

    fn double(&mut self) -> Result<f64> {
        match self.range(0, 2)? {
            0 => Ok(self.range(0, 8)? as f64 * 0.25),
            1 => self.pick(DOUBLES),
            _ => Ok(f64::from_bits(self.u.arbitrary()?)),
        }
    }

    fn pairs(&mut self, max: usize) -> Result<Vec<StringStringEntryProto>> {
        self.list(max, |s| {
            Ok(StringStringEntryProto {
                // Missing keys or values need the `{key: ...}` form.
                key: if s.chance(1, 8)? {
                    None
                } else {
                    Some(s.text()?)
                },
                value: if s.chance(1, 8)? {
                    None
                } else {
                    Some(s.text()?)
                },
            })
        })
    }

    fn metadata(&mut self) -> Result<Vec<StringStringEntryProto>> {
        if self.chance(1, 4)? {
            self.pairs(2)
        } else {
            Ok(Vec::new())
        }
    }

    fn elem_type(&mut self) -> Result<i32> {
        match self.range(0, 9)? {
            0..=2 => self.pick(&[1, 7, 6, 9, 8]),
            3..=8 => Ok(self.range(1, 28)? as i32),
            // Undefined or unknown element types need annotations.
            _ => self.pick(&[0, 29, 99, -1]),
        }
    }

    // ------------------------------------------------------------- types

    fn dims(&mut self) -> Result<Option<TensorShapeProto>> {
        match self.range(0, 5)? {
            // Scalar: a shape with no dimensions.
            0 => Ok(Some(TensorShapeProto { dim: Vec::new() })),
            // Unknown rank.
            1 => Ok(None),
            _ => {
                let n = self.range(1, 4)?;
                let mut dim = Vec::with_capacity(n);
                for _ in 0..n {
                    let value = match self.range(0, 5)? {
                        0 | 1 => Some(dimension::Value::DimValue(self.range(0, 5)? as i64)),
                        2 => Some(dimension::Value::DimParam(self.name()?)),
                        3 => Some(dimension::Value::DimParam("N".into())),
                        4 => None,
                        _ => Some(dimension::Value::DimValue(self.int()?)),
                    };
                    let denotation = if self.chance(1, 10)? {
                        Some(self.pick(&["DATA_BATCH", "DATA_CHANNEL", ""])?.to_owned())
                    } else {
                        None
                    };
                    dim.push(Dimension { denotation, value });
                }
                Ok(Some(TensorShapeProto { dim }))
            }
        }
    }

    fn tensor_type(&mut self) -> Result<type_proto::Tensor> {
        Ok(type_proto::Tensor {
            elem_type: if self.chance(1, 12)? {
                None
            } else {
                Some(self.elem_type()?)
            },
            shape: self.dims()?,
        })
    }

    fn type_proto(&mut self, depth: usize) -> Result<TypeProto> {
        use type_proto::Value;
        let deeper = depth < MAX_TYPE_DEPTH;
        let kind = self.range(0, 12)?;
        let value = match kind {
            0..=4 => Some(Value::TensorType(self.tensor_type()?)),
            5 if deeper => Some(Value::SequenceType(Box::new(type_proto::Sequence {
                elem_type: self.opt_type(depth + 1)?,
            }))),
            6 if deeper => Some(Value::MapType(Box::new(type_proto::Map {
                key_type: if self.chance(1, 10)? {
                    None
                } else {
                    Some(self.pick(&[8, 7, 6, 2, 1, 0])?)
                },
                value_type: self.opt_type(depth + 1)?,
            }))),
            7 if deeper => Some(Value::OptionalType(Box::new(type_proto::Optional {
                elem_type: self.opt_type(depth + 1)?,
            }))),
            8 => {
                let t = self.tensor_type()?;
                Some(Value::SparseTensorType(type_proto::SparseTensor {
                    elem_type: t.elem_type,
                    shape: t.shape,
                }))
            }
            9 => Some(Value::OpaqueType(type_proto::Opaque {
                domain: self.opt(|s| s.pick(DOMAINS).map(str::to_owned))?,
                name: self.opt(|s| s.name())?,
            })),
            10 => None,
            _ => Some(Value::TensorType(self.tensor_type()?)),
        };
        let denotation = if self.chance(1, 10)? {
            Some(
                self.pick(&["TENSOR", "IMAGE", "", "my denotation"])?
                    .to_owned(),
            )
        } else {
            None
        };
        Ok(TypeProto { denotation, value })
    }

    fn opt_type(&mut self, depth: usize) -> Result<Option<Box<TypeProto>>> {
        if self.chance(1, 10)? {
            Ok(None)
        } else {
            Ok(Some(Box::new(self.type_proto(depth)?)))
        }
    }

    fn value_info(&mut self) -> Result<ValueInfoProto> {
        Ok(ValueInfoProto {
            name: self.opt_name()?,
            r#type: if self.chance(1, 5)? {
                None
            } else {
                Some(self.type_proto(0)?)
            },
            doc_string: self.opt_text()?,
            metadata_props: self.metadata()?,
        })
    }

    // ----------------------------------------------------------- tensors

    fn tensor(&mut self) -> Result<TensorProto> {
        let data_type = self.elem_type()?;
        let rank = self.range(0, 3)?;
        let mut dims = Vec::with_capacity(rank);
        let mut elements = 1usize;
        for _ in 0..rank {
            let d = self.range(0, 3)?;
            elements *= d;
            dims.push(d as i64);
        }
        if self.chance(1, 16)? {
            // Dims that do not match the data.
            dims.push(self.int()?);
        }
        let mut t = TensorProto {
            dims,
            data_type: if self.chance(1, 16)? {
                None
            } else {
                Some(data_type)
            },
            name: self.opt_name()?,
            doc_string: self.opt_text()?,
            metadata_props: self.metadata()?,
            ..Default::default()
        };
        if self.chance(1, 12)? {
            t.segment = Some(tensor_proto::Segment {
                begin: self.opt(|s| s.int())?,
                end: self.opt(|s| s.int())?,
            });
        }
        let complex = matches!(data_type, 14 | 15);
        let entries = if complex { 2 * elements } else { elements };
        match self.range(0, 9)? {
            // Typed field, the one the text syntax uses.
            0..=4 => self.typed_data(&mut t, data_type, entries)?,
            // raw_data of the right length.
            5 | 6 => {
                let len = crate::tensor_data::raw_byte_len(data_type, elements).unwrap_or(0);
                t.raw_data = Some(self.take(len).to_vec());
            }
            // raw_data of any length.
            7 => t.raw_data = Some(self.bytes()?),
            // External data.
            8 => {
                t.data_location = Some(self.pick(&[1, 0, 7])?);
                t.external_data = self.pairs(3)?;
                if t.external_data.is_empty() || self.chance(1, 2)? {
                    t.external_data.insert(
                        0,
                        StringStringEntryProto {
                            key: Some("location".into()),
                            value: Some(self.text()?),
                        },
                    );
                }
            }
            // Values in some field, whatever the type says.
            _ => {
                let other = self.range(0, 28)? as i32;
                self.typed_data(&mut t, other, entries)?;
            }
        }
        if self.chance(1, 16)? {
            // Explicit defaults and combinations the syntax cannot imply.
            t.data_location = Some(0);
        }
        if self.chance(1, 24)? {
            t.raw_data = Some(Vec::new());
        }
        Ok(t)
    }

    fn typed_data(&mut self, t: &mut TensorProto, data_type: i32, n: usize) -> Result<()> {
        match data_type {
            1 | 14 => t.float_data = (0..n).map(|_| self.float()).collect::<Result<_>>()?,
            11 | 15 => t.double_data = (0..n).map(|_| self.double()).collect::<Result<_>>()?,
            7 => t.int64_data = (0..n).map(|_| self.int()).collect::<Result<_>>()?,
            12 | 13 => {
                t.uint64_data = (0..n)
                    .map(|_| match self.range(0, 2)? {
                        0 => Ok(self.range(0, 9)? as u64),
                        1 => Ok(u64::MAX),
                        _ => self.u.arbitrary(),
                    })
                    .collect::<Result<_>>()?
            }
            8 => t.string_data = (0..n).map(|_| self.bytes()).collect::<Result<_>>()?,
            _ => {
                let (lo, hi) = match data_type {
                    9 => (0, 1),
                    2 => (0, 255),
                    3 => (-128, 127),
                    4 | 10 | 16 => (0, 65535),
                    5 => (-32768, 32767),
                    21 => (0, 15),
                    22 => (-8, 7),
                    25 => (0, 3),
                    26 => (-2, 1),
                    17..=20 | 24 => (0, 255),
                    23 => (0, 15),
                    27 | 28 => (0, 63),
                    _ => (i32::MIN, i32::MAX),
                };
                t.int32_data = (0..n)
                    .map(|_| {
                        if self.chance(1, 20)? {
                            // Out of range for the type.
                            self.u.arbitrary()
                        } else {
                            self.u.int_in_range(lo..=hi)
                        }
                    })
                    .collect::<Result<_>>()?;
            }
        }
        Ok(())
    }

    fn sparse_tensor(&mut self) -> Result<SparseTensorProto> {
        Ok(SparseTensorProto {
            values: self.opt(|s| s.tensor())?,
            indices: self.opt(|s| s.tensor())?,
            dims: self.list(3, |s| Ok(s.range(0, 6)? as i64))?,
        })
    }

    // -------------------------------------------------------- attributes

    /// An attribute; `refs` are attribute names a reference may point to
    /// (empty outside functions, where references are still well-formed IR).
    fn attribute(&mut self, refs: &[String]) -> Result<AttributeProto> {
        use AttributeType as T;
        const KINDS: &[AttributeType] = &[
            T::Int,
            T::Float,
            T::String,
            T::Ints,
            T::Floats,
            T::Strings,
            T::Tensor,
            T::Graph,
            T::SparseTensor,
            T::TypeProto,
            T::Tensors,
            T::Graphs,
            T::SparseTensors,
            T::TypeProtos,
            T::Undefined,
        ];
        let kind = self.pick(KINDS)?;
        let mut a = AttributeProto {
            name: if self.chance(1, 16)? {
                None
            } else {
                Some(self.attr_name()?)
            },
            r#type: Some(kind as i32),
            doc_string: self.opt_text()?,
            ..Default::default()
        };
        if self.chance(1, if refs.is_empty() { 12 } else { 3 })? {
            a.ref_attr_name = Some(if refs.is_empty() || self.chance(1, 4)? {
                self.name()?
            } else {
                self.pick_owned(refs)?
            });
        } else {
            self.attribute_value(&mut a, kind)?;
        }
        match self.range(0, 15)? {
            0 => a.r#type = None,
            1 => a.r#type = Some(self.pick(&[0, 15, 99, -3])?),
            // A value in a field the type does not name.
            2 => {
                let other = self.pick(KINDS)?;
                self.attribute_value(&mut a, other)?;
            }
            _ => {}
        }
        Ok(a)
    }

    fn pick_owned(&mut self, items: &[String]) -> Result<String> {
        Ok(self.u.choose(items)?.clone())
    }

    fn attr_name(&mut self) -> Result<String> {
        if self.chance(1, 2)? {
            Ok(self
                .pick(&[
                    "axis",
                    "then_branch",
                    "else_branch",
                    "body",
                    "value",
                    "alpha",
                    "perm",
                ])?
                .to_owned())
        } else {
            self.name()
        }
    }

    fn attribute_value(&mut self, a: &mut AttributeProto, kind: AttributeType) -> Result<()> {
        use AttributeType as T;
        match kind {
            T::Undefined => {}
            T::Float => a.f = Some(self.float()?),
            T::Int => a.i = Some(self.int()?),
            T::String => a.s = Some(self.bytes()?),
            T::Tensor => a.t = Some(Box::new(self.tensor()?)),
            T::Graph => a.g = Some(Box::new(self.sub_graph()?)),
            T::SparseTensor => a.sparse_tensor = Some(Box::new(self.sparse_tensor()?)),
            T::TypeProto => a.tp = Some(Box::new(self.type_proto(0)?)),
            T::Floats => a.floats = self.list(5, |s| s.float())?,
            T::Ints => a.ints = self.list(5, |s| s.int())?,
            T::Strings => a.strings = self.list(4, |s| s.bytes())?,
            T::Tensors => a.tensors = self.list(3, |s| s.tensor())?,
            T::Graphs => a.graphs = self.list(2, |s| s.sub_graph())?,
            T::SparseTensors => a.sparse_tensors = self.list(2, |s| s.sparse_tensor())?,
            T::TypeProtos => a.type_protos = self.list(3, |s| s.type_proto(0))?,
        }
        Ok(())
    }

    // ------------------------------------------------------ nodes, graphs

    fn node(&mut self, refs: &[String]) -> Result<NodeProto> {
        let op_type = if self.chance(1, 16)? {
            None
        } else {
            Some(self.pick(OPS)?.to_owned())
        };
        Ok(NodeProto {
            output: self.list(3, |s| s.name())?,
            input: self.list(4, |s| s.name())?,
            name: if self.chance(1, 3)? {
                Some(self.name()?)
            } else {
                None
            },
            op_type,
            domain: self.opt(|s| s.pick(DOMAINS).map(str::to_owned))?,
            overload: if self.chance(1, 8)? {
                Some(self.name()?)
            } else {
                None
            },
            attribute: self.list(4, |s| s.attribute(refs))?,
            doc_string: self.opt_text()?,
            metadata_props: self.metadata()?,
            device_configurations: if self.chance(1, 12)? {
                self.list(2, |s| s.node_device_configuration())?
            } else {
                Vec::new()
            },
        })
    }

    fn node_device_configuration(&mut self) -> Result<NodeDeviceConfigurationProto> {
        Ok(NodeDeviceConfigurationProto {
            configuration_id: self.opt(|s| s.name())?,
            sharding_spec: self.list(2, |s| {
                Ok(ShardingSpecProto {
                    tensor_name: s.opt(|s| s.name())?,
                    device: s.list(3, |s| s.int())?,
                    index_to_device_group_map: s.list(2, |s| {
                        Ok(IntIntListEntryProto {
                            key: s.opt(|s| s.int())?,
                            value: s.list(3, |s| s.int())?,
                        })
                    })?,
                    sharded_dim: s.list(2, |s| {
                        Ok(ShardedDimProto {
                            axis: s.opt(|s| s.int())?,
                            simple_sharding: s.list(2, |s| {
                                Ok(SimpleShardedDimProto {
                                    num_shards: s.opt(|s| s.int())?,
                                    dim: match s.range(0, 2)? {
                                        0 => None,
                                        1 => {
                                            Some(simple_sharded_dim_proto::Dim::DimValue(s.int()?))
                                        }
                                        _ => {
                                            Some(simple_sharded_dim_proto::Dim::DimParam(s.name()?))
                                        }
                                    },
                                })
                            })?,
                        })
                    })?,
                })
            })?,
            pipeline_stage: s_opt_i32(self)?,
        })
    }

    fn sub_graph(&mut self) -> Result<GraphProto> {
        if self.graph_depth >= MAX_GRAPH_DEPTH {
            // Too deep: an empty graph (still a graph).
            return Ok(GraphProto {
                name: Some("leaf".into()),
                ..Default::default()
            });
        }
        self.graph_depth += 1;
        let g = self.graph();
        self.graph_depth -= 1;
        g
    }

    fn graph(&mut self) -> Result<GraphProto> {
        let mut g = GraphProto {
            name: self.opt_name()?,
            input: self.list(4, |s| s.value_info())?,
            output: self.list(3, |s| s.value_info())?,
            value_info: self.list(2, |s| s.value_info())?,
            initializer: self.list(3, |s| s.tensor())?,
            node: self.list(6, |s| s.node(&[]))?,
            doc_string: self.opt_text()?,
            metadata_props: self.metadata()?,
            ..Default::default()
        };
        if self.chance(1, 8)? {
            g.sparse_initializer = self.list(2, |s| s.sparse_tensor())?;
        }
        if self.chance(1, 8)? {
            g.quantization_annotation = self.list(2, |s| {
                Ok(TensorAnnotation {
                    tensor_name: s.opt(|s| s.name())?,
                    quant_parameter_tensor_names: s.pairs(2)?,
                })
            })?;
        }
        Ok(g)
    }

    fn opset(&mut self) -> Result<OperatorSetIdProto> {
        Ok(OperatorSetIdProto {
            domain: if self.chance(1, 10)? {
                None
            } else {
                Some(self.pick(DOMAINS)?.to_owned())
            },
            version: if self.chance(1, 10)? {
                None
            } else {
                Some(self.int()?)
            },
        })
    }

    fn function(&mut self) -> Result<FunctionProto> {
        let attribute = self.list(3, |s| s.name())?;
        let attribute_proto = self.list(3, |s| {
            let mut a = s.attribute(&[])?;
            if s.chance(1, 3)? {
                // `alpha: float` with no default: only a type.
                a = AttributeProto {
                    name: a.name,
                    r#type: a.r#type,
                    ..Default::default()
                };
            }
            Ok(a)
        })?;
        let mut refs: Vec<String> = attribute.clone();
        refs.extend(attribute_proto.iter().filter_map(|a| a.name.clone()));
        Ok(FunctionProto {
            name: self.opt_name()?,
            input: self.list(3, |s| s.name())?,
            output: self.list(3, |s| s.name())?,
            attribute,
            attribute_proto,
            node: self.list(4, |s| s.node(&refs))?,
            doc_string: self.opt_text()?,
            opset_import: self.list(2, |s| s.opset())?,
            domain: self.opt(|s| s.pick(DOMAINS).map(str::to_owned))?,
            overload: if self.chance(1, 6)? {
                Some(self.name()?)
            } else {
                None
            },
            value_info: self.list(2, |s| s.value_info())?,
            metadata_props: self.metadata()?,
        })
    }

    fn model(&mut self) -> Result<ModelProto> {
        let mut m = ModelProto {
            ir_version: if self.chance(1, 8)? {
                None
            } else {
                Some(self.pick(&[10, 8, 11, 0, -1, 13])?)
            },
            opset_import: self.list(3, |s| s.opset())?,
            producer_name: self.opt_text()?,
            producer_version: self.opt_text()?,
            domain: self.opt(|s| s.pick(DOMAINS).map(str::to_owned))?,
            model_version: self.opt(|s| s.int())?,
            doc_string: self.opt_text()?,
            metadata_props: self.metadata()?,
            ..Default::default()
        };
        // Graph: almost always present.
        if !self.chance(1, 16)? || self.u.is_empty() {
            m.graph = Some(self.graph()?);
        }
        m.functions = self.list(3, |s| s.function())?;
        if self.chance(1, 6)? {
            m.training_info = self.list(2, |s| {
                s.graph_depth = MAX_GRAPH_DEPTH - 1;
                let t = TrainingInfoProto {
                    initialization: s.opt(|s| s.graph())?,
                    algorithm: s.opt(|s| s.graph())?,
                    initialization_binding: s.pairs(2)?,
                    update_binding: s.pairs(2)?,
                };
                s.graph_depth = 0;
                Ok(t)
            })?;
        }
        if self.chance(1, 8)? {
            m.configuration = self.list(2, |s| {
                Ok(DeviceConfigurationProto {
                    name: s.opt(|s| s.name())?,
                    num_devices: s_opt_i32(s)?,
                    device: s.list(3, |s| s.name())?,
                })
            })?;
        }
        Ok(m)
    }
}

fn s_opt_i32(s: &mut Smith<'_, '_>) -> Result<Option<i32>> {
    s.opt(|s| {
        Ok(match s.range(0, 2)? {
            0 => s.range(0, 8)? as i32,
            1 => i32::MIN,
            _ => s.u.arbitrary()?,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_deterministic_and_varied() {
        // Compared encoded: NaNs make `PartialEq` fail.
        use prost::Message;
        assert_eq!(
            model_from_seed(1).encode_to_vec(),
            model_from_seed(1).encode_to_vec()
        );
        let texts: std::collections::HashSet<String> = (0..8)
            .map(|s| crate::to_text(&model_from_seed(s)))
            .collect();
        assert!(texts.len() > 4);
    }

    #[test]
    fn empty_input_gives_a_model() {
        let m = arbitrary_model(&mut Unstructured::new(&[])).unwrap();
        assert!(m.graph.is_some());
    }
}
