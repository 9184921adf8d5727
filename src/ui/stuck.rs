//! The `:stuck` view: every Terminating object in view, grouped by cause,
//! the oldest first, and what holds others up, as `ownerscope stuck`
//! prints it ([`crate::model::stuck`]). Scrolled with j/k, closed with Esc.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear};

use super::{dialogs::centered, theme, wrap};

/// Draws the view over the screen.
pub fn render(lines: &[String], scroll: u16, frame: &mut Frame, area: Rect) {
    let popup = centered(
        area,
        area.width.saturating_sub(4).min(140),
        area.height.saturating_sub(2),
    );
    frame.render_widget(Clear, popup);
    let block = Block::bordered()
        .border_style(theme::TITLE)
        .title(Line::from(Span::styled(
            " Stuck: what is Terminating, and why ",
            theme::TITLE,
        )))
        .title_bottom(Line::from(" j/k PgDn/PgUp scroll · Esc close ").right_aligned());
    let styled: Vec<Line<'static>> = lines
        .iter()
        .map(|l| {
            if l.starts_with("  ") || l.is_empty() {
                Line::from(l.clone())
            } else {
                Line::from(Span::styled(l.clone(), theme::HEADING))
            }
        })
        .collect();
    let lines = wrap::wrap_hanging_lines(&styled, usize::from(popup.width.saturating_sub(2)), 12);
    super::help::scrolled(frame, popup, block, lines, scroll);
}
