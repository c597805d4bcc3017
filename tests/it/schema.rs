//! Checks on `grammar/onnx.proto`, our own ONNX schema.
//!
//! * `schema_matches_reference` (ignored by default; the conformance runner
//!   runs it) compiles our schema and the reference `onnx.proto` shipped with
//!   the `onnx` Python package, and requires the two descriptors to be equal
//!   apart from comments and declaration order.
//! * `schema_keeps_proto2_presence_and_packing` needs no reference and guards
//!   the two schema properties the round trip depends on most.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::{Path, PathBuf};

use prost::Message as _;
use prost_types::field_descriptor_proto::Label;
use prost_types::{
    DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorProto,
    FileDescriptorSet,
};

/// Directory of our schema, relative to the crate root.
const GRAMMAR_DIR: &str = "grammar";
/// File name of both our schema and the reference.
const SCHEMA_FILE: &str = "onnx.proto";
/// How many differences to print before giving up.
const MAX_REPORTED: usize = 40;

fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compiles `dir/onnx.proto` and returns its descriptor, comments stripped.
fn compile(dir: &Path) -> FileDescriptorProto {
    let set: FileDescriptorSet = protox::compile([SCHEMA_FILE], [dir])
        .unwrap_or_else(|e| panic!("compiling {}: {e:?}", dir.join(SCHEMA_FILE).display()));
    let mut file = set
        .file
        .into_iter()
        .find(|f| f.name() == SCHEMA_FILE)
        .unwrap_or_else(|| {
            panic!(
                "no {SCHEMA_FILE} in the descriptor set of {}",
                dir.display()
            )
        });
    file.source_code_info = None;
    file
}

fn our_schema() -> FileDescriptorProto {
    compile(&crate_root().join(GRAMMAR_DIR))
}

/// Where the conformance script puts the reference files.
fn corpus_dir() -> PathBuf {
    match std::env::var_os("ONNXTXT_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => crate_root().join("target").join("conformance"),
    }
}

// ---------------------------------------------------------------------------
// Normalization: declaration order is not part of the schema's meaning.

fn normalize_file(file: &mut FileDescriptorProto) {
    file.message_type.iter_mut().for_each(normalize_message);
    file.message_type.sort_by(|a, b| a.name().cmp(b.name()));
    file.enum_type.iter_mut().for_each(normalize_enum);
    file.enum_type.sort_by(|a, b| a.name().cmp(b.name()));
}

fn normalize_message(msg: &mut DescriptorProto) {
    // `oneof_index` points into `oneof_decl`; keep that order (our schema has
    // at most one oneof per message) and sort only the independent lists.
    msg.field.sort_by_key(|f| f.number());
    msg.nested_type.iter_mut().for_each(normalize_message);
    msg.nested_type.sort_by(|a, b| a.name().cmp(b.name()));
    msg.enum_type.iter_mut().for_each(normalize_enum);
    msg.enum_type.sort_by(|a, b| a.name().cmp(b.name()));
    msg.reserved_range.sort_by_key(|r| (r.start(), r.end()));
    msg.reserved_name.sort();
}

fn normalize_enum(en: &mut EnumDescriptorProto) {
    en.value
        .sort_by(|a, b| (a.number(), a.name()).cmp(&(b.number(), b.name())));
    en.reserved_range.sort_by_key(|r| (r.start(), r.end()));
    en.reserved_name.sort();
}

// ---------------------------------------------------------------------------
// Readable differences, keyed by a dotted path such as `onnx.TensorProto.dims`.

struct Diffs(Vec<String>);

impl Diffs {
    /// Records a difference when `ours != reference`.
    fn check<T: PartialEq + Debug>(&mut self, path: &str, what: &str, ours: T, reference: T) {
        if ours != reference {
            self.0.push(format!(
                "{path}: {what} differs\n    ours:      {ours:?}\n    reference: {reference:?}"
            ));
        }
    }

    fn note(&mut self, line: String) {
        self.0.push(line);
    }
}

/// Pairs up items by name; reports items present on one side only.
fn pair_by_name<'a, T>(
    diffs: &mut Diffs,
    path: &str,
    kind: &str,
    ours: &'a [T],
    reference: &'a [T],
    name: impl Fn(&T) -> String,
) -> Vec<(String, &'a T, &'a T)> {
    let ours_by: BTreeMap<String, &T> = ours.iter().map(|x| (name(x), x)).collect();
    let ref_by: BTreeMap<String, &T> = reference.iter().map(|x| (name(x), x)).collect();
    for key in ref_by.keys().filter(|k| !ours_by.contains_key(*k)) {
        diffs.note(format!("{path}: {kind} `{key}` is missing from our schema"));
    }
    for key in ours_by.keys().filter(|k| !ref_by.contains_key(*k)) {
        diffs.note(format!("{path}: {kind} `{key}` is not in the reference"));
    }
    ours_by
        .iter()
        .filter_map(|(k, o)| ref_by.get(k).map(|r| (k.clone(), *o, *r)))
        .collect()
}

