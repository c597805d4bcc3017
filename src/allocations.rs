//! Test builds count each thread's allocations (and reallocations), so
//! that tests can tell how many a parse or a print makes: each one a small
//! model's call does not need is a fixed cost of every call from Python.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system's allocator, counting on each thread.
struct Counting;

thread_local! {
    static MADE: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // Never fails: the counter is a constant with nothing to drop.
    let _ = MADE.try_with(|made| made.set(made.get() + 1));
}

// SAFETY: each method hands its call to the system's allocator as it is.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// How many allocations and reallocations this thread made while `work`
/// ran, and what it gave.
pub(crate) fn made_by<T>(work: impl FnOnce() -> T) -> (usize, T) {
    let before = MADE.with(Cell::get);
    let output = work();
    (MADE.with(Cell::get) - before, output)
}
