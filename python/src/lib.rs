//! `onnxtxt._onnxtxt`, the extension module of the Python package
//! (`onnxtxt/__init__.py` wraps it): the library's entry points over
//! serialized protos. Nothing is parsed, printed or checked here; each
//! function hands its input to `onnxtxt` with the GIL released, and turns
//! an `onnxtxt::Error` into a `ParseError` that carries every diagnostic.
//!
//! Nothing is copied on the way in or out that need not be: a `str` is
//! read in place (its UTF-8, which CPython keeps for an ASCII string), as
//! are `bytes` and memoryviews of them ([`Serialized`]); an `onnx` proto
//! is serialized here, not in a Python wrapper ([`Given`]); a parse's
//! result is encoded straight into the `bytes` returned ([`Encoded`]), and
//! a long printed text straight into the `str` returned ([`text_str`]).

use onnxtxt::check::{check_model, check_text, Finding};
use onnxtxt::prost::Message;
use onnxtxt::proto::{
    AttributeProto, FunctionProto, GraphProto, NodeProto, TensorProto, TypeProto, ValueInfoProto,
};
use onnxtxt::proto::{MapProto, OptionalProto, SequenceProto};
use onnxtxt::report::Renderer;
use onnxtxt::{decode, decode_model, line_column, Decode, Error, Parse, Parser, Print, Printer};
use onnxtxt::{EncodedModel, Severity, Span};
use pyo3::buffer::PyUntypedBuffer;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyBytes, PyMemoryView, PyString};
use std::mem::MaybeUninit;
use std::ops::{Deref, Range};

/// Every Rust allocation of the module (see Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    onnxtxt,
    ParseError,
    PyValueError,
    "The input is not valid: `diagnostics` holds every problem found \
     (a list of `Diagnostic`), `str()` draws them over the source lines; \
     `line`, `column` and `code` are the first one's."
);

/// What a text is called in a drawn diagnostic, as Python names source
/// given as a string.
const TEXT_NAME: &str = "<string>";
/// What a binary model is called in a drawn diagnostic.
const BINARY_NAME: &str = "<bytes>";

/// One problem found in the input: a syntax error, a decoding error or a
/// `check` finding.
#[pyclass(module = "onnxtxt", frozen, get_all)]
struct Diagnostic {
    /// `"error"` or `"warning"`.
    level: &'static str,
    /// A stable identifier, like `onnxtxt::parse::syntax`.
    code: String,
    /// What is wrong.
    message: String,
    /// Where it starts in the text, counted from 1 (the column in
    /// characters); `None` for a binary model.
    line: Option<usize>,
    column: Option<usize>,
    /// Where it ends in the text; `None` for a binary model.
    end_line: Option<usize>,
    end_column: Option<usize>,
    /// The byte range of the text or binary model it is about.
    start: usize,
    end: usize,
    /// Where it is in the IR (`graph.node[3].input[0]`), when known.
    path: Option<String>,
    /// How to fix it, when that is clear.
    help: Option<String>,
    /// Other places worth knowing about, as `LINE:COLUMN: what` (`byte N:
    /// what` for a binary model).
    notes: Vec<String>,
}

/// A [`Diagnostic`]'s fields, in the order they are declared: what
/// `pickle` stores of one.
type Fields = (
    String,
    String,
    String,
    Option<usize>,
    Option<usize>,
    Option<usize>,
    Option<usize>,
    usize,
    usize,
    Option<String>,
    Option<String>,
    Vec<String>,
);

#[pymethods]
impl Diagnostic {
    /// A diagnostic from its fields, as `pickle` rebuilds one (see
    /// `__reduce__`).
    #[new]
    fn unpickled(fields: Fields) -> PyResult<Self> {
        let level = [Severity::Error, Severity::Warning]
            .map(onnxtxt::report::severity_name)
            .into_iter()
            .find(|name| *name == fields.0)
            .ok_or_else(|| PyValueError::new_err(format!("no level {:?}", fields.0)))?;
        Ok(Diagnostic {
            level,
            code: fields.1,
            message: fields.2,
            line: fields.3,
            column: fields.4,
            end_line: fields.5,
            end_column: fields.6,
            start: fields.7,
            end: fields.8,
            path: fields.9,
            help: fields.10,
            notes: fields.11,
        })
    }

