//! A case's IR, model or function, with onnxtxt's decoder, printer and
//! parser applied to it; panics become errors, so that one bad case does not
//! hide the others.

use std::panic::{catch_unwind, AssertUnwindSafe};

use onnxtxt::proto::{FunctionProto, ModelProto};
use onnxtxt::Printed;
use onnxtxt::Printer;
use prost::Message as _;

use super::corpus::CaseKind;
use super::diff::clip;

pub enum Ir {
    Model(ModelProto),
    Function(FunctionProto),
}

impl Ir {
    /// Decodes an original binary: models with `onnxtxt::decode_model` (which
    /// refuses what would not print losslessly), functions with prost.
    pub fn decode(kind: CaseKind, bytes: &[u8]) -> Result<Ir, String> {
        guard("decoding", || match kind {
            CaseKind::Model => onnxtxt::decode_model(bytes)
                .map(Ir::Model)
                .map_err(|err| format!("decode_model: {err}")),
            CaseKind::Function => FunctionProto::decode(bytes)
                .map(Ir::Function)
                .map_err(|err| format!("FunctionProto::decode: {err}")),
        })?
    }

    /// onnxtxt's parse of `text`; an error (or panic) is described with its
    /// position and line.
    pub fn parse(kind: CaseKind, text: &str) -> Result<Ir, String> {
        let parsed = guard("parsing", || match kind {
            CaseKind::Model => onnxtxt::parse_model(text).map(Ir::Model),
            CaseKind::Function => onnxtxt::parse_function(text).map(Ir::Function),
        })?;
        parsed.map_err(|err| describe_error(&err.to_string(), err.span().start, text))
    }

    /// Prints with `printer`; a panic is an error.
    pub fn print(&self, printer: Printer) -> Result<Printed, String> {
        guard("printing", || match self {
            Ir::Model(m) => printer.print(m),
            Ir::Function(f) => printer.print(f),
        })
    }

    pub fn encode(&self) -> Vec<u8> {
        match self {
            Ir::Model(m) => m.encode_to_vec(),
            Ir::Function(f) => f.encode_to_vec(),
        }
    }
}

/// Runs `f`, turning a panic into an error naming `what`.
fn guard<R>(what: &str, f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        format!("{what} panicked: {message}")
    })
}

/// An error message with its line and column and the line itself.
pub fn describe_error(message: &str, offset: usize, text: &str) -> String {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line_no = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    let column = offset - line_start + 1;
    format!("{message}\n  at {line_no}:{column}: {}", clip(line))
}
