//! The describe view (`d`, as in k9s): the details of the selected object
//! over the whole screen, to read them without scrolling a small pane.
//! Scrolled with j/k, closed with Esc, q or d. It never leads to a request.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear};

use super::{details, dialogs::centered, theme};
use crate::app::App;

/// Draws the view over the screen, for the object with this uid.
pub fn render(app: &App, uid: &str, scroll: u16, frame: &mut Frame, area: Rect) {
    let popup = centered(
        area,
        area.width.saturating_sub(4).min(140),
        area.height.saturating_sub(2),
    );
    frame.render_widget(Clear, popup);
    let obj = app.selected_object().filter(|o| o.uid() == uid);
    let title = obj.map_or_else(
        || " Describe ".to_string(),
        |o| format!(" Describe · {}/{} ", o.kind, o.name()),
    );
    let block = Block::bordered()
        .border_style(theme::TITLE)
        .title(Line::from(Span::styled(title, theme::TITLE)))
        .title_bottom(Line::from(" j/k PgDn/PgUp scroll · Esc or d close ").right_aligned());
    let lines = if obj.is_some() {
        details::full(app, popup.width.saturating_sub(2))
    } else {
        vec![Line::from(Span::styled(
            "deleted: it is gone from the API server",
            theme::BAD,
        ))]
    };
    super::help::scrolled(frame, popup, block, lines, scroll);
}
