//! Tensor data kept outside the model: moving big tensors into one external
//! data file ([`externalize`]) and bringing them back ([`inline`]), so that
//! a model's text stays small while the round trip stays byte-identical.
//!
//! The markers are ONNX's own (`docs/ExternalData.md`): `data_location` is
//! `EXTERNAL` and `external_data` holds `location`, `offset`, `length` and
//! `checksum`. Two choices of this crate:
//!
//! * `checksum` is the SHA-1 of the tensor's own bytes (lower-case hex), not
//!   of the whole file, so that a changed tensor shows as a changed line in
//!   a diff of the text while the other tensors' lines stay the same.
//! * Offsets of tensors of at least [`ALIGNMENT`] bytes are multiples of it
//!   (a page, so the data can be memory-mapped, as ONNX recommends);
//!   smaller tensors follow the previous one directly.
//!
//! Only tensors that can be restored exactly are moved: data in `raw_data`,
//! no `data_location` and no `external_data`. Initializers, sparse tensors'
//! values and indices, and tensors in attributes (in the main graph, in
//! subgraphs, in training graphs and in functions, attribute defaults
//! included) are all visited, in a fixed order.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::io;
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use crate::ir_path::attribute_items;
use crate::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, SparseTensorProto, StringStringEntryProto,
    TensorProto,
};

/// The default size above which `print --external-data` moves a tensor's
/// data out of the text: 1 KiB, ONNX's own default `size_threshold`.
pub const DEFAULT_THRESHOLD: usize = 1024;

/// The alignment of the offsets of tensors at least this big: 4 KiB, the
/// usual page size.
pub const ALIGNMENT: usize = 4096;

/// `TensorProto.DataLocation.EXTERNAL`.
const EXTERNAL: i32 = 1;

/// Moves the `raw_data` of every tensor of `model` longer than `threshold`
/// bytes into one blob, marks the tensor as external data at `location`
/// (with offset, length and checksum), and returns the blob: the content of
/// the file `location` must name, relative to the model's directory.
///
/// ```
/// use onnxtxt::external::{externalize, inline};
///
/// let text = r#"
///     <ir_version: 10, opset_import: ["": 21]>
///     g (float[N] x) => (float[N] y) <@<raw: true> float[300] w = {...}> { y = Add(x, w) }
/// "#;
/// let original = onnxtxt::parse_model(&text.replace("...", &["0.5"; 300].join(",")))?;
/// let mut model = original.clone();
/// let blob = externalize(&mut model, "weights.bin", 1024);
/// assert_eq!(blob.len(), 1200);
/// let w = &model.graph.as_ref().unwrap().initializer[0];
/// assert_eq!((w.raw_data.is_none(), w.data_location), (true, Some(1)));
/// let entries: Vec<_> = w.external_data.iter().map(|e| e.key.as_deref().unwrap()).collect();
/// assert_eq!(entries, ["location", "offset", "length", "checksum"]);
///
/// assert_eq!(inline(&mut model, |_| Ok(blob.clone())).unwrap(), 1);
/// assert_eq!(model, original);
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn externalize(model: &mut ModelProto, location: &str, threshold: usize) -> Vec<u8> {
    let mut blob = Vec::new();
    let moved = for_each_tensor(model, &mut |tensor, _| {
        let movable = tensor.data_location.is_none()
            && tensor.external_data.is_empty()
            && tensor
                .raw_data
                .as_ref()
                .is_some_and(|d| d.len() > threshold);
        if movable {
            let data = tensor.raw_data.take().unwrap_or_default();
            if data.len() >= ALIGNMENT {
                blob.resize(blob.len().next_multiple_of(ALIGNMENT), 0);
            }
            let entries = [
                ("location", location.to_owned()),
                ("offset", blob.len().to_string()),
                ("length", data.len().to_string()),
                ("checksum", sha1_hex(&data)),
            ];
            tensor.external_data = entries
                .into_iter()
                .map(|(key, value)| StringStringEntryProto {
                    key: Some(key.to_owned()),
                    value: Some(value),
                })
                .collect();
            tensor.data_location = Some(EXTERNAL);
            blob.extend_from_slice(&data);
        }
        Ok::<(), std::convert::Infallible>(())
    });
    match moved {
        Ok(()) => blob,
        Err(never) => match never {},
    }
}

