//! Context-dependent function bodies: for some operators (Gelu 20,
//! LayerNormalization 17, CastLike, Softmax 13...) onnx builds the function
//! body for each node, from its input types, the inputs and outputs it has
//! and its attribute values. The registry holds the bodies onnx builds for a
//! bounded set of such node contexts (`generated/context_bodies.rs`, written
//! by `grammar/operators.py`, which says which contexts it writes); this
//! finds the one that fits a node.
//!
//! ```
//! use onnxtxt::ops::{self, Node};
//!
//! let gelu = ops::schema("", "Gelu", 20).unwrap();
//! let x = onnxtxt::parse_type("float[N]")?;
//! let tanh = onnxtxt::parse_attribute(r#"approximate = "tanh""#)?;
//! let node = Node { inputs: &[x], outputs: 1, attributes: &[tanh] };
//! let body = gelu.context_dependent_body(20, &node).unwrap().parse()?;
//! assert!(body.node.iter().any(|n| n.op_type() == "Tanh"));
//! # Ok::<(), onnxtxt::Error>(())
//! ```

use std::fmt;

use crate::proto::attribute_proto::AttributeType;
use crate::proto::{type_proto, AttributeProto, TypeProto};

use super::generated::context_bodies::{BODIES, CONTEXTS};
use super::schema::{body, newest_up_to, AttributeValue, FunctionBody, Schema};
use super::types::type_string;

/// One node context of a context-dependent operator version, with the body
/// onnx builds for it.
#[derive(Debug)]
pub struct NodeContext {
    pub(super) domain: &'static str,
    pub(super) name: &'static str,
    pub(super) since_version: i64,
    pub(super) opset: i64,
    inputs: &'static [&'static str],
    outputs: usize,
    rank: Option<usize>,
    attributes: &'static [(&'static str, AttributeValue)],
    body: usize,
}

/// The context of a node of `name` `since_version` of `domain` built at
/// `opset` (see [`NodeContext`]), whose body is `BODIES[body]`.
#[allow(clippy::too_many_arguments)] // one generated line per context
pub(super) const fn context(
    domain: &'static str,
    name: &'static str,
    since_version: i64,
    opset: i64,
    inputs: &'static [&'static str],
    outputs: usize,
    rank: Option<usize>,
    attributes: &'static [(&'static str, AttributeValue)],
    body: usize,
) -> NodeContext {
    NodeContext {
        domain,
        name,
        since_version,
        opset,
        inputs,
        outputs,
        rank,
        attributes,
        body,
    }
}

/// A node of a context-dependent operator, as far as its body depends on
/// it: the types of its inputs, how many outputs it has, its attributes.
#[derive(Clone, Copy, Debug)]
pub struct Node<'a> {
    /// The types of its inputs, in order.
    pub inputs: &'a [TypeProto],
    /// How many outputs it has.
    pub outputs: usize,
    /// Its attributes; one at the schema's default is the same as none.
    pub attributes: &'a [AttributeProto],
}

impl NodeContext {
    /// The opset of the operator's domain the body is built for.
    pub fn opset(&self) -> i64 {
        self.opset
    }

    /// The type of each input, as onnx writes types (`tensor(float)`), or
    /// `*` where the body is the same for every type the schema allows.
    pub fn inputs(&self) -> &'static [&'static str] {
        self.inputs
    }

    /// How many outputs the node has.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// The rank of the first input, where the body depends on it.
    pub fn rank(&self) -> Option<usize> {
        self.rank
    }

    /// The attributes not at their default.
    pub fn attributes(&self) -> &'static [(&'static str, AttributeValue)] {
        self.attributes
    }

    /// The body onnx builds for such a node.
    pub fn body(&self) -> FunctionBody {
        body(self.opset, BODIES[self.body])
    }

    fn is_of(&self, schema: &Schema, opset: i64) -> bool {
        (self.domain, self.name, self.since_version, self.opset)
            == (
                schema.domain(),
                schema.name(),
                schema.since_version(),
                opset,
            )
    }

    /// Whether `node`, of `schema`, is in this context.
    fn fits(&self, schema: &Schema, node: &Node<'_>) -> bool {
        let types_fit = self.inputs.len() == node.inputs.len()
            && self.inputs.iter().zip(node.inputs).all(|(ours, theirs)| {
                *ours == "*" || type_string(theirs).is_some_and(|t| t == *ours)
            });
        let rank_fits = self
            .rank
            .is_none_or(|rank| node.inputs.first().and_then(rank_of) == Some(rank));
        let given: Vec<AttributeProto> = node
            .attributes
            .iter()
            .map(|a| as_declared(schema, a))
            .filter(|a| !at_default(schema, a))
            .collect();
        let attributes_fit = given.len() == self.attributes.len()
            && self.attributes.iter().all(|(name, value)| {
                let ours = value.to_attribute(name);
                given
                    .iter()
                    .any(|a| a.name() == *name && same_value(a, &ours))
            });
        types_fit && rank_fits && self.outputs == node.outputs && attributes_fit
    }
}

