//! `ownerscope bench --load 10000,100000`: what opening a file costs,
//! against a bare parse of the same file measured in the same run.
//!
//! For each size a `kubectl get -o json` List of Deployments, ReplicaSets
//! and Pods with realistic metadata and specs (about 1.4 KB an object) is
//! written to a temporary directory, with the same objects as scenario YAML.
//! Then, interleaved, each of these runs in a child process of its own (so
//! that its peak memory, `VmHWM`, is its own):
//! - **bare**: `serde_json` reads the metadata subset ownerscope uses
//!   (identity, timestamps, labels, finalizers, owner references) into plain
//!   structs, ignoring everything else, and builds a uid index and the owner
//!   edges: the least any tool must do to draw an ownership tree. For YAML,
//!   the same objects read as YAML events into values (the same parser
//!   ownerscope uses, without its line table), then into the same structs.
//! - **ownerscope**: what `tree FILE`, `why` and `plan` do before their
//!   first output: load the file, restore every object through the
//!   simulated API server's admission into its store, which is the
//!   ownership graph (the garbage collector's and the controllers' first
//!   look waits for a command that runs the simulator: `Sim::load_deferred`).
//! - **ui**: all that `ui FILE` does up to its first frame of the tree: the
//!   above with a simulator that can be reset, the UI's own copy of the
//!   objects, its forest index and rows, and one frame drawn at 160x48.
//!
//! Time is the child's CPU time (`/proc/self/schedstat`), so that another
//! process on a 2-core machine does not move the figures; the medians and
//! their ratios are printed, and the ratio of user-space time alone (the
//! system time, the kernel clearing pages, swings between runs on a VM). Run it in release:
//! `cargo run --release -- bench --load 10000,100000`.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::bench::median;
use crate::commands::{CmdError, CmdResult};
use crate::sim::scenario;

fn err(e: impl std::fmt::Display) -> CmdError {
    CmdError(e.to_string())
}

// ---------------------------------------------------------------------------
// The input
// ---------------------------------------------------------------------------

/// The uid of the `i`th object: a version-4 UUID as an API server makes
/// them, random-looking (derived from `i` by splitmix64, so the same every
/// run), so that indexes by uid compare and hash what real uids are.
pub(super) fn uid_of(i: usize) -> String {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let a = mix(i as u64);
    let b = mix(a);
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | ((b >> 48) & 0x3fff),
        b & 0xffff_ffff_ffff
    )
}

