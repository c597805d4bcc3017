//! Running the `onnxtxt` binary from the tests of `print --external-data`,
//! `parse --inline-external` and `print --elide`.

use std::path::Path;
use std::process::{Command, Stdio};

/// What a run of `onnxtxt` gave.
pub struct Run {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    /// Standard output as text.
    pub fn text(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }
}

/// Runs `onnxtxt args` in `dir`, with no standard input and stdout and
/// stderr piped.
pub fn run(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_onnxtxt"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("onnxtxt runs");
    Run {
        code: output.status.code().expect("onnxtxt exits"),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}
