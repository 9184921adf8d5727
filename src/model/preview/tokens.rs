//! The ServiceAccount token controller in a preview (GC-SEMANTICS R78): a
//! token Secret names its ServiceAccount by annotation only (no owner
//! reference) and is deleted when that ServiceAccount is gone.

use super::{Id, Kind, Planner, State};
use crate::model::object::Object;

const NAME: &str = "kubernetes.io/service-account.name";
const UID: &str = "kubernetes.io/service-account.uid";

/// Whether `secret` is a token of the ServiceAccount `sa` (by name, and
/// by uid when the token names one), as upstream's
/// `serviceaccount.IsServiceAccountToken` decides.
pub(super) fn is_token_of(secret: &Object, sa: &Object) -> bool {
    if !secret.is_service_account_token() || secret.namespace() != sa.namespace() {
        return false;
    }
    let a = &secret.metadata.annotations;
    a.get(NAME).map(String::as_str) == Some(sa.name())
        && a.get(UID).is_none_or(|u| u.is_empty() || u == sa.uid())
}

impl Planner<'_> {
    /// The token controller's round: the tokens of a ServiceAccount this
    /// plan deletes are deleted.
    pub(super) fn token_controller(&mut self) -> bool {
        let gone_accounts: Vec<Id> = self
            .ids_where(|i| i.kind.is(Kind::SERVICE_ACCOUNT) && matches!(i.state, State::Gone(_)));
        if gone_accounts.is_empty() {
            return false;
        }
        let tokens: Vec<Id> = self.ids_where(|i| i.state == State::Alive && i.kind.is(Kind::TOKEN));
        let mut changed = false;
        for t in tokens {
            let ours = gone_accounts
                .iter()
                .any(|&sa| is_token_of(&self.items[t].obj, &self.items[sa].obj));
            if ours {
                self.delete_with(t, None, false);
                changed = true;
            }
        }
        changed
    }
}
