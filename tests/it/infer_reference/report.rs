//! Counting the comparisons, overall and by operator, and printing them.

use std::collections::BTreeMap;

use super::compare::Verdict;

/// Examples listed per operator and verdict.
const EXAMPLES: usize = 3;

#[derive(Default)]
struct Counts {
    agree: usize,
    less: usize,
    more: usize,
    disagree: usize,
    examples: Vec<String>,
}

impl Counts {
    fn total(&self) -> usize {
        self.agree + self.less + self.more + self.disagree
    }
}

/// The comparisons of one run (originals, or stripped models).
pub struct Tally {
    what: &'static str,
    all: Counts,
    by_op: BTreeMap<String, Counts>,
    reference_failures: Vec<String>,
    false_alarms: Vec<String>,
}

impl Tally {
    pub fn new(what: &'static str) -> Self {
        Tally {
            what,
            all: Counts::default(),
            by_op: BTreeMap::new(),
            reference_failures: Vec::new(),
            false_alarms: Vec::new(),
        }
    }

    /// Counts one value's verdict under the operator that produces it;
    /// `example` describes it, for the first few that are not agreed.
    pub fn add(&mut self, op: &str, verdict: &Verdict, example: impl FnOnce() -> String) {
        bump(&mut self.all, verdict);
        let counts = self.by_op.entry(op.to_owned()).or_default();
        bump(counts, verdict);
        if *verdict != Verdict::Agree && counts.examples.len() < EXAMPLES {
            counts.examples.push(example());
        }
    }

    /// The share of values that agree.
    pub fn agreement(&self) -> f64 {
        self.all.agree as f64 / self.all.total().max(1) as f64
    }

    pub fn reference_failed(&mut self, case: &str, message: &str, we_fail: bool, known: bool) {
        let ours = if we_fail {
            "onnxtxt reports an error too"
        } else {
            "onnxtxt reports none"
        };
        let known = if known { " (known)" } else { "" };
        self.reference_failures
            .push(format!("{case}: {message} -- {ours}{known}"));
    }

    pub fn false_alarm(&mut self, case: &str, message: &str) {
        self.false_alarms.push(format!("{case}: {message}"));
    }

    pub fn print(&self) {
        let what = self.what;
        let total = self.all.total().max(1);
        let pct = |n: usize| 100.0 * n as f64 / total as f64;
        let mut rows: Vec<(&String, &Counts)> = self
            .by_op
            .iter()
            .filter(|(_, c)| c.agree < c.total())
            .collect();
        rows.sort_by_key(|(op, c)| (std::cmp::Reverse(c.total() - c.agree), op.as_str()));
        println!("infer({what}): operators whose values are not all agreed (values: agree/less/more/disagree):");
        for (op, c) in rows {
            println!(
                "  {op:<32} {:>5}: {:>5} {:>5} {:>5} {:>5}",
                c.total(),
                c.agree,
                c.less,
                c.more,
                c.disagree
            );
            for example in c.examples.iter().take(EXAMPLES) {
                println!("      {example}");
            }
        }
        if !self.reference_failures.is_empty() {
            println!("infer({what}): the reference's strict inference fails on:");
            for line in &self.reference_failures {
                println!("  {line}");
            }
        }
        if !self.false_alarms.is_empty() {
            println!("infer({what}): onnxtxt reports errors the reference does not:");
            for line in &self.false_alarms {
                println!("  {line}");
            }
        }
        println!(
            "infer({what}): {} values: {} agree ({:.2}%), {} onnxtxt knows less ({:.2}%), {} knows more \
             ({:.2}%), {} disagree ({:.2}%); {} models the reference rejects, {} false alarms",
            self.all.total(),
            self.all.agree,
            pct(self.all.agree),
            self.all.less,
            pct(self.all.less),
            self.all.more,
            pct(self.all.more),
            self.all.disagree,
            pct(self.all.disagree),
            self.reference_failures.len(),
            self.false_alarms.len()
        );
    }
}

fn bump(counts: &mut Counts, verdict: &Verdict) {
    match verdict {
        Verdict::Agree => counts.agree += 1,
        Verdict::Less => counts.less += 1,
        Verdict::More => counts.more += 1,
        Verdict::Disagree(_) => counts.disagree += 1,
    }
}
