//! The words of types: element type names, attribute type names, the
//! keywords of the other types, and which names can be written bare.

use crate::proto::attribute_proto::AttributeType;
use crate::proto::tensor_proto::DataType;

/// Element type names as the reference syntax spells them, with their
/// `TensorProto.DataType`. `UNDEFINED` has no name.
pub(crate) const ELEMENT_TYPES: &[(&str, DataType)] = &[
    ("float", DataType::Float),
    ("uint8", DataType::Uint8),
    ("int8", DataType::Int8),
    ("uint16", DataType::Uint16),
    ("int16", DataType::Int16),
    ("int32", DataType::Int32),
    ("int64", DataType::Int64),
    ("string", DataType::String),
    ("bool", DataType::Bool),
    ("float16", DataType::Float16),
    ("double", DataType::Double),
    ("uint32", DataType::Uint32),
    ("uint64", DataType::Uint64),
    ("complex64", DataType::Complex64),
    ("complex128", DataType::Complex128),
    ("bfloat16", DataType::Bfloat16),
    ("float8e4m3fn", DataType::Float8e4m3fn),
    ("float8e4m3fnuz", DataType::Float8e4m3fnuz),
    ("float8e5m2", DataType::Float8e5m2),
    ("float8e5m2fnuz", DataType::Float8e5m2fnuz),
    ("uint4", DataType::Uint4),
    ("int4", DataType::Int4),
    ("float4e2m1", DataType::Float4e2m1),
    ("float8e8m0", DataType::Float8e8m0),
    ("uint2", DataType::Uint2),
    ("int2", DataType::Int2),
    ("float6e2m3", DataType::Float6e2m3),
    ("float6e3m2", DataType::Float6e3m2),
];

/// Attribute type names used in `name: type = value` annotations.
pub(crate) const ATTRIBUTE_TYPES: &[(&str, AttributeType)] = &[
    ("float", AttributeType::Float),
    ("int", AttributeType::Int),
    ("string", AttributeType::String),
    ("tensor", AttributeType::Tensor),
    ("graph", AttributeType::Graph),
    ("sparse_tensor", AttributeType::SparseTensor),
    ("type_proto", AttributeType::TypeProto),
    ("floats", AttributeType::Floats),
    ("ints", AttributeType::Ints),
    ("strings", AttributeType::Strings),
    ("tensors", AttributeType::Tensors),
    ("graphs", AttributeType::Graphs),
    ("sparse_tensors", AttributeType::SparseTensors),
    ("type_protos", AttributeType::TypeProtos),
];

/// `seq(T)`, a sequence type.
pub(crate) const SEQ: &str = "seq";
/// `map(K, V)`, a map type.
pub(crate) const MAP: &str = "map";
/// `optional(T)`, an optional type.
pub(crate) const OPTIONAL: &str = "optional";
/// `sparse_tensor(T[dims])`, a sparse tensor type.
pub(crate) const SPARSE_TENSOR: &str = "sparse_tensor";
/// `opaque(domain, name)`, an opaque type.
pub(crate) const OPAQUE: &str = "opaque";

/// The keywords that start a type other than a tensor type.
pub(crate) const TYPE_KEYWORDS: &[&str] = &[SEQ, MAP, OPTIONAL, SPARSE_TENSOR, OPAQUE];

/// The `TensorProto.DataType` value named `name`, if it is an element type.
pub(crate) fn element_type_by_name(name: &str) -> Option<DataType> {
    ELEMENT_TYPES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, t)| t)
}

/// The name of element type `code`, if the syntax has one.
pub(crate) fn element_type_name(code: i32) -> Option<&'static str> {
    ELEMENT_TYPES
        .iter()
        .find(|(_, t)| *t as i32 == code)
        .map(|&(n, _)| n)
}

/// The `AttributeProto.AttributeType` value named `name`.
pub(crate) fn attribute_type_by_name(name: &str) -> Option<AttributeType> {
    ATTRIBUTE_TYPES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, t)| t)
}

/// The name of attribute type `code`, if the syntax has one.
pub(crate) fn attribute_type_name(code: i32) -> Option<&'static str> {
    ATTRIBUTE_TYPES
        .iter()
        .find(|(_, t)| *t as i32 == code)
        .map(|&(n, _)| n)
}

/// Whether `name` starts a type: an element type name or a type keyword.
pub(crate) fn starts_type(name: &str) -> bool {
    // Every value name is checked: most are ruled out by their length or
    // first byte before the tables are searched.
    let (lengths, firsts) = TYPE_WORD_SHAPES;
    let bytes = name.as_bytes();
    let plausible = bytes.len() < 64
        && lengths >> bytes.len() & 1 == 1
        && bytes
            .first()
            .is_some_and(|&b| b < 128 && firsts >> b & 1 == 1);
    plausible && (element_type_by_name(name).is_some() || TYPE_KEYWORDS.contains(&name))
}

