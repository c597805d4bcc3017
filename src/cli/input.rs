//! Reading a command's input: a file through a memory map when it is big
//! enough for that to pay, else read into memory; standard input read.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;

use super::io::{beside, binary_given, Failure};

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

/// The bytes of an input: mapped from its file, or read. A UTF-8 byte
/// order mark at the start is left out: text may have one (some editors
/// on Windows write it), and a binary model cannot (its first byte would
/// be a field of wire type 7, which does not exist).
pub(crate) enum Bytes {
    /// A regular file of at least [`MAP_MIN_BYTES`], mapped read-only;
    /// its bytes from `start` on.
    Mapped { map: memmap2::Mmap, start: usize },
    /// A small file, a pipe, a device or standard input, read whole.
    Read(Vec<u8>),
}

/// The UTF-8 encoding of U+FEFF, the byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

impl Bytes {
    fn mapped(map: memmap2::Mmap) -> Self {
        let start = if map.starts_with(BOM) { BOM.len() } else { 0 };
        Bytes::Mapped { map, start }
    }

    fn read(mut bytes: Vec<u8>) -> Self {
        if bytes.starts_with(BOM) {
            bytes.drain(..BOM.len());
        }
        Bytes::Read(bytes)
    }
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped { map, start } => &map[*start..],
            Bytes::Read(bytes) => bytes,
        }
    }
}

/// The bytes of an input that are UTF-8 ([`Input::into_checked_text`]),
/// which it gives as `str`.
pub(crate) struct Text(Bytes);

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        // SAFETY: a `Text` is only made of bytes found to be UTF-8, which
        // it never changes.
        unsafe { std::str::from_utf8_unchecked(&self.0) }
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
                bytes: Bytes::read(bytes),
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
            return Ok(Bytes::mapped(map));
        }
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(Bytes::read(bytes))
}

impl Input {
    /// The input as text; for bytes that are not UTF-8, an error that says
    /// what they are when they are a binary model, else which byte is not.
    pub(crate) fn text(&self) -> Result<&str, Failure> {
        utf8(&self.bytes).ok_or_else(|| self.not_text())
    }

    /// The input as [`Text`], with its name: its bytes kept as they are
    /// (for a mapped file, the map), not copied; failing as [`Input::text`].
    pub(crate) fn into_checked_text(self) -> Result<(String, Text), Failure> {
        if utf8(&self.bytes).is_none() {
            return Err(self.not_text());
        }
        Ok((self.name, Text(self.bytes)))
    }

    /// [`Input::text`], owned, with the input's name.
    pub(crate) fn into_text(self) -> Result<(String, String), Failure> {
        let Input { name, bytes } = self;
        let text = match bytes {
            Bytes::Read(bytes) => match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => {
                    let bytes = Bytes::Read(e.into_bytes());
                    return Err(Input { name, bytes }.not_text());
                }
            },
            mapped @ Bytes::Mapped { .. } => {
                let input = Input {
                    name,
                    bytes: mapped,
                };
                let text = input.text()?.to_owned();
                return Ok((input.name, text));
            }
        };
        Ok((name, text))
    }

    /// An error for input with no bytes, which is no model: its name and
    /// that it is empty.
    pub(crate) fn refuse_empty(&self) -> Result<(), Failure> {
        if self.bytes.is_empty() {
            return Err(Failure::Corrupt(format!(
                "{}: the input is empty",
                self.name
            )));
        }
        Ok(())
    }

    /// The failure of input that is not UTF-8: a binary model given where
    /// text is read, or text with a flaw, or neither.
    fn not_text(&self) -> Failure {
        if onnxtxt::decode_model(&self.bytes).is_ok() {
            return binary_given(&self.name);
        }
        self.flawed_text().unwrap_or_else(|| {
            let valid_up_to =
                std::str::from_utf8(&self.bytes).map_or_else(|e| e.valid_up_to(), str::len);
            Failure::Corrupt(format!(
                "{}: neither a binary model nor text (not UTF-8 at byte {})",
                self.name,
                thousands(valid_up_to)
            ))
        })
    }

    /// When the input reads as text up to one byte that text cannot have
    /// (one that is not UTF-8, or a NUL), and holds next to no other
    /// control bytes (a binary model has many), the failure that names
    /// that byte and its line and column. `None` for what does not read
    /// as text.
    pub(crate) fn flawed_text(&self) -> Option<Failure> {
        let bytes = &*self.bytes;
        let not_utf8 = std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len);
        let flaw = memchr::memchr(0, &bytes[..not_utf8]).unwrap_or(not_utf8);
        if flaw == bytes.len() {
            return None;
        }
        let before = std::str::from_utf8(&bytes[..flaw]).ok()?;
        let controls = bytes
            .iter()
            .filter(|&&b| (b < b' ' && !b"\t\n\r\x0b\x0c".contains(&b)) || b == 0x7f)
            .count();
        if !onnxtxt::looks_like_text(before.as_bytes()) || controls * 100 > bytes.len() {
            return None;
        }
        let (line, column) = onnxtxt::line_column(before, flaw);
        let what = if bytes[flaw] == 0 {
            "has a NUL byte"
        } else {
            "is not UTF-8"
        };
        Some(Failure::Corrupt(format!(
            "{}:{line}:{column}: the text {what} at byte {} (text models are UTF-8, \
             without NUL bytes)",
            self.name,
            thousands(flaw)
        )))
    }
}

