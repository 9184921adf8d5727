//! The details of the selected object: identity, timestamps, why it is
//! still here, each finalizer with its meaning and who removes it, each
//! owner reference with its flags and whether it resolves, its dependents
//! and its events.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{relations, small_tree, theme, why, wrap};
use crate::app::{App, RowNode};
use crate::model::badges::human_duration;
use crate::model::finalizers;
use crate::model::{Object, RefStatus};

/// Draws the details pane. `tabs`: the narrow layout, where this pane
/// shares its place with the timeline.
pub fn render(app: &App, frame: &mut Frame, area: Rect, tabs: bool) {
    let mut title = vec![Span::styled(" Details ", theme::TITLE)];
    title.push(Span::styled(
        "· [/] scroll · d describe · y YAML ",
        theme::DIM,
    ));
    if tabs {
        title.push(Span::styled("· Tab: timeline ", theme::DIM));
    }
    let inner = super::layout::pane(frame, area, title);
    frame.render_widget(
        Paragraph::new(full(app, inner.width)).scroll((app.details_scroll(), 0)),
        inner,
    );
}

/// Every line of the details of the selected object, wrapped to `width`:
/// the answer to "why is it still here?" first, then its blocker chain (a
/// small tree), then the rest; nothing is cut. The pane and the describe
/// view (`d`) show the same.
#[must_use]
pub fn full(app: &App, width: u16) -> Vec<Line<'_>> {
    let (Some(obj), Some(why)) = (app.selected_object(), app.why()) else {
        return wrap::wrap_lines(&lines(app), usize::from(width));
    };
    let mut all = wrap::wrap_lines(&why::header(app, obj, why), usize::from(width));
    all.extend(small_tree::lines(&why::blocker_items(why), width));
    all.extend(wrap::wrap_lines(
        &object_lines(app, obj),
        usize::from(width),
    ));
    all
}

fn kv<'a>(k: &'a str, v: impl Into<String>) -> Line<'a> {
    Line::from(vec![
        Span::styled(format!("{k:<11}"), theme::DIM),
        Span::raw(v.into()),
    ])
}

fn heading(text: impl Into<String>) -> Line<'static> {
    Line::from(Span::styled(text.into(), theme::HEADING))
}

/// The pane's lines for the current selection.
#[must_use]
pub fn lines(app: &App) -> Vec<Line<'_>> {
    let Some(row) = app.selected_row() else {
        return vec![Line::from("nothing selected")];
    };
    match &row.node {
        RowNode::Group { namespace, roots } => {
            let what = namespace
                .as_deref()
                .map_or("cluster-scoped objects".to_string(), |n| {
                    format!("namespace {n}")
                });
            vec![
                Line::from(Span::styled(what, theme::GROUP)),
                Line::from(format!(
                    "{} without an owner (roots) here.",
                    crate::model::wording::count(*roots as usize, "object")
                )),
                Line::from(Span::styled(
                    "Enter or ←/→ to collapse or expand; e/z for everything below.",
                    theme::DIM,
                )),
            ]
        }
        RowNode::Ghost { object } => {
            let mut out = vec![
                Line::from(vec![
                    Span::styled(object.kind.clone(), theme::KIND),
                    Span::raw(format!(" {}", object.name)),
                ]),
                Line::from(Span::styled(
                    "deleted: it is gone from the API server",
                    theme::BAD,
                )),
            ];
            out.extend(events(app, &object.uid, false));
            out
        }
        RowNode::Object { .. } => vec![Line::from("gone")],
    }
}

fn object_lines<'a>(app: &'a App, obj: &'a Object) -> Vec<Line<'a>> {
    let now = app.now();
    let mut out = vec![kv("apiVersion", obj.api_version.clone())];
    out.push(kv(
        "namespace",
        obj.namespace().unwrap_or("(cluster-scoped)").to_string(),
    ));
    out.push(kv("uid", obj.uid().to_string()));
    if let Some(c) = obj.metadata.creation_timestamp {
        // A clock behind the object's: `(in 1s)`, never `(in 1s ago)`.
        let age = crate::model::badges::relative(now.duration_since(c).as_secs());
        out.push(kv("created", format!("{c} ({age})")));
    }
    if let Some(d) = obj.metadata.deletion_timestamp {
        let secs = now.duration_since(d).as_secs();
        let when = if secs < 0 {
            format!("{d} (grace period ends in {})", human_duration(-secs))
        } else {
            format!("{d} (Terminating for {})", human_duration(secs))
        };
        out.push(Line::from(vec![
            Span::styled(format!("{:<11}", "deleting"), theme::DIM),
            Span::styled(when, theme::BAD),
        ]));
    }
    out.push(Line::default());
    if let Some(w) = app.why() {
        out.extend(why::namespace_lines(w));
    }
    out.extend(finalizer_lines(app, obj));
    out.extend(owner_lines(app, obj));
    out.extend(dependent_lines(app, obj));
    out.extend(relations::selector_lines(app, obj));
    out.extend(relations::label_lines(obj));
    out.extend(relations::annotation_lines(obj));
    out.extend(events(app, obj.uid(), true));
    out
}

