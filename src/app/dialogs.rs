//! Opening dialogs and handling their keys. A dialog that runs something
//! holds the exact command; confirm returns it, cancel drops it.

use crate::backend::{Command, Permission, SimCommand};
use crate::model::kinds::DefaultPolicy;
use crate::model::{Object, Policy, finalizers, preview};

use super::modal::{
    ConfirmDialog, ControllersDialog, DeleteDialog, FilterChoice, FinalizerConfirm,
    FinalizerDialog, Modal, PickItem, Picker, Purpose, READ_FOR, RemoverState,
};
use super::rows::{Only, Scope};
use super::{Action, App};

/// How far the help scrolls (it is shorter than this; the drawing stops
/// at its end).
const HELP_SCROLL: u16 = 200;

const READ_ONLY: &str = "read-only mode (--read-only): refused, nothing was sent";

/// Moves a choice among `n` entries.
fn moved(choice: usize, n: usize, action: Action, page: usize) -> usize {
    let last = n.saturating_sub(1);
    match action {
        Action::Up | Action::ScrollUp => choice.saturating_sub(1),
        Action::Down | Action::ScrollDown => (choice + 1).min(last),
        Action::PageUp => choice.saturating_sub(page),
        Action::PageDown => (choice + page).min(last),
        Action::Top => 0,
        Action::Bottom => last,
        _ => choice,
    }
}

impl App {
    /// The command whose permission the open dialog still needs: the
    /// runtime asks the backend (a SelfSubjectAccessReview on a cluster)
    /// before the action is offered, and answers with
    /// [`App::set_permission`].
    #[must_use]
    pub fn permission_question(&self) -> Option<Command> {
        match self.modals.last()? {
            Modal::Delete(d) if d.permission.is_none() && !d.read_only => Some(d.command.clone()),
            Modal::Finalizer(f) if f.permission.is_none() => Some(Command::RemoveFinalizer {
                target: f.target.clone(),
                finalizer: f.finalizers.get(f.choice).cloned().unwrap_or_default(),
            }),
            _ => None,
        }
    }

    /// The backend's answer to [`App::permission_question`].
    pub fn set_permission(&mut self, p: Permission) {
        match self.modals.last_mut() {
            Some(Modal::Delete(d)) => d.permission = Some(p),
            Some(Modal::Finalizer(f)) => f.permission = Some(p),
            _ => {}
        }
    }

    fn delete_dialog(
        &self,
        target: &Object,
        policy: Policy,
        default: Option<Policy>,
    ) -> DeleteDialog {
        self.delete_dialog_with(target, policy, default, false)
    }

    /// `force`: a pod deleted with grace period 0 (Background).
    fn delete_dialog_with(
        &self,
        target: &Object,
        policy: Policy,
        default: Option<Policy>,
        force: bool,
    ) -> DeleteDialog {
        let force = force && target.is_pod();
        let policy = if force { Policy::Background } else { policy };
        let plan = preview::plan_with(
            &self.graph,
            target.uid(),
            Some(policy),
            &self.controllers,
            force,
        );
        let obj_ref = target.obj_ref();
        DeleteDialog {
            command: if force {
                Command::ForceDelete {
                    target: obj_ref.clone(),
                }
            } else {
                Command::Delete {
                    target: obj_ref.clone(),
                    policy,
                }
            },
            force,
            target: obj_ref,
            default_policy: default,
            policy,
            plan,
            scroll: 0,
            permission: None,
            read_only: self.opts.read_only,
            shown_at: self.clock,
        }
    }

    /// The delete dialog opens in read-only mode too: the preview is what
    /// a read-only user wants most; confirming sends nothing.
    pub(super) fn open_delete(&mut self) {
        let Some(obj) = self.selected_object() else {
            self.info("select an object to delete");
            return;
        };
        let default = match self.graph.kinds().get(obj.group(), &obj.kind) {
            Some(k) => match k.default_policy {
                DefaultPolicy::Policy(p) => Some(p),
                DefaultPolicy::Unsupported => None,
            },
            None => Some(Policy::Background),
        };
        let d = self.delete_dialog(obj, default.unwrap_or(Policy::Background), default);
        self.modals.push(Modal::Delete(d));
    }

