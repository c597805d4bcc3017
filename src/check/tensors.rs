//! Tensor constants and declared shapes: a tensor's values fit its shape
//! (as many as its dimensions multiply to) and its element type (in the
//! field that type uses, each in range), and no dimension is negative.
//! Initializers, sparse initializers, tensors in attributes (function
//! attribute defaults too) and the shapes of value infos are checked.
//!
//! The IR spec defines a tensor as "a pair of sequences/lists (V, S) where
//! S is the shape of the tensor (a list of non-negative integers) and V is
//! a list of values with length equal to the product of the dimensions in
//! S" (`docs/IR.md`, Tensor Definition), its values of its element type.
//! A tensor with another number of values (or raw bytes), or a negative
//! dimension, is an error: onnx.checker refuses too few values and
//! negative dimensions, onnxruntime too many. A value outside its element
//! type's range, and a negative dimension in a declared type, break the
//! spec too but are warnings: onnx.checker, onnxruntime and onnx's
//! ReferenceEvaluator all accept them (they wrap the value; they read the
//! dimension as unknown, as old exporters meant `-1`), and an error needs
//! a runtime that refuses the model for it.

use super::findings::{function_subject, named_subject, Finding, Findings, Severity};
use super::model::{Body, Model, Site};
use crate::proto::tensor_proto::{DataLocation, DataType};
use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
use crate::proto::type_proto::Value as TypeValue;
use crate::proto::{
    AttributeProto, SparseTensorProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use crate::tensor_data::{raw_byte_len, typed_field, TypedField};

const TENSOR_SIZE: &str = "onnxtxt::check::tensor_size";
const TENSOR_FIELD: &str = "onnxtxt::check::tensor_field";
const TENSOR_VALUE: &str = "onnxtxt::check::tensor_value";

/// Where a tensor or type is, for messages: its IR path and how messages
/// name it, made only when something is reported (most tensors of a model
/// are fine).
#[derive(Clone, Copy)]
struct Place<'x> {
    path: &'x dyn Fn() -> String,
    subject: &'x dyn Fn() -> String,
}

impl<'x> Place<'x> {
    fn new(path: &'x dyn Fn() -> String, subject: &'x dyn Fn() -> String) -> Self {
        Place { path, subject }
    }

    fn path(&self) -> String {
        (self.path)()
    }

    fn subject(&self) -> String {
        (self.subject)()
    }
}

/// Checks the functions' attribute defaults and value infos (the walk
/// checks those of the graphs, [`check_body`], and the nodes',
/// [`check_node`]).
pub(crate) fn check_functions(model: &Model<'_>, findings: &mut Findings) {
    for (index, function) in model.proto.functions.iter().enumerate() {
        if super::model::is_headless(function) {
            continue;
        }
        let path = || format!("functions[{index}]");
        for (i, attribute) in function.attribute_proto.iter().enumerate() {
            let list = &function.attribute_proto;
            let place = Place {
                path: &|| super::attribute_path(&path(), "attribute_proto", i, list),
                subject: &|| function_subject(function, &path()),
            };
            attribute_values(attribute, &place, findings);
        }
        value_infos(
            &function.value_info,
            &|| format!("{}.value_info", path()),
            findings,
        );
    }
}

/// A body's value infos and initializers.
pub(crate) fn check_body(body: &Body<'_>, findings: &mut Findings) {
    if let Some(graph) = body.graph {
        let path = &body.path;
        value_infos(&graph.input, &|| format!("{path}.input"), findings);
        value_infos(&graph.output, &|| format!("{path}.output"), findings);
        value_infos(
            &graph.value_info,
            &|| format!("{path}.value_info"),
            findings,
        );
        for (index, tensor) in graph.initializer.iter().enumerate() {
            let tensor_path = || format!("{path}.initializer[{index}]");
            let name = tensor.name.as_deref().unwrap_or("");
            let place = Place {
                path: &tensor_path,
                subject: &|| named_subject(&tensor_path(), name),
            };
            named_initializer(name, &place, findings);
            check_tensor(tensor, &place, findings);
        }
        for (index, sparse) in graph.sparse_initializer.iter().enumerate() {
            let sparse_path = || format!("{path}.sparse_initializer[{index}]");
            let name = sparse.values.as_ref().and_then(|v| v.name.as_deref());
            let place = Place {
                path: &sparse_path,
                subject: &|| named_subject(&sparse_path(), name.unwrap_or("")),
            };
            named_initializer(name.unwrap_or(""), &place, findings);
            check_sparse(sparse, &place, findings);
        }
    }
}

