//! Tensor constants and sparse tensor constants.
//!
//! The main syntax says: element type, dims, name, and the elements, which
//! the parser stores in the typed field of the element type
//! ([`crate::tensor_data::typed_field`]), or external data (`= ["k": "v"]`).
//! Everything else goes into the tensor's annotation: `raw: true` when the
//! elements were packed in `raw_data` (and unpack exactly), `raw_data:
//! b"..."` when they cannot be shown as elements, the other typed fields,
//! `data_type` when it has no name, `segment`, `data_location`,
//! `doc_string`, `metadata_props`, and `name: unset` for an initializer
//! without a name.
//!
//! A tensor is printed from its IR or from a view of its encoding
//! ([`TensorFields`]); the elements of float and double `raw_data` are
//! formatted from their little-endian bytes, with no unpacked copy.

use super::annotation::{self, Place};
use super::annotation_values::{set_fields, Ann, Field, UNSET};
use super::lists::VALUES_PER_LINE;
use super::number_text::PrintedFloat;
use super::sink::Sink;
use crate::decode::TensorView;
use crate::proto::{SparseTensorProto, TensorProto};
use crate::tensor_data::{self, RawFloats, TypedField, TypedValues};
use crate::vocabulary;

/// Where a tensor constant is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum TensorPlace {
    /// In a graph's initializer list: `type name = {...}`, the name required.
    Initializer,
    /// As a value (attribute, sparse tensor part, annotation): `type [name] {...}`.
    Value,
}

