//! Which cluster, as which user, in which namespace scope: kube's own
//! kubeconfig loading with kubectl's flags.

use std::path::PathBuf;

use kube::config::{Config, KubeConfigOptions, Kubeconfig};
use kube::{Client, client::ClientBuilder};

use super::ClusterError;
use super::readonly::ReadOnlyLayer;

/// kubectl's connection flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveOptions {
    /// `--kubeconfig` (otherwise `KUBECONFIG`, otherwise `~/.kube/config`).
    pub kubeconfig: Option<PathBuf>,
    /// `--context` (otherwise the current context).
    pub context: Option<String>,
    /// `-n/--namespace` (otherwise the context's namespace).
    pub namespace: Option<String>,
    /// `-A/--all-namespaces`.
    pub all_namespaces: bool,
    /// `--read-only`: every non-GET request is refused before it is sent.
    pub read_only: bool,
}

/// The namespace scope of lists and watches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    All,
    Namespace(String),
}

impl Scope {
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            Scope::All => "all namespaces".into(),
            Scope::Namespace(n) => format!("namespace {n}"),
        }
    }

    #[must_use]
    pub fn namespace(&self) -> Option<&str> {
        match self {
            Scope::All => None,
            Scope::Namespace(n) => Some(n),
        }
    }
}

/// A client and what the status bar says about it.
#[derive(Clone)]
pub struct Connected {
    pub client: Client,
    pub context: String,
    pub server: String,
    pub scope: Scope,
    /// The context's namespace (or `-n`), where an object typed without a
    /// namespace is looked for.
    pub default_namespace: String,
    pub read_only: bool,
    /// The request-level guard, when read-only (its refusal count).
    pub guard: Option<ReadOnlyLayer>,
}

/// Loads the kubeconfig and builds a client.
///
/// # Errors
/// No or unreadable kubeconfig, unknown context, bad credentials format.
pub async fn connect(opts: &LiveOptions) -> Result<Connected, ClusterError> {
    let kopts = KubeConfigOptions {
        context: opts.context.clone(),
        cluster: None,
        user: None,
    };
    let kubeconfig = match &opts.kubeconfig {
        Some(path) => Kubeconfig::read_from(path)
            .map_err(|e| ClusterError(format!("kubeconfig {}: {e}", path.display())))?,
        None => Kubeconfig::read().map_err(|e| ClusterError(format!("kubeconfig: {e}")))?,
    };
    let context = opts
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())
        .unwrap_or_default();
    let config = Config::from_custom_kubeconfig(kubeconfig, &kopts)
        .await
        .map_err(|e| ClusterError(format!("kubeconfig: {e}")))?;
    let server = config.cluster_url.to_string();
    let default_namespace = opts
        .namespace
        .clone()
        .unwrap_or_else(|| config.default_namespace.clone());
    let scope = if opts.all_namespaces {
        Scope::All
    } else {
        Scope::Namespace(default_namespace.clone())
    };
    let builder = ClientBuilder::try_from(config)
        .map_err(|e| ClusterError(format!("client: {}", super::error_message(&e))))?;
    let guard = opts.read_only.then(ReadOnlyLayer::default);
    let client = match &guard {
        Some(layer) => builder.with_layer(layer).build(),
        None => builder.build(),
    };
    Ok(Connected {
        client,
        context,
        server: server.trim_end_matches('/').to_string(),
        scope,
        default_namespace,
        read_only: opts.read_only,
        guard,
    })
}
