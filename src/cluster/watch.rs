//! The live backend's background tasks. Each owns its data and sends owned
//! messages over one bounded channel; none touches UI state.
//!
//! - one watcher per resource (metadata-only, full objects for namespaces),
//!   buffering between `Init` and `InitDone` so a (re)list arrives whole;
//!   errors back off (`default_backoff`) and the watcher relists;
//! - one watcher of core/v1 Events in scope;
//! - a health probe (`GET /version`) that says when the server goes away
//!   and comes back.

use std::time::Duration;

use futures::{StreamExt, pin_mut};
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Event as CoreEvent;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use kube::{Api, Client};
use tokio::sync::mpsc::Sender;

use super::config::{Connected, Scope};
use super::convert::{Change, event_happening, from_dynamic, from_partial, last_change};
use super::discovery::Discovered;
use super::error_message;
use super::list::Scoped;
use crate::backend::{Command, Happening, Reply};
use crate::model::Object;

/// Objects a page of a watch's initial list (kube's default is 500), as
/// `tree --live` reads (`list::PAGE`). A list's continue token lasts only
/// until etcd compacts its revision (the API server compacts every 5
/// minutes): at a million objects, on a test control plane answering a
/// page of 500 in 0.7 s, a list of 500k ConfigMaps took longer than that,
/// its token expired (410) and the watcher started over, and the UI never
/// showed the tree. A page of 5,000 took 1.4 to 3.8 s there: ten times
/// the objects for two to five times the wait, and the whole list in under
/// three minutes.
const LIST_PAGE: u32 = 5_000;

/// What the background tasks tell the backend.
#[derive(Debug)]
pub enum Msg {
    /// What a [`Command::ReadEvidence`] read.
    Evidence(crate::backend::Evidence),
    /// A complete (re)list of resource `res`.
    Listed {
        res: usize,
        objects: Vec<Object>,
    },
    Applied {
        res: usize,
        object: Object,
        /// Who made the change and when, as managedFields records it.
        change: Option<Change>,
    },
    Deleted {
        res: usize,
        object: Object,
    },
    /// A watch or list of resource `res` failed; it retries with backoff.
    Failed {
        res: usize,
        message: String,
        forbidden: bool,
    },
    /// An Event (`uid` at `rv`: the backend drops one already shown).
    Event {
        uid: String,
        rv: String,
        h: Happening,
    },
    EventsFailed {
        message: String,
        forbidden: bool,
    },
    /// The cluster's namespaces (names, sorted), listed while one
    /// namespace is watched.
    Namespaces(Vec<String>),
    /// The health probe: `Ok` when the server answers.
    Health(Result<(), String>),
    Replied(Reply),
    /// A reconnect or a context switch read the kubeconfig again: the
    /// new client, or why not. Sent on the backend's own channel, never a
    /// connection's.
    Reconnected {
        command: Command,
        result: Box<Result<NewClient, String>>,
    },
}

/// The connection a reconnect or a switch made (a kube client says
/// nothing in Debug), and, for a switch, what its server serves.
pub struct NewClient {
    pub conn: Connected,
    pub discovered: Option<Discovered>,
}

impl std::fmt::Debug for NewClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.conn.server, self.conn.context)
    }
}

/// Seconds between health probes.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

fn forbidden(e: &watcher::Error) -> (String, bool) {
    let inner = match e {
        watcher::Error::InitialListFailed(k)
        | watcher::Error::WatchStartFailed(k)
        | watcher::Error::WatchFailed(k) => Some(k),
        _ => None,
    };
    match inner {
        Some(k) => (error_message(k), super::error_code(k) == 403),
        None => (
            super::exec_plugin_failure(e).unwrap_or_else(|| e.to_string()),
            false,
        ),
    }
}

/// The first wait before a failed watch lists again; it doubles up to
/// [`RETRY_MAX`] and starts over after a list that completes.
pub const RETRY_FIRST: Duration = Duration::from_millis(500);
pub const RETRY_MAX: Duration = Duration::from_secs(15);

/// Watches one resource until the channel closes. After any failure the
/// watcher starts over with a full list (kube's watcher would resume the
/// watch from its resourceVersion with no sign of when it is back): a kind
/// counts as synced again only when that list is in. Waits between tries
/// grow, and end at once when the health probe sees the server answer
/// again (`recovered` changes), so no kind lags behind a restart by a
/// backoff.
pub async fn watch_resource(
    res: usize,
    s: Scoped,
    tx: Sender<Msg>,
    mut recovered: tokio::sync::watch::Receiver<u64>,
) {
    let mut cfg = watcher::Config::default().page_size(LIST_PAGE);
    if let Some(f) = &s.field_selector {
        cfg = cfg.fields(f);
    }
    if let Some(l) = &s.label_selector {
        cfg = cfg.labels(l);
    }
    let ar = s.resource.ar.clone();
    let mut wait = RETRY_FIRST;
    loop {
        let ended = if s.full {
            let stream = watcher::watcher(s.api(), cfg.clone());
            pump(res, stream, |o| from_dynamic(&ar, o), &tx).await
        } else {
            let stream = watcher::watcher(s.api_metadata(), cfg.clone());
            pump(res, stream, |o| from_partial(&ar, o), &tx).await
        };
        match ended {
            Ended::Closed => return,
            Ended::Failed { listed } => backoff(&mut wait, listed, &mut recovered).await,
        }
    }
}