    /// k9s's kill (`Ctrl-k`): on a pod, the delete dialog with grace
    /// period 0 chosen; on anything else, the delete dialog. Either way
    /// nothing is sent before an `Enter` on the dialog, once read.
    pub(super) fn open_kill(&mut self) {
        self.open_delete();
        let pod = self.selected_object().is_some_and(Object::is_pod);
        if let Some(Modal::Delete(d)) = self.modals.last()
            && !d.force
        {
            if pod {
                let _ = self.in_modal(Action::ToggleForce);
            } else {
                self.info("Ctrl-k forces only a pod's delete: this is the delete dialog");
            }
        }
    }

    pub(super) fn open_finalizer(&mut self) {
        if self.opts.read_only {
            self.error(READ_ONLY);
            return;
        }
        let Some(mut obj) = self.selected_object() else {
            self.info("select an object first");
            return;
        };
        // An owner held only by foregroundDeletion/orphan: the finalizer
        // to remove is the one on what holds it up (removing its own would
        // let it go and leave the dependents).
        let only_gc = !obj.metadata.finalizers.is_empty()
            && obj
                .metadata
                .finalizers
                .iter()
                .all(|f| f == crate::model::FOREGROUND || f == crate::model::ORPHAN);
        if only_gc
            && let Some((b, _)) = self
                .why
                .as_ref()
                .and_then(crate::model::diagnosis::Diagnosis::held_by)
            && let Some(blocker) = self.graph.get(&b.uid)
        {
            obj = blocker;
        }
        if obj.metadata.finalizers.is_empty() {
            let what = format!("{}/{} has no finalizers", obj.kind, obj.name());
            self.info(what);
            return;
        }
        let mut d = FinalizerDialog {
            target: obj.obj_ref(),
            finalizers: obj.metadata.finalizers.clone(),
            choice: 0,
            confirm: None,
            permission: None,
        };
        if d.finalizers.len() == 1 {
            d.confirm = Some(self.finalizer_confirm(&d));
        }
        self.modals.push(Modal::Finalizer(d));
    }

    fn controller_usage(&self) -> Vec<(String, usize)> {
        let Some(status) = &self.status else {
            return Vec::new();
        };
        status
            .controllers
            .iter()
            .map(|c| {
                let n = self
                    .graph
                    .objects()
                    .filter(|o| o.has_finalizer(&c.finalizer))
                    .count();
                (c.finalizer.clone(), n)
            })
            .collect()
    }

    pub(super) fn open_controllers(&mut self) {
        let list: Vec<(String, bool)> = self
            .status
            .as_ref()
            .map(|s| {
                s.controllers
                    .iter()
                    .map(|c| (c.finalizer.clone(), c.online))
                    .collect()
            })
            .unwrap_or_default();
        if !self.opts.is_simulator || list.is_empty() {
            self.info("no simulated controllers in this scenario");
            return;
        }
        // Start on a controller the selected object waits for.
        let wanted = self
            .selected_object()
            .map(|o| o.metadata.finalizers.clone())
            .unwrap_or_default();
        let choice = list
            .iter()
            .position(|(f, online)| !online && wanted.contains(f))
            .or_else(|| list.iter().position(|(f, _)| wanted.contains(f)))
            .unwrap_or(0);
        let usage = self.controller_usage();
        self.modals.push(Modal::Controllers(ControllersDialog {
            choice,
            usage,
            shown_at: self.clock,
        }));
    }

    pub(super) fn open_reset(&mut self) {
        if !self.opts.is_simulator {
            self.info(
                "reset is for the simulator; here Ctrl-r reconnects and lists everything again",
            );
            return;
        }
        let name = self
            .status
            .as_ref()
            .map(|s| s.name.clone())
            .unwrap_or_default();
        self.modals.push(Modal::Confirm(ConfirmDialog {
            title: format!("Reset scenario {name}"),
            lines: vec![
                format!("Start {name} over at t=0 with its original objects."),
                "Every delete, finalizer removal and controller switch since is undone,".into(),
                "and the timeline is cleared.".into(),
            ],
            command: Command::Sim(SimCommand::Reset),
            shown_at: self.clock,
        }));
    }

