//! Which resource types exist and can be listed and watched: aggregated
//! discovery (1.26+), falling back to the classic per-group discovery.

use kube::Client;
use kube::core::ApiResource;
use kube::discovery::{Discovery, Scope as KubeScope, verbs};

use super::{ClusterError, error_message};
use crate::model::{DefaultPolicy, KindInfo, KindTable, Policy};

/// One resource type to list and watch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    pub ar: ApiResource,
    pub namespaced: bool,
    pub watchable: bool,
}

impl Resource {
    /// `deployments.apps`, `configmaps`.
    #[must_use]
    pub fn name(&self) -> String {
        if self.ar.group.is_empty() {
            self.ar.plural.clone()
        } else {
            format!("{}.{}", self.ar.plural, self.ar.group)
        }
    }
}

/// What discovery found.
#[derive(Clone, Debug)]
pub struct Discovered {
    /// Listable resources shown in the tree (events excluded: they become
    /// timeline entries, not nodes).
    pub resources: Vec<Resource>,
    pub kinds: KindTable,
    /// `aggregated` or `classic`.
    pub mode: &'static str,
}

/// Groups that serve the same objects as another group under an older name,
/// and the event kinds (shown on the timeline, not as tree nodes).
fn skipped(ar: &ApiResource) -> bool {
    ar.group == "extensions"
        || ar.group == "events.k8s.io"
        || (ar.group.is_empty() && (ar.plural == "events" || ar.plural == "componentstatuses"))
}

/// Runs discovery.
///
/// # Errors
/// Both discovery modes failed (the message of the classic one).
pub async fn discover(client: &Client) -> Result<Discovered, ClusterError> {
    // A server without aggregated discovery (before 1.26) may answer the
    // aggregated request with a plain list, which reads as no groups at all:
    // without the core group it is not an answer.
    let aggregated = Discovery::new(client.clone())
        .run_aggregated()
        .await
        .map_err(|e| error_message(&e))
        .and_then(|d| {
            if d.has_group("") {
                Ok(d)
            } else {
                Err("the answer had no core group".to_string())
            }
        });
    let (discovery, mode) = match aggregated {
        Ok(d) => (d, "aggregated"),
        Err(agg) => {
            tracing::debug!("aggregated discovery unavailable: {agg}");
            let d = Discovery::new(client.clone())
                .run()
                .await
                .map_err(|e| ClusterError(format!("discovery: {}", error_message(&e))))?;
            (d, "classic")
        }
    };
    let mut kinds = KindTable::builtin();
    let mut resources = Vec::new();
    for group in discovery.groups() {
        for v in group.versions() {
            let api_version = if group.name().is_empty() {
                v.to_string()
            } else {
                format!("{}/{v}", group.name())
            };
            kinds.mark_served(&api_version);
        }
        for (ar, caps) in group.recommended_resources() {
            if ar.plural.contains('/') {
                continue;
            }
            let namespaced = matches!(caps.scope, KubeScope::Namespaced);
            let known = kinds.get(&ar.group, &ar.kind).cloned();
            kinds.insert(KindInfo {
                group: ar.group.clone(),
                kind: ar.kind.clone(),
                version: ar.version.clone(),
                plural: ar.plural.clone(),
                namespaced,
                short_names: known
                    .as_ref()
                    .map(|k| k.short_names.clone())
                    .unwrap_or_default(),
                default_policy: known.map_or(DefaultPolicy::Policy(Policy::Background), |k| {
                    k.default_policy
                }),
            });
            if skipped(&ar) || !caps.supports_operation(verbs::LIST) {
                continue;
            }
            resources.push(Resource {
                watchable: caps.supports_operation(verbs::WATCH),
                ar,
                namespaced,
            });
        }
    }
    resources.sort_by_key(Resource::name);
    Ok(Discovered {
        resources,
        kinds,
        mode,
    })
}
