//! Admission webhooks that can refuse the request ending a deletion
//! (`../shared/STUCK-CAUSES.md` C6): removing a finalizer is an UPDATE,
//! and a validating or mutating webhook called for that UPDATE, with
//! `failurePolicy: Fail`, refuses it while nothing answers at its Service.
//! Nobody can remove the finalizer then: not its controller, not `F`, not
//! `kubectl patch`.
//!
//! Which webhooks a request is sent to follows upstream's matching
//! (`k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules`:
//! operations, groups, versions, `resource/subresource` with `*`, scope;
//! then the namespace and object selectors). Webhook configurations
//! themselves are never sent to webhooks, so they can always be deleted.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::graph::OwnershipGraph;
use super::object::{Object, version_of};
use super::selector::Selector;

pub const GROUP: &str = "admissionregistration.k8s.io";
pub const VALIDATING: &str = "ValidatingWebhookConfiguration";
pub const MUTATING: &str = "MutatingWebhookConfiguration";

/// A validating or mutating webhook configuration.
#[must_use]
pub fn is_configuration(o: &Object) -> bool {
    (o.kind == VALIDATING || o.kind == MUTATING) && o.group() == GROUP
}

/// The request a webhook may be called for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Operation {
    Create,
    Update,
    Delete,
}

impl Operation {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
        }
    }
}

/// Where a webhook is called.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceRef {
    pub namespace: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub port: u16,
}

impl ServiceRef {
    /// `namespace/name`.
    #[must_use]
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

/// One rule of a webhook.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Rule {
    operations: Vec<String>,
    groups: Vec<String>,
    versions: Vec<String>,
    resources: Vec<String>,
    scope: String,
}

/// One webhook of a configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    /// `ValidatingWebhookConfiguration` or `MutatingWebhookConfiguration`.
    pub configuration_kind: String,
    pub configuration: String,
    pub name: String,
    /// `failurePolicy: Fail` (v1's default; v1beta1's is `Ignore`): a
    /// webhook that cannot be called refuses the request.
    pub fails_closed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip)]
    rules: Vec<Rule>,
    /// `matchPolicy: Equivalent` (v1's default): a rule naming another
    /// version of the same resource matches too.
    #[serde(skip)]
    equivalent: bool,
    #[serde(skip)]
    namespace_selector: Selector,
    #[serde(skip)]
    object_selector: Selector,
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// A missing selector selects everything.
fn selector(v: Option<&Value>) -> Selector {
    match v {
        None | Some(Value::Null) => Selector::default(),
        Some(v) => Selector::from_label_selector(Some(v)),
    }
}