/// Brings the data of every external-data tensor of `model` back into its
/// `raw_data` and removes the markers (`data_location`, `external_data`):
/// the inverse of [`externalize`]. `load` reads the file a `location` names
/// (each file is read once). Returns how many tensors were restored.
///
/// The entries are checked first: `location` must be a relative path that
/// does not go up (`..`), as ONNX requires; `offset` and `length` must lie
/// within the file; a `checksum`, when present, must be the SHA-1 of the
/// tensor's bytes.
///
/// ```
/// use onnxtxt::external::{inline, InlineProblem};
///
/// let mut model = onnxtxt::parse_model(r#"
///     <ir_version: 10, opset_import: ["": 21]>
///     g (float[2] x) => (float[2] y)
///       <float[2] w = ["location": "w.bin", "length": "8", "checksum": "0000"]>
///       { y = Add(x, w) }
/// "#)?;
/// let error = inline(&mut model, |_| Ok(vec![0; 8])).unwrap_err();
/// assert_eq!(error.tensor, r#"graph.initializer[0] "w""#);
/// assert!(matches!(error.problem, InlineProblem::Checksum { .. }));
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn inline(
    model: &mut ModelProto,
    mut load: impl FnMut(&str) -> io::Result<Vec<u8>>,
) -> Result<usize, InlineError> {
    inline_with(model, |location| {
        load(location).map_err(InlineProblem::Load)
    })
}

/// [`inline`], reading each `location` below `dir` (the directory of the
/// model's text): a location that resolves, through symbolic links, to a
/// file outside `dir` is refused like one that goes up (`..`), so that a
/// link committed beside a text cannot bring any file of the machine into
/// the model.
///
/// ```
/// use onnxtxt::external::{externalize, inline_from_dir, InlineProblem};
///
/// let text = r#"
///     <ir_version: 10, opset_import: ["": 21]>
///     g (float[N] x) => (float[N] y) <@<raw: true> float[300] w = {...}> { y = Add(x, w) }
/// "#;
/// let original = onnxtxt::parse_model(&text.replace("...", &["0.5"; 300].join(",")))?;
/// let dir = std::env::temp_dir().join(format!("onnxtxt-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let mut model = original.clone();
/// std::fs::write(dir.join("w.bin"), externalize(&mut model, "w.bin", 1024)).unwrap();
/// assert_eq!(inline_from_dir(&mut model, &dir).unwrap(), 1);
/// assert_eq!(model, original);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn inline_from_dir(model: &mut ModelProto, dir: &Path) -> Result<usize, InlineError> {
    inline_with(model, |location| read_below(dir, location))
}

/// The file `location` names below `dir`, refused when it resolves to a
/// file outside `dir` or to what is not a regular file.
fn read_below(dir: &Path, location: &str) -> Result<Vec<u8>, InlineProblem> {
    let (path, resolved) = resolve_below(dir, location)?;
    std::fs::read(&resolved).map_err(|e| load_problem(&path, e))
}

/// The path `location` names below `dir`, and the file it resolves to
/// (links followed), which must be inside `dir` and a regular file: a
/// FIFO, a device or a directory could block the read forever or never
/// end it.
fn resolve_below(dir: &Path, location: &str) -> Result<(PathBuf, PathBuf), InlineProblem> {
    let path = dir.join(location);
    let root = dir.canonicalize().map_err(|e| load_problem(dir, e))?;
    let resolved = path.canonicalize().map_err(|e| load_problem(&path, e))?;
    if !resolved.starts_with(&root) {
        return Err(InlineProblem::Entry(format!(
            "location {location:?} resolves to {}, outside {}",
            resolved.display(),
            root.display()
        )));
    }
    let metadata = std::fs::metadata(&resolved).map_err(|e| load_problem(&path, e))?;
    if !metadata.is_file() {
        return Err(InlineProblem::Entry(format!(
            "{} is not a regular file (a FIFO, device or directory cannot hold \
             external data)",
            resolved.display()
        )));
    }
    Ok((path, resolved))
}

