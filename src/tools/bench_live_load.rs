//! The shaped cluster of `bench --live --live-shapes --objects N`: N small
//! objects through the API server, in namespaces `ownerscope-bench-s000`,
//! `-s001`, ... of [`PER_NAMESPACE`] objects each. Each group of ten in a
//! namespace is an owner ConfigMap `own-G`, four Secrets `sec-G-K` and a
//! Pod `pod-G` it owns (no kubelet runs them: they stay Pending), and four
//! ConfigMaps `cm-G-K` of their own: half ConfigMaps, 40% Secrets, 10%
//! Pods, a tree of depth two.
//!
//! What exists is kept (a rerun makes only what is missing). Requests are
//! built as JSON text and sent [`GROUPS_AT_ONCE`] groups at once (the
//! owner first, then its nine); the rate is printed as it goes.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use futures::{StreamExt, stream};
use kube::Client;

use crate::commands::CmdError;

/// Namespaces of the shaped cluster: `ownerscope-bench-s000`, ...
pub const PREFIX: &str = "ownerscope-bench-s";
/// Objects in each of its namespaces.
pub const PER_NAMESPACE: usize = 5_000;
/// Objects in a group: an owner and its nine.
const GROUP: usize = 10;
/// Groups in flight (each up to nine requests at once): under the API
/// server's 200 mutating requests in flight.
const GROUPS_AT_ONCE: usize = 16;
/// The label every object carries (the watch benchmark changes another).
pub const LABEL: &str = "ownerscope-bench=shaped";

fn err(e: impl std::fmt::Display) -> CmdError {
    CmdError(e.to_string())
}

/// The namespaces of `n` objects.
#[must_use]
pub fn namespaces(n: usize) -> Vec<String> {
    (0..n.div_ceil(PER_NAMESPACE))
        .map(|i| format!("{PREFIX}{i:03}"))
        .collect()
}

/// What a group needs made.
struct Todo {
    namespace: String,
    group: usize,
    /// The owner's uid, when it exists.
    owner: Option<String>,
    /// The missing members, by name.
    missing: HashSet<String>,
}

fn members(g: usize) -> Vec<String> {
    let mut v = vec![format!("own-{g:04}"), format!("pod-{g:04}")];
    for k in 0..4 {
        v.push(format!("sec-{g:04}-{k}"));
        v.push(format!("cm-{g:04}-{k}"));
    }
    v
}

async fn send(
    client: &Client,
    method: http::Method,
    path: &str,
    body: Vec<u8>,
) -> Result<String, kube::Error> {
    let req = http::Request::builder()
        .method(method)
        .uri(path)
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCEPT, "application/json")
        .body(body)
        .map_err(kube::Error::HttpError)?;
    client.request_text(req).await
}

/// A create, retried a few times on 429 and 5xx (an API server at its
/// limit of requests in flight); 409 (it exists) is success.
async fn create(client: &Client, path: &str, body: String) -> Result<String, CmdError> {
    let mut wait = std::time::Duration::from_millis(100);
    for attempt in 0.. {
        match send(client, http::Method::POST, path, body.clone().into_bytes()).await {
            Ok(text) => return Ok(text),
            Err(kube::Error::Api(s)) if s.code == 409 => return Ok(String::new()),
            Err(kube::Error::Api(s)) if (s.code == 429 || s.code >= 500) && attempt < 8 => {
                tokio::time::sleep(wait).await;
                wait *= 2;
            }
            Err(e) => return Err(err(format!("POST {path}: {e}"))),
        }
    }
    unreachable!("the loop returns")
}

fn owner_ref(uid: &str, g: usize) -> String {
    format!(
        r#","ownerReferences":[{{"apiVersion":"v1","kind":"ConfigMap","name":"own-{g:04}","uid":"{uid}","controller":true,"blockOwnerDeletion":true}}]"#
    )
}