/// The tensors and types in the attributes of the node at `site`.
pub(crate) fn check_node(site: &Site<'_>, findings: &mut Findings) {
    for (i, attribute) in site.node.attribute.iter().enumerate() {
        if holds_tensors_or_types(attribute) {
            let place = Place {
                path: &|| site.attribute_path(i),
                subject: &|| site.subject(),
            };
            attribute_values(attribute, &place, findings);
        }
    }
}

/// An initializer has a name (onnx.checker: "Tensor initializers must
/// have a non-empty name").
fn named_initializer(name: &str, place: &Place<'_>, findings: &mut Findings) {
    if name.is_empty() {
        let code = "onnxtxt::check::initializer_without_name";
        findings.error(
            code,
            &place.subject(),
            place.path(),
            "the initializer has no name",
        );
    }
}

/// Whether `attribute` holds a tensor, sparse tensor or type.
fn holds_tensors_or_types(attribute: &AttributeProto) -> bool {
    let a = attribute;
    a.t.is_some()
        || a.sparse_tensor.is_some()
        || a.tp.is_some()
        || !a.tensors.is_empty()
        || !a.sparse_tensors.is_empty()
        || !a.type_protos.is_empty()
}

/// The shapes of the types of `infos`, the list at `path()`.
fn value_infos(infos: &[ValueInfoProto], path: &dyn Fn() -> String, findings: &mut Findings) {
    for (index, info) in infos.iter().enumerate() {
        let Some(ty) = &info.r#type else {
            continue;
        };
        if has_negative_dimension(ty) {
            let info_path = format!("{}[{index}]", path());
            let subject = named_subject(&info_path, info.name.as_deref().unwrap_or(""));
            let place = Place {
                path: &|| info_path.clone(),
                subject: &|| subject.clone(),
            };
            type_dims(ty, &place, findings);
        }
    }
}

/// Whether a shape in `ty` (or in the types inside it) has a negative
/// dimension.
fn has_negative_dimension(ty: &TypeProto) -> bool {
    let (shape, inner) = shape_and_inner(ty);
    let negative = |dims: &[crate::proto::tensor_shape_proto::Dimension]| {
        dims.iter()
            .any(|d| matches!(d.value, Some(DimValue::DimValue(v)) if v < 0))
    };
    shape.is_some_and(|s| negative(&s.dim)) || inner.is_some_and(has_negative_dimension)
}

/// The shape of a tensor or sparse tensor type, and the type inside a
/// sequence, optional or map.
fn shape_and_inner(ty: &TypeProto) -> (Option<&TensorShapeProto>, Option<&TypeProto>) {
    match &ty.value {
        Some(TypeValue::TensorType(t)) => (t.shape.as_ref(), None),
        Some(TypeValue::SparseTensorType(t)) => (t.shape.as_ref(), None),
        Some(TypeValue::SequenceType(s)) => (None, s.elem_type.as_deref()),
        Some(TypeValue::OptionalType(s)) => (None, s.elem_type.as_deref()),
        Some(TypeValue::MapType(m)) => (None, m.value_type.as_deref()),
        _ => (None, None),
    }
}

