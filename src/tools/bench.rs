//! `ownerscope bench`: frame and key-handling times on a generated
//! cluster, fully expanded and collapsed, on a 160x48 `TestBackend`;
//! and, for comparison, tui-tree-widget given the whole forest.
//! Run it in release: `cargo run --release -- bench`.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use tui_tree_widget::{Tree, TreeItem, TreeState};

use super::generate;

mod arrival;
pub(crate) mod event_loop;
use crate::app::index::ForestIndex;
use crate::app::rows::{self, Expansion, Filters};
use crate::app::{Action, App, Options};
use crate::backend::Update;
use crate::cli::{BenchArgs, BenchPart};
use crate::commands::{CmdError, CmdResult};
use crate::model::KindTable;
use crate::{runtime, ui};

const W: u16 = 160;
const H: u16 = 48;

pub(super) fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

pub(super) fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    let v = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    median(v)
}

/// The median of `waits` and a note naming the slowest of them.
fn median_and_slowest(waits: &[Duration]) -> (Duration, String) {
    (median(waits.to_vec()), slowest(waits))
}

/// "slowest of N x ms".
fn slowest(waits: &[Duration]) -> String {
    format!(
        "slowest of {} {}",
        waits.len(),
        fmt(waits.iter().max().copied().unwrap_or_default())
    )
}

fn fmt(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.0} µs")
    }
}

/// Prints one figure as a Markdown table row.
struct Report;

impl Report {
    #[allow(clippy::unused_self)]
    fn add(&mut self, what: &str, d: Duration, note: String) {
        println!("| {what:<58} | {:>10} | {note} |", fmt(d));
    }
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &App) {
    let _ = terminal.draw(|f| ui::render(app, f));
}

/// A key's handling time: the App update plus the rebuild it causes.
fn key(app: &mut App, runs: usize, action: Action, undo: Option<Action>) -> Duration {
    let v = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            black_box(app.update(action));
            let d = t.elapsed();
            if let Some(u) = undo {
                app.update(u);
            }
            d
        })
        .collect();
    median(v)
}

/// The whole forest as tui-tree-widget items, every node's path.
fn widget_items(
    ix: &ForestIndex,
    graph: &crate::model::OwnershipGraph,
) -> (Vec<TreeItem<'static, String>>, Vec<Vec<String>>) {
    fn item(
        ix: &ForestIndex,
        graph: &crate::model::OwnershipGraph,
        uid: &str,
        path: &mut Vec<String>,
        open: &mut Vec<Vec<String>>,
        depth: usize,
    ) -> TreeItem<'static, String> {
        let label = graph
            .get(uid)
            .map(|o| format!("{}/{}", o.kind, o.name()))
            .unwrap_or_default();
        path.push(uid.to_string());
        let kids: Vec<TreeItem<'static, String>> = if depth > 32 {
            Vec::new()
        } else {
            ix.children(uid)
                .map(|c| item(ix, graph, c, path, open, depth + 1))
                .collect()
        };
        if !kids.is_empty() {
            open.push(path.clone());
        }
        path.pop();
        TreeItem::new(uid.to_string(), label.clone(), kids)
            .unwrap_or_else(|_| TreeItem::new_leaf(uid.to_string(), label))
    }
    let mut open = Vec::new();
    let mut groups: BTreeMap<String, Vec<TreeItem<'static, String>>> = BTreeMap::new();
    for rk in ix.roots() {
        let mut path = vec![rk.namespace.to_string()];
        let it = item(ix, graph, &rk.uid, &mut path, &mut open, 0);
        groups.entry(rk.namespace.to_string()).or_default().push(it);
    }
    let items = groups
        .into_iter()
        .map(|(ns, kids)| {
            open.push(vec![ns.clone()]);
            TreeItem::new(ns.clone(), ns.clone(), kids)
                .unwrap_or_else(|_| TreeItem::new_leaf(ns.clone(), ns))
        })
        .collect();
    (items, open)
}

