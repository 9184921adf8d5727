//! One list of every listable resource in scope, concurrently, metadata-only
//! except the few kinds whose rules read spec or status (pruned, see
//! `convert::kept_fields`):
//! what `tree`, `why`, `plan` and `snapshot` read with `--live`.

use futures::{StreamExt, stream};
use kube::api::{DynamicObject, ListParams, PartialObjectMeta};
use kube::{Api, Client};

use super::config::{Connected, Scope};
use super::convert::{kept_fields, needs_fields};
use super::discovery::{Resource, discover};
use super::{ClusterError, error_message};
use crate::model::{KindTable, Object};

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
    use kube::core::Resource as _;
    let ar = &s.resource.ar;
    let url = DynamicObject::url_path(ar, s.namespace.as_deref());
    let request = kube::core::Request::new(url);
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut lp = ListParams::default().limit(PAGE);
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
        let text = s.client.request_text(req).await?;
        let page: Page = serde_json::from_str(&text).map_err(kube::Error::SerdeError)?;
        drop(text);
        let items = page.items.unwrap_or_default();
        out.reserve(items.len());
        for mut o in items {
            if o.metadata.uid.is_empty() {
                continue;
            }
            o.api_version.clone_from(&ar.api_version);
            o.kind.clone_from(&ar.kind);
            if s.full {
                let (spec, status) = kept_fields(&ar.group, &ar.kind, &o.spec, &o.status);
                o.spec = spec;
                o.status = status;
            }
            out.push(o);
        }
        match page.metadata.next {
            Some(t) if !t.is_empty() => token = Some(t),
            _ => return Ok(out),
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
    type Listed = (String, String, String, Result<Vec<Object>, kube::Error>);
    let results: Vec<Listed> = stream::iter(scoped)
        .map(|s| async move {
            let (group, kind) = (s.resource.ar.group.clone(), s.resource.ar.kind.clone());
            (s.resource.name(), group, kind, list_resource(&s).await)
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    let mut objects = Vec::new();
    let mut missing = Vec::new();
    let mut kinds = conn.viewed_kinds(discovered.kinds);
    for (name, group, kind, r) in results {
        match r {
            Ok(objs) => objects.extend(objs),
            Err(e) => {
                let reason = error_message(&e);
                kinds.mark_unlisted(crate::model::Unlisted {
                    resource: name.clone(),
                    reason: reason.clone(),
                    group,
                    kind,
                });
                missing.push((name, reason));
            }
        }
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
    Ok(Snapshot {
        objects,
        kinds,
        missing,
    })
}
