//! [`ClusterBackend`]: the [`Backend`] on a live cluster. A tokio runtime
//! runs the watch tasks in the background; `poll` drains what they sent and
//! turns it into the same updates the simulator produces.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use tokio::runtime::Runtime;
use tokio::sync::mpsc;

use super::actions;
use super::config::{Connected, LiveOptions, connect};
use super::discovery::{Resource, discover};
use super::list::in_scope;
use super::watch::{Msg, probe, watch_events, watch_resource};
use super::{ClusterError, convert};
use crate::backend::{
    Backend, Command, Connection, Happening, Permission, Reply, SourceStatus, Update,
};
use crate::model::{KindTable, Object, Uid, group_of};

const CHANNEL: usize = 1024;
/// The first tree is sent when every resource has answered, or after this.
const INITIAL_WAIT: Duration = Duration::from_secs(20);
const PERMISSION_TTL: Duration = Duration::from_secs(30);
const REVIEW_TIMEOUT: Duration = Duration::from_secs(5);
/// At most this many messages are handled per `poll`.
const DRAIN_MAX: usize = 20_000;

/// Runs `fut` on `rt` and waits for it from any thread (also from inside
/// another runtime, where `block_on` would panic).
fn run_sync<F>(rt: &Runtime, fut: F, timeout: Duration) -> Option<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let (tx, rx) = std::sync::mpsc::channel();
    rt.spawn(async move {
        let _ = tx.send(fut.await);
    });
    rx.recv_timeout(timeout).ok()
}

#[derive(Default)]
struct ResState {
    listed: bool,
    uids: HashSet<Uid>,
    /// The last failure, until the next successful list.
    failure: Option<(String, bool)>,
}

/// The live backend.
pub struct ClusterBackend {
    rt: Option<Runtime>,
    conn: Connected,
    tx: mpsc::Sender<Msg>,
    rx: mpsc::Receiver<Msg>,
    resources: Vec<Resource>,
    kinds: KindTable,
    state: Vec<ResState>,
    objects: HashMap<Uid, Arc<Object>>,
    events_failure: Option<(String, bool)>,
    initial_sent: bool,
    pending_events: Vec<Happening>,
    started_at: Instant,
    connection: Connection,
    last_status: Option<SourceStatus>,
    permissions: HashMap<(String, String), (Instant, Permission)>,
    out: Vec<Update>,
}

