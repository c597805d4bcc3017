//! A list of views whose items outlive a clear ([`KeptList`]), so that
//! the views read one after another into it reuse their room.

use std::ops::Deref;

/// A list of views that keeps its items when cleared: the next read
/// overwrites them in place, their lists' room kept, rather than
/// allocating new ones. It reads as the slice of the items in use.
pub(crate) struct KeptList<T> {
    /// The items in use, then those kept from earlier uses.
    items: Vec<T>,
    /// How many are in use.
    len: usize,
}

impl<T> Default for KeptList<T> {
    fn default() -> Self {
        KeptList {
            items: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Default> KeptList<T> {
    /// Empties the list, keeping its items for the next reads.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds an item, one kept from an earlier use (holding what that use
    /// read, to be read over) or a new one.
    pub(crate) fn push_kept(&mut self) -> &mut T {
        if self.len == self.items.len() {
            self.items.push(T::default());
        }
        self.len += 1;
        &mut self.items[self.len - 1]
    }
}

impl<T> Deref for KeptList<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items[..self.len]
    }
}