fn finalizer_lines<'a>(app: &'a App, obj: &'a Object) -> Vec<Line<'a>> {
    let fins = &obj.metadata.finalizers;
    if fins.is_empty() {
        return vec![heading("Finalizers: none")];
    }
    let mut out = vec![heading(format!("Finalizers ({})", fins.len()))];
    for f in fins {
        let info = finalizers::describe(f);
        let mut first = vec![Span::raw("• "), Span::styled(f.clone(), theme::WARN)];
        match app.controllers().get(f) {
            Some(false) => {
                first.push(Span::styled("  controller OFFLINE", theme::BAD));
                // Only where it holds something up: a finalizer acts once
                // the object is deleted.
                if obj.is_terminating() {
                    first.push(Span::styled(" (c: bring it online)", theme::DIM));
                }
            }
            Some(true) => first.push(Span::styled("  controller online", theme::GOOD)),
            None => {}
        }
        out.push(Line::from(first));
        out.push(Line::from(vec![
            Span::styled("  means      ", theme::DIM),
            Span::raw(info.meaning.clone()),
        ]));
        // Whether its controller runs is said above (the flag, or the
        // why's cause): the catalogue's "(stuck if ...)" would only guess.
        let known = app.controllers().contains_key(f)
            || app
                .why()
                .is_some_and(|w| w.object.uid == obj.uid() && w.says_if_remover_runs(f));
        out.push(Line::from(vec![
            Span::styled("  removed by ", theme::DIM),
            Span::raw(info.removed_by_where(known).to_string()),
        ]));
    }
    out
}

fn owner_lines<'a>(app: &'a App, obj: &'a Object) -> Vec<Line<'a>> {
    let owners = app.graph().owners(obj.uid());
    if owners.is_empty() {
        return vec![heading("Owner references: none (a root)")];
    }
    let mut out = vec![heading(format!("Owner references ({})", owners.len()))];
    for (r, status) in owners {
        let mut flags = Vec::new();
        if r.is_controller() {
            flags.push("controller");
        }
        if r.blocks() {
            flags.push("blockOwnerDeletion");
        }
        let (mark, style, what) = match &status {
            RefStatus::Resolves { .. } => ("→", theme::GOOD, "resolves".to_string()),
            RefStatus::OwnerAbsent => ("✗", theme::BAD, "owner gone".to_string()),
            RefStatus::UidMismatch { found } => (
                "✗",
                theme::BAD,
                format!("uid mismatch: that name now has uid {found}"),
            ),
            RefStatus::CrossNamespace { owner_namespace } => (
                "✗",
                theme::BAD,
                format!("cross-namespace: the owner is in {owner_namespace}"),
            ),
            RefStatus::Unresolvable => (
                "✗",
                theme::BAD,
                "unresolvable: a cluster-scoped object cannot have a namespaced owner".to_string(),
            ),
            RefStatus::UnknownKind => ("?", theme::WARN, "unknown kind".to_string()),
            RefStatus::Unmappable { api_version } => (
                "✗",
                theme::BAD,
                format!("unmappable: the server does not serve {api_version}; never collected"),
            ),
            RefStatus::Unverified { resource, reason } => (
                "?",
                theme::WARN,
                format!("unverified: you cannot list {resource} ({reason})"),
            ),
        };
        out.push(Line::from(vec![
            Span::styled(format!("{mark} "), style),
            Span::styled(r.kind.clone(), theme::KIND),
            Span::raw(format!("/{}", r.name)),
            Span::styled(
                if flags.is_empty() {
                    String::new()
                } else {
                    format!("  <{}>", flags.join(" "))
                },
                theme::EDGE,
            ),
            Span::raw("  "),
            Span::styled(what, style),
        ]));
    }
    out
}

fn dependent_lines<'a>(app: &'a App, obj: &'a Object) -> Vec<Line<'a>> {
    let kids: Vec<&str> = app.index().children(obj.uid()).collect();
    if kids.is_empty() {
        return Vec::new();
    }
    let blocking = kids
        .iter()
        .filter_map(|k| app.graph().get(k))
        .filter(|d| {
            d.metadata
                .owner_references
                .iter()
                .any(|r| r.uid == obj.uid() && r.blocks())
        })
        .count();
    vec![heading(format!(
        "Dependents: {} ({blocking} with blockOwnerDeletion)",
        kids.len()
    ))]
}

