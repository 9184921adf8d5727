//! The live backend: the only module that talks to a cluster (kube-rs).
//!
//! - [`config`]: kubeconfig, context and namespace scope, as kubectl has them.
//! - [`readonly`]: the request-level guard of `--read-only`.
//! - [`discovery`]: which resource types to list and watch.
//! - [`convert`]: API objects to [`crate::model::Object`].
//! - [`list`]: one metadata-only list of everything (headless commands,
//!   snapshots).
//! - [`actions`]: delete, finalizer removal, access reviews.
//! - [`watch`]: the background tasks of the live backend.
//! - [`backend`]: [`ClusterBackend`], the [`crate::backend::Backend`] on a
//!   cluster.

pub mod actions;
pub mod backend;
pub mod config;
pub mod convert;
pub mod discovery;
pub mod list;
pub mod readonly;
pub mod watch;

pub use backend::ClusterBackend;
pub use config::{Connected, LiveOptions, Scope, connect};
pub use list::{Snapshot, list_once};

use std::fmt;

/// A failure to reach or read the cluster, with the server's or kube's
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterError(pub String);

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClusterError {}

/// The message of a kube error: the server's own for API errors, else the
/// error chain.
#[must_use]
pub fn error_message(e: &kube::Error) -> String {
    match e {
        kube::Error::Api(s) => s.message.clone(),
        other => {
            let mut msg = other.to_string();
            let mut src = std::error::Error::source(other);
            while let Some(s) = src {
                let m = s.to_string();
                if !msg.contains(&m) {
                    msg.push_str(": ");
                    msg.push_str(&m);
                }
                src = s.source();
            }
            msg
        }
    }
}

/// The HTTP status of a kube error; 0 when no answer came (network, refused
/// locally).
#[must_use]
pub fn error_code(e: &kube::Error) -> u16 {
    match e {
        kube::Error::Api(s) => s.code,
        _ => 0,
    }
}
