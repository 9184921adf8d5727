//! Which resource types exist and can be listed and watched, asked as
//! kubectl asks: `/api` and `/apis` with aggregated discovery preferred
//! (one answer each on 1.26+ servers), else the classic documents and one
//! `APIResourceList` per group's *preferred* version; kept on disk as
//! kubectl keeps it ([`cache`]), so a second run asks nothing.
//!
//! - [`doc`]: the documents, parsed (pure);
//! - [`cache`]: kubectl's disk cache.

pub mod cache;
pub mod doc;

use std::collections::BTreeSet;

use futures::{StreamExt, stream};
use kube::Client;
use kube::core::ApiResource;

use super::{ClusterError, Connected, error_code, error_message};
use crate::model::{DefaultPolicy, KindInfo, KindTable, Policy};
use cache::Cache;
use doc::{Answer, Document, ResourceList};

/// One resource type to list and watch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    pub ar: ApiResource,
    pub namespaced: bool,
    pub watchable: bool,
}

impl Resource {
    /// `deployments.apps`, `configmaps`.
    #[must_use]
    pub fn name(&self) -> String {
        if self.ar.group.is_empty() {
            self.ar.plural.clone()
        } else {
            format!("{}.{}", self.ar.plural, self.ar.group)
        }
    }
}

/// What discovery found.
#[derive(Clone, Debug)]
pub struct Discovered {
    /// Listable resources shown in the tree (events excluded: they become
    /// timeline entries, not nodes), of each group's preferred version.
    pub resources: Vec<Resource>,
    pub kinds: KindTable,
    /// `aggregated`, `classic` or `cache`.
    pub mode: &'static str,
    /// Every group version the server serves.
    pub group_versions: BTreeSet<String>,
    /// How many requests discovery made (0: all from the disk cache).
    pub requests: usize,
}

impl Discovered {
    /// Read from the disk cache (wholly or in part): it may lack what was
    /// added since, and is checked against what the lists show.
    #[must_use]
    pub fn from_cache(&self) -> bool {
        self.mode == "cache"
    }
}

/// Groups that serve the same objects as another group under an older name,
/// and the event kinds (shown on the timeline, not as tree nodes).
fn skipped(group: &str, plural: &str) -> bool {
    group == "extensions"
        || group == "events.k8s.io"
        || (group.is_empty() && (plural == "events" || plural == "componentstatuses"))
}

/// The kinds and the resources to list of a discovery document: each
/// group's preferred version, with the short names, categories and scope
/// the server gives.
#[must_use]
pub fn from_document(d: &Document, mode: &'static str, requests: usize) -> Discovered {
    let mut kinds = KindTable::builtin();
    let mut resources = Vec::new();
    let mut group_versions = BTreeSet::new();
    for g in &d.groups.groups {
        for v in &g.versions {
            kinds.mark_served(&v.group_version);
            group_versions.insert(v.group_version.clone());
        }
    }
    for gv in &d.failing {
        kinds.set_discovery_failing(gv, true);
        if let Some(why) = d.why_failing.get(gv) {
            kinds.set_discovery_detail(gv, why);
        }
    }
    // Each kind in its group's preferred version, else in the most
    // preferred version that serves it (R79); every version that serves it
    // is recorded (an owner reference through any of them resolves).
    let mut seen: std::collections::HashSet<(String, String)> = std::collections::HashSet::new();
    for g in &d.groups.groups {
        for pref in g.by_preference() {
            let Some(list) = d.resources.get(&pref.group_version) else {
                continue;
            };
            for r in list.resources.iter().filter(|r| !r.is_subresource()) {
                let group = if r.group.is_empty() {
                    &g.name
                } else {
                    &r.group
                };
                let version = if r.version.is_empty() {
                    &pref.version
                } else {
                    &r.version
                };
                if !seen.insert((group.clone(), r.kind.clone())) {
                    kinds.add_served_version(group, &r.kind, version);
                    continue;
                }
                let known = kinds.get(group, &r.kind).cloned();
                let short_names = if r.short_names.is_empty() {
                    known
                        .as_ref()
                        .map(|k| k.short_names.clone())
                        .unwrap_or_default()
                } else {
                    r.short_names.clone()
                };
                kinds.insert(KindInfo {
                    group: group.clone(),
                    kind: r.kind.clone(),
                    version: version.clone(),
                    plural: r.name.clone(),
                    namespaced: r.namespaced,
                    short_names,
                    categories: r.categories.clone(),
                    default_policy: crate::model::kinds::version_default(
                        group,
                        &r.kind,
                        version,
                        known.map_or(DefaultPolicy::Policy(Policy::Background), |k| {
                            k.default_policy
                        }),
                    ),
                    served_versions: vec![version.clone()],
                });
                if skipped(group, &r.name) || !r.can("list") {
                    continue;
                }
                resources.push(Resource {
                    ar: ApiResource {
                        group: group.clone(),
                        version: version.clone(),
                        api_version: doc::group_version(group, version),
                        kind: r.kind.clone(),
                        plural: r.name.clone(),
                    },
                    namespaced: r.namespaced,
                    watchable: r.can("watch"),
                });
            }
        }
    }
    resources.sort_by_key(Resource::name);
    // A kind served by two groups (`events`) would be listed twice.
    resources.dedup_by_key(|r| r.name());
    Discovered {
        resources,
        kinds,
        mode,
        group_versions,
        requests,
    }
}

