//! The timeline: what happened, in order (virtual time, change, object),
//! all objects or only the selected one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme;
use crate::app::{App, TimelineScope};
use crate::backend::Happening;

/// Draws the timeline pane, newest at the bottom. `tabs`: the narrow
/// layout, where it shares its place with the details.
pub fn render(app: &App, frame: &mut Frame, area: Rect, tabs: bool) {
    let selected = app
        .selected_row()
        .and_then(|r| app.row_uid(r).map(str::to_string));
    let only = match (app.timeline_scope(), &selected) {
        (TimelineScope::Selected, Some(uid)) => Some(uid.clone()),
        _ => None,
    };
    let mut title = vec![Span::styled(" Timeline ", theme::TITLE)];
    let scope = match (&only, app.selected_object()) {
        (Some(_), Some(o)) => format!("· only {}/{} (a: all) ", o.kind, o.name()),
        _ => "· all (a: selected only) ".to_string(),
    };
    title.push(Span::styled(scope, theme::DIM));
    if tabs {
        title.push(Span::styled("· Tab: details ", theme::DIM));
    }
    let inner = super::layout::pane(frame, area, title);
    let h = usize::from(inner.height);
    let mut picked: Vec<&Happening> = app
        .timeline()
        .rev()
        .filter(|x| only.as_ref().is_none_or(|u| x.object.uid == *u))
        .take(h)
        .collect();
    picked.reverse();
    if picked.is_empty() {
        let msg = if only.is_some() {
            "nothing happened to this object yet"
        } else {
            "nothing happened yet: delete something (d)"
        };
        frame.render_widget(Paragraph::new(msg).style(theme::DIM), inner);
        return;
    }
    let lines: Vec<Line> = picked
        .into_iter()
        .map(|x| line(x, selected.as_deref()))
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// `   12.4s  updated  ReplicaSet/web-1  +finalizer foregroundDeletion (by gc)`
#[must_use]
pub fn line<'a>(x: &'a Happening, selected: Option<&str>) -> Line<'a> {
    let mine = selected == Some(x.object.uid.as_str());
    let text_style = if x.warning { theme::WARN } else { Style::new() };
    let obj_style = if mine {
        theme::KIND.patch(theme::EDGE)
    } else {
        theme::KIND
    };
    Line::from(vec![
        Span::styled(format!("{:>7.1}s ", x.t), theme::DIM),
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
