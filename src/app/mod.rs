//! UI state: the mirror of the backend's objects, the visible rows,
//! selection, expansion, filters, search, the modal stack, highlights and
//! messages. [`App::update`] is a pure state machine from user intents to
//! backend commands; [`App::apply_all`] folds backend updates in. No I/O.

pub mod action;
pub mod command_line;
mod dialogs;
mod evidence;
pub mod flash;
pub mod index;
pub mod modal;
mod nav;
mod normal;
pub mod rows;
mod search;
mod timeline;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;

pub use action::Action;
pub use modal::{Modal, Mode};
pub use rows::{Filters, Only, Row, RowKey, RowNode, Scope};

use crate::backend::{Command, Happening, SourceStatus, Update};
use crate::model::diagnosis::{self, Diagnosis};
use crate::model::relations::{self, Relations};
use crate::model::{KindTable, Object, OwnershipGraph};
use flash::{Flash, Flashes};
use index::{ForestIndex, NodeId};
use rows::Expansion;

/// Rows kept in view above and below the selection.
const SCROLL_OFF: usize = 3;

/// Above this many objects the tree opens collapsed (groups open).
pub const OPEN_ALL_BELOW: usize = 5_000;

/// A round of folding stretches to match the refresh after it
/// ([`App::apply_for`]) only while the two stay within this: a key never
/// waits longer for the stretch than the freeze the cascade is held to.
pub const ROUND_AT_MOST: Duration = Duration::from_millis(100);
/// A queue this long that starts with a kind's first list makes the
/// indexes room for all of it at once.
const RESERVE_FROM: usize = 10_000;
/// Happenings kept for the timeline.
pub const TIMELINE_CAP: usize = 5_000;
/// How long an information message stays (errors stay until dismissed).
pub const INFO_FOR: Duration = Duration::from_secs(5);

/// How the App was started.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Refuse every action that would change the cluster.
    pub read_only: bool,
    /// Scenarios the picker offers: (name, description).
    pub scenarios: Vec<(String, String)>,
    /// The backend is the simulator (time controls, controllers).
    pub is_simulator: bool,
}

/// What the lower pane shows when the screen is too narrow for both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LowerPane {
    Details,
    Timeline,
}

/// Which happenings the timeline lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimelineScope {
    All,
    /// Only those of the selected object.
    Selected,
}

/// The status line's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub text: String,
    pub error: bool,
    /// Errors have none: they stay until dismissed.
    pub until: Option<Duration>,
}

/// The UI state. Clone: a test explores every key sequence from one
/// state.
#[derive(Clone, Debug)]
pub struct App {
    opts: Options,
    graph: OwnershipGraph,
    index: ForestIndex,
    now: Timestamp,
    status: Option<SourceStatus>,
    controllers: BTreeMap<String, bool>,
    timeline: VecDeque<Happening>,
    /// The number the next happening gets (the timeline's entries are
    /// numbered as they arrive).
    timeline_next: u64,
    /// The timeline entry under the cursor, by number (`None`: the newest).
    timeline_cursor: Option<u64>,
    /// The timeline has the keys (Tab).
    timeline_focus: bool,
    rows: Vec<Row>,
    expansion: Expansion,
    filters: Filters,
    selected: usize,
    selected_key: Option<RowKey>,
    offset: usize,
    viewport: usize,
    details_scroll: u16,
    lower: LowerPane,
    timeline_scope: TimelineScope,
    /// The last accepted search, for `n` and `N`.
    search: Option<String>,
    /// The search's matches among the rows: (the selected one's place,
    /// from 1, if it matches; how many).
    search_hits: Option<(Option<usize>, usize)>,
    /// The matches of the last queries typed, by object.
    search_cache: search::SearchCache,
    modals: Vec<Modal>,
    flashes: Flashes,
    /// How long the last fold's refresh took (the rows patched or built,
    /// the hits counted, the modals and the diagnosis brought up to date).
    refresh_took: Duration,
    /// Real time since start, advanced by [`App::tick`].
    clock: Duration,
    message: Option<Message>,
    quit: bool,
    /// "Why is this still here?" for the selected object, kept current.
    why: Option<Diagnosis>,
    /// When `why` was computed (real clock), and whether the graph changed
    /// since: see [`App::refresh_why`].
    why_at: Duration,
    why_stale: bool,
    /// Evidence read for Terminating objects on a live source.
    evidences: evidence::Evidences,
    /// The selector relations of the selected object (uid it is for, and
    /// the relations), kept current as the answer is; see
    /// [`App::refresh_relations`].
    relations: Option<(String, Relations)>,
    relations_at: Duration,
    relations_stale: bool,
    /// The terminal's size, as the runtime last saw it.
    screen: (u16, u16),
    /// Whether the UI takes the mouse (off: the terminal selects text).
    mouse: bool,
    /// The simulator's scenario: description and next step.
    story: Option<crate::backend::story::Story>,
    /// A live source's kubeconfig contexts, for `:ctx`.
    contexts: Option<crate::backend::Contexts>,
    /// The namespace a live source watches and the cluster's others, for
    /// `:ns` and `0` (`None`: the source has every namespace it holds).
    source_namespaces: Option<crate::backend::Namespaces>,
    /// The tree holds what the source's current scope listed: false from
    /// the start and from a switch of context or namespace (`:ctx`, `0`,
    /// `:ns`) until the new scope's tree arrives.
    scope_listed: bool,
    /// A scenario reset or load was sent: the tree it brings starts on
    /// its first object with no search (and, for another scenario, no
    /// filter).
    fresh_start: Option<FreshStart>,
}

