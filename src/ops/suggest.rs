//! "Did you mean": the operator or attribute whose name is closest to a
//! misspelt one, and what became of an attribute the operator had at
//! another opset.

use super::schema::{Attribute, Domain, Operator, Schema};

impl Domain {
    /// The operator of the domain whose name is closest to `name`, when it
    /// is close enough to be what was meant (`Rleu` → `Relu`, `relu` →
    /// `Relu`).
    ///
    /// ```
    /// let ai_onnx = onnxtxt::ops::domain("").unwrap();
    /// assert_eq!(ai_onnx.closest_operator("Rleu").unwrap().name(), "Relu");
    /// assert!(ai_onnx.closest_operator("Frobnicate").is_none());
    /// ```
    pub fn closest_operator(&self, name: &str) -> Option<&'static Operator> {
        closest_by(name, self.operators(), |op| op.name())
    }
}

impl Schema {
    /// The attribute whose name is closest to `name`, when it is close
    /// enough to be what was meant (`alhpa` → `alpha`).
    pub fn closest_attribute(&self, name: &str) -> Option<&'static Attribute> {
        closest_by(name, self.attributes(), |a| a.name())
    }
}

/// The item of `items` whose name (as `name` gives it) is closest to
/// `word` ignoring case, if it is at most a third of the word's length (at
/// least 2) edits away: what a misspelt `word` most likely meant.
pub(crate) fn closest_by<'a, T: ?Sized>(
    word: &str,
    items: impl IntoIterator<Item = &'a T>,
    name: impl Fn(&T) -> &str,
) -> Option<&'a T> {
    let word = word.to_lowercase();
    let limit = (word.chars().count() / 3).max(2);
    items
        .into_iter()
        .map(|item| {
            let distance = strsim::damerau_levenshtein(&word, &name(item).to_lowercase());
            (distance, item)
        })
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, item)| item)
}

/// What an operator's other versions say of an attribute that the
/// version in force does not have ([`Operator::attribute_change`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttributeChange {
    /// It became an input of that name from opset `since` on.
    BecameInput {
        /// The first opset where it is an input.
        since: i64,
    },
    /// The operator dropped it from opset `since` on.
    Dropped {
        /// The first opset without it.
        since: i64,
    },
    /// The operator has it from opset `since` on.
    Arrives {
        /// The first opset with it.
        since: i64,
    },
}

impl Operator {
    /// What became of attribute `name`, which the version in force at
    /// `opset` does not have: an input from some opset on, dropped, or
    /// added later. `None` when no version had it.
    ///
    /// ```
    /// use onnxtxt::ops::{self, AttributeChange};
    ///
    /// let reduce_mean = ops::operator("", "ReduceMean").unwrap();
    /// assert_eq!(
    ///     reduce_mean.attribute_change("axes", 18),
    ///     Some(AttributeChange::BecameInput { since: 18 })
    /// );
    /// assert_eq!(reduce_mean.attribute_change("alpha", 18), None);
    /// ```
    pub fn attribute_change(&self, name: &str, opset: i64) -> Option<AttributeChange> {
        let versions = self.versions();
        let now = versions
            .iter()
            .rposition(|v| v.since_version() <= opset)
            .unwrap_or(0);
        let has = |v: &Schema| v.attribute(name).is_some();
        if let Some(last) = versions[..now].iter().rposition(has) {
            let since = versions[last + 1].since_version();
            let input = versions[now].inputs().iter().any(|p| p.name() == name);
            return Some(if input {
                AttributeChange::BecameInput { since }
            } else {
                AttributeChange::Dropped { since }
            });
        }
        let later = versions[now + 1..].iter().find(|v| has(v))?;
        Some(AttributeChange::Arrives {
            since: later.since_version(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::ops;

    #[test]
    fn misspelt_names_find_what_was_meant() {
        let ai_onnx = ops::domain("ai.onnx").unwrap();
        let closest = |name| ai_onnx.closest_operator(name).map(ops::Operator::name);
        assert_eq!(closest("Rleu"), Some("Relu"));
        assert_eq!(closest("matmul"), Some("MatMul"));
        assert_eq!(closest("Convolution"), None);
        let relu = ops::schema("", "LeakyRelu", 16).unwrap();
        assert_eq!(relu.closest_attribute("alhpa").unwrap().name(), "alpha");
        assert!(relu.closest_attribute("beta").is_none());
    }
}
