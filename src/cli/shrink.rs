//! `onnxtxt shrink PREDICATE MODEL -o OUT`: the smallest model found that
//! an executable still finds interesting (exit status 0), as
//! `wasm-tools shrink` does for WebAssembly. The search is
//! `onnxtxt::shrink`; this runs the predicate on candidate files, shows
//! progress, and writes the result (also on Ctrl-C).

use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use onnxtxt::proto::ModelProto;
use onnxtxt::shrink::{shrink_observed, Error, Options, Status};

use super::input::read_input;
use super::io::{load_model, write_output, Failure};

/// Arguments of `onnxtxt shrink`.
#[derive(Debug, clap::Args)]
pub(crate) struct ShrinkArgs {
    /// An executable run with a candidate model's path as its one
    /// argument: exit status 0 means the candidate is still interesting.
    pub(crate) predicate: PathBuf,
    /// The interesting model (text or binary).
    pub(crate) model: PathBuf,
    /// Where to write the smallest interesting model found: canonical
    /// text for a `.onnxtxt` file, binary for `.onnx`, else in the
    /// candidates' form.
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    /// The form of the candidates the predicate reads: the input's by
    /// default.
    #[arg(long, value_enum)]
    pub(crate) format: Option<Form>,
    /// How many candidates to run the predicate on at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) jobs: u16,
    /// Orders the finer edits; the same seed gives the same result.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Let the predicate see models `onnxtxt check` finds errors in (and
    /// start from an invalid one).
    #[arg(long)]
    pub(crate) allow_invalid: bool,
}

/// A model's form on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Form {
    /// The ONNX textual syntax, canonical (`.onnxtxt`).
    Text,
    /// The protobuf encoding (`.onnx`).
    Binary,
}

impl Form {
    fn extension(self) -> &'static str {
        match self {
            Form::Text => "onnxtxt",
            Form::Binary => "onnx",
        }
    }

    fn bytes(self, model: &ModelProto) -> Vec<u8> {
        match self {
            Form::Text => onnxtxt::to_text(model).into_bytes(),
            Form::Binary => onnxtxt::prost::Message::encode_to_vec(model),
        }
    }

    /// The form a file named `path` is in by its extension, if it says.
    fn of_path(path: &Path) -> Option<Form> {
        match path.extension()?.to_str()? {
            "onnxtxt" => Some(Form::Text),
            "onnx" => Some(Form::Binary),
            _ => None,
        }
    }
}

impl ShrinkArgs {
    pub(crate) fn run(self) -> Result<(), Failure> {
        let loaded = load_model(read_input(Some(&self.model))?)?;
        let form = self.format.unwrap_or(if loaded.text.is_some() {
            Form::Text
        } else {
            Form::Binary
        });
        let dir = tempfile::Builder::new()
            .prefix("onnxtxt-shrink-")
            .tempdir()
            .map_err(|e| Failure::Io(format!("cannot make a temporary directory: {e}")))?;
        let predicate = Predicate {
            program: &self.predicate,
            dir: dir.path(),
            form,
            count: AtomicUsize::new(0),
            failure: Mutex::new(None),
        };
        let interrupted = Arc::new(AtomicBool::new(false));
        // Ctrl-C stops the search; the best model so far is written. (The
        // handler, signal-hook's, is the one the output files' cleanup uses.)
        let sigint = signal_hook::consts::SIGINT;
        let _ = signal_hook::flag::register(sigint, Arc::clone(&interrupted));
        let options = Options {
            seed: self.seed,
            allow_invalid: self.allow_invalid,
            jobs: self.jobs.into(),
        };
        let started = Instant::now();
        let progress = progress_bar();
        let observe = |status: &Status<'_>| {
            progress.set_message(format!(
                "{} nodes, {} predicate runs",
                status.nodes, status.runs
            ));
            if interrupted.load(Ordering::SeqCst) {
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        };
        let result = shrink_observed(loaded.model, &options, |m| predicate.holds(m), observe);
        progress.finish_and_clear();
        if let Some(failure) = predicate.failure.lock().ok().and_then(|mut f| f.take()) {
            return Err(Failure::Io(failure));
        }
        let shrunk = result.map_err(|e| match e {
            // Ctrl-C reaches the predicate too, which then fails.
            Error::NotInteresting if interrupted.load(Ordering::SeqCst) => Failure::Exit(130),
            Error::NotInteresting => Failure::Corrupt(format!(
                "{} is not interesting: {} exits with a non-zero status on it",
                loaded.name,
                self.predicate.display()
            )),
            Error::Invalid(errors) => Failure::Corrupt(format!(
                "{}: {} error(s), `onnxtxt check {}` shows them; --allow-invalid shrinks it anyway",
                loaded.name,
                errors.len(),
                loaded.name
            )),
        })?;
        let out_form = Form::of_path(&self.output).unwrap_or(form);
        let bytes = out_form.bytes(&shrunk.model);
        write_output(Some(&self.output), &bytes, out_form == Form::Binary)?;
        eprintln!(
            "{}{}: {} -> {} nodes, {} predicate runs, {:.1} s",
            if shrunk.stopped { "interrupted; " } else { "" },
            self.output.display(),
            shrunk.nodes.0,
            shrunk.nodes.1,
            shrunk.runs,
            started.elapsed().as_secs_f64()
        );
        if shrunk.stopped {
            // As a shell reports a command ended by SIGINT.
            return Err(Failure::Exit(130));
        }
        Ok(())
    }
}

/// A spinner with the nodes left, the predicate's runs and the time, on
/// stderr when it is a terminal.
fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} shrinking: {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

/// The predicate executable, run on candidates written to `dir`.
struct Predicate<'a> {
    program: &'a Path,
    dir: &'a Path,
    form: Form,
    /// Candidates written so far: each gets a file name of its own.
    count: AtomicUsize,
    /// Why the predicate could not be run, if it could not.
    failure: Mutex<Option<String>>,
}

impl Predicate<'_> {
    /// Whether the predicate exits with status 0 on `model`.
    fn holds(&self, model: &ModelProto) -> bool {
        let k = self.count.fetch_add(1, Ordering::Relaxed);
        let path = self
            .dir
            .join(format!("candidate-{k}.{}", self.form.extension()));
        let fail = |message: String| {
            if let Ok(mut failure) = self.failure.lock() {
                failure.get_or_insert(message);
            }
            false
        };
        if let Err(e) = std::fs::write(&path, self.form.bytes(model)) {
            return fail(format!("cannot write {}: {e}", path.display()));
        }
        let status = Command::new(self.program)
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_file(&path);
        match status {
            Ok(status) => status.success(),
            Err(e) => fail(format!("cannot run {}: {e}", self.program.display())),
        }
    }
}
