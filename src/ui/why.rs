//! "Why is this still here?": the diagnosis of the selected object, as the
//! head of the details pane (the answer, what it holds up, what to press)
//! and its blocker chain as a small tree.

use std::collections::{BTreeMap, BTreeSet};

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::small_tree::{self, Node};
use super::theme;
use crate::app::App;
use crate::model::Object;
use crate::model::diagnosis::{Blocker, Diagnosis, Fate, FinalizerStatus};

/// Finalizers whose simulated controller is offline, here, anywhere down
/// the blocker chain, or on what is left in a Terminating namespace.
#[must_use]
pub fn offline_controllers(
    why: &Diagnosis,
    controllers: &BTreeMap<String, bool>,
) -> BTreeSet<String> {
    fn walk(bs: &[Blocker], out: &mut BTreeSet<String>) {
        for b in bs {
            add(&b.finalizers, out);
            walk(&b.blocked_by, out);
        }
    }
    fn add(fs: &[FinalizerStatus], out: &mut BTreeSet<String>) {
        out.extend(
            fs.iter()
                .filter(|f| f.controller_online == Some(false))
                .map(|f| f.info.name.clone()),
        );
    }
    let mut out = BTreeSet::new();
    add(&why.finalizers, &mut out);
    walk(&why.blockers, &mut out);
    if let Some(ns) = &why.namespace {
        out.extend(
            ns.remaining_by_finalizer
                .keys()
                .filter(|f| controllers.get(*f) == Some(&false))
                .cloned(),
        );
    }
    out
}

/// The head of the details pane.
#[must_use]
pub fn header<'a>(app: &App, obj: &'a Object, why: &Diagnosis) -> Vec<Line<'a>> {
    let mut out = vec![Line::from(vec![
        Span::styled(obj.kind.clone(), theme::KIND),
        Span::raw(format!(" {}", obj.name())),
        Span::styled(
            obj.namespace()
                .map(|n| format!("  -n {n}"))
                .unwrap_or_else(|| "  (cluster-scoped)".into()),
            theme::DIM,
        ),
    ])];
    out.push(Line::from(Span::styled(
        "Why is this still here?",
        theme::HEADING,
    )));
    let style = match &why.fate {
        Fate::Terminating => theme::BAD,
        Fate::NeverCollected { .. } | Fate::WillBeCollected { .. } | Fate::Unknown { .. } => {
            theme::WARN
        }
        _ => Style::new(),
    };
    out.push(Line::from(vec![
        Span::raw("  "),
        Span::styled(why.headline(), style),
    ]));
    for c in why.causes.iter().skip(1) {
        out.push(Line::from(vec![
            Span::raw("  - "),
            Span::styled(c.clone(), style),
        ]));
    }
    if !why.blocks.is_empty() {
        out.push(Line::from(Span::styled(
            format!(
                "  It holds up the foreground deletion of {}",
                why.blocks.join(", ")
            ),
            theme::WARN,
        )));
    }
    if !why.releasing.is_empty() {
        out.push(Line::from(format!(
            "  Orphaning: still releasing {}",
            why.releasing.join(", ")
        )));
    }
    if let Some(g) = why.grace_left {
        out.push(Line::from(format!("  Grace period: {g}s left")));
    }
    let offline = offline_controllers(why, app.controllers());
    if app.is_simulator() && obj.is_terminating() && !offline.is_empty() {
        let names: Vec<&str> = offline.iter().map(String::as_str).collect();
        out.push(Line::from(vec![
            Span::styled("  ▶ c", theme::KEY),
            Span::raw(format!(
                ": bring the controller of {} online",
                names.join(", ")
            )),
        ]));
    }
    let own = obj
        .metadata
        .finalizers
        .iter()
        .any(|f| f != crate::model::FOREGROUND && f != crate::model::ORPHAN);
    let blocker = why
        .held_by()
        .map(|(b, _)| b)
        .or_else(|| why.blockers.first().map(|b| b.object.clone()));
    if obj.is_terminating()
        && let Some(b) = &blocker
    {
        out.push(Line::from(vec![
            Span::styled("  ▶ b", theme::KEY),
            Span::raw(format!(
                ": go to {}/{}, which holds this up",
                b.kind, b.name
            )),
        ]));
    }
    // A webhook that fails closed refuses that UPDATE too: said, so the
    // fix it offers is not read as one.
    let refused = why.webhooks.iter().any(|h| h.backend.is_down());
    if obj.is_terminating() && !app.read_only() {
        if own && refused {
            out.push(Line::from(vec![
                Span::styled("  ▶ F", theme::KEY),
                Span::raw(
                    ": remove a finalizer by hand: refused too, until the webhook above answers",
                ),
            ]));
        } else if own {
            out.push(Line::from(vec![
                Span::styled("  ▶ F", theme::KEY),
                Span::raw(": remove a finalizer by hand (skips its cleanup)"),
            ]));
        } else if let Some((b, f)) = why.held_by() {
            out.push(Line::from(vec![
                Span::styled("  ▶ F", theme::KEY),
                Span::raw(format!(
                    ": remove {f} from {}/{} (skips its cleanup)",
                    b.kind, b.name
                )),
            ]));
        }
    }
    if !why.blockers.is_empty() {
        out.push(Line::from(Span::styled(
            format!(
                "Waiting on {}:",
                crate::model::wording::count(why.blockers.len(), "blocking dependent")
            ),
            theme::HEADING,
        )));
    }
    out
}

