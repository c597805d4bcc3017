//! `onnxtxt print`: binary (or text) model in, canonical text out.

use std::path::{Path, PathBuf};

use onnxtxt::external::{externalize, DEFAULT_THRESHOLD};

use onnxtxt::testcase::{TestCase, TextKind, Value};

use super::case::{self, ReadAs};
use super::input::{read_input, Input};
use super::io::{
    directory_of, left_to_exit, load_model, stage, undecodable, write_output, write_output_with,
    write_outputs_with, Failure,
};
use super::progress::Progress;

/// Arguments of `onnxtxt print`.
#[derive(Debug, clap::Args)]
pub(crate) struct PrintArgs {
    /// The model, binary or text (`-` or nothing for standard input); or
    /// a test case's data file or directory.
    pub(crate) input: Option<PathBuf>,
    /// Where to write the text (standard output by default).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Use only the reference syntax; list on stderr what had to be dropped.
    #[arg(long)]
    pub(crate) compat: bool,
    /// Move the data of big tensors into FILE and print them as external
    /// data; FILE must be in the directory of the text output (the current
    /// directory for standard output) or below it.
    #[arg(long, value_name = "FILE")]
    pub(crate) external_data: Option<PathBuf>,
    /// With --external-data: move tensors whose data is longer than this.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_THRESHOLD, requires = "external_data")]
    pub(crate) threshold: usize,
    /// For reading only: print the first N values of bigger tensors and
    /// mark the rest as elided (such text cannot be parsed back).
    #[arg(long, value_name = "N", conflicts_with = "external_data")]
    pub(crate) elide: Option<usize>,
    /// Write each node's inferred output types as a comment at the end of
    /// its line (`y = MatMul (a, b) #: float[B,4]`); `fmt` refreshes them.
    #[arg(long)]
    pub(crate) types: bool,
    /// As git's textconv driver: an input that is not a model prints one
    /// line saying why (`# not a valid ONNX model: ...`) and exits 0, a Git
    /// LFS pointer prints `# Git LFS pointer: oid sha256:..., size N`, so
    /// that `git diff` still shows every other file.
    #[arg(long, conflicts_with_all = ["output", "external_data"])]
    pub(crate) textconv: bool,
    /// What a binary input holds; by default told by its content (a
    /// model, else a tensor, sequence, map or optional). An optional
    /// holding one value has the bytes of a sequence of one, and prints as
    /// that unless told: either text parses back to the same bytes.
    #[arg(long = "as", value_enum, value_name = "KIND")]
    pub(crate) read_as: Option<ReadAs>,
}