/// The lengths (bit `n`: some type word is `n` bytes long) and first bytes
/// (bit `b`: some type word starts with byte `b`) of the words for which
/// [`starts_type`] holds.
const TYPE_WORD_SHAPES: (u64, u128) = type_word_shapes();

const fn type_word_shapes() -> (u64, u128) {
    let (mut lengths, mut firsts) = (0u64, 0u128);
    let mut i = 0;
    while i < ELEMENT_TYPES.len() + TYPE_KEYWORDS.len() {
        let word = if i < ELEMENT_TYPES.len() {
            ELEMENT_TYPES[i].0.as_bytes()
        } else {
            TYPE_KEYWORDS[i - ELEMENT_TYPES.len()].as_bytes()
        };
        lengths |= 1 << word.len();
        firsts |= 1 << word[0];
        i += 1;
    }
    (lengths, firsts)
}

/// Whether `text` can be written as a bare identifier (`[A-Za-z_][A-Za-z0-9_]*`);
/// anything else has to be quoted.
pub(crate) fn is_identifier(text: &str) -> bool {
    let bytes = text.as_bytes();
    if !matches!(bytes.first(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'_')) {
        return false;
    }
    // Every name printed is checked, most of them short: those byte by
    // byte through a table; longer ones 16 bytes at a time, with no branch
    // per byte, so that the compiler can use vector instructions, the last
    // chunk overlapping the one before.
    let Some(last) = bytes.last_chunk::<16>() else {
        return bytes
            .iter()
            .fold(true, |ok, &b| ok & CONTINUES_IDENTIFIER[usize::from(b)]);
    };
    let all_continue = |chunk: &[u8; 16]| {
        chunk
            .iter()
            .fold(true, |ok, &b| ok & continues_identifier(b))
    };
    bytes
        .chunks_exact(16)
        .all(|chunk| chunk.try_into().is_ok_and(&all_continue))
        && all_continue(last)
}

/// [`continues_identifier`] of every byte.
static CONTINUES_IDENTIFIER: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = continues_identifier(b as u8);
        b += 1;
    }
    table
};

/// `[A-Za-z0-9_]`, without branches.
const fn continues_identifier(b: u8) -> bool {
    ((b | 0x20).wrapping_sub(b'a') < 26) | (b.wrapping_sub(b'0') < 10) | (b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_type_but_undefined_has_a_unique_name() {
        for code in 1..=28 {
            assert!(
                element_type_name(code).is_some(),
                "no name for data type {code}"
            );
        }
        for (name, ty) in ELEMENT_TYPES {
            assert_eq!(element_type_by_name(name), Some(*ty));
        }
        assert_eq!(element_type_name(0), None);
    }

    #[test]
    fn type_words_and_only_they_start_types() {
        let words = ELEMENT_TYPES.iter().map(|(n, _)| *n);
        let is_word =
            |name: &str| words.clone().any(|w| w == name) || TYPE_KEYWORDS.contains(&name);
        for word in words.clone().chain(TYPE_KEYWORDS.iter().copied()) {
            assert!(starts_type(word), "{word}");
            let near = [
                word[1..].to_owned(),
                word[..word.len() - 1].to_owned(),
                format!("{word}_"),
                word.to_uppercase(),
            ];
            for name in &near {
                assert_eq!(starts_type(name), is_word(name), "{name}");
            }
        }
        for name in ["", "x", "input", "é", "f\u{0}", &"s".repeat(70)] {
            assert!(!starts_type(name), "{name}");
        }
    }

    #[test]
    fn identifiers_follow_the_reference_rule() {
        assert!(is_identifier("_x9"));
        assert!(!is_identifier("9x"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("/layer1/Conv_output_0"));
        assert!(!is_identifier("a.b"));
        assert!(!is_identifier("abcdefghijklmnopqé"));
        // Any byte, at any place in names shorter and longer than the
        // 16-byte chunks the check reads, against the rule byte by byte.
        let rule = |name: &[u8]| {
            name.first()
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
                && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        };
        // Short names are read through a table, longer ones in chunks, the
        // last overlapping the one before.
        for len in [1, 2, 15, 16, 17, 31, 32, 33, 40] {
            for at in [0, 1.min(len - 1), len / 2, len - 2.min(len), len - 1] {
                for byte in 0..=127u8 {
                    let mut name = vec![b'a'; len];
                    name[at] = byte;
                    let name = String::from_utf8(name).unwrap();
                    assert_eq!(is_identifier(&name), rule(name.as_bytes()), "{name:?}");
                }
                let mut name = "a".repeat(len);
                name.replace_range(at..=at, "é");
                assert!(!is_identifier(&name), "{name:?}");
            }
        }
    }
}