/// What the next tree starts without.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FreshStart {
    /// The same scenario from t=0: the filters stay.
    Reset,
    /// Another scenario: its namespaces are others.
    Load,
}

/// A diagnosis that walked more blockers than this (the root of a large
/// foreground cascade) is recomputed for graph changes at most every
/// [`WHY_REFRESH`], not on every watch event: the walk is linear in the
/// cascade, a UI tick must not be. Selecting or acting recomputes at once.
const WHY_BIG: usize = 2_000;
const WHY_REFRESH: Duration = Duration::from_millis(250);
/// Up to this many objects the selector relations are recomputed on every
/// graph change; above, see [`App::refresh_relations`].
const RELATIONS_NOW_UP_TO: usize = 5_000;

impl App {
    #[must_use]
    pub fn new(opts: Options) -> Self {
        let graph = OwnershipGraph::new(KindTable::builtin());
        App {
            opts,
            index: ForestIndex::build(&graph),
            graph,
            now: Timestamp::UNIX_EPOCH,
            status: None,
            controllers: BTreeMap::new(),
            timeline: VecDeque::new(),
            timeline_next: 0,
            timeline_cursor: None,
            timeline_focus: false,
            rows: Vec::new(),
            expansion: Expansion::new(true),
            filters: Filters::default(),
            selected: 0,
            selected_key: None,
            offset: 0,
            viewport: 20,
            details_scroll: 0,
            lower: LowerPane::Details,
            timeline_scope: TimelineScope::All,
            search: None,
            search_hits: None,
            search_cache: search::SearchCache::default(),
            modals: Vec::new(),
            flashes: Flashes::default(),
            refresh_took: Duration::ZERO,
            clock: Duration::ZERO,
            message: None,
            quit: false,
            why: None,
            why_at: Duration::ZERO,
            why_stale: false,
            evidences: evidence::Evidences::default(),
            relations: None,
            relations_at: Duration::ZERO,
            relations_stale: false,
            screen: (u16::MAX, u16::MAX),
            mouse: true,
            story: None,
            contexts: None,
            source_namespaces: None,
            scope_listed: false,
            fresh_start: None,
        }
    }

    // ----- reading, for rendering and tests -----

    #[must_use]
    pub fn graph(&self) -> &OwnershipGraph {
        &self.graph
    }

    #[must_use]
    pub fn index(&self) -> &ForestIndex {
        &self.index
    }

    #[must_use]
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    #[must_use]
    pub fn selected_index(&self) -> usize {
        self.selected
    }

    #[must_use]
    pub fn selected_row(&self) -> Option<&Row> {
        self.rows.get(self.selected)
    }

    /// The uid of an object row.
    #[must_use]
    pub fn row_uid(&self, row: &Row) -> Option<&str> {
        row.id().map(|id| self.index.uid(id))
    }

    /// The object of an object row.
    #[must_use]
    pub fn row_object(&self, row: &Row) -> Option<&Object> {
        self.row_uid(row).and_then(|u| self.graph.get(u))
    }

    /// The selected object, if an object row is selected.
    #[must_use]
    pub fn selected_object(&self) -> Option<&Object> {
        self.selected_row().and_then(|r| self.row_object(r))
    }

    /// The first visible row of the tree pane.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Rows the tree pane shows.
    #[must_use]
    pub fn viewport(&self) -> usize {
        self.viewport
    }

    /// The source's time (virtual in the simulator).
    #[must_use]
    pub fn now(&self) -> Timestamp {
        self.now
    }

    #[must_use]
    pub fn status(&self) -> Option<&SourceStatus> {
        self.status.as_ref()
    }

    /// Finalizer name -> its simulated controller is online.
    #[must_use]
    pub fn controllers(&self) -> &BTreeMap<String, bool> {
        &self.controllers
    }

    pub fn timeline(&self) -> impl DoubleEndedIterator<Item = &Happening> {
        self.timeline.iter()
    }

    #[must_use]
    pub fn filters(&self) -> &Filters {
        &self.filters
    }

    /// The search being typed, else the last accepted one.
    #[must_use]
    pub fn search_query(&self) -> Option<&str> {
        match self.modals.last() {
            Some(Modal::Search(s)) => Some(&s.query),
            _ => self.search.as_deref(),
        }
    }