impl ClusterBackend {
    /// Connects, discovers and starts watching.
    ///
    /// # Errors
    /// Kubeconfig problems, or discovery failing (server unreachable).
    pub fn start(opts: &LiveOptions) -> Result<Self, ClusterError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ownerscope-cluster")
            .enable_all()
            .build()
            .map_err(|e| ClusterError(format!("starting the runtime: {e}")))?;
        let opts2 = opts.clone();
        let (conn, discovered) = run_sync(
            &rt,
            async move {
                let conn = connect(&opts2).await?;
                let d = discover(&conn).await?;
                Ok::<_, ClusterError>((conn, d))
            },
            Duration::from_secs(60),
        )
        .ok_or_else(|| ClusterError("the cluster did not answer discovery within 60s".into()))??;
        let scoped = in_scope(&conn, &discovered.resources);
        let (tx, rx) = mpsc::channel(CHANNEL);
        let started = Timestamp::now();
        let resources: Vec<Resource> = scoped.iter().map(|s| s.resource.clone()).collect();
        for (i, s) in scoped.into_iter().enumerate() {
            rt.spawn(watch_resource(i, s, tx.clone()));
        }
        rt.spawn(watch_events(
            conn.client.clone(),
            conn.scope.clone(),
            started,
            tx.clone(),
        ));
        rt.spawn(probe(conn.client.clone(), tx.clone()));
        let mut b = ClusterBackend {
            rt: Some(rt),
            state: resources.iter().map(|_| ResState::default()).collect(),
            resources,
            kinds: conn.viewed_kinds(discovered.kinds),
            conn,
            tx,
            rx,
            objects: HashMap::new(),
            events_failure: None,
            initial_sent: false,
            pending_events: Vec::new(),
            started_at: Instant::now(),
            connection: Connection::Connected,
            last_status: None,
            permissions: HashMap::new(),
            out: Vec::new(),
        };
        b.push_status();
        Ok(b)
    }

    /// How many requests the read-only guard refused (`None` when not
    /// read-only).
    #[must_use]
    pub fn refused_requests(&self) -> Option<usize> {
        self.conn
            .guard
            .as_ref()
            .map(super::readonly::ReadOnlyLayer::refused)
    }

    /// The kinds discovered.
    #[must_use]
    pub fn kinds(&self) -> &KindTable {
        &self.kinds
    }

    /// Kinds that could not be listed, with the server's reason.
    #[must_use]
    pub fn missing(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .resources
            .iter()
            .zip(&self.state)
            .filter_map(|(r, s)| match &s.failure {
                Some((msg, forbidden)) if *forbidden || !s.listed => Some((r.name(), msg.clone())),
                _ => None,
            })
            .collect();
        if let Some((msg, true)) = &self.events_failure {
            out.push(("events".into(), msg.clone()));
        }
        out
    }

    fn t(&self) -> f64 {
        self.started_at.elapsed().as_secs_f64()
    }

    fn status(&self) -> SourceStatus {
        SourceStatus {
            kind: "CLUSTER".into(),
            // The UI's status bar shows `kind name`: the scope goes in the
            // name so that it is seen (it is also in `scope`).
            name: format!(
                "{} @ {} · {}",
                self.conn.context,
                self.conn.server,
                self.conn.scope.label()
            ),
            scope: self.conn.scope.label(),
            connection: self.connection.clone(),
            clock: None,
            missing_kinds: self.missing().into_iter().map(|(k, _)| k).collect(),
            controllers: Vec::new(),
        }
    }

    fn push_status(&mut self) {
        let s = self.status();
        if self.last_status.as_ref() != Some(&s) {
            self.last_status = Some(s.clone());
            self.out.push(Update::Status(s));
        }
    }

    fn reply_now(&mut self, command: Command, message: String) {
        self.out.push(Update::Replied(Reply {
            command,
            code: 0,
            message,
            warnings: Vec::new(),
        }));
    }

    fn all_answered(&self) -> bool {
        self.state.iter().all(|s| s.listed || s.failure.is_some())
    }

    fn upsert(&mut self, res: usize, obj: Object) {
        let uid = obj.metadata.uid.clone();
        if let Some(s) = self.state.get_mut(res) {
            s.uids.insert(uid.clone());
        }
        let old = self.objects.get(&uid);
        if old.is_some_and(|o| {
            o.metadata.resource_version.is_some()
                && o.metadata.resource_version == obj.metadata.resource_version
        }) {
            return;
        }
        if self.initial_sent {
            let t = self.t();
            for h in convert::changes(old.map(|o| &**o), &obj, t) {
                self.out.push(Update::Happened(h));
            }
        }
        let obj = Arc::new(obj);
        if self.initial_sent {
            self.out.push(Update::Upsert(Arc::clone(&obj)));
        }
        self.objects.insert(uid, obj);
    }

    fn remove(&mut self, res: usize, uid: &str) {
        if let Some(s) = self.state.get_mut(res) {
            s.uids.remove(uid);
        }
        if let Some(old) = self.objects.remove(uid)
            && self.initial_sent
        {
            self.out.push(Update::Happened(Happening {
                t: self.t(),
                object: old.obj_ref(),
                verb: "deleted".into(),
                detail: String::new(),
                by: "cluster".into(),
                warning: false,
            }));
            self.out.push(Update::Remove(uid.to_string()));
        }
    }

    fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Listed { res, objects } => {
                let fresh: HashSet<Uid> = objects.iter().map(|o| o.metadata.uid.clone()).collect();
                let gone: Vec<Uid> = self
                    .state
                    .get(res)
                    .map(|s| s.uids.difference(&fresh).cloned().collect())
                    .unwrap_or_default();
                for uid in gone {
                    self.remove(res, &uid);
                }
                for o in objects {
                    self.upsert(res, o);
                }
                if let Some(s) = self.state.get_mut(res) {
                    s.listed = true;
                    s.failure = None;
                }
            }
            Msg::Applied { res, object } => {
                self.upsert(res, object);
                if let Some(s) = self.state.get_mut(res)
                    && s.listed
                {
                    s.failure = None;
                }
            }
            Msg::Deleted { res, object } => self.remove(res, &object.metadata.uid),
            Msg::Failed {
                res,
                message,
                forbidden,
            } => {
                tracing::debug!("watch {res}: {message}");
                if let Some(s) = self.state.get_mut(res) {
                    s.failure = Some((message, forbidden));
                }
            }
            Msg::Event(h) => {
                if self.initial_sent {
                    self.out.push(Update::Happened(h));
                } else {
                    self.pending_events.push(h);
                }
            }
            Msg::EventsFailed { message, forbidden } => {
                self.events_failure = Some((message, forbidden));
            }
            Msg::Health(r) => {
                self.connection = match r {
                    Ok(()) => Connection::Connected,
                    Err(m) => Connection::Lost(m),
                };
            }
            Msg::Replied(r) => self.out.push(Update::Replied(r)),
        }
    }

    fn maybe_send_initial(&mut self) {
        if self.initial_sent || !(self.all_answered() || self.started_at.elapsed() > INITIAL_WAIT) {
            return;
        }
        self.initial_sent = true;
        let mut objects: Vec<Arc<Object>> = self.objects.values().cloned().collect();
        objects.sort_by(|a, b| a.metadata.uid.cmp(&b.metadata.uid));
        // What could not be listed goes with the kinds, so that the model
        // reasons with it (an owner of such a kind is unverified, not gone).
        let mut kinds = self.kinds.clone();
        for (r, s) in self.resources.iter().zip(&self.state) {
            if let Some((msg, forbidden)) = &s.failure
                && (*forbidden || !s.listed)
            {
                kinds.mark_unlisted(crate::model::Unlisted {
                    resource: r.name(),
                    reason: msg.clone(),
                    group: r.ar.group.clone(),
                    kind: r.ar.kind.clone(),
                });
            }
        }
        self.out.push(Update::Reset { objects, kinds });
        for h in std::mem::take(&mut self.pending_events) {
            self.out.push(Update::Happened(h));
        }
    }

    fn target_resource(&self, cmd: &Command) -> Result<kube::core::ApiResource, String> {
        let target = match cmd {
            Command::Delete { target, .. } | Command::RemoveFinalizer { target, .. } => target,
            Command::Sim(_) => return Err("simulator controls do nothing on a live cluster".into()),
        };
        self.kinds
            .get(group_of(&target.api_version), &target.kind)
            .map(actions::api_resource)
            .ok_or_else(|| {
                format!(
                    "the server does not serve {} ({})",
                    target.kind, target.api_version
                )
            })
    }
}

