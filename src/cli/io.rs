//! What the subcommands share besides reading input (`input.rs`): why a
//! command failed, writing output atomically, loading a model.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use onnxtxt::proto::ModelProto;

use super::input::{Input, STDIN_NAME};

/// Why a command failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The input text is invalid; rendered with its source lines.
    Invalid {
        name: String,
        text: String,
        error: onnxtxt::Error,
    },
    /// The input is a binary model that cannot be decoded.
    Binary { name: String, error: onnxtxt::Error },
    /// The input is not a readable model, or the checks found errors.
    Corrupt(String),
    /// Reading or writing failed, or the arguments cannot work.
    Io(String),
    /// Nothing more to show (the command showed it): exit with this code.
    Exit(u8),
}

/// The failure of text that does not parse (with `error`); but when its
/// bytes are a binary model (which can be valid UTF-8), that is what it
/// says.
pub(crate) fn invalid_text(name: String, text: String, error: onnxtxt::Error) -> Failure {
    if onnxtxt::decode_model(text.as_bytes()).is_ok() {
        binary_given(&name)
    } else {
        Failure::Invalid { name, text, error }
    }
}

/// A binary model given to a command that reads text: what it is, and
/// the command that reads it.
pub(crate) fn binary_given(name: &str) -> Failure {
    let file = if name == STDIN_NAME { "-" } else { name };
    Failure::Corrupt(format!(
        "{name} is a binary ONNX model, not text: `onnxtxt print {file}` writes it as text"
    ))
}

/// Where output goes: a file, written atomically, or standard output.
pub(crate) fn write_output(
    output: Option<&PathBuf>,
    bytes: &[u8],
    binary: bool,
) -> Result<(), Failure> {
    write_output_with(output, binary, |out| out.write_all(bytes))
}

/// [`write_output`] of what `produce` writes, streamed: the output is
/// never held in memory whole.
pub(crate) fn write_output_with(
    output: Option<&PathBuf>,
    binary: bool,
    produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Failure> {
    match output.filter(|p| p.as_os_str() != "-") {
        Some(path) => write_atomically(path, produce),
        None => {
            let mut stdout = std::io::stdout().lock();
            if binary && stdout.is_terminal() {
                return Err(Failure::Io(
                    "refusing to write a binary model to a terminal; use -o FILE".into(),
                ));
            }
            produce(&mut stdout)
                .and_then(|()| stdout.flush())
                .map_err(|e| Failure::Io(format!("cannot write output: {e}")))
        }
    }
}

/// Writes what `produce` writes to a temporary file beside `path`, then
/// renames it over `path`: a failed run never leaves a truncated or
/// half-written file. When `path` is a symbolic link to a file, the file
/// it points to is replaced and the link kept.
fn write_atomically(
    path: &Path,
    produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Failure> {
    let failed =
        |e: &dyn std::fmt::Display| Failure::Io(format!("cannot write {}: {e}", path.display()));
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let linked = if is_link {
        std::fs::canonicalize(path).ok()
    } else {
        None
    };
    let path = linked.as_deref().unwrap_or(path);
    let dir = directory_of(path);
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
    produce(&mut file)
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| failed(&e))?;
    file.persist(path).map_err(|e| failed(&e.error))?;
    Ok(())
}

/// The directory `path` is in (`.` for a bare file name).
pub(crate) fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The permissions an ordinary new file in `dir` gets (honouring the
/// umask), found by creating and removing one.
fn new_file_permissions(dir: &Path) -> std::io::Result<std::fs::Permissions> {
    let probe = dir.join(format!(".onnxtxt-probe-{}", std::process::id()));
    let permissions = std::fs::File::create(&probe)?.metadata()?.permissions();
    std::fs::remove_file(&probe)?;
    Ok(permissions)
}

/// Leaves `model` for the process's exit to free: the command is about to
/// end, and freeing a model's IR piece by piece (every name, list and
/// tensor) takes time the system's release of the whole process does not.
pub(crate) fn left_to_exit(model: ModelProto) {
    std::mem::forget(model);
}

/// A model read from text or binary input.
pub(crate) struct Loaded {
    /// How to name the input in messages.
    pub(crate) name: String,
    /// The text, for text input.
    pub(crate) text: Option<String>,
    /// The model.
    pub(crate) model: ModelProto,
}

/// Reads a model from `input`, text or binary, told apart by the content
/// (not the file name: some projects name protobuf text `.onnxtxt`).
pub(crate) fn load_model(input: Input) -> Result<Loaded, Failure> {
    if !onnxtxt::looks_like_text(&input.bytes) {
        return match onnxtxt::decode_model(&input.bytes) {
            Ok(model) => Ok(Loaded {
                name: input.name,
                text: None,
                model,
            }),
            Err(error) => Err(Failure::Binary {
                name: input.name,
                error,
            }),
        };
    }
    let (name, text) = input.into_text()?;
    match onnxtxt::parse_model(&text) {
        Ok(model) => Ok(Loaded {
            name,
            text: Some(text),
            model,
        }),
        // A binary model can, rarely, look like text (see
        // `looks_like_text`): if the text does not parse but the bytes
        // decode, it was binary.
        Err(error) => match onnxtxt::decode_model(text.as_bytes()) {
            Ok(model) => Ok(Loaded {
                name,
                text: None,
                model,
            }),
            Err(_) => Err(Failure::Invalid { name, text, error }),
        },
    }
}
