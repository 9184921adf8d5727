//! `ownerscope bench --plan-shapes 100000`: the deletion preview on three
//! shapes of `N` ConfigMaps, each a `kubectl get -o json` List loaded as
//! `plan FILE` loads it:
//!
//! - **chain**: each ConfigMap owned by the one before (`cm-000000` the
//!   root), every reference with `blockOwnerDeletion`;
//! - **cycle**: the chain, with the root owned by the last one too;
//! - **fan-out**: the root owning every other one directly.
//!
//! A chain is as many waves deep as it is long; a fan-out is one wave. The
//! preview of a delete of the root, Foreground and Background, is timed
//! (median of `--runs`), and each shape's time is given as a ratio to the
//! fan-out's with the same policy in the same run. With `--plan-keep DIR`
//! the Lists stay there, to time the command itself:
//! `ownerscope plan DIR/chain-100000.json --delete configmap/cm-000000 -n
//! big --cascade=foreground`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::bench::time;
use crate::commands::{CmdError, CmdResult, load_sim};
use crate::model::{Policy, preview};
use crate::sim::scenario::Target;

/// The shapes, in the order printed.
pub const SHAPES: [Shape; 3] = [Shape::FanOut, Shape::Chain, Shape::Cycle];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Chain,
    Cycle,
    FanOut,
}

impl Shape {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Shape::Chain => "chain",
            Shape::Cycle => "cycle",
            Shape::FanOut => "fan-out",
        }
    }

    /// The owner of the `i`th ConfigMap of `n`, if any.
    fn owner(self, i: usize, n: usize) -> Option<usize> {
        match (self, i) {
            (Shape::Cycle, 0) if n > 1 => Some(n - 1),
            (_, 0) => None,
            (Shape::Chain | Shape::Cycle, i) => Some(i - 1),
            (Shape::FanOut, _) => Some(0),
        }
    }
}

fn uid(i: usize) -> String {
    format!("00000000-0000-4000-9000-{i:012x}")
}

fn name(i: usize) -> String {
    format!("cm-{i:06}")
}

/// The namespace of every generated ConfigMap.
pub const NAMESPACE: &str = "big";

/// `n` ConfigMaps of `shape` as a List, as JSON text.
#[must_use]
pub fn list(shape: Shape, n: usize) -> String {
    let mut out = String::with_capacity(n * 360 + 64);
    out.push_str(r#"{"apiVersion":"v1","kind":"List","metadata":{},"items":["#);
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{}","namespace":"{NAMESPACE}","uid":"{}","creationTimestamp":"2024-01-01T00:00:00Z""#,
            name(i),
            uid(i)
        );
        if let Some(o) = shape.owner(i, n) {
            let _ = write!(
                out,
                r#","ownerReferences":[{{"apiVersion":"v1","kind":"ConfigMap","name":"{}","uid":"{}","blockOwnerDeletion":true}}]"#,
                name(o),
                uid(o)
            );
        }
        out.push_str("}}");
    }
    out.push_str("]}");
    out
}

fn err(e: impl std::fmt::Display) -> CmdError {
    CmdError(e.to_string())
}

/// The median preview of a delete of the root of the List at `path`, and
/// the plan's summary.
fn measure(path: &Path, policy: Policy, runs: usize) -> Result<(Duration, String), CmdError> {
    let sim = load_sim(&path.to_string_lossy(), None)?;
    let target = Target {
        kind: "ConfigMap".into(),
        namespace: Some(NAMESPACE.into()),
        name: name(0),
    };
    let key = sim.resolve(&target).map_err(CmdError)?;
    let uid = sim
        .get(&key)
        .ok_or_else(|| CmdError(key.not_found()))?
        .uid()
        .to_string();
    let controllers: BTreeMap<String, bool> = sim.controller_map();
    let summary = preview::plan(sim.graph(), &uid, Some(policy), &controllers).summary();
    let d = time(runs, || {
        black_box(preview::plan(sim.graph(), &uid, Some(policy), &controllers));
    });
    Ok((d, summary))
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1000.0)
    }
}

/// Writes the Lists, times the previews and prints the table.
///
/// # Errors
/// A file that cannot be written or loaded.
pub fn run(n: usize, runs: usize, keep: Option<&Path>) -> CmdResult {
    let runs = runs.clamp(1, 15);
    let dir: PathBuf = match keep {
        Some(d) => d.to_path_buf(),
        None => std::env::temp_dir().join(format!("ownerscope-bench-plan-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).map_err(err)?;
    println!(
        "ownerscope bench --plan-shapes {n}: the preview of a delete of the root, median of {runs} runs{}",
        if cfg!(debug_assertions) {
            " (DEBUG BUILD: use --release for real figures)"
        } else {
            ""
        }
    );
    println!("| shape | N | policy | median | ratio to fan-out | plan |");
    println!("|---|---:|---|---:|---:|---|");
    let mut paths = Vec::new();
    for shape in SHAPES {
        let path = dir.join(format!("{}-{n}.json", shape.name()));
        std::fs::write(&path, list(shape, n)).map_err(err)?;
        paths.push((shape, path));
    }
    let mut result = Ok(());
    for policy in [Policy::Foreground, Policy::Background] {
        let mut fan = None;
        for (shape, path) in &paths {
            let (d, summary) = match measure(path, policy, runs) {
                Ok(m) => m,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            let base = *fan.get_or_insert(d);
            let ratio = d.as_secs_f64() / base.as_secs_f64().max(1e-9);
            println!(
                "| {} | {n} | {policy} | {} | {ratio:.2} | {summary} |",
                shape.name(),
                secs(d)
            );
        }
    }
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        println!(
            "\n(the Lists are in {}: `ownerscope plan FILE --delete configmap/cm-000000 -n {NAMESPACE} --cascade=foreground`)",
            dir.display()
        );
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario;

    #[test]
    fn the_shapes_load_with_their_owners() {
        for shape in SHAPES {
            let sc = scenario::parse("list.json", &list(shape, 4)).expect("loads");
            assert_eq!(sc.objects.len(), 4);
            let owners: Vec<Option<String>> = sc
                .objects
                .iter()
                .map(|o| o.metadata.owner_references.first().map(|r| r.name.clone()))
                .collect();
            let want: Vec<Option<String>> = (0..4).map(|i| shape.owner(i, 4).map(name)).collect();
            assert_eq!(owners, want, "{shape:?}");
            assert!(
                sc.objects
                    .iter()
                    .flat_map(|o| &o.metadata.owner_references)
                    .all(|r| r.block_owner_deletion == Some(true))
            );
        }
    }
}
