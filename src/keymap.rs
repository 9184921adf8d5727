//! Keys, one table per mode, each entry with a description. A pure
//! function resolves a key press to an [`Action`]; the help overlay and the
//! status bar hints are rendered from the same tables.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::{Action, Mode};

/// A key as written in a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
}

const fn k(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: false,
    }
}

const fn code(code: KeyCode) -> Key {
    Key { code, ctrl: false }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: true,
    }
}

/// One entry: keys, what they do, and the description shown in help.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    pub keys: &'static [Key],
    pub action: Action,
    pub desc: &'static str,
    /// Only offered when the source is the simulator.
    pub sim_only: bool,
    /// Shown in the status bar's key hints: (order, label).
    pub hint: Option<(u8, &'static str)>,
}

const fn b(keys: &'static [Key], action: Action, desc: &'static str) -> Binding {
    Binding {
        keys,
        action,
        desc,
        sim_only: false,
        hint: None,
    }
}

const fn hint(mut x: Binding, order: u8, h: &'static str) -> Binding {
    x.hint = Some((order, h));
    x
}

const fn sim(mut x: Binding) -> Binding {
    x.sim_only = true;
    x
}

/// The tree, with nothing open on top.
pub const NORMAL: &[Binding] = &[
    b(&[k('j'), code(KeyCode::Down)], Action::Down, "move down"),
    b(&[k('k'), code(KeyCode::Up)], Action::Up, "move up"),
    b(&[code(KeyCode::PageDown)], Action::PageDown, "page down"),
    b(
        &[code(KeyCode::PageUp), ctrl('u')],
        Action::PageUp,
        "page up",
    ),
    b(&[k('g'), code(KeyCode::Home)], Action::Top, "first row"),
    b(&[k('G'), code(KeyCode::End)], Action::Bottom, "last row"),
    b(
        &[k('h'), code(KeyCode::Left)],
        Action::Left,
        "collapse, or go to the row above (owner)",
    ),
    b(
        &[k('l'), code(KeyCode::Right)],
        Action::Right,
        "expand, or go to the first dependent",
    ),
    b(
        &[code(KeyCode::Enter)],
        Action::Toggle,
        "expand / collapse this row",
    ),
    b(
        &[k('e')],
        Action::ExpandBelow,
        "expand everything below this row",
    ),
    b(
        &[k('z')],
        Action::CollapseBelow,
        "collapse everything below this row",
    ),
    b(&[k('E')], Action::ExpandAll, "expand the whole tree"),
    b(&[k('Z')], Action::CollapseAll, "collapse the whole tree"),
    b(
        &[k('o'), k('J')],
        Action::JumpOwner,
        "jump to the owner (choose if several; J as in k9s)",
    ),
    b(
        &[k('b')],
        Action::GotoBlocker,
        "go to what holds up this deletion (the blocker)",
    ),
    b(
        &[k('t')],
        Action::NextTerminating,
        "next Terminating object",
    ),
    b(
        &[k('T')],
        Action::PrevTerminating,
        "previous Terminating object",
    ),
    b(&[k('p')], Action::NextProblem, "next object with a problem"),
    b(
        &[k('P')],
        Action::PrevProblem,
        "previous object with a problem",
    ),
    hint(
        b(&[k('/')], Action::StartSearch, "search kind/name"),
        5,
        "search",
    ),
    b(
        &[k(':')],
        Action::OpenCommand,
        "command line: q, ns [NAME|all], ctx NAME, scenario NAME, stuck, a kind (deploy, po, no, widgets...)",
    ),
    b(
        &[ctrl('a')],
        Action::ShowAliases,
        "every command and alias of the command line (as in k9s)",
    ),
    b(
        &[k('0')],
        Action::AllNamespaces,
        "every namespace (as in k9s)",
    ),
    b(&[k('n')], Action::NextMatch, "next search match"),
    b(&[k('N')], Action::PrevMatch, "previous search match"),
    hint(
        b(
            &[k('f')],
            Action::OpenFilter,
            "filter: only Terminating, only problems, a namespace",
        ),
        6,
        "filter",
    ),
    b(
        &[code(KeyCode::Esc)],
        Action::Clear,
        "dismiss the message, else clear search and filters",
    ),
    b(
        &[k('a')],
        Action::ToggleTimelineScope,
        "timeline: all objects / selected object only",
    ),
    b(
        &[code(KeyCode::Tab)],
        Action::SwitchPane,
        "timeline: move into it, to scroll it and read an entry in full",
    ),
    b(
        &[k(']')],
        Action::ScrollDetailsDown,
        "scroll the details down",
    ),
    b(&[k('[')], Action::ScrollDetailsUp, "scroll the details up"),
    b(
        &[k('d')],
        Action::Describe,
        "describe: the details of the selected object, whole screen (as in k9s)",
    ),
    b(
        &[k('y')],
        Action::ShowYaml,
        "YAML of the selected object (what is known of it)",
    ),
    b(
        &[k('m')],
        Action::ToggleMouse,
        "mouse capture on / off (off: select and copy text)",
    ),
    hint(
        b(
            &[ctrl('d'), code(KeyCode::Delete)],
            Action::OpenDelete,
            "delete: choose a policy, read the preview, then Enter sends (Ctrl-d as in k9s)",
        ),
        1,
        "delete",
    ),
    b(
        &[ctrl('k')],
        Action::OpenKill,
        "kill a pod: the delete dialog with grace period 0 (as in k9s, but Enter confirms)",
    ),
    hint(
        b(
            &[k('F')],
            Action::OpenRemoveFinalizer,
            "remove one finalizer (type its name to confirm)",
        ),
        2,
        "finalizer",
    ),
    hint(
        sim(b(&[k(' ')], Action::PauseResume, "pause / resume time")),
        4,
        "pause",
    ),
    sim(b(&[k('s')], Action::Step, "single step (pauses)")),
    sim(b(&[k('+'), k('=')], Action::Faster, "faster")),
    sim(b(&[k('-')], Action::Slower, "slower")),
    hint(
        sim(b(
            &[k('c')],
            Action::OpenControllers,
            "controllers: take offline / bring online",
        )),
        3,
        "controllers",
    ),
    b(
        &[ctrl('r')],
        Action::Reconnect,
        "live cluster: reconnect, reading the kubeconfig again (a new CA or token), and relist",
    ),
    sim(b(&[k('R')], Action::OpenReset, "reset the scenario")),
    sim(b(&[k('S')], Action::OpenScenarios, "pick another scenario")),
    hint(b(&[k('?')], Action::Help, "help"), 0, "help"),
    hint(b(&[k('q'), ctrl('c')], Action::Quit, "quit"), 7, "quit"),
];