    pub(super) fn open_scenarios(&mut self) {
        if !self.opts.is_simulator || self.opts.scenarios.is_empty() {
            self.info("scenarios are for the simulator; here :ctx NAME switches context");
            return;
        }
        let current = self.status.as_ref().map(|s| s.name.as_str()).unwrap_or("");
        let choice = self
            .opts
            .scenarios
            .iter()
            .position(|(n, _)| n == current)
            .unwrap_or(0);
        let items = self
            .opts
            .scenarios
            .iter()
            .map(|(n, d)| PickItem {
                label: n.clone(),
                detail: d.clone(),
                current: n == current,
            })
            .collect();
        self.modals.push(Modal::Pick(Picker {
            title: "Scenarios".into(),
            note: "Enter: load it (replaces the simulation: objects, time and timeline start over)"
                .into(),
            items,
            choice,
            purpose: Purpose::Scenario(
                self.opts.scenarios.iter().map(|(n, _)| n.clone()).collect(),
            ),
            shown_at: self.clock,
        }));
    }

    pub(super) fn open_filter(&mut self) {
        let mut choices = vec![
            FilterChoice::Everything,
            FilterChoice::Only(Only::Terminating),
            FilterChoice::Only(Only::Problems),
            FilterChoice::Scope(Scope::All),
            FilterChoice::Scope(Scope::ClusterScoped),
        ];
        let mut namespaces: Vec<String> = self
            .index
            .roots()
            .filter(|k| !k.namespace.is_empty())
            .map(|k| k.namespace.to_string())
            .collect();
        namespaces.dedup();
        choices.extend(
            namespaces
                .into_iter()
                .map(|n| FilterChoice::Scope(Scope::Namespace(n))),
        );
        let f = &self.filters;
        let items: Vec<PickItem> = choices
            .iter()
            .map(|c| match c {
                FilterChoice::Everything => PickItem {
                    label: "everything".into(),
                    detail: "no filter".into(),
                    current: !f.is_active(),
                },
                FilterChoice::Only(Only::Terminating) => PickItem {
                    label: "only Terminating".into(),
                    detail: format!(
                        "{}, with their owners",
                        crate::model::wording::count(self.index.terminating_count(), "object")
                    ),
                    current: f.only == Only::Terminating,
                },
                FilterChoice::Only(_) => PickItem {
                    label: "only problems".into(),
                    detail: format!(
                        "{}, with their owners",
                        crate::model::wording::count(self.index.problem_count(), "object")
                    ),
                    current: f.only == Only::Problems,
                },
                FilterChoice::Scope(Scope::All) => PickItem {
                    label: "all namespaces".into(),
                    detail: String::new(),
                    current: f.scope == Scope::All,
                },
                FilterChoice::Scope(Scope::ClusterScoped) => PickItem {
                    label: "cluster-scoped".into(),
                    detail: "only cluster-scoped roots".into(),
                    current: f.scope == Scope::ClusterScoped,
                },
                FilterChoice::Scope(Scope::Namespace(n)) => PickItem {
                    label: format!("namespace {n}"),
                    detail: String::new(),
                    current: f.scope == Scope::Namespace(n.clone()),
                },
            })
            .collect();
        let choice = items.iter().position(|i| i.current).unwrap_or(0);
        self.modals.push(Modal::Pick(Picker {
            title: "Filter".into(),
            note: "Enter: apply (Esc in the tree clears filters)".into(),
            items,
            choice,
            purpose: Purpose::Filter(choices),
            shown_at: self.clock,
        }));
    }