/// How many bytes [`inline_from_dir`] would bring into `model`: the sum of
/// the lengths of its external-data tensors (a tensor without a `length`
/// entry takes its file from `offset` on), found from the entries and the
/// sizes of the files, none of which is read. The entries and files are
/// checked as [`inline_from_dir`] checks them, but for the checksums.
///
/// ```
/// use onnxtxt::external::inlined_len_from_dir;
///
/// let mut model = onnxtxt::parse_model(r#"
///     <ir_version: 10, opset_import: ["": 21]>
///     g (float[2] x) => (float[2] y)
///       <float[2] w = ["location": "w.bin", "length": "8"]>
///       { y = Add(x, w) }
/// "#)?;
/// let dir = std::env::temp_dir().join(format!("onnxtxt-len-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("w.bin"), [0; 8]).unwrap();
/// assert_eq!(inlined_len_from_dir(&mut model, &dir).unwrap(), 8);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn inlined_len_from_dir(model: &mut ModelProto, dir: &Path) -> Result<u64, InlineError> {
    let mut total = 0u64;
    for_each_tensor(model, &mut |tensor, path| {
        if tensor.data_location != Some(EXTERNAL) {
            return Ok(());
        }
        let entry =
            parse_entries(tensor).map_err(|problem| InlineError::new(path, tensor, "", problem))?;
        let problem_at = |problem| InlineError::new(path, tensor, entry.location, problem);
        let (_, resolved) = resolve_below(dir, entry.location).map_err(problem_at)?;
        let file_len = std::fs::metadata(&resolved)
            .map_err(|e| problem_at(load_problem(&resolved, e)))?
            .len();
        let len = entry.length.map_or_else(
            || file_len.saturating_sub(entry.offset as u64),
            |length| length as u64,
        );
        total = total.saturating_add(len);
        Ok(())
    })?;
    Ok(total)
}

/// `error`, met reading `path`, as the problem it is, naming the path.
fn load_problem(path: &Path, error: io::Error) -> InlineProblem {
    InlineProblem::Load(io::Error::new(
        error.kind(),
        format!("{}: {error}", path.display()),
    ))
}

/// [`inline`] with a loader that says what went wrong itself.
fn inline_with(
    model: &mut ModelProto,
    mut load: impl FnMut(&str) -> Result<Vec<u8>, InlineProblem>,
) -> Result<usize, InlineError> {
    let mut files: HashMap<String, Vec<u8>> = HashMap::new();
    let mut restored = 0;
    for_each_tensor(model, &mut |tensor, path| {
        if tensor.data_location != Some(EXTERNAL) {
            return Ok(());
        }
        let fail = |location: &str, problem| InlineError::new(path, tensor, location, problem);
        let entry = parse_entries(tensor).map_err(|problem| fail("", problem))?;
        let problem_at = |problem| fail(entry.location, problem);
        if tensor.raw_data.is_some() {
            return Err(problem_at(InlineProblem::Entry(
                "the tensor also has raw_data".into(),
            )));
        }
        if !files.contains_key(entry.location) {
            let file = load(entry.location).map_err(problem_at)?;
            files.insert(entry.location.to_owned(), file);
        }
        let file = &files[entry.location];
        let data = entry
            .range(file.len())
            .map(|range| &file[range])
            .ok_or_else(|| {
                problem_at(InlineProblem::OutOfRange {
                    offset: entry.offset,
                    length: entry.length,
                    file_len: file.len(),
                })
            })?;
        if let Some(expected) = entry.checksum {
            let found = sha1_hex(data);
            if !found.eq_ignore_ascii_case(expected) {
                return Err(problem_at(InlineProblem::Checksum {
                    expected: expected.to_owned(),
                    found,
                }));
            }
        }
        let data = data.to_vec();
        tensor.raw_data = Some(data);
        tensor.external_data.clear();
        tensor.data_location = None;
        restored += 1;
        Ok(())
    })?;
    Ok(restored)
}

/// Why a tensor's external data could not be brought back by [`inline`].
#[derive(Debug)]
#[non_exhaustive]
pub struct InlineError {
    /// The tensor: its IR path and name, e.g. `graph.initializer[0] "w"`.
    pub tensor: String,
    /// The tensor's IR path alone, e.g. `graph.initializer[0]` (as
    /// [`crate::SourceMap`] names the items of a text).
    pub path: String,
    /// The `location` of its data (empty when the entries are unreadable).
    pub location: String,
    /// What went wrong.
    pub problem: InlineProblem,
}