/// What a selection change computes for its selector relations, on a
/// pod and on a Deployment: by a look at every object (as before the
/// index) and from the index, in the same run.
fn relations_both_ways(app: &App, runs: usize, report: &mut Report) {
    use crate::model::relations;
    let graph = app.graph();
    for kind in ["Pod", "Deployment"] {
        let Some(obj) = graph.objects().find(|o| o.kind == kind) else {
            continue;
        };
        let scan = time(runs, || {
            black_box(relations::relations(graph, obj));
        });
        let indexed = time(runs * 10, || {
            black_box(relations::relations_indexed(
                graph,
                app.index()
                    .selectors()
                    .expect("the bench waits for the selector index"),
                obj,
            ));
        });
        report.add(
            &format!("selector relations of a {kind}: from the index"),
            indexed,
            format!(
                "a look at every object: {} ({:.0}x)",
                fmt(scan),
                scan.as_secs_f64() / indexed.as_secs_f64().max(1e-9)
            ),
        );
    }
}

/// A watch as a live cluster sends it, 1,000 changes a second: every
/// 50 ms poll brings 50 (pods changing status, relabelled, Terminating,
/// deleted and created again), applied with a pod selected and one frame
/// drawn. The figure is the share of each second this takes: under 100%
/// it keeps up.
fn watch_stream(app: &mut App, terminal: &mut Terminal<TestBackend>, report: &mut Report) {
    const BATCH: usize = 50;
    let pods: Vec<crate::model::Object> = app
        .graph()
        .objects()
        .filter(|o| o.is_pod())
        .take(2_000)
        .cloned()
        .collect();
    if pods.is_empty() {
        return;
    }
    app.update(Action::Top);
    while app.selected_object().is_some_and(|o| !o.is_pod())
        && app.selected_index() + 1 < app.rows().len()
    {
        app.update(Action::Down);
    }
    let mut batches = Vec::new();
    let mut n = 0usize;
    for round in 0..40 {
        let mut updates = Vec::with_capacity(BATCH);
        for _ in 0..BATCH {
            let mut p = pods[n % pods.len()].clone();
            n += 1;
            match n % 10 {
                0 => {
                    updates.push(Update::Remove(p.uid().to_string()));
                    continue;
                }
                1 => {
                    p.metadata
                        .labels
                        .insert("pod-template-hash".into(), format!("moved-{round}"));
                }
                2 => p.metadata.deletion_timestamp = Some(jiff::Timestamp::UNIX_EPOCH),
                _ => p.metadata.resource_version = Some(format!("{round}{n}")),
            }
            updates.push(Update::Upsert(p.into()));
        }
        let t = Instant::now();
        app.apply_all(updates);
        app.tick(Duration::from_millis(50));
        draw(terminal, app);
        batches.push(t.elapsed());
        // What was deleted comes back, as a controller re-creates it.
        let back: Vec<Update> = pods
            .iter()
            .filter(|p| app.graph().get(p.uid()).is_none())
            .map(|p| Update::Upsert(p.clone().into()))
            .collect();
        app.apply_all(back);
    }
    let batch = median(batches.clone());
    let worst = batches.iter().max().copied().unwrap_or_default();
    #[allow(clippy::cast_precision_loss)]
    let share = batch.as_secs_f64() * (1000 / BATCH) as f64 * 100.0;
    report.add(
        "watch: 50 changes applied and a frame drawn (1,000 a second)",
        batch,
        format!(
            "{share:.1}% of each second at 1,000 changes/s; slowest batch {}",
            fmt(worst)
        ),
    );
}