    /// After backend updates: previews follow the graph; dialogs whose
    /// object is gone close.
    pub(super) fn refresh_modals(&mut self) {
        let mut closed: Option<String> = None;
        let mut modals = std::mem::take(&mut self.modals);
        modals.retain_mut(|m| match m {
            Modal::Delete(d) => match self.graph.get(&d.target.uid) {
                Some(obj) => {
                    // The preview follows the cluster; the server's verdict
                    // on the permission, asked as the dialog opened, stays.
                    let (scroll, shown_at) = (d.scroll, d.shown_at);
                    let permission = d.permission.take();
                    *d = self.delete_dialog_with(obj, d.policy, d.default_policy, d.force);
                    d.scroll = scroll;
                    d.shown_at = shown_at;
                    if permission.is_some() {
                        d.permission = permission;
                    }
                    true
                }
                None => {
                    closed = Some(format!(
                        "{}/{} is gone: nothing to delete",
                        d.target.kind, d.target.name
                    ));
                    false
                }
            },
            Modal::Finalizer(f) => {
                let still = self
                    .graph
                    .get(&f.target.uid)
                    .is_some_and(|o| f.finalizers.iter().all(|x| o.has_finalizer(x)));
                if !still {
                    closed = Some(format!(
                        "{}/{} changed: finalizer dialog closed, nothing was sent",
                        f.target.kind, f.target.name
                    ));
                }
                still
            }
            Modal::Controllers(c) => {
                c.usage = self.controller_usage();
                true
            }
            _ => true,
        });
        self.modals = modals;
        if let Some(text) = closed {
            self.info(text);
        }
    }