/// The context as the command line gives it: `float, float; 1 output;
/// epsilon: float = 1e-06`.
impl fmt::Display for NodeContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |t: &&str| match *t {
            "*" => "any".to_owned(),
            t => t
                .strip_prefix("tensor(")
                .and_then(|t| t.strip_suffix(')'))
                .unwrap_or(t)
                .to_owned(),
        };
        let inputs: Vec<String> = self.inputs.iter().map(shown).collect();
        write!(f, "{}", inputs.join(","))?;
        if let Some(rank) = self.rank {
            write!(f, " (rank {rank})")?;
        }
        let plural = if self.outputs == 1 { "" } else { "s" };
        write!(f, "; {} output{plural}", self.outputs)?;
        for (name, value) in self.attributes {
            write!(f, "; {}", crate::to_text(&value.to_attribute(name)))?;
        }
        Ok(())
    }
}

impl Schema {
    /// The node contexts the registry has a body for, for a model that
    /// imports `opset` of the schema's domain (empty when the schema's
    /// function does not depend on the node).
    pub fn node_contexts(&self, opset: i64) -> impl Iterator<Item = &'static NodeContext> + '_ {
        let built_at = newest_up_to(self.context_dependent_function_opsets, opset, |v| *v);
        CONTEXTS
            .iter()
            .filter(move |c| built_at.is_some_and(|at| c.is_of(self, *at)))
    }

    /// The body onnx builds for `node` in a model that imports `opset`, if
    /// the registry has its context (see [`Schema::node_contexts`]).
    pub fn context_dependent_body(&self, opset: i64, node: &Node<'_>) -> Option<FunctionBody> {
        let mut contexts = self.node_contexts(opset);
        contexts.find(|c| c.fits(self, node)).map(NodeContext::body)
    }
}

/// All the node contexts of the registry.
#[cfg(test)]
pub(super) fn all() -> &'static [NodeContext] {
    CONTEXTS
}

/// The rank of a tensor type with a shape.
fn rank_of(ty: &TypeProto) -> Option<usize> {
    match ty.value.as_ref()? {
        type_proto::Value::TensorType(t) => Some(t.shape.as_ref()?.dim.len()),
        _ => None,
    }
}

/// `attribute` with the type the schema declares, where the text wrote a
/// number as the other kind (`alpha = 2` for a float).
fn as_declared(schema: &Schema, attribute: &AttributeProto) -> AttributeProto {
    let declared = schema.attribute(attribute.name()).map(|a| a.ty());
    let mut out = attribute.clone();
    match (declared, attribute.r#type()) {
        (Some(AttributeType::Float), AttributeType::Int) => {
            out.f = attribute.i.map(|i| i as f32);
            out.i = None;
            out.r#type = Some(AttributeType::Float as i32);
        }
        (Some(AttributeType::Floats), AttributeType::Ints) => {
            out.floats = attribute.ints.iter().map(|&i| i as f32).collect();
            out.ints.clear();
            out.r#type = Some(AttributeType::Floats as i32);
        }
        _ => {}
    }
    out
}

/// Whether `attribute` has the schema's default value.
fn at_default(schema: &Schema, attribute: &AttributeProto) -> bool {
    let default = schema
        .attribute(attribute.name())
        .and_then(|a| a.default_value());
    default.is_some_and(|d| same_value(attribute, &d.to_attribute(attribute.name())))
}

/// Whether two attributes have the same type and value.
fn same_value(a: &AttributeProto, b: &AttributeProto) -> bool {
    let bare = |a: &AttributeProto| AttributeProto {
        doc_string: None,
        ..a.clone()
    };
    bare(a) == bare(b)
}