/// The timeline, once Tab has moved the keys into it.
pub const TIMELINE: &[Binding] = &[
    b(
        &[k('j'), code(KeyCode::Down)],
        Action::Down,
        "next (newer) entry",
    ),
    b(
        &[k('k'), code(KeyCode::Up)],
        Action::Up,
        "previous (older) entry",
    ),
    b(
        &[code(KeyCode::PageDown), ctrl('d')],
        Action::PageDown,
        "page down",
    ),
    b(
        &[code(KeyCode::PageUp), ctrl('u')],
        Action::PageUp,
        "page up",
    ),
    b(&[k('g'), code(KeyCode::Home)], Action::Top, "oldest entry"),
    b(
        &[k('G'), code(KeyCode::End)],
        Action::Bottom,
        "newest entry, and follow what comes",
    ),
    b(
        &[code(KeyCode::Enter)],
        Action::Confirm,
        "select this entry's object in the tree",
    ),
    b(
        &[k('a')],
        Action::ToggleTimelineScope,
        "all objects / selected object only",
    ),
    b(
        &[code(KeyCode::Tab)],
        Action::SwitchPane,
        "back to the tree (narrow screens: and its details)",
    ),
    b(&[code(KeyCode::Esc)], Action::Cancel, "back to the tree"),
    b(&[k('m')], Action::ToggleMouse, "mouse capture on / off"),
    b(&[k('?')], Action::Help, "help"),
    b(&[k('q')], Action::Quit, "quit"),
];