/// One object of the generated List, as JSON text: metadata as a real
/// cluster has it (labels, an annotation, owner references; a map's keys in
/// order, as an API server writes them), a spec and a status of realistic
/// size. `app` is the Deployment's name: its selector's `app` label, which
/// its ReplicaSet (with the `pod-template-hash` it adds) and their pods
/// carry, so that each controller finds exactly its pods.
fn item(
    out: &mut String,
    i: usize,
    kind: &str,
    ns: &str,
    (name, app): (&str, &str),
    owner: Option<(&str, &str, &str, usize)>,
) {
    let uid = uid_of(i);
    let labels = if kind == "Deployment" {
        format!(r#"{{"app":"{app}","team":"payments"}}"#)
    } else {
        format!(r#"{{"app":"{app}","pod-template-hash":"7d9c8b6f5","team":"payments"}}"#)
    };
    let (api, spec, status) = match kind {
        "Deployment" => (
            "apps/v1",
            format!(
                r#"{{"replicas":8,"selector":{{"matchLabels":{{"app":"{app}"}}}},"template":{{"metadata":{{"labels":{{"app":"{app}"}}}},"spec":{{"containers":[{{"name":"main","image":"registry.example.com/app:1.2.3","ports":[{{"containerPort":8080}}],"resources":{{"requests":{{"cpu":"100m","memory":"128Mi"}}}}}}]}}}}}}"#
            ),
            r#"{"replicas":8,"readyReplicas":8,"availableReplicas":8,"observedGeneration":1}"#
                .to_string(),
        ),
        "ReplicaSet" => (
            "apps/v1",
            format!(
                r#"{{"replicas":8,"selector":{{"matchLabels":{{"app":"{app}","pod-template-hash":"7d9c8b6f5"}}}},"template":{{"metadata":{{"labels":{{"app":"{app}","pod-template-hash":"7d9c8b6f5"}}}},"spec":{{"containers":[{{"name":"main","image":"registry.example.com/app:1.2.3"}}]}}}}}}"#
            ),
            r#"{"replicas":8,"readyReplicas":8}"#.to_string(),
        ),
        _ => (
            "v1",
            format!(
                r#"{{"nodeName":"node-{}","containers":[{{"name":"main","image":"registry.example.com/app:1.2.3","resources":{{"requests":{{"cpu":"100m","memory":"128Mi"}}}}}}],"terminationGracePeriodSeconds":30}}"#,
                i % 7
            ),
            format!(
                r#"{{"phase":"Running","podIP":"10.0.{}.{}","startTime":"2026-01-01T00:00:05Z"}}"#,
                i % 250,
                i % 200
            ),
        ),
    };
    let owners = owner.map_or(String::new(), |(oapi, okind, oname, oi)| {
        format!(
            r#","ownerReferences":[{{"apiVersion":"{oapi}","kind":"{okind}","name":"{oname}","uid":"{}","controller":true,"blockOwnerDeletion":true}}]"#,
            uid_of(oi)
        )
    });
    let _ = write!(
        out,
        r#"{{"apiVersion":"{api}","kind":"{kind}","metadata":{{"name":"{name}","namespace":"{ns}","uid":"{uid}","resourceVersion":"{}","generation":1,"creationTimestamp":"2026-01-01T00:00:00Z","labels":{labels},"annotations":{{"deployment.kubernetes.io/revision":"3"}}{owners}}},"spec":{spec},"status":{status}}}"#,
        1000 + i
    );
}

/// A List of `n` objects: per Deployment one ReplicaSet and eight Pods,
/// fifty Deployments a namespace.
fn list(n: usize) -> String {
    let mut out = String::with_capacity(n * 1500);
    out.push_str(r#"{"apiVersion":"v1","kind":"List","metadata":{},"items":["#);
    let mut i = 0;
    let mut d = 0;
    let sep = |out: &mut String, i: &mut usize| {
        if *i > 0 {
            out.push_str(",\n");
        }
        *i += 1;
    };
    'all: while i < n {
        let ns = format!("ns-{}", d / 50);
        let dep = format!("app{d}");
        let dep_i = i;
        sep(&mut out, &mut i);
        item(&mut out, dep_i, "Deployment", &ns, (&dep, &dep), None);
        if i >= n {
            break;
        }
        let rs = format!("{dep}-7d9c8b6f5");
        let rs_i = i;
        sep(&mut out, &mut i);
        item(
            &mut out,
            rs_i,
            "ReplicaSet",
            &ns,
            (&rs, &dep),
            Some(("apps/v1", "Deployment", &dep, dep_i)),
        );
        for p in 0..8 {
            if i >= n {
                break 'all;
            }
            let pod = format!("{rs}-{p:05}");
            let pi = i;
            sep(&mut out, &mut i);
            item(
                &mut out,
                pi,
                "Pod",
                &ns,
                (&pod, &dep),
                Some(("apps/v1", "ReplicaSet", &rs, rs_i)),
            );
        }
        d += 1;
    }
    out.push_str("]}\n");
    out
}

/// The same objects as scenario YAML (`objects:` in flow style per object,
/// which is valid YAML since JSON is).
fn yaml_of(list_json: &str) -> Result<String, CmdError> {
    let v: serde_json::Value = serde_json::from_str(list_json).map_err(err)?;
    let mut out = String::with_capacity(list_json.len() + 1024);
    out.push_str("name: bench-load\ndescription: generated\nobjects:\n");
    for item in v["items"].as_array().into_iter().flatten() {
        out.push_str("  - ");
        out.push_str(&serde_json::to_string(item).map_err(err)?);
        out.push('\n');
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// The bare baseline
// ---------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct BareRef {
    api_version: String,
    kind: String,
    name: String,
    uid: String,
    controller: Option<bool>,
    block_owner_deletion: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct BareMeta {
    name: String,
    namespace: Option<String>,
    uid: String,
    creation_timestamp: Option<String>,
    deletion_timestamp: Option<String>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    finalizers: Vec<String>,
    #[serde(default)]
    owner_references: Vec<BareRef>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct BareObject {
    api_version: String,
    kind: String,
    metadata: BareMeta,
}

#[derive(Deserialize)]
struct BareList {
    items: Vec<BareObject>,
}

#[derive(Deserialize)]
struct BareScenario {
    objects: Vec<BareObject>,
}

/// The uid index and the owner edges (dependent, owner) that resolve.
fn bare_index(items: &[BareObject]) -> usize {
    let by_uid: HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, o)| (o.metadata.uid.as_str(), i))
        .collect();
    let edges: Vec<(usize, usize)> = items
        .iter()
        .enumerate()
        .flat_map(|(i, o)| {
            let by_uid = &by_uid;
            o.metadata
                .owner_references
                .iter()
                .filter_map(move |r| by_uid.get(r.uid.as_str()).map(|&j| (i, j)))
        })
        .collect();
    by_uid.len() + edges.len()
}

pub(super) fn bare_json(path: &Path) -> Result<usize, CmdError> {
    let bytes = std::fs::read(path).map_err(err)?;
    let list: BareList = serde_json::from_slice(&bytes).map_err(err)?;
    drop(bytes);
    Ok(bare_index(&list.items))
}

fn bare_yaml(path: &Path) -> Result<usize, CmdError> {
    let text = std::fs::read_to_string(path).map_err(err)?;
    let value = crate::sim::yaml::parse_values(&text).map_err(err)?;
    drop(text);
    let s: BareScenario = serde_json::from_value(value).map_err(err)?;
    Ok(bare_index(&s.objects))
}

fn ownerscope(path: &Path) -> Result<usize, CmdError> {
    let sim = crate::commands::load_sim(&path.to_string_lossy(), None)?;
    let n = sim.graph().len();
    // As the commands do: the process ends next, and frees it at once.
    crate::commands::leave_to_exit(sim);
    Ok(n)
}

/// `ui FILE` up to its first frame of the tree, as the UI's loading thread
/// takes it (the simulator's first look after the App's, from its first
/// poll on), without the loading screen the real UI draws meanwhile on
/// another.
fn ui(path: &Path) -> Result<usize, CmdError> {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::layout::Rect;
    let sc = scenario::load(&path.to_string_lossy())?;
    let mut app = crate::app::App::new(crate::app::Options {
        is_simulator: true,
        ..crate::app::Options::default()
    });
    crate::runtime::fit(&mut app, Rect::new(0, 0, 160, 48));
    // As the UI's loading thread does.
    let (mut backend, first) = crate::backend::simulated::SimBackend::starting(sc)?;
    app.apply_all(first);
    crate::runtime::pump(&mut app, &mut backend, Duration::ZERO);
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).map_err(err)?;
    terminal.draw(|f| crate::ui::render(&app, f)).map_err(err)?;
    let n = app.graph().len();
    // As the UI does on quitting: the process ends next.
    std::mem::forget(backend);
    std::mem::forget(app);
    Ok(n)
}

// ---------------------------------------------------------------------------
// The runs
// ---------------------------------------------------------------------------

/// Peak resident memory of this process, in KiB (Linux `VmHWM`).
pub(super) fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// CPU time of this (single-threaded) process so far, in ns: what another
/// process on the machine does not change (Linux `schedstat`).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

/// User-space CPU time of this process so far, in ms (`/proc/self/stat`'s
/// `utime`, in the kernel's 10 ms ticks): the part of the CPU time that is
/// the program's own work. The rest, system time, is mostly the kernel
/// clearing the pages a load touches, and on this VM it swings between
/// runs (0.01 s or 0.3 s for the same bare parse) with the huge pages the
/// kernel has at hand.
fn user_ms() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the command name, which is in parentheses.
            let rest = s.rsplit_once(')')?.1;
            rest.split_whitespace().nth(11)?.parse::<u64>().ok()
        })
        .map_or(0, |ticks| ticks * 10)
}

