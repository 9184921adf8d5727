//! The modal stack: dialogs and overlays that take every key while open.
//! Each confirmation carries the exact [`Command`] it will run: confirm
//! returns it, cancel drops it.

use std::time::Duration;

use crate::backend::{Command, Permission};
use crate::model::finalizers::FinalizerInfo;
use crate::model::preview::Plan;
use crate::model::{ObjRef, Policy};

use super::rows::{Only, RowKey, Scope};

/// How long a dialog that sends something must have been on screen, as
/// it reads now, before `Enter` sends: keys typed out of habit (k9s's
/// `d`, `y`, a quick `Enter`) arrive faster than this and send nothing.
pub const READ_FOR: Duration = Duration::from_millis(500);

/// What is open on top of the tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Modal {
    Delete(DeleteDialog),
    Finalizer(FinalizerDialog),
    Confirm(ConfirmDialog),
    Pick(Picker),
    Controllers(ControllersDialog),
    Search(SearchInput),
    Command(CommandInput),
    Help {
        scroll: u16,
    },
    /// The YAML view of one object (by uid), scrolled by this many lines.
    Yaml {
        uid: String,
        scroll: u16,
    },
    /// k9s's describe (`d`): the details of one object (by uid), whole
    /// screen, scrolled by this many lines.
    Describe {
        uid: String,
        scroll: u16,
    },
    /// `Ctrl-a`: every command and alias of the command line.
    Aliases {
        scroll: u16,
    },
    /// `:stuck`: every Terminating object by cause, as `ownerscope stuck`
    /// prints it, taken when opened.
    Stuck {
        lines: Vec<String>,
        scroll: u16,
    },
}

/// The delete dialog: a propagation policy and the preview of its outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct DeleteDialog {
    pub target: ObjRef,
    /// The kind's default policy (`None`: the kind has none, e.g. Events).
    pub default_policy: Option<Policy>,
    pub policy: Policy,
    pub plan: Plan,
    /// What confirm sends.
    pub command: Command,
    /// Lines the preview is scrolled by.
    pub scroll: u16,
    /// The backend's answer to "may this user do it?", asked as the dialog
    /// opens (`None` until answered).
    pub permission: Option<Permission>,
    /// Read-only mode: the dialog previews, and confirming sends nothing.
    pub read_only: bool,
    /// A pod deleted with grace period 0 (the command is a
    /// [`Command::ForceDelete`]).
    pub force: bool,
    /// When the command shown was put on screen (the App's real clock):
    /// see [`READ_FOR`].
    pub shown_at: Duration,
}

impl DeleteDialog {
    /// Why confirming sends nothing (read-only mode, or the server said
    /// the user may not), if so.
    #[must_use]
    pub fn refusal(&self) -> Option<String> {
        if self.read_only {
            return Some("read-only mode (--read-only)".to_string());
        }
        self.permission.as_ref().and_then(Permission::denial)
    }
}

/// Removing one finalizer: choose which, then type its name.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalizerDialog {
    pub target: ObjRef,
    pub finalizers: Vec<String>,
    pub choice: usize,
    /// Set once a finalizer is chosen.
    pub confirm: Option<FinalizerConfirm>,
    /// As for the delete dialog: asked as the dialog opens.
    pub permission: Option<Permission>,
}

/// The stronger confirmation of a finalizer removal.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalizerConfirm {
    pub info: FinalizerInfo,
    /// Whether the controller that removes it runs, as far as is known
    /// (STUCK-CAUSES C1): said before the user decides.
    pub remover: RemoverState,
    /// Admission webhooks called for this UPDATE that fail closed, each
    /// in one sentence (STUCK-CAUSES C6): named before the user decides,
    /// the refused ones first.
    pub webhooks: Vec<String>,
    /// What was typed so far; confirm needs the finalizer's exact name.
    pub typed: String,
    /// Set after an Enter with the wrong text.
    pub mismatch: bool,
    pub command: Command,
    /// When this step was put on screen: see [`READ_FOR`].
    pub shown_at: Duration,
}

/// What is known of the controller that removes a finalizer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoverState {
    /// The simulator's controller for it: online or not.
    Simulated { online: bool },
    /// Found in the cluster's workloads (or not): the sentence, and
    /// whether it runs (`None`: unknown).
    Found {
        sentence: String,
        runs: Option<bool>,
    },
    /// A finalizer of Kubernetes itself or of the garbage collector.
    BuiltIn,
}

/// A yes/no confirmation of one command.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfirmDialog {
    pub title: String,
    pub lines: Vec<String>,
    pub command: Command,
    /// When it was put on screen: see [`READ_FOR`].
    pub shown_at: Duration,
}

/// A list to choose one entry from.
#[derive(Clone, Debug, PartialEq)]
pub struct Picker {
    pub title: String,
    /// What choosing does.
    pub note: String,
    pub items: Vec<PickItem>,
    pub choice: usize,
    pub purpose: Purpose,
    /// When it was put on screen: a scenario is loaded only after
    /// [`READ_FOR`].
    pub shown_at: Duration,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickItem {
    pub label: String,
    pub detail: String,
    /// Marked as the current setting.
    pub current: bool,
}

/// What a picker's entries stand for, index by index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Purpose {
    Scenario(Vec<String>),
    Filter(Vec<FilterChoice>),
    /// `:ns` alone: a namespace to show or watch (`None`: every one).
    Namespace(Vec<Option<String>>),
    /// Owner uids.
    Owner(Vec<String>),
}

/// One entry of the filter picker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilterChoice {
    Everything,
    Only(Only),
    Scope(Scope),
}

/// The simulated controllers, to take offline or bring online.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllersDialog {
    pub choice: usize,
    /// Objects carrying each controller's finalizer, by finalizer name.
    pub usage: Vec<(String, usize)>,
    /// When it was put on screen: see [`READ_FOR`].
    pub shown_at: Duration,
}

/// The `/` search line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInput {
    pub query: String,
    /// Where the search started (restored on cancel).
    pub origin: Option<RowKey>,
    pub origin_index: usize,
    /// No object matches.
    pub failed: bool,
}

/// The `:` command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandInput {
    pub text: String,
    /// Why the last Enter ran nothing.
    pub error: Option<String>,
}

/// Which key table applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    Normal,
    /// The timeline has the keys (no modal open).
    Timeline,
    Search,
    Command,
    Delete,
    FinalizerChoose,
    FinalizerType,
    Confirm,
    Pick,
    Controllers,
    Help,
    Yaml,
    Describe,
}

impl Modal {
    #[must_use]
    pub fn mode(&self) -> Mode {
        match self {
            Modal::Delete(_) => Mode::Delete,
            Modal::Finalizer(f) if f.confirm.is_some() => Mode::FinalizerType,
            Modal::Finalizer(_) => Mode::FinalizerChoose,
            Modal::Confirm(_) => Mode::Confirm,
            Modal::Pick(_) => Mode::Pick,
            Modal::Controllers(_) => Mode::Controllers,
            Modal::Search(_) => Mode::Search,
            Modal::Command(_) => Mode::Command,
            Modal::Help { .. } | Modal::Stuck { .. } | Modal::Aliases { .. } => Mode::Help,
            Modal::Describe { .. } => Mode::Describe,
            Modal::Yaml { .. } => Mode::Yaml,
        }
    }
}
