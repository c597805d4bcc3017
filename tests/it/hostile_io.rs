//! The command against hostile files and processes (issue 43): outputs
//! that are not regular files, owners and modes kept, signals mid-write,
//! several outputs of one run, external data that would replace the input
//! or leave the text's directory, data locations that are FIFOs, output no
//! decoder could read, text that is not quite text, and closed pipes.
//!
//! Everything happens in a scratch directory: special files are made
//! there (a FIFO with `mkfifo`, a device with `mknod` when the test runs
//! as root, else a link to `/dev/null`, which is then written into and
//! never replaced). Every child process runs under a time limit.

use std::io::{Read, Write as _};
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, PermissionsExt as _};
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cli::{listing, mlp_binary, MLP_PATH};
use crate::support::{arg, reference_python, write, Run};

/// How long any child may run.
const LIMIT: Duration = Duration::from_secs(60);

/// `onnxtxt args`, started with its output piped.
fn start(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_onnxtxt"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("onnxtxt starts")
}

/// Waits for `child`, killing it past [`LIMIT`] (and failing the test).
fn finish(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + LIMIT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the child ran past {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// [`finish`], and what the child wrote to the pipes it still has for
/// its output, read as it goes (so that a full pipe never stops it).
fn collect(child: &mut Child) -> (ExitStatus, Vec<u8>, String) {
    fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> Option<JoinHandle<Vec<u8>>> {
        pipe.map(|mut pipe| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = pipe.read_to_end(&mut bytes);
                bytes
            })
        })
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = finish(child);
    let joined =
        |read: Option<JoinHandle<Vec<u8>>>| read.map_or_else(Vec::new, |r| r.join().unwrap());
    let stderr = String::from_utf8(joined(stderr)).expect("stderr is UTF-8");
    (status, joined(stdout), stderr)
}

/// [`collect`] without standard output.
fn finish_with_stderr(child: &mut Child) -> (ExitStatus, String) {
    let (status, _, stderr) = collect(child);
    (status, stderr)
}

/// Runs `onnxtxt args` as `support::run_stdin` does (`stdin` on its
/// standard input, none for `None`), killed past [`LIMIT`].
fn run_limited(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_onnxtxt"))
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("onnxtxt starts");
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let input = input.to_vec();
        // The command may exit without reading everything: that is its answer.
        std::thread::spawn(move || pipe.write_all(&input));
    }
    let (status, stdout, stderr) = collect(&mut child);
    Run {
        code: status.code().expect("onnxtxt exits, not killed"),
        stdout,
        stderr,
    }
}

fn run(args: &[&str]) -> Run {
    run_limited(args, None)
}

fn run_stdin(args: &[&str], stdin: &[u8]) -> Run {
    run_limited(args, Some(stdin))
}

/// Waits until `ready` holds, for at most [`LIMIT`].
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + LIMIT;
    while !ready() {
        assert!(Instant::now() < deadline, "waited {LIMIT:?} for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs a system tool (`mkfifo`, `mknod`, `kill`), which must succeed.
fn tool(name: &str, args: &[&str]) {
    let status = Command::new(name)
        .args(args)
        .status()
        .unwrap_or_else(|e| panic!("{name} runs: {e}"));
    assert!(status.success(), "{name} {args:?}: {status}");
}

fn mkfifo(path: &Path) {
    tool("mkfifo", &[arg(path)]);
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self").unwrap().uid() == 0
}

// ---------------------------------------------------------------------------
// Outputs that are not regular files.

/// A character device to write to: as root, a null device made in `dir`
/// (so the system's is never at stake); otherwise a link to `/dev/null`.
fn null_device(dir: &Path) -> PathBuf {
    let path = dir.join("null");
    if is_root() {
        tool("mknod", &[arg(&path), "c", "1", "3"]);
    } else {
        std::os::unix::fs::symlink("/dev/null", &path).unwrap();
    }
    path
}

#[test]
fn a_device_given_to_o_is_written_into_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let null = null_device(dir.path());
    for args in [
        ["parse", MLP_PATH, "-o", arg(&null)],
        ["print", MLP_PATH, "-o", arg(&null)],
    ] {
        let out = run(&args);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(
            std::fs::metadata(&null)
                .unwrap()
                .file_type()
                .is_char_device(),
            "{args:?}: the device was replaced"
        );
    }
    assert_eq!(listing(dir.path()), ["null"]);
}

#[test]
fn a_fifo_given_to_o_gets_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    mkfifo(&fifo);
    let mut reader = Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut command = start(&["parse", MLP_PATH, "-o", arg(&fifo)]);
    let status = finish(&mut command);
    let fifo_kept = std::fs::metadata(&fifo).unwrap().file_type().is_fifo();
    if !fifo_kept {
        // Nothing will ever open what `cat` waits on.
        let _ = reader.kill();
    }
    let (_, received, _) = collect(&mut reader);
    assert!(status.success(), "{status}");
    assert!(fifo_kept, "the FIFO was replaced");
    assert!(received == mlp_binary(), "the FIFO got other bytes");
}

