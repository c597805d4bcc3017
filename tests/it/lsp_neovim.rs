//! `onnxtxt lsp` in a real Neovim, configured as docs/editors.md says: headless,
//! `tests/neovim/e2e.lua` opens an example with a mistake, waits for the
//! diagnostics, asks for hover and definition, renames, fixes the mistake,
//! formats, and writes what it got; this test compares that with its
//! snapshot.
//!
//! Needs `nvim` on `PATH` (`.ci/run` installs Debian's); without it the
//! test says so and passes, except under CI (`CI` set), where it fails.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

#[test]
fn neovim_end_to_end() {
    if !nvim_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "nvim is missing: .ci/run installs it"
        );
        eprintln!("skipped: no nvim on PATH");
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
