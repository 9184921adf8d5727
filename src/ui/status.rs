//! The status bar: the source (SIMULATOR + scenario, or the cluster), the
//! clock, counts, filters; below it the message, the search line or the
//! key hints.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{theme, wrap};
use crate::app::{App, Modal};
use crate::backend::Connection;
use crate::keymap;

/// A message longer than the bar takes at most this many rows, the first
/// ones drawn over the bottom of the panes.
const MESSAGE_ROWS: u16 = 6;

/// Draws both lines. A message too long for its line is wrapped, and the
/// rows it needs above the bar are drawn over the panes: an answer from
/// the server is read in full.
pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let mut lines = vec![first_line(app, area.width)];
    if area.height > 1 {
        let second = second_line(app);
        let wrapped = wrap::wrap_line(&second, usize::from(area.width));
        if app.message().is_some() && wrapped.len() > 1 {
            // The bar grows upwards over the panes: its first line, then
            // the message's rows.
            let n = u16::try_from(wrapped.len())
                .unwrap_or(MESSAGE_ROWS)
                .min(MESSAGE_ROWS)
                .min(area.y.saturating_add(1));
            let over = Rect {
                x: area.x,
                y: area.y + 1 - n,
                width: area.width,
                height: n + 1,
            };
            let style = second.style;
            for mut r in wrapped.into_iter().take(usize::from(n)) {
                let pad = usize::from(area.width).saturating_sub(r.width());
                r.spans.push(Span::raw(" ".repeat(pad)));
                lines.push(r.style(style));
            }
            frame.render_widget(ratatui::widgets::Clear, over);
            frame.render_widget(Paragraph::new(lines), over);
            return;
        }
        lines.push(second);
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The source, the clock and the counts.
#[must_use]
pub fn first_line(app: &App, width: u16) -> Line<'_> {
    let mut style = theme::STATUS;
    let mut parts: Vec<String> = Vec::new();
    // Said last, cut to the room left: the counts, READ-ONLY and the stale
    // marker are never lost to a long reason.
    let mut reason: Option<String> = None;
    match app.status() {
        Some(s) => {
            parts.push(format!(" {} {}", s.kind, s.name));
            if let Some(c) = &s.clock {
                #[allow(clippy::cast_precision_loss)]
                let t = c.now_ms as f64 / 1000.0;
                let state = if c.paused {
                    style = theme::STATUS_PAUSED;
                    "PAUSED"
                } else {
                    "RUNNING"
                };
                parts.push(format!("t={t:.1}s x{} {state}", speed(c.speed)));
            }
            if let Connection::Lost(why) = &s.connection {
                style = theme::ERROR_LINE;
                parts.push("CONNECTION LOST (tree is stale)".into());
                reason = Some(why.clone());
            }
            if !s.missing_kinds.is_empty() {
                parts.push(partial_label(&s.missing_kinds));
            }
        }
        None => parts.push(" connecting…".into()),
    }
    let ix = app.index();
    let counts = [
        (ix.len(), "objects", "obj"),
        (ix.terminating_count(), "Terminating", "Term"),
        (ix.problem_count(), "problems", "prob"),
    ];
    let f = app.filters().label();
    let long = |sep: &str, short: bool| {
        let mut p = parts.clone();
        let c: Vec<String> = counts
            .iter()
            .map(|(n, l, s)| format!("{n} {}", if short { s } else { l }))
            .collect();
        p.push(c.join(if short { " " } else { " · " }));
        if !f.is_empty() {
            p.push(format!("filter: {f}"));
        }
        if app.read_only() {
            p.push("READ-ONLY".into());
        }
        p.join(sep)
    };
    let full = long(" │ ", false);
    let mut text = if full.chars().count() <= usize::from(width) {
        full
    } else {
        let mid = long("  ", false);
        if mid.chars().count() <= usize::from(width) {
            mid
        } else {
            long(" ", true)
        }
    };
    if let Some(why) = reason {
        let room = usize::from(width).saturating_sub(text.chars().count() + 3);
        let why: String = if why.chars().count() <= room {
            why
        } else if room > 1 {
            let mut cut: String = why.chars().take(room - 1).collect();
            cut.push('…');
            cut
        } else {
            String::new()
        };
        if !why.is_empty() {
            text.push_str(" │ ");
            text.push_str(&why);
        }
    }
    Line::from(text).style(style)
}

