//! Follows upstream `pkg/controller/endpoint/endpoints_controller.go`
//! (`syncService`): when a Service is gone, the endpoints controller
//! deletes the Endpoints object of the same name. No owner reference is
//! involved (the EndpointSlices, which do carry one, go through the GC).

use super::{Intent, Op, intent};
use crate::sim::api::{ApiServer, DeleteOptions, Key};

pub const ACTOR: &str = "endpoint-controller";

/// The Service `namespace/name` was deleted.
#[must_use]
pub fn service_deleted(api: &ApiServer, namespace: &str, name: &str) -> Vec<Intent> {
    let key = Key {
        group: String::new(),
        kind: "Endpoints".into(),
        namespace: Some(namespace.to_string()),
        name: name.to_string(),
    };
    match api.get(&key) {
        Some(ep) if !ep.is_terminating() => vec![intent(
            ACTOR,
            Op::Delete {
                key,
                options: DeleteOptions::default(),
            },
        )],
        _ => Vec::new(),
    }
}