/// The tensors, sparse tensors and types an attribute (at `place`) holds.
fn attribute_values(attribute: &AttributeProto, place: &Place<'_>, findings: &mut Findings) {
    let name = attribute.name.as_deref().unwrap_or("");
    let subject = || format!("{} attribute `{name}`", place.subject());
    let part = |suffix: &'static str| move || format!("{}{suffix}", place.path());
    let item = |list: &'static str, i: usize| move || format!("{}.{list}[{i}]", place.path());
    if let Some(t) = &attribute.t {
        check_tensor(t, &Place::new(&part(".t"), &subject), findings);
    }
    for (i, t) in attribute.tensors.iter().enumerate() {
        check_tensor(t, &Place::new(&item("tensors", i), &subject), findings);
    }
    if let Some(s) = &attribute.sparse_tensor {
        check_sparse(s, &Place::new(&part(".sparse_tensor"), &subject), findings);
    }
    for (i, s) in attribute.sparse_tensors.iter().enumerate() {
        check_sparse(
            s,
            &Place::new(&item("sparse_tensors", i), &subject),
            findings,
        );
    }
    if let Some(tp) = &attribute.tp {
        type_dims(tp, &Place::new(&part(".tp"), &subject), findings);
    }
    for (i, tp) in attribute.type_protos.iter().enumerate() {
        type_dims(tp, &Place::new(&item("type_protos", i), &subject), findings);
    }
}

/// Negative dimensions in a type (and the types inside it).
fn type_dims(ty: &TypeProto, place: &Place<'_>, findings: &mut Findings) {
    let (shape, inner) = shape_and_inner(ty);
    if let Some(inner) = inner {
        type_dims(inner, place, findings);
    }
    let dims = shape.map(|s| s.dim.as_slice()).unwrap_or_default();
    // A warning in a type: runtimes read it as an unknown size.
    let values = dims.iter().map(|dim| match dim.value {
        Some(DimValue::DimValue(v)) => v,
        _ => 0,
    });
    negative_dimensions(Severity::Warning, values, place, findings);
}

/// Reports every negative value of `dims`, a shape's dimensions (0 for
/// one that has no value), as `severity`; returns whether there was one.
fn negative_dimensions(
    severity: Severity,
    dims: impl IntoIterator<Item = i64>,
    place: &Place<'_>,
    findings: &mut Findings,
) -> bool {
    let mut any = false;
    for (index, d) in dims.into_iter().enumerate() {
        if d < 0 {
            findings.push(
                severity,
                "onnxtxt::check::negative_dimension",
                &place.subject(),
                place.path(),
                format!("dimension {index} is {d}; dimensions cannot be negative"),
            );
            any = true;
        }
    }
    any
}

fn check_sparse(sparse: &SparseTensorProto, place: &Place<'_>, findings: &mut Findings) {
    let dims = sparse.dims.iter().copied();
    if !negative_dimensions(Severity::Error, dims, place, findings) {
        if let Err(summary) = sparse_layout(sparse) {
            let code = "onnxtxt::check::sparse_tensor";
            findings.error(code, &place.subject(), place.path(), summary);
        }
    }
    let part = |suffix: &'static str| move || format!("{}{suffix}", place.path());
    if let Some(values) = &sparse.values {
        let path = part(".values");
        check_tensor(
            values,
            &Place {
                path: &path,
                ..*place
            },
            findings,
        );
    }
    if let Some(indices) = &sparse.indices {
        let path = part(".indices");
        check_tensor(
            indices,
            &Place {
                path: &path,
                ..*place
            },
            findings,
        );
    }
}

