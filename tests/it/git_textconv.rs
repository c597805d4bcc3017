//! `onnxtxt print` as a git textconv driver, set up by running the shell
//! block of docs/reviews.md's "Git" section as it is written
//! (with the built `onnxtxt` first on `PATH`) in a temporary repository: a
//! binary model is committed, changed (a node and an attribute), and
//! `git diff`, `git log -p` and `git show --textconv` must show its text;
//! a file that is not a model (truncated, a Git LFS pointer) is one line
//! of that diff, not its end; the `textstat` alias counts lines of text.
//!
//! Hermetic: `HOME` is the temporary folder, the system configuration and
//! every `GIT_*` variable of the caller are ignored. Skipped, with a message,
//! when git is not installed, except in CI (`CI` set), where that fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

const MLP: &str = include_str!("../../examples/mlp.onnxtxt");
const ONNXTXT: &str = env!("CARGO_BIN_EXE_onnxtxt");

/// The first code block of the "Git" section of docs/reviews.md (a
/// ```` ```text ```` block, which the documentation's own test leaves to
/// this one).
pub(crate) fn documented_setup() -> &'static str {
    let page = include_str!("../../docs/reviews.md");
    let section = page
        .split("\n## Git\n")
        .nth(1)
        .expect("docs/reviews.md has a \"Git\" section");
    let section = section.split("\n## ").next().unwrap();
    section
        .split("```text\n")
        .nth(1)
        .and_then(|block| block.split("```").next())
        .expect("the section has a ```text block")
}

/// A temporary git repository (`repo/` in a temporary home).
pub(crate) struct Repo {
    home: TempDir,
}

impl Repo {
    pub(crate) fn new() -> Repo {
        let repo = Repo {
            home: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir(repo.path()).unwrap();
        repo.git(&["init", "--quiet"]);
        repo.git(&["config", "user.name", "onnxtxt tests"]);
        repo.git(&["config", "user.email", "tests@onnxtxt.invalid"]);
        repo
    }

    pub(crate) fn path(&self) -> PathBuf {
        self.home.path().join("repo")
    }

    /// `program` run in the repository, isolated from the caller's git
    /// configuration, with the built `onnxtxt` first on `PATH`.
    pub(crate) fn command(&self, program: &str) -> Command {
        let bin = Path::new(ONNXTXT).parent().unwrap().to_path_buf();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path =
            std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path))).unwrap();
        let mut command = Command::new(program);
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("GIT_") {
                command.env_remove(key);
            }
        }
        command
            .current_dir(self.path())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("PATH", path);
        command
    }

    /// Runs `command`, which must succeed, and gives its standard output.
    pub(crate) fn run(mut command: Command) -> String {
        let output = command.output().expect("the command starts");
        assert!(
            output.status.success(),
            "{command:?} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("the output is UTF-8")
    }

    pub(crate) fn git(&self, args: &[&str]) -> String {
        let mut command = self.command("git");
        command.args(args);
        Repo::run(command)
    }

    /// Writes `text`, parsed by `onnxtxt parse`, to `model.onnx`.
    fn write_model(&self, text: &str) {
        let source = self.home.path().join("model.onnxtxt");
        std::fs::write(&source, text).unwrap();
        let mut command = self.command(ONNXTXT);
        command.arg("parse").arg(&source).args(["-o", "model.onnx"]);
        Repo::run(command);
    }
}

/// Whether git can run; prints why not.
pub(crate) fn have_git() -> bool {
    match Command::new("git").arg("--version").output() {
        Ok(_) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(
                std::env::var_os("CI").is_none(),
                "git is not installed ({e}), and CI needs it"
            );
            eprintln!("skipped: git is not installed ({e})");
            false
        }
        Err(e) => panic!("git does not run: {e}"),
    }
}

/// Asserts that `output` has every line of `lines`.
pub(crate) fn assert_lines(output: &str, lines: &[&str]) {
    for line in lines {
        assert!(
            output.lines().any(|l| l == *line),
            "no line {line:?} in:\n{output}"
        );
    }
}

