//! The library in the browser: the entry points the page of `web/` calls
//! (through the JavaScript module `wasm-bindgen` makes of this crate, see
//! build.sh). Nothing is parsed, printed or checked here; each function
//! hands its input to `onnxtxt` on the calling thread and turns the answer
//! into values JavaScript reads: bytes, strings, [`Diagnostic`]s, or a
//! thrown `Error` whose message starts with the `LINE:COL` of the problem.
//! Offsets in a text are counted in UTF-16 units, as JavaScript counts
//! them.
//!
//! The page calls these from a web worker (`worker.js`): a long call
//! (printing a big binary) reports how far it got through a [`Progress`].

use std::io::{self, Write};
use std::sync::OnceLock;

use onnxtxt::analysis::{Analysis, Outline, OutlineKind, TokenClass};
use onnxtxt::check::locate;
use onnxtxt::diff::{structural_diff, DiffOptions};
use onnxtxt::infer::fill_value_info;
use onnxtxt::proto::ModelProto;
use onnxtxt::report::severity_name;
use onnxtxt::{
    check_model, decode_model, line_column, looks_like_text, parse_model_with_source_map, Parser,
    Printer, Severity,
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

/// `diagnostics` located, one a line.
fn message<'a>(
    diagnostics: impl IntoIterator<Item = &'a onnxtxt::Diagnostic>,
    text: Option<&str>,
) -> String {
    let lines: Vec<String> = (diagnostics.into_iter())
        .map(|diagnostic| located(diagnostic, text))
        .collect();
    lines.join("\n")
}

/// A JavaScript `Error` whose message is `diagnostics`, one a line.
fn js_error<'a>(
    diagnostics: impl IntoIterator<Item = &'a onnxtxt::Diagnostic>,
    text: Option<&str>,
) -> JsError {
    JsError::new(&message(diagnostics, text))
}

/// One version of the editor's text, analysed once and then asked about:
/// what the page shows as one types and moves the cursor.
#[wasm_bindgen]
pub struct Document {
    analysis: Analysis,
    /// The outline, worked out at the first call that asks (the page asks
    /// at each keystroke and each move of the cursor).
    outline: OnceLock<Vec<Outline>>,
}

