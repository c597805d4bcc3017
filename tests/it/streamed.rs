//! Printing and parsing as `onnxtxt print` and `onnxtxt parse` run them,
//! file to file: [`Printer::write_binary_model`] (the main graph's nodes
//! decoded one at a time as they are printed; [`Printer::print_binary_model`]
//! the same into a string) and [`Parser::write_model`]
//! (the main graph's nodes encoded as they are read) give the bytes of the
//! calls that build the whole IR, over the conformance corpus.

use std::path::Path;

use onnxtxt::{Parser, Printer};
use prost::Message as _;

/// The text `Printer::write` gives of the model `bytes` decode to, or the
/// decoding error; and what `write_binary_model` gives.
fn printed(printer: Printer, bytes: &[u8]) -> (Result<Vec<u8>, String>, Result<Vec<u8>, String>) {
    let whole = onnxtxt::decode_model(bytes)
        .map(|model| {
            let mut out = Vec::new();
            printer.write(&model, &mut out).unwrap();
            out
        })
        .map_err(|e| format!("{:?}", e.diagnostics()));
    let mut out = Vec::new();
    let streamed = printer
        .write_binary_model(bytes, &mut out)
        .map(|written| written.map(|_| out).unwrap())
        .map_err(|e| format!("{:?}", e.diagnostics()));
    (whole, streamed)
}

/// The encoding of the model `text` parses to, or the parse error; and
/// what `write_model` gives.
fn parsed(text: &str) -> (Result<Vec<u8>, String>, Result<Vec<u8>, String>) {
    let whole = onnxtxt::parse_model(text)
        .map(|model| model.encode_to_vec())
        .map_err(|e| format!("{:?}", e.diagnostics()));
    let mut out = Vec::new();
    let streamed = Parser::new()
        .write_model(text, &mut out)
        .map(|written| written.map(|()| out).unwrap())
        .map_err(|e| format!("{:?}", e.diagnostics()));
    (whole, streamed)
}

#[test]
#[ignore = "needs the conformance corpus: bash conformance/run.sh runs it"]
fn the_corpus_prints_and_parses_as_the_command_runs_them() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(std::env::var_os("ONNXTXT_CORPUS").unwrap_or_else(|| "target/conformance".into()));
    let manifest = std::fs::read_to_string(corpus.join("manifest.tsv"))
        .expect("a conformance corpus: run bash conformance/run.sh");
    let (mut models, mut misses) = (0, Vec::new());
    for line in manifest.lines().filter(|line| !line.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.get(1) != Some(&"model") {
            continue;
        }
        models += 1;
        let name = fields[0];
        let bytes = std::fs::read(corpus.join(format!("{name}.onnx"))).expect("the binary");
        for printer in [Printer::new(), Printer::new().compat(true)] {
            let (whole, streamed) = printed(printer, &bytes);
            let in_memory = printer
                .print_binary_model(&bytes)
                .map(|printed| printed.text.into_bytes())
                .map_err(|e| format!("{:?}", e.diagnostics()));
            if whole != streamed || whole != in_memory {
                misses.push(format!("{name}: printed differently ({printer:?})"));
            }
        }
        let reference = std::fs::read_to_string(corpus.join(format!("{name}.txt")))
            .expect("the reference's text");
        let ours = onnxtxt::decode_model(&bytes).map(|model| onnxtxt::to_text(&model));
        for (which, text) in [("the reference's", Ok(reference)), ("onnxtxt's", ours)] {
            let Ok(text) = text else { continue };
            let (whole, streamed) = parsed(&text);
            if whole != streamed {
                misses.push(format!("{name}: {which} text parsed differently"));
            }
        }
    }
    eprintln!(
        "streamed print and parse: {} of {models} corpus models as the whole IR",
        models - misses.len()
    );
    assert!(models > 1000, "only {models} models in the corpus");
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}
