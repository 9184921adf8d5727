//! Follows kube-aggregator's `AvailableConditionController`
//! (`staging/src/k8s.io/kube-aggregator/pkg/controllers/status`; GC-SEMANTICS
//! R80, STUCK-CAUSES C4): an APIService served by a Service (an aggregated
//! API, `spec.service` set) is Available only while something answers
//! behind that Service. While it is not, its group version's discovery
//! fails (503), and no namespace of the cluster can finish deleting
//! (`NamespaceDeletionDiscoveryFailure`). Deleting the APIService ends
//! that: the group version is no longer served at all.
//!
//! What answers is read from the objects as for webhooks (the Service,
//! and the pods it selects that are not going away on a node that
//! reports); an APIService whose Service is not in view keeps the
//! `Available` condition it was loaded with.

use serde_json::Value;

use crate::model::Object;
use crate::model::webhooks::{self, Backend, ServiceRef};
use crate::sim::api::ApiServer;

/// An aggregated APIService: its group version, and the Service behind it.
#[must_use]
pub fn aggregated(o: &Object) -> Option<(String, ServiceRef)> {
    if o.kind != "APIService" || o.group() != "apiregistration.k8s.io" {
        return None;
    }
    let svc = o.value_at(&["spec", "service"])?;
    let name = svc.get("name")?.as_str()?.to_string();
    let namespace = svc.get("namespace")?.as_str()?.to_string();
    let group = o.str_at(&["spec", "group"]).unwrap_or_default();
    let version = o.str_at(&["spec", "version"])?;
    let gv = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    Some((
        gv,
        ServiceRef {
            namespace,
            name,
            path: None,
            port: 443,
        },
    ))
}

/// The `Available` condition an APIService was loaded with: `false` when
/// it says False.
fn loaded_available(o: &Object) -> Option<bool> {
    o.value_at(&["status", "conditions"])?
        .as_array()?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Available"))
        .and_then(|c| c.get("status").and_then(Value::as_str))
        .map(|s| s == "True")
}

/// Whether `apiservice` is Available, and if not, what its condition
/// says (`MissingEndpoints: ...`, as the aggregator words it).
#[must_use]
pub fn availability(api: &ApiServer, apiservice: &Object) -> Option<(String, Result<(), String>)> {
    let (gv, svc) = aggregated(apiservice)?;
    let down = |why: String| {
        format!(
            "APIService {} (Service {}) is not Available: {why}",
            apiservice.name(),
            svc.key()
        )
    };
    let state = match webhooks::backend(api.graph(), &svc, true) {
        Backend::Up(_) => Ok(()),
        Backend::Down(why) if why.starts_with("service ") => Err(down(format!(
            "ServiceNotFound: service/{} in \"{}\" is not present",
            svc.name, svc.namespace
        ))),
        Backend::Down(_) => Err(down(format!(
            "MissingEndpoints: endpoints for service/{} in \"{}\" have no addresses with port name \"\"",
            svc.name, svc.namespace
        ))),
        Backend::Unknown(_) => match loaded_available(apiservice) {
            Some(false) => Err(down("its Available condition was False when loaded".into())),
            _ => Ok(()),
        },
    };
    Some((gv, state))
}