/// GET `path` for discovery.
async fn get(client: &Client, path: &str) -> Result<String, kube::Error> {
    let req = http::Request::get(path)
        .header(http::header::ACCEPT, doc::ACCEPT)
        .body(Vec::new())
        .map_err(kube::Error::HttpError)?;
    client.request_text(req).await
}

fn discovery_error(what: &str, e: &str) -> ClusterError {
    ClusterError(format!("discovery: {what}: {e}"))
}

/// What the discovery of some group versions gave.
#[derive(Default)]
struct Lists {
    lists: Vec<ResourceList>,
    /// Failing (an aggregated API whose backend is down answers 503 at
    /// once; a timeout, a conversion error): skipped, as kubectl skips
    /// them, and named as unavailable.
    failing: Vec<String>,
    /// Answering 404: gone since the group list was read (an APIService or
    /// a CRD deleted; a stale disk cache).
    vanished: Vec<String>,
}

/// What the APIService of a failing group version says, in one line: its
/// `Available` condition (`MissingEndpoints: endpoints for service/... have
/// no addresses`) and its Service. One GET for each failing group version
/// (rare); `None` when it cannot be read.
async fn apiservice_word(client: &Client, gv: &str) -> Option<String> {
    let (group, version) = gv.split_once('/')?;
    let name = format!("{version}.{group}");
    let body = get(
        client,
        &format!("/apis/apiregistration.k8s.io/v1/apiservices/{name}"),
    )
    .await
    .ok()?;
    let v: serde_json::Value = serde_json::from_str(&body).ok()?;
    Some(apiservice_sentence(&name, &v))
}

/// `APIService v1beta1.metrics.k8s.io (Service kube-system/metrics-server)
/// is not Available: MissingEndpoints: endpoints for ... have no addresses`.
#[must_use]
pub fn apiservice_sentence(name: &str, v: &serde_json::Value) -> String {
    let s = |p: &str| v.pointer(p).and_then(serde_json::Value::as_str);
    let service = match (s("/spec/service/namespace"), s("/spec/service/name")) {
        (Some(ns), Some(n)) => format!(" (Service {ns}/{n})"),
        _ => String::new(),
    };
    let available = v
        .pointer("/status/conditions")
        .and_then(serde_json::Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.get("type").and_then(serde_json::Value::as_str) == Some("Available"))
        });
    let cond = |k: &str| {
        available
            .and_then(|c| c.get(k))
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
    };
    match (cond("status"), cond("reason"), cond("message")) {
        ("True", _, _) => {
            format!("APIService {name}{service} is Available, yet its discovery fails")
        }
        (_, "", "") => format!("APIService {name}{service} is not Available"),
        (_, r, "") => format!("APIService {name}{service} is not Available: {r}"),
        (_, "", m) => format!("APIService {name}{service} is not Available: {m}"),
        (_, r, m) => format!("APIService {name}{service} is not Available: {r}: {m}"),
    }
}

