//! How the values of a tensor changed: counted, by how much at most, and
//! the first changes listed.

use std::fmt;

use super::plural;
use super::prepare::Elided;
use crate::proto::TensorProto;
use crate::tensor_data::{self, TypedValues};
use crate::vocabulary;

/// A tensor's element type and dimensions.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Shape {
    /// `TensorProto.DataType` code.
    pub data_type: i32,
    /// Dimensions; none for a scalar.
    pub dims: Vec<i64>,
}

impl Shape {
    pub(super) fn of(tensor: &TensorProto) -> Self {
        Shape {
            data_type: tensor.data_type.unwrap_or(0),
            dims: tensor.dims.clone(),
        }
    }
}

impl fmt::Display for Shape {
    /// `1000×1000 float`, `scalar int64`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.dims.is_empty() {
            f.write_str("scalar")?;
        }
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str("×")?;
            }
            write!(f, "{d}")?;
        }
        match vocabulary::element_type_name(self.data_type) {
            Some(name) => write!(f, " {name}"),
            None => write!(f, " (data type {})", self.data_type),
        }
    }
}

/// The largest absolute difference between two values of a tensor.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum MaxAbsDiff {
    /// For floating-point types (narrow ones too); NaN when a value became
    /// or stopped being NaN.
    Float(f64),
    /// For integer types (and `bool`).
    Int(u128),
}

impl fmt::Display for MaxAbsDiff {
    /// Floats to 6 significant digits, the shortest way (`0.02`, `1e-7`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MaxAbsDiff::Int(d) => write!(f, "{d}"),
            MaxAbsDiff::Float(d) => {
                let rounded: f64 = format!("{d:.5e}").parse().unwrap_or(d);
                // Debug writes the shortest digits, with an exponent for
                // very small and very large values.
                let text = format!("{rounded:?}");
                f.write_str(text.strip_suffix(".0").unwrap_or(&text))
            }
        }
    }
}

/// How the values of a tensor found at the same place in both models
/// changed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TensorChange {
    /// Where it is: its name for an initializer of the main graph, else
    /// what holds it, `/`-separated: `loop_node.body/W` (a graph attribute
    /// of a node, named by its name or first output), `local.MyFn/c.value`
    /// (an attribute of a function's node), `c.value[1]` (an element of a
    /// list of tensors).
    pub place: String,
    /// Its type and dimensions in the old model.
    pub old: Shape,
    /// Its type and dimensions in the new model.
    pub new: Shape,
    /// When the shapes are the same, how many values changed and by how
    /// much at most (`None` for strings).
    pub values: Option<(usize, Option<MaxAbsDiff>)>,
    /// When the shapes are the same, the first [`FIRST_CHANGES_SHOWN`]
    /// changed values, in storage order.
    pub first_changes: Vec<ValueChange>,
}

impl TensorChange {
    /// The change from `old` to `new`, if any.
    pub(super) fn between(old: &Elided, new: &Elided) -> Option<Self> {
        let mut first_changes = Vec::new();
        let values = if old.shape == new.shape {
            let tally = compare(old.shape.data_type, &old.values, &new.values)?;
            if tally.changed == 0 {
                return None;
            }
            first_changes = tally
                .first
                .into_iter()
                .map(|(index, old_text, new_text)| ValueChange {
                    position: position(&old.shape.dims, index),
                    old: old_text,
                    new: new_text,
                })
                .collect();
            Some((tally.changed, tally.max))
        } else {
            None
        };
        Some(TensorChange {
            place: old.place.clone(),
            old: old.shape.clone(),
            new: new.shape.clone(),
            values,
            first_changes,
        })
    }
}

