//! The `:` command line, as a k9s user expects it: `:q`, `:ns NAME` (or
//! `all`), `:ctx NAME` on a live cluster (the contexts come from the
//! backend), `:scenario NAME` in the simulator, and kind aliases
//! (`:deploy`, `:pods`, `:rs`, `:svc`...) that search the tree for that
//! kind (then `n`/`N`). `Tab` completes.

use super::modal::{CommandInput, Modal};
use super::rows::Scope;
use super::{Action, App};
use crate::backend::{Command, SimCommand};

/// The commands, with what each does (the help lists them).
pub const COMMANDS: &[(&str, &str)] = &[
    ("q", "quit"),
    (
        "ns",
        "ns NAME: only that namespace; ns all: every namespace",
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

    fn namespaces(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .graph
            .objects()
            .filter_map(|o| o.namespace().map(str::to_string))
            .collect();
        out.sort();
        out.dedup();
        out
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
                .chain(KIND_ALIASES.iter().map(|(names, _)| names[0].to_string()))
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
            ("ns", None) => Err("ns NAME, or ns all".into()),
            ("ns", Some("all" | "-A")) => {
                self.filters.scope = Scope::All;
                self.rebuild();
                self.info("every namespace");
                Ok(Vec::new())
            }
            ("ns", Some(ns)) => {
                if !self.namespaces().iter().any(|n| n == ns) {
                    return Err(format!("no namespace {ns} here (Tab completes)"));
                }
                self.filters.scope = Scope::Namespace(ns.to_string());
                self.rebuild();
                self.info(format!("only namespace {ns} (:ns all for every one)"));
                Ok(Vec::new())
            }
            ("ctx" | "context", _) if self.opts.is_simulator => {
                Err("contexts are for a live cluster (ui --live); the simulator has scenarios: :scenario NAME".into())
            }
            ("ctx" | "context", None) => Err(match &self.contexts {
                Some(c) => format!("ctx NAME (Tab completes); now on {}", c.current),
                None => "ctx NAME (Tab completes)".into(),
            }),
            ("ctx" | "context", Some(name)) => self.switch_context(name),
            ("scenario", _) if !self.opts.is_simulator => {
                Err("scenarios are for the simulator".into())
            }
            ("scenario", None) => Err("scenario NAME (Tab completes)".into()),
            ("scenario", Some(name)) => {
                if !self.opts.scenarios.iter().any(|(n, _)| n == name) {
                    return Err(format!("no scenario {name} (Tab completes)"));
                }
                self.info(format!("loading scenario {name}"));
                Ok(vec![Command::Sim(SimCommand::Load(name.to_string()))])
            }
            (word, _) => match kind_of(word) {
                Some(kind) => {
                    self.search_kind(kind);
                    Ok(Vec::new())
                }
                None => Err(format!(
                    "unknown command {word}: q, ns, ctx, scenario, stuck, help, or a kind (deploy, pods, rs, svc...)"
                )),
            },
        }
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
