//! What the subcommands share besides reading input (`input.rs`): why a
//! command failed, writing output atomically, loading a model.

use std::fs::{File, Metadata};
use std::io::{ErrorKind, IsTerminal, Write};
use std::os::unix::fs::{fchown, MetadataExt};
use std::path::{Path, PathBuf};

use onnxtxt::proto::ModelProto;

use super::input::{Input, Text, STDIN_NAME};

/// Why a command failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The input text is invalid; rendered with its source lines.
    Invalid {
        name: String,
        text: String,
        error: onnxtxt::Error,
    },
    /// The input text parses, but what it says is refused, at one place.
    Located {
        name: String,
        text: String,
        diagnostic: Box<onnxtxt::Diagnostic>,
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
    write_outputs_with(Vec::new(), output, binary, produce)
}

/// [`write_output_with`] as the last of several outputs: `written`, the
/// others, are already written ([`stage`]), and none of them replaces its
/// file until this one is written too. A failed run leaves every file as
/// it was.
pub(crate) fn write_outputs_with(
    written: Vec<Staged>,
    output: Option<&PathBuf>,
    binary: bool,
    produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Failure> {
    let last = match output.filter(|p| p.as_os_str() != "-") {
        Some(path) => stage(path, produce)?,
        None => {
            write_stdout(binary, produce)?;
            Staged::Done
        }
    };
    written
        .into_iter()
        .chain([last])
        .try_for_each(Staged::replace)
}

/// Writes what `produce` writes to standard output. A reader that closes
/// the pipe early (`onnxtxt print m.onnx | head`) ends the command quietly
/// and successfully, as it ends `cat`.
fn write_stdout(
    binary: bool,
    produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    if binary && stdout.is_terminal() {
        return Err(Failure::Io(
            "refusing to write a binary model to a terminal; use -o FILE".into(),
        ));
    }
    match produce(&mut stdout).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => {
            Err(Failure::Io(format!("cannot write output: {e}")))
        }
        _ => Ok(()),
    }
}

/// An output file written by [`stage`], not yet in place.
pub(crate) enum Staged {
    /// A temporary file beside `path`, to be renamed over it.
    Temporary {
        file: tempfile::NamedTempFile,
        path: PathBuf,
    },
    /// Written where it goes already (a device, a FIFO, standard output).
    Done,
}

impl Staged {
    /// Puts the output in place: renames the temporary file over its path.
    pub(crate) fn replace(self) -> Result<(), Failure> {
        let Staged::Temporary { file, path } = self else {
            return Ok(());
        };
        let temporary = file.path().to_path_buf();
        let persisted = file.persist(&path);
        cleanup::forget(&temporary);
        persisted
            .map(drop)
            .map_err(|e| cannot_write(&path, &e.error))
    }
}

fn cannot_write(path: &Path, error: &dyn std::fmt::Display) -> Failure {
    Failure::Io(format!("cannot write {}: {error}", path.display()))
}

/// Writes what `produce` writes for the file at `path`, without replacing
/// it yet ([`Staged::replace`] does): into a temporary file beside it, so
/// that a failed run never leaves a truncated or half-written file. The
/// temporary file gets the mode, and when the system allows it the owner
/// and group, of the file it is to replace (those of a new file when there
/// is none), and is removed if SIGINT, SIGTERM or SIGHUP ends the command.
///
/// When `path` is a symbolic link to a file, the file it points to is
/// replaced and the link kept. What is not a regular file (a device such
/// as `/dev/null`, a FIFO, a terminal, `/dev/stdout`) is written into,
/// never replaced.
pub(crate) fn stage(
    path: &Path,
    produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<Staged, Failure> {
    let failed = |e: &dyn std::fmt::Display| cannot_write(path, e);
    let existing = std::fs::metadata(path).ok();
    if existing.as_ref().is_some_and(Metadata::is_dir) {
        // Refused now: the rename would fail after the other outputs'.
        return Err(failed(&"it is a directory"));
    }
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| failed(&e))?;
        produce(&mut file)
            .and_then(|()| file.flush())
            .map_err(|e| failed(&e))?;
        return Ok(Staged::Done);
    }
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let linked = if is_link {
        std::fs::canonicalize(path).ok()
    } else {
        None
    };
    let path = linked.as_deref().unwrap_or(path);
    let dir = directory_of(path);
    let file = cleanup::temporary_in(dir).map_err(|e| failed(&e))?;
    match &existing {
        Some(existing) => keep_owner_and_mode(file.as_file(), existing),
        None => new_file_permissions(dir).and_then(|p| file.as_file().set_permissions(p)),
    }
    .map_err(|e| failed(&e))?;
    produce(&mut WrittenBack::new(file.as_file()))
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| failed(&e))?;
    Ok(Staged::Temporary {
        file,
        path: path.to_path_buf(),
    })
}

/// How much of a temporary file is written before the system is asked to
/// start writing it to the disk (1 MiB).
const WRITEBACK_BYTES: usize = 1 << 20;

/// A temporary output file written through in pieces of at most
/// [`WRITEBACK_BYTES`], each sent on its way to the disk once written
/// (`sync_file_range`, which starts the writing and does not wait for it):
/// the disk writes the output while the rest of it is still produced, and
/// the `fsync` that makes the file durable before it is renamed into place
/// waits for the last piece only, not for the whole file. The `fsync` is
/// still what makes it durable; this only makes it shorter.
struct WrittenBack<'f> {
    file: &'f File,
    /// Bytes written so far.
    written: u64,
    /// Bytes sent to the disk so far.
    sent: u64,
}

