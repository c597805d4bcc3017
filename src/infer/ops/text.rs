//! String operators: `StringNormalizer`, `StringConcat`, `StringSplit`,
//! `RegexFullMatch`, `TfIdfVectorizer`.

use super::common::*;
use super::elementwise::binary;

pub(super) const RULES: &[Rule] = &[
    Rule::new("StringNormalizer", 10, string_normalizer),
    Rule::new("StringConcat", 20, binary),
    Rule::new("StringSplit", 20, string_split),
    Rule::new("RegexFullMatch", 20, regex_full_match),
    Rule::new("TfIdfVectorizer", 9, tf_idf_vectorizer),
];

fn string_normalizer(node: &mut Node) -> Outcome {
    node.set_elem(0, STRING);
    let input = node.shape(0)?;
    let shape = match input {
        [_] => vec![Dim::Unknown],
        [Dim::Value(1), _] => vec![Dim::Value(1), Dim::Unknown],
        _ => {
            return failed(
                ErrorKind::Invalid,
                format!("the input must be [C] or [1, C], but its shape is {}", shape_text(input)),
            )
        }
    };
    node.set_shape(0, shape);
    Ok(())
}

fn string_split(node: &mut Node) -> Outcome {
    let input = node.shape(0)?;
    if node.elem(0)? != STRING {
        return Ok(());
    }
    let mut substrings = input.to_vec();
    substrings.push(Dim::Unknown);
    node.set_tensor(0, STRING, substrings);
    node.set_tensor(1, INT64, input.to_vec());
    Ok(())
}

fn regex_full_match(node: &mut Node) -> Outcome {
    node.set_elem(0, BOOL);
    node.copy_shape(0, 0)
}

fn tf_idf_vectorizer(node: &mut Node) -> Outcome {
    node.set_elem(0, FLOAT);
    let input = node.shape(0)?;
    let indexes = node.ints("ngram_indexes").map(|i| i.into_owned()).unwrap_or_default();
    if indexes.is_empty() || indexes.iter().any(|&i| i < 0) {
        return failed(ErrorKind::Invalid, "`ngram_indexes` must be non-empty, without negative values");
    }
    let max = indexes.iter().max().copied().unwrap_or(0);
    let width = Dim::Value(max.checked_add(1).ok_or(Stop::Unknown)?);
    let shape = match input {
        [_] => vec![width],
        [batch, _] => vec![batch.clone(), width],
        _ => return failed(ErrorKind::Invalid, "the input must have rank 1 or 2"),
    };
    node.set_shape(0, shape);
    Ok(())
}
