//! Brief highlights of rows that just changed, so that a cascade can be
//! watched: a row that appears, becomes Terminating, loses a finalizer or
//! an owner reference is marked for a moment; a row that disappears stays
//! on screen as a ghost for a moment, where it was.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::time::Duration;

use super::index::NodeId;
use super::rows::{IdSet, KeyFilter, KeyHasher, KeySet, Row, RowKey, RowNode};
use crate::model::{ObjRef, Object};

/// How long a change stays highlighted (real time).
pub const FLASH_FOR: Duration = Duration::from_millis(2500);

/// What just happened to a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlashKind {
    New,
    NowTerminating,
    LostFinalizer(String),
    GainedFinalizer(String),
    LostOwnerRef,
    Gone,
}

impl FlashKind {
    /// The mark drawn after the row's badges (reads without colour).
    #[must_use]
    pub fn text(&self) -> String {
        match self {
            FlashKind::New => "new".into(),
            FlashKind::NowTerminating => "now Terminating".into(),
            FlashKind::LostFinalizer(f) => format!("-finalizer {f}"),
            FlashKind::GainedFinalizer(f) => format!("+finalizer {f}"),
            FlashKind::LostOwnerRef => "-ownerReference".into(),
            FlashKind::Gone => "deleted".into(),
        }
    }
}

/// A highlight and when it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flash {
    pub kind: FlashKind,
    pub until: Duration,
}

/// A row whose object was deleted, kept where it was for a moment.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ghost {
    key: RowKey,
    depth: u16,
    object: Box<ObjRef>,
    /// The row it followed.
    after: Option<RowKey>,
    until: Duration,
}

/// Ids of removed objects, hashed fast (looked up once per row).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Ghosts by the key of the row they follow, hashed as row keys are
/// (looked up once per row).
type AfterMap<'a> = HashMap<Option<RowKey>, Vec<&'a Ghost>, BuildHasherDefault<KeyHasher>>;

/// Highlights by uid, and ghosts.
#[derive(Clone, Debug, Default)]
pub struct Flashes {
    by_uid: HashMap<String, Flash>,
    ghosts: Vec<Ghost>,
}

impl Flashes {
    /// Notes what changed between `old` and `new`.
    pub fn on_upsert(&mut self, old: Option<&Object>, new: &Object, now: Duration) {
        let kind = match old {
            None => Some(FlashKind::New),
            Some(old) => {
                if !old.is_terminating() && new.is_terminating() {
                    Some(FlashKind::NowTerminating)
                } else if let Some(f) = old
                    .metadata
                    .finalizers
                    .iter()
                    .find(|f| !new.metadata.finalizers.contains(f))
                {
                    Some(FlashKind::LostFinalizer(f.clone()))
                } else if let Some(f) = new
                    .metadata
                    .finalizers
                    .iter()
                    .find(|f| !old.metadata.finalizers.contains(f))
                {
                    Some(FlashKind::GainedFinalizer(f.clone()))
                } else if new.metadata.owner_references.len() < old.metadata.owner_references.len()
                {
                    Some(FlashKind::LostOwnerRef)
                } else {
                    None
                }
            }
        };
        if let Some(kind) = kind {
            self.by_uid.insert(
                new.uid().to_string(),
                Flash {
                    kind,
                    until: now + FLASH_FOR,
                },
            );
        }
    }

    /// An object went: its highlight with it.
    pub fn forget(&mut self, uid: &str) {
        self.by_uid.remove(uid);
    }

    /// Keeps every row of the removed objects (by their ids in `rows`) as
    /// a ghost where it was: one look at the rows for a batch of removals.
    pub fn on_remove(&mut self, rows: &[Row], removed: &[(NodeId, ObjRef)], now: Duration) {
        let mut by_id: FastMap<NodeId, &ObjRef> = FastMap::default();
        for (id, obj) in removed {
            by_id.entry(*id).or_insert(obj);
        }
        let ids: IdSet = by_id.keys().collect();
        for (i, r) in rows.iter().enumerate() {
            let Some(obj) = r
                .id()
                .filter(|id| ids.contains(*id))
                .and_then(|id| by_id.get(&id))
            else {
                continue;
            };
            self.ghosts.push(Ghost {
                key: r.key,
                depth: r.depth,
                object: Box::new((*obj).clone()),
                after: i.checked_sub(1).and_then(|p| rows.get(p)).map(|p| p.key),
                until: now + FLASH_FOR,
            });
        }
    }

