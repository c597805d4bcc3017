//! Conformance with the reference implementation (onnx on PyPI).
//!
//! `conformance/run.sh` writes a corpus of the reference printer's texts and
//! of what the reference parser makes of them (see `conformance/generate.py`),
//! then runs these tests. They are `#[ignore]`d so that a plain `cargo test`
//! passes on a fresh clone, and they fail, not pass, when the corpus is
//! missing.
//!
//! IR is compared as values in which an optional field holding its default
//! counts as unset: the reference fills in some fields the text never
//! mentions (every node's `domain` is set to "", for one) where onnxtxt
//! leaves them unset. The normalisation is generic, driven by the schema
//! (`grammar/onnx.proto`, compiled here with `protox` into a `prost-reflect`
//! descriptor pool), not written per field.
//!
//! Environment: `ONNXTXT_CORPUS` (default `target/conformance`; relative to
//! the crate root) and `ONNXTXT_CONFORMANCE_FILTER` (only run cases whose
//! name contains it).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use prost::Message as _;
use prost_reflect::text_format::FormatOptions;
use prost_reflect::{
    DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MessageDescriptor, ReflectMessage, Value,
};

/// Mismatches shown with a diff; the rest are only named.
const MAX_DIFFS_SHOWN: usize = 50;
/// Lines shown in a diff, and lines of context around it.
const DIFF_LINES: usize = 16;
const DIFF_CONTEXT: usize = 2;
/// Lines after the first difference that the diff looks at.
const DIFF_WINDOW: usize = 400;
/// Characters of a line shown in a diff.
const DIFF_WIDTH: usize = 160;

/// A known way in which the reference parser gets the IR wrong: `apply`
/// rewrites onnxtxt's IR the way the reference would have got it wrong
/// (returning whether it changed anything), and a case that matches only
/// after that passes, listed by name with `reason`.
struct KnownDefect {
    reason: &'static str,
    apply: fn(&mut DynamicMessage) -> bool,
}

const KNOWN_REFERENCE_DEFECTS: &[KnownDefect] = &[KnownDefect {
    reason: "the reference parser empties attribute values that are lists of \
             tensors, graphs, type protos or sparse tensors \
             (`ts: tensors = [...]` parses as a TENSORS attribute with no tensors)",
    apply: empty_attribute_value_lists,
}];

/// The transformation for the defect above: clears `tensors`, `graphs`,
/// `type_protos` and `sparse_tensors` of every `AttributeProto`, at any depth.
fn empty_attribute_value_lists(message: &mut DynamicMessage) -> bool {
    let mut changed = false;
    for_each_message(message, &mut |m| {
        if m.descriptor().full_name() != "onnx.AttributeProto" {
            return;
        }
        for name in ["tensors", "graphs", "type_protos", "sparse_tensors"] {
            let field = m
                .descriptor()
                .get_field_by_name(name)
                .expect("AttributeProto field");
            if m.has_field(&field) {
                m.clear_field(&field);
                changed = true;
            }
        }
    });
    changed
}

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn reference_text_parses_like_the_reference() {
    let corpus = Corpus::open();
    let pool = descriptor_pool();
    let mut report = Report::default();
    for case in &corpus.cases {
        let outcome = check_parse(&corpus.dir, &pool, case);
        report.add(case, outcome);
    }
    report.finish("parse");
}

// ---------------------------------------------------------------------------
// The corpus

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum CaseKind {
    Model,
    Function,
}

impl CaseKind {
    fn name(self) -> &'static str {
        match self {
            CaseKind::Model => "model",
            CaseKind::Function => "function",
        }
    }

    fn message(self, pool: &DescriptorPool) -> MessageDescriptor {
        let name = match self {
            CaseKind::Model => "onnx.ModelProto",
            CaseKind::Function => "onnx.FunctionProto",
        };
        pool.get_message_by_name(name)
            .expect("message in onnx.proto")
    }
}

struct Case {
    name: String,
    kind: CaseKind,
    /// `ok` when the reference parsed its own text (there is a `.ref.pb`).
    status: String,
}

struct Corpus {
    dir: PathBuf,
    cases: Vec<Case>,
}