    /// Keys while a modal is open.
    pub(super) fn in_modal(&mut self, action: Action) -> Vec<Command> {
        if let Action::Unbound { ch, ctrl } = action {
            let place = match self.modals.last() {
                Some(Modal::Delete(_)) => {
                    "in the delete dialog, nothing was sent: Enter sends the delete shown, Esc cancels"
                }
                Some(Modal::Finalizer(f)) if f.confirm.is_some() => {
                    "here, nothing was sent: type the finalizer's name, then Enter; Esc cancels"
                }
                Some(Modal::Confirm(_)) => {
                    "in this dialog, nothing was sent: Enter confirms, Esc cancels"
                }
                _ => "in this view (Esc closes it)",
            };
            self.unbound(ch, ctrl, place);
            return Vec::new();
        }
        let Some(modal) = self.modals.pop() else {
            return Vec::new();
        };
        match modal {
            Modal::Help { scroll } => {
                if matches!(action, Action::Help | Action::Confirm) {
                    return Vec::new();
                }
                if let Some(scroll) = scrolled(action, scroll, HELP_SCROLL) {
                    self.modals.push(Modal::Help { scroll });
                }
            }
            Modal::Aliases { scroll } => {
                if matches!(action, Action::ShowAliases | Action::Confirm) {
                    return Vec::new();
                }
                if let Some(scroll) = scrolled(action, scroll, HELP_SCROLL) {
                    self.modals.push(Modal::Aliases { scroll });
                }
            }
            Modal::Describe { uid, scroll } => {
                if let Some(scroll) = scrolled(action, scroll, HELP_SCROLL) {
                    self.modals.push(Modal::Describe { uid, scroll });
                }
            }
            Modal::Stuck { lines, scroll } => {
                if matches!(action, Action::Help | Action::Confirm) {
                    return Vec::new();
                }
                let most = u16::try_from(lines.len() * 2).unwrap_or(u16::MAX);
                if let Some(scroll) = scrolled(action, scroll, most) {
                    self.modals.push(Modal::Stuck { lines, scroll });
                }
            }
            Modal::Yaml { uid, scroll } => {
                // The view draws at most this far (wrapping may add lines).
                let most = self.graph.get(&uid).map_or(0, |o| {
                    u16::try_from(crate::model::yaml_text::object(o).len() * 2).unwrap_or(u16::MAX)
                });
                if action == Action::ShowYaml {
                    return Vec::new();
                }
                if let Some(scroll) = scrolled(action, scroll, most) {
                    self.modals.push(Modal::Yaml { uid, scroll });
                }
            }
            Modal::Command(c) => return self.in_command(c, action),
            Modal::Search(mut s) => match action {
                Action::Input(c) => {
                    s.query.push(c);
                    self.modals.push(Modal::Search(s));
                    self.search_typed();
                }
                Action::Backspace => {
                    s.query.pop();
                    let empty = s.query.is_empty();
                    let (key, i) = (s.origin, s.origin_index);
                    self.modals.push(Modal::Search(s));
                    if empty {
                        self.restore(key, i);
                    } else {
                        self.search_typed();
                    }
                }
                Action::Confirm => {
                    self.search = (!s.query.is_empty()).then_some(s.query);
                }
                Action::Cancel => self.restore(s.origin, s.origin_index),
                _ => self.modals.push(Modal::Search(s)),
            },
            Modal::Delete(mut d) => {
                let idx = Policy::ALL.iter().position(|p| *p == d.policy).unwrap_or(0);
                let policy = match action {
                    Action::Background => Some(Policy::Background),
                    Action::Foreground => Some(Policy::Foreground),
                    Action::Orphan => Some(Policy::Orphan),
                    Action::Up => Some(Policy::ALL[idx.saturating_sub(1)]),
                    Action::Down | Action::Toggle => Some(Policy::ALL[(idx + 1).min(2)]),
                    _ => None,
                };
                match action {
                    Action::Confirm if let Some(why) = d.refusal() => {
                        self.error(format!("{why}: refused, nothing was sent"));
                    }
                    Action::Confirm if !self.read(d.shown_at) => self.too_soon("the delete"),
                    Action::Confirm => {
                        self.info(format!("sent: {} - watch the tree", d.command.describe()));
                        return vec![d.command];
                    }
                    Action::Cancel => {
                        self.info("delete cancelled: nothing was sent");
                        return Vec::new();
                    }
                    Action::PageDown | Action::ScrollDown => d.scroll = d.scroll.saturating_add(5),
                    Action::PageUp | Action::ScrollUp => d.scroll = d.scroll.saturating_sub(5),
                    Action::ToggleForce => match self.graph.get(&d.target.uid) {
                        Some(obj) if obj.is_pod() => {
                            // The same verb: the server's answer stays.
                            let permission = d.permission.take();
                            d = self.delete_dialog_with(obj, d.policy, d.default_policy, !d.force);
                            d.permission = permission;
                        }
                        _ => self.info("only a pod has a grace period to skip"),
                    },
                    _ => {}
                }
                // A policy chosen: a graceful delete again.
                if let Some(p) = policy.filter(|p| *p != d.policy || d.force)
                    && let Some(obj) = self.graph.get(&d.target.uid)
                {
                    let permission = d.permission.take();
                    d = self.delete_dialog(obj, p, d.default_policy);
                    d.permission = permission;
                }
                self.modals.push(Modal::Delete(d));
            }
            Modal::Finalizer(mut f) => {
                if let Some(c) = f.confirm.as_mut() {
                    match action {
                        Action::Input(ch) => {
                            c.typed.push(ch);
                            c.mismatch = false;
                        }
                        Action::Backspace => {
                            c.typed.pop();
                            c.mismatch = false;
                        }
                        Action::Confirm
                            if let Some(why) =
                                f.permission.as_ref().and_then(Permission::denial) =>
                        {
                            self.error(format!("{why}; nothing was sent"));
                        }
                        Action::Confirm if c.typed == c.info.name && !self.read(c.shown_at) => {
                            self.too_soon("the finalizer removal");
                        }
                        Action::Confirm if c.typed == c.info.name => {
                            let cmd = c.command.clone();
                            self.info(format!("sent: {}", cmd.describe()));
                            return vec![cmd];
                        }
                        Action::Confirm => c.mismatch = true,
                        Action::Cancel => {
                            self.info("finalizer removal cancelled: nothing was sent");
                            return Vec::new();
                        }
                        _ => {}
                    }
                } else {
                    match action {
                        Action::Confirm => f.confirm = Some(self.finalizer_confirm(&f)),
                        Action::Cancel => return Vec::new(),
                        a => f.choice = moved(f.choice, f.finalizers.len(), a, 5),
                    }
                }
                self.modals.push(Modal::Finalizer(f));
            }
            Modal::Confirm(c) => match action {
                Action::Confirm if !self.read(c.shown_at) => {
                    self.too_soon("it");
                    self.modals.push(Modal::Confirm(c));
                }
                Action::Confirm => return vec![c.command],
                Action::Cancel => self.info("cancelled: nothing was sent"),
                _ => self.modals.push(Modal::Confirm(c)),
            },
            Modal::Pick(mut p) => match action {
                Action::Confirm
                    if matches!(p.purpose, Purpose::Scenario(_)) && !self.read(p.shown_at) =>
                {
                    self.too_soon("the scenario");
                    self.modals.push(Modal::Pick(p));
                }
                Action::Confirm => return self.picked(&p),
                Action::Cancel => {}
                a => {
                    p.choice = moved(p.choice, p.items.len(), a, 10);
                    self.modals.push(Modal::Pick(p));
                }
            },
            Modal::Controllers(mut c) => {
                let list = self
                    .status
                    .as_ref()
                    .map(|s| s.controllers.clone())
                    .unwrap_or_default();
                match action {
                    Action::Cancel => return Vec::new(),
                    Action::Confirm if !self.read(c.shown_at) => {
                        self.too_soon("the switch");
                    }
                    Action::Confirm => {
                        let cmds: Vec<Command> = list
                            .get(c.choice)
                            .map(|ctl| {
                                Command::Sim(SimCommand::SetController {
                                    finalizer: ctl.finalizer.clone(),
                                    online: !ctl.online,
                                })
                            })
                            .into_iter()
                            .collect();
                        // Enter closes, so that the cascade the switch sets
                        // off is in view; what was said before (a cancelled
                        // dialog) is no longer the news.
                        if let Some(cmd) = cmds.first() {
                            self.info(format!("sent: {}", cmd.describe()));
                        }
                        return cmds;
                    }
                    a => c.choice = moved(c.choice, list.len(), a, 5),
                }
                self.modals.push(Modal::Controllers(c));
            }
        }
        Vec::new()
    }

