//! One list of every listable resource in scope, concurrently, metadata-only
//! except the few kinds whose rules read spec or status (pruned, see
//! `convert::kept_fields`), and in a namespace the cluster-scoped objects
//! its objects use (`Related`): what `tree`, `why`, `plan` and `snapshot`
//! read with `--live`.

use std::collections::HashSet;

use futures::{StreamExt, stream};
use kube::api::{DynamicObject, ListParams, PartialObjectMeta};
use kube::{Api, Client};

use super::config::{Connected, Scope};
use super::convert::{kept_fields, needs_fields};
use super::discovery::{Resource, discover};
use super::{ClusterError, error_message};
use crate::model::object::{Raw, SERVICE_ACCOUNT_TOKEN};
use crate::model::{KindTable, Object};

/// Pages of lists read by this process so far: the progress that
/// `--request-timeout` watches (a read of a million objects takes minutes
/// of pages, each answered in well under the limit).
pub static PAGES_READ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many lists run at once.
const CONCURRENCY: usize = 8;
const PAGE: u32 = 5000;

/// Everything listable, once.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub objects: Vec<Object>,
    pub kinds: KindTable,
    /// Resources that could not be listed, with the reason (`configmaps:
    /// forbidden ...`): the tree is partial.
    pub missing: Vec<(String, String)>,
    /// In a namespace scope, the cluster-scoped resources whose objects the
    /// namespace uses (its Nodes, PersistentVolumes, CRDs) that could not be
    /// read, with the reason: those objects are not in the snapshot.
    pub unread: Vec<(String, String)>,
    /// Resources discovery named whose list answered 404 Not Found: gone
    /// since discovery (a CRD deleted, or a stale discovery cache). They
    /// hold no objects, so the view is not partial for them; with a cached
    /// discovery the caller asks the server again.
    pub vanished: Vec<String>,
}

/// A resource as it is listed and watched in a scope.
#[derive(Clone)]
pub struct Scoped {
    pub resource: Resource,
    pub client: Client,
    /// `None`: all namespaces (or a cluster-scoped resource).
    pub namespace: Option<String>,
    /// `metadata.name=<ns>` for the namespace itself in a namespace scope.
    pub field_selector: Option<String>,
    /// `-l/--selector` (not on the namespace itself in a namespace scope:
    /// it is the scope, shown whatever its labels).
    pub label_selector: Option<String>,
    /// Full objects (spec and status) rather than metadata only.
    pub full: bool,
}

impl Scoped {
    /// Full objects.
    #[must_use]
    pub fn api(&self) -> Api<DynamicObject> {
        match &self.namespace {
            Some(ns) => Api::namespaced_with(self.client.clone(), ns, &self.resource.ar),
            None => Api::all_with(self.client.clone(), &self.resource.ar),
        }
    }

    /// Metadata-only requests.
    #[must_use]
    pub fn api_metadata(&self) -> Api<PartialObjectMeta<DynamicObject>> {
        match &self.namespace {
            Some(ns) => Api::namespaced_with(self.client.clone(), ns, &self.resource.ar),
            None => Api::all_with(self.client.clone(), &self.resource.ar),
        }
    }
}

/// The resources to read in `scope`: in a namespace, its namespaced
/// resources and the Namespace object itself; otherwise everything.
#[must_use]
pub fn in_scope(conn: &Connected, resources: &[Resource]) -> Vec<Scoped> {
    in_scope_reading(conn, resources, false)
}