    /// The search's matches among the rows shown: the selected row's place
    /// among them (from 1, when it is one) and how many there are.
    #[must_use]
    pub fn search_hits(&self) -> Option<(Option<usize>, usize)> {
        self.search_hits
    }

    /// Recounts the search's matches among the rows (after the query, the
    /// rows or the selection changed).
    fn count_hits(&mut self) {
        let Some(q) = self.search_query().map(str::to_lowercase) else {
            self.search_hits = None;
            return;
        };
        if q.is_empty() {
            self.search_hits = None;
            return;
        }
        let hits = self.search_cache.matches(&self.index, &q);
        let mut n = 0;
        let mut at = None;
        for (i, r) in self.rows.iter().enumerate() {
            if r.id().is_some_and(|id| hits.has(id)) {
                n += 1;
                if i == self.selected {
                    at = Some(n);
                }
            }
        }
        self.search_hits = Some((at, n));
    }

    /// The top of the modal stack.
    #[must_use]
    pub fn modal(&self) -> Option<&Modal> {
        self.modals.last()
    }

    #[must_use]
    pub fn modals(&self) -> &[Modal] {
        &self.modals
    }

    /// Which key table applies.
    #[must_use]
    pub fn mode(&self) -> Mode {
        match self.modals.last() {
            Some(m) => m.mode(),
            None if self.timeline_focus => Mode::Timeline,
            None => Mode::Normal,
        }
    }

    #[must_use]
    pub fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    /// The diagnosis of the selected object.
    #[must_use]
    pub fn why(&self) -> Option<&Diagnosis> {
        self.why.as_ref()
    }

    /// The selector relations of the selected object: which pods it
    /// selects, or what selects it (a pod).
    #[must_use]
    pub fn relations(&self) -> Option<&Relations> {
        let uid = self.selected_object()?.uid();
        self.relations
            .as_ref()
            .filter(|(u, _)| u == uid)
            .map(|(_, r)| r)
    }

    /// The simulator scenario's description and next step.
    #[must_use]
    pub fn story(&self) -> Option<&crate::backend::story::Story> {
        self.story.as_ref()
    }

    #[must_use]
    pub fn flash(&self, uid: &str) -> Option<&Flash> {
        self.flashes.get(uid)
    }

    #[must_use]
    pub fn read_only(&self) -> bool {
        self.opts.read_only
    }

    #[must_use]
    pub fn is_simulator(&self) -> bool {
        self.opts.is_simulator
    }

    #[must_use]
    pub fn scenarios(&self) -> &[(String, String)] {
        &self.opts.scenarios
    }

    #[must_use]
    pub fn lower_pane(&self) -> LowerPane {
        self.lower
    }

    #[must_use]
    pub fn timeline_scope(&self) -> TimelineScope {
        self.timeline_scope
    }

    #[must_use]
    pub fn details_scroll(&self) -> u16 {
        self.details_scroll
    }

    #[must_use]
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Whether every object row opens by default (expand all).
    #[must_use]
    pub fn all_open(&self) -> bool {
        self.expansion.default_open
    }

    // ----- feeding -----

    /// Folds a batch of backend updates in; the rows are rebuilt once at
    /// the end. Returns whether anything visible changed.
    pub fn apply_all(&mut self, updates: Vec<Update>) -> bool {
        self.apply_for(&mut updates.into(), None)
    }

    /// Folds in updates from the front of `queue`, in their order, until
    /// `budget` has passed (at least one; all of them with no budget), then
    /// brings the rows and what is drawn from them up to date once. A
    /// backend that answers with 100k changes at once (a cascade turning
    /// Terminating) is taken in over several frames, each a time's worth,
    /// however much each change costs. The budget stretches to what the
    /// last refresh took, as long as the round with its refresh stays
    /// within [`ROUND_AT_MOST`]: 8 ms of changes followed by a refresh
    /// that passes over every row spent a million objects arriving at
    /// once (a live kind's first list) mostly refreshing. Returns whether
    /// anything visible changed.
    pub fn apply_for(&mut self, queue: &mut VecDeque<Update>, budget: Option<Duration>) -> bool {
        let started = std::time::Instant::now();
        // A budget of zero is one update a round, as asked.
        let stretched = |b: Duration| {
            if b.is_zero() {
                b
            } else {
                let room = ROUND_AT_MOST.saturating_sub(self.refresh_took);
                b.max(self.refresh_took.min(room))
            }
        };
        let until = budget.map(|b| started + stretched(b));
        if matches!(queue.front(), Some(Update::Listed(_))) && queue.len() >= RESERVE_FROM {
            // A kind's first list, folded in over many rounds: the indexes
            // grow once to hold it (a no-op once they can).
            self.graph.reserve(queue.len());
            self.index.reserve(queue.len());
        }
        let mut fold = Fold::default();
        while let Some(u) = queue.pop_front() {
            self.fold(u, &mut fold);
            if until.is_some_and(|t| std::time::Instant::now() >= t) {
                break;
            }
        }
        let refreshing = std::time::Instant::now();
        let changed = self.refresh_after(fold);
        self.refresh_took = refreshing.elapsed();
        changed
    }

