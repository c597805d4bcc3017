//! What the tests of `onnxtxt fmt` and `onnxtxt diff` share: running the
//! real binary, and writing files into a temporary directory.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a run of `onnxtxt` gave.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `onnxtxt` with `args`, `stdin` on its standard input, pipes for
/// its output, `NO_COLOR` unset and `env` set.
pub fn run_with(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_onnxtxt"));
    command
        .args(args)
        .env_remove("NO_COLOR")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("onnxtxt starts");
    // The command may exit without reading everything: that is its answer.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().expect("onnxtxt exits, not killed"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs `onnxtxt` with `args` and nothing on standard input.
pub fn run(args: &[&str]) -> Run {
    run_with(args, b"", &[])
}

/// Writes `bytes` to `name` in `dir`.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `path` as an argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}
