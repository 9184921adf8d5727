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

/// The source, the clock and the counts. What must never be lost comes
/// whole: the stale marker, the partial marker, the counts, the filter,
/// `READ-ONLY`; the source's name and the reason the connection is lost
/// share the room that is left, cut with `…`.
#[must_use]
pub fn first_line(app: &App, width: u16) -> Line<'_> {
    let width = usize::from(width);
    let mut style = theme::STATUS;
    // (long form, short form) of each part that stays.
    let mut kept: Vec<(String, String)> = Vec::new();
    let mut name = String::from(" connecting…");
    let mut reason: Option<String> = None;
    if let Some(s) = app.status() {
        name = format!(" {} {}", s.kind, s.name);
        if let Some(c) = &s.clock {
            #[allow(clippy::cast_precision_loss)]
            let t = c.now_ms as f64 / 1000.0;
            let state = if c.starting {
                style = theme::STATUS_PAUSED;
                "STARTING"
            } else if c.paused {
                style = theme::STATUS_PAUSED;
                "PAUSED"
            } else {
                "RUNNING"
            };
            let clock = format!("t={t:.1}s x{} {state}", speed(c.speed));
            if c.starting {
                kept.push((format!("{clock} (controllers' first look)"), clock));
            } else {
                kept.push((clock.clone(), clock));
            }
        }
        match &s.connection {
            Connection::Lost(why) => {
                // The reason names the server and the context: the name
                // gives it its room.
                name = format!(" {}", s.kind);
                style = theme::ERROR_LINE;
                kept.push((
                    "CONNECTION LOST (tree is stale)".into(),
                    "LOST (stale)".into(),
                ));
                reason = Some(why.clone());
            }
            Connection::Syncing => {
                style = theme::STATUS_STALE;
                kept.push(syncing_label(&s.syncing));
            }
            Connection::Connected => {}
        }
        if !s.missing_kinds.is_empty() {
            kept.push((
                partial_label(&s.missing_kinds),
                format!("PARTIAL {}", s.missing_kinds.len()),
            ));
        }
    }
    let ix = app.index();
    let counts = [
        (ix.len(), "object", "obj"),
        (ix.terminating_count(), "Terminating", "Term"),
        (ix.problem_count(), "problem", "prob"),
    ];
    let count = |short: bool, sep: &str| {
        counts
            .iter()
            .map(|(n, l, s)| match (short, *l) {
                (true, _) => format!("{n} {s}"),
                (false, "Terminating") => format!("{n} {l}"),
                (false, _) => crate::model::wording::count(*n, l),
            })
            .collect::<Vec<_>>()
            .join(sep)
    };
    kept.push((count(false, " · "), count(true, " ")));
    let f = app.filters().label();
    if !f.is_empty() {
        let filter = format!("filter: {f}");
        kept.push((filter.clone(), filter));
    }
    if app.read_only() {
        kept.push(("READ-ONLY".into(), "READ-ONLY".into()));
    }
    let join = |short: bool, sep: &str| {
        kept.iter()
            .map(|(l, s)| if short { s.as_str() } else { l.as_str() })
            .collect::<Vec<_>>()
            .join(sep)
    };
    // The widest form of what stays that leaves the name whole (it may
    // hold what the user copies: `export KUBECONFIG=...`); the name is
    // cut only when even the short forms leave it too little room.
    let mut sep = " │ ";
    let mut middle = join(false, sep);
    for (short, s) in [(false, "  "), (true, " ")] {
        if len(&name) + len(sep) + len(&middle) <= width {
            break;
        }
        sep = s;
        middle = join(short, sep);
    }
    let room = width.saturating_sub(len(&middle) + len(sep));
    // The reason takes at most half of the room when the name wants it.
    let name_len = len(&name);
    let reason_room = reason.as_ref().map_or(0, |r| {
        let want = len(r) + len(sep);
        want.min(room.saturating_sub(name_len).max(room / 2))
    });
    let name = cut(&name, room.saturating_sub(reason_room));
    let mut text = if name.is_empty() {
        middle
    } else {
        format!("{name}{sep}{middle}")
    };
    if let Some(why) = reason {
        let why = cut(&why, width.saturating_sub(len(&text) + len(sep)));
        if !why.is_empty() {
            text.push_str(sep);
            text.push_str(&why);
        }
    }
    Line::from(text).style(style)
}

fn len(s: &str) -> usize {
    s.chars().count()
}

/// `s` in at most `room` characters, cut with `…`; empty when no room is
/// worth it.
fn cut(s: &str, room: usize) -> String {
    if len(s) <= room {
        s.to_string()
    } else if room > 1 {
        let mut c: String = s.chars().take(room - 1).collect();
        c.push('…');
        c
    } else {
        String::new()
    }
}

