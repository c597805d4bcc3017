//! Conformance with the reference implementation (onnx on PyPI).
//!
//! `conformance/run.sh` writes a corpus (see `conformance/generate.py`): the
//! node test models, the schema function bodies and the models shipped in
//! the onnx wheel, each with its original binary, the reference printer's
//! text and what the reference parser makes of that text. These tests check
//! onnxtxt against it, one report per check, each listing every miss by name
//! and ending with `conformance(<check>): N passed, M failed`:
//!
//! - `parse`: the reference's text → onnxtxt's parse equals the reference's
//!   parse;
//! - `roundtrip`: `parse(print(m))` encodes to exactly the bytes prost makes
//!   of `m`;
//! - `compat`: the reference parser accepts `print --compat` of `m` and reads
//!   it as onnxtxt does, and that is `m` itself when the printer reported
//!   nothing dropped;
//! - `fixpoint`: `print(parse(print(m))) == print(m)`.
//!
//! IR is compared as values in which an optional field holding its default
//! counts as unset (see `conformance/normalise.rs`), except by
//! `roundtrip`, which compares bytes.
//!
//! The tests are `#[ignore]`d so that a plain `cargo test` passes on a fresh
//! clone, and they fail, not pass, when the corpus is missing.
//!
//! Environment: `ONNXTXT_CORPUS` (default `target/conformance`; relative to
//! the crate root), `ONNXTXT_CONFORMANCE_FILTER` (only run cases whose name
//! contains it) and `ONNXTXT_PYTHON` (the Python that runs
//! `conformance/reference_parse.py` for `compat`; default `.venv/bin/python`).
//! `compat` writes its texts and the reference's results to `compat/` in the
//! corpus folder, and leaves them there for inspection.

// The machinery: the corpus, onnxtxt applied to it, the reference parser
// run in batch, IR normalisation, diffs and reports.
mod corpus;
mod diff;
mod ir;
pub(crate) mod normalise;
mod reference;
mod report;

use std::collections::BTreeMap;

use onnxtxt::Dropped;
use onnxtxt::Printer;

use corpus::{read, Case, Corpus};
use diff::{ir_diff, text_diff};
use ir::Ir;
use normalise::{compare, decode, descriptor_pool, Comparison, KNOWN_REFERENCE_DEFECTS};
use reference::{Batch, Parsed};
use report::Report;

/// Dropped items shown in the compat report, most common first.
const TOP_DROPPED: usize = 15;
/// Cases named in an informational list before "and N more".
const NAMES_SHOWN: usize = 10;

// ---------------------------------------------------------------------------
// parse: the reference's text reads as the reference reads it

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn reference_text_parses_like_the_reference() {
    let corpus = Corpus::open();
    let pool = descriptor_pool();
    let mut report = Report::new("parse");
    for case in &corpus.cases {
        check_parse(&corpus, &pool, case, &mut report);
    }
    report.finish();
}

fn check_parse(corpus: &Corpus, pool: &prost_reflect::DescriptorPool, case: &Case, r: &mut Report) {
    if case.status != "ok" {
        let err = std::fs::read_to_string(corpus.file(case, ".ref.err")).unwrap_or_default();
        let reason = format!("{}: {}", case.status, err.trim());
        return r.skip(case, "the reference cannot read its own text", &reason);
    }
    let text =
        String::from_utf8(read(&corpus.file(case, ".txt"))).expect("the reference's text is UTF-8");
    let ours = match Ir::parse(case.kind, &text) {
        Ok(ir) => ir.encode(),
        Err(err) => {
            return r.fail(
                case,
                "onnxtxt rejects the reference's text",
                &format!("  {err}\n"),
            );
        }
    };
    let reference = read(&corpus.file(case, ".ref.pb"));
    let labels = ("reference", "onnxtxt");
    match compare(
        &case.kind.message(pool),
        &reference,
        &ours,
        labels,
        KNOWN_REFERENCE_DEFECTS,
    ) {
        Comparison::Same => r.pass(case, "matched"),
        Comparison::SameModulo(reasons) => {
            r.pass(case, "matched modulo known reference defects");
            for reason in reasons {
                r.note(
                    "matched modulo known reference defects",
                    format!("{}: {reason}", case.name),
                );
            }
        }
        Comparison::Differs(diff) => r.fail(case, "IR differs from the reference's", &diff),
    }
}

