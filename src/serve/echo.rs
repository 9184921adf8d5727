//! What serve adds to an object as it sends it ([`super::complete`],
//! [`super::pod_defaults`]: a pod spec's defaults, a Deployment's
//! strategy, the deployment controller's annotations) and a client sends
//! back unchanged is no change. kube-apiserver stored those fields at
//! create, so a PUT of the object as read (`kubectl replace`, a
//! controller's read-modify-write) leaves them as they were and raises no
//! `metadata.generation`; serve adds them as it sends, so without this a
//! PUT of the object as read wrote them for the first time, a change of
//! the spec. What a client sends equal to what was sent, where the stored
//! object lacks it, is taken out of the write: it reads the same
//! afterwards, added again as it is sent.

use serde_json::Value;

/// Takes out of `body` what equals `sent` (the object as it was sent)
/// where `stored` (as it is stored) lacks it, in `spec` and in
/// `metadata.annotations`. Whether anything was taken out.
pub fn strip(body: &mut Value, sent: &Value, stored: &Value) -> bool {
    // `get_mut`, not an index: indexing an object adds the key, as null.
    let spec = match body.get_mut("spec") {
        Some(b) => strip_in(b, &sent["spec"], &stored["spec"]),
        None => false,
    };
    let annotations = match body.pointer_mut("/metadata/annotations") {
        Some(a) => strip_in(
            a,
            &sent["metadata"]["annotations"],
            &stored["metadata"]["annotations"],
        ),
        None => false,
    };
    spec || annotations
}

fn strip_in(body: &mut Value, sent: &Value, stored: &Value) -> bool {
    match (body, sent) {
        (Value::Object(b), Value::Object(s)) => {
            let mut taken = false;
            let keys: Vec<String> = b.keys().cloned().collect();
            for k in keys {
                let Some(sent_k) = s.get(&k) else { continue };
                let stored_k = stored.get(&k);
                if stored_k.is_none() && b.get(&k) == Some(sent_k) {
                    b.remove(&k);
                    taken = true;
                } else if let Some(body_k) = b.get_mut(&k) {
                    taken |= strip_in(body_k, sent_k, stored_k.unwrap_or(&Value::Null));
                }
            }
            taken
        }
        // Element by element only where the three lists are alike in
        // length: an element the stored list lacks is not taken out of
        // the middle of a list.
        (Value::Array(b), Value::Array(s)) => match stored.as_array() {
            Some(st) if b.len() == s.len() && s.len() == st.len() => {
                let mut taken = false;
                for ((x, y), z) in b.iter_mut().zip(s).zip(st) {
                    taken |= strip_in(x, y, z);
                }
                taken
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_was_added_and_sent_back_is_taken_out_and_a_change_is_not() {
        let stored = json!({"spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}});
        let sent = json!({"spec": {"replicas": 2, "revisionHistoryLimit": 10,
            "template": {"spec": {"containers": [{"name": "c", "image": "i", "imagePullPolicy": "Always"}],
                                  "dnsPolicy": "ClusterFirst"}}},
            "metadata": {"annotations": {"deployment.kubernetes.io/revision": "1"}}});
        let mut echo = sent.clone();
        assert!(strip(&mut echo, &sent, &stored));
        assert_eq!(echo["spec"], stored["spec"]);
        assert_eq!(echo["metadata"]["annotations"], json!({}));
        // A default changed by the client is the client's.
        let mut changed = sent.clone();
        changed["spec"]["template"]["spec"]["dnsPolicy"] = json!("None");
        changed["spec"]["replicas"] = json!(3);
        strip(&mut changed, &sent, &stored);
        assert_eq!(changed["spec"]["template"]["spec"]["dnsPolicy"], "None");
        assert_eq!(changed["spec"]["replicas"], 3);
        assert!(changed["spec"].get("revisionHistoryLimit").is_none());
        // A list whose stored length differs stays whole.
        let stored = json!({"spec": {"tolerations": [{"key": "a"}]}});
        let sent = json!({"spec": {"tolerations": [{"key": "a"}, {"key": "b"}]}});
        let mut body = sent.clone();
        assert!(!strip(&mut body, &sent, &stored));
        assert_eq!(body, sent);
    }
}
