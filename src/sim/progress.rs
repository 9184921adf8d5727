//! How far a load has come, for a loading screen: bytes read, objects
//! parsed, objects indexed. The loader counts into the [`Progress`] that the
//! thread doing the load was given with [`Progress::observe`]; another
//! thread reads it. A load with no observer counts nothing.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Counters of one load, shared between the loading thread and a reader.
#[derive(Debug, Default)]
pub struct Progress {
    bytes_total: AtomicU64,
    bytes_read: AtomicU64,
    parsed: AtomicU64,
    indexed: AtomicU64,
    viewing: AtomicBool,
}

/// What a reader sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    pub bytes_total: u64,
    pub bytes_read: u64,
    /// Objects read from the file so far.
    pub parsed: u64,
    /// Objects the simulator has taken into its store so far.
    pub indexed: u64,
    /// The store is ready and the UI is building its tree from it.
    pub viewing: bool,
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Progress>>> = const { RefCell::new(None) };
}

fn with(f: impl FnOnce(&Progress)) {
    CURRENT.with(|c| {
        if let Some(p) = c.borrow().as_ref() {
            f(p);
        }
    });
}

impl Progress {
    /// Counts what this thread loads into `progress` until the guard goes.
    #[must_use]
    pub fn observe(progress: Arc<Progress>) -> Observing {
        CURRENT.with(|c| *c.borrow_mut() = Some(progress));
        Observing(())
    }

    /// What this thread counts into, for another thread of the same load
    /// to count into too.
    #[must_use]
    pub fn current() -> Option<Arc<Progress>> {
        CURRENT.with(|c| c.borrow().clone())
    }

    #[must_use]
    pub fn seen(&self) -> Seen {
        Seen {
            bytes_total: self.bytes_total.load(Ordering::Relaxed),
            bytes_read: self.bytes_read.load(Ordering::Relaxed),
            parsed: self.parsed.load(Ordering::Relaxed),
            indexed: self.indexed.load(Ordering::Relaxed),
            viewing: self.viewing.load(Ordering::Relaxed),
        }
    }
}

/// Stops the counting when dropped.
#[derive(Debug)]
pub struct Observing(());

impl Drop for Observing {
    fn drop(&mut self) {
        CURRENT.with(|c| *c.borrow_mut() = None);
    }
}

pub(crate) fn file_size(bytes: u64) {
    with(|p| p.bytes_total.store(bytes, Ordering::Relaxed));
}

pub(crate) fn read(bytes: u64) {
    with(|p| {
        p.bytes_read.fetch_add(bytes, Ordering::Relaxed);
    });
}

/// The file is read again from its start (the fast read gave up): what
/// was counted of it is counted again.
pub(crate) fn again() {
    with(|p| {
        p.bytes_read.store(0, Ordering::Relaxed);
        p.parsed.store(0, Ordering::Relaxed);
    });
}

pub(crate) fn parsed_one() {
    with(|p| {
        p.parsed.fetch_add(1, Ordering::Relaxed);
    });
}

/// The last stage of a load: the UI builds its tree from the store.
pub fn viewing() {
    with(|p| p.viewing.store(true, Ordering::Relaxed));
}

pub(crate) fn indexed_one() {
    with(|p| {
        p.indexed.fetch_add(1, Ordering::Relaxed);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_while_observed_and_only_on_its_thread() {
        let p = Arc::new(Progress::default());
        parsed_one();
        {
            let _g = Progress::observe(Arc::clone(&p));
            parsed_one();
            indexed_one();
            viewing();
            read(10);
            std::thread::spawn(parsed_one).join().expect("thread");
        }
        parsed_one();
        assert_eq!(
            p.seen(),
            Seen {
                bytes_total: 0,
                bytes_read: 10,
                parsed: 1,
                indexed: 1,
                viewing: true,
            }
        );
    }
}
