//! UI state: the mirror of the backend's objects, the visible rows,
//! selection, expansion, filters, search, the modal stack, highlights and
//! messages. [`App::update`] is a pure state machine from user intents to
//! backend commands; [`App::apply_all`] folds backend updates in. No I/O.

pub mod action;
pub mod command_line;
mod dialogs;
mod evidence;
mod feed;
pub mod flash;
pub mod index;
pub mod modal;
mod nav;
mod normal;
mod room;
pub mod rows;
mod search;
mod timeline;
mod uids;

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

/// The room for the next rows is made once the rows have kept their
/// shape this long: while a large kind's first list is folded in, the
/// tree grows at every round, and room made for each size competed with
/// the fold (`bench --part arrival` at 1M: longer pauses from the
/// keyboard, docs/performance.md).
const ROOM_WHEN_STILL: Duration = Duration::from_millis(300);
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
    graph: Arc<OwnershipGraph>,
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
    /// Room for the next rows, written ahead at ticks.
    room: room::Room,
    /// When the rows last changed shape (real clock).
    shaped_at: Duration,
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
    /// The thread building a large snapshot's selector index, until it is
    /// done ([`App::tick`] looks).
    selectors_apart: Option<feed::SelectorsApart>,
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
            graph: Arc::new(graph),
            now: Timestamp::UNIX_EPOCH,
            status: None,
            controllers: BTreeMap::new(),
            timeline: VecDeque::new(),
            timeline_next: 0,
            timeline_cursor: None,
            timeline_focus: false,
            rows: Vec::new(),
            room: room::Room::default(),
            shaped_at: Duration::ZERO,
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
            selectors_apart: None,
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

    // Feeding the App with the backend's updates: `feed.rs`.

    /// The source's current time, for ages. Returns whether it changed.
    pub fn set_now(&mut self, now: Timestamp) -> bool {
        let changed = self.now != now;
        self.now = now;
        if changed {
            self.refresh_why();
        }
        changed
    }

    /// Advances the real clock: ends highlights and messages, and takes in
    /// a selector index built apart once it is done. Returns whether
    /// anything visible changed.
    pub fn tick(&mut self, elapsed: Duration) -> bool {
        let was_ready = self.enter_ready();
        self.clock += elapsed;
        // Room for the rows of the whole tree opened (`E`), ahead of it.
        if self.clock >= self.shaped_at + ROOM_WHEN_STILL {
            self.room.ready(rows::room_for_all(&self.index));
        }
        let (any, ghosts) = self.flashes.expire(self.clock);
        if ghosts {
            self.refresh_rows();
            self.refresh_why();
        }
        // The open dialog's Enter now sends: its keys line says so.
        let mut changed = any || was_ready != self.enter_ready();
        if self
            .selectors_apart
            .as_ref()
            .is_some_and(|apart| apart.get().is_some())
        {
            self.wait_for_selectors();
            changed = true;
        }
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
        let room = self.room.take();
        self.rebuild_in(room);
    }

    /// [`App::rebuild`] in `room`, taken from [`App::room`].
    fn rebuild_in(&mut self, mut room: Vec<Row>) {
        self.index.take_dirty();
        rows::build_into(&mut room, &self.index, &self.expansion, &self.filters);
        let shown = self.rows.len();
        self.rows_built(room, shown);
    }

    /// After the graph changed: the rows patched where the forest changed
    /// shape ([`rows::patch`]), the ghosts put back where they were; or
    /// built again when a patch cannot say.
    fn refresh_rows(&mut self) {
        let dirty = self.index.take_dirty();
        self.patch_or_rebuild(&dirty);
    }

    /// The rows patched where `dirty` says ([`rows::patch`]) into the
    /// spare room, or built again when a patch cannot say.
    fn patch_or_rebuild(&mut self, dirty: &index::Dirty) {
        let mut out = self.room.take();
        let shown = self.rows.len();
        let (index, expansion, filters) = (&self.index, &self.expansion, &self.filters);
        if rows::patch(&mut self.rows, &mut out, index, expansion, filters, dirty) {
            self.rows_built(out, shown);
        } else {
            self.rebuild_in(out);
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
        self.patch_or_rebuild(&dirty);
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
    /// the same row (or where it was, if that row is gone). The rows they
    /// replace (`shown` of them, perhaps moved out since) are room for the
    /// next.
    fn rows_built(&mut self, mut built: Vec<Row>, shown: usize) {
        self.shaped_at = self.clock;
        let mut old = std::mem::take(&mut self.rows);
        if self.flashes.has_ghosts() {
            // The rows and their ghosts in the old rows' room; the room the
            // rows were made in is the next.
            let made = built.len();
            self.flashes.ghosts_into(&mut built, &mut old);
            self.rows = old;
            self.room.keep(built, made);
        } else {
            self.rows = built;
            self.room.keep(old, shown);
        }
        rows::recount_groups(&mut self.rows);
        // The selected row is where it was or near it, unless the rows
        // above it changed much: look there first.
        // (The old place may be past the end: everything closed from far
        // down a large tree.)
        let end = (self.selected + 64).min(self.rows.len());
        let near = self.selected.saturating_sub(64).min(end)..end;
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

    /// Takes the selector index built apart, waiting for it if need be,
    /// and computes the selection's relations from it.
    pub fn wait_for_selectors(&mut self) {
        if let Some(apart) = self.selectors_apart.take() {
            apart.wait();
            let built = match Arc::try_unwrap(apart) {
                Ok(only) => only.into_inner().unwrap_or_default(),
                // A clone of the App holds it too, or the thread has not
                // yet let go of it (the moment after it is put): copied.
                Err(shared) => shared.wait().clone(),
            };
            self.index.set_selectors(built, &self.graph);
            self.compute_relations();
        }
    }

    /// Whether the selection's selector relations wait for the selector
    /// index, still being built.
    #[must_use]
    pub fn relations_pending(&self) -> bool {
        self.index.selectors().is_none()
    }

    fn compute_relations(&mut self) {
        // None while the selector index is built: computed once it is.
        self.relations = self.index.selectors().and_then(|selectors| {
            let o = self.selected_object()?;
            let r = relations::relations_indexed(&self.graph, selectors, o);
            Some((o.uid().to_string(), r))
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