/// How a watch stream ended.
enum Ended {
    /// The backend is gone.
    Closed,
    /// It failed (the failure was sent); `listed`: a list had completed
    /// before.
    Failed { listed: bool },
}

/// Turns one resource's watch stream into messages: the initial list is
/// buffered between `Init` and `InitDone` and sent whole, then each change
/// with the manager that made it (managedFields); the first error is sent
/// and ends the stream.
async fn pump<K, S>(
    res: usize,
    stream: S,
    convert: impl Fn(&K) -> Option<Object>,
    tx: &Sender<Msg>,
) -> Ended
where
    K: kube::Resource,
    S: futures::Stream<Item = Result<Event<K>, watcher::Error>>,
{
    pin_mut!(stream);
    let mut buf = Vec::new();
    let mut listed = false;
    while let Some(ev) = stream.next().await {
        let msg = match ev {
            Ok(Event::Init) => {
                buf.clear();
                continue;
            }
            Ok(Event::InitApply(o)) => {
                buf.extend(convert(&o));
                continue;
            }
            Ok(Event::InitDone) => {
                listed = true;
                Msg::Listed {
                    res,
                    objects: std::mem::take(&mut buf),
                }
            }
            Ok(Event::Apply(o)) => match convert(&o) {
                Some(object) => Msg::Applied {
                    res,
                    change: last_change(o.meta()),
                    object,
                },
                None => continue,
            },
            Ok(Event::Delete(o)) => match convert(&o) {
                Some(object) => Msg::Deleted { res, object },
                None => continue,
            },
            Err(e) => {
                let (message, forbidden) = forbidden(&e);
                let msg = Msg::Failed {
                    res,
                    message,
                    forbidden,
                };
                if tx.send(msg).await.is_err() {
                    return Ended::Closed;
                }
                return Ended::Failed { listed };
            }
        };
        if tx.send(msg).await.is_err() {
            return Ended::Closed;
        }
    }
    Ended::Failed { listed }
}

/// Watches the cluster's namespaces, names only, for `:ns` while one
/// namespace is watched: the whole list after each (re)list, then again at
/// each namespace created or deleted. A user who may not list namespaces
/// gets nothing (the watch ends: `:ns NAME` still works); any other
/// failure lists again as [`watch_resource`] does.
pub async fn watch_namespaces(
    client: Client,
    tx: Sender<Msg>,
    mut recovered: tokio::sync::watch::Receiver<u64>,
) {
    use k8s_openapi::api::core::v1::Namespace;
    let api: Api<kube::core::PartialObjectMeta<Namespace>> = Api::all(client);
    let mut wait = RETRY_FIRST;
    loop {
        let stream = watcher::watcher(api.clone(), watcher::Config::default().page_size(LIST_PAGE));
        pin_mut!(stream);
        let mut names = std::collections::BTreeSet::new();
        let mut buf = std::collections::BTreeSet::new();
        let mut listed = false;
        while let Some(ev) = stream.next().await {
            let changed = match ev {
                Ok(Event::Init) => {
                    buf.clear();
                    false
                }
                Ok(Event::InitApply(o)) => {
                    buf.extend(o.metadata.name);
                    false
                }
                Ok(Event::InitDone) => {
                    listed = true;
                    names = std::mem::take(&mut buf);
                    true
                }
                Ok(Event::Apply(o)) => o.metadata.name.is_some_and(|n| names.insert(n)),
                Ok(Event::Delete(o)) => o.metadata.name.is_some_and(|n| names.remove(&n)),
                Err(e) => {
                    if forbidden(&e).1 {
                        return;
                    }
                    break;
                }
            };
            if changed
                && tx
                    .send(Msg::Namespaces(names.iter().cloned().collect()))
                    .await
                    .is_err()
            {
                return;
            }
        }
        backoff(&mut wait, listed, &mut recovered).await;
    }
}

/// Waits before a failed watch lists again: [`RETRY_FIRST`] after a list
/// that had completed, else twice the last wait up to [`RETRY_MAX`]; no
/// longer once the health probe sees the server answer again
/// (`recovered` changes).
async fn backoff(
    wait: &mut Duration,
    listed: bool,
    recovered: &mut tokio::sync::watch::Receiver<u64>,
) {
    if listed {
        *wait = RETRY_FIRST;
    }
    recovered.borrow_and_update();
    tokio::select! {
        () = tokio::time::sleep(*wait) => {}
        _ = recovered.changed() => {}
    }
    *wait = (*wait * 2).min(RETRY_MAX);
}

