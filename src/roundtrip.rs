//! The round-trip invariants, as functions: shared by the fuzz targets
//! (`fuzz/fuzz_targets/*.rs`), the property test (`tests/it/roundtrip_prop.rs`)
//! and the regression replay (`tests/it/fuzz_regressions.rs`).
//!
//! Every check returns `Err(description)` when an invariant breaks, and
//! turns a panic of the parser or printer into an `Err` too (under
//! `cargo fuzz`, whose panic hook aborts, a panic is reported as a crash
//! before it gets here). The invariants:
//!
//! * [`text_round_trips`]: every entry point (`parse_model`, `parse_graph`, ...)
//!   either returns a value or an error whose spans lie inside the text, and
//!   never panics; every value it returns prints to text that the same entry
//!   point parses back to the same IR (compared as encoded bytes, so NaN
//!   payloads count), and its `--compat` text parses too; and
//!   `parse_model` agrees with `parse_model_with_source_map`, which reads
//!   everything with the whole grammar.
//! * [`model_round_trips`]: `encode(parse(print(m))) == encode(m)`, the text is
//!   a fixed point of `print ∘ parse`, the compat text parses, and the same
//!   holds for the model's parts through their own entry points (graph,
//!   functions, nodes, attributes, value infos, initializers, types).
//! * [`binary_round_trips`]: bytes that decode as a `ModelProto` pass
//!   [`model_round_trips`], and any bytes print from the binary as the model
//!   decoded from them prints, or fail with the decoder's error.
//! * [`fmt_is_idempotent`]: for text that parses,
//!   `print(parse(print(parse(t)))) == print(parse(t))`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use prost::Message;

use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, TensorProto, TypeProto,
    ValueInfoProto,
};
use crate::{Error, Print, Printer};

/// The result of every check: `Err` describes the broken invariant.
pub type Check = Result<(), String>;

/// One parser entry point, with what the checks need to know about its IR
/// kind.
struct Entry<T> {
    name: &'static str,
    parse: fn(&str) -> Result<T, Error>,
    encode: fn(&T) -> Vec<u8>,
    /// Whether the printer may legitimately report dropped information for
    /// this kind in lossless mode (a bare type's denotation has no syntax).
    may_drop: bool,
}

fn encode<T: Message>(value: &T) -> Vec<u8> {
    value.encode_to_vec()
}

// `parse_nodes` gives a `Vec`, so its `Entry::encode` takes `&Vec`.
#[allow(clippy::ptr_arg)]
fn encode_nodes(nodes: &Vec<NodeProto>) -> Vec<u8> {
    GraphProto {
        node: nodes.clone(),
        ..Default::default()
    }
    .encode_to_vec()
}

const MODEL: Entry<ModelProto> = Entry {
    name: "parse_model",
    parse: crate::parse_model,
    encode,
    may_drop: false,
};
const GRAPH: Entry<GraphProto> = Entry {
    name: "parse_graph",
    parse: crate::parse_graph,
    encode,
    may_drop: false,
};
const FUNCTION: Entry<FunctionProto> = Entry {
    name: "parse_function",
    parse: crate::parse_function,
    encode,
    may_drop: false,
};
const NODE: Entry<NodeProto> = Entry {
    name: "parse_node",
    parse: crate::parse_node,
    encode,
    may_drop: false,
};
const NODES: Entry<Vec<NodeProto>> = Entry {
    name: "parse_nodes",
    parse: crate::parse_nodes,
    encode: encode_nodes,
    may_drop: false,
};
const TYPE: Entry<TypeProto> = Entry {
    name: "parse_type",
    parse: crate::parse_type,
    encode,
    may_drop: true,
};
const TENSOR: Entry<TensorProto> = Entry {
    name: "parse_tensor",
    parse: crate::parse_tensor,
    encode,
    may_drop: false,
};
const ATTRIBUTE: Entry<AttributeProto> = Entry {
    name: "parse_attribute",
    parse: crate::parse_attribute,
    encode,
    may_drop: false,
};
const VALUE_INFO: Entry<ValueInfoProto> = Entry {
    name: "parse_value_info",
    parse: crate::parse_value_info,
    encode,
    may_drop: false,
};