    /// How `pickle` stores a diagnostic: its class and fields (so a
    /// `ParseError`, which holds a list of them, pickles too).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, pyo3::types::PyType>, (Fields,)) {
        let d = slf.get();
        let fields = (
            d.level.to_owned(),
            d.code.clone(),
            d.message.clone(),
            d.line,
            d.column,
            d.end_line,
            d.end_column,
            d.start,
            d.end,
            d.path.clone(),
            d.help.clone(),
            d.notes.clone(),
        );
        (slf.get_type(), (fields,))
    }

    fn __repr__(&self) -> String {
        let at = match (self.line, self.column) {
            (Some(line), Some(column)) => format!("{line}:{column}"),
            _ => format!("byte {}", self.start),
        };
        format!(
            "<Diagnostic {} {} at {at}: {:?}>",
            self.level, self.code, self.message
        )
    }
}

impl Diagnostic {
    /// `diagnostic` at `level`, located in `text` (`None`: a binary model).
    fn new(level: Severity, diagnostic: &onnxtxt::Diagnostic, text: Option<&str>) -> Self {
        let position = |at: usize| text.map(|text| line_column(text, at));
        let start = position(diagnostic.span.start);
        let end = position(diagnostic.span.end);
        let place = |span: &Span| match position(span.start) {
            Some((line, column)) => format!("{line}:{column}"),
            None => format!("byte {}", span.start),
        };
        Diagnostic {
            level: onnxtxt::report::severity_name(level),
            code: diagnostic.code.to_owned(),
            message: diagnostic.message.clone(),
            line: start.map(|(line, _)| line),
            column: start.map(|(_, column)| column),
            end_line: end.map(|(line, _)| line),
            end_column: end.map(|(_, column)| column),
            start: diagnostic.span.start,
            end: diagnostic.span.end,
            path: diagnostic.path.clone(),
            help: diagnostic.help.clone(),
            notes: (diagnostic.labels.iter())
                .map(|label| format!("{}: {}", place(&label.span), label.message))
                .collect(),
        }
    }

    fn finding(finding: &Finding, text: Option<&str>) -> Self {
        Diagnostic::new(finding.severity, &finding.diagnostic, text)
    }
}

/// `error` as a `ParseError`: its message every diagnostic drawn as the
/// command draws them (no colour), over the lines of `text` if given.
fn parse_error(py: Python<'_>, error: &Error, text: Option<&str>) -> PyErr {
    let renderer = match text {
        Some(text) => Renderer::text(TEXT_NAME, text),
        None => Renderer::binary(BINARY_NAME),
    };
    let drawn = renderer.error(error);
    let exception = ParseError::new_err(drawn.trim_end().to_owned());
    let diagnostics: Vec<Diagnostic> = (error.diagnostics().iter())
        .map(|d| Diagnostic::new(Severity::Error, d, text))
        .collect();
    let primary = &diagnostics[0];
    let (line, column, code) = (primary.line, primary.column, &primary.code);
    let value = exception.value(py);
    let attributes = value
        .setattr("line", line)
        .and_then(|()| value.setattr("column", column))
        .and_then(|()| value.setattr("code", code))
        .and_then(|()| value.setattr("diagnostics", diagnostics));
    match attributes {
        Ok(()) => exception,
        Err(failure) => failure,
    }
}

/// Serialized protos handed over from Python: a `bytes`, or a memoryview
/// of one, read in place; any other buffer (a `bytearray`, a writable
/// memoryview, an `array`) is copied once into a `bytes` first, since
/// another thread could write to it while the GIL is released.
struct Serialized {
    bytes: PyBackedBytes,
    range: Range<usize>,
}

