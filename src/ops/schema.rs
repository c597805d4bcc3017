//! The registry's types: domains, operators, schemas and their parts, with
//! the `const` constructors the generated `data.rs` builds them with.
//!
//! All of it is static data, so every reference handed out is `&'static`
//! and no accessor allocates.

use std::fmt;

use crate::name_key::same;
use crate::proto::attribute_proto::AttributeType;
use crate::proto::AttributeProto;
use crate::vocabulary::attribute_type_name;

/// An operator set domain: `""` (`ai.onnx`), `ai.onnx.ml`, `ai.onnx.preview`
/// or `ai.onnx.preview.training`.
#[derive(Debug)]
pub struct Domain {
    pub(super) name: &'static str,
    pub(super) first_opset: i64,
    pub(super) last_opset: i64,
    pub(super) operators: &'static [Operator],
}

impl Domain {
    /// The domain as nodes and opset imports write it; `""` for `ai.onnx`.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The name people use for it: `ai.onnx` for `""`, else the name.
    pub fn display_name(&self) -> &'static str {
        if self.name.is_empty() {
            super::AI_ONNX
        } else {
            self.name
        }
    }

    /// The first opset version of the domain.
    pub fn first_opset(&self) -> i64 {
        self.first_opset
    }

    /// The last opset version onnx 1.23.2 defines for the domain.
    pub fn last_opset(&self) -> i64 {
        self.last_opset
    }

    /// Every operator the domain ever had, sorted by name.
    pub fn operators(&self) -> &'static [Operator] {
        self.operators
    }
}

/// An operator of a domain with all its versions.
#[derive(Debug)]
pub struct Operator {
    pub(super) domain: &'static str,
    pub(super) name: &'static str,
    pub(super) versions: &'static [Schema],
}

impl Operator {
    /// The domain; `""` for `ai.onnx`.
    pub fn domain(&self) -> &'static str {
        self.domain
    }

    /// The operator's name (`op_type` in a node).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its schemas, one per version, oldest first; never empty.
    pub fn versions(&self) -> &'static [Schema] {
        self.versions
    }

    /// The schema in force at `opset` (the domain's imported version): the
    /// one with the highest `since_version` not above it. `None` when the
    /// operator came later. A deprecated schema is returned as it is;
    /// [`Schema::deprecated`] tells.
    pub fn at(&self, opset: i64) -> Option<&'static Schema> {
        newest_up_to(self.versions, opset, |s| s.since_version)
    }

    /// The page of onnx.ai that documents the operator, all versions.
    pub fn doc_url(&self) -> String {
        let domain = self.domain.replace('.', "");
        format!(
            "https://onnx.ai/onnx/operators/onnx_{domain}_{}.html",
            self.name
        )
    }
}

/// The last of `items` (sorted by `version`) whose version is at most
/// `opset`: what is in force at `opset`.
pub(super) fn newest_up_to<T>(
    items: &'static [T],
    opset: i64,
    version: fn(&T) -> i64,
) -> Option<&'static T> {
    let newer = items.partition_point(|item| version(item) <= opset);
    newer.checked_sub(1).map(|i| &items[i])
}

/// One version of an operator: its signature from `since_version` on.
#[derive(Debug)]
pub struct Schema {
    pub(super) domain: &'static str,
    pub(super) name: &'static str,
    pub(super) since_version: i64,
    pub(super) deprecated: bool,
    pub(super) experimental: bool,
    pub(super) unchecked_attributes: bool,
    pub(super) inputs: &'static [Parameter],
    pub(super) outputs: &'static [Parameter],
    pub(super) input_count: Count,
    pub(super) output_count: Count,
    pub(super) attributes: &'static [Attribute],
    pub(super) type_constraints: &'static [TypeConstraint],
    pub(super) function_bodies: &'static [FunctionBody],
    pub(super) context_dependent_function_opsets: &'static [i64],
}

/// How many inputs or outputs a node may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Count {
    min: usize,
    /// `None`: no upper bound (a variadic last parameter).
    max: Option<usize>,
    /// The counts from `min` to `max` allowed, when not all are; empty
    /// when all are.
    only: &'static [usize],
}

impl Count {
    pub(super) const fn between(min: usize, max: usize) -> Count {
        Count {
            min,
            max: Some(max),
            only: &[],
        }
    }

    pub(super) const fn at_least(min: usize) -> Count {
        Count {
            min,
            max: None,
            only: &[],
        }
    }

    /// The counts allowed, when not all between the bounds are.
    pub(super) const fn only(self, allowed: &'static [usize]) -> Count {
        Count {
            only: allowed,
            ..self
        }
    }

    fn allows(&self, n: usize) -> bool {
        n >= self.min
            && self.max.is_none_or(|max| n <= max)
            && (self.only.is_empty() || self.only.contains(&n))
    }
}

