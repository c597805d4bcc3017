//! The commands the documentation shows, run: every ```` ```console ```` block
//! of `README.md` and `docs/*.md` is a `trycmd` case. Each `$ ` line is run
//! from the repository's root, `onnxtxt` being the command this build made,
//! and what it writes (standard output, then standard error) must be the
//! lines under it; a line `...` stands for any lines, `[..]` for the rest of
//! a line, and `? failed` (or `? 2`) after the command expects it to fail.
//! Blocks that are not to be run are ```` ```text ````. `TRYCMD=overwrite
//! cargo test --test it docs::` writes what the commands print into the
//! blocks, to review. Only `onnxtxt` runs: no pipes, no other programs, and
//! nothing written to files.

use crate::support;

#[test]
fn every_console_block_of_the_documentation_runs() {
    trycmd::TestCases::new()
        .register_bin(
            "onnxtxt",
            std::path::PathBuf::from(env!("CARGO_BIN_EXE_onnxtxt")),
        )
        .env("NO_COLOR", "1")
        .case("README.md")
        .case("docs/*.md");
}

/// The README's first block gives a newcomer two commands: the first runs
/// the command on a shipped example (as `cargo run --` runs the binary
/// this test runs), the second is the test suite this test is part of.
#[test]
fn the_readme_starts_with_two_commands_that_work() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let first_block: Vec<&str> = readme
        .split("```")
        .nth(1)
        .expect("the README has a code block")
        .lines()
        .skip(1)
        .map(|line| line.split('#').next().unwrap().trim())
        .filter(|line| !line.is_empty())
        .collect();
    assert_eq!(
        first_block,
        ["cargo run -- print examples/mlp.onnxtxt", "cargo test"]
    );
    let run = support::run(&["print", "examples/mlp.onnxtxt"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.text().contains("mlp (float[N,4] x)"), "{run:?}");
}

/// The git setup the README's tour shows is the start of the one
/// docs/reviews.md shows, which `git_textconv` runs in a real repository.
#[test]
fn the_readmes_git_setup_is_the_tested_one() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let block = readme
        .split("```text\n")
        .map(|rest| rest.split("```").next().unwrap())
        .find(|block| block.contains("diff.onnx.textconv"))
        .expect("the README shows the git setup");
    assert!(
        crate::git_textconv::documented_setup().starts_with(block),
        "the README's git setup is not the start of docs/reviews.md's:\n{block}"
    );
}
