//! `onnxtxt parse`: text model in, binary model out; with `--check`, only
//! when `onnxtxt check` finds no error in it. Never a binary that decoders
//! refuse: messages nested past [`MAX_MESSAGE_DEPTH`] or over 2 GiB are
//! refused, located in the text.

use std::path::{Path, PathBuf};

use onnxtxt::external::{inline_from_dir, inlined_len_from_dir, InlineError, InlineProblem};
use onnxtxt::prost::Message as _;
use onnxtxt::proto::ModelProto;
use onnxtxt::{Diagnostic, MAX_MESSAGE_DEPTH};

use onnxtxt::testcase::TextKind;

use super::case;
use super::diagnostic_output::ErrorFormat;
use super::input::read_input;
use super::io::{
    directory_of, invalid_text, left_to_exit, write_output, write_output_with, Failure,
};
use super::progress::Progress;

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
    /// With --check: write nothing if it has warnings either.
    #[arg(long, requires = "check")]
    pub(crate) deny_warnings: bool,
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
        // A test case's text goes to a directory, which a model's streamed
        // output would refuse before the text is found to be no model.
        let into_dir = self.output.as_ref().is_some_and(|path| path.is_dir());
        let deep = if !self.inline_external && !self.check && !into_dir {
            // Text that may nest too deep takes the way below.
            match write_parsed(name, text, self.output.as_ref(), &progress) {
                Ok(Some(written)) => return written,
                Ok(None) => true,
                Err(error) => {
                    drop(progress);
                    return not_a_model(error);
                }
            }
        } else {
            may_nest_too_deep(text)
        };
        let mut model = match onnxtxt::parse_model(text) {
            Ok(model) => model,
            Err(error) => return not_a_model(error),
        };
        if deep {
            refuse_unreadable(name, text, &model)?;
        }
        if self.inline_external {
            progress.stage("reading external data");
            let dir = match (&self.external_dir, &self.input) {
                (Some(dir), _) => dir.as_path(),
                (None, Some(input)) => directory_of(input),
                (None, None) => Path::new("."),
            };
            let failed = |e: InlineError| match e.problem {
                InlineProblem::Load(_) => Failure::Io(format!("{name}: {e}")),
                _ => at_item(
                    name,
                    text,
                    &e.path,
                    "onnxtxt::external::inline",
                    e.to_string(),
                ),
            };
            // Refused before any of the data is read.
            let inlined = inlined_len_from_dir(&mut model, dir).map_err(failed)?;
            refuse_too_big(name, text, inlined)?;
            inline_from_dir(&mut model, dir).map_err(failed)?;
            refuse_too_big(name, text, model.encoded_len() as u64)?;
        }
        if self.check {
            progress.stage("checking");
            let findings = onnxtxt::check_model(&model);
            let deny = self.deny_warnings;
            super::check::show_findings(name, Some(text), findings, format, deny)?;
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
                    super::check::show_case_findings(
                        name,
                        text,
                        &test_case,
                        format,
                        self.deny_warnings,
                    )?;
                }
                case::write_case(&test_case, self.output.as_ref())
            }),
        })
    }
}

/// Parses `text` and writes the binary model to `output`
/// ([`onnxtxt::Parser::encode_model`]): the main graph's nodes and
/// initializers are encoded as they are read, never all in memory as IR.
/// `Err` when the text does not parse; `None` when its brackets nest deep
/// enough that the model may nest too deep for decoders (nothing is
/// written in both cases); else what writing gave, or the refusal of a
/// model over [`MAX_ENCODED_BYTES`] (measured before anything is written).
fn write_parsed(
    name: &str,
    text: &str,
    output: Option<&PathBuf>,
    progress: &Progress,
) -> Result<Option<Result<(), Failure>>, onnxtxt::Error> {
    let encoded = onnxtxt::Parser::new().encode_model(text)?;
    if nests_too_deep(encoded.deepest_brackets()) {
        return Ok(None);
    }
    if let Err(refused) = refuse_too_big(name, text, encoded.encoded_len() as u64) {
        return Ok(Some(Err(refused)));
    }
    Ok(Some(write_output_with(output, true, |out| {
        encoded.write(progress.counting(out))
    })))
}