    /// Brings what is drawn up to date after a fold.
    fn refresh_after(&mut self, fold: Fold) -> bool {
        let Fold {
            structure,
            in_place,
            changed,
            removed,
        } = fold;
        if !removed.is_empty() {
            self.flashes.on_remove(&self.rows, &removed, self.clock);
        }
        if structure && self.outgrew_automatic_expansion() {
            // A tree that opened whole while small (a live cluster's first
            // tree, its large kinds still listing) closes as a large one
            // would have: a million open rows cost every later change a
            // pass over them.
            self.expansion = self.automatic_expansion();
            self.rebuild();
            if self.search_hits.is_some() {
                self.count_hits();
            }
        } else if structure {
            self.refresh_rows();
            if self.search_hits.is_some() {
                self.count_hits();
            }
        }
        if structure || in_place {
            self.refresh_modals();
        }
        if structure || in_place || changed {
            self.refresh_why();
        }
        structure || in_place || changed
    }

    /// Folds one update into the graph and the index; what is drawn from
    /// them waits for the end of the batch ([`App::apply_for`]).
    fn fold(&mut self, u: Update, fold: &mut Fold) {
        match u {
            Update::Reset { objects, kinds } => {
                self.reset(Built::Not(kinds, objects));
                self.scope_listed = true;
                fold.structure = true;
            }
            Update::ResetGraph(graph) => {
                self.reset(Built::Already(graph));
                self.scope_listed = true;
                fold.structure = true;
            }
            Update::Upsert(obj) => self.fold_upsert(obj, true, fold),
            Update::Listed(obj) => self.fold_upsert(obj, false, fold),
            Update::Remove(uid) => {
                let id = self.index.id(&uid);
                if let Some(old) = self.graph.remove(&uid) {
                    self.flashes.forget(&uid);
                    if let Some(id) = id {
                        fold.removed.push((id, old.obj_ref()));
                    }
                    self.index.touch(&self.graph, &uid, &owner_uids(Some(&old)));
                    fold.structure = true;
                }
            }
            Update::Happened(h) => {
                self.add_happening(h);
                fold.changed = true;
            }
            Update::Unlisted(u) => {
                fold.structure |= self.set_unlisted(u);
                fold.changed = true;
            }
            Update::Replied(r) => {
                self.on_reply(&r);
                fold.changed = true;
            }
            Update::Story(s) => {
                self.story = Some(s);
                fold.changed = true;
            }
            Update::Contexts(c) => self.contexts = Some(c),
            Update::Namespaces(n) => self.source_namespaces = Some(n),
            Update::Evidence(e) => {
                self.on_evidence(e);
                fold.changed = true;
            }
            Update::Status(s) => {
                if self.status.as_ref() != Some(&s) {
                    self.controllers = s
                        .controllers
                        .iter()
                        .map(|c| (c.finalizer.clone(), c.online))
                        .collect();
                    self.status = Some(s);
                    fold.changed = true;
                }
            }
        }
    }

    /// Folds an object in, highlighted as a change (`flash`) or, newly
    /// seen in its kind's first list, not.
    fn fold_upsert(&mut self, obj: Arc<Object>, flash: bool, fold: &mut Fold) {
        let uid = obj.uid().to_string();
        let old = self.graph.get(&uid).cloned();
        if flash {
            self.flashes.on_upsert(old.as_ref(), &obj, self.clock);
        }
        self.graph.upsert(obj);
        let old_owners = owner_uids(old.as_ref());
        let kept = old.as_ref().is_some_and(|o| {
            self.graph.get(&uid).is_some_and(|now| {
                o.group() == now.group()
                    && o.kind == now.kind
                    && o.namespace() == now.namespace()
                    && o.name() == now.name()
            })
        });
        let moved = self.index.touch_with(&self.graph, &uid, &old_owners, kept);
        if moved || self.filters.only != Only::All {
            fold.structure = true;
        } else {
            fold.in_place = true;
        }
    }