/// What went wrong in an [`InlineError`].
#[derive(Debug)]
#[non_exhaustive]
pub enum InlineProblem {
    /// An `external_data` entry is missing, unknown, malformed or unsafe
    /// (for [`inline_from_dir`], a location that resolves outside its
    /// directory).
    Entry(String),
    /// The file could not be read.
    Load(io::Error),
    /// `offset` and `length` do not lie within the file.
    OutOfRange {
        /// The `offset` entry (0 if absent).
        offset: usize,
        /// The `length` entry, if present.
        length: Option<usize>,
        /// The file's length.
        file_len: usize,
    },
    /// The bytes do not have the SHA-1 of the `checksum` entry.
    Checksum {
        /// The `checksum` entry.
        expected: String,
        /// The SHA-1 of the bytes found.
        found: String,
    },
}

impl InlineError {
    fn new(path: &str, tensor: &TensorProto, location: &str, problem: InlineProblem) -> Self {
        InlineError {
            tensor: describe(path, tensor),
            path: path.to_owned(),
            location: location.to_owned(),
            problem,
        }
    }
}

impl fmt::Display for InlineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.tensor)?;
        if !self.location.is_empty() {
            write!(f, "external data {:?}: ", self.location)?;
        }
        match &self.problem {
            InlineProblem::Entry(what) => f.write_str(what),
            InlineProblem::Load(error) => write!(f, "cannot read it: {error}"),
            InlineProblem::OutOfRange {
                offset,
                length: Some(length),
                file_len,
            } => write!(
                f,
                "{length} bytes at offset {offset} run past the end of the file ({file_len} bytes)"
            ),
            InlineProblem::OutOfRange {
                offset, file_len, ..
            } => write!(
                f,
                "offset {offset} is past the end of the file ({file_len} bytes)"
            ),
            InlineProblem::Checksum { expected, found } => write!(
                f,
                "checksum mismatch: the entry says {expected}, the data's SHA-1 is {found} \
                 (the file was changed or is not the one written with this text)"
            ),
        }
    }
}

impl std::error::Error for InlineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.problem {
            InlineProblem::Load(error) => Some(error),
            _ => None,
        }
    }
}

/// A tensor's `external_data` entries, read and checked.
struct Entries<'t> {
    location: &'t str,
    offset: usize,
    length: Option<usize>,
    checksum: Option<&'t str>,
}

impl Entries<'_> {
    /// The byte range of the data in a file of `file_len` bytes, if it fits.
    fn range(&self, file_len: usize) -> Option<std::ops::Range<usize>> {
        let end = match self.length {
            Some(length) => self.offset.checked_add(length)?,
            None => file_len,
        };
        (self.offset <= end && end <= file_len).then_some(self.offset..end)
    }
}

fn parse_entries(tensor: &TensorProto) -> Result<Entries<'_>, InlineProblem> {
    let mut location = None;
    let mut offset = 0;
    let mut length = None;
    let mut checksum = None;
    let number = |key: &str, value: &str| {
        value
            .parse::<usize>()
            .map_err(|_| InlineProblem::Entry(format!("`{key}` is not a byte count: {value:?}")))
    };
    for entry in &tensor.external_data {
        let key = entry.key.as_deref().unwrap_or("");
        let value = entry.value.as_deref().unwrap_or("");
        match key {
            "location" => location = Some(value),
            "offset" => offset = number(key, value)?,
            "length" => length = Some(number(key, value)?),
            "checksum" => checksum = Some(value),
            _ => {
                return Err(InlineProblem::Entry(format!(
                    "unknown external_data key {key:?}"
                )));
            }
        }
    }
    let location =
        location.ok_or_else(|| InlineProblem::Entry("no `location` entry".to_owned()))?;
    let safe = !location.is_empty()
        && std::path::Path::new(location).components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        });
    if !safe {
        return Err(InlineProblem::Entry(format!(
            "location {location:?} must be a relative path that does not go up (`..`)"
        )));
    }
    Ok(Entries {
        location,
        offset,
        length,
        checksum,
    })
}

