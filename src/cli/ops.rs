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
  onnxtxt ops Gelu --function --input-types 'float[N]' --attr 'approximate=\"tanh\"'
                                          the body onnx builds for such a node

Context-dependent functions: the bodies come from onnx for a bounded set of
nodes (with the required inputs and outputs, or all of them; each type
parameter at each type it allows, the others at float; a few attribute values,
one at a time). For another node, the error lists the ones there are.

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
    /// For a context-dependent function: the types of the node's inputs, in
    /// the text syntax, separated by commas (`float[N,4],float[4]`).
    #[arg(long, requires = "function", value_name = "TYPES")]
    pub(crate) input_types: Option<String>,
    /// For a context-dependent function: an attribute of the node, in the
    /// text syntax (`epsilon=1e-6`, `approximate="tanh"`), or several as a
    /// node writes them (`<epsilon=1e-6, axis=1>`); repeatable.
    #[arg(long = "attr", requires = "function", value_name = "NAME=VALUE")]
    pub(crate) attributes: Vec<String>,
    /// For a context-dependent function: how many outputs the node has
    /// [default: the operator's required outputs].
    #[arg(long, requires = "function")]
    pub(crate) outputs: Option<usize>,
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
                if self.function && !schema.context_dependent_function_opsets().is_empty() {
                    self.context_dependent_body(schema, opset)?
                } else if self.function {
                    function_body(schema, opset)?
                } else {
                    schema.signature().to_string()
                }
            }
        };
        write_output(None, text.as_bytes(), false)
    }

    /// The body onnx builds for the node the arguments describe, as
    /// canonical text; or which nodes the registry has bodies for.
    fn context_dependent_body(&self, schema: &Schema, opset: i64) -> Result<String, Failure> {
        let inputs = match &self.input_types {
            Some(text) => input_types(text)?,
            None => Vec::new(),
        };
        let mut attributes = Vec::new();
        for text in &self.attributes {
            attributes.extend(node_attributes(text)?);
        }
        let outputs = self.outputs.unwrap_or(schema.min_outputs());
        let node = ops::Node {
            inputs: &inputs,
            outputs,
            attributes: &attributes,
        };
        if let Some(body) = schema.context_dependent_body(opset, &node) {
            return parsed(schema, &body);
        }
        let (name, since) = (schema.name(), schema.since_version());
        let mut message = format!(
            "`{name}` {since} builds its function body from each node (a context-dependent \
             function), and onnx {}'s bodies here are for a bounded set of nodes, not this one \
             ({} input{}, {outputs} output{}{})",
            ops::ONNX_VERSION,
            inputs.len(),
            if inputs.len() == 1 { "" } else { "s" },
            if outputs == 1 { "" } else { "s" },
            if attributes.is_empty() {
                ""
            } else {
                ", those attributes"
            },
        );
        let contexts: Vec<_> = schema.node_contexts(opset).collect();
        if contexts.is_empty() {
            message.push_str("; there are none for it");
        } else {
            message.push_str(
                "; there are bodies for these (--input-types; outputs; --attr, the others at \
                 their defaults):",
            );
            for context in contexts {
                let _ = write!(message, "\n  {context}");
            }
        }
        Err(Failure::Corrupt(message))
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

/// The types of `--input-types`: text-syntax types separated by commas.
fn input_types(text: &str) -> Result<Vec<onnxtxt::proto::TypeProto>, Failure> {
    let parse = |piece: &str| {
        onnxtxt::parse_type(piece).map_err(|error| Failure::Invalid {
            name: "--input-types".into(),
            text: piece.to_owned(),
            error,
        })
    };
    top_level_items(text).into_iter().map(parse).collect()
}

/// The attributes of one `--attr`: one text-syntax attribute, or a list of
/// them as a node writes it (`<epsilon = 1e-6, axis = 1>`).
fn node_attributes(text: &str) -> Result<Vec<onnxtxt::proto::AttributeProto>, Failure> {
    let trimmed = text.trim();
    let list = trimmed.strip_prefix('<').and_then(|t| t.strip_suffix('>'));
    let parse = |piece: &str| {
        onnxtxt::parse_attribute(piece).map_err(|error| Failure::Invalid {
            name: "--attr".into(),
            text: piece.to_owned(),
            error,
        })
    };
    match list {
        Some(items) => top_level_items(items).into_iter().map(parse).collect(),
        None => Ok(vec![parse(text)?]),
    }
}

/// The items of a comma-separated list (commas inside brackets,
/// parentheses and braces belong to an item).
fn top_level_items(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (at, c) in text.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items
}

/// The registry's `body` of `schema` as canonical text.
fn parsed(schema: &Schema, body: &ops::FunctionBody) -> Result<String, Failure> {
    let function = body.parse().map_err(|e| {
        Failure::Corrupt(format!(
            "the registry's body of `{}` does not parse: {e}",
            schema.name()
        ))
    })?;
    Ok(onnxtxt::to_text(&function))
}

/// The function body that defines `schema` at `opset`, as canonical text.
fn function_body(schema: &Schema, opset: i64) -> Result<String, Failure> {
    if let Some(body) = schema.function_body(opset) {
        return parsed(schema, body);
    }
    let (name, since) = (schema.name(), schema.since_version());
    let message = match schema.function_bodies().first() {
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