/// What onnx.checker requires of a sparse tensor's parts: values of rank
/// 1 (their count, NNZ), a dense shape of positive dimensions, and int64
/// indices, one per value (rank 1: linear; rank 2: one row of coordinates
/// per value), in range and in increasing order.
fn sparse_layout(sparse: &SparseTensorProto) -> Result<(), String> {
    let values = sparse
        .values
        .as_ref()
        .ok_or("the sparse tensor has no values")?;
    let &[nnz] = values.dims.as_slice() else {
        return Err(format!("its values have rank {}, not 1", values.dims.len()));
    };
    let dense = &sparse.dims;
    if dense.is_empty() || dense.contains(&0) {
        return Err(format!(
            "its dense shape {} has no elements, or no axes",
            shape_text(dense)
        ));
    }
    let Some(indices) = &sparse.indices else {
        return match nnz {
            0 => Ok(()),
            _ => Err(format!("it has {nnz} values but no indices")),
        };
    };
    if indices.data_type != Some(DataType::Int64 as i32) {
        return Err("its indices must be int64".to_string());
    }
    let data: Vec<i64> = match &indices.raw_data {
        Some(raw) => raw
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect(),
        None => indices.int64_data.clone(),
    };
    let per_value = match indices.dims.as_slice() {
        &[n] if n == nnz => 1,
        &[n, rank] if n == nnz && rank == dense.len() as i64 => dense.len(),
        &[_] | &[_, _] => {
            return Err(format!(
                "its indices have the shape {}, for {nnz} values of a rank-{} tensor",
                shape_text(&indices.dims),
                dense.len()
            ))
        }
        _ => return Err("its indices must have rank 1 or 2".to_string()),
    };
    let mut previous = -1i128;
    for (i, coordinates) in data.chunks(per_value).enumerate() {
        // Saturating: a dense shape too large to count has every index.
        let linear = if per_value == 1 {
            let size = dense
                .iter()
                .fold(1i128, |size, &d| size.saturating_mul(i128::from(d)));
            Some(i128::from(coordinates[0])).filter(|&x| (0..size).contains(&x))
        } else {
            coordinates
                .iter()
                .zip(dense)
                .try_fold(0i128, |at, (&c, &d)| {
                    let at = at.saturating_mul(i128::from(d));
                    (0..d)
                        .contains(&c)
                        .then(|| at.saturating_add(i128::from(c)))
                })
        };
        let Some(linear) = linear else {
            return Err(format!(
                "index {i} is outside the dense shape {}",
                shape_text(dense)
            ));
        };
        if linear <= previous {
            return Err(format!(
                "index {i} is not after the one before it: indices go in increasing order"
            ));
        }
        previous = linear;
    }
    Ok(())
}

/// A tensor whose data is in another file names the file (`location`)
/// and holds no values of its own, as onnx.checker requires.
fn external(tensor: &TensorProto, place: &Place<'_>, findings: &mut Findings) {
    let t = tensor;
    let has_location = t
        .external_data
        .iter()
        .any(|e| e.key.as_deref() == Some("location"));
    let has_values = t.raw_data.is_some()
        || !(t.float_data.is_empty()
            && t.int32_data.is_empty()
            && t.int64_data.is_empty()
            && t.uint64_data.is_empty()
            && t.double_data.is_empty()
            && t.string_data.is_empty());
    let summary = if !has_location {
        "the tensor's data is external, but it names no `location`"
    } else if has_values {
        "the tensor's data is external, but it holds values too"
    } else {
        return;
    };
    findings.error(TENSOR_FIELD, &place.subject(), place.path(), summary);
}

/// One tensor constant being checked.
struct Tensor<'a> {
    tensor: &'a TensorProto,
    place: &'a Place<'a>,
    /// Its element type's code and name.
    data_type: i32,
    type_name: &'static str,
    /// How many elements its shape holds.
    count: u64,
}

/// A tensor constant: dims, element count against the stored values,
/// and values that fit the element type.
fn check_tensor(tensor: &TensorProto, place: &Place<'_>, findings: &mut Findings) {
    let dims = tensor.dims.iter().copied();
    if negative_dimensions(Severity::Error, dims, place, findings) {
        return;
    }
    let Some(count) = tensor
        .dims
        .iter()
        .try_fold(1u64, |count, &d| count.checked_mul(d as u64))
    else {
        let summary = format!(
            "the shape {:?} has more elements than can be counted",
            tensor.dims
        );
        findings.error(TENSOR_SIZE, &place.subject(), place.path(), summary);
        return;
    };
    let data_type = tensor.data_type.unwrap_or(0);
    let Some(field) = typed_field(data_type) else {
        let summary = if data_type == 0 {
            "the tensor has no element type".to_string()
        } else {
            format!("the tensor has an unknown element type ({data_type})")
        };
        findings.error(
            "onnxtxt::check::tensor_type",
            &place.subject(),
            place.path(),
            summary,
        );
        return;
    };
    if tensor.data_location == Some(DataLocation::External as i32) {
        external(tensor, place, findings);
        return;
    }
    if tensor.segment.is_some() {
        return;
    }
    let checked = Tensor {
        tensor,
        place,
        data_type,
        type_name: crate::vocabulary::element_type_name(data_type).unwrap_or("?"),
        count,
    };
    let Some((len, field)) = checked.stored_in(field, findings) else {
        return;
    };
    match &tensor.raw_data {
        Some(raw) => checked.raw_data(raw, len, field, findings),
        None => checked.typed_values(len, findings),
    }
}