    /// The highlight of an object, if any.
    #[must_use]
    pub fn get(&self, uid: &str) -> Option<&Flash> {
        self.by_uid.get(uid)
    }

    /// Drops what ended. Returns (anything ended, a ghost ended).
    pub fn expire(&mut self, now: Duration) -> (bool, bool) {
        let before = (self.by_uid.len(), self.ghosts.len());
        self.by_uid.retain(|_, f| f.until > now);
        self.ghosts.retain(|g| g.until > now);
        let ghosts = self.ghosts.len() != before.1;
        (ghosts || self.by_uid.len() != before.0, ghosts)
    }

    pub fn clear(&mut self) {
        self.by_uid.clear();
        self.ghosts.clear();
    }

    /// The earliest moment something ends (for the runtime's wake-up).
    #[must_use]
    pub fn next_expiry(&self) -> Option<Duration> {
        self.by_uid
            .values()
            .map(|f| f.until)
            .chain(self.ghosts.iter().map(|g| g.until))
            .min()
    }

    /// Whether any ghost row is shown.
    #[must_use]
    pub fn has_ghosts(&self) -> bool {
        !self.ghosts.is_empty()
    }

    /// Puts the ghosts back into freshly built rows, each after the row it
    /// followed (or where it was, if that row is gone too).
    #[must_use]
    pub fn with_ghosts(&self, mut rows: Vec<Row>) -> Vec<Row> {
        if self.ghosts.is_empty() {
            return rows;
        }
        let mut out = Vec::new();
        self.ghosts_into(&mut rows, &mut out);
        out
    }

    /// The same, the rows moved out of `rows` into `out` (emptied first,
    /// its room kept) with the ghosts among them.
    pub fn ghosts_into(&self, rows: &mut Vec<Row>, out: &mut Vec<Row>) {
        let mut after = AfterMap::default();
        for g in &self.ghosts {
            after.entry(g.after).or_default().push(g);
        }
        let filter = KeyFilter::new(after.keys().flatten());
        let mut emitted = KeySet::default();
        out.clear();
        out.reserve(rows.len() + self.ghosts.len());
        emit(out, &mut after, &mut emitted, None);
        for r in rows.drain(..) {
            let key = r.key;
            out.push(r);
            if filter.may_contain(key) {
                emit(out, &mut after, &mut emitted, Some(key));
            }
        }
        // Ghosts whose neighbour vanished without a trace go at the end.
        let mut rest: Vec<Option<RowKey>> = after.keys().copied().collect();
        rest.sort();
        for k in rest {
            emit(out, &mut after, &mut emitted, k);
        }
    }
}

/// Emits the ghosts that followed `key`, each followed by its own.
fn emit(out: &mut Vec<Row>, after: &mut AfterMap<'_>, emitted: &mut KeySet, key: Option<RowKey>) {
    let mut stack: Vec<std::vec::IntoIter<&Ghost>> = Vec::new();
    if let Some(gs) = after.remove(&key) {
        stack.push(gs.into_iter());
    }
    while let Some(top) = stack.last_mut() {
        let Some(g) = top.next() else {
            stack.pop();
            continue;
        };
        if emitted.insert(g.key) {
            out.push(Row {
                key: g.key,
                depth: g.depth,
                node: RowNode::Ghost {
                    object: g.object.clone(),
                },
                has_children: false,
                open: false,
            });
            if let Some(next) = after.remove(&Some(g.key)) {
                stack.push(next.into_iter());
            }
        }
    }
}
