//! The YAML view (`y`): what is known of the selected object, as YAML:
//! its metadata whole (but `last-applied-configuration`, never kept), and
//! of `spec` and `status` only the fields ownerscope keeps. Scrolled with
//! j/k, closed with Esc or y.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear};

use super::{dialogs::centered, theme, wrap};
use crate::app::App;

/// The lines of the view for the object with this uid.
#[must_use]
pub fn lines(app: &App, uid: &str) -> Vec<Line<'static>> {
    let Some(obj) = app.graph().get(uid) else {
        return vec![Line::from(Span::styled(
            "deleted: it is gone from the API server",
            theme::BAD,
        ))];
    };
    let mut out = vec![Line::from(Span::styled(
        "# what ownerscope knows of it: the metadata, and of spec and status only the fields it reads (a live cluster: metadata only)",
        theme::DIM,
    ))];
    out.extend(
        crate::model::yaml_text::object(obj)
            .into_iter()
            .map(Line::from),
    );
    out
}

/// Draws the view over the screen.
pub fn render(app: &App, uid: &str, scroll: u16, frame: &mut Frame, area: Rect) {
    let popup = centered(
        area,
        area.width.saturating_sub(4).min(120),
        area.height.saturating_sub(2),
    );
    frame.render_widget(Clear, popup);
    let title = app
        .graph()
        .get(uid)
        .map_or_else(String::new, |o| format!(" YAML · {}/{} ", o.kind, o.name()));
    let block = Block::bordered()
        .border_style(theme::TITLE)
        .title(Line::from(Span::styled(title, theme::TITLE)))
        .title_bottom(Line::from(" j/k PgDn/PgUp scroll · Esc or y close ").right_aligned());
    let lines = wrap::wrap_hanging_lines(
        &lines(app, uid),
        usize::from(popup.width.saturating_sub(2)),
        4,
    );
    super::help::scrolled(frame, popup, block, lines, scroll);
}