/// A repository set up as docs/reviews.md says, with `examples/mlp.onnxtxt`
/// committed as `model.onnx`.
fn repo_with_the_perceptron() -> Repo {
    let repo = Repo::new();
    let mut setup = repo.command("sh");
    setup.args(["-e", "-c", documented_setup()]);
    Repo::run(setup);
    repo.write_model(MLP);
    repo.git(&["add", "."]);
    repo.git(&["commit", "--quiet", "-m", "the perceptron"]);
    repo
}

#[test]
fn git_shows_model_changes_as_text() {
    if !have_git() {
        return;
    }
    let repo = repo_with_the_perceptron();

    let changed = MLP
        .replace("a = Relu (h)", "a = Sigmoid (h)")
        .replace("Softmax <axis: int = 1>", "Softmax <axis: int = -1>");
    assert_ne!(changed, MLP, "the example still has the edited lines");
    repo.write_model(&changed);
    let changes = [
        "-  [relu] a = Relu (h)",
        "+  [relu] a = Sigmoid (h)",
        "-  probabilities = Softmax <axis: int = 1> (logits)",
        "+  probabilities = Softmax <axis: int = -1> (logits)",
    ];
    assert_lines(&repo.git(&["diff"]), &changes);
    assert_lines(
        &repo.git(&["diff", "--no-textconv"]),
        &["Binary files a/model.onnx and b/model.onnx differ"],
    );

    repo.git(&["commit", "--quiet", "-a", "-m", "another activation"]);
    let log = repo.git(&["log", "-p"]);
    assert_lines(&log, &changes);
    assert_lines(&log, &["+  [layer1] h = Gemm (x, w1, b1)"]);
    // `cachetextconv` kept the text where docs/reviews.md says.
    repo.git(&[
        "rev-parse",
        "--verify",
        "--quiet",
        "refs/notes/textconv/onnx",
    ]);

    let old = repo.git(&["show", "--textconv", "HEAD~1:model.onnx"]);
    assert_eq!(old, onnxtxt::to_text(&onnxtxt::parse_model(MLP).unwrap()));
}

/// The hunk headers and the changed lines of `git diff -U1`.
fn headers_and_changes(diff: &str) -> (Vec<&str>, Vec<&str>) {
    let headers = diff.lines().filter(|l| l.starts_with("@@")).collect();
    let changes = diff
        .lines()
        .filter(|l| l.starts_with(['-', '+']) && !l.starts_with("---") && !l.starts_with("+++"))
        .collect();
    (headers, changes)
}

#[test]
fn a_changed_weight_is_one_line_under_its_tensor() {
    if !have_git() {
        return;
    }
    let repo = repo_with_the_perceptron();

    // A weight that gets longer, in the second line of w1's values.
    let changed = MLP.replacen("-0.3, 0.1, 0.2, -0.05,", "-0.3, 0.1, 0.2, -0.054321,", 1);
    assert_ne!(changed, MLP, "the example still has the edited values");
    repo.write_model(&changed);
    let diff = repo.git(&["diff", "-U1"]);
    let (headers, changes) = headers_and_changes(&diff);
    assert_eq!(changes.len(), 2, "{diff}");
    assert_eq!(headers.len(), 1, "{diff}");
    assert!(headers[0].ends_with(" @@   float[4,8] w1 = {"), "{diff}");

    // A node's attribute changed under a graph with no initializer: the
    // hunk is named after the graph.
    let relu = "<\n  ir_version: 10,\n  opset_import: [\"\": 21]\n>\n\
                g (float[4] x) => (float[4] y) {\n  a = Relu (x)\n  b = Abs (a)\n  \
                c = Neg (b)\n  y = LeakyRelu <alpha: float = 0.1> (c)\n}\n";
    repo.write_model(relu);
    repo.git(&["commit", "--quiet", "-a", "-m", "a small graph"]);
    repo.write_model(&relu.replace("0.1", "0.2"));
    let diff = repo.git(&["diff", "-U1"]);
    let (headers, changes) = headers_and_changes(&diff);
    assert_eq!(changes.len(), 2, "{diff}");
    assert!(
        headers[0].ends_with(" @@ g (float[4] x) => (float[4] y) {"),
        "{diff}"
    );
}