impl Corpus {
    /// Reads `manifest.tsv`, panicking with instructions when it is missing.
    fn open() -> Corpus {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = root.join(
            std::env::var_os("ONNXTXT_CORPUS").unwrap_or_else(|| "target/conformance".into()),
        );
        let manifest = dir.join("manifest.tsv");
        let text = fs::read_to_string(&manifest).unwrap_or_else(|err| {
            panic!(
                "no conformance corpus at {} ({err}): run `bash conformance/run.sh`, \
                 or `conformance/setup.sh` then `.venv/bin/python conformance/generate.py`",
                manifest.display()
            )
        });
        let filter = std::env::var("ONNXTXT_CONFORMANCE_FILTER").unwrap_or_default();
        let mut cases = Vec::new();
        for line in text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let fields: Vec<&str> = line.split('\t').collect();
            let [name, kind, status] = fields[..] else {
                panic!("bad manifest line: {line:?}")
            };
            let kind = match kind {
                "model" => CaseKind::Model,
                "function" => CaseKind::Function,
                _ => panic!("bad kind in manifest line: {line:?}"),
            };
            if name.contains(&filter) {
                cases.push(Case {
                    name: name.to_owned(),
                    kind,
                    status: status.to_owned(),
                });
            }
        }
        assert!(
            !cases.is_empty(),
            "no cases in {} (filter {filter:?})",
            manifest.display()
        );
        Corpus { dir, cases }
    }
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// `dir/name` with `suffix` appended (names contain dots, so no `with_extension`).
fn case_file(dir: &Path, case: &Case, suffix: &str) -> PathBuf {
    dir.join(format!("{}{suffix}", case.name))
}

/// The ONNX schema as a descriptor pool, compiled at test time.
fn descriptor_pool() -> DescriptorPool {
    let grammar = Path::new(env!("CARGO_MANIFEST_DIR")).join("grammar");
    let files = protox::compile(["onnx.proto"], [grammar]).expect("grammar/onnx.proto compiles");
    DescriptorPool::from_file_descriptor_set(files).expect("descriptor pool")
}

// ---------------------------------------------------------------------------
// One case

enum Outcome {
    Matched,
    /// Matched once onnxtxt's IR went through these known reference defects.
    MatchedModulo(Vec<&'static str>),
    Mismatched(String),
    /// onnxtxt rejected (or panicked on) the reference's text.
    OnnxtxtError(String),
    /// The reference cannot read its own output; the case is skipped.
    ReferenceDefect(String),
}

fn check_parse(dir: &Path, pool: &DescriptorPool, case: &Case) -> Outcome {
    if case.status != "ok" {
        let err = fs::read_to_string(case_file(dir, case, ".ref.err")).unwrap_or_default();
        return Outcome::ReferenceDefect(format!("{}: {}", case.status, err.trim()));
    }
    let text = String::from_utf8(read(&case_file(dir, case, ".txt")))
        .expect("the reference's text is UTF-8");
    let ours = match parse_with_onnxtxt(case.kind, &text) {
        Ok(bytes) => bytes,
        Err(err) => return Outcome::OnnxtxtError(err),
    };
    let reference = read(&case_file(dir, case, ".ref.pb"));
    compare(&case.kind.message(pool), &reference, &ours)
}

/// onnxtxt's parse of `text`, encoded; an error (or panic) is described.
fn parse_with_onnxtxt(kind: CaseKind, text: &str) -> Result<Vec<u8>, String> {
    let parsed = catch_unwind(AssertUnwindSafe(|| match kind {
        CaseKind::Model => onnxtxt::parse_model(text).map(|m| m.encode_to_vec()),
        CaseKind::Function => onnxtxt::parse_function(text).map(|f| f.encode_to_vec()),
    }));
    match parsed {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(err)) => Err(describe_error(&err.to_string(), err.span().start, text)),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            Err(format!("panicked: {message}"))
        }
    }
}

/// An error message with its line and column and the line itself.
fn describe_error(message: &str, offset: usize, text: &str) -> String {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line_no = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    let column = offset - line_start + 1;
    format!("{message}\n  at {line_no}:{column}: {}", clip(line))
}

