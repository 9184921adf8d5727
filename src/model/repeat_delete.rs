//! What a second DELETE can and cannot change on an object that is already
//! Terminating (GC-SEMANTICS R17, R18), said before it is sent.

use super::object::{FOREGROUND, ORPHAN, Object, Policy};

/// `None` for an object that is not Terminating; else what a DELETE with
/// `policy` would change, and what no DELETE can.
#[must_use]
pub fn explain(obj: &Object, policy: Policy) -> Option<String> {
    if !obj.is_terminating() {
        return None;
    }
    let others: Vec<&str> = obj
        .metadata
        .finalizers
        .iter()
        .map(String::as_str)
        .filter(|f| *f != FOREGROUND && *f != ORPHAN)
        .collect();
    let held_by = if others.is_empty() {
        String::new()
    } else {
        format!(" on {}", others.join(", "))
    };
    let change = match policy {
        Policy::Foreground if obj.has_finalizer(FOREGROUND) => {
            "it already waits on its dependents in foreground: a second Foreground DELETE changes nothing".to_string()
        }
        Policy::Foreground => {
            "Foreground adds the foregroundDeletion finalizer (dropping orphan): the garbage collector deletes its dependents now, and it goes after them".to_string()
        }
        Policy::Orphan if obj.has_finalizer(ORPHAN) => {
            "it is already releasing its dependents: a second Orphan DELETE changes nothing".to_string()
        }
        Policy::Orphan => {
            "Orphan adds the orphan finalizer (dropping foregroundDeletion): its dependents are released instead of deleted".to_string()
        }
        Policy::Background if others.is_empty() && (obj.has_finalizer(FOREGROUND) || obj.has_finalizer(ORPHAN)) => {
            "Background drops the foregroundDeletion and orphan finalizers; nothing else holds it, so it is removed at once and its dependents collected in the background".to_string()
        }
        Policy::Background if obj.has_finalizer(FOREGROUND) || obj.has_finalizer(ORPHAN) => {
            format!("Background drops the foregroundDeletion and orphan finalizers; it stays Terminating{held_by}")
        }
        Policy::Background => format!("Background changes nothing; it stays Terminating{held_by}"),
    };
    let cannot = if others.is_empty() {
        "No DELETE moves its deletion later: the deletionTimestamp first set stays.".to_string()
    } else {
        format!(
            "No DELETE removes {} or moves its deletion later: only their controllers can, or removing a finalizer by hand (F).",
            others.join(", ")
        )
    };
    Some(format!("Already Terminating. {change}. {cannot}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;

    fn terminating(finalizers: &[&str]) -> Object {
        let mut o = Object::new("apps/v1", "Deployment", Some("shop"), "web");
        o.metadata.deletion_timestamp = Some(Timestamp::UNIX_EPOCH);
        o.metadata.finalizers = finalizers.iter().map(|f| (*f).to_string()).collect();
        o
    }

    #[test]
    fn nothing_to_say_for_a_live_object() {
        let o = Object::new("v1", "ConfigMap", Some("shop"), "c");
        assert_eq!(explain(&o, Policy::Background), None);
    }

    #[test]
    fn says_what_each_policy_changes_and_what_none_can() {
        let o = terminating(&[FOREGROUND, "example.com/hold"]);
        let fg = explain(&o, Policy::Foreground).expect("note");
        assert!(fg.contains("changes nothing"), "{fg}");
        let bg = explain(&o, Policy::Background).expect("note");
        assert!(
            bg.contains(
                "drops the foregroundDeletion and orphan finalizers; it stays Terminating on example.com/hold"
            ),
            "{bg}"
        );
        assert!(bg.contains("No DELETE removes example.com/hold"), "{bg}");
        let only_gc = terminating(&[ORPHAN]);
        let bg = explain(&only_gc, Policy::Background).expect("note");
        assert!(bg.contains("removed at once"), "{bg}");
        let held = terminating(&["example.com/hold"]);
        let fg = explain(&held, Policy::Foreground).expect("note");
        assert!(fg.contains("deletes its dependents now"), "{fg}");
    }
}
