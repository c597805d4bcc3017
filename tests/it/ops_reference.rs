//! The operator registry against onnx itself, schema by schema.
//!
//! `conformance/run.sh` has `grammar/operators.py --json` write what onnx
//! 1.23.2 says about every schema (taken from the schema objects, not from
//! the generated Rust) to `operators.json` in the conformance corpus folder
//! (`ONNXTXT_CORPUS`, default `target/conformance`). This test, ignored by
//! `cargo test`, requires `onnxtxt::ops` to hold exactly that: the same
//! schemas, each with the same parameters (and the types each accepts, as
//! `ops::type_proto` and `ops::type_string` see them), counts, attributes (defaults
//! compared as the encoded `AttributeProto`), type constraints and function
//! bodies (ours parsed by our parser, theirs decoded, less documentation
//! text, compared as the conformance tests compare IR), and the same schema
//! in force for every operator at every opset as `onnx.defs.get_schema`.

use std::path::PathBuf;

use crate::conformance::normalise::{compare, descriptor_pool, Comparison};
use onnxtxt::ops::{self, Differentiability, ParameterOption, Schema};
use onnxtxt::proto::{AttributeProto, FunctionProto};
use prost::Message as _;
use prost_reflect::MessageDescriptor;
use serde_json::Value;

/// onnx's `max_input` / `max_output` for "no upper bound".
const UNBOUNDED: u64 = (1 << 31) - 1;

fn reference() -> Value {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("ONNXTXT_CORPUS").unwrap_or_else(|| "target/conformance".into());
    let path = root.join(corpus).join("operators.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "{}: {err}; run `bash conformance/run.sh`, or \
             `.venv/bin/python grammar/operators.py --json {}`",
            path.display(),
            path.display()
        )
    });
    serde_json::from_str(&text).expect("operators.json is JSON")
}

fn str_of(v: &Value) -> &str {
    v.as_str().expect("a string")
}

fn int_of(v: &Value) -> i64 {
    v.as_i64().expect("an integer")
}

fn bool_of(v: &Value) -> bool {
    v.as_bool().expect("a boolean")
}

fn list_of(v: &Value) -> &[Value] {
    v.as_array().expect("a list")
}

fn bytes_of(hex: &Value) -> Vec<u8> {
    let hex = str_of(hex).as_bytes();
    let digit = |c: u8| (c as char).to_digit(16).expect("a hex digit") as u8;
    hex.chunks(2)
        .map(|p| digit(p[0]) << 4 | digit(p[1]))
        .collect()
}

/// The counts onnx's checker allows where it allows only some (`null`
/// when it allows all), as the registry gives them (empty for all).
fn counts_of(v: &Value) -> Vec<usize> {
    match v {
        Value::Null => Vec::new(),
        v => list_of(v).iter().map(|n| int_of(n) as usize).collect(),
    }
}

/// onnx's `max_input` or `max_output` as the registry gives it.
fn max_count(v: &Value) -> Option<usize> {
    let max = v.as_u64().expect("a count");
    (max != UNBOUNDED).then_some(max as usize)
}

/// The differences between `ours` and onnx's schema `theirs`, one a line;
/// `function` describes a FunctionProto.
fn differences(ours: &Schema, t: &Value, function: &MessageDescriptor) -> Vec<String> {
    let mut context: Vec<i64> = list_of(&t["context_dependent_functions"])
        .iter()
        .map(int_of)
        .collect();
    context.sort_unstable();
    let checks = [
        ("deprecated", ours.deprecated() == bool_of(&t["deprecated"])),
        (
            "experimental",
            ours.experimental() == bool_of(&t["experimental"]),
        ),
        (
            "min inputs",
            ours.min_inputs() as i64 == int_of(&t["min_input"]),
        ),
        (
            "max inputs",
            ours.max_inputs() == max_count(&t["max_input"]),
        ),
        (
            "min outputs",
            ours.min_outputs() as i64 == int_of(&t["min_output"]),
        ),
        (
            "max outputs",
            ours.max_outputs() == max_count(&t["max_output"]),
        ),
        (
            "allowed input counts",
            ours.allowed_input_counts() == counts_of(&t["allowed_inputs"]),
        ),
        (
            "allowed output counts",
            ours.allowed_output_counts() == counts_of(&t["allowed_outputs"]),
        ),
        (
            "unchecked attributes",
            ours.allows_unchecked_attributes() == bool_of(&t["unchecked_attributes"]),
        ),
        ("inputs", same_parameters(ours, ours.inputs(), &t["inputs"])),
        (
            "outputs",
            same_parameters(ours, ours.outputs(), &t["outputs"]),
        ),
        ("attributes", same_attributes(ours, &t["attributes"])),
        (
            "type constraints",
            same_constraints(ours, &t["type_constraints"]),
        ),
        (
            "context-dependent functions",
            ours.context_dependent_function_opsets() == context,
        ),
    ];
    let mut found: Vec<String> = checks
        .into_iter()
        .filter(|&(_, same)| !same)
        .map(|(what, _)| format!("{what} differ"))
        .collect();
    if let Err(difference) = same_bodies(ours, &t["functions"], function) {
        found.push(difference);
    }
    found
}