/// The SHA-1 of `data` as lower-case hex.
fn sha1_hex(data: &[u8]) -> String {
    Sha1::digest(data)
        .iter()
        .fold(String::with_capacity(40), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// Names a tensor in messages: its IR path, and its name if it has one.
fn describe(path: &str, tensor: &TensorProto) -> String {
    match tensor.name.as_deref() {
        Some(name) if !name.is_empty() => format!("{path} {name:?}"),
        _ => path.to_owned(),
    }
}

/// Calls `f` on every tensor of `model` with its IR path, in a fixed order:
/// the main graph, training graphs, then functions.
fn for_each_tensor<E>(
    model: &mut ModelProto,
    f: &mut impl FnMut(&mut TensorProto, &str) -> Result<(), E>,
) -> Result<(), E> {
    let mut walk = Walk {
        path: String::new(),
        f,
    };
    if let Some(graph) = &mut model.graph {
        walk.at(format_args!("graph"), |w| w.graph(graph))?;
    }
    for (i, info) in model.training_info.iter_mut().enumerate() {
        if let Some(graph) = &mut info.initialization {
            walk.at(format_args!("training_info[{i}].initialization"), |w| {
                w.graph(graph)
            })?;
        }
        if let Some(graph) = &mut info.algorithm {
            walk.at(format_args!("training_info[{i}].algorithm"), |w| {
                w.graph(graph)
            })?;
        }
    }
    for (i, function) in model.functions.iter_mut().enumerate() {
        walk.at(format_args!("functions[{i}]"), |w| {
            w.nodes(&mut function.node)?;
            w.attributes("attribute_proto", &mut function.attribute_proto)
        })?;
    }
    Ok(())
}

/// The walk of [`for_each_tensor`]: the IR path so far and the callback.
struct Walk<'f, F> {
    path: String,
    f: &'f mut F,
}

impl<E, F: FnMut(&mut TensorProto, &str) -> Result<(), E>> Walk<'_, F> {
    /// Runs `g` with `segment` appended to the path.
    fn at<R>(&mut self, segment: fmt::Arguments<'_>, g: impl FnOnce(&mut Self) -> R) -> R {
        let len = self.path.len();
        if len > 0 {
            self.path.push('.');
        }
        let _ = self.path.write_fmt(segment);
        let result = g(self);
        self.path.truncate(len);
        result
    }

    fn tensor(&mut self, segment: fmt::Arguments<'_>, tensor: &mut TensorProto) -> Result<(), E> {
        self.at(segment, |w| (w.f)(tensor, &w.path))
    }

    fn sparse(
        &mut self,
        segment: fmt::Arguments<'_>,
        sparse: &mut SparseTensorProto,
    ) -> Result<(), E> {
        self.at(segment, |w| {
            if let Some(values) = &mut sparse.values {
                w.tensor(format_args!("values"), values)?;
            }
            if let Some(indices) = &mut sparse.indices {
                w.tensor(format_args!("indices"), indices)?;
            }
            Ok(())
        })
    }

    fn graph(&mut self, graph: &mut GraphProto) -> Result<(), E> {
        for (i, tensor) in graph.initializer.iter_mut().enumerate() {
            self.tensor(format_args!("initializer[{i}]"), tensor)?;
        }
        for (i, sparse) in graph.sparse_initializer.iter_mut().enumerate() {
            self.sparse(format_args!("sparse_initializer[{i}]"), sparse)?;
        }
        self.nodes(&mut graph.node)
    }

    fn nodes(&mut self, nodes: &mut [NodeProto]) -> Result<(), E> {
        for (i, node) in nodes.iter_mut().enumerate() {
            self.at(format_args!("node[{i}]"), |w| {
                w.attributes("attribute", &mut node.attribute)
            })?;
        }
        Ok(())
    }

    fn attributes(&mut self, field: &str, attributes: &mut [AttributeProto]) -> Result<(), E> {
        let items = attribute_items(field, attributes);
        for (attribute, item) in attributes.iter_mut().zip(items) {
            self.at(format_args!("{item}"), |w| w.attribute(attribute))?;
        }
        Ok(())
    }

    fn attribute(&mut self, attribute: &mut AttributeProto) -> Result<(), E> {
        if let Some(tensor) = &mut attribute.t {
            self.tensor(format_args!("t"), tensor)?;
        }
        for (i, tensor) in attribute.tensors.iter_mut().enumerate() {
            self.tensor(format_args!("tensors[{i}]"), tensor)?;
        }
        if let Some(sparse) = &mut attribute.sparse_tensor {
            self.sparse(format_args!("sparse_tensor"), sparse)?;
        }
        for (i, sparse) in attribute.sparse_tensors.iter_mut().enumerate() {
            self.sparse(format_args!("sparse_tensors[{i}]"), sparse)?;
        }
        if let Some(graph) = &mut attribute.g {
            self.at(format_args!("g"), |w| w.graph(graph))?;
        }
        for (i, graph) in attribute.graphs.iter_mut().enumerate() {
            self.at(format_args!("graphs[{i}]"), |w| w.graph(graph))?;
        }
        Ok(())
    }
}