impl fmt::Display for TensorChange {
    /// `W: 1000×1000 float, 37 values changed, max abs diff 0.02`, then one
    /// line per listed change, `  W[3,17]: -0.14128697 → 0.0`, and
    /// `  ... 34 more` when there are more; or `W: 4×8 float → 8×8 float`
    /// when the shape or type changed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.old)?;
        let Some((changed, max)) = self.values else {
            return write!(f, " → {}", self.new);
        };
        write!(f, ", {changed} {} changed", plural(changed, "value"))?;
        if let Some(max) = max {
            write!(f, ", max abs diff {max}")?;
        }
        for change in &self.first_changes {
            write!(f, "\n  {}", self.place)?;
            if !change.position.is_empty() {
                let indices: Vec<String> = change.position.iter().map(usize::to_string).collect();
                write!(f, "[{}]", indices.join(","))?;
            }
            write!(f, ": {} → {}", change.old, change.new)?;
        }
        if changed > self.first_changes.len() {
            write!(f, "\n  ... {} more", changed - self.first_changes.len())?;
        }
        Ok(())
    }
}

/// The changed values a [`TensorChange`] lists, the first ones in storage
/// order: enough to find a change without flooding the summary.
pub const FIRST_CHANGES_SHOWN: usize = 3;

/// One value that changed, at its position.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValueChange {
    /// Its position, one index per dimension (none for a scalar).
    pub position: Vec<usize>,
    /// The old value, as printed (`-0.14128697`, `3`, `"a"`).
    pub old: String,
    /// The new value.
    pub new: String,
}

/// How the entries of two lists of values of the same type and length
/// differ: how many, by how much at most, and the first ones.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub(crate) changed: usize,
    pub(crate) max: Option<MaxAbsDiff>,
    /// Flat indices and texts of the first [`FIRST_CHANGES_SHOWN`] changes.
    pub(crate) first: Vec<(usize, String, String)>,
}

impl Tally {
    /// Counts the pairs that differ (by `differs`), keeping the first ones
    /// as `text` writes them; `distance` is told of each.
    fn of<T>(
        old: &[T],
        new: &[T],
        differs: impl Fn(&T, &T) -> bool,
        text: impl Fn(&T) -> String,
        mut distance: impl FnMut(&T, &T),
    ) -> Tally {
        let mut tally = Tally::default();
        for (i, (a, b)) in old.iter().zip(new).enumerate() {
            if differs(a, b) {
                tally.changed += 1;
                distance(a, b);
                if tally.first.len() < FIRST_CHANGES_SHOWN {
                    tally.first.push((i, text(a), text(b)));
                }
            }
        }
        tally
    }

    /// With floats, which differ when their bits do.
    fn floats<T: Copy + Into<f64>>(old: &[T], new: &[T], text: impl Fn(&T) -> String) -> Tally {
        let mut max: Option<f64> = None;
        let mut tally = Tally::of(
            old,
            new,
            |&a, &b| a.into().to_bits() != b.into().to_bits(),
            text,
            |&a, &b| {
                let d = (a.into() - b.into()).abs();
                max = Some(match max {
                    Some(m) if m.is_nan() || d.is_nan() => f64::NAN,
                    Some(m) => m.max(d),
                    None => d,
                });
            },
        );
        tally.max = max.map(MaxAbsDiff::Float);
        tally
    }

    /// With integers.
    fn ints<T: Copy + Into<i128> + ToString>(old: &[T], new: &[T]) -> Tally {
        let mut max: Option<u128> = None;
        let mut tally = Tally::of(
            old,
            new,
            |&a, &b| a.into() != b.into(),
            T::to_string,
            |&a, &b| {
                let d = a.into().abs_diff(b.into());
                max = Some(max.map_or(d, |m| m.max(d)));
            },
        );
        tally.max = max.map(MaxAbsDiff::Int);
        tally
    }
}

