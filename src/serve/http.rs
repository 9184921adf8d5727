//! The socket side: TLS (rustls), HTTP/1.1 (hyper), the bearer tokens,
//! watches streamed as chunked JSON lines, and the clock task that moves
//! the simulator in real time. The request logic is [`super::handler`].

use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch as notify};
use tokio_rustls::TlsAcceptor;

use super::journal::Journal;
use super::rbac;
use super::users::{self, Account};
use super::watch::{self, WatchSpec};
use super::{Outcome, Request, Response, Served, handler, status};

/// The largest request body read, as kube-apiserver's
/// `MaxRequestBodyBytes` (3 MiB).
const MAX_BODY: usize = 3 << 20;
/// How often the clock moves the simulator.
const TICK: Duration = Duration::from_millis(50);
/// How often a watch that asked for bookmarks gets one.
const BOOKMARK_EVERY: Duration = Duration::from_secs(10);
/// How long a watch lasts when the client sets no timeout.
const WATCH_DEFAULT: Duration = Duration::from_secs(1800);

/// What every connection shares.
pub struct Shared {
    served: Mutex<Served>,
    /// Ticks with the store's resource version when anything changed.
    changed: notify::Sender<u64>,
    accounts: Vec<Account>,
    /// `127.0.0.1:port`.
    addr: String,
    /// `--state-dir`: where every change is made durable before its
    /// answer.
    journal: Option<Arc<Journal>>,
}

impl Shared {
    #[must_use]
    pub fn new(
        served: Served,
        accounts: Vec<Account>,
        addr: String,
        journal: Option<Arc<Journal>>,
    ) -> Arc<Shared> {
        let rv = served.resource_version();
        let (changed, _) = notify::channel(rv);
        Arc::new(Shared {
            served: Mutex::new(served),
            changed,
            accounts,
            addr,
            journal,
        })
    }

    /// The journal, with `--state-dir`.
    #[must_use]
    pub fn journal(&self) -> Option<&Arc<Journal>> {
        self.journal.as_ref()
    }

    /// Hands the store's new changes to the journal (with `served`
    /// locked, so that they queue in order). Returns the last one's
    /// number, if there were any.
    pub fn hand_over(&self, served: &mut Served) -> Option<u64> {
        let j = self.journal.as_ref()?;
        j.enqueue(served.take_journal())
    }

    /// Waits until the changes up to record `upto` are on disk.
    ///
    /// # Errors
    /// The journal could not be written.
    pub async fn durable(&self, upto: Option<u64>) -> Result<(), String> {
        let (Some(j), Some(upto)) = (&self.journal, upto) else {
            return Ok(());
        };
        j.wait_durable(upto).await
    }

    /// The simulator (a panic elsewhere does not stop the server).
    pub fn lock(&self) -> MutexGuard<'_, Served> {
        self.served.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes the watches: the store is durable up to `rv`. Watches send
    /// nothing after the last version announced; the journal makes its
    /// records durable in order, so the highest announced is the one.
    pub fn changed(&self, rv: u64) {
        self.changed.send_if_modified(|old| {
            let moved = rv > *old;
            *old = (*old).max(rv);
            moved
        });
    }
}

type Body = BoxBody<Bytes, Infallible>;

fn full(bytes: Vec<u8>) -> Body {
    Full::new(Bytes::from(bytes)).boxed()
}

/// A `Warning` header of `text`, as kube-apiserver writes it
/// (`NewWarningHeader`): code 299, agent `-`, the text quoted with its
/// `"` and `\` escaped (kubectl unescapes them), control characters left
/// out.
fn warning_header(text: &str) -> String {
    let mut h = String::with_capacity(text.len() + 8);
    h.push_str("299 - \"");
    for c in text.chars().filter(|c| !c.is_control()) {
        if c == '"' || c == '\\' {
            h.push('\\');
        }
        h.push(c);
    }
    h.push('"');
    h
}

fn to_http(r: Response) -> hyper::Response<Body> {
    let mut b = hyper::Response::builder()
        .status(r.code)
        .header("Content-Type", r.content_type.as_str())
        .header("Cache-Control", "no-cache, private");
    for w in &r.warnings {
        b = b.header("Warning", warning_header(w));
    }
    b.body(full(r.body)).unwrap_or_else(|_| {
        let mut fallback = hyper::Response::new(full(b"internal error".to_vec()));
        *fallback.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
        fallback
    })
}

