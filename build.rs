//! Compiles `grammar/onnx.proto` and `grammar/onnx-data.proto` into the
//! `onnxtxt::proto` types, and saves the compiled schema as `OUT_DIR/onnx.fds` (an encoded
//! `FileDescriptorSet`, without source info) for `onnxtxt::decode`, which
//! walks binary models guided by it.
//!
//! `protox` parses the schema in pure Rust, so no `protoc` binary is needed.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const SCHEMA: &str = "grammar/onnx.proto";
    // The data messages of test cases (sequences, maps, optionals).
    const DATA_SCHEMA: &str = "grammar/onnx-data.proto";
    println!("cargo:rerun-if-changed={SCHEMA}");
    println!("cargo:rerun-if-changed={DATA_SCHEMA}");
    let mut compiler = protox::Compiler::new(["grammar"])?;
    compiler
        .include_imports(true)
        .include_source_info(false)
        .open_files([SCHEMA, DATA_SCHEMA])?;
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    std::fs::write(
        out_dir.join("onnx.fds"),
        compiler.encode_file_descriptor_set(),
    )?;
    // Source info carries the schema's comments into the generated code.
    compiler.include_source_info(true);
    prost_build::Config::new()
        // An attribute holds one value; boxing the large message kinds keeps
        // AttributeProto small (about 300 bytes instead of 1.6 KB), which
        // every node's attribute list pays for in copies and allocations.
        .boxed(".onnx.AttributeProto.t")
        .boxed(".onnx.AttributeProto.g")
        .boxed(".onnx.AttributeProto.sparse_tensor")
        .boxed(".onnx.AttributeProto.tp")
        // Likewise an optional's value, one of five kinds.
        .boxed(".onnx.OptionalProto.tensor_value")
        .boxed(".onnx.OptionalProto.sparse_tensor_value")
        .boxed(".onnx.OptionalProto.sequence_value")
        .boxed(".onnx.OptionalProto.map_value")
        .compile_fds(compiler.file_descriptor_set())?;
    Ok(())
}
