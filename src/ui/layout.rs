//! Where each pane goes. Wide terminals show the tree beside the details
//! and the timeline; narrow ones (80x24) stack the tree over one lower pane
//! that Tab switches between details and timeline.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use super::theme;

/// At or above this width the three panes are shown side by side.
pub const WIDE: u16 = 110;
/// Lines of the status bar.
pub const STATUS_LINES: u16 = 2;
/// Below this size a dialog cannot show its request, its policy and its
/// keys: the screen says so instead, and nothing can be confirmed.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 15;

/// The panes of one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Areas {
    pub tree: Rect,
    /// Wide: the details pane; narrow: the lower pane (details or
    /// timeline, whichever is chosen).
    pub details: Option<Rect>,
    /// Wide only.
    pub timeline: Option<Rect>,
    pub status: Rect,
}

/// Splits the screen.
#[must_use]
pub fn areas(area: Rect) -> Areas {
    let [body, status] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(STATUS_LINES.min(area.height)),
    ])
    .areas(area);
    if body.height < 10 {
        return Areas {
            tree: body,
            details: None,
            timeline: None,
            status,
        };
    }
    if area.width >= WIDE {
        let [tree, right] =
            Layout::horizontal([Constraint::Percentage(52), Constraint::Percentage(48)])
                .areas(body);
        let [details, timeline] =
            Layout::vertical([Constraint::Percentage(62), Constraint::Percentage(38)]).areas(right);
        Areas {
            tree,
            details: Some(details),
            timeline: Some(timeline),
            status,
        }
    } else {
        let [tree, lower] =
            Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body);
        Areas {
            tree,
            details: Some(lower),
            timeline: None,
            status,
        }
    }
}

/// The rows of the tree pane under its title line.
#[must_use]
pub fn tree_inner(area: Rect) -> Rect {
    let t = areas(area).tree;
    Rect {
        y: t.y.saturating_add(1),
        height: t.height.saturating_sub(1),
        ..t
    }
}

/// How many rows the tree pane shows on a screen of this size.
#[must_use]
pub fn tree_rows(area: Rect) -> usize {
    usize::from(tree_inner(area).height)
}

/// Draws a side pane's frame (top and left borders, the title) and returns
/// the area inside it.
pub fn pane(frame: &mut Frame, area: Rect, title: Vec<Span<'static>>) -> Rect {
    let block = Block::new()
        .borders(Borders::TOP | Borders::LEFT)
        .border_style(theme::DIM)
        .title(Line::from(title));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_wide() {
        let small = areas(Rect::new(0, 0, 80, 24));
        assert!(small.timeline.is_none());
        assert_eq!(small.status.height, 2);
        assert!(tree_rows(Rect::new(0, 0, 80, 24)) >= 10);
        let wide = areas(Rect::new(0, 0, 160, 48));
        assert!(wide.timeline.is_some());
        let tiny = areas(Rect::new(0, 0, 40, 8));
        assert!(tiny.details.is_none());
    }
}