/// A check that runs on text through one entry point at a time.
trait EntryCheck {
    fn check<T: Print + std::fmt::Debug>(&self, entry: &Entry<T>, text: &str) -> Check;
}

/// Runs `check` on `text` through every entry point, in the order of the
/// crate's `parse_*` functions, stopping at the first failure.
fn every_entry(text: &str, check: impl EntryCheck) -> Check {
    check.check(&MODEL, text)?;
    check.check(&GRAPH, text)?;
    check.check(&FUNCTION, text)?;
    check.check(&NODE, text)?;
    check.check(&NODES, text)?;
    check.check(&TYPE, text)?;
    check.check(&TENSOR, text)?;
    check.check(&ATTRIBUTE, text)?;
    check.check(&VALUE_INFO, text)
}

/// Runs `f`, turning a panic into an `Err` naming `what`.
fn guard<R>(what: &str, f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".to_owned());
        format!("{what} panicked: {message}")
    })
}

/// Parses `text` with `entry`, never panicking, checking the spans of an
/// error.
fn parse<T>(entry: &Entry<T>, text: &str) -> Result<Result<T, Error>, String> {
    let result = guard(entry.name, || (entry.parse)(text))?;
    if let Err(error) = &result {
        if error.diagnostics().is_empty() {
            return Err(format!(
                "{} returned an error with no diagnostic",
                entry.name
            ));
        }
        for d in error.diagnostics() {
            let spans = std::iter::once(&d.span).chain(d.labels.iter().map(|l| &l.span));
            for span in spans {
                if span.start > span.end || span.end > text.len() {
                    return Err(format!(
                        "{}: diagnostic span {span:?} outside the text ({} bytes): {}",
                        entry.name,
                        text.len(),
                        d.message
                    ));
                }
            }
        }
    }
    Ok(result)
}

/// Prints `value` (lossless or compat), never panicking.
fn print<T: Print + ?Sized>(
    what: &str,
    value: &T,
    compat: bool,
) -> Result<crate::printer::Printed, String> {
    guard(what, || Printer::new().compat(compat).print(value))
}

/// The core invariant for one value of one kind: the printed text parses
/// back (through the same entry point) to the same encoding, printing is a
/// fixed point, and the compat text parses.
fn round_trip<T: Print + std::fmt::Debug>(entry: &Entry<T>, value: &T) -> Check {
    let printed = print("print", value, false)?;
    let text = &printed.text;
    if !printed.dropped.is_empty() && !entry.may_drop {
        return Err(format!(
            "{}: the lossless printer dropped {:?}\n--- text\n{text}",
            entry.name, printed.dropped
        ));
    }
    let reparsed = match parse(entry, text)? {
        Ok(v) => v,
        Err(e) => {
            return Err(format!(
                "{}: printed text does not parse back: {e:?}\n--- text\n{text}",
                entry.name
            ));
        }
    };
    if printed.dropped.is_empty() && (entry.encode)(&reparsed) != (entry.encode)(value) {
        return Err(format!(
            "{}: round trip changes the IR\n{}\n--- text\n{text}",
            entry.name,
            first_difference(&format!("{value:#?}"), &format!("{reparsed:#?}"))
        ));
    }
    let again = print("print (second time)", &reparsed, false)?.text;
    if &again != text {
        return Err(format!(
            "{}: printing is not idempotent\n--- first\n{text}\n--- second\n{again}",
            entry.name
        ));
    }
    let compat = print("print --compat", value, true)?.text;
    if let Err(e) = parse(entry, &compat)? {
        return Err(format!(
            "{}: compat text does not parse: {e:?}\n--- compat text\n{compat}",
            entry.name
        ));
    }
    Ok(())
}