fn header(req: &hyper::Request<Incoming>, name: &str) -> String {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// One HTTP request.
async fn answer(
    shared: Arc<Shared>,
    req: hyper::Request<Incoming>,
) -> Result<hyper::Response<Body>, Infallible> {
    let started = Instant::now();
    let authorization = header(&req, "authorization");
    // No credentials at all: the anonymous user, as kube-apiserver's
    // default `--anonymous-auth=true` makes it; wrong ones: 401.
    let user = if authorization.is_empty() {
        Some(rbac::User {
            name: rbac::ANONYMOUS.to_string(),
            groups: vec![rbac::UNAUTHENTICATED.to_string()],
        })
    } else {
        users::authenticate(&shared.accounts, &authorization).cloned()
    };
    let headers = req.headers();
    let impersonate_user = headers
        .get("impersonate-user")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let impersonate_groups = headers
        .get_all("impersonate-group")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_string)
        .collect();
    let mut r = Request {
        method: req.method().as_str().to_string(),
        path: super::query::decode_path(req.uri().path()),
        query: super::query::parse_query(req.uri().query().unwrap_or_default()),
        accept: header(&req, "accept"),
        content_type: header(&req, "content-type"),
        user_agent: header(&req, "user-agent"),
        body: Vec::new(),
        user: user.clone().unwrap_or_default(),
        impersonate_user,
        impersonate_groups,
    };
    if user.is_none() {
        tracing::info!(method = %r.method, path = %r.path, "401: no or wrong bearer token");
        return Ok(to_http(status::error(401, "Unauthorized")));
    }
    match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(b) => r.body = b.to_bytes().to_vec(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            return Ok(to_http(status::error(
                413,
                &format!("Request entity too large: limit is {MAX_BODY}"),
            )));
        }
        Err(e) => {
            return Ok(to_http(status::error(
                400,
                &format!("the request body could not be read: {e}"),
            )));
        }
    }
    let (outcome, rv, upto) = {
        let mut served = shared.lock();
        let out = handler::handle(&mut served, &r, &shared.addr);
        let upto = shared.hand_over(&mut served);
        (out, served.resource_version(), upto)
    };
    // Nothing is answered before it is durable.
    if let Err(e) = shared.durable(upto).await {
        return Ok(to_http(status::error(
            500,
            &format!("the change could not be made durable: {e}"),
        )));
    }
    shared.changed(rv);
    Ok(match outcome {
        Outcome::Reply(resp) => {
            tracing::info!(
                method = %r.method, path = %r.path, query = ?r.query, by = %r.actor(),
                code = resp.code, ms = started.elapsed().as_millis() as u64, "request"
            );
            to_http(resp)
        }
        Outcome::Watch(spec) => {
            tracing::info!(method = %r.method, path = %r.path, query = ?r.query, by = %r.actor(), "watch");
            stream_watch(shared, *spec)
        }
    })
}

fn json_line(v: &serde_json::Value) -> Bytes {
    let mut b = serde_json::to_vec(v).unwrap_or_default();
    b.push(b'\n');
    Bytes::from(b)
}

/// Streams a watch: its first lines, then each change, bookmarks, until the
/// client goes, its timeout passes, or it falls behind the history.
fn stream_watch(shared: Arc<Shared>, mut spec: WatchSpec) -> hyper::Response<Body> {
    let (tx, rx) = mpsc::channel::<Bytes>(256);
    let mut changes = shared.changed.subscribe();
    let limit = spec
        .opts
        .timeout_seconds
        .map_or(WATCH_DEFAULT, Duration::from_secs)
        .min(WATCH_DEFAULT);
    tokio::spawn(async move {
        for l in std::mem::take(&mut spec.initial) {
            if tx.send(json_line(&l)).await.is_err() {
                return;
            }
        }
        if spec.ended {
            return;
        }
        let deadline = tokio::time::sleep(limit);
        tokio::pin!(deadline);
        let mut bookmarks = tokio::time::interval(BOOKMARK_EVERY);
        bookmarks.tick().await;
        loop {
            // What is durable: the last version announced.
            let upto = *changes.borrow_and_update();
            let lines = {
                let served = shared.lock();
                watch::next(&served, &mut spec, upto)
            };
            let (lines, end) = match lines {
                Ok(l) => (l, false),
                Err(gone) => (vec![gone], true),
            };
            for l in lines {
                if tx.send(json_line(&l)).await.is_err() {
                    return;
                }
            }
            if end {
                return;
            }
            tokio::select! {
                r = changes.changed() => if r.is_err() { return },
                _ = bookmarks.tick(), if spec.opts.bookmarks => {
                    if tx.send(json_line(&watch::bookmark(&spec, spec.cursor))).await.is_err() {
                        return;
                    }
                }
                () = &mut deadline => return,
                () = tx.closed() => return,
            }
        }
    });
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
    });
    let body = StreamBody::new(stream).boxed();
    hyper::Response::builder()
        .status(200)
        .header("Content-Type", "application/json")
        .header("Cache-Control", "no-cache, private")
        .body(body)
        .unwrap_or_else(|_| hyper::Response::new(full(Vec::new())))
}

/// Moves the simulator in real time until the process ends.
pub async fn clock(shared: Arc<Shared>) {
    let mut every = tokio::time::interval(TICK);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last = Instant::now();
    loop {
        every.tick().await;
        let now = Instant::now();
        let (rv, upto) = {
            let mut served = shared.lock();
            served.tick(now - last);
            (served.resource_version(), shared.hand_over(&mut served))
        };
        last = now;
        if let Err(e) = shared.durable(upto).await {
            tracing::error!("{e}");
        }
        shared.changed(rv);
    }
}

/// Accepts connections until the task is dropped.
pub async fn accept(listener: TcpListener, tls: Arc<rustls::ServerConfig>, shared: Arc<Shared>) {
    let acceptor = TlsAcceptor::from(tls);
    loop {
        let (tcp, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let acceptor = acceptor.clone();
        let shared = shared.clone();
        tokio::spawn(async move {
            let stream = match acceptor.accept(tcp).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::info!("TLS handshake with {peer} failed: {e}");
                    return;
                }
            };
            let service = service_fn(move |req| answer(shared.clone(), req));
            if let Err(e) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                tracing::debug!("connection from {peer}: {e}");
            }
        });
    }
}
