//! `onnxtxt check`: parse models (text or binary) and report, for each,
//! what the grammar cannot catch ([`onnxtxt::check`]): errors (invalid
//! models) and warnings (valid, but probably not what was meant). Also
//! what `parse --check` shows.
//!
//! Every file is checked even when an earlier one fails. Exit status: 0
//! when no file has errors (warnings allowed, unless `--deny-warnings`), 1
//! when one does or does not parse, 2 for usage and I/O errors.

use std::path::{Path, PathBuf};

use onnxtxt::check::Finding;
use onnxtxt::testcase::{TestCase, TextKind};
use onnxtxt::Severity;

use super::diagnostic_output::{show_message, ErrorFormat, Reporter};
use super::input::read_input;
use super::io::{load_model, Failure, Loaded};

/// What `onnxtxt check --help` says: every check, by the last part of its
/// code (`onnxtxt::check::CODE`), so that the list and the checks can be
/// compared (a test does).
pub(crate) const LONG_ABOUT: &str = "\
Check a model (text or binary) for what the grammar cannot catch.

An error is what the ONNX IR spec or an operator's spec forbids (MUST), or
what onnx.checker rejects: the model is invalid (exit status 1). A warning
is what the specs allow but is probably not what was meant (exit status 0,
or 1 with --deny-warnings). A model the specs allow never gets an error.

Errors:
  undefined_value, use_before_definition
      a value used but never defined, or used before the node that defines it
  reassigned
      a value assigned twice, or a value of an enclosing graph assigned again
  output_not_assigned
      a graph output that nothing assigns (in a function: a warning)
  duplicate_input, duplicate_initializer, duplicate_attribute, duplicate_function
      a name given twice (a function's attribute parameter declared twice
      is a warning unless both are bare names)
  domain_not_imported
      a node whose domain is not in `opset_import`
  missing_ir_version, missing_opset_import, missing_graph, ir_version
      a model without the header fields or the graph it needs; an IR
      version beyond the latest, or before 3 with operator set imports
  duplicate_metadata, graph_without_name, function_header,
  initializer_without_name
      a metadata key given twice; a graph, function or initializer without
      a name; a function without a domain (from IR version 8 on)
  function_without_header
      a second graph, read as a function, with no domain and no opset import
  tensor_size, tensor_type, tensor_field, negative_dimension
      a tensor constant whose values do not fit its shape (as many values,
      or raw bytes, as its dimensions multiply to) or its element type (in
      its field); a negative dimension of a tensor (in a declared type: a
      warning); external data without a location, or with values too
  sparse_tensor
      a sparse tensor whose values are not of rank 1, whose dense shape has
      no elements, or whose indices are not int64, one per value, in range
      and in increasing order
  missing_operator, empty_node
      a node with no operator, or with neither inputs nor outputs
  unknown_operator, operator_too_new, deprecated_operator, ai_onnx_domain
      an operator its domain does not have (with the closest name), has
      only from a later opset, or has deprecated at the imported one; a
      domain written `ai.onnx` (in a domain onnx.checker leaves alone:
      warnings)
  unknown_function
      a call into a domain of model-local functions that has none of that
      name (with the closest name)
  opset_mismatch
      a function that imports a domain at another version than the model,
      calling an operator that differs between the two
  unknown_attribute, attribute_type, attribute_value, missing_attribute
      an attribute the operator does not have (with the closest name and,
      when the operator had it at another opset or it became an input,
      since when), of another type than the operator's, whose value does
      not fit its type, or a required one left out (in a call of a
      model-local function: warnings)
  input_count, output_count, empty_input, empty_output
      more or fewer inputs or outputs than the operator takes, or a
      required one named `\"\"`; a call of a model-local function with
      more inputs or outputs than it declares, or leaving out an input its
      body needs
  window
      a convolution or pooling whose `kernel_shape` is not the weights'
      spatial shape, whose `kernel_shape`, `strides`, `dilations` or `pads`
      do not have a value (two for `pads`) per spatial axis, or whose
      `group` does not divide the channels as the weights say
  missing_shape, initializer_not_input
      a main graph input or output without a shape (its rank); with
      `ir_version` 3 or less, an initializer that is not a graph input
  operator_signature, operator_body_types (with --as-operator)
      the function --as-operator names differs from the operator's schema
      (inputs, outputs, attributes, defaults), or its body fails type
      inference for a combination of types the operator allows

