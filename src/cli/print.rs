//! `onnxtxt print`: binary (or text) model in, canonical text out.

use std::path::PathBuf;

use super::io::{read_input, write_output, Failure};

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
            // A binary model can, rarely, look like text (e.g. one that
            // starts with its `opset_import`, tag `B`, and holds no NUL
            // byte): if the text does not parse but the bytes decode, it
            // was binary.
            let (name, text) = input.into_text()?;
            match onnxtxt::parse_model(&text) {
                Ok(model) => model,
                Err(error) => match onnxtxt::decode_model(text.as_bytes()) {
                    Ok(model) => model,
                    Err(_) => return Err(Failure::Invalid { name, text, error }),
                },
            }
        } else {
            onnxtxt::decode_model(&input.bytes)
                .map_err(|error| Failure::Corrupt(binary_error(&input.name, &error)))?
        };
        let printed = onnxtxt::Printer::new().compat(self.compat).print(&model);
        for dropped in &printed.dropped {
            eprintln!("warning: dropped {dropped}");
        }
        write_output(self.output.as_ref(), printed.text.as_bytes(), false)
    }
}

/// `NAME: byte N: PATH: MESSAGE` (and a help line) for an error decoding a
/// binary model, which has no source lines to draw.
fn binary_error(name: &str, error: &onnxtxt::Error) -> String {
    let mut lines = Vec::new();
    for diagnostic in error.diagnostics() {
        let mut line = format!("{name}: byte {}: ", diagnostic.span.start);
        if let Some(path) = &diagnostic.path {
            line.push_str(path);
            line.push_str(": ");
        }
        line.push_str(&diagnostic.message);
        if let Some(help) = &diagnostic.help {
            line.push_str("\n  help: ");
            line.push_str(help);
        }
        lines.push(line);
    }
    lines.join("\nerror: ")
}

/// Whether the input is the textual syntax rather than protobuf: text
/// starts (after blanks and `#` comments) with `<`, `@`, a quote or a
/// letter, and contains no NUL byte. Binary models usually start with a
/// field tag byte that is none of those.
fn looks_like_text(bytes: &[u8]) -> bool {
    let start = onnxtxt::lexer::skip_blank(bytes, 0);
    !bytes.contains(&0)
        && std::str::from_utf8(bytes).is_ok()
        && matches!(
            bytes.get(start),
            Some(b'<' | b'@' | b'"' | b'_' | b'A'..=b'Z' | b'a'..=b'z')
        )
}