/// The `APIResourceList` of each group version in `gvs`, concurrently: the
/// ones that failed are returned apart (see [`Lists`]); any failure of the
/// core group is an error.
async fn resource_lists(client: &Client, gvs: Vec<String>) -> Result<Lists, ClusterError> {
    let answers: Vec<(String, Result<String, kube::Error>)> = stream::iter(gvs)
        .map(|gv| async move {
            let path = if gv.contains('/') {
                format!("/apis/{gv}")
            } else {
                format!("/api/{gv}")
            };
            let r = get(client, &path).await;
            (gv, r)
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let mut out = Lists::default();
    for (gv, r) in answers {
        match r.map_err(|e| (error_code(&e), error_message(&e))) {
            Ok(body) => out
                .lists
                .push(doc::parse_resources(&body).map_err(|e| discovery_error(&gv, &e))?),
            Err((_, msg)) if !gv.contains('/') => return Err(discovery_error(&gv, &msg)),
            Err((404, _)) => {
                tracing::info!("discovery of {gv}: gone (404)");
                out.vanished.push(gv);
            }
            Err((code, msg)) => {
                tracing::info!("discovery of {gv} failed ({code}): {msg}");
                out.failing.push(gv);
            }
        }
    }
    out.failing.sort();
    out.vanished.sort();
    Ok(out)
}

/// Drops the group versions that answered 404 from the group list, and
/// asks the APIService of each failing one why.
async fn settle_failures(client: &Client, d: &mut Document, found: Lists) {
    for l in found.lists {
        d.resources.insert(l.group_version.clone(), l);
    }
    if !found.vanished.is_empty() {
        for g in &mut d.groups.groups {
            g.versions
                .retain(|v| !found.vanished.contains(&v.group_version));
        }
        d.groups.groups.retain(|g| !g.versions.is_empty());
    }
    let words: Vec<(String, Option<String>)> = stream::iter(found.failing.clone())
        .map(|gv| async move {
            let w = apiservice_word(client, &gv).await;
            (gv, w)
        })
        .buffer_unordered(8)
        .collect()
        .await;
    for (gv, w) in words {
        if let Some(w) = w {
            d.why_failing.insert(gv, w);
        }
    }
    d.failing.extend(found.failing);
}

/// Asks the server: aggregated discovery where it answers it, else the
/// classic documents for the preferred versions. Returns the document and
/// how many requests it took.
///
/// # Errors
/// The server unreachable, or answering no discovery document.
pub async fn fetch(client: &Client) -> Result<(Document, &'static str, usize), ClusterError> {
    let api = get(client, "/api")
        .await
        .map_err(|e| discovery_error("/api", &error_message(&e)))?;
    let apis = get(client, "/apis")
        .await
        .map_err(|e| discovery_error("/apis", &error_message(&e)))?;
    let api = doc::parse_answer(&api).map_err(|e| discovery_error("/api", &e))?;
    let apis = doc::parse_answer(&apis).map_err(|e| discovery_error("/apis", &e))?;
    let mut d = Document::default();
    d.groups.kind = "APIGroupList".into();
    d.groups.api_version = "v1".into();
    // Every served version, as client-go's discovery asks (R79).
    let mut to_ask = Vec::new();
    let mut aggregated = true;
    for answer in [api, apis] {
        match answer {
            Answer::Aggregated(part) => {
                d.groups.groups.extend(part.groups.groups);
                d.resources.extend(part.resources);
                d.failing.extend(part.failing);
            }
            Answer::CoreVersions(vs) => {
                aggregated = false;
                let core = doc::core_group(&vs);
                to_ask.extend(core.versions.iter().map(|v| v.group_version.clone()));
                d.groups.groups.push(core);
            }
            Answer::Groups(list) => {
                aggregated = false;
                to_ask.extend(
                    list.groups
                        .iter()
                        .flat_map(|g| g.versions.iter().map(|v| v.group_version.clone())),
                );
                d.groups.groups.extend(list.groups);
            }
        }
    }
    // The core group first, as client-go has it.
    d.groups.groups.sort_by_key(|g| !g.name.is_empty());
    let requests = 2 + to_ask.len();
    let found = resource_lists(client, to_ask).await?;
    settle_failures(client, &mut d, found).await;
    if !d.groups.groups.iter().any(|g| g.name.is_empty()) {
        return Err(discovery_error("/api", "the answer had no core group"));
    }
    Ok((
        d,
        if aggregated { "aggregated" } else { "classic" },
        requests,
    ))
}

/// Writes what was fetched to the disk cache; a failure is logged, never
/// fatal (the answer is there).
fn store(cache: &Cache, d: &Document) {
    let written = cache.put_groups(&d.groups).and_then(|()| {
        d.resources
            .values()
            .try_for_each(|l| cache.put_resources(l))
    });
    if let Err(e) = written {
        tracing::warn!("discovery cache {}: {e}", cache.dir().display());
    }
}

/// The document from the disk cache, asking the server only for preferred
/// group versions the cache lacks. `None`: no fresh group list there.
async fn cached(client: &Client, cache: &Cache) -> Option<(Document, usize)> {
    let groups = cache.groups()?;
    let mut d = Document {
        groups,
        ..Document::default()
    };
    let mut missing = Vec::new();
    for gv in d.served() {
        match cache.resources(&gv) {
            Some(l) => {
                d.resources.insert(gv, l);
            }
            None => missing.push(gv),
        }
    }
    if !d.groups.groups.iter().any(|g| g.name.is_empty()) {
        return None;
    }
    let requests = missing.len();
    let found = resource_lists(client, missing).await.ok()?;
    // A group version the cached group list names that is gone now (an
    // APIService deleted since): the cache is stale; ask everything again,
    // as kubectl invalidates its cache, rather than call it unreadable for
    // the rest of the cache's life.
    if !found.vanished.is_empty() {
        return None;
    }
    for l in &found.lists {
        if let Err(e) = cache.put_resources(l) {
            tracing::warn!("discovery cache {}: {e}", cache.dir().display());
        }
    }
    settle_failures(client, &mut d, found).await;
    Some((d, requests))
}

/// Runs discovery: from the connection's disk cache when it holds a fresh
/// copy (kubectl's TTL), else from the server (then cached).
///
/// # Errors
/// The server unreachable, or answering no discovery document.
pub async fn discover(conn: &Connected) -> Result<Discovered, ClusterError> {
    if let Some(cache) = &conn.discovery_cache
        && let Some((d, requests)) = cached(&conn.client, cache).await
    {
        tracing::info!(
            "discovery: from the cache in {}, {requests} requests",
            cache.dir().display()
        );
        return Ok(from_document(&d, "cache", requests));
    }
    rediscover(conn).await
}

/// Runs discovery from the server whatever the cache holds, and caches it:
/// what a miss does (a kind asked for that the cache does not know), as
/// kubectl invalidates its cache.
///
/// # Errors
/// As [`discover`].
pub async fn rediscover(conn: &Connected) -> Result<Discovered, ClusterError> {
    let (d, mode, requests) = fetch(&conn.client).await?;
    tracing::info!("discovery: {mode}, {requests} requests");
    if let Some(cache) = &conn.discovery_cache {
        store(cache, &d);
    }
    Ok(from_document(&d, mode, requests))
}