/// Where two `{:#?}` renderings first differ, with a little context.
fn first_difference(original: &str, reparsed: &str) -> String {
    let a: Vec<&str> = original.lines().collect();
    let b: Vec<&str> = reparsed.lines().collect();
    let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) else {
        return "--- the Debug renderings are equal: the difference is in float bits (NaN payloads) or field encoding".to_owned();
    };
    // The enclosing fields: each earlier line indented less than the last.
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut path = Vec::new();
    let mut level = a.get(i).or(b.get(i)).map_or(0, |l| indent(l));
    for line in a[..i.min(a.len())].iter().rev() {
        if indent(line) < level {
            level = indent(line);
            path.push(line.trim());
        }
    }
    path.reverse();
    let from = i.saturating_sub(6);
    let context =
        |lines: &[&str]| lines[from.min(lines.len())..(i + 3).min(lines.len())].join("\n");
    format!(
        "--- where: {}\n--- original IR (Debug, lines {}..)\n{}\n--- parsed back\n{}",
        path.join(" "),
        from + 1,
        context(&a),
        context(&b)
    )
}

/// Parses `text` through every entry point: none may panic or give an error
/// located outside the text; whatever parses must survive, through the
/// entry point it parsed with, the round trip [`model_round_trips`] makes: print,
/// parse back to the same bytes, print again to the same text, and parse
/// the compat text. `parse_model` must agree with
/// `parse_model_with_source_map`, which reads everything with the whole
/// grammar.
///
/// ```
/// onnxtxt::roundtrip::text_round_trips("g (float x) => (float y) { y = Relu(x) }").unwrap();
/// onnxtxt::roundtrip::text_round_trips("not } valid {").unwrap();
/// ```
pub fn text_round_trips(text: &str) -> Check {
    struct RoundTrip;
    impl EntryCheck for RoundTrip {
        fn check<T: Print + std::fmt::Debug>(&self, entry: &Entry<T>, text: &str) -> Check {
            match parse(entry, text)? {
                Ok(value) => round_trip(entry, &value)
                    .map_err(|e| format!("{e}\n--- input (parsed by {})\n{text}", entry.name)),
                Err(_) => Ok(()),
            }
        }
    }
    every_entry(text, RoundTrip)?;
    same_with_source_map(text)
}

/// `parse_model` reads the common forms of model, graph and node token by
/// token, without the grammar's combinators, and a long node list on two
/// threads (under `cargo fuzz`, any node list it can cut);
/// `parse_model_with_source_map` reads everything with the grammar, on one
/// thread. Both must give the same model, or both fail.
fn same_with_source_map(text: &str) -> Check {
    let plain = parse(&MODEL, text)?;
    let mapped = guard("parse_model_with_source_map", || {
        crate::parse_model_with_source_map(text)
    })?;
    let disagree = match (plain, mapped) {
        (Ok(plain), Ok((mapped, _))) => encode(&plain) != encode(&mapped),
        (plain, mapped) => plain.is_ok() != mapped.is_ok(),
    };
    if disagree {
        return Err(format!(
            "parse_model and parse_model_with_source_map disagree\n--- input\n{text}"
        ));
    }
    Ok(())
}

/// For text that parses (through any entry point), printing what it parses
/// to is a fixed point of `print ∘ parse`.
///
/// ```
/// onnxtxt::roundtrip::fmt_is_idempotent("<ir_version: 8> g () => () {}").unwrap();
/// ```
pub fn fmt_is_idempotent(text: &str) -> Check {
    struct Idempotent;
    impl EntryCheck for Idempotent {
        fn check<T: Print + std::fmt::Debug>(&self, entry: &Entry<T>, text: &str) -> Check {
            let Ok(value) = parse(entry, text)? else {
                return Ok(());
            };
            let first = print("print", &value, false)?.text;
            let reparsed = parse(entry, &first)?.map_err(|e| {
                format!(
                    "{}: printed text does not parse back: {e:?}\n--- input\n{text}\n--- printed\n{first}",
                    entry.name
                )
            })?;
            let second = print("print", &reparsed, false)?.text;
            if first != second {
                return Err(format!(
                    "{}: print(parse(print(parse(t)))) != print(parse(t))\n--- input\n{text}\n--- first\n{first}\n--- second\n{second}",
                    entry.name
                ));
            }
            Ok(())
        }
    }
    every_entry(text, Idempotent)
}

