//! Room for the rows, kept from one build to the next and written ahead
//! of need.
//!
//! A fully expanded million rows is 34 MB. Built into fresh memory, most
//! of `E` was the kernel handing out and zeroing those pages (perf of
//! `bench --objects 1000000 --part loop`: 147 of 206 samples in
//! `clear_page_erms`), and a freed buffer's pages go back to the system
//! soon after (mimalloc purges them), so every large build paid again.
//! The rows are now built into a spare buffer, the rows they replace
//! become the spare, and the App's ticks write the spare's room for a
//! fully expanded tree ahead, on a thread of their own, so that its pages
//! are there when a build needs them.

use std::thread::JoinHandle;

use super::rows::{Row, RowKey, RowNode};

/// Up to this many rows of room are written where they are asked for
/// (128 KiB); more on a thread of its own, so that a key is never kept
/// waiting for fresh pages.
pub const INLINE: usize = 4_096;

/// A spare buffer for the rows, and how much of it has been written.
#[derive(Debug, Default)]
pub struct Room {
    /// Empty; its capacity is the room.
    spare: Vec<Row>,
    /// Rows of the room written at least once (their pages are there).
    written: usize,
    /// A spare being written on a thread, and how much of it will be.
    writing: Option<JoinHandle<(Vec<Row>, usize)>>,
}

/// A clone (the App's, in tests) starts without room: the room is memory,
/// not state.
impl Clone for Room {
    fn clone(&self) -> Self {
        Room::default()
    }
}

/// What the room is written with: no heap behind it, so never dropped.
const FILLER: Row = Row {
    key: RowKey(0),
    depth: 0,
    node: RowNode::Object {
        id: 0,
        parent: None,
        cycle: false,
    },
    has_children: false,
    open: false,
};

/// Writes `spare`'s room from `from` to `to` rows (it stays empty).
fn write(spare: &mut Vec<Row>, from: usize, to: usize) {
    if let Some(slots) = spare.spare_capacity_mut().get_mut(from..to) {
        for slot in slots {
            slot.write(FILLER);
        }
    }
}

impl Room {
    /// The spare buffer, empty, to build rows into (an empty one while
    /// the spare is being written).
    pub fn take(&mut self) -> Vec<Row> {
        self.written = 0;
        std::mem::take(&mut self.spare)
    }

    /// Rows no longer shown (or a buffer taken and not used), emptied and
    /// kept as the spare if they hold more room than it does. As much of
    /// their room as they hold rows, or held (`held`: moved out since), is
    /// known written.
    pub fn keep(&mut self, rows: Vec<Row>, held: usize) {
        let written = rows.len().max(held).min(rows.capacity());
        self.keep_written(rows, written);
    }

    /// Where the spare's room is (a test's check that rows are built in
    /// it).
    #[cfg(test)]
    pub fn spare_at(&self) -> *const Row {
        self.spare.as_ptr()
    }

    /// Rows of the spare's room written (a test's check).
    #[cfg(test)]
    pub fn written(&self) -> usize {
        self.written
    }

    fn keep_written(&mut self, mut rows: Vec<Row>, written: usize) {
        let (cap, spare_cap) = (rows.capacity(), self.spare.capacity());
        if cap > spare_cap || (cap == spare_cap && written > self.written) {
            rows.clear();
            self.spare = rows;
            self.written = written;
        }
    }

    /// Makes room for `target` rows ready: a spare that holds them, every
    /// page of it written; on a thread when it is more than [`INLINE`]
    /// rows of writing. Called again, takes in what the thread made.
    /// Returns whether room is still being made.
    pub fn ready(&mut self, target: usize) -> bool {
        if let Some(thread) = self.writing.take() {
            if !thread.is_finished() {
                self.writing = Some(thread);
                return true;
            }
            let (spare, written) = crate::threads::awaited(thread);
            self.keep_written(spare, written);
        }
        let from = if self.spare.capacity() >= target {
            self.written
        } else {
            0
        };
        if from >= target {
            return false;
        }
        let mut spare = std::mem::take(&mut self.spare);
        self.written = 0;
        let make = move || {
            if spare.capacity() < target {
                spare = Vec::with_capacity(target);
            }
            write(&mut spare, from, target);
            (spare, target)
        };
        if target - from <= INLINE {
            let (spare, written) = make();
            self.keep_written(spare, written);
            return false;
        }
        // A thread that cannot start leaves the room as it is.
        self.writing = std::thread::Builder::new()
            .name("rows-room".into())
            .spawn(make)
            .ok();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ready` called as the App's ticks do, until the room is made.
    fn made(room: &mut Room, target: usize) {
        for _ in 0..10_000 {
            if !room.ready(target) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        panic!("room for {target} rows not made in 10 s");
    }

    #[test]
    fn a_little_room_is_made_at_once() {
        let mut room = Room::default();
        assert!(!room.ready(100), "made where it was asked for");
        assert!(room.writing.is_none());
        assert_eq!(room.written, 100);
        let spare = room.take();
        assert!(spare.is_empty() && spare.capacity() >= 100);
        assert_eq!(room.written, 0, "taken: the room went with it");
    }

    #[test]
    fn much_room_is_made_on_a_thread_and_taken_in_at_a_later_call() {
        let mut room = Room::default();
        let target = INLINE * 3 + 7;
        assert!(room.ready(target), "being made");
        assert!(room.writing.is_some());
        made(&mut room, target);
        assert!(room.writing.is_none());
        assert_eq!(room.written, target);
        assert!(!room.ready(target), "made: nothing more to do");
        let spare = room.take();
        assert!(spare.is_empty() && spare.capacity() >= target);
    }

    #[test]
    fn rows_given_back_become_the_spare_when_they_hold_more_room() {
        let mut room = Room::default();
        let mut shown = Vec::with_capacity(100);
        shown.extend(std::iter::repeat_n(FILLER, 40));
        room.keep(shown, 0);
        assert_eq!(room.written, 40, "as many rows as they hold");
        room.keep(vec![FILLER; 3], 0);
        assert_eq!(room.written, 40, "less room: not kept");
        assert!(!room.ready(100), "the rest of its room written");
        assert_eq!(room.written, 100);
        let spare = room.take();
        assert!(spare.is_empty() && spare.capacity() >= 100);
        // Rows moved out of it before it came back: as many written as it
        // held.
        room.keep(spare, 90);
        assert_eq!(room.written, 90);
        assert!(!room.ready(100));
        let spare = room.take();
        // A larger tree: a spare that holds it, written from the start.
        room.keep(spare, 0);
        made(&mut room, INLINE * 2);
        assert_eq!(room.written, INLINE * 2);
        assert!(room.take().capacity() >= INLINE * 2);
    }

    #[test]
    fn a_clone_has_no_room() {
        let mut room = Room::default();
        room.ready(10);
        let copy = room.clone();
        assert_eq!(copy.written, 0);
        assert_eq!(copy.spare.capacity(), 0);
    }
}
