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

/// The names' column: past the longest kind (`MutatingWebhookConfiguration`
/// ran into its names at a fixed 28), and past every command.
fn column(kinds: &[(String, Vec<String>)]) -> usize {
    let longest = kinds
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    let commands = COMMANDS.iter().map(|(c, _)| c.len() + 1).max().unwrap_or(0);
    2 + longest.max(commands) + 2
}

/// Every line of the view, and where its second column starts (a wrapped
/// line goes on there).
#[must_use]
pub fn lines(app: &App) -> (Vec<Line<'static>>, usize) {
    let kinds = app.kind_names();
    let col = column(&kinds);
    let pad = col - 2;
    let mut out = vec![Line::from(Span::styled(
        "Commands (type : then one of these, Enter runs it, Tab completes)",
        theme::HEADING,
    ))];
    for (name, what) in COMMANDS {
        out.push(Line::from(vec![
            Span::styled(format!("  {:<pad$}", format!(":{name}")), theme::KEY),
            Span::raw(*what),
        ]));
    }
    out.push(Line::default());
    out.push(Line::from(Span::styled(
        "Kinds (:NAME searches the tree for that kind; n/N next and previous)",
        theme::HEADING,
    )));
    for (kind, names) in kinds {
        out.push(Line::from(vec![
            Span::styled(format!("  {kind:<pad$}"), theme::KIND),
            Span::raw(names.join(" ")),
        ]));
    }
    (out, col)
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
    let (lines, col) = lines(app);
    let lines = wrap::wrap_hanging_lines(&lines, usize::from(popup.width.saturating_sub(2)), col);
    super::help::scrolled(frame, popup, block, lines, scroll);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Options;

    #[test]
    fn every_kind_is_apart_from_its_names_and_the_columns_line_up() {
        let app = App::new(Options::default());
        let (lines, col) = lines(&app);
        let text: Vec<String> = lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        let webhooks = text
            .iter()
            .find(|l| l.trim_start().starts_with("MutatingWebhookConfiguration"))
            .expect("a built-in kind");
        assert_eq!(
            webhooks.split_whitespace().take(2).collect::<Vec<_>>(),
            [
                "MutatingWebhookConfiguration",
                "mutatingwebhookconfigurations"
            ],
            "{webhooks}"
        );
        // Every command's and every kind's names start in one column.
        for l in text.iter().filter(|l| l.starts_with("  ")) {
            assert_eq!(l.chars().nth(col - 1), Some(' '), "{l}");
            assert_ne!(l.chars().nth(col), Some(' '), "{l}");
        }
    }
}