/// The most bytes a binary model can have: protobuf sizes messages with
/// signed 32-bit integers, so its decoders (`onnx.load` among them) refuse
/// a message of 2 GiB or more.
const MAX_ENCODED_BYTES: u64 = i32::MAX as u64;

/// Refuses a binary model of `len` bytes when that is past
/// [`MAX_ENCODED_BYTES`].
/// [`MAX_ENCODED_BYTES`], shown at the start of `text`.
fn refuse_too_big(name: &str, text: &str, len: u64) -> Result<(), Failure> {
    if len <= MAX_ENCODED_BYTES {
        return Ok(());
    }
    let message = format!(
        "the binary model would be over 2 GiB ({MAX_ENCODED_BYTES} bytes), which protobuf \
         decoders (onnx.load, onnxtxt print) refuse; keep the big tensors in external data \
         (`onnxtxt print --external-data`, and parse without --inline-external)"
    );
    Err(at_item(name, text, "", "onnxtxt::parse::too_big", message))
}

/// Whether `text` may encode to messages nested deeper than
/// [`MAX_MESSAGE_DEPTH`], which decoders refuse: not when its brackets
/// nest shallowly ([`deepest_brackets`]). Each level of them holds at most
/// three levels of messages (a graph's `{`: a node, its attribute, the
/// attribute's graph), and the innermost at most a few more (a value's
/// type, shape and dimension); 3 per level and 10 besides is more than
/// that.
fn may_nest_too_deep(text: &str) -> bool {
    nests_too_deep(deepest_brackets(text.as_bytes()))
}

/// Whether text whose brackets nest `deepest` deep may encode to messages
/// nested deeper than [`MAX_MESSAGE_DEPTH`] (see [`may_nest_too_deep`]).
fn nests_too_deep(deepest: usize) -> bool {
    3 * deepest + 10 > MAX_MESSAGE_DEPTH
}

/// How deep the brackets of `bytes` (`(`, `[`, `{`) nest, those in
/// strings and comments left out. This runs before every parse, so it
/// goes fast: blocks of bytes none of which can matter (the numbers of
/// tensor data) are skipped whole, by a test the compiler vectorizes
/// ([`may_matter`]), and within the others a table finds the bytes that
/// do.
fn deepest_brackets(bytes: &[u8]) -> usize {
    /// The bytes that matter: brackets, and the starts of comments and
    /// strings.
    static MATTERS: [bool; 256] = {
        let mut matters = [false; 256];
        let mut i = 0;
        while i < 8 {
            matters[b"([{)]}#\""[i] as usize] = true;
            i += 1;
        }
        matters
    };
    const BLOCK: usize = 32;
    let (mut depth, mut deepest, mut at) = (0usize, 0usize, 0);
    while at < bytes.len() {
        let block_end = (at + BLOCK).min(bytes.len());
        if !bytes[at..block_end]
            .iter()
            .fold(false, |any, &b| any | may_matter(b))
        {
            at = block_end;
            continue;
        }
        while let Some(offset) = bytes[at..block_end]
            .iter()
            .position(|&b| MATTERS[b as usize])
        {
            at += offset;
            match bytes[at] {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                b'#' => at += memchr::memchr(b'\n', &bytes[at..]).unwrap_or(bytes.len() - at),
                _ => at = closing_quote(bytes, at),
            }
            at += 1;
            if at >= block_end {
                break;
            }
        }
        at = at.max(block_end);
    }
    deepest
}

