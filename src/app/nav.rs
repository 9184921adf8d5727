//! Moving around the tree: selection, expansion, jumps and search. Jumps
//! and search look through the whole forest (not only the open rows) and
//! open the rows above what they find.

use super::index::NodeId;
use super::modal::{Modal, PickItem, Picker, Purpose, SearchInput};
use super::rows::{self, Only, RowKey, RowNode};
use super::{App, Flag};

/// Where a jump lands: the row and the rows above it to open.
#[derive(Debug)]
pub(super) struct Found {
    pub(super) key: RowKey,
    pub(super) ancestors: Vec<RowKey>,
    /// Its row, when it was found on a shown row: no look for it after.
    pub(super) at: Option<usize>,
}

impl App {
    pub(super) fn select(&mut self, i: usize) {
        if self.rows.is_empty() {
            return;
        }
        let i = i.min(self.rows.len() - 1);
        let key = self.rows[i].key;
        if self.selected_key != Some(key) {
            self.details_scroll = 0;
        }
        self.selected = i;
        self.selected_key = Some(key);
        self.ensure_visible();
    }

    pub(super) fn move_by(&mut self, delta: isize) {
        let i = self.selected.saturating_add_signed(delta);
        self.select(i);
    }

    fn parent_row(&self) -> Option<usize> {
        let depth = self.selected_row()?.depth;
        (0..self.selected)
            .rev()
            .find(|&i| self.rows[i].depth < depth)
    }

    fn set_open(&mut self, i: usize, open: bool) {
        let Some(r) = self.rows.get(i) else { return };
        if !r.has_children || r.open == open || self.filters.only != Only::All {
            return;
        }
        let group = matches!(r.node, RowNode::Group { .. });
        self.expansion.set(r.key, group, open);
        self.reshape_at(i);
    }

    pub(super) fn toggle(&mut self) {
        if let Some(open) = self.selected_row().map(|r| r.open) {
            self.set_open(self.selected, !open);
        }
    }

    pub(super) fn left(&mut self) {
        match self.selected_row() {
            Some(r) if r.open => self.set_open(self.selected, false),
            Some(_) => {
                if let Some(p) = self.parent_row() {
                    self.select(p);
                }
            }
            None => {}
        }
    }

    pub(super) fn right(&mut self) {
        match self.selected_row() {
            Some(r) if r.has_children && !r.open => self.set_open(self.selected, true),
            Some(r) if r.open => self.select(self.selected + 1),
            _ => {}
        }
    }

    /// Opens or closes the selected row and every row below it.
    pub(super) fn set_below(&mut self, open: bool) {
        let Some(row) = self.selected_row().cloned() else {
            return;
        };
        let mut keys = vec![(row.key, matches!(row.node, RowNode::Group { .. }))];
        match &row.node {
            RowNode::Object { id, .. } => {
                // Each path down, as the rows draw it: an object already
                // on its path is a cycle row and nothing opens below it
                // (a cycle of objects with two owners each made paths
                // without end: the key hung).
                let (_, mut path) = self.above(self.selected);
                let base = path.len();
                let mut stack = vec![(*id, row.key, 0usize)];
                while let Some((u, k, depth)) = stack.pop() {
                    path.truncate(base + depth);
                    if path.contains(&u) {
                        continue;
                    }
                    path.push(u);
                    for c in self.index.children_of(u) {
                        let ck = k.child_hash(self.index.uid_hash(*c));
                        keys.push((ck, false));
                        stack.push((*c, ck, depth + 1));
                    }
                }
            }
            RowNode::Group { .. } => {
                let mut inside = Vec::new();
                rows::walk(&self.index, &super::Scope::All, |v| {
                    if v.ancestors.first() == Some(&row.key) {
                        inside.push(v.key);
                    }
                    false
                });
                keys.extend(inside.into_iter().map(|k| (k, false)));
            }
            RowNode::Ghost { .. } => return,
        }
        for (k, group) in keys {
            self.expansion.set(k, group, open);
        }
        self.reshape_at(self.selected);
    }

    pub(super) fn set_all(&mut self, open: bool) {
        self.expansion.reset_all(open);
        self.rebuild();
    }