impl Schema {
    /// A schema of `domain` with nothing in it, for the generated data to
    /// fill in.
    pub(super) const fn empty(domain: &'static str) -> Schema {
        Schema {
            domain,
            name: "",
            since_version: 0,
            deprecated: false,
            experimental: false,
            unchecked_attributes: false,
            inputs: &[],
            outputs: &[],
            input_count: Count::between(0, 0),
            output_count: Count::between(0, 0),
            attributes: &[],
            type_constraints: &[],
            function_bodies: &[],
            context_dependent_function_opsets: &[],
        }
    }

    /// The domain; `""` for `ai.onnx`.
    pub fn domain(&self) -> &'static str {
        self.domain
    }

    /// The operator's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The opset version of the domain from which this schema is in force.
    pub fn since_version(&self) -> i64 {
        self.since_version
    }

    /// Whether the operator is deprecated from this version on: ONNX's
    /// checker rejects nodes that use it.
    pub fn deprecated(&self) -> bool {
        self.deprecated
    }

    /// Whether onnx marks the schema experimental (not versioned).
    pub fn experimental(&self) -> bool {
        self.experimental
    }

    /// Whether a node may carry attributes the schema does not declare
    /// (onnx's checker does not look at them), as onnx allows for a few
    /// schemas (`LayerNormalization` version 17).
    pub fn allows_unchecked_attributes(&self) -> bool {
        self.unchecked_attributes
    }

    /// The formal inputs, in order.
    pub fn inputs(&self) -> &'static [Parameter] {
        self.inputs
    }

    /// The formal outputs, in order.
    pub fn outputs(&self) -> &'static [Parameter] {
        self.outputs
    }

    /// The fewest inputs a node may have (trailing optional ones omitted).
    pub fn min_inputs(&self) -> usize {
        self.input_count.min
    }

    /// The most inputs a node may have; `None` when unbounded (variadic).
    pub fn max_inputs(&self) -> Option<usize> {
        self.input_count.max
    }

    /// Whether a node may have `n` inputs: between [`Schema::min_inputs`]
    /// and [`Schema::max_inputs`], and one of the counts onnx allows where
    /// it allows only some of those.
    pub fn allows_inputs(&self, n: usize) -> bool {
        self.input_count.allows(n)
    }

    /// The input counts a node may have, when onnx allows only some of
    /// those between the bounds; empty when it allows them all.
    pub fn allowed_input_counts(&self) -> &'static [usize] {
        self.input_count.only
    }

    /// The fewest outputs a node may have.
    pub fn min_outputs(&self) -> usize {
        self.output_count.min
    }

    /// The most outputs a node may have; `None` when unbounded (variadic).
    pub fn max_outputs(&self) -> Option<usize> {
        self.output_count.max
    }

    /// Whether a node may have `n` outputs: between
    /// [`Schema::min_outputs`] and [`Schema::max_outputs`], and one of the
    /// counts onnx allows where it allows only some of those (a
    /// `BatchNormalization` of version 15 has 1 or 3 outputs).
    ///
    /// ```
    /// let batch_norm = onnxtxt::ops::schema("", "BatchNormalization", 15).unwrap();
    /// assert!(batch_norm.allows_outputs(3));
    /// assert!(!batch_norm.allows_outputs(2));
    /// assert_eq!(batch_norm.allowed_output_counts(), [1, 3]);
    /// ```
    pub fn allows_outputs(&self, n: usize) -> bool {
        self.output_count.allows(n)
    }

    /// The output counts a node may have, when onnx allows only some of
    /// those between the bounds; empty when it allows them all.
    pub fn allowed_output_counts(&self) -> &'static [usize] {
        self.output_count.only
    }

    /// The attributes, sorted by name.
    pub fn attributes(&self) -> &'static [Attribute] {
        self.attributes
    }

    /// The attribute called `name`.
    pub fn attribute(&self, name: &str) -> Option<&'static Attribute> {
        // A schema has a few attributes, of names of different lengths
        // mostly: a scan that compares the lengths first compares the
        // bytes about once, where each step of a binary search would.
        self.attributes().iter().find(|a| same(a.name, name))
    }

    /// The type parameters (`T`, `T1`, ...) and the types each may stand for.
    pub fn type_constraints(&self) -> &'static [TypeConstraint] {
        self.type_constraints
    }

    /// The type parameter called `name`.
    pub fn type_constraint(&self, name: &str) -> Option<&'static TypeConstraint> {
        self.type_constraints().iter().find(|c| c.name == name)
    }

    /// The types `parameter` (one of this schema's) accepts: its type
    /// parameter's types, or its type string when that names one type.
    pub fn allowed_types(&self, parameter: &'static Parameter) -> &'static [&'static str] {
        match self.type_constraint(parameter.type_str) {
            Some(constraint) => constraint.allowed_types(),
            None => std::slice::from_ref(&parameter.type_str),
        }
    }

    /// The function bodies that define the operator, one per opset version
    /// of the domain they were written for, oldest first; empty when onnx
    /// gives none.
    pub fn function_bodies(&self) -> &'static [FunctionBody] {
        self.function_bodies
    }

    /// The function body that defines the operator for a model that imports
    /// `opset` of its domain: the one written for the highest opset not above
    /// it, as onnx chooses; `None` when there is none that old.
    pub fn function_body(&self, opset: i64) -> Option<&'static FunctionBody> {
        newest_up_to(self.function_bodies, opset, |b| b.opset)
    }

    /// The opset versions for which onnx builds the operator's function
    /// from the node itself (a context-dependent function); empty when
    /// there is none. Those bodies depend on the node and are not stored.
    pub fn context_dependent_function_opsets(&self) -> &'static [i64] {
        self.context_dependent_function_opsets
    }

    /// The page of onnx.ai that documents this version of the operator.
    pub fn doc_url(&self) -> String {
        let anchor_domain = self.domain.replace('.', "-");
        let domain = self.domain.replace('.', "");
        format!(
            "https://onnx.ai/onnx/operators/onnx_{domain}_{}.html#l-onnx-op{anchor_domain}-{}-{}",
            self.name,
            self.name.to_lowercase(),
            self.since_version
        )
    }
}

