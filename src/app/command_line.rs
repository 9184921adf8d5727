//! The `:` command line, as a k9s user expects it: `:q`, `:ns NAME` (or
//! `all`), `:scenario NAME` in the simulator, and kind aliases (`:deploy`,
//! `:pods`, `:rs`, `:svc`...) that search the tree for that kind (then
//! `n`/`N`). `Tab` completes.

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
        "ctx NAME: not from inside; start again with --context NAME",
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
                let space = if head.is_empty() && matches!(one.as_str(), "ns" | "scenario") {
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
            ("ctx" | "context", _) => Err(
                "switching context from inside is not supported: the backend holds one connection, its watches and its access reviews for one context; quit (:q) and start again with --context NAME".into(),
            ),
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
                    "unknown command {word}: q, ns, scenario, help, or a kind (deploy, pods, rs, svc...)"
                )),
            },
        }
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