/// Compares two encoded messages of type `descriptor` modulo defaults, then
/// modulo the known reference defects.
fn compare(descriptor: &MessageDescriptor, reference: &[u8], ours: &[u8]) -> Outcome {
    let decode = |bytes: &[u8], whose: &str| {
        let mut message = DynamicMessage::decode(descriptor.clone(), bytes).unwrap_or_else(|err| {
            panic!(
                "{whose} IR does not decode as {}: {err}",
                descriptor.full_name()
            )
        });
        clear_defaults(&mut message);
        message
    };
    let reference = decode(reference, "the reference's");
    let mut ours = decode(ours, "onnxtxt's");
    if same(&reference, &ours) {
        return Outcome::Matched;
    }
    let first_diff = diff(&reference, &ours);
    let mut reasons = Vec::new();
    for defect in KNOWN_REFERENCE_DEFECTS {
        if (defect.apply)(&mut ours) {
            reasons.push(defect.reason);
            if same(&reference, &ours) {
                return Outcome::MatchedModulo(reasons);
            }
        }
    }
    Outcome::Mismatched(first_diff)
}

/// Equal as IR: the encodings are compared, so that floats compare by bits
/// (NaN equals itself, -0 differs from 0) as losslessness requires.
fn same(a: &DynamicMessage, b: &DynamicMessage) -> bool {
    a.encode_to_vec() == b.encode_to_vec()
}

// ---------------------------------------------------------------------------
// Normalisation

