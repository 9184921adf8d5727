//! `Ctrl-r` and `:ctx NAME`: a new connection from the kubeconfig, read
//! again. A reconnect keeps the context and the kinds found at start (a new
//! CRD needs a restart); a switch goes to another context, maybe another
//! cluster, so it runs discovery again and replaces the kinds, the watches
//! and the objects, and the UI gets a fresh tree once the new context has
//! listed. Until the new connection is made (and, for a switch, discovered)
//! the old one keeps working; a failure is the command's reply and changes
//! nothing.
//!
//! The namespace scope follows the new context's namespace unless `-n` or
//! `-A` was given: those flags, like kubectl's connection flags, hold for
//! every context.
//!
//! `:ns NAME` out of scope, and `0`, switch the namespace the same way
//! ([`Command::SwitchNamespace`]): the same context, connected anew with
//! that namespace (or every one) as if `-n NAME` (or `-A`) had been given,
//! which then holds for later switches and reconnects as those flags do.
//! A namespace the server says does not exist is the reply, and the old
//! watch goes on.

use std::time::{Duration, Instant};

use super::{ClusterBackend, ResState};
use crate::backend::{Command, Reply, Update};
use crate::cluster::config::connect;
use crate::cluster::discovery::discover;
use crate::cluster::humanize;
use crate::cluster::list::in_scope;
use crate::cluster::watch::{Msg, NewClient};

impl ClusterBackend {
    /// Starts a reconnect ([`Command::Reconnect`]) or a switch
    /// ([`Command::SwitchContext`], [`Command::SwitchNamespace`]) in the
    /// background; its answer comes back as [`Msg::Reconnected`] on the
    /// backend's own channel.
    pub(super) fn reconnect(&mut self, command: Command) {
        let Some(rt) = &self.rt else { return };
        if self.reconnecting {
            return self.reply_now(
                command,
                "a reconnect or a context switch is already under way".into(),
            );
        }
        let mut opts = self.opts.clone();
        let switch = match &command {
            Command::SwitchContext(name) => {
                opts.context = Some(name.clone());
                true
            }
            Command::SwitchNamespace(ns) => {
                opts.context = Some(self.conn.context.clone());
                opts.namespace.clone_from(ns);
                opts.all_namespaces = ns.is_none();
                true
            }
            _ => false,
        };
        let namespace = match &command {
            Command::SwitchNamespace(Some(ns)) => Some(ns.clone()),
            _ => None,
        };
        self.reconnecting = true;
        let tx = self.tx.clone();
        let timeout = self.timeout;
        rt.spawn(async move {
            let work = async move {
                let conn = connect(&opts).await.map_err(|e| e.0)?;
                if let Some(ns) = &namespace {
                    namespace_exists(&conn, ns).await?;
                }
                let discovered = if switch {
                    let d = discover(&conn).await.map_err(|e| {
                        format!("{} (context {}): {}", conn.server, conn.context, e.0)
                    })?;
                    Some(d)
                } else {
                    None
                };
                Ok(NewClient { conn, discovered })
            };
            let result = if timeout == Duration::MAX {
                work.await
            } else {
                tokio::time::timeout(timeout, work)
                    .await
                    .unwrap_or_else(|_| {
                        Err(format!(
                            "no answer within {} (--request-timeout); still on the old connection",
                            humanize(timeout)
                        ))
                    })
            };
            let _ = tx
                .send(Msg::Reconnected {
                    command,
                    result: Box::new(result),
                })
                .await;
        });
    }

    /// The new connection replaces the old one; a failure changes nothing.
    pub(super) fn reconnected(&mut self, command: Command, result: Result<NewClient, String>) {
        self.reconnecting = false;
        let NewClient { conn, discovered } = match result {
            Ok(n) => n,
            Err(m) => return self.reply_now(command, m),
        };
        let message = match discovered {
            None => {
                for s in &mut self.state {
                    s.synced = false;
                }
                format!(
                    "reading the kubeconfig again: {} (context {}); relisting {} kinds",
                    conn.server,
                    conn.context,
                    self.resources.len()
                )
            }
            Some(d) => {
                self.resources = in_scope(&conn, &d.resources)
                    .into_iter()
                    .map(|s| s.resource)
                    .collect();
                self.state = self.resources.iter().map(|_| ResState::default()).collect();
                self.kinds = conn.viewed_kinds(d.kinds);
                self.objects.clear();
                self.events_failure = None;
                self.events_seen.clear();
                self.pending_events.clear();
                self.unlisted_sent.clear();
                // The next tree is a fresh one, sent once these lists are in.
                self.initial_sent = false;
                self.listing_since = Instant::now();
                self.opts.context = Some(conn.context.clone());
                if let Command::SwitchNamespace(ns) = &command {
                    self.opts.namespace.clone_from(ns);
                    self.opts.all_namespaces = ns.is_none();
                    self.namespace_names.clear();
                    // The command names the namespace already.
                    format!("listing {} kinds there", self.resources.len())
                } else {
                    format!(
                        "now on {} · {} · {}; listing {} kinds",
                        conn.context,
                        conn.server,
                        conn.scope.label(),
                        self.resources.len()
                    )
                }
            }
        };
        self.conn = conn;
        self.health = Ok(());
        // Answers of the old connection's user (or cluster) say nothing of
        // the new one's.
        self.permissions.clear();
        self.spawn_tasks();
        self.push_contexts();
        self.push_namespaces();
        self.out.push(Update::replied(Reply {
            command,
            code: 200,
            message,
            warnings: Vec::new(),
        }));
    }
}

/// Whether namespace `ns` exists, as far as the user may tell: a 404 is
/// the answer (`namespaces "x" not found`, kubectl's words); a refused GET
/// says nothing, and the watch goes there (its lists will say what the
/// user may see).
async fn namespace_exists(conn: &crate::cluster::Connected, ns: &str) -> Result<(), String> {
    use k8s_openapi::api::core::v1::Namespace;
    let api: kube::Api<Namespace> = kube::Api::all(conn.client.clone());
    match api.get_metadata_opt(ns).await {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(format!("namespaces \"{ns}\" not found")),
        Err(e) if crate::cluster::error_code(&e) == 403 => Ok(()),
        Err(e) => Err(format!(
            "{} (context {}): {}",
            conn.server,
            conn.context,
            crate::cluster::error_message(&e)
        )),
    }
}