/// Keys through the real loop on the simulator backend ([`event_loop`]):
/// what a user waits for, from the key read to its frame flushed.
fn through_the_loop(objects: usize, runs: usize, report: &mut Report) -> CmdResult {
    use crossterm::event::KeyCode;
    use event_loop::key;
    let pace = Duration::from_millis(60);
    let (mut backend, mut app) = event_loop::start(generate::cluster(objects), true)?;
    let held = runs.max(20);
    let w = event_loop::run(
        &mut app,
        &mut backend,
        vec![key(KeyCode::Char('j')); held],
        pace,
        Duration::ZERO,
    )?;
    let (m, note) = median_and_slowest(&w.keys);
    report.add(
        "loop: key to frame, j (collapsed: workloads, Services)",
        m,
        note,
    );
    let mut keys = vec![key(KeyCode::Char('E'))];
    keys.extend(vec![key(KeyCode::Char('j')); held]);
    let w = event_loop::run(&mut app, &mut backend, keys, pace, Duration::ZERO)?;
    let (e, _) = median_and_slowest(&w.keys[..1]);
    report.add("loop: key to frame, E (expand all)", e, String::new());
    let (m, note) = median_and_slowest(&w.keys[1..]);
    report.add("loop: key to frame, j (expanded: pods)", m, note);
    // The first group closed and opened again, then the first workload:
    // the rows of what changed made again, the others kept.
    let toggles = runs.clamp(3, 10) * 2;
    for (moves, what) in [
        (vec![key(KeyCode::Char('g'))], "a group row"),
        (
            vec![key(KeyCode::Char('g')), key(KeyCode::Char('j'))],
            "an object row",
        ),
    ] {
        let n = moves.len();
        let mut keys = moves;
        keys.extend(vec![key(KeyCode::Enter); toggles]);
        let w = event_loop::run(&mut app, &mut backend, keys, pace, Duration::ZERO)?;
        let (m, note) = median_and_slowest(&w.keys[n..]);
        report.add(
            &format!("loop: key to frame, Enter on {what} (closes, opens), expanded"),
            m,
            note,
        );
    }
    search_and_flags(&mut app, &mut backend, runs, report)?;
    std::mem::forget((backend, app));
    Ok(())
}

/// `/` and a search typed through the loop, fully expanded: a keystroke
/// that matches nothing, and the keystroke that leaves the last object of
/// the forest as the only match; then `t` (next Terminating), which opens
/// what hides it.
fn search_and_flags(
    app: &mut App,
    backend: &mut crate::backend::simulated::SimBackend,
    runs: usize,
    report: &mut Report,
) -> CmdResult {
    use crossterm::event::KeyCode;
    use event_loop::key;
    let pace = Duration::from_millis(60);
    let last = last_label(app);
    let mut keys = vec![key(KeyCode::Char('g')), key(KeyCode::Char('/'))];
    keys.extend(last.chars().map(|c| key(KeyCode::Char(c))));
    keys.push(key(KeyCode::Char('~')));
    keys.push(key(KeyCode::Backspace));
    keys.push(key(KeyCode::Enter));
    let w = event_loop::run(app, backend, keys, pace, Duration::ZERO)?;
    let typed = &w.keys[2..2 + last.chars().count()];
    report.add(
        "loop: key to frame, / (search opens)",
        w.keys.get(1).copied().unwrap_or_default(),
        String::new(),
    );
    report.add(
        "loop: key to frame, a search keystroke (typing the last object's name)",
        median(typed.to_vec()),
        format!(
            "{}; the last (one match, at the very end) {}",
            slowest(typed),
            fmt(typed.last().copied().unwrap_or_default())
        ),
    );
    let n = 2 + last.chars().count();
    report.add(
        "loop: key to frame, a search keystroke matching nothing",
        w.keys.get(n).copied().unwrap_or_default(),
        format!(
            "Backspace {}; Enter {}",
            fmt(w.keys.get(n + 1).copied().unwrap_or_default()),
            fmt(w.keys.get(n + 2).copied().unwrap_or_default())
        ),
    );
    let mut keys = vec![key(KeyCode::Esc), key(KeyCode::Char('g'))];
    keys.extend(vec![key(KeyCode::Char('t')); runs.clamp(5, 20)]);
    let w = event_loop::run(app, backend, keys, pace, Duration::ZERO)?;
    let t = &w.keys[2..];
    report.add(
        "loop: key to frame, t (next Terminating)",
        median(t.to_vec()),
        slowest(t),
    );
    Ok(())
}

