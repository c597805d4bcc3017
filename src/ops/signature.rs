//! A schema's signature as text, for people: what `onnxtxt ops` prints and
//! what an editor shows on hover.

use std::fmt::{self, Display, Formatter, Write as _};

use super::schema::{Parameter, ParameterOption, Schema};

/// Lines of type lists are broken before they get longer than this, to
/// stay readable in an 100-column terminal or a hover box.
const WIDTH: usize = 100;

/// The signature of a schema: since-version and versions, the onnx.ai
/// link, inputs, outputs, attributes with types and defaults, type
/// constraints and function bodies.
///
/// ```
/// let relu = onnxtxt::ops::schema("", "Relu", 14).unwrap();
/// let text = relu.signature().to_string();
/// assert!(text.starts_with("Relu (ai.onnx) version 14\n"));
/// assert!(text.contains("\ninputs (1):\n  X: T\n"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    schema: &'static Schema,
}

impl Schema {
    /// The schema's signature as text (see [`Signature`]).
    pub fn signature(&'static self) -> Signature {
        Signature { schema: self }
    }
}

impl Display for Signature {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let s = self.schema;
        header(f, s)?;
        let inputs = input_counts(s);
        parameters(f, &format!("inputs ({inputs})"), s.inputs())?;
        let outputs = output_counts(s);
        parameters(f, &format!("outputs ({outputs})"), s.outputs())?;
        if !s.attributes().is_empty() {
            writeln!(f, "attributes:")?;
            for attribute in s.attributes() {
                writeln!(f, "  {attribute}")?;
            }
        }
        if !s.type_constraints().is_empty() {
            writeln!(f, "type constraints:")?;
            for constraint in s.type_constraints() {
                let lead = format!("  {}: ", constraint.name());
                writeln!(f, "{}", wrapped(&lead, constraint.allowed_types()))?;
            }
        }
        functions(f, s)
    }
}

/// The name, domain and version, where the version is in force, the other
/// versions and the onnx.ai link.
fn header(f: &mut Formatter<'_>, s: &'static Schema) -> fmt::Result {
    let domain = super::domain(s.domain()).map_or(s.domain(), |d| d.display_name());
    write!(f, "{} ({domain}) version {}", s.name(), s.since_version())?;
    if s.deprecated() {
        f.write_str(", deprecated")?;
    }
    if s.experimental() {
        f.write_str(", experimental")?;
    }
    writeln!(f)?;
    let versions = super::operator(s.domain(), s.name()).map_or(&[][..], |op| op.versions());
    let next = versions
        .iter()
        .find(|v| v.since_version() > s.since_version());
    match next {
        Some(next) => write!(
            f,
            "in force at opsets {} to {}",
            s.since_version(),
            next.since_version() - 1
        )?,
        None => write!(f, "in force from opset {} on", s.since_version())?,
    }
    let all: Vec<String> = versions
        .iter()
        .map(|v| v.since_version().to_string())
        .collect();
    writeln!(f, "; versions {}", all.join(", "))?;
    writeln!(f, "{}\n", s.doc_url())
}

/// How many inputs a node of `s` may have: `2 to 3`, `1`, `1 or more`.
pub(crate) fn input_counts(s: &Schema) -> String {
    count(s.min_inputs(), s.max_inputs(), s.allowed_input_counts())
}

/// How many outputs a node of `s` may have: `1`, `1 or 3`, `1 or more`.
pub(crate) fn output_counts(s: &Schema) -> String {
    count(s.min_outputs(), s.max_outputs(), s.allowed_output_counts())
}

/// `2 to 3`, `1`, `1 or more`, or the counts of `only` (`1 or 3`) when
/// only those are allowed.
fn count(min: usize, max: Option<usize>, only: &[usize]) -> String {
    if let [init @ .., last] = only {
        let init: Vec<String> = init.iter().map(usize::to_string).collect();
        return format!("{} or {last}", init.join(", "));
    }
    match max {
        Some(max) if max == min => min.to_string(),
        Some(max) => format!("{min} to {max}"),
        None => format!("{min} or more"),
    }
}

fn parameters(f: &mut Formatter<'_>, title: &str, list: &[Parameter]) -> fmt::Result {
    writeln!(f, "{title}:")?;
    for p in list {
        write!(f, "  {}: {}", p.name(), p.type_str())?;
        match p.option() {
            ParameterOption::Single => {}
            ParameterOption::Optional => f.write_str(" (optional)")?,
            ParameterOption::Variadic => {
                write!(f, " (variadic, {} or more", p.min_arity())?;
                if !p.homogeneous() {
                    f.write_str(", heterogeneous")?;
                }
                f.write_str(")")?;
            }
        }
        writeln!(f)?;
    }
    Ok(())
}

/// `lead` and `items` separated by `, `, broken into lines of at most
/// [`WIDTH`] columns that continue under the first item.
fn wrapped(lead: &str, items: &[&str]) -> String {
    let mut text = lead.to_owned();
    let mut line_start = 0;
    for (i, item) in items.iter().enumerate() {
        let separator = if i + 1 < items.len() { "," } else { "" };
        let at_start = text.len() == lead.len();
        if !at_start && text.len() - line_start + 1 + item.len() + separator.len() > WIDTH {
            line_start = text.len() + 1;
            let _ = write!(text, "\n{:width$}", "", width = lead.len());
        } else if !at_start {
            text.push(' ');
        }
        text.push_str(item);
        text.push_str(separator);
    }
    text
}

fn functions(f: &mut Formatter<'_>, s: &Schema) -> fmt::Result {
    let opsets = |list: &mut dyn Iterator<Item = i64>| {
        list.map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
    };
    if !s.function_bodies().is_empty() {
        let list = opsets(&mut s.function_bodies().iter().map(|b| b.opset()));
        writeln!(f, "function body: written for opset {list}")?;
    }
    if !s.context_dependent_function_opsets().is_empty() {
        let list = opsets(&mut s.context_dependent_function_opsets().iter().copied());
        writeln!(f, "context-dependent function: for opset {list}")?;
    }
    Ok(())
}
