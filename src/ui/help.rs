//! The help overlay, generated from the keymap tables: what is listed is
//! what the keys do.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::dialogs::centered;
use super::{theme, wrap};
use crate::app::App;
use crate::keymap::{self, Binding};

fn section<'a>(
    out: &mut Vec<Line<'a>>,
    title: &'a str,
    bindings: impl Iterator<Item = &'a Binding>,
    read_only: bool,
) {
    out.push(Line::from(Span::styled(title, theme::HEADING)));
    for b in bindings {
        if read_only && keymap::refused_in_read_only(b.action) {
            out.push(Line::from(vec![
                Span::styled(format!("  {:<18}", keymap::keys_label(b)), theme::REFUSED),
                Span::styled(b.desc, theme::REFUSED),
                Span::styled("  (refused: read-only)", theme::DIM),
            ]));
            continue;
        }
        let mut spans = vec![
            Span::styled(format!("  {:<18}", keymap::keys_label(b)), theme::KEY),
            Span::raw(b.desc),
        ];
        if read_only && b.action == crate::app::Action::OpenDelete {
            spans.push(Span::styled(
                "  (read-only: preview only, nothing is sent)",
                theme::DIM,
            ));
        }
        out.push(Line::from(spans));
    }
    out.push(Line::default());
}

/// Every line of the help.
#[must_use]
pub fn lines(app: &App) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let ro = app.read_only();
    section(
        &mut out,
        "Tree",
        keymap::NORMAL.iter().filter(|b| !b.sim_only),
        ro,
    );
    if app.is_simulator() {
        section(
            &mut out,
            "Simulator",
            keymap::NORMAL.iter().filter(|b| b.sim_only),
            ro,
        );
    }
    section(&mut out, "Timeline (Tab)", keymap::TIMELINE.iter(), ro);
    section(&mut out, "Delete dialog", keymap::DELETE.iter(), ro);
    section(
        &mut out,
        "Remove-finalizer dialog",
        keymap::FINALIZER_CHOOSE
            .iter()
            .chain(keymap::FINALIZER_TYPE),
        ro,
    );
    section(&mut out, "Search (/)", keymap::SEARCH.iter(), ro);
    section(&mut out, "Command line (:)", keymap::COMMAND.iter(), ro);
    out.push(Line::from(Span::styled("  :q  :ns [NAME|all]  :ctx NAME  :scenario NAME  :stuck  and any kind by plural, singular, short name or kind.group (:deploy :po :no :sa :ing :widgets); Ctrl-a lists them all", theme::DIM)));
    out.push(Line::from(Span::styled("  As in k9s: d describes, y shows the YAML, Ctrl-d opens the delete dialog, Ctrl-k the kill (grace period 0) dialog of a pod, 0 shows every namespace, Shift-J jumps to the owner. Unlike k9s, a dialog that sends something takes only Enter, once it has been on screen half a second: y or a quick Enter typed out of habit sends nothing. Ctrl-d does not page the tree (PgDn does); [ and ] scroll the details", theme::DIM)));
    out.push(Line::default());
    section(&mut out, "Describe view (d)", keymap::DESCRIBE.iter(), ro);
    section(&mut out, "YAML view (y)", keymap::YAML.iter(), ro);
    section(
        &mut out,
        "Confirmations (reset)",
        keymap::CONFIRM.iter(),
        ro,
    );
    section(&mut out, "Controllers (c)", keymap::CONTROLLERS.iter(), ro);
    section(
        &mut out,
        "Lists: scenarios, filter, owners",
        keymap::PICK.iter(),
        ro,
    );
    out.push(Line::from(Span::styled("Mouse", theme::HEADING)));
    out.push(Line::from(
        "  wheel scrolls the tree; a click selects a row, a second click expands or collapses it",
    ));
    out.push(Line::default());
    out.push(Line::from(Span::styled("Reading a row", theme::HEADING)));
    for (k, v) in [
        (
            "<ctrl block>",
            "flags of the reference to the owner it is shown under",
        ),
        (
            "[Terminating 12s]",
            "has a deletionTimestamp, for that long",
        ),
        ("[fin:2]", "carries two finalizers (details list them)"),
        ("[shared:2]", "has two owners: shown under each"),
        (
            "[!owner-gone(..)]",
            "an owner reference that does not resolve (also uid-mismatch, cross-namespace, unresolvable)",
        ),
        (
            "◀ now Terminating",
            "what just changed (shown for a moment)",
        ),
    ] {
        out.push(Line::from(vec![
            Span::styled(format!("  {k:<20}"), theme::KEY),
            Span::raw(v),
        ]));
    }
    if app.read_only() {
        out.push(Line::default());
        out.push(Line::from(Span::styled(
            "Read-only mode: Ctrl-d previews a delete and sends nothing; finalizer removal is refused.",
            theme::WARN,
        )));
    }
    out
}

/// Draws the help over the screen.
pub fn render(app: &App, scroll: u16, frame: &mut Frame, area: Rect) {
    let popup = centered(
        area,
        area.width.saturating_sub(4).min(104),
        area.height.saturating_sub(2),
    );
    frame.render_widget(Clear, popup);
    let block = Block::bordered()
        .border_style(theme::TITLE)
        .title(Line::from(Span::styled(" Help ", theme::TITLE)))
        .title_bottom(Line::from(" j/k scroll · Esc or ? close ").right_aligned());
    let lines =
        wrap::wrap_hanging_lines(&lines(app), usize::from(popup.width.saturating_sub(2)), 20);
    scrolled(frame, popup, block, lines, scroll);
}

/// An overlay's lines in its block, scrolled, never past the last line.
pub fn scrolled(
    frame: &mut Frame,
    popup: Rect,
    block: Block<'_>,
    lines: Vec<Line<'_>>,
    scroll: u16,
) {
    let inner_h = popup.height.saturating_sub(2);
    let max = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_sub(inner_h);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((scroll.min(max), 0)),
        popup,
    );
}
