//! `Ctrl-a` (as in k9s) and `:aliases`: every command of the command line,
//! and every kind it takes with all the names it answers to. Scrolled with
//! j/k, closed with Esc.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear};

use super::{dialogs::centered, theme, wrap};
use crate::app::App;
use crate::app::command_line::COMMANDS;

/// Every line of the view.
#[must_use]
pub fn lines(app: &App) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled(
        "Commands (type : then one of these, Enter runs it, Tab completes)",
        theme::HEADING,
    ))];
    for (name, what) in COMMANDS {
        out.push(Line::from(vec![
            Span::styled(format!("  :{name:<12}"), theme::KEY),
            Span::raw(*what),
        ]));
    }
    out.push(Line::default());
    out.push(Line::from(Span::styled(
        "Kinds (:NAME searches the tree for that kind; n/N next and previous)",
        theme::HEADING,
    )));
    for (kind, names) in app.kind_names() {
        out.push(Line::from(vec![
            Span::styled(format!("  {kind:<28}"), theme::KIND),
            Span::raw(names.join(" ")),
        ]));
    }
    out
}

/// Draws the view over the screen.
pub fn render(app: &App, scroll: u16, frame: &mut Frame, area: Rect) {
    let popup = centered(
        area,
        area.width.saturating_sub(4).min(120),
        area.height.saturating_sub(2),
    );
    frame.render_widget(Clear, popup);
    let block = Block::bordered()
        .border_style(theme::TITLE)
        .title(Line::from(Span::styled(
            " Commands and aliases ",
            theme::TITLE,
        )))
        .title_bottom(Line::from(" j/k PgDn/PgUp scroll · Esc close ").right_aligned());
    let lines =
        wrap::wrap_hanging_lines(&lines(app), usize::from(popup.width.saturating_sub(2)), 30);
    super::help::scrolled(frame, popup, block, lines, scroll);
}
