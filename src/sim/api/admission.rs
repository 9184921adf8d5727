//! Admission of what a create or update writes: owner references, finalizers,
//! and the defaults the API server fills in.

use super::*;

impl ApiServer {
    /// Checks shared by create and update: owner references (R1-R3, R5, R6)
    /// and finalizers (R21). Returns warnings or the error answer (returned
    /// as it is sent, not boxed).
    #[allow(clippy::result_large_err)]
    pub(super) fn admit_metadata(
        &self,
        obj: &mut Object,
        old: Option<&Object>,
        caller: &Caller,
    ) -> Result<Vec<String>, ApiResponse> {
        let mut warnings = Vec::new();
        let mut errs = validate_owner_references(&obj.metadata.owner_references);
        errs.extend(validate_finalizers(&obj.metadata.finalizers));
        if let Some(old) = old
            && let Some(e) = validate_no_new_finalizers(old, &obj.metadata.finalizers)
        {
            errs.push(e);
        }
        if !errs.is_empty() {
            return Err(Self::invalid(obj.group(), &obj.kind, obj.name(), &errs));
        }
        if let Some(w) = dedup_owner_references(&mut obj.metadata.owner_references) {
            warnings.push(w);
        }
        // (Warnings are about finalizers: none, nothing to ask.)
        if !obj.metadata.finalizers.is_empty() && !KindTable::is_builtin(obj.group(), &obj.kind) {
            let old_f = old
                .map(|o| o.metadata.finalizers.clone())
                .unwrap_or_default();
            warnings.extend(finalizer_warnings(&old_f, &obj.metadata.finalizers));
        }
        self.admit_owner_ref_permissions(obj, old, caller)?;
        Ok(warnings)
    }

    /// R6, when the admission plugin is enabled.
    #[allow(clippy::result_large_err)]
    pub(super) fn admit_owner_ref_permissions(
        &self,
        obj: &Object,
        old: Option<&Object>,
        caller: &Caller,
    ) -> Result<(), ApiResponse> {
        if !self.config.owner_references_permission_enforcement {
            return Ok(());
        }
        let old_refs = old
            .map(|o| o.metadata.owner_references.clone())
            .unwrap_or_default();
        if old_refs == obj.metadata.owner_references {
            return Ok(());
        }
        let resource = self.resource_name(obj.group(), &obj.kind);
        let forbidden = |msg: String| {
            ApiResponse::err(
                403,
                format!("{} \"{}\" is forbidden: {}", resource, obj.name(), msg),
            )
        };
        if !caller.may("delete", &resource) {
            return Err(forbidden(format!(
                "cannot set an ownerRef on a resource you can't delete: User \"{}\" cannot delete resource \"{}\"",
                caller.name, resource
            )));
        }
        for r in &obj.metadata.owner_references {
            let was_blocking = old_refs.iter().any(|o| o.uid == r.uid && o.blocks());
            if r.blocks() && !was_blocking {
                let owner_resource =
                    format!("{}/finalizers", self.resource_name(r.group(), &r.kind));
                if !caller.may("update", &owner_resource) {
                    return Err(forbidden(format!(
                        "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: User \"{}\" cannot update resource \"{}\"",
                        caller.name, owner_resource
                    )));
                }
            }
        }
        Ok(())
    }

    /// Defaults the API server applies to new objects (R55, R62).
    /// A Job created without `manualSelector` selects its own pods by its
    /// uid: upstream's job strategy (`generateSelector`) labels the
    /// template `controller-uid` and `job-name` and selects
    /// `controller-uid` (the labels 1.20 writes; 1.27+ adds their
    /// `batch.kubernetes.io/` twins). A Job a controller creates (a
    /// CronJob's) has no uid to select by until then.
    pub(super) fn generate_job_selector(obj: &mut Object) {
        if (obj.group(), obj.kind.as_str()) != ("batch", "Job")
            || obj
                .value_at(&["spec", "manualSelector"])
                .and_then(Value::as_bool)
                == Some(true)
            || obj
                .value_at(&["spec", "template"])
                .is_none_or(|t| !t.is_object())
        {
            return;
        }
        let uid = Value::from(obj.uid());
        let name = Value::from(obj.name());
        let mut labels = obj
            .value_at(&["spec", "template", "metadata", "labels"])
            .filter(|l| l.is_object())
            .cloned()
            .unwrap_or_else(|| serde_json::json!({}));
        labels["controller-uid"] = uid.clone();
        labels["job-name"] = name;
        obj.set_at(&["spec", "template", "metadata", "labels"], labels);
        obj.set_at(
            &["spec", "selector"],
            serde_json::json!({"matchLabels": {"controller-uid": uid}}),
        );
    }

    pub(super) fn apply_create_defaults(obj: &mut Object) {
        match (obj.group(), obj.kind.as_str()) {
            ("", "Namespace") => {
                let mut fins: Vec<Value> = obj
                    .value_at(&["spec", "finalizers"])
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                if !fins.iter().any(|f| f == "kubernetes") {
                    fins.push(Value::from("kubernetes"));
                }
                obj.set_at(&["spec", "finalizers"], Value::Array(fins));
                if !obj.is_terminating() {
                    obj.set_at(&["status", "phase"], Value::from("Active"));
                }
            }
            // The apiextensions controllers accept a new definition's names
            // and establish it (within milliseconds on a real server):
            // `kubectl wait --for=condition=Established` waits for this.
            ("apiextensions.k8s.io", "CustomResourceDefinition") if !obj.is_terminating() => {
                let mut conditions: Vec<Value> = obj
                    .value_at(&["status", "conditions"])
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                for (kind, reason, message) in [
                    ("NamesAccepted", "NoConflicts", "no conflicts found"),
                    (
                        "Established",
                        "InitialNamesAccepted",
                        "the initial names have been accepted",
                    ),
                ] {
                    if !conditions.iter().any(|c| c["type"] == kind) {
                        conditions.push(serde_json::json!({
                            "type": kind,
                            "status": "True",
                            "reason": reason,
                            "message": message,
                        }));
                    }
                }
                obj.set_at(&["status", "conditions"], Value::Array(conditions));
            }
            ("", "PersistentVolumeClaim") | ("", "PersistentVolume") if !obj.is_terminating() => {
                let f = if obj.kind == "PersistentVolume" {
                    "kubernetes.io/pv-protection"
                } else {
                    "kubernetes.io/pvc-protection"
                };
                if !obj.has_finalizer(f) {
                    obj.metadata.finalizers.push(f.to_string());
                }
            }
            _ => {}
        }
    }

    /// The admission webhooks called for `op` on `obj` (STUCK-CAUSES C6):
    /// one that fails closed and that nothing answers (no pod behind its
    /// Service, or no Service) refuses the request, as the API server does
    /// (500, InternalError, "failed calling webhook"). One failing open is
    /// skipped. The simulator's webhooks answer yes when called: a
    /// policy's "no" is not modelled.
    #[allow(clippy::result_large_err)]
    pub(super) fn call_webhooks(&self, obj: &Object, op: Operation) -> Result<(), ApiResponse> {
        if self.store.webhook_configurations().next().is_none() {
            return Ok(());
        }
        for w in webhooks::matching(&self.store, obj, op) {
            if !w.fails_closed {
                continue;
            }
            if let Some(svc) = &w.service
                && let webhooks::Backend::Down(why) = webhooks::backend(&self.store, svc, true)
            {
                return Err(ApiResponse::err(500, w.failure_message(&why)));
            }
        }
        Ok(())
    }
}
