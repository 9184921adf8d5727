//! `bench --live`: the first tree of a live cluster against the raw list of
//! the same objects (issue 13's live goal: within 2x). On the kubeconfig's
//! cluster, `--objects` ConfigMaps are made in namespace `ownerscope-bench`
//! if absent; then, interleaved and each in a fresh process (process start,
//! kubeconfig, TLS handshake paid by every way alike):
//! - `raw`: one metadata-only GET of every ConfigMap, the body read and not
//!   parsed (what `curl -H 'Accept: ...PartialObjectMetadataList...'`
//!   does);
//! - `tree`: `ownerscope tree --live -A`, discovery from a warm disk cache;
//! - `tree, no cache`: the same with `--no-discovery-cache`;
//! - `why` on a Terminating ConfigMap held by a finalizer, in the same
//!   namespace: its evidence read for that object only (one GET of its
//!   `managedFields`, the webhook configurations) on top of the lists.
//!
//! Medians and their ratio to `raw` are printed. `--live-cleanup` deletes
//! the namespace.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures::{StreamExt, stream};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::Api;
use kube::api::{DeleteParams, ListParams, ObjectMeta, PostParams};

use super::bench::median;
use crate::cli::BenchArgs;
use crate::cluster::{self, LiveOptions};
use crate::commands::{CmdError, CmdResult};

const NAMESPACE: &str = "ownerscope-bench";
/// The Terminating ConfigMap `why` is asked about.
const HELD: &str = "held-by-a-finalizer";
const HOLD: &str = "example.com/bench-hold";
const METADATA_LIST: &str = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

fn err(e: impl std::fmt::Display) -> CmdError {
    CmdError(e.to_string())
}