/// A formal input or output.
#[derive(Debug)]
pub struct Parameter {
    name: &'static str,
    type_str: &'static str,
    option: ParameterOption,
    homogeneous: bool,
    min_arity: usize,
    differentiability: Differentiability,
}

/// A parameter that takes one value.
pub(super) const fn single(name: &'static str, type_str: &'static str) -> Parameter {
    parameter(name, type_str, ParameterOption::Single)
}

/// A parameter that takes one value or none.
pub(super) const fn optional(name: &'static str, type_str: &'static str) -> Parameter {
    parameter(name, type_str, ParameterOption::Optional)
}

/// A parameter that takes one value or more.
pub(super) const fn variadic(name: &'static str, type_str: &'static str) -> Parameter {
    parameter(name, type_str, ParameterOption::Variadic)
}

/// A homogeneous parameter of minimum arity 1 and unknown differentiability.
const fn parameter(
    name: &'static str,
    type_str: &'static str,
    option: ParameterOption,
) -> Parameter {
    Parameter {
        name,
        type_str,
        option,
        homogeneous: true,
        min_arity: 1,
        differentiability: Differentiability::Unknown,
    }
}

impl Parameter {
    pub(super) const fn heterogeneous(self) -> Parameter {
        Parameter {
            homogeneous: false,
            ..self
        }
    }

    pub(super) const fn with_min_arity(self, min_arity: usize) -> Parameter {
        Parameter { min_arity, ..self }
    }

    pub(super) const fn differentiable(self) -> Parameter {
        Parameter {
            differentiability: Differentiability::Differentiable,
            ..self
        }
    }

    pub(super) const fn non_differentiable(self) -> Parameter {
        Parameter {
            differentiability: Differentiability::NonDifferentiable,
            ..self
        }
    }

    /// The parameter's name in the schema (not a value name in a graph).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// A type parameter (`T`) or one type (`tensor(int64)`), as onnx writes
    /// types: `tensor(float)`, `seq(tensor(int8))`, `map(int64, float)`,
    /// `optional(tensor(bool))`.
    pub fn type_str(&self) -> &'static str {
        self.type_str
    }

    /// Single, optional or variadic.
    pub fn option(&self) -> ParameterOption {
        self.option
    }

    /// For a variadic parameter: whether all its values have the same type.
    /// Always true for the others.
    pub fn homogeneous(&self) -> bool {
        self.homogeneous
    }

    /// The fewest values a variadic parameter takes (1 for the others).
    pub fn min_arity(&self) -> usize {
        self.min_arity
    }

    /// Whether gradients flow through the parameter, where onnx says.
    pub fn differentiability(&self) -> Differentiability {
        self.differentiability
    }
}

/// How many values a formal parameter takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParameterOption {
    /// Exactly one.
    Single,
    /// One or none (an empty name `""` in the node's list skips it).
    Optional,
    /// Any number from its minimum arity; only the last parameter.
    Variadic,
}

/// Whether gradients flow through a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Differentiability {
    /// The schema does not say.
    Unknown,
    /// Gradients flow through it.
    Differentiable,
    /// They do not.
    NonDifferentiable,
}

/// An attribute a node of the schema may (or must) have.
#[derive(Debug)]
pub struct Attribute {
    name: &'static str,
    ty: AttributeType,
    required: bool,
    default: Option<AttributeValue>,
}