/// Elements of one typed field, or of `raw_data`, borrowed.
#[derive(Clone, Copy)]
pub(crate) enum Elements<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    U64(&'a [u64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Str(&'a [Vec<u8>]),
    /// Floats as the encoding holds them (little-endian).
    LeF32(&'a [[u8; 4]]),
    /// Doubles as the encoding holds them (little-endian).
    LeF64(&'a [[u8; 8]]),
}

impl<'a> Elements<'a> {
    fn of_field(t: &'a TensorProto, field: TypedField) -> Self {
        match field {
            TypedField::Int32Data => Elements::I32(&t.int32_data),
            TypedField::Int64Data => Elements::I64(&t.int64_data),
            TypedField::Uint64Data => Elements::U64(&t.uint64_data),
            TypedField::FloatData => Elements::F32(&t.float_data),
            TypedField::DoubleData => Elements::F64(&t.double_data),
            TypedField::StringData => Elements::Str(&t.string_data),
        }
    }

    fn of_values(values: &'a TypedValues) -> Self {
        match values {
            TypedValues::Int32(v) => Elements::I32(v),
            TypedValues::Int64(v) => Elements::I64(v),
            TypedValues::Uint64(v) => Elements::U64(v),
            TypedValues::Float(v) => Elements::F32(v),
            TypedValues::Double(v) => Elements::F64(v),
            TypedValues::Bytes(v) => Elements::Str(v),
        }
    }

    /// The elements of `raw_data` holding `count` elements of
    /// `data_type`, borrowed when they are floats or doubles.
    fn of_raw(data_type: i32, raw: &'a [u8], count: usize) -> Option<Self> {
        match tensor_data::raw_floats(data_type, raw, count)? {
            RawFloats::F32(v) => Some(Elements::LeF32(v)),
            RawFloats::F64(v) => Some(Elements::LeF64(v)),
        }
    }

    fn len(self) -> usize {
        match self {
            Elements::I32(v) => v.len(),
            Elements::I64(v) => v.len(),
            Elements::U64(v) => v.len(),
            Elements::F32(v) => v.len(),
            Elements::F64(v) => v.len(),
            Elements::Str(v) => v.len(),
            Elements::LeF32(v) => v.len(),
            Elements::LeF64(v) => v.len(),
        }
    }

    fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The first `n` elements (all of them for `None`), and how many are
    /// left out: [`crate::Printer::elide`].
    fn head(self, n: Option<usize>) -> (Self, usize) {
        fn split<'a, T>(
            v: &'a [T],
            n: Option<usize>,
            wrap: fn(&'a [T]) -> Elements<'a>,
        ) -> (Elements<'a>, usize) {
            let shown = n.map_or(v.len(), |n| n.min(v.len()));
            (wrap(&v[..shown]), v.len() - shown)
        }
        match self {
            Elements::I32(v) => split(v, n, Elements::I32),
            Elements::I64(v) => split(v, n, Elements::I64),
            Elements::U64(v) => split(v, n, Elements::U64),
            Elements::F32(v) => split(v, n, Elements::F32),
            Elements::F64(v) => split(v, n, Elements::F64),
            Elements::Str(v) => split(v, n, Elements::Str),
            Elements::LeF32(v) => split(v, n, Elements::LeF32),
            Elements::LeF64(v) => split(v, n, Elements::LeF64),
        }
    }

    /// Whether the printed elements read back as exactly these values.
    fn exact(self) -> bool {
        match self {
            Elements::F32(v) => all_have_text(v.iter().copied()),
            Elements::F64(v) => all_have_text(v.iter().copied()),
            Elements::LeF32(v) => all_have_text(v.iter().map(|b| f32::from_le_bytes(*b))),
            Elements::LeF64(v) => all_have_text(v.iter().map(|b| f64::from_le_bytes(*b))),
            _ => true,
        }
    }
}

/// Whether every one of `values` has an exact text. Most lists have no
/// NaN at all, which a scan without early exit finds fastest (on vectors).
fn all_have_text<F: PrintedFloat>(values: impl Iterator<Item = F> + Clone) -> bool {
    !values.clone().fold(false, |nan, x| nan | x.is_nan()) || { values }.all(|x| x.has_text())
}

const TYPED_FIELDS: [(TypedField, &str); 6] = [
    (TypedField::FloatData, "float_data"),
    (TypedField::Int32Data, "int32_data"),
    (TypedField::StringData, "string_data"),
    (TypedField::Int64Data, "int64_data"),
    (TypedField::DoubleData, "double_data"),
    (TypedField::Uint64Data, "uint64_data"),
];

fn field_ann(t: &TensorProto, field: TypedField) -> Option<Ann<'_>> {
    match field {
        TypedField::FloatData => t.float_data.ann(),
        TypedField::Int32Data => t.int32_data.ann(),
        TypedField::StringData => t.string_data.ann(),
        TypedField::Int64Data => t.int64_data.ann(),
        TypedField::DoubleData => t.double_data.ann(),
        TypedField::Uint64Data => t.uint64_data.ann(),
    }
}

/// The number of elements `dims` describe (1 for a scalar).
fn element_count(dims: &[i64]) -> Option<usize> {
    dims.iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
}

/// What [`tensor_constant`] prints of a tensor: a `TensorProto`, or a
/// [`TensorView`] of its encoding, which holds only the common fields
/// (the others are absent from the tensors it reads).
pub(crate) trait TensorFields {
    fn name(&self) -> Option<&str>;
    fn data_type(&self) -> Option<i32>;
    fn dims(&self) -> &[i64];
    fn raw_data(&self) -> Option<&[u8]>;
    /// The elements of one typed field.
    fn elements(&self, field: TypedField) -> Elements<'_>;
    /// One typed field as an annotation value, if it is set.
    fn field_ann(&self, field: TypedField) -> Option<Ann<'_>>;
    /// The tensor's IR, for the fields a view never holds.
    fn proto(&self) -> Option<&TensorProto>;
}

impl TensorFields for TensorProto {
    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    fn data_type(&self) -> Option<i32> {
        self.data_type
    }

    fn dims(&self) -> &[i64] {
        &self.dims
    }

    fn raw_data(&self) -> Option<&[u8]> {
        self.raw_data.as_deref()
    }

