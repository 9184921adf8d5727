//! The `:` command line, as a k9s user expects it: `:q`, `:ns NAME` (or
//! `all`; alone, a list to choose from; on a source that watches one
//! namespace, another is watched instead), `:ctx NAME` on a live cluster (the
//! contexts come from the backend), `:scenario NAME` in the simulator, and
//! any kind the source knows, custom resources included, by plural,
//! singular, short name or `kind.group` (`:deploy`, `:po`, `:no`,
//! `:widgets`), which searches the tree for that kind (then `n`/`N`).
//! `Tab` completes; an unknown word says what was meant.

use super::modal::{CommandInput, Modal};
use super::rows::Scope;
use super::{Action, App};
use crate::backend::{Command, SimCommand};

/// The commands, with what each does (the help lists them).
pub const COMMANDS: &[(&str, &str)] = &[
    ("q", "quit"),
    (
        "ns",
        "ns NAME: only that namespace (a cluster watches it if out of view); ns all or 0: every one; ns: a list",
    ),
    (
        "scenario",
        "scenario NAME: load another scenario (simulator)",
    ),
    (
        "ctx",
        "ctx NAME: switch to another kubeconfig context (live cluster)",
    ),
    (
        "stuck",
        "stuck: everything Terminating, grouped by cause, the oldest first",
    ),
    ("help", "the keys"),
    ("aliases", "every command and alias (Ctrl-a)"),
];

/// k9s's short names and kubectl's names of the kinds, to search by kind.
pub const KIND_ALIASES: &[(&[&str], &str)] = &[
    (&["po", "pod", "pods"], "Pod"),
    (&["deploy", "dp", "deployment", "deployments"], "Deployment"),
    (&["rs", "replicaset", "replicasets"], "ReplicaSet"),
    (&["sts", "statefulset", "statefulsets"], "StatefulSet"),
    (&["ds", "daemonset", "daemonsets"], "DaemonSet"),
    (&["job", "jobs"], "Job"),
    (&["cj", "cronjob", "cronjobs"], "CronJob"),
    (&["svc", "service", "services"], "Service"),
    (&["ep", "endpoints"], "Endpoints"),
    (&["eps", "endpointslice", "endpointslices"], "EndpointSlice"),
    (&["cm", "configmap", "configmaps"], "ConfigMap"),
    (&["sec", "secret", "secrets"], "Secret"),
    (
        &["pvc", "persistentvolumeclaim", "persistentvolumeclaims"],
        "PersistentVolumeClaim",
    ),
    (
        &["pv", "persistentvolume", "persistentvolumes"],
        "PersistentVolume",
    ),
    (&["namespace", "namespaces"], "Namespace"),
    (
        &["crd", "crds", "customresourcedefinition"],
        "CustomResourceDefinition",
    ),
];

/// The kind a word names, if any.
#[must_use]
pub fn kind_of(word: &str) -> Option<&'static str> {
    let w = word.to_lowercase();
    KIND_ALIASES
        .iter()
        .find(|(names, kind)| names.contains(&w.as_str()) || kind.to_lowercase() == w)
        .map(|(_, kind)| *kind)
}

impl App {
    pub(super) fn open_command(&mut self) {
        self.modals.push(Modal::Command(CommandInput::default()));
    }

    /// Keys while the command line is open.
    pub(super) fn in_command(&mut self, mut c: CommandInput, action: Action) -> Vec<Command> {
        match action {
            Action::Input(ch) => {
                c.text.push(ch);
                c.error = None;
            }
            Action::Backspace => {
                if c.text.pop().is_none() {
                    return Vec::new();
                }
                c.error = None;
            }
            Action::Complete => {
                c.text = self.complete(&c.text);
                c.error = None;
            }
            Action::Cancel => return Vec::new(),
            Action::Confirm => {
                return match self.run_command(c.text.trim()) {
                    Ok(cmds) => cmds,
                    Err(e) => {
                        c.error = Some(e);
                        self.modals.push(Modal::Command(c));
                        Vec::new()
                    }
                };
            }
            _ => {}
        }
        self.modals.push(Modal::Command(c));
        Vec::new()
    }

