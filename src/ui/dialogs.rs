//! Dialogs drawn over the panes. Each says what confirming will do, and
//! shows the exact request it will send.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::{preview, small_tree, theme};
use crate::app::App;
use crate::app::modal::{ConfirmDialog, ControllersDialog, DeleteDialog, FinalizerDialog, Picker};
use crate::backend::{Command, Permission};
use crate::model::Policy;

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
        Command::Delete { target, policy } => {
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
                "DELETE {resource}/{}{ns} propagationPolicy={policy} preconditions.uid={}",
                target.name, target.uid
            )
        }
        Command::RemoveFinalizer { target, finalizer } => format!(
            "PATCH {}/{}: remove finalizer {finalizer} (fails if the object changed since)",
            target.kind, target.name
        ),
        Command::Sim(s) => s.describe(),
    }
}

fn policy_meaning(p: Policy) -> &'static str {
    match p {
        Policy::Background => "deleted now; the garbage collector then deletes its dependents",
        Policy::Foreground => {
            "dependents first: it stays Terminating until its blocking dependents are gone"
        }
        Policy::Orphan => "its dependents lose their reference to it and keep running",
    }
}

/// The delete dialog: policy, preview, the request, the keys.
pub fn delete(app: &App, d: &DeleteDialog, frame: &mut Frame, area: Rect) {
    let items = preview::items(&d.plan);
    let want = u16::try_from(small_tree::rows(&items))
        .unwrap_or(u16::MAX)
        .saturating_add(12);
    let popup = centered(
        area,
        area.width.saturating_sub(4).min(116),
        want.min(area.height.saturating_sub(2)),
    );
    frame.render_widget(Clear, popup);
    let block = frame_block(format!(" Delete {} ", d.target), theme::BAD);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let [policies, summary, plan_area, req, keys] = Layout::vertical([
        Constraint::Length(4),
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(match d.permission {
            Some(Permission::Allowed) => 2,
            Some(Permission::Denied { .. }) => 4,
            _ => 3,
        }),
        Constraint::Length(1),
    ])
    .areas(inner);
    let mut lines = vec![Line::from(Span::styled(
        "Propagation policy (b / f / o or ↑ ↓):",
        theme::HEADING,
    ))];
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
        spans.push(Span::styled(policy_meaning(p), theme::DIM));
        let line = Line::from(spans);
        lines.push(if chosen {
            line.style(theme::SELECTED)
        } else {
            line
        });
    }
    frame.render_widget(Paragraph::new(lines), policies);
    let mut s = vec![
        Span::styled("Preview: ", theme::HEADING),
        Span::raw(d.plan.summary()),
    ];
    if let Some(n) = &d.plan.policy_note {
        s.push(Span::styled(format!("  ({n})"), theme::DIM));
    }
    frame.render_widget(Paragraph::new(Line::from(s)), summary);
    small_tree::render(&items, frame, plan_area, d.scroll);
    let mut req_lines: Vec<Line> = permission_line(d.permission.as_ref()).into_iter().collect();
    req_lines.push(Line::from(vec![
        Span::styled("Will send: ", theme::HEADING),
        Span::raw(request(app, &d.command)),
    ]));
    frame.render_widget(Paragraph::new(req_lines).wrap(Wrap { trim: false }), req);
    frame.render_widget(
        Paragraph::new(keys_line(&[
            ("Enter/y", "delete"),
            ("Esc/n", "cancel, send nothing"),
            ("PgDn/PgUp", "scroll preview"),
        ])),
        keys,
    );
}

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
    let popup = centered(
        area,
        area.width.saturating_sub(4).min(100),
        area.height.saturating_sub(2).min(22),
    );
    frame.render_widget(Clear, popup);
    let block = frame_block(
        format!(" Remove a finalizer from {} ", f.target),
        theme::BAD,
    );
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
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
            lines.push(Line::from(vec![
                Span::styled("Removed by:   ", theme::DIM),
                Span::raw(c.info.removed_by.clone()),
            ]));
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
                ("Enter", "remove (name must match)"),
                ("Esc", "cancel, send nothing"),
            ]));
        }
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// A yes/no confirmation.
pub fn confirm(app: &App, c: &ConfirmDialog, frame: &mut Frame, area: Rect) {
    let h = u16::try_from(c.lines.len()).unwrap_or(10) + 6;
    let popup = centered(area, area.width.saturating_sub(4).min(90), h);
    frame.render_widget(Clear, popup);
    let block = frame_block(format!(" {} ", c.title), theme::WARN);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let mut lines: Vec<Line> = c.lines.iter().map(|l| Line::from(l.clone())).collect();
    lines.push(Line::from(vec![
        Span::styled("Will run: ", theme::HEADING),
        Span::raw(request(app, &c.command)),
    ]));
    lines.push(Line::default());
    lines.push(keys_line(&[("Enter/y", "confirm"), ("Esc/n", "cancel")]));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// A list to pick from.
pub fn pick(p: &Picker, frame: &mut Frame, area: Rect) {
    let n = u16::try_from(p.items.len()).unwrap_or(u16::MAX);
    let popup = centered(
        area,
        area.width.saturating_sub(4).min(100),
        n.saturating_add(5),
    );
    frame.render_widget(Clear, popup);
    let block = frame_block(format!(" {} ", p.title), theme::TITLE);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let [list, note] = Layout::vertical([Constraint::Min(1), Constraint::Length(2)]).areas(inner);
    let h = usize::from(list.height).max(1);
    let start = p.choice.saturating_sub(h - 1);
    let lines: Vec<Line> = p
        .items
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .map(|(i, it)| {
            let sel = i == p.choice;
            let l = Line::from(vec![
                Span::raw(if sel { "> " } else { "  " }),
                Span::raw(if it.current { "• " } else { "  " }),
                Span::styled(format!("{:<24}", it.label), theme::KIND),
                Span::styled(format!(" {}", it.detail), theme::DIM),
            ]);
            if sel { l.style(theme::SELECTED) } else { l }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), list);
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(Span::styled(p.note.clone(), theme::DIM)),
            keys_line(&[("↑↓", "move"), ("Enter", "choose"), ("Esc", "close")]),
        ]),
        note,
    );
}

/// The simulated controllers.
pub fn controllers(app: &App, c: &ControllersDialog, frame: &mut Frame, area: Rect) {
    let list = app
        .status()
        .map(|s| s.controllers.clone())
        .unwrap_or_default();
    let n = u16::try_from(list.len()).unwrap_or(20);
    let popup = centered(area, area.width.saturating_sub(4).min(100), n * 2 + 6);
    frame.render_widget(Clear, popup);
    let block = frame_block(" Simulated controllers ".into(), theme::TITLE);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
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
        let action = if ctl.online {
            "Enter: take it offline - objects with this finalizer will stay Terminating"
        } else {
            "Enter: bring it online - it removes its finalizer from Terminating objects"
        };
        lines.push(Line::from(Span::styled(
            format!(
                "     removes its finalizer {after}s after deletion; {} {} it now. {}",
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
        ("Enter", "switch and close"),
        ("Space", "switch and stay"),
        ("Esc", "close"),
    ]));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
