//! A progress line on stderr while big inputs are read, parsed, printed
//! and written: a spinner, the current stage, the bytes written so far and
//! the time taken. Only for inputs of at least [`MIN_BYTES`] and only when
//! stderr is a terminal; otherwise nothing at all is written.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Inputs this big (50 MB) take seconds to handle; smaller ones finish too
/// soon for progress to help.
const MIN_BYTES: usize = 50_000_000;

/// Whether an input of `input_len` bytes shows progress.
fn wanted(input_len: usize, stderr_is_terminal: bool) -> bool {
    stderr_is_terminal && input_len >= MIN_BYTES
}

/// The progress of one command; hidden when not [`wanted`]. Cleared from
/// the terminal when dropped.
pub(crate) struct Progress(ProgressBar);

impl Progress {
    /// Progress for an input of `input_len` bytes.
    pub(crate) fn new(input_len: usize) -> Self {
        if !wanted(input_len, std::io::stderr().is_terminal()) {
            return Progress(ProgressBar::hidden());
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.enable_steady_tick(Duration::from_millis(100));
        Progress(bar)
    }

    /// Starts a stage (`"parsing model.onnxtxt"`).
    pub(crate) fn stage(&self, message: impl Into<Cow<'static, str>>) {
        self.0.set_style(style("{spinner} {msg} ({elapsed})"));
        self.0.set_message(message);
    }

    /// `out`, counting the bytes written through it in the progress line.
    pub(crate) fn counting<W: Write>(&self, out: W) -> impl Write {
        self.0
            .set_style(style("{spinner} {msg} {binary_bytes} ({elapsed})"));
        self.0.set_position(0);
        self.0.wrap_write(out)
    }
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).expect("the templates are valid")
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_big_inputs_on_a_terminal_show_progress() {
        assert!(wanted(MIN_BYTES, true));
        assert!(wanted(usize::MAX, true));
        assert!(!wanted(MIN_BYTES - 1, true));
        assert!(!wanted(MIN_BYTES, false));
        assert!(!wanted(0, false));
    }

    #[test]
    fn a_hidden_progress_passes_bytes_through() {
        let progress = Progress::new(0);
        let mut out = Vec::new();
        progress.counting(&mut out).write_all(b"text").unwrap();
        assert_eq!(out, b"text");
    }
}
