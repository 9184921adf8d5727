//! Badges: the short marks a tree row carries. One definition, rendered as
//! text by the CLI and styled by the UI; each reads without colour.

use jiff::Timestamp;
use serde::Serialize;

use super::graph::{OwnershipGraph, RefStatus};
use super::object::{Object, OwnerReference};

/// One badge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "badge", rename_all = "camelCase")]
pub enum Badge {
    /// Has a deletionTimestamp, for this many seconds (negative while a pod's
    /// grace period runs: the timestamp is in the future).
    Terminating { seconds: i64 },
    /// Carries finalizers.
    Finalizers { names: Vec<String> },
    /// The reference to the owner it is shown under has `controller: true`.
    Controller,
    /// The reference to the owner it is shown under has
    /// `blockOwnerDeletion: true`.
    BlockOwnerDeletion,
    /// Has this many resolving owners; shown under each.
    Shared { owners: usize },
    /// An owner reference that does not resolve.
    Problem { status: RefStatus, owner: String },
    /// Appears again below itself (an ownership cycle).
    Cycle,
    /// Its dependents are not drawn here: the chain is deeper than a tree
    /// is drawn, or (in a pathological graph) the subtree was drawn above.
    NotExpanded { why: String },
}

impl Badge {
    /// The text form: `Terminating 42s`, `fin:2`, `ctrl`, `block`,
    /// `shared:2`, `!owner-gone(Deployment/web)`, `cycle`.
    #[must_use]
    pub fn text(&self) -> String {
        match self {
            Badge::Terminating { seconds } => terminating(*seconds),
            Badge::Finalizers { names } => format!("fin:{}", names.len()),
            Badge::Controller => "ctrl".into(),
            Badge::BlockOwnerDeletion => "block".into(),
            Badge::Shared { owners } => format!("shared:{owners}"),
            Badge::Problem {
                status: status @ RefStatus::Unverified { .. },
                owner,
            } => format!("?{}({owner})", status.label()),
            Badge::Problem { status, owner } => format!("!{}({owner})", status.label()),
            Badge::Cycle => "cycle".into(),
            Badge::NotExpanded { why } => format!("… {why}"),
        }
    }

    /// Problems and terminating rows are what an operator scans for.
    #[must_use]
    pub fn is_alert(&self) -> bool {
        matches!(
            self,
            Badge::Terminating { .. } | Badge::Problem { .. } | Badge::Cycle
        )
    }
}

/// `42s`, `3m05s`, `2h10m`, `3d4h`; `in 25s` for a future instant.
#[must_use]
pub fn human_duration(seconds: i64) -> String {
    if seconds < 0 {
        return format!("in {}", human_duration(-seconds));
    }
    let s = seconds;
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else if s < 86_400 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else {
        format!("{}d{}h", s / 86_400, (s % 86_400) / 3600)
    }
}

/// An instant, from the seconds since it: `5s ago`, or `in 5s` for one
/// still ahead (a pod's grace period, a clock behind the object's); never
/// `in 5s ago`.
#[must_use]
pub fn relative(seconds_since: i64) -> String {
    if seconds_since < 0 {
        format!("in {}", human_duration(-seconds_since))
    } else {
        format!("{} ago", human_duration(seconds_since))
    }
}

/// A deleted object's state, from the seconds since its
/// deletionTimestamp: `Terminating 5s`, or `Terminating (29s grace left)`
/// while that timestamp is still ahead (a pod's grace period), never
/// `Terminating in 29s`, which reads as if it were not Terminating yet.
#[must_use]
pub fn terminating(seconds_since: i64) -> String {
    if seconds_since < 0 {
        format!(
            "Terminating ({} grace left)",
            human_duration(-seconds_since)
        )
    } else {
        format!("Terminating {}", human_duration(seconds_since))
    }
}

/// Badges about the object itself (not the edge it is shown on).
#[must_use]
pub fn object_badges(graph: &OwnershipGraph, obj: &Object, now: Timestamp) -> Vec<Badge> {
    object_badges_under(graph, obj, now, None)
}

/// [`object_badges`] of an object shown under `edge`, one of its own
/// references that resolves in `graph` (the forest found it so): that one
/// is not resolved again. Resolving each object's references a second
/// time, to write its badges, was two fifths of writing a 300k-object tree.
#[must_use]
pub fn object_badges_under(
    graph: &OwnershipGraph,
    obj: &Object,
    now: Timestamp,
    edge: Option<&OwnerReference>,
) -> Vec<Badge> {
    let mut out = Vec::new();
    if let Some(ts) = obj.metadata.deletion_timestamp {
        out.push(Badge::Terminating {
            seconds: now.duration_since(ts).as_secs(),
        });
    }
    if !obj.metadata.finalizers.is_empty() {
        out.push(Badge::Finalizers {
            names: obj.metadata.finalizers.clone(),
        });
    }
    let mut resolving: Vec<&str> = Vec::new();
    let mut problems = Vec::new();
    for r in &obj.metadata.owner_references {
        // Resolved, not classified: a reference that resolves is not
        // given a copy of its owner's uid.
        let resolved = if edge.is_some_and(|e| std::ptr::eq(e, r)) {
            Ok(())
        } else {
            graph.resolve(obj, r).map(|_| ())
        };
        match resolved {
            Ok(()) => {
                if !resolving.contains(&r.uid.as_str()) {
                    resolving.push(&r.uid);
                }
            }
            Err(status) => problems.push(Badge::Problem {
                status,
                owner: format!("{}/{}", r.kind, r.name),
            }),
        }
    }
    if resolving.len() > 1 {
        out.push(Badge::Shared {
            owners: resolving.len(),
        });
    }
    out.extend(problems);
    out
}

/// Badges of the edge from a dependent to the owner it is shown under.
#[must_use]
pub fn edge_badges(edge: &OwnerReference) -> Vec<Badge> {
    let mut out = Vec::new();
    if edge.is_controller() {
        out.push(Badge::Controller);
    }
    if edge.blocks() {
        out.push(Badge::BlockOwnerDeletion);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(5), "5s");
        assert_eq!(human_duration(125), "2m05s");
        assert_eq!(human_duration(7260), "2h01m");
        assert_eq!(human_duration(90_000), "1d1h");
        assert_eq!(human_duration(-25), "in 25s");
    }

    #[test]
    fn instants_ahead_read_in_and_past_ones_ago_never_both() {
        assert_eq!(relative(5), "5s ago");
        assert_eq!(relative(0), "0s ago");
        assert_eq!(relative(-5), "in 5s");
        assert_eq!(relative(-125), "in 2m05s");
        assert_eq!(terminating(42), "Terminating 42s");
        assert_eq!(terminating(-29), "Terminating (29s grace left)");
        assert_eq!(
            Badge::Terminating { seconds: -29 }.text(),
            "Terminating (29s grace left)"
        );
        for s in [-3_600, -61, -1, 0, 1, 61] {
            let r = relative(s);
            assert!(!(r.starts_with("in ") && r.ends_with(" ago")), "{r}");
            assert!(!terminating(s).contains(" in "), "{}", terminating(s));
        }
    }

    #[test]
    fn badge_texts() {
        assert_eq!(
            Badge::Finalizers {
                names: vec!["a".into(), "b".into()]
            }
            .text(),
            "fin:2"
        );
        assert_eq!(
            Badge::Problem {
                status: RefStatus::OwnerAbsent,
                owner: "Deployment/web".into()
            }
            .text(),
            "!owner-gone(Deployment/web)"
        );
    }
}