impl PrintArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        if self.elide.is_some() {
            refuse_model_name(self.output.as_deref())?;
        }
        if let Some(dir) = self.input.as_deref().filter(|path| path.is_dir()) {
            return self.print_case_dir(dir);
        }
        let input = match read_input(self.input.as_deref()).and_then(|input| {
            input.refuse_empty()?;
            Ok(input)
        }) {
            Ok(input) => input,
            Err(failure) if self.textconv => return not_a_model(failure, None),
            Err(failure) => return Err(failure),
        };
        if self.textconv {
            if let Some(pointer) = lfs_pointer(&input.bytes) {
                return write_output(None, pointer.as_bytes(), false);
            }
        }
        if let Some(printed) = self.print_data(&input) {
            return printed;
        }
        let progress = Progress::new(input.bytes.len());
        progress.stage(format!("reading {}", input.name));
        let printer = onnxtxt::Printer::new()
            .compat(self.compat)
            .elide(self.elide);
        // Textconv decodes the whole model before it prints a line: a model
        // that turns out invalid has printed nothing.
        let streamed = !self.textconv && self.external_data.is_none() && !self.types;
        if streamed && !onnxtxt::looks_like_text(&input.bytes) {
            return self.print_binary(&input, &printer, progress);
        }
        let size = input.bytes.len();
        let mut model = if onnxtxt::looks_like_text(&input.bytes) {
            match load_model(input) {
                Ok(loaded) => loaded.model,
                Err(failure) => {
                    // Text that is no model: a data value or a test case.
                    if let Failure::Invalid { name, text, .. } = &failure {
                        if let Some(printed) = self.print_text_data(name, text) {
                            return printed;
                        }
                    }
                    drop(progress);
                    return match self.textconv {
                        true => not_a_model(failure, Some(size)),
                        false => Err(failure),
                    };
                }
            }
        } else {
            match onnxtxt::decode_model(&input.bytes) {
                Ok(model) => model,
                Err(error) => {
                    drop(progress);
                    return self.print_undecodable(&input, error);
                }
            }
        };
        let mut written = Vec::new();
        if let Some(file) = &self.external_data {
            let location = self.external_location(file)?;
            progress.stage("moving tensor data out");
            let data = externalize(&mut model, &location, self.threshold);
            if data.is_empty() {
                eprintln!(
                    "note: no tensor moved to {}: only data in raw_data longer than {} bytes moves",
                    file.display(),
                    self.threshold
                );
            }
            written.push(stage(file, |out| out.write_all(&data))?);
        }
        progress.stage("printing");
        if self.types {
            let text = onnxtxt::infer::print_with_types(&model, &printer);
            drop(progress);
            return write_outputs_with(written, self.output.as_ref(), false, |out| {
                out.write_all(text.as_bytes())
            });
        }
        let mut dropped = Vec::new();
        write_outputs_with(written, self.output.as_ref(), false, |out| {
            dropped = printer.write(&model, progress.counting(out))?;
            Ok(())
        })?;
        drop(progress);
        left_to_exit(model);
        warn_dropped(&dropped);
        Ok(())
    }

    /// Prints the test case directory `dir` as one text.
    fn print_case_dir(&self, dir: &Path) -> Result<(), Failure> {
        case::refuse_in_compat(self.compat, "test cases")?;
        self.print_case(case::read_case_dir(dir)?)
    }

    /// Prints a test case as one text.
    fn print_case(&self, test_case: TestCase) -> Result<(), Failure> {
        case::refuse_in_compat(self.compat, "test cases")?;
        case::print_text(&test_case, &self.data_printer(), self.output.as_ref()).map(|_| ())
    }

    /// Prints binary `input` read `--as` a data kind; `None` for anything
    /// else (a model is printed as it is decoded, by `print_binary`, which
    /// reads the bytes as data when they are no model).
    fn print_data(&self, input: &Input) -> Option<Result<(), Failure>> {
        if onnxtxt::looks_like_text(&input.bytes) {
            return None;
        }
        let kind = self.read_as?.kind()?;
        let value = case::decode_data(&input.name, &input.bytes, Some(kind));
        Some(value.and_then(|value| self.print_value(value)))
    }

    /// Prints binary input that is no model (its decoding failed with
    /// `error`): a test case's data file, or else the model's error (as with
    /// `--as model`), on one line for textconv.
    fn print_undecodable(&self, input: &Input, error: onnxtxt::Error) -> Result<(), Failure> {
        let data = match self.read_as {
            None => case::decode_data(&input.name, &input.bytes, None).ok(),
            Some(_) => None,
        };
        match data {
            Some(value) => self.print_value(value),
            None if self.textconv => {
                not_a_model(undecodable(input, error), Some(input.bytes.len()))
            }
            None => Err(undecodable(input, error)),
        }
    }

    /// Prints the text `text` that is no model when it is a data value or
    /// a test case, or the bytes of a small data file that looked like
    /// text; `None` for anything else.
    fn print_text_data(&self, name: &str, text: &str) -> Option<Result<(), Failure>> {
        let invalid = |error| Failure::Invalid {
            name: name.to_owned(),
            text: text.to_owned(),
            error,
        };
        Some(match onnxtxt::testcase::text_kind(text) {
            // A small data file can look like text: its control characters
            // (which no model's text has outside strings) tell it apart.
            TextKind::Model if has_control_characters(text) => {
                let kind = self.read_as.and_then(ReadAs::kind);
                match case::decode_data(name, text.as_bytes(), kind) {
                    Ok(value) => self.print_value(value),
                    Err(_) => return None,
                }
            }
            TextKind::Model => return None,
            TextKind::Case => case::parse_case(name, text).and_then(|c| self.print_case(c)),
            TextKind::Value => onnxtxt::parse_value(text)
                .map_err(invalid)
                .and_then(|v| self.print_value(v)),
        })
    }

    /// Prints a data value read from the input.
    fn print_value(&self, value: Value) -> Result<(), Failure> {
        if let Some(what) = case::what_value(&value) {
            case::refuse_in_compat(self.compat, what)?;
        }
        let dropped = case::print_text(&value, &self.data_printer(), self.output.as_ref())?;
        warn_dropped(&dropped);
        Ok(())
    }

    /// The printer of data values and test cases.
    fn data_printer(&self) -> onnxtxt::Printer {
        onnxtxt::Printer::new()
            .compat(self.compat)
            .elide(self.elide)
    }

    /// Prints the binary model `input` as it is decoded: the nodes of its
    /// main graph one at a time, never all in memory
    /// ([`onnxtxt::Printer::write_binary_model`]).
    fn print_binary(
        &self,
        input: &Input,
        printer: &onnxtxt::Printer,
        progress: Progress,
    ) -> Result<(), Failure> {
        progress.stage("printing");
        let mut not_decoded = None;
        let mut dropped = Vec::new();
        let written = write_output_with(self.output.as_ref(), false, |out| {
            match printer.write_binary_model(&input.bytes, progress.counting(out)) {
                Ok(result) => dropped = result?,
                Err(error) => {
                    not_decoded = Some(error);
                    return Err(std::io::Error::other("not a binary model"));
                }
            }
            Ok(())
        });
        drop(progress);
        if let Some(error) = not_decoded {
            return self.print_undecodable(input, error);
        }
        written?;
        warn_dropped(&dropped);
        Ok(())
    }
}

