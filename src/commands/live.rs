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

/// What `ui --live` connects with: kubectl's flags, `-l`, `--read-only`
/// (enforced at the request level) and `--request-timeout` (how long to
/// wait for the server before the UI gives up with an error).
#[must_use]
pub fn ui_options(args: &crate::cli::UiArgs) -> (cluster::LiveOptions, std::time::Duration) {
    let mut opts = args.live.options(args.namespace.as_deref(), args.read_only);
    opts.selector.clone_from(&args.selector);
    (opts, args.live.request_timeout)
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

/// Runs `read` with a client made on a runtime of its own (a client serves
/// the runtime it was made on), within 10 s: evidence read for one object.
fn read_evidence<T, F, Fut>(live: &LiveArgs, namespace: Option<&str>, read: F) -> Result<T, String>
where
    F: FnOnce(kube::Client) -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        tokio::time::timeout(std::time::Duration::from_secs(10), async {
            let conn = cluster::config::connect(&live.options(namespace, true))
                .await
                .map_err(|e| e.to_string())?;
            read(conn.client).await
        })
        .await
        .map_err(|_| "no answer within 10s".to_string())?
    })
}

impl LiveView {
    /// Connects and lists everything in scope; kinds that could not be
    /// listed are reported on stderr (the output is partial).
    ///
    /// # Errors
    /// Kubeconfig problems; the server unreachable.
    pub fn read(live: &LiveArgs, namespace: Option<&str>) -> Result<LiveView, CmdError> {
        Self::read_for(live, namespace, None, None)
    }