/// The delete dialog and the cascade of a Deployment owning `objects`
/// (at most 100k), through the loop.
fn cascade_through_the_loop(objects: usize, report: &mut Report) -> CmdResult {
    use crossterm::event::KeyCode;
    use event_loop::{ctrl, key};
    let n = objects.min(100_000);
    let (mut backend, mut app) = event_loop::start(generate::cascade(n), false)?;
    let mut keys = Vec::new();
    for _ in 0..3 {
        keys.push(ctrl('d'));
        keys.push(key(KeyCode::Esc));
    }
    let w = event_loop::run(
        &mut app,
        &mut backend,
        keys,
        Duration::from_millis(400),
        Duration::ZERO,
    )?;
    let opened: Vec<Duration> = w.keys.iter().step_by(2).copied().collect();
    let (m, note) = median_and_slowest(&opened);
    // The preview alone, as the dialog computes it (the Deployment's
    // default policy, Background).
    let root = app
        .selected_object()
        .map(|o| o.uid().to_string())
        .unwrap_or_default();
    let plan = time(3, || {
        black_box(crate::model::preview::plan_with(
            app.graph(),
            &root,
            Some(crate::model::Policy::Background),
            &BTreeMap::new(),
            false,
        ));
    });
    report.add(
        &format!("loop: key to frame, the delete dialog of a {n}-object cascade"),
        m,
        format!("{note}; the preview alone {}", fmt(plan)),
    );
    let t = Instant::now();
    let w = event_loop::run(
        &mut app,
        &mut backend,
        vec![ctrl('d'), key(KeyCode::Char('f')), key(KeyCode::Enter)],
        Duration::from_millis(700),
        Duration::from_secs(6),
    )?;
    let confirmed = w.keys.get(2).copied().unwrap_or_default();
    report.add(
        &format!("loop: confirming the Foreground delete of {n} objects, key to frame"),
        confirmed,
        format!(
            "{} of {} objects Terminating or gone after {:.1} s",
            app.index().terminating_count() + n.saturating_sub(app.graph().len()),
            n,
            t.elapsed().as_secs_f64()
        ),
    );
    report.add(
        "loop: longest away from the keyboard while the cascade runs",
        w.longest_after_keys,
        format!(
            "a freeze: a key then waits this long (from Enter on; {} from Ctrl-d on, the preview included)",
            fmt(w.longest_away)
        ),
    );
    std::mem::forget((backend, app));
    Ok(())
}

/// Runs the benchmark and prints the figures.
///
/// # Errors
/// The test terminal cannot be created.
pub fn run(args: &BenchArgs) -> CmdResult {
    if let Some(sizes) = &args.scale {
        return super::bench_scale::run(sizes, args.runs);
    }
    if let Some(n) = args.plan_shapes {
        return super::bench_plan::run(n, args.runs, args.plan_keep.as_deref());
    }
    if let Some([way, file]) = args.load_one.as_deref() {
        return super::bench_load::run_one(way, file);
    }
    if args.live || args.live_raw {
        return super::bench_live::run(args);
    }
    if args.serve {
        return super::bench_serve::run(args.objects, args.kubeconfig.as_deref(), args.serve_only);
    }
    if let Some(sizes) = &args.load {
        return super::bench_load::run(sizes, args.runs.min(9), args.load_keep.as_deref());
    }
    let runs = args.runs.max(3);
    let want = |p: BenchPart| args.part.is_empty() || args.part.contains(&p);
    println!(
        "ownerscope bench: {} objects, {W}x{H} TestBackend, median of {runs} runs{}",
        args.objects,
        if cfg!(debug_assertions) {
            " (DEBUG BUILD: use --release for real figures)"
        } else {
            ""
        }
    );
    println!("| what | median | |\n|---|---:|---|");
    let mut report = Report;
    if want(BenchPart::App) || want(BenchPart::Watch) {
        let mut app = loaded(args.objects, want(BenchPart::App), &mut report);
        let mut terminal =
            Terminal::new(TestBackend::new(W, H)).map_err(|e| CmdError(e.to_string()))?;
        runtime::fit(&mut app, Rect::new(0, 0, W, H));
        if want(BenchPart::App) {
            on_the_app(&mut app, &mut terminal, runs, &mut report);
        }
        if want(BenchPart::Watch) {
            app.update(Action::ExpandAll);
            watch_stream(&mut app, &mut terminal, &mut report);
        }
        std::mem::forget(app);
    }
    if want(BenchPart::Loop) {
        through_the_loop(args.objects, runs, &mut report)?;
    }
    if want(BenchPart::Cascade) {
        cascade_through_the_loop(args.objects, &mut report)?;
    }
    if want(BenchPart::Widget) {
        widget(args.objects, runs, &mut report)?;
    }
    if want(BenchPart::Arrival) {
        arrival::run(args.objects, &mut report)?;
    }
    Ok(())
}