/// As [`in_scope`]; `pods`: pods read in full too (one-shot lists).
#[must_use]
pub fn in_scope_reading(conn: &Connected, resources: &[Resource], pods: bool) -> Vec<Scoped> {
    let mut out = Vec::new();
    for r in resources {
        let is_namespace_kind = r.ar.group.is_empty() && r.ar.plural == "namespaces";
        let (namespace, field_selector) = match (&conn.scope, r.namespaced) {
            (Scope::All, _) => (None, None),
            (Scope::Namespace(ns), true) => (Some(ns.clone()), None),
            (Scope::Namespace(ns), false) if is_namespace_kind => {
                (None, Some(format!("metadata.name={ns}")))
            }
            (Scope::Namespace(_), false) => continue,
        };
        let label_selector = conn.selector.clone().filter(|_| field_selector.is_none());
        out.push(Scoped {
            resource: r.clone(),
            client: conn.client.clone(),
            namespace,
            field_selector,
            label_selector,
            full: is_namespace_kind || needs_fields(&r.ar.group, &r.ar.kind, pods),
        });
    }
    out
}

/// One page of a list, read straight into the model's objects: metadata
/// (less `managedFields` and large annotations, skipped while parsing) and
/// of `spec` and `status` only what [`Object`]'s reader keeps.
#[derive(serde::Deserialize)]
struct Page {
    #[serde(default)]
    metadata: PageMeta,
    /// `null` when empty (Go's nil slice).
    #[serde(default)]
    items: Option<Vec<Object>>,
}

#[derive(Default, serde::Deserialize)]
struct PageMeta {
    #[serde(default, rename = "continue")]
    next: Option<String>,
}

/// Lists one resource, every page: one request per page, its body parsed
/// once into [`Object`]s.
///
/// # Errors
/// The server's message (403 for a kind the user may not list).
pub async fn list_resource(s: &Scoped) -> Result<Vec<Object>, kube::Error> {
    let mut out = list_pages(s).await?;
    // A metadata list does not carry a Secret's type: the token Secrets
    // (GC-SEMANTICS R78, deleted with their ServiceAccount) are listed
    // again by type, metadata only, to mark them.
    let ar = &s.resource.ar;
    if !s.full && ar.group.is_empty() && ar.kind == "Secret" {
        let token = format!("type={SERVICE_ACCOUNT_TOKEN}");
        let by_type = Scoped {
            field_selector: Some(match &s.field_selector {
                Some(f) => format!("{f},{token}"),
                None => token,
            }),
            ..s.clone()
        };
        let tokens: HashSet<String> = list_pages(&by_type)
            .await?
            .into_iter()
            .map(|o| o.metadata.uid)
            .collect();
        for o in out.iter_mut().filter(|o| tokens.contains(o.uid())) {
            o.extra_mut().type_ = Some(Raw::from(SERVICE_ACCOUNT_TOKEN));
        }
    }
    Ok(out)
}

/// Whether an error is a 410 whose continue token expired: the list's
/// revision was compacted away while its pages were read.
fn is_expired(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 410)
}

/// Lists one resource, every page, as asked.
///
/// A list whose pages outlast etcd's compaction (5 minutes on
/// kube-apiserver's default; a million objects read in pages can take
/// that) gets 410 Expired for its next page. As client-go's pager does
/// then (`FullListIfExpired`, `tools/pager/pager.go`), it is read again
/// whole, in one unpaged request, rather than failed.
async fn list_pages(s: &Scoped) -> Result<Vec<Object>, kube::Error> {
    use kube::core::Resource as _;
    let ar = &s.resource.ar;
    let url = DynamicObject::url_path(ar, s.namespace.as_deref());
    let request = kube::core::Request::new(url);
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    let mut whole = false;
    loop {
        let mut lp = if whole {
            ListParams::default()
        } else {
            ListParams::default().limit(PAGE)
        };
        if let Some(f) = &s.field_selector {
            lp = lp.fields(f);
        }
        if let Some(l) = &s.label_selector {
            lp = lp.labels(l);
        }
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let req = if s.full {
            request.list(&lp)
        } else {
            request.list_metadata(&lp)
        }
        .map_err(kube::Error::BuildRequest)?;
        let text = match s.client.request_text(req).await {
            Ok(text) => text,
            Err(e) if token.is_some() && !whole && is_expired(&e) => {
                tracing::info!(
                    resource = %s.resource.name(),
                    "the list's continue token expired: read again in one request"
                );
                out.clear();
                token = None;
                whole = true;
                continue;
            }
            Err(e) => return Err(e),
        };
        PAGES_READ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let page: Page = serde_json::from_str(&text).map_err(kube::Error::SerdeError)?;
        drop(text);
        let items = page.items.unwrap_or_default();
        out.reserve(items.len());
        for mut o in items {
            if o.metadata.uid.is_empty() {
                continue;
            }
            finish(&mut o, ar, s.full);
            out.push(o);
        }
        match page.metadata.next {
            Some(t) if !t.is_empty() => token = Some(t),
            _ => return Ok(out),
        }
    }
}

