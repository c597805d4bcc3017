//! Operators of `ai.onnx.ml`, the traditional machine learning domain.

use super::common::*;
use super::elementwise::same_as_input;

/// The domain's name.
const ML: &str = "ai.onnx.ml";

pub(super) const RULES: &[Rule] = &[
    Rule::new("ArrayFeatureExtractor", 1, array_feature_extractor).domain(ML),
    Rule::new("Binarizer", 1, same_as_input).domain(ML),
    Rule::new("CastMap", 1, cast_map).domain(ML),
    Rule::new("CategoryMapper", 1, category_mapper).domain(ML),
    Rule::new("DictVectorizer", 1, dict_vectorizer).domain(ML),
    Rule::new("LabelEncoder", 1, label_encoder).domain(ML),
    Rule::new("LinearClassifier", 1, linear_classifier).domain(ML),
    Rule::new("OneHotEncoder", 1, one_hot_encoder).domain(ML),
    Rule::new("SVMClassifier", 1, labels_type).domain(ML),
    Rule::new("TreeEnsembleClassifier", 1, labels_type).domain(ML).until(1),
    Rule::new("TreeEnsembleClassifier", 3, tree_ensemble_classifier).domain(ML).until(3),
    Rule::new("TreeEnsembleRegressor", 3, tree_ensemble_regressor).domain(ML).until(3),
    Rule::new("TreeEnsemble", 5, tree_ensemble).domain(ML),
    Rule::new("ZipMap", 1, zip_map).domain(ML),
];

fn array_feature_extractor(node: &mut Node) -> Outcome {
    node.copy_elem(0, 0)?;
    let input = node.shape(0)?;
    if input.len() == 1 {
        return Ok(());
    }
    let mut output: Shape = input[..input.len().saturating_sub(1)].to_vec();
    let last = match node.shape_opt(1).filter(|s| !s.is_empty()) {
        Some(indices) => selected_count(indices),
        None => Dim::Unknown,
    };
    output.push(last);
    node.set_shape(0, output);
    Ok(())
}

/// How many indices a tensor of shape `indices` holds: a known size, or a
/// name when it has one named dimension and the rest multiply to 1.
fn selected_count(indices: &[Dim]) -> Dim {
    let mut count: i64 = 1;
    let mut name = None;
    for dim in indices {
        match dim {
            Dim::Value(v) => match count.checked_mul(*v) {
                Some(c) => count = c,
                None => return Dim::Unknown,
            },
            Dim::Param(_) if name.is_none() => name = Some(dim.clone()),
            _ => return Dim::Unknown,
        }
    }
    match name {
        None => Dim::Value(count),
        Some(name) if count == 1 => name,
        Some(_) => Dim::Unknown,
    }
}

fn cast_map(node: &mut Node) -> Outcome {
    let elem = match node.attr("cast_to").map(|_| node.string("cast_to").unwrap_or("")) {
        None | Some("TO_FLOAT") => FLOAT,
        Some("TO_INT64") => INT64,
        Some("TO_STRING") => STRING,
        Some(_) => return Ok(()),
    };
    node.set_elem(0, elem);
    Ok(())
}

fn category_mapper(node: &mut Node) -> Outcome {
    let (ints, strings) = (node.ints("cats_int64s"), node.strings("cats_strings"));
    let (Some(ints), Some(strings)) = (ints, strings) else {
        return failed(ErrorKind::Invalid, "`cats_int64s` and `cats_strings` are required");
    };
    if ints.len() != strings.len() {
        return failed(ErrorKind::Invalid, "`cats_int64s` and `cats_strings` differ in length");
    }
    match node.input(0).map(Type::elem_type) {
        Some(STRING) => node.set_elem(0, INT64),
        Some(INT64) => node.set_elem(0, STRING),
        _ => {}
    }
    if node.shape_opt(0).is_some() {
        node.copy_shape(0, 0)?;
    }
    Ok(())
}