/// Calls `f` on `message` and on every message inside it, at any depth.
fn for_each_message(message: &mut DynamicMessage, f: &mut dyn FnMut(&mut DynamicMessage)) {
    f(message);
    for (_, value) in message.fields_mut() {
        match value {
            Value::Message(inner) => for_each_message(inner, f),
            Value::List(items) => {
                for item in items {
                    if let Value::Message(inner) = item {
                        for_each_message(inner, f);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Unsets every singular scalar field that is set to its default value, at
/// any depth. Message fields are left alone (an empty `shape {}` is a
/// scalar's shape, not an unknown one), and so are members of a `oneof`
/// (which member is set is itself information: `dim_value: 0` is not `?`).
fn clear_defaults(message: &mut DynamicMessage) {
    for_each_message(message, &mut |m| {
        let descriptor = m.descriptor();
        for field in descriptor.fields() {
            if is_clearable(&field)
                && m.has_field(&field)
                && is_default(m.get_field(&field).as_ref(), &field)
            {
                m.clear_field(&field);
            }
        }
    });
}

fn is_clearable(field: &FieldDescriptor) -> bool {
    field.supports_presence()
        && !field.is_list()
        && !field.is_map()
        && !matches!(field.kind(), Kind::Message(_))
        && field.containing_oneof().is_none()
}

fn is_default(value: &Value, field: &FieldDescriptor) -> bool {
    match (value, &field.default_value()) {
        // By bits: -0.0 is not the default 0.0.
        (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
        (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
        (a, b) => a == b,
    }
}

// ---------------------------------------------------------------------------
// Reporting

/// The first hunk of a line diff of the two text-format dumps (`-` the
/// reference, `+` onnxtxt), found by LCS over a window after the common prefix.
fn diff(reference: &DynamicMessage, ours: &DynamicMessage) -> String {
    let options = FormatOptions::new().pretty(true);
    let reference = reference.to_text_format_with_options(&options);
    let ours = ours.to_text_format_with_options(&options);
    let (a, b): (Vec<&str>, Vec<&str>) = (reference.lines().collect(), ours.lines().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let a_rest = &a[prefix..a.len().min(prefix + DIFF_WINDOW)];
    let b_rest = &b[prefix..b.len().min(prefix + DIFF_WINDOW)];

    // lcs[i][j]: length of the longest common subsequence of a_rest[i..], b_rest[j..].
    let (n, m) = (a_rest.len(), b_rest.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a_rest[i] == b_rest[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }

    let mut out = format!(
        "  @@ text-format line {} (- reference, + onnxtxt) @@\n",
        prefix + 1
    );
    for line in &a[prefix.saturating_sub(DIFF_CONTEXT)..prefix] {
        let _ = writeln!(out, "    {}", clip(line));
    }
    // Walk the first hunk: until DIFF_CONTEXT lines in a row agree again.
    let (mut i, mut j, mut shown, mut agreeing) = (0, 0, 0, 0);
    while (i < n || j < m) && agreeing < DIFF_CONTEXT {
        if shown == DIFF_LINES {
            let _ = writeln!(out, "    ...");
            break;
        }
        let (sign, line) = if i < n && j < m && a_rest[i] == b_rest[j] {
            agreeing += 1;
            i += 1;
            j += 1;
            (' ', a_rest[i - 1])
        } else if j == m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            agreeing = 0;
            i += 1;
            ('-', a_rest[i - 1])
        } else {
            agreeing = 0;
            j += 1;
            ('+', b_rest[j - 1])
        };
        let _ = writeln!(out, "  {sign} {}", clip(line));
        shown += 1;
    }
    out
}

fn clip(line: &str) -> String {
    match line.char_indices().nth(DIFF_WIDTH) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_owned(),
    }
}

#[derive(Default)]
struct Tally {
    total: usize,
    matched: usize,
    matched_modulo: usize,
    mismatched: usize,
    onnxtxt_errors: usize,
    reference_defects: usize,
}

impl Tally {
    fn passed(&self) -> usize {
        self.matched + self.matched_modulo
    }

    fn failed(&self) -> usize {
        self.mismatched + self.onnxtxt_errors
    }

    fn line(&self) -> String {
        format!(
            "{} total, {} matched, {} matched modulo known reference defects, {} mismatched, \
             {} onnxtxt parse errors, {} skipped (reference defects)",
            self.total,
            self.matched,
            self.matched_modulo,
            self.mismatched,
            self.onnxtxt_errors,
            self.reference_defects
        )
    }
}

#[derive(Default)]
struct Report {
    all: Tally,
    by_kind: BTreeMap<CaseKind, Tally>,
    failures_shown: usize,
    failures_named: Vec<String>,
    modulo: Vec<String>,
    reference_defects: Vec<String>,
}

impl Report {
    fn add(&mut self, case: &Case, outcome: Outcome) {
        let mut bump = |f: fn(&mut Tally) -> &mut usize| {
            for tally in [&mut self.all, self.by_kind.entry(case.kind).or_default()] {
                tally.total += 1;
                *f(tally) += 1;
            }
        };
        match outcome {
            Outcome::Matched => bump(|t| &mut t.matched),
            Outcome::MatchedModulo(reasons) => {
                bump(|t| &mut t.matched_modulo);
                for reason in reasons {
                    self.modulo.push(format!(
                        "  {}: matches, modulo known reference defect: {reason}",
                        case.name
                    ));
                }
            }
            Outcome::Mismatched(diff) => {
                bump(|t| &mut t.mismatched);
                self.fail(&case.name, "IR differs from the reference's", &diff);
            }
            Outcome::OnnxtxtError(err) => {
                bump(|t| &mut t.onnxtxt_errors);
                self.fail(
                    &case.name,
                    "onnxtxt cannot parse the reference's text",
                    &format!("  {err}\n"),
                );
            }
            Outcome::ReferenceDefect(reason) => {
                bump(|t| &mut t.reference_defects);
                self.reference_defects
                    .push(format!("  {}: {reason}", case.name));
            }
        }
    }

    /// Prints a failure as it comes, with details for the first few.
    fn fail(&mut self, name: &str, what: &str, details: &str) {
        if self.failures_shown < MAX_DIFFS_SHOWN {
            self.failures_shown += 1;
            println!("FAIL {name}: {what}\n{details}");
        } else {
            self.failures_named.push(format!("  {name}: {what}"));
        }
    }

    /// Prints the lists and counts, then fails unless every case passed.
    fn finish(self, what: &str) {
        if !self.failures_named.is_empty() {
            println!(
                "further failures, without details:\n{}",
                self.failures_named.join("\n")
            );
        }
        if !self.modulo.is_empty() {
            println!(
                "matched modulo known reference defects:\n{}",
                self.modulo.join("\n")
            );
        }
        if !self.reference_defects.is_empty() {
            println!(
                "reference defects (the reference cannot parse its own output; skipped):\n{}",
                self.reference_defects.join("\n")
            );
        }
        for (kind, tally) in &self.by_kind {
            println!("conformance({what}) {}: {}", kind.name(), tally.line());
        }
        println!("conformance({what}) all: {}", self.all.line());
        let skipped = match self.all.reference_defects {
            0 => String::new(),
            n => format!(", {n} skipped"),
        };
        println!(
            "conformance({what}): {} passed, {} failed{skipped}",
            self.all.passed(),
            self.all.failed()
        );
        assert!(
            self.all.failed() == 0,
            "conformance({what}): {} of {} cases do not match the reference (see above)",
            self.all.failed(),
            self.all.total
        );
    }
}