    /// Takes in what the source cannot see now; objects whose owners are
    /// of a kind that came or went are judged again (an owner of a kind
    /// not synced is unverified, not gone). Returns whether the tree's
    /// marks may have changed.
    fn set_unlisted(&mut self, unlisted: Vec<crate::model::Unlisted>) -> bool {
        let kinds = |u: &[crate::model::Unlisted]| -> std::collections::HashSet<(String, String)> {
            u.iter()
                .map(|x| (x.group.clone(), x.kind.clone()))
                .collect()
        };
        let before = kinds(self.graph.kinds().unlisted());
        let after = kinds(&unlisted);
        self.graph.kinds_mut().set_unlisted(unlisted);
        let moved: Vec<(String, String)> = before.symmetric_difference(&after).cloned().collect();
        if moved.is_empty() {
            return false;
        }
        // A few kinds: compared in place, with nothing made per object (a
        // key of two strings made for each of a million objects and each
        // of their references was a freeze of its own).
        let is_moved = |group: &str, kind: &str| moved.iter().any(|(g, k)| k == kind && g == group);
        let touched: Vec<(String, Vec<String>)> = self
            .graph
            .objects()
            .filter(|o| {
                // An object of such a kind is judged again for its
                // dependents' sake (which of them are its children): one
                // with none has nothing to judge (875k pods listed late
                // were touched one by one, a 6.5 s freeze).
                (is_moved(o.group(), &o.kind) && self.graph.referrers(o.uid()).next().is_some())
                    || o.metadata
                        .owner_references
                        .iter()
                        .any(|r| is_moved(crate::model::group_of(&r.api_version), &r.kind))
            })
            .map(|o| (o.uid().to_string(), owner_uids(Some(o))))
            .collect();
        for (uid, owners) in &touched {
            self.index.touch(&self.graph, uid, owners);
        }
        true
    }

    /// Adds a timeline entry in time order (a live source's Events carry
    /// their own times, older ones arrive late); the cursor stays on its
    /// entry.
    fn add_happening(&mut self, h: crate::backend::Happening) {
        if self.timeline.len() >= TIMELINE_CAP {
            self.timeline.pop_front();
        }
        let at = self
            .timeline
            .iter()
            .rposition(|x| x.t <= h.t)
            .map_or(0, |i| i + 1);
        let first = self
            .timeline_next
            .saturating_sub(self.timeline.len() as u64);
        let number = first + at as u64;
        if let Some(c) = &mut self.timeline_cursor
            && *c >= number
        {
            *c += 1;
        }
        self.timeline.insert(at, h);
        self.timeline_next += 1;
    }

    /// Convenience for one update.
    pub fn apply(&mut self, update: Update) -> bool {
        self.apply_all(vec![update])
    }

    fn reset(&mut self, graph: Built) {
        let (graph, index) = graph_and_index(graph);
        self.index = index;
        self.graph = graph;
        self.expansion = self.automatic_expansion();
        self.flashes.clear();
        self.evidences.clear();
        self.timeline.clear();
        self.timeline_cursor = None;
        if let Some(fresh) = self.fresh_start.take() {
            self.selected_key = None;
            self.search = None;
            self.search_hits = None;
            if fresh == FreshStart::Load {
                self.filters = Filters::default();
            }
        }
        let rows = rows::build(&self.index, &self.expansion, &self.filters);
        if self
            .selected_key
            .is_none_or(|k| !rows.iter().any(|r| r.key == k))
        {
            // First load, or another scenario: start on the first object
            // rather than a group, or wherever the old row's place was.
            self.selected_key = rows.iter().find(|r| r.id().is_some()).map(|r| r.key);
            self.selected = 0;
            self.offset = 0;
            self.details_scroll = 0;
        }
        self.modals
            .retain(|m| matches!(m, Modal::Help { .. } | Modal::Pick(_)));
    }

    fn on_reply(&mut self, r: &crate::backend::Reply) {
        let what = r.command.describe();
        if r.is_success() {
            use crate::backend::Command;
            // A simulator control, a reconnect or a context switch is no
            // HTTP request on an object: no status code.
            let mut text = match &r.command {
                Command::Sim(_) if r.message.is_empty() => format!("✓ {what}"),
                Command::Sim(_)
                | Command::Reconnect
                | Command::SwitchContext(_)
                | Command::SwitchNamespace(_) => {
                    format!("✓ {what}: {}", r.message)
                }
                _ => format!("✓ {what}: {} {}", r.code, r.message),
            };
            if matches!(
                r.command,
                Command::SwitchContext(_) | Command::SwitchNamespace(_)
            ) {
                // The tree is the old scope's until the new one has listed.
                self.scope_listed = false;
                if self.context_switched() {
                    text.push_str(" (the :ns filter is cleared)");
                }
            }
            for w in &r.warnings {
                text.push_str(&format!("  warning: {w}"));
            }
            self.info(text);
        } else {
            if matches!(
                r.command,
                Command::Sim(
                    crate::backend::SimCommand::Reset | crate::backend::SimCommand::Load(_)
                )
            ) {
                self.fresh_start = None;
            }
            let code = if r.code == 0 {
                "failed".to_string()
            } else {
                r.code.to_string()
            };
            self.error(format!("✗ {what}: {code} {}", r.message));
        }
    }

    /// The source's current time, for ages. Returns whether it changed.
    pub fn set_now(&mut self, now: Timestamp) -> bool {
        let changed = self.now != now;
        self.now = now;
        if changed {
            self.refresh_why();
        }
        changed
    }

