//! Follows upstream `pkg/controller/endpoint/endpoints_controller.go`
//! (`syncService`): the Endpoints object of a Service has the Service's
//! name and no owner reference. When the Service is gone the controller
//! deletes it; while a Service with a selector lives (and is not being
//! deleted) a deleted Endpoints object is created again. Only deletions
//! trigger it here: a Service loaded without its Endpoints is left so, to
//! keep scenarios as written.

use super::{Intent, Op, intent};
use crate::model::Object;
use crate::model::workload::service_selects;
use crate::sim::api::{ApiServer, DeleteOptions, Key};

pub const ACTOR: &str = "endpoint-controller";

/// One `syncService` for `namespace/name` (a Service or its Endpoints went).
#[must_use]
pub fn sync(api: &ApiServer, namespace: &str, name: &str) -> Vec<Intent> {
    let key = |kind: &str| Key {
        group: String::new(),
        kind: kind.into(),
        namespace: Some(namespace.to_string()),
        name: name.to_string(),
    };
    let service = api.get(&key("Service"));
    let endpoints = api.get(&key("Endpoints"));
    match (service, endpoints) {
        (None, Some(ep)) if !ep.is_terminating() => vec![intent(
            ACTOR,
            Op::Delete {
                key: key("Endpoints"),
                options: DeleteOptions::default(),
            },
        )],
        (Some(svc), None) if service_selects(svc) => {
            let mut ep = Object::new("v1", "Endpoints", Some(namespace), name);
            ep.metadata.labels = svc.metadata.labels.clone();
            vec![intent(
                ACTOR,
                Op::Create {
                    object: Box::new(ep),
                    generate_name: None,
                },
            )]
        }
        _ => Vec::new(),
    }
}

/// Follows upstream `pkg/controller/endpointslice/endpointslice_controller.go`
/// (`syncService`, `reconciler.go`): a slice it manages that is deleted
/// while its Service (with a selector, not being deleted) lives is
/// replaced by a new one, `generateName` `<service>-`, with a controller
/// reference to the Service (R70). This is the slice's Service to sync, if
/// the slice was the controller's.
#[must_use]
pub fn slice_service(slice: &Object) -> Option<SliceOwner> {
    if slice.metadata.labels.get(MANAGED_BY).map(String::as_str) != Some(SLICE_CONTROLLER) {
        return None;
    }
    let r = crate::model::workload::controller_ref(slice)?;
    (r.kind == "Service").then(|| SliceOwner {
        namespace: slice.namespace().unwrap_or_default().to_string(),
        service: r.name.clone(),
        uid: r.uid.clone(),
        api_version: slice.api_version.clone(),
    })
}

const MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";
const SLICE_CONTROLLER: &str = "endpointslice-controller.k8s.io";

/// The Service whose slice went.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SliceOwner {
    pub namespace: String,
    pub service: String,
    pub uid: String,
    pub api_version: String,
}

/// The EndpointSlice controller replaces the slice.
#[must_use]
pub fn replace_slice(api: &ApiServer, owner: &SliceOwner) -> Vec<Intent> {
    let key = Key {
        group: String::new(),
        kind: "Service".into(),
        namespace: Some(owner.namespace.clone()),
        name: owner.service.clone(),
    };
    let Some(svc) = api
        .get(&key)
        .filter(|s| s.uid() == owner.uid && service_selects(s))
    else {
        return Vec::new();
    };
    let mut new = Object::new(&owner.api_version, "EndpointSlice", svc.namespace(), "");
    new.metadata.labels = [
        (
            "kubernetes.io/service-name".to_string(),
            svc.name().to_string(),
        ),
        (MANAGED_BY.to_string(), SLICE_CONTROLLER.to_string()),
    ]
    .into_iter()
    .collect();
    new.metadata
        .owner_references
        .push(svc.reference(Some(true), Some(true)));
    vec![intent(
        "endpointslice-controller",
        Op::Create {
            object: Box::new(new),
            generate_name: Some(format!("{}-", svc.name())),
        },
    )]
}
