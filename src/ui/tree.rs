//! The ownership forest, drawn from the App's flat row list one window at
//! a time: a frame costs the visible rows, whatever the cluster holds. It
//! looks and moves like tui-tree-widget (same open/closed symbols, same
//! indentation, same highlight symbol), which draws the smaller trees.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::theme;
use crate::app::flash::FlashKind;
use crate::app::{App, Row, RowNode};
use crate::backend::Connection;
use crate::model::badges::{Badge, edge_badges, object_badges};

/// Symbols shared with the tui-tree-widget trees.
pub const OPEN: &str = "▼ ";
pub const CLOSED: &str = "▶ ";
pub const LEAF: &str = "  ";
pub const HIGHLIGHT: &str = "> ";
/// A row of the ownership tree with no dependents: marked in the column
/// of its depth, as `▼`/`▶` mark the others, so that a root with no
/// dependents after a deep subtree is read as a root, never as one of the
/// dependents above it.
pub const LEAF_MARK: &str = "· ";

/// Draws the tree pane.
pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let title = title(app);
    let rows = app.rows();
    let pos = if rows.is_empty() {
        "empty".to_string()
    } else {
        format!("{}/{}", app.selected_index() + 1, rows.len())
    };
    let stale = stale(app);
    let mut block = Block::new()
        .borders(Borders::TOP)
        .border_style(if stale.is_some() {
            theme::WARN
        } else {
            theme::DIM
        })
        .title(Line::from(title).style(theme::TITLE));
    if let Some(s) = stale {
        block = block.title(Line::from(Span::styled(s, theme::STALE)));
    }
    let block = block.title(Line::from(format!(" {pos} ")).right_aligned());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let h = usize::from(inner.height);
    if h == 0 {
        return;
    }
    // The App keeps the selection in view for its viewport; should the pane
    // be another height this frame, still show the selection.
    let sel = app.selected_index();
    let mut offset = app.offset();
    if sel < offset {
        offset = sel;
    } else if sel >= offset + h {
        offset = sel + 1 - h;
    }
    let end = (offset + h).min(rows.len());
    let lines: Vec<Line> = rows[offset..end]
        .iter()
        .enumerate()
        .map(|(i, r)| row_line(app, r, offset + i == sel))
        .collect();
    if lines.is_empty() {
        let msg = if app.filters().is_active() {
            "nothing matches the filter (Esc clears it)"
        } else {
            "no objects"
        };
        frame.render_widget(Paragraph::new(msg).style(theme::DIM), inner);
        return;
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn title(app: &App) -> String {
    let mut t = format!(
        " Ownership · {}",
        crate::model::wording::count(app.graph().len(), "object")
    );
    let f = app.filters().label();
    if !f.is_empty() {
        t.push_str(&format!(" · {f}"));
    }
    if let (Some(q), Some(hits)) = (app.search_query(), app.search_hits()) {
        t.push_str(&format!(" · /{q} {}", hits_label(hits)));
        if hits.1 > 0 {
            t.push_str(" (n/N)");
        }
    }
    t.push(' ');
    t
}

/// The tree may be out of date: ` STALE: connection lost ` or ` STALE:
/// syncing replicasets.apps, pods +3 `; nothing when it is current.
#[must_use]
pub fn stale(app: &App) -> Option<String> {
    let s = app.status()?;
    match &s.connection {
        Connection::Connected => None,
        Connection::Lost(_) => Some(" STALE: connection lost ".into()),
        Connection::Syncing if s.syncing.is_empty() => Some(" STALE: reconnecting ".into()),
        Connection::Syncing => Some(format!(
            " STALE: syncing {} ",
            super::status::few(&s.syncing)
        )),
    }
}

/// `3/12`, or `12 matches` when the selection is not one of them, or
/// `no match`.
#[must_use]
pub fn hits_label((at, n): (Option<usize>, usize)) -> String {
    match (at, n) {
        (_, 0) => "no match".to_string(),
        (Some(i), n) => format!("{i}/{n}"),
        (None, n) => crate::model::wording::count(n, "match"),
    }
}

/// `Kind/name`, the kind in bold, with every match of the search marked
/// (underlined on a light background: it reads without colour), whichever
/// row it is on; `n`/`N` go from one to the next.
#[must_use]
pub fn name_spans(kind: &str, name: &str, query: Option<&str>) -> Vec<Span<'static>> {
    let text = format!("{kind}/{name}");
    let k = kind.len();
    let lower = text.to_lowercase();
    let at = query
        .filter(|q| !q.is_empty())
        .map(str::to_lowercase)
        .filter(|_| lower.len() == text.len())
        .and_then(|q| lower.find(q.as_str()).map(|i| (i, i + q.len())))
        .filter(|(s, e)| text.is_char_boundary(*s) && text.is_char_boundary(*e));
    // Cut points: the kind's end and the match's ends.
    let mut cuts = vec![0, k, text.len()];
    if let Some((s, e)) = at {
        cuts.extend([s, e]);
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2)
        .filter(|w| w[0] < w[1])
        .map(|w| {
            let base = if w[0] < k { theme::KIND } else { Style::new() };
            let style = match at {
                Some((s, e)) if w[0] >= s && w[1] <= e => base.patch(theme::MATCH),
                _ => base,
            };
            Span::styled(text[w[0]..w[1]].to_string(), style)
        })
        .collect()
}

