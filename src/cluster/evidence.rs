//! Evidence read for one object being diagnosed, never listed for all
//! (lists and watches stay metadata-only): the admission webhook
//! configurations and whether anything answers at a webhook's Service
//! (`../shared/STUCK-CAUSES.md` C6).

use k8s_openapi::api::core::v1::{Endpoints, Service};
use kube::api::{DynamicObject, ListParams};
use kube::core::ApiResource;
use kube::{Api, Client};

use super::error_message;
use crate::model::Object;
use crate::model::webhooks::{self, Backend, ServiceRef};

fn resource(group: &str, version: &str, kind: &str, plural: &str) -> ApiResource {
    ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: if group.is_empty() {
            version.into()
        } else {
            format!("{group}/{version}")
        },
        kind: kind.into(),
        plural: plural.into(),
    }
}

/// Every validating and mutating webhook configuration, in full (there are
/// few), as the model keeps them.
///
/// # Errors
/// A list that fails (forbidden), as the server words it.
pub async fn webhook_configurations(client: &Client) -> Result<Vec<Object>, String> {
    let mut out = Vec::new();
    for (kind, plural) in [
        (webhooks::VALIDATING, "validatingwebhookconfigurations"),
        (webhooks::MUTATING, "mutatingwebhookconfigurations"),
    ] {
        let ar = resource(webhooks::GROUP, "v1", kind, plural);
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &ar);
        let list = api
            .list(&ListParams::default())
            .await
            .map_err(|e| format!("list {plural}: {}", error_message(&e)))?;
        out.extend(
            list.items
                .iter()
                .filter_map(|o| super::convert::from_dynamic(&ar, o)),
        );
    }
    Ok(out)
}

/// Every APIService, with the Service behind it and its `Available`
/// condition (there are few): whether a namespace can finish deleting
/// (R80).
///
/// # Errors
/// A list that fails (forbidden), as the server words it.
pub async fn apiservices(client: &Client) -> Result<Vec<Object>, String> {
    let ar = resource("apiregistration.k8s.io", "v1", "APIService", "apiservices");
    let api: Api<DynamicObject> = Api::all_with(client.clone(), &ar);
    let list = api
        .list(&ListParams::default())
        .await
        .map_err(|e| format!("list apiservices: {}", error_message(&e)))?;
    Ok(list
        .items
        .iter()
        .filter_map(|o| super::convert::from_dynamic(&ar, o))
        .collect())
}

/// A namespace with its labels (a webhook's namespace selector reads them).
///
/// # Errors
/// The GET fails.
pub async fn namespace(client: &Client, name: &str) -> Result<Option<Object>, String> {
    let ar = resource("", "v1", "Namespace", "namespaces");
    let api: Api<DynamicObject> = Api::all_with(client.clone(), &ar);
    let ns = api.get_opt(name).await.map_err(|e| error_message(&e))?;
    Ok(ns.and_then(|o| super::convert::from_dynamic(&ar, &o)))
}

/// A node's Lease (`kube-node-lease/NODE`): when its kubelet last
/// reported.
///
/// # Errors
/// The GET fails (forbidden).
pub async fn node_lease(client: &Client, node: &str) -> Result<Option<Object>, String> {
    let ar = resource("coordination.k8s.io", "v1", "Lease", "leases");
    let api: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), crate::model::nodes::NODE_LEASES, &ar);
    let lease = api.get_opt(node).await.map_err(|e| error_message(&e))?;
    Ok(lease.and_then(|o| super::convert::from_dynamic(&ar, &o)))
}

/// Whether anything answers at `svc`: its Endpoints' ready addresses, as
/// the API server finds them when it calls the webhook.
pub async fn service_backend(client: &Client, svc: &ServiceRef) -> Backend {
    let endpoints: Api<Endpoints> = Api::namespaced(client.clone(), &svc.namespace);
    let no_endpoints =
        || Backend::Down(format!("no endpoints available for service {:?}", svc.name));
    match endpoints.get_opt(&svc.name).await {
        Ok(Some(ep)) => {
            let ready: usize = ep
                .subsets
                .unwrap_or_default()
                .iter()
                .map(|s| s.addresses.as_ref().map_or(0, Vec::len))
                .sum();
            if ready > 0 {
                Backend::Up(format!(
                    "{} of Service {}",
                    crate::model::wording::count(ready, "ready endpoint"),
                    svc.key()
                ))
            } else {
                no_endpoints()
            }
        }
        Ok(None) => {
            let services: Api<Service> = Api::namespaced(client.clone(), &svc.namespace);
            match services.get_opt(&svc.name).await {
                Ok(None) => Backend::Down(format!("service {:?} not found", svc.name)),
                Ok(Some(_)) => no_endpoints(),
                Err(e) => Backend::Unknown(format!(
                    "cannot read Service {}: {}",
                    svc.key(),
                    error_message(&e)
                )),
            }
        }
        Err(e) => Backend::Unknown(format!(
            "cannot read the endpoints of Service {}: {}",
            svc.key(),
            error_message(&e)
        )),
    }
}

/// The core/v1 Events about the object of `uid` (a field selector on
/// `involvedObject.uid`: the server filters), in its namespace; for a
/// cluster-scoped object in every namespace, else in `default`, where
/// controllers post them (STUCK-CAUSES C2).
///
/// # Errors
/// The list fails (forbidden), as the server words it.
pub async fn events_about(
    client: &Client,
    namespace: Option<&str>,
    uid: &str,
) -> Result<Vec<Object>, String> {
    use k8s_openapi::api::core::v1::Event;
    let lp = ListParams::default().fields(&format!("involvedObject.uid={uid}"));
    let list = match namespace {
        Some(ns) => Api::<Event>::namespaced(client.clone(), ns).list(&lp).await,
        None => match Api::<Event>::all(client.clone()).list(&lp).await {
            Ok(l) => Ok(l),
            Err(_) => {
                Api::<Event>::namespaced(client.clone(), "default")
                    .list(&lp)
                    .await
            }
        },
    }
    .map_err(|e| format!("list events: {}", error_message(&e)))?;
    Ok(list
        .items
        .into_iter()
        .filter_map(|e| serde_json::to_value(e).ok())
        .filter_map(|v| serde_json::from_value::<Object>(v).ok())
        .collect())
}

/// Who wrote the finalizers of `target` and its Events, each within
/// [`EVIDENCE_WAIT`]; what could not be read is said in `missing`.
pub async fn of_object(
    client: &kube::Client,
    ar: &kube::core::ApiResource,
    target: &crate::model::ObjRef,
    finalizers: &[String],
) -> crate::backend::Evidence {
    let mut e = crate::backend::Evidence {
        uid: target.uid.clone(),
        ..crate::backend::Evidence::default()
    };
    let writers = tokio::time::timeout(
        EVIDENCE_WAIT,
        super::actions::finalizer_writers(client, ar, target, finalizers),
    );
    match writers.await {
        Ok(Ok(w)) => (e.writers, e.last) = (w.names, w.last),
        Ok(Err(m)) => e.missing.push(format!("who wrote its finalizers: {m}")),
        Err(_) => e.missing.push("who wrote its finalizers: no answer".into()),
    }
    let events = tokio::time::timeout(
        EVIDENCE_WAIT,
        events_about(client, target.namespace.as_deref(), &target.uid),
    );
    match events.await {
        Ok(Ok(list)) => e.events = list,
        Ok(Err(m)) => e.missing.push(format!("its Events: {m}")),
        Err(_) => e.missing.push("its Events: no answer".into()),
    }
    e
}

/// How long one piece of evidence is waited for.
const EVIDENCE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);
