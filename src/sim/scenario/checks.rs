//! What a loaded object must satisfy: a uid of its own, sane times, and
//! the checks run once every object is read.

use super::*;

/// A stable uid for an object written without one, from its identity.
pub(super) fn stable_uid(o: &Object) -> String {
    let id = format!(
        "{}/{}/{}/{}",
        o.group(),
        o.kind,
        o.namespace().unwrap_or_default(),
        o.name()
    );
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    UidGen::new(h).next_uid()
}

/// Whether [`check_object`] has passed every object already.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Checked {
    /// Each object as it was read (the JSON fast path): then, while it is
    /// in the cache, not in a second pass over 100k objects.
    Yes,
    No,
}

/// An object's identity (names as the API server validates them) and its
/// times: the field and the message of the first problem.
pub(super) fn check_object(o: &Object) -> Option<(String, String)> {
    crate::sim::validation::validate_identity(o)
        .or_else(|| check_times(o).map(|(field, message)| (field.to_string(), message)))
}

/// The longest grace period accepted (ten years): the simulator's clock
/// adds it to timestamps, which must stay in range.
pub(super) const MAX_GRACE_SECONDS: i64 = 10 * 365 * 24 * 3600;

/// Times and durations are checked where they enter: a grace period or a
/// timestamp the clock cannot add to is an error naming the field, not a
/// panic later.
pub(super) fn check_times(o: &Object) -> Option<(&'static str, String)> {
    let earliest = jiff::Timestamp::UNIX_EPOCH;
    // 2500-01-01T00:00:00Z.
    let latest = jiff::Timestamp::constant(16_725_225_600, 0);
    for (field, ts) in [
        ("metadata.creationTimestamp", o.metadata.creation_timestamp),
        ("metadata.deletionTimestamp", o.metadata.deletion_timestamp),
    ] {
        if let Some(t) = ts
            && (t < earliest || t >= latest)
        {
            return Some((field, format!("{t} is outside 1970-01-01 .. 2500-01-01")));
        }
    }
    // Read from the kept text: a check of every object as it is loaded
    // does not make each one's `spec` value ([`crate::model::fields`]).
    // A pod's only: no rule reads the field of another kind (R15), and
    // looking for it in every object's text was 2% of `tree`'s CPU.
    let pod_grace = o
        .is_pod()
        .then(|| o.spec.top_level("terminationGracePeriodSeconds"))
        .flatten();
    let grace = [
        (
            "metadata.deletionGracePeriodSeconds",
            o.metadata.deletion_grace_period_seconds,
        ),
        (
            "spec.terminationGracePeriodSeconds",
            pod_grace.as_ref().and_then(serde_json::Value::as_i64),
        ),
    ];
    for (field, g) in grace {
        if let Some(g) = g
            && !(0..=MAX_GRACE_SECONDS).contains(&g)
        {
            return Some((
                field,
                format!("{g} is outside 0 .. {MAX_GRACE_SECONDS} seconds (ten years)"),
            ));
        }
    }
    if pod_grace.is_some_and(|v| v.as_i64().is_none()) {
        return Some((
            "spec.terminationGracePeriodSeconds",
            "must be a whole number of seconds".into(),
        ));
    }
    None
}

/// Checks each object's identity and times, assigns missing uids and fills
/// owner-reference uids from the owner named.
pub(super) fn finish_objects(
    s: &mut Scenario,
    locate: &Locate<'_>,
    checked: Checked,
) -> Result<(), LoadError> {
    if checked == Checked::No {
        for (i, o) in s.objects.iter().enumerate() {
            if let Some((field, message)) = check_object(o) {
                let (line, field) = locate(i, &field);
                return Err(LoadError {
                    file: s.source.clone(),
                    line,
                    field,
                    message,
                });
            }
        }
    }
    for o in &mut s.objects {
        if o.metadata.uid.is_empty() {
            Arc::make_mut(o).metadata.uid = stable_uid(o);
        }
    }
    let by_owner_name = s
        .objects
        .iter()
        .any(|o| o.metadata.owner_references.iter().any(|r| r.uid.is_empty()));
    if !by_owner_name {
        // Lists and snapshots always carry the owners' uids: nothing to
        // look up by name.
        return Ok(());
    }
    let kinds = s.kind_table();
    let mut by_name: HashMap<(String, String, String, String), (String, String)> = HashMap::new();
    for o in &s.objects {
        let namespaced = kinds.namespaced(o.group(), &o.kind).unwrap_or(true);
        let ns = if namespaced {
            o.namespace().unwrap_or("default")
        } else {
            ""
        };
        by_name.insert(
            (
                o.group().to_string(),
                o.kind.clone(),
                ns.to_string(),
                o.name().to_string(),
            ),
            (o.metadata.uid.clone(), o.api_version.clone()),
        );
    }
    for (i, o) in s.objects.iter_mut().enumerate() {
        if o.metadata
            .owner_references
            .iter()
            .all(|r| !r.uid.is_empty())
        {
            continue;
        }
        let o = Arc::make_mut(o);
        let ns = o.namespace().unwrap_or("default").to_string();
        for (j, r) in o.metadata.owner_references.iter_mut().enumerate() {
            if !r.uid.is_empty() {
                continue;
            }
            let group = group_of(&r.api_version).to_string();
            let owner_ns = match kinds.namespaced(&group, &r.kind) {
                Some(false) => String::new(),
                _ => ns.clone(),
            };
            let found = by_name.get(&(group, r.kind.clone(), owner_ns.clone(), r.name.clone()));
            let Some((uid, api_version)) = found else {
                let (line, field) = locate(i, &format!("metadata.ownerReferences[{j}]"));
                let place = if owner_ns.is_empty() {
                    "in the scenario".to_string()
                } else {
                    format!("in namespace {owner_ns:?}")
                };
                return Err(LoadError {
                    file: s.source.clone(),
                    line,
                    field,
                    message: format!(
                        "no {} named {:?} {place} to take the uid from: add that object or give the reference a uid",
                        r.kind, r.name
                    ),
                });
            };
            r.uid.clone_from(uid);
            if r.api_version.is_empty() {
                r.api_version.clone_from(api_version);
            }
        }
    }
    Ok(())
}
