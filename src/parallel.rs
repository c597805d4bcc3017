//! A second thread for the longest loops: reading and writing the number
//! lists of big tensor constants. A list of at least [`MIN_TEXT`] bytes is
//! split in two at a comma and each half is handled on its own thread; the
//! results are joined in order, so they are the same as one thread's.

use std::sync::OnceLock;

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
}