    fn elements(&self, field: TypedField) -> Elements<'_> {
        Elements::of_field(self, field)
    }

    fn field_ann(&self, field: TypedField) -> Option<Ann<'_>> {
        field_ann(self, field)
    }

    fn proto(&self) -> Option<&TensorProto> {
        Some(self)
    }
}

impl TensorFields for TensorView<'_> {
    fn name(&self) -> Option<&str> {
        self.name
    }

    fn data_type(&self) -> Option<i32> {
        self.data_type
    }

    fn dims(&self) -> &[i64] {
        &self.dims
    }

    fn raw_data(&self) -> Option<&[u8]> {
        self.raw_data
    }

    fn elements(&self, field: TypedField) -> Elements<'_> {
        match field {
            TypedField::FloatData => Elements::LeF32(tensor_data::byte_groups(self.float_data)),
            TypedField::Int32Data => Elements::I32(&self.int32_data),
            TypedField::Int64Data => Elements::I64(&self.int64_data),
            TypedField::Uint64Data => Elements::U64(&[]),
            TypedField::DoubleData => Elements::LeF64(tensor_data::byte_groups(self.double_data)),
            TypedField::StringData => Elements::Str(&[]),
        }
    }

    fn field_ann(&self, field: TypedField) -> Option<Ann<'_>> {
        match field {
            TypedField::FloatData => {
                packed_ann(self.float_data, |b| Ann::F32(f32::from_le_bytes(b)))
            }
            TypedField::DoubleData => {
                packed_ann(self.double_data, |b| Ann::F64(f64::from_le_bytes(b)))
            }
            TypedField::Int32Data => self.int32_data.ann(),
            TypedField::Int64Data => self.int64_data.ann(),
            TypedField::Uint64Data | TypedField::StringData => None,
        }
    }

    fn proto(&self) -> Option<&TensorProto> {
        None
    }
}

