//! A whole test case: read from and written to its directory, parsed from
//! its text.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use prost::Message as _;

use super::{decode_value, DataSet, Kind, TestCase, Value};
use crate::error::Error;
use crate::parser::{parse_data_sets, DataEntry, RawDataSet};
use crate::proto::type_proto;
use crate::proto::ValueInfoProto;

/// The model's file in a case directory.
pub const MODEL_FILE: &str = "model.onnx";

/// How the directories of data sets start (`test_data_set_0`, ...), as
/// onnx's backend runner finds them.
pub const DATA_SET_PREFIX: &str = "test_data_set";

/// Why a case directory cannot be read: the file (or directory) and what
/// is wrong with it.
#[derive(Debug)]
#[non_exhaustive]
pub struct CaseError {
    /// The file or directory.
    pub file: PathBuf,
    /// What is wrong.
    pub problem: CaseProblem,
}

/// What is wrong with a file of a case directory.
#[derive(Debug)]
#[non_exhaustive]
pub enum CaseProblem {
    /// It cannot be read.
    Io(io::Error),
    /// It does not decode (as the message the model says it holds).
    Decode(Error),
    /// It has no place in the layout, or one it needs is missing.
    Layout(String),
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display();
        match &self.problem {
            CaseProblem::Io(e) => write!(f, "{file}: {e}"),
            CaseProblem::Decode(e) => write!(f, "{file}: {}", e.primary().message),
            CaseProblem::Layout(what) => write!(f, "{file}: {what}"),
        }
    }
}

impl std::error::Error for CaseError {}

impl TestCase {
    /// Reads a case directory: `model.onnx` and the `test_data_set_*`
    /// directories, each holding `input_K.pb` and `output_K.pb` files
    /// numbered from 0 with no gap, at most one per graph input (output).
    /// Each file is decoded as the message its graph input's (output's)
    /// type says; anything else in the directories is an error.
    pub fn read_dir(dir: &Path) -> Result<TestCase, CaseError> {
        let fail = |file: PathBuf, problem| CaseError { file, problem };
        let layout = |file: &Path, what: String| fail(file.to_owned(), CaseProblem::Layout(what));
        let model_file = dir.join(MODEL_FILE);
        if !model_file.is_file() {
            return Err(layout(
                dir,
                format!(
                    "no {MODEL_FILE}: a test case directory holds {MODEL_FILE} and \
                     {DATA_SET_PREFIX}_N directories"
                ),
            ));
        }
        let bytes =
            std::fs::read(&model_file).map_err(|e| fail(model_file.clone(), CaseProblem::Io(e)))?;
        let model = crate::decode_model(&bytes)
            .map_err(|e| fail(model_file.clone(), CaseProblem::Decode(e)))?;
        let graph = model.graph.clone().unwrap_or_default();
        let mut data_sets = Vec::new();
        for (name, path) in entries(dir)? {
            if name == MODEL_FILE {
                continue;
            }
            if !name.starts_with(DATA_SET_PREFIX) || !path.is_dir() {
                return Err(layout(
                    &path,
                    format!(
                        "not part of a test case (only {MODEL_FILE} and {DATA_SET_PREFIX}_N \
                         directories are)"
                    ),
                ));
            }
            let mut files: [Vec<Option<PathBuf>>; 2] = [Vec::new(), Vec::new()];
            for (file, path) in entries(&path)? {
                let Some((output, k)) = data_file_index(&file) else {
                    return Err(layout(
                        &path,
                        "not part of a data set (only input_K.pb and output_K.pb are)".into(),
                    ));
                };
                let declared = if output { &graph.output } else { &graph.input };
                if k >= declared.len() {
                    return Err(layout(
                        &path,
                        format!(
                            "the graph has {} {}{}",
                            declared.len(),
                            side(output),
                            if declared.len() == 1 { "" } else { "s" }
                        ),
                    ));
                }
                let slots = &mut files[usize::from(output)];
                if slots.len() <= k {
                    slots.resize(k + 1, None);
                }
                slots[k] = Some(path);
            }
            let mut values: [Vec<Value>; 2] = [Vec::new(), Vec::new()];
            for (output, slots) in files.into_iter().enumerate() {
                let output = output == 1;
                let declared = if output { &graph.output } else { &graph.input };
                let count = slots.len();
                for (k, slot) in slots.into_iter().enumerate() {
                    let Some(file) = slot else {
                        return Err(layout(
                            &path.join(format!("{}_{k}.pb", side(output))),
                            format!(
                                "missing: {}_{}.pb exists, and a runner reads them by number \
                                 from 0",
                                side(output),
                                count - 1
                            ),
                        ));
                    };
                    let bytes =
                        std::fs::read(&file).map_err(|e| fail(file.clone(), CaseProblem::Io(e)))?;
                    let value = match declared_kind(&declared[k]) {
                        Some(kind) => Value::decode_as(kind, &bytes),
                        None => decode_value(&bytes).map(|decoded| decoded.value),
                    }
                    .map_err(|e| fail(file.clone(), CaseProblem::Decode(e)))?;
                    values[usize::from(output)].push(value);
                }
            }
            let [inputs, outputs] = values;
            data_sets.push(DataSet {
                name,
                inputs,
                outputs,
            });
        }
        data_sets.sort_by_key(|set| data_set_order(&set.name));
        Ok(TestCase { model, data_sets })
    }