fn dict_vectorizer(node: &mut Node) -> Outcome {
    let Some(Type::Map(_, value)) = node.input(0) else { return Ok(()) };
    let elem = value.elem_type();
    node.set_elem(0, elem);
    Ok(())
}

/// The type and length of the one list attribute of `names` a node gives.
fn typed_list(node: &Node, names: &[&str]) -> Result<Option<(i32, usize)>, Stop> {
    let mut found = None;
    for name in names {
        let Some(attr) = node.attr(name) else { continue };
        if found.is_some() {
            return failed(ErrorKind::Invalid, format!("only one of {} may be given", names.join(", ")));
        }
        found = Some(if !attr.ints.is_empty() {
            (INT64, attr.ints.len())
        } else if !attr.floats.is_empty() {
            (FLOAT, attr.floats.len())
        } else if !attr.strings.is_empty() {
            (STRING, attr.strings.len())
        } else if let Some(t) = &attr.t {
            let [n] = t.dims[..] else {
                return failed(ErrorKind::Invalid, format!("`{name}` must be a 1-D tensor"));
            };
            (t.data_type.unwrap_or(UNDEFINED), usize::try_from(n).unwrap_or(0))
        } else {
            (UNDEFINED, 0)
        });
    }
    Ok(found)
}

fn label_encoder(node: &mut Node) -> Outcome {
    if node.version() < 2 {
        match node.input(0).map(Type::elem_type) {
            Some(STRING) => node.set_elem(0, INT64),
            Some(INT64) => node.set_elem(0, STRING),
            _ => {}
        }
        return Ok(());
    }
    let keys = typed_list(node, &["keys_tensor", "keys_strings", "keys_int64s", "keys_floats"])?;
    let values = typed_list(node, &["values_tensor", "values_strings", "values_int64s", "values_floats"])?;
    let (Some((key_type, keys)), Some((value_type, values))) = (keys, values) else {
        return failed(ErrorKind::Invalid, "one of `keys_*` and one of `values_*` must be given");
    };
    if let Some(input) = node.input(0).map(Type::elem_type).filter(|&e| e != UNDEFINED) {
        if input != key_type {
            return failed(ErrorKind::TypeMismatch, "the input's element type is not the keys'");
        }
    }
    if keys != values {
        return failed(
            ErrorKind::Invalid,
            format!("there are {keys} keys but {values} values"),
        );
    }
    node.set_elem(0, value_type);
    node.copy_shape(0, 0)
}

/// The classifier's labels are strings when `classlabels_strings` is
/// given, else integers.
fn label_elem(node: &Node) -> i32 {
    if node.strings("classlabels_strings").is_some_and(|s| !s.is_empty()) {
        STRING
    } else {
        INT64
    }
}

fn labels_type(node: &mut Node) -> Outcome {
    let elem = label_elem(node);
    node.set_elem(0, elem);
    Ok(())
}

/// The batch dimension of a classifier's input: 1 for a 1-D input.
fn batch_of(node: &Node) -> Result<Dim, Stop> {
    Ok(match node.shape_opt(0) {
        Some([_]) => Dim::Value(1),
        Some([n, _]) => n.clone(),
        Some(_) => return failed(ErrorKind::Invalid, "the input must have rank 1 or 2"),
        None => Dim::Unknown,
    })
}

fn linear_classifier(node: &mut Node) -> Outcome {
    let elem = label_elem(node);
    node.set_elem(0, elem);
    node.set_elem(1, FLOAT);
    let intercepts = node.floats("intercepts").map_or(0, |f| f.len());
    let labels = if elem == STRING {
        node.strings("classlabels_strings").map_or(0, |s| s.len())
    } else {
        node.ints("classlabels_ints").map_or(0, |s| s.len())
    };
    let classes = if intercepts == 1 && labels == 2 { 2 } else { intercepts };
    let batch = batch_of(node)?;
    node.set_shape(0, vec![batch.clone()]);
    node.set_shape(1, vec![batch, Dim::Value(classes as i64)]);
    Ok(())
}