/// Shared by the list dialogs.
const LIST_MOVES: [Binding; 4] = [
    b(&[k('j'), code(KeyCode::Down)], Action::Down, "next"),
    b(&[k('k'), code(KeyCode::Up)], Action::Up, "previous"),
    b(&[code(KeyCode::PageDown)], Action::PageDown, "page down"),
    b(&[code(KeyCode::PageUp)], Action::PageUp, "page up"),
];

pub const DELETE: &[Binding] = &[
    b(&[k('b')], Action::Background, "policy Background"),
    b(&[k('f')], Action::Foreground, "policy Foreground"),
    b(&[k('o')], Action::Orphan, "policy Orphan"),
    b(
        &[k('!')],
        Action::ToggleForce,
        "a pod: force (grace period 0), or graceful again",
    ),
    b(
        &[k('j'), code(KeyCode::Down), code(KeyCode::Tab)],
        Action::Down,
        "next policy",
    ),
    b(&[k('k'), code(KeyCode::Up)], Action::Up, "previous policy"),
    b(
        &[code(KeyCode::PageDown), ctrl('d')],
        Action::PageDown,
        "scroll the preview",
    ),
    b(
        &[code(KeyCode::PageUp), ctrl('u')],
        Action::PageUp,
        "scroll the preview back",
    ),
    b(
        &[code(KeyCode::Enter)],
        Action::Confirm,
        "send the delete shown (once the dialog has been on screen half a second)",
    ),
    b(
        &[code(KeyCode::Esc), k('n'), k('q')],
        Action::Cancel,
        "cancel: nothing is sent",
    ),
];

pub const FINALIZER_CHOOSE: &[Binding] = &[
    LIST_MOVES[0],
    LIST_MOVES[1],
    b(
        &[code(KeyCode::Enter)],
        Action::Confirm,
        "choose this finalizer",
    ),
    b(
        &[code(KeyCode::Esc), k('q')],
        Action::Cancel,
        "cancel: nothing is sent",
    ),
];

pub const FINALIZER_TYPE: &[Binding] = &[
    b(
        &[code(KeyCode::Enter)],
        Action::Confirm,
        "remove it (only when the name typed matches)",
    ),
    b(
        &[code(KeyCode::Backspace)],
        Action::Backspace,
        "delete a character",
    ),
    b(
        &[code(KeyCode::Esc)],
        Action::Cancel,
        "cancel: nothing is sent",
    ),
];

pub const CONFIRM: &[Binding] = &[
    b(
        &[code(KeyCode::Enter)],
        Action::Confirm,
        "confirm (once the dialog has been on screen half a second)",
    ),
    b(
        &[code(KeyCode::Esc), k('n'), k('q')],
        Action::Cancel,
        "cancel: nothing is sent",
    ),
];

pub const PICK: &[Binding] = &[
    LIST_MOVES[0],
    LIST_MOVES[1],
    LIST_MOVES[2],
    LIST_MOVES[3],
    b(&[k('g'), code(KeyCode::Home)], Action::Top, "first"),
    b(&[k('G'), code(KeyCode::End)], Action::Bottom, "last"),
    b(&[code(KeyCode::Enter)], Action::Confirm, "choose"),
    b(&[code(KeyCode::Esc), k('q')], Action::Cancel, "close"),
];

pub const CONTROLLERS: &[Binding] = &[
    LIST_MOVES[0],
    LIST_MOVES[1],
    b(
        &[code(KeyCode::Enter)],
        Action::Confirm,
        "switch this controller and close, to watch what it does",
    ),
    b(
        &[code(KeyCode::Esc), k('q'), k('c')],
        Action::Cancel,
        "close",
    ),
];

