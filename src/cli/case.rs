//! Test cases and their data files in the commands ([`onnxtxt::testcase`]):
//! `print` of a data file or case directory, `parse` of a data value or
//! case text, `check` of a case's data against its model.

use std::path::{Path, PathBuf};

use onnxtxt::testcase::{decode_value, Kind, TestCase, TextKind, Value};

use super::input::Input;
use super::io::{write_output, Failure};

/// What `print --as` reads the input as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ReadAs {
    /// A `ModelProto`.
    Model,
    /// A `TensorProto`.
    Tensor,
    /// A `SequenceProto`.
    Sequence,
    /// A `MapProto`.
    Map,
    /// An `OptionalProto`.
    Optional,
}

impl ReadAs {
    /// The data kind, for all but `model`.
    pub(crate) fn kind(self) -> Option<Kind> {
        match self {
            ReadAs::Model => None,
            ReadAs::Tensor => Some(Kind::Tensor),
            ReadAs::Sequence => Some(Kind::Sequence),
            ReadAs::Map => Some(Kind::Map),
            ReadAs::Optional => Some(Kind::Optional),
        }
    }
}

/// Reads the case directory `dir`.
pub(crate) fn read_case_dir(dir: &Path) -> Result<TestCase, Failure> {
    TestCase::read_dir(dir).map_err(|e| match e.problem {
        onnxtxt::testcase::CaseProblem::Io(_) => Failure::Io(e.to_string()),
        _ => Failure::Corrupt(e.to_string()),
    })
}

/// Parses a case's text (from the input named `name`).
pub(crate) fn parse_case(name: &str, text: &str) -> Result<TestCase, Failure> {
    TestCase::parse(text).map_err(|error| Failure::Invalid {
        name: name.to_owned(),
        text: text.to_owned(),
        error,
    })
}

/// What a text input holds.
pub(crate) fn text_kind(input: &Input) -> TextKind {
    match std::str::from_utf8(&input.bytes) {
        Ok(text) => onnxtxt::testcase::text_kind(text),
        Err(_) => TextKind::Model,
    }
}

/// Decodes the binary data file `input` as `kind`, or by its content
/// (of the kinds its bytes read as, the first whose fields agree: printed
/// as that, it parses back to the same bytes whichever it was meant as).
pub(crate) fn decode_data(name: &str, bytes: &[u8], kind: Option<Kind>) -> Result<Value, Failure> {
    let decoded = match kind {
        Some(kind) => Value::decode_as(kind, bytes),
        None => decode_value(bytes).map(|decoded| decoded.value),
    };
    decoded.map_err(|error| Failure::Binary {
        name: name.to_owned(),
        error,
    })
}

/// Prints `item` to `output`, a line of its own; gives what compat mode
/// dropped.
pub(crate) fn print_text<T: onnxtxt::Print + ?Sized>(
    item: &T,
    printer: &onnxtxt::Printer,
    output: Option<&PathBuf>,
) -> Result<Vec<onnxtxt::Dropped>, Failure> {
    let printed = printer.print(item);
    let mut text = printed.text;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    write_output(output, text.as_bytes(), false)?;
    Ok(printed.dropped)
}

/// In compat mode, refuses what the reference syntax cannot express at all
/// (`what`: a sequence, a test case...), rather than print nothing.
pub(crate) fn refuse_in_compat(compat: bool, what: &str) -> Result<(), Failure> {
    if compat {
        return Err(Failure::Corrupt(format!(
            "the reference syntax (--compat) has no {what}: print it without --compat"
        )));
    }
    Ok(())
}

/// How a data value is named in messages that refuse it.
pub(crate) fn what_value(value: &Value) -> Option<&'static str> {
    match value {
        Value::Tensor(_) => None,
        Value::Sequence(_) => Some("sequences"),
        Value::Map(_) => Some("maps"),
        Value::Optional(_) => Some("optionals"),
    }
}

/// Writes the case directory `output` (which must be given).
pub(crate) fn write_case(case: &TestCase, output: Option<&PathBuf>) -> Result<(), Failure> {
    let Some(dir) = output.filter(|p| p.as_os_str() != "-") else {
        return Err(Failure::Io(
            "a test case is written as a directory: give it with -o CASE_DIR".into(),
        ));
    };
    case.write_dir(dir)
        .map_err(|e| Failure::Io(format!("cannot write {}: {e}", dir.display())))
}

/// For `diff`: the canonical text of `path` when it is a test case (a
/// directory or its text) or a data value (text, or binary that is no
/// model); else its input, read once, for the model's reader.
pub(crate) fn case_text_or_input(path: &Path) -> Result<Result<String, Input>, Failure> {
    if path.is_dir() {
        return Ok(Ok(onnxtxt::to_text(&read_case_dir(path)?)));
    }
    let input = super::input::read_input(Some(path))?;
    if !onnxtxt::looks_like_text(&input.bytes) {
        if onnxtxt::decode_model(&input.bytes).is_ok() {
            return Ok(Err(input));
        }
        return Ok(match decode_value(&input.bytes) {
            Ok(decoded) => Ok(onnxtxt::to_text(&decoded.value)),
            Err(_) => Err(input),
        });
    }
    let text = match std::str::from_utf8(&input.bytes) {
        Ok(text) => text,
        Err(_) => return Ok(Err(input)),
    };
    let invalid = |error| Failure::Invalid {
        name: input.name.clone(),
        text: text.to_owned(),
        error,
    };
    Ok(match onnxtxt::testcase::text_kind(text) {
        TextKind::Model => Err(input),
        TextKind::Case => Ok(onnxtxt::to_text(&parse_case(&input.name, text)?)),
        TextKind::Value => Ok(onnxtxt::to_text(
            &onnxtxt::parse_value(text).map_err(invalid)?,
        )),
    })
}