/// `SYNCING replicasets.apps, pods +3 (tree is stale)` and its short form.
#[must_use]
pub fn syncing_label(kinds: &[String]) -> (String, String) {
    if kinds.is_empty() {
        return (
            "RECONNECTING (tree is stale)".into(),
            "RECONNECTING (stale)".into(),
        );
    }
    (
        format!("SYNCING {} (tree is stale)", few(kinds)),
        format!("SYNCING {} (stale)", kinds.len()),
    )
}

/// The first two names and how many more: `configmaps, secrets +22`.
#[must_use]
pub fn few(kinds: &[String]) -> String {
    match kinds {
        [] => String::new(),
        [a] => a.clone(),
        [a, b] => format!("{a}, {b}"),
        [a, b, rest @ ..] => format!("{a}, {b} +{}", rest.len()),
    }
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
            let paused = app
                .status()
                .and_then(|s| s.clock.as_ref())
                .is_some_and(|c| c.paused);
            let h = match b.action {
                crate::app::Action::OpenDelete if app.read_only() => "preview delete",
                crate::app::Action::PauseResume if paused => "resume",
                _ => h,
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
    format!("PARTIAL: cannot list {}", few(kinds))
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
        app.apply(Update::status(SourceStatus {
            kind: "CLUSTER".into(),
            name: "prod".into(),
            scope: "all namespaces".into(),
            connection: Connection::Lost(format!(
                "https://10.0.0.1:6443 (context prod): {}",
                "tls: certificate signed by unknown authority, and more detail ".repeat(2)
            )),
            clock: None,
            missing_kinds: Vec::new(),
            syncing: Vec::new(),
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

#[cfg(test)]
mod stale_tests {
    use super::first_line;
    use crate::app::{App, Options};
    use crate::backend::{Connection, SourceStatus, Update};

    fn app(connection: Connection, syncing: usize) -> App {
        let mut app = App::new(Options {
            read_only: true,
            ..Options::default()
        });
        app.apply(Update::status(SourceStatus {
            kind: "CLUSTER".into(),
            name: format!(
                "a-very-long-context-name-from-a-cloud-provider @ https://{}.example.com:6443 · all namespaces",
                "x".repeat(60)
            ),
            scope: "all namespaces".into(),
            connection,
            clock: None,
            missing_kinds: vec!["secrets".into()],
            syncing: (0..syncing).map(|i| format!("kind{i}")).collect(),
            controllers: Vec::new(),
        }));
        app
    }

    fn text(app: &App, width: u16) -> String {
        first_line(app, width)
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect()
    }

    #[test]
    fn syncing_kinds_are_named_and_a_long_name_gives_way() {
        let a = app(Connection::Syncing, 5);
        let whole = text(&a, 400);
        assert!(
            whole.contains(".example.com:6443 · all namespaces │ SYNCING"),
            "{whole}"
        );
        for must in [
            "SYNCING kind0, kind1 +3 (tree is stale)",
            "PARTIAL: cannot list secrets",
            "0 objects",
            "READ-ONLY",
        ] {
            assert!(whole.contains(must), "{must}: {whole}");
        }
        // Less room: the short forms first, the name kept whole.
        let wide = text(&a, 230);
        assert!(wide.chars().count() <= 230, "{wide}");
        assert!(wide.contains("all namespaces SYNCING 5 (stale)"), "{wide}");
        // Narrow: the short forms, all still there.
        let narrow = text(&a, 80);
        assert!(narrow.chars().count() <= 80, "{narrow}");
        for must in ["SYNCING 5 (stale)", "PARTIAL 1", "0 obj", "READ-ONLY"] {
            assert!(narrow.contains(must), "{must}: {narrow}");
        }
        assert!(narrow.contains('…'), "then the name is cut: {narrow}");
        assert_eq!(first_line(&a, 80).style, crate::ui::theme::STATUS_STALE);
    }

    #[test]
    fn when_lost_the_reason_takes_the_name_s_room() {
        let a = app(
            Connection::Lost(
                "https://10.0.0.1:6443 (context prod): certificate signed by unknown authority"
                    .into(),
            ),
            0,
        );
        let t = text(&a, 230);
        assert!(
            t.starts_with(" CLUSTER │ CONNECTION LOST (tree is stale)"),
            "{t}"
        );
        assert!(
            t.ends_with(
                "https://10.0.0.1:6443 (context prod): certificate signed by unknown authority"
            ),
            "{t}"
        );
        let narrow = text(&a, 70);
        for must in ["LOST (stale)", "0 obj", "READ-ONLY"] {
            assert!(narrow.contains(must), "{must}: {narrow}");
        }
        assert_eq!(first_line(&a, 70).style, crate::ui::theme::ERROR_LINE);
    }

    #[test]
    fn connected_shows_no_marker() {
        let a = app(Connection::Connected, 0);
        let t = text(&a, 200);
        assert!(
            !t.contains("STALE") && !t.contains("SYNCING") && !t.contains("LOST"),
            "{t}"
        );
    }

    #[test]
    fn the_stale_tree_is_marked_on_screen() {
        use ratatui::Terminal;
        use ratatui::backend::TestBackend;
        let mut a = app(Connection::Syncing, 3);
        let pod: crate::model::Object = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-2-a", "namespace": "shop", "uid": "p1",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": "web-2", "uid": "rs-2", "controller": true}]},
        }))
        .expect("pod");
        a.apply(Update::Reset {
            objects: vec![pod.into()],
            kinds: Box::new(crate::model::KindTable::builtin()),
        });
        a.apply(Update::Unlisted(vec![crate::model::Unlisted {
            resource: "replicasets.apps".into(),
            reason: "not synced: its watch has not listed yet".into(),
            group: "apps".into(),
            kind: "ReplicaSet".into(),
            detail: String::new(),
        }]));
        a.set_screen(100, 16);
        a.set_viewport(crate::ui::layout::tree_rows(ratatui::layout::Rect::new(
            0, 0, 100, 16,
        )));
        let mut term = Terminal::new(TestBackend::new(100, 16)).expect("terminal");
        term.draw(|f| crate::ui::render(&a, f)).expect("draw");
        let screen = format!("{}", term.backend());
        insta::assert_snapshot!("stale_tree_syncing", screen);
        let top = term.backend().buffer().cell((25, 0)).expect("cell").style();
        assert_eq!(
            top.bg,
            Some(ratatui::style::Color::Yellow),
            "the marker is styled"
        );
    }
}

