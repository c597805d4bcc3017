//! `onnxtxt print`: binary (or text) model in, canonical text out.

use std::path::PathBuf;

use prost::Message;

use super::io::{read_input, write_output, Failure};
use onnxtxt::proto::ModelProto;

/// Arguments of `onnxtxt print`.
#[derive(Debug, clap::Args)]
pub(crate) struct PrintArgs {
    /// The model, binary or text (`-` or nothing for standard input).
    pub(crate) input: Option<PathBuf>,
    /// Where to write the text (standard output by default).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Use only the reference syntax; list on stderr what had to be dropped.
    #[arg(long)]
    pub(crate) compat: bool,
}

impl PrintArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        let input = read_input(self.input.as_deref())?;
        let model = if looks_like_text(&input.bytes) {
            let (name, text) = input.into_text()?;
            onnxtxt::parse_model(&text).map_err(|error| Failure::Invalid { name, text, error })?
        } else {
            ModelProto::decode(input.bytes.as_slice()).map_err(|e| {
                Failure::Corrupt(format!(
                    "{}: not a valid binary ONNX model: {e}",
                    input.name
                ))
            })?
        };
        let printed = onnxtxt::Printer::new().compat(self.compat).print(&model);
        for dropped in &printed.dropped {
            eprintln!("warning: dropped {dropped}");
        }
        write_output(self.output.as_ref(), printed.text.as_bytes(), false)
    }
}

/// Whether the input is the textual syntax rather than protobuf: text
/// starts (after blanks and `#` comments) with `<`, `@`, a quote or a
/// letter, and contains no NUL byte. Binary models start with a field tag
/// byte, which is never one of those.
fn looks_like_text(bytes: &[u8]) -> bool {
    let start = onnxtxt::lexer::skip_blank(bytes, 0);
    !bytes.contains(&0)
        && std::str::from_utf8(bytes).is_ok()
        && matches!(
            bytes.get(start),
            Some(b'<' | b'@' | b'"' | b'_' | b'A'..=b'Z' | b'a'..=b'z')
        )
}
