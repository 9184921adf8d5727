//! `--live` for the headless commands: one list of the cluster into the
//! model, then the same renderers as for scenarios.

use std::collections::BTreeSet;

use jiff::Timestamp;

use super::CmdError;
use crate::cli::LiveArgs;
use crate::cluster::{self, Connected, Snapshot};
use crate::model::{OwnershipGraph, Uid};
use crate::sim::engine::resolve_target;
use crate::sim::scenario::Target;

/// The live backend for `ui --live` (watching, with `--read-only` enforced
/// at the request level), ready to hand to the UI as a `Box<dyn Backend>`.
///
/// # Errors
/// Kubeconfig problems; the server unreachable.
pub fn ui_backend(args: &crate::cli::UiArgs) -> Result<cluster::ClusterBackend, CmdError> {
    let opts = args.live.options(args.namespace.as_deref(), args.read_only);
    cluster::ClusterBackend::start(&opts).map_err(|e| CmdError(e.to_string()))
}

/// `warning: <what> <resources> (<the first reason>)<then>` on stderr,
/// when any resource failed.
fn warn(what: &str, failed: &[(String, String)], then: &str) {
    let Some((_, first)) = failed.first() else {
        return;
    };
    let names: Vec<&str> = failed.iter().map(|(k, _)| k.as_str()).collect();
    eprintln!(
        "warning: {what} {} ({}){then}",
        super::out::one_line(&names.join(", ")),
        super::out::one_line(first)
    );
}

/// A cluster read once.
pub struct LiveView {
    pub conn: Connected,
    pub snapshot: Snapshot,
}

impl LiveView {
    /// Connects and lists everything in scope; kinds that could not be
    /// listed are reported on stderr (the output is partial).
    ///
    /// # Errors
    /// Kubeconfig problems; the server unreachable.
    pub fn read(live: &LiveArgs, namespace: Option<&str>) -> Result<LiveView, CmdError> {
        let opts = live.options(namespace, true);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| CmdError(format!("starting the runtime: {e}")))?;
        let limit = live.request_timeout;
        let answer = rt.block_on(async {
            let work = async {
                let conn = cluster::connect(&opts).await?;
                let snap = cluster::list_once(&conn).await?;
                Ok::<_, cluster::ClusterError>((conn, snap))
            };
            if limit == std::time::Duration::MAX {
                Some(work.await)
            } else {
                tokio::time::timeout(limit, work).await.ok()
            }
        });
        let Some(answer) = answer else {
            // A hanging exec plugin runs on a blocking thread: do not wait
            // for it on the way out.
            rt.shutdown_background();
            return Err(CmdError(format!(
                "no answer from the cluster within {} (--request-timeout)",
                humanize(limit)
            )));
        };
        let (conn, snapshot) = answer.map_err(|e| CmdError(e.to_string()))?;
        if snapshot.objects.is_empty() && !snapshot.missing.is_empty() {
            let (kind, why) = &snapshot.missing[0];
            return Err(CmdError(format!(
                "nothing could be listed ({} kinds refused or failed; {}: {})",
                snapshot.missing.len(),
                super::out::one_line(kind),
                super::out::one_line(why)
            )));
        }
        if let cluster::Scope::Namespace(ns) = &conn.scope {
            let namespaces_listed = !snapshot.missing.iter().any(|(k, _)| k == "namespaces");
            let found = snapshot
                .objects
                .iter()
                .any(|o| o.kind == "Namespace" && o.group().is_empty() && o.name() == ns);
            if namespaces_listed && !found {
                return Err(CmdError(format!(
                    "namespaces \"{}\" not found",
                    super::out::one_line(ns)
                )));
            }
        }
        // One line, however many kinds: the answers themselves say where
        // it matters (partial.unlisted in JSON).
        warn("partial view: cannot list", &snapshot.missing, "");
        warn(
            "cannot read the cluster-scoped objects this namespace uses:",
            &snapshot.unread,
            "; they are not in this view",
        );
        Ok(LiveView { conn, snapshot })
    }

    #[must_use]
    pub fn graph(&self) -> OwnershipGraph {
        let mut g = OwnershipGraph::new(self.snapshot.kinds.clone());
        for o in &self.snapshot.objects {
            g.upsert(o.clone());
        }
        g
    }

    #[must_use]
    pub fn now(&self) -> Timestamp {
        Timestamp::now()
    }

    /// Finds `KIND/NAME` (in `-n`, else the context's namespace unless
    /// `-A`, where a unique namespace is found).
    ///
    /// # Errors
    /// Unknown kind, ambiguous, not found.
    pub fn find(&self, typed: &str, namespace: Option<&str>, all: bool) -> Result<Uid, CmdError> {
        let ns = namespace
            .map(str::to_string)
            .or_else(|| (!all).then(|| self.conn.default_namespace.clone()));
        let mut target: Target = super::parse_target(typed, ns.as_deref())?;
        if target.namespace.is_none() && !all {
            target.namespace = Some(self.conn.default_namespace.clone());
        }
        let key = resolve_target(&self.snapshot.kinds, self.snapshot.objects.iter(), &target)
            .map_err(CmdError)?;
        self.snapshot
            .objects
            .iter()
            .find(|o| {
                o.group() == key.group
                    && o.kind == key.kind
                    && o.name() == key.name
                    && o.namespace().map(str::to_string) == key.namespace
            })
            .map(|o| o.metadata.uid.clone())
            .ok_or_else(|| {
                let missing: BTreeSet<&str> = self
                    .snapshot
                    .missing
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .collect();
                let partial = if missing.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (partial view: could not list {})",
                        missing.into_iter().collect::<Vec<_>>().join(", ")
                    )
                };
                CmdError(format!("{}{partial}", key.not_found()))
            })
    }
}

fn humanize(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 && s % 60.0 == 0.0 {
        format!("{}m", s / 60.0)
    } else {
        format!("{s}s")
    }
}
