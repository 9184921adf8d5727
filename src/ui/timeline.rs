//! The timeline: what happened, in order (virtual time, change, object),
//! all objects or only the selected one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{theme, wrap};
use crate::app::{App, TimelineScope};
use crate::backend::Happening;

/// Entries kept in view below the one under the cursor.
const CONTEXT: usize = 3;

/// Draws the timeline pane, newest at the bottom: one row per entry, cut
/// with `…`, and the entry under the cursor (the newest, unless Tab moved
/// the keys here) in full. `tabs`: the narrow layout, where it shares its
/// place with the details.
pub fn render(app: &App, frame: &mut Frame, area: Rect, _tabs: bool) {
    let selected = app
        .selected_row()
        .and_then(|r| app.row_uid(r).map(str::to_string));
    let entries = app.timeline_entries();
    let at = app.timeline_position(&entries);
    let focused = app.timeline_focused();
    let mut title = vec![Span::styled(" Timeline ", theme::TITLE)];
    if let Some(i) = at {
        title.push(Span::styled(
            format!("{}/{} ", i + 1, entries.len()),
            theme::DIM,
        ));
    }
    let scope = match (app.timeline_scope(), app.selected_object()) {
        (TimelineScope::Selected, Some(o)) => format!("· only {}/{} (a: all) ", o.kind, o.name()),
        _ => "· all (a: selected only) ".to_string(),
    };
    title.push(Span::styled(scope, theme::DIM));
    if focused {
        title.push(Span::styled("· Enter: go to its object ", theme::KEY));
    } else {
        title.push(Span::styled("· Tab: move in ", theme::DIM));
    }
    let mut inner = super::layout::pane(frame, area, title);
    let w = usize::from(inner.width);
    let Some(at) = at else {
        let msg = if app.timeline_scope() == TimelineScope::Selected {
            "nothing happened to this object yet"
        } else {
            "nothing happened yet: delete something (d)"
        };
        let mut lines = story_lines(app);
        lines.push(Line::from(Span::styled(msg, theme::DIM)));
        frame.render_widget(Paragraph::new(wrap::wrap_lines(&lines, w)), inner);
        return;
    };
    // The scenario's next step, on the pane's last row: what comes next
    // in the story.
    if let Some(next) = app.story().and_then(|s| s.next.as_ref())
        && inner.height > 2
    {
        inner.height -= 1;
        let row = Rect {
            y: inner.y + inner.height,
            height: 1,
            ..inner
        };
        let line = wrap::cut(next_line(next), w);
        frame.render_widget(Paragraph::new(line), row);
    }
    let h = usize::from(inner.height);
    let mut full = wrap::wrap_hanging(&line(entries[at].1, selected.as_deref()), w, 9);
    full.truncate(h.max(1));
    if focused {
        full = full
            .into_iter()
            .map(|l| l.patch_style(theme::SELECTED))
            .collect();
    }
    let n = entries.len();
    let mut after = (n - 1 - at).min(CONTEXT);
    let room = h.saturating_sub(full.len());
    let before = at.min(room.saturating_sub(after));
    if before == at {
        after = (n - 1 - at).min(room - before);
    } else {
        after = after.min(room);
    }
    let one = |(_, x): &(u64, &Happening)| wrap::cut(line(x, selected.as_deref()), w);
    let mut lines: Vec<Line> = entries[at - before..at].iter().map(one).collect();
    lines.extend(full);
    lines.extend(entries[at + 1..=at + after].iter().map(one));
    frame.render_widget(Paragraph::new(lines), inner);
}

/// `    next  step 2 of 3 at 5.0s: ...`, in the timeline's columns.
fn next_line(next: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{:>8} ", "next"), theme::KEY),
        Span::styled(next.to_string(), theme::DIM),
    ])
}

/// The scenario's story while nothing has happened: what it is about and
/// its next step.
fn story_lines(app: &App) -> Vec<Line<'static>> {
    let Some(s) = app.story() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if !s.description.is_empty() {
        out.push(Line::from(vec![
            Span::styled(format!("Scenario {}: ", s.scenario), theme::HEADING),
            Span::raw(s.description.clone()),
        ]));
    }
    if let Some(n) = &s.next {
        out.push(next_line(n));
    }
    out
}

/// A timeline time, seconds since the source started, in 8 columns:
/// `12.4s`, `-5m40s` (an Event from before the session), `2h05m`.
#[must_use]
pub fn when(t: f64) -> String {
    let sign = if t < 0.0 { "-" } else { "" };
    let a = t.abs();
    if a < 1000.0 {
        return format!("{t:.1}s");
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let secs = a as u64;
    if secs < 100 * 60 {
        format!("{sign}{}m{:02}s", secs / 60, secs % 60)
    } else if secs < 100 * 3600 {
        format!("{sign}{}h{:02}m", secs / 3600, secs % 3600 / 60)
    } else {
        format!("{sign}{}d", secs / 86_400)
    }
}

/// `   12.4s  updated  ReplicaSet/web-1  +finalizer foregroundDeletion (by gc)`
#[must_use]
pub fn line(x: &Happening, selected: Option<&str>) -> Line<'static> {
    let mine = selected == Some(x.object.uid.as_str());
    let text_style = if x.warning { theme::WARN } else { Style::new() };
    let obj_style = if mine {
        theme::KIND.patch(theme::EDGE)
    } else {
        theme::KIND
    };
    Line::from(vec![
        Span::styled(format!("{:>8} ", when(x.t)), theme::DIM),
        Span::styled(
            format!("{}{:<8} ", if x.warning { "⚠ " } else { "" }, x.verb),
            text_style,
        ),
        Span::styled(format!("{}/{}", x.object.kind, x.object.name), obj_style),
        Span::raw("  "),
        Span::styled(x.detail.clone(), text_style),
        Span::styled(format!("  (by {})", x.by), theme::DIM),
    ])
}