/// One row: highlight symbol, indentation, open/closed symbol, the object
/// and its badges, and what just changed.
#[must_use]
pub fn row_line<'a>(app: &'a App, row: &'a Row, selected: bool) -> Line<'a> {
    let mut spans: Vec<Span> = Vec::with_capacity(12);
    spans.push(Span::raw(if selected { HIGHLIGHT } else { "  " }));
    spans.push(Span::raw("  ".repeat(usize::from(row.depth))));
    spans.push(Span::raw(if !row.has_children {
        LEAF_MARK
    } else if row.open {
        OPEN
    } else {
        CLOSED
    }));
    match &row.node {
        RowNode::Group { namespace, roots } => {
            let label = match namespace {
                Some(ns) => format!("namespace {ns}"),
                None => "cluster-scoped".to_string(),
            };
            spans.push(Span::styled(label, theme::GROUP));
            spans.push(Span::styled(format!("  ({roots})"), theme::DIM));
        }
        RowNode::Ghost { object } => {
            spans.push(Span::styled(
                format!("{}/{}", object.kind, object.name),
                theme::GHOST,
            ));
            spans.push(Span::raw("  "));
            spans.push(Span::styled(
                format!("◀ {}", FlashKind::Gone.text()),
                theme::FLASH,
            ));
        }
        RowNode::Object { id, parent, cycle } => {
            let uid = app.index().uid(*id);
            let Some(obj) = app.graph().get(uid) else {
                return Line::from(spans);
            };
            spans.extend(name_spans(&obj.kind, obj.name(), app.search_query()));
            if let Some(edge) = parent
                .map(|p| app.index().uid(p))
                .and_then(|p| obj.metadata.owner_references.iter().find(|r| r.uid == p))
            {
                let eb = edge_badges(edge);
                if !eb.is_empty() {
                    let text: Vec<String> = eb.iter().map(Badge::text).collect();
                    spans.push(Span::styled(format!("  <{}>", text.join(" ")), theme::EDGE));
                }
            }
            let mut own = object_badges(app.graph(), obj, app.now());
            if *cycle {
                own.push(Badge::Cycle);
            }
            if !own.is_empty() {
                spans.push(Span::raw("  ["));
                for (i, b) in own.iter().enumerate() {
                    if i > 0 {
                        spans.push(Span::raw(" "));
                    }
                    spans.push(Span::styled(b.text(), theme::badge(b)));
                }
                spans.push(Span::raw("]"));
            }
            if let Some(f) = app.flash(uid) {
                spans.push(Span::raw("  "));
                spans.push(Span::styled(format!("◀ {}", f.kind.text()), theme::FLASH));
            }
        }
    }
    let line = Line::from(spans);
    if selected {
        line.style(theme::SELECTED)
    } else {
        line.style(Style::new())
    }
}

#[cfg(test)]
mod tests {
    use super::{name_spans, theme};

    fn marked(kind: &str, name: &str, q: Option<&str>) -> Vec<(String, bool)> {
        name_spans(kind, name, q)
            .into_iter()
            .map(|s| {
                (
                    s.content.to_string(),
                    s.style == s.style.patch(theme::MATCH),
                )
            })
            .collect()
    }

    #[test]
    fn the_match_is_marked_across_kind_and_name() {
        assert_eq!(
            marked("Pod", "web-1", Some("d/WE")),
            [
                ("Po".to_string(), false),
                ("d".to_string(), true),
                ("/we".to_string(), true),
                ("b-1".to_string(), false)
            ]
        );
        assert_eq!(
            marked("Pod", "web-1", None),
            [("Pod".to_string(), false), ("/web-1".to_string(), false)]
        );
        assert_eq!(
            marked("Pod", "web-1", Some("zzz")),
            [("Pod".to_string(), false), ("/web-1".to_string(), false)]
        );
    }
}
