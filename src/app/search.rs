//! The search's matches, kept per query: which objects' `kind/name`
//! contains it, as a bit per object id. A keystroke that adds to the query
//! looks only at what the query before it matched (a label holding the
//! longer query holds the shorter one), and Backspace finds the shorter
//! query's matches still kept, so typing a name at a million objects
//! costs the previous matches, not every label. Any change to the labels
//! (an object added, removed or renamed: [`ForestIndex::label_stamp`])
//! drops what was kept.

use super::index::{ForestIndex, NodeId};

/// How many queries are kept (each a bit per object: 125 KiB at 1M).
const KEPT: usize = 64;

/// The objects whose label contains one query.
#[derive(Clone, Debug, Default)]
pub struct Matches {
    /// Lower case.
    query: String,
    stamp: u64,
    bits: Vec<u64>,
    count: usize,
}

impl Matches {
    /// Whether object `id`'s label contains the query.
    #[must_use]
    pub fn has(&self, id: NodeId) -> bool {
        let i = id as usize;
        self.bits
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// How many live objects match.
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }

    /// The matching ids, in order.
    fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, bits)| {
            let mut b = *bits;
            std::iter::from_fn(move || {
                if b == 0 {
                    return None;
                }
                let i = b.trailing_zeros();
                b &= b - 1;
                NodeId::try_from(w * 64 + i as usize).ok()
            })
        })
    }

    fn set(&mut self, id: NodeId) {
        let i = id as usize;
        if self.bits.len() <= i / 64 {
            self.bits.resize(i / 64 + 1, 0);
        }
        self.bits[i / 64] |= 1 << (i % 64);
        self.count += 1;
    }
}

/// The matches of the last queries, each query containing the one below.
#[derive(Clone, Debug, Default)]
pub struct SearchCache {
    levels: Vec<Matches>,
}

impl SearchCache {
    /// The matches of `query` (lower case), from the kept query it
    /// contains if there is one, else from every label.
    pub fn matches(&mut self, index: &ForestIndex, query: &str) -> &Matches {
        let stamp = index.label_stamp();
        self.levels.retain(|m| m.stamp == stamp);
        while self
            .levels
            .last()
            .is_some_and(|m| !query.contains(m.query.as_str()))
        {
            self.levels.pop();
        }
        let kept = self.levels.last().is_some_and(|m| m.query == query);
        if !kept {
            let needle = query.as_bytes();
            let mut m = Matches {
                query: query.to_string(),
                stamp,
                bits: Vec::new(),
                count: 0,
            };
            let hit = |id: NodeId| contains(index.label(id).as_bytes(), needle);
            match self.levels.last() {
                Some(before) => before.ids().filter(|id| hit(*id)).for_each(|id| m.set(id)),
                None => index
                    .live_ids()
                    .filter(|id| hit(*id))
                    .for_each(|id| m.set(id)),
            }
            if self.levels.len() == KEPT {
                self.levels.remove(0);
            }
            self.levels.push(m);
        }
        let last = self.levels.len() - 1;
        &self.levels[last]
    }
}

/// Whether `needle` occurs in `hay`: a look for its first byte, then a
/// comparison, with nothing made per call (`str::contains` prepares a
/// searcher for each label, which costs more than a label of 30 bytes
/// takes to read).
#[must_use]
pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let Some(last_start) = hay.len().checked_sub(needle.len()) else {
        return false;
    };
    hay[..=last_start]
        .iter()
        .enumerate()
        .any(|(i, &b)| b == first && &hay[i + 1..i + needle.len()] == rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KindTable, Object, OwnershipGraph};
    use proptest::prelude::*;

    /// What a scan of every live label finds.
    fn scanned(index: &ForestIndex, query: &str) -> Vec<NodeId> {
        index
            .live_ids()
            .filter(|id| index.label(*id).contains(query))
            .collect()
    }

    /// A step of a session: a key typed into the query, Backspace, or an
    /// object (by number) added with a name or removed.
    #[derive(Clone, Debug)]
    enum Step {
        Type(char),
        Back,
        Add(usize, String),
        Remove(usize),
    }

    fn steps() -> impl Strategy<Value = Vec<Step>> {
        prop::collection::vec(
            prop_oneof![
                4 => prop::sample::select(vec!['a', 'b', 'P', '-', '/', 'o']).prop_map(Step::Type),
                2 => Just(Step::Back),
                1 => (0usize..12, "[abAB-]{1,5}").prop_map(|(i, n)| Step::Add(i, n)),
                1 => (0usize..12).prop_map(Step::Remove),
            ],
            1..40,
        )
    }

    proptest! {
        #[test]
        fn contains_agrees_with_str_contains(hay in "[ab/é-]{0,12}", needle in "[ab/é-]{0,4}") {
            prop_assert_eq!(contains(hay.as_bytes(), needle.as_bytes()), hay.contains(needle.as_str()));
        }

        /// The matches kept and narrowed keystroke by keystroke (and found
        /// again on Backspace) are those a scan of every label finds, for
        /// any query typed, with objects added, renamed and removed in
        /// between.
        #[test]
        fn kept_matches_equal_a_scan(
            names in prop::collection::vec("[abAB-]{1,5}", 0..12),
            steps in steps(),
        ) {
            let mut g = OwnershipGraph::new(KindTable::builtin());
            let mut ix = ForestIndex::build(&g);
            let put = |g: &mut OwnershipGraph, ix: &mut ForestIndex, i: usize, name: &str| {
                let mut o = Object::new("v1", "Pod", Some("ns"), name);
                o.metadata.uid = format!("u{i:02}");
                let uid = o.metadata.uid.clone();
                g.upsert(o);
                ix.touch(g, &uid, &[]);
            };
            for (i, n) in names.iter().enumerate() {
                put(&mut g, &mut ix, i, n);
            }
            let mut cache = SearchCache::default();
            let mut query = String::new();
            for step in steps {
                match step {
                    Step::Type(c) => query.push(c),
                    Step::Back => {
                        query.pop();
                    }
                    Step::Add(i, n) => put(&mut g, &mut ix, i, &n),
                    Step::Remove(i) => {
                        let uid = format!("u{i:02}");
                        if g.remove(&uid).is_some() {
                            ix.touch(&g, &uid, &[]);
                        }
                    }
                }
                let lower = query.to_lowercase();
                let want = scanned(&ix, &lower);
                let got = cache.matches(&ix, &lower);
                prop_assert_eq!(got.count(), want.len());
                prop_assert_eq!(got.ids().collect::<Vec<_>>(), want.clone());
                for id in 0..NodeId::try_from(names.len() + 12).unwrap_or(0) {
                    prop_assert_eq!(got.has(id), want.contains(&id));
                }
            }
        }
    }
}
