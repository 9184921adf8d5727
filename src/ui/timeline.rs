//! The timeline: what happened, in order (virtual time, change, object),
//! all objects or only the selected one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{theme, wrap};
use crate::app::{App, TimelineScope};
use crate::backend::Happening;

/// Entries kept in view below the one under the cursor.
const CONTEXT: usize = 3;

/// Draws the timeline pane, newest at the bottom: one row per entry, cut
/// with `…`, and the entry under the cursor (the newest, unless Tab moved
/// the keys here) in full. `tabs`: the narrow layout, where it shares its
/// place with the details.
pub fn render(app: &App, frame: &mut Frame, area: Rect, _tabs: bool) {
    let selected = app
        .selected_row()
        .and_then(|r| app.row_uid(r).map(str::to_string));
    let entries = app.timeline_entries();
    let at = app.timeline_position(&entries);
    let focused = app.timeline_focused();
    let mut title = vec![Span::styled(" Timeline ", theme::TITLE)];
    if let Some(i) = at {
        title.push(Span::styled(
            format!("{}/{} ", i + 1, entries.len()),
            theme::DIM,
        ));
    }
    let scope = match (app.timeline_scope(), app.selected_object()) {
        (TimelineScope::Selected, Some(o)) => format!("· only {}/{} (a: all) ", o.kind, o.name()),
        _ => "· all (a: selected only) ".to_string(),
    };
    title.push(Span::styled(scope, theme::DIM));
    if focused {
        title.push(Span::styled("· Enter: go to its object ", theme::KEY));
    } else {
        title.push(Span::styled("· Tab: move in ", theme::DIM));
    }
    let mut inner = super::layout::pane(frame, area, title);
    let w = usize::from(inner.width);
    let Some(at) = at else {
        // A paused clock with a step ahead: the user acts next either way.
        let paused = app
            .status()
            .and_then(|s| s.clock.as_ref())
            .is_some_and(|c| c.paused);
        let step_ahead = app.story().is_some_and(|s| s.next.is_some());
        let msg = if app.timeline_scope() == TimelineScope::Selected {
            "nothing happened to this object yet"
        } else if paused && step_ahead {
            "nothing happened yet: the clock is paused (Space runs the scenario), or delete something (Ctrl-d)"
        } else {
            "nothing happened yet: delete something (Ctrl-d)"
        };
        let mut lines = story_lines(app);
        lines.push(Line::from(Span::styled(msg, theme::DIM)));
        frame.render_widget(Paragraph::new(wrap::wrap_lines(&lines, w)), inner);
        return;
    };
    // The scenario's next step, on the pane's last rows: what comes next
    // in the story, whole (on up to a third of the pane, cut only beyond).
    if let Some(next) = app.story().and_then(|s| s.next.as_ref())
        && inner.height > 2
    {
        let mut rows = wrap::wrap_hanging(&next_line(next), w, 9);
        let most = usize::from(inner.height / 3).max(1);
        if rows.len() > most {
            rows.truncate(most);
            if let Some(last) = rows.pop() {
                rows.push(wrap::cut(
                    Line::from(format!("{}…", line_text(&last))).style(theme::DIM),
                    w,
                ));
            }
        }
        let n = u16::try_from(rows.len()).unwrap_or(1);
        inner.height -= n;
        let area = Rect {
            y: inner.y + inner.height,
            height: n,
            ..inner
        };
        frame.render_widget(Paragraph::new(rows), area);
    }
    let h = usize::from(inner.height);
    let mut full = wrap::wrap_hanging(&line(entries[at].1, selected.as_deref()), w, 9);
    full.truncate(h.max(1));
    if focused {
        full = full
            .into_iter()
            .map(|l| l.patch_style(theme::SELECTED))
            .collect();
    }
    let n = entries.len();
    let room = h.saturating_sub(full.len());
    let one = |(_, x): &(u64, &Happening)| fitted(x, selected.as_deref(), w);
    // A few entries after the cursor's, then as many before it as fit,
    // then, if every older one is shown, more after it.
    let mut after: Vec<Line> = Vec::new();
    let mut next = at + 1;
    while next < n && next <= at + CONTEXT {
        let l = one(&entries[next]);
        if after.len() + l.len() > room {
            break;
        }
        after.extend(l);
        next += 1;
    }
    let mut before: Vec<Line> = Vec::new();
    let mut first = at;
    while first > 0 {
        let l = one(&entries[first - 1]);
        if before.len() + l.len() + after.len() > room {
            break;
        }
        before.splice(0..0, l);
        first -= 1;
    }
    while first == 0 && next < n {
        let l = one(&entries[next]);
        if before.len() + l.len() + after.len() > room {
            break;
        }
        after.extend(l);
        next += 1;
    }
    let mut lines = before;
    lines.extend(full);
    lines.extend(after);
    // The scenario's story stays on top while the pane has room for it
    // and for every entry: it is on screen when the scenario opens.
    if first == 0 && next == n {
        let story = wrap::wrap_lines(&description_lines(app), w);
        if lines.len() + story.len() <= h {
            lines.splice(0..0, story);
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// A line's text, without its styles.
fn line_text(l: &Line<'_>) -> String {
    l.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// `    next  step 2 of 3 at 5.0s: ...`, in the timeline's columns.
fn next_line(next: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{:>8} ", "next"), theme::KEY),
        Span::styled(next.to_string(), theme::DIM),
    ])
}

/// What the scenario is about, if it says.
fn description_lines(app: &App) -> Vec<Line<'static>> {
    match app.story() {
        Some(s) if !s.description.is_empty() => vec![Line::from(vec![
            Span::styled(format!("Scenario {}: ", s.scenario), theme::HEADING),
            Span::raw(s.description.clone()),
        ])],
        _ => Vec::new(),
    }
}

/// The scenario's story while nothing has happened: what it is about and
/// its next step.
fn story_lines(app: &App) -> Vec<Line<'static>> {
    let Some(s) = app.story() else {
        return Vec::new();
    };
    let mut out = description_lines(app);
    if let Some(n) = &s.next {
        out.push(next_line(n));
    }
    out
}

