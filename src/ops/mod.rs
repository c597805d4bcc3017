//! The operator registry: every operator schema of onnx 1.23.2, every
//! version, of the domains `ai.onnx` (`""`), `ai.onnx.ml`,
//! `ai.onnx.preview` and `ai.onnx.preview.training`.
//!
//! A schema holds the facts of one version of an operator: its inputs and
//! outputs (type strings, optional or variadic), attributes (type, required,
//! default), type constraints, and the function body that defines it where
//! onnx has one, as ONNX text. No documentation text: [`Schema::doc_url`]
//! links to the operator's page on onnx.ai.
//!
//! What is `Conv` at opset 19? The schema in force is the version with the
//! highest `since_version` not above the imported opset:
//!
//! ```
//! use onnxtxt::ops::{self, ParameterOption};
//!
//! let conv = ops::schema("", "Conv", 19).unwrap();
//! assert_eq!(conv.since_version(), 11);
//! let names: Vec<_> = conv.inputs().iter().map(|p| p.name()).collect();
//! assert_eq!(names, ["X", "W", "B"]);
//! assert_eq!(conv.inputs()[2].option(), ParameterOption::Optional);
//! assert_eq!((conv.min_inputs(), conv.max_inputs()), (2, Some(3)));
//!
//! let group = conv.attribute("group").unwrap();
//! assert_eq!(group.default_value(), Some(ops::AttributeValue::Int(1)));
//! let t = conv.type_constraint("T").unwrap();
//! assert!(t.allowed_types().contains(&"tensor(float)"));
//! assert_eq!(
//!     conv.doc_url(),
//!     "https://onnx.ai/onnx/operators/onnx__Conv.html#l-onnx-op-conv-11"
//! );
//! ```
//!
//! An operator that came later, or an opset older than any version, has no
//! schema in force; [`operator`] still finds it:
//!
//! ```
//! use onnxtxt::ops;
//!
//! assert!(ops::schema("", "Gelu", 19).is_none());
//! assert_eq!(ops::operator("", "Gelu").unwrap().versions()[0].since_version(), 20);
//! ```
//!
//! The schemas are static data compiled into the crate (`generated/`,
//! written from onnx by `grammar/operators.py`): nothing is read or built
//! when a program starts, every lookup is a binary search that allocates
//! nothing, and everything it returns is `&'static`.

mod context;
mod generated;
mod schema;
mod signature;
mod suggest;
#[cfg(test)]
mod tests;
mod types;

use crate::name_key::NameKey;

pub use context::{Node, NodeContext};
pub use generated::data::ONNX_VERSION;
pub use schema::{
    Attribute, AttributeValue, Differentiability, Domain, FunctionBody, Operator, Parameter,
    ParameterOption, Schema, TypeConstraint,
};
pub use signature::Signature;
pub(crate) use signature::{input_counts, output_counts};
pub(crate) use suggest::closest_by;
pub use suggest::AttributeChange;
pub use types::{type_matches, type_proto, type_string};

/// How `ai.onnx`, the domain `""`, may also be written.
pub const AI_ONNX: &str = "ai.onnx";

/// The domain `domain` stands for: `""` for `ai.onnx`, else itself.
///
/// onnx's checker accepts an opset import spelled `ai.onnx` for the domain
/// `""`, but finds no operator for a node whose domain is spelled
/// `ai.onnx`; ONNX Runtime accepts both. The lookups here accept both.
pub fn canonical_domain(domain: &str) -> &str {
    if domain == AI_ONNX {
        ""
    } else {
        domain
    }
}

/// The domains of the registry, sorted by name (`""` first).
pub fn domains() -> &'static [Domain] {
    generated::data::DOMAINS
}

/// The domain called `name` (`""` and `ai.onnx` are the same).
pub fn domain(name: &str) -> Option<&'static Domain> {
    let name = canonical_domain(name);
    generated::data::DOMAINS.iter().find(|d| d.name() == name)
}

/// The operator `name` of `domain`, with all its versions.
pub fn operator(domain: &str, name: &str) -> Option<&'static Operator> {
    let operators = self::domain(domain)?.operators();
    let found = operators.binary_search_by(|op| op.name().cmp(name));
    found.ok().map(|i| &operators[i])
}

/// The schema of operator `name` in force for a model that imports `opset`
/// of `domain`: the version with the highest `since_version` not above
/// `opset`, as onnx resolves it. `None` when the domain has no such
/// operator or it came after `opset`. A deprecated schema is returned as
/// it is: see [`Schema::deprecated`].
pub fn schema(domain: &str, name: &str, opset: i64) -> Option<&'static Schema> {
    operator(domain, name)?.at(opset)
}

/// [`schema`] remembered by domain, operator and opset: a model calls few
/// operators, many times, and a lookup searches by name. The names are
/// keys that compare an empty domain without `memcmp` ([`NameKey`]).
#[derive(Default)]
pub(crate) struct SchemaMemo<'a> {
    found: foldhash::HashMap<(NameKey<'a>, NameKey<'a>, i64), Option<&'static Schema>>,
}

impl<'a> SchemaMemo<'a> {
    /// [`schema`]`(domain, op, opset)`.
    pub(crate) fn get(
        &mut self,
        domain: &'a str,
        op: &'a str,
        opset: i64,
    ) -> Option<&'static Schema> {
        *self
            .found
            .entry((NameKey(domain), NameKey(op), opset))
            .or_insert_with(|| schema(domain, op, opset))
    }
}

/// The schemas of `domain` in force at `opset`, one per operator that
/// exists by then, sorted by operator name; deprecated ones included.
///
/// ```
/// let names: Vec<_> = onnxtxt::ops::operators_at("ai.onnx.ml", 1)
///     .map(|s| s.name())
///     .collect();
/// assert!(names.contains(&"LabelEncoder"));
/// assert!(!names.contains(&"TreeEnsemble")); // from ai.onnx.ml 5 on
/// ```
pub fn operators_at(domain: &str, opset: i64) -> impl Iterator<Item = &'static Schema> {
    let operators = self::domain(domain).map_or(&[][..], Domain::operators);
    operators.iter().filter_map(move |op| op.at(opset))
}
