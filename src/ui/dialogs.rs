//! Dialogs drawn over the panes. Each says what confirming will do, and
//! shows the exact request it will send.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::{preview, small_tree, theme, wrap};
use crate::app::App;
use crate::app::modal::{
    ConfirmDialog, ControllersDialog, DeleteDialog, FinalizerDialog, Picker, RemoverState,
};
use crate::backend::{Command, Permission};
use crate::model::{Object, Policy};

/// A rectangle of at most `w` x `h` centred in `area`.
#[must_use]
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

fn frame_block(title: String, style: Style) -> Block<'static> {
    Block::bordered()
        .border_style(style)
        .title(Line::from(Span::styled(title, style)))
}

fn keys_line(pairs: &[(&'static str, &'static str)]) -> Line<'static> {
    let mut spans = Vec::new();
    for (k, what) in pairs {
        spans.push(Span::styled((*k).to_string(), theme::KEY));
        spans.push(Span::raw(format!(" {what}   ")));
    }
    Line::from(spans)
}

/// The request a command sends, as a person reads it.
#[must_use]
pub fn request(app: &App, cmd: &Command) -> String {
    match cmd {
        Command::Delete { target, .. } | Command::ForceDelete { target } => {
            let (policy, grace) = match cmd {
                Command::Delete { policy, .. } => (*policy, ""),
                _ => (Policy::Background, " gracePeriodSeconds=0"),
            };
            let resource = app
                .graph()
                .kinds()
                .get(crate::model::group_of(&target.api_version), &target.kind)
                .map_or_else(|| target.kind.to_lowercase(), |k| k.resource());
            let ns = target
                .namespace
                .as_ref()
                .map(|n| format!(" -n {n}"))
                .unwrap_or_default();
            format!(
                "DELETE {resource}/{}{ns} propagationPolicy={policy}{grace} preconditions.uid={}",
                target.name, target.uid
            )
        }
        Command::RemoveFinalizer { target, finalizer } => format!(
            "PATCH {}/{}: remove finalizer {finalizer} (fails if the object changed since)",
            target.kind, target.name
        ),
        Command::Sim(s) => s.describe(),
        Command::Reconnect
        | Command::SwitchContext(_)
        | Command::SwitchNamespace(_)
        | Command::ReadEvidence(_) => cmd.describe(),
    }
}

/// What a force delete skips (STUCK-CAUSES C8: the StatefulSet
/// force-delete task's warning).
const FORCE_RISKS: &str = "FORCE (grace period 0, ! to undo): the pod object goes now, without its kubelet. If its node still runs it, its containers keep running, a StatefulSet may start a second pod with the same identity, and a volume may be attached twice. Finalizers still hold it. Safer: bring the node back, or delete the Node object once the machine is surely gone.";

fn policy_meaning(p: Policy) -> &'static str {
    match p {
        Policy::Background => "deleted now; the garbage collector then deletes its dependents",
        Policy::Foreground => {
            "dependents first: it stays Terminating until its blocking dependents are gone"
        }
        Policy::Orphan => "its dependents lose their reference to it and stay",
    }
}

