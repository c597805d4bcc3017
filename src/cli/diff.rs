//! `onnxtxt diff`: how two models (text or binary) differ, as a unified
//! diff of their canonical texts, and the unified diff rendering that
//! `onnxtxt fmt --check` shares.
//!
//! Exit status, as diff(1): 0 when the models are the same, 1 when they
//! differ, 2 for usage and I/O errors and for inputs that are not valid
//! models.

use std::io::IsTerminal;
use std::path::PathBuf;

use onnxtxt::diff::{
    diff_models, structural_diff, Change, DiffOptions, Hunk, LineKind, DEFAULT_CONTEXT,
};

use super::diagnostic_output::ErrorFormat;
use super::input::Input;
use super::io::{load_model, write_output, Failure};

/// Arguments of `onnxtxt diff`.
#[derive(Debug, clap::Args)]
pub(crate) struct DiffArgs {
    /// The old model, binary or text (`-` for standard input).
    pub(crate) old: PathBuf,
    /// The new model, binary or text (`-` for standard input).
    pub(crate) new: PathBuf,
    /// Leave out every doc string (model, graphs, nodes, attributes, value
    /// infos, tensors, functions).
    #[arg(long)]
    pub(crate) ignore_doc_strings: bool,
    /// Leave out every `metadata_props`, and the model's producer_name,
    /// producer_version, domain and model_version.
    #[arg(long)]
    pub(crate) ignore_metadata: bool,
    /// Show tensor elements as a placeholder; list each tensor whose values
    /// changed with how many changed and by how much at most.
    #[arg(long)]
    pub(crate) summarize_tensors: bool,
    /// Compare tensors by type, shape and values, not by the field that
    /// holds them (`raw_data` or a typed field such as `float_data`).
    #[arg(long)]
    pub(crate) ignore_storage: bool,
    /// List what changed, part by part (nodes matched by name, else by
    /// position and operator; values, initializers, functions), instead of
    /// a diff of the texts.
    #[arg(long)]
    pub(crate) structural: bool,
    /// With --structural: do not report renamed values.
    #[arg(long, requires = "structural")]
    pub(crate) ignore_renames: bool,
    /// With --structural: match nodes whatever their order, and do not
    /// report moves (two exports of the same network).
    #[arg(long, requires = "structural")]
    pub(crate) ignore_node_order: bool,
    /// Lines of context around each change.
    #[arg(short = 'U', long, value_name = "LINES", default_value_t = DEFAULT_CONTEXT)]
    pub(crate) unified: usize,
    #[command(flatten)]
    pub(crate) color: ColorArg,
}

impl DiffArgs {
    /// Compares the models; a difference is exit code 1, and an input that
    /// cannot be read or is not a valid model is exit code 2 (after its
    /// diagnostics).
    pub(crate) fn run(self, format: ErrorFormat) -> Result<(), Failure> {
        if self.old.as_os_str() == "-" && self.new.as_os_str() == "-" {
            return Err(Failure::Io(
                "only one of the two models can be standard input".into(),
            ));
        }
        let read = |path: &PathBuf| super::case::case_text_or_input(path);
        let (old, new) = match read(&self.old).and_then(|old| Ok((old, read(&self.new)?))) {
            Ok(read) => read,
            Err(failure) => {
                failure.report(format);
                return Err(Failure::Exit(2));
            }
        };
        let (old, new) = match (old, new) {
            (Err(old), Err(new)) => (old, new),
            // A test case or a data value: a diff of the texts.
            (old, new) => {
                let text = |read: Result<String, Input>| match read {
                    Ok(text) => Ok(text),
                    Err(input) => load_model(input).map(|loaded| onnxtxt::to_text(&loaded.model)),
                };
                return match text(old).and_then(|old| Ok([old, text(new)?])) {
                    Ok(texts) => self.diff_texts(&texts),
                    Err(failure) => {
                        failure.report(format);
                        Err(Failure::Exit(2))
                    }
                };
            }
        };
        let (old, new) = match load_model(old).and_then(|old| Ok((old, load_model(new)?))) {
            Ok(models) => models,
            Err(failure) => {
                failure.report(format);
                return Err(Failure::Exit(2));
            }
        };
        let mut options = DiffOptions::default();
        options.ignore_doc_strings = self.ignore_doc_strings;
        options.ignore_metadata = self.ignore_metadata;
        options.summarize_tensors = self.summarize_tensors;
        options.ignore_storage = self.ignore_storage;
        options.context = self.unified;
        options.ignore_renames = self.ignore_renames;
        options.ignore_node_order = self.ignore_node_order;
        let style = self.color.style();
        if self.structural {
            let changes = structural_diff(&old.model, &new.model, &options);
            if changes.is_empty() {
                return Ok(());
            }
            let mut out = Vec::new();
            write_changes(&mut out, style, &changes);
            write_output(None, &out, false)?;
            return Err(Failure::Exit(1));
        }
        let diff = diff_models(&old.model, &new.model, &options);
        if diff.is_empty() {
            return Ok(());
        }
        let mut out = Vec::new();
        write_diff(&mut out, style, [&old.name, &new.name], &diff.hunks);
        for tensor in &diff.tensors {
            for line in tensor.to_string().lines() {
                style.line(&mut out, Some(Paint::Summary), line);
            }
        }
        write_output(None, &out, false)?;
        Err(Failure::Exit(1))
    }
}

