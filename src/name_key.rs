//! Names compared without handing an empty one to `memcmp`, for `check`,
//! `infer` and the operator registry. An empty string's pointer is
//! dangling (`0x1`, for `String::new()` and the literal `""` alike), and
//! glibc's AVX-512 `memcmp` reads its operands with a masked load even for
//! a length of 0: at an unmapped address the processor suppresses the
//! fault in microcode, about 280 ns a call on the AMD EPYC the benchmarks
//! run on, against 1 ns for a comparison of two short names. The default
//! domain is the empty string, so every lookup of a node's operator by
//! `(domain, op)` paid it; [`same`] and [`NameKey`] decide an empty name by
//! its length.
//!
//! They compare exactly as `==` on `str` does.

use std::hash::{Hash, Hasher};

use crate::proto::{FunctionProto, NodeProto};

/// Whether `a` and `b` are the same string (`a == b`), without calling
/// `memcmp` when they are empty.
#[inline]
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a.as_bytes() == b.as_bytes())
}

/// A name as a map's key (or part of one), equal to another by [`same`],
/// hashed as the `str`.
#[derive(Clone, Copy, Debug, Eq)]
pub(crate) struct NameKey<'a>(pub(crate) &'a str);

impl PartialEq for NameKey<'_> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        same(self.0, other.0)
    }
}

impl Hash for NameKey<'_> {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// A function of a model's key: its domain, name and overload.
pub(crate) type FunctionKey<'m> = (NameKey<'m>, NameKey<'m>, NameKey<'m>);

/// The key `function` is called by.
pub(crate) fn function_key(function: &FunctionProto) -> FunctionKey<'_> {
    (
        NameKey(function.domain.as_deref().unwrap_or("")),
        NameKey(function.name.as_deref().unwrap_or("")),
        NameKey(function.overload.as_deref().unwrap_or("")),
    )
}

/// The key of the function `node` calls: its domain, operator and
/// overload.
pub(crate) fn callee_key(node: &NodeProto) -> FunctionKey<'_> {
    (
        NameKey(node.domain.as_deref().unwrap_or("")),
        NameKey(node.op_type.as_deref().unwrap_or("")),
        NameKey(node.overload.as_deref().unwrap_or("")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_same_exactly_when_equal() {
        let (owned, empty) = (String::from("Relu"), String::new());
        let names = [
            "",
            empty.as_str(),
            "a",
            "b",
            "Relu",
            owned.as_str(),
            "Rel",
            "Relu ",
            "ai.onnx",
            "ai.onnx.ml",
            "é",
            "e",
        ];
        for a in names {
            for b in names {
                assert_eq!(same(a, b), a == b, "{a:?} against {b:?}");
                assert_eq!(NameKey(a) == NameKey(b), a == b, "{a:?} against {b:?}");
            }
        }
    }

    #[test]
    fn keys_find_what_str_keys_find() {
        let mut map = foldhash::HashMap::default();
        for (i, name) in ["", "Add", "ai.onnx", "Ad", "add"].into_iter().enumerate() {
            map.insert((NameKey(name), NameKey("")), i);
        }
        assert_eq!(map.len(), 5);
        let empty = String::new();
        assert_eq!(map.get(&(NameKey(&empty), NameKey(""))), Some(&0));
        assert_eq!(map.get(&(NameKey("Add"), NameKey(&empty))), Some(&1));
        assert_eq!(map.get(&(NameKey("Ad"), NameKey(""))), Some(&3));
        assert_eq!(map.get(&(NameKey("Add"), NameKey("a"))), None);
        assert_eq!(map.get(&(NameKey("ADD"), NameKey(""))), None);
    }
}
