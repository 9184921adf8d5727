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

use super::config::Scope;
use super::convert::{event_happening, from_dynamic, from_partial};
use super::error_message;
use super::list::Scoped;
use crate::backend::{Happening, Reply};
use crate::model::Object;

/// What the background tasks tell the backend.
#[derive(Debug)]
pub enum Msg {
    /// A complete (re)list of resource `res`.
    Listed {
        res: usize,
        objects: Vec<Object>,
    },
    Applied {
        res: usize,
        object: Object,
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
    Event(Happening),
    EventsFailed {
        message: String,
        forbidden: bool,
    },
    /// The health probe: `Ok` when the server answers.
    Health(Result<(), String>),
    Replied(Reply),
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

/// Watches one resource until the channel closes.
pub async fn watch_resource(res: usize, s: Scoped, tx: Sender<Msg>) {
    let mut cfg = watcher::Config::default();
    if let Some(f) = &s.field_selector {
        cfg = cfg.fields(f);
    }
    if let Some(l) = &s.label_selector {
        cfg = cfg.labels(l);
    }
    let ar = s.resource.ar.clone();
    if s.full {
        let stream = watcher::watcher(s.api(), cfg).default_backoff();
        pump(res, stream, |o| from_dynamic(&ar, o), &tx).await;
    } else {
        let stream = watcher::watcher(s.api_metadata(), cfg).default_backoff();
        pump(res, stream, |o| from_partial(&ar, o), &tx).await;
    }
}

/// Turns one resource's watch stream into messages: the initial list is
/// buffered between `Init` and `InitDone` and sent whole, then each change;
/// errors are sent and the stream's backoff retries.
async fn pump<K, S>(res: usize, stream: S, convert: impl Fn(&K) -> Option<Object>, tx: &Sender<Msg>)
where
    S: futures::Stream<Item = Result<Event<K>, watcher::Error>>,
{
    pin_mut!(stream);
    let mut buf = Vec::new();
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
            Ok(Event::InitDone) => Msg::Listed {
                res,
                objects: std::mem::take(&mut buf),
            },
            Ok(Event::Apply(o)) => match convert(&o) {
                Some(object) => Msg::Applied { res, object },
                None => continue,
            },
            Ok(Event::Delete(o)) => match convert(&o) {
                Some(object) => Msg::Deleted { res, object },
                None => continue,
            },
            Err(e) => {
                let (message, forbidden) = forbidden(&e);
                Msg::Failed {
                    res,
                    message,
                    forbidden,
                }
            }
        };
        if tx.send(msg).await.is_err() {
            return;
        }
    }
}

/// Watches core/v1 Events in scope, sending each new or repeated one.
pub async fn watch_events(client: Client, scope: Scope, started: Timestamp, tx: Sender<Msg>) {
    let api: Api<CoreEvent> = match &scope {
        Scope::All => Api::all(client),
        Scope::Namespace(ns) => Api::namespaced(client, ns),
    };
    let stream = watcher::watcher(api, watcher::Config::default()).default_backoff();
    pin_mut!(stream);
    // uid -> resourceVersion already reported.
    let mut seen: std::collections::HashMap<String, String> = std::collections::HashMap::new();
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
        if seen.get(&uid) == Some(&rv) {
            continue;
        }
        seen.insert(uid, rv);
        if let Some(h) = event_happening(&e, started)
            && tx.send(Msg::Event(h)).await.is_err()
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

/// Probes the server; sends on every change of state, and on every change
/// of the reason it is lost (a refused connection that becomes a
/// certificate error is said as soon as it is seen).
pub async fn probe(client: Client, tx: Sender<Msg>) {
    let mut last: Option<Result<(), String>> = None;
    loop {
        let now = match tokio::time::timeout(Duration::from_secs(3), ready(&client)).await {
            Ok(r) => r,
            Err(_) => Err("the API server did not answer within 3s".into()),
        };
        let changed = last.as_ref() != Some(&now);
        if changed {
            last = Some(now.clone());
            if tx.send(Msg::Health(now)).await.is_err() {
                return;
            }
        }
        tokio::time::sleep(PROBE_EVERY).await;
    }
}
