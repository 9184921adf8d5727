//! Follows upstream
//! `pkg/controller/certificates/rootcacertpublisher/publisher.go` (1.20,
//! feature gate `RootCAConfigMap`, beta and on by default): every
//! namespace holds a ConfigMap `kube-root-ca.crt` whose `data` is
//! `ca.crt`, the cluster CA in PEM, and nothing else.
//!
//! `syncNamespace`: a namespace without it gets one; one whose `data` is
//! anything else gets that `data` back whole (a key added beside `ca.crt`
//! goes too; labels, annotations and `binaryData` stay). The ConfigMap
//! has no labels, annotations or owner reference. The controller looks
//! at a namespace when it is added or updated while Active, and when its
//! ConfigMap is updated or deleted. A namespace that is Terminating gets
//! none back: the API server refuses the create, and upstream drops it.
//! As seen on the test control plane (1.20.2): the ConfigMap is there by
//! the next request after the namespace's POST, and after its DELETE.
//!
//! 1.21+ also puts the annotation `kubernetes.io/description` on it; 1.20
//! does not (none on the test control plane).
//!
//! The simulator runs it only when it is given the CA
//! ([`crate::sim::scenario::Settings::root_ca`]): `ownerscope serve`
//! gives its own, so that a client in a pod could trust it; a scenario
//! played offline has no CA, and its tree holds what its file holds.

use serde_json::{Value, json};

use super::{Intent, Op, intent};
use crate::model::unkept;
use crate::sim::api::{ApiServer, Key};

pub const ACTOR: &str = "root-ca-cert-publisher";
/// `RootCACertConfigMapName`.
pub const NAME: &str = "kube-root-ca.crt";

/// Whether the controller looks at the namespace after this change to
/// `obj`: `namespaceAdded`, `namespaceUpdated` (Active only),
/// `configMapUpdated` and `configMapDeleted` (its own ConfigMap only).
/// `Some(namespace)` when it does.
#[must_use]
pub fn watches(obj: &crate::model::Object, added: bool) -> Option<&str> {
    match (obj.group(), obj.kind.as_str()) {
        ("", "Namespace") if !obj.is_terminating() => Some(obj.name()),
        ("", "ConfigMap") if obj.name() == NAME && !added => obj.namespace(),
        _ => None,
    }
}

/// The `data` the ConfigMap must hold.
fn data(ca_pem: &str) -> Value {
    json!({ "ca.crt": ca_pem })
}

/// `syncNamespace` for `namespace`, with the CA `ca_pem`.
#[must_use]
pub fn sync(api: &ApiServer, namespace: &str, ca_pem: &str) -> Vec<Intent> {
    let Some(ns) = api.get(&Key::namespace(namespace)) else {
        return Vec::new();
    };
    let key = Key {
        group: String::new(),
        kind: "ConfigMap".into(),
        namespace: Some(namespace.to_string()),
        name: NAME.to_string(),
    };
    let want = data(ca_pem);
    match api.get(&key) {
        None if ns.is_terminating() => Vec::new(),
        None => {
            let body = json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": NAME, "namespace": namespace},
                "data": want,
            });
            let Ok(object) = unkept::object_of(&body) else {
                return Vec::new();
            };
            vec![intent(
                ACTOR,
                Op::Create {
                    object: Box::new(object),
                    generate_name: None,
                },
            )]
        }
        Some(cm) => {
            let have = unkept::of(cm).and_then(|r| r.get("data").cloned());
            if have.as_ref() == Some(&want) {
                return Vec::new();
            }
            vec![intent(
                ACTOR,
                Op::SetData {
                    key,
                    uid: cm.uid().to_string(),
                    data: want,
                },
            )]
        }
    }
}