// ---------------------------------------------------------------------------
// roundtrip: parse(print(m)) is m, byte for byte

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn print_then_parse_gives_back_the_same_bytes() {
    let corpus = Corpus::open();
    let pool = descriptor_pool();
    let mut report = Report::new("roundtrip");
    // Originals whose bytes are not what prost re-encodes (information only).
    let mut reencoded_differently: Vec<&str> = Vec::new();
    let mut by_group: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for case in &corpus.cases {
        let original = corpus.original(case);
        let m = match Ir::decode(case.kind, &original) {
            Ok(m) => m,
            Err(err) => {
                report.fail(
                    case,
                    "onnxtxt cannot decode the original",
                    &format!("  {err}\n"),
                );
                continue;
            }
        };
        let expected = m.encode();
        let counts = by_group.entry(case.group()).or_default();
        counts.1 += 1;
        if expected == original {
            counts.0 += 1;
        } else {
            reencoded_differently.push(&case.name);
        }
        let printed = match m.print(Printer::new()) {
            Ok(printed) => printed,
            Err(err) => {
                report.fail(case, "the printer fails", &format!("  {err}\n"));
                continue;
            }
        };
        if !printed.dropped.is_empty() {
            report.fail(
                case,
                "the lossless printer reports drops",
                &dropped_list(&printed.dropped),
            );
            continue;
        }
        let again = match Ir::parse(case.kind, &printed.text) {
            Ok(again) => again.encode(),
            Err(err) => {
                report.fail(case, "onnxtxt rejects its own text", &format!("  {err}\n"));
                continue;
            }
        };
        if again == expected {
            report.pass(case, "identical");
        } else {
            let message = case.kind.message(&pool);
            let diff = ir_diff(
                &decode(&message, &expected, "the original's"),
                &decode(&message, &again, "the reparsed"),
                ("original", "parse(print(original))"),
            );
            report.fail(case, "parse(print(m)) differs from m", &diff);
        }
    }
    let identical: Vec<String> = by_group
        .iter()
        .map(|(group, (same, total))| format!("{group} {same}/{total}"))
        .collect();
    report.info(format!(
        "(information) originals byte-identical to their prost re-encoding: {} of {} ({}){}",
        corpus.cases.len() - reencoded_differently.len(),
        corpus.cases.len(),
        identical.join(", "),
        name_list(&reencoded_differently, "; the others: ")
    ));
    report.finish();
}

// ---------------------------------------------------------------------------
// compat: the reference reads print --compat as onnxtxt does

