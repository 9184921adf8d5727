//! Colours and styles in one place. Every style here decorates text that
//! already says what it means: nothing is conveyed by colour alone.

use ratatui::style::{Color, Modifier, Style};

use crate::model::badges::Badge;

pub const GROUP: Style = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
pub const KIND: Style = Style::new().add_modifier(Modifier::BOLD);
pub const DIM: Style = Style::new().fg(Color::DarkGray);
pub const EDGE: Style = Style::new().fg(Color::Blue);
/// A selector relation (`≈`): never drawn as an owner edge is.
pub const SELECTOR: Style = Style::new()
    .fg(Color::LightMagenta)
    .add_modifier(Modifier::ITALIC);
/// A search match, on every row that has one.
pub const MATCH: Style = Style::new()
    .fg(Color::Black)
    .bg(Color::LightYellow)
    .add_modifier(Modifier::UNDERLINED);
pub const SELECTED: Style = Style::new().add_modifier(Modifier::REVERSED);
pub const FLASH: Style = Style::new().fg(Color::Black).bg(Color::Yellow);
pub const GHOST: Style = Style::new()
    .fg(Color::DarkGray)
    .add_modifier(Modifier::CROSSED_OUT);
pub const TITLE: Style = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
pub const HEADING: Style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
pub const WARN: Style = Style::new().fg(Color::Yellow);
pub const BAD: Style = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
pub const GOOD: Style = Style::new().fg(Color::Green);
pub const STATUS: Style = Style::new().fg(Color::Black).bg(Color::Cyan);
pub const STATUS_PAUSED: Style = Style::new().fg(Color::Black).bg(Color::Yellow);
/// The tree may be out of date (watches relisting).
pub const STATUS_STALE: Style = Style::new().fg(Color::Black).bg(Color::Yellow);
/// The tree's stale marker.
pub const STALE: Style = Style::new()
    .fg(Color::Black)
    .bg(Color::Yellow)
    .add_modifier(Modifier::BOLD);
pub const ERROR_LINE: Style = Style::new().fg(Color::White).bg(Color::Red);
/// An action refused here (read-only mode): greyed and struck through,
/// next to a READ-ONLY that says why.
pub const REFUSED: Style = Style::new()
    .fg(Color::DarkGray)
    .add_modifier(Modifier::CROSSED_OUT);
pub const KEY: Style = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);

/// The colour of a badge (its text is what it means).
#[must_use]
pub fn badge(b: &Badge) -> Style {
    match b {
        Badge::Terminating { .. } => BAD,
        Badge::Finalizers { .. } => WARN,
        Badge::Controller | Badge::BlockOwnerDeletion => EDGE,
        Badge::Shared { .. } => Style::new().fg(Color::Magenta),
        Badge::NotExpanded { .. } => WARN,
        Badge::Problem { .. } | Badge::Cycle => Style::new()
            .fg(Color::LightRed)
            .add_modifier(Modifier::BOLD),
    }
}