impl DiffArgs {
    /// A unified diff of two canonical texts (test cases, data values).
    fn diff_texts(&self, [old, new]: &[String; 2]) -> Result<(), Failure> {
        let hunks = onnxtxt::diff::diff_texts(old, new, self.unified);
        if hunks.is_empty() {
            return Ok(());
        }
        let mut out = Vec::new();
        let names = [
            self.old.display().to_string(),
            self.new.display().to_string(),
        ];
        write_diff(&mut out, self.color.style(), [&names[0], &names[1]], &hunks);
        write_output(None, &out, false)?;
        Err(Failure::Exit(1))
    }
}

/// `--color`, for the commands that write diffs.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct ColorArg {
    /// When to colour the diff: `auto` does on a terminal, unless `NO_COLOR`
    /// is set.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t)]
    color: ColorChoice,
}

/// When to colour output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorArg {
    /// How to write to standard output.
    pub(crate) fn style(self) -> Style {
        let colour = match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Style { colour }
    }
}

/// Whether to colour a diff.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    colour: bool,
}

/// What a piece of a diff is, for its colour.
#[derive(Clone, Copy)]
enum Paint {
    FileHeader,
    HunkHeader,
    Removed,
    Added,
    Summary,
}

impl Style {
    /// Appends `text` and a line break to `out`, in the colour of `paint`
    /// (ANSI escapes) if colouring.
    fn line(self, out: &mut Vec<u8>, paint: Option<Paint>, text: &str) {
        let code = paint.filter(|_| self.colour).map(|paint| match paint {
            Paint::FileHeader => "1",
            Paint::HunkHeader => "36",
            Paint::Removed => "31",
            Paint::Added => "32",
            Paint::Summary => "33",
        });
        match code {
            Some(code) => out.extend_from_slice(format!("\x1b[{code}m{text}\x1b[0m\n").as_bytes()),
            None => {
                out.extend_from_slice(text.as_bytes());
                out.push(b'\n');
            }
        }
    }
}

/// Writes structural changes, under a line naming their scope each time
/// it changes.
fn write_changes(out: &mut Vec<u8>, style: Style, changes: &[Change]) {
    let mut scope = None;
    for change in changes {
        if scope != Some(&change.scope) {
            style.line(out, Some(Paint::HunkHeader), &change.scope);
            scope = Some(&change.scope);
        }
        style.line(out, None, &format!("  {}", change.what));
    }
}

/// Writes a unified diff of `[old, new]` (named so in the `---`/`+++`
/// header) made of `hunks` to `out`.
pub(crate) fn write_diff(out: &mut Vec<u8>, style: Style, names: [&str; 2], hunks: &[Hunk]) {
    let mut line = |paint: Option<Paint>, text: &str| style.line(out, paint, text);
    line(Some(Paint::FileHeader), &format!("--- {}", names[0]));
    line(Some(Paint::FileHeader), &format!("+++ {}", names[1]));
    for hunk in hunks {
        line(Some(Paint::HunkHeader), &hunk.header());
        for l in &hunk.lines {
            let paint = match l.kind {
                LineKind::Removed => Some(Paint::Removed),
                LineKind::Added => Some(Paint::Added),
                _ => None,
            };
            line(paint, &format!("{}{}", l.kind.mark(), l.text));
            if !l.newline {
                line(None, "\\ No newline at end of file");
            }
        }
    }
}