/// One case's compat print.
struct CompatPrint {
    original: Vec<u8>,
    text: String,
    dropped: Vec<Dropped>,
    /// Whether the lossless text is the same (expected when nothing dropped).
    same_as_lossless: bool,
}

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn compat_text_reads_the_same_in_the_reference() {
    let corpus = Corpus::open();
    let pool = descriptor_pool();
    let mut report = Report::new("compat");

    // Print everything, then let the reference parse it all in one run.
    let mut batch = Batch::new(corpus.dir.join("compat"));
    let mut prints: Vec<Result<CompatPrint, (&'static str, String)>> = Vec::new();
    for case in &corpus.cases {
        let print = compat_print(&corpus, case);
        if let Ok(print) = &print {
            batch.add(&case.name, case.kind, &print.text);
        }
        prints.push(print);
    }
    match batch.run() {
        Ok(summary) => report.info(format!("(information) reference_parse.py: {summary}")),
        Err(err) => report.note("conformance/reference_parse.py failed", err),
    }

    let mut stats = DropStats::default();
    for (case, print) in corpus.cases.iter().zip(prints) {
        match print {
            Ok(print) => {
                stats.add(case, &print);
                check_compat(
                    &pool,
                    case,
                    &print,
                    batch.result(&case.name),
                    &mut stats,
                    &mut report,
                );
            }
            Err((label, err)) => report.fail(case, label, &format!("  {err}\n")),
        }
    }
    stats.finish(&mut report);
    report.finish();
}

fn compat_print(corpus: &Corpus, case: &Case) -> Result<CompatPrint, (&'static str, String)> {
    let original = corpus.original(case);
    let m = Ir::decode(case.kind, &original)
        .map_err(|err| ("onnxtxt cannot decode the original", err))?;
    let printed = m
        .print(Printer::new().compat(true))
        .map_err(|err| ("the compat printer fails", err))?;
    let lossless = m
        .print(Printer::new())
        .map_err(|err| ("the printer fails", err))?;
    Ok(CompatPrint {
        original,
        same_as_lossless: printed.text == lossless.text,
        text: printed.text,
        dropped: printed.dropped,
    })
}

fn check_compat(
    pool: &prost_reflect::DescriptorPool,
    case: &Case,
    print: &CompatPrint,
    reference: Parsed,
    stats: &mut DropStats,
    r: &mut Report,
) {
    let ours = match Ir::parse(case.kind, &print.text) {
        Ok(ir) => ir.encode(),
        Err(err) => {
            return r.fail(
                case,
                "onnxtxt rejects its own compat text",
                &format!("  {err}\n"),
            );
        }
    };
    let reference = match reference {
        Parsed::Ok(bytes) => bytes,
        Parsed::Err(err) => {
            return r.fail(
                case,
                "the reference rejects the compat text",
                &format!("  {err}\n"),
            );
        }
        Parsed::Missing => {
            return r.fail(
                case,
                "no result from the reference (reference_parse.py died?)",
                "",
            );
        }
    };
    let message = case.kind.message(pool);
    let labels = ("reference", "onnxtxt");
    let modulo = match compare(&message, &reference, &ours, labels, KNOWN_REFERENCE_DEFECTS) {
        Comparison::Same => Vec::new(),
        Comparison::SameModulo(reasons) => reasons,
        Comparison::Differs(diff) => {
            return r.fail(
                case,
                "the reference reads the compat text differently",
                &diff,
            );
        }
    };
    let labels = ("original", "onnxtxt parse of the compat text");
    let same_as_original = match compare(&message, &print.original, &ours, labels, &[]) {
        Comparison::Same => None,
        Comparison::SameModulo(_) => unreachable!("no defects given"),
        Comparison::Differs(diff) => Some(diff),
    };
    match (&same_as_original, print.dropped.is_empty()) {
        (Some(diff), true) => {
            return r.fail(
                case,
                "nothing reported dropped, yet the compat text is not the original",
                diff,
            );
        }
        (None, false) => stats.lossless_despite_drops.push(case.name.clone()),
        _ => {}
    }
    let label = match (modulo.is_empty(), print.dropped.is_empty()) {
        (true, true) => "matched, nothing dropped",
        (true, false) => "matched, with drops",
        (false, true) => "matched modulo known reference defects, nothing dropped",
        (false, false) => "matched modulo known reference defects, with drops",
    };
    r.pass(case, label);
    for reason in modulo {
        r.note(
            "matched modulo known reference defects",
            format!("{}: {reason}", case.name),
        );
    }
}

/// What compat printing dropped, over the corpus.
#[derive(Default)]
struct DropStats {
    /// Cases with drops, and cases, by group.
    by_group: BTreeMap<String, (usize, usize)>,
    /// By item (its `what`, with quoted names elided): items, cases, and one
    /// example.
    items: BTreeMap<String, (usize, usize, String)>,
    /// Drop-free cases whose compat text is not the lossless text.
    differs_from_lossless: Vec<String>,
    drop_free: usize,
    /// Cases with drops whose compat text still reads back as the original
    /// (modulo defaults): what was dropped was a field set to its default.
    lossless_despite_drops: Vec<String>,
}

impl DropStats {
    fn add(&mut self, case: &Case, print: &CompatPrint) {
        let counts = self.by_group.entry(case.group().to_owned()).or_default();
        counts.1 += 1;
        if print.dropped.is_empty() {
            self.drop_free += 1;
            if !print.same_as_lossless {
                self.differs_from_lossless.push(case.name.clone());
            }
            return;
        }
        counts.0 += 1;
        let mut seen = Vec::new();
        for dropped in &print.dropped {
            let key = elide_quoted(&dropped.what);
            let entry = self
                .items
                .entry(key.clone())
                .or_insert_with(|| (0, 0, format!("{}: {dropped}", case.name)));
            entry.0 += 1;
            if !seen.contains(&key) {
                entry.1 += 1;
                seen.push(key);
            }
        }
    }

    fn finish(self, r: &mut Report) {
        let with_drops: usize = self.by_group.values().map(|(d, _)| d).sum();
        let total: usize = self.by_group.values().map(|(_, t)| t).sum();
        let groups: Vec<String> = self
            .by_group
            .iter()
            .map(|(group, (d, t))| format!("{group} {d}/{t}"))
            .collect();
        r.info(format!(
            "(information) cases with drops: {with_drops} of {total} ({})",
            groups.join(", ")
        ));
        let mut items: Vec<_> = self.items.into_iter().collect();
        items.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(b.1 .0.cmp(&a.1 .0)));
        for (what, (n, cases, example)) in items.iter().take(TOP_DROPPED) {
            r.note(
                "(information) most common dropped items (cases, items: what; e.g.)",
                format!("{cases} cases, {n} items: {what}\n      e.g. {example}"),
            );
        }
        if items.len() > TOP_DROPPED {
            r.note(
                "(information) most common dropped items (cases, items: what; e.g.)",
                format!("... and {} other kinds of item", items.len() - TOP_DROPPED),
            );
        }
        let names: Vec<&str> = self
            .lossless_despite_drops
            .iter()
            .map(String::as_str)
            .collect();
        r.info(format!(
            "(information) cases with drops whose compat text still reads back as the \
             original modulo defaults: {} of {with_drops}{}",
            names.len(),
            name_list(&names, ": ")
        ));
        let names: Vec<&str> = self
            .differs_from_lossless
            .iter()
            .map(String::as_str)
            .collect();
        r.info(format!(
            "(information) drop-free cases whose compat text is the lossless text: {} of {}{}",
            self.drop_free - names.len(),
            self.drop_free,
            name_list(&names, "; not: ")
        ));
    }
}

