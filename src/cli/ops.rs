//! `onnxtxt ops`: an operator's signature at an opset (inputs, outputs,
//! attributes with types and defaults, type constraints, versions, the
//! onnx.ai link) or its function body, or the operators of a domain in
//! force at an opset. A thin shell over `onnxtxt::ops`.

use std::fmt::Write as _;

use onnxtxt::ops::{self, Domain, Schema};

use super::io::{write_output, Failure};

/// Arguments of `onnxtxt ops`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  onnxtxt ops Conv --opset 19             Conv as a model importing opset 19 has it
  onnxtxt ops --opset 19                  the operators of ai.onnx at opset 19
  onnxtxt ops LabelEncoder                found in ai.onnx.ml, at its latest opset
  onnxtxt ops Softplus --function         the function body that defines it

Exit status: 0 found, 1 no such operator (at that opset), 2 usage errors.")]
pub(crate) struct OpsArgs {
    /// The operator (`op_type`); without one, list the operators in force.
    pub(crate) operator: Option<String>,
    /// The opset version of the domain that the model imports [default: the
    /// domain's latest].
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) opset: Option<i64>,
    /// The domain: ai.onnx (also ""), ai.onnx.ml, ai.onnx.preview or
    /// ai.onnx.preview.training [default: ai.onnx, or the one domain that
    /// has the operator].
    #[arg(long)]
    pub(crate) domain: Option<String>,
    /// Print the function body that defines the operator at that opset (ONNX
    /// text), instead of its signature.
    #[arg(long, requires = "operator")]
    pub(crate) function: bool,
}

impl OpsArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        let domain = self.domain()?;
        let opset = self.opset.unwrap_or(domain.last_opset());
        if !(domain.first_opset()..=domain.last_opset()).contains(&opset) {
            return Err(Failure::Io(format!(
                "onnx {} has opsets {} to {} of {}, not {opset}",
                ops::ONNX_VERSION,
                domain.first_opset(),
                domain.last_opset(),
                domain.display_name(),
            )));
        }
        let text = match &self.operator {
            None => listing(domain, opset),
            Some(name) => {
                let schema = in_force(domain, name, opset)?;
                if self.function {
                    function_body(schema, opset)?
                } else {
                    schema.signature().to_string()
                }
            }
        };
        write_output(None, text.as_bytes(), false)
    }

    /// The domain asked for; without one, the domain that has the operator
    /// (ai.onnx first), or ai.onnx.
    fn domain(&self) -> Result<&'static Domain, Failure> {
        if let Some(name) = &self.domain {
            return ops::domain(name).ok_or_else(|| {
                let known: Vec<_> = ops::domains().iter().map(Domain::display_name).collect();
                Failure::Io(format!(
                    "unknown domain `{name}`; onnx {} has {}",
                    ops::ONNX_VERSION,
                    known.join(", ")
                ))
            });
        }
        let has = |d: &&Domain| {
            let name = self.operator.as_deref();
            name.is_some_and(|n| ops::operator(d.name(), n).is_some())
        };
        let all = ops::domains();
        Ok(all.iter().find(has).unwrap_or(&all[0]))
    }
}

/// The schema of operator `name` in force at `opset` of `domain`, or why
/// there is none.
fn in_force(domain: &Domain, name: &str, opset: i64) -> Result<&'static Schema, Failure> {
    let domain_name = domain.display_name();
    let Some(operator) = ops::operator(domain.name(), name) else {
        let mut message = format!("no operator `{name}` in {domain_name}");
        if let Some(close) = domain.closest_operator(name) {
            let _ = write!(message, "; did you mean `{}`?", close.name());
        }
        return Err(Failure::Corrupt(message));
    };
    operator.at(opset).ok_or_else(|| {
        let first = operator.versions()[0].since_version();
        Failure::Corrupt(format!(
            "`{name}` is in {domain_name} from opset {first} on; opset {opset} does not have it"
        ))
    })
}

/// The function body that defines `schema` at `opset`, as canonical text.
fn function_body(schema: &Schema, opset: i64) -> Result<String, Failure> {
    if let Some(body) = schema.function_body(opset) {
        let function = body.parse().map_err(|e| {
            Failure::Corrupt(format!(
                "the registry's body of `{}` does not parse: {e}",
                schema.name()
            ))
        })?;
        return Ok(onnxtxt::to_text(&function));
    }
    let (name, since) = (schema.name(), schema.since_version());
    let message = match schema.function_bodies().first() {
        _ if !schema.context_dependent_function_opsets().is_empty() => format!(
            "`{name}` {since} builds its function from each node (a context-dependent \
             function): there is no one body"
        ),
        None => format!("`{name}` {since} has no function body"),
        Some(first) => format!(
            "`{name}` {since} has a function body from opset {} on, not at opset {opset}",
            first.opset()
        ),
    };
    Err(Failure::Corrupt(message))
}

/// One line per operator in force: name, since version, `deprecated`.
fn listing(domain: &Domain, opset: i64) -> String {
    let schemas: Vec<&Schema> = ops::operators_at(domain.name(), opset).collect();
    let width = schemas.iter().map(|s| s.name().len()).max().unwrap_or(0);
    let mut text = String::new();
    for schema in schemas {
        let _ = write!(text, "{:width$}  {}", schema.name(), schema.since_version());
        if schema.deprecated() {
            text.push_str("  deprecated");
        }
        text.push('\n');
    }
    text
}
