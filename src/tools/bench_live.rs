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
    let plurals: &[&str] = if args.live_shapes {
        &["configmaps", "secrets", "pods"]
    } else {
        &["configmaps"]
    };
    runtime()?.block_on(async {
        let conn = cluster::connect(&opts).await.map_err(err)?;
        // Each kind at once (as `tree` lists its kinds), in pages of
        // 5,000 as `tree` reads them (one GET of 500k objects outlasts
        // the API server's one-minute request timeout); the bodies read,
        // not parsed, but for the continue token.
        let bodies = futures::future::join_all(plurals.iter().map(|p| {
            let client = conn.client.clone();
            async move {
                let mut bytes = 0;
                let mut token = String::new();
                loop {
                    let mut uri = format!("/api/v1/{p}?limit=5000");
                    if !token.is_empty() {
                        uri.push_str("&continue=");
                        uri.push_str(&token);
                    }
                    let req = http::Request::get(uri)
                        .header(http::header::ACCEPT, METADATA_LIST)
                        .body(Vec::new())
                        .map_err(err)?;
                    let body = client.request_text(req).await.map_err(err)?;
                    bytes += body.len();
                    match continue_token(&body) {
                        Some(t) => token = t,
                        None => return Ok::<usize, CmdError>(bytes),
                    }
                }
            }
        }))
        .await;
        let mut bytes = 0;
        for b in bodies {
            bytes += b?;
        }
        println!("{bytes}");
        eprintln!("peak-kib {}", super::bench_load::peak_kib());
        Ok(())
    })
}