/// Watches core/v1 Events in scope, sending each new or repeated one.
pub async fn watch_events(client: Client, scope: Scope, started: Timestamp, tx: Sender<Msg>) {
    let api: Api<CoreEvent> = match &scope {
        Scope::All => Api::all(client),
        Scope::Namespace(ns) => Api::namespaced(client, ns),
    };
    // Events are the most numerous kind of a large cluster (a million
    // objects hold hundreds of thousands): their list is paged as the
    // other watches' ([`LIST_PAGE`]), or its continue token expires
    // before the last page.
    let cfg = watcher::Config::default().page_size(LIST_PAGE);
    let stream = watcher::watcher(api, cfg).default_backoff();
    pin_mut!(stream);
    while let Some(ev) = stream.next().await {
        let e = match ev {
            Ok(Event::InitApply(e) | Event::Apply(e)) => e,
            Ok(_) => continue,
            Err(err) => {
                let (message, forbidden) = forbidden(&err);
                if tx
                    .send(Msg::EventsFailed { message, forbidden })
                    .await
                    .is_err()
                {
                    return;
                }
                continue;
            }
        };
        let uid = e.metadata.uid.clone().unwrap_or_default();
        let rv = e.metadata.resource_version.clone().unwrap_or_default();
        if let Some(h) = event_happening(&e, started)
            && tx.send(Msg::Event { uid, rv, h }).await.is_err()
        {
            return;
        }
    }
}

/// Whether the server can serve: `GET /readyz`, which checks etcd (a
/// stalled etcd left `/version` answering while every list hung); where
/// `/readyz` is not open to the user, `/version`.
async fn ready(client: &Client) -> Result<(), String> {
    let req = http::Request::get("/readyz")
        .body(Vec::new())
        .map_err(|e| e.to_string())?;
    match client.request_text(req).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 401 || s.code == 403 || s.code == 404 => client
            .apiserver_version()
            .await
            .map(|_| ())
            .map_err(|e| error_message(&e)),
        Err(e) => Err(format!("not ready: {}", error_message(&e))),
    }
}

/// Probes the server. Every failed probe is sent, so the reason shown is
/// the latest (a refused connection that becomes a certificate error is
/// said as soon as it is seen); a success is sent when it follows a
/// failure, and then `recovered` ticks, so that the watches waiting to
/// retry list at once.
pub async fn probe(client: Client, tx: Sender<Msg>, recovered: tokio::sync::watch::Sender<u64>) {
    let mut up: Option<bool> = None;
    loop {
        let now = match tokio::time::timeout(PROBE_TIMEOUT, ready(&client)).await {
            Ok(r) => r.map_err(|m| plain_reason(&m)),
            Err(_) => Err(format!("no answer within {}s", PROBE_TIMEOUT.as_secs())),
        };
        let ok = now.is_ok();
        if !ok || up != Some(true) {
            if tx.send(Msg::Health(now)).await.is_err() {
                return;
            }
            if ok && up == Some(false) {
                recovered.send_modify(|n| *n += 1);
            }
        }
        up = Some(ok);
        tokio::time::sleep(PROBE_EVERY).await;
    }
}

/// How long one probe waits.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// A TLS failure said as a person would: rustls says `invalid peer
/// certificate: UnknownIssuer` (or `BadSignature`, for a new CA of the
/// same name), which after a server's new CA is the whole story.
#[must_use]
pub fn plain_reason(message: &str) -> String {
    let tls = ["UnknownIssuer", "BadSignature"]
        .iter()
        .any(|w| message.contains(&format!("invalid peer certificate: {w}")));
    if tls {
        let said = message
            .find("invalid peer certificate")
            .map_or(message, |i| &message[i..]);
        format!(
            "certificate signed by unknown authority: the server's certificate does not verify against the kubeconfig's CA (a new CA? Ctrl-r reads the kubeconfig again) [{said}]"
        )
    } else {
        message.to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_certificate_from_another_ca_is_said_plainly() {
        for said in [
            "not ready: ServiceError: client error (Connect): invalid peer certificate: BadSignature",
            "ServiceError: invalid peer certificate: UnknownIssuer",
        ] {
            let r = super::plain_reason(said);
            assert!(
                r.starts_with("certificate signed by unknown authority"),
                "{r}"
            );
            assert!(
                r.contains("Ctrl-r") && r.contains("invalid peer certificate"),
                "{r}"
            );
        }
        assert_eq!(
            super::plain_reason("Connection refused"),
            "Connection refused"
        );
    }
}