/// The blocker chain: what a foreground deletion waits on, down to what
/// holds each of them.
#[must_use]
pub fn blocker_items(why: &Diagnosis) -> Vec<Node> {
    let mut items: Vec<Node> = why.blockers.iter().map(blocker).collect();
    if why.more_blockers > 0 {
        items.push(small_tree::leaf(more_line(why.more_blockers)));
    }
    items
}

/// The blockers not listed (the most telling ones are).
fn more_line(n: usize) -> Line<'static> {
    Line::from(Span::styled(
        format!(
            "… and {n} more blocking {}",
            crate::model::wording::noun(n, "dependent")
        ),
        theme::DIM,
    ))
}

fn blocker(b: &Blocker) -> Node {
    let mut kids: Vec<(Line<'static>, Option<&Blocker>)> = Vec::new();
    for f in &b.finalizers {
        let (who, style) = match f.controller_online {
            Some(true) => (
                "its controller is online and will remove it".to_string(),
                theme::GOOD,
            ),
            Some(false) => (
                "its controller is OFFLINE: nothing removes it".to_string(),
                theme::BAD,
            ),
            None => (format!("removed by {}", f.info.removed_by), theme::DIM),
        };
        kids.push((
            Line::from(vec![
                Span::raw("finalizer "),
                Span::styled(f.info.name.clone(), theme::WARN),
                Span::styled(format!(": {who}"), style),
            ]),
            None,
        ));
    }
    if let Some(g) = b.grace_left {
        kids.push((Line::from(format!("grace period: {g}s left")), None));
    }
    if !b.other_owners.is_empty() {
        kids.push((
            Line::from(format!("also owned by {}", b.other_owners.join(", "))),
            None,
        ));
    }
    for c in &b.blocked_by {
        kids.push((Line::default(), Some(c)));
    }
    if b.more > 0 {
        kids.push((more_line(b.more), None));
    }
    let label = Line::from(vec![
        Span::styled(b.object.kind.clone(), theme::KIND),
        Span::raw(format!("/{}", b.object.name)),
        Span::styled(format!(": {}", b.state), theme::BAD),
    ]);
    let children: Vec<Node> = kids
        .into_iter()
        .map(|(line, nested)| match nested {
            Some(n) => blocker(n),
            None => small_tree::leaf(line),
        })
        .collect();
    small_tree::node(label, children)
}

/// A Terminating namespace: phase, conditions, what is left and what
/// holds it.
#[must_use]
pub fn namespace_lines(why: &Diagnosis) -> Vec<Line<'static>> {
    let Some(ns) = &why.namespace else {
        return Vec::new();
    };
    let mut out = vec![Line::from(Span::styled(
        format!(
            "Namespace: phase {}, spec.finalizers [{}]",
            ns.phase,
            ns.spec_finalizers.join(", ")
        ),
        theme::HEADING,
    ))];
    for c in &ns.conditions {
        out.push(Line::from(format!(
            "  {}={} {}: {}",
            c.kind, c.status, c.reason, c.message
        )));
    }
    if ns.remaining.is_empty() && why.partial.is_partial() {
        out.push(Line::from(
            "  no content seen (some of it cannot be listed)",
        ));
    } else if ns.remaining.is_empty() {
        out.push(Line::from("  no content left"));
    } else {
        out.push(Line::from(format!(
            "  remaining content ({}): {}",
            ns.remaining.len(),
            ns.remaining.join(", ")
        )));
    }
    for (f, objs) in &ns.remaining_by_finalizer {
        out.push(Line::from(format!(
            "  held by finalizer {f}: {}",
            objs.join(", ")
        )));
    }
    out
}

#[cfg(test)]
mod webhook_tests {
    use std::time::Duration;

    use crate::tools::session::{Session, words};

    /// A webhook that fails closed refuses the UPDATE that removes a
    /// finalizer by hand as well: F is not offered as the way out.
    #[test]
    fn f_is_said_refused_while_a_webhook_refuses_the_update() {
        let mut s = Session::new("webhook-blocks-finalizer", 160, 48, false).expect("bundled");
        s.keys("<Space>");
        s.wait(Duration::from_secs(5));
        s.keys("/backup<Enter>");
        let screen = words(&s.screen());
        assert!(
            screen.contains(
                "▶ F: remove a finalizer by hand: refused too, until the webhook above answers"
            ),
            "{screen}"
        );
        assert!(!screen.contains("(skips its cleanup)"), "{screen}");
    }
}
