//! DELETE: the propagation policy, the finalizers it adds, grace periods,
//! and what a CRD's or a namespace's deletion starts (GC-SEMANTICS section C).

use super::*;

impl ApiServer {
    /// R11: which GC finalizer a DELETE leaves on the object.
    pub(super) fn gc_finalizers(&self, obj: &Object, opts: &DeleteOptions) -> Vec<String> {
        let mut list: Vec<String> = obj
            .metadata
            .finalizers
            .iter()
            .filter(|f| *f != ORPHAN && *f != FOREGROUND)
            .cloned()
            .collect();
        if !self.config.garbage_collector {
            return obj.metadata.finalizers.clone();
        }
        let default = self
            .kind_info(obj.group(), &obj.kind)
            .map_or(DefaultPolicy::Policy(Policy::Background), |k| {
                k.default_policy
            });
        let chosen: Option<&str> = if default == DefaultPolicy::Unsupported {
            None
        } else if let Some(orphan) = opts.orphan_dependents {
            orphan.then_some(ORPHAN)
        } else if let Some(p) = opts.propagation_policy.as_deref() {
            match p {
                "Orphan" => Some(ORPHAN),
                "Foreground" => Some(FOREGROUND),
                _ => None,
            }
        } else if obj.has_finalizer(ORPHAN) {
            Some(ORPHAN)
        } else if obj.has_finalizer(FOREGROUND) {
            Some(FOREGROUND)
        } else if default == DefaultPolicy::Policy(Policy::Orphan) {
            Some(ORPHAN)
        } else {
            None
        };
        if let Some(c) = chosen {
            list.push(c.to_string());
        }
        list
    }

    /// R15: the grace period a DELETE gives a pod; 0 for other kinds.
    pub(super) fn grace_period(obj: &Object, opts: &DeleteOptions) -> i64 {
        if obj.kind != "Pod" || !obj.group().is_empty() {
            return 0;
        }
        let mut grace = opts.grace_period_seconds.unwrap_or_else(|| {
            obj.value_at(&["spec", "terminationGracePeriodSeconds"])
                .and_then(Value::as_i64)
                .unwrap_or(30)
        });
        let node = obj.str_at(&["spec", "nodeName"]).unwrap_or_default();
        let phase = obj.str_at(&["status", "phase"]).unwrap_or_default();
        if node.is_empty() || phase == "Succeeded" || phase == "Failed" {
            grace = 0;
        }
        if grace < 0 {
            grace = 1;
        }
        grace
    }

    /// DELETE (R9-R18, R56).
    pub fn delete(&mut self, key: &Key, opts: &DeleteOptions) -> ApiResponse {
        // R9
        if opts.orphan_dependents.is_some() && opts.propagation_policy.is_some() {
            return ApiResponse::err(
                422,
                format!(
                    "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: {:?}: orphanDependents and deletionPropagation cannot be both set",
                    opts.propagation_policy.clone().unwrap_or_default()
                ),
            );
        }
        if let Some(p) = &opts.propagation_policy
            && Policy::parse(p).is_none_or(|parsed| parsed.as_str() != p)
        {
            return ApiResponse::err(
                422,
                format!(
                    "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: {p:?}: supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
                ),
            );
        }
        let Some(obj) = self.get_shared(key).cloned() else {
            return self.not_found(key);
        };
        let resource = self.resource_name(obj.group(), &obj.kind);
        let is_namespace = obj.kind == "Namespace" && obj.group().is_empty();
        if is_namespace && IMMORTAL_NAMESPACES.contains(&obj.name()) {
            return ApiResponse::err(
                403,
                format!(
                    "namespaces \"{}\" is forbidden: this namespace may not be deleted",
                    obj.name()
                ),
            );
        }
        if let Err(resp) = self.call_webhooks(&obj, Operation::Delete) {
            return resp;
        }
        // R10
        if let Some(uid) = &opts.preconditions.uid
            && uid != obj.uid()
        {
            return ApiResponse::err(
                409,
                format!(
                    "Operation cannot be fulfilled on {resource} \"{}\": the UID in the precondition ({uid}) does not match the UID in record ({}). The object might have been deleted and then recreated",
                    obj.name(),
                    obj.uid()
                ),
            );
        }
        if let Some(rv) = &opts.preconditions.resource_version
            && Some(rv) != obj.metadata.resource_version.as_ref()
        {
            return ApiResponse::err(
                409,
                format!(
                    "Operation cannot be fulfilled on {resource} \"{}\": the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({}). The object might have been modified",
                    obj.name(),
                    obj.metadata.resource_version.clone().unwrap_or_default()
                ),
            );
        }
        let mut warnings = Vec::new();
        if obj.group() == "batch"
            && obj.kind == "Job"
            && opts.orphan_dependents.is_none()
            && opts.propagation_policy.is_none()
        {
            warnings.push("child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning".to_string());
        }
        let is_crd =
            obj.kind == "CustomResourceDefinition" && obj.group() == "apiextensions.k8s.io";
        let mut resp = if is_namespace {
            self.delete_namespace(obj, opts)
        } else if is_crd && !obj.is_terminating() {
            self.delete_crd(obj)
        } else {
            self.delete_object(obj, opts)
        };
        resp.warnings.splice(0..0, warnings);
        if resp.code == 200 && !resp.removed && opts.orphan_dependents == Some(false) {
            resp.code = 202; // R16
        }
        resp
    }