/// How the entries of `old` and `new` (same type and length) differ;
/// `None` if they cannot be compared. Floats differ when their bits do.
pub(crate) fn compare(data_type: i32, old: &TypedValues, new: &TypedValues) -> Option<Tally> {
    if old.len() != new.len() {
        return None;
    }
    Some(match (old, new) {
        (TypedValues::Int32(a), TypedValues::Int32(b))
            if tensor_data::is_narrow_float(data_type) =>
        {
            let value = |bits: i32| {
                u32::try_from(bits)
                    .ok()
                    .and_then(|bits| tensor_data::bits_to_f64(data_type, bits))
                    .unwrap_or(f64::NAN)
            };
            let a: Vec<f64> = a.iter().map(|&x| value(x)).collect();
            let b: Vec<f64> = b.iter().map(|&x| value(x)).collect();
            Tally::floats(&a, &b, |x| format!("{x:?}"))
        }
        (TypedValues::Int32(a), TypedValues::Int32(b)) => Tally::ints(a, b),
        (TypedValues::Int64(a), TypedValues::Int64(b)) => Tally::ints(a, b),
        (TypedValues::Uint64(a), TypedValues::Uint64(b)) => Tally::ints(a, b),
        (TypedValues::Float(a), TypedValues::Float(b)) => Tally::floats(a, b, |x| format!("{x:?}")),
        (TypedValues::Double(a), TypedValues::Double(b)) => {
            Tally::floats(a, b, |x| format!("{x:?}"))
        }
        (TypedValues::Bytes(a), TypedValues::Bytes(b)) => Tally::of(
            a,
            b,
            |a, b| a != b,
            |x| format!("{:?}", String::from_utf8_lossy(x)),
            |_, _| {},
        ),
        _ => return None,
    })
}

/// The position of flat index `index` in a tensor of `dims` (row-major).
pub(crate) fn position(dims: &[i64], mut index: usize) -> Vec<usize> {
    let mut position = vec![0; dims.len()];
    for (p, &d) in position.iter_mut().zip(dims).rev() {
        let d = usize::try_from(d).unwrap_or(0).max(1);
        *p = index % d;
        index /= d;
    }
    position
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_row_major_and_the_rest_is_counted() {
        assert_eq!(position(&[64, 128], 3 * 128 + 17), [3, 17]);
        assert_eq!(position(&[2, 3, 4], 23), [1, 2, 3]);
        assert!(position(&[], 0).is_empty());
        // 0.0 stays, 1.0 to 9.0 change sign.
        let old = TypedValues::Float((0..10).map(|i| i as f32).collect());
        let new = TypedValues::Float((0..10).map(|i| -(i as f32)).collect());
        let tally = compare(1, &old, &new).unwrap();
        assert_eq!(tally.changed, 10, "-0.0 is another value than 0.0");
        let old = TypedValues::Float((1..11).map(|i| i as f32).collect());
        let new = TypedValues::Float(
            (1..11)
                .map(|i| if i == 1 { 1.0 } else { -(i as f32) })
                .collect(),
        );
        let tally = compare(1, &old, &new).unwrap();
        assert_eq!(tally.changed, 9);
        assert_eq!(
            tally.first,
            [
                (1, "2.0".into(), "-2.0".into()),
                (2, "3.0".into(), "-3.0".into()),
                (3, "4.0".into(), "-4.0".into())
            ]
        );
        let change = TensorChange {
            place: "W".into(),
            old: Shape {
                data_type: 1,
                dims: vec![10],
            },
            new: Shape {
                data_type: 1,
                dims: vec![10],
            },
            values: Some((tally.changed, tally.max)),
            first_changes: vec![ValueChange {
                position: vec![1],
                old: "2.0".into(),
                new: "-2.0".into(),
            }],
        };
        assert_eq!(
            change.to_string(),
            "W: 10 float, 9 values changed, max abs diff 20\n  W[1]: 2.0 → -2.0\n  ... 8 more"
        );
    }

    #[test]
    fn max_abs_diff_is_short() {
        assert_eq!(MaxAbsDiff::Float(0.019999995827674866).to_string(), "0.02");
        assert_eq!(MaxAbsDiff::Float(2.0).to_string(), "2");
        assert_eq!(MaxAbsDiff::Float(1e-7).to_string(), "1e-7");
        assert_eq!(MaxAbsDiff::Float(3.0000004e20).to_string(), "3e20");
        assert_eq!(MaxAbsDiff::Float(f64::NAN).to_string(), "NaN");
        assert_eq!(MaxAbsDiff::Int(3).to_string(), "3");
    }
}
