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

mod reconnect;
#[cfg(test)]
mod tests;

use super::actions;
use super::config::{Connected, LiveOptions, connect};
use super::discovery::{Resource, discover};
use super::list::in_scope;
use super::watch::{Msg, probe, watch_events, watch_namespaces, watch_resource};
use super::{ClusterError, convert};
use crate::backend::{
    Backend, Command, Connection, Contexts, Happening, Namespaces, Permission, Reply, SourceStatus,
    Update,
};
use crate::model::{KindTable, Object, Uid, Unlisted, group_of};

const CHANNEL: usize = 1024;
/// The first tree is sent when every resource has answered, or after this.
const INITIAL_WAIT: Duration = Duration::from_secs(20);
const PERMISSION_TTL: Duration = Duration::from_secs(30);
const REVIEW_TIMEOUT: Duration = Duration::from_secs(5);
/// A managedFields entry at most this many seconds from a change (its
/// times are whole seconds, clocks differ a little) names who made it.
const MANAGER_FRESH: f64 = 5.0;
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
    /// A list has completed at least once.
    listed: bool,
    /// A list has completed since the watch last (re)started: what the
    /// tree shows of this kind is current.
    synced: bool,
    uids: HashSet<Uid>,
    /// The last failure, until the next successful list.
    failure: Option<(String, bool)>,
}

impl ResState {
    /// Not seen at all: forbidden, or failing before any list.
    fn missing(&self) -> bool {
        matches!(&self.failure, Some((_, forbidden)) if *forbidden || !self.listed)
    }

    /// Seen once, but its watch has not (re)listed since.
    fn syncing(&self) -> bool {
        !self.synced && !self.missing()
    }
}

/// Why a kind whose watch has not (re)listed cannot be trusted, for the
/// details and dialogs (`unverified (replicasets.apps: ...)`).
fn syncing_reason(failure: Option<&(String, bool)>) -> String {
    match failure {
        Some((m, _)) => format!("not synced: its watch failed and has not listed again ({m})"),
        None => "not synced: its watch has not listed yet".into(),
    }
}

/// The background tasks of one connection, ended on reconnect.
struct Tasks(Vec<tokio::task::JoinHandle<()>>);

impl Drop for Tasks {
    fn drop(&mut self) {
        for t in &self.0 {
            t.abort();
        }
    }
}

/// The live backend.
pub struct ClusterBackend {
    rt: Option<Runtime>,
    opts: LiveOptions,
    timeout: Duration,
    conn: Connected,
    tasks: Tasks,
    /// A reconnect or a context switch is under way.
    reconnecting: bool,
    /// The backend's own channel: answers to commands and reconnects.
    tx: mpsc::Sender<Msg>,
    rx: mpsc::Receiver<Msg>,
    /// The current connection's channel (its watches, Events, probe): a
    /// new one per connection, so that nothing an old connection sent is
    /// read after a reconnect or a switch (another cluster's objects, or
    /// a resource index of another discovery).
    feed: mpsc::Receiver<Msg>,
    resources: Vec<Resource>,
    kinds: KindTable,
    state: Vec<ResState>,
    objects: HashMap<Uid, Arc<Object>>,
    events_failure: Option<(String, bool)>,
    /// Event uid -> resourceVersion already in the timeline.
    events_seen: HashMap<String, String>,
    /// What the UI was last told it cannot see.
    unlisted_sent: Vec<Unlisted>,
    initial_sent: bool,
    pending_events: Vec<Happening>,
    started_at: Instant,
    /// Since when the first tree of this connection's discovery is
    /// awaited (start, or a context switch).
    listing_since: Instant,
    started: Timestamp,
    /// The health probe's last answer.
    health: Result<(), String>,
    last_status: Option<SourceStatus>,
    permissions: HashMap<(String, String), (Instant, Permission)>,
    /// The cluster's namespaces, listed while one namespace is watched
    /// (for `:ns`); empty until listed, or when the user may not.
    namespace_names: Vec<String>,
    out: Vec<Update>,
}

impl ClusterBackend {
    /// Connects, discovers and starts watching; gives up after `timeout`
    /// (kubectl's `--request-timeout`) when the server does not answer.
    ///
    /// # Errors
    /// Kubeconfig problems, or discovery failing (server unreachable).
    pub fn start(opts: &LiveOptions, timeout: Duration) -> Result<Self, ClusterError> {
        Self::start_reporting(opts, timeout, |_, _| {})
    }

