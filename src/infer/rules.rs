//! The rule table: which function infers which operator versions.
//!
//! A [`Rule`] covers one operator of one domain for a range of its schema
//! versions (the `since_version` of the schema in force, not the opset the
//! model imports): `Rule::new("Squeeze", 13, squeeze)` from version 13 on,
//! `Rule::new("Squeeze", 1, squeeze_v1).until(11)` for versions 1 to 11. Each operator
//! family's file under `ops/` lists its rules in a `RULES` constant, and
//! `ops/mod.rs` names the family once; [`find`] looks a rule up by domain,
//! operator and schema version.

use foldhash::{HashMap, HashMapExt};
use std::sync::OnceLock;

use super::context::{DataNode, Node};
use super::error::Outcome;

/// Infers a node's output types.
pub(crate) type InferFn = for<'a, 'm> fn(&mut Node<'a, 'm>) -> Outcome;

/// Computes the contents of a node's small integer outputs.
pub(crate) type PropagateFn = for<'a, 'm> fn(&mut DataNode<'a, 'm>) -> Outcome;

/// How one operator's versions are inferred.
pub(crate) struct Rule {
    pub domain: &'static str,
    pub op: &'static str,
    /// The first schema version (`since_version`) it covers.
    pub since: i64,
    /// The last one.
    pub until: i64,
    pub infer: InferFn,
    /// Data propagation: computing the contents of small integer outputs.
    pub propagate: Option<PropagateFn>,
    /// Whether onnx propagates through this operator version too (else
    /// only [`Propagation::Extended`](super::Propagation) does).
    pub onnx_propagates: bool,
}

impl Rule {
    /// `op` of `ai.onnx`, schema versions `since` and later, inferred by
    /// `infer`.
    pub const fn new(op: &'static str, since: i64, infer: InferFn) -> Rule {
        Rule {
            domain: "",
            op,
            since,
            until: i64::MAX,
            infer,
            propagate: None,
            onnx_propagates: false,
        }
    }

    /// The same rule, for schema versions up to `until` only.
    pub const fn until(self, until: i64) -> Rule {
        Rule { until, ..self }
    }

    /// Whether the rule covers schema version `since_version`.
    pub fn covers(&self, since_version: i64) -> bool {
        (self.since..=self.until).contains(&since_version)
    }

    /// The same rule for an operator of `domain`.
    pub const fn domain(self, domain: &'static str) -> Rule {
        Rule { domain, ..self }
    }

    /// The same rule, with data propagation as onnx does it.
    pub const fn propagate(self, propagate: PropagateFn) -> Rule {
        Rule {
            propagate: Some(propagate),
            onnx_propagates: true,
            ..self
        }
    }

    /// The same rule, with data propagation where onnx has none (only
    /// with [`Propagation::Extended`](super::Propagation)).
    pub const fn propagate_beyond_onnx(self, propagate: PropagateFn) -> Rule {
        Rule {
            propagate: Some(propagate),
            onnx_propagates: false,
            ..self
        }
    }
}

type Table = HashMap<(&'static str, &'static str), Vec<&'static Rule>>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Table::new();
        for rule in super::ops::FAMILIES.iter().copied().flatten() {
            table.entry((rule.domain, rule.op)).or_default().push(rule);
        }
        table
    })
}

/// The rule for the schema version `since_version` of `op` in `domain`.
pub(crate) fn find(domain: &str, op: &str, since_version: i64) -> Option<&'static Rule> {
    let rules = table().get(&(domain, op))?;
    rules
        .iter()
        .copied()
        .find(|rule| rule.covers(since_version))
}

/// Every rule, family by family.
#[cfg(test)]
pub(crate) fn all() -> impl Iterator<Item = &'static Rule> {
    super::ops::FAMILIES.iter().copied().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops;

    /// Every rule names an operator of the registry and covers at least
    /// one of its versions; no schema version has two rules.
    #[test]
    fn rules_name_real_operators_and_do_not_overlap() {
        for rule in all() {
            let operator = ops::operator(rule.domain, rule.op)
                .unwrap_or_else(|| panic!("no operator {}:{}", rule.domain, rule.op));
            let covered = operator
                .versions()
                .iter()
                .filter(|s| rule.covers(s.since_version()))
                .count();
            assert!(covered > 0, "{}:{} covers no version", rule.domain, rule.op);
            for schema in operator.versions() {
                let v = schema.since_version();
                let n = table()[&(rule.domain, rule.op)]
                    .iter()
                    .filter(|r| r.covers(v))
                    .count();
                assert!(
                    n <= 1,
                    "{}:{} version {v} has {n} rules",
                    rule.domain,
                    rule.op
                );
            }
        }
    }
}