impl<'a, 'py> FromPyObject<'a, 'py> for Serialized {
    type Error = PyErr;

    fn extract(object: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(bytes) = object.cast::<PyBytes>() {
            return Ok(Serialized::whole(bytes.to_owned()));
        }
        let view = match object.cast::<PyMemoryView>() {
            Ok(view) => view.to_owned(),
            Err(_) => PyMemoryView::from(&object)
                .map_err(|_| not_expected("bytes, a memoryview or another buffer", &object))?,
        };
        if let Some(within) = within_bytes(&view)? {
            return Ok(within);
        }
        let copy = object.py().get_type::<PyBytes>().call1((view,))?;
        Ok(Serialized::whole(copy.cast_into::<PyBytes>()?))
    }
}

/// A `TypeError` saying that `object` is not what was `expected`.
fn not_expected(expected: &str, object: &Bound<'_, PyAny>) -> PyErr {
    let type_name = (object.get_type().name()).map_or_else(|_| "?".into(), |n| n.to_string());
    PyTypeError::new_err(format!("expected {expected}, not {type_name}"))
}

impl Serialized {
    fn whole(bytes: Bound<'_, PyBytes>) -> Self {
        let range = 0..bytes.as_bytes().len();
        Serialized {
            bytes: bytes.into(),
            range,
        }
    }
}

/// The part of a `bytes` that `view` shows, if it is one and contiguous.
fn within_bytes(view: &Bound<'_, PyMemoryView>) -> PyResult<Option<Serialized>> {
    let Ok(bytes) = view.getattr("obj")?.cast_into::<PyBytes>() else {
        return Ok(None);
    };
    let buffer = PyUntypedBuffer::get(view)?;
    let whole = bytes.as_bytes();
    // Where the view starts in the bytes, from the addresses of the two.
    let start = (buffer.buf_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
    let range = start..start.saturating_add(buffer.len_bytes());
    let inside = range.end <= whole.len() && buffer.is_c_contiguous();
    Ok(inside.then(|| Serialized {
        bytes: bytes.into(),
        range,
    }))
}

impl Deref for Serialized {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes[self.range.clone()]
    }
}

/// What a parse gives before it is written: its length, for a `bytes` of
/// that size, then its encoding written into it.
trait Encoded: Send {
    fn encoded_len(&self) -> usize;
    /// Writes the encoding into `out`, which is `encoded_len()` long.
    fn write_into(self: Box<Self>, out: &mut &mut [u8]) -> Result<(), String>;
}

impl Encoded for EncodedModel {
    fn encoded_len(&self) -> usize {
        EncodedModel::encoded_len(self)
    }

    fn write_into(self: Box<Self>, out: &mut &mut [u8]) -> Result<(), String> {
        self.encode(out).map_err(|error| error.to_string())
    }
}

/// Any other IR message.
struct Proto<T>(T);

impl<T: Message> Encoded for Proto<T> {
    fn encoded_len(&self) -> usize {
        self.0.encoded_len()
    }

    fn write_into(self: Box<Self>, out: &mut &mut [u8]) -> Result<(), String> {
        self.0.encode(out).map_err(|error| error.to_string())
    }
}

/// Encodings shorter than this are written with the GIL held: releasing
/// and taking it back would cost more than the writing.
const DETACHED_BYTES: usize = 64 * 1024;

/// `encoded` as a `bytes`, encoded into it in place (with the GIL
/// released unless it is short).
fn encoded_bytes<'py>(py: Python<'py>, encoded: Box<dyn Encoded>) -> PyResult<Bound<'py, PyBytes>> {
    let len = encoded.encoded_len();
    PyBytes::new_with(py, len, |buffer| {
        let write = || {
            let mut rest = &mut buffer[..];
            let written = encoded.write_into(&mut rest);
            match (written, rest.len()) {
                (Ok(()), 0) => Ok(()),
                (written, left) => Err(PyRuntimeError::new_err(format!(
                    "onnxtxt counted {len} bytes of encoding and wrote {}{}: a bug, please report it",
                    len - left,
                    written.err().map_or_else(String::new, |e| format!(" ({e})"))
                ))),
            }
        };
        if len < DETACHED_BYTES {
            write()
        } else {
            py.detach(write)
        }
    })
}