impl<'f> WrittenBack<'f> {
    fn new(file: &'f File) -> Self {
        WrittenBack {
            file,
            written: 0,
            sent: 0,
        }
    }
}

impl Write for WrittenBack<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let piece = &buf[..buf.len().min(WRITEBACK_BYTES)];
        let written = self.file.write(piece)?;
        self.written += written as u64;
        if self.written - self.sent >= WRITEBACK_BYTES as u64 {
            start_writeback(self.file, self.sent, self.written - self.sent);
            self.sent = self.written;
        }
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Asks the system to start writing `len` bytes of `file` from `offset` to
/// the disk, without waiting. A failure is left to the `fsync` after it to
/// report: nothing is lost when the writing merely starts later.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return;
    };
    // SAFETY: sync_file_range reads no memory of this process; on an open
    // file descriptor it only starts the writing of the range's pages.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File, _offset: u64, _len: u64) {}

/// Gives `file` the owner, group and mode `existing` has: the owner and
/// group only when the system lets this process give them (root can;
/// others can keep their own files' group), silently otherwise, as
/// `sed -i` does; the mode after them, since changing the owner clears the
/// set-user-ID bit.
fn keep_owner_and_mode(file: &File, existing: &Metadata) -> std::io::Result<()> {
    let mine = file.metadata()?;
    if (mine.uid(), mine.gid()) != (existing.uid(), existing.gid()) {
        let (uid, gid) = (Some(existing.uid()), Some(existing.gid()));
        if fchown(file, uid, gid).is_err() {
            let _ = fchown(file, None, gid);
        }
    }
    file.set_permissions(existing.permissions())
}

/// The temporary files of outputs being written, removed when SIGINT,
/// SIGTERM or SIGHUP ends the command: the signals are taken, from the
/// first temporary file on, by a thread that removes the files and then
/// ends the process as the signal would have (its usual exit status). A
/// signal the command was started ignoring stays ignored.
mod cleanup {
    use std::path::{Path, PathBuf};
    use std::sync::{Mutex, MutexGuard, Once};

    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;

    /// The temporary files not yet renamed or removed.
    static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

    fn temporaries() -> MutexGuard<'static, Vec<PathBuf>> {
        TEMPORARIES
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new temporary file in `dir`, removed on the signals. It is
    /// recorded before a signal can be handled: the handling thread waits
    /// for the record.
    pub(super) fn temporary_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
        static HANDLER: Once = Once::new();
        HANDLER.call_once(|| {
            // Without the handler (the system refused it), a signal leaves
            // the temporary file behind, as it did before.
            let taken = [SIGINT, SIGTERM, SIGHUP]
                .into_iter()
                .filter(|&s| !ignored(s));
            if let Ok(mut signals) = Signals::new(taken) {
                std::thread::spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        for path in temporaries().iter() {
                            let _ = std::fs::remove_file(path);
                        }
                        let _ = signal_hook::low_level::emulate_default_handler(signal);
                        std::process::exit(128 + signal);
                    }
                });
            }
        });
        let mut recorded = temporaries();
        let file = tempfile::NamedTempFile::new_in(dir)?;
        recorded.push(file.path().to_path_buf());
        Ok(file)
    }

    /// Whether `signal` is ignored (as `nohup` ignores SIGHUP): it stays
    /// so, rather than end the command once taken.
    fn ignored(signal: std::ffi::c_int) -> bool {
        // SAFETY: with a null new action, sigaction only writes the current
        // one into `current`, a plain C struct for which zeroes are valid.
        unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut current) == 0
                && current.sa_sigaction == libc::SIG_IGN
        }
    }

    /// Forgets `path`, renamed or removed.
    pub(super) fn forget(path: &Path) {
        temporaries().retain(|recorded| recorded != path);
    }
}

/// `work` started on another thread of `scope`; calling what this gives
/// waits for it and gives its result. When no thread can be started,
/// `work` runs then, on the calling thread: it is `Copy`, so that one copy
/// goes to the thread and one stays. A panic in `work` goes on in the
/// calling thread.
pub(crate) fn beside<'scope, T, W>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    work: W,
) -> impl FnOnce() -> T + 'scope
where
    T: Send + 'scope,
    W: FnOnce() -> T + Send + Copy + 'scope,
{
    let started = std::thread::Builder::new().spawn_scoped(scope, work);
    move || match started {
        Ok(thread) => thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(_) => work(),
    }
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

/// The failure of `input`, which is not text, that does not decode with
/// `error`: when it reads as text but for a byte, that byte (a text model
/// with one flaw is no binary model); else where decoding stopped.
pub(crate) fn undecodable(input: &Input, error: onnxtxt::Error) -> Failure {
    input.flawed_text().unwrap_or_else(|| Failure::Binary {
        name: input.name.clone(),
        error,
    })
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
    /// The text, for text input: the input's bytes as they were read
    /// (mapped, for a big file), not a copy.
    pub(crate) text: Option<Text>,
    /// The model.
    pub(crate) model: ModelProto,
}

/// Reads a model from `input`, text or binary, told apart by the content
/// (not the file name: some projects name protobuf text `.onnxtxt`).
pub(crate) fn load_model(input: Input) -> Result<Loaded, Failure> {
    input.refuse_empty()?;
    if !onnxtxt::looks_like_text(&input.bytes) {
        return match onnxtxt::decode_model(&input.bytes) {
            Ok(model) => Ok(Loaded {
                name: input.name,
                text: None,
                model,
            }),
            Err(error) => Err(undecodable(&input, error)),
        };
    }
    let (name, text) = input.into_checked_text()?;
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
            Err(_) => Err(Failure::Invalid {
                name,
                text: text.to_owned(),
                error,
            }),
        },
    }
}