/// A packed run of little-endian numbers of `N` bytes as an annotation
/// list of `value`s, when it holds any.
fn packed_ann<const N: usize>(run: &[u8], value: fn([u8; N]) -> Ann<'static>) -> Option<Ann<'_>> {
    let numbers = tensor_data::byte_groups::<N>(run);
    (!numbers.is_empty()).then(|| Ann::List(numbers.iter().map(|&b| value(b)).collect()))
}

/// Writes a tensor constant with its annotation.
pub(crate) fn tensor_constant(s: &mut Sink<'_>, t: &impl TensorFields, place: TensorPlace) {
    let data_type = t.data_type().unwrap_or(0);
    let type_name = vocabulary::element_type_name(data_type);
    let canonical = type_name.and_then(|_| tensor_data::typed_field(data_type));
    let external = t.proto().filter(|t| {
        t.data_location == Some(1)
            && !t.external_data.is_empty()
            && t.external_data
                .iter()
                .all(|e| e.key.is_some() && e.value.is_some())
    });
    let raw = match (t.raw_data(), canonical) {
        (Some(raw), Some(field)) if external.is_none() && t.elements(field).is_empty() => {
            element_count(t.dims()).map(|count| (raw, count))
        }
        _ => None,
    };
    // Floats are formatted from the raw bytes; other elements unpacked.
    let borrowed = raw.and_then(|(raw, count)| Elements::of_raw(data_type, raw, count));
    let unpacked = match (raw, borrowed) {
        (Some((raw, count)), None) => tensor_data::unpack_raw(data_type, raw, count),
        _ => None,
    };
    // Raw elements that have no exact text (NaN payloads) keep their bytes
    // in a `raw_data` annotation instead.
    let raw_values = borrowed
        .or_else(|| unpacked.as_ref().map(Elements::of_values))
        .filter(|values| values.exact());

    let mut entries = Vec::new();
    if place == TensorPlace::Initializer && t.name().is_none() {
        entries.push(("name", UNSET));
    }
    if type_name.is_none() {
        let data_type = t.data_type().map(|d| Ann::Int(i64::from(d)));
        entries.push(("data_type", data_type.unwrap_or(UNSET)));
    }
    if let Some(p) = t.proto() {
        set_fields!(entries, p, segment);
    }
    for (field, key) in TYPED_FIELDS {
        let shown = Some(field) == canonical && external.is_none() && raw_values.is_none();
        if shown && t.elements(field).exact() {
            continue;
        }
        if let Some(values) = t.field_ann(field) {
            entries.push((key, values));
        }
    }
    if raw_values.is_some() {
        entries.push(("raw", Ann::Ident("true")));
    } else if let Some(raw) = t.raw_data() {
        entries.push(("raw_data", Ann::Str(raw)));
    }
    if let Some(p) = t.proto() {
        if external.is_none() {
            set_fields!(entries, p, external_data, data_location);
        }
        set_fields!(entries, p, doc_string, metadata_props);
    }
    annotation::annotation(s, &entries, Place::Inline);

    s.text(type_name.unwrap_or("float"));
    if !t.dims().is_empty() {
        s.text("[");
        for (i, d) in t.dims().iter().enumerate() {
            if i > 0 {
                s.text(",");
            }
            s.int(*d);
        }
        s.text("]");
    }
    match place {
        TensorPlace::Initializer => {
            s.text(" ");
            s.name(t.name().unwrap_or(""));
            s.text(" =");
        }
        TensorPlace::Value => match t.name() {
            None => {}
            Some(name) if s.compat() => {
                if vocabulary::is_identifier(name) {
                    s.text(" ");
                    s.text(name);
                } else if !name.is_empty() {
                    s.report(format!(
                        "tensor name {name:?} dropped (it would need quotes)"
                    ));
                }
            }
            Some(name) => {
                s.text(" ");
                s.name(name);
            }
        },
    }
    if let Some(t) = external {
        if place == TensorPlace::Value {
            s.text(" =");
        }
        s.text(" [");
        s.list(&t.external_data, |s, _, e| {
            s.quoted(e.key.as_deref().unwrap_or(""));
            s.text(": ");
            s.quoted(e.value.as_deref().unwrap_or(""));
        });
        s.text("]");
        return;
    }
    let elements = match (raw_values, canonical) {
        (Some(values), _) => Some(values),
        (None, Some(field)) => Some(t.elements(field)),
        (None, None) => None,
    };
    s.text(" {");
    if let Some(elements) = elements {
        // Short lists stay on the line; long ones take lines of
        // `VALUES_PER_LINE` values, one level deeper, with `}` on a line of
        // its own.
        let shown = s
            .opts
            .elide
            .map_or(elements.len(), |n| n.min(elements.len()));
        if shown <= VALUES_PER_LINE {
            print_elements(s, data_type, elements, false);
        } else {
            s.indent();
            s.newline();
            print_elements(s, data_type, elements, true);
            s.dedent();
            s.newline();
        }
    }
    s.text("}");
}

/// Writes the elements separated by commas, filling lines when `fill`.
fn print_elements(s: &mut Sink<'_>, data_type: i32, elements: Elements<'_>, fill: bool) {
    let (elements, elided) = elements.head(s.opts.elide);
    match elements {
        Elements::I32(v) => {
            if s.opts.narrow_float_decimals
                && !s.compat()
                && tensor_data::is_narrow_float(data_type)
            {
                s.fill(fill, v, |s, _, x| narrow_float(s, data_type, *x));
            } else {
                s.fill_numbers(fill, v);
            }
        }
        Elements::I64(v) => s.fill_numbers(fill, v),
        Elements::U64(v) => s.fill_numbers(fill, v),
        Elements::F32(v) => s.fill_numbers(fill, v),
        Elements::F64(v) => s.fill_numbers(fill, v),
        Elements::Str(v) => s.fill(fill, v, |s, _, x| s.string(x)),
        Elements::LeF32(v) => s.fill_numbers(fill, v),
        Elements::LeF64(v) => s.fill_numbers(fill, v),
    }
    // The marker is one token for the lexer, which the parser refuses.
    if elided > 0 {
        if !elements.is_empty() {
            s.text(", ");
        }
        s.text("... ");
        s.int(elided as u64);
        s.text(" more");
    }
}

/// A narrow float element: the shortest decimal that converts back to the
/// same bit pattern, or the bit pattern itself (an integer literal) when no
/// decimal does.
fn narrow_float(s: &mut Sink<'_>, data_type: i32, bits: i32) {
    if let Ok(pattern) = u32::try_from(bits) {
        if let Some(value) = tensor_data::bits_to_f64(data_type, pattern) {
            if value.is_nan() || value.is_infinite() {
                let text = if value.is_nan() {
                    if value.is_sign_negative() {
                        "-nan"
                    } else {
                        "nan"
                    }
                } else if value > 0.0 {
                    "inf"
                } else {
                    "-inf"
                };
                let back = text
                    .parse::<f64>()
                    .ok()
                    .and_then(|v| tensor_data::float_to_bits(data_type, v));
                if back == Some(pattern) {
                    s.text(text);
                    return;
                }
            } else {
                for precision in 0..17 {
                    let candidate = format!("{value:.precision$e}");
                    let Ok(parsed) = candidate.parse::<f64>() else {
                        continue;
                    };
                    if tensor_data::float_to_bits(data_type, parsed) == Some(pattern) {
                        s.float(parsed);
                        return;
                    }
                }
            }
        }
    }
    s.int(i64::from(bits));
}

/// Writes a sparse tensor constant (an extension):
/// `sparse_tensor[dims] {values: ..., indices: ...}`.
pub(crate) fn sparse_constant(s: &mut Sink<'_>, t: &SparseTensorProto) {
    s.text("sparse_tensor[");
    s.list(&t.dims, |s, _, d| s.int(*d));
    s.text("] {");
    let mut first = true;
    if let Some(values) = &t.values {
        s.text("values: ");
        s.at("values", |s| tensor_constant(s, values, TensorPlace::Value));
        first = false;
    }
    if let Some(indices) = &t.indices {
        if !first {
            s.text(", ");
        }
        s.text("indices: ");
        s.at("indices", |s| {
            tensor_constant(s, indices, TensorPlace::Value)
        });
    }
    s.text("}");
}

/// [`crate::Print`] for a tensor alone.
pub(crate) fn bare_tensor(s: &mut Sink<'_>, t: &TensorProto) {
    tensor_constant(s, t, TensorPlace::Value);
}

/// [`crate::Print`] for a sparse tensor alone (nothing in compat mode,
/// which has no syntax for it).
pub(crate) fn bare_sparse(s: &mut Sink<'_>, t: &SparseTensorProto) {
    if s.compat() {
        s.report("sparse tensor dropped (the reference grammar has no sparse tensor constants)");
    } else {
        sparse_constant(s, t);
    }
}

#[cfg(test)]
mod tests {
    use crate::proto::TensorProto;

    /// A float tensor whose values are `raw_data`.
    fn raw_floats(values: &[f32]) -> TensorProto {
        TensorProto {
            data_type: Some(1),
            dims: vec![values.len() as i64],
            raw_data: Some(values.iter().flat_map(|x| x.to_le_bytes()).collect()),
            ..Default::default()
        }
    }

    #[test]
    fn raw_floats_print_as_numbers_unless_a_nan_has_a_payload() {
        let plain = crate::to_text(&raw_floats(&[1.5, f32::NAN, -f32::NAN]));
        assert_eq!(plain, "@<raw: true> float[3] {1.5, nan, -nan}");
        let payload = f32::from_bits(0x7fc0_0001);
        let kept = crate::to_text(&raw_floats(&[1.5, payload]));
        assert!(kept.contains("raw_data"), "{kept}");
    }

    /// The prints from bytes, held against the decoded model's by the fuzz
    /// oracle (`roundtrip`, with the `smith` feature).
    #[cfg(feature = "smith")]
    mod from_bytes {
        use crate::decode::{NodeView, TensorView};
        use crate::proto::{AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto};
        use crate::roundtrip::binary_prints_as_decoded;
        use prost::Message as _;

        /// Bytes of `len` cycling through floats of every kind, as `f32`s
        /// from `start` (a byte offset into their pattern), so that doubles
        /// and other widths see other bit patterns.
        fn special_bytes(len: usize, start: usize) -> Vec<u8> {
            let specials = [
                1.5f32,
                -0.0,
                0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                -f32::NAN,
                f32::from_bits(1),
                f32::MAX,
                -2.9799721e-05,
                0.1,
                1e22,
            ];
            let pattern: Vec<u8> = specials.iter().flat_map(|f| f.to_le_bytes()).collect();
            (0..len)
                .map(|i| pattern[(start + i) % pattern.len()])
                .collect()
        }

        /// A `Constant` node holding `t`.
        fn constant(t: TensorProto) -> NodeProto {
            NodeProto {
                output: vec![format!("c{}", t.name.as_deref().unwrap_or(""))],
                op_type: Some("Constant".into()),
                attribute: vec![AttributeProto {
                    name: Some("value".into()),
                    r#type: Some(4),
                    t: Some(Box::new(t)),
                    ..AttributeProto::default()
                }],
                ..NodeProto::default()
            }
        }

        /// A graph of `tensors` as initializers and as `Constant` nodes.
        fn graph_of(tensors: &[TensorProto]) -> GraphProto {
            GraphProto {
                name: Some("g".into()),
                initializer: tensors.to_vec(),
                node: tensors.iter().cloned().map(constant).collect(),
                ..GraphProto::default()
            }
        }

        /// A model of `tensors` as initializers and as `Constant` nodes,
        /// of its graph and of an `If` branch in it (read by a graph
        /// view).
        fn model_of(tensors: &[TensorProto]) -> Vec<u8> {
            let mut graph = graph_of(tensors);
            graph.node.push(NodeProto {
                op_type: Some("If".into()),
                attribute: vec![AttributeProto {
                    name: Some("then_branch".into()),
                    r#type: Some(5),
                    g: Some(Box::new(graph_of(tensors))),
                    ..AttributeProto::default()
                }],
                ..NodeProto::default()
            });
            ModelProto {
                graph: Some(graph),
                ..ModelProto::default()
            }
            .encode_to_vec()
        }

        #[test]
        fn tensors_read_from_their_encoding_print_as_their_ir() {
            let mut small = Vec::new();
            // Every element type (and unknown ones), raw data of lengths that
            // match the dims and that do not, and names of every length mod 4:
            // the raw data at every offset mod 4 (and 8) in the input.
            for data_type in 0..=30 {
                for count in [0, 1, 2, 3] {
                    for len in [0, 1, 2, 3, 4, 8, 12, 16, 24, 32] {
                        let name = "w".repeat(1 + small.len() % 8);
                        small.push(TensorProto {
                            name: Some(name),
                            data_type: Some(data_type),
                            dims: vec![count],
                            raw_data: Some(special_bytes(len, small.len())),
                            ..TensorProto::default()
                        });
                    }
                }
            }
            // Raw data and a typed field at once, typed floats (with NaN
            // payloads, or of another type), a scalar, no name, no type.
            let floats = |values: &[f32]| values.iter().flat_map(|f| f.to_le_bytes()).collect();
            let float_data = vec![1.5, -0.0, f32::NEG_INFINITY, f32::from_bits(0x7fc0_0001)];
            let rest = [
                TensorProto {
                    raw_data: Some(floats(&[1.0])),
                    float_data: vec![2.0],
                    ..TensorProto::default()
                },
                TensorProto {
                    float_data: float_data.clone(),
                    ..TensorProto::default()
                },
                TensorProto {
                    float_data: vec![0.5, f32::INFINITY],
                    ..TensorProto::default()
                },
                TensorProto {
                    float_data: float_data.clone(),
                    data_type: Some(7),
                    ..TensorProto::default()
                },
                TensorProto {
                    raw_data: Some(floats(&[f32::from_bits(0xffc0_0002)])),
                    ..TensorProto::default()
                },
                TensorProto {
                    data_type: Some(99),
                    float_data,
                    ..TensorProto::default()
                },
                // Typed integers and doubles, of their type and of another.
                TensorProto {
                    data_type: Some(6),
                    int32_data: vec![1, -2, i32::MIN, i32::MAX],
                    ..TensorProto::default()
                },
                TensorProto {
                    data_type: Some(7),
                    int64_data: vec![3, -1, i64::MIN],
                    ..TensorProto::default()
                },
                TensorProto {
                    data_type: Some(11),
                    double_data: vec![0.1, -0.0, f64::from_bits(0x7ff8_0000_0000_0001)],
                    ..TensorProto::default()
                },
                TensorProto {
                    int32_data: vec![7],
                    double_data: vec![2.5],
                    int64_data: vec![9],
                    ..TensorProto::default()
                },
            ];
            for mut t in rest {
                t.data_type = t.data_type.or(Some(1));
                t.name = Some("rest".into());
                small.push(t.clone());
                t.name = None;
                t.data_type = None;
                small.push(t);
            }
            for t in &small {
                assert!(TensorView::default().read(&t.encode_to_vec()), "{t:?}");
            }
            // Long lists, printed on two threads: segment edges, a list longer
            // than two segments, raw and typed.
            let long: Vec<TensorProto> = [4095, 4096, 4097, 16384, 16385, 40000]
                .into_iter()
                .enumerate()
                .flat_map(|(i, count)| {
                    let raw = TensorProto {
                        name: Some("l".repeat(i + 1)),
                        data_type: Some(1),
                        dims: vec![count / 2, 2],
                        raw_data: Some(special_bytes(8 * (count as usize / 2), i)),
                        ..TensorProto::default()
                    };
                    let typed = TensorProto {
                        raw_data: None,
                        float_data: (0..count).map(|k| k as f32 / 7.0).collect(),
                        dims: vec![count],
                        ..raw.clone()
                    };
                    [raw, typed]
                })
                .collect();
            for tensors in [&small, &long] {
                let bytes = model_of(tensors);
                let model = crate::decode_model(&bytes).unwrap();
                let branches = model.graph.unwrap().node.pop().unwrap().encode_to_vec();
                assert!(NodeView::default().read(&branches));
                binary_prints_as_decoded(&bytes).unwrap();
                // The command's print, streamed, is the print in memory.
                for printer in [crate::Printer::new(), crate::Printer::new().compat(true)] {
                    let mut out = Vec::new();
                    let dropped = printer
                        .write_binary_model(&bytes, &mut out)
                        .unwrap()
                        .unwrap();
                    let printed = printer.print_binary_model(&bytes).unwrap();
                    assert_eq!(
                        (String::from_utf8(out).unwrap(), dropped),
                        (printed.text, printed.dropped)
                    );
                }
            }
        }

        #[test]
        fn tensors_with_a_problem_fail_the_print_from_bytes_as_the_decoder_does() {
            let t = TensorProto {
                name: Some("w".into()),
                data_type: Some(1),
                dims: vec![3],
                raw_data: Some(special_bytes(12, 0)),
                ..TensorProto::default()
            };
            let bytes = model_of(&[t]);
            // Every cut of the input, and each byte changed in turn.
            for end in 0..bytes.len() {
                binary_prints_as_decoded(&bytes[..end]).unwrap();
            }
            for at in 0..bytes.len() {
                for value in [0x00, 0x80, 0xff, 0x0a, 0x22] {
                    let mut changed = bytes.clone();
                    changed[at] = value;
                    binary_prints_as_decoded(&changed).unwrap();
                }
            }
        }
    }
}