/// A parse's result, not yet written, or why there is none.
type Parsed = Result<Box<dyn Encoded>, Error>;

/// What the module does with one IR kind, from and to serialized protos.
struct Kind {
    /// The message's name in the ONNX schema, as `DESCRIPTOR.name` gives it.
    name: &'static str,
    parse: fn(&Parser, &str) -> Parsed,
    /// The text, in UTF-8.
    print: fn(&Printer, &[u8]) -> Result<Vec<u8>, Error>,
}

/// The kinds the library both parses and prints.
const KINDS: [Kind; 11] = [
    MODEL,
    kind::<GraphProto>("GraphProto"),
    kind::<FunctionProto>("FunctionProto"),
    kind::<NodeProto>("NodeProto"),
    kind::<TypeProto>("TypeProto"),
    kind::<TensorProto>("TensorProto"),
    kind::<AttributeProto>("AttributeProto"),
    kind::<ValueInfoProto>("ValueInfoProto"),
    // A test case's data files (`onnxtxt.testcase`).
    kind::<SequenceProto>("SequenceProto"),
    kind::<MapProto>("MapProto"),
    kind::<OptionalProto>("OptionalProto"),
];

/// A model text is parsed as the command parses it
/// ([`Parser::encode_model`]): a long node list read in pieces on two
/// threads and encoded as it is read, a model measured once and encoded
/// straight into the `bytes` returned.
/// A model is printed as its nodes are decoded, into the string returned.
const MODEL: Kind = Kind {
    name: "ModelProto",
    parse: |parser, text| Ok(Box::new(parser.encode_model(text)?)),
    print: |printer, bytes| Ok(printer.print_binary_model(bytes)?.text.into_bytes()),
};

const fn kind<T: Parse + Decode + Print + Send + 'static>(name: &'static str) -> Kind {
    Kind {
        name,
        parse: |parser, text| Ok(Box::new(Proto(parser.parse::<T>(text)?))),
        print: |printer, bytes| Ok(printer.print(&decode::<T>(bytes)?).text.into_bytes()),
    }
}

/// An IR message handed over from Python to be printed or checked: an
/// `onnx` proto, serialized here (its kind its `DESCRIPTOR.name`), or a
/// serialized ModelProto ([`Serialized`]). Told apart in Rust, not in a
/// Python wrapper: on a small model, the wrapper's attribute lookups and
/// its frame were a quarter of a print's call.
struct Given {
    kind: &'static Kind,
    data: Serialized,
}

impl<'a, 'py> FromPyObject<'a, 'py> for Given {
    type Error = PyErr;

    fn extract(object: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = object.py();
        if let Ok(bytes) = object.cast::<PyBytes>() {
            let data = Serialized::whole(bytes.to_owned());
            return Ok(Given { kind: &MODEL, data });
        }
        let message = (object.getattr(intern!(py, "DESCRIPTOR")))
            .and_then(|descriptor| descriptor.getattr(intern!(py, "name")))
            .and_then(|name| {
                Ok((
                    name.extract::<PyBackedStr>()?,
                    object.getattr(intern!(py, "SerializeToString"))?,
                ))
            });
        let Ok((name, serialize)) = message else {
            let data = Serialized::extract(object)
                .map_err(|_| not_expected("an onnx proto or bytes", &object))?;
            return Ok(Given { kind: &MODEL, data });
        };
        let kind = find_kind(&name)?;
        let data = Serialized::whole(serialize.call0()?.cast_into::<PyBytes>()?);
        Ok(Given { kind, data })
    }
}