#[test]
fn a_link_to_standard_output_writes_to_the_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    let out = run(&["parse", MLP_PATH, "-o", arg(&link)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout == mlp_binary(), "the pipe got other bytes");
    let kept = std::fs::symlink_metadata(&link).unwrap();
    assert!(kept.file_type().is_symlink(), "the link was replaced");
}

// ---------------------------------------------------------------------------
// A replaced file: owner, group, mode, hard links.

#[test]
fn a_replaced_file_keeps_its_owner_group_and_mode() {
    let dir = tempfile::tempdir().unwrap();
    let target = write(dir.path(), "model.onnx", b"old");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    // As root (as CI runs), the file is given away to `nobody`; a user can
    // only keep their own, so the test sees the mode only.
    let owner = if is_root() {
        std::os::unix::fs::chown(&target, Some(65534), Some(65534)).unwrap();
        (65534, 65534)
    } else {
        let metadata = std::fs::metadata(&target).unwrap();
        (metadata.uid(), metadata.gid())
    };
    let out = run(&["parse", MLP_PATH, "-o", arg(&target)]);
    assert_eq!(out.code, 0, "{out:?}");
    let replaced = std::fs::metadata(&target).unwrap();
    assert!(std::fs::read(&target).unwrap() == mlp_binary());
    assert_eq!((replaced.uid(), replaced.gid()), owner);
    assert_eq!(replaced.permissions().mode() & 0o7777, 0o640);

    // `fmt` rewriting a text in place, too.
    let text = write(
        dir.path(),
        "model.onnxtxt",
        b"g(float x)=>(float y){y=Relu(x)}",
    );
    std::fs::set_permissions(&text, std::fs::Permissions::from_mode(0o604)).unwrap();
    if is_root() {
        std::os::unix::fs::chown(&text, Some(65534), Some(65534)).unwrap();
    }
    let out = run(&["fmt", arg(&text)]);
    assert_eq!(out.code, 0, "{out:?}");
    let formatted = std::fs::metadata(&text).unwrap();
    assert_ne!(formatted.len(), 33, "fmt rewrote nothing");
    assert_eq!((formatted.uid(), formatted.gid()), owner);
    assert_eq!(formatted.permissions().mode() & 0o7777, 0o604);
}

