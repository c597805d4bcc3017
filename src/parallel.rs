//! A second thread for the longest loops: reading and writing the number
//! lists of big tensor constants, printing long node lists. To read, a list
//! of at least [`MIN_TEXT`] bytes is split in two at a comma and each half
//! is handled on its own thread ([`join`]); to print, the helper works one
//! unit ahead of the thread that writes the text ([`pipeline`]). Results
//! are taken in order, so they are the same as one thread's. (A long node
//! list is lexed and parsed in pieces on two threads by `parser::pieces`,
//! which asks [`available`] too.)

use std::sync::{mpsc, OnceLock};

/// Number lists shorter than this, in bytes of text, stay on one thread.
pub(crate) const MIN_TEXT: usize = 1 << 20;

/// Whether the machine has a second core to give.
pub(crate) fn available() -> bool {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from)) > 1
}

/// Where to split the number list `text` (items and blanks, no brackets)
/// for two threads: at the first comma at or after its middle. `None` when
/// the list is shorter than [`MIN_TEXT`] or there is no second core. The
/// caller checks that the list has no comment: a comma in a comment
/// separates nothing.
pub(crate) fn split_point(text: &[u8]) -> Option<usize> {
    if text.len() < MIN_TEXT || !available() {
        return None;
    }
    let middle = text.len() / 2;
    text[middle..]
        .iter()
        .position(|&b| b == b',')
        .map(|i| middle + i)
}

/// Runs `first` on this thread and `second` on another, at the same time,
/// and returns both results. A panic in either goes on in this thread.
pub(crate) fn join<A, B: Send>(
    first: impl FnOnce() -> A,
    second: impl FnOnce() -> B + Send,
) -> (A, B) {
    std::thread::scope(|scope| {
        let other = scope.spawn(second);
        let a = first();
        let b = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (a, b)
    })
}

/// A two-thread pipeline over `units`, in order: another thread runs
/// `make` on each unit into a buffer, one unit ahead, while this thread
/// runs `own` on the unit and then `take` on the buffer made for it. The
/// buffers go back to the other thread, which gets them in any state and
/// must overwrite them. A panic in either thread goes on in this one.
pub(crate) fn pipeline<S, U, B: Default + Send>(
    state: &mut S,
    units: impl Iterator<Item = U> + Clone + Send,
    mut make: impl FnMut(&U, &mut B) + Send,
    mut own: impl FnMut(&mut S, &U),
    mut take: impl FnMut(&mut S, &U, &mut B),
) {
    std::thread::scope(|scope| {
        let (made_tx, made_rx) = mpsc::sync_channel::<B>(1);
        let (free_tx, free_rx) = mpsc::channel::<B>();
        let theirs = units.clone();
        scope.spawn(move || {
            for unit in theirs {
                let mut buffer = free_rx.try_recv().unwrap_or_default();
                make(&unit, &mut buffer);
                if made_tx.send(buffer).is_err() {
                    break;
                }
            }
        });
        for unit in units {
            own(state, &unit);
            // The other thread ends early only by panicking, which the
            // scope then passes on.
            let Ok(mut buffer) = made_rx.recv() else {
                break;
            };
            take(state, &unit, &mut buffer);
            // The other thread may be done: then the buffer is not needed.
            let _ = free_tx.send(buffer);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_long_lists_at_a_comma_past_the_middle() {
        let list = "1.5, -2, 3e4".repeat(MIN_TEXT / 10);
        match split_point(list.as_bytes()) {
            Some(at) => {
                assert_eq!(list.as_bytes()[at], b',');
                assert!(at >= list.len() / 2 && at < list.len() / 2 + 10);
            }
            None => assert!(!available()),
        }
        assert_eq!(split_point(b"1, 2, 3"), None);
    }

    #[test]
    fn join_returns_both_results_in_order() {
        assert_eq!(join(|| 1, || "two"), (1, "two"));
    }

    #[test]
    fn pipeline_takes_what_was_made_of_each_unit_in_order() {
        let mut log = Vec::new();
        pipeline(
            &mut log,
            1..=100u32,
            |&n, made: &mut String| *made = format!("made {n}"),
            |log, &n| log.push(format!("own {n}")),
            |log, &n, made| log.push(format!("{n}: {made}")),
        );
        let expected: Vec<String> = (1..=100)
            .flat_map(|n| [format!("own {n}"), format!("{n}: made {n}")])
            .collect();
        assert_eq!(log, expected);
    }
}
