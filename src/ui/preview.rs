//! The delete preview as a small tree (tui-tree-widget): what will be
//! deleted, wave by wave, what orphaned or kept, and what will be left
//! Terminating and on what it waits.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::StatefulWidget;
use tui_tree_widget::{Tree, TreeItem, TreeState};

use super::{theme, tree};
use crate::model::preview::{Outcome, Plan, PlanEntry, Wait};

type Item = TreeItem<'static, String>;

fn leaf(id: String, line: Line<'static>) -> Item {
    TreeItem::new_leaf(id, line)
}

fn node(id: String, line: Line<'static>, children: Vec<Item>) -> Item {
    // Identifiers are unique by construction; fall back to a leaf anyway.
    TreeItem::new(id.clone(), line.clone(), children).unwrap_or_else(|_| leaf(id, line))
}

fn who(e: &PlanEntry) -> Line<'static> {
    Line::from(vec![
        Span::styled(e.object.kind.clone(), theme::KIND),
        Span::raw(format!("/{}", e.object.name)),
    ])
}

/// Outcome classes in the order they are shown.
fn class(o: &Outcome) -> (u32, String) {
    match o {
        Outcome::Deleted { wave: 0 } => (0, "deleted now".into()),
        Outcome::Deleted { wave } => (*wave, format!("deleted after {wave} round(s) of the GC")),
        Outcome::Orphaned { .. } => (
            u32::MAX - 3,
            "orphaned: keep running, lose the reference".into(),
        ),
        Outcome::KeptByOtherOwner { .. } | Outcome::NeverCollected { .. } => {
            (u32::MAX - 2, "kept".into())
        }
        Outcome::Waiting { .. } => (u32::MAX - 1, "left Terminating, waiting".into()),
    }
}

/// The preview's items: one group per outcome class.
#[must_use]
pub fn items(plan: &Plan) -> Vec<Item> {
    let mut classes: Vec<(u32, String, Vec<&PlanEntry>)> = Vec::new();
    for e in &plan.entries {
        let (rank, label) = class(&e.outcome);
        match classes.iter_mut().find(|c| c.0 == rank) {
            Some(c) => c.2.push(e),
            None => classes.push((rank, label, vec![e])),
        }
    }
    classes.sort_by_key(|c| c.0);
    classes
        .into_iter()
        .enumerate()
        .map(|(gi, (rank, label, entries))| {
            let style = if rank == u32::MAX - 1 {
                theme::BAD
            } else if rank >= u32::MAX - 3 {
                theme::WARN
            } else {
                theme::HEADING
            };
            let children = entries
                .iter()
                .enumerate()
                .map(|(ei, e)| entry(format!("g{gi}e{ei}"), e))
                .collect();
            node(
                format!("g{gi}"),
                Line::from(Span::styled(format!("{label} ({})", entries.len()), style)),
                children,
            )
        })
        .collect()
}

fn entry(id: String, e: &PlanEntry) -> Item {
    let details: Vec<String> = match &e.outcome {
        Outcome::Deleted { .. } => Vec::new(),
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
        Outcome::Waiting { on } => on
            .iter()
            .map(|w| format!("waits on {}", wait_text(w)))
            .collect(),
    };
    if details.is_empty() {
        return leaf(id, who(e));
    }
    let kids = details
        .into_iter()
        .enumerate()
        .map(|(i, d)| leaf(format!("{id}d{i}"), Line::from(Span::styled(d, theme::DIM))))
        .collect();
    node(id, who(e), kids)
}

fn wait_text(w: &Wait) -> String {
    match w {
        Wait::Finalizer { removed_by, .. } => format!("{} - removed by {removed_by}", w.text()),
        _ => w.text(),
    }
}

/// Draws the preview tree, every node open, scrolled by `scroll` lines.
pub fn render(plan: &Plan, frame: &mut Frame, area: Rect, scroll: u16) {
    let items = items(plan);
    let mut state = TreeState::default();
    for (gi, g) in items.iter().enumerate() {
        state.open(vec![format!("g{gi}")]);
        for ei in 0..g.children().len() {
            state.open(vec![format!("g{gi}"), format!("g{gi}e{ei}")]);
        }
    }
    let Ok(widget) = Tree::new(&items) else {
        return;
    };
    let widget = widget
        .node_open_symbol(tree::OPEN)
        .node_closed_symbol(tree::CLOSED)
        .node_no_children_symbol(tree::LEAF);
    if scroll > 0 {
        // The widget learns its length while drawing: draw once aside,
        // then scroll.
        let mut scratch = Buffer::empty(area);
        StatefulWidget::render(widget.clone(), area, &mut scratch, &mut state);
        state.scroll_down(usize::from(scroll));
    }
    frame.render_stateful_widget(widget, area, &mut state);
}