#[cfg(test)]
mod wording_tests {
    use std::sync::Arc;

    use super::{first_line, second_line};
    use crate::app::{App, Options};
    use crate::backend::{Clock, Connection, SourceStatus, Update};
    use crate::model::{KindTable, Object};

    fn text(line: &ratatui::text::Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    /// The simulator's status, its clock at zero.
    fn status(paused: bool, starting: bool) -> SourceStatus {
        SourceStatus {
            kind: "SIMULATOR".into(),
            name: "s".into(),
            scope: "all namespaces".into(),
            connection: Connection::Connected,
            clock: Some(Clock {
                now_ms: 0,
                paused,
                speed: 1.0,
                starting,
            }),
            missing_kinds: Vec::new(),
            syncing: Vec::new(),
            controllers: Vec::new(),
        }
    }

    #[test]
    fn one_object_is_singular_and_a_paused_clock_offers_resume() {
        let mut app = App::new(Options {
            is_simulator: true,
            ..Options::default()
        });
        let mut cm = Object::new("v1", "ConfigMap", Some("shop"), "c");
        cm.metadata.uid = "u1".into();
        app.apply(Update::Reset {
            objects: vec![Arc::new(cm)],
            kinds: Box::new(KindTable::builtin()),
        });
        app.apply(Update::status(status(false, false)));
        let first = text(&first_line(&app, 160));
        assert!(first.contains("1 object ·"), "{first}");
        assert!(first.contains("0 problems"), "{first}");
        assert!(first.contains("t=0.0s x1 RUNNING"), "{first}");
        assert!(text(&second_line(&app)).contains("Space pause"));
        app.apply(Update::status(status(true, false)));
        let hints = text(&second_line(&app));
        assert!(hints.contains("Space resume"), "{hints}");
        assert!(!hints.contains("pause"), "{hints}");
    }

    /// A large file's tree is drawn while the simulator's controllers
    /// take their first look: the clock says it has not started, not that
    /// it runs.
    #[test]
    fn a_clock_waiting_for_the_controllers_first_look_says_so() {
        let mut app = App::new(Options {
            is_simulator: true,
            ..Options::default()
        });
        app.apply(Update::status(status(false, true)));
        let first = text(&first_line(&app, 160));
        assert!(
            first.contains("t=0.0s x1 STARTING (controllers' first look)"),
            "{first}"
        );
        assert!(!first.contains("RUNNING"), "{first}");
        let narrow = text(&first_line(&app, 60));
        assert!(narrow.contains("STARTING"), "{narrow}");
    }
}
