//! `tract_repro MODEL.onnx`: what `tract_consumer` does with a model, on
//! a file: exit status 0 when tract accepts or declines it, and the
//! panic's message on stderr and exit status 101 when it panics. The
//! findings' predicate scripts run it (see fuzz/findings/README.md).

#[path = "../fuzz_targets/tract/consume.rs"]
mod tract;

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: tract_repro MODEL.onnx");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {}: {e}", path.to_string_lossy());
        std::process::exit(2);
    });
    if let Err(e) = tract::consume(&bytes) {
        println!("tract declines it: {e}");
    }
}
