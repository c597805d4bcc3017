//! "Did you mean": the operator or attribute whose name is closest to a
//! misspelt one.

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