pub const SEARCH: &[Binding] = &[
    b(
        &[code(KeyCode::Enter)],
        Action::Confirm,
        "keep this match (n/N: next/previous)",
    ),
    b(
        &[code(KeyCode::Backspace)],
        Action::Backspace,
        "delete a character",
    ),
    b(
        &[code(KeyCode::Esc)],
        Action::Cancel,
        "cancel, back to where the search started",
    ),
];

pub const COMMAND: &[Binding] = &[
    b(&[code(KeyCode::Enter)], Action::Confirm, "run it"),
    b(&[code(KeyCode::Tab)], Action::Complete, "complete the word"),
    b(
        &[code(KeyCode::Backspace)],
        Action::Backspace,
        "delete a character (on an empty line: nothing)",
    ),
    b(&[code(KeyCode::Esc)], Action::Cancel, "close, run nothing"),
];

pub const HELP: &[Binding] = &[
    LIST_MOVES[0],
    LIST_MOVES[1],
    LIST_MOVES[2],
    LIST_MOVES[3],
    b(
        &[code(KeyCode::Esc), k('q'), k('?'), code(KeyCode::Enter)],
        Action::Cancel,
        "close help",
    ),
];

pub const DESCRIBE: &[Binding] = &[
    LIST_MOVES[0],
    LIST_MOVES[1],
    LIST_MOVES[2],
    LIST_MOVES[3],
    b(&[k('g'), code(KeyCode::Home)], Action::Top, "top"),
    b(
        &[code(KeyCode::Esc), k('q'), k('d')],
        Action::Cancel,
        "close the description",
    ),
];

pub const YAML: &[Binding] = &[
    LIST_MOVES[0],
    LIST_MOVES[1],
    LIST_MOVES[2],
    LIST_MOVES[3],
    b(&[k('g'), code(KeyCode::Home)], Action::Top, "top"),
    b(
        &[code(KeyCode::Esc), k('q'), k('y')],
        Action::Cancel,
        "close the YAML view",
    ),
];

/// The table of a mode.
#[must_use]
pub fn table(mode: Mode) -> &'static [Binding] {
    match mode {
        Mode::Normal => NORMAL,
        Mode::Timeline => TIMELINE,
        Mode::Search => SEARCH,
        Mode::Command => COMMAND,
        Mode::Delete => DELETE,
        Mode::FinalizerChoose => FINALIZER_CHOOSE,
        Mode::FinalizerType => FINALIZER_TYPE,
        Mode::Confirm => CONFIRM,
        Mode::Pick => PICK,
        Mode::Controllers => CONTROLLERS,
        Mode::Help => HELP,
        Mode::Yaml => YAML,
        Mode::Describe => DESCRIBE,
    }
}

/// Actions read-only mode refuses (Ctrl-d still opens the delete dialog,
/// to preview; confirming there sends nothing).
#[must_use]
pub fn refused_in_read_only(action: Action) -> bool {
    matches!(action, Action::OpenRemoveFinalizer)
}

/// Modes where typed characters are text.
fn types_text(mode: Mode) -> bool {
    matches!(mode, Mode::Search | Mode::Command | Mode::FinalizerType)
}

/// The action of a key press in a mode, if any. Only presses should be
/// passed in (the runtime drops releases and repeats).
#[must_use]
pub fn resolve(mode: Mode, key: KeyEvent) -> Option<Action> {
    let is_ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let found = table(mode)
        .iter()
        .find(|bd| {
            bd.keys
                .iter()
                .any(|k| k.code == key.code && k.ctrl == is_ctrl)
        })
        .map(|bd| bd.action);
    if types_text(mode)
        && !is_ctrl
        && let KeyCode::Char(c) = key.code
    {
        return Some(Action::Input(c));
    }
    if found.is_none() && is_ctrl && key.code == KeyCode::Char('c') {
        // Ctrl-C always gets you out of a dialog, and out of the program
        // from the tree.
        return Some(if matches!(mode, Mode::Normal | Mode::Timeline) {
            Action::Quit
        } else {
            Action::Cancel
        });
    }
    if found.is_none() && matches!(key.code, KeyCode::Modifier(_)) {
        return None;
    }
    found.or(Some(Action::Unbound {
        ch: match key.code {
            KeyCode::Char(c) => Some(c),
            _ => None,
        },
        ctrl: is_ctrl,
    }))
}