fn diff_file(d: &mut Diffs, ours: &FileDescriptorProto, reference: &FileDescriptorProto) {
    let path = ours.package().to_string();
    d.check(&path, "file name", ours.name(), reference.name());
    d.check(&path, "package", ours.package(), reference.package());
    d.check(&path, "syntax", ours.syntax(), reference.syntax());
    d.check(&path, "imports", &ours.dependency, &reference.dependency);
    d.check(&path, "file options", &ours.options, &reference.options);
    d.check(&path, "services", &ours.service, &reference.service);
    d.check(&path, "extensions", &ours.extension, &reference.extension);
    diff_enums(d, &path, &ours.enum_type, &reference.enum_type);
    diff_messages(d, &path, &ours.message_type, &reference.message_type);
}

fn diff_messages(
    d: &mut Diffs,
    path: &str,
    ours: &[DescriptorProto],
    reference: &[DescriptorProto],
) {
    let pairs = pair_by_name(d, path, "message", ours, reference, |m| {
        m.name().to_string()
    });
    for (name, o, r) in pairs {
        let path = format!("{path}.{name}");
        d.check(&path, "message options", &o.options, &r.options);
        d.check(
            &path,
            "reserved numbers",
            &o.reserved_range,
            &r.reserved_range,
        );
        d.check(&path, "reserved names", &o.reserved_name, &r.reserved_name);
        d.check(
            &path,
            "extension ranges",
            &o.extension_range,
            &r.extension_range,
        );
        d.check(&path, "extensions", &o.extension, &r.extension);
        let oneof_names = |m: &DescriptorProto| -> Vec<String> {
            m.oneof_decl.iter().map(|x| x.name().to_string()).collect()
        };
        d.check(&path, "oneofs", oneof_names(o), oneof_names(r));
        d.check(&path, "oneof options", &o.oneof_decl, &r.oneof_decl);
        let fields = pair_by_name(d, &path, "field", &o.field, &r.field, |f| {
            f.name().to_string()
        });
        for (fname, of, rf) in fields {
            diff_field(d, &format!("{path}.{fname}"), o, of, r, rf);
        }
        diff_enums(d, &path, &o.enum_type, &r.enum_type);
        diff_messages(d, &path, &o.nested_type, &r.nested_type);
    }
}

fn diff_field(
    d: &mut Diffs,
    path: &str,
    o_msg: &DescriptorProto,
    o: &FieldDescriptorProto,
    r_msg: &DescriptorProto,
    r: &FieldDescriptorProto,
) {
    let oneof = |m: &DescriptorProto, f: &FieldDescriptorProto| {
        f.oneof_index
            .map(|i| m.oneof_decl[i as usize].name().to_string())
    };
    d.check(path, "number", o.number(), r.number());
    d.check(path, "label", o.label(), r.label());
    d.check(path, "type", o.r#type(), r.r#type());
    d.check(path, "type name", o.type_name(), r.type_name());
    d.check(path, "default value", &o.default_value, &r.default_value);
    d.check(path, "oneof", oneof(o_msg, o), oneof(r_msg, r));
    d.check(path, "json name", &o.json_name, &r.json_name);
    d.check(path, "options (packed, ...)", &o.options, &r.options);
    d.check(path, "extendee", &o.extendee, &r.extendee);
    d.check(
        path,
        "proto3_optional",
        o.proto3_optional,
        r.proto3_optional,
    );
}

fn diff_enums(
    d: &mut Diffs,
    path: &str,
    ours: &[EnumDescriptorProto],
    reference: &[EnumDescriptorProto],
) {
    let pairs = pair_by_name(d, path, "enum", ours, reference, |e| e.name().to_string());
    for (name, o, r) in pairs {
        let path = format!("{path}.{name}");
        d.check(&path, "enum options", &o.options, &r.options);
        d.check(
            &path,
            "reserved numbers",
            &o.reserved_range,
            &r.reserved_range,
        );
        d.check(&path, "reserved names", &o.reserved_name, &r.reserved_name);
        let values = pair_by_name(d, &path, "enum value", &o.value, &r.value, |v| {
            v.name().to_string()
        });
        for (vname, ov, rv) in values {
            let path = format!("{path}.{vname}");
            d.check(&path, "number", ov.number(), rv.number());
            d.check(&path, "value options", &ov.options, &rv.options);
        }
    }
}

/// The first line where two pretty-printed values differ (a last resort
/// when the structured walk above finds nothing).
fn first_debug_difference<T: Debug>(ours: &T, reference: &T) -> String {
    let (o, r) = (format!("{ours:#?}"), format!("{reference:#?}"));
    let (ol, rl): (Vec<&str>, Vec<&str>) = (o.lines().collect(), r.lines().collect());
    let at = ol
        .iter()
        .zip(&rl)
        .position(|(a, b)| a != b)
        .unwrap_or(ol.len().min(rl.len()));
    let context =
        |lines: &[&str]| lines[at.saturating_sub(8)..(at + 3).min(lines.len())].join("\n");
    format!(
        "descriptors differ at pretty-printed line {}\n--- ours ---\n{}\n--- reference ---\n{}",
        at + 1,
        context(&ol),
        context(&rl)
    )
}

#[test]
#[ignore = "needs the reference corpus: run conformance/run.sh"]
fn schema_matches_reference() {
    let corpus = corpus_dir();
    let reference_file = corpus.join(SCHEMA_FILE);
    assert!(
        reference_file.is_file(),
        "reference schema {} not found: run `bash conformance/run.sh` first \
         (it copies onnx's onnx.proto there), or point ONNXTXT_CORPUS at a \
         directory holding onnx.proto",
        reference_file.display()
    );

    let mut ours = our_schema();
    let mut reference = compile(&corpus);
    normalize_file(&mut ours);
    normalize_file(&mut reference);
    if ours == reference {
        return;
    }

    let mut diffs = Diffs(Vec::new());
    diff_file(&mut diffs, &ours, &reference);
    if diffs.0.is_empty() {
        diffs.note(first_debug_difference(&ours, &reference));
    }
    let total = diffs.0.len();
    let shown: Vec<&str> = diffs
        .0
        .iter()
        .take(MAX_REPORTED)
        .map(String::as_str)
        .collect();
    panic!(
        "grammar/onnx.proto does not match {} ({total} difference(s){}):\n{}",
        reference_file.display(),
        if total > MAX_REPORTED {
            format!(", first {MAX_REPORTED} shown")
        } else {
            String::new()
        },
        shown.join("\n")
    );
}

fn message<'a>(file: &'a FileDescriptorProto, name: &str) -> &'a DescriptorProto {
    file.message_type
        .iter()
        .find(|m| m.name() == name)
        .unwrap_or_else(|| panic!("message {name} missing from grammar/onnx.proto"))
}