/// docs/command-line.md says so: a replaced file is a new file, and its other hard
/// links keep the old contents.
#[test]
fn a_replaced_file_leaves_its_other_hard_links_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let target = write(dir.path(), "model.onnx", b"old");
    let other = dir.path().join("other.onnx");
    std::fs::hard_link(&target, &other).unwrap();
    let out = run(&["parse", MLP_PATH, "-o", arg(&target)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(std::fs::read(&target).unwrap() == mlp_binary());
    assert!(
        std::fs::read(&other).unwrap() == b"old",
        "the other link changed"
    );
}

// ---------------------------------------------------------------------------
// Several outputs, external data, signals.

/// A binary model with a tensor of 600 floats in `raw_data`, which
/// `print --external-data` moves out.
fn model_with_weights(dir: &Path) -> PathBuf {
    let values = vec!["0.5"; 600].join(", ");
    let text = format!(
        r#"<ir_version: 10, opset_import: ["": 21]>
        g (float[600] x) => (float[600] y) <@<raw: true> float[600] w = {{{values}}}> {{ y = Add(x, w) }}"#
    );
    let binary = onnxtxt::prost::Message::encode_to_vec(&onnxtxt::parse_model(&text).unwrap());
    write(dir, "model.onnx", &binary)
}

#[test]
fn a_failed_run_leaves_every_output_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with_weights(dir.path());
    let data = write(dir.path(), "w.bin", b"the weights of the text beside");
    // The text cannot be written: its path is a directory.
    std::fs::create_dir(dir.path().join("text.onnxtxt")).unwrap();
    let out = run(&[
        "print",
        arg(&model),
        "--external-data",
        arg(&data),
        "-o",
        arg(&dir.path().join("text.onnxtxt")),
    ]);
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(
        std::fs::read(&data).unwrap(),
        b"the weights of the text beside"
    );
    assert_eq!(listing(dir.path()), ["model.onnx", "text.onnxtxt", "w.bin"]);
}

#[test]
fn external_data_cannot_be_the_input_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with_weights(dir.path());
    let before = std::fs::read(&model).unwrap();
    let text = dir.path().join("text.onnxtxt");
    let out = run(&[
        "print",
        arg(&model),
        "--external-data",
        arg(&model),
        "-o",
        arg(&text),
    ]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("is the input model"), "{out:?}");
    assert!(
        std::fs::read(&model).unwrap() == before,
        "the input was replaced"
    );
    assert_eq!(listing(dir.path()), ["model.onnx"]);
}

#[test]
fn external_data_through_a_link_out_of_the_text_directory_is_refused() {
    let scratch = tempfile::tempdir().unwrap();
    let elsewhere = write(scratch.path(), "precious", b"precious");
    let dir = scratch.path().join("text");
    std::fs::create_dir(&dir).unwrap();
    let model = model_with_weights(&dir);
    let link = dir.join("w.bin");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let out = run(&[
        "print",
        arg(&model),
        "--external-data",
        arg(&link),
        "-o",
        arg(&dir.join("text.onnxtxt")),
    ]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("resolves to"), "{out:?}");
    let kept = std::fs::read(&elsewhere).unwrap() == b"precious";
    assert!(kept, "the file the link points to was written");
    assert_eq!(listing(&dir), ["model.onnx", "w.bin"]);
}

/// A model with 600,000 floats of `raw_data`: 2.4 MB of binary, 4.8 MB of
/// text, so that its output is written to the disk in several pieces
/// before the `fsync` (`io::WrittenBack`), and its text read as UTF-8 on
/// two threads (`input::utf8`).
fn big_model() -> onnxtxt::proto::ModelProto {
    let values = (0..600_000).map(|i| format!("{}.25", i % 1000));
    let text = format!(
        r#"<ir_version: 10, opset_import: ["": 21]>
        g (float[N] x) => (float[N] y) <@<raw: true> float[600000] w = {{{}}}> {{ y = Add(x, w) }}"#,
        values.collect::<Vec<_>>().join(", ")
    );
    onnxtxt::parse_model(&text).unwrap()
}