fn find_kind(name: &str) -> PyResult<&'static Kind> {
    KINDS.iter().find(|kind| kind.name == name).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "onnxtxt reads and writes {}, not {name}",
            KINDS.map(|kind| kind.name).join(", ")
        ))
    })
}

/// Parses `text` as a `kind` (`"ModelProto"`, ...) and returns it
/// serialized.
#[pyfunction]
fn parse<'py>(py: Python<'py>, kind: &str, text: PyBackedStr) -> PyResult<Bound<'py, PyBytes>> {
    let kind = find_kind(kind)?;
    let text: &str = &text;
    match py.detach(|| (kind.parse)(&Parser::new(), text)) {
        Ok(encoded) => encoded_bytes(py, encoded),
        Err(error) => Err(parse_error(py, &error, Some(text))),
    }
}

/// Parses `text` as a list of nodes and returns each serialized.
#[pyfunction]
fn parse_nodes<'py>(py: Python<'py>, text: PyBackedStr) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let text: &str = &text;
    let parsed = py.detach(|| Parser::new().parse::<Vec<NodeProto>>(text));
    match parsed {
        Ok(nodes) => (nodes.into_iter())
            .map(|node| encoded_bytes(py, Box::new(Proto(node))))
            .collect(),
        Err(error) => Err(parse_error(py, &error, Some(text))),
    }
}

/// The canonical text of ``proto``: an ``onnx`` ModelProto, GraphProto,
/// FunctionProto, NodeProto, TypeProto, TensorProto, AttributeProto or
/// ValueInfoProto, or a serialized ModelProto (``bytes``, read in place,
/// as is a memoryview of ``bytes``; a ``bytearray`` or other buffer is
/// copied once, as another thread could change it during the call).
///
/// The text parses back to the same bytes. With ``compat``, only the
/// syntax ``onnx.parser`` reads is written, and what it cannot hold (doc
/// strings, metadata, ...) is left out. A serialized model that is not
/// valid raises ParseError.
#[pyfunction]
#[pyo3(signature = (proto, *, compat = false))]
fn to_text(py: Python<'_>, proto: Given, compat: bool) -> PyResult<Bound<'_, PyString>> {
    let data: &[u8] = &proto.data;
    let printer = Printer::new().compat(compat);
    match py.detach(|| (proto.kind.print)(&printer, data)) {
        Ok(text) => text_str(py, &text),
        Err(error) => Err(parse_error(py, &error, None)),
    }
}

/// Printed texts from this length on are written into their `str` in
/// place ([`text_str`]). It is glibc's largest mmap threshold on 64 bits:
/// from there each `str` is a mapping of its own, so the huge-page advice
/// concerns its pages alone (below it, the block may come from the heap and
/// its pages from an earlier block, already mapped: nothing to win).
const IN_PLACE_STR: usize = 32 << 20;

/// Bytes checked and copied at a time into a `str` written in place: the
/// chunk is still in the cache when copied.
const STR_CHUNK: usize = 64 * 1024;

/// `text` as a `str`. A long ASCII text is written into a fresh ASCII `str`
/// with the GIL released, its pages advised huge first: a 148 MB text
/// otherwise costs 36,000 page faults of 4 kB, most of the time of making
/// the `str` (bench/results.md, "The str of a big print, session 9"). A short
/// text, or one with a byte above 127 (found chunk by chunk during the
/// copy), is made by CPython from its UTF-8, checked in the same pass.
#[allow(unsafe_code)]
fn text_str<'py>(py: Python<'py>, text: &[u8]) -> PyResult<Bound<'py, PyString>> {
    let len = text.len();
    if len < IN_PLACE_STR {
        return PyString::from_bytes(py, text);
    }
    let size = pyo3::ffi::Py_ssize_t::try_from(len)?;
    // SAFETY: the GIL is held; PyUnicode_New gives a new reference, or null
    // with the exception set. Owned by `string`, it is freed on every way
    // out (an error, a panic) but the one returning it whole.
    let string = unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyUnicode_New(size, 127))? };
    // SAFETY: a `str` made with maxchar 127 is a compact ASCII one whose
    // `len` characters are a byte each, at PyUnicode_1BYTE_DATA (the NUL
    // after them written by PyUnicode_New). No one else sees `string`
    // before it is returned, and its data stays put while it lives, which
    // is longer than `out`.
    let out: &mut [MaybeUninit<u8>] = unsafe {
        std::slice::from_raw_parts_mut(
            pyo3::ffi::PyUnicode_1BYTE_DATA(string.as_ptr()).cast::<MaybeUninit<u8>>(),
            len,
        )
    };
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = out.as_ptr() as usize;
        let first = start.next_multiple_of(HUGE_PAGE);
        let end = (start + len) / HUGE_PAGE * HUGE_PAGE;
        if first < end {
            // SAFETY: [first, end) lies inside the `str`'s block. The
            // advice changes no data, only the size of the pages the block
            // gets; an error (no THP) leaves it as it was.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    let ascii = py.detach(|| {
        for (from, to) in text.chunks(STR_CHUNK).zip(out.chunks_mut(STR_CHUNK)) {
            if !from.is_ascii() {
                return false;
            }
            // SAFETY: `from` and `to` are as long (the same chunks of two
            // slices of `len` bytes), and `to` is the `str`'s, apart from
            // `text`.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    from.as_ptr(),
                    to.as_mut_ptr().cast::<u8>(),
                    from.len(),
                )
            };
        }
        true
    });
    if ascii {
        // SAFETY: `string` is a `str`, its every byte written, each below 128.
        Ok(unsafe { string.cast_into_unchecked() })
    } else {
        PyString::from_bytes(py, text)
    }
}

