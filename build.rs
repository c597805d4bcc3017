//! Compiles `grammar/onnx.proto` into the `onnxtxt::proto` types.
//!
//! `protox` parses the schema in pure Rust, so no `protoc` binary is needed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const SCHEMA: &str = "grammar/onnx.proto";
    println!("cargo:rerun-if-changed={SCHEMA}");
    let descriptors = protox::compile([SCHEMA], ["grammar"])?;
    prost_build::Config::new().compile_fds(descriptors)?;
    Ok(())
}