    /// Every file of the case directory, relative to it, with its bytes:
    /// `model.onnx` first, then each data set's inputs and outputs.
    pub fn files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files = vec![(PathBuf::from(MODEL_FILE), self.model.encode_to_vec())];
        for set in &self.data_sets {
            let dir = Path::new(&set.name);
            for (output, values) in [(false, &set.inputs), (true, &set.outputs)] {
                for (k, value) in values.iter().enumerate() {
                    let file = dir.join(format!("{}_{k}.pb", side(output)));
                    files.push((file, value.encode_to_vec()));
                }
            }
        }
        files
    }

    /// Writes the case directory `dir`, replacing it if it exists: the
    /// files are written to a new directory beside it, which then takes its
    /// place, so a failure leaves `dir` as it was.
    pub fn write_dir(&self, dir: &Path) -> io::Result<()> {
        let staging = new_dir_beside(dir, "new")?;
        let mut sets = self.data_sets.iter();
        let written = sets
            .try_for_each(|set| std::fs::create_dir(staging.join(&set.name)))
            .and_then(|()| {
                self.files().into_iter().try_for_each(|(file, bytes)| {
                    let path = staging.join(file);
                    if let Some(set_dir) = path.parent() {
                        std::fs::create_dir_all(set_dir)?;
                    }
                    std::fs::write(&path, bytes)
                })
            });
        if let Err(error) = written {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(error);
        }
        let aside = if dir.exists() {
            let aside = new_dir_beside(dir, "old")?;
            let aside = aside.join("case");
            if let Err(error) = std::fs::rename(dir, &aside) {
                let _ = std::fs::remove_dir_all(&staging);
                return Err(error);
            }
            Some(aside)
        } else {
            None
        };
        if let Err(error) = std::fs::rename(&staging, dir) {
            if let Some(aside) = &aside {
                let _ = std::fs::rename(aside, dir);
            }
            let _ = std::fs::remove_dir_all(&staging);
            return Err(error);
        }
        match aside.as_deref().and_then(Path::parent) {
            Some(old) => std::fs::remove_dir_all(old),
            None => Ok(()),
        }
    }

    /// Parses a case's text: the model, then its data sets (see
    /// [`crate::testcase`]). A text with no data set is a case with none.
    /// Each value's label must name an input (output) of the graph, at
    /// most once per data set, and the inputs (outputs) given must be the
    /// first ones of the graph, with no gap: a runner feeds them by number.
    pub fn parse(text: &str) -> Result<TestCase, Error> {
        let (model_text, raw) = match parse_data_sets(text)? {
            Some((start, sets)) => (&text[..start], sets),
            None => (text, Vec::new()),
        };
        let model = crate::parse_model(model_text)?;
        let graph = model.graph.clone().unwrap_or_default();
        let mut data_sets = Vec::new();
        let mut seen = HashMap::new();
        for set in raw {
            let invalid = |span: std::ops::Range<usize>, message: String| {
                Error::single("onnxtxt::testcase::data_set", message, span).located_in(text)
            };
            if !set.name.starts_with(DATA_SET_PREFIX) || !is_plain_file_name(&set.name) {
                return Err(invalid(
                    set.name_span,
                    format!(
                        "a data set is named as its directory, {DATA_SET_PREFIX}_N (a plain file \
                         name)"
                    ),
                ));
            }
            if let Some(first) = seen.insert(set.name.clone(), set.name_span.clone()) {
                return Err(Error::from_diagnostics(vec![crate::Diagnostic::new(
                    "onnxtxt::testcase::data_set",
                    format!("data set `{}` is given twice", set.name),
                    set.name_span,
                )
                .with_label(first, "first given here")])
                .located_in(text));
            }
            data_sets.push(
                resolve(set, &graph.input, &graph.output)
                    .map_err(|(span, message)| invalid(span, message))?,
            );
        }
        Ok(TestCase { model, data_sets })
    }

    /// What is wrong with the data of the case for its model (each value's
    /// kind, element type and shape against the graph input or output it
    /// is for, symbolic dimensions the same size across a data set), and
    /// the inputs and outputs a data set leaves out (warnings). Each
    /// finding's path is the data file, e.g. `test_data_set_0/input_1.pb`.
    ///
    /// ```
    /// use onnxtxt::testcase::TestCase;
    ///
    /// let case = TestCase::parse("\
    /// <ir_version: 10, opset_import: [\"\": 21]>
    /// g (float[N] x, float[N] z) => (float[N] y) { y = Add(x, z) }
    /// test_data_set_0 {
    ///   input x: float[2] x = {-1, 2}
    ///   input z: float[3] z = {1, 1, 1}
    ///   output y: int64[2] y = {0, 2}
    /// }")?;
    /// let findings = case.check();
    /// assert_eq!(findings.len(), 2);
    /// assert!(findings[0].diagnostic.message.contains("`N` is 3 here and 2 in input_0.pb"));
    /// assert!(findings[1].diagnostic.message.contains("element type int64, the graph declares float"));
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn check(&self) -> Vec<crate::Finding> {
        super::check::check(self)
    }
}