impl Tensor<'_> {
    /// Reports a finding about the tensor.
    fn report<'f>(
        &self,
        findings: &'f mut Findings,
        severity: Severity,
        code: &'static str,
        summary: impl Into<String>,
    ) -> &'f mut Finding {
        let subject = self.place.subject();
        findings.push(severity, code, &subject, self.place.path(), summary)
    }

    /// How many values are stored in `field`, the one the element type
    /// uses, and its name; `None` (after reporting it) when other fields
    /// hold values.
    fn stored_in(
        &self,
        field: TypedField,
        findings: &mut Findings,
    ) -> Option<(usize, &'static str)> {
        let t = self.tensor;
        let fields = [
            (TypedField::Int32Data, "int32_data", t.int32_data.len()),
            (TypedField::Int64Data, "int64_data", t.int64_data.len()),
            (TypedField::Uint64Data, "uint64_data", t.uint64_data.len()),
            (TypedField::FloatData, "float_data", t.float_data.len()),
            (TypedField::DoubleData, "double_data", t.double_data.len()),
            (TypedField::StringData, "string_data", t.string_data.len()),
        ];
        let (_, expected, len) = fields
            .iter()
            .copied()
            .find(|(f, _, _)| *f == field)
            .expect("every field is listed");
        if let Some((_, name, n)) = fields.iter().find(|(f, _, n)| *f != field && *n > 0) {
            let type_name = self.type_name;
            let summary = format!("{type_name} values belong in {expected}, but {n} are in {name}");
            self.report(findings, Severity::Error, TENSOR_FIELD, summary);
            return None;
        }
        Some((len, expected))
    }

    /// Values stored as raw bytes (and `typed` values in `field` too):
    /// as many bytes as the elements take.
    fn raw_data(&self, raw: &[u8], typed: usize, field: &str, findings: &mut Findings) {
        let (count, type_name) = (self.count, self.type_name);
        if self.data_type == DataType::String as i32 {
            let summary = "string tensors cannot be stored in raw_data";
            self.report(findings, Severity::Error, TENSOR_FIELD, summary);
            return;
        }
        if typed > 0 {
            let summary = format!("the values are stored twice, in raw_data and in {field}");
            self.report(findings, Severity::Error, TENSOR_FIELD, summary);
            return;
        }
        let expected = usize::try_from(count)
            .ok()
            .and_then(|n| raw_byte_len(self.data_type, n));
        if expected != Some(raw.len()) {
            let takes = expected.map_or_else(|| "too many".to_string(), |e| e.to_string());
            let shape = shape_text(&self.tensor.dims);
            self.report(findings, Severity::Error, TENSOR_SIZE,
                format!(
                    "raw_data holds {} bytes, but {count} {type_name} elements (shape {shape}) take {takes}",
                    raw.len()
                ),
            );
            return;
        }
        if self.data_type == DataType::Bool as i32 {
            if let Some(i) = raw.iter().position(|&b| b > 1) {
                self.report(
                    findings,
                    Severity::Warning,
                    TENSOR_VALUE,
                    format!("element {i} is {}; bool values are 0 or 1", raw[i]),
                );
            }
        }
    }

    /// Values stored in the typed field, `len` of them: one per element
    /// (two for complex numbers), or packed for sub-byte types.
    fn typed_values(&self, len: usize, findings: &mut Findings) {
        let (count, data_type) = (self.count, self.data_type);
        let complex =
            data_type == DataType::Complex64 as i32 || data_type == DataType::Complex128 as i32;
        let expected = count.checked_mul(if complex { 2 } else { 1 });
        let packed = sub_byte_bits(data_type)
            .and_then(|bits| count.checked_mul(bits))
            .map(|b| b.div_ceil(8));
        let len = len as u64;
        if Some(len) == expected {
            if let Some((min, max)) = element_range(data_type) {
                self.values_in_range(min, max, "element", findings);
            }
        } else if packed.is_some() && Some(len) == packed {
            // The IR's packed layout: two (or four) elements per entry.
            self.values_in_range(0, 255, "packed entry", findings);
        } else {
            self.wrong_count(len, complex, findings);
        }
    }

    /// Reports `len` values where the shape wants another number.
    fn wrong_count(&self, len: u64, complex: bool, findings: &mut Findings) {
        let count = self.count;
        let shape = shape_text(&self.tensor.dims);
        let values = if complex {
            format!(
                "{len} numbers ({count} elements need {} real and imaginary parts)",
                2 * count
            )
        } else {
            format!("{len} values")
        };
        let (summary, help) = if len == 0 && self.tensor.dims.is_empty() {
            (
                "the tensor has no values".to_string(),
                "a scalar needs one value",
            )
        } else {
            let elements = if count == 1 { "element" } else { "elements" };
            (
                format!("the shape {shape} holds {count} {elements}, but the tensor has {values}"),
                "the number of values must be the product of the dimensions",
            )
        };
        self.report(findings, Severity::Error, TENSOR_SIZE, summary)
            .help(help);
    }

    /// Reports the first stored value outside `min..=max`.
    fn values_in_range(&self, min: i64, max: i64, what: &str, findings: &mut Findings) {
        let t = self.tensor;
        let values: Box<dyn Iterator<Item = i128>> = if self.data_type == DataType::Uint32 as i32 {
            Box::new(t.uint64_data.iter().map(|&v| i128::from(v)))
        } else {
            Box::new(t.int32_data.iter().map(|&v| i128::from(v)))
        };
        let type_name = self.type_name;
        let mut values = values.enumerate();
        let Some((index, value)) =
            values.find(|&(_, v)| v < i128::from(min) || v > i128::from(max))
        else {
            return;
        };
        // onnx.checker does not look at values, and runtimes wrap them:
        // the value read is not the one written.
        let finding = self.report(
            findings,
            Severity::Warning,
            TENSOR_VALUE,
            format!(
                "{what} {index} is {value}, which does not fit {type_name} (range {min} to {max})"
            ),
        );
        if crate::tensor_data::is_narrow_float(self.data_type) {
            finding.help(format!(
                "integers in a {type_name} tensor are bit patterns; write a decimal (`1.0`) for a value"
            ));
        }
    }
}

