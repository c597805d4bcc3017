//! Reading a command's input: a file through a memory map when it is big
//! enough for that to pay, else read into memory; standard input read.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;

use super::io::{binary_given, Failure};

/// How messages name standard input.
pub(crate) const STDIN_NAME: &str = "<stdin>";

/// Files at least this big (64 KiB) are mapped rather than read: below it,
/// setting up and tearing down a mapping costs about as much as the copy it
/// saves. Above it, mapping saves copying the file into freshly zeroed
/// memory, which a fresh process pays for every page (bench/README.md, "end
/// to end").
const MAP_MIN_BYTES: u64 = 64 * 1024;

/// An input file, or standard input for `-` or no path.
pub(crate) struct Input {
    /// How to name the input in messages.
    pub(crate) name: String,
    /// Its bytes.
    pub(crate) bytes: Bytes,
}

/// The bytes of an input: mapped from its file, or read.
pub(crate) enum Bytes {
    /// A regular file of at least [`MAP_MIN_BYTES`], mapped read-only.
    Mapped(memmap2::Mmap),
    /// A small file, a pipe, a device or standard input, read whole.
    Read(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Read(bytes) => bytes,
        }
    }
}

/// Reads `path` (standard input for `None` or `-`).
pub(crate) fn read_input(path: Option<&Path>) -> Result<Input, Failure> {
    match path.filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            let bytes = read_file(path)
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
                name: STDIN_NAME.into(),
                bytes: Bytes::Read(bytes),
            })
        }
    }
}

/// The bytes of the file at `path`, mapped when it is a regular file of at
/// least [`MAP_MIN_BYTES`] and the system maps it, else read.
fn read_file(path: &Path) -> std::io::Result<Bytes> {
    let mut file = File::open(path)?;
    let metadata = file.metadata()?;
    if metadata.is_file() && metadata.len() >= MAP_MIN_BYTES {
        // SAFETY: the map is read-only and private to this process. As with
        // every tool that maps its input, another process truncating the
        // file while the command runs would end it with SIGBUS, and one
        // rewriting it would change what it reads; the command's own output
        // never does either, being written to a new file renamed over the
        // old one (`io::write_atomically`).
        // `populate`: the whole file is read, so its pages are mapped in one
        // call rather than faulted in one at a time.
        if let Ok(map) = unsafe { memmap2::MmapOptions::new().populate().map(&file) } {
            return Ok(Bytes::Mapped(map));
        }
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(Bytes::Read(bytes))
}

impl Input {
    /// The input as text; for bytes that are not UTF-8, an error that says
    /// what they are when they are a binary model, else which byte is not.
    pub(crate) fn text(&self) -> Result<&str, Failure> {
        std::str::from_utf8(&self.bytes)
            .map_err(|e| not_text(&self.name, &self.bytes, e.valid_up_to()))
    }

    /// [`Input::text`], owned, with the input's name.
    pub(crate) fn into_text(self) -> Result<(String, String), Failure> {
        let text = match self.bytes {
            Bytes::Read(bytes) => String::from_utf8(bytes)
                .map_err(|e| not_text(&self.name, e.as_bytes(), e.utf8_error().valid_up_to()))?,
            Bytes::Mapped(_) => self.text()?.to_owned(),
        };
        Ok((self.name, text))
    }
}

/// The failure of input named `name` whose `bytes` are not UTF-8 from
/// `valid_up_to` on.
fn not_text(name: &str, bytes: &[u8], valid_up_to: usize) -> Failure {
    if onnxtxt::decode_model(bytes).is_ok() {
        binary_given(name)
    } else {
        Failure::Corrupt(format!(
            "{name}: the text is not valid UTF-8 (byte {valid_up_to})"
        ))
    }
}
