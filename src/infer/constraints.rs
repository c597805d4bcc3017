//! Type constraints: the part of inference the registry alone drives.
//!
//! Each input must have a type its parameter allows, and the inputs (and
//! outputs) of one type variable `T` must all have the same type. An output
//! that has no type yet gets its parameter's only allowed type, or the type
//! its type variable is bound to by the inputs — the generic fallback for
//! operators without a written rule, and what onnx's checker does for
//! every node (`CheckInputOutputType`).

use crate::ops::{self, Parameter, ParameterOption, Schema};
use crate::vocabulary::element_type_name;

use super::context::Node;
use super::error::{fail, ErrorKind, Outcome};
use super::types::{TensorType, Type};

/// Where a value stands on its node.
#[derive(Clone, Copy)]
enum Site {
    Input(usize),
    Output(usize),
}

impl Site {
    /// `input 1 (`x`)`, as messages name it.
    fn describe(self, node: &Node<'_, '_>) -> String {
        match self {
            Site::Input(i) => format!("input {i} (`{}`)", node.input_name(i)),
            Site::Output(i) => format!("output {i} (`{}`)", node.output_name(i)),
        }
    }
}

/// The type each type string (`T`, or a literal type) is bound to, its
/// shapes left out, and where it was bound. A node has a few type
/// variables: a list searched in order is the cheapest map.
type Bindings = Vec<(&'static str, Type, Site)>;

/// Fills the outputs that have no type from the type constraints and, with
/// `check`, reports inputs and outputs whose types the constraints do not
/// allow.
pub(super) fn apply(node: &mut Node<'_, '_>, check: bool) -> Outcome {
    let schema = node.schema;
    let mut bound = Bindings::new();
    for i in 0..node.input_count() {
        let Some(param) = parameter(schema.inputs(), i) else {
            break;
        };
        let Some(ty) = node.input(i).and_then(shapeless) else {
            continue;
        };
        constrain(node, &mut bound, param, ty, Site::Input(i), check)?;
    }
    for i in 0..node.output_count() {
        let Some(param) = parameter(schema.outputs(), i) else {
            break;
        };
        // A heterogeneous output need not have the type its variable's
        // first value has.
        if node.outputs[i].is_unknown() && param.homogeneous() {
            let Some(ty) = constrained_type(schema, param, &bound) else {
                continue;
            };
            node.outputs[i] = ty;
        }
        let Some(ty) = shapeless(&node.outputs[i]) else {
            continue;
        };
        constrain(node, &mut bound, param, ty, Site::Output(i), check)?;
    }
    Ok(())
}

/// With `check`, whether `param` allows `ty` (of the value at `site`), and
/// whether its type variable is bound to another type; binds it when it is
/// not bound yet.
fn constrain(
    node: &Node<'_, '_>,
    bound: &mut Bindings,
    param: &'static Parameter,
    ty: Type,
    site: Site,
    check: bool,
) -> Outcome {
    let schema = node.schema;
    if check && !allows(schema, param, &ty) {
        return Err(not_allowed(schema, param, &site.describe(node), &name(&ty)));
    }
    if !param.homogeneous() {
        return Ok(());
    }
    match bound
        .iter()
        .find(|(type_str, ..)| *type_str == param.type_str())
    {
        None => bound.push((param.type_str(), ty, site)),
        Some((_, first, first_site)) if check && *first != ty => {
            return Err(fail(
                ErrorKind::TypeMismatch,
                format!(
                    "{} is {}, but {} is {}, and both are of type {}",
                    site.describe(node),
                    name(&ty),
                    first_site.describe(node),
                    name(first),
                    param.type_str()
                ),
            ));
        }
        Some(_) => {}
    }
    Ok(())
}

/// `ty` without its shapes, when every part of it is known well enough for
/// onnx to name it in constraints (`tensor(float)`); how constraints
/// compare types.
fn shapeless(ty: &Type) -> Option<Type> {
    let inner = |t: &Type| shapeless(t).map(Box::new);
    let tensor = |t: &TensorType| {
        element_type_name(t.elem_type).map(|_| TensorType {
            elem_type: t.elem_type,
            shape: None,
        })
    };
    Some(match ty {
        Type::Unknown | Type::Opaque(..) => return None,
        Type::Tensor(t) => Type::Tensor(tensor(t)?),
        Type::SparseTensor(t) => Type::SparseTensor(tensor(t)?),
        Type::Sequence(t) => Type::Sequence(inner(t)?),
        Type::Optional(t) => Type::Optional(inner(t)?),
        Type::Map(key, value) => {
            element_type_name(*key)?;
            Type::Map(*key, inner(value)?)
        }
    })
}

/// The name onnx gives a type [`shapeless`] returned.
fn name(ty: &Type) -> String {
    ops::type_string(&ty.to_proto()).unwrap_or_default()
}

/// The formal parameter of actual position `i` (the last one repeats when
/// it is variadic).
fn parameter(params: &'static [Parameter], i: usize) -> Option<&'static Parameter> {
    match params.get(i) {
        Some(p) => Some(p),
        None => params
            .last()
            .filter(|p| p.option() == ParameterOption::Variadic),
    }
}

fn allows(schema: &Schema, param: &'static Parameter, ty: &Type) -> bool {
    let proto = ty.to_proto();
    schema
        .allowed_types(param)
        .iter()
        .any(|allowed| ops::type_matches(allowed, &proto))
}

fn not_allowed(
    schema: &Schema,
    param: &'static Parameter,
    what: &str,
    name: &str,
) -> super::error::Stop {
    let allowed = schema.allowed_types(param);
    let listed = if allowed.len() > 8 {
        format!("{} and {} more", allowed[..8].join(", "), allowed.len() - 8)
    } else {
        allowed.join(", ")
    };
    fail(
        ErrorKind::TypeNotAllowed,
        format!(
            "{what} is {name}, which `{}` does not take as {} ({}: {listed})",
            schema.name(),
            param.name(),
            param.type_str()
        ),
    )
}

/// The type an output of `param` must have: its only allowed type, or the
/// type its type variable is bound to.
fn constrained_type(schema: &Schema, param: &'static Parameter, bound: &Bindings) -> Option<Type> {
    match schema.allowed_types(param) {
        [only] => ops::type_proto(only).map(|proto| Type::from_proto(&proto)),
        _ => bound
            .iter()
            .find(|(type_str, ..)| *type_str == param.type_str())
            .map(|(_, ty, _)| ty.clone()),
    }
}
