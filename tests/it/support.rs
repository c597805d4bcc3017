//! Running the real `onnxtxt` binary from the integration tests, and writing
//! the files they give it.

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

pub use crate::tools::{reference_python, tool_available};
use std::process::{Command, Stdio};

/// What a run of `onnxtxt` gave.
pub struct Run {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    /// Standard output as text.
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.stdout).expect("stdout is UTF-8")
    }
}

/// Shows standard output as text, so that failed assertions are readable.
impl fmt::Debug for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Run")
            .field("code", &self.code)
            .field("stdout", &String::from_utf8_lossy(&self.stdout))
            .field("stderr", &self.stderr)
            .finish()
    }
}

/// How to run `onnxtxt`, besides its arguments. The default has nothing on
/// standard input and the test's directory and environment.
#[derive(Default)]
pub struct Invocation<'a> {
    /// Bytes for standard input.
    pub stdin: Option<&'a [u8]>,
    /// The current directory.
    pub dir: Option<&'a Path>,
    /// Variables to set.
    pub env: &'a [(&'a str, &'a str)],
}

/// Runs `onnxtxt args` as `how` says, with pipes for its output and
/// `NO_COLOR` removed from its environment unless `how.env` sets it.
pub fn run_with(args: &[&str], how: Invocation<'_>) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_onnxtxt"));
    command
        .args(args)
        .env_remove("NO_COLOR")
        .envs(how.env.iter().copied())
        .stdin(if how.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = how.dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("onnxtxt starts");
    if let Some(input) = how.stdin {
        // The command may exit without reading everything: that is its answer.
        let _ = child.stdin.take().unwrap().write_all(input);
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().expect("onnxtxt exits, not killed"),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs `onnxtxt args` with nothing on standard input.
pub fn run(args: &[&str]) -> Run {
    run_with(args, Invocation::default())
}

/// Runs `onnxtxt args` with `stdin` on its standard input.
pub fn run_stdin(args: &[&str], stdin: &[u8]) -> Run {
    run_with(
        args,
        Invocation {
            stdin: Some(stdin),
            ..Invocation::default()
        },
    )
}

/// Runs `onnxtxt args` in `dir`, with nothing on standard input.
pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    run_with(
        args,
        Invocation {
            dir: Some(dir),
            ..Invocation::default()
        },
    )
}

/// Writes `bytes` to `name` in `dir`, and gives its path.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `path` as an argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Rendered diagnostics without the trailing spaces ariadne leaves.
pub fn trim_lines(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}