    /// Advances the real clock: ends highlights and messages. Returns
    /// whether anything visible changed.
    pub fn tick(&mut self, elapsed: Duration) -> bool {
        let was_ready = self.enter_ready();
        self.clock += elapsed;
        let (any, ghosts) = self.flashes.expire(self.clock);
        if ghosts {
            self.refresh_rows();
            self.refresh_why();
        }
        // The open dialog's Enter now sends: its keys line says so.
        let mut changed = any || was_ready != self.enter_ready();
        if self.why_stale && self.clock >= self.why_at + WHY_REFRESH {
            self.compute_why();
            changed = true;
        }
        if self.relations_stale && self.clock >= self.relations_at + WHY_REFRESH {
            self.compute_relations();
            changed = true;
        }
        if self
            .message
            .as_ref()
            .and_then(|m| m.until)
            .is_some_and(|u| u <= self.clock)
        {
            self.message = None;
            changed = true;
        }
        changed
    }

    /// Real time until the next highlight or message ends.
    #[must_use]
    pub fn next_deadline(&self) -> Option<Duration> {
        let msg = self.message.as_ref().and_then(|m| m.until);
        let why = self.why_stale.then_some(self.why_at + WHY_REFRESH);
        let rel = self
            .relations_stale
            .then_some(self.relations_at + WHY_REFRESH);
        [
            self.flashes.next_expiry(),
            msg,
            why,
            rel,
            self.until_enter_ready(),
        ]
        .into_iter()
        .flatten()
        .min()
        .map(|t| t.saturating_sub(self.clock))
    }

    /// Whether the UI captures the mouse; the runtime applies it.
    #[must_use]
    pub fn mouse(&self) -> bool {
        self.mouse
    }

    /// Starts with mouse capture on or off (`--no-mouse`).
    pub fn set_mouse(&mut self, on: bool) {
        self.mouse = on;
    }

    /// The terminal's size.
    pub fn set_screen(&mut self, width: u16, height: u16) {
        self.screen = (width, height);
    }

    /// Too small to show a dialog's request, policy and keys: nothing is
    /// shown but a message, and nothing can be confirmed.
    #[must_use]
    pub fn too_small(&self) -> bool {
        self.screen.0 < crate::ui::layout::MIN_WIDTH
            || self.screen.1 < crate::ui::layout::MIN_HEIGHT
    }

    /// Sets how many rows the tree pane shows.
    pub fn set_viewport(&mut self, rows: usize) {
        self.viewport = rows.max(1);
        self.ensure_visible();
    }

    // ----- messages -----

