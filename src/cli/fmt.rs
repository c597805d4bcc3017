//! `onnxtxt fmt`: rewrite text models in the canonical style, in place and
//! atomically, keeping their comments; with `--check`, change nothing and
//! show what would change as a unified diff.
//!
//! Every file is handled even when an earlier one fails. Exit status: 0
//! when every file is (now) canonical, 1 when one does not parse or, with
//! `--check`, would change, 2 for usage and I/O errors.

use std::path::{Path, PathBuf};

use onnxtxt::diff::{diff_texts, DEFAULT_CONTEXT};

use super::diagnostic_output::ErrorFormat;
use super::diff::{write_diff, ColorArg};
use super::input::read_input;
use super::io::{invalid_text, write_output, Failure};

/// Arguments of `onnxtxt fmt`.
#[derive(Debug, clap::Args)]
pub(crate) struct FmtArgs {
    /// Text models to rewrite in place (`-` or none: standard input to
    /// standard output).
    pub(crate) files: Vec<PathBuf>,
    /// Change nothing: print a diff for every input that is not in the
    /// canonical style, and exit 1 if there is one.
    #[arg(long)]
    pub(crate) check: bool,
    #[command(flatten)]
    pub(crate) color: ColorArg,
}

impl FmtArgs {
    /// Formats every file, showing each failure as it comes; the exit code
    /// is the highest of theirs.
    pub(crate) fn run(self, format: ErrorFormat) -> Result<(), Failure> {
        let stdin = [PathBuf::from("-")];
        let files = if self.files.is_empty() {
            &stdin[..]
        } else {
            &self.files
        };
        let mut code = 0;
        for path in files {
            if let Err(failure) = self.format_one(path) {
                code = code.max(failure.code());
                failure.report(format);
            }
        }
        match code {
            0 => Ok(()),
            code => Err(Failure::Exit(code)),
        }
    }

    fn format_one(&self, path: &Path) -> Result<(), Failure> {
        let input = read_input(Some(path))?;
        input.refuse_empty()?;
        let (name, text) = input.into_text()?;
        let formatted = match onnxtxt::testcase::format_text(&text) {
            Ok(formatted) => formatted,
            Err(error) => return Err(invalid_text(name, text, error)),
        };
        let stdin = path.as_os_str() == "-";
        if self.check {
            if formatted == text {
                return Ok(());
            }
            let mut out = Vec::new();
            let hunks = diff_texts(&text, &formatted, DEFAULT_CONTEXT);
            write_diff(&mut out, self.color.style(), [&name, &name], &hunks);
            write_output(None, &out, false)?;
            Err(Failure::Exit(1))
        } else if stdin {
            write_output(None, formatted.as_bytes(), false)
        } else if formatted != text {
            write_output(Some(&path.to_path_buf()), formatted.as_bytes(), false)
        } else {
            Ok(())
        }
    }
}
