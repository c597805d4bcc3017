//! Arity: a node has as many inputs and outputs as what it calls takes.
//! For an operator, as onnx.checker counts them (optional parameters may
//! be left out at the end, or given an empty name `""` anywhere; the last
//! parameter may be variadic, taking its minimum arity or more; a few
//! operators allow only some counts between their bounds), and a single
//! (required) parameter may not be given an empty name. For a call of a
//! model-local function, no more than the function declares, and every
//! input its body needs (one it gives an operator as a required input):
//! onnx.checker does not check calls, but a runtime binds a call's inputs
//! and outputs to the function's by position and refuses one too many or
//! a required input left out (onnxruntime: "Number of actual parameters
//! cannot exceed number of formal parameters", "input 1 is marked single
//! but has an empty string"). A call may leave out other trailing inputs,
//! and outputs.

use super::findings::Findings;
use super::model::Site;
use super::operators::Callee;
use crate::ops::{self, Parameter, ParameterOption, Schema};
use crate::proto::FunctionProto;

/// Which list of a node: its inputs or its outputs.
#[derive(Clone, Copy)]
enum Side {
    Inputs,
    Outputs,
}

impl Side {
    fn field(self) -> &'static str {
        match self {
            Side::Inputs => "input",
            Side::Outputs => "output",
        }
    }

    fn code(self) -> &'static str {
        match self {
            Side::Inputs => "onnxtxt::check::input_count",
            Side::Outputs => "onnxtxt::check::output_count",
        }
    }
}

/// The inputs and outputs of the node at `site`, against what it calls.
pub(crate) fn check_node(site: &Site<'_>, callee: &Callee<'_>, findings: &mut Findings) {
    match callee {
        Callee::Schema(schema) => {
            for side in [Side::Inputs, Side::Outputs] {
                against_schema(site, schema, side, findings);
            }
        }
        Callee::Function(_, function) => {
            let name = function.name.as_deref().unwrap_or("");
            against_function(site, name, Side::Inputs, function.input.len(), findings);
            against_function(site, name, Side::Outputs, function.output.len(), findings);
            needed_inputs(site, function, findings);
        }
        Callee::Unknown => {}
    }
}

/// One side of a node of `schema`: the count, then the empty names.
fn against_schema(site: &Site<'_>, schema: &Schema, side: Side, findings: &mut Findings) {
    let (names, parameters, allowed, min, max) = match side {
        Side::Inputs => (
            &site.node.input,
            schema.inputs(),
            schema.allows_inputs(site.node.input.len()),
            schema.min_inputs(),
            schema.max_inputs(),
        ),
        Side::Outputs => (
            &site.node.output,
            schema.outputs(),
            schema.allows_outputs(site.node.output.len()),
            schema.min_outputs(),
            schema.max_outputs(),
        ),
    };
    let given = names.len();
    if !allowed {
        // Too many: at the first one too many; else at the operator.
        let path = match max.filter(|&max| given > max) {
            Some(max) => site.at(format!("{}[{max}]", side.field())),
            None => site.at("op_type"),
        };
        let field = side.field();
        let counts = match side {
            Side::Inputs => ops::input_counts(schema),
            Side::Outputs => ops::output_counts(schema),
        };
        findings
            .error(
                side.code(),
                &site.subject(),
                path,
                format!(
                    "`{}` takes {counts} {field}{}, but the node has {given}",
                    schema.name(),
                    plural(min.max(max.unwrap_or(min)))
                ),
            )
            .help(format!(
                "{field}s of `{}`: {}",
                schema.name(),
                listed(parameters)
            ));
    }
    for (slot, name) in names.iter().enumerate() {
        let Some(parameter) = parameters.get(slot) else {
            break;
        };
        if name.is_empty() && parameter.option() == ParameterOption::Single {
            empty_required(site, schema, side, slot, parameter, findings);
        }
    }
}

