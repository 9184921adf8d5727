//! The delete preview as a small tree: what will be left Terminating and
//! on what it waits, what will be deleted wave by wave, what orphaned or
//! kept.

use ratatui::text::{Line, Span};

use super::small_tree::{self, Node};
use super::theme;
use crate::model::preview::{Outcome, Plan, PlanEntry, Wait};

fn who(e: &PlanEntry) -> Line<'static> {
    Line::from(vec![
        Span::styled(e.object.kind().to_string(), theme::KIND),
        Span::raw(format!("/{}", e.object.name())),
    ])
}

/// Outcome classes in the order shown: what gets stuck first (the thing
/// to know before confirming), then the deletions in order.
/// (Ranked for every entry, labelled once a class: a label made for each
/// of a 100k cascade's entries was most of a frame of the dialog.)
fn rank(o: &Outcome) -> u32 {
    match o {
        Outcome::Waiting { .. } => 0,
        Outcome::Parked { .. } => 1,
        Outcome::Unsure { .. } => 2,
        Outcome::Deleted { wave } => wave.saturating_add(3),
        Outcome::Orphaned { .. } => u32::MAX - 1,
        Outcome::Adopted { .. } => u32::MAX - 2,
        Outcome::KeptByOtherOwner { .. } | Outcome::NeverCollected { .. } => u32::MAX,
    }
}

/// The heading of an outcome's class.
fn label(o: &Outcome) -> String {
    match o {
        Outcome::Waiting { .. } => "left Terminating, waiting".into(),
        Outcome::Parked { .. } => "waiting behind an owner its own finalizer holds".into(),
        Outcome::Unsure { .. } => {
            "deleted unless an unseen dependent blocks it (partial view)".into()
        }
        Outcome::Deleted { wave: 0 } => "deleted now".into(),
        Outcome::Deleted { wave } => format!("deleted in wave {wave}"),
        Outcome::Orphaned { .. } => "orphaned: they stay, without the reference".into(),
        Outcome::Adopted { .. } => "orphaned, then adopted by the re-created owner".into(),
        Outcome::KeptByOtherOwner { .. } | Outcome::NeverCollected { .. } => "kept".into(),
    }
}

/// The whole preview: one group per outcome class.
#[must_use]
pub fn items(plan: &Plan) -> Vec<Node> {
    window(plan, 0, usize::MAX).nodes
}

/// What the delete dialog draws of a preview ([`window`]).
#[derive(Clone, Debug, Default)]
pub struct Window {
    /// The items drawn and what they hang under, every node open.
    pub nodes: Vec<Node>,
    /// Where the drawing starts among `nodes`, in items.
    pub scroll: u16,
    /// Items in the whole preview, every node open.
    pub len: usize,
}

/// The preview as one group per outcome class, scrolled by `scroll` items
/// (every node open, counted as tui-tree-widget counts them, and clamped
/// as it clamps): only the items that can show in `rows` rows from there
/// are made, with the groups and entries they hang under; the whole
/// preview when it is shorter than `rows` items. A 100k-object cascade
/// is drawn without making 100k entries a frame.
#[must_use]
pub fn window(plan: &Plan, scroll: u16, rows: usize) -> Window {
    let mut classes: Vec<(u32, String, Vec<&PlanEntry>)> = Vec::new();
    for e in &plan.entries {
        let rank = rank(&e.outcome);
        match classes.iter_mut().find(|c| c.0 == rank) {
            Some(c) => c.2.push(e),
            None => classes.push((rank, label(&e.outcome), vec![e])),
        }
    }
    classes.sort_by_key(|c| c.0);
    // Each entry's items: itself and its details.
    let sizes: Vec<Vec<usize>> = classes
        .iter()
        .map(|c| c.2.iter().map(|e| 1 + detail_count(e)).collect())
        .collect();
    let len: usize = sizes.iter().map(|s| 1 + s.iter().sum::<usize>()).sum();
    let skip = usize::from(scroll).min(len.saturating_sub(1));
    let (from, end) = if len <= rows {
        (0, len)
    } else {
        (skip, skip + rows.max(1))
    };
    // Kept items before `skip`: where the drawing starts among them.
    let mut before = 0;
    let mut at = 0;
    let mut nodes = Vec::new();
    for ((rank, label, entries), sizes) in classes.into_iter().zip(sizes) {
        let start = at;
        at += 1 + sizes.iter().sum::<usize>();
        if at <= from || start >= end {
            continue;
        }
        before += usize::from(start < skip);
        let mut children = Vec::new();
        let mut i = start + 1;
        for (e, size) in entries.iter().zip(sizes) {
            let (s, t) = (i, i + size);
            i = t;
            if t <= from {
                continue;
            }
            // A group keeps one entry past the window: drawn open.
            if s >= end && !children.is_empty() {
                break;
            }
            before += skip.min(t).saturating_sub(s);
            children.push(entry(e));
        }
        let style = match rank {
            0 | 1 => theme::BAD,
            r if r >= u32::MAX - 1 => theme::WARN,
            _ => theme::HEADING,
        };
        nodes.push(small_tree::node(
            Line::from(Span::styled(format!("{label} ({})", entries.len()), style)),
            children,
        ));
    }
    Window {
        nodes,
        scroll: u16::try_from(before).unwrap_or(u16::MAX),
        len,
    }
}

