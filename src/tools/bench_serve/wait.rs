//! The bench's bounded waits: a measured step within a bound sized to its
//! work, a wait for the server's own work (a namespace filled or emptied)
//! that gives up when nothing was done for a while, and the message that
//! says what was left behind, what to check and how to clean up by hand.

use std::future::Future;
use std::io::BufRead as _;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Namespace;
use kube::Api;
use kube::api::DeleteParams;

use super::{POLL, STEP, Target, client, err};
use crate::commands::CmdError;

pub(super) fn humanize(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else if s >= 1 {
        format!("{s}s")
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// The first line `out` writes, if it comes within `bound`.
pub(super) fn first_line_within(
    out: impl std::io::Read + Send + 'static,
    bound: Duration,
) -> Result<String, CmdError> {
    let (tx, rx) = std::sync::mpsc::channel();
    // The reader stays blocked if nothing comes; it ends with the pipe.
    std::thread::spawn(move || {
        let _ = tx.send(std::io::BufReader::new(out).lines().next());
    });
    match rx.recv_timeout(bound) {
        Ok(Some(Ok(line))) => Ok(line),
        Ok(Some(Err(e))) => Err(err(e)),
        Ok(None) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Err(err("it ended without a word"))
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            Err(err(format!("nothing in {}", humanize(bound))))
        }
    }
}

/// `work`, unless it takes longer than `bound`: then an error saying what
/// was waited for, from which server.
pub(super) async fn within<T>(
    what: &str,
    t: &Target,
    bound: Duration,
    work: impl Future<Output = Result<T, CmdError>>,
) -> Result<T, CmdError> {
    match tokio::time::timeout(bound, work).await {
        Ok(r) => r.map_err(|e| err(format!("{what} on {}: {e}", t.name))),
        Err(_) => Err(err(format!(
            "gave up after {} waiting for {what} on {} (a healthy server takes a fraction of \
             that): check that it answers (`kubectl get --raw /readyz`) and what loads the machine",
            humanize(bound),
            t.name
        ))),
    }
}

/// Which way a wait's count moves as the work it waits for is done.
#[derive(Clone, Copy, Debug)]
pub(super) enum Goal {
    Fewer,
    More,
}

/// A wait that gave up: the count when it did, the last look's error, and
/// how long it waited in all.
#[derive(Debug)]
pub(super) struct Stalled {
    pub(super) count: Option<u64>,
    pub(super) error: Option<String>,
    waited: Duration,
    /// How long nothing was done before it gave up.
    stall: Duration,
}

/// Asks `probe` every `every` until it answers done (`Ok(None)`). A count
/// (`Ok(Some(n))`) is progress when it passes the best seen toward `goal`;
/// an error, or no answer, is none. Gives up when nothing was done for
/// `stall`: a wait for work that goes on lasts as long as the work, one for
/// work that has stopped ends `stall` after it stopped.
pub(super) async fn until_done<F, Fut>(
    mut probe: F,
    goal: Goal,
    every: Duration,
    stall: Duration,
) -> Result<(), Stalled>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<u64>, CmdError>>,
{
    let t0 = Instant::now();
    let mut since = Instant::now();
    let (mut best, mut last) = (None::<u64>, None);
    loop {
        let left = stall.saturating_sub(since.elapsed()).max(every);
        let error = match tokio::time::timeout(left, probe()).await {
            Ok(Ok(None)) => return Ok(()),
            Ok(Ok(Some(n))) => {
                let better = match (best, goal) {
                    (None, _) => true,
                    (Some(b), Goal::Fewer) => n < b,
                    (Some(b), Goal::More) => n > b,
                };
                if better {
                    best = Some(n);
                    since = Instant::now();
                }
                last = Some(n);
                None
            }
            Ok(Err(e)) => Some(e.0),
            Err(_) => Some(format!("no answer in {}", humanize(left))),
        };
        if since.elapsed() >= stall {
            return Err(Stalled {
                count: last,
                error,
                waited: t0.elapsed(),
                stall,
            });
        }
        tokio::time::sleep(every).await;
    }
}

/// How many objects of this list path the server holds (one item asked
/// for; the rest from `remainingItemCount`).
pub(super) async fn count(c: &kube::Client, path: &str) -> Result<u64, CmdError> {
    let req = http::Request::get(format!("{path}?limit=1"))
        .body(Vec::new())
        .map_err(err)?;
    let text = c.request_text(req).await.map_err(err)?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(err)?;
    let items = v["items"].as_array().map_or(0, Vec::len) as u64;
    Ok(items + v["metadata"]["remainingItemCount"].as_u64().unwrap_or(0))
}

/// What a namespace of the run still holds: its ConfigMaps, Deployments,
/// ReplicaSets and pods; `None` once the namespace is gone.
async fn holding(c: &kube::Client, ns: &str) -> Result<Option<u64>, CmdError> {
    let nss: Api<Namespace> = Api::all(c.clone());
    if nss.get_opt(ns).await.map_err(err)?.is_none() {
        return Ok(None);
    }
    let mut n = 0;
    for path in [
        format!("/api/v1/namespaces/{ns}/configmaps"),
        format!("/api/v1/namespaces/{ns}/pods"),
        format!("/apis/apps/v1/namespaces/{ns}/deployments"),
        format!("/apis/apps/v1/namespaces/{ns}/replicasets"),
    ] {
        n += count(c, &path).await?;
    }
    Ok(Some(n))
}

/// A namespace's conditions that are true (what its deletion waits on, in
/// the namespace controller's words).
fn failing_conditions(ns: &Namespace) -> Vec<String> {
    ns.status
        .iter()
        .flat_map(|s| s.conditions.iter().flatten())
        .filter(|c| c.status == "True")
        .map(|c| format!("{}: {}", c.type_, c.message.as_deref().unwrap_or_default()))
        .collect()
}

/// Why the namespace `name` of `t` is still there, what to check and how
/// to remove it by hand.
fn left_behind(t: &Target, name: &str, s: &Stalled, says: &[String]) -> String {
    let holds = s.count.map_or_else(
        || "what it holds is unknown".to_string(),
        |n| format!("it holds {n} ConfigMaps, Deployments, ReplicaSets and pods"),
    );
    let last = s
        .error
        .as_deref()
        .map(|e| format!(" The last look failed: {e}."))
        .unwrap_or_default();
    let says: String = says.iter().map(|c| format!("\n  {c}")).collect();
    let says = if says.is_empty() {
        says
    } else {
        format!("\nIts conditions:{says}")
    };
    let head = format!(
        "namespace {name} on {} is still there {} after its delete: {holds}, and nothing was \
         removed in the last {}.{last}{says}",
        t.name,
        humanize(s.waited),
        humanize(s.stall)
    );
    if !t.cluster {
        return format!(
            "{head} serve's namespace controller empties a namespace, then deletes it; this serve \
             is stopped at the end of the run, with all it holds: nothing to clean up."
        );
    }
    format!(
        "{head}\n\
         The namespace controller (in kube-controller-manager) deletes what a namespace holds, \
         then the namespace. Check:\n\
         - that it runs: `ps aux | grep [k]ube-controller-manager` (the test control plane: \
         `bash .ci/test-cluster.sh controller-manager-restart`);\n\
         - what the namespace waits for: `kubectl get namespace {name} -o yaml` (its \
         status.conditions, spec.finalizers);\n\
         - finalizers on what it holds: `kubectl get configmaps,deployments,replicasets,pods -n \
         {name} -o custom-columns=NAME:.metadata.name,FINALIZERS:.metadata.finalizers`.\n\
         To clean up by hand: once the controller manager runs, the namespace goes by itself \
         (its delete is asked already; when a condition above says its delete of the content \
         timed out, a large namespace on a loaded machine, delete the ConfigMaps yourself, many \
         at once). Without it: `kubectl delete \
         configmaps,deployments,replicasets,pods --all -n {name}`, then `kubectl get namespace \
         {name} -o json | jq '.spec.finalizers = []' | kubectl replace --raw \
         /api/v1/namespaces/{name}/finalize -f -`."
    )
}

/// Deletes the run's namespaces on `t` and waits while they go (the
/// namespace controller deletes what they hold first), so that the cluster
/// is left as it was found. Gives up on a namespace when nothing of it was
/// removed for `stall`: then the message says what is left, what to check
/// and how to remove it by hand.
pub(super) async fn remove_namespaces(
    t: &Target,
    names: &[&str],
    stall: Duration,
) -> Result<(), CmdError> {
    let c = within("connecting", t, STEP, client(t)).await?;
    let nss: Api<Namespace> = Api::all(c.clone());
    for name in names {
        let asked = within("deleting a namespace", t, STEP, async {
            match nss.delete(name, &DeleteParams::default()).await {
                Ok(_) => Ok(()),
                Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
                Err(e) => Err(err(e)),
            }
        });
        asked.await?;
    }
    let mut left = Vec::new();
    for name in names {
        if let Err(s) = until_done(|| holding(&c, name), Goal::Fewer, POLL, stall).await {
            let ns = tokio::time::timeout(POLL * 10, nss.get_opt(name)).await;
            let says = match ns {
                Ok(Ok(Some(ns))) => failing_conditions(&ns),
                _ => Vec::new(),
            };
            left.push(left_behind(t, name, &s, &says));
        }
    }
    if left.is_empty() {
        Ok(())
    } else {
        Err(err(left.join("\n")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    }

    #[test]
    fn a_wait_with_nothing_done_gives_up_after_its_stall() {
        let t0 = Instant::now();
        let r = rt().block_on(until_done(
            || async { Ok(Some(7)) },
            Goal::Fewer,
            Duration::from_millis(5),
            Duration::from_millis(60),
        ));
        let s = r.expect_err("gave up");
        assert_eq!(s.count, Some(7));
        assert!(s.waited >= Duration::from_millis(60), "{s:?}");
        assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    }

    #[test]
    fn a_wait_goes_on_while_its_work_progresses_past_the_stall() {
        // 30 looks 5 ms apart, each one fewer: about 150 ms of work
        // against a stall of 40 ms, done.
        let left = std::cell::Cell::new(30_u64);
        let t0 = Instant::now();
        let r = rt().block_on(until_done(
            || {
                let n = left.get();
                left.set(n.saturating_sub(1));
                async move { Ok((n > 0).then_some(n)) }
            },
            Goal::Fewer,
            Duration::from_millis(5),
            Duration::from_millis(40),
        ));
        assert!(r.is_ok(), "{r:?}");
        assert!(t0.elapsed() > Duration::from_millis(40));
        assert_eq!(left.get(), 0);
    }

    #[test]
    fn a_count_that_moves_away_from_the_goal_is_no_progress() {
        // A fill (More) whose count falls has stalled.
        let n = std::cell::Cell::new(100_u64);
        let r = rt().block_on(until_done(
            || {
                n.set(n.get() - 1);
                let now = n.get();
                async move { Ok(Some(now)) }
            },
            Goal::More,
            Duration::from_millis(5),
            Duration::from_millis(50),
        ));
        assert!(r.is_err());
    }

    #[test]
    fn a_probe_that_never_answers_or_fails_ends_the_wait_too() {
        let hung = rt().block_on(until_done(
            std::future::pending::<Result<Option<u64>, CmdError>>,
            Goal::Fewer,
            Duration::from_millis(5),
            Duration::from_millis(50),
        ));
        let s = hung.expect_err("gave up");
        assert!(
            s.error.as_deref().is_some_and(|e| e.contains("no answer")),
            "{s:?}"
        );
        let failing = rt().block_on(until_done(
            || async { Err(err("connection refused")) },
            Goal::Fewer,
            Duration::from_millis(5),
            Duration::from_millis(50),
        ));
        let s = failing.expect_err("gave up");
        assert_eq!(s.count, None);
        assert_eq!(s.error.as_deref(), Some("connection refused"));
    }

    fn target(cluster: bool) -> Target {
        Target {
            name: "the control plane (kube-apiserver and etcd)".into(),
            kubeconfig: None,
            pids: Vec::new(),
            cluster,
        }
    }

    #[test]
    fn a_namespace_left_on_the_cluster_says_what_to_check_and_how_to_clean_up() {
        let s = Stalled {
            count: Some(1_234),
            error: None,
            waited: Duration::from_secs(95),
            stall: Duration::from_secs(90),
        };
        let says = [
            "NamespaceDeletionContentFailure: Failed to delete all resource types, 1 \
                     remaining: Timeout: request did not complete within requested timeout 34s"
                .to_string(),
        ];
        let m = left_behind(&target(true), "ownerscope-bench-serve-42", &s, &says);
        for part in [
            "namespace ownerscope-bench-serve-42 on the control plane",
            "1m35s after its delete",
            "it holds 1234 ConfigMaps",
            "nothing was removed in the last 1m30s",
            "kube-controller-manager",
            "kubectl get namespace ownerscope-bench-serve-42 -o yaml",
            "finalizers",
            "kubectl delete configmaps,deployments,replicasets,pods --all -n ownerscope-bench-serve-42",
            "/api/v1/namespaces/ownerscope-bench-serve-42/finalize",
            "Its conditions:\n  NamespaceDeletionContentFailure: Failed to delete all",
        ] {
            assert!(m.contains(part), "{part:?} not in:\n{m}");
        }
        let on_serve = left_behind(&target(false), "ownerscope-bench-serve-42", &s, &[]);
        assert!(on_serve.contains("nothing to clean up"), "{on_serve}");
        assert!(!on_serve.contains("kube-controller-manager"), "{on_serve}");
    }

    #[test]
    fn the_wait_for_a_namespace_on_a_server_that_never_answers_gives_up() {
        // A listener that accepts connections and never answers (a hung
        // API server): each look times out, the wait ends at its stall.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let addr = listener.local_addr().expect("its address");
        let t0 = Instant::now();
        let r = rt().block_on(async {
            let cfg = kube::Config::new(format!("http://{addr}").parse().expect("a URL"));
            let c = kube::Client::try_from(cfg).expect("a client");
            until_done(
                || holding(&c, "ownerscope-bench-serve-42"),
                Goal::Fewer,
                Duration::from_millis(5),
                Duration::from_millis(80),
            )
            .await
        });
        let s = r.expect_err("gave up");
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        let m = left_behind(&target(true), "ownerscope-bench-serve-42", &s, &[]);
        assert!(m.contains("what it holds is unknown"), "{m}");
        assert!(m.contains("The last look failed: no answer in"), "{m}");
        drop(listener);
    }

    #[test]
    fn a_serve_that_says_nothing_is_given_up_on() {
        let mut child = Command::new("sleep")
            .arg("10")
            .stdout(Stdio::piped())
            .spawn()
            .expect("sleep runs");
        let out = child.stdout.take().expect("its stdout");
        let t0 = Instant::now();
        let r = first_line_within(out, Duration::from_millis(100));
        assert!(
            r.expect_err("gave up on it")
                .0
                .contains("nothing in 100 ms")
        );
        assert!(t0.elapsed() < Duration::from_secs(5));
        let _ = child.kill();
        let _ = child.wait();
    }
}
