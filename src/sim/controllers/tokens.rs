//! Follows upstream `pkg/controller/serviceaccount/tokens_controller.go`
//! (GC-SEMANTICS R78): a Secret of type
//! `kubernetes.io/service-account-token` names its ServiceAccount in the
//! annotations `kubernetes.io/service-account.name` and `.uid`, with no
//! owner reference. The token controller deletes it when that
//! ServiceAccount is deleted (`deleteTokens`), and as soon as it sees one
//! whose ServiceAccount of that name does not exist or has another uid
//! (`syncSecret`). An Opaque Secret with the same annotations is left
//! alone (`serviceaccount.IsServiceAccountToken`).
//!
//! Not modelled: creating a token Secret for each ServiceAccount (1.20's
//! controller does when it is given a signing key; 1.24+ no longer does).

use super::{Intent, Op, intent};
use crate::model::Object;
use crate::sim::api::{ApiServer, DeleteOptions, Key, Preconditions};

pub const ACTOR: &str = "tokens-controller";
const NAME: &str = "kubernetes.io/service-account.name";
const UID: &str = "kubernetes.io/service-account.uid";

/// A ServiceAccount token Secret.
#[must_use]
pub fn is_token(o: &Object) -> bool {
    o.is_service_account_token()
}

/// The ServiceAccount a token names: (name, uid; empty when not set).
fn names(secret: &Object) -> (&str, &str) {
    let a = &secret.metadata.annotations;
    (
        a.get(NAME).map_or("", String::as_str),
        a.get(UID).map_or("", String::as_str),
    )
}

fn delete(secret: &Object) -> Intent {
    intent(
        ACTOR,
        Op::Delete {
            key: Key::of(secret),
            options: DeleteOptions {
                preconditions: Preconditions {
                    uid: Some(secret.uid().to_string()),
                    resource_version: None,
                },
                ..DeleteOptions::default()
            },
        },
    )
}

/// `syncSecret`: the token with this uid, deleted when its ServiceAccount
/// (by name, and by uid when the token names one) is not there.
#[must_use]
pub fn sync_secret(api: &ApiServer, uid: &str) -> Vec<Intent> {
    let Some(secret) = api.get_uid(uid) else {
        return Vec::new();
    };
    if !is_token(secret) || secret.is_terminating() {
        return Vec::new();
    }
    let (name, sa_uid) = names(secret);
    // The API server refuses a token Secret without the name annotation:
    // one without it comes from a file that dropped it, and is left.
    if name.is_empty() {
        return Vec::new();
    }
    let key = Key {
        group: String::new(),
        kind: "ServiceAccount".into(),
        namespace: secret.namespace().map(str::to_string),
        name: name.to_string(),
    };
    match api.get(&key) {
        Some(sa) if sa_uid.is_empty() || sa.uid() == sa_uid => Vec::new(),
        _ => vec![delete(secret)],
    }
}

/// `deleteTokens`: the tokens of a ServiceAccount that was deleted.
#[must_use]
pub fn deleted_account(api: &ApiServer, sa: &Object) -> Vec<Intent> {
    api.graph()
        .objects()
        .filter(|o| is_token(o) && !o.is_terminating() && o.namespace() == sa.namespace())
        .filter(|o| {
            let (name, uid) = names(o);
            name == sa.name() && (uid.is_empty() || uid == sa.uid())
        })
        .map(delete)
        .collect()
}