/// How many detail lines an entry has, made only where they are not
/// plain: a deletion has none but what follows it.
fn detail_count(e: &PlanEntry) -> usize {
    match e.outcome {
        Outcome::Deleted { .. } => usize::from(e.then.is_some()),
        _ => details(e).len(),
    }
}

fn entry(e: &PlanEntry) -> Node {
    let details = details(e);
    if details.is_empty() {
        return small_tree::leaf(who(e));
    }
    let kids = details
        .into_iter()
        .map(|d| small_tree::leaf(Line::from(Span::styled(d, theme::DIM))))
        .collect();
    small_tree::node(who(e), kids)
}

/// The lines under an entry: what happens to it, then what follows.
fn details(e: &PlanEntry) -> Vec<String> {
    let mut details: Vec<String> = match &e.outcome {
        Outcome::Deleted { .. } => Vec::new(),
        Outcome::Adopted {
            references_removed,
            by,
        } => vec![format!(
            "loses its reference to {}, then adopted by {by}",
            references_removed.join(", ")
        )],
        Outcome::Orphaned { references_removed } => {
            vec![format!(
                "loses its reference to {}",
                references_removed.join(", ")
            )]
        }
        Outcome::KeptByOtherOwner {
            owners,
            references_removed,
        } => vec![format!(
            "still owned by {}; loses its reference to {}",
            owners.join(", "),
            references_removed.join(", ")
        )],
        Outcome::NeverCollected { reason } => vec![reason.clone()],
        o @ Outcome::Parked { .. } => vec![o.parked_text()],
        Outcome::Unsure { unless, .. } => vec![unless.clone()],
        Outcome::Waiting { on } => on
            .iter()
            .map(|w| format!("waits on {}", wait_text(w)))
            .collect(),
    };
    details.extend(e.then.clone());
    details
}

/// What a wait is on, and who acts next.
fn wait_text(w: &Wait) -> String {
    match w {
        // Its controller is known to be offline: who would remove it, and
        // "stuck if it is not running", would only say it again.
        Wait::Finalizer {
            controller_online: Some(false),
            ..
        } => format!(
            "{}: nothing removes it until that controller is back (c)",
            w.text()
        ),
        // Online: the wait is short, and "(stuck if it is not running)"
        // would guess what is known.
        Wait::Finalizer {
            name,
            controller_online: Some(true),
            ..
        } => format!(
            "{} - removed by {}",
            w.text(),
            crate::model::finalizers::describe(name).removed_by_alone()
        ),
        // Whether anything runs to remove it is not known: who would, and
        // when it stays.
        Wait::Finalizer {
            name, removed_by, ..
        } => format!("finalizer {name} - removed by {removed_by}"),
        _ => w.text(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::buffer::Buffer;

    use super::*;
    use crate::model::{KindTable, Object, OwnershipGraph, Policy, preview};

    /// A Deployment > 3 ReplicaSets > 4 pods each, one pod held by a
    /// finalizer: a Foreground delete leaves owners waiting (entries with
    /// details) and deletes the rest in waves.
    fn plan() -> Plan {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        let d = Object::new("apps/v1", "Deployment", Some("a"), "web");
        let mut d = d;
        d.metadata.uid = "d".into();
        for r in 0..3 {
            let mut rs = Object::new("apps/v1", "ReplicaSet", Some("a"), &format!("web-{r}"));
            rs.metadata.uid = format!("r{r}");
            rs.metadata
                .owner_references
                .push(d.reference(Some(true), Some(true)));
            for p in 0..4 {
                let mut pod = Object::new("v1", "Pod", Some("a"), &format!("web-{r}-{p}"));
                pod.metadata.uid = format!("p{r}{p}");
                pod.metadata
                    .owner_references
                    .push(rs.reference(Some(true), Some(true)));
                if r == 1 && p == 2 {
                    pod.metadata.finalizers.push("example.com/hold".into());
                }
                g.upsert(pod);
            }
            g.upsert(rs);
        }
        g.upsert(d);
        preview::plan_with(&g, "d", Some(Policy::Foreground), &BTreeMap::new(), false)
    }

    fn drawn(w: &Window, height: u16) -> Buffer {
        let mut t = Terminal::new(TestBackend::new(50, height)).expect("terminal");
        t.draw(|f| small_tree::render(&w.nodes, f, f.area(), w.scroll))
            .expect("drawn");
        t.backend().buffer().clone()
    }

    /// At every scroll, the window draws what the whole preview draws
    /// when tui-tree-widget is handed all of it.
    #[test]
    fn a_window_draws_what_the_whole_preview_draws() {
        let plan = plan();
        let whole = window(&plan, 0, usize::MAX);
        assert!(whole.len > 20, "a preview longer than the screens below");
        for height in [1u16, 4, 9] {
            for scroll in 0..u16::try_from(whole.len + 3).expect("small") {
                // As the dialog drew it before: every entry made, the
                // widget scrolling (and clamping) by itself.
                let all = Window {
                    nodes: items(&plan),
                    scroll,
                    len: whole.len,
                };
                let part = window(&plan, scroll, usize::from(height));
                assert_eq!(part.len, all.len);
                assert!(
                    small_tree::rows(&part.nodes, 50) < small_tree::rows(&all.nodes, 50),
                    "only part of it is made"
                );
                assert_eq!(
                    drawn(&part, height),
                    drawn(&all, height),
                    "scrolled by {scroll} in {height} rows"
                );
            }
        }
    }
}