/// An object as read from a list or a GET of `ar`, made what the model
/// keeps: its type named (a list's items carry none), and of a full read
/// only the spec and status the rules read.
pub(super) fn finish(o: &mut Object, ar: &kube::discovery::ApiResource, full: bool) {
    o.api_version.clone_from(&ar.api_version);
    o.kind.clone_from(&ar.kind);
    if full {
        let (spec, status) = kept_fields(&ar.group, &ar.kind, &o.spec, &o.status);
        o.spec = spec.into();
        o.status = status.into();
        if let Some(ws) = o.extra().webhooks.as_ref() {
            let kept = super::convert::kept_webhooks(ws);
            o.extra_mut().webhooks = Some(Box::new(kept));
        }
    }
}

/// Discovers and lists everything in the connection's scope.
///
/// # Errors
/// Discovery failed (nothing could be read at all). Per-resource failures
/// are reported in [`Snapshot::missing`].
pub async fn list_once(conn: &Connected) -> Result<Snapshot, ClusterError> {
    let discovered = discover(conn).await?;
    list_discovered(conn, discovered).await
}

/// Whether what was listed shows types `discovered` (from the disk cache)
/// does not know: a CustomResourceDefinition or an APIService it lacks, an
/// owner reference to a kind it lacks. In a namespace scope, where neither
/// is listed, their names are listed for this check (two small requests,
/// where discovery from the server takes one per group).
pub async fn discovery_lacks(
    conn: &Connected,
    discovered: &super::discovery::Discovered,
    snap: &Snapshot,
) -> bool {
    let kinds = &discovered.kinds;
    let unknown_owner = snap.objects.iter().any(|o| {
        o.metadata
            .owner_references
            .iter()
            .any(|r| kinds.get(r.group(), &r.kind).is_none())
    });
    if unknown_owner {
        return true;
    }
    let is_crd = |r: &Resource| {
        r.ar.group == "apiextensions.k8s.io" && r.ar.kind == "CustomResourceDefinition"
    };
    let is_apiservice =
        |r: &Resource| r.ar.group == "apiregistration.k8s.io" && r.ar.kind == "APIService";
    let mut registered: Vec<Object> = Vec::new();
    if conn.scope == Scope::All {
        registered.extend(
            snap.objects
                .iter()
                .filter(|o| {
                    (o.group() == "apiextensions.k8s.io" && o.kind == "CustomResourceDefinition")
                        || (o.group() == "apiregistration.k8s.io" && o.kind == "APIService")
                })
                .cloned(),
        );
    } else {
        for r in discovered
            .resources
            .iter()
            .filter(|r| is_crd(r) || is_apiservice(r))
        {
            let s = Scoped {
                resource: r.clone(),
                client: conn.client.clone(),
                namespace: None,
                field_selector: None,
                label_selector: None,
                full: false,
            };
            if let Ok(objs) = list_resource(&s).await {
                registered.extend(objs);
            }
        }
    }
    registered.iter().any(|o| {
        if o.kind == "CustomResourceDefinition" {
            // `databases.example.com`
            !kinds.iter().any(|k| k.resource() == o.name())
        } else {
            // `v1beta1.metrics.k8s.io`, `v1.` for the core group.
            let (version, group) = o.name().split_once('.').unwrap_or((o.name(), ""));
            let gv = super::discovery::doc::group_version(group, version);
            !discovered.group_versions.contains(&gv)
        }
    })
}