/// The App on a generated cluster of `objects`, the load timed (and its
/// parts, with `parts`).
fn loaded(objects: usize, parts: bool, report: &mut Report) -> App {
    let objects = generate::cluster(objects);
    if parts {
        let t = Instant::now();
        let mut graph = crate::model::OwnershipGraph::new(KindTable::builtin());
        for o in objects.iter().cloned() {
            graph.upsert(o);
        }
        report.add(
            "load, part: the ownership graph (model)",
            t.elapsed(),
            "once".into(),
        );
        let t = Instant::now();
        black_box(ForestIndex::build(&graph));
        report.add("load, part: the forest index", t.elapsed(), "once".into());
    }
    let mut app = App::new(Options::default());
    let t = Instant::now();
    app.apply(Update::Reset {
        objects: objects.into_iter().map(Into::into).collect(),
        kinds: Box::new(KindTable::builtin()),
    });
    report.add("load: graph, index and rows", t.elapsed(), "once".into());
    let t = Instant::now();
    app.wait_for_selectors();
    report.add(
        "load: the selector index, built on a thread of its own after the rest (waited for)",
        t.elapsed(),
        "once".into(),
    );
    app
}

/// Rows, frames and keys on the App alone (no loop).
fn on_the_app(
    app: &mut App,
    terminal: &mut Terminal<TestBackend>,
    runs: usize,
    report: &mut Report,
) {
    let app = &mut *app;
    let terminal = &mut *terminal;
    let report = &mut *report;
    // Rows, built straight from the index.
    let ix = app.index().clone();
    let filters = Filters::default();
    let n_open = rows::build(&ix, &Expansion::new(true), &filters).len();
    let n_closed = rows::build(&ix, &Expansion::new(false), &filters).len();
    report.add(
        "build the row list, fully expanded",
        time(runs, || {
            black_box(rows::build(&ix, &Expansion::new(true), &filters));
        }),
        format!("{n_open} rows"),
    );
    report.add(
        "build the row list, collapsed",
        time(runs, || {
            black_box(rows::build(&ix, &Expansion::new(false), &filters));
        }),
        format!("{n_closed} rows"),
    );

    // Frames.
    app.update(Action::CollapseAll);
    report.add(
        "frame, collapsed",
        time(runs, || draw(terminal, app)),
        format!("{} rows", app.rows().len()),
    );
    app.update(Action::ExpandAll);
    report.add(
        "frame, fully expanded (top)",
        time(runs, || draw(terminal, app)),
        format!("{} rows", app.rows().len()),
    );
    for _ in 0..app.rows().len() / 2 / 47 {
        app.update(Action::PageDown);
    }
    report.add(
        "frame, fully expanded (middle)",
        time(runs, || draw(terminal, app)),
        format!("row {}", app.selected_index()),
    );

    // Keys, fully expanded.
    let many = runs * 10;
    report.add(
        "key: move down",
        key(app, many, Action::Down, None),
        "expanded".into(),
    );
    report.add(
        "key: page down",
        key(app, many, Action::PageDown, None),
        "expanded".into(),
    );
    report.add(
        "key: last row / first row",
        key(app, many, Action::Bottom, Some(Action::Top)),
        "expanded".into(),
    );
    report.add(
        "key: collapse all (rebuilds the rows)",
        key(app, runs, Action::CollapseAll, Some(Action::ExpandAll)),
        "from expanded".into(),
    );
    report.add(
        "key: expand all (rebuilds the rows)",
        key(app, runs, Action::ExpandAll, Some(Action::CollapseAll)),
        "from collapsed".into(),
    );
    app.update(Action::ExpandAll);
    app.update(Action::Top);
    app.update(Action::StartSearch);
    for c in "pod-".chars() {
        app.update(Action::Input(c));
    }
    report.add(
        "key: a search keystroke, no match (a flat scan, no walk)",
        key(app, runs, Action::Input('z'), Some(Action::Backspace)),
        "worst case".into(),
    );
    app.update(Action::Cancel);
    app.update(Action::Top);
    app.update(Action::NextTerminating);
    report.add(
        "key: next Terminating (t)",
        key(app, runs, Action::NextTerminating, None),
        "reveals hidden rows".into(),
    );
    // A search whose only match is the last object of the forest.
    let last = last_label(app);
    let (head, tail) = last.split_at(last.len().saturating_sub(1));
    app.update(Action::Top);
    app.update(Action::StartSearch);
    for c in head.chars() {
        app.update(Action::Input(c));
    }
    let tail = tail.chars().next().unwrap_or('x');
    report.add(
        "key: a search keystroke, match at the very end",
        key(app, runs, Action::Input(tail), Some(Action::Backspace)),
        "walks the forest".into(),
    );
    app.update(Action::Cancel);

    // A backend update: one pod becomes Terminating.
    let pod = app
        .graph()
        .objects()
        .find(|o| o.kind == "Pod" && !o.is_terminating())
        .cloned();
    if let Some(pod) = pod {
        let v = (0..runs)
            .map(|i| {
                let mut p = pod.clone();
                if i % 2 == 0 {
                    p.metadata.deletion_timestamp = Some(jiff::Timestamp::UNIX_EPOCH);
                }
                let t = Instant::now();
                app.apply(Update::Upsert(p.into()));
                t.elapsed()
            })
            .collect();
        report.add(
            "update: a pod becomes Terminating (index, rows, highlight)",
            median(v),
            "expanded".into(),
        );
    }

    relations_both_ways(app, runs, report);
}

