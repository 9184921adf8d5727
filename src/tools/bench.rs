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
use crate::app::index::ForestIndex;
use crate::app::rows::{self, Expansion, Filters};
use crate::app::{Action, App, Options};
use crate::backend::Update;
use crate::cli::BenchArgs;
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
        let mut path = vec![rk.namespace.clone()];
        let it = item(ix, graph, &rk.uid, &mut path, &mut open, 0);
        groups.entry(rk.namespace.clone()).or_default().push(it);
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
    if let Some(sizes) = &args.load {
        return super::bench_load::run(sizes, args.runs.min(9), args.load_keep.as_deref());
    }
    let runs = args.runs.max(3);
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
    let objects = generate::cluster(args.objects);
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
    drop(graph);
    let mut app = App::new(Options::default());
    let t = Instant::now();
    app.apply(Update::Reset {
        objects: objects.into_iter().map(Into::into).collect(),
        kinds: KindTable::builtin(),
    });
    report.add("load: graph, index and rows", t.elapsed(), "once".into());
    let mut terminal =
        Terminal::new(TestBackend::new(W, H)).map_err(|e| CmdError(e.to_string()))?;
    runtime::fit(&mut app, Rect::new(0, 0, W, H));

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
        time(runs, || draw(&mut terminal, &app)),
        format!("{} rows", app.rows().len()),
    );
    app.update(Action::ExpandAll);
    report.add(
        "frame, fully expanded (top)",
        time(runs, || draw(&mut terminal, &app)),
        format!("{} rows", app.rows().len()),
    );
    for _ in 0..app.rows().len() / 2 / 47 {
        app.update(Action::PageDown);
    }
    report.add(
        "frame, fully expanded (middle)",
        time(runs, || draw(&mut terminal, &app)),
        format!("row {}", app.selected_index()),
    );

    // Keys, fully expanded.
    let many = runs * 10;
    report.add(
        "key: move down",
        key(&mut app, many, Action::Down, None),
        "expanded".into(),
    );
    report.add(
        "key: page down",
        key(&mut app, many, Action::PageDown, None),
        "expanded".into(),
    );
    report.add(
        "key: last row / first row",
        key(&mut app, many, Action::Bottom, Some(Action::Top)),
        "expanded".into(),
    );
    report.add(
        "key: collapse all (rebuilds the rows)",
        key(&mut app, runs, Action::CollapseAll, Some(Action::ExpandAll)),
        "from expanded".into(),
    );
    report.add(
        "key: expand all (rebuilds the rows)",
        key(&mut app, runs, Action::ExpandAll, Some(Action::CollapseAll)),
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
        key(&mut app, runs, Action::Input('z'), Some(Action::Backspace)),
        "worst case".into(),
    );
    app.update(Action::Cancel);
    app.update(Action::Top);
    app.update(Action::NextTerminating);
    report.add(
        "key: next Terminating (t)",
        key(&mut app, runs, Action::NextTerminating, None),
        "reveals hidden rows".into(),
    );
    // A search whose only match is the last object of the forest.
    let last = app
        .rows()
        .iter()
        .rev()
        .find_map(|r| r.id())
        .map(|id| app.index().label(id).to_string())
        .unwrap_or_default();
    let (head, tail) = last.split_at(last.len().saturating_sub(1));
    app.update(Action::Top);
    app.update(Action::StartSearch);
    for c in head.chars() {
        app.update(Action::Input(c));
    }
    let tail = tail.chars().next().unwrap_or('x');
    report.add(
        "key: a search keystroke, match at the very end",
        key(&mut app, runs, Action::Input(tail), Some(Action::Backspace)),
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

    // tui-tree-widget handed the whole forest, for comparison.
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
        state.open(vec![rk.namespace.clone()]);
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