/// Lists what `discovered` found, in the connection's scope.
///
/// # Errors
/// None today beyond the caller's; per-resource failures are reported in
/// [`Snapshot::missing`].
pub async fn list_discovered(
    conn: &Connected,
    discovered: super::discovery::Discovered,
) -> Result<Snapshot, ClusterError> {
    let scoped = in_scope_reading(conn, &discovered.resources, true);
    let mut objects = Vec::new();
    let mut missing = Vec::new();
    let from_cache = discovered.from_cache();
    let mut kinds = conn.viewed_kinds(discovered.kinds);
    let mut vanished = Vec::new();
    // The resources whose lists succeeded: what `settle` may look up.
    let mut read_whole = HashSet::new();
    for (listed, r) in list_all(scoped).await {
        match r {
            Ok(objs) => {
                read_whole.insert(listed.resource);
                objects.extend(objs);
            }
            Err(e) if is_not_found(&e) => vanished.push(listed.resource),
            // A cached resource of an aggregated API that went down since
            // (503): the cache is stale for it; the caller asks discovery
            // again, which names the API as unavailable (never as a
            // resource you cannot list).
            Err(e) if from_cache && is_unavailable(&e) => {
                vanished.push(listed.resource.clone());
                missing.push(listed.unlisted(&mut kinds, &e));
            }
            Err(e) => missing.push(listed.unlisted(&mut kinds, &e)),
        }
    }
    let mut unread = Vec::new();
    if let Scope::Namespace(ns) = &conn.scope {
        let wanted = Related::of(ns, &objects);
        let scoped: Vec<Scoped> = discovered
            .resources
            .iter()
            .filter(|r| !r.namespaced && wanted.wants_kind(&r.ar.group, &r.ar.kind))
            .map(|r| Scoped {
                resource: r.clone(),
                client: conn.client.clone(),
                namespace: None,
                field_selector: None,
                // What the selected objects use, whatever its labels.
                label_selector: None,
                full: needs_fields(&r.ar.group, &r.ar.kind, false),
            })
            .collect();
        for (listed, r) in list_all(scoped).await {
            match r {
                Ok(objs) => {
                    read_whole.insert(listed.resource);
                    objects.extend(objs.into_iter().filter(|o| wanted.wants(o)));
                }
                Err(e) if is_not_found(&e) => vanished.push(listed.resource),
                // An owner that cannot be read leaves its references
                // unverified, as for any kind that cannot be listed.
                Err(e)
                    if wanted
                        .owner_kinds
                        .contains(&(listed.group.clone(), listed.kind.clone())) =>
                {
                    missing.push(listed.unlisted(&mut kinds, &e));
                }
                Err(e) => unread.push((listed.resource, error_message(&e))),
            }
        }
        unread.sort();
    }
    // What was made between two lists (an owner, a Node), looked up by
    // name. Not under a label selector: what it leaves out is out of view,
    // not absent.
    if conn.selector.is_none() {
        let listed: Vec<Resource> = discovered
            .resources
            .iter()
            .filter(|r| read_whole.contains(&r.name()))
            .cloned()
            .collect();
        super::settle::settle(&conn.client, &listed, &mut objects).await;
    }
    // A kind served by two groups would appear twice.
    let mut seen = std::collections::HashSet::new();
    objects.retain(|o| seen.insert(o.metadata.uid.clone()));
    objects.sort_by(|a, b| {
        (a.namespace(), a.group(), &a.kind, a.name()).cmp(&(
            b.namespace(),
            b.group(),
            &b.kind,
            b.name(),
        ))
    });
    missing.sort();
    vanished.sort();
    Ok(Snapshot {
        objects,
        kinds,
        missing,
        unread,
        vanished,
    })
}