    /// Whether what was put on screen at `shown_at` has been there long
    /// enough to be read ([`READ_FOR`]).
    fn read(&self, shown_at: std::time::Duration) -> bool {
        self.clock >= shown_at + READ_FOR
    }

    /// When the open dialog's `Enter` starts to send (the App's real
    /// clock), if it is one that sends something.
    fn sends_from(&self) -> Option<std::time::Duration> {
        let shown = match self.modals.last()? {
            Modal::Delete(d) => d.shown_at,
            Modal::Finalizer(f) => f.confirm.as_ref()?.shown_at,
            Modal::Confirm(c) => c.shown_at,
            Modal::Controllers(c) => c.shown_at,
            Modal::Pick(p) if matches!(p.purpose, Purpose::Scenario(_)) => p.shown_at,
            _ => return None,
        };
        Some(shown + READ_FOR)
    }

    /// Whether the open dialog's `Enter` would send now (`true` too for
    /// a dialog that sends nothing): its keys line says so.
    #[must_use]
    pub fn enter_ready(&self) -> bool {
        self.sends_from().is_none_or(|t| self.clock >= t)
    }

    /// Real time until the open dialog's `Enter` starts to send.
    pub(super) fn until_enter_ready(&self) -> Option<std::time::Duration> {
        self.sends_from().filter(|t| *t > self.clock)
    }

    /// An `Enter` that came before the dialog could be read: nothing is
    /// sent, and the user is told why.
    fn too_soon(&mut self, what: &str) {
        self.info(format!(
            "Enter came before the dialog could be read: nothing was sent. Read it, then Enter sends {what}"
        ));
    }

    fn restore(&mut self, key: Option<super::RowKey>, index: usize) {
        match key.and_then(|k| self.rows.iter().position(|r| r.key == k)) {
            Some(i) => self.select(i),
            None => self.select(index),
        }
    }