/// The lossless round trip of a whole model, `encode(parse(print(m))) ==
/// encode(m)`, plus idempotent printing and parseable compat text, for the
/// model and for its parts through their own entry points.
///
/// ```
/// let model = onnxtxt::smith::model_from_seed(3);
/// onnxtxt::roundtrip::model_round_trips(&model).unwrap();
/// ```
pub fn model_round_trips(model: &ModelProto) -> Check {
    round_trip(&MODEL, model)?;
    if let Some(graph) = &model.graph {
        check_graph_parts(graph)?;
    }
    for function in &model.functions {
        round_trip(&FUNCTION, function)?;
        round_trip(&NODES, &function.node)?;
        for node in &function.node {
            check_node_parts(node)?;
        }
    }
    Ok(())
}

fn check_graph_parts(graph: &GraphProto) -> Check {
    round_trip(&GRAPH, graph)?;
    round_trip(&NODES, &graph.node)?;
    for node in &graph.node {
        check_node_parts(node)?;
    }
    for vi in graph
        .input
        .iter()
        .chain(&graph.output)
        .chain(&graph.value_info)
    {
        round_trip(&VALUE_INFO, vi)?;
        if let Some(ty) = &vi.r#type {
            round_trip(&TYPE, ty)?;
        }
    }
    for tensor in &graph.initializer {
        round_trip(&TENSOR, tensor)?;
    }
    Ok(())
}

fn check_node_parts(node: &NodeProto) -> Check {
    round_trip(&NODE, node)?;
    for attribute in &node.attribute {
        round_trip(&ATTRIBUTE, attribute)?;
    }
    Ok(())
}

/// Bytes that decode as a binary `ModelProto` must pass [`model_round_trips`]
/// (the reference being the decoded model re-encoded: prost drops unknown
/// fields), and any bytes must print from the binary as they print once
/// decoded ([`binary_prints_as_decoded`]).
pub fn binary_round_trips(bytes: &[u8]) -> Check {
    binary_prints_as_decoded(bytes)?;
    match guard("ModelProto::decode", || ModelProto::decode(bytes))? {
        Ok(model) => model_round_trips(&model),
        Err(_) => Ok(()),
    }
}

/// [`Printer::print_binary_model`] (the print of `onnxtxt.to_text(bytes)`,
/// which reads nodes straight from their encoding) gives, in both modes,
/// the text of the model [`crate::decode_model`] decodes, or the same
/// located error when it refuses the bytes.
pub fn binary_prints_as_decoded(bytes: &[u8]) -> Check {
    let decoded = guard("decode_model", || crate::decode_model(bytes))?;
    for compat in [false, true] {
        let printer = Printer::new().compat(compat);
        let from_bytes = guard("print_binary_model", || printer.print_binary_model(bytes))?;
        match (&decoded, from_bytes) {
            (Ok(model), Ok(printed)) => {
                let expected = print("print", model, compat)?;
                if printed != expected {
                    return Err(format!(
                        "the print from bytes differs from the decoded model's\n--- from bytes\n{}\n--- decoded\n{}",
                        printed.text, expected.text
                    ));
                }
            }
            (Err(refused), Err(failed)) if refused.diagnostics() == failed.diagnostics() => {}
            (decoded, from_bytes) => {
                return Err(format!(
                    "decode_model gave {decoded:?}, print_binary_model {from_bytes:?}"
                ))
            }
        }
    }
    Ok(())
}