/// A new empty directory beside `dir`, named after it and `what`.
fn new_dir_beside(dir: &Path, what: &str) -> io::Result<PathBuf> {
    let parent = match dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let base = dir.file_name().unwrap_or_default().to_string_lossy();
    let mut attempt = 0u32;
    loop {
        let candidate = parent.join(format!(
            ".{base}.onnxtxt-{what}-{}-{attempt}",
            std::process::id()
        ));
        match std::fs::create_dir(&candidate) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 1000 => attempt += 1,
            result => return result.map(|()| candidate),
        }
    }
}

/// `input` or `output`.
fn side(output: bool) -> &'static str {
    if output {
        "output"
    } else {
        "input"
    }
}

/// The entries of `dir` by name (UTF-8 names only), sorted.
fn entries(dir: &Path) -> Result<Vec<(String, PathBuf)>, CaseError> {
    let io_error = |e| CaseError {
        file: dir.to_owned(),
        problem: CaseProblem::Io(e),
    };
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error)? {
        let entry = entry.map_err(io_error)?;
        let path = entry.path();
        let Ok(name) = entry.file_name().into_string() else {
            return Err(CaseError {
                file: path,
                problem: CaseProblem::Layout("not part of a test case (not a UTF-8 name)".into()),
            });
        };
        entries.push((name, path));
    }
    entries.sort();
    Ok(entries)
}

