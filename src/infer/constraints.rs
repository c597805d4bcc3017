//! Type constraints: the part of inference the registry alone drives.
//!
//! Each input must have a type its parameter allows, and the inputs (and
//! outputs) of one type variable `T` must all have the same type. An output
//! that has no type yet gets its parameter's only allowed type, or the type
//! its type variable is bound to by the inputs — the generic fallback for
//! operators without a written rule, and what onnx's checker does for
//! every node (`CheckInputOutputType`).

use std::collections::HashMap;

use crate::ops::{self, Parameter, ParameterOption, Schema};

use super::context::Node;
use super::error::{fail, ErrorKind, Outcome};
use super::types::Type;

/// Fills the outputs that have no type from the type constraints and, with
/// `check`, reports inputs and outputs whose types the constraints do not
/// allow.
pub(super) fn apply(node: &mut Node<'_, '_>, check: bool) -> Outcome {
    let schema = node.schema;
    // Type string (`T`, or a literal type) -> the type bound to it, in
    // onnx's notation, and what bound it.
    let mut bound: HashMap<&'static str, (String, String)> = HashMap::new();
    for i in 0..node.input_count() {
        let Some(param) = parameter(schema.inputs(), i) else {
            break;
        };
        let Some(ty) = node.input(i) else { continue };
        let Some(name) = type_name(ty) else { continue };
        let what = format!("input {i} (`{}`)", node.input_name(i));
        if check && !allows(schema, param, ty) {
            return Err(not_allowed(schema, param, &what, &name));
        }
        if param.homogeneous() {
            bind(&mut bound, param, name, what, check)?;
        }
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
        let ty = &node.outputs[i];
        let Some(name) = type_name(ty) else { continue };
        let what = format!("output {i} (`{}`)", node.output_name(i));
        if check && !allows(schema, param, ty) {
            return Err(not_allowed(schema, param, &what, &name));
        }
        if param.homogeneous() {
            bind(&mut bound, param, name, what, check)?;
        }
    }
    Ok(())
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

/// The type as onnx names it in constraints (`tensor(float)`), when every
/// part of it is known.
fn type_name(ty: &Type) -> Option<String> {
    if ty.is_unknown() {
        return None;
    }
    ops::type_string(&ty.to_proto())
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

/// Binds `param`'s type string to `name`; with `check`, a different type
/// already bound to it is an error.
fn bind(
    bound: &mut HashMap<&'static str, (String, String)>,
    param: &'static Parameter,
    name: String,
    what: String,
    check: bool,
) -> Outcome {
    match bound.get(param.type_str()) {
        None => {
            bound.insert(param.type_str(), (name, what));
        }
        Some((first, first_what)) if check && *first != name => {
            return Err(fail(
                ErrorKind::TypeMismatch,
                format!(
                    "{what} is {name}, but {first_what} is {first}, and both are of type {}",
                    param.type_str()
                ),
            ));
        }
        Some(_) => {}
    }
    Ok(())
}

/// The type an output of `param` must have: its only allowed type, or the
/// type its type variable is bound to.
fn constrained_type(
    schema: &Schema,
    param: &'static Parameter,
    bound: &HashMap<&'static str, (String, String)>,
) -> Option<Type> {
    let name = match schema.allowed_types(param) {
        [only] => *only,
        _ => bound.get(param.type_str())?.0.as_str(),
    };
    ops::type_proto(name).map(|proto| Type::from_proto(&proto))
}