    fn info(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: false,
            until: Some(self.clock + INFO_FOR),
        });
    }

    fn error(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: true,
            until: None,
        });
    }

    // ----- rows -----

    /// The tree opened whole by itself and has grown past
    /// [`OPEN_ALL_BELOW`] objects since.
    fn outgrew_automatic_expansion(&self) -> bool {
        self.expansion.is_automatic()
            && self.expansion.default_open
            && self.graph.len() > OPEN_ALL_BELOW
    }

    /// What opens by itself in a tree of this size: every object row below
    /// [`OPEN_ALL_BELOW`] objects; the cluster-scoped group unless it is
    /// large beside namespaces.
    fn automatic_expansion(&self) -> Expansion {
        let e = Expansion::new(self.graph.len() <= OPEN_ALL_BELOW);
        if cluster_group_opens_closed(&self.index) {
            e.with_group_closed(rows::RowKey::group(None))
        } else {
            e
        }
    }

    /// Rebuilds the visible rows and keeps the selection on the same row
    /// (or where it was, if that row is gone).
    fn rebuild(&mut self) {
        self.index.take_dirty();
        let built = rows::build(&self.index, &self.expansion, &self.filters);
        self.rows_built(built);
    }

    /// After the graph changed: the rows patched where the forest changed
    /// shape ([`rows::patch`]), the ghosts put back where they were; or
    /// built again when a patch cannot say.
    fn refresh_rows(&mut self) {
        let dirty = self.index.take_dirty();
        let old = std::mem::take(&mut self.rows);
        match rows::patch(old, &self.index, &self.expansion, &self.filters, &dirty) {
            Some(patched) => self.rows_built(patched),
            None => self.rebuild(),
        }
    }

    /// After the row at `at` opened or closed: its rows made again (a
    /// group's or an object's subtree, [`rows::patch`]) and every other row
    /// taken over, with what the graph changed meanwhile. A full build of a
    /// million rows was 90 ms a key; a patch is one pass over them.
    fn reshape_at(&mut self, at: usize) {
        let mut dirty = self.index.take_dirty();
        if dirty.is_empty() {
            let ghosts = self.flashes.has_ghosts();
            let (index, expansion) = (&self.index, &self.expansion);
            if let Some(n) =
                rows::reproject(&mut self.rows, at, index, expansion, &self.filters, ghosts)
            {
                self.reselect(at, n);
                return;
            }
        }
        match self.rows.get(at).map(|r| &r.node) {
            Some(rows::RowNode::Object { id, .. }) => {
                dirty.owners.insert(*id);
            }
            Some(rows::RowNode::Group { namespace, .. }) => {
                dirty.groups.insert((
                    namespace.is_none(),
                    namespace.as_deref().cloned().unwrap_or_default(),
                ));
            }
            Some(rows::RowNode::Ghost { .. }) | None => dirty.all = true,
        }
        let old = std::mem::take(&mut self.rows);
        match rows::patch(old, &self.index, &self.expansion, &self.filters, &dirty) {
            Some(patched) => self.rows_built(patched),
            None => self.rebuild(),
        }
    }

    /// After the `old` rows from `at` were replaced by `new` ones: the
    /// selection on the same row, found among them if it was there, moved
    /// with the rows after them if it was below.
    fn reselect(&mut self, at: usize, (old, new): (usize, usize)) {
        if self.selected >= at + old {
            self.selected = self.selected + new - old;
        } else if self.selected > at {
            let key = self.selected_key;
            match self.rows[at..at + new]
                .iter()
                .position(|r| Some(r.key) == key)
            {
                Some(i) => self.selected = at + i,
                None => {
                    self.selected = at;
                    self.selected_key = self.rows.get(at).map(|r| r.key);
                    self.details_scroll = 0;
                }
            }
        }
        self.ensure_visible();
    }

    /// Takes in the rows made (ghosts not in), and keeps the selection on
    /// the same row (or where it was, if that row is gone).
    fn rows_built(&mut self, built: Vec<Row>) {
        self.rows = self.flashes.with_ghosts(built);
        rows::recount_groups(&mut self.rows);
        // The selected row is where it was or near it, unless the rows
        // above it changed much: look there first.
        let near = self.selected.saturating_sub(64)..(self.selected + 64).min(self.rows.len());
        let found = self.selected_key.and_then(|k| {
            self.rows[near.clone()]
                .iter()
                .position(|r| r.key == k)
                .map(|i| i + near.start)
                .or_else(|| self.rows.iter().position(|r| r.key == k))
        });
        match found {
            Some(i) => self.selected = i,
            None => {
                self.selected = self.selected.min(self.rows.len().saturating_sub(1));
                self.selected_key = self.rows.get(self.selected).map(|r| r.key);
                self.details_scroll = 0;
            }
        }
        self.ensure_visible();
    }

    /// Keeps the selection in view with a few rows of context above and
    /// below it (what changes next to it, a cascade under it, stays in
    /// sight), as far as the list allows.
    fn ensure_visible(&mut self) {
        let h = self.viewport.max(1);
        let margin = SCROLL_OFF.min(h.saturating_sub(1) / 2);
        if self.selected < self.offset + margin {
            self.offset = self.selected.saturating_sub(margin);
        } else if self.selected + margin >= self.offset + h {
            self.offset = self.selected + margin + 1 - h;
        }
        self.offset = self.offset.min(self.rows.len().saturating_sub(h));
    }

    /// The App's update: applies the intent and returns what to send. In
    /// read-only mode no mutating command ever leaves.
    pub fn update(&mut self, action: Action) -> Vec<Command> {
        // Never confirmable blind: on a screen too small to show what would
        // be sent, only leaving is possible.
        if self.too_small() && !matches!(action, Action::Quit | Action::Cancel) {
            return Vec::new();
        }
        let searching = self.search_query().is_some() || self.search_hits.is_some();
        let cmds = match self.mode() {
            Mode::Normal => self.normal(action),
            Mode::Timeline => {
                self.in_timeline(action);
                Vec::new()
            }
            _ => self.in_modal(action),
        };
        self.compute_why();
        if self.relations.as_ref().map(|(u, _)| u.as_str())
            != self.selected_object().map(Object::uid)
        {
            self.compute_relations();
        }
        if searching || self.search_query().is_some() {
            self.count_hits();
        }
        for c in &cmds {
            match c {
                Command::Sim(crate::backend::SimCommand::Reset) => {
                    self.fresh_start = Some(FreshStart::Reset);
                }
                Command::Sim(crate::backend::SimCommand::Load(_)) => {
                    self.fresh_start = Some(FreshStart::Load);
                }
                _ => {}
            }
        }
        let mut cmds = cmds;
        cmds.extend(self.evidence_request());
        if self.opts.read_only && cmds.iter().any(Command::is_mutation) {
            self.error("read-only mode: refused");
            return cmds.into_iter().filter(|c| !c.is_mutation()).collect();
        }
        cmds
    }

    /// After a change of the graph or the time: recomputes the answer, or,
    /// for the same large answer computed less than [`WHY_REFRESH`] ago,
    /// marks it stale for [`App::tick`] to recompute.
    fn refresh_why(&mut self) {
        let same = self.why.as_ref().map(|w| w.object.uid.as_str())
            == self.selected_object().map(Object::uid);
        let big = self
            .why
            .as_ref()
            .and_then(|w| w.waiting_on.as_ref())
            .is_some_and(|c| c.total > WHY_BIG);
        if same && big && self.clock < self.why_at + WHY_REFRESH {
            self.why_stale = true;
        } else {
            self.compute_why();
        }
        self.refresh_relations();
    }

    /// After a change of the graph: the selector relations look at every
    /// object of the namespace, so in a large graph they are recomputed
    /// for the same selection at most every [`WHY_REFRESH`], not on every
    /// watch event. A new selection computes them at once.
    fn refresh_relations(&mut self) {
        let same = self.relations.as_ref().map(|(u, _)| u.as_str())
            == self.selected_object().map(Object::uid);
        if same && self.graph.len() > RELATIONS_NOW_UP_TO {
            self.relations_stale = true;
        } else {
            self.compute_relations();
        }
    }

    fn compute_relations(&mut self) {
        self.relations = self.selected_object().map(|o| {
            let r = relations::relations_indexed(&self.graph, self.index.selectors(), o);
            (o.uid().to_string(), r)
        });
        self.relations_at = self.clock;
        self.relations_stale = false;
    }

    fn compute_why(&mut self) {
        let whole = self.whole_cluster();
        self.why = self.selected_object().map(|o| {
            let mut d = diagnosis::diagnose(&self.graph, o.uid(), self.now, &self.controllers);
            let read = self.evidences.get(o.uid());
            // Whether a third party's finalizer's controller runs, from
            // the workloads in view and who wrote the finalizer
            // (STUCK-CAUSES C1).
            let writers = read.map(|e| e.writers.clone()).unwrap_or_default();
            d.add_removers(&self.graph, &writers, whole);
            if let Some(e) = read {
                d.add_rewrites(&e.last);
                d.add_events(&e.events, self.now);
                d.add_unread(&e.missing);
            }
            d
        });
        self.why_at = self.clock;
        self.why_stale = false;
    }
}

