//! What the user can do to a live object: delete with an explicit policy and
//! a uid precondition, remove one finalizer with a guarded JSON patch, and
//! ask whether either is permitted. Every outcome is a value.

use either::Either;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use kube::api::{
    DeleteParams, DynamicObject, Patch, PatchParams, PostParams, Preconditions, PropagationPolicy,
};
use kube::core::ApiResource;
use kube::{Api, Client};
use serde_json::json;

use super::{error_code, error_message};
use crate::backend::{Command, Permission, Reply};
use crate::model::{KindInfo, ObjRef, Policy};

/// The API resource of a kind.
#[must_use]
pub fn api_resource(info: &KindInfo) -> ApiResource {
    ApiResource {
        group: info.group.clone(),
        version: info.version.clone(),
        api_version: info.api_version(),
        kind: info.kind.clone(),
        plural: info.plural.clone(),
    }
}

fn api_for(client: &Client, ar: &ApiResource, target: &ObjRef) -> Api<DynamicObject> {
    match &target.namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, ar),
        None => Api::all_with(client.clone(), ar),
    }
}

fn reply(command: &Command, code: u16, message: String) -> Reply {
    Reply {
        command: command.clone(),
        code,
        message,
        warnings: Vec::new(),
    }
}

fn failed(command: &Command, e: &kube::Error) -> Reply {
    reply(command, error_code(e), error_message(e))
}

/// The `DeleteParams` of a delete: the policy always explicit, the uid
/// always a precondition.
#[must_use]
pub fn delete_params(policy: Policy, uid: &str) -> DeleteParams {
    DeleteParams {
        propagation_policy: Some(match policy {
            Policy::Background => PropagationPolicy::Background,
            Policy::Foreground => PropagationPolicy::Foreground,
            Policy::Orphan => PropagationPolicy::Orphan,
        }),
        preconditions: Some(Preconditions {
            uid: Some(uid.to_string()),
            resource_version: None,
        }),
        ..DeleteParams::default()
    }
}

/// Sends the DELETE (a force delete: Background, grace period 0).
pub async fn delete(client: &Client, ar: &ApiResource, command: &Command) -> Reply {
    let (target, policy, params) = match command {
        Command::Delete { target, policy } => (target, policy, delete_params(*policy, &target.uid)),
        Command::ForceDelete { target } => (
            target,
            &Policy::Background,
            DeleteParams {
                grace_period_seconds: Some(0),
                ..delete_params(Policy::Background, &target.uid)
            },
        ),
        _ => return reply(command, 0, "not a delete".into()),
    };
    let api = api_for(client, ar, target);
    match api.delete(&target.name, &params).await {
        Ok(Either::Left(obj)) => {
            let fins = obj.metadata.finalizers.unwrap_or_default();
            let msg = if fins.is_empty() {
                format!("{target}: deletion accepted ({policy})")
            } else {
                format!(
                    "{target}: deletion accepted ({policy}), waiting for finalizers: {}",
                    fins.join(", ")
                )
            };
            reply(command, 200, msg)
        }
        Ok(Either::Right(status)) => {
            let code = if status.code == 0 { 200 } else { status.code };
            reply(command, code, format!("{target}: deleted ({policy})"))
        }
        Err(e) => failed(command, &e),
    }
}

/// The guarded patch removing `finalizer` from `current` (the list the user
/// saw): it tests the uid and the whole list first, so a concurrent change
/// fails instead of being clobbered.
#[must_use]
pub fn finalizer_patch(
    uid: &str,
    current: &[String],
    finalizer: &str,
) -> Option<serde_json::Value> {
    let index = current.iter().position(|f| f == finalizer)?;
    Some(json!([
        {"op": "test", "path": "/metadata/uid", "value": uid},
        {"op": "test", "path": "/metadata/finalizers", "value": current},
        {"op": "remove", "path": format!("/metadata/finalizers/{index}")},
    ]))
}

/// Sends the guarded finalizer patch.
pub async fn remove_finalizer(
    client: &Client,
    ar: &ApiResource,
    command: &Command,
    current: &[String],
) -> Reply {
    let Command::RemoveFinalizer { target, finalizer } = command else {
        return reply(command, 0, "not a finalizer removal".into());
    };
    let Some(value) = finalizer_patch(&target.uid, current, finalizer) else {
        return reply(
            command,
            0,
            format!(
                "{target} has no finalizer {finalizer} (finalizers: [{}])",
                current.join(", ")
            ),
        );
    };
    let patch: json_patch::Patch = match serde_json::from_value(value) {
        Ok(p) => p,
        Err(e) => return reply(command, 0, format!("building the patch: {e}")),
    };
    let api = api_for(client, ar, target);
    match api
        .patch_metadata(
            &target.name,
            &PatchParams::default(),
            &Patch::Json::<()>(patch),
        )
        .await
    {
        Ok(obj) => {
            let left = obj.metadata.finalizers.unwrap_or_default();
            reply(
                command,
                200,
                format!(
                    "{target}: finalizer {finalizer} removed (left: [{}])",
                    left.join(", ")
                ),
            )
        }
        // The test ops failed: say so next to the server's own message.
        Err(e) if error_code(&e) == 422 => reply(
            command,
            422,
            format!(
                "{}: the patch tests that the finalizers are still [{}], and they are not: \
                 the object changed meanwhile; nothing was modified",
                error_message(&e),
                current.join(", ")
            ),
        ),
        Err(e) => refused(client, command, &e).await,
    }
}