    /// Opens the rows above `found` and selects it.
    pub(super) fn reveal(&mut self, found: &Found) {
        if self.filters.only == Only::All {
            // Rows are built again only when a row above it was closed:
            // in a fully expanded million rows, a jump costs no rebuild.
            // The rows of the topmost row opened are made again, the
            // rows below it opened with it: all that changed.
            let mut topmost = None;
            for (i, k) in found.ancestors.iter().enumerate() {
                if topmost.is_none() && !self.expansion.is_open(*k, i == 0) {
                    topmost = Some(*k);
                }
                self.expansion.set(*k, i == 0, true);
            }
            if let Some(k) = topmost {
                match self.rows.iter().position(|r| r.key == k) {
                    Some(at) => self.reshape_at(at),
                    None => self.rebuild(),
                }
            }
        }
        let at = found
            .at
            .filter(|&i| self.rows.get(i).is_some_and(|r| r.key == found.key))
            .or_else(|| self.rows.iter().position(|r| r.key == found.key));
        if let Some(i) = at {
            self.select(i);
        }
    }

    /// The next (or previous) object position after the selection whose
    /// uid satisfies `pred`, wrapping around. A filtered view looks at its
    /// rows only; otherwise the whole forest is searched.
    pub(super) fn find(
        &self,
        forward: bool,
        inclusive: bool,
        pred: impl Fn(NodeId) -> bool,
    ) -> Option<Found> {
        // A flat scan first: a miss costs no walk.
        if !self.index.any(&pred) {
            return None;
        }
        if self.filters.only != Only::All {
            let n = self.rows.len();
            let start = self.selected;
            let order: Vec<usize> = if forward {
                (0..n)
                    .map(|d| (start + d + usize::from(!inclusive)) % n.max(1))
                    .collect()
            } else {
                (0..n).map(|d| (start + n * 2 - d - 1) % n.max(1)).collect()
            };
            return order.into_iter().find_map(|i| {
                let r = &self.rows[i];
                r.id().filter(|u| pred(*u)).map(|_| Found {
                    key: r.key,
                    ancestors: Vec::new(),
                    at: Some(i),
                })
            });
        }
        self.find_from_rows(forward, inclusive, &pred)
    }

    /// [`App::find`] by a walk of the whole forest from its top, as it was
    /// before it looked from the rows: what the rows' answer is held to.
    #[cfg(test)]
    pub(super) fn find_by_walk(
        &self,
        forward: bool,
        inclusive: bool,
        pred: impl Fn(NodeId) -> bool,
    ) -> Option<Found> {
        let cur = self.selected_key;
        // Each position is before, at or after the selection; a selected
        // group counts as just before its first object.
        let mut passed = cur.is_none();
        let mut first: Option<Found> = None;
        let mut last: Option<Found> = None;
        let mut hit: Option<Found> = None;
        rows::walk(&self.index, &self.filters.scope, |v| {
            let at = !passed && Some(v.key) == cur;
            let group_start = !passed && cur.is_some() && v.ancestors.first().copied() == cur;
            let before = !passed && !at && !group_start;
            if at || group_start {
                passed = true;
            }
            if !pred(v.id) {
                return false;
            }
            let found = || Found {
                key: v.key,
                ancestors: v.ancestors.to_vec(),
                at: None,
            };
            if first.is_none() {
                first = Some(found());
            }
            if forward {
                if !before && (inclusive || !at) {
                    hit = Some(found());
                    return true;
                }
            } else if before || (at && inclusive) {
                hit = Some(found());
            }
            last = Some(found());
            false
        });
        if hit.is_some() {
            hit
        } else if forward {
            first
        } else {
            last
        }
    }

