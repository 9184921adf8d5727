//! One list of every listable resource in scope, concurrently, metadata-only
//! except the few kinds whose rules read spec or status (pruned, see
//! `convert::kept_fields`):
//! what `tree`, `why`, `plan` and `snapshot` read with `--live`.

use futures::{StreamExt, stream};
use kube::api::{DynamicObject, ListParams, PartialObjectMeta};
use kube::{Api, Client};

use super::config::{Connected, Scope};
use super::convert::{from_dynamic, from_partial, needs_fields};
use super::discovery::{Resource, discover};
use super::{ClusterError, error_message};
use crate::model::{KindTable, Object};

/// How many lists run at once.
const CONCURRENCY: usize = 8;
const PAGE: u32 = 500;

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

/// Lists one resource, every page.
///
/// # Errors
/// The server's message (403 for a kind the user may not list).
pub async fn list_resource(s: &Scoped) -> Result<Vec<Object>, kube::Error> {
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
        let next = if s.full {
            let list = s.api().list(&lp).await?;
            out.extend(
                list.items
                    .iter()
                    .filter_map(|o| from_dynamic(&s.resource.ar, o)),
            );
            list.metadata.continue_
        } else {
            let list = s.api().list_metadata(&lp).await?;
            out.extend(
                list.items
                    .iter()
                    .filter_map(|o| from_partial(&s.resource.ar, o)),
            );
            list.metadata.continue_
        };
        match next {
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
    let discovered = discover(&conn.client).await?;
    list_discovered(conn, discovered).await
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
