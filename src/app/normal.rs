//! Keys in the tree, with nothing open on top: moving, expanding, jumps,
//! opening dialogs, and the simulator's time controls.

use super::modal::Modal;
use super::{Action, App, Filters, Flag, TimelineScope};
use crate::backend::Command;

impl App {
    pub(super) fn normal(&mut self, action: Action) -> Vec<Command> {
        use crate::backend::SimCommand as S;
        match action {
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::ScrollUp => self.move_by(-3),
            Action::ScrollDown => self.move_by(3),
            Action::PageUp => self.move_by(-page(self.viewport)),
            Action::PageDown => self.move_by(page(self.viewport)),
            Action::Top => self.select(0),
            Action::Bottom => self.select(self.rows.len().saturating_sub(1)),
            Action::Left => self.left(),
            Action::Right => self.right(),
            Action::Toggle | Action::Confirm => self.toggle(),
            Action::ExpandBelow => self.set_below(true),
            Action::CollapseBelow => self.set_below(false),
            Action::ExpandAll => self.set_all(true),
            Action::CollapseAll => self.set_all(false),
            Action::JumpOwner => self.jump_owner(),
            Action::GotoBlocker => self.goto_blocker(),
            Action::NextTerminating => self.jump_flag(true, Flag::Terminating),
            Action::PrevTerminating => self.jump_flag(false, Flag::Terminating),
            Action::NextProblem => self.jump_flag(true, Flag::Problem),
            Action::PrevProblem => self.jump_flag(false, Flag::Problem),
            Action::StartSearch => self.start_search(),
            Action::OpenCommand => self.open_command(),
            Action::NextMatch => self.next_match(true),
            Action::PrevMatch => self.next_match(false),
            Action::OpenFilter => self.open_filter(),
            Action::Clear | Action::Cancel => self.clear(),
            Action::ToggleTimelineScope => {
                self.timeline_scope = match self.timeline_scope {
                    TimelineScope::All => TimelineScope::Selected,
                    TimelineScope::Selected => TimelineScope::All,
                };
            }
            Action::SwitchPane => self.focus_timeline(),
            Action::ScrollDetailsDown => {
                self.details_scroll = self.details_scroll.saturating_add(3)
            }
            Action::ScrollDetailsUp => self.details_scroll = self.details_scroll.saturating_sub(3),
            Action::ClickRow(n) => {
                let i = self.offset + n;
                if i == self.selected {
                    self.toggle();
                } else if i < self.rows.len() {
                    self.select(i);
                }
            }
            Action::OpenDelete => self.open_delete(),
            Action::OpenKill => self.open_kill(),
            Action::Describe => match self.selected_object() {
                Some(o) => {
                    let uid = o.uid().to_string();
                    self.modals.push(Modal::Describe { uid, scroll: 0 });
                }
                None => self.info("d describes an object: select one"),
            },
            Action::AllNamespaces => return self.all_namespaces(),
            Action::ShowAliases => self.modals.push(Modal::Aliases { scroll: 0 }),
            Action::Unbound { ch, ctrl } => self.unbound(ch, ctrl, "here"),
            Action::OpenRemoveFinalizer => self.open_finalizer(),
            Action::OpenControllers => self.open_controllers(),
            Action::OpenReset => self.open_reset(),
            Action::OpenScenarios => self.open_scenarios(),
            Action::Help => self.modals.push(Modal::Help { scroll: 0 }),
            Action::ShowYaml => {
                if let Some(o) = self.selected_object() {
                    let uid = o.uid().to_string();
                    self.modals.push(Modal::Yaml { uid, scroll: 0 });
                } else {
                    self.info("y shows the YAML of an object: select one");
                }
            }
            Action::ToggleMouse => self.normal_toggle_mouse(),
            Action::Reconnect => {
                if self.opts.is_simulator {
                    self.info("nothing to reconnect: the simulator runs in this process");
                    return Vec::new();
                }
                self.info("reconnecting: reading the kubeconfig again…");
                return vec![Command::Reconnect];
            }
            Action::Quit => self.quit = true,
            Action::PauseResume | Action::Step | Action::Faster | Action::Slower => {
                if !self.opts.is_simulator {
                    self.info("time controls are for the simulator");
                    return Vec::new();
                }
                let paused = self
                    .status
                    .as_ref()
                    .and_then(|s| s.clock.as_ref())
                    .is_some_and(|c| c.paused);
                let cmds = match action {
                    Action::PauseResume if paused => vec![S::Resume],
                    Action::PauseResume => vec![S::Pause],
                    Action::Step if paused => vec![S::Step],
                    Action::Step => vec![S::Pause, S::Step],
                    Action::Faster => vec![S::Faster],
                    _ => vec![S::Slower],
                };
                return cmds.into_iter().map(Command::Sim).collect();
            }
            Action::Background
            | Action::Foreground
            | Action::Orphan
            | Action::ToggleForce
            | Action::Input(_)
            | Action::Complete
            | Action::Backspace => {}
        }
        Vec::new()
    }

    fn goto_blocker(&mut self) {
        let target = self.why.as_ref().and_then(|w| {
            w.held_by()
                .map(|(b, _)| b)
                .or_else(|| w.blockers.first().map(|b| b.object.clone()))
        });
        match target {
            Some(b) => {
                if !self.select_uid(&b.uid) {
                    self.info(format!(
                        "{}/{} is not in the tree (filtered out?)",
                        b.kind, b.name
                    ));
                }
            }
            None => self.info("nothing holds this object up: no blocking dependent"),
        }
    }

    /// A key that means nothing where it was typed: said, not dropped.
    pub(super) fn unbound(&mut self, ch: Option<char>, ctrl: bool, place: &str) {
        let key = match (ch, ctrl) {
            (Some(c), true) => format!("Ctrl-{c}"),
            (Some(' '), false) => "Space".to_string(),
            (Some(c), false) => c.to_string(),
            (None, _) => "that key".to_string(),
        };
        self.info(format!("unknown key {key} {place}: ? lists the keys"));
    }

    pub(super) fn normal_toggle_mouse(&mut self) {
        self.mouse = !self.mouse;
        self.info(if self.mouse {
            "mouse capture on: click selects, wheel scrolls (m: off)"
        } else {
            "mouse capture off: the terminal selects and copies text (m: on)"
        });
    }

    fn clear(&mut self) {
        if self.message.take().is_some() {
            return;
        }
        if self.search.take().is_some() || self.filters.is_active() {
            self.filters = Filters::default();
            self.rebuild();
        }
    }
}

fn page(viewport: usize) -> isize {
    isize::try_from(viewport.saturating_sub(1).max(1)).unwrap_or(1)
}