/// The delete dialog: policy, preview, the request, the keys. Every line
/// is wrapped to the dialog's width: what it would send is read in full.
pub fn delete(app: &App, d: &DeleteDialog, frame: &mut Frame, area: Rect) {
    // Only what can show is made: the tree never takes more rows than
    // the screen has.
    let most = usize::from(area.height);
    let window = preview::window(&d.plan, d.scroll, most);
    let popup_w = area.width.saturating_sub(4).min(116);
    let w = usize::from(popup_w.saturating_sub(2));
    let mut policy_lines: Vec<Line> = vec![Line::from(Span::styled(
        "Propagation policy (b / f / o or ↑ ↓):",
        theme::HEADING,
    ))];
    let all_fit = Policy::ALL
        .iter()
        .all(|p| 4 + 11 + 10 + policy_meaning(*p).len() <= w);
    for p in Policy::ALL {
        let chosen = p == d.policy;
        let mark = if chosen { "(•) " } else { "( ) " };
        let mut spans = vec![
            Span::raw(mark),
            Span::styled(
                format!("{:<11}", p.as_str()),
                if chosen { theme::KIND } else { Style::new() },
            ),
        ];
        if d.default_policy == Some(p) {
            spans.push(Span::styled("[default] ", theme::EDGE));
        }
        // Where each meaning takes a row of its own, the chosen one's is
        // enough: the rows go to the preview.
        if chosen || all_fit {
            spans.push(Span::styled(policy_meaning(p), theme::DIM));
        }
        let line = Line::from(spans);
        let line = if chosen {
            line.style(theme::SELECTED)
        } else {
            line
        };
        policy_lines.extend(wrap::wrap_hanging(&line, w, 15));
    }
    // On an object already Terminating: what this second DELETE can and
    // cannot change (R17).
    let mut note_lines: Vec<Line> = Vec::new();
    if let Some(t) = app
        .graph()
        .get(&d.target.uid)
        .filter(|_| !d.force)
        .and_then(|o| crate::model::repeat_delete::explain(o, d.policy))
    {
        note_lines = wrap::wrap_line(&Line::from(Span::styled(t, theme::WARN)), w);
    }
    // A pod: the force delete, a deliberate choice with its risks said.
    if d.force {
        note_lines.extend(wrap::wrap_line(
            &Line::from(Span::styled(FORCE_RISKS, theme::BAD)),
            w,
        ));
    } else if app.graph().get(&d.target.uid).is_some_and(Object::is_pod) {
        note_lines.extend(wrap::wrap_line(
            &Line::from(vec![
                Span::styled("!", theme::KEY),
                Span::styled(
                    " force delete (grace period 0): for a pod whose node will never confirm",
                    theme::DIM,
                ),
            ]),
            w,
        ));
    }
    let mut s = vec![
        Span::styled("Preview: ", theme::HEADING),
        Span::raw(d.plan.summary()),
    ];
    if let Some(n) = &d.plan.policy_note {
        s.push(Span::styled(format!("  ({n})"), theme::DIM));
    }
    let mut summary = wrap::wrap_line(&Line::from(s), w);
    let waves = d.plan.entries.iter().any(|e| {
        matches!(
            e.outcome,
            crate::model::preview::Outcome::Deleted { wave: 1.. }
                | crate::model::preview::Outcome::Unsure { wave: 1.., .. }
        )
    });
    if waves {
        summary.extend(wrap::wrap_line(
            &Line::from(Span::styled(WAVES, theme::DIM)),
            w,
        ));
    }
    let refusal = d.refusal();
    let mut req_lines: Vec<Line> = Vec::new();
    match &refusal {
        Some(why) => {
            req_lines.push(Line::from(Span::styled(
                format!("✗ {why}: nothing will be sent"),
                theme::BAD,
            )));
            req_lines.push(Line::from(vec![
                Span::styled("The request would be: ", theme::DIM),
                Span::raw(request(app, &d.command)),
            ]));
        }
        None => {
            req_lines.extend(permission_line(d.permission.as_ref()));
            req_lines.push(Line::from(vec![
                Span::styled("Will send: ", theme::HEADING),
                Span::raw(request(app, &d.command)),
            ]));
        }
    }
    let req_lines = wrap::wrap_lines(&req_lines, w);
    let keys = if refusal.is_some() {
        keys_line(&[
            ("Esc/n", "close"),
            ("b/f/o", "preview another policy"),
            ("PgDn/PgUp", "scroll preview"),
        ])
    } else {
        keys_line(&[
            enter(app, "delete"),
            ("Esc/n", "cancel, send nothing"),
            ("PgDn/PgUp", "scroll preview"),
        ])
    };
    let keys = wrap::wrap_line(&keys, w);

    let len = |v: &[Line]| u16::try_from(v.len()).unwrap_or(u16::MAX);
    let fixed =
        len(&policy_lines) + len(&note_lines) + len(&summary) + len(&req_lines) + len(&keys);
    let tree_rows = if window.len >= most {
        most
    } else {
        small_tree::rows(&window.nodes, popup_w.saturating_sub(2))
    };
    let tree_rows = u16::try_from(tree_rows).unwrap_or(u16::MAX).max(1);
    let want = fixed.saturating_add(tree_rows).saturating_add(2);
    let popup = centered(area, popup_w, want.min(area.height.saturating_sub(2)));
    frame.render_widget(Clear, popup);
    let block = frame_block(format!(" Delete {} ", d.target), theme::BAD);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let [policies, note, summary_area, plan_area, req, keys_area] = Layout::vertical([
        Constraint::Length(len(&policy_lines)),
        Constraint::Length(len(&note_lines)),
        Constraint::Length(len(&summary)),
        Constraint::Min(1),
        Constraint::Length(len(&req_lines)),
        Constraint::Length(len(&keys)),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(policy_lines), policies);
    frame.render_widget(Paragraph::new(note_lines), note);
    frame.render_widget(Paragraph::new(summary), summary_area);
    small_tree::render(&window.nodes, frame, plan_area, window.scroll);
    frame.render_widget(Paragraph::new(req_lines), req);
    frame.render_widget(Paragraph::new(keys), keys_area);
}

/// What the preview's waves are, in one line.
pub const WAVES: &str = "Waves: each is deleted once the wave before it is gone.";

/// The backend's answer to "may this user do it?", when there is
/// something to say (nothing when permitted).
fn permission_line(p: Option<&Permission>) -> Option<Line<'static>> {
    Some(match p {
        Some(Permission::Allowed) => return None,
        Some(p @ Permission::Denied { .. }) => Line::from(Span::styled(
            format!(
                "✗ {}: confirming sends nothing",
                p.denial().unwrap_or_default()
            ),
            theme::BAD,
        )),
        Some(Permission::Unknown(why)) => Line::from(Span::styled(
            format!("Permission not checked ({why}): the server decides."),
            theme::WARN,
        )),
        None => Line::from(Span::styled("Checking permission...", theme::DIM)),
    })
}

