// The keywords of the ONNX textual syntax, as the grammar colours them.
//
// The same tables live in the Rust sources (src/vocabulary/words.rs); the test
// test/words.test.mjs reads them from there and fails when the two differ,
// so a new element type cannot be forgotten here.

/** Element type names (`float`, `int64`, ...): `ELEMENT_TYPES` in src/vocabulary/words.rs. */
export const ELEMENT_TYPES = [
  'float', 'uint8', 'int8', 'uint16', 'int16', 'int32', 'int64', 'string', 'bool',
  'float16', 'double', 'uint32', 'uint64', 'complex64', 'complex128', 'bfloat16',
  'float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'uint4', 'int4',
  'float4e2m1', 'float8e8m0', 'uint2', 'int2', 'float6e2m3', 'float6e3m2',
];

/** Attribute type names (`int`, `floats`, `graph`, ...): `ATTRIBUTE_TYPES` in src/vocabulary/words.rs. */
export const ATTRIBUTE_TYPES = [
  'float', 'int', 'string', 'tensor', 'graph', 'sparse_tensor', 'type_proto',
  'floats', 'ints', 'strings', 'tensors', 'graphs', 'sparse_tensors', 'type_protos',
];

/** The words that start a type other than a tensor type: `TYPE_KEYWORDS` in src/vocabulary/words.rs. */
export const TYPE_KEYWORDS = ['seq', 'map', 'optional', 'sparse_tensor', 'opaque'];

/** Identifiers with a meaning of their own in annotation values (src/parser/annotation.rs). */
export const VALUE_KEYWORDS = ['unset', 'true', 'false'];