/// An output of several pieces is whole, where it should be, with no
/// temporary file left; a run that fails leaves neither. A big text is read
/// by every command as it is parsed.
#[test]
fn a_big_output_is_whole_and_a_failed_one_absent() {
    let dir = tempfile::tempdir().unwrap();
    let model = big_model();
    let binary = onnxtxt::prost::Message::encode_to_vec(&model);
    let text = onnxtxt::to_text(&model);
    let text_path = write(dir.path(), "big.onnxtxt", text.as_bytes());
    let binary_path = write(dir.path(), "big.onnx", &binary);
    let parsed = dir.path().join("parsed.onnx");
    let printed = dir.path().join("printed.onnxtxt");
    // Once into new files, once over the files of the first run.
    for _ in 0..2 {
        let out = run(&["parse", arg(&text_path), "-o", arg(&parsed)]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(
            std::fs::read(&parsed).unwrap() == binary,
            "parse: other bytes"
        );
        let out = run(&["print", arg(&binary_path), "-o", arg(&printed)]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(
            std::fs::read_to_string(&printed).unwrap() == text,
            "print: other text"
        );
        let names = ["big.onnx", "big.onnxtxt", "parsed.onnx", "printed.onnxtxt"];
        assert_eq!(listing(dir.path()), names);
    }
    // Read from its text (a mapped file, not copied), the same text; and a
    // mistake in it shown at its line.
    let out = run(&["print", arg(&text_path)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout == text.as_bytes(),
        "print of the text: other text"
    );
    let used = text.rfind("(x, w)").unwrap() + 4;
    let flawed = format!("{}v{}", &text[..used], &text[used + 1..]);
    let flawed_path = write(dir.path(), "flawed.onnxtxt", flawed.as_bytes());
    let line = 1 + flawed[..used].matches('\n').count();
    let out = run(&["check", arg(&flawed_path)]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let located = format!("flawed.onnxtxt:{line}:");
    for expected in ["`v` is used but never defined", &located] {
        assert!(out.stderr.contains(expected), "{}", out.stderr);
    }
    std::fs::remove_file(&flawed_path).unwrap();
    // The binary cut short: printing it fails, and writes nothing.
    let cut = write(dir.path(), "cut.onnx", &binary[..binary.len() - 1000]);
    let failed = dir.path().join("failed.onnxtxt");
    let out = run(&["print", arg(&cut), "-o", arg(&failed)]);
    assert_eq!(out.code, 1, "{out:?}");
    let names = [
        "big.onnx",
        "big.onnxtxt",
        "cut.onnx",
        "parsed.onnx",
        "printed.onnxtxt",
    ];
    assert_eq!(listing(dir.path()), names);
}

/// A signal that ends the command mid-write: the weights are written to a
/// temporary file, and the text waits for a reader of its FIFO that never
/// comes. The command ends as the signal ends a process, and leaves
/// neither a temporary file nor the data file behind.
#[test]
fn a_signal_mid_write_removes_the_temporary_files() {
    for (signal, name) in [(2, "INT"), (15, "TERM"), (1, "HUP")] {
        if ignored_here(signal) {
            // A child inherits an ignored signal, and the command keeps it
            // ignored (the next test): run under `nohup`, SIGHUP cannot end it.
            eprintln!("skipped: SIG{name} is ignored by the test process (nohup?)");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let model = model_with_weights(dir.path());
        let fifo = dir.path().join("text.fifo");
        mkfifo(&fifo);
        let data = dir.path().join("w.bin");
        let mut command = start(&[
            "print",
            arg(&model),
            "--external-data",
            arg(&data),
            "-o",
            arg(&fifo),
        ]);
        let temporary = || {
            listing(dir.path())
                .iter()
                .any(|name| name.starts_with(".tmp"))
        };
        wait_until("the temporary data file", temporary);
        tool("kill", &[&format!("-{name}"), &command.id().to_string()]);
        let status = finish(&mut command);
        assert_eq!(status.signal(), Some(signal), "SIG{name}: {status}");
        assert_eq!(
            listing(dir.path()),
            ["model.onnx", "text.fifo"],
            "SIG{name}"
        );
    }
}

/// Whether this process ignores `signal` (the `SigIgn` mask of
/// `/proc/self/status`), which the processes it starts inherit.
fn ignored_here(signal: i32) -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (signal - 1)) != 0)
}

/// A signal the command was started ignoring (`nohup` ignores SIGHUP)
/// stays ignored: the command goes on, and finishes when the FIFO it
/// writes to gets a reader.
#[test]
fn an_ignored_signal_stays_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with_weights(dir.path());
    let fifo = dir.path().join("text.fifo");
    mkfifo(&fifo);
    let data = dir.path().join("w.bin");
    let script = format!(
        "trap '' HUP && exec {} print {} --external-data {} -o {}",
        env!("CARGO_BIN_EXE_onnxtxt"),
        arg(&model),
        arg(&data),
        arg(&fifo)
    );
    let mut command = Command::new("sh")
        .args(["-c", &script])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let temporary = || {
        listing(dir.path())
            .iter()
            .any(|name| name.starts_with(".tmp"))
    };
    wait_until("the temporary data file", temporary);
    tool("kill", &["-HUP", &command.id().to_string()]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(command.try_wait().unwrap().is_none(), "SIGHUP ended it");
    let mut reader = Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let (status, stderr) = finish_with_stderr(&mut command);
    finish(&mut reader);
    assert!(status.success(), "{status}: {stderr}");
    assert_eq!(listing(dir.path()), ["model.onnx", "text.fifo", "w.bin"]);
}

// ---------------------------------------------------------------------------
// Closed pipes.

/// `onnxtxt print big.onnx | head -1`: the command ends quietly and
/// successfully when its reader goes, as `cat` does.
#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "<ir_version: 10, opset_import: [\"\": 21]>\ng (float x) => (float y) {\n  y0 = Relu(x)\n",
    );
    for i in 1..20_000 {
        text.push_str(&format!("  y{i} = Relu(y{})\n", i - 1));
    }
    text.push_str("  y = Identity(y19999)\n}\n");
    let model = write(dir.path(), "big.onnxtxt", text.as_bytes());
    print_then_close_the_pipe(&model, 16);
}