fn shape_text(dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// The bits per element of the sub-byte types.
fn sub_byte_bits(data_type: i32) -> Option<u64> {
    use DataType as D;
    Some(match DataType::try_from(data_type).ok()? {
        D::Int4 | D::Uint4 | D::Float4e2m1 => 4,
        D::Int2 | D::Uint2 => 2,
        D::Float6e2m3 | D::Float6e3m2 => 6,
        _ => return None,
    })
}

/// The range of one `int32_data` (or, for uint32, `uint64_data`) entry.
fn element_range(data_type: i32) -> Option<(i64, i64)> {
    use DataType as D;
    Some(match DataType::try_from(data_type).ok()? {
        D::Int8 => (-128, 127),
        D::Uint8 => (0, 255),
        D::Int16 => (-32768, 32767),
        D::Uint16 | D::Float16 | D::Bfloat16 => (0, 65535),
        D::Bool => (0, 1),
        D::Int4 => (-8, 7),
        D::Uint4 | D::Float4e2m1 => (0, 15),
        D::Int2 => (-2, 1),
        D::Uint2 => (0, 3),
        D::Float6e2m3 | D::Float6e3m2 => (0, 63),
        D::Float8e4m3fn | D::Float8e4m3fnuz | D::Float8e5m2 | D::Float8e5m2fnuz | D::Float8e8m0 => {
            (0, 255)
        }
        D::Uint32 => (0, i64::from(u32::MAX)),
        _ => return None,
    })
}