/// The webhooks of a configuration, with the defaults of its version.
#[must_use]
pub fn of_configuration(config: &Object) -> Vec<Webhook> {
    if !is_configuration(config) {
        return Vec::new();
    }
    let v1 = version_of(&config.api_version) == "v1";
    let Some(list) = config.extra().webhooks.as_deref().and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .map(|w| {
            let text = |k: &str| w.get(k).and_then(Value::as_str).map(str::to_string);
            let client = w.get("clientConfig");
            let service = client.and_then(|c| c.get("service")).map(|s| ServiceRef {
                namespace: s
                    .get("namespace")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                name: s
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                path: s.get("path").and_then(Value::as_str).map(str::to_string),
                port: s
                    .get("port")
                    .and_then(Value::as_u64)
                    .and_then(|p| u16::try_from(p).ok())
                    .unwrap_or(443),
            });
            let rules = w
                .get("rules")
                .and_then(Value::as_array)
                .map(|rs| {
                    rs.iter()
                        .map(|r| Rule {
                            operations: strings(r.get("operations")),
                            groups: strings(r.get("apiGroups")),
                            versions: strings(r.get("apiVersions")),
                            resources: strings(r.get("resources")),
                            scope: r
                                .get("scope")
                                .and_then(Value::as_str)
                                .unwrap_or("*")
                                .to_string(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            Webhook {
                configuration_kind: config.kind.clone(),
                configuration: config.name().to_string(),
                name: text("name").unwrap_or_default(),
                fails_closed: match text("failurePolicy").as_deref() {
                    Some("Fail") => true,
                    Some(_) => false,
                    None => v1,
                },
                service,
                url: client
                    .and_then(|c| c.get("url"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                rules,
                equivalent: match text("matchPolicy").as_deref() {
                    Some("Equivalent") => true,
                    Some(_) => false,
                    None => v1,
                },
                namespace_selector: selector(w.get("namespaceSelector")),
                object_selector: selector(w.get("objectSelector")),
            }
        })
        .collect()
}

fn listed(list: &[String], value: &str) -> bool {
    list.iter().any(|x| x == "*" || x == value)
}

impl Webhook {
    /// Whether a rule of this webhook covers `op` on `obj` (its main
    /// resource, no subresource), before the selectors.
    fn rule_matches(&self, graph: &OwnershipGraph, obj: &Object, op: Operation) -> bool {
        let group = obj.group();
        let version = version_of(&obj.api_version);
        let resource = graph.kinds().get(group, &obj.kind).map_or_else(
            || format!("{}s", obj.kind.to_ascii_lowercase()),
            |k| k.plural.clone(),
        );
        let namespaced = obj.namespace().is_some();
        self.rules.iter().any(|r| {
            listed(&r.operations, op.as_str())
                && listed(&r.groups, group)
                && (self.equivalent || listed(&r.versions, version))
                && r.resources.iter().any(|res| {
                    let (res, sub) = res.split_once('/').unwrap_or((res, ""));
                    (res == "*" || res == resource) && (sub == "*" || sub.is_empty())
                })
                && match r.scope.as_str() {
                    "Cluster" => !namespaced,
                    "Namespaced" => namespaced,
                    _ => true,
                }
        })
    }

    /// Whether the API server sends `op` on `obj` to this webhook. A
    /// namespace that is not in view is taken to match its selector.
    #[must_use]
    pub fn matches(&self, graph: &OwnershipGraph, obj: &Object, op: Operation) -> bool {
        if is_configuration(obj) || !self.rule_matches(graph, obj, op) {
            return false;
        }
        if !self.object_selector.matches(&obj.metadata.labels) {
            return false;
        }
        // Cluster-scoped objects other than namespaces always match the
        // namespace selector; a namespace matches with its own labels.
        let ns_labels = if obj.kind == "Namespace" && obj.group().is_empty() {
            Some(&obj.metadata.labels)
        } else {
            match obj.namespace() {
                None => return true,
                Some(ns) => graph
                    .find("", "Namespace", None, ns)
                    .map(|n| &n.metadata.labels),
            }
        };
        ns_labels.is_none_or(|l| self.namespace_selector.matches(l))
    }

    /// `Kind/name` of its configuration.
    #[must_use]
    pub fn configuration_ref(&self) -> String {
        format!("{}/{}", self.configuration_kind, self.configuration)
    }

    /// The address the API server posts to, as its errors print it.
    #[must_use]
    pub fn address(&self) -> String {
        match (&self.service, &self.url) {
            (Some(s), _) => format!(
                "https://{}.{}.svc:{}{}?timeout=10s",
                s.name,
                s.namespace,
                s.port,
                s.path.as_deref().unwrap_or("/")
            ),
            (None, Some(u)) => u.clone(),
            (None, None) => "(no clientConfig)".into(),
        }
    }

    /// The API server's answer when it cannot call this webhook
    /// (`failurePolicy: Fail`): status 500, reason InternalError.
    #[must_use]
    pub fn failure_message(&self, why: &str) -> String {
        format!(
            "Internal error occurred: failed calling webhook {:?}: Post {:?}: {why}",
            self.name,
            self.address()
        )
    }
}

/// The webhooks `op` on `obj` is sent to, in configuration order.
#[must_use]
pub fn matching(graph: &OwnershipGraph, obj: &Object, op: Operation) -> Vec<Webhook> {
    if is_configuration(obj) {
        return Vec::new();
    }
    graph
        .webhook_configurations()
        .flat_map(of_configuration)
        .filter(|w| w.matches(graph, obj, op))
        .collect()
}

/// Whether anything answers at a webhook's Service.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "state", content = "detail")]
pub enum Backend {
    /// Pods or endpoints answer (what was seen).
    Up(String),
    /// Nothing answers: the API server's words for it.
    Down(String),
    /// Not seen (not in view, not read): what would tell.
    Unknown(String),
}

impl Backend {
    #[must_use]
    pub fn is_down(&self) -> bool {
        matches!(self, Backend::Down(_))
    }
}

/// Whether anything answers at `svc`, from the objects in view: the
/// Service, and the pods it selects that are not going away and are not on
/// a node that stopped reporting. `pods_ready`: selected pods are taken to
/// be ready (the simulator runs them); otherwise a pod is ready when its
/// status says Running and Ready, and with none such the answer is
/// Unknown unless none is selected at all.
#[must_use]
pub fn backend(graph: &OwnershipGraph, svc: &ServiceRef, pods_ready: bool) -> Backend {
    let in_view = graph.find("", "Namespace", None, &svc.namespace).is_some()
        || graph
            .objects()
            .any(|o| o.namespace() == Some(svc.namespace.as_str()));
    let Some(service) = graph.find("", "Service", Some(&svc.namespace), &svc.name) else {
        return if in_view && graph.kinds().unlisted_kind("", "Service").is_none() {
            Backend::Down(format!("service {:?} not found", svc.name))
        } else {
            Backend::Unknown(format!(
                "Service {} is not in view: `kubectl get endpoints -n {} {}` tells whether anything answers",
                svc.key(),
                svc.namespace,
                svc.name
            ))
        };
    };
    let sel = Selector::from_map(service.value_at(&["spec", "selector"]));
    if sel.is_nothing() {
        return Backend::Unknown(format!(
            "Service {} has no selector (its endpoints are set by hand): `kubectl get endpoints -n {} {}`",
            svc.key(),
            svc.namespace,
            svc.name
        ));
    }
    let pods: Vec<&Object> = graph
        .objects()
        .filter(|o| {
            o.is_pod()
                && o.namespace() == Some(svc.namespace.as_str())
                && sel.matches(&o.metadata.labels)
                && super::workload::is_active_pod(o)
                // On a node that stopped reporting its pods are not ready
                // (the node lifecycle controller marks them so). Unbound
                // as far as can be seen: a metadata-only view does not
                // show the node, and the simulator runs pods unscheduled.
                && match super::nodes::of_pod(graph, o) {
                    super::nodes::NodeHealth::Unscheduled => true,
                    h => h.confirms(),
                }
        })
        .collect();
    if pods.is_empty() {
        return Backend::Down(format!("no endpoints available for service {:?}", svc.name));
    }
    let names: Vec<String> = pods.iter().map(|p| format!("Pod/{}", p.name())).collect();
    if pods_ready
        || pods
            .iter()
            .any(|p| super::workload::is_running_and_ready(p))
    {
        Backend::Up(format!("served by {}", names.join(", ")))
    } else {
        Backend::Unknown(format!(
            "{} selected, readiness not read: `kubectl get endpoints -n {} {}`",
            names.join(", "),
            svc.namespace,
            svc.name
        ))
    }
}

/// A webhook that holds a Terminating object: it is called for the UPDATE
/// that would remove its finalizers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Holding {
    pub webhook: Webhook,
    pub backend: Backend,
    /// The held object's resource, as the webhook's rules name it.
    pub resource: String,
}

impl Holding {
    /// The cause, in one line, when it refuses (or may refuse) the removal.
    #[must_use]
    pub fn cause(&self) -> Option<String> {
        let w = &self.webhook;
        let resource = &self.resource;
        match &self.backend {
            Backend::Down(why) if w.fails_closed => Some(format!(
                "admission webhook {} ({}, failurePolicy Fail) refuses every UPDATE of {resource}: {why}. Nobody can remove a finalizer (its controller, F, kubectl patch) until it answers",
                w.name,
                w.configuration_ref()
            )),
            Backend::Unknown(what) if w.fails_closed => Some(format!(
                "admission webhook {} ({}, failurePolicy Fail) is called for every UPDATE of {resource}: if nothing answers it, nobody can remove a finalizer. {what}",
                w.name,
                w.configuration_ref()
            )),
            _ => None,
        }
    }

    /// The fix, safest first, and the dangerous one named for what it
    /// skips.
    #[must_use]
    pub fn fix(&self) -> String {
        let w = &self.webhook;
        let serve = w.service.as_ref().map_or_else(
            || format!("the address {}", w.address()),
            |s| format!("Service {}: its pods and endpoints", s.key()),
        );
        format!(
            "fix, safest first: bring back what serves webhook {} ({serve}): the finalizer's controller then removes it by itself; if that webhook belongs to something uninstalled, delete {}: that skips its checks for every request it matched until it is reinstalled. Removing the finalizer by hand does not help: it is an UPDATE too",
            w.name,
            w.configuration_ref()
        )
    }
}

/// The webhooks called for the UPDATE that would end `obj`'s deletion
/// (removing a finalizer), failing closed, with what answers them.
/// `evidence` (service `namespace/name` -> backend) overrides what the
/// objects in view say (a live view reads the endpoints).
#[must_use]
pub fn holding(
    graph: &OwnershipGraph,
    obj: &Object,
    evidence: &BTreeMap<String, Backend>,
    pods_ready: bool,
) -> Vec<Holding> {
    if !obj.is_terminating() || obj.metadata.finalizers.is_empty() {
        return Vec::new();
    }
    let resource = graph.kinds().get(obj.group(), &obj.kind).map_or_else(
        || obj.kind.to_ascii_lowercase(),
        super::kinds::KindInfo::resource,
    );
    matching(graph, obj, Operation::Update)
        .into_iter()
        .filter(|w| w.fails_closed)
        .map(|webhook| {
            let backend = match &webhook.service {
                Some(s) => evidence
                    .get(&s.key())
                    .cloned()
                    .unwrap_or_else(|| backend(graph, s, pods_ready)),
                None => {
                    Backend::Unknown(format!("calls {}, outside the cluster", webhook.address()))
                }
            };
            Holding {
                webhook,
                backend,
                resource: resource.clone(),
            }
        })
        .collect()
}

/// The webhook an API error names: `failed calling webhook "X"` (it could
/// not be called) or `admission webhook "X" denied the request` (it
/// answered no).
#[must_use]
pub fn named_in(message: &str) -> Option<(&str, bool)> {
    for (marker, denied) in [
        ("failed calling webhook \"", false),
        ("admission webhook \"", true),
    ] {
        if let Some(start) = message.find(marker) {
            let rest = &message[start + marker.len()..];
            let end = rest.find('"')?;
            return Some((&rest[..end], denied));
        }
    }
    None
}

/// What to say after a request was refused by a webhook: which
/// configuration, which webhook, what to do. `None` when the message
/// names no webhook.
#[must_use]
pub fn explain_refusal(graph: &OwnershipGraph, message: &str) -> Option<String> {
    let (name, denied) = named_in(message)?;
    let found = graph
        .webhook_configurations()
        .flat_map(of_configuration)
        .find(|w| w.name == name);
    let which = found.as_ref().map_or_else(
        || format!("webhook {name}"),
        |w| format!("webhook {name} of {}", w.configuration_ref()),
    );
    Some(if denied {
        format!(
            "{which} answered no: it refuses this UPDATE by policy. Ask its owners to let objects being deleted (deletionTimestamp set) through; deleting the configuration skips its checks for everything"
        )
    } else {
        let serve = found
            .as_ref()
            .and_then(|w| w.service.as_ref())
            .map_or_else(String::new, |s| format!(" (Service {})", s.key()));
        format!(
            "{which} could not be called and fails closed: bring back what serves it{serve}, then try again; if it belongs to something uninstalled, deleting its configuration lets the request through (and skips its checks for everything it matched)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KindTable;
    use serde_json::json;

    fn graph(objs: &[Value]) -> OwnershipGraph {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        for o in objs {
            g.upsert(serde_json::from_value::<Object>(o.clone()).expect("object"));
        }
        g
    }

    fn guard_with(version: &str, rule: Value) -> Value {
        json!({
            "apiVersion": format!("admissionregistration.k8s.io/{version}"),
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "guard", "uid": "wh"},
            "webhooks": [{
                "name": "guard.example.com",
                "clientConfig": {"service": {"namespace": "guard-system", "name": "guard", "path": "/validate"}},
                "rules": [rule],
                "namespaceSelector": {"matchLabels": {"team": "shop"}}
            }]
        })
    }

    fn rule(resources: Value) -> Value {
        json!({"operations": ["UPDATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": resources})
    }

    fn guard() -> Value {
        guard_with("v1", rule(json!(["configmaps"])))
    }

    fn held() -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "held", "namespace": "shop", "uid": "cm",
            "finalizers": ["example.com/hold"], "deletionTimestamp": "2026-01-01T00:00:00Z"}})
    }

    fn namespace(name: &str, team: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "uid": format!("ns-{name}"), "labels": {"team": team}}})
    }

    fn service() -> Value {
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "guard", "namespace": "guard-system", "uid": "svc"},
            "spec": {"selector": {"app": "guard"}}})
    }

    fn pod() -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "guard-1", "namespace": "guard-system", "uid": "pod", "labels": {"app": "guard"}},
            "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}})
    }

    #[test]
    fn a_rule_matches_as_upstream_matches_resources_and_scopes() {
        let g = graph(&[guard(), held(), namespace("shop", "shop")]);
        let held_cm = g.get("cm").expect("held");
        let w = &of_configuration(g.get("wh").expect("config"))[0];
        assert!(w.fails_closed, "v1's default failurePolicy is Fail");
        assert!(w.matches(&g, held_cm, Operation::Update));
        assert!(!w.matches(&g, held_cm, Operation::Delete));
        // A namespace whose labels the selector does not match.
        let other = graph(&[guard(), held(), namespace("shop", "web")]);
        assert!(!w.matches(&other, other.get("cm").expect("cm"), Operation::Update));
        // `*` is every resource but no subresource; `*/*` both.
        for (resources, hit) in [
            (json!(["*"]), true),
            (json!(["*/*"]), true),
            (json!(["configmaps/status"]), false),
            (json!(["configmaps/*"]), true),
            (json!(["secrets"]), false),
        ] {
            let g = graph(&[
                guard_with("v1", rule(resources.clone())),
                held(),
                namespace("shop", "shop"),
            ]);
            let w = &of_configuration(g.get("wh").expect("config"))[0];
            assert_eq!(
                w.matches(&g, g.get("cm").expect("cm"), Operation::Update),
                hit,
                "{resources}"
            );
        }
    }

    #[test]
    fn v1beta1_fails_open_by_default_and_configurations_are_never_matched() {
        let g = graph(&[
            guard_with("v1beta1", rule(json!(["configmaps"]))),
            held(),
            namespace("shop", "shop"),
        ]);
        assert!(!of_configuration(g.get("wh").expect("config"))[0].fails_closed);
        assert!(holding(&g, g.get("cm").expect("cm"), &BTreeMap::new(), true).is_empty());
        let every = json!({"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]});
        let g = graph(&[guard_with("v1", every)]);
        assert!(matching(&g, g.get("wh").expect("config"), Operation::Update).is_empty());
    }

    #[test]
    fn a_webhook_with_no_pod_behind_its_service_holds_the_finalizer() {
        let g = graph(&[guard(), held(), namespace("shop", "shop"), service()]);
        let h = holding(&g, g.get("cm").expect("cm"), &BTreeMap::new(), true);
        assert_eq!(h.len(), 1);
        assert_eq!(
            h[0].backend,
            Backend::Down("no endpoints available for service \"guard\"".into())
        );
        let cause = h[0].cause().expect("a cause");
        assert!(
            cause.contains("guard.example.com (ValidatingWebhookConfiguration/guard, failurePolicy Fail) refuses every UPDATE of configmaps"),
            "{cause}"
        );
        assert!(
            h[0].fix().starts_with("fix, safest first: bring back what serves webhook guard.example.com (Service guard-system/guard: its pods and endpoints)"),
            "{}",
            h[0].fix()
        );
        assert_eq!(
            h[0].webhook
                .failure_message("no endpoints available for service \"guard\""),
            "Internal error occurred: failed calling webhook \"guard.example.com\": Post \"https://guard.guard-system.svc:443/validate?timeout=10s\": no endpoints available for service \"guard\""
        );
        // With its pod running, it answers.
        let g = graph(&[guard(), held(), namespace("shop", "shop"), service(), pod()]);
        let h = holding(&g, g.get("cm").expect("cm"), &BTreeMap::new(), false);
        assert!(matches!(h[0].backend, Backend::Up(_)), "{:?}", h[0].backend);
        assert_eq!(h[0].cause(), None);
        // Its Service is gone while its namespace is in view.
        let g = graph(&[
            guard(),
            held(),
            namespace("shop", "shop"),
            namespace("guard-system", "x"),
        ]);
        let h = holding(&g, g.get("cm").expect("cm"), &BTreeMap::new(), true);
        assert_eq!(
            h[0].backend,
            Backend::Down("service \"guard\" not found".into())
        );
        // Not in view: unknown, with the command that tells.
        let g = graph(&[guard(), held(), namespace("shop", "shop")]);
        let h = holding(&g, g.get("cm").expect("cm"), &BTreeMap::new(), true);
        assert!(
            matches!(&h[0].backend, Backend::Unknown(s) if s.contains("kubectl get endpoints -n guard-system guard")),
            "{:?}",
            h[0].backend
        );
    }

    #[test]
    fn a_refusal_is_explained_by_the_configuration_it_names() {
        let g = graph(&[guard()]);
        let msg = "Internal error occurred: failed calling webhook \"guard.example.com\": Post \"https://guard.guard-system.svc:443/validate?timeout=10s\": service \"guard\" not found";
        assert_eq!(named_in(msg), Some(("guard.example.com", false)));
        let e = explain_refusal(&g, msg).expect("explained");
        assert!(
            e.starts_with("webhook guard.example.com of ValidatingWebhookConfiguration/guard could not be called and fails closed: bring back what serves it (Service guard-system/guard)"),
            "{e}"
        );
        let denied = "admission webhook \"guard.example.com\" denied the request: no";
        assert!(
            explain_refusal(&g, denied)
                .expect("explained")
                .contains("answered no")
        );
        assert_eq!(explain_refusal(&g, "conflict"), None);
    }
}