#[test]
fn documented_setup_names_the_driver() {
    assert_lines(
        documented_setup(),
        &[
            "echo '*.onnx diff=onnx' >> .gitattributes",
            "git config diff.onnx.textconv \"onnxtxt print --textconv\"",
            "git config diff.onnx.xfuncname '^ *[^ #@}].*[{<(]$'",
        ],
    );
}

/// `model.onnx` changed from the perceptron by one activation.
fn change_the_activation(repo: &Repo) {
    let changed = MLP.replace("a = Relu (h)", "a = Sigmoid (h)");
    assert_ne!(changed, MLP, "the example still has the edited line");
    repo.write_model(&changed);
}

#[test]
fn a_file_that_is_not_a_model_is_one_line_of_the_diff() {
    if !have_git() {
        return;
    }
    let repo = repo_with_the_perceptron();
    let model = std::fs::read(repo.path().join("model.onnx")).unwrap();
    let pointer = |oid: char, size: usize| {
        format!(
            "version https://git-lfs.github.com/spec/v1\noid sha256:{}\nsize {size}\n",
            oid.to_string().repeat(64)
        )
    };
    std::fs::write(repo.path().join("copy.onnx"), &model).unwrap();
    std::fs::write(repo.path().join("stored.onnx"), pointer('a', 544)).unwrap();
    repo.git(&["add", "."]);
    repo.git(&["commit", "--quiet", "-m", "a copy, a file in Git LFS"]);

    // The copy is cut short, the LFS file changed, the model changed.
    std::fs::write(repo.path().join("copy.onnx"), &model[..21]).unwrap();
    std::fs::write(repo.path().join("stored.onnx"), pointer('b', 547)).unwrap();
    change_the_activation(&repo);
    let diff = repo.git(&["diff"]);
    let truncated = diff
        .lines()
        .find(|l| l.starts_with("+# not a valid ONNX model: "))
        .unwrap_or_else(|| panic!("no line for the truncated file in:\n{diff}"));
    assert!(
        truncated.contains("runs past the end of the input")
            && truncated.ends_with(", in 21 bytes"),
        "{truncated}"
    );
    assert_lines(
        &diff,
        &[
            "-  [relu] a = Relu (h)",
            "+  [relu] a = Sigmoid (h)",
            &format!(
                "-# Git LFS pointer: oid sha256:{}, size 544",
                "a".repeat(64)
            ),
            &format!(
                "+# Git LFS pointer: oid sha256:{}, size 547",
                "b".repeat(64)
            ),
        ],
    );
    // The copy's old text is all removed, and the new one line added.
    assert_lines(&diff, &["-  [layer1] h = Gemm (x, w1, b1)"]);
}

#[test]
fn textstat_counts_lines_of_text() {
    if !have_git() {
        return;
    }
    let repo = repo_with_the_perceptron();
    change_the_activation(&repo);
    // git's own --stat counts the stored bytes, never the text.
    assert_lines(
        &repo.git(&["diff", "--stat"]),
        &[" 1 file changed, 0 insertions(+), 0 deletions(-)"],
    );
    assert_lines(
        &repo.git(&["textstat"]),
        &[
            " model.onnx |    2 +-",
            " 1 file changed, 1 insertion(+), 1 deletion(-)",
        ],
    );
    let mut numstat = repo.command("sh");
    numstat.args(["-c", "git diff | git apply --numstat"]);
    assert_eq!(Repo::run(numstat), "1\t1\tmodel.onnx\n");
}
