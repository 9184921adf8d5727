//! Follows upstream `pkg/controller/volume/pvcprotection/pvc_protection_controller.go`,
//! `pkg/controller/volume/pvprotection/pv_protection_controller.go` and, for
//! a Released volume, `pkg/controller/volume/persistentvolume/pv_controller.go`
//! (R62-R64): the protection finalizers come off a claim no scheduled pod
//! uses and a volume that is not Bound; a Bound volume whose claim is gone
//! is Released, and deleted when its reclaim policy is Delete.

use serde_json::json;

use super::{Intent, Op, PV_PROTECTION, PVC_PROTECTION, intent, remove_finalizer};
use crate::model::{Object, Policy};
use crate::sim::api::{ApiServer, DeleteOptions, Key};

/// R62-R64: the PVC and PV protection controllers, and the PV controller
/// releasing a volume whose claim is gone.
#[must_use]
pub fn sync_volume_protection(api: &ApiServer) -> Vec<Intent> {
    let mut out = Vec::new();
    for pvc in api.objects().filter(|o| {
        o.kind == "PersistentVolumeClaim"
            && o.group().is_empty()
            && o.is_terminating()
            && o.has_finalizer(PVC_PROTECTION)
    }) {
        if !pvc_in_use(api, pvc) {
            out.push(intent(
                "pvc-protection-controller",
                remove_finalizer(pvc, PVC_PROTECTION),
            ));
        }
    }
    for pv in api
        .objects()
        .filter(|o| o.kind == "PersistentVolume" && o.group().is_empty())
    {
        let phase = pv.str_at(&["status", "phase"]).unwrap_or_default();
        if phase == "Bound" {
            let claim_ns = pv.str_at(&["spec", "claimRef", "namespace"]);
            let claim_name = pv.str_at(&["spec", "claimRef", "name"]);
            if let (Some(ns), Some(name)) = (claim_ns, claim_name) {
                let key = Key {
                    group: String::new(),
                    kind: "PersistentVolumeClaim".into(),
                    namespace: Some(ns.to_string()),
                    name: name.to_string(),
                };
                if api.get(&key).is_none() {
                    let mut status = (*pv.status).clone();
                    if !status.is_object() {
                        status = json!({});
                    }
                    status["phase"] = json!("Released");
                    out.push(intent(
                        "persistentvolume-binder-controller",
                        Op::SetStatus {
                            key: Key::of(pv),
                            status,
                        },
                    ));
                }
            }
        } else if phase == "Released"
            && !pv.is_terminating()
            && pv.str_at(&["spec", "persistentVolumeReclaimPolicy"]) == Some("Delete")
        {
            // The PV controller reclaims a Released volume whose policy is
            // Delete: it deletes the PersistentVolume (observed within
            // 0.1 s); Retain keeps it Released.
            out.push(intent(
                "persistentvolume-binder-controller",
                Op::Delete {
                    key: Key::of(pv),
                    options: DeleteOptions::policy(Policy::Background),
                },
            ));
        } else if pv.is_terminating() && pv.has_finalizer(PV_PROTECTION) {
            out.push(intent(
                "pv-protection-controller",
                remove_finalizer(pv, PV_PROTECTION),
            ));
        }
    }
    out
}

/// R63.
fn pvc_in_use(api: &ApiServer, pvc: &Object) -> bool {
    api.objects()
        .any(|pod| pod.namespace() == pvc.namespace() && pod.holds_claim(pvc.name()))
}