    /// As [`ClusterBackend::start`]; `connecting(server, context)` is
    /// called once the kubeconfig is read, before the server is asked
    /// anything (the UI shows it while it waits).
    ///
    /// # Errors
    /// As [`ClusterBackend::start`].
    pub fn start_reporting(
        opts: &LiveOptions,
        timeout: Duration,
        connecting: impl FnOnce(&str, &str) + Send + 'static,
    ) -> Result<Self, ClusterError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ownerscope-cluster")
            .enable_all()
            .build()
            .map_err(|e| ClusterError(format!("starting the runtime: {e}")))?;
        let opts2 = opts.clone();
        let where_to = std::sync::Arc::new(std::sync::Mutex::new(String::from("the cluster")));
        let where_to2 = where_to.clone();
        let answer = run_sync(
            &rt,
            async move {
                let conn = connect(&opts2).await?;
                if let Ok(mut w) = where_to2.lock() {
                    *w = format!("{} ({})", conn.server, conn.context);
                }
                connecting(&conn.server, &conn.context);
                let d = discover(&conn).await?;
                Ok::<_, ClusterError>((conn, d))
            },
            timeout,
        );
        let Some(answer) = answer else {
            rt.shutdown_background();
            return Err(ClusterError(format!(
                "no answer from {} within {} (--request-timeout)",
                where_to.lock().map(|w| w.clone()).unwrap_or_default(),
                super::humanize(timeout)
            )));
        };
        let (conn, discovered) = answer?;
        let scoped = in_scope(&conn, &discovered.resources);
        let resources: Vec<Resource> = scoped.iter().map(|s| s.resource.clone()).collect();
        let kinds = conn.viewed_kinds(discovered.kinds);
        let mut b = Self::idle(rt, opts.clone(), timeout, conn, resources, kinds);
        b.spawn_tasks();
        b.push_contexts();
        b.push_namespaces();
        b.push_status();
        Ok(b)
    }

    /// The backend on `conn`, nothing watched or listed yet.
    fn idle(
        rt: Runtime,
        opts: LiveOptions,
        timeout: Duration,
        conn: Connected,
        resources: Vec<Resource>,
        kinds: KindTable,
    ) -> Self {
        let (tx, rx) = mpsc::channel(CHANNEL);
        ClusterBackend {
            rt: Some(rt),
            opts,
            timeout,
            tasks: Tasks(Vec::new()),
            reconnecting: false,
            state: resources.iter().map(|_| ResState::default()).collect(),
            resources,
            kinds,
            conn,
            tx,
            rx,
            feed: mpsc::channel(1).1,
            objects: HashMap::new(),
            events_failure: None,
            events_seen: HashMap::new(),
            unlisted_sent: Vec::new(),
            initial_sent: false,
            pending_events: Vec::new(),
            started_at: Instant::now(),
            listing_since: Instant::now(),
            started: Timestamp::now(),
            health: Ok(()),
            last_status: None,
            permissions: HashMap::new(),
            namespace_names: Vec::new(),
            out: Vec::new(),
        }
    }

    /// Starts the watches, the Events watch and the health probe on the
    /// current client, on a channel of their own (again after a reconnect
    /// or a switch: the old tasks end, and what they sent is dropped with
    /// their channel).
    fn spawn_tasks(&mut self) {
        let Some(rt) = &self.rt else { return };
        let (tx, feed) = mpsc::channel(CHANNEL);
        let (recovered_tx, recovered) = tokio::sync::watch::channel(0u64);
        let mut tasks = Vec::new();
        let scoped = in_scope(&self.conn, &self.resources);
        for (i, s) in scoped.into_iter().enumerate() {
            tasks.push(rt.spawn(watch_resource(i, s, tx.clone(), recovered.clone())));
        }
        tasks.push(rt.spawn(watch_events(
            self.conn.client.clone(),
            self.conn.scope.clone(),
            self.started,
            tx.clone(),
        )));
        if self.conn.scope != super::Scope::All {
            // What `:ns` offers beyond the one namespace watched.
            tasks.push(rt.spawn(watch_namespaces(
                self.conn.client.clone(),
                tx.clone(),
                recovered.clone(),
            )));
        }
        tasks.push(rt.spawn(probe(self.conn.client.clone(), tx, recovered_tx)));
        // The old tasks are aborted as their handles drop.
        self.tasks = Tasks(tasks);
        self.feed = feed;
    }

    /// Tells the UI the kubeconfig's contexts and the one in use.
    fn push_contexts(&mut self) {
        self.out.push(Update::contexts(Contexts {
            current: self.conn.context.clone(),
            names: self.conn.contexts.clone(),
        }));
    }

    /// Tells the UI the namespace watched and the cluster's namespaces.
    fn push_namespaces(&mut self) {
        self.out.push(Update::namespaces(Namespaces {
            watched: self.conn.scope.namespace().map(str::to_string),
            names: self.namespace_names.clone(),
        }));
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
            .filter(|(_, s)| s.missing())
            .filter_map(|(r, s)| Some((r.name(), s.failure.as_ref()?.0.clone())))
            .collect();
        if let Some((msg, true)) = &self.events_failure {
            out.push(("events".into(), msg.clone()));
        }
        out
    }

    /// Objects held (every kind listed so far).
    #[must_use]
    pub fn object_count(&self) -> usize {
        self.objects.len()
    }

    /// Kinds whose watch has not (re)listed since it started or failed.
    #[must_use]
    pub fn syncing(&self) -> Vec<String> {
        self.resources
            .iter()
            .zip(&self.state)
            .filter(|(_, s)| s.syncing())
            .map(|(r, _)| r.name())
            .collect()
    }

    /// Everything the model must not draw a conclusion from: kinds not
    /// seen at all and kinds not synced, with why.
    fn unlisted(&self) -> Vec<Unlisted> {
        let mut out: Vec<Unlisted> = self
            .resources
            .iter()
            .zip(&self.state)
            .filter_map(|(r, s)| {
                let reason = if s.missing() {
                    s.failure.as_ref()?.0.clone()
                } else if s.syncing() {
                    syncing_reason(s.failure.as_ref())
                } else {
                    return None;
                };
                Some(Unlisted {
                    resource: r.name(),
                    reason,
                    group: r.ar.group.clone(),
                    kind: r.ar.kind.clone(),
                    detail: String::new(),
                })
            })
            .collect();
        out.sort_by(|a, b| a.resource.cmp(&b.resource));
        out
    }

    fn t(&self) -> f64 {
        self.started_at.elapsed().as_secs_f64()
    }

    /// Seconds from the session's start to `at` (negative before it), the
    /// timeline's clock.
    fn t_of(&self, at: Timestamp) -> f64 {
        at.duration_since(self.started).as_secs_f64()
    }

    fn connection(&self) -> Connection {
        match &self.health {
            Err(why) => Connection::Lost(format!(
                "{} (context {}): {why}",
                self.conn.server, self.conn.context
            )),
            Ok(()) if self.reconnecting || self.state.iter().any(ResState::syncing) => {
                Connection::Syncing
            }
            Ok(()) => Connection::Connected,
        }
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
            connection: self.connection(),
            clock: None,
            missing_kinds: self.missing().into_iter().map(|(k, _)| k).collect(),
            syncing: self.syncing(),
            controllers: Vec::new(),
        }
    }

    fn push_status(&mut self) {
        let s = self.status();
        if self.last_status.as_ref() != Some(&s) {
            self.last_status = Some(s.clone());
            self.out.push(Update::status(s));
        }
    }

    fn reply_now(&mut self, command: Command, message: String) {
        self.out.push(Update::replied(Reply {
            command,
            code: 0,
            message,
            warnings: Vec::new(),
        }));
    }

    fn all_answered(&self) -> bool {
        self.state.iter().all(|s| s.listed || s.failure.is_some())
    }

    /// Takes in an object listed or watched. `said`: its change is told in
    /// the timeline (not for a kind's first list: its objects are not new,
    /// only newly seen).
    fn upsert(&mut self, res: usize, obj: Object, change: Option<&convert::Change>, said: bool) {
        let uid = obj.metadata.uid.clone();
        if let Some(s) = self.state.get_mut(res) {
            s.uids.insert(uid.clone());
        }
        let old = self.objects.get(&uid);
        // Unchanged: nothing to tell. Compared whole, not by
        // resourceVersion: a server restarted on other state (a restored
        // etcd, `serve` on another file) can reuse a resourceVersion.
        if old.map(|o| &**o) == Some(&obj) {
            return;
        }
        if self.initial_sent && said {
            // The change's own time and manager where managedFields has
            // them (a finalizer removed by a controller, a label by
            // kubectl), else now and `cluster`.
            // The manager is named when its managedFields entry is as new
            // as the change (an entry seconds old is this change's; an
            // old one is someone else's earlier work).
            let t = self.t();
            let by = change
                .filter(|c| (t - self.t_of(c.at)).abs() <= MANAGER_FRESH)
                .map_or("cluster", |c| c.manager.as_str());
            for h in convert::changes(old.map(|o| &**o), &obj, t, by) {
                self.out.push(Update::happened(h));
            }
        }
        let obj = Arc::new(obj);
        if self.initial_sent {
            let obj = Arc::clone(&obj);
            self.out.push(if said {
                Update::Upsert(obj)
            } else {
                Update::Listed(obj)
            });
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
            self.out.push(Update::happened(Happening {
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
                // A kind listed for the first time after the first tree
                // went out (its list outlasted `INITIAL_WAIT`: at a
                // million objects, minutes) brings objects that were
                // there all along: none is told as created.
                let first = self.state.get(res).is_some_and(|s| !s.listed);
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
                    self.upsert(res, o, None, !first);
                }
                if let Some(s) = self.state.get_mut(res) {
                    s.listed = true;
                    s.synced = true;
                    s.failure = None;
                }
            }
            Msg::Applied {
                res,
                object,
                change,
            } => {
                self.upsert(res, object, change.as_ref(), true);
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
                    // The watch starts over with a list: until it is in,
                    // what is shown of this kind may be out of date.
                    s.synced = false;
                }
            }
            Msg::Event { uid, rv, h } => {
                // A watch that started over lists every Event again.
                if self.events_seen.get(&uid) == Some(&rv) {
                    return;
                }
                self.events_seen.insert(uid, rv);
                if self.initial_sent {
                    self.out.push(Update::happened(h));
                } else {
                    self.pending_events.push(h);
                }
            }
            Msg::EventsFailed { message, forbidden } => {
                self.events_failure = Some((message, forbidden));
            }
            Msg::Health(r) => self.health = r,
            Msg::Namespaces(names) => {
                if names != self.namespace_names {
                    self.namespace_names = names;
                    self.push_namespaces();
                }
            }
            Msg::Replied(r) => self.out.push(Update::replied(r)),
            Msg::Evidence(e) => self.out.push(Update::evidence(e)),
            Msg::Reconnected { command, result } => self.reconnected(command, *result),
        }
    }

    fn maybe_send_initial(&mut self) {
        if self.initial_sent
            || !(self.all_answered() || self.listing_since.elapsed() > INITIAL_WAIT)
        {
            return;
        }
        self.initial_sent = true;
        let mut objects: Vec<Arc<Object>> = self.objects.values().cloned().collect();
        objects.sort_by(|a, b| a.metadata.uid.cmp(&b.metadata.uid));
        // What could not be listed goes with the kinds, so that the model
        // reasons with it (an owner of such a kind is unverified, not gone).
        // Kinds not listed yet (the wait ran out) are not synced: the same.
        let mut kinds = self.kinds.clone();
        self.unlisted_sent = self.unlisted();
        for u in &self.unlisted_sent {
            kinds.mark_unlisted(u.clone());
        }
        self.out.push(Update::reset(objects, kinds));
        let mut events = std::mem::take(&mut self.pending_events);
        events.sort_by(|a, b| a.t.total_cmp(&b.t));
        for h in events {
            self.out.push(Update::happened(h));
        }
    }

    /// Tells the UI when what it cannot see changed (a watch failed, or
    /// listed again).
    fn push_unlisted(&mut self) {
        if !self.initial_sent {
            return;
        }
        let now = self.unlisted();
        if now != self.unlisted_sent {
            self.unlisted_sent = now.clone();
            self.out.push(Update::Unlisted(now));
        }
    }

    fn target_resource(&self, cmd: &Command) -> Result<kube::core::ApiResource, String> {
        let target = match cmd {
            Command::Delete { target, .. }
            | Command::ForceDelete { target }
            | Command::RemoveFinalizer { target, .. }
            | Command::ReadEvidence(target) => target,
            Command::Sim(_) => return Err("simulator controls do nothing on a live cluster".into()),
            Command::Reconnect | Command::SwitchContext(_) | Command::SwitchNamespace(_) => {
                return Err("not a request on an object".into());
            }
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
        if matches!(
            cmd,
            Command::Reconnect | Command::SwitchContext(_) | Command::SwitchNamespace(_)
        ) {
            return self.reconnect(cmd);
        }
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
            Command::Delete { .. } | Command::ForceDelete { .. } => {
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
            Command::ReadEvidence(target) => {
                let target = target.clone();
                let finalizers = self
                    .objects
                    .get(&target.uid)
                    .map(|o| o.metadata.finalizers.clone())
                    .unwrap_or_default();
                rt.spawn(async move {
                    let e = super::evidence::of_object(&client, &ar, &target, &finalizers).await;
                    let _ = tx.send(Msg::Evidence(e)).await;
                });
            }
            Command::Sim(_)
            | Command::Reconnect
            | Command::SwitchContext(_)
            | Command::SwitchNamespace(_) => {}
        }
    }

    fn poll(&mut self, _elapsed: Duration) -> Vec<Update> {
        // Answers first: a switch that landed replaces the feed before
        // it is read.
        while let Ok(m) = self.rx.try_recv() {
            self.handle(m);
        }
        for _ in 0..DRAIN_MAX {
            match self.feed.try_recv() {
                Ok(m) => self.handle(m),
                Err(_) => break,
            }
        }
        self.maybe_send_initial();
        self.push_unlisted();
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