fn speed(s: f64) -> String {
    if (s - s.round()).abs() < f64::EPSILON {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

/// The message, the search being typed, or the key hints.
#[must_use]
pub fn second_line(app: &App) -> Line<'_> {
    if let Some(Modal::Command(c)) = app.modal() {
        let mut spans = vec![
            Span::styled(":", theme::KEY),
            Span::raw(c.text.clone()),
            Span::styled("█", theme::DIM),
        ];
        match &c.error {
            Some(e) => spans.push(Span::styled(format!("  {e}"), theme::BAD)),
            None => {
                let found = app.command_candidates(&c.text);
                let shown: Vec<&str> = found.iter().take(8).map(String::as_str).collect();
                let more = found.len().saturating_sub(shown.len());
                let mut hint = format!("   Tab: {}", shown.join(" "));
                if more > 0 {
                    hint.push_str(&format!(" +{more}"));
                }
                spans.push(Span::styled(hint, theme::DIM));
            }
        }
        return Line::from(spans);
    }
    if let Some(Modal::Search(s)) = app.modal() {
        let mut spans = vec![
            Span::styled("/", theme::KEY),
            Span::raw(s.query.clone()),
            Span::styled("█", theme::DIM),
        ];
        if s.failed {
            spans.push(Span::styled("  no match", theme::BAD));
        } else if let Some(hits) = app.search_hits() {
            spans.push(Span::styled(
                format!("  {}", super::tree::hits_label(hits)),
                theme::KEY,
            ));
        }
        spans.push(Span::styled(
            "   Enter: keep · Esc: cancel · matches kind/name",
            theme::DIM,
        ));
        return Line::from(spans);
    }
    if let Some(m) = app.message() {
        if m.error {
            return Line::from(format!(" {}   (Esc: dismiss)", m.text)).style(theme::ERROR_LINE);
        }
        return Line::from(Span::styled(format!(" {}", m.text), theme::GOOD));
    }
    if app.mode() == crate::app::Mode::Timeline {
        let mut spans = Vec::new();
        for (key, what) in [
            ("j/k", "move"),
            ("Enter", "go to its object"),
            ("a", "all / selected"),
            ("G", "follow newest"),
            ("Esc", "tree"),
        ] {
            spans.push(Span::styled(format!(" {key}"), theme::KEY));
            spans.push(Span::raw(format!(" {what} ")));
        }
        return Line::from(spans);
    }
    let mut hints: Vec<(u8, &str, String, bool)> = keymap::NORMAL
        .iter()
        .filter(|b| !b.sim_only || app.is_simulator())
        .filter_map(|b| {
            let (order, h) = b.hint?;
            let refused = app.read_only() && keymap::refused_in_read_only(b.action);
            let h = if app.read_only() && b.action == crate::app::Action::OpenDelete {
                "preview delete"
            } else {
                h
            };
            Some((
                order,
                h,
                b.keys.first().map(keymap::key_label).unwrap_or_default(),
                refused,
            ))
        })
        .collect();
    hints.sort_by_key(|h| h.0);
    let mut spans = Vec::new();
    for (_, h, key, refused) in hints {
        if refused {
            spans.push(Span::styled(format!(" {key} {h}"), theme::REFUSED));
            spans.push(Span::raw(" "));
        } else {
            spans.push(Span::styled(format!(" {key}"), theme::KEY));
            spans.push(Span::raw(format!(" {h} ")));
        }
    }
    Line::from(spans)
}

/// What could not be listed, in little room: `PARTIAL: cannot list
/// configmaps, secrets +22` (the details and dialogs say the rest where it
/// changes an answer).
fn partial_label(kinds: &[String]) -> String {
    match kinds {
        [] => String::new(),
        [a] => format!("PARTIAL: cannot list {a}"),
        [a, b] => format!("PARTIAL: cannot list {a}, {b}"),
        [a, b, rest @ ..] => format!("PARTIAL: cannot list {a}, {b} +{}", rest.len()),
    }
}

#[cfg(test)]
mod partial_tests {
    use super::partial_label;

    #[test]
    fn many_unlisted_kinds_take_one_short_label() {
        let kinds: Vec<String> = (0..24).map(|i| format!("kind{i}")).collect();
        assert_eq!(
            partial_label(&kinds),
            "PARTIAL: cannot list kind0, kind1 +22"
        );
        assert_eq!(partial_label(&kinds[..1]), "PARTIAL: cannot list kind0");
    }
}

#[cfg(test)]
mod lost_tests {
    use super::first_line;
    use crate::app::{App, Options};
    use crate::backend::{Connection, SourceStatus, Update};

    #[test]
    fn a_long_lost_reason_never_hides_the_counts_or_read_only() {
        let mut app = App::new(Options {
            read_only: true,
            ..Options::default()
        });
        app.apply(Update::Status(SourceStatus {
            kind: "CLUSTER".into(),
            name: "prod".into(),
            scope: "all namespaces".into(),
            connection: Connection::Lost(format!(
                "https://10.0.0.1:6443 (context prod): {}",
                "tls: certificate signed by unknown authority, and more detail ".repeat(2)
            )),
            clock: None,
            missing_kinds: Vec::new(),
            controllers: Vec::new(),
        }));
        let line = first_line(&app, 120);
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(text.chars().count() <= 120, "{text}");
        assert!(text.contains("CONNECTION LOST (tree is stale)"), "{text}");
        assert!(text.contains("0 objects"), "{text}");
        assert!(text.contains("READ-ONLY"), "{text}");
        assert!(text.contains("https://10.0.0.1"), "the reason, cut: {text}");
        assert!(text.ends_with('…'), "{text}");
        let wide = first_line(&app, 250);
        let text: String = wide.spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(
            text.contains("certificate signed by unknown authority"),
            "{text}"
        );
        assert_eq!(
            line.style,
            crate::ui::theme::ERROR_LINE,
            "styled as a warning"
        );
    }
}