/// An attribute every node must have.
pub(super) const fn attr_required(name: &'static str, ty: AttributeType) -> Attribute {
    Attribute {
        name,
        ty,
        required: true,
        default: None,
    }
}

/// An attribute a node may leave out, with no default.
pub(super) const fn attr(name: &'static str, ty: AttributeType) -> Attribute {
    Attribute {
        name,
        ty,
        required: false,
        default: None,
    }
}

/// An attribute a node may leave out, then taken as `default`.
pub(super) const fn attr_default(name: &'static str, default: AttributeValue) -> Attribute {
    Attribute {
        name,
        ty: default.ty(),
        required: false,
        default: Some(default),
    }
}

impl Attribute {
    /// The attribute's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its type.
    pub fn ty(&self) -> AttributeType {
        self.ty
    }

    /// Whether every node must have it.
    pub fn required(&self) -> bool {
        self.required
    }

    /// The value a node without the attribute gets, if the schema says.
    pub fn default_value(&self) -> Option<AttributeValue> {
        self.default
    }
}

/// An attribute's default value. Schemas give defaults only of these types.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum AttributeValue {
    /// `int`
    Int(i64),
    /// `float`
    Float(f32),
    /// `string`
    String(&'static str),
    /// `ints`
    Ints(&'static [i64]),
    /// `floats`
    Floats(&'static [f32]),
    /// `strings`
    Strings(&'static [&'static str]),
}

/// A type parameter of a schema and the types it may stand for.
#[derive(Debug)]
pub struct TypeConstraint {
    name: &'static str,
    allowed: &'static [&'static str],
}

/// The type parameter `name`, which may stand for the types `allowed`.
pub(super) const fn constraint(
    name: &'static str,
    allowed: &'static [&'static str],
) -> TypeConstraint {
    TypeConstraint { name, allowed }
}

impl TypeConstraint {
    /// The parameter's name (`T`, `T1`, `Tind`, ...).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The types it may stand for, as onnx writes them (see
    /// [`Parameter::type_str`]), in onnx's order.
    pub fn allowed_types(&self) -> &'static [&'static str] {
        self.allowed
    }
}

/// A function body that defines an operator, in the ONNX text syntax.
#[derive(Debug)]
pub struct FunctionBody {
    opset: i64,
    text: &'static str,
}

/// The function body `text`, written for `opset` of the operator's domain.
pub(super) const fn body(opset: i64, text: &'static str) -> FunctionBody {
    FunctionBody { opset, text }
}

impl FunctionBody {
    /// The opset version of the operator's domain the body was written for.
    pub fn opset(&self) -> i64 {
        self.opset
    }

    /// The body as onnx's printer writes it: a function with its own
    /// `domain` and `opset_import` header.
    pub fn text(&self) -> &'static str {
        self.text
    }

    /// The body as IR.
    pub fn parse(&self) -> Result<crate::proto::FunctionProto, crate::Error> {
        crate::parse_function(self.text)
    }
}

impl AttributeValue {
    /// The attribute type of the value.
    pub const fn ty(&self) -> AttributeType {
        match self {
            AttributeValue::Int(_) => AttributeType::Int,
            AttributeValue::Float(_) => AttributeType::Float,
            AttributeValue::String(_) => AttributeType::String,
            AttributeValue::Ints(_) => AttributeType::Ints,
            AttributeValue::Floats(_) => AttributeType::Floats,
            AttributeValue::Strings(_) => AttributeType::Strings,
        }
    }

    /// The attribute `name` with this value, as a node would carry it (and
    /// as onnx stores the default).
    pub fn to_attribute(&self, name: &str) -> AttributeProto {
        let mut attribute = AttributeProto {
            name: Some(name.to_owned()),
            r#type: Some(self.ty() as i32),
            ..AttributeProto::default()
        };
        match *self {
            AttributeValue::Int(v) => attribute.i = Some(v),
            AttributeValue::Float(v) => attribute.f = Some(v),
            AttributeValue::String(v) => attribute.s = Some(v.as_bytes().to_vec()),
            AttributeValue::Ints(v) => attribute.ints = v.to_vec(),
            AttributeValue::Floats(v) => attribute.floats = v.to_vec(),
            AttributeValue::Strings(v) => {
                attribute.strings = v.iter().map(|s| s.as_bytes().to_vec()).collect();
            }
        }
        attribute
    }
}

/// The attribute as the text syntax declares one: `group: int = 1` with its
/// default, `kernel_shape: ints` without, `to: int (required)`.
impl fmt::Display for Attribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(value) = self.default_value() {
            return f.write_str(&crate::to_text(&value.to_attribute(self.name)));
        }
        let ty = attribute_type_name(self.ty as i32).unwrap_or("?");
        write!(f, "{}: {ty}", self.name)?;
        if self.required {
            f.write_str(" (required)")?;
        }
        Ok(())
    }
}