#[wasm_bindgen]
impl Document {
    /// Analyses `text`: parses it (recovering from each error) and checks
    /// it when it parses.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str) -> Document {
        Document {
            analysis: Analysis::new(text),
            outline: OnceLock::new(),
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

    /// The tokens worth colouring, three numbers each: where one starts
    /// and ends (UTF-16 units) and its class, an index into
    /// [`token_classes`].
    pub fn tokens(&self) -> Vec<u32> {
        let mut units = Utf16Units::new(self.analysis.text());
        let mut flat = Vec::new();
        for token in self.analysis.semantic_tokens() {
            let class = TOKEN_CLASSES.iter().position(|(c, _)| *c == token.class);
            let class = class.unwrap_or(TOKEN_CLASSES.len());
            let (start, end) = (units.at(token.span.start), units.at(token.span.end));
            flat.extend([start as u32, end as u32, class as u32]);
        }
        flat
    }

    /// What may be written at the cursor `at` (UTF-16 units), as the
    /// language server offers it.
    pub fn completions(&self, at: usize) -> Vec<Suggestion> {
        let text = self.analysis.text();
        let offset = byte_offset(text, at);
        let mut units = Utf16Units::new(text);
        let mut completions = self.analysis.completions(offset);
        completions.sort_by_key(|completion| completion.replace.start);
        (completions.into_iter())
            .map(|completion| Suggestion {
                start: units.at(completion.replace.start),
                end: units.at(completion.replace.end),
                label: completion.label,
                kind: format!("{:?}", completion.kind),
                detail: completion.detail,
                insert: completion.insert,
                snippet: completion.snippet,
            })
            .collect()
    }

    /// The text's graphs, functions and nodes, in the order of the text,
    /// each with its depth (0 for the outermost).
    pub fn outline(&self) -> Vec<OutlineEntry> {
        fn flatten(entries: &[Outline], depth: usize, into: &mut Vec<(usize, Outline)>) {
            for entry in entries {
                into.push((depth, entry.clone()));
                flatten(&entry.children, depth + 1, into);
            }
        }
        let mut flat = Vec::new();
        flatten(self.outline_tree(), 0, &mut flat);
        let mut units = Utf16Units::new(self.analysis.text());
        (flat.into_iter())
            .map(|(depth, entry)| OutlineEntry {
                start: units.at(entry.name_span.start),
                end: units.at(entry.name_span.end),
                name: entry.name,
                detail: entry.detail,
                kind: format!("{:?}", entry.kind),
                depth,
            })
            .collect()
    }

    /// The signature of the operator of the node the cursor `at` (UTF-16
    /// units) is in, at the opset the text imports, as Markdown; `None`
    /// outside a node.
    pub fn signature(&self, at: usize) -> Option<String> {
        let text = self.analysis.text();
        let offset = byte_offset(text, at);
        let node = innermost_node(self.outline_tree(), offset)?;
        // A node's outline entry is named by its operator.
        let (_, markdown) = self.analysis.hover(node.name_span.start)?;
        Some(markdown)
    }
}

impl Document {
    fn outline_tree(&self) -> &[Outline] {
        self.outline.get_or_init(|| self.analysis.outline())
    }
}

/// The innermost node of `outline` whose text holds `offset`.
fn innermost_node(outline: &[Outline], offset: usize) -> Option<&Outline> {
    let entry = outline
        .iter()
        .find(|entry| entry.span.start <= offset && offset <= entry.span.end)?;
    innermost_node(&entry.children, offset)
        .or_else(|| (entry.kind == OutlineKind::Node).then_some(entry))
}

/// The token classes [`Document::tokens`] numbers, with the names the page
/// styles them by.
const TOKEN_CLASSES: [(TokenClass, &str); 14] = [
    (TokenClass::Operator, "operator"),
    (TokenClass::Namespace, "namespace"),
    (TokenClass::Function, "function"),
    (TokenClass::Parameter, "parameter"),
    (TokenClass::Value, "value"),
    (TokenClass::Attribute, "attribute"),
    (TokenClass::Type, "type"),
    (TokenClass::Dimension, "dimension"),
    (TokenClass::Keyword, "keyword"),
    (TokenClass::AnnotationKey, "annotation-key"),
    (TokenClass::Label, "label"),
    (TokenClass::String, "string"),
    (TokenClass::Number, "number"),
    (TokenClass::Comment, "comment"),
];

/// The names of the classes of [`Document::tokens`], by their number.
#[wasm_bindgen]
pub fn token_classes() -> Vec<String> {
    TOKEN_CLASSES
        .iter()
        .map(|(_, name)| name.to_string())
        .collect()
}

/// One completion at the cursor: `insert` replaces the text from `start`
/// to `end` (UTF-16 units).
#[wasm_bindgen(getter_with_clone)]
#[derive(Debug, Clone)]
pub struct Suggestion {
    /// What the list shows.
    pub label: String,
    /// `Operator`, `Function`, `Attribute`, `Value`, `HeaderKey` or `Type`.
    pub kind: String,
    /// An operator's domain and version, an attribute's type...
    pub detail: Option<String>,
    /// The text written.
    pub insert: String,
    /// Whether `insert` has `$1`-style tab stops.
    pub snippet: bool,
    pub start: usize,
    pub end: usize,
}

/// An entry of the outline: a graph, a function or a node, named by the
/// text from `start` to `end` (UTF-16 units; a node by its operator).
#[wasm_bindgen(getter_with_clone)]
#[derive(Debug, Clone)]
pub struct OutlineEntry {
    /// A graph's or function's name, a node's label or first output.
    pub name: String,
    /// A node's operator.
    pub detail: Option<String>,
    /// `Graph`, `Function` or `Node`.
    pub kind: String,
    /// How many entries hold it.
    pub depth: usize,
    pub start: usize,
    pub end: usize,
}

/// Byte offsets of a text turned into UTF-16 offsets, for offsets asked
/// in increasing order (each in one pass over the text between them).
struct Utf16Units<'a> {
    text: &'a str,
    byte: usize,
    unit: usize,
}

impl<'a> Utf16Units<'a> {
    fn new(text: &'a str) -> Self {
        Utf16Units {
            text,
            byte: 0,
            unit: 0,
        }
    }

    /// The UTF-16 offset of the byte offset `byte` (a character boundary).
    fn at(&mut self, byte: usize) -> usize {
        if byte < self.byte {
            (self.byte, self.unit) = (0, 0);
        }
        let between = &self.text[self.byte..byte];
        self.unit += if between.is_ascii() {
            between.len()
        } else {
            between.encode_utf16().count()
        };
        self.byte = byte;
        self.unit
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

/// What the page passes to follow a long call: an object whose
/// `report(bytes)` is called as the output grows.
#[wasm_bindgen]
extern "C" {
    pub type Progress;

    #[wasm_bindgen(method)]
    fn report(this: &Progress, bytes: f64);
}

/// A writer that reports to a [`Progress`] each megabyte written.
struct Reporting<'a, W> {
    out: W,
    written: usize,
    reported: usize,
    progress: Option<&'a Progress>,
}

impl<'a, W: Write> Reporting<'a, W> {
    const EVERY: usize = 1 << 20;

