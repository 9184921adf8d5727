//! `ownerscope snapshot --live`: the metadata of everything listable, as a
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
    let view = LiveView::read(&args.live, args.namespace.as_deref())?;
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
            json!({
                "apiVersion": k.api_version(),
                "kind": k.kind,
                "plural": k.plural,
                "namespaced": k.namespaced,
            })
        })
        .collect();
    let missing: Vec<String> = snap.missing.iter().map(|(k, _)| k.clone()).collect();
    let mut description = format!(
        "snapshot of {} ({}), {}, taken {}",
        view.conn.context,
        view.conn.server,
        view.conn.scope.label(),
        jiff::Timestamp::now()
    );
    if !missing.is_empty() {
        description.push_str(&format!(
            "; partial, could not list: {}",
            missing.join(", ")
        ));
    }
    let doc = json!({
        "name": format!("snapshot-{}", view.conn.context),
        "description": description,
        "kinds": kinds,
        "partial": crate::model::Partial::of(&snap.kinds),
        "objects": snap.objects,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}
