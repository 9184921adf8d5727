//! The forest index's ids: each object's dense id found by its uid, and
//! its uid and search label (`kind/name`, lower case) read back by id.
//!
//! The uids and labels lie one after the other in one buffer, and the
//! table by uid holds ids only. Before, every object had its uid copied
//! into an `Arc<str>` (the map's key, shared with the id's record) and its
//! label boxed: two allocations and a hash map entry of 24 bytes an
//! object, most of the fresh pages of the UI's index at a million objects.

use hashbrown::HashTable;

use super::index::NodeId;

/// Where an id's uid and label lie in the buffer: the uid from `start`,
/// then the label. A free id has neither (both empty).
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: usize,
    uid: u32,
    label: u32,
}

impl Span {
    fn len(self) -> usize {
        self.uid as usize + self.label as usize
    }
}

/// Ids by uid, and each id's uid and label.
#[derive(Clone, Debug, Default)]
pub(super) struct Uids {
    /// (the uid's hash, its id).
    table: HashTable<(u64, NodeId)>,
    hasher: foldhash::fast::RandomState,
    /// Every live id's uid and label, and what freed ids or changed
    /// labels left behind (`dead` bytes of it).
    text: String,
    spans: Vec<Span>,
    dead: usize,
}

/// A length kept in 32 bits: uids and labels are short (the API server
/// takes names of 253 bytes at most); a longer one is cut at a character.
fn len32(s: &str) -> (&str, u32) {
    if let Ok(n) = u32::try_from(s.len()) {
        return (s, n);
    }
    let mut end = u32::MAX as usize;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], u32::try_from(end).unwrap_or(0))
}

/// The uid of `id` in `text` (empty for a free one).
fn uid_in<'a>(text: &'a str, spans: &[Span], id: NodeId) -> &'a str {
    spans
        .get(id as usize)
        .map_or("", |s| &text[s.start..s.start + s.uid as usize])
}

impl Uids {
    fn hash(&self, uid: &str) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hasher, uid)
    }

    /// Room for `additional` more ids, of about `bytes` of text.
    pub(super) fn reserve(&mut self, additional: usize, bytes: usize) {
        self.table.reserve(additional, |e| e.0);
        self.spans.reserve(additional);
        self.text.reserve(bytes);
    }

    /// The id of `uid`.
    pub(super) fn get(&self, uid: &str) -> Option<NodeId> {
        let hash = self.hash(uid);
        self.table
            .find(hash, |&(h, id)| h == hash && self.uid(id) == uid)
            .map(|e| e.1)
    }

    /// Gives `id` to `uid` (which has none), with its label.
    pub(super) fn insert(&mut self, uid: &str, label: &str, id: NodeId) {
        let hash = self.hash(uid);
        self.table.insert_unique(hash, (hash, id), |e| e.0);
        self.put(id, uid, label);
    }

    /// Takes `uid`'s id away; its uid and label go with it.
    pub(super) fn remove(&mut self, uid: &str) -> Option<NodeId> {
        let hash = self.hash(uid);
        let (text, spans) = (&self.text, &self.spans);
        let found = self
            .table
            .find_entry(hash, |&(h, id)| h == hash && uid_in(text, spans, id) == uid)
            .ok()?;
        let ((_, id), _) = found.remove();
        if let Some(span) = self.spans.get_mut(id as usize) {
            self.dead += span.len();
            *span = Span::default();
        }
        self.compact();
        Some(id)
    }

    /// Sets the label of a live id; whether it changed.
    pub(super) fn set_label(&mut self, id: NodeId, label: &str) -> bool {
        if self.label(id) == label {
            return false;
        }
        let uid = self.uid(id).to_string();
        if let Some(span) = self.spans.get(id as usize) {
            self.dead += span.len();
        }
        self.put(id, &uid, label);
        self.compact();
        true
    }

    /// Writes `uid` and `label` at the end of the text, as `id`'s.
    fn put(&mut self, id: NodeId, uid: &str, label: &str) {
        let (uid, uid_len) = len32(uid);
        let (label, label_len) = len32(label);
        let span = Span {
            start: self.text.len(),
            uid: uid_len,
            label: label_len,
        };
        self.text.push_str(uid);
        self.text.push_str(label);
        let at = id as usize;
        if self.spans.len() <= at {
            self.spans.resize(at + 1, Span::default());
        }
        self.spans[at] = span;
    }

    /// Writes the live text again without what is dead, once that is
    /// most of it: a long run's renames and removals do not grow it
    /// without end.
    fn compact(&mut self) {
        if self.dead < 1 << 16 || self.dead * 2 < self.text.len() {
            return;
        }
        let mut text = String::with_capacity(self.text.len() - self.dead);
        for span in &mut self.spans {
            let from = span.start;
            span.start = text.len();
            text.push_str(&self.text[from..from + span.len()]);
        }
        self.text = text;
        self.dead = 0;
    }

    /// The uid of `id` (empty for a free one).
    pub(super) fn uid(&self, id: NodeId) -> &str {
        uid_in(&self.text, &self.spans, id)
    }

    /// The label of `id` (empty for a free one).
    pub(super) fn label(&self, id: NodeId) -> &str {
        self.spans.get(id as usize).map_or("", |s| {
            let from = s.start + s.uid as usize;
            &self.text[from..from + s.label as usize]
        })
    }

    /// Ids given.
    pub(super) fn len(&self) -> usize {
        self.table.len()
    }

    #[cfg(test)]
    fn text_len(&self) -> usize {
        self.text.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    proptest::proptest! {
        /// Ids given, taken and relabelled in any order answer as a map
        /// of the same would, across compactions.
        #[test]
        fn answers_as_a_map(ops in proptest::collection::vec((0u8..3, 0u32..40, 0u8..4), 0..400)) {
            let mut u = Uids::default();
            let mut m: HashMap<String, (NodeId, String)> = HashMap::new();
            let mut next: NodeId = 0;
            // Labels long enough that compaction happens within a run.
            let label = |l: u8| format!("kind/{}", char::from(b'a' + l)).repeat(1_000);
            for (op, n, l) in ops {
                let uid = format!("uid-{n}");
                match op {
                    0 if !m.contains_key(&uid) => {
                        u.insert(&uid, &label(l), next);
                        m.insert(uid, (next, label(l)));
                        next += 1;
                    }
                    1 => {
                        proptest::prop_assert_eq!(u.remove(&uid), m.remove(&uid).map(|e| e.0));
                    }
                    _ => {
                        if let Some((id, old)) = m.get_mut(&uid) {
                            proptest::prop_assert_eq!(u.set_label(*id, &label(l)), *old != label(l));
                            *old = label(l);
                        }
                    }
                }
                proptest::prop_assert_eq!(u.len(), m.len());
                for (uid, (id, label)) in &m {
                    proptest::prop_assert_eq!(u.get(uid), Some(*id));
                    proptest::prop_assert_eq!(u.uid(*id), uid.as_str());
                    proptest::prop_assert_eq!(u.label(*id), label.as_str());
                }
                let live: usize = m.iter().map(|(k, v)| k.len() + v.1.len()).sum();
                proptest::prop_assert!(u.text_len() <= (2 * live).max(live + (1 << 16)));
            }
        }
    }

    #[test]
    fn a_free_id_has_no_uid_nor_label() {
        let mut u = Uids::default();
        u.insert("a", "pod/a", 0);
        assert_eq!(u.remove("a"), Some(0));
        assert_eq!((u.uid(0), u.label(0), u.get("a")), ("", "", None));
        assert_eq!((u.uid(7), u.label(7)), ("", ""));
    }
}