    /// As [`LiveView::read`], with a label selector (the server filters),
    /// and for one object typed as `KIND/NAME`: when its kind is
    /// cluster-scoped it is found whatever `-n` is, as kubectl finds it, and
    /// the scope widens to where its dependents can be (a Namespace: that
    /// namespace; any other cluster-scoped object: every namespace).
    ///
    /// # Errors
    /// As [`LiveView::read`].
    pub fn read_for(
        live: &LiveArgs,
        namespace: Option<&str>,
        selector: Option<&str>,
        target: Option<&str>,
    ) -> Result<LiveView, CmdError> {
        let mut opts = live.options(namespace, true);
        opts.selector = selector.map(str::to_string);
        let target = match target {
            Some(t) => Some(super::parse_target(t, namespace)?),
            None => None,
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| CmdError(format!("starting the runtime: {e}")))?;
        let limit = live.request_timeout;
        let answer = rt.block_on(async {
            let work = async {
                let mut conn = cluster::connect(&opts).await?;
                let mut discovered = cluster::discovery::discover(&conn).await?;
                // A kind asked for that the cached discovery does not know:
                // ask the server, as kubectl invalidates its cache on a miss.
                if discovered.from_cache()
                    && let Some(t) = &target
                    && discovered.kinds.resolve(&t.kind).is_empty()
                {
                    discovered = cluster::discovery::rediscover(&conn).await?;
                }
                if let Some(t) = &target
                    && let Some(scope) = scope_for(&discovered.kinds, t, &conn.scope)
                {
                    conn.scope = scope;
                }
                let mut snap = cluster::list::list_discovered(&conn, discovered.clone()).await?;
                // What the lists show that the cached discovery lacks (a CRD
                // or an API added since): ask the server, and list again if
                // it knows more.
                // So is a resource the cache names that the server no longer
                // serves (its list answers 404: a CRD deleted since).
                if discovered.from_cache()
                    && (!snap.vanished.is_empty()
                        || cluster::list::discovery_lacks(&conn, &discovered, &snap).await)
                {
                    let fresh = cluster::discovery::rediscover(&conn).await?;
                    if fresh.resources != discovered.resources {
                        snap = cluster::list::list_discovered(&conn, fresh).await?;
                    } else {
                        // The same resources, but an API the cache did not
                        // know is unavailable now: say so.
                        for u in fresh
                            .kinds
                            .unlisted()
                            .iter()
                            .filter(|u| u.is_unavailable_api())
                        {
                            snap.kinds.mark_unlisted(u.clone());
                        }
                    }
                }
                Ok::<_, cluster::ClusterError>((conn, snap))
            };
            if limit == std::time::Duration::MAX {
                Some(work.await)
            } else {
                within_request_timeout(limit, &cluster::list::PAGES_READ, work).await
            }
        });
        let Some(answer) = answer else {
            // A hanging exec plugin runs on a blocking thread: do not wait
            // for it on the way out.
            rt.shutdown_background();
            return Err(CmdError(format!(
                "no answer from the cluster within {} (--request-timeout)",
                cluster::humanize(limit)
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

    /// Who wrote each finalizer of the diagnosed object (one GET of its
    /// metadata) and its Events (one list), as the UI's source reads them
    /// ([`cluster::evidence::of_object`]); what could not be read is in
    /// `missing`.
    ///
    /// # Errors
    /// The kind is not served, or no connection.
    pub fn object_evidence(
        &self,
        live: &LiveArgs,
        namespace: Option<&str>,
        d: &crate::model::diagnosis::Diagnosis,
    ) -> Result<crate::backend::Evidence, String> {
        let o = &d.object;
        let info = self
            .snapshot
            .kinds
            .get(crate::model::group_of(&o.api_version), &o.kind)
            .ok_or_else(|| format!("the server does not serve {}", o.kind))?;
        let ar = cluster::actions::api_resource(info);
        let names: Vec<String> = d.finalizers.iter().map(|f| f.info.name.clone()).collect();
        read_evidence(live, namespace, |client| async move {
            Ok(cluster::evidence::of_object(&client, &ar, o, &names).await)
        })
    }

    /// The Lease of `node` (its kubelet's heartbeat), read for a pod that
    /// waits on it.
    ///
    /// # Errors
    /// The GET fails, or no answer.
    pub fn node_lease(
        &self,
        live: &LiveArgs,
        namespace: Option<&str>,
        node: &str,
    ) -> Result<Option<crate::model::Object>, String> {
        read_evidence(live, namespace, |client| async move {
            cluster::evidence::node_lease(&client, node).await
        })
    }

    /// What decides requests in every namespace, for a namespace's
    /// snapshot: the admission webhook configurations (which may refuse an
    /// update, STUCK-CAUSES C6) and the APIServices (one unavailable keeps
    /// a namespace from finishing its deletion, R80). Each list that
    /// fails is said and left out.
    pub fn add_cluster_gates(&mut self, live: &LiveArgs, namespace: Option<&str>) {
        let read = read_evidence(live, namespace, |client| async move {
            let webhooks = cluster::evidence::webhook_configurations(&client).await;
            let apis = cluster::evidence::apiservices(&client).await;
            Ok((webhooks, apis))
        });
        let (webhooks, apis) = match read {
            Ok(r) => r,
            Err(e) => (Err(e.clone()), Err(e)),
        };
        for r in [webhooks, apis] {
            match r {
                Ok(objs) => {
                    for o in objs {
                        if !self.snapshot.objects.iter().any(|x| x.uid() == o.uid()) {
                            self.snapshot.objects.push(o);
                        }
                    }
                }
                Err(e) => eprintln!(
                    "warning: {}; a rehearsal on this snapshot will not know of them",
                    super::out::sanitize(&e)
                ),
            }
        }
    }

    /// The admission webhooks called for the UPDATE that would end the
    /// diagnosed object's deletion (STUCK-CAUSES C6): the webhook
    /// configurations and the object's namespace are read into `graph`,
    /// then the endpoints of each matching webhook's Service. Returns what
    /// answers each Service (`namespace/name`).
    ///
    /// # Errors
    /// The configurations cannot be listed (forbidden), or no answer.
    pub fn webhook_evidence(
        &self,
        live: &LiveArgs,
        namespace: Option<&str>,
        graph: &mut OwnershipGraph,
        d: &crate::model::diagnosis::Diagnosis,
    ) -> Result<std::collections::BTreeMap<String, crate::model::webhooks::Backend>, String> {
        let object_ns = d.object.namespace.clone();
        let (configs, ns) = read_evidence(live, namespace, |client| async move {
            let configs = cluster::evidence::webhook_configurations(&client).await?;
            let ns = match &object_ns {
                Some(n) => cluster::evidence::namespace(&client, n)
                    .await
                    .unwrap_or(None),
                None => None,
            };
            Ok((configs, ns))
        })?;
        for o in configs.into_iter().chain(ns) {
            graph.upsert(o);
        }
        let Some(obj) = graph.get(&d.object.uid) else {
            return Ok(std::collections::BTreeMap::new());
        };
        let services: Vec<crate::model::webhooks::ServiceRef> =
            crate::model::webhooks::holding(graph, obj, &std::collections::BTreeMap::new(), false)
                .into_iter()
                .filter_map(|h| h.webhook.service)
                .collect();
        if services.is_empty() {
            return Ok(std::collections::BTreeMap::new());
        }
        read_evidence(live, namespace, |client| async move {
            let mut out = std::collections::BTreeMap::new();
            for s in services {
                let b = cluster::evidence::service_backend(&client, &s).await;
                out.insert(s.key(), b);
            }
            Ok(out)
        })
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

/// Runs `work` (a command's requests) until it ends, or until `limit`
/// passes with no progress: `progress` (the pages read) unchanged.
/// `--request-timeout` bounds a wait for an answer, as kubectl's bounds
/// each request, and not the whole read: a million objects take minutes of
/// pages to list. `None`: the limit passed with nothing read.
async fn within_request_timeout<F: std::future::Future>(
    limit: std::time::Duration,
    progress: &std::sync::atomic::AtomicU64,
    work: F,
) -> Option<F::Output> {
    use std::sync::atomic::Ordering;
    // Looked at four times a limit: a wait gives up between `limit` and
    // 1.25 `limit` after the last page.
    let look = (limit / 4).max(std::time::Duration::from_millis(1));
    tokio::pin!(work);
    let mut seen = progress.load(Ordering::Relaxed);
    let mut since = tokio::time::Instant::now();
    loop {
        if let Ok(v) = tokio::time::timeout(look, &mut work).await {
            return Some(v);
        }
        let now = progress.load(Ordering::Relaxed);
        if now != seen {
            seen = now;
            since = tokio::time::Instant::now();
        } else if since.elapsed() >= limit {
            return None;
        }
    }
}

/// The scope to list for `target` when its kind is cluster-scoped and the
/// scope is one namespace: a Namespace's own contents, any other
/// cluster-scoped object's whole cluster (its dependents may be in any
/// namespace). `None`: keep the scope.
fn scope_for(
    kinds: &crate::model::KindTable,
    target: &Target,
    scope: &cluster::Scope,
) -> Option<cluster::Scope> {
    if *scope == cluster::Scope::All {
        return None;
    }
    let hits = kinds.resolve(&target.kind);
    let [info] = hits.as_slice() else {
        return None;
    };
    if info.namespaced {
        return None;
    }
    if info.group.is_empty() && info.kind == "Namespace" {
        return Some(cluster::Scope::Namespace(target.name.clone()));
    }
    Some(cluster::Scope::All)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    use super::within_request_timeout;

    /// A read of `n` pages, one each `every`.
    async fn pages(progress: &AtomicU64, n: u64, every: Duration) -> u64 {
        for _ in 0..n {
            tokio::time::sleep(every).await;
            progress.fetch_add(1, Ordering::Relaxed);
        }
        n
    }

    #[tokio::test]
    async fn a_read_whose_pages_keep_coming_is_not_cut_off_at_the_limit() {
        let progress = AtomicU64::new(0);
        let limit = Duration::from_secs(1);
        // 30 pages of 100 ms each: three times the limit.
        let started = Instant::now();
        let read = pages(&progress, 30, Duration::from_millis(100));
        assert_eq!(
            within_request_timeout(limit, &progress, read).await,
            Some(30)
        );
        assert!(started.elapsed() >= 3 * limit, "{:?}", started.elapsed());
    }

    #[tokio::test]
    async fn a_read_whose_pages_stop_ends_a_limit_after_the_last() {
        let progress = AtomicU64::new(0);
        let limit = Duration::from_secs(1);
        let started = Instant::now();
        let stalls = async {
            pages(&progress, 3, Duration::from_millis(100)).await;
            std::future::pending::<u64>().await
        };
        assert_eq!(within_request_timeout(limit, &progress, stalls).await, None);
        let took = started.elapsed();
        // A limit and a quarter after the last page, with room for a
        // loaded machine.
        assert!(
            took >= Duration::from_millis(300) + limit && took < Duration::from_millis(3500),
            "{took:?}"
        );
    }

    #[tokio::test]
    async fn a_server_that_never_answers_ends_at_the_limit() {
        let progress = AtomicU64::new(0);
        let limit = Duration::from_secs(1);
        let started = Instant::now();
        let silent = std::future::pending::<u64>();
        assert_eq!(within_request_timeout(limit, &progress, silent).await, None);
        let took = started.elapsed();
        assert!(took >= limit && took < 2 * limit + limit / 2, "{took:?}");
    }
}