/// `onnxtxt print model | head -c read`: the command ends quietly and
/// successfully when its reader goes.
fn print_then_close_the_pipe(model: &Path, read: usize) {
    let mut command = start(&["print", arg(model)]);
    let mut first = vec![0; read];
    command
        .stdout
        .take()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    // The pipe is closed: the read end is dropped.
    let (status, stderr) = finish_with_stderr(&mut command);
    assert_eq!(status.code(), Some(0), "{read}: {status}: {stderr}");
    assert_eq!(stderr, "");
}

/// `onnxtxt print heavy.onnx | head -c 16`, where the binary model's
/// number lists are printed with the helper the whole print shares (1 MiB
/// of encoding, lists of 4Ki numbers): the command ends quietly and
/// successfully, its helper joined, whether the pipe closes in a list or
/// before.
#[test]
fn a_closed_pipe_in_a_split_list_ends_the_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let values = vec!["0.125"; 4096].join(", ");
    let weights: Vec<String> = (0..100)
        .map(|i| format!("float[4096] w{i} = {{{values}}}"))
        .collect();
    let text = format!(
        "<ir_version: 10, opset_import: [\"\": 21]>\ng (float x) => (float y) <{}> {{ y = Relu(x) }}",
        weights.join(", ")
    );
    let binary = onnxtxt::prost::Message::encode_to_vec(&onnxtxt::parse_model(&text).unwrap());
    assert!(binary.len() > 1 << 20);
    let model = write(dir.path(), "heavy.onnx", &binary);
    for read in [16, 200_000] {
        print_then_close_the_pipe(&model, read);
    }
}

// ---------------------------------------------------------------------------
// External data that is not a regular file.

/// A text whose initializer `w` (600 floats) is external data at
/// `location`.
fn text_with_external(location: &str) -> String {
    format!(
        r#"<ir_version: 10, opset_import: ["": 21]>
g (float[600] x) => (float[600] y)
  <float[600] w = ["location": "{location}", "length": "2400"]>
{{ y = Add(x, w) }}
"#
    )
}

#[test]
fn inline_external_refuses_a_fifo_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    mkfifo(&dir.path().join("w.fifo"));
    let text = write(
        dir.path(),
        "model.onnxtxt",
        text_with_external("w.fifo").as_bytes(),
    );
    let output = dir.path().join("model.onnx");
    let mut command = start(&["parse", arg(&text), "--inline-external", "-o", arg(&output)]);
    let (status, stderr) = finish_with_stderr(&mut command);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is not a regular file"), "{stderr}");
    assert!(stderr.contains("model.onnxtxt:3:4"), "{stderr}");
    assert!(!output.exists());
}

// ---------------------------------------------------------------------------
// Output no decoder could read.

/// The text of a model whose graphs nest `levels` deep through `If`
/// attributes: the innermost graph is message depth `1 + 3 * levels`.
fn nested_text(levels: usize) -> String {
    onnxtxt::Printer::new()
        .print(&crate::cli::nested_graphs(levels))
        .text
}