/// A timeline time, seconds since the source started, in 8 columns:
/// `12.4s`, `-5m40s` (an Event from before the session), `2h05m`.
#[must_use]
pub fn when(t: f64) -> String {
    let sign = if t < 0.0 { "-" } else { "" };
    let a = t.abs();
    if a < 1000.0 {
        return format!("{t:.1}s");
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let secs = a as u64;
    if secs < 100 * 60 {
        format!("{sign}{}m{:02}s", secs / 60, secs % 60)
    } else if secs < 100 * 3600 {
        format!("{sign}{}h{:02}m", secs / 3600, secs % 3600 / 60)
    } else {
        format!("{sign}{}d", secs / 86_400)
    }
}

/// An entry in `w` columns: on one row when it fits, the object's name
/// shortened first (`Pod/nightly-…k2x8v`); else on two, when, verb,
/// object and who did it on the first, the change on the second. The verb,
/// the change and `(by …)` stay in view; only a change longer than a
/// whole row is cut.
#[must_use]
pub fn fitted(x: &Happening, selected: Option<&str>, w: usize) -> Vec<Line<'static>> {
    let whole = line(x, selected);
    if whole.width() <= w {
        return vec![whole];
    }
    let object = format!("{}/{}", x.object.kind, x.object.name);
    let n = |t: &str| Span::raw(t.to_string()).width();
    let fixed = whole.width() - n(&object) - n(&x.detail);
    let room = w.saturating_sub(fixed);
    // The kind stays whole when it can: the name gives way.
    let with_object = |room: usize| {
        let mut y = x.clone();
        let kind = n(&x.object.kind) + 1;
        if room > kind {
            y.object.name = shorten(&x.object.name, room - kind);
        } else {
            y.object.kind = shorten(&x.object.kind, room.saturating_sub(1));
            y.object.name = String::new();
        }
        y
    };
    if room >= n(&x.detail) + MIN_OBJECT {
        return vec![line(&with_object(room - n(&x.detail)), selected)];
    }
    // Two rows. The spans of a line: when, verb, object, gap, change, by.
    let spans = line(x, selected).spans;
    let [when, verb, _, _, change, by] = spans.as_slice() else {
        return vec![wrap::cut(whole, w)];
    };
    let object_room = w.saturating_sub(when.width() + verb.width() + by.width());
    // Who did it goes under, with the change, rather than leave the object
    // unreadable (`Clus…e/`).
    let by_under = object_room < n(&x.object.kind) + 1 + MIN_NAME;
    let object_room = if by_under {
        w.saturating_sub(when.width() + verb.width())
    } else {
        object_room
    };
    let object_span = line(&with_object(object_room), selected).spans[2].clone();
    let mut first = vec![when.clone(), verb.clone(), object_span];
    if !by_under {
        first.push(by.clone());
    }
    // The change under it, on two rows at most.
    let mut rows = vec![wrap::cut(Line::from(first), w)];
    // Who did it first when it came down: a long change is cut at its
    // end, never the actor.
    let mut under = vec![Span::raw(" ".repeat(9))];
    if by_under {
        under.push(Span::styled(
            format!("{} ", by.content.trim_start()),
            by.style,
        ));
    }
    under.push(change.clone());
    let change = Line::from(under);
    let mut rest = wrap::wrap_hanging(&change, w, 9);
    // Two rows for the change, a third when who did it came down too.
    let most = if by_under { 3 } else { 2 };
    if rest.len() > most {
        rest.truncate(most);
        let last: String = rest[most - 1]
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        rest[most - 1] = Line::from(Span::styled(
            shorten_end(last.trim_end(), w.saturating_sub(1)),
            change.spans[change.spans.len() - 1].style,
        ));
    }
    rows.extend(rest);
    rows
}