fn field<'a>(msg: &'a DescriptorProto, name: &str) -> &'a FieldDescriptorProto {
    msg.field
        .iter()
        .find(|f| f.name() == name)
        .unwrap_or_else(|| {
            panic!(
                "field {}.{name} missing from grammar/onnx.proto",
                msg.name()
            )
        })
}

#[test]
fn schema_keeps_proto2_presence_and_packing() {
    use onnxtxt::proto::{ModelProto, TensorProto};

    // Descriptor level: proto2, optional singular fields, packed typed data.
    let ours = our_schema();
    // Descriptors leave `syntax` empty for proto2.
    assert!(
        matches!(ours.syntax(), "" | "proto2"),
        "grammar/onnx.proto must stay proto2, found syntax {:?}",
        ours.syntax()
    );
    assert_eq!(ours.package(), "onnx");
    let model = message(&ours, "ModelProto");
    assert_eq!(field(model, "ir_version").label(), Label::Optional);
    let tensor = message(&ours, "TensorProto");
    for name in [
        "float_data",
        "int32_data",
        "int64_data",
        "double_data",
        "uint64_data",
    ] {
        let f = field(tensor, name);
        assert_eq!(f.label(), Label::Repeated, "TensorProto.{name}");
        assert_eq!(
            f.options.as_ref().and_then(|o| o.packed),
            Some(true),
            "TensorProto.{name} must be declared [packed = true]"
        );
    }
    // Not packed upstream: proto2's default (unpacked) encoding.
    let attribute = message(&ours, "AttributeProto");
    assert_eq!(field(attribute, "floats").options, None);

    // Generated-code level: presence is an `Option`, visible on the wire.
    let unset: Option<i64> = ModelProto::default().ir_version;
    assert_eq!(unset, None);
    let zero = ModelProto {
        ir_version: Some(0),
        ..Default::default()
    };
    assert_eq!(
        zero.encode_to_vec(),
        [0x08, 0x00],
        "explicit 0 must be encoded"
    );
    assert!(ModelProto::default().encode_to_vec().is_empty());

    // Packed: one length-delimited record (tag 4, wire type 2), not one
    // fixed32 record (wire type 5) per element.
    let t = TensorProto {
        float_data: vec![1.0, 2.0],
        ..Default::default()
    };
    let mut expected = vec![0x22, 0x08];
    expected.extend_from_slice(&1.0f32.to_le_bytes());
    expected.extend_from_slice(&2.0f32.to_le_bytes());
    assert_eq!(
        t.encode_to_vec(),
        expected,
        "TensorProto.float_data must encode packed"
    );
}