#[test]
fn parse_refuses_nesting_no_decoder_reads() {
    let dir = tempfile::tempdir().unwrap();
    // 33 levels: the innermost graph at depth 100, the deepest decoders read.
    let deepest = write(dir.path(), "deepest.onnxtxt", nested_text(33).as_bytes());
    let binary = dir.path().join("deepest.onnx");
    let out = run(&["parse", arg(&deepest), "-o", arg(&binary)]);
    assert_eq!(out.code, 0, "{out:?}");
    let out = run(&["print", arg(&binary)]);
    assert_eq!(out.code, 0, "{out:?}");

    let too_deep = write(dir.path(), "too_deep.onnxtxt", nested_text(34).as_bytes());
    for check in [&[][..], &["--check"]] {
        let output = dir.path().join("too_deep.onnx");
        let args = [&["parse", arg(&too_deep), "-o", arg(&output)], check].concat();
        let out = run(&args);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert!(out.stderr.contains("onnxtxt::parse::unreadable"), "{out:?}");
        assert!(out.stderr.contains("nested more than 100 deep"), "{out:?}");
        assert!(out.stderr.contains("too_deep.onnxtxt:"), "{out:?}");
        assert!(!output.exists(), "{args:?}");
    }
}

/// Text too deep for decoders, parsed to standard output (a pipe, which
/// cannot take bytes back): nothing is written. How deep the text nests is
/// found while it is parsed, before the first byte is written.
#[test]
fn parse_refuses_nesting_without_writing_to_standard_output() {
    let out = run_stdin(&["parse"], nested_text(34).as_bytes());
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("onnxtxt::parse::unreadable"), "{out:?}");
    assert!(out.stdout.is_empty(), "{} bytes written", out.stdout.len());
}

/// The limit is onnx.load's: it reads what `parse` writes at 33 levels and
/// refuses 34.
#[test]
#[ignore = "needs the reference (conformance/setup.sh); run by conformance/run.sh"]
fn the_nesting_limit_is_onnx_loads() {
    let Some(python) = reference_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let deepest = write(dir.path(), "deepest.onnxtxt", nested_text(33).as_bytes());
    let binary = dir.path().join("deepest.onnx");
    let out = run(&["parse", arg(&deepest), "-o", arg(&binary)]);
    assert_eq!(out.code, 0, "{out:?}");
    let too_deep = onnxtxt::parse_model(&nested_text(34)).unwrap();
    let too_deep = write(
        dir.path(),
        "too_deep.onnx",
        &onnxtxt::prost::Message::encode_to_vec(&too_deep),
    );
    assert_eq!(onnx_load(&python, &binary), Ok(()));
    let refused = onnx_load(&python, &too_deep).unwrap_err();
    assert!(refused.contains("MaxDepth"), "{refused}");
}