/// Choosing a finalizer, then typing its name.
pub fn finalizer(app: &App, f: &FinalizerDialog, frame: &mut Frame, area: Rect) {
    let w = area.width.saturating_sub(4).min(100);
    let mut lines: Vec<Line> = Vec::new();
    match &f.confirm {
        None => {
            lines.push(Line::from(Span::styled("Which finalizer?", theme::HEADING)));
            for (i, name) in f.finalizers.iter().enumerate() {
                let info = crate::model::finalizers::describe(name);
                let sel = i == f.choice;
                let l = Line::from(vec![
                    Span::raw(if sel { "> " } else { "  " }),
                    Span::styled(name.clone(), theme::WARN),
                    Span::styled(format!("  {}", info.meaning), theme::DIM),
                ]);
                lines.push(if sel { l.style(theme::SELECTED) } else { l });
            }
            lines.push(Line::default());
            lines.push(keys_line(&[
                ("Enter", "choose"),
                ("Esc", "cancel, send nothing"),
            ]));
        }
        Some(c) => {
            lines.push(Line::from(vec![
                Span::styled("Finalizer ", theme::HEADING),
                Span::styled(c.info.name.clone(), theme::WARN),
            ]));
            lines.push(Line::from(vec![
                Span::styled("It means:     ", theme::DIM),
                Span::raw(c.info.meaning.clone()),
            ]));
            // The line below says whether that controller runs, when that
            // is known: the catalogue's "(stuck if ...)" then goes.
            let known = matches!(
                c.remover,
                RemoverState::Simulated { .. } | RemoverState::Found { runs: Some(_), .. }
            );
            lines.push(Line::from(vec![
                Span::styled("Removed by:   ", theme::DIM),
                Span::raw(c.info.removed_by_where(known).to_string()),
            ]));
            // Whether that controller runs, before the user decides (the
            // option is never hidden: the user decides).
            let (state, warning) = match &c.remover {
                RemoverState::Simulated { online: true } => (
                    "online (simulated)".to_string(),
                    Some(
                        "It may be in the middle of its cleanup, and may add the finalizer again: let it finish first.",
                    ),
                ),
                RemoverState::Simulated { online: false } => (
                    "OFFLINE (simulated): nothing will remove it".to_string(),
                    None,
                ),
                RemoverState::Found { sentence, runs } => (
                    sentence.clone(),
                    match runs {
                        Some(true) => Some(
                            "It runs: it may be in the middle of its cleanup, and may add the finalizer again.",
                        ),
                        Some(false) => None,
                        None => Some("Whether it runs is not known here."),
                    },
                ),
                RemoverState::BuiltIn => ("part of Kubernetes (see above)".to_string(), None),
            };
            lines.push(Line::from(vec![
                Span::styled("Its controller: ", theme::DIM),
                Span::raw(state),
            ]));
            if let Some(w) = warning {
                lines.push(Line::from(Span::styled(w, theme::WARN)));
            }
            for w in &c.webhooks {
                lines.push(Line::from(Span::styled(format!("⚠ {w}"), theme::BAD)));
            }
            lines.push(Line::from(vec![
                Span::styled(
                    "⚠ Removing it by hand skips that cleanup. It protects: ",
                    theme::BAD,
                ),
                Span::raw(c.info.protects.clone()),
            ]));
            if let Some(o) = app.graph().get(&f.target.uid)
                && o.is_terminating()
                && o.metadata.finalizers.len() == 1
            {
                lines.push(Line::from(Span::styled(
                    "It is the last finalizer of a Terminating object: the object is deleted at once.",
                    theme::WARN,
                )));
            }
            lines.extend(permission_line(f.permission.as_ref()));
            lines.push(Line::from(vec![
                Span::styled("Will send: ", theme::HEADING),
                Span::raw(request(app, &c.command)),
            ]));
            lines.push(Line::default());
            lines.push(Line::from(Span::styled(
                "Type the finalizer's name to confirm:",
                theme::HEADING,
            )));
            let typed_style = if c.typed == c.info.name {
                theme::GOOD
            } else {
                Style::new()
            };
            let mut input = vec![
                Span::styled("> ", theme::KEY),
                Span::styled(c.typed.clone(), typed_style),
                Span::styled("█", theme::DIM),
            ];
            if c.mismatch {
                input.push(Span::styled("  does not match: nothing sent", theme::BAD));
            }
            lines.push(Line::from(input));
            lines.push(keys_line(&[
                enter(app, "remove (name must match)"),
                ("Esc", "cancel, send nothing"),
            ]));
        }
    }
    let lines = wrap::wrap_hanging_lines(&lines, usize::from(w.saturating_sub(2)), 2);
    let title = format!(" Remove a finalizer from {} ", f.target);
    let inner = fitted_popup(frame, area, w, lines.len(), title, theme::BAD);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The `Enter` of a dialog that sends: until the dialog has been on
/// screen long enough to be read, it says that it does not send yet.
fn enter(app: &App, what: &'static str) -> (&'static str, &'static str) {
    if app.enter_ready() {
        ("Enter", what)
    } else {
        ("Enter", "(read first: sends nothing yet)")
    }
}

/// A framed popup `w` wide and as tall as `rows` wrapped lines (within
/// `area`), cleared and drawn; returns the room inside the frame.
fn fitted_popup(
    frame: &mut Frame,
    area: Rect,
    w: u16,
    rows: usize,
    title: String,
    style: Style,
) -> Rect {
    let h = u16::try_from(rows).unwrap_or(u16::MAX).saturating_add(2);
    let popup = centered(area, w, h);
    frame.render_widget(Clear, popup);
    let block = frame_block(title, style);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    inner
}

/// A yes/no confirmation.
pub fn confirm(app: &App, c: &ConfirmDialog, frame: &mut Frame, area: Rect) {
    let w = area.width.saturating_sub(4).min(90);
    let mut lines: Vec<Line> = c.lines.iter().map(|l| Line::from(l.clone())).collect();
    lines.push(Line::from(vec![
        Span::styled("Will run: ", theme::HEADING),
        Span::raw(request(app, &c.command)),
    ]));
    lines.push(Line::default());
    lines.push(keys_line(&[enter(app, "confirm"), ("Esc/n", "cancel")]));
    let lines = wrap::wrap_lines(&lines, usize::from(w.saturating_sub(2)));
    let title = format!(" {} ", c.title);
    let inner = fitted_popup(frame, area, w, lines.len(), title, theme::WARN);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// A list to pick from: one row per entry, cut with `…`, and the chosen
/// entry's description in full.
pub fn pick(p: &Picker, frame: &mut Frame, area: Rect) {
    let w = area.width.saturating_sub(4).min(100);
    let text_w = usize::from(w.saturating_sub(2));
    let entry = |i: usize, it: &crate::app::modal::PickItem| {
        let sel = i == p.choice;
        let l = Line::from(vec![
            Span::raw(if sel { "> " } else { "  " }),
            Span::raw(if it.current { "• " } else { "  " }),
            Span::styled(format!("{:<24}", it.label), theme::KIND),
            Span::styled(format!(" {}", it.detail), theme::DIM),
        ]);
        // Every description whole, wrapped under itself: each is read
        // to choose.
        if sel {
            wrap::wrap_hanging(&l.style(theme::SELECTED), text_w, 29)
        } else {
            wrap::wrap_hanging(&l, text_w, 29)
        }
    };
    let rows: Vec<Vec<Line>> = p
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| entry(i, it))
        .collect();
    let total: usize = rows.iter().map(Vec::len).sum();
    let note = wrap::wrap_line(
        &Line::from(Span::styled(p.note.clone(), theme::DIM)),
        text_w,
    );
    let keys = keys_line(&[("↑↓", "move"), ("Enter", "choose"), ("Esc", "close")]);
    let note_h = u16::try_from(note.len() + 1).unwrap_or(2);
    let want = u16::try_from(total)
        .unwrap_or(u16::MAX)
        .saturating_add(note_h)
        .saturating_add(2);
    let popup = centered(area, w, want);
    frame.render_widget(Clear, popup);
    let block = frame_block(format!(" {} ", p.title), theme::TITLE);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let [list, note_area] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(note_h)]).areas(inner);
    // The first entry shown: the chosen one and those above it fit.
    let h = usize::from(list.height).max(1);
    let mut start = p.choice.min(rows.len().saturating_sub(1));
    let mut used = rows.get(start).map_or(0, Vec::len);
    while start > 0 && used + rows[start - 1].len() <= h {
        start -= 1;
        used += rows[start].len();
    }
    let lines: Vec<Line> = rows.into_iter().skip(start).flatten().take(h).collect();
    frame.render_widget(Paragraph::new(lines), list);
    let mut bottom = note;
    bottom.push(keys);
    frame.render_widget(Paragraph::new(bottom), note_area);
}