/// A key as shown to people: `j`, `↓`, `Ctrl-d`, `PgDn`, `Space`.
#[must_use]
pub fn key_label(key: &Key) -> String {
    let base = match key.code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Down => "↓".into(),
        KeyCode::Up => "↑".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::Backspace => "Bksp".into(),
        KeyCode::Delete => "Del".into(),
        other => format!("{other:?}"),
    };
    if key.ctrl {
        format!("Ctrl-{base}")
    } else {
        base
    }
}

/// All keys of a binding: `j ↓`.
#[must_use]
pub fn keys_label(b: &Binding) -> String {
    b.keys.iter().map(key_label).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEventKind;

    fn press(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers,
            kind: KeyEventKind::Press,
            state: crossterm::event::KeyEventState::NONE,
        }
    }

    #[test]
    fn resolves_per_mode() {
        let j = press(KeyCode::Char('j'), KeyModifiers::NONE);
        assert_eq!(resolve(Mode::Normal, j), Some(Action::Down));
        assert_eq!(resolve(Mode::Search, j), Some(Action::Input('j')));
        assert_eq!(resolve(Mode::FinalizerType, j), Some(Action::Input('j')));
        let f = press(KeyCode::Char('f'), KeyModifiers::NONE);
        assert_eq!(resolve(Mode::Normal, f), Some(Action::OpenFilter));
        assert_eq!(resolve(Mode::Delete, f), Some(Action::Foreground));
        let big_g = press(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(resolve(Mode::Normal, big_g), Some(Action::Bottom));
        let cd = press(KeyCode::Char('d'), KeyModifiers::CONTROL);
        assert_eq!(
            resolve(Mode::Normal, cd),
            Some(Action::OpenDelete),
            "k9s's delete, behind the same dialog"
        );
        assert_eq!(resolve(Mode::Timeline, cd), Some(Action::PageDown));
        let big_j = press(KeyCode::Char('J'), KeyModifiers::SHIFT);
        assert_eq!(resolve(Mode::Normal, big_j), Some(Action::JumpOwner));
        let cc = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(resolve(Mode::Normal, cc), Some(Action::Quit));
        assert_eq!(resolve(Mode::Delete, cc), Some(Action::Cancel));
        assert_eq!(resolve(Mode::FinalizerType, cc), Some(Action::Cancel));
        let x = press(KeyCode::Char('x'), KeyModifiers::NONE);
        assert_eq!(
            resolve(Mode::Normal, x),
            Some(Action::Unbound {
                ch: Some('x'),
                ctrl: false
            }),
            "no key is dropped silently"
        );
        let d = press(KeyCode::Char('d'), KeyModifiers::NONE);
        assert_eq!(resolve(Mode::Normal, d), Some(Action::Describe), "k9s's d");
        let y = press(KeyCode::Char('y'), KeyModifiers::NONE);
        assert!(
            !matches!(resolve(Mode::Delete, y), Some(Action::Confirm)),
            "y never confirms"
        );
        assert!(!matches!(resolve(Mode::Confirm, y), Some(Action::Confirm)));
    }

    #[test]
    fn no_key_is_bound_twice_in_a_mode() {
        for mode in [
            Mode::Normal,
            Mode::Timeline,
            Mode::Search,
            Mode::Command,
            Mode::Delete,
            Mode::FinalizerChoose,
            Mode::FinalizerType,
            Mode::Confirm,
            Mode::Pick,
            Mode::Controllers,
            Mode::Help,
            Mode::Yaml,
            Mode::Describe,
        ] {
            let mut seen: Vec<Key> = Vec::new();
            for bd in table(mode) {
                for key in bd.keys {
                    assert!(!seen.contains(key), "{mode:?}: {key:?} bound twice");
                    seen.push(*key);
                }
            }
        }
    }
}
