//! Inference through function bodies: a node calling a function of the
//! model, or an operator defined by a function where no rule is written.
//! The body is inferred for the call site's types, constants, propagated
//! contents and attributes, as onnx's `ProcessCall` does.

use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::sync::{Mutex, OnceLock};

use crate::finding::Related;
use crate::ops::{FunctionBody, Schema};
use crate::proto::{AttributeProto, FunctionProto, NodeProto, TensorProto};

use super::context::Node;
use super::engine::{opsets_of, Inferred, NodeError, NodeFailure, Run, Scope};
use super::error::{ErrorKind, InferError};
use super::names::ValueId;
use super::types::{Dim, Type};

/// A function a node calls: a model-local one or a schema's body.
pub(super) struct Callee<'m> {
    pub function: &'m FunctionProto,
    /// `functions[2]` for a function of the model, `""` for a schema's.
    pub path: String,
    /// How messages name it.
    pub what: String,
    /// For a schema's body: the schema, whose attribute defaults its
    /// attribute references take when the node leaves them out.
    pub schema: Option<&'static Schema>,
}

/// What a call needs of the calling node.
pub(super) struct CallSite<'a, 'm> {
    node: &'m NodeProto,
    attributes: &'a [AttributeProto],
    inputs: Vec<Option<Type>>,
    constants: Vec<Option<&'a TensorProto>>,
    symbolic: Vec<Option<&'a [Dim]>>,
}

/// What a call needs of `node` (whose inputs are the values `ids`, and
/// whose attributes, bound, are `attributes`), from the values of `scope`.
pub(super) fn call_site<'a, 'm>(
    scope: &'a Scope<'_, 'm>,
    node: &'m NodeProto,
    ids: &[ValueId],
    attributes: &'a [AttributeProto],
) -> CallSite<'a, 'm> {
    let mut site = CallSite {
        node,
        attributes,
        inputs: Vec::with_capacity(node.input.len()),
        constants: Vec::with_capacity(node.input.len()),
        symbolic: Vec::with_capacity(node.input.len()),
    };
    for (name, &id) in node.input.iter().zip(ids) {
        let present = !name.is_empty();
        let constant = scope.constants.get(id).filter(|_| present);
        let ty = scope.lookup(id).filter(|t| present && !t.is_unknown());
        site.inputs.push(ty.cloned());
        site.constants.push(constant);
        let symbolic = present && constant.is_none();
        site.symbolic
            .push(symbolic.then(|| scope.lookup_data(id)).flatten());
    }
    site
}

/// What a call needs of the node a rule's context holds.
pub(super) fn context_site<'a, 'm>(context: &Node<'a, 'm>) -> CallSite<'a, 'm> {
    CallSite {
        node: context.proto,
        attributes: context.attributes,
        inputs: context.inputs.iter().map(|t| t.cloned()).collect(),
        constants: context.constants.clone(),
        symbolic: context.symbolic.clone(),
    }
}

