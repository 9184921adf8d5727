//! `ownerscope snapshot --live`: the metadata of everything listable (and the
//! few spec and status fields the rules read, `cluster::convert::kept_fields`), as a
//! scenario the other commands load (JSON is YAML).

use std::collections::BTreeSet;

use serde_json::json;

use super::live::LiveView;
use super::{CmdError, CmdResult};
use crate::cli::SnapshotArgs;

/// Prints the snapshot scenario on stdout.
///
/// # Errors
/// Without `--live`; the cluster cannot be read.
pub fn run(args: &SnapshotArgs) -> CmdResult {
    if !args.live.live {
        return Err(CmdError(
            "snapshot reads a live cluster: add --live (with -n NAMESPACE or -A)".into(),
        ));
    }
    let mut view = LiveView::read_for(
        &args.live,
        args.namespace.as_deref(),
        args.selector.as_deref(),
        None,
    )?;
    if matches!(view.conn.scope, crate::cluster::Scope::Namespace(_)) {
        view.add_cluster_gates(&args.live, args.namespace.as_deref());
    }
    let mut out = super::out::Out::new();
    out.line(&to_scenario(&view))?;
    out.flush()
}

/// The scenario text.
#[must_use]
pub fn to_scenario(view: &LiveView) -> String {
    let snap = &view.snapshot;
    let used: BTreeSet<(String, String)> = snap
        .objects
        .iter()
        .map(|o| (o.group().to_string(), o.kind.clone()))
        .collect();
    let kinds: Vec<serde_json::Value> = snap
        .kinds
        .iter()
        .filter(|k| used.contains(&(k.group.clone(), k.kind.clone())))
        .map(|k| {
            let mut decl = json!({
                "apiVersion": k.api_version(),
                "kind": k.kind,
                "plural": k.plural,
                "namespaced": k.namespaced,
            });
            // R79: every version it is served in (CronJob only as
            // batch/v1beta1 on 1.20), so that an owner reference through
            // any of them maps, and no other does.
            if !k.served_versions.is_empty() {
                decl["servedVersions"] = json!(k.served_versions);
            }
            decl
        })
        .collect();
    let missing: Vec<String> = snap.missing.iter().map(|(k, _)| k.clone()).collect();
    let taken = jiff::Timestamp::now();
    let mut description = format!(
        "snapshot of {} ({}), {}, taken {}",
        view.conn.context,
        view.conn.server,
        view.conn.scope.label(),
        taken
    );
    if !missing.is_empty() {
        description.push_str(&format!(
            "; partial, could not list: {}",
            missing.join(", ")
        ));
    }
    if !snap.unread.is_empty() {
        let names: Vec<&str> = snap.unread.iter().map(|(k, _)| k.as_str()).collect();
        description.push_str(&format!(
            "; without the cluster-scoped objects it uses of: {}",
            names.join(", ")
        ));
    }
    let doc = json!({
        "name": format!("snapshot-{}", view.conn.context),
        "description": description,
        "kinds": kinds,
        "partial": crate::model::Partial::of(&snap.kinds),
        // Where a simulation of it starts its clock: ages, schedules and
        // TTLs go on from the moment it was taken.
        "takenAt": taken,
        "objects": snap.objects.iter().map(without_secrets).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// Annotations a snapshot keeps: annotations can carry credentials (a
/// service-account token annotation) or whole manifests with secret values
/// (`last-applied-configuration`). A snapshot is a file that travels: it
/// keeps what the rules and the tree need, and of annotations only the
/// two that name a token Secret's ServiceAccount (a name and a uid, no
/// credential): the token controller deletes that Secret with it
/// (GC-SEMANTICS R78).
const KEPT_ANNOTATIONS: &[&str] = &[
    "kubernetes.io/service-account.name",
    "kubernetes.io/service-account.uid",
];

/// The object as a snapshot keeps it.
fn without_secrets(o: &crate::model::Object) -> crate::model::Object {
    let mut o = o.clone();
    o.metadata
        .annotations
        .retain(|k, _| KEPT_ANNOTATIONS.contains(&k.as_str()));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_never_reach_a_snapshot() {
        let mut o = crate::model::Object::new("v1", "Secret", Some("x"), "t");
        o.metadata.annotations.insert(
            "openshift.io/token-secret.value".into(),
            "eyJhbGciOi.SECRET".into(),
        );
        o.metadata.annotations.insert(
            "kubectl.kubernetes.io/last-applied-configuration".into(),
            "{\"data\":{\"password\":\"hunter2\"}}".into(),
        );
        let kept = without_secrets(&o);
        assert!(kept.metadata.annotations.is_empty());
        let text = serde_json::to_string(&kept).expect("json");
        assert!(
            !text.contains("SECRET") && !text.contains("hunter2"),
            "{text}"
        );
    }

    #[test]
    fn a_token_secret_keeps_the_name_of_its_service_account() {
        let mut o = crate::model::Object::new("v1", "Secret", Some("x"), "t");
        o.metadata
            .annotations
            .insert("kubernetes.io/service-account.name".into(), "ci".into());
        o.metadata
            .annotations
            .insert("kubernetes.io/service-account.uid".into(), "u1".into());
        o.metadata
            .annotations
            .insert("openshift.io/token-secret.value".into(), "SECRET".into());
        let kept = without_secrets(&o);
        assert_eq!(kept.metadata.annotations.len(), 2);
        assert!(
            !serde_json::to_string(&kept)
                .expect("json")
                .contains("SECRET")
        );
    }
}