fn one_hot_encoder(node: &mut Node) -> Outcome {
    let ints = node.ints("cats_int64s").map(|i| i.len());
    let strings = node.strings("cats_strings").map(|s| s.len());
    if ints.is_some() == strings.is_some() {
        return failed(ErrorKind::Invalid, "exactly one of `cats_int64s` and `cats_strings` must be given");
    }
    let input = node.shape(0)?;
    let mut shape = input.to_vec();
    shape.push(Dim::Value(ints.or(strings).unwrap_or(0) as i64));
    node.set_tensor(0, FLOAT, shape);
    Ok(())
}

/// Only one of each pair of list and tensor attributes may be given.
fn one_of_each(node: &Node, names: &[&str]) -> Outcome {
    for name in names {
        if node.attr(name).is_some() && node.attr(&format!("{name}_as_tensor")).is_some() {
            return failed(
                ErrorKind::Invalid,
                format!("only one of `{name}` and `{name}_as_tensor` may be given"),
            );
        }
    }
    Ok(())
}

/// The batch dimension of a 2-D input.
fn batch_of_matrix(node: &Node) -> Result<Dim, Stop> {
    match node.shape_opt(0) {
        Some([n, _]) => Ok(n.clone()),
        Some(_) => failed(ErrorKind::Invalid, "the input must have rank 2"),
        None => Ok(Dim::Unknown),
    }
}

fn tree_ensemble_classifier(node: &mut Node) -> Outcome {
    one_of_each(node, &["nodes_values", "nodes_hitrates", "class_weights", "base_values"])?;
    let elem = label_elem(node);
    node.set_elem(0, elem);
    node.set_elem(1, FLOAT);
    let batch = batch_of_matrix(node)?;
    let classes = if elem == STRING {
        node.strings("classlabels_strings").map_or(0, |s| s.len())
    } else {
        match node.ints("classlabels_int64s") {
            Some(labels) if !labels.is_empty() => labels.len(),
            _ => return failed(ErrorKind::Invalid, "neither class labels attribute is given"),
        }
    };
    node.set_shape(0, vec![batch.clone()]);
    node.set_shape(1, vec![batch, Dim::Value(classes as i64)]);
    Ok(())
}

fn tree_ensemble_regressor(node: &mut Node) -> Outcome {
    one_of_each(node, &["nodes_values", "nodes_hitrates", "target_weights", "base_values"])?;
    let batch = batch_of_matrix(node)?;
    let targets = node.attr("n_targets").map_or(Dim::Unknown, |a| Dim::Value(a.i.unwrap_or(0)));
    node.set_tensor(0, FLOAT, vec![batch, targets]);
    Ok(())
}

fn tree_ensemble(node: &mut Node) -> Outcome {
    let batch = batch_of_matrix(node)?;
    let elem = node.elem(0)?;
    let targets = node.attr("n_targets").map_or(Dim::Unknown, |a| Dim::Value(a.i.unwrap_or(0)));
    node.set_tensor(0, elem, vec![batch, targets]);
    Ok(())
}

fn zip_map(node: &mut Node) -> Outcome {
    if let Some(shape) = node.shape_opt(0) {
        if shape.len() != 1 && shape.len() != 2 {
            return failed(ErrorKind::Invalid, "the input must have rank 1 or 2");
        }
    }
    let key = if node.strings("classlabels_strings").is_some_and(|s| !s.is_empty()) {
        STRING
    } else if node.ints("classlabels_int64s").is_some_and(|s| !s.is_empty()) {
        INT64
    } else {
        UNDEFINED
    };
    let value = Type::tensor(FLOAT, Vec::new());
    node.set(0, Type::Sequence(Box::new(Type::Map(key, Box::new(value)))));
    Ok(())
}