/// Checks the model in `text` and returns its findings.
#[pyfunction(name = "check_text")]
fn check_model_text(py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<Diagnostic>> {
    let text: &str = &text;
    match py.detach(|| check_text(text)) {
        Ok((_, findings)) => Ok(findings
            .iter()
            .map(|f| Diagnostic::finding(f, Some(text)))
            .collect()),
        Err(error) => Err(parse_error(py, &error, Some(text))),
    }
}

/// Checks the model in `model`, an `onnx.ModelProto` or serialized, and
/// returns its findings.
#[pyfunction(name = "check_model")]
fn check_model_bytes(py: Python<'_>, model: Given) -> PyResult<Vec<Diagnostic>> {
    if model.kind.name != MODEL.name {
        let message = format!("onnxtxt.check checks models, not {}", model.kind.name);
        return Err(PyTypeError::new_err(message));
    }
    let data: &[u8] = &model.data;
    match py.detach(|| decode_model(data).map(|model| check_model(&model))) {
        Ok(findings) => Ok(findings
            .iter()
            .map(|f| Diagnostic::finding(f, None))
            .collect()),
        Err(error) => Err(parse_error(py, &error, None)),
    }
}

/// `text` in the canonical style, its comments kept.
#[pyfunction]
fn format(py: Python<'_>, text: PyBackedStr) -> PyResult<String> {
    let text: &str = &text;
    py.detach(|| onnxtxt::format(text))
        .map_err(|error| parse_error(py, &error, Some(text)))
}

#[pymodule]
fn _onnxtxt(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("ParseError", py.get_type::<ParseError>())?;
    module.add_class::<Diagnostic>()?;
    module.add_function(wrap_pyfunction!(parse, module)?)?;
    module.add_function(wrap_pyfunction!(parse_nodes, module)?)?;
    module.add_function(wrap_pyfunction!(to_text, module)?)?;
    module.add_function(wrap_pyfunction!(check_model_text, module)?)?;
    module.add_function(wrap_pyfunction!(check_model_bytes, module)?)?;
    module.add_function(wrap_pyfunction!(format, module)?)?;
    Ok(())
}