Warnings:
  unused_value, unused_initializer
      a node output or an initializer that nothing reads
  duplicate_output, duplicate_opset_import
      an output listed twice (in a function: an error), a domain imported
      twice
  attribute_reference
      `@name` outside a function, or naming no attribute of the function
  tensor_value
      a value outside its element type's range (int8 holds -128 to 127):
      the spec forbids it, but runtimes wrap it rather than refuse it
  opset_beyond_known
      an operator set imported at a version newer than onnxtxt knows (its
      nodes are not checked beyond it)
  operator_signature, operator_body_types
      a function of a standard domain named after one of its operators
      that differs from it (see the errors of --as-operator)

Type and shape inference (errors, code onnxtxt::infer::...; where
onnx.checker's strict inference fails too):
  incompatible_shapes, axis_out_of_range
      shapes that cannot go together (broadcasting, MatMul's inner
      dimensions), an axis outside [-rank, rank)
  type_not_allowed, type_mismatch
      an element type a type constraint does not allow, or two values of
      one type variable with different types
  declared_type_mismatch
      a declared type or shape that contradicts the inferred one
  invalid
      anything else an operator's rules forbid

A test case (its directory, or its text: see `onnxtxt print CASE_DIR`) is
checked too, each value against its graph input or output (code
onnxtxt::testcase::...):
  data_type
      a value of another kind, element type, rank or size than declared,
      or a symbolic dimension of two sizes in one data set (errors)
  missing_data
      a graph input or output a data set gives no value for (a warning)

Findings are shown where they are in the text (FILE:LINE:COL), or by IR
path for binary input.";

/// Arguments of `onnxtxt check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// The models, text or binary (`-` or none for standard input).
    pub(crate) files: Vec<PathBuf>,
    /// Fail (exit status 1) on warnings too, as on errors: for CI jobs.
    #[arg(long)]
    pub(crate) deny_warnings: bool,
    /// Check the model's function of this name (or its only function)
    /// against the standard operator `DOMAIN.NAME` (`ai.onnx.Gelu`), its
    /// differences as errors.
    #[arg(long, value_name = "DOMAIN.NAME")]
    pub(crate) as_operator: Option<String>,
}

impl CheckArgs {
    /// Checks every model and shows its findings; errors fail the command,
    /// warnings do not.
    pub(crate) fn run(self, format: ErrorFormat) -> Result<(), Failure> {
        let stdin = [PathBuf::from("-")];
        let files = if self.files.is_empty() {
            &stdin[..]
        } else {
            &self.files
        };
        let mut code = 0;
        for path in files {
            let checked = check_one(
                path,
                format,
                self.deny_warnings,
                self.as_operator.as_deref(),
            );
            if let Err(failure) = checked {
                code = code.max(failure.code());
                failure.report(format);
            }
        }
        match code {
            0 => Ok(()),
            code => Err(Failure::Exit(code)),
        }
    }
}

fn check_one(
    path: &Path,
    format: ErrorFormat,
    deny_warnings: bool,
    as_operator: Option<&str>,
) -> Result<(), Failure> {
    let not_for_cases = || Failure::Io("--as-operator checks a model, not a test case".into());
    if path.is_dir() {
        if as_operator.is_some() {
            return Err(not_for_cases());
        }
        let test_case = super::case::read_case_dir(path)?;
        let name = path.display().to_string();
        return show_case_findings(&name, "", &test_case, format, deny_warnings);
    }
    let input = read_input(Some(path))?;
    if super::case::text_kind(&input) == TextKind::Case {
        if as_operator.is_some() {
            return Err(not_for_cases());
        }
        let (name, text) = input.into_text()?;
        let test_case = super::case::parse_case(&name, &text)?;
        return show_case_findings(&name, &text, &test_case, format, deny_warnings);
    }
    let Loaded { name, text, model } = load_model(input)?;
    let findings = match as_operator {
        Some(operator) => onnxtxt::check::check_model_as_operator(&model, operator)
            .map_err(|why| Failure::Io(format!("{name}: {why}")))?,
        None => onnxtxt::check_model(&model),
    };
    // Locating the findings parses the text again: that parse reuses the
    // model's memory rather than fresh pages.
    drop(model);
    show_findings(&name, text.as_deref(), findings, format, deny_warnings)
}