fn events<'a>(app: &'a App, uid: &str, only_events: bool) -> Vec<Line<'a>> {
    let mine: Vec<_> = app
        .timeline()
        .filter(|h| h.object.uid == uid && (!only_events || h.verb == "event" || h.warning))
        .collect();
    if mine.is_empty() {
        return if only_events {
            vec![heading("Events: none")]
        } else {
            Vec::new()
        };
    }
    let mut out = vec![heading(format!("Events ({})", mine.len()))];
    for h in mine.iter().rev().take(8).rev() {
        let style = if h.warning { theme::WARN } else { Style::new() };
        // A creation or a deletion has no detail: its verb says it.
        let what = if h.detail.is_empty() {
            h.verb.to_string()
        } else {
            h.detail.clone()
        };
        out.push(Line::from(vec![
            Span::styled(format!("{:>8} ", super::timeline::when(h.t)), theme::DIM),
            Span::styled(what, style),
            Span::styled(format!("  (by {})", h.by), theme::DIM),
        ]));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::tools::session::Session;

    /// The screen's words, borders dropped: a sentence wrapped over rows
    /// of a pane reads as one.
    fn words(screen: &str) -> String {
        screen
            .replace(['│', '┌', '└', '┐', '┘', '─'], " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A ConfigMap deleted at 1 s that a third-party finalizer holds;
    /// `controllers`: the scenario's line declaring its controller, if any.
    fn held_configmap(controllers: &str) -> Session {
        let path = std::env::temp_dir().join(format!(
            "ownerscope-stuck-clause-{}-{}.yaml",
            std::process::id(),
            controllers.len()
        ));
        std::fs::write(
            &path,
            format!(
                "name: held\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {{name: cache, namespace: shop, finalizers: [example.com/flush]}}\n{controllers}steps:\n  - {{at: 1s, delete: {{kind: ConfigMap, namespace: shop, name: cache}}}}\n"
            ),
        )
        .expect("scenario written");
        let mut s = Session::new(path.to_str().expect("utf-8"), 160, 48, false).expect("loads");
        let _ = std::fs::remove_file(&path);
        s.wait(Duration::from_secs(3));
        s.keys("/configmap/cache<Enter>");
        s
    }

    /// The words of the dialog box whose title starts with `title`, not
    /// those of the panes behind it.
    fn dialog_words(screen: &str, title: &str) -> String {
        let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
        let top = rows
            .iter()
            .position(|r| r.iter().collect::<String>().contains(title))
            .expect("the dialog is on screen");
        let left = rows[top]
            .iter()
            .position(|&c| c == '┌')
            .expect("its corner");
        let right = left
            + rows[top][left..]
                .iter()
                .position(|&c| c == '┐')
                .expect("its other corner");
        let inside: Vec<String> = rows[top + 1..]
            .iter()
            .take_while(|r| r.get(left) != Some(&'└'))
            .map(|r| r[left + 1..right.min(r.len())].iter().collect())
            .collect();
        words(&inside.join("\n"))
    }

    const CLAUSE: &str = "(stuck if it is not running)";

    #[test]
    fn the_stuck_clause_is_read_only_where_nothing_says_whether_the_controller_runs() {
        // The simulator says its controller is offline: the details and
        // the finalizer dialog say so, and do not guess.
        let mut s =
            held_configmap("controllers:\n  - {finalizer: example.com/flush, online: false}\n");
        let details = words(&s.screen());
        assert!(details.contains("controller OFFLINE"), "{details}");
        assert!(
            details.contains(
                "removed by the controller that added example.com/flush, once its cleanup is done"
            ),
            "{details}"
        );
        assert!(!details.contains(CLAUSE), "{details}");
        s.keys("F");
        let dialog = dialog_words(&s.screen(), "Remove a finalizer");
        assert!(
            dialog.contains(
                "Removed by: the controller that added example.com/flush, once its cleanup is done Its controller: OFFLINE"
            ),
            "{dialog}"
        );

        // No controller declared: nothing says whether one runs, and the
        // clause says when it stays.
        let mut s = held_configmap("");
        let details = words(&s.screen());
        assert!(!details.contains("controller OFFLINE"), "{details}");
        assert!(
            details.contains(&format!(
                "removed by the controller that added example.com/flush, once its cleanup is done {CLAUSE}"
            )),
            "{details}"
        );
        s.keys("F");
        let dialog = dialog_words(&s.screen(), "Remove a finalizer");
        assert!(
            dialog.contains(&format!(
                "Removed by: the controller that added example.com/flush, once its cleanup is done {CLAUSE} Its controller:"
            )),
            "{dialog}"
        );
    }
}