/// The `metadata.continue` of a list's body, found without parsing its
/// items (the list's metadata comes before them).
fn continue_token(body: &str) -> Option<String> {
    let at = body.find(r#""continue":""#)? + r#""continue":""#.len();
    let token = &body[at..at + body[at..].find('"')?];
    (!token.is_empty()).then(|| token.to_string())
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
        let have = if args.live_shapes {
            super::bench_live_load::load(client.clone(), n, args.live_etcd.as_deref()).await?;
            make_configmaps(client.clone(), NAMESPACE, 0).await?
        } else {
            make_configmaps(client.clone(), NAMESPACE, n).await?
        };
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
        if let Some(etcd) = &args.live_etcd {
            // A million objects go in one request per kind, where the
            // namespace controller deletes them one by one.
            super::bench_live_load::delete_etcd(etcd).await?;
        }
        let nss: Api<Namespace> = Api::all(client);
        let mut names = vec![NAMESPACE.to_string()];
        if args.live_shapes {
            // Every namespace of a shaped cluster, of whatever size.
            names.extend(
                nss.list_metadata(&ListParams::default())
                    .await
                    .map_err(err)?
                    .items
                    .into_iter()
                    .filter_map(|n| n.metadata.name)
                    .filter(|n| n.starts_with(super::bench_live_load::PREFIX)),
            );
        }
        for ns in names {
            match nss.delete(&ns, &DeleteParams::default()).await {
                Ok(_) => println!("namespace {ns} deleted"),
                Err(kube::Error::Api(s)) if s.code == 404 => println!("no namespace {ns}"),
                Err(e) => return Err(err(e)),
            }
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

/// One run of a way, in a fresh process.
#[derive(Clone, Copy, Default)]
struct Sample {
    wall: Duration,
    /// User and system time, exit included.
    cpu: Duration,
    /// `VmHWM`, as the child prints it (`peak-kib N`).
    peak_kib: u64,
}

fn time(exe: &Path, args: &[String]) -> Result<Sample, CmdError> {
    let cpu0 = super::bench_commands::children_cpu();
    let t = Instant::now();
    let out = quiet_child(exe, args)?;
    let wall = t.elapsed();
    let cpu = super::bench_commands::children_cpu().saturating_sub(cpu0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(CmdError(format!("{args:?} failed: {}", stderr.trim())));
    }
    let peak_kib = stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak-kib "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    Ok(Sample {
        wall,
        cpu,
        peak_kib,
    })
}

/// Writes what `kubectl get configmaps,secrets,pods -A -o json` prints, a
/// List of the full objects with their `apiVersion` and `kind`, to `path`,
/// read in pages of 5,000 (the bare parse's input: the same objects as
/// the lists).
fn save_list(args: &BenchArgs, path: &Path) -> CmdResult {
    use std::io::Write as _;
    #[derive(serde::Deserialize)]
    struct Page<'a> {
        #[serde(borrow)]
        items: Option<Vec<&'a serde_json::value::RawValue>>,
        metadata: PageMeta,
    }
    #[derive(serde::Deserialize)]
    struct PageMeta {
        #[serde(rename = "continue")]
        next: Option<String>,
    }
    let opts = options(args);
    let file = std::fs::File::create(path).map_err(err)?;
    let mut w = std::io::BufWriter::new(file);
    runtime()?.block_on(async {
        let client = cluster::connect(&opts).await.map_err(err)?.client;
        w.write_all(br#"{"apiVersion":"v1","kind":"List","items":["#)
            .map_err(err)?;
        let mut first = true;
        for (plural, kind) in [
            ("configmaps", "ConfigMap"),
            ("secrets", "Secret"),
            ("pods", "Pod"),
        ] {
            let mut token = String::new();
            loop {
                let mut uri = format!("/api/v1/{plural}?limit=5000");
                if !token.is_empty() {
                    uri.push_str("&continue=");
                    uri.push_str(&token);
                }
                let req = http::Request::get(uri).body(Vec::new()).map_err(err)?;
                let text = client.request_text(req).await.map_err(err)?;
                let page: Page = serde_json::from_str(&text).map_err(err)?;
                for item in page.items.unwrap_or_default() {
                    let rest = item.get().trim_start().strip_prefix('{').unwrap_or("}");
                    if !first {
                        w.write_all(b",").map_err(err)?;
                    }
                    first = false;
                    write!(w, r#"{{"apiVersion":"v1","kind":"{kind}","#).map_err(err)?;
                    w.write_all(rest.as_bytes()).map_err(err)?;
                }
                match page.metadata.next {
                    Some(t) if !t.is_empty() => token = t,
                    _ => break,
                }
            }
        }
        w.write_all(b"]}").map_err(err)?;
        w.flush().map_err(err)
    })
}

/// `bench --live`.
///
/// # Errors
/// The cluster unreachable; a way failing.
pub fn run(args: &BenchArgs) -> CmdResult {
    if args.live_raw {
        return raw(args);
    }
    if args.live_watch {
        return super::bench_live_watch::run(args);
    }
    if args.live_cleanup {
        return cleanup(args);
    }
    prepare(args)?;
    let exe = std::env::current_exe().map_err(err)?;
    let dir = std::env::temp_dir().join(format!("ownerscope-bench-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(err)?;
    let cache = dir.join("cache");
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
    let raw_args: &[&str] = if args.live_shapes {
        &["bench", "--live", "--live-raw", "--live-shapes"]
    } else {
        &["bench", "--live", "--live-raw"]
    };
    // The commands run as `bench --command-one` runs them (the same code
    // as `ownerscope tree ...`), which prints the peak memory.
    fn one<'a>(cmd: &[&'a str]) -> Vec<&'a str> {
        let mut v = vec!["bench", "--command-one"];
        v.extend_from_slice(cmd);
        v
    }
    let mut ways: Vec<(&str, Vec<String>)> = vec![
        ("raw metadata list (curl's request)", with(raw_args, &[])),
        (
            "tree --live -A",
            with(
                &one(&["tree", "--live", "-A"]),
                &["--cache-dir", &cache_arg],
            ),
        ),
        (
            "tree --live -A --no-discovery-cache",
            with(&one(&["tree", "--live", "-A"]), &["--no-discovery-cache"]),
        ),
        (
            "why --live on a Terminating object (its evidence read)",
            with(
                &one(&["why", "--live", "-n", NAMESPACE, &held]),
                &["--cache-dir", &cache_arg],
            ),
        ),
    ];
    let list = dir.join("list.json");
    if args.live_shapes {
        // At a million objects each way takes a while: the discovery
        // cache's effect is measured at the smaller sizes.
        ways.retain(|(name, _)| !name.ends_with("--no-discovery-cache"));
        let t = Instant::now();
        save_list(args, &list)?;
        eprintln!(
            "the List of ConfigMaps, Secrets and Pods: {} MB, written in {:.0} s",
            std::fs::metadata(&list).map_or(0, |m| m.len()) / 1_000_000,
            t.elapsed().as_secs_f64()
        );
        ways.push((
            "bare parse of their List (`kubectl get configmaps,secrets,pods -A -o json`)",
            vec![
                "bench".into(),
                "--command-one".into(),
                "bare-json".into(),
                list.display().to_string(),
            ],
        ));
    }
    // One run is allowed: at a million objects a run of every way takes
    // about ten minutes here.
    let runs = args.runs.clamp(1, 15);
    println!(
        "ownerscope bench --live: {} {} (and the rest of the cluster), {}, each in a fresh process{}",
        args.objects,
        if args.live_shapes {
            "ConfigMaps, Secrets and Pods in the shaped namespaces"
        } else {
            "ConfigMaps in ownerscope-bench"
        },
        if runs == 1 {
            "one run of each way after a warm-up round".to_string()
        } else {
            format!("median of {runs} interleaved runs")
        },
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
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); ways.len()];
    for _ in 0..runs {
        for (i, (_, a)) in ways.iter().enumerate() {
            samples[i].push(time(&exe, a)?);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let med = |v: &[Sample], f: fn(&Sample) -> Duration| median(v.iter().map(f).collect());
    let walls: Vec<Duration> = samples.iter().map(|v| med(v, |s| s.wall)).collect();
    let cpus: Vec<Duration> = samples.iter().map(|v| med(v, |s| s.cpu)).collect();
    let peaks: Vec<u64> = samples
        .iter()
        .map(|v| {
            let mut p: Vec<u64> = v.iter().map(|s| s.peak_kib).collect();
            p.sort_unstable();
            p[p.len() / 2]
        })
        .collect();
    let bare_peak = args.live_shapes.then(|| peaks[peaks.len() - 1]);
    println!(
        "| way | wall | against the raw list | CPU (user+sys) | against the raw list | peak memory | against the bare parse |\n|---|---:|---:|---:|---:|---:|---:|"
    );
    for (i, (name, _)) in ways.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let against_bare = bare_peak.map_or(String::new(), |b| {
            format!("{:.2}x", peaks[i] as f64 / b.max(1) as f64)
        });
        println!(
            "| {name} | {:.0} ms | {:.2}x | {:.2} s | {:.2}x | {} MiB | {against_bare} |",
            walls[i].as_secs_f64() * 1e3,
            walls[i].as_secs_f64() / walls[0].as_secs_f64(),
            cpus[i].as_secs_f64(),
            cpus[i].as_secs_f64() / cpus[0].as_secs_f64().max(1e-9),
            peaks[i] / 1024,
        );
    }
    println!(
        "(`bench --live{} --live-cleanup` deletes the benchmark's namespaces)",
        if args.live_shapes {
            " --live-shapes"
        } else {
            ""
        }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::continue_token;

    #[test]
    fn the_raw_list_follows_the_continue_token_and_stops_at_the_last_page() {
        let page = r#"{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7","continue":"eyJ2IjoibWV0YSJ9"},"items":[{"metadata":{"name":"a","continue":"no"}}]}"#;
        assert_eq!(continue_token(page).as_deref(), Some("eyJ2IjoibWV0YSJ9"));
        let last = r#"{"metadata":{"resourceVersion":"7"},"items":[]}"#;
        assert_eq!(continue_token(last), None);
        let last_empty = r#"{"metadata":{"resourceVersion":"7","continue":""},"items":[]}"#;
        assert_eq!(continue_token(last_empty), None);
    }
}