/// The `# Git LFS pointer: oid sha256:..., size N` line for a Git LFS
/// pointer file (what a repository holds in place of a file git-lfs
/// stores), if `bytes` are one.
fn lfs_pointer(bytes: &[u8]) -> Option<String> {
    // Pointers are short UTF-8 text starting with their spec's version.
    let text = std::str::from_utf8(bytes.get(..bytes.len().min(1024))?).ok()?;
    text.strip_prefix("version https://git-lfs.github.com/spec/")?;
    let value = |key: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(key)?.strip_prefix(' '))
    };
    Some(format!(
        "# Git LFS pointer: oid {}, size {}\n",
        value("oid")?,
        value("size")?
    ))
}

/// For textconv: writes why the input (of `size` bytes, if read) is not a
/// model, on one line.
fn not_a_model(failure: Failure, size: Option<usize>) -> Result<(), Failure> {
    let line = format!("# not a valid ONNX model: {}\n", one_line(failure, size));
    write_output(None, line.as_bytes(), false)
}

/// What a failure says, on one line: where (the byte and field of binary
/// input, of `size` bytes, the line of text) and the first diagnostic's
/// message.
fn one_line(failure: Failure, size: Option<usize>) -> String {
    let message = match failure {
        Failure::Binary { error, .. } => {
            let d = error.primary();
            let mut at = String::new();
            if !d.span.is_empty() {
                at.push_str(&format!("byte {}: ", d.span.start));
            }
            if let Some(path) = &d.path {
                at.push_str(&format!("{path}: "));
            }
            let size = size.map(|n| format!(", in {n} bytes")).unwrap_or_default();
            format!("{at}{}{size}", d.message)
        }
        Failure::Invalid { text, error, .. } => at_line(&text, error.primary()),
        Failure::Located {
            text, diagnostic, ..
        } => at_line(&text, &diagnostic),
        Failure::Corrupt(message) | Failure::Io(message) => message,
        Failure::Exit(code) => format!("exit status {code}"),
    };
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A diagnostic about `text` as `line N: message`.
fn at_line(text: &str, diagnostic: &onnxtxt::Diagnostic) -> String {
    let before = text
        .as_bytes()
        .get(..diagnostic.span.start)
        .unwrap_or_default();
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    format!("line {line}: {}", diagnostic.message)
}

/// Whether `text` has characters below U+0020 other than tab and line
/// breaks.
fn has_control_characters(text: &str) -> bool {
    text.bytes()
        .any(|b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
}

/// Warns on stderr of what compat mode dropped.
fn warn_dropped(dropped: &[onnxtxt::Dropped]) {
    for dropped in dropped {
        eprintln!("warning: dropped {dropped}");
    }
}

/// Elided text is for reading: refuses to write it to a file named like a
/// model (`.onnx`, `.onnxtxt`), which people and tools would take for one.
fn refuse_model_name(output: Option<&Path>) -> Result<(), Failure> {
    let Some(output) = output else {
        return Ok(());
    };
    let extension = output.extension().unwrap_or_default();
    if ["onnx", "onnxtxt"]
        .iter()
        .any(|model| extension.eq_ignore_ascii_case(model))
    {
        return Err(Failure::Io(format!(
            "refusing to write elided text to {}: it would be taken for a model; \
             use another file name, or print without --elide",
            output.display()
        )));
    }
    Ok(())
}

impl PrintArgs {
    /// The `location` to write for the external data file `file`: its path
    /// relative to the directory of the text (that of `--output`, or the
    /// current directory for standard output), `/`-separated. ONNX
    /// locations cannot go up, so the file must be in that directory or
    /// below it, and so must the file it names when it is a symbolic link.
    /// It cannot be the input model or the text output.
    fn external_location(&self, file: &Path) -> Result<String, Failure> {
        let usage =
            |what: String| Failure::Io(format!("--external-data {}: {what}", file.display()));
        let output = self.output.as_deref().filter(|p| p.as_os_str() != "-");
        let name = file
            .file_name()
            .filter(|_| file.as_os_str() != "-")
            .ok_or_else(|| usage("a file name is needed".into()))?;
        let text_dir = absolute(output.map_or(Path::new("."), directory_of))?;
        let outside = |path: &Path| {
            usage(format!(
                "{}the file must be in the directory of the text ({}) or below it",
                if path == file {
                    String::new()
                } else {
                    format!("it resolves to {}; ", path.display())
                },
                text_dir.display()
            ))
        };
        let relative = absolute(directory_of(file))?
            .strip_prefix(&text_dir)
            .map(|dir| dir.join(name))
            .map_err(|_| outside(file))?;
        if let Ok(resolved) = file.canonicalize() {
            if !resolved.starts_with(&text_dir) {
                return Err(outside(&resolved));
            }
        }
        if self
            .input
            .as_deref()
            .is_some_and(|input| same_file(file, input))
        {
            return Err(usage(
                "that is the input model; writing the data there would replace it".into(),
            ));
        }
        let names_output =
            output.and_then(Path::file_name) == Some(name) && relative == Path::new(name);
        if names_output || output.is_some_and(|output| same_file(file, output)) {
            return Err(usage(
                "the text output cannot be its own external data".into(),
            ));
        }
        let parts = relative
            .iter()
            .map(|part| part.to_str())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| usage("the path is not UTF-8".into()))?;
        Ok(parts.join("/"))
    }
}

/// Whether `a` and `b` are the same existing file (links followed).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// `dir`, made absolute with symbolic links resolved.
fn absolute(dir: &Path) -> Result<PathBuf, Failure> {
    dir.canonicalize()
        .map_err(|e| Failure::Io(format!("cannot find directory {}: {e}", dir.display())))
}
