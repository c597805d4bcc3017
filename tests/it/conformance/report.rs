//! Counting and listing the outcome of one check over the corpus.
//!
//! Every case ends as passed, failed or skipped, under a short label (what
//! happened: "matched", "onnxtxt rejects its own text", ...). The report
//! counts labels overall and per group (`node`, `function`, `wheel`,
//! `extra`), lists every failure by name (with details for the first
//! `MAX_DETAILS`), and ends with the line
//! `conformance(<check>): N passed, M failed[, K skipped]`. It is printed
//! in one piece, so that checks running in parallel do not interleave.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::corpus::Case;

/// Failures shown with details; the rest are only named.
const MAX_DETAILS: usize = 50;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Verdict {
    Passed,
    Failed,
    Skipped,
}

#[derive(Default)]
struct Tally {
    total: usize,
    /// By verdict and label, in the order they first came.
    labels: Vec<(Verdict, &'static str, usize)>,
}

impl Tally {
    fn add(&mut self, verdict: Verdict, label: &'static str) {
        self.total += 1;
        match self
            .labels
            .iter_mut()
            .find(|(v, l, _)| *v == verdict && *l == label)
        {
            Some((_, _, n)) => *n += 1,
            None => self.labels.push((verdict, label, 1)),
        }
    }

    fn count(&self, verdict: Verdict) -> usize {
        self.labels
            .iter()
            .filter(|(v, _, _)| *v == verdict)
            .map(|(_, _, n)| n)
            .sum()
    }

    /// `N total, P passed (a: x, b: y), F failed (...), S skipped (...)`.
    fn line(&self) -> String {
        let mut line = format!("{} total", self.total);
        for (verdict, name) in [
            (Verdict::Passed, "passed"),
            (Verdict::Failed, "failed"),
            (Verdict::Skipped, "skipped"),
        ] {
            let _ = write!(line, ", {} {name}", self.count(verdict));
            let parts: Vec<String> = self
                .labels
                .iter()
                .filter(|(v, _, _)| *v == verdict)
                .map(|(_, label, n)| format!("{label}: {n}"))
                .collect();
            if !parts.is_empty() {
                let _ = write!(line, " ({})", parts.join(", "));
            }
        }
        line
    }
}

pub struct Report {
    what: &'static str,
    all: Tally,
    /// By group, in the order they first came.
    groups: Vec<(String, Tally)>,
    details: String,
    details_shown: usize,
    failures_named: Vec<String>,
    /// Lists printed under a heading: passes worth naming, skips.
    sections: BTreeMap<String, Vec<String>>,
    info: Vec<String>,
}

impl Report {
    /// A report for the check called `what` (`parse`, `roundtrip`, ...).
    pub fn new(what: &'static str) -> Report {
        Report {
            what,
            all: Tally::default(),
            groups: Vec::new(),
            details: String::new(),
            details_shown: 0,
            failures_named: Vec::new(),
            sections: BTreeMap::new(),
            info: Vec::new(),
        }
    }

    fn count(&mut self, case: &Case, verdict: Verdict, label: &'static str) {
        self.all.add(verdict, label);
        let group = case.group();
        let index = match self.groups.iter().position(|(g, _)| g == group) {
            Some(index) => index,
            None => {
                self.groups.push((group.to_owned(), Tally::default()));
                self.groups.len() - 1
            }
        };
        self.groups[index].1.add(verdict, label);
    }

    pub fn pass(&mut self, case: &Case, label: &'static str) {
        self.count(case, Verdict::Passed, label);
    }

    /// A failure; `details` (indented lines) are shown for the first few.
    pub fn fail(&mut self, case: &Case, label: &'static str, details: &str) {
        self.count(case, Verdict::Failed, label);
        if self.details_shown < MAX_DETAILS {
            self.details_shown += 1;
            let _ = writeln!(self.details, "FAIL {}: {label}", case.name);
            if !details.is_empty() {
                self.details.push_str(details);
                if !details.ends_with('\n') {
                    self.details.push('\n');
                }
            }
            self.details.push('\n');
        } else {
            self.failures_named
                .push(format!("  {}: {label}", case.name));
        }
    }

    /// A case the check cannot judge, listed under "skipped" with `reason`.
    pub fn skip(&mut self, case: &Case, label: &'static str, reason: &str) {
        self.count(case, Verdict::Skipped, label);
        self.note("skipped", format!("{}: {reason}", case.name));
    }

    /// A line listed under `heading` (one list per heading).
    pub fn note(&mut self, heading: &str, line: String) {
        self.sections
            .entry(heading.to_owned())
            .or_default()
            .push(format!("  {line}"));
    }

    /// A line of information printed just before the counts.
    pub fn info(&mut self, line: String) {
        self.info.push(line);
    }

    pub fn failed(&self) -> usize {
        self.all.count(Verdict::Failed)
    }

    /// Prints everything, then fails unless every case passed or was skipped.
    pub fn finish(self) {
        let what = self.what;
        let mut out = format!("===== conformance({what}) =====\n");
        out.push_str(&self.details);
        if !self.failures_named.is_empty() {
            let _ = writeln!(
                out,
                "further failures, without details:\n{}",
                self.failures_named.join("\n")
            );
        }
        for (heading, lines) in &self.sections {
            let _ = writeln!(out, "{heading}:\n{}", lines.join("\n"));
        }
        for line in &self.info {
            let _ = writeln!(out, "conformance({what}) {line}");
        }
        for (group, tally) in &self.groups {
            let _ = writeln!(out, "conformance({what}) {group}: {}", tally.line());
        }
        let _ = writeln!(out, "conformance({what}) all: {}", self.all.line());
        let skipped = match self.all.count(Verdict::Skipped) {
            0 => String::new(),
            n => format!(", {n} skipped"),
        };
        let _ = writeln!(
            out,
            "conformance({what}): {} passed, {} failed{skipped}",
            self.all.count(Verdict::Passed),
            self.failed()
        );
        print!("{out}");
        assert!(
            self.failed() == 0,
            "conformance({what}): {} of {} cases failed (see above)",
            self.failed(),
            self.all.total
        );
    }
}