/// Inputs at least this big (4 MiB) are checked as UTF-8 on two threads,
/// half each: below it, starting a thread costs about what it saves.
const TWO_THREADS_UTF8: usize = 4 << 20;

/// `bytes` as text, if they are UTF-8 (as [`std::str::from_utf8`] says);
/// big inputs are checked half on this thread and half on another.
fn utf8(bytes: &[u8]) -> Option<&str> {
    if bytes.len() < TWO_THREADS_UTF8 {
        return std::str::from_utf8(bytes).ok();
    }
    // Two halves that are text make text, wherever they are split; and text
    // split where a character starts makes two texts: UTF-8 has at most
    // three continuation bytes (0b10xxxxxx) in a row.
    let mut middle = bytes.len() / 2;
    for _ in 0..3 {
        if bytes[middle] & 0xc0 == 0x80 {
            middle += 1;
        }
    }
    let (first, second) = bytes.split_at(middle);
    let is_text = |half| std::str::from_utf8(half).is_ok();
    let both_text = std::thread::scope(|scope| {
        let second = beside(scope, move || is_text(second));
        is_text(first) && second()
    });
    // SAFETY: both halves are UTF-8, so the whole is.
    both_text.then(|| unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// `n` with a comma every three digits (`1,532`).
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut shown = String::with_capacity(digits.len() * 4 / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            shown.push(',');
        }
        shown.push(digit);
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads say what one does, for every way a character or a flaw
    /// can sit at the cut, and at both ends.
    #[test]
    fn utf8_on_two_threads_is_from_utf8() {
        let characters: [&[u8]; 4] = [b"a", "é".as_bytes(), "€".as_bytes(), "😀".as_bytes()];
        let flaws: [&[u8]; 5] = [
            b"\xff",
            b"\x80",
            b"\xe2\x82",
            b"\xf0\x9f\x98",
            b"\xed\xa0\x80",
        ];
        let mut cases = 0;
        for len in TWO_THREADS_UTF8..TWO_THREADS_UTF8 + 4 {
            let middle = len / 2;
            for what in characters.iter().chain(&flaws) {
                for at in [
                    0,
                    middle - 4,
                    middle - 3,
                    middle - 2,
                    middle - 1,
                    middle,
                    middle + 1,
                ] {
                    let mut bytes = vec![b' '; len];
                    bytes[at..at + what.len()].copy_from_slice(what);
                    assert_eq!(
                        utf8(&bytes).is_some(),
                        std::str::from_utf8(&bytes).is_ok(),
                        "{what:x?} at {at} of {len}"
                    );
                    cases += 1;
                }
            }
            let mut ends = vec![b' '; len];
            ends[len - 1] = 0xc3;
            assert_eq!(utf8(&ends), None);
            ends[len - 1] = b'}';
            assert_eq!(utf8(&ends).map(str::len), Some(len));
        }
        assert_eq!(cases, 4 * 9 * 7);
    }
}
