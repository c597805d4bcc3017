//! The library in the browser: the entry points the page of `web/` calls
//! (through the JavaScript module `wasm-bindgen` makes of this crate, see
//! build.sh). Nothing is parsed, printed or checked here; each function
//! hands its input to `onnxtxt` on the calling thread and turns the answer
//! into values JavaScript reads: bytes, strings, [`Diagnostic`]s, or a
//! thrown `Error` whose message starts with the `LINE:COL` of the problem.

use onnxtxt::analysis::Analysis;
use onnxtxt::check::locate;
use onnxtxt::infer::fill_value_info;
use onnxtxt::proto::ModelProto;
use onnxtxt::report::severity_name;
use onnxtxt::{
    line_column, looks_like_text, parse_model_with_source_map, Parser, Printer, Severity,
};
use wasm_bindgen::prelude::*;

/// One problem of a text, located: a syntax error or a `check` finding.
#[wasm_bindgen(getter_with_clone)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// `"error"` or `"warning"`.
    pub severity: String,
    /// A stable identifier, like `onnxtxt::parse::syntax`.
    pub code: String,
    /// What is wrong.
    pub message: String,
    /// Where it starts, counted from 1 (the column in characters).
    pub line: usize,
    pub column: usize,
    /// Where it ends, counted from 1.
    pub end_line: usize,
    pub end_column: usize,
}

impl Diagnostic {
    fn new(severity: Severity, diagnostic: &onnxtxt::Diagnostic, text: &str) -> Self {
        let (line, column) = line_column(text, diagnostic.span.start);
        let (end_line, end_column) = line_column(text, diagnostic.span.end);
        Diagnostic {
            severity: severity_name(severity).to_owned(),
            code: diagnostic.code.to_owned(),
            message: diagnostic.message.clone(),
            line,
            column,
            end_line,
            end_column,
        }
    }
}

/// `diagnostic` as `LINE:COL: message`, located in `text` (`None`: a
/// binary model, located as `byte N: IR path: message`, as the command
/// locates it).
fn located(diagnostic: &onnxtxt::Diagnostic, text: Option<&str>) -> String {
    let at = diagnostic.span.start;
    match (text, &diagnostic.path) {
        (Some(text), _) => {
            let (line, column) = line_column(text, at);
            format!("{line}:{column}: {}", diagnostic.message)
        }
        (None, Some(path)) => format!("byte {at}: {path}: {}", diagnostic.message),
        (None, None) => format!("byte {at}: {}", diagnostic.message),
    }
}

/// A JavaScript `Error` whose message is `diagnostics`, one a line.
fn js_error<'a>(
    diagnostics: impl IntoIterator<Item = &'a onnxtxt::Diagnostic>,
    text: Option<&str>,
) -> JsError {
    let lines: Vec<String> = (diagnostics.into_iter())
        .map(|diagnostic| located(diagnostic, text))
        .collect();
    JsError::new(&lines.join("\n"))
}

/// One version of the editor's text, analysed once and then asked about:
/// what the page shows as one types and moves the cursor.
#[wasm_bindgen]
pub struct Document {
    analysis: Analysis,
}

#[wasm_bindgen]
impl Document {
    /// Analyses `text`: parses it (recovering from each error) and checks
    /// it when it parses.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str) -> Document {
        Document {
            analysis: Analysis::new(text),
        }
    }

    /// Every problem, in the order of the text: the syntax errors, or, when
    /// the text parses, what `onnxtxt check` finds (the page's check).
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let text = self.analysis.text();
        (self.analysis.diagnostics().iter())
            .map(|problem| Diagnostic::new(problem.severity, &problem.diagnostic, text))
            .collect()
    }

    /// What is known of the item at the cursor (a value's type, an
    /// operator's signature...) as Markdown, the cursor `at` counted in
    /// UTF-16 units as JavaScript counts a string; `None` for nothing.
    pub fn hover(&self, at: usize) -> Option<String> {
        let offset = byte_offset(self.analysis.text(), at);
        self.analysis.hover(offset).map(|(_, markdown)| markdown)
    }
}

/// The byte offset in `text` of the UTF-16 offset `at` (the end of the
/// text if past it).
fn byte_offset(text: &str, at: usize) -> usize {
    let mut units = 0;
    for (offset, character) in text.char_indices() {
        if units >= at {
            return offset;
        }
        units += character.len_utf16();
    }
    text.len()
}

/// The binary encoding of the model in `text`, as `onnxtxt parse` writes
/// it; throws the syntax errors.
#[wasm_bindgen]
pub fn parse(text: &str) -> Result<Vec<u8>, JsError> {
    let mut bytes = Vec::with_capacity(text.len());
    Parser::new()
        .threads(false)
        .write_model(text, &mut bytes)
        .map_err(|error| js_error(error.diagnostics(), Some(text)))?
        .map_err(|error| JsError::new(&error.to_string()))?;
    Ok(bytes)
}

/// The canonical text of a model given as its binary encoding or as text
/// (what `onnxtxt print` writes for it); `compat` prints what
/// `onnx.parser` reads. Throws what is wrong with the input.
#[wasm_bindgen]
pub fn print(data: &[u8], compat: bool) -> Result<String, JsError> {
    let printer = Printer::new().threads(false).compat(compat);
    if looks_like_text(data) {
        let text = std::str::from_utf8(data)
            .map_err(|error| JsError::new(&format!("the text is not UTF-8: {error}")))?;
        let model: ModelProto = (Parser::new().threads(false).parse(text))
            .map_err(|error| js_error(error.diagnostics(), Some(text)))?;
        return Ok(printer.print(&model).text);
    }
    let mut text = Vec::with_capacity(data.len().saturating_mul(4));
    printer
        .write_binary_model(data, &mut text)
        .map_err(|error| js_error(error.diagnostics(), None))?
        .map_err(|error| JsError::new(&error.to_string()))?;
    String::from_utf8(text).map_err(|error| JsError::new(&error.to_string()))
}

/// The model in `text` with the inferred types of its values, in the
/// canonical style, as `onnxtxt infer` writes it; throws the syntax errors,
/// or the errors inference finds.
#[wasm_bindgen]
pub fn infer(text: &str) -> Result<String, JsError> {
    let (mut model, map) = parse_model_with_source_map(text)
        .map_err(|error| js_error(error.diagnostics(), Some(text)))?;
    let mut findings = fill_value_info(&mut model, Default::default());
    locate(&map, &mut findings);
    let errors = (findings.iter())
        .filter(|finding| finding.severity == Severity::Error)
        .map(|finding| &finding.diagnostic);
    if errors.clone().next().is_some() {
        return Err(js_error(errors, Some(text)));
    }
    Ok(Printer::new().threads(false).print(&model).text)
}

/// Whether `data` is a model's text rather than its binary encoding (as
/// the command tells them apart).
#[wasm_bindgen]
pub fn is_text(data: &[u8]) -> bool {
    looks_like_text(data)
}

/// `text` in the canonical style, its comments kept, as `onnxtxt fmt`
/// writes it; throws its syntax errors.
#[wasm_bindgen]
pub fn fmt(text: &str) -> Result<String, JsError> {
    onnxtxt::format(text).map_err(|error| js_error(error.diagnostics(), Some(text)))
}