/// The parameters `ours` of `schema` against onnx's, with the types each
/// accepts as `ops::type_string` writes them.
fn same_parameters(schema: &Schema, ours: &'static [ops::Parameter], theirs: &Value) -> bool {
    let theirs = list_of(theirs);
    ours.len() == theirs.len()
        && ours.iter().zip(theirs).all(|(p, t)| {
            let mut types: Vec<Option<String>> = schema
                .allowed_types(p)
                .iter()
                .map(|s| ops::type_proto(s).as_ref().and_then(ops::type_string))
                .collect();
            types.sort();
            let their_types: Vec<Option<String>> = list_of(&t["types"])
                .iter()
                .map(|s| Some(str_of(s).to_owned()))
                .collect();
            let option = match int_of(&t["option"]) {
                0 => ParameterOption::Single,
                1 => ParameterOption::Optional,
                2 => ParameterOption::Variadic,
                other => panic!("unknown FormalParameterOption {other}"),
            };
            let differentiability = match int_of(&t["differentiation"]) {
                0 => Differentiability::Unknown,
                1 => Differentiability::Differentiable,
                2 => Differentiability::NonDifferentiable,
                other => panic!("unknown DifferentiationCategory {other}"),
            };
            p.name() == str_of(&t["name"])
                && p.type_str() == str_of(&t["type_str"])
                && p.option() == option
                && p.homogeneous() == bool_of(&t["homogeneous"])
                && p.min_arity() as i64 == int_of(&t["min_arity"])
                && p.differentiability() == differentiability
                && types == their_types
        })
}

fn same_attributes(ours: &Schema, theirs: &Value) -> bool {
    let theirs = list_of(theirs);
    ours.attributes().len() == theirs.len()
        && theirs.iter().all(|t| {
            let Some(a) = ours.attribute(str_of(&t["name"])) else {
                return false;
            };
            let default = bytes_of(&t["default"]);
            let same_default = match a.default_value() {
                None => default.is_empty(),
                // Compared as onnx stores it: the encoded AttributeProto.
                Some(value) => value.to_attribute(a.name()).encode_to_vec() == default,
            };
            // onnx's AttrType numbers are AttributeProto.AttributeType's.
            a.ty() as i64 == int_of(&t["type"])
                && a.required() == bool_of(&t["required"])
                && same_default
                && (default.is_empty() || AttributeProto::decode(&default[..]).is_ok())
        })
}

fn same_constraints(ours: &Schema, theirs: &Value) -> bool {
    let theirs = list_of(theirs);
    ours.type_constraints().len() == theirs.len()
        && ours.type_constraints().iter().zip(theirs).all(|(c, t)| {
            let allowed: Vec<&str> = list_of(&t["allowed"]).iter().map(str_of).collect();
            c.name() == str_of(&t["name"]) && c.allowed_types() == allowed
        })
}