/// `(is_output, K)` of `input_K.pb` or `output_K.pb` (K written without
/// leading zeros, as the runner names them).
fn data_file_index(name: &str) -> Option<(bool, usize)> {
    let stem = name.strip_suffix(".pb")?;
    let (output, number) = match stem.strip_prefix("input_") {
        Some(number) => (false, number),
        None => (true, stem.strip_prefix("output_")?),
    };
    let canonical = number.bytes().all(|b| b.is_ascii_digit())
        && !number.is_empty()
        && (number == "0" || !number.starts_with('0'));
    canonical.then(|| number.parse().ok().map(|k| (output, k)))?
}

/// The data sets in number order (`test_data_set_2` before
/// `test_data_set_10`), then by name.
fn data_set_order(name: &str) -> (u64, String) {
    let number = name
        .strip_prefix(DATA_SET_PREFIX)
        .and_then(|rest| rest.strip_prefix('_'))
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX);
    (number, name.to_owned())
}

/// The message a graph input or output of this type is given in.
fn declared_kind(value_info: &ValueInfoProto) -> Option<Kind> {
    match value_info.r#type.as_ref()?.value.as_ref()? {
        type_proto::Value::TensorType(_) => Some(Kind::Tensor),
        type_proto::Value::SequenceType(_) => Some(Kind::Sequence),
        type_proto::Value::MapType(_) => Some(Kind::Map),
        type_proto::Value::OptionalType(_) => Some(Kind::Optional),
        _ => None,
    }
}

/// Whether `name` names a file of its own in a directory.
fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

/// A value of a data set, with the span of its label, at its place.
type Labelled = Option<(Value, std::ops::Range<usize>)>;

/// A data set as written, each value put at the number of the graph input
/// or output its label names. `Err` has the span and message of what is
/// wrong.
fn resolve(
    set: RawDataSet,
    inputs: &[ValueInfoProto],
    outputs: &[ValueInfoProto],
) -> Result<DataSet, (std::ops::Range<usize>, String)> {
    let mut slots: [Vec<Labelled>; 2] = [Vec::new(), Vec::new()];
    for DataEntry {
        output,
        label,
        label_span,
        value,
    } in set.entries
    {
        let declared = if output { outputs } else { inputs };
        let Some(k) = declared
            .iter()
            .position(|v| v.name.as_deref() == Some(label.as_str()))
        else {
            let names: Vec<&str> = declared.iter().filter_map(|v| v.name.as_deref()).collect();
            return Err((
                label_span,
                format!(
                    "`{label}` is not an {} of the graph (its {}s: {})",
                    side(output),
                    side(output),
                    names.join(", ")
                ),
            ));
        };
        let slots = &mut slots[usize::from(output)];
        if slots.len() <= k {
            slots.resize(k + 1, None);
        }
        if slots[k].is_some() {
            return Err((
                label_span,
                format!("{} `{label}` is given twice in this data set", side(output)),
            ));
        }
        slots[k] = Some((value, label_span));
    }
    let mut values: [Vec<Value>; 2] = [Vec::new(), Vec::new()];
    for (output, slots) in slots.into_iter().enumerate() {
        let output = output == 1;
        let declared = if output { outputs } else { inputs };
        let last_span = slots.iter().flatten().last().map(|(_, span)| span.clone());
        for (k, slot) in slots.into_iter().enumerate() {
            let Some((value, _)) = slot else {
                let name = declared[k].name.as_deref().unwrap_or("");
                return Err((
                    last_span.unwrap_or(set.name_span.clone()),
                    format!(
                        "{} `{name}` ({}_{k}.pb) is missing before this one: a runner reads \
                         them by number from 0",
                        side(output),
                        side(output)
                    ),
                ));
            };
            values[usize::from(output)].push(value);
        }
    }
    let [inputs, outputs] = values;
    Ok(DataSet {
        name: set.name,
        inputs,
        outputs,
    })
}