/// A failed request; one refused by an admission webhook says which
/// configuration and what to do, before the server's words (STUCK-CAUSES
/// C6): the configurations are read to find it.
async fn refused(client: &Client, command: &Command, e: &kube::Error) -> Reply {
    let message = error_message(e);
    if crate::model::webhooks::named_in(&message).is_none() {
        return failed(command, e);
    }
    let mut graph = crate::model::OwnershipGraph::new(crate::model::KindTable::builtin());
    if let Ok(configs) = super::evidence::webhook_configurations(client).await {
        for c in configs {
            graph.upsert(c);
        }
    }
    match crate::model::webhooks::explain_refusal(&graph, &message) {
        Some(why) => reply(
            command,
            error_code(e),
            format!("{why} (the server: {message})"),
        ),
        None => failed(command, e),
    }
}

/// The verb and resource attributes a command needs.
#[must_use]
pub fn attributes(ar: &ApiResource, command: &Command) -> Option<ResourceAttributes> {
    let (verb, target) = match command {
        Command::Delete { target, .. } | Command::ForceDelete { target } => ("delete", target),
        Command::RemoveFinalizer { target, .. } => ("patch", target),
        Command::Sim(_)
        | Command::Reconnect
        | Command::SwitchContext(_)
        | Command::SwitchNamespace(_)
        | Command::ReadEvidence(_) => return None,
    };
    Some(ResourceAttributes {
        group: Some(ar.group.clone()),
        resource: Some(ar.plural.clone()),
        verb: Some(verb.into()),
        name: Some(target.name.clone()),
        namespace: target.namespace.clone(),
        ..ResourceAttributes::default()
    })
}

/// `delete` on `deployments.apps "web" in namespace shop`.
#[must_use]
pub fn describe(attrs: &ResourceAttributes) -> (String, String) {
    let group = attrs.group.clone().unwrap_or_default();
    let plural = attrs.resource.clone().unwrap_or_default();
    let res = if group.is_empty() {
        plural
    } else {
        format!("{plural}.{group}")
    };
    let mut resource = format!("{res} {:?}", attrs.name.clone().unwrap_or_default());
    if let Some(ns) = &attrs.namespace {
        resource.push_str(&format!(" in namespace {ns}"));
    }
    (attrs.verb.clone().unwrap_or_default(), resource)
}

/// Asks the server (SelfSubjectAccessReview) whether the command is allowed.
pub async fn access_review(client: &Client, attrs: ResourceAttributes) -> Permission {
    let (verb, resource) = describe(&attrs);
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(attrs),
            ..SelfSubjectAccessReviewSpec::default()
        },
        ..SelfSubjectAccessReview::default()
    };
    let api: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    match api.create(&PostParams::default(), &review).await {
        Ok(r) => match r.status {
            Some(s) if s.allowed => Permission::Allowed,
            Some(s) => Permission::Denied {
                verb,
                resource,
                reason: s
                    .reason
                    .filter(|r| !r.is_empty())
                    .or(s.evaluation_error)
                    .unwrap_or_else(|| "not allowed by RBAC".into()),
            },
            None => Permission::Unknown("the access review had no status".into()),
        },
        Err(e) => Permission::Unknown(format!("access review failed: {}", error_message(&e))),
    }
}

/// The field managers that wrote each finalizer of `target`, read from its
/// `managedFields` with one GET of its metadata (the lists leave them out):
/// who added a finalizer is who should remove it (STUCK-CAUSES C1, C23).
///
/// # Errors
/// The GET's failure, as the server words it (forbidden, not found).
pub async fn finalizer_writers(
    client: &Client,
    ar: &ApiResource,
    target: &ObjRef,
    finalizers: &[String],
) -> Result<Writers, String> {
    let api = api_for(client, ar, target);
    let meta = api
        .get_metadata(&target.name)
        .await
        .map_err(|e| error_message(&e))?;
    let mf = serde_json::to_value(meta.metadata.managed_fields.unwrap_or_default())
        .map_err(|e| e.to_string())?;
    let names = finalizers
        .iter()
        .map(|f| (f.clone(), crate::model::remover::writers_of(&mf, f)))
        .filter(|(_, w)| !w.is_empty())
        .collect();
    let last = finalizers
        .iter()
        .filter_map(|f| Some((f.clone(), crate::model::remover::last_writer(&mf, f)?)))
        .collect();
    Ok(Writers { names, last })
}

/// Who wrote each finalizer of an object (`managedFields`).
#[derive(Clone, Debug, Default)]
pub struct Writers {
    /// finalizer -> the managers that own it, newest first.
    pub names: std::collections::BTreeMap<String, Vec<String>>,
    /// finalizer -> its last write.
    pub last: std::collections::BTreeMap<String, crate::model::remover::Written>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patch_tests_uid_and_list_before_removing() {
        let cur = vec!["a.example/x".to_string(), "b.example/y".to_string()];
        let p = finalizer_patch("u1", &cur, "b.example/y").expect("test");
        assert_eq!(
            p,
            json!([
                {"op": "test", "path": "/metadata/uid", "value": "u1"},
                {"op": "test", "path": "/metadata/finalizers", "value": ["a.example/x", "b.example/y"]},
                {"op": "remove", "path": "/metadata/finalizers/1"},
            ])
        );
        assert!(finalizer_patch("u1", &cur, "c").is_none());
    }

    #[test]
    fn deletes_always_carry_policy_and_uid() {
        let dp = delete_params(Policy::Foreground, "u1");
        let v = serde_json::to_value(&dp).expect("test");
        assert_eq!(v["propagationPolicy"], "Foreground");
        assert_eq!(v["preconditions"]["uid"], "u1");
    }
}