/// `onnx.load` of `path` by the reference's `python`: its error when it
/// refuses.
fn onnx_load(python: &Path, path: &Path) -> Result<(), String> {
    let out = Command::new(python)
        .args(["-c", "import sys, onnx; onnx.load(sys.argv[1])", arg(path)])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (run conformance/setup.sh)", python.display()));
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// A model over 2 GiB cannot be written: the data to inline is counted
/// first, and the 2.4 GB data file (sparse: it takes no disk) is never read.
/// The command runs with 1 GB of address space, which reading it would
/// need twice over.
#[test]
fn parse_refuses_a_model_over_2_gib() {
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::File::create(dir.path().join("w.bin")).unwrap();
    data.set_len(2_400_000_000).unwrap();
    let text = r#"<ir_version: 10, opset_import: ["": 21]>
g (float[N] x) => (float[N] y)
  <float[600000000] w = ["location": "w.bin", "length": "2400000000"]>
{ y = Add(x, w) }
"#;
    let text = write(dir.path(), "big.onnxtxt", text.as_bytes());
    let output = dir.path().join("big.onnx");
    let script = format!(
        "ulimit -v 1000000 && exec {} parse {} --inline-external -o {}",
        env!("CARGO_BIN_EXE_onnxtxt"),
        arg(&text),
        arg(&output)
    );
    let mut command = Command::new("sh")
        .args(["-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, stderr) = finish_with_stderr(&mut command);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("over 2 GiB"), "{stderr}");
    assert!(stderr.contains("big.onnxtxt:1:1"), "{stderr}");
    assert!(!output.exists());
}

// ---------------------------------------------------------------------------
// Text that is not quite text.

/// The MLP example behind a comment that puts its nodes past byte 1,000,
/// with the first byte of its first `Relu` replaced by `byte`; and the
/// offset of that byte.
fn flawed_text(byte: u8) -> (Vec<u8>, usize) {
    let mut text = format!("# {}\n", "padding ".repeat(130)).into_bytes();
    let example = std::fs::read(MLP_PATH).unwrap();
    let relu = example.windows(4).position(|w| w == b"Relu").unwrap();
    let flaw = text.len() + relu;
    text.extend(example);
    text[flaw] = byte;
    (text, flaw)
}

#[test]
fn text_with_one_bad_byte_is_not_taken_for_binary() {
    let dir = tempfile::tempdir().unwrap();
    for (byte, what) in [(0xff, "is not UTF-8"), (0x00, "has a NUL byte")] {
        let (text, flaw) = flawed_text(byte);
        let before = std::str::from_utf8(&text[..flaw]).unwrap();
        let (line, column) = onnxtxt::line_column(before, flaw);
        let path = write(dir.path(), "flawed.onnxtxt", &text);
        let located = format!("flawed.onnxtxt:{line}:{column}: the text {what} at byte 1,");
        let mut commands = vec![
            vec!["print", arg(&path)],
            vec!["check", arg(&path)],
            vec!["infer", arg(&path)],
        ];
        if byte != 0 {
            // A NUL is UTF-8: these read it as text, and the parser shows
            // the character it cannot take, at the same place.
            commands.extend([vec!["parse", arg(&path)], vec!["fmt", arg(&path)]]);
        }
        for args in commands {
            let out = run(&args);
            assert_eq!(out.code, 1, "{args:?}: {out:?}");
            assert!(out.stderr.contains(&located), "{args:?}: {out:?}");
            assert!(!out.stderr.contains("wire type"), "{args:?}: {out:?}");
        }
    }
}

#[test]
fn a_byte_order_mark_is_accepted_and_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let example = std::fs::read_to_string(MLP_PATH).unwrap();
    let marked = format!("\u{feff}{example}");
    let path = write(dir.path(), "marked.onnxtxt", marked.as_bytes());
    let plain = write(dir.path(), "plain.onnxtxt", example.as_bytes());

    let out = run(&["parse", arg(&path)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout == mlp_binary(), "parse: other bytes");
    for command in ["print", "infer"] {
        let marked = run(&[command, arg(&path)]);
        assert_eq!(marked.code, 0, "{command}: {marked:?}");
        let same = marked.stdout == run(&[command, arg(&plain)]).stdout;
        assert!(same, "{command}: other output with the mark");
    }
    let out = run(&["check", arg(&path)]);
    assert_eq!(out.code, 0, "{out:?}");
    // The example is canonical: with the mark, it still is.
    let out = run(&["fmt", "--check", arg(&path)]);
    assert_eq!(out.code, 0, "{out:?}");
    // The library reads the mark as a blank.
    assert_eq!(
        onnxtxt::parse_model(&marked).unwrap(),
        onnxtxt::parse_model(&example).unwrap()
    );
}

#[test]
fn empty_input_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.onnx", b"");
    for args in [
        vec!["print", arg(&empty)],
        vec!["check", arg(&empty)],
        vec!["fmt", arg(&empty)],
        vec!["infer", arg(&empty)],
    ] {
        let out = run(&args);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert!(
            out.stderr.contains("empty.onnx: the input is empty"),
            "{args:?}: {out:?}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
    }
    let out = run_stdin(&["print"], b"");
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("<stdin>: the input is empty"),
        "{out:?}"
    );
    // `diff` keeps 1 for "they differ": an input it cannot read is 2.
    let out = run(&["diff", arg(&empty), MLP_PATH]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("empty.onnx: the input is empty"),
        "{out:?}"
    );
}