    /// The CustomResourceDefinition serving `group`/`kind`, if any.
    #[must_use]
    pub fn crd_of(&self, group: &str, kind: &str) -> Option<&Object> {
        if group.is_empty() || !group.contains('.') {
            return None;
        }
        self.objects().find(|c| {
            c.kind == "CustomResourceDefinition"
                && c.group() == "apiextensions.k8s.io"
                && c.str_at(&["spec", "group"]) == Some(group)
                && c.str_at(&["spec", "names", "kind"]) == Some(kind)
        })
    }

    /// R75: the first DELETE of a CRD ignores any propagation policy: it
    /// adds the cleanup finalizer and the Terminating condition; the CRD
    /// finalizer controller deletes the instances, then lets it go.
    pub(super) fn delete_crd(&mut self, obj: Arc<Object>) -> ApiResponse {
        let mut new = Object::clone(&obj);
        new.metadata
            .finalizers
            .retain(|f| f != ORPHAN && f != FOREGROUND);
        if !new.has_finalizer(CRD_CLEANUP) {
            new.metadata.finalizers.push(CRD_CLEANUP.into());
        }
        new.metadata.deletion_timestamp = Some(self.stamp(self.now));
        new.metadata.deletion_grace_period_seconds = Some(0);
        new.status = crd_terminating(
            &new.status,
            "InstanceDeletionPending",
            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        )
        .into();
        let stored = self.store_update(obj, new);
        ApiResponse::ok(stored)
    }

    pub(super) fn names_policy(opts: &DeleteOptions) -> bool {
        opts.orphan_dependents.is_some() || opts.propagation_policy.is_some()
    }