    /// The namespaces of the tree: its objects' and its Namespace
    /// objects' (an empty namespace has only the latter).
    fn namespaces_in_view(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .graph
            .objects()
            .filter_map(|o| match o.namespace() {
                Some(ns) => Some(ns.to_string()),
                None if o.kind == "Namespace" && o.group().is_empty() => Some(o.name().to_string()),
                None => None,
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// What `:ns` offers: the tree's namespaces, and those the source
    /// could watch instead.
    fn namespaces(&self) -> Vec<String> {
        let mut out = self.namespaces_in_view();
        if let Some(n) = &self.source_namespaces {
            out.extend(n.names.iter().cloned());
        }
        out.sort();
        out.dedup();
        out
    }

    /// The one namespace the source watches, if it watches one (a live
    /// cluster opened with `-n`).
    fn watched_namespace(&self) -> Option<&str> {
        self.source_namespaces.as_ref()?.watched.as_deref()
    }

    /// Candidates for the word being typed.
    #[must_use]
    pub fn command_candidates(&self, text: &str) -> Vec<String> {
        let (head, word) = match text.rsplit_once(' ') {
            Some((h, w)) => (Some(h.trim()), w),
            None => (None, text),
        };
        let pool: Vec<String> = match head {
            None => COMMANDS
                .iter()
                .map(|(n, _)| (*n).to_string())
                .chain(self.kind_names().into_iter().flat_map(|(_, n)| n))
                .collect(),
            Some("ns") => std::iter::once("all".to_string())
                .chain(self.namespaces())
                .collect(),
            Some("scenario") => self.opts.scenarios.iter().map(|(n, _)| n.clone()).collect(),
            Some("ctx" | "context") => self
                .contexts
                .as_ref()
                .map(|c| c.names.clone())
                .unwrap_or_default(),
            Some(_) => Vec::new(),
        };
        pool.into_iter().filter(|p| p.starts_with(word)).collect()
    }

    /// The text with its last word completed as far as the candidates
    /// agree (and a space after a whole command).
    fn complete(&self, text: &str) -> String {
        let found = self.command_candidates(text);
        let head = match text.rsplit_once(' ') {
            Some((h, _)) => format!("{h} "),
            None => String::new(),
        };
        match found.as_slice() {
            [] => text.to_string(),
            [one] => {
                let space = if head.is_empty() && matches!(one.as_str(), "ns" | "scenario" | "ctx")
                {
                    " "
                } else {
                    ""
                };
                format!("{head}{one}{space}")
            }
            [first, rest @ ..] => {
                let mut common = first.clone();
                for r in rest {
                    while !r.starts_with(common.as_str()) {
                        common.pop();
                    }
                }
                format!("{head}{common}")
            }
        }
    }

    fn run_command(&mut self, text: &str) -> Result<Vec<Command>, String> {
        let mut words = text.split_whitespace();
        let first = words.next().unwrap_or_default();
        let arg = words.next();
        match (first, arg) {
            ("", _) => Ok(Vec::new()),
            ("q" | "q!" | "quit" | "qa", _) => {
                self.quit = true;
                Ok(Vec::new())
            }
            ("help", _) => {
                self.modals.push(Modal::Help { scroll: 0 });
                Ok(Vec::new())
            }
            ("stuck", _) => {
                let whole = self.whole_cluster();
                let report =
                    crate::model::stuck::report(&self.graph, self.now, &self.controllers, Some(whole));
                self.modals.push(Modal::Stuck {
                    lines: report.lines(),
                    scroll: 0,
                });
                Ok(Vec::new())
            }
                    ("aliases" | "alias" | "a", _) => {
                self.modals.push(Modal::Aliases { scroll: 0 });
                Ok(Vec::new())
            }
            ("ns" | "namespace" | "namespaces", None) => {
                self.open_namespaces();
                Ok(Vec::new())
            }
            ("ns" | "namespace" | "namespaces", Some("all" | "-A" | "0")) => {
                self.choose_namespace(None)
            }
            ("ns" | "namespace" | "namespaces", Some(ns)) => self.choose_namespace(Some(ns)),
            ("ctx" | "context", _) if self.opts.is_simulator => {
                Err("contexts are for a live cluster (ui --live); the simulator has scenarios: :scenario NAME".into())
            }
            ("ctx" | "context", None) => Err(match &self.contexts {
                Some(c) => format!("ctx NAME (Tab completes); now on {}", c.current),
                None => "ctx NAME (Tab completes)".into(),
            }),
            ("ctx" | "context", Some(name)) => self.switch_context(name),
            ("scenario", _) if !self.opts.is_simulator => {
                Err("scenarios are for the simulator (ownerscope SCENARIO); here :ctx NAME switches context".into())
            }
            ("scenario", None) => Err("scenario NAME (Tab completes)".into()),
            ("scenario", Some(name)) => {
                if !self.opts.scenarios.iter().any(|(n, _)| n == name) {
                    return Err(format!("no scenario {name} (Tab completes)"));
                }
                self.info(format!("loading scenario {name}"));
                Ok(vec![Command::Sim(SimCommand::Load(name.to_string()))])
            }
            (word, _) => match self.kind_named(word) {
                Some(kind) => {
                    self.search_kind(&kind);
                    Ok(Vec::new())
                }
                None => Err(match self.meant(word) {
                    Some(m) => format!("unknown command {word}: did you mean {m}? (Ctrl-a lists them all)"),
                    None => format!(
                        "unknown command {word}: q, ns, ctx, scenario, stuck, help, or a kind (deploy, po, no...); Ctrl-a lists them all"
                    ),
                }),
            },
        }
    }

    /// `0` and `:ns all`: every namespace.
    pub(super) fn all_namespaces(&mut self) -> Vec<Command> {
        match self.choose_namespace(None) {
            Ok(cmds) => cmds,
            Err(e) => {
                self.error(e);
                Vec::new()
            }
        }
    }

    /// `:ns NAME`, `:ns all`, `0` and the `:ns` list, as in k9s: a
    /// namespace in the tree is shown alone; on a source that watches one
    /// namespace, another is watched instead, and every namespace (`None`)
    /// widens the watch ([`Command::SwitchNamespace`]; the tree is
    /// replaced once the new scope has listed).
    pub(super) fn choose_namespace(&mut self, ns: Option<&str>) -> Result<Vec<Command>, String> {
        let watched = self.watched_namespace().map(str::to_string);
        let Some(ns) = ns else {
            self.filters.scope = Scope::All;
            self.rebuild();
            return Ok(match watched {
                None => {
                    self.info("every namespace");
                    Vec::new()
                }
                Some(w) => {
                    self.info(format!(
                        "widening the watch from namespace {w} to every namespace…"
                    ));
                    vec![Command::SwitchNamespace(None)]
                }
            });
        };
        let in_view = self.namespaces_in_view().iter().any(|n| n == ns);
        match watched {
            Some(w) if w == ns => {
                self.filters.scope = Scope::All;
                self.rebuild();
                self.info(format!(
                    "namespace {ns} is the one watched (0 for every namespace)"
                ));
                Ok(Vec::new())
            }
            Some(_) => {
                let names = self
                    .source_namespaces
                    .as_ref()
                    .map(|n| n.names.as_slice())
                    .unwrap_or_default();
                if !names.is_empty() && !names.iter().any(|n| n == ns) {
                    return Err(format!("no namespace {ns} in the cluster (Tab completes)"));
                }
                self.info(format!("watching namespace {ns}…"));
                Ok(vec![Command::SwitchNamespace(Some(ns.to_string()))])
            }
            None if in_view => {
                self.filters.scope = Scope::Namespace(ns.to_string());
                self.rebuild();
                self.info(format!("only namespace {ns} (0 for every one)"));
                Ok(Vec::new())
            }
            // A live watch of every namespace that has not listed yet
            // (just opened with `-A`, or widened by `0`): which namespaces
            // there are is not known, so X is watched, as with `-n`, and the
            // server says whether it exists.
            None if self.source_namespaces.is_some() && !self.scope_listed => {
                self.info(format!("watching namespace {ns}…"));
                Ok(vec![Command::SwitchNamespace(Some(ns.to_string()))])
            }
            None => Err(format!("no namespace {ns} here (Tab completes)")),
        }
    }

    /// `:ns` alone: the namespaces, to choose one (or all); on a source
    /// that watches one, the cluster's others too.
    fn open_namespaces(&mut self) {
        use super::modal::{PickItem, Picker, Purpose};
        let watched = self.watched_namespace().map(str::to_string);
        let mut choices = vec![None];
        choices.extend(self.namespaces().into_iter().map(Some));
        let items: Vec<PickItem> = choices
            .iter()
            .map(|c| match c {
                Some(n) => PickItem {
                    label: n.clone(),
                    detail: if watched.as_ref() == Some(n) {
                        "watched".into()
                    } else {
                        String::new()
                    },
                    current: match &watched {
                        Some(w) => w == n,
                        None => self.filters.scope == Scope::Namespace(n.clone()),
                    },
                },
                None => PickItem {
                    label: "all".into(),
                    detail: "every namespace (0)".into(),
                    current: watched.is_none() && self.filters.scope == Scope::All,
                },
            })
            .collect();
        let choice = items.iter().position(|i| i.current).unwrap_or(0);
        self.modals.push(Modal::Pick(Picker {
            title: "Namespaces".into(),
            note: if watched.is_some() {
                "Enter: watch that namespace instead".into()
            } else {
                "Enter: show only that namespace".into()
            },
            items,
            choice,
            purpose: Purpose::Namespace(choices),
            shown_at: self.clock,
        }));
    }

    /// The kind a word names: k9s's aliases, then every kind the source
    /// knows (custom resources included) by plural, singular, short name
    /// or `kind.group`.
    fn kind_named(&self, word: &str) -> Option<String> {
        if let Some(k) = kind_of(word) {
            return Some(k.to_string());
        }
        self.graph
            .kinds()
            .resolve(word)
            .first()
            .map(|k| k.kind.clone())
    }

    /// Every word the command line takes, for `Ctrl-a` and for "did you
    /// mean": commands, then (kind, its names).
    #[must_use]
    pub fn kind_names(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for k in self.graph.kinds().iter() {
            let mut names: Vec<String> = vec![k.plural.clone(), k.kind.to_lowercase()];
            names.extend(k.short_names.iter().cloned());
            if let Some((aliases, _)) = KIND_ALIASES.iter().find(|(_, kind)| *kind == k.kind) {
                names.extend(aliases.iter().map(|a| (*a).to_string()));
            }
            if !k.group.is_empty() {
                names.push(format!("{}.{}", k.plural, k.group));
            }
            let mut seen = std::collections::HashSet::new();
            names.retain(|n| seen.insert(n.clone()));
            out.push((k.kind.clone(), names));
        }
        out.sort();
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    /// The nearest word the command line knows, if one is close.
    fn meant(&self, word: &str) -> Option<String> {
        let w = word.to_lowercase();
        let words = COMMANDS
            .iter()
            .map(|(c, _)| (*c).to_string())
            .chain(self.kind_names().into_iter().flat_map(|(_, n)| n));
        words
            .map(|c| (distance(&w, &c), c))
            .filter(|(d, c)| *d <= 2.max(c.len() / 4) && *d < c.len())
            .min()
            .map(|(_, c)| c)
    }

    /// `:ctx NAME`: the backend connects to that context; the tree is
    /// replaced once it has listed (see [`App::context_switched`]).
    fn switch_context(&mut self, name: &str) -> Result<Vec<Command>, String> {
        let Some(c) = &self.contexts else {
            return Err("the source has not named its contexts yet".into());
        };
        if c.current == name {
            self.info(format!("already on context {name} (Ctrl-r reconnects)"));
            return Ok(Vec::new());
        }
        if !c.names.iter().any(|n| n == name) {
            return Err(format!(
                "no context {name} in the kubeconfig (Tab completes; Ctrl-r reads it again)"
            ));
        }
        self.info(format!("switching to context {name}…"));
        Ok(vec![Command::SwitchContext(name.to_string())])
    }

    /// A context switch succeeded: a `:ns` filter chosen on the old
    /// context is dropped (the new one has its own namespaces). Returns
    /// whether there was one.
    pub(super) fn context_switched(&mut self) -> bool {
        if self.filters.scope == Scope::All {
            return false;
        }
        self.filters.scope = Scope::All;
        self.rebuild();
        true
    }

    /// `:deploy`: searches the tree for that kind, from the top.
    fn search_kind(&mut self, kind: &str) {
        let query = format!("{}/", kind.to_lowercase());
        self.search = Some(query.clone());
        self.selected = 0;
        self.selected_key = self.rows.first().map(|r| r.key);
        let found = self.find(true, true, |u| {
            self.index.label(u).starts_with(query.as_str())
        });
        match found {
            Some(f) => {
                self.reveal(&f);
                self.info(format!("{kind}: n/N for the next and previous one"));
            }
            None => self.info(format!("no {kind} here")),
        }
    }
}

/// Edit distance between two words (insertions, deletions, changes).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(here + 1);
            prev = here;
        }
    }
    row[b.len()]
}
