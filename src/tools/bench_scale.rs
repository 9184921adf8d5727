//! `ownerscope bench --scale 10000,30000,100000`: what each user action
//! costs beyond loading, on clusters of growing size, so that how it grows
//! can be read off the output (the growth column is the time divided by the
//! time at the smallest size, to compare with the size ratio).
//!
//! The cluster is the worst case for anything that follows a cascade: one
//! Deployment owning every other object through ReplicaSets
//! ([`generate::cascade`]). Run it in release:
//! `cargo run --release -- bench --scale 10000,30000,100000`.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

use super::bench::{median, time};
use super::generate;
use crate::app::{Action, App, Options};
use crate::backend::Update;
use crate::commands::{CmdError, CmdResult};
use crate::model::{KindTable, Object, OwnershipGraph, Policy, diagnosis, preview};
use crate::sim::scenario::{Scenario, Settings, Target};
use crate::sim::{DeleteOptions, Sim};
use crate::{runtime, ui};

const W: u16 = 160;
const H: u16 = 48;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// One row of the curve: a measurement at every size.
struct Curve {
    what: &'static str,
    unit_us: bool,
    at: Vec<Duration>,
}

impl Curve {
    fn print(&self, sizes: &[usize]) {
        let cells: Vec<String> = self
            .at
            .iter()
            .map(|d| {
                if self.unit_us {
                    format!("{:.1} µs", d.as_secs_f64() * 1e6)
                } else {
                    format!("{:.2} ms", ms(*d))
                }
            })
            .collect();
        let first = self.at.first().copied().unwrap_or_default().as_secs_f64();
        let growth = match (self.at.last(), sizes.first(), sizes.last()) {
            (Some(last), Some(&s0), Some(&s1)) if first > 0.0 && s0 > 0 => {
                #[allow(clippy::cast_precision_loss)]
                let size_ratio = s1 as f64 / s0 as f64;
                format!(
                    "x{:.1} for x{size_ratio:.0} objects",
                    last.as_secs_f64() / first
                )
            }
            _ => String::new(),
        };
        println!("| {:<52} | {} | {growth} |", self.what, cells.join(" | "));
    }
}

/// Generated objects as a scenario the simulator loads.
#[must_use]
pub fn scenario(objects: Vec<Object>) -> Scenario {
    Scenario {
        name: "bench".into(),
        description: "generated objects".into(),
        source: "generated".into(),
        kinds: Vec::new(),
        partial: crate::model::Partial::default(),
        object_lines: vec![0; objects.len()],
        objects: objects.into_iter().map(std::sync::Arc::new).collect(),
        controllers: Vec::new(),
        steps: Vec::new(),
        settings: Settings::default(),
    }
}

/// One Deployment and `n - 1` ConfigMaps it owns directly: the fan-out
/// that made the garbage collector's graph quadratic.
fn fan_out(n: usize) -> Vec<Object> {
    let root = generate::cascade(1).remove(0);
    let mut out = vec![root.clone()];
    for i in 1..n {
        let mut cm = Object::new("v1", "ConfigMap", Some("big"), &format!("cm-{i:06}"));
        cm.metadata.uid = format!("00000000-0000-4000-9000-{i:012x}");
        cm.metadata
            .owner_references
            .push(root.reference(Some(false), Some(true)));
        out.push(cm);
    }
    out
}

fn root_target() -> Target {
    Target {
        kind: "Deployment".into(),
        namespace: Some("big".into()),
        name: "root".into(),
    }
}

/// The cluster in the middle of a Foreground cascade of the root: the root
/// and every ReplicaSet waiting in foreground, every pod Terminating on its
/// grace period, nothing gone yet; a diagnosis of the root walks the whole
/// blocker tree.
fn mid_cascade(objects: &[Object]) -> Vec<Object> {
    objects
        .iter()
        .map(|o| {
            let mut o = o.clone();
            o.metadata.deletion_timestamp = Some(Timestamp::UNIX_EPOCH);
            if o.kind == "Pod" {
                o.metadata.deletion_grace_period_seconds = Some(30);
            } else {
                o.metadata.deletion_grace_period_seconds = Some(0);
                o.metadata.finalizers.push("foregroundDeletion".into());
            }
            o
        })
        .collect()
}

