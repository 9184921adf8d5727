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
fn class(o: &Outcome) -> (u32, String) {
    match o {
        Outcome::Waiting { .. } => (0, "left Terminating, waiting".into()),
        Outcome::Parked { .. } => (
            1,
            "waiting behind an owner left Terminating (its own finalizer)".into(),
        ),
        Outcome::Unsure { .. } => (
            2,
            "deleted unless an unseen dependent blocks it (partial view)".into(),
        ),
        Outcome::Deleted { wave: 0 } => (3, "deleted now".into()),
        Outcome::Deleted { wave } => (wave.saturating_add(3), format!("deleted in wave {wave}")),
        Outcome::Orphaned { .. } => (
            u32::MAX - 1,
            "orphaned: keep running, lose the reference".into(),
        ),
        Outcome::Adopted { .. } => (
            u32::MAX - 2,
            "orphaned, then adopted by the re-created owner".into(),
        ),
        Outcome::KeptByOtherOwner { .. } | Outcome::NeverCollected { .. } => {
            (u32::MAX, "kept".into())
        }
    }
}

/// The preview's items: one group per outcome class.
#[must_use]
pub fn items(plan: &Plan) -> Vec<Node> {
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
        .map(|(rank, label, entries)| {
            let style = match rank {
                0 | 1 => theme::BAD,
                r if r >= u32::MAX - 1 => theme::WARN,
                _ => theme::HEADING,
            };
            let children = entries.iter().map(|e| entry(e)).collect();
            small_tree::node(
                Line::from(Span::styled(format!("{label} ({})", entries.len()), style)),
                children,
            )
        })
        .collect()
}

fn entry(e: &PlanEntry) -> Node {
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
    if details.is_empty() {
        return small_tree::leaf(who(e));
    }
    let kids = details
        .into_iter()
        .map(|d| small_tree::leaf(Line::from(Span::styled(d, theme::DIM))))
        .collect();
    small_tree::node(who(e), kids)
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
        Wait::Finalizer { removed_by, .. } => format!("{} - removed by {removed_by}", w.text()),
        _ => w.text(),
    }
}