/// Where the string whose opening quote is at `open` in `bytes` ends: its
/// closing quote (escaped quotes skipped), or the end of `bytes`.
fn closing_quote(bytes: &[u8], open: usize) -> usize {
    let mut at = open + 1;
    while let Some(offset) = bytes
        .get(at..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        at += offset;
        if bytes[at] == b'"' {
            return at;
        }
        at += 2;
    }
    bytes.len()
}

/// Whether `byte` may be one that [`deepest_brackets`] looks at: with bit
/// 0x20 set, `[` and `]` are `{` and `}`, and the four tests take the
/// brackets, `"` and `#` (and a few control bytes, such as a tab, which
/// only cost a closer look). Branch-free, so that a block's test is one
/// vector operation.
fn may_matter(byte: u8) -> bool {
    let folded = byte | 0x20;
    ((folded & 0xfe) == b'(') | (folded == b'{') | (folded == b'}') | ((folded & 0xfe) == b'"')
}

/// Refuses `model`, parsed from `text`, when its binary encoding could not
/// be read back: messages nested deeper than [`MAX_MESSAGE_DEPTH`] (as 34
/// nested `If`s are). The error is at the item of the text where the
/// decoder stops.
fn refuse_unreadable(name: &str, text: &str, model: &ModelProto) -> Result<(), Failure> {
    let Err(error) = onnxtxt::decode_model(&model.encode_to_vec()) else {
        return Ok(());
    };
    let diagnostic = error.primary();
    let path = named_attributes(model, diagnostic.path.as_deref().unwrap_or(""));
    let message = format!(
        "the binary model could not be read back: {}",
        diagnostic.message
    );
    Err(at_item(
        name,
        text,
        &path,
        "onnxtxt::parse::unreadable",
        message,
    ))
}