/// What a batch of updates changed, for the work done once at its end.
#[derive(Default)]
struct Fold {
    /// The forest's shape (or what a filter keeps) may have changed.
    structure: bool,
    /// An object changed in place: the rows stay as they are, what is
    /// drawn on them changes.
    in_place: bool,
    changed: bool,
    /// The rows of what was removed, found in one look at the rows before
    /// they change, stay a moment as ghosts.
    removed: Vec<(NodeId, crate::model::ObjRef)>,
}

fn owner_uids(obj: Option<&Object>) -> Vec<String> {
    obj.map(|o| {
        o.metadata
            .owner_references
            .iter()
            .map(|r| r.uid.clone())
            .collect()
    })
    .unwrap_or_default()
}

/// What `t` and `p` jump to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flag {
    Terminating,
    Problem,
}

#[cfg(test)]
mod ctx_tests;
#[cfg(test)]
mod ns_tests;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod sync_tests;
#[cfg(test)]
mod tests;

/// Above this many roots the cluster-scoped group opens collapsed when
/// there are namespaces to open on (with `-A`, a cluster's RBAC and
/// APIService roots number in the hundreds); a few stay in view.
pub const CLUSTER_GROUP_OPEN_UP_TO: usize = 20;

/// Above this many objects, a snapshot's selector index is built on a
/// thread of its own while its graph is built: each is about a tenth of
/// the UI's load of a large file, and a second core is there to take one.
const SELECTORS_APART_FROM: usize = 20_000;

/// The objects of a reset: the graph to build from them, or built.
enum Built {
    Not(KindTable, Vec<Arc<Object>>),
    Already(Box<OwnershipGraph>),
}

/// The graph of a snapshot (built from its objects unless given) and its
/// forest index, with the selector index of its objects built beside
/// them when the snapshot is large.
fn graph_and_index(built: Built) -> (OwnershipGraph, ForestIndex) {
    let (graph, objects) = match built {
        Built::Not(kinds, objects) if objects.len() >= SELECTORS_APART_FROM => {
            (Err(kinds), objects)
        }
        Built::Not(kinds, objects) => {
            let graph = OwnershipGraph::from_objects(kinds, &objects);
            let index =
                ForestIndex::build_with(&graph, || relations::SelectorIndex::of_list(&objects));
            return (graph, index);
        }
        Built::Already(graph) if graph.len() < SELECTORS_APART_FROM => {
            let index = ForestIndex::build(&graph);
            return (*graph, index);
        }
        Built::Already(graph) => {
            let objects = graph.shared_objects().cloned().collect();
            (Ok(*graph), objects)
        }
    };
    std::thread::scope(|s| {
        let selectors = s.spawn(|| relations::SelectorIndex::of_list(&objects));
        let graph = graph.unwrap_or_else(|kinds| OwnershipGraph::from_objects(kinds, &objects));
        let index = ForestIndex::build_with(&graph, || {
            selectors
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        (graph, index)
    })
}

/// Whether the cluster-scoped group opens collapsed.
fn cluster_group_opens_closed(index: &ForestIndex) -> bool {
    let mut namespaced = false;
    let mut cluster = 0usize;
    for r in index.roots() {
        if r.cluster_scoped {
            cluster += 1;
        } else {
            namespaced = true;
        }
    }
    namespaced && cluster > CLUSTER_GROUP_OPEN_UP_TO
}