/// Runs the scale benchmark.
///
/// # Errors
/// The terminal backend fails.
pub fn run(sizes: &[usize], runs: usize) -> CmdResult {
    let runs = runs.max(3);
    println!(
        "ownerscope bench --scale: one Deployment owning every object, median of {runs} runs{}",
        if cfg!(debug_assertions) {
            " (DEBUG BUILD: use --release for real figures)"
        } else {
            ""
        }
    );
    let header: Vec<String> = sizes.iter().map(|n| format!("{n} objects")).collect();
    println!("| what | {} | growth |", header.join(" | "));
    println!("|---|{}---|", "---:|".repeat(sizes.len()));
    let mut curves = vec![
        Curve {
            what: "plan: Foreground delete of the root (preview)",
            unit_us: false,
            at: vec![],
        },
        Curve {
            what: "plan: Background delete of one pod",
            unit_us: false,
            at: vec![],
        },
        Curve {
            what: "why: the root, mid-cascade (every dependent blocks)",
            unit_us: false,
            at: vec![],
        },
        Curve {
            what: "simulate: Foreground cascade of the root, settled",
            unit_us: false,
            at: vec![],
        },
        Curve {
            what: "simulate: one owner with every object as dependent, load + settle",
            unit_us: false,
            at: vec![],
        },
        Curve {
            what: "UI tick mid-cascade, the root selected",
            unit_us: false,
            at: vec![],
        },
        Curve {
            what: "UI tick mid-cascade, the root selected: slowest",
            unit_us: false,
            at: vec![],
        },
        Curve {
            what: "UI tick mid-cascade, a pod selected",
            unit_us: false,
            at: vec![],
        },
        Curve {
            what: "watch event applied (root selected)",
            unit_us: true,
            at: vec![],
        },
        Curve {
            what: "watch event applied (a pod selected)",
            unit_us: true,
            at: vec![],
        },
    ];
    let none = BTreeMap::new();
    for &n in sizes {
        let objects = generate::cascade(n);
        let mut graph = OwnershipGraph::new(KindTable::builtin());
        for o in objects.iter().cloned() {
            graph.upsert(o);
        }
        let root_uid = objects[0].uid().to_string();
        let pod_uid = objects[2].uid().to_string();
        curves[0].at.push(time(runs.min(5), || {
            black_box(preview::plan(
                &graph,
                &root_uid,
                Some(Policy::Foreground),
                &none,
            ));
        }));
        curves[1].at.push(time(runs, || {
            black_box(preview::plan(
                &graph,
                &pod_uid,
                Some(Policy::Background),
                &none,
            ));
        }));
        for o in mid_cascade(&objects) {
            graph.upsert(o);
        }
        curves[2].at.push(time(runs.min(5), || {
            black_box(diagnosis::diagnose(
                &graph,
                &root_uid,
                Timestamp::UNIX_EPOCH,
                &none,
            ));
        }));
        drop(graph);

        let sc = scenario(objects.clone());
        let mut settles = Vec::new();
        for _ in 0..runs.min(3) {
            // Headless, as `simulate` runs it: no UI drains the watch.
            let Ok(mut sim) = Sim::new(&sc).map(Sim::unwatched) else {
                break;
            };
            let t = Instant::now();
            sim.delete(&root_target(), &DeleteOptions::policy(Policy::Foreground));
            sim.settle(3_600_000);
            settles.push(t.elapsed());
            black_box(sim);
        }
        curves[3].at.push(median(settles));
        drop(sc);
        let fan = scenario(fan_out(n));
        curves[4].at.push(time(runs.min(3), || {
            if let Ok(mut sim) = Sim::new(&fan).map(Sim::unwatched) {
                sim.delete(&root_target(), &DeleteOptions::policy(Policy::Foreground));
                sim.settle(3_600_000);
                black_box(sim);
            }
        }));
        drop(fan);

        let [tick_root, ev_root, tick_pod, ev_pod, worst] = ui_ticks(&objects, runs)?;
        curves[5].at.push(tick_root);
        curves[6].at.push(worst);
        curves[7].at.push(tick_pod);
        curves[8].at.push(ev_root);
        curves[9].at.push(ev_pod);
    }
    for c in &curves {
        c.print(sizes);
    }
    println!(
        "\n(simulate: the DELETE and the settling, not building the simulator; a UI tick: one watch event applied, the clock moved 16 ms, one frame drawn on a {W}x{H} TestBackend; {} ticks a size)",
        (runs * 4).max(40)
    );
    Ok(())
}

/// A UI tick (one watch event, one frame) and the event alone, with the
/// root of a foreground delete selected, then with a pod selected.
fn ui_ticks(objects: &[Object], runs: usize) -> Result<[Duration; 5], CmdError> {
    let objects = mid_cascade(objects);
    let mut app = App::new(Options::default());
    app.apply(Update::Reset {
        objects: objects.iter().cloned().map(Into::into).collect(),
        kinds: Box::new(KindTable::builtin()),
    });
    let mut terminal =
        Terminal::new(TestBackend::new(W, H)).map_err(|e| CmdError(e.to_string()))?;
    runtime::fit(&mut app, Rect::new(0, 0, W, H));
    select(&mut app, "root");
    let pod = objects[objects.len() - 1].clone();
    let root = measure(&mut app, &mut terminal, &pod, runs);
    select(&mut app, pod.name());
    let other = measure(&mut app, &mut terminal, &objects[3], runs);
    Ok([root.0, root.1, other.0, other.1, root.2])
}

fn select(app: &mut App, name: &str) {
    app.update(Action::Top);
    app.update(Action::StartSearch);
    for c in name.chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Confirm);
}

/// (median tick, median event, slowest tick): a terminating pod's grace
/// changes and back, as a watch sends it, one event per 16 ms frame.
fn measure(
    app: &mut App,
    terminal: &mut Terminal<TestBackend>,
    pod: &Object,
    runs: usize,
) -> (Duration, Duration, Duration) {
    let mut ticks = Vec::new();
    let mut events = Vec::new();
    for i in 0..(runs * 4).max(40) {
        let mut p = pod.clone();
        if i % 2 == 0 {
            p.metadata.deletion_grace_period_seconds = Some(29);
        }
        let t = Instant::now();
        app.apply(Update::Upsert(p.into()));
        events.push(t.elapsed());
        // A frame at 60 fps: the clock moves, the answer may be refreshed.
        app.tick(Duration::from_millis(16));
        let _ = terminal.draw(|f| ui::render(app, f));
        ticks.push(t.elapsed());
    }
    let worst = ticks.iter().max().copied().unwrap_or_default();
    (median(ticks), median(events), worst)
}