/// `what` with the contents of `"..."` replaced by `…`, so that items that
/// differ only by a name count together.
fn elide_quoted(what: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut escaped = false;
    for c in what.chars() {
        if quoted {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
                out.push_str("…\"");
            }
        } else {
            out.push(c);
            quoted = c == '"';
        }
    }
    out
}

fn dropped_list(dropped: &[Dropped]) -> String {
    dropped.iter().map(|d| format!("  {d}\n")).collect()
}

/// `prefix` and the first few `names`, or nothing when there are none.
fn name_list(names: &[&str], prefix: &str) -> String {
    if names.is_empty() {
        return String::new();
    }
    let shown = names[..names.len().min(NAMES_SHOWN)].join(", ");
    match names.len().checked_sub(NAMES_SHOWN) {
        Some(more) if more > 0 => format!("{prefix}{shown} and {more} more"),
        _ => format!("{prefix}{shown}"),
    }
}

// ---------------------------------------------------------------------------
// fixpoint: printing what was printed and parsed gives the same text

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn printing_is_a_fixpoint() {
    let corpus = Corpus::open();
    let mut report = Report::new("fixpoint");
    for case in &corpus.cases {
        match fixpoint(&corpus, case) {
            Ok(()) => report.pass(case, "same text"),
            Err((label, details)) => report.fail(case, label, &details),
        }
    }
    report.finish();
}

fn fixpoint(corpus: &Corpus, case: &Case) -> Result<(), (&'static str, String)> {
    let indent = |err: String| format!("  {err}\n");
    let m = Ir::decode(case.kind, &corpus.original(case))
        .map_err(|err| ("onnxtxt cannot decode the original", indent(err)))?;
    let first = m
        .print(Printer::new())
        .map_err(|err| ("the printer fails", indent(err)))?
        .text;
    let reparsed = Ir::parse(case.kind, &first)
        .map_err(|err| ("onnxtxt rejects its own text", indent(err)))?;
    let second = reparsed
        .print(Printer::new())
        .map_err(|err| ("the printer fails on the reparsed IR", indent(err)))?
        .text;
    if first == second {
        Ok(())
    } else {
        let labels = ("print(m)", "print(parse(print(m)))");
        Err((
            "print(parse(print(m))) differs from print(m)",
            text_diff(&first, &second, "line", labels),
        ))
    }
}
