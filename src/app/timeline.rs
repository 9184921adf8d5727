//! The timeline as a list: a cursor on one entry (or following the newest),
//! moved with the keys while the timeline has the focus; `Enter` selects
//! the entry's object in the tree. Entries are numbered as they arrive, so
//! the cursor stays on its entry while new ones come in and old ones are
//! dropped.

use super::{Action, App, LowerPane, TimelineScope};
use crate::backend::Happening;

impl App {
    /// The happenings the timeline lists (all, or the selected object's),
    /// each with its number.
    #[must_use]
    pub fn timeline_entries(&self) -> Vec<(u64, &Happening)> {
        let only = match self.timeline_scope {
            TimelineScope::Selected => self.selected_object().map(|o| o.uid().to_string()),
            TimelineScope::All => None,
        };
        let first = self
            .timeline_next
            .saturating_sub(self.timeline.len() as u64);
        self.timeline
            .iter()
            .enumerate()
            .map(|(i, h)| (first + i as u64, h))
            .filter(|(_, h)| only.as_ref().is_none_or(|u| h.object.uid == *u))
            .collect()
    }

    /// The position of the entry under the cursor in `entries`: the
    /// cursor's entry, else the last one at or before it, else the newest.
    #[must_use]
    pub fn timeline_position(&self, entries: &[(u64, &Happening)]) -> Option<usize> {
        let last = entries.len().checked_sub(1)?;
        Some(match self.timeline_cursor {
            None => last,
            Some(c) => entries.iter().rposition(|(n, _)| *n <= c).unwrap_or(0),
        })
    }

    /// Whether the timeline has the keys.
    #[must_use]
    pub fn timeline_focused(&self) -> bool {
        self.timeline_focus
    }

    /// Whether the cursor follows the newest entry.
    #[must_use]
    pub fn timeline_follows(&self) -> bool {
        self.timeline_cursor.is_none()
    }

    pub(super) fn focus_timeline(&mut self) {
        self.timeline_focus = true;
        self.lower = LowerPane::Timeline;
    }

    /// Keys while the timeline has the focus.
    pub(super) fn in_timeline(&mut self, action: Action) {
        let entries = self.timeline_entries();
        let n = entries.len();
        let at = self.timeline_position(&entries);
        let page = self.viewport.saturating_sub(1).max(1);
        let moved = |to: usize| entries.get(to.min(n.saturating_sub(1))).map(|e| e.0);
        let last = n.saturating_sub(1);
        match action {
            Action::Up | Action::ScrollUp => {
                self.timeline_cursor = at.and_then(|i| moved(i.saturating_sub(1)));
            }
            Action::Down | Action::ScrollDown => {
                self.timeline_cursor = match at {
                    Some(i) if i + 1 < n => moved(i + 1),
                    _ => None,
                };
            }
            Action::PageUp => self.timeline_cursor = at.and_then(|i| moved(i.saturating_sub(page))),
            Action::PageDown => {
                self.timeline_cursor = match at {
                    Some(i) if i + page < last => moved(i + page),
                    _ => None,
                };
            }
            Action::Top => self.timeline_cursor = moved(0),
            Action::Bottom => self.timeline_cursor = None,
            Action::Confirm | Action::Toggle => {
                let target = at
                    .and_then(|i| entries.get(i))
                    .map(|(_, h)| (h.object.clone(), h.t));
                if let Some((obj, t)) = target {
                    // Keep the cursor on this entry for the next visit.
                    self.timeline_cursor = at.and_then(moved);
                    self.timeline_focus = false;
                    self.lower = LowerPane::Details;
                    if obj.uid.is_empty() {
                        self.info(format!(
                            "{}/{} is no object: a scenario step or a controller switch (timeline entry at {t:.1}s)",
                            obj.kind, obj.name
                        ));
                    } else if !self.select_uid(&obj.uid) {
                        let why = if self.graph.get(&obj.uid).is_some() {
                            "is hidden by the filter (Esc clears it)"
                        } else {
                            "is gone from the API server"
                        };
                        self.info(format!(
                            "{}/{} {why} (timeline entry at {t:.1}s)",
                            obj.kind, obj.name
                        ));
                    }
                }
            }
            Action::ToggleTimelineScope => {
                self.timeline_scope = match self.timeline_scope {
                    TimelineScope::All => TimelineScope::Selected,
                    TimelineScope::Selected => TimelineScope::All,
                };
            }
            Action::SwitchPane => {
                self.timeline_focus = false;
                self.lower = LowerPane::Details;
            }
            Action::Cancel | Action::Clear => self.timeline_focus = false,
            Action::Quit => self.quit = true,
            Action::Help => self.modals.push(super::Modal::Help { scroll: 0 }),
            Action::ToggleMouse => self.normal_toggle_mouse(),
            Action::Unbound { ch, ctrl } => {
                self.unbound(ch, ctrl, "in the timeline (Esc: back to the tree)")
            }
            _ => {}
        }
    }
}