/// The simulated controllers.
pub fn controllers(app: &App, c: &ControllersDialog, frame: &mut Frame, area: Rect) {
    let list = app
        .status()
        .map(|s| s.controllers.clone())
        .unwrap_or_default();
    let w = area.width.saturating_sub(4).min(100);
    let mut lines: Vec<Line> = Vec::new();
    for (i, ctl) in list.iter().enumerate() {
        let sel = i == c.choice;
        let carried = c
            .usage
            .iter()
            .find(|(f, _)| *f == ctl.finalizer)
            .map_or(0, |(_, n)| *n);
        let (state, style) = if ctl.online {
            ("online ", theme::GOOD)
        } else {
            ("OFFLINE", theme::BAD)
        };
        let l = Line::from(vec![
            Span::raw(if sel { "> " } else { "  " }),
            Span::styled(format!("{state}  "), style),
            Span::styled(ctl.finalizer.clone(), theme::WARN),
        ]);
        lines.push(if sel { l.style(theme::SELECTED) } else { l });
        #[allow(clippy::cast_precision_loss)]
        let after = ctl.after_ms as f64 / 1000.0;
        let action = match (&ctl.workload, ctl.online) {
            (Some(_), true) => {
                "Enter: scale it to 0 - objects with this finalizer will stay Terminating"
            }
            (Some(_), false) => "Enter: scale it to 1",
            (None, true) => {
                "Enter: take it offline - objects with this finalizer will stay Terminating"
            }
            (None, false) => "Enter: bring it online",
        };
        if let Some(w) = &ctl.workload {
            lines.push(Line::from(Span::styled(
                format!(
                    "     runs as {w}{}",
                    if ctl.online {
                        ""
                    } else {
                        ": scaled to 0 or gone"
                    }
                ),
                theme::DIM,
            )));
        }
        lines.push(Line::from(Span::styled(
            format!(
                "     {} its finalizer {after}s after deletion; {} {} it now. {}",
                if ctl.online {
                    "removes"
                } else {
                    "once online, removes"
                },
                crate::model::wording::count(carried, "object"),
                if carried == 1 { "carries" } else { "carry" },
                if sel { action } else { "" }
            ),
            theme::DIM,
        )));
    }
    lines.push(Line::default());
    lines.push(keys_line(&[
        ("↑↓", "move"),
        enter(app, "switch and close"),
        ("Esc", "close"),
    ]));
    let lines = wrap::wrap_lines(&lines, usize::from(w.saturating_sub(2)));
    let title = " Simulated controllers ".to_string();
    let inner = fitted_popup(frame, area, w, lines.len(), title, theme::TITLE);
    // Keep the chosen controller in view on a short screen.
    let chosen_row = lines
        .iter()
        .position(|l| l.style == theme::SELECTED)
        .unwrap_or(0);
    let scroll = chosen_row.saturating_sub(usize::from(inner.height.saturating_sub(3)));
    frame.render_widget(
        Paragraph::new(lines).scroll((u16::try_from(scroll).unwrap_or(0), 0)),
        inner,
    );
}
