//! Input, output and error rendering shared by the subcommands.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};

/// Why a command failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The input text is invalid; rendered with its source lines.
    Invalid {
        name: String,
        text: String,
        error: onnxtxt::Error,
    },
    /// The input is not a readable model (e.g. corrupt protobuf).
    Corrupt(String),
    /// Reading or writing failed, or the arguments cannot work.
    Io(String),
}

/// An input file, or standard input for `-` or no path.
pub(crate) struct Input {
    /// How to name the input in messages.
    pub(crate) name: String,
    /// Its bytes.
    pub(crate) bytes: Vec<u8>,
}

/// Reads `path` (standard input for `None` or `-`).
pub(crate) fn read_input(path: Option<&Path>) -> Result<Input, Failure> {
    match path.filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            let bytes = std::fs::read(path)
                .map_err(|e| Failure::Io(format!("cannot read {}: {e}", path.display())))?;
            Ok(Input {
                name: path.display().to_string(),
                bytes,
            })
        }
        None => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::Io(format!("cannot read standard input: {e}")))?;
            Ok(Input {
                name: "<stdin>".into(),
                bytes,
            })
        }
    }
}

impl Input {
    /// The input as text, or an error naming the first byte that is not
    /// UTF-8.
    pub(crate) fn into_text(self) -> Result<(String, String), Failure> {
        match String::from_utf8(self.bytes) {
            Ok(text) => Ok((self.name, text)),
            Err(e) => Err(Failure::Corrupt(format!(
                "{}: the text is not valid UTF-8 (byte {})",
                self.name,
                e.utf8_error().valid_up_to()
            ))),
        }
    }
}

/// Where output goes: a file, written atomically, or standard output.
pub(crate) fn write_output(
    output: Option<&PathBuf>,
    bytes: &[u8],
    binary: bool,
) -> Result<(), Failure> {
    match output.filter(|p| p.as_os_str() != "-") {
        Some(path) => write_atomically(path, bytes),
        None => {
            let mut stdout = std::io::stdout().lock();
            if binary && stdout.is_terminal() {
                return Err(Failure::Io(
                    "refusing to write a binary model to a terminal; use -o FILE".into(),
                ));
            }
            stdout
                .write_all(bytes)
                .and_then(|()| stdout.flush())
                .map_err(|e| Failure::Io(format!("cannot write output: {e}")))
        }
    }
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over
/// `path`: a failed run never leaves a truncated or half-written file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let failed =
        |e: &dyn std::fmt::Display| Failure::Io(format!("cannot write {}: {e}", path.display()));
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| failed(&e))?;
    // The temporary file is private; give the result the permissions the
    // file it replaces had, or those of a newly created file.
    let permissions = match std::fs::metadata(path) {
        Ok(existing) => existing.permissions(),
        Err(_) => new_file_permissions(dir).map_err(|e| failed(&e))?,
    };
    file.as_file()
        .set_permissions(permissions)
        .map_err(|e| failed(&e))?;
    file.write_all(bytes)
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| failed(&e))?;
    file.persist(path).map_err(|e| failed(&e.error))?;
    Ok(())
}

/// The permissions an ordinary new file in `dir` gets (honouring the
/// umask), found by creating and removing one.
fn new_file_permissions(dir: &Path) -> std::io::Result<std::fs::Permissions> {
    let probe = dir.join(format!(".onnxtxt-probe-{}", std::process::id()));
    let permissions = std::fs::File::create(&probe)?.metadata()?.permissions();
    std::fs::remove_file(&probe)?;
    Ok(permissions)
}

/// Renders `error`'s diagnostics over `text` with `FILE:LINE:COL`, in
/// colour only on a terminal and when `NO_COLOR` is not set.
pub(crate) fn render(name: &str, text: &str, error: &onnxtxt::Error) {
    let colour = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let config = Config::default()
        .with_index_type(IndexType::Byte)
        .with_color(colour);
    let source = (name, Source::from(text));
    for diagnostic in error.diagnostics() {
        let span = diagnostic.span.start.min(text.len())..diagnostic.span.end.min(text.len());
        let mut report = Report::build(ReportKind::Error, (name, span.clone()))
            .with_config(config)
            .with_code(diagnostic.code)
            .with_message(&diagnostic.message)
            .with_label(
                Label::new((name, span))
                    .with_message(&diagnostic.message)
                    .with_color(Color::Red),
            );
        for label in &diagnostic.labels {
            report = report
                .with_label(Label::new((name, label.span.clone())).with_message(&label.message));
        }
        if let Some(help) = &diagnostic.help {
            report = report.with_help(help);
        }
        // Rendering can only fail if stderr is closed; nothing is left to tell.
        let _ = report.finish().eprint(source.clone());
    }
}
