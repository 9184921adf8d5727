//! Rendering only: one file per screen element. [`render`] reads the App
//! and never changes it.

pub mod aliases;
pub mod describe;
pub mod details;
pub mod dialogs;
pub mod help;
pub mod layout;
pub mod loading;
pub mod preview;
pub mod relations;
pub mod small_tree;
pub mod status;
pub mod stuck;
pub mod theme;
pub mod timeline;
pub mod tree;
pub mod why;
pub mod wrap;
pub mod yaml;

use ratatui::Frame;

use crate::app::{App, LowerPane, Modal};

/// Draws the whole screen.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    if app.too_small() {
        too_small(frame, area);
        return;
    }
    let a = layout::areas(area);
    tree::render(app, frame, a.tree);
    match (a.details, a.timeline) {
        (Some(d), Some(t)) => {
            details::render(app, frame, d, false);
            timeline::render(app, frame, t, false);
        }
        (Some(lower), None) => match app.lower_pane() {
            LowerPane::Details => details::render(app, frame, lower, true),
            LowerPane::Timeline => timeline::render(app, frame, lower, true),
        },
        _ => {}
    }
    status::render(app, frame, a.status);
    let body = ratatui::layout::Rect {
        height: area.height.saturating_sub(a.status.height),
        ..area
    };
    for m in app.modals() {
        match m {
            Modal::Delete(d) => dialogs::delete(app, d, frame, body),
            Modal::Finalizer(f) => dialogs::finalizer(app, f, frame, body),
            Modal::Confirm(c) => dialogs::confirm(app, c, frame, body),
            Modal::Pick(p) => dialogs::pick(p, frame, body),
            Modal::Controllers(c) => dialogs::controllers(app, c, frame, body),
            Modal::Help { scroll } => help::render(app, *scroll, frame, body),
            Modal::Yaml { uid, scroll } => yaml::render(app, uid, *scroll, frame, body),
            Modal::Stuck { lines, scroll } => stuck::render(lines, *scroll, frame, body),
            Modal::Describe { uid, scroll } => describe::render(app, uid, *scroll, frame, body),
            Modal::Aliases { scroll } => aliases::render(app, *scroll, frame, body),
            Modal::Search(_) | Modal::Command(_) => {}
        }
    }
}

/// The whole screen when it is too small for a dialog to show its request.
fn too_small(frame: &mut Frame, area: ratatui::layout::Rect) {
    let text = format!(
        "Terminal too small: {}x{}. ownerscope needs at least {}x{} to show what a dialog would send; nothing can be confirmed until then. Enlarge the window, or press q to quit.",
        area.width,
        area.height,
        layout::MIN_WIDTH,
        layout::MIN_HEIGHT
    );
    frame.render_widget(
        ratatui::widgets::Paragraph::new(text)
            .style(theme::WARN)
            .wrap(ratatui::widgets::Wrap { trim: true }),
        area,
    );
}
