//! Admission webhooks in a preview (STUCK-CAUSES C6): a controller's
//! removal of its finalizer is an UPDATE, refused while a webhook that
//! fails closed is called for it and nothing answers at its Service. The
//! pods behind a Service are taken as ready, as the simulator runs them.

use super::Planner;
use crate::model::object::Object;
use crate::model::webhooks::{self, Backend, Operation, Webhook};

impl Planner<'_> {
    /// The first webhook that refuses an UPDATE of `obj`, and why.
    pub(super) fn refusing_webhook(&self, obj: &Object) -> Option<(Webhook, String)> {
        self.graph.webhook_configurations().next()?;
        webhooks::matching(self.graph, obj, Operation::Update)
            .into_iter()
            .filter(|w| w.fails_closed)
            .find_map(|w| {
                let svc = w.service.clone()?;
                match webhooks::backend(self.graph, &svc, true) {
                    Backend::Down(why) => Some((w, why)),
                    _ => None,
                }
            })
    }
}