/// `s` unless `n` is 1.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `X, W, B (optional)`, or `none`.
fn listed(parameters: &[Parameter]) -> String {
    if parameters.is_empty() {
        return "none".to_string();
    }
    let shown: Vec<String> = parameters
        .iter()
        .map(|p| match p.option() {
            ParameterOption::Optional => format!("{} (optional)", p.name()),
            ParameterOption::Variadic => format!("{}...", p.name()),
            _ => p.name().to_string(),
        })
        .collect();
    shown.join(", ")
}

/// Slot `slot` of a single parameter given the empty name.
fn empty_required(
    site: &Site<'_>,
    schema: &Schema,
    side: Side,
    slot: usize,
    parameter: &Parameter,
    findings: &mut Findings,
) {
    let field = side.field();
    findings
        .error(
            match side {
                Side::Inputs => "onnxtxt::check::empty_input",
                Side::Outputs => "onnxtxt::check::empty_output",
            },
            &site.subject(),
            site.at(format!("{field}[{slot}]")),
            format!(
                "{field} {slot} of `{}` ({}) is required, but its name is empty",
                schema.name(),
                parameter.name()
            ),
        )
        .help(format!(
            "only optional {field}s may be left out with `\"\"`; name the value"
        ));
}

/// One side of a call of function `name`, which declares `declared` of
/// that side: no more than that.
fn against_function(
    site: &Site<'_>,
    name: &str,
    side: Side,
    declared: usize,
    findings: &mut Findings,
) {
    let (given, field) = match side {
        Side::Inputs => (site.node.input.len(), "input"),
        Side::Outputs => (site.node.output.len(), "output"),
    };
    if given <= declared {
        return;
    }
    findings.error(
        side.code(),
        &site.subject(),
        site.at(format!("{field}[{declared}]")),
        format!(
            "function `{name}` has {declared} {field}{}, but the node gives {given}",
            plural(declared)
        ),
    );
}

/// The inputs of `function` its body needs that the call at `site` leaves
/// out (past its last input, or named `""`).
fn needed_inputs(site: &Site<'_>, function: &FunctionProto, findings: &mut Findings) {
    let given = &site.node.input;
    for (slot, formal) in function.input.iter().enumerate() {
        if given.get(slot).is_some_and(|name| !name.is_empty()) {
            continue;
        }
        let Some((node, operator, parameter)) = required_by_body(function, formal) else {
            continue;
        };
        let name = function.name.as_deref().unwrap_or("");
        let path = match given.get(slot) {
            Some(_) => site.at(format!("input[{slot}]")),
            None => site.at("op_type"),
        };
        findings
            .error(
                "onnxtxt::check::empty_input",
                &site.subject(),
                path,
                format!(
                    "input {slot} of function `{name}` ({formal}) is left out, \
                     but its body needs it"
                ),
            )
            .help(format!(
                "node {node} of `{name}` gives it to `{operator}` as {parameter}, \
                 which is not optional: name the value here"
            ));
    }
}

/// Where `function`'s body gives its input `formal` to an operator of
/// onnx's registry (at the version the function imports) as a single,
/// required input: the node's index, its operator and the parameter.
fn required_by_body(
    function: &FunctionProto,
    formal: &str,
) -> Option<(usize, &'static str, &'static str)> {
    function.node.iter().enumerate().find_map(|(index, node)| {
        let domain = node.domain.as_deref().unwrap_or("");
        let version = function
            .opset_import
            .iter()
            .rev()
            .find(|o| o.domain.as_deref().unwrap_or("") == domain)?
            .version?;
        let schema = ops::schema(domain, node.op_type.as_deref()?, version)?;
        let slot = node.input.iter().position(|input| input == formal)?;
        let parameter = schema.inputs().get(slot)?;
        (parameter.option() == ParameterOption::Single)
            .then(|| (index, schema.name(), parameter.name()))
    })
}
