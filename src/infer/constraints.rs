//! Type constraints: the part of inference the registry alone drives.
//!
//! Each input must have a type its parameter allows, and the inputs (and
//! outputs) of one type variable `T` must all have the same type. An output
//! that has no type yet gets its parameter's only allowed type, or the type
//! its type variable is bound to by the inputs — the generic fallback for
//! operators without a written rule, and what onnx's checker does for
//! every node (`CheckInputOutputType`).

use foldhash::HashMap;

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
    node: &mut Node<'_, '_>,
    bound: &mut Bindings,
    param: &'static Parameter,
    ty: Type,
    site: Site,
    check: bool,
) -> Outcome {
    let schema = node.schema;
    if check && !allows(&mut node.run.tensor_elements, schema, param, &ty) {
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

/// Whether `param` of `schema` allows `ty` (`memo` keeping what each
/// list of allowed types takes of tensors).
fn allows(
    memo: &mut TensorElements,
    schema: &Schema,
    param: &'static Parameter,
    ty: &Type,
) -> bool {
    let allowed = schema.allowed_types(param);
    let matches = |ty: &Type| {
        let proto = ty.to_proto();
        allowed.iter().any(|a| ops::type_matches(a, &proto))
    };
    // Most values are tensors. Which element types a list takes as a
    // tensor is worked out once per list, by the comparison itself (which
    // reads nothing of a tensor type but its element type).
    let Type::Tensor(tensor) = ty else {
        return matches(ty);
    };
    let Some(bit) = u32::try_from(tensor.elem_type).ok().filter(|&b| b < 64) else {
        return matches(ty);
    };
    let key = (allowed.as_ptr() as usize, allowed.len());
    let elements = *memo.entry(key).or_insert_with(|| {
        let tensor = |elem_type| {
            Type::Tensor(TensorType {
                elem_type,
                shape: None,
            })
        };
        (0..64)
            .filter(|&e| matches(&tensor(e)))
            .fold(0, |m, e| m | 1 << e)
    });
    elements & 1 << bit != 0
}

/// For each list of allowed types (by its address and length: the lists
/// are the registry's, static), the element types it takes as a tensor,
/// as bits (element type `e` is bit `e`).
pub(super) type TensorElements = HashMap<(usize, usize), u64>;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{domains, Domain, Operator};

    /// Whether `param` of `schema` allows `ty`, by comparing `ty` with each
    /// allowed type in turn.
    fn compared(schema: &Schema, param: &'static Parameter, ty: &Type) -> bool {
        let proto = ty.to_proto();
        let allowed = schema.allowed_types(param);
        allowed.iter().any(|a| ops::type_matches(a, &proto))
    }

    #[test]
    fn what_a_list_takes_of_tensors_worked_out_once_is_what_comparing_each_type_finds() {
        let tensor = |elem_type, shape| Type::Tensor(TensorType { elem_type, shape });
        let mut types = Vec::new();
        for elem_type in -1..70 {
            types.push(tensor(elem_type, None));
            types.push(tensor(elem_type, Some(Vec::new())));
        }
        let float = || Box::new(tensor(1, None));
        types.push(Type::Sequence(float()));
        types.push(Type::Optional(float()));
        types.push(Type::Map(7, float()));
        types.push(Type::SparseTensor(TensorType {
            elem_type: 1,
            shape: None,
        }));
        let schemas = domains()
            .iter()
            .flat_map(Domain::operators)
            .flat_map(Operator::versions);
        let (mut memo, mut allowed) = (TensorElements::default(), 0);
        for schema in schemas {
            for param in schema.inputs().iter().chain(schema.outputs()) {
                for ty in &types {
                    let expected = compared(schema, param, ty);
                    assert_eq!(allows(&mut memo, schema, param, ty), expected, "{ty:?}");
                    allowed += usize::from(expected);
                }
            }
        }
        // Many a parameter takes some types, none takes them all.
        assert!(allowed > 10_000, "{allowed}");
    }
}
