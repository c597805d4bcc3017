//! A second thread for the longest loops: reading and writing the number
//! lists of big tensor constants, printing long node lists. To read, a list
//! of at least [`MIN_TEXT_IDLE`] bytes (more when the other core has work
//! of its own, [`with_other_busy`]) is split in two at a comma and each half
//! is handled on its own thread ([`join`]); to print, the helper works one
//! unit ahead of the thread that writes the text ([`pipeline`], or
//! [`ahead`] on the one helper a whole print shares, [`with_helper`]).
//! Results are taken in order, so they are the same as one thread's. When
//! no thread can be started, the calling thread does all the work. (A long
//! node list is lexed and parsed in pieces by `parser::fast::pieces`, whose
//! two threads take pieces in turn through [`join`].) [`with_threads`]
//! turns the helpers off for a call, as if none could be started.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::thread::{JoinHandle, LocalKey, Scope, ScopedJoinHandle};

/// Number lists shorter than this, in bytes of text, stay on one thread
/// while the other thread has work of its own (see [`with_other_busy`]).
pub(crate) const MIN_TEXT: usize = 1 << 20;

/// Number lists shorter than this stay on one thread: a helper costs about
/// 50 µs to start and join, the time of 5,000 numbers.
pub(crate) const MIN_TEXT_IDLE: usize = 1 << 18;

/// A helper's stack: a Linux main thread's 8 MiB, not a spawned thread's
/// 2, so that a piece of text parsed there has room for the grammar over
/// any nesting and never counts its brackets to see whether it needs a
/// stack of its own (`parser::tokens::with_room_for`).
pub(crate) const HELPER_STACK: usize = 8 << 20;

thread_local! {
    /// Whether this thread may start helpers (see [`with_threads`]).
    static ALLOWED: Cell<bool> = const { Cell::new(true) };
    /// Whether another thread has work to do besides this one's (see
    /// [`with_other_busy`]).
    static OTHER_BUSY: Cell<bool> = const { Cell::new(false) };
    /// The helper of the [`with_helper`] call this thread is in, if any.
    static HELPER: RefCell<Option<Helper>> = const { RefCell::new(None) };
}

/// Runs `work` with helper threads allowed or not, on this thread (the
/// setting before comes back afterwards, also when `work` panics). Without
/// them every function here does all the work on the calling thread, with
/// the same results.
pub(crate) fn with_threads<T>(allowed: bool, work: impl FnOnce() -> T) -> T {
    with_setting(&ALLOWED, allowed, work)
}

/// Runs `work` on this thread saying whether the other core has work of
/// its own meanwhile (the pieces of a node list left to read, see
/// `parser::fast::pieces`): then a number list is split only from
/// [`MIN_TEXT`], as a helper would wait for a core; otherwise from
/// [`MIN_TEXT_IDLE`]. The setting before comes back afterwards.
pub(crate) fn with_other_busy<T>(busy: bool, work: impl FnOnce() -> T) -> T {
    with_setting(&OTHER_BUSY, busy, work)
}

/// Whether this thread is in a [`with_other_busy`] call saying the other
/// core has work of its own.
pub(crate) fn other_busy() -> bool {
    OTHER_BUSY.with(Cell::get)
}

/// Runs `work` with this thread's `setting` set to `value`, and the value
/// before put back afterwards, also when `work` panics.
fn with_setting<T>(
    setting: &'static LocalKey<Cell<bool>>,
    value: bool,
    work: impl FnOnce() -> T,
) -> T {
    /// Puts the value before back when dropped.
    struct Restore(&'static LocalKey<Cell<bool>>, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            self.0.with(|setting| setting.set(self.1));
        }
    }
    let _restore = Restore(setting, setting.with(|now| now.replace(value)));
    work()
}

/// Whether a helper thread may be started: helpers are allowed here and
/// the machine has a second core to give.
pub(crate) fn available() -> bool {
    static CORES: OnceLock<usize> = OnceLock::new();
    ALLOWED.with(Cell::get)
        && *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from)) > 1
}