    /// [`App::find`] from the rows: the object positions of the forest in
    /// display order are each row followed by what it hides (a closed
    /// row's subtree, a closed group's roots and theirs), so the look
    /// starts at the selection and goes as far as the next match, instead
    /// of walking the forest from its top. A match on a shown row opens
    /// nothing.
    pub(super) fn find_from_rows(
        &self,
        forward: bool,
        inclusive: bool,
        pred: &impl Fn(NodeId) -> bool,
    ) -> Option<Found> {
        let n = self.rows.len();
        let sel = self
            .selected_key
            .map(|_| self.selected.min(n.saturating_sub(1)));
        let shown = |i: usize| -> Option<Found> {
            let r = &self.rows[i];
            r.id().filter(|id| pred(*id)).map(|_| Found {
                key: r.key,
                ancestors: Vec::new(),
                at: Some(i),
            })
        };
        let hidden = |i: usize, backward: bool| -> Option<Found> {
            // Most rows hide nothing: told apart here, before any walk is
            // set up (a million open rows are passed over by `t` or `n`).
            let r = &self.rows[i];
            if !r.has_children || r.open {
                return None;
            }
            let mut hits = Vec::new();
            self.hidden_below(i, |key, id, ancestors| {
                if pred(id) {
                    hits.push(Found {
                        key,
                        ancestors: ancestors.to_vec(),
                        at: None,
                    });
                    return !backward;
                }
                false
            });
            if backward {
                hits.pop()
            } else {
                hits.into_iter().next()
            }
        };
        let row_then_hidden = |i: usize| shown(i).or_else(|| hidden(i, false));
        let hidden_then_row = |i: usize| hidden(i, true).or_else(|| shown(i));
        let Some(s) = sel else {
            return if forward {
                (0..n).find_map(row_then_hidden)
            } else {
                (0..n).rev().find_map(hidden_then_row)
            };
        };
        let itself = || if inclusive { shown(s) } else { None };
        let last = || if inclusive { None } else { shown(s) };
        if forward {
            itself()
                .or_else(|| hidden(s, false))
                .or_else(|| (s + 1..n).chain(0..s).find_map(row_then_hidden))
                .or_else(last)
        } else {
            itself()
                .or_else(|| {
                    (0..s)
                        .rev()
                        .chain((s + 1..n).rev())
                        .find_map(hidden_then_row)
                })
                .or_else(|| hidden(s, true))
                .or_else(last)
        }
    }

    /// The row keys above row `i` (its group first) and their objects.
    fn above(&self, i: usize) -> (Vec<RowKey>, Vec<NodeId>) {
        let (mut keys, mut ids) = (Vec::new(), Vec::new());
        let Some(mut depth) = self.rows.get(i).map(|r| r.depth) else {
            return (keys, ids);
        };
        for r in self.rows[..i].iter().rev() {
            if depth == 0 {
                break;
            }
            if r.depth < depth && !matches!(r.node, RowNode::Ghost { .. }) {
                depth = r.depth;
                keys.push(r.key);
                ids.extend(r.id());
            }
        }
        keys.reverse();
        ids.reverse();
        (keys, ids)
    }

    /// Visits the positions row `i` hides (nothing when it is open or has
    /// no children), in display order, with the keys above each (group
    /// first), as [`rows::walk`] gives them, until `f` returns `true`.
    fn hidden_below(&self, i: usize, mut f: impl FnMut(RowKey, NodeId, &[RowKey]) -> bool) {
        let Some(r) = self.rows.get(i).filter(|r| r.has_children && !r.open) else {
            return;
        };
        let ix = &self.index;
        let (mut ancestors, mut path) = self.above(i);
        let mut stack: Vec<(NodeId, RowKey, usize)> = Vec::new();
        match &r.node {
            RowNode::Object { id, cycle, .. } => {
                if *cycle {
                    return;
                }
                ancestors.push(r.key);
                path.push(*id);
                let depth = usize::from(r.depth) + 1;
                for c in ix.children_of(*id).iter().rev() {
                    stack.push((*c, r.key.child_hash(ix.uid_hash(*c)), depth));
                }
            }
            RowNode::Group { namespace, .. } => {
                ancestors = vec![r.key];
                path.clear();
                let roots: Vec<NodeId> = ix
                    .roots_of(
                        namespace.is_none(),
                        namespace.as_deref().map_or("", String::as_str),
                    )
                    .map(|k| k.id)
                    .collect();
                for id in roots.into_iter().rev() {
                    stack.push((id, r.key.child_hash(ix.uid_hash(id)), 1));
                }
            }
            RowNode::Ghost { .. } => return,
        }
        while let Some((id, key, depth)) = stack.pop() {
            ancestors.truncate(depth);
            path.truncate(depth - 1);
            let cycle = path.contains(&id);
            if f(key, id, &ancestors) {
                return;
            }
            if cycle {
                continue;
            }
            ancestors.push(key);
            path.push(id);
            for c in ix.children_of(id).iter().rev() {
                stack.push((*c, key.child_hash(ix.uid_hash(*c)), depth + 1));
            }
        }
    }

    pub(super) fn jump_flag(&mut self, forward: bool, flag: Flag) {
        let index = &self.index;
        let found = self.find(forward, false, |u| match flag {
            Flag::Terminating => index.is_terminating_id(u),
            Flag::Problem => index.is_problem_id(u),
        });
        match found {
            Some(f) => self.reveal(&f),
            None => self.info(match flag {
                Flag::Terminating => "no Terminating object",
                Flag::Problem => "no object with a problem",
            }),
        }
    }