/// tui-tree-widget handed the whole forest, for comparison.
fn widget(objects: usize, runs: usize, report: &mut Report) -> CmdResult {
    let mut app = App::new(Options::default());
    app.apply(Update::Reset {
        objects: generate::cluster(objects)
            .into_iter()
            .map(Into::into)
            .collect(),
        kinds: Box::new(KindTable::builtin()),
    });
    app.wait_for_selectors();
    app.update(Action::ExpandAll);
    let mut terminal =
        Terminal::new(TestBackend::new(W, H)).map_err(|e| CmdError(e.to_string()))?;
    let ix = app.index().clone();
    let (items, open) = widget_items(&ix, app.graph());
    let mut state: TreeState<String> = TreeState::default();
    for p in open {
        state.open(p);
    }
    let widget_runs = (runs / 3).max(3);
    let t_items = time(widget_runs.min(5), || {
        black_box(widget_items(&ix, app.graph()));
    });
    report.add(
        "tui-tree-widget: build items for the whole forest",
        t_items,
        "per change".into(),
    );
    report.add(
        "tui-tree-widget: frame, whole forest fully expanded",
        time(widget_runs, || {
            if let Ok(tree) = Tree::new(&items) {
                let _ = terminal.draw(|f| f.render_stateful_widget(tree, f.area(), &mut state));
            }
        }),
        format!("{} open rows", state.flatten(&items).len()),
    );
    state.close_all();
    for rk in ix.roots() {
        state.open(vec![rk.namespace.to_string()]);
    }
    report.add(
        "tui-tree-widget: frame, collapsed (namespaces open)",
        time(widget_runs, || {
            if let Ok(tree) = Tree::new(&items) {
                let _ = terminal.draw(|f| f.render_stateful_widget(tree, f.area(), &mut state));
            }
        }),
        format!("{} rows", state.flatten(&items).len()),
    );
    Ok(())
}

/// The label of the last object row: a search whose only match is the
/// forest's end.
fn last_label(app: &crate::app::App) -> String {
    app.rows()
        .iter()
        .rev()
        .find_map(|r| r.id())
        .map(|id| app.index().label(id).to_string())
        .unwrap_or_default()
}
