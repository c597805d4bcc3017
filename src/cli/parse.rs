//! `onnxtxt parse`: text model in, binary model out; with `--check`, only
//! when `onnxtxt check` finds no error in it.

use std::path::{Path, PathBuf};

use onnxtxt::external::{inline_from_dir, InlineProblem};

use onnxtxt::testcase::TextKind;

use super::case;
use super::input::read_input;
use super::io::{
    directory_of, invalid_text, left_to_exit, write_output, write_output_with, Failure,
};
use super::progress::Progress;
use super::report::ErrorFormat;

/// Arguments of `onnxtxt parse`.
#[derive(Debug, clap::Args)]
pub(crate) struct ParseArgs {
    /// The text model (`-` or nothing for standard input); or a data value
    /// (a tensor, sequence, map or optional), or a test case.
    pub(crate) input: Option<PathBuf>,
    /// Where to write the binary model (standard output if not a terminal);
    /// for a test case, the directory to write.
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Bring the data of external-data tensors back into the model,
    /// checking each tensor's length and checksum.
    #[arg(long)]
    pub(crate) inline_external: bool,
    /// With --inline-external: the directory the data locations are
    /// relative to (by default the text file's, or the current directory
    /// for standard input).
    #[arg(long, value_name = "DIR", requires = "inline_external")]
    pub(crate) external_dir: Option<PathBuf>,
    /// Check the model as `onnxtxt check` does, and write nothing if it
    /// has errors (warnings are shown, and do not stop it).
    #[arg(long)]
    pub(crate) check: bool,
}

impl ParseArgs {
    pub(crate) fn run(self, format: ErrorFormat) -> Result<(), Failure> {
        let input = read_input(self.input.as_deref())?;
        let progress = Progress::new(input.bytes.len());
        let text = input.text()?;
        let name = &input.name;
        progress.stage(format!("parsing {name}"));
        let invalid = |error| invalid_text(name.clone(), text.to_owned(), error);
        // A data value or a test case fails to parse as a model: only then
        // is the text looked at again (a model's parse pays nothing).
        let not_a_model = |error| match self.write_data(name, text, format) {
            Some(written) => written,
            None => Err(invalid(error)),
        };
        if !self.inline_external && !self.check {
            return match write_parsed(text, self.output.as_ref(), progress) {
                Ok(written) => written,
                Err(error) => not_a_model(error),
            };
        }
        let mut model = match onnxtxt::parse_model(text) {
            Ok(model) => model,
            Err(error) => return not_a_model(error),
        };
        if self.inline_external {
            progress.stage("reading external data");
            let dir = match (&self.external_dir, &self.input) {
                (Some(dir), _) => dir.as_path(),
                (None, Some(input)) => directory_of(input),
                (None, None) => Path::new("."),
            };
            inline_from_dir(&mut model, dir).map_err(|e| match e.problem {
                InlineProblem::Load(_) => Failure::Io(format!("{name}: {e}")),
                _ => Failure::Corrupt(format!("{name}: {e}")),
            })?;
        }
        if self.check {
            progress.stage("checking");
            let findings = onnxtxt::check_model(&model);
            super::check::show_findings(name, Some(text), findings, format)?;
        }
        progress.stage("writing");
        write_output_with(self.output.as_ref(), true, |out| {
            onnxtxt::Parser::write_encoded(&model, progress.counting(out))
        })?;
        drop(progress);
        left_to_exit(model);
        Ok(())
    }
}

impl ParseArgs {
    /// Writes `text` when it is a data value (a binary message to
    /// `--output`) or a test case (a directory); `None` for anything else.
    fn write_data(
        &self,
        name: &str,
        text: &str,
        format: ErrorFormat,
    ) -> Option<Result<(), Failure>> {
        Some(match onnxtxt::testcase::text_kind(text) {
            TextKind::Model => return None,
            TextKind::Value => onnxtxt::parse_value(text)
                .map_err(|error| invalid_text(name.to_owned(), text.to_owned(), error))
                .and_then(|value| write_output(self.output.as_ref(), &value.encode_to_vec(), true)),
            TextKind::Case => case::parse_case(name, text).and_then(|test_case| {
                if self.check {
                    super::check::show_case_findings(name, text, &test_case, format)?;
                }
                case::write_case(&test_case, self.output.as_ref())
            }),
        })
    }
}

/// Parses `text` and writes the binary model to `output` as the parse goes
/// ([`onnxtxt::Parser::write_model`]): the main graph's nodes are encoded
/// as they are read, never all in memory as IR. `Err` when the text does
/// not parse (nothing is written then), else what writing gave.
fn write_parsed(
    text: &str,
    output: Option<&PathBuf>,
    progress: Progress,
) -> Result<Result<(), Failure>, onnxtxt::Error> {
    let mut invalid = None;
    let written = write_output_with(output, true, |out| {
        match onnxtxt::Parser::new().write_model(text, progress.counting(out)) {
            Ok(written) => written,
            Err(error) => {
                invalid = Some(error);
                Err(std::io::Error::other("the text does not parse"))
            }
        }
    });
    drop(progress);
    match invalid {
        Some(error) => Err(error),
        None => Ok(written),
    }
}
