//! The live backend: the only module that talks to a cluster (kube-rs).
//!
//! - [`config`]: kubeconfig, context and namespace scope, as kubectl has them.
//! - [`readonly`]: the request-level guard of `--read-only`.
//! - [`discovery`]: which resource types to list and watch.
//! - [`convert`]: API objects to [`crate::model::Object`].
//! - [`list`]: one metadata-only list of everything (headless commands,
//!   snapshots).
//! - [`settle`]: what a read's lists missed while objects were being made
//!   (an owner, a Node), looked up by name.
//! - [`actions`]: delete, finalizer removal, access reviews.
//! - [`watch`]: the background tasks of the live backend.
//! - [`backend`]: [`ClusterBackend`], the [`crate::backend::Backend`] on a
//!   cluster.

pub mod actions;
pub mod backend;
pub mod config;
pub mod convert;
pub mod discovery;
pub mod evidence;
pub mod list;
pub mod readonly;
pub mod retry;
pub mod settle;
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
    if let Some(safe) = exec_plugin_failure(e) {
        return safe;
    }
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

/// `30s`, `2m`: a `--request-timeout` as typed.
#[must_use]
pub fn humanize(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 && s % 60.0 == 0.0 {
        format!("{}m", s / 60.0)
    } else {
        format!("{s}s")
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

/// A kubeconfig exec credential plugin that failed, said without what kube
/// puts in the error: the plugin's environment and arguments, where tokens
/// live (`API_TOKEN="..." "/usr/bin/plugin" "--token=..."`). Only the
/// program's name, its exit status and the first line of what it printed
/// on stderr are kept.
#[must_use]
pub fn exec_plugin_failure(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(auth) = err.downcast_ref::<kube::client::AuthError>() {
            return Some(match auth {
                kube::client::AuthError::AuthExecRun { cmd, out } => {
                    let stderr = String::from_utf8_lossy(&out.stderr);
                    let first = stderr.lines().next().unwrap_or_default().trim();
                    let said = if first.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", first.chars().take(200).collect::<String>())
                    };
                    format!(
                        "the kubeconfig's exec credential plugin {} failed ({}){said}",
                        exec_program(cmd).unwrap_or_else(|| "(unnamed)".into()),
                        out.status
                    )
                }
                kube::client::AuthError::AuthExecStart(io) => {
                    format!("the kubeconfig's exec credential plugin could not be started: {io}")
                }
                other => format!("authentication: {other}"),
            });
        }
        if let Some(k) = err.downcast_ref::<kube::Error>()
            && let kube::Error::Auth(auth) = k
        {
            cur = Some(auth);
            continue;
        }
        cur = err.source();
    }
    None
}

/// The program in kube's rendering of an exec command, `NAME="value" ...
/// "/path/program" "arg" ...`: its file name only.
fn exec_program(cmd: &str) -> Option<String> {
    let mut rest = cmd.trim_start();
    loop {
        // NAME="...": an environment entry, skipped whole (values may hold
        // spaces and escaped quotes).
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let is_env = name_len > 0 && rest[name_len..].starts_with("=\"");
        let start = if is_env { name_len + 1 } else { 0 };
        let quoted = rest[start..].strip_prefix('"')?;
        let mut end = None;
        let mut escaped = false;
        for (i, c) in quoted.char_indices() {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let end = end?;
        if !is_env {
            let program = &quoted[..end];
            return Some(
                std::path::Path::new(program)
                    .file_name()
                    .map_or_else(|| program.to_string(), |n| n.to_string_lossy().to_string()),
            );
        }
        rest = quoted[end + 1..].trim_start();
    }
}

#[cfg(test)]
mod secret_tests {
    use super::exec_program;

    #[test]
    fn the_program_is_found_past_environment_values() {
        let cmd = r#"API_TOKEN="SUPERSECRET ENV \"x\"" KUBERNETES_EXEC_INFO="{\"kind\":\"ExecCredential\"}" "/usr/local/bin/get-token" "--token=SUPERSECRET-ARG""#;
        assert_eq!(exec_program(cmd).as_deref(), Some("get-token"));
        assert_eq!(exec_program(r#""/bin/false""#).as_deref(), Some("false"));
        assert_eq!(exec_program("garbage"), None);
    }
}