/// Where to split the number list `text` (items and blanks, no brackets)
/// for two threads: at the first comma at or after its middle. `None` when
/// the list is shorter than [`MIN_TEXT_IDLE`] (or [`MIN_TEXT`], see
/// [`with_other_busy`]) or there is no second core. The caller checks that
/// the list has no comment: a comma in a comment separates nothing.
pub(crate) fn split_point(text: &[u8]) -> Option<usize> {
    let min = if other_busy() {
        MIN_TEXT
    } else {
        MIN_TEXT_IDLE
    };
    if text.len() < min || !available() {
        return None;
    }
    let middle = text.len() / 2;
    text[middle..]
        .iter()
        .position(|&b| b == b',')
        .map(|i| middle + i)
}

/// Runs `first` on this thread and `second` on another, at the same time,
/// and returns both results; both on this thread, one after the other,
/// when no thread can be started. A panic in either goes on in this thread.
pub(crate) fn join<A, B: Send>(
    first: impl FnOnce() -> A,
    second: impl FnOnce() -> B + Send,
) -> (A, B) {
    std::thread::scope(|scope| match start(scope, second, |second| second()) {
        Ok(other) => {
            let a = first();
            (a, finish(other))
        }
        Err(second) => (first(), second()),
    })
}

/// A two-thread pipeline over `units`, in order: another thread runs
/// `make` on each unit into a buffer, one unit ahead, while this thread
/// runs `own` on the unit and then `take` on the buffer made for it. The
/// buffers go back to the other thread, which gets them in any state and
/// must overwrite them; there are at most [`PIPELINE_BUFFERS`], so their
/// memory is reused, warm. When no thread can be started, this thread runs
/// `own`, `make` and `take` on each unit in turn. A panic in either thread
/// goes on in this one.
pub(crate) fn pipeline<S, U, B: Default + Send>(
    state: &mut S,
    units: impl Iterator<Item = U> + Clone + Send,
    make: impl FnMut(&U, &mut B) + Send,
    mut own: impl FnMut(&mut S, &U),
    mut take: impl FnMut(&mut S, &U, &mut B),
) {
    std::thread::scope(|scope| {
        let (made_tx, made_rx) = mpsc::sync_channel::<B>(1);
        let (free_tx, free_rx) = mpsc::channel::<B>();
        let helper = start(scope, (units.clone(), make), move |(theirs, mut make)| {
            for (made, unit) in theirs.enumerate() {
                let free = if made < PIPELINE_BUFFERS {
                    Ok(free_rx.try_recv().unwrap_or_default())
                } else {
                    free_rx.recv()
                };
                // This thread's loop ends early only by panicking.
                let Ok(mut buffer) = free else {
                    break;
                };
                make(&unit, &mut buffer);
                if made_tx.send(buffer).is_err() {
                    break;
                }
            }
        });
        if let Err((_, mut make)) = helper {
            let mut buffer = B::default();
            for unit in units {
                own(state, &unit);
                make(&unit, &mut buffer);
                take(state, &unit, &mut buffer);
            }
            return;
        }
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

/// Runs `work` with a helper thread that [`ahead`] calls on this thread
/// share: none is started until the first one hands it a job, so a call
/// with little to do costs no thread; once started, it runs every job
/// handed to it, in order, until `work` returns, then it is joined (also
/// when `work` panics; a panic of the helper goes on in this thread).
/// Within another `with_helper` call on this thread, that call's helper
/// is shared.
pub(crate) fn with_helper<T>(work: impl FnOnce() -> T) -> T {
    if has_helper() {
        return work();
    }
    /// Joins the helper when dropped.
    struct Stop;
    impl Drop for Stop {
        fn drop(&mut self) {
            if let Some(Helper::Running { jobs, thread }) = HELPER.take() {
                drop(jobs);
                if let Err(panic) = thread.join() {
                    if !std::thread::panicking() {
                        std::panic::resume_unwind(panic);
                    }
                }
            }
        }
    }
    HELPER.set(Some(Helper::NotStarted));
    let _stop = Stop;
    work()
}

/// Whether this thread is in a [`with_helper`] call, whose helper runs or
/// may be started.
pub(crate) fn has_helper() -> bool {
    HELPER.with_borrow(|helper| helper.is_some())
}

/// The helper of a [`with_helper`] call.
enum Helper {
    /// Not needed yet.
    NotStarted,
    /// Running the jobs sent to it in turn, until the sender is dropped.
    Running {
        jobs: mpsc::Sender<Job>,
        thread: JoinHandle<()>,
    },
    /// It could not be started: the calling thread does the work.
    Unavailable,
}

/// A job for the helper of [`with_helper`].
type Job = Box<dyn FnOnce() + Send>;

/// Hands `job` to this thread's helper, starting it if it is not running
/// yet; gives `job` back when there is none (outside [`with_helper`],
/// threads not [`available`], no thread could be started, or it stopped).
fn to_helper(job: Job) -> Result<(), Job> {
    if !available() {
        return Err(job);
    }
    HELPER.with_borrow_mut(|helper| {
        if matches!(helper, Some(Helper::NotStarted)) {
            *helper = Some(start_helper());
        }
        match helper {
            Some(Helper::Running { jobs, .. }) => jobs.send(job).map_err(|unsent| unsent.0),
            _ => Err(job),
        }
    })
}

/// A running helper, or [`Helper::Unavailable`] when no thread can be
/// started.
fn start_helper() -> Helper {
    #[cfg(test)]
    tests::STARTED.with(|started| started.set(started.get() + 1));
    let (jobs, queue) = mpsc::channel::<Job>();
    let spawned = std::thread::Builder::new()
        .name("onnxtxt-helper".to_owned())
        .stack_size(HELPER_STACK)
        .spawn(move || queue.into_iter().for_each(|job| job()));
    match spawned {
        Ok(thread) => Helper::Running { jobs, thread },
        Err(_) => Helper::Unavailable,
    }
}

/// A pipeline over `units`, in order, on the helper of [`with_helper`]
/// (this thread's, started if need be): for each unit, this thread hands
/// the helper the job `detach` makes of it (a closure that owns what it
/// needs, and fills a buffer), up to [`AHEAD`] units ahead, then runs
/// `own` on the unit and `take` on the buffer its job filled, saying
/// whether this thread had to wait for it ([`Waited`]). Buffers come from
/// `spare` (or are made) and go back to it, in any state: a job must
/// overwrite its buffer. Without a helper, this thread runs each job when
/// it would have handed it over. A panic of the helper goes on in this
/// thread.
pub(crate) fn ahead<S, U, B, J>(
    state: &mut S,
    units: impl Iterator<Item = U>,
    spare: &mut Vec<B>,
    mut detach: impl FnMut(&U) -> J,
    mut own: impl FnMut(&mut S, &U),
    mut take: impl FnMut(&mut S, &U, &mut B, Waited),
) where
    B: Default + Send + 'static,
    J: FnOnce(&mut B) + Send + 'static,
{
    let mut waiting = VecDeque::with_capacity(AHEAD);
    let mut hand_over = |unit: U, spare: &mut Vec<B>| {
        let job = detach(&unit);
        let mut buffer = spare.pop().unwrap_or_default();
        let (made_tx, made_rx) = mpsc::sync_channel(1);
        let run: Job = Box::new(move || {
            job(&mut buffer);
            // The receiver is gone only when this thread panicked.
            let _ = made_tx.send(buffer);
        });
        let made_here = match to_helper(run) {
            Ok(()) => false,
            Err(run) => {
                run();
                true
            }
        };
        (unit, made_rx, made_here)
    };
    let mut units = units.fuse();
    loop {
        while waiting.len() < AHEAD {
            let Some(unit) = units.next() else { break };
            waiting.push_back(hand_over(unit, spare));
        }
        let Some((unit, made, made_here)) = waiting.pop_front() else {
            return;
        };
        own(state, &unit);
        let (buffer, waited) = match made.try_recv() {
            Ok(buffer) if made_here => (Ok(buffer), Waited::MadeHere),
            Ok(buffer) => (Ok(buffer), Waited::No),
            Err(_) => (made.recv(), Waited::Yes),
        };
        let Ok(mut buffer) = buffer else {
            helper_stopped()
        };
        take(state, &unit, &mut buffer, waited);
        spare.push(buffer);
    }
}

/// Whether the thread running an [`ahead`] pipeline waited for what the
/// helper made of a unit: the helper's share of each unit is too large if
/// it did, and may grow if it did not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Waited {
    /// The helper had made it already.
    No,
    /// This thread waited for the helper to make it.
    Yes,
    /// There was no helper: this thread made it when it would have handed
    /// it over.
    MadeHere,
}

/// The units an [`ahead`] pipeline hands its helper before it takes what
/// the first was made into: one being made while this thread works on
/// another, one waiting.
const AHEAD: usize = 2;

/// Passes on the panic that stopped this thread's helper (a job dropped
/// unrun means the helper is gone, and only a panic ends it early).
fn helper_stopped() -> ! {
    if let Some(Helper::Running { jobs, thread }) = HELPER.take() {
        drop(jobs);
        if let Err(panic) = thread.join() {
            std::panic::resume_unwind(panic);
        }
    }
    unreachable!("a helper stops early only by panicking")
}

/// The buffers a [`pipeline`] makes at most: one being made, one made and
/// waiting, one being taken.
const PIPELINE_BUFFERS: usize = 3;

/// Starts a thread of `scope` that runs `run` on `work`, or gives `work`
/// back when no thread can be started (the system's limit on threads, say).
/// The work waits in a slot the thread empties when it runs, so it starts
/// at once and nothing is lost either way.
fn start<'scope, W, T>(
    scope: &'scope Scope<'scope, '_>,
    work: W,
    run: impl FnOnce(W) -> T + Send + 'scope,
) -> Result<ScopedJoinHandle<'scope, Option<T>>, W>
where
    W: Send + 'scope,
    T: Send + 'scope,
{
    if !ALLOWED.with(Cell::get) {
        return Err(work);
    }
    #[cfg(test)]
    tests::STARTED.with(|started| started.set(started.get() + 1));
    let slot = Arc::new(Mutex::new(Some(work)));
    let theirs = Arc::clone(&slot);
    let spawned = std::thread::Builder::new()
        .name("onnxtxt-helper".to_owned())
        .stack_size(HELPER_STACK)
        .spawn_scoped(scope, move || {
            let work = theirs.lock().ok()?.take()?;
            Some(run(work))
        });
    spawned.map_err(|_| {
        // The thread never ran: the work is still in the slot.
        let work = slot.lock().ok().and_then(|mut slot| slot.take());
        work.expect("a thread that did not start left its work")
    })
}

/// The result of a thread [`start`] started, its panic passed on.
fn finish<T>(handle: ScopedJoinHandle<'_, Option<T>>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        .expect("a started thread finds its work")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn helpers_have_their_stack() {
        let (_, joined) = join(|| (), stacker::remaining_stack);
        let shared = with_helper(|| {
            let mut left = None;
            ahead(
                &mut left,
                std::iter::once(()),
                &mut Vec::new(),
                |_| |buffer: &mut Option<usize>| *buffer = stacker::remaining_stack(),
                |_, _| {},
                |left, _, buffer, _| *left = *buffer,
            );
            left
        });
        // Without a second core, the work ran on this thread.
        if available() {
            for left in [joined, shared] {
                assert!(left.unwrap() >= HELPER_STACK - (256 << 10));
            }
        }
    }

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
    fn shorter_lists_are_split_unless_the_other_core_is_busy() {
        let list = "1.5, -2, 3e4".repeat(MIN_TEXT_IDLE / 10);
        assert!(list.len() < MIN_TEXT);
        let split = split_point(list.as_bytes());
        assert_eq!(split.is_some(), available());
        assert_eq!(with_other_busy(true, || split_point(list.as_bytes())), None);
        assert!(!OTHER_BUSY.with(Cell::get));
        let long = "1.5, -2, 3e4".repeat(MIN_TEXT / 10);
        let split = with_other_busy(true, || split_point(long.as_bytes()));
        assert_eq!(split.is_some(), available());
        assert_eq!(split_point(b"1, 2, 3"), None);
    }

    thread_local! {
        /// How many helpers [`start`] tried to start from this thread.
        pub(super) static STARTED: Cell<usize> = const { Cell::new(0) };
    }

    /// Runs `f` with threads, then without.
    fn with_and_without_threads(f: impl Fn()) {
        f();
        with_threads(false, f);
    }

    /// How many helpers `work` tried to start, and what it gave.
    pub(crate) fn helpers_of<T>(work: impl FnOnce() -> T) -> (usize, T) {
        let before = STARTED.with(Cell::get);
        let output = work();
        (STARTED.with(Cell::get) - before, output)
    }

    #[test]
    fn without_threads_nothing_starts_and_the_setting_comes_back() {
        let (started, _) = helpers_of(|| with_threads(false, || join(|| 1, || 2)));
        assert_eq!(started, 0);
        assert!(!with_threads(false, available));
        let panicked = std::panic::catch_unwind(|| with_threads(false, || panic!("inside")));
        assert!(panicked.is_err());
        assert!(ALLOWED.with(Cell::get));
        let (started, _) = helpers_of(|| join(|| 1, || 2));
        assert_eq!(started, 1);
    }

    /// A model that takes every two-thread path: a number list of more
    /// than [`MIN_TEXT`] bytes of text, a node list long enough to be
    /// printed on two threads, and a text long enough to be read in pieces.
    fn big_model_text() -> String {
        let weights: Vec<String> = (0..150_000).map(|i| format!("{}.25", i % 1000)).collect();
        let nodes: String = (0..3000)
            .map(|i| format!("  \"t/{}\" = Add(\"t/{i}\", w)\n", i + 1))
            .collect();
        format!(
            "<ir_version: 10, opset_import: [\"\": 21]>\n\
             g (float[150000] \"t/0\") => (float[150000] \"t/3000\")\n\
             <float[150000] w = {{{}}}> {{\n{nodes}}}\n",
            weights.join(", ")
        )
    }

    #[test]
    fn parsing_and_printing_without_threads_give_the_same_results() {
        use prost::Message as _;
        let text = big_model_text();
        assert!(text.len() > MIN_TEXT);
        let on = crate::Parser::new();
        let off = crate::Parser::new().threads(false);
        let (started_on, model) = helpers_of(|| on.parse::<crate::proto::ModelProto>(&text));
        let (started_off, alone) = helpers_of(|| off.parse::<crate::proto::ModelProto>(&text));
        let (model, alone) = (model.unwrap(), alone.unwrap());
        assert_eq!(model.encode_to_vec(), alone.encode_to_vec());
        let printer = crate::Printer::new();
        let (printed_on, text_on) = helpers_of(|| printer.print(&model).text);
        let (printed_off, text_off) = helpers_of(|| printer.threads(false).print(&model).text);
        assert_eq!(text_on, text_off);
        let mut written = Vec::new();
        printer.threads(false).write(&model, &mut written).unwrap();
        assert_eq!(written, text_on.as_bytes());
        assert_eq!((started_off, printed_off), (0, 0));
        if std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) {
            assert!(
                started_on > 0 && printed_on > 0,
                "{started_on} {printed_on}"
            );
        }
    }

    #[test]
    fn join_returns_both_results_in_order() {
        with_and_without_threads(|| assert_eq!(join(|| 1, || "two"), (1, "two")));
    }

    /// The log of an [`ahead`] pipeline over `units`, and the spare
    /// buffers it left.
    fn ahead_log(units: std::ops::Range<u32>) -> (Vec<String>, usize) {
        let (mut log, mut spare) = (Vec::new(), Vec::new());
        ahead(
            &mut log,
            units,
            &mut spare,
            |&n| move |made: &mut String| *made = format!("made {n}"),
            |log, &n| log.push(format!("own {n}")),
            |log, &n, made, _| log.push(format!("{n}: {made}")),
        );
        (log, spare.len())
    }

    #[test]
    fn ahead_takes_what_was_made_of_each_unit_in_order() {
        let expected = |units: std::ops::Range<u32>| -> Vec<String> {
            units
                .flat_map(|n| [format!("own {n}"), format!("{n}: made {n}")])
                .collect()
        };
        for units in [0..0, 0..1, 0..2, 0..3, 0..100] {
            let count = units.len();
            // With the helper of a call, without one (outside a call, or
            // with threads off): the same log, and at most `AHEAD` buffers.
            let (started, logs) = helpers_of(|| {
                let shared = with_helper(|| ahead_log(units.clone()));
                let alone = ahead_log(units.clone());
                let off = with_threads(false, || with_helper(|| ahead_log(units.clone())));
                [shared, alone, off]
            });
            for (log, spare) in logs {
                assert_eq!(log, expected(units.clone()));
                assert_eq!(spare, count.min(AHEAD));
            }
            assert_eq!(started, usize::from(count > 0 && available()));
        }
    }

    #[test]
    fn one_helper_serves_a_whole_call_and_none_starts_without_work() {
        let (started, ()) = helpers_of(|| {
            with_helper(|| {
                assert!(has_helper());
                assert_eq!(helpers_of(|| with_helper(|| 1 + 1)).0, 0);
                for _ in 0..5 {
                    with_helper(|| ahead_log(0..10));
                    ahead_log(0..10);
                }
            });
        });
        assert_eq!(started, usize::from(available()));
        assert!(!has_helper());
    }

    /// What [`ahead`] says of waiting, on one unit whose job runs `job`
    /// and whose own part runs `own`.
    fn waited_for(job: fn(), own: impl FnMut(&mut (), &u8)) -> Waited {
        let mut waited = Vec::new();
        ahead(
            &mut (),
            [0u8].into_iter(),
            &mut Vec::new(),
            |_| move |_: &mut ()| job(),
            own,
            |(), _, (), how| waited.push(how),
        );
        waited[0]
    }

    #[test]
    fn ahead_says_whether_this_thread_waited_for_the_helper() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::time::Duration;
        static JOB_DONE: AtomicBool = AtomicBool::new(false);
        let slow_job = || std::thread::sleep(Duration::from_millis(100));
        let quick_job = || JOB_DONE.store(true, Ordering::SeqCst);
        // Without a helper the job is made here, whatever it takes.
        assert_eq!(waited_for(slow_job, |_, _| {}), Waited::MadeHere);
        let off = with_threads(false, || with_helper(|| waited_for(quick_job, |_, _| {})));
        assert_eq!(off, Waited::MadeHere);
        if !available() {
            return;
        }
        assert_eq!(with_helper(|| waited_for(slow_job, |_, _| {})), Waited::Yes);
        let after_the_job = |_: &mut (), _: &u8| {
            while !JOB_DONE.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            // The job is done; what it made is sent right after (a whole
            // second leaves room for a helper descheduled on a busy machine).
            std::thread::sleep(Duration::from_secs(1));
        };
        JOB_DONE.store(false, Ordering::SeqCst);
        assert_eq!(
            with_helper(|| waited_for(quick_job, after_the_job)),
            Waited::No
        );
    }

    #[test]
    fn a_panic_of_the_helper_goes_on_in_the_calling_thread() {
        for units in [0..1, 0..50] {
            let panicked = std::panic::catch_unwind(|| {
                with_helper(|| {
                    ahead(
                        &mut (),
                        units.clone(),
                        &mut Vec::new(),
                        |&n| move |_: &mut String| assert!(n != 0, "job {n}"),
                        |(), _| {},
                        |(), _, _, _| {},
                    );
                })
            });
            let panic = panicked.unwrap_err();
            assert_eq!(panic.downcast_ref::<String>().unwrap(), "job 0");
            assert!(!has_helper());
        }
    }

    #[test]
    fn pipeline_takes_what_was_made_of_each_unit_in_order() {
        with_and_without_threads(|| {
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
        });
    }
}