    fn picked(&mut self, p: &Picker) -> Vec<Command> {
        match &p.purpose {
            Purpose::Scenario(names) => {
                if let Some(n) = names.get(p.choice) {
                    self.info(format!("loading scenario {n}"));
                    return vec![Command::Sim(SimCommand::Load(n.clone()))];
                }
            }
            Purpose::Filter(choices) => {
                match choices.get(p.choice) {
                    Some(FilterChoice::Everything) => self.filters = super::Filters::default(),
                    Some(FilterChoice::Only(o)) => self.filters.only = *o,
                    Some(FilterChoice::Scope(s)) => self.filters.scope = s.clone(),
                    None => {}
                }
                self.rebuild();
            }
            Purpose::Namespace(choices) => {
                if let Some(ns) = choices.get(p.choice) {
                    match self.choose_namespace(ns.as_deref()) {
                        Ok(cmds) => return cmds,
                        Err(e) => self.error(e),
                    }
                }
            }
            Purpose::Owner(uids) => {
                if let Some(u) = uids.get(p.choice).cloned() {
                    self.goto_owner(&u);
                }
            }
        }
        Vec::new()
    }
}

impl App {
    /// Whether every namespace is in view (the simulator's world is).
    pub(super) fn whole_cluster(&self) -> bool {
        self.opts.is_simulator
            || self
                .status
                .as_ref()
                .is_some_and(|s| s.scope == "all namespaces")
    }

    fn finalizer_confirm(&self, d: &FinalizerDialog) -> FinalizerConfirm {
        let name = d.finalizers.get(d.choice).cloned().unwrap_or_default();
        let info = finalizers::describe(&name);
        let remover = match (self.controllers.get(&name), info.origin) {
            (Some(&online), _) => RemoverState::Simulated { online },
            (None, finalizers::Origin::KnownThirdParty | finalizers::Origin::Unknown) => {
                let r = crate::model::remover::find(
                    &crate::model::remover::workloads(&self.graph),
                    &name,
                    d.target.namespace.as_deref(),
                    Vec::new(),
                    self.whole_cluster(),
                );
                RemoverState::Found {
                    sentence: r.sentence(),
                    runs: r.runs(),
                }
            }
            // The cloud's service controller: in sight, or not
            // (STUCK-CAUSES C17).
            (None, _) if name == crate::model::cloud::LOAD_BALANCER_CLEANUP => {
                let seen = crate::model::remover::in_view(&self.graph);
                let whole = self.whole_cluster();
                let held = self.graph.get(&d.target.uid).and_then(|o| {
                    crate::model::cloud::held(o, &seen.workloads, &seen.providers, whole)
                });
                match held {
                    Some(h) => RemoverState::Found {
                        sentence: h.by,
                        runs: crate::model::cloud::controller_runs(
                            crate::model::cloud::cloud_controller(&seen.workloads).as_ref(),
                            &seen.providers,
                            whole,
                        ),
                    },
                    None => RemoverState::BuiltIn,
                }
            }
            _ => RemoverState::BuiltIn,
        };
        let mut c = finalizer_confirm(d, info, remover);
        c.shown_at = self.clock;
        if let Some(obj) = self.graph.get(&d.target.uid) {
            let mut holding = crate::model::webhooks::holding(
                &self.graph,
                obj,
                &std::collections::BTreeMap::new(),
                false,
            );
            holding.sort_by_key(|h| !h.backend.is_down());
            c.webhooks = holding.iter().filter_map(|h| h.cause()).collect();
        }
        c
    }
}

fn finalizer_confirm(
    d: &FinalizerDialog,
    info: finalizers::FinalizerInfo,
    remover: RemoverState,
) -> FinalizerConfirm {
    let name = d.finalizers.get(d.choice).cloned().unwrap_or_default();
    FinalizerConfirm {
        info,
        remover,
        webhooks: Vec::new(),
        typed: String::new(),
        mismatch: false,
        command: Command::RemoveFinalizer {
            target: d.target.clone(),
            finalizer: name,
        },
        shown_at: std::time::Duration::ZERO,
    }
}

/// A scrolled overlay's (help, YAML) scroll after `action`, at most
/// `most`; `None`: the action closes it.
fn scrolled(action: Action, scroll: u16, most: u16) -> Option<u16> {
    Some(match action {
        Action::Up | Action::ScrollUp => scroll.saturating_sub(1),
        Action::Down | Action::ScrollDown => scroll.saturating_add(1).min(most),
        Action::PageUp => scroll.saturating_sub(10),
        Action::PageDown => scroll.saturating_add(10).min(most),
        Action::Top => 0,
        Action::Cancel | Action::Quit => return None,
        _ => scroll,
    })
}