    fn new(out: W, progress: Option<&'a Progress>) -> Self {
        Reporting {
            out,
            written: 0,
            reported: 0,
            progress,
        }
    }
}

impl<W: Write> Write for Reporting<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.out.write(bytes)?;
        self.written += written;
        if let Some(progress) = self.progress {
            if self.written - self.reported >= Self::EVERY {
                self.reported = self.written;
                progress.report(self.written as f64);
            }
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The binary encoding of the model in `text`, as `onnxtxt parse` writes
/// it; throws the syntax errors. `progress` hears of the bytes written.
#[wasm_bindgen]
pub fn parse(text: &str, progress: Option<Progress>) -> Result<Vec<u8>, JsError> {
    let mut bytes = Vec::with_capacity(text.len());
    Parser::new()
        .threads(false)
        .write_model(text, Reporting::new(&mut bytes, progress.as_ref()))
        .map_err(|error| js_error(error.diagnostics(), Some(text)))?
        .map_err(|error| JsError::new(&error.to_string()))?;
    Ok(bytes)
}

/// A model's canonical text, and what `--compat` dropped of it.
#[wasm_bindgen(getter_with_clone)]
#[derive(Debug, Clone)]
pub struct Printed {
    pub text: String,
    /// Each as `onnxtxt print --compat` lists it: `IR path: what`.
    pub dropped: Vec<String>,
}

/// The canonical text of a model given as its binary encoding or as text
/// (what `onnxtxt print` writes for it); `compat` prints what
/// `onnx.parser` reads. Throws what is wrong with the input. `progress`
/// hears of the bytes of text written.
#[wasm_bindgen]
pub fn print(data: &[u8], compat: bool, progress: Option<Progress>) -> Result<Printed, JsError> {
    let printer = Printer::new().threads(false).compat(compat);
    let mut text = Vec::with_capacity(data.len().saturating_mul(4));
    let out = Reporting::new(&mut text, progress.as_ref());
    let dropped = if looks_like_text(data) {
        printer.write(
            &model_of_text(data).map_err(|error| JsError::new(&error))?,
            out,
        )
    } else {
        (printer.write_binary_model(data, out))
            .map_err(|error| js_error(error.diagnostics(), None))?
    };
    let dropped = dropped.map_err(|error| JsError::new(&error.to_string()))?;
    Ok(Printed {
        text: String::from_utf8(text).map_err(|error| JsError::new(&error.to_string()))?,
        dropped: dropped.iter().map(ToString::to_string).collect(),
    })
}

/// The model of the text `data`, or its syntax errors.
fn model_of_text(data: &[u8]) -> Result<ModelProto, String> {
    let text =
        std::str::from_utf8(data).map_err(|error| format!("the text is not UTF-8: {error}"))?;
    (Parser::new().threads(false).parse(text))
        .map_err(|error| message(error.diagnostics(), Some(text)))
}

/// The model of `data`, text or binary, or what is wrong with it.
fn model_of(data: &[u8]) -> Result<ModelProto, String> {
    if looks_like_text(data) {
        return model_of_text(data);
    }
    decode_model(data).map_err(|error| message(error.diagnostics(), None))
}

/// What `onnxtxt check` finds in the model `data` (text or binary), each
/// as `SEVERITY: byte N: IR path: message`; throws what keeps it from
/// being read.
#[wasm_bindgen]
pub fn check(data: &[u8]) -> Result<Vec<String>, JsError> {
    let model = model_of(data).map_err(|error| JsError::new(&error))?;
    Ok((check_model(&model).iter())
        .map(|finding| {
            let severity = severity_name(finding.severity);
            format!("{severity}: {}", located(&finding.diagnostic, None))
        })
        .collect())
}

/// One structural change between two models.
#[wasm_bindgen(getter_with_clone)]
#[derive(Debug, Clone)]
pub struct Change {
    /// Where: `model`, `graph main`, `function local.MyFn`...
    pub scope: String,
    /// What changed.
    pub what: String,
}

/// What changed from the model `old` to `new` (each text or binary), as
/// `onnxtxt diff --structural` lists it; throws what is wrong with either,
/// naming it.
#[wasm_bindgen]
pub fn diff(old: &[u8], new: &[u8]) -> Result<Vec<Change>, JsError> {
    let named = |which: &str, error: String| JsError::new(&format!("the {which} model: {error}"));
    let old = model_of(old).map_err(|error| named("first", error))?;
    let new = model_of(new).map_err(|error| named("second", error))?;
    Ok(
        (structural_diff(&old, &new, &DiffOptions::default()).into_iter())
            .map(|change| Change {
                scope: change.scope,
                what: change.what,
            })
            .collect(),
    )
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