/// A 503: an aggregated API whose backend is down.
fn is_unavailable(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 503)
}

/// A 404 on a collection: the resource is not served (any more).
fn is_not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

/// Which resource a list was of.
struct Listed {
    resource: String,
    group: String,
    kind: String,
}

impl Listed {
    /// Records that it could not be listed: the kind is unlisted (answers
    /// reason with it); returns (resource, reason).
    fn unlisted(self, kinds: &mut KindTable, e: &kube::Error) -> (String, String) {
        let reason = error_message(e);
        kinds.mark_unlisted(crate::model::Unlisted {
            resource: self.resource.clone(),
            reason: reason.clone(),
            group: self.group,
            kind: self.kind,
            detail: String::new(),
        });
        (self.resource, reason)
    }
}

/// Lists each resource, a few at once.
async fn list_all(scoped: Vec<Scoped>) -> Vec<(Listed, Result<Vec<Object>, kube::Error>)> {
    stream::iter(scoped)
        .map(|s| async move {
            let listed = Listed {
                resource: s.resource.name(),
                group: s.resource.ar.group.clone(),
                kind: s.resource.ar.kind.clone(),
            };
            (listed, list_resource(&s).await)
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await
}

/// The cluster-scoped objects a namespace's objects use, which a snapshot
/// of the namespace carries so a rehearsal reads what the rules read: the
/// owners its objects reference (R32: a dependent whose owner is missing is
/// collected), the Nodes its pods run on or are pinned to (the DaemonSet
/// controller's nodes), the PersistentVolumes bound to its claims (R64 and
/// the reclaim policy), and the CRDs of its custom resources (R75).
#[derive(Default)]
struct Related {
    owners: HashSet<String>,
    owner_kinds: HashSet<(String, String)>,
    nodes: HashSet<String>,
    volumes: HashSet<String>,
    namespace: String,
    kinds: HashSet<(String, String)>,
}

impl Related {
    fn of(ns: &str, objects: &[Object]) -> Related {
        let mut r = Related {
            namespace: ns.to_string(),
            ..Related::default()
        };
        for o in objects {
            for owner in &o.metadata.owner_references {
                r.owners.insert(owner.uid.clone());
                r.owner_kinds.insert((
                    crate::model::group_of(&owner.api_version).to_string(),
                    owner.kind.clone(),
                ));
            }
            if o.namespace().is_none() {
                continue;
            }
            r.kinds.insert((o.group().to_string(), o.kind.clone()));
            match (o.group(), o.kind.as_str()) {
                ("", "Pod") => r.nodes.extend(crate::model::workload::node_of(o)),
                ("", "PersistentVolumeClaim") => {
                    r.volumes
                        .extend(o.str_at(&["spec", "volumeName"]).map(str::to_string));
                }
                _ => {}
            }
        }
        r
    }

    fn wants_kind(&self, group: &str, kind: &str) -> bool {
        match (group, kind) {
            ("", "Node") if !self.nodes.is_empty() => true,
            ("", "PersistentVolume")
                if self
                    .kinds
                    .contains(&(String::new(), "PersistentVolumeClaim".into())) =>
            {
                true
            }
            ("apiextensions.k8s.io", "CustomResourceDefinition") => {
                let builtin = KindTable::builtin();
                self.kinds.iter().any(|(g, k)| builtin.get(g, k).is_none())
            }
            _ => self
                .owner_kinds
                .contains(&(group.to_string(), kind.to_string())),
        }
    }

    fn wants(&self, o: &Object) -> bool {
        if self.owners.contains(o.uid()) {
            return true;
        }
        match (o.group(), o.kind.as_str()) {
            ("", "Node") => self.nodes.contains(o.name()),
            ("", "PersistentVolume") => {
                self.volumes.contains(o.name())
                    || o.str_at(&["spec", "claimRef", "namespace"]) == Some(self.namespace.as_str())
            }
            ("apiextensions.k8s.io", "CustomResourceDefinition") => {
                let group = o.str_at(&["spec", "group"]).unwrap_or_default();
                let kind = o.str_at(&["spec", "names", "kind"]).unwrap_or_default();
                self.kinds.contains(&(group.to_string(), kind.to_string()))
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::OwnerReference;
    use serde_json::json;

    fn obj(api_version: &str, kind: &str, ns: Option<&str>, name: &str, uid: &str) -> Object {
        let mut o = Object::new(api_version, kind, ns, name);
        o.metadata.uid = uid.into();
        o
    }

    /// A namespace with a pinned daemon pod, a scheduled pod, a bound
    /// claim, a custom resource and a ConfigMap owned by a cluster-scoped
    /// object.
    fn shop() -> Vec<Object> {
        let mut pinned = obj("v1", "Pod", Some("shop"), "agent-x", "p1");
        pinned.spec = json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}}).into();
        let mut scheduled = obj("v1", "Pod", Some("shop"), "web", "p2");
        scheduled.spec = json!({"nodeName": "n2"}).into();
        let mut claim = obj("v1", "PersistentVolumeClaim", Some("shop"), "data", "c1");
        claim.spec = json!({"volumeName": "pv1"}).into();
        let widget = obj("example.com/v1", "Widget", Some("shop"), "w", "w1");
        let mut owned = obj("v1", "ConfigMap", Some("shop"), "cfg", "cm1");
        owned.metadata.owner_references.push(OwnerReference {
            api_version: "rbac.authorization.k8s.io/v1".into(),
            kind: "ClusterRole".into(),
            name: "admin".into(),
            uid: "cr1".into(),
            controller: None,
            block_owner_deletion: None,
        });
        let namespace = obj("v1", "Namespace", None, "shop", "ns1");
        vec![namespace, pinned, scheduled, claim, widget, owned]
    }

    #[test]
    fn a_namespace_snapshot_carries_the_cluster_objects_its_objects_use() {
        let r = Related::of("shop", &shop());
        for (group, kind) in [
            ("", "Node"),
            ("", "PersistentVolume"),
            ("apiextensions.k8s.io", "CustomResourceDefinition"),
            ("rbac.authorization.k8s.io", "ClusterRole"),
        ] {
            assert!(r.wants_kind(group, kind), "{group}/{kind}");
        }
        assert!(!r.wants_kind("storage.k8s.io", "StorageClass"));

        let node = |name: &str| obj("v1", "Node", None, name, &format!("u-{name}"));
        assert!(r.wants(&node("n1")), "the node a daemon pod is pinned to");
        assert!(r.wants(&node("n2")), "the node a pod runs on");
        assert!(!r.wants(&node("n3")));

        let pv = |name: &str, claim_ns: &str| {
            let mut o = obj("v1", "PersistentVolume", None, name, &format!("u-{name}"));
            o.spec = json!({"claimRef": {"namespace": claim_ns, "name": "x"}}).into();
            o
        };
        assert!(
            r.wants(&pv("pv1", "other")),
            "named by a claim's volumeName"
        );
        assert!(
            r.wants(&pv("pv2", "shop")),
            "its claimRef is in the namespace"
        );
        assert!(!r.wants(&pv("pv3", "other")));

        let crd = |group: &str, kind: &str| {
            let mut o = obj(
                "apiextensions.k8s.io/v1",
                "CustomResourceDefinition",
                None,
                &format!("things.{group}"),
                &format!("u-{group}"),
            );
            o.spec = json!({"group": group, "names": {"kind": kind}}).into();
            o
        };
        assert!(r.wants(&crd("example.com", "Widget")));
        assert!(!r.wants(&crd("example.com", "Gadget")));
        assert!(!r.wants(&crd("other.io", "Widget")));

        let owner = obj(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            None,
            "admin",
            "cr1",
        );
        assert!(r.wants(&owner), "a cluster-scoped owner, by uid");
        let stranger = obj(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            None,
            "view",
            "cr2",
        );
        assert!(!r.wants(&stranger));
    }

    #[test]
    fn a_namespace_without_such_objects_lists_none_of_those_kinds() {
        let plain = vec![
            obj("v1", "Namespace", None, "shop", "ns1"),
            obj("v1", "Pod", Some("shop"), "pending", "p1"),
            obj("v1", "ConfigMap", Some("shop"), "cfg", "cm1"),
        ];
        let r = Related::of("shop", &plain);
        assert!(
            !r.wants_kind("", "Node"),
            "no pod is on or pinned to a node"
        );
        assert!(!r.wants_kind("", "PersistentVolume"), "no claim");
        assert!(
            !r.wants_kind("apiextensions.k8s.io", "CustomResourceDefinition"),
            "no custom resource"
        );
    }

    /// A server whose continue tokens expire: the first page of 5,000 ends
    /// with a token, the token answers 410 Expired, and an unpaged list
    /// holds three objects. Answers three requests, one per connection;
    /// returns its address and, once done, the request paths.
    fn expiring_server() -> (String, std::thread::JoinHandle<Vec<String>>) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        let served = std::thread::spawn(move || {
            let mut paths = Vec::new();
            while paths.len() < 3 {
                let (mut conn, _) = listener.accept().expect("a connection");
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = conn.read(&mut buf).expect("a request");
                    if n == 0 {
                        break;
                    }
                    head.extend_from_slice(&buf[..n]);
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let path = head.split(' ').nth(1).unwrap_or_default().to_string();
                let item = |n: &str| json!({"metadata": {"name": n, "namespace": "ns", "uid": format!("u-{n}")}});
                let (code, body) = if path.contains("continue=") {
                    (
                        "410 Gone",
                        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                            "message": "The provided continue parameter is too old to display a consistent list result.",
                            "reason": "Expired", "code": 410}),
                    )
                } else if path.contains("limit=") {
                    (
                        "200 OK",
                        json!({"kind": "List", "metadata": {"continue": "t1"}, "items": [item("a")]}),
                    )
                } else {
                    (
                        "200 OK",
                        json!({"kind": "List", "metadata": {}, "items": [item("a"), item("b"), item("c")]}),
                    )
                };
                let body = body.to_string();
                let answer = format!(
                    "HTTP/1.1 {code}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                conn.write_all(answer.as_bytes()).expect("an answer");
                paths.push(path);
            }
            paths
        });
        (url, served)
    }

    #[tokio::test]
    async fn a_list_whose_continue_token_expires_is_read_again_whole() {
        let (url, served) = expiring_server();
        let config = kube::Config::new(url.parse().expect("a url"));
        let client = Client::try_from(config).expect("a client");
        let s = Scoped {
            resource: Resource {
                ar: crate::cluster::actions::api_resource(
                    KindTable::builtin().get("", "ConfigMap").expect("built in"),
                ),
                namespaced: true,
                watchable: true,
            },
            client,
            namespace: Some("ns".into()),
            field_selector: None,
            label_selector: None,
            full: false,
        };
        let got = list_pages(&s).await.expect("the list, read again");
        let names: Vec<&str> = got.iter().map(Object::name).collect();
        assert_eq!(names, ["a", "b", "c"], "the whole list, no page twice");
        let paths = served.join().expect("the server");
        assert!(paths[0].contains("limit=5000"), "{paths:?}");
        assert!(paths[1].contains("continue=t1"), "{paths:?}");
        assert!(
            !paths[2].contains("limit=") && !paths[2].contains("continue="),
            "{paths:?}"
        );
    }
}