/// Each body of ours, read by our parser, against onnx's FunctionProto for
/// the same opset less its documentation text (which we do not store), as
/// the conformance tests compare IR (a field set to its default counts as
/// unset: the text cannot tell them apart).
fn same_bodies(ours: &Schema, theirs: &Value, function: &MessageDescriptor) -> Result<(), String> {
    let theirs = theirs.as_object().expect("functions by opset");
    let opsets = |opsets: Vec<String>| opsets.join(", ");
    let our_opsets = ours.function_bodies().iter().map(|b| b.opset().to_string());
    if opsets(our_opsets.collect()) != opsets(theirs.keys().cloned().collect()) {
        return Err("function body opsets differ".into());
    }
    for body in ours.function_bodies() {
        let mut expected = FunctionProto::decode(&bytes_of(&theirs[&body.opset().to_string()])[..])
            .expect("a FunctionProto");
        expected.doc_string = None;
        for node in &mut expected.node {
            node.doc_string = None;
        }
        let parsed = body.parse().map_err(|e| {
            format!(
                "function body for opset {} does not parse: {e}",
                body.opset()
            )
        })?;
        let labels = ("onnx", "onnxtxt");
        let (theirs, ours) = (expected.encode_to_vec(), parsed.encode_to_vec());
        if let Comparison::Differs(diff) = compare(function, &theirs, &ours, labels, &[]) {
            return Err(format!(
                "function body for opset {} differs:\n{diff}",
                body.opset()
            ));
        }
    }
    Ok(())
}

#[test]
#[ignore = "needs operators.json from conformance/run.sh"]
fn the_registry_is_what_onnx_says() {
    let reference = reference();
    assert_eq!(str_of(&reference["onnx"]), ops::ONNX_VERSION);

    let domains: Vec<(String, i64, i64)> = ops::domains()
        .iter()
        .map(|d| (d.name().to_owned(), d.first_opset(), d.last_opset()))
        .collect();
    let their_domains: Vec<(String, i64, i64)> = list_of(&reference["domains"])
        .iter()
        .map(|d| {
            (
                str_of(&d["name"]).to_owned(),
                int_of(&d["first"]),
                int_of(&d["last"]),
            )
        })
        .collect();
    assert_eq!(domains, their_domains);

    let pool = descriptor_pool();
    let function = pool
        .get_message_by_name("onnx.FunctionProto")
        .expect("FunctionProto in onnx.proto");
    let mut misses = Vec::new();
    let schemas = list_of(&reference["schemas"]);
    for theirs in schemas {
        let (domain, name) = (str_of(&theirs["domain"]), str_of(&theirs["name"]));
        let since = int_of(&theirs["since_version"]);
        let ours = ops::operator(domain, name)
            .and_then(|op| op.versions().iter().find(|s| s.since_version() == since));
        match ours {
            None => misses.push(format!("{domain:?} {name} {since}: missing")),
            Some(ours) => misses.extend(
                differences(ours, theirs, &function)
                    .into_iter()
                    .map(|what| format!("{domain:?} {name} {since}: {what}")),
            ),
        }
    }
    let ours_count: usize = ops::domains()
        .iter()
        .flat_map(|d| d.operators())
        .map(|op| op.versions().len())
        .sum();
    if ours_count != schemas.len() {
        misses.push(format!(
            "{ours_count} schemas here, {} in onnx",
            schemas.len()
        ));
    }

    let mut resolutions = 0;
    for op in list_of(&reference["resolutions"]) {
        let (domain, name) = (str_of(&op["domain"]), str_of(&op["name"]));
        for (opset, since) in list_of(&op["since_versions"]).iter().enumerate() {
            let theirs = Some(int_of(since)).filter(|&v| v != 0);
            let ours = ops::schema(domain, name, opset as i64).map(Schema::since_version);
            if ours != theirs {
                misses.push(format!(
                    "{domain:?} {name} at opset {opset}: {ours:?}, onnx {theirs:?}"
                ));
            }
            resolutions += 1;
        }
    }

    let bodies: usize = schemas
        .iter()
        .map(|s| s["functions"].as_object().unwrap().len())
        .sum();
    for miss in &misses {
        println!("{miss}");
    }
    println!(
        "ops_reference: {} schemas, {bodies} function bodies, {resolutions} lookups compared; {} differences",
        schemas.len(),
        misses.len()
    );
    assert!(misses.is_empty(), "{} differences from onnx", misses.len());
}
