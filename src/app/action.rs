//! User intents. Keys and the mouse are mapped to these by the keymap and
//! the runtime; [`super::App::update`] turns them into state changes and
//! backend commands.

/// One user intent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    // Moving around the tree (and the choices of an open dialog).
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Collapse the row, or go to its owner row.
    Left,
    /// Expand the row, or go to its first dependent.
    Right,
    /// Expand or collapse the row.
    Toggle,
    ExpandBelow,
    CollapseBelow,
    ExpandAll,
    CollapseAll,
    JumpOwner,
    /// Go to what holds up the selected object's deletion (the blocker
    /// that carries a finalizer, else the first blocking dependent).
    GotoBlocker,
    NextTerminating,
    PrevTerminating,
    NextProblem,
    PrevProblem,
    // Search and filters.
    StartSearch,
    /// The `:` command line.
    OpenCommand,
    /// Complete the word being typed (the command line).
    Complete,
    NextMatch,
    PrevMatch,
    OpenFilter,
    /// Esc in the tree: dismiss the message, else clear search and filters.
    Clear,
    // Panes.
    ToggleTimelineScope,
    SwitchPane,
    ScrollDetailsDown,
    ScrollDetailsUp,
    /// The YAML view of the selected object (what is known of it).
    ShowYaml,
    /// k9s's describe (`d`): the details of the selected object, whole
    /// screen. It never leads to a request.
    Describe,
    /// `0`, as in k9s: every namespace.
    AllNamespaces,
    /// `Ctrl-a`, as in k9s: every command and alias of the command line.
    ShowAliases,
    // Actions on objects (each opens a confirmation).
    OpenDelete,
    /// k9s's kill (`Ctrl-k`): the delete dialog with grace period 0 for a
    /// pod. Confirming is still Enter, once the dialog has been read.
    OpenKill,
    OpenRemoveFinalizer,
    // Simulator.
    PauseResume,
    Step,
    Faster,
    Slower,
    OpenControllers,
    OpenReset,
    OpenScenarios,
    // Dialogs.
    /// Choose a propagation policy in the delete dialog.
    Background,
    Foreground,
    Orphan,
    /// In the delete dialog: a pod deleted with grace period 0 (no
    /// kubelet waited for), or back to a graceful delete.
    ToggleForce,
    Confirm,
    Cancel,
    Input(char),
    Backspace,
    // Mouse.
    /// A click on the n-th row of the tree pane (0 = top visible row).
    ClickRow(usize),
    ScrollUp,
    ScrollDown,
    // The rest.
    Help,
    /// Mouse capture on/off (off: the terminal selects and copies text).
    ToggleMouse,
    /// Read the kubeconfig again and relist (a live cluster).
    Reconnect,
    Quit,
    /// A key with no meaning in the current mode: said in the status
    /// line, never silently dropped. The character, if the key is one,
    /// and whether Ctrl was held.
    Unbound {
        ch: Option<char>,
        ctrl: bool,
    },
}