/// The child side: one way of reading one file, once; prints
/// `<CPU milliseconds> <peak KiB> <count> <wall milliseconds> <user milliseconds>`.
///
/// # Errors
/// An unknown way, or a file that does not load.
pub fn run_one(way: &str, path: &str) -> CmdResult {
    let path = Path::new(path);
    let t = Instant::now();
    let cpu0 = cpu_ns();
    let user0 = user_ms();
    let n = match way {
        "bare-json" => bare_json(path)?,
        "bare-yaml" => bare_yaml(path)?,
        "ownerscope" => ownerscope(path)?,
        "ui" => ui(path)?,
        // The first part of `ownerscope` alone: the file read into objects.
        "ownerscope-file" => scenario::load(&path.to_string_lossy())?.objects.len(),
        other => return Err(CmdError(format!("unknown way {other:?}"))),
    };
    let wall = t.elapsed().as_secs_f64() * 1000.0;
    #[allow(clippy::cast_precision_loss)]
    let cpu = cpu_ns().saturating_sub(cpu0) as f64 / 1e6;
    let user = user_ms().saturating_sub(user0);
    println!("{cpu:.1} {} {n} {wall:.1} {user}", peak_kib());
    Ok(())
}

struct Sample {
    time: Duration,
    peak_kib: u64,
    user: Duration,
}