    pub(super) fn delete_object(&mut self, obj: Arc<Object>, opts: &DeleteOptions) -> ApiResponse {
        let grace = Self::grace_period(&obj, opts);
        let now = self.stamp(self.now);
        if let Some(ts) = obj.metadata.deletion_timestamp {
            let pending = obj.metadata.deletion_grace_period_seconds.unwrap_or(0);
            if pending > 0 {
                // R18
                if grace >= pending {
                    return ApiResponse::ok(obj);
                }
                let mut new = Object::clone(&obj);
                let start = ts - SignedDuration::from_secs(pending);
                let mut new_ts = start + SignedDuration::from_secs(grace);
                let mut new_grace = grace;
                if new_ts < now {
                    new_ts = now;
                    if new_grace != 0 {
                        new_grace = 1;
                    }
                }
                new.metadata.deletion_timestamp = Some(new_ts);
                new.metadata.deletion_grace_period_seconds = Some(new_grace);
                new.metadata.finalizers = self.gc_finalizers(&obj, opts);
                return self.finish_delete(obj, new);
            }
            // R17
            if !Self::names_policy(opts) {
                return ApiResponse::ok(obj);
            }
            let mut new = Object::clone(&obj);
            new.metadata.finalizers = self.gc_finalizers(&obj, opts);
            return self.finish_delete(obj, new);
        }
        let mut new = Object::clone(&obj);
        new.metadata.finalizers = self.gc_finalizers(&obj, opts);
        if grace > 0 {
            // R15
            new.metadata.deletion_timestamp = Some(now + SignedDuration::from_secs(grace));
            new.metadata.deletion_grace_period_seconds = Some(grace);
        } else {
            if new.metadata.finalizers.is_empty() {
                // R13. A pod is a graceful kind: even at grace 0 a watch
                // sees it MODIFIED (deletionTimestamp, grace 0), then
                // DELETED, as on a real control plane.
                if obj.is_pod() {
                    let mut marked = new.clone();
                    marked.metadata.deletion_timestamp = Some(now);
                    marked.metadata.deletion_grace_period_seconds = Some(0);
                    let stored = self.store_update(obj, marked);
                    self.remove_stored(stored.uid());
                    return Self::removed_status(stored);
                }
                self.remove_stored(obj.uid());
                return Self::removed_status(new);
            }
            // R14
            new.metadata.deletion_timestamp = Some(now);
            new.metadata.deletion_grace_period_seconds = Some(0);
        }
        if let Some(g) = new.metadata.generation.as_mut()
            && *g > 0
        {
            *g += 1;
        }
        let stored = self.store_update(obj, new);
        ApiResponse::ok(stored)
    }

    /// Stores `new` after a repeat DELETE, or removes the object when no
    /// finalizer and no grace is left.
    pub(super) fn finish_delete(&mut self, old: Arc<Object>, new: Object) -> ApiResponse {
        if new.metadata.finalizers.is_empty()
            && new.metadata.deletion_grace_period_seconds.unwrap_or(0) == 0
        {
            self.remove_stored(old.uid());
            return Self::removed_status(new);
        }
        if new == *old {
            return ApiResponse::ok(old);
        }
        let stored = self.store_update(old, new);
        ApiResponse::ok(stored)
    }

    pub(super) fn removed_status(obj: impl Into<Arc<Object>>) -> ApiResponse {
        ApiResponse {
            removed: true,
            ..ApiResponse::ok(obj)
        }
    }

    /// R56: namespaces.
    pub(super) fn delete_namespace(
        &mut self,
        obj: Arc<Object>,
        opts: &DeleteOptions,
    ) -> ApiResponse {
        if obj.is_terminating() {
            return ApiResponse::ok(obj);
        }
        let mut new = Object::clone(&obj);
        new.metadata.deletion_timestamp = Some(self.stamp(self.now));
        new.set_at(&["status", "phase"], Value::from("Terminating"));
        if Self::names_policy(opts) {
            new.metadata.finalizers = self.gc_finalizers(&obj, opts);
        }
        if new.metadata.finalizers.is_empty() && !Self::namespace_spec_finalizers_remain(&new) {
            self.remove_stored(obj.uid());
            return Self::removed_status(new);
        }
        let stored = self.store_update(obj, new);
        ApiResponse::ok(stored)
    }
}

/// A CRD's status with its `Terminating` condition set (R75): True, with
/// the reason of the stage the deletion is at.
#[must_use]
pub fn crd_terminating(status: &Value, reason: &str, message: &str) -> Value {
    let mut status = if status.is_object() {
        status.clone()
    } else {
        serde_json::json!({})
    };
    let mut conditions: Vec<Value> = status["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c["type"] != "Terminating")
        .collect();
    conditions.push(serde_json::json!({
        "type": "Terminating", "status": "True", "reason": reason, "message": message
    }));
    status["conditions"] = Value::from(conditions);
    status
}