fn options(args: &BenchArgs) -> LiveOptions {
    LiveOptions {
        kubeconfig: args.kubeconfig.clone(),
        all_namespaces: true,
        read_only: false,
        ..LiveOptions::default()
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, CmdError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(err)
}

/// The raw list, in this process: one GET, the body read whole.
fn raw(args: &BenchArgs) -> CmdResult {
    let opts = options(args);
    runtime()?.block_on(async {
        let conn = cluster::connect(&opts).await.map_err(err)?;
        let req = http::Request::get("/api/v1/configmaps")
            .header(http::header::ACCEPT, METADATA_LIST)
            .body(Vec::new())
            .map_err(err)?;
        let body = conn.client.request_text(req).await.map_err(err)?;
        println!("{}", body.len());
        Ok(())
    })
}

/// Namespace `namespace` with ConfigMaps `cm-000000` to `cm-<n-1>` (the
/// missing ones made, 32 at once); the names it holds.
///
/// # Errors
/// A request the server refuses.
pub async fn make_configmaps(
    client: kube::Client,
    namespace: &str,
    n: usize,
) -> Result<std::collections::HashSet<String>, CmdError> {
    let nss: Api<Namespace> = Api::all(client.clone());
    if nss.get_opt(namespace).await.map_err(err)?.is_none() {
        let ns = Namespace {
            metadata: ObjectMeta {
                name: Some(namespace.into()),
                ..ObjectMeta::default()
            },
            ..Namespace::default()
        };
        nss.create(&PostParams::default(), &ns).await.map_err(err)?;
    }
    let cms: Api<ConfigMap> = Api::namespaced(client, namespace);
    let have: std::collections::HashSet<String> = cms
        .list_metadata(&ListParams::default())
        .await
        .map_err(err)?
        .items
        .into_iter()
        .filter_map(|o| o.metadata.name)
        .collect();
    let missing: Vec<String> = (0..n)
        .map(|i| format!("cm-{i:06}"))
        .filter(|name| !have.contains(name))
        .collect();
    if !missing.is_empty() {
        eprintln!("making {} ConfigMaps in {namespace}...", missing.len());
    }
    let made: Vec<Result<ConfigMap, kube::Error>> = stream::iter(missing)
        .map(|name| {
            let cms = cms.clone();
            async move {
                let cm = ConfigMap {
                    metadata: ObjectMeta {
                        name: Some(name),
                        labels: Some([("app".to_string(), "bench".to_string())].into()),
                        ..ObjectMeta::default()
                    },
                    data: Some([("k".to_string(), "v".to_string())].into()),
                    ..ConfigMap::default()
                };
                cms.create(&PostParams::default(), &cm).await
            }
        })
        .buffer_unordered(32)
        .collect()
        .await;
    if let Some(Err(e)) = made.into_iter().find(Result::is_err) {
        return Err(err(format!("making ConfigMaps: {e}")));
    }
    Ok(have)
}

/// The namespace with `n` ConfigMaps, and the Terminating one `why` reads.
fn prepare(args: &BenchArgs) -> CmdResult {
    let opts = options(args);
    let n = args.objects;
    runtime()?.block_on(async {
        let client = cluster::connect(&opts).await.map_err(err)?.client;
        let have = make_configmaps(client.clone(), NAMESPACE, n).await?;
        let cms: Api<ConfigMap> = Api::namespaced(client, NAMESPACE);
        if !have.contains(HELD) {
            let cm = ConfigMap {
                metadata: ObjectMeta {
                    name: Some(HELD.into()),
                    finalizers: Some(vec![HOLD.into()]),
                    ..ObjectMeta::default()
                },
                ..ConfigMap::default()
            };
            cms.create(&PostParams::default(), &cm).await.map_err(err)?;
            cms.delete(HELD, &DeleteParams::default())
                .await
                .map_err(err)?;
        }
        Ok(())
    })
}

fn cleanup(args: &BenchArgs) -> CmdResult {
    let opts = options(args);
    runtime()?.block_on(async {
        let client = cluster::connect(&opts).await.map_err(err)?.client;
        // Let the held ConfigMap go with its namespace.
        let cms: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
        let release =
            kube::api::Patch::Merge(serde_json::json!({"metadata": {"finalizers": null}}));
        let _ = cms
            .patch(HELD, &kube::api::PatchParams::default(), &release)
            .await;
        let nss: Api<Namespace> = Api::all(client);
        match nss.delete(NAMESPACE, &DeleteParams::default()).await {
            Ok(_) => println!("namespace {NAMESPACE} deleted"),
            Err(kube::Error::Api(s)) if s.code == 404 => println!("no namespace {NAMESPACE}"),
            Err(e) => return Err(err(e)),
        }
        Ok(())
    })
}

/// Runs `exe` with `args` in a child process, its input and output
/// thrown away and its error output kept, until it ends.
///
/// # Errors
/// The child cannot be started.
pub(super) fn quiet_child(
    exe: &Path,
    args: impl IntoIterator<Item = impl AsRef<std::ffi::OsStr>>,
) -> Result<std::process::Output, CmdError> {
    Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(err)
}

/// One run of a way, in a fresh process: its wall time.
fn time(exe: &Path, args: &[String]) -> Result<Duration, CmdError> {
    let t = Instant::now();
    let out = quiet_child(exe, args)?;
    let took = t.elapsed();
    if !out.status.success() {
        return Err(CmdError(format!(
            "{args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(took)
}

/// `bench --live`.
///
/// # Errors
/// The cluster unreachable; a way failing.
pub fn run(args: &BenchArgs) -> CmdResult {
    if args.live_raw {
        return raw(args);
    }
    if args.live_cleanup {
        return cleanup(args);
    }
    prepare(args)?;
    let exe = std::env::current_exe().map_err(err)?;
    let cache = std::env::temp_dir().join(format!("ownerscope-bench-cache-{}", std::process::id()));
    let mut kube = Vec::new();
    if let Some(k) = &args.kubeconfig {
        kube = vec!["--kubeconfig".to_string(), k.display().to_string()];
    }
    let with = |first: &[&str], more: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = first.iter().map(|s| (*s).to_string()).collect();
        v.extend(kube.iter().cloned());
        v.extend(more.iter().map(|s| (*s).to_string()));
        v
    };
    let cache_arg = cache.display().to_string();
    let held = format!("configmap/{HELD}");
    let ways: [(&str, Vec<String>); 4] = [
        (
            "raw metadata list (curl's request)",
            with(&["bench", "--live", "--live-raw"], &[]),
        ),
        (
            "tree --live -A",
            with(&["tree", "--live", "-A"], &["--cache-dir", &cache_arg]),
        ),
        (
            "tree --live -A --no-discovery-cache",
            with(&["tree", "--live", "-A"], &["--no-discovery-cache"]),
        ),
        (
            "why --live on a Terminating object (its evidence read)",
            with(
                &["why", "--live", "-n", NAMESPACE, &held],
                &["--cache-dir", &cache_arg],
            ),
        ),
    ];
    let runs = args.runs.clamp(3, 15);
    println!(
        "ownerscope bench --live: {} ConfigMaps in {NAMESPACE} (and the rest of the cluster), median of {runs} interleaved runs, each in a fresh process{}",
        args.objects,
        if cfg!(debug_assertions) {
            " (DEBUG BUILD: use --release for real figures)"
        } else {
            ""
        }
    );
    // One discarded round: the cache is warmed, the server's too.
    for (_, a) in &ways {
        time(&exe, a)?;
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); ways.len()];
    for _ in 0..runs {
        for (i, (_, a)) in ways.iter().enumerate() {
            times[i].push(time(&exe, a)?);
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
    let medians: Vec<Duration> = times.into_iter().map(median).collect();
    println!("| way | median | ratio to the raw list |\n|---|---:|---:|");
    for ((name, _), m) in ways.iter().zip(&medians) {
        println!(
            "| {name} | {:.0} ms | {:.2}x |",
            m.as_secs_f64() * 1e3,
            m.as_secs_f64() / medians[0].as_secs_f64()
        );
    }
    println!("(`bench --live --live-cleanup` deletes namespace {NAMESPACE})");
    Ok(())
}