/// The most findings shown for one model: its summary counts them all,
/// and says how many were not shown, so that a model with a million
/// mistakes does not print a million diagnostics. Per model, not per run:
/// a tool checking many models in one run (as the conformance scripts do)
/// gets each model's findings.
pub(crate) const MAX_FINDINGS_SHOWN: usize = 1000;

/// Shows `findings` about the model read from `name` (located in its
/// `text`, for text input), the first [`MAX_FINDINGS_SHOWN`] of them,
/// then a summary; fails (with the summary as its message) when one
/// is an error, or a warning and `deny_warnings`.
pub(crate) fn show_findings(
    name: &str,
    text: Option<&str>,
    mut findings: Vec<Finding>,
    format: ErrorFormat,
    deny_warnings: bool,
) -> Result<(), Failure> {
    if findings.is_empty() {
        return Ok(());
    }
    locate(text, &mut findings);
    let reporter = Reporter::new(format, name, text);
    let shown = show_capped(&reporter, &findings, MAX_FINDINGS_SHOWN);
    summarize(name, &findings, shown, format, deny_warnings)
}

/// Shows the first `room` of `findings`; gives how many it showed.
fn show_capped(reporter: &Reporter<'_>, findings: &[Finding], room: usize) -> usize {
    let shown = findings.len().min(room);
    for finding in &findings[..shown] {
        reporter.show(finding.severity, &finding.diagnostic, &finding.summary);
    }
    shown
}

/// Shows a summary of `findings` about `name`, of which `shown` were
/// shown; fails (with the summary as its message) when one is an error, or
/// a warning and `deny_warnings`.
fn summarize(
    name: &str,
    findings: &[Finding],
    shown: usize,
    format: ErrorFormat,
    deny_warnings: bool,
) -> Result<(), Failure> {
    if findings.is_empty() {
        return Ok(());
    }
    let errors = findings.iter().filter(|f| f.is_error()).count();
    let warnings = findings.len() - errors;
    let not_shown = match findings.len() - shown {
        0 => String::new(),
        n => format!(" ({n} not shown)"),
    };
    let summary = format!(
        "{name}: {}, {}{not_shown}",
        plural(errors, "error"),
        plural(warnings, "warning")
    );
    if errors > 0 {
        return Err(Failure::Corrupt(summary));
    }
    if deny_warnings {
        return Err(Failure::Corrupt(format!("{summary} (warnings denied)")));
    }
    show_message(format, Severity::Warning, &summary);
    Ok(())
}

/// Shows the findings about a test case read from `name` (its `text`, or
/// empty for a directory): its model's, located in the model's part of the
/// text, then its data's, named by data file; then a summary.
pub(crate) fn show_case_findings(
    name: &str,
    text: &str,
    test_case: &TestCase,
    format: ErrorFormat,
    deny_warnings: bool,
) -> Result<(), Failure> {
    let model_text = onnxtxt::testcase::model_text(text);
    let mut findings = onnxtxt::check_model(&test_case.model);
    let text = (!model_text.is_empty()).then_some(model_text);
    locate(text, &mut findings);
    let mut shown = show_capped(
        &Reporter::new(format, name, text),
        &findings,
        MAX_FINDINGS_SHOWN,
    );
    let data_findings = test_case.check();
    let room = MAX_FINDINGS_SHOWN - shown;
    shown += show_capped(&Reporter::new(format, name, None), &data_findings, room);
    findings.extend(data_findings);
    summarize(name, &findings, shown, format, deny_warnings)
}

/// Gives `findings` their spans in `text`, the model's text (none for
/// binary input), and puts them in the order of the text. The items are
/// found by parsing the text again, the slower way that records where
/// things are, and only those the findings name are mapped (so only when
/// something is to be shown).
fn locate(text: Option<&str>, findings: &mut [Finding]) {
    let (Some(text), false) = (text, findings.is_empty()) else {
        return;
    };
    let paths = findings.iter().flat_map(|finding| {
        let path = finding.diagnostic.path.as_deref().unwrap_or_default();
        std::iter::once(path).chain(finding.related.iter().map(|r| r.path.as_str()))
    });
    if let Ok((_, map)) = onnxtxt::parse_model_with_source_map_for(text, paths) {
        onnxtxt::check::locate(&map, findings);
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