/// Inference over a model never panics, whatever its options, and what it
/// writes is consistent:
///
/// * `print --types` text parses back to the model (type comments are
///   comments), and `fmt` leaves it as it is (it refreshes the comments to
///   the same types);
/// * a model whose inference found no error, once its inferred types are
///   written into it ([`crate::infer::fill_value_info`]), is inferred
///   again without an error: what inference writes, it agrees with.
///
/// ```
/// let bytes = onnxtxt::smith::seeded_bytes(5, 3000);
/// let mut u = arbitrary::Unstructured::new(&bytes);
/// let model = onnxtxt::smith::inference_models::operator_model(&mut u).unwrap();
/// onnxtxt::roundtrip::inference_is_consistent(&model).unwrap();
/// ```
pub fn inference_is_consistent(model: &ModelProto) -> Check {
    use crate::infer::{self, Options, Propagation};

    let errors = |findings: &[crate::check::Finding]| -> Vec<String> {
        findings
            .iter()
            .filter(|f| f.is_error())
            .map(|f| f.diagnostic.message.clone())
            .collect()
    };
    for propagation in [Propagation::Off, Propagation::Onnx, Propagation::Extended] {
        for check_types in [false, true] {
            let options = Options {
                check_types,
                propagation,
            };
            guard("infer_model", || {
                infer::infer_model(model, options).into_findings()
            })?;
        }
    }
    guard("infer::check", || infer::check(model))?;
    let typed = guard("print_with_types", || {
        infer::print_with_types(model, &Printer::new())
    })?;
    let reparsed = guard("parse_model", || crate::parse_model(&typed))?
        .map_err(|e| format!("print --types text does not parse: {e:?}\n{typed}"))?;
    if reparsed.encode_to_vec() != model.encode_to_vec() {
        return Err(format!(
            "print --types text parses to another model\n{typed}"
        ));
    }
    let formatted = guard("format", || crate::format(&typed))?
        .map_err(|e| format!("fmt refuses print --types text: {e:?}\n{typed}"))?;
    if formatted != typed {
        return Err(format!(
            "fmt changes print --types text\n--- typed\n{typed}\n--- formatted\n{formatted}"
        ));
    }
    let mut filled = model.clone();
    let first = guard("fill_value_info", || {
        infer::fill_value_info(&mut filled, Options::default())
    })?;
    if errors(&first).is_empty() {
        let again = guard("infer_model", || {
            infer::infer_model(&filled, Options::default()).into_findings()
        })?;
        let again = errors(&again);
        if !again.is_empty() {
            return Err(format!(
                "inference disagrees with the types it wrote: {}\n--- model\n{}\n--- filled\n{}",
                again.join("; "),
                crate::to_text(model),
                crate::to_text(&filled)
            ));
        }
    }
    Ok(())
}

/// The fuzz targets of `fuzz/`, each a check over raw fuzzer bytes. The
/// regression replay (`tests/it/fuzz_regressions.rs`) runs the files under
/// `fuzz/regressions/<target>/` and `fuzz/corpus/<target>/` through
/// the same functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target {
    /// UTF-8 text through [`text_round_trips`] (other bytes are skipped).
    ParseText,
    /// Bytes through [`binary_round_trips`].
    DecodeBinary,
    /// Bytes through [`crate::smith::arbitrary_model`], then [`model_round_trips`].
    StructuredModel,
    /// UTF-8 text through [`fmt_is_idempotent`].
    FmtIdempotent,
    /// Bytes through [`crate::smith::inference_models::operator_model`], then
    /// [`inference_is_consistent`].
    Infer,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 5] = [
        Target::ParseText,
        Target::DecodeBinary,
        Target::StructuredModel,
        Target::FmtIdempotent,
        Target::Infer,
    ];

    /// The target's name: its file in `fuzz/fuzz_targets/` and its
    /// directories under `fuzz/corpus/` and `fuzz/regressions/`.
    pub fn name(self) -> &'static str {
        match self {
            Target::ParseText => "parse_text",
            Target::DecodeBinary => "decode_binary",
            Target::StructuredModel => "structured_model",
            Target::FmtIdempotent => "fmt_idempotent",
            Target::Infer => "infer",
        }
    }

    /// Runs the target's check over one fuzzer input.
    pub fn check(self, data: &[u8]) -> Check {
        match self {
            Target::ParseText => std::str::from_utf8(data).map_or(Ok(()), text_round_trips),
            Target::DecodeBinary => binary_round_trips(data),
            Target::StructuredModel => {
                let mut u = arbitrary::Unstructured::new(data);
                match crate::smith::arbitrary_model(&mut u) {
                    Ok(model) => model_round_trips(&model),
                    Err(_) => Ok(()),
                }
            }
            Target::FmtIdempotent => std::str::from_utf8(data).map_or(Ok(()), fmt_is_idempotent),
            Target::Infer => {
                let mut u = arbitrary::Unstructured::new(data);
                match crate::smith::inference_models::operator_model(&mut u) {
                    Ok(model) => inference_is_consistent(&model),
                    Err(_) => Ok(()),
                }
            }
        }
    }
}