/// Columns an object's name keeps at least on a timeline row.
const MIN_OBJECT: usize = 18;

/// Columns of an object's name (after its kind) below which who did it
/// goes to the next row instead.
const MIN_NAME: usize = 6;

/// `ReplicaSet/web-7d…c6b5`: the middle of a name gives way, its start
/// (the kind, the workload) and its end (a hash that tells it apart) stay.
fn shorten(text: &str, w: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= w {
        return text.to_string();
    }
    if w < 3 {
        return chars.iter().take(w).collect();
    }
    let tail = (w - 1) / 3;
    let head = w - 1 - tail;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// The start of a text in `w` columns, `…` at the cut.
fn shorten_end(text: &str, w: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= w {
        return text.to_string();
    }
    if w == 0 {
        return String::new();
    }
    let mut out: String = chars[..w - 1].iter().collect();
    out.push('…');
    out
}

/// `   12.4s  updated  ReplicaSet/web-1  +finalizer foregroundDeletion (by gc)`
#[must_use]
pub fn line(x: &Happening, selected: Option<&str>) -> Line<'static> {
    let mine = selected == Some(x.object.uid.as_str());
    let text_style = if x.warning { theme::WARN } else { Style::new() };
    let obj_style = if mine {
        theme::KIND.patch(theme::EDGE)
    } else {
        theme::KIND
    };
    Line::from(vec![
        Span::styled(format!("{:>8} ", when(x.t)), theme::DIM),
        Span::styled(
            format!("{}{:<8} ", if x.warning { "⚠ " } else { "" }, x.verb),
            text_style,
        ),
        Span::styled(format!("{}/{}", x.object.kind, x.object.name), obj_style),
        Span::raw("  "),
        Span::styled(x.detail.clone(), text_style),
        Span::styled(format!("  (by {})", x.by), theme::DIM),
    ])
}