impl<'m> Run<'m> {
    /// Infers `callee`'s body for the node of `site`: the body's inputs take
    /// the node's input types, constants and propagated contents, its
    /// attribute references the node's attributes (or the function's
    /// defaults); the node's outputs take the body's outputs' types. An
    /// error in the body is the node's.
    pub(super) fn call(
        &mut self,
        site: &mut CallSite<'_, 'm>,
        callee: Callee<'m>,
    ) -> Result<Inferred, NodeFailure> {
        let function = callee.function;
        let key: *const FunctionProto = function;
        if self.active.contains(&key) {
            return Err(NodeFailure::from(InferError {
                kind: ErrorKind::Invalid,
                message: format!("{} calls itself", callee.what),
            }));
        }
        let opsets = opsets_of(&function.opset_import);
        let bindings = call_bindings(site.attributes, function, callee.schema);
        let names = self.tables.function(function);
        let mut scope = Scope::new(None, names, &opsets, Some(&bindings), &callee.path);
        for (i, formal) in function.input.iter().enumerate() {
            let formal = scope.id(formal);
            if let Some(Some(ty)) = site.inputs.get_mut(i) {
                scope.types[formal as usize] = Some(std::mem::take(ty));
            }
            if let Some(Some(constant)) = site.constants.get(i) {
                scope
                    .constants
                    .insert(formal, Cow::Owned((*constant).clone()));
            }
            if let Some(Some(dims)) = site.symbolic.get(i) {
                if let Some(left) = self.propagation_left.checked_sub(dims.len()) {
                    self.propagation_left = left;
                    scope.data.insert(formal, dims.to_vec());
                }
            }
        }
        self.active.push(key);
        self.nodes(&mut scope, &function.node);
        self.active.pop();
        if !scope.errors.is_empty() {
            return Err(body_failure(&callee, std::mem::take(&mut scope.errors)));
        }
        let count = site.node.output.len();
        let formal = |scope: &Scope<'_, '_>, i: usize| {
            let name = function.output.get(i)?;
            Some(scope.id(name))
        };
        let outputs = (0..count)
            .map(|i| {
                let ty = formal(&scope, i).and_then(|id| scope.types[id as usize].as_ref());
                ty.cloned().unwrap_or_default()
            })
            .collect();
        let data = (0..count)
            .map(|i| {
                let actual = !site.node.output[i].is_empty();
                formal(&scope, i)
                    .filter(|_| actual)
                    .and_then(|id| scope.data.remove(&id))
            })
            .collect();
        Ok((outputs, data))
    }
}

/// The attribute values a call binds: the node's value of each attribute
/// the function declares, else the function's default, else the schema's.
///
/// onnx binds no schema default, and so rejects a body such as
/// `MeanVarianceNormalization`'s, whose `Constant` takes `@axes`, when the
/// node leaves `axes` out; the default is what the node means.
fn call_bindings(
    attributes: &[AttributeProto],
    function: &FunctionProto,
    schema: Option<&'static Schema>,
) -> HashMap<String, AttributeProto> {
    let given = |name: &str| attributes.iter().find(|a| a.name.as_deref() == Some(name));
    let mut bindings = HashMap::new();
    for name in &function.attribute {
        if let Some(value) = given(name) {
            bindings.insert(name.clone(), value.clone());
        }
    }
    for default in &function.attribute_proto {
        let name = default.name.clone().unwrap_or_default();
        let value = given(&name).unwrap_or(default).clone();
        bindings.insert(name, value);
    }
    for attribute in schema.map_or(&[][..], Schema::attributes) {
        let name = attribute.name();
        if let (false, Some(value)) = (bindings.contains_key(name), attribute.default_value()) {
            bindings.insert(name.to_owned(), value.to_attribute(name));
        }
    }
    bindings
}

/// The error of a node whose function body has errors.
fn body_failure(callee: &Callee<'_>, errors: Vec<NodeError>) -> NodeFailure {
    let first = &errors[0];
    let mut message = format!(
        "in {}, {}: {}",
        callee.what, first.subject, first.error.message
    );
    if errors.len() > 1 {
        message.push_str(&format!(" (and {} more)", errors.len() - 1));
    }
    // The body of a function of the model is in the model: show where.
    let related = if callee.path.is_empty() {
        Vec::new()
    } else {
        errors
            .iter()
            .map(|e| Related {
                path: e.path.clone(),
                message: e.error.message.clone(),
            })
            .collect()
    };
    NodeFailure {
        error: InferError {
            kind: first.error.kind,
            message,
        },
        related,
    }
}

/// The parsed function body that defines `schema`'s operator, parsed once
/// per body for the life of the process. As in onnx's inference, that is
/// the body written for the newest opset, whatever the model imports.
pub(super) fn function_body(schema: &'static Schema) -> Option<&'static FunctionProto> {
    type Cache = Mutex<HashMap<usize, Option<&'static FunctionProto>>>;
    static PARSED: OnceLock<Cache> = OnceLock::new();
    let body: &'static FunctionBody = schema.function_bodies().last()?;
    let key = body as *const FunctionBody as usize;
    let mut cache = PARSED
        .get_or_init(Cache::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    *cache
        .entry(key)
        .or_insert_with(|| body.parse().ok().map(|f| &*Box::leak(Box::new(f))))
}