/// The JSON of a member; `more`: further metadata fields (`,"uid":...`),
/// which etcd is given where the API server would set them.
fn body(kind: &str, name: &str, owner: &str) -> String {
    body_with(kind, name, owner, "")
}

fn body_with(kind: &str, name: &str, owner: &str, more: &str) -> String {
    let (k, v) = LABEL.split_once('=').unwrap_or((LABEL, ""));
    let meta = format!(r#""metadata":{{"name":"{name}"{more},"labels":{{"{k}":"{v}"}}{owner}}}"#);
    match kind {
        "Secret" => format!(
            r#"{{"apiVersion":"v1","kind":"Secret",{meta},"type":"Opaque","data":{{"k":"dg=="}}}}"#
        ),
        "Pod" if !more.is_empty() => format!(
            r#"{{"apiVersion":"v1","kind":"Pod",{meta},"spec":{{"containers":[{{"name":"c","image":"bench"}}]}},"status":{{"phase":"Pending"}}}}"#
        ),
        "Pod" => format!(
            r#"{{"apiVersion":"v1","kind":"Pod",{meta},"spec":{{"containers":[{{"name":"c","image":"bench"}}]}}}}"#
        ),
        _ => format!(r#"{{"apiVersion":"v1","kind":"ConfigMap",{meta},"data":{{"k":"v"}}}}"#),
    }
}

/// Makes one group's missing members: the owner first (or its uid read
/// from the cluster), then the others at once.
async fn make_group(client: Client, t: Todo) -> Result<usize, CmdError> {
    let ns = &t.namespace;
    let g = t.group;
    let own = format!("own-{g:04}");
    let cms = format!("/api/v1/namespaces/{ns}/configmaps");
    let mut made = 0;
    let uid = match t.owner {
        Some(uid) => uid,
        None => {
            let text = create(&client, &cms, body("ConfigMap", &own, "")).await?;
            made += 1;
            let text = if text.is_empty() {
                send(
                    &client,
                    http::Method::GET,
                    &format!("{cms}/{own}"),
                    Vec::new(),
                )
                .await
                .map_err(err)?
            } else {
                text
            };
            #[derive(serde::Deserialize)]
            struct Made {
                metadata: MadeMeta,
            }
            #[derive(serde::Deserialize)]
            struct MadeMeta {
                uid: String,
            }
            serde_json::from_str::<Made>(&text)
                .map_err(err)?
                .metadata
                .uid
        }
    };
    let owned = owner_ref(&uid, g);
    let jobs: Vec<_> = members(g)
        .into_iter()
        .filter(|m| *m != own && t.missing.contains(m))
        .map(|name| {
            let (kind, plural, is_owned) = kind_of(&name);
            let owner = if is_owned { owned.as_str() } else { "" };
            let path = format!("/api/v1/namespaces/{ns}/{plural}");
            let b = body(kind, &name, owner);
            let client = client.clone();
            async move { create(&client, &path, b).await }
        })
        .collect();
    for r in futures::future::join_all(jobs).await {
        r?;
        made += 1;
    }
    Ok(made)
}

/// The names (and uids) of a namespace's ConfigMaps, Secrets and Pods.
async fn existing(client: &Client, ns: &str) -> Result<HashMap<String, String>, CmdError> {
    #[derive(serde::Deserialize)]
    struct List {
        items: Option<Vec<Item>>,
    }
    #[derive(serde::Deserialize)]
    struct Item {
        metadata: Meta,
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        name: String,
        uid: String,
    }
    let mut out = HashMap::new();
    for plural in ["configmaps", "secrets", "pods"] {
        let req = http::Request::get(format!("/api/v1/namespaces/{ns}/{plural}"))
            .header(
                http::header::ACCEPT,
                "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
            )
            .body(Vec::new())
            .map_err(err)?;
        let text = client.request_text(req).await.map_err(err)?;
        let list: List = serde_json::from_str(&text).map_err(err)?;
        for i in list.items.unwrap_or_default() {
            out.insert(i.metadata.name, i.metadata.uid);
        }
    }
    Ok(out)
}

/// A member's kind and plural, and whether its owner is the group's.
fn kind_of(name: &str) -> (&'static str, &'static str, bool) {
    match name.split('-').next() {
        Some("sec") => ("Secret", "secrets", true),
        Some("pod") => ("Pod", "pods", true),
        _ => ("ConfigMap", "configmaps", false),
    }
}

/// A uid of the etcd loader's, the same for the same object at each run.
fn uid_of(ns: &str, name: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (ns, name).hash(&mut h);
    let a = h.finish();
    (name, ns).hash(&mut h);
    let b = h.finish();
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

/// Puts to etcd per transaction (etcd's `--max-txn-ops` default).
const TXN_OPS: usize = 128;
/// Transactions in flight.
const TXNS_AT_ONCE: usize = 4;

/// One etcd transaction of puts through etcd's JSON gateway (`POST
/// /v3/kv/txn`, keys and values in base64), on a connection of its own
/// (blocking: run it on tokio's blocking threads).
fn etcd_txn(addr: &str, puts: &[(String, String)]) -> Result<(), CmdError> {
    use base64::Engine as _;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let ops: Vec<String> = puts
        .iter()
        .map(|(k, v)| {
            format!(
                r#"{{"requestPut":{{"key":"{}","value":"{}"}}}}"#,
                b64(k),
                b64(v)
            )
        })
        .collect();
    let body = format!(r#"{{"success":[{}]}}"#, ops.join(","));
    let answer = etcd_post(addr, "/v3/kv/txn", &body)?;
    if answer.contains(r#""succeeded":true"#) {
        Ok(())
    } else {
        Err(err(format!(
            "etcd {addr} refused a transaction: {}",
            answer.chars().take(400).collect::<String>()
        )))
    }
}

/// One POST to etcd's JSON gateway on a connection of its own: the answer,
/// when its status is 200.
fn etcd_post(addr: &str, path: &str, body: &str) -> Result<String, CmdError> {
    use std::io::{Read, Write};
    let mut conn =
        std::net::TcpStream::connect(addr).map_err(|e| err(format!("etcd {addr}: {e}")))?;
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    conn.write_all(head.as_bytes()).map_err(err)?;
    conn.write_all(body.as_bytes()).map_err(err)?;
    let mut answer = Vec::new();
    conn.read_to_end(&mut answer).map_err(err)?;
    let answer = String::from_utf8_lossy(&answer).to_string();
    if answer.starts_with("HTTP/1.1 200") {
        Ok(answer)
    } else {
        Err(err(format!(
            "etcd {addr} {path}: {}",
            answer.chars().take(400).collect::<String>()
        )))
    }
}

/// Deletes every ConfigMap, Secret and Pod of the shaped namespaces
/// straight from etcd (`bench --live --live-shapes --live-etcd URL
/// --live-cleanup`), where the namespace controller deletes them one
/// request each: one delete-range per kind and namespace (a range of a
/// whole kind, 500k keys at a million objects, outlasted etcd's request
/// timeout), then one per kind over the prefix for any left.
///
/// # Errors
/// etcd unreachable or refusing.
pub async fn delete_etcd(etcd: &str) -> Result<(), CmdError> {
    use base64::Engine as _;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let addr = etcd
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    // The end of a prefix's range: the prefix with its last byte plus one.
    let range = |from: String| {
        let mut end = from.clone().into_bytes();
        if let Some(last) = end.last_mut() {
            *last += 1;
        }
        let end = String::from_utf8_lossy(&end).to_string();
        format!(r#"{{"key":"{}","range_end":"{}"}}"#, b64(&from), b64(&end))
    };
    for plural in ["configmaps", "secrets", "pods"] {
        let mut deleted = 0u64;
        let mut ranges: Vec<String> = namespaces(MAX_NAMESPACES * PER_NAMESPACE)
            .iter()
            .map(|ns| range(format!("/registry/{plural}/{ns}/")))
            .collect();
        ranges.push(range(format!("/registry/{plural}/{PREFIX}")));
        for body in ranges {
            let addr = addr.clone();
            let answer =
                tokio::task::spawn_blocking(move || etcd_post(&addr, "/v3/kv/deleterange", &body))
                    .await
                    .map_err(err)??;
            deleted += deleted_count(&answer);
        }
        eprintln!("{plural}: {deleted} deleted");
    }
    Ok(())
}

/// Namespaces looked at one by one by [`delete_etcd`] (a million objects
/// make 200).
const MAX_NAMESPACES: usize = 1_000;

/// `"deleted":"N"` of etcd's JSON answer to a delete-range (absent: none).
fn deleted_count(answer: &str) -> u64 {
    answer
        .split("\"deleted\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Writes what `todo` lacks straight into etcd at `etcd` (`http://HOST:PORT`,
/// the API server's `--etcd-servers`, prefix `/registry`), as the API server
/// stores them (JSON, which it reads as well as its protobuf): the uids and
/// creation times it would set are set here. The API server's watch of etcd
/// brings them to its cache and to every watcher.
async fn load_etcd(etcd: &str, todo: Vec<Todo>) -> Result<usize, CmdError> {
    let addr = etcd
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    if etcd.starts_with("https://") {
        return Err(err("--live-etcd: only a plain http:// etcd is supported"));
    }
    let now = jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let mut puts = Vec::new();
    for t in todo {
        let ns = &t.namespace;
        let own = format!("own-{:04}", t.group);
        let owner_uid = t.owner.clone().unwrap_or_else(|| uid_of(ns, &own));
        let owned = owner_ref(&owner_uid, t.group);
        for name in members(t.group) {
            if !t.missing.contains(&name) {
                continue;
            }
            let (kind, plural, is_owned) = kind_of(&name);
            let uid = if name == own {
                owner_uid.clone()
            } else {
                uid_of(ns, &name)
            };
            let more = format!(r#","namespace":"{ns}","uid":"{uid}","creationTimestamp":"{now}""#);
            let owner = if is_owned { owned.as_str() } else { "" };
            puts.push((
                format!("/registry/{plural}/{ns}/{name}"),
                body_with(kind, &name, owner, &more),
            ));
        }
    }
    let total = puts.len();
    let chunks: Vec<Vec<(String, String)>> = puts
        .chunks(TXN_OPS)
        .map(<[(String, String)]>::to_vec)
        .collect();
    let t0 = Instant::now();
    let mut done = 0usize;
    let mut next_report = 100_000;
    let mut results = stream::iter(chunks)
        .map(|c| {
            let addr = addr.clone();
            async move {
                tokio::task::spawn_blocking(move || etcd_txn(&addr, &c).map(|()| c.len()))
                    .await
                    .map_err(err)?
            }
        })
        .buffer_unordered(TXNS_AT_ONCE);
    while let Some(r) = results.next().await {
        done += r?;
        if done >= next_report {
            next_report += 100_000;
            eprintln!("  {done} written in {:.0} s", t0.elapsed().as_secs_f64());
        }
    }
    Ok(total)
}

/// Makes the shaped cluster of `n` objects (what is missing of it),
/// through the API server, or with `etcd` straight into its etcd.
///
/// # Errors
/// A request the server refuses.
pub async fn load(client: Client, n: usize, etcd: Option<&str>) -> Result<(), CmdError> {
    let mut todo = Vec::new();
    let mut present = 0usize;
    for (i, ns) in namespaces(n).into_iter().enumerate() {
        let here = (n - i * PER_NAMESPACE).min(PER_NAMESPACE);
        let ns_body =
            format!(r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{ns}"}}}}"#);
        create(&client, "/api/v1/namespaces", ns_body).await?;
        let have = existing(&client, &ns).await?;
        for g in 0..here.div_ceil(GROUP) {
            let all = members(g);
            let missing: HashSet<String> = all
                .iter()
                .filter(|m| !have.contains_key(*m))
                .cloned()
                .collect();
            present += all.len() - missing.len();
            if !missing.is_empty() {
                todo.push(Todo {
                    namespace: ns.clone(),
                    group: g,
                    owner: have.get(&format!("own-{g:04}")).cloned(),
                    missing,
                });
            }
        }
    }
    let missing: usize = todo.iter().map(|t| t.missing.len()).sum();
    if missing == 0 {
        return Ok(());
    }
    eprintln!("{present} objects of the shaped cluster exist; making {missing}...");
    let t0 = Instant::now();
    if let Some(etcd) = etcd {
        let made = load_etcd(etcd, todo).await?;
        let s = t0.elapsed().as_secs_f64();
        #[allow(clippy::cast_precision_loss)]
        let rate = made as f64 / s.max(1e-9);
        eprintln!("wrote {made} objects to etcd in {s:.0} s ({rate:.0} a second)");
        return Ok(());
    }
    let mut made = 0usize;
    let mut next_report = 50_000;
    let mut results = stream::iter(todo)
        .map(|t| make_group(client.clone(), t))
        .buffer_unordered(GROUPS_AT_ONCE);
    while let Some(r) = results.next().await {
        made += r?;
        if made >= next_report {
            next_report += 50_000;
            let s = t0.elapsed().as_secs_f64();
            #[allow(clippy::cast_precision_loss)]
            let rate = made as f64 / s.max(1e-9);
            eprintln!("  {made} made in {s:.0} s ({rate:.0} a second)");
        }
    }
    let s = t0.elapsed().as_secs_f64();
    #[allow(clippy::cast_precision_loss)]
    let rate = made as f64 / s.max(1e-9);
    eprintln!("made {made} objects in {s:.0} s ({rate:.0} a second)");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delete_range_answer_says_how_many_went() {
        let ok = "HTTP/1.1 200 OK\r\n\r\n{\"header\":{\"revision\":\"9\"},\"deleted\":\"5000\"}";
        assert_eq!(deleted_count(ok), 5000);
        // etcd leaves the field out when nothing matched.
        assert_eq!(deleted_count("HTTP/1.1 200 OK\r\n\r\n{\"header\":{}}"), 0);
    }

    #[test]
    fn a_group_is_an_owner_four_secrets_a_pod_and_four_configmaps() {
        let m = members(7);
        assert_eq!(m.len(), GROUP);
        assert_eq!(m.iter().filter(|n| n.starts_with("sec-0007-")).count(), 4);
        assert_eq!(m.iter().filter(|n| n.starts_with("cm-0007-")).count(), 4);
        assert!(m.contains(&"own-0007".to_string()) && m.contains(&"pod-0007".to_string()));
        assert_eq!(namespaces(1_000_000).len(), 200);
        assert_eq!(
            namespaces(5_001).last().map(String::as_str),
            Some("ownerscope-bench-s001")
        );
    }

    #[test]
    fn each_body_is_the_json_of_its_kind_with_the_owner() {
        let owned = owner_ref("u-1", 3);
        for (kind, field) in [("Secret", "data"), ("Pod", "spec"), ("ConfigMap", "data")] {
            let v: serde_json::Value =
                serde_json::from_str(&body(kind, "x", &owned)).expect("JSON");
            assert_eq!(v["kind"], kind);
            assert_eq!(v["metadata"]["ownerReferences"][0]["uid"], "u-1");
            assert_eq!(v["metadata"]["ownerReferences"][0]["name"], "own-0003");
            assert_eq!(v["metadata"]["labels"]["ownerscope-bench"], "shaped");
            assert!(v.get(field).is_some(), "{kind}");
        }
        let plain: serde_json::Value =
            serde_json::from_str(&body("ConfigMap", "y", "")).expect("JSON");
        assert!(plain["metadata"].get("ownerReferences").is_none());
    }
}
