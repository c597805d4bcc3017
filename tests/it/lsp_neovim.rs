//! `onnxtxt lsp` in a real Neovim, configured as docs/editors.md says: headless,
//! `tests/neovim/e2e.lua` opens an example with a mistake, waits for the
//! diagnostics, asks for hover and definition, renames, fixes the mistake,
//! formats, and writes what it got; this test compares that with its
//! snapshot.
//!
//! Needs `nvim` on `PATH` (`.ci/run` installs Debian's); without it the
//! test is skipped, saying so, except under CI (`CI` set), where it fails
//! ([`tool_available`]).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::tool_available;

/// How long Neovim may take in all before the test fails.
const PATIENCE: Duration = Duration::from_secs(120);

/// docs/editors.md's configuration for Neovim 0.7 to 0.10: the first Lua
/// block after the line that introduces it.
fn documented_configuration() -> String {
    let page = include_str!("../../docs/editors.md");
    let section = &page[page
        .find("\nNeovim 0.7 to 0.10")
        .expect("docs/editors.md's Neovim 0.7 section")..];
    let block = &section[section.find("```lua\n").expect("its Lua block") + "```lua\n".len()..];
    block[..block.find("```").expect("the block's end")].to_owned()
}

fn nvim_available() -> bool {
    Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Without `nvim` the test above is skipped, saying so, and under CI it
/// fails: run by this test binary with an empty `PATH`.
#[test]
fn without_nvim_the_test_says_it_is_skipped_or_fails_under_ci() {
    let run_without_nvim = |ci: Option<&str>| {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args(["--exact", "lsp_neovim::neovim_end_to_end", "--nocapture"])
            .env("PATH", "")
            .env_remove("CI");
        if let Some(ci) = ci {
            command.env("CI", ci);
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.success(), stderr)
    };
    let (passed, stderr) = run_without_nvim(None);
    assert!(passed, "{stderr}");
    assert!(stderr.contains("skipped: no nvim on PATH"), "{stderr}");
    let (passed, stderr) = run_without_nvim(Some("true"));
    assert!(!passed, "{stderr}");
    assert!(stderr.contains("nvim on PATH is missing"), "{stderr}");
}

#[test]
fn neovim_end_to_end() {
    if !tool_available(nvim_available(), "nvim on PATH", ".ci/run installs it") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let example = include_str!("../../examples/control_flow.onnxtxt");
    let model = example.replace(
        "ReduceSum <keepdims: int = 0> (total)",
        "ReduceSum <keepdims: int = 0> (totl)",
    );
    assert_ne!(model, example);
    std::fs::write(dir.path().join("model.onnxtxt"), model).unwrap();
    std::fs::write(dir.path().join("init.lua"), documented_configuration()).unwrap();
    let out = dir.path().join("report.txt");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/neovim/e2e.lua");
    // docs/editors.md runs `onnxtxt`: the one just built comes first on PATH.
    let binary_dir = Path::new(env!("CARGO_BIN_EXE_onnxtxt")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(binary_dir.to_owned()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut child = Command::new("nvim")
        .args([
            "--headless",
            "-n",
            "-i",
            "NONE",
            "-u",
            "init.lua",
            "model.onnxtxt",
            "-c",
        ])
        .arg(format!("luafile {}", script.display()))
        .current_dir(dir.path())
        .env("PATH", path)
        .env("ONNXTXT_NVIM_OUT", &out)
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nvim starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > PATIENCE {
            child.kill().unwrap();
            panic!("nvim took more than {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let report =
        std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("no report ({e}); nvim {status}"));
    assert!(status.success(), "nvim {status}:\n{report}");
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("lsp_neovim", report);
    });
}