impl Drop for ClusterBackend {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

impl Backend for ClusterBackend {
    fn send(&mut self, cmd: Command) {
        let ar = match self.target_resource(&cmd) {
            Ok(ar) => ar,
            Err(m) => return self.reply_now(cmd, m),
        };
        let Some(rt) = &self.rt else { return };
        let client = self.conn.client.clone();
        let tx = self.tx.clone();
        // Read-only mode is enforced below kube's client: the request is
        // built and refused there, and the refusal comes back as the reply.
        match &cmd {
            Command::Delete { .. } => {
                rt.spawn(async move {
                    let r = actions::delete(&client, &ar, &cmd).await;
                    let _ = tx.send(Msg::Replied(r)).await;
                });
            }
            Command::RemoveFinalizer { target, .. } => {
                let Some(current) = self
                    .objects
                    .get(&target.uid)
                    .map(|o| o.metadata.finalizers.clone())
                else {
                    let m = format!("{target} is not in the tree (uid {})", target.uid);
                    return self.reply_now(cmd, m);
                };
                rt.spawn(async move {
                    let r = actions::remove_finalizer(&client, &ar, &cmd, &current).await;
                    let _ = tx.send(Msg::Replied(r)).await;
                });
            }
            Command::Sim(_) => {}
        }
    }

    fn poll(&mut self, _elapsed: Duration) -> Vec<Update> {
        for _ in 0..DRAIN_MAX {
            match self.rx.try_recv() {
                Ok(m) => self.handle(m),
                Err(_) => break,
            }
        }
        self.maybe_send_initial();
        self.push_status();
        std::mem::take(&mut self.out)
    }

    fn now(&self) -> Timestamp {
        Timestamp::now()
    }

    fn is_simulator(&self) -> bool {
        false
    }

    fn permission(&mut self, cmd: &Command) -> Permission {
        let ar = match self.target_resource(cmd) {
            Ok(ar) => ar,
            Err(m) => return Permission::Unknown(m),
        };
        let Some(attrs) = actions::attributes(&ar, cmd) else {
            return Permission::Allowed;
        };
        let (verb, resource) = actions::describe(&attrs);
        if self.conn.read_only {
            return Permission::Denied {
                verb,
                resource,
                reason: "read-only mode".into(),
            };
        }
        let key = (verb, resource);
        if let Some((at, p)) = self.permissions.get(&key)
            && at.elapsed() < PERMISSION_TTL
        {
            return p.clone();
        }
        let Some(rt) = &self.rt else {
            return Permission::Unknown("the backend is stopped".into());
        };
        let client = self.conn.client.clone();
        let p = run_sync(
            rt,
            async move { actions::access_review(&client, attrs).await },
            REVIEW_TIMEOUT,
        )
        .unwrap_or_else(|| Permission::Unknown("the access review did not answer in time".into()));
        if !matches!(p, Permission::Unknown(_)) {
            self.permissions.insert(key, (Instant::now(), p.clone()));
        }
        p
    }
}