#[cfg(test)]
mod fit_tests {
    use super::*;
    use crate::backend::Happening;
    use crate::model::ObjRef;

    fn happening() -> Happening {
        Happening {
            t: 12.5,
            verb: "updated".into(),
            object: ObjRef {
                kind: "Pod".into(),
                name: "nightly-report-29411520-k2x8v".into(),
                ..ObjRef::default()
            },
            detail: "-finalizer batch.kubernetes.io/job-tracking".into(),
            by: "job-controller".into(),
            warning: false,
        }
    }

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    /// At the width of the timeline pane on a 120-column screen (56) and
    /// a 160-column one (75), the verb, the change and who did it stay;
    /// the object's name gives way first.
    #[test]
    fn who_did_it_and_what_changed_stay_on_a_narrow_row() {
        let h = happening();
        for w in [56, 75, 90, 110] {
            let rows = fitted(&h, None, w);
            let t: Vec<String> = rows.iter().map(text).collect();
            let all = t.join("\n");
            assert!(all.contains("updated"), "{w}: {all}");
            assert!(all.contains("(by job-controller)"), "{w}: {all}");
            assert!(
                all.contains("-finalizer batch.kubernetes.io/job-tracking"),
                "{w}: {all}"
            );
            assert!(all.contains("Pod/nightly"), "{w}: {all}");
            assert!(rows.iter().all(|l| l.width() <= w), "{w}: {all}");
        }
        assert_eq!(
            fitted(&h, None, 110).len(),
            1,
            "one row when it fits shortened"
        );
        let wide = text(&fitted(&h, None, 200)[0]);
        assert!(wide.contains("Pod/nightly-report-29411520-k2x8v"), "{wide}");
    }

    /// A long actor and a long change: the object stays readable on the
    /// first row, and who did it goes under, with the change.
    #[test]
    fn a_long_actor_goes_under_rather_than_hide_the_object() {
        let h = Happening {
            t: 0.0,
            verb: "event".into(),
            object: ObjRef {
                kind: "ClusterRole".into(),
                name: "shop-reader".into(),
                ..ObjRef::default()
            },
            detail: "Warning OwnerRefInvalidNamespace: ownerRef [v1/ConfigMap, namespace: , name: web-cache]".into(),
            by: "garbage-collector-controller".into(),
            warning: true,
        };
        let rows = fitted(&h, None, 62);
        let t: Vec<String> = rows.iter().map(text).collect();
        assert!(t[0].contains("ClusterRole/shop-reader"), "{t:?}");
        let words: Vec<&str> = t.iter().flat_map(|r| r.split_whitespace()).collect();
        assert!(
            words
                .join(" ")
                .contains("(by garbage-collector-controller)"),
            "{t:?}"
        );
        assert!(rows.iter().all(|l| l.width() <= 62), "{t:?}");
    }
}

#[cfg(test)]
mod next_step_tests {
    use std::time::Duration;

    use crate::tools::session::{Session, words};

    /// The scenario's next step is read whole once something happened, at
    /// 120 columns too ("take the controller of…" said nothing of whom).
    #[test]
    fn the_next_step_is_not_cut() {
        let mut s = Session::new("controller-scaled-to-zero", 120, 40, false).expect("bundled");
        let paused = words(&s.screen());
        assert!(
            paused.contains("the clock is paused (Space runs the scenario), or delete something"),
            "who acts next, at the start: {paused}"
        );
        s.keys("<Space>");
        s.wait(Duration::from_secs(3));
        let screen = s.screen();
        assert!(
            words(&screen).contains("next step 2 of 2 at 60.0s:"),
            "{screen}"
        );
        assert!(!screen.contains("controller of…"), "{screen}");
        let next = screen
            .lines()
            .position(|l| l.contains("next step 2 of 2"))
            .expect("on screen");
        let after: String = screen.lines().skip(next + 1).take(2).collect();
        assert!(
            after.contains("online") || after.contains("scale"),
            "the step's end is on the next rows: {screen}"
        );
    }
}