fn child(way: &str, path: &Path) -> Result<Sample, CmdError> {
    let exe = std::env::current_exe().map_err(err)?;
    let out = Command::new(exe)
        .args(["bench", "--load-one", way])
        .arg(path)
        .output()
        .map_err(err)?;
    if !out.status.success() {
        return Err(CmdError(format!(
            "{way} on {}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut f = text.split_whitespace();
    let ms: f64 = f.next().and_then(|s| s.parse().ok()).unwrap_or(0.0);
    let peak_kib = f.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let user_ms: u64 = f.nth(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    Ok(Sample {
        time: Duration::from_secs_f64(ms / 1000.0),
        peak_kib,
        user: Duration::from_millis(user_ms),
    })
}

struct Row {
    time: Duration,
    peak_mib: f64,
    user: Duration,
}

fn measure(samples: Vec<Sample>) -> Row {
    let mut peaks: Vec<u64> = samples.iter().map(|s| s.peak_kib).collect();
    peaks.sort_unstable();
    #[allow(clippy::cast_precision_loss)]
    let peak_mib = peaks.get(peaks.len() / 2).copied().unwrap_or(0) as f64 / 1024.0;
    Row {
        time: median(samples.iter().map(|s| s.time).collect()),
        user: median(samples.iter().map(|s| s.user).collect()),
        peak_mib,
    }
}

/// The median of the ratios of the runs made one after the other (ours
/// against the bare parse's just before it): on a machine whose speed
/// drifts between runs, each pair ran at about the same speed.
fn paired_ratio(bare: &[Sample], ours: &[Sample]) -> f64 {
    let mut r: Vec<f64> = bare
        .iter()
        .zip(ours)
        .map(|(b, o)| o.time.as_secs_f64() / b.time.as_secs_f64().max(1e-9))
        .collect();
    r.sort_by(f64::total_cmp);
    r.get(r.len() / 2).copied().unwrap_or(0.0)
}

fn tmp_dir() -> Result<PathBuf, CmdError> {
    let dir = std::env::temp_dir().join(format!("ownerscope-bench-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(err)?;
    Ok(dir)
}

/// The parent side: generates the files and prints the table.
///
/// # Errors
/// A file that cannot be written, a child that fails.
pub fn run(sizes: &[usize], runs: usize, keep: Option<&Path>) -> CmdResult {
    let runs = runs.clamp(1, 15);
    let dir = match keep {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(err)?;
            d.to_path_buf()
        }
        None => tmp_dir()?,
    };
    println!(
        "ownerscope bench --load: {runs} interleaved runs, each in its own process; CPU time (median, and the median of the runs' ratios), peak resident memory (median){}",
        if cfg!(debug_assertions) {
            " (DEBUG BUILD: use --release for real figures)"
        } else {
            ""
        }
    );
    println!(
        "| input | objects | MB | bare parse + index | ownerscope load + index | time ratio: of each pair (of the medians) | user-space time ratio | bare peak | ownerscope peak | memory ratio |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut uis = Vec::new();
    let result = (|| {
        for &n in sizes {
            let json = list(n);
            let yaml = yaml_of(&json)?;
            let jpath = dir.join(format!("list-{n}.json"));
            let ypath = dir.join(format!("scenario-{n}.yaml"));
            std::fs::File::create(&jpath)
                .and_then(|mut f| f.write_all(json.as_bytes()))
                .map_err(err)?;
            std::fs::File::create(&ypath)
                .and_then(|mut f| f.write_all(yaml.as_bytes()))
                .map_err(err)?;
            for (input, path, bare_way, bytes) in [
                ("JSON List", &jpath, "bare-json", json.len()),
                ("scenario YAML", &ypath, "bare-yaml", yaml.len()),
            ] {
                let mut bare = Vec::new();
                let mut ours = Vec::new();
                let mut shown = Vec::new();
                for _ in 0..runs {
                    bare.push(child(bare_way, path)?);
                    ours.push(child("ownerscope", path)?);
                    shown.push(child("ui", path)?);
                }
                let paired = paired_ratio(&bare, &ours);
                let b = measure(bare);
                let o = measure(ours);
                uis.push((input, n, measure(shown), b.time));
                #[allow(clippy::cast_precision_loss)]
                let mb = bytes as f64 / 1e6;
                println!(
                    "| {input} | {n} | {mb:.0} | {:.0} ms | {:.0} ms | {paired:.2}x ({:.2}x) | {:.2}x ({:.0} / {:.0} ms) | {:.0} MiB | {:.0} MiB | {:.2}x |",
                    b.time.as_secs_f64() * 1000.0,
                    o.time.as_secs_f64() * 1000.0,
                    o.time.as_secs_f64() / b.time.as_secs_f64().max(1e-9),
                    o.user.as_secs_f64() / b.user.as_secs_f64().max(1e-9),
                    o.user.as_secs_f64() * 1000.0,
                    b.user.as_secs_f64() * 1000.0,
                    b.peak_mib,
                    o.peak_mib,
                    o.peak_mib / b.peak_mib.max(1e-9),
                );
                std::io::stdout().flush().ok();
            }
        }
        println!();
        println!(
            "| input | objects | ui FILE: load to the first frame of the tree | against the bare parse | peak |"
        );
        println!("|---|---:|---:|---:|---:|");
        for (input, n, row, bare) in &uis {
            println!(
                "| {input} | {n} | {:.0} ms | {:.2}x | {:.0} MiB |",
                row.time.as_secs_f64() * 1000.0,
                row.time.as_secs_f64() / bare.as_secs_f64().max(1e-9),
                row.peak_mib
            );
        }
        Ok(())
    })();
    if keep.is_none() {
        std::fs::remove_dir_all(&dir).ok();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_list_and_yaml_load_as_the_same_objects() {
        let json = list(25);
        let v: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        assert_eq!(v["items"].as_array().map(Vec::len), Some(25));
        let from_json = scenario::parse("list.json", &json).expect("loads");
        let from_yaml = scenario::parse("s.yaml", &yaml_of(&json).expect("yaml")).expect("loads");
        assert_eq!(from_json.objects, from_yaml.objects);
        let list: BareList = serde_json::from_str(&json).expect("bare");
        // Uids as a real server's: 36 characters, version 4, all distinct.
        let uids: std::collections::BTreeSet<String> = (0..25).map(uid_of).collect();
        assert_eq!(uids.len(), 25);
        assert!(
            uids.iter()
                .all(|u| u.len() == 36 && u.as_bytes()[14] == b'4')
        );
        // 25 objects; every one but the first Deployments has an owner here.
        assert_eq!(bare_index(&list.items), 25 + 22);
    }

    /// Each Deployment's and ReplicaSet's selector selects its own pods, as
    /// on a real cluster: with the clock running, the simulated controllers
    /// release none of them and make none.
    #[test]
    fn the_generated_controllers_keep_their_own_pods() {
        let mut sim = crate::sim::engine::Sim::load(
            // Three whole Deployments (one, its ReplicaSet, eight pods).
            scenario::parse("list.json", &list(30)).expect("loads"),
        )
        .expect("starts");
        let owned = |sim: &crate::sim::engine::Sim| -> Vec<(String, usize)> {
            sim.graph()
                .objects()
                .map(|o| (o.name().to_string(), o.metadata.owner_references.len()))
                .collect()
        };
        let before = owned(&sim);
        sim.advance(30_000);
        assert_eq!(owned(&sim), before);
        assert_eq!(before.len(), 30);
    }
}
