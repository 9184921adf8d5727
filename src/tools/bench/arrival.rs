//! A kind's first list arriving after the first tree, through the real
//! loop (`bench --part arrival`), as `ui --live -A` meets it on a large
//! cluster: the backend sends its first tree after its wait with the small
//! kinds only (pods not synced), and the pods' list, when it ends, brings
//! every pod at once (as [`Update::Listed`]: seen, not new). Measured: the first tree to its frame, the pods'
//! arrival to the moment the loop has folded them all in (at a wait with
//! nothing left to fold), the keys (`j`, every 100 ms) answered meanwhile
//! and the longest the loop was away from its input. No cluster: the
//! generated cluster of `--objects`, the same as the other parts'.

use std::cell::Cell;
use std::io;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode};

use super::event_loop::{Marks, Timed, key, waits};
use super::{Report, median_and_slowest};
use crate::app::{App, Options};
use crate::backend::{Backend, Command, Update};
use crate::commands::{CmdError, CmdResult};
use crate::model::{KindTable, Object, Unlisted};
use crate::runtime::{self, Events};

/// Between two keys while the pods are folded in.
const KEY_GAP: Duration = Duration::from_millis(100);
/// The loop's first polls before the pods' list ends.
const POLLS_BEFORE: usize = 3;

fn pods_not_synced() -> Unlisted {
    Unlisted {
        resource: "pods".into(),
        reason: "not synced: its watch has not listed yet".into(),
        group: String::new(),
        kind: "Pod".into(),
        detail: String::new(),
    }
}

/// The first tree without the pods, then, a few polls later, the pods.
struct Arrival {
    first: Option<Vec<Arc<Object>>>,
    pods: Vec<Arc<Object>>,
    polls: usize,
    /// When the pods were handed to the loop.
    arrived: Rc<Cell<Option<Instant>>>,
}

impl Backend for Arrival {
    fn send(&mut self, _cmd: Command) {}

    fn poll(&mut self, _elapsed: Duration) -> Vec<Update> {
        self.polls += 1;
        if let Some(objects) = self.first.take() {
            let mut kinds = KindTable::builtin();
            kinds.mark_unlisted(pods_not_synced());
            return vec![Update::reset(objects, kinds)];
        }
        if self.polls <= POLLS_BEFORE || self.pods.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<Update> = std::mem::take(&mut self.pods)
            .into_iter()
            .map(Update::Listed)
            .collect();
        out.push(Update::Unlisted(Vec::new()));
        self.arrived.set(Some(Instant::now()));
        out
    }

    fn now(&self) -> jiff::Timestamp {
        jiff::Timestamp::now()
    }

    fn is_simulator(&self) -> bool {
        false
    }
}

/// `j` every [`KEY_GAP`] once the pods have arrived, until the loop waits
/// with nothing left to fold in.
struct Keys {
    arrived: Rc<Cell<Option<Instant>>>,
    /// When the loop had folded every pod in.
    folded: Option<Instant>,
    due: Option<Instant>,
    read: Marks,
    returned: Option<Instant>,
    longest_away: Duration,
}

impl Events for Keys {
    fn next(&mut self, timeout: Duration) -> io::Result<Option<Event>> {
        let now = Instant::now();
        if self.arrived.get().is_some()
            && let Some(r) = self.returned
        {
            self.longest_away = self.longest_away.max(now - r);
        }
        let event = match self.arrived.get() {
            // A wait: the inbox is empty, every pod folded in.
            Some(_) if !timeout.is_zero() => {
                self.folded.get_or_insert(now);
                None
            }
            Some(at) if now >= *self.due.get_or_insert(at + KEY_GAP) => {
                self.due = Some(now + KEY_GAP);
                self.read.borrow_mut().push(now);
                Some(key(KeyCode::Char('j')))
            }
            _ => {
                std::thread::sleep(timeout);
                None
            }
        };
        self.returned = Some(Instant::now());
        Ok(event)
    }

    fn exhausted(&self) -> bool {
        self.folded.is_some()
    }
}

/// Runs the part on the generated cluster of `objects`.
///
/// # Errors
/// Drawing failed.
pub fn run(objects: usize, report: &mut Report) -> CmdResult {
    let (pods, first): (Vec<Object>, Vec<Object>) = crate::tools::generate::cluster(objects)
        .into_iter()
        .partition(|o| o.kind == "Pod");
    let (n_first, n_pods) = (first.len(), pods.len());
    let arrived = Rc::new(Cell::new(None));
    let mut backend = Arrival {
        first: Some(first.into_iter().map(Arc::new).collect()),
        pods: pods.into_iter().map(Arc::new).collect(),
        polls: 0,
        arrived: Rc::clone(&arrived),
    };
    let mut app = App::new(Options::default());
    let flushed: Marks = Marks::default();
    let mut terminal = Timed::terminal(&flushed)?;
    let mut keys = Keys {
        arrived: Rc::clone(&arrived),
        folded: None,
        due: None,
        read: Marks::default(),
        returned: None,
        longest_away: Duration::ZERO,
    };
    let started = Instant::now();
    runtime::run(&mut terminal, &mut app, &mut backend, &mut keys)
        .map_err(|e| CmdError(e.to_string()))?;
    let flushed = flushed.borrow();
    let first_frame = flushed.first().map(|f| *f - started).unwrap_or_default();
    report.add(
        &format!("arrival: the first tree ({n_first} objects, pods not synced) to its frame"),
        first_frame,
        String::new(),
    );
    let (Some(at), Some(folded)) = (arrived.get(), keys.folded) else {
        return Err(CmdError("the pods never arrived".into()));
    };
    report.add(
        &format!("arrival: {n_pods} pods listed late, to all folded in"),
        folded - at,
        format!("{} objects in the end", app.graph().len()),
    );
    let waits = waits(&keys.read.borrow(), &flushed);
    let (m, note) = median_and_slowest(&waits);
    report.add(
        "arrival: key to frame while they are folded in (j)",
        m,
        note,
    );
    report.add(
        "arrival: longest away from the keyboard meanwhile",
        keys.longest_away,
        String::new(),
    );
    std::mem::forget(app);
    Ok(())
}