    pub(super) fn jump_owner(&mut self) {
        let Some(obj) = self.selected_object() else {
            return;
        };
        let uid = obj.uid().to_string();
        let owners = self.graph.resolved_owners(&uid);
        match owners.as_slice() {
            [] => {
                let why = if obj.metadata.owner_references.is_empty() {
                    "no owner: this object is a root"
                } else {
                    "no owner to jump to: its owner references do not resolve"
                };
                self.info(why);
            }
            [one] => {
                let one = one.clone();
                self.goto_owner(&one);
            }
            many => {
                let items = many
                    .iter()
                    .map(|o| {
                        let r = obj.metadata.owner_references.iter().find(|r| r.uid == *o);
                        PickItem {
                            label: r
                                .map(|r| format!("{}/{}", r.kind, r.name))
                                .unwrap_or_default(),
                            detail: r
                                .map(|r| {
                                    let mut f = Vec::new();
                                    if r.is_controller() {
                                        f.push("controller");
                                    }
                                    if r.blocks() {
                                        f.push("blockOwnerDeletion");
                                    }
                                    f.join(" ")
                                })
                                .unwrap_or_default(),
                            current: false,
                        }
                    })
                    .collect();
                self.modals.push(Modal::Pick(Picker {
                    title: format!("Owners of {}/{}", obj.kind, obj.name()),
                    note: "Enter: go to that owner".into(),
                    items,
                    choice: 0,
                    purpose: Purpose::Owner(many.to_vec()),
                    shown_at: self.clock,
                }));
            }
        }
    }

    /// Selects the owner row: the row above if it is that owner, else its
    /// first position in the forest.
    pub(super) fn goto_owner(&mut self, owner: &str) {
        if let Some(p) = self.parent_row()
            && self.row_uid(&self.rows[p]) == Some(owner)
        {
            self.select(p);
            return;
        }
        self.selected_key = None;
        self.selected = 0;
        let Some(owner) = self.index.id(owner) else {
            return;
        };
        if let Some(f) = self.find(true, true, |u| u == owner) {
            self.reveal(&f);
        }
    }

    /// Selects the object with this uid (its first position in the forest,
    /// or its struck-through row if it was just deleted), opening the rows
    /// above it. Returns whether it was found.
    pub(super) fn select_uid(&mut self, uid: &str) -> bool {
        let ghost = self.rows.iter().position(|r| match &r.node {
            RowNode::Ghost { object } => object.uid == uid,
            _ => false,
        });
        if let Some(i) = ghost {
            self.select(i);
            return true;
        }
        if self.graph.get(uid).is_none() {
            return false;
        }
        let Some(id) = self.index.id(uid) else {
            return false;
        };
        if self.selected_row().and_then(|r| r.id()) == Some(id) {
            return true;
        }
        match self.find(true, true, |u| u == id) {
            Some(f) => {
                self.reveal(&f);
                true
            }
            None => false,
        }
    }

    pub(super) fn start_search(&mut self) {
        self.modals.push(Modal::Search(SearchInput {
            query: String::new(),
            origin: self.selected_key,
            origin_index: self.selected,
            failed: false,
        }));
    }

    /// Jumps to the first match at or after where the search started.
    pub(super) fn search_typed(&mut self) {
        let Some(Modal::Search(s)) = self.modals.last() else {
            return;
        };
        let (query, origin, origin_index) = (s.query.to_lowercase(), s.origin, s.origin_index);
        if query.is_empty() {
            return;
        }
        self.selected_key = origin;
        self.selected = origin_index;
        let hits = self.search_cache.matches(&self.index, &query).clone();
        let found = (hits.count() > 0)
            .then(|| self.find(true, true, |u| hits.has(u)))
            .flatten();
        let failed = found.is_none();
        if let Some(f) = found {
            self.reveal(&f);
        }
        if let Some(Modal::Search(s)) = self.modals.last_mut() {
            s.failed = failed;
        }
    }

    pub(super) fn next_match(&mut self, forward: bool) {
        let Some(query) = self.search.as_ref().map(|q| q.to_lowercase()) else {
            self.info("no search yet: press / to search");
            return;
        };
        let hits = self.search_cache.matches(&self.index, &query).clone();
        let found = (hits.count() > 0)
            .then(|| self.find(forward, false, |u| hits.has(u)))
            .flatten();
        match found {
            Some(f) => self.reveal(&f),
            None => self.info(format!("no match for {query:?}")),
        }
    }
}