/// The IR path `path` of `model` (a decoder's, with attributes by index:
/// `graph.node[0].attribute[1].g`) with the attributes of nodes named, as
/// [`onnxtxt::SourceMap`] names them ([`IrPath::attribute`](onnxtxt::ir_path::IrPath::attribute):
/// `graph.node[0].attribute["then_branch"].g`).
fn named_attributes(model: &ModelProto, path: &str) -> String {
    use onnxtxt::ir_path::IrPath;
    use onnxtxt::proto::{GraphProto, NodeProto};
    enum At<'m> {
        Model,
        Nodes(&'m [NodeProto]),
        Node(&'m NodeProto),
        Graphs(&'m [GraphProto]),
        Unknown,
    }
    fn graph(graph: Option<&GraphProto>) -> At<'_> {
        graph.map_or(At::Unknown, |graph| At::Nodes(&graph.node))
    }
    let mut at = At::Model;
    let mut named = Vec::new();
    for segment in path.split('.') {
        let (field, index) = match segment.strip_suffix(']').and_then(|s| s.split_once('[')) {
            Some((field, index)) => (field, index.parse::<usize>().ok()),
            None => (segment, None),
        };

        let (next, shown) = match (at, field, index) {
            (At::Model, "graph", None) => (graph(model.graph.as_ref()), None),
            (At::Model, "functions", Some(i)) => (
                model
                    .functions
                    .get(i)
                    .map_or(At::Unknown, |f| At::Nodes(&f.node)),
                None,
            ),
            (At::Nodes(nodes), "node", Some(i)) => {
                (nodes.get(i).map_or(At::Unknown, At::Node), None)
            }
            (At::Node(node), "attribute", Some(i)) => match node.attribute.get(i) {
                Some(attribute) => (
                    At::Graphs(
                        attribute
                            .g
                            .as_deref()
                            .map_or(&attribute.graphs[..], std::slice::from_ref),
                    ),
                    Some(
                        IrPath::default()
                            .attribute("attribute", &node.attribute, i)
                            .to_string(),
                    ),
                ),
                None => (At::Unknown, None),
            },
            (At::Graphs(graphs), "g", None) => (graph(graphs.first()), None),
            (At::Graphs(graphs), "graphs", Some(i)) => (graph(graphs.get(i)), None),
            _ => (At::Unknown, None),
        };
        named.push(shown.unwrap_or_else(|| segment.to_owned()));
        at = next;
    }
    named.join(".")
}

/// A failure with the item at IR `path` of the model parsed from `text`,
/// shown at that item or, when the text has no span for it, at the
/// nearest enclosing item that has one (at the start of the text for the
/// empty path, the whole model).
fn at_item(name: &str, text: &str, path: &str, code: &'static str, message: String) -> Failure {
    let span = Some(path)
        .filter(|path| !path.is_empty())
        .and_then(|path| {
            onnxtxt::parse_model_with_source_map(text)
                .ok()?
                .1
                .find(path)
        })
        .unwrap_or(0..0);
    let mut diagnostic = Diagnostic::new(code, message, span);
    diagnostic.path = Some(path.to_owned()).filter(|path| !path.is_empty());
    Failure::Located {
        name: name.to_owned(),
        text: text.to_owned(),
        diagnostic: Box::new(diagnostic),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts whose graphs nest `levels` deep through `If`, the innermost
    /// holding `leaf`: the constructs with the most messages per bracket.
    fn nested(levels: usize, leaf: &str) -> String {
        let mut graph = leaf.to_owned();
        for _ in 0..levels {
            graph =
                format!("g (bool c) => (float r) {{ r = If (c) <then_branch: graph = {graph}> }}");
        }
        format!("<ir_version: 10, opset_import: [\"\": 21]>\n{graph}\n")
    }

    /// The scan is sound: every text whose encoding no decoder reads is one
    /// it marks as possibly too deep.
    #[test]
    fn texts_nested_too_deep_are_always_caught() {
        let leaves = [
            "g () => (float r) { r = Constant <value: tensor = float[1] {1.0}> () }",
            "g (seq(seq(seq(float[N]))) a) => (float r) { r = Identity (a) }",
            "g () => (float r) { r = Constant <sparse_value: sparse_tensor = \
             sparse_tensor[8] {values: float[2] {1, 2}, indices: int64[2] {1, 2}}> () }",
            r#"g () => (float[2] r) <float[2] w = ["location": "w.bin", "length": "8"]> { r = Identity (w) }"#,
        ];
        let (mut unreadable, mut shallow) = (0, 0);
        for leaf in leaves {
            for levels in 20..=34 {
                let text = nested(levels, leaf);
                let model = onnxtxt::parse_model(&text).unwrap();
                let readable = onnxtxt::decode_model(&model.encode_to_vec()).is_ok();
                let marked = may_nest_too_deep(&text);
                // The parse finds the same depth on the way.
                let encoded = onnxtxt::Parser::new().encode_model(&text).unwrap();
                assert_eq!(
                    encoded.deepest_brackets(),
                    deepest_brackets(text.as_bytes())
                );
                assert!(readable || marked, "{levels} levels around {leaf}");
                unreadable += usize::from(!readable);
                shallow += usize::from(!marked);
            }
        }
        assert!(unreadable > 0 && shallow > 0, "{unreadable} {shallow}");
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let cases = [
            ("g () => () { y = Relu (x) }", 2),
            ("((([[{", 6),
            ("(\"))]\\\"}\" (x)) # )))\n((()", 3),
            ("# (((\n(\"(((\")", 1),
            ("\t(\t[\t{\t}\t]\t)\t", 3),
        ];
        for (text, deepest) in cases {
            assert_eq!(deepest_brackets(text.as_bytes()), deepest, "{text:?}");
        }
        // Across the blocks that are skipped whole.
        let long = format!("{}({}", " ".repeat(40), "0, ".repeat(30));
        assert_eq!(deepest_brackets(format!("{long}{long})").as_bytes()), 2);
        // A string that does not end, or ends in an escape.
        assert_eq!(deepest_brackets(b"(\"((("), 1);
        assert_eq!(deepest_brackets(b"(\"((\\"), 1);
    }
}
