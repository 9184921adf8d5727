//! Which cluster, as which user, in which namespace scope: kube's own
//! kubeconfig loading with kubectl's flags.

use std::path::PathBuf;

use kube::config::{
    AuthInfo, Cluster, Config, KubeConfigOptions, Kubeconfig, NamedAuthInfo, NamedCluster,
};
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
    /// kubectl's overrides of the kubeconfig: `--cluster`, `--user`,
    /// `-s/--server`, `--token`, `--as`, `--as-group`,
    /// `--certificate-authority`, `--insecure-skip-tls-verify`.
    pub overrides: Overrides,
    /// `-l/--selector`, as typed (validated by the caller): lists and
    /// watches ask the server for matching objects only.
    pub selector: Option<String>,
    /// Where discovery is cached (kubectl's `--cache-dir`, `~/.kube/cache`
    /// by default on the command line); `None`: asked of the server every
    /// time, nothing written.
    pub cache_dir: Option<PathBuf>,
}

/// What kubectl's connection flags change in the kubeconfig (kubectl's
/// `clientcmd.ConfigOverrides`).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    pub cluster: Option<String>,
    pub user: Option<String>,
    pub server: Option<String>,
    pub token: Option<String>,
    pub impersonate: Option<String>,
    pub impersonate_groups: Vec<String>,
    pub certificate_authority: Option<PathBuf>,
    pub insecure_skip_tls_verify: bool,
}

impl std::fmt::Debug for Overrides {
    // The token is a credential: never in a log or an error.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overrides")
            .field("cluster", &self.cluster)
            .field("user", &self.user)
            .field("server", &self.server)
            .field("token", &self.token.as_ref().map(|_| "<hidden>"))
            .field("impersonate", &self.impersonate)
            .field("impersonate_groups", &self.impersonate_groups)
            .field("certificate_authority", &self.certificate_authority)
            .field("insecure_skip_tls_verify", &self.insecure_skip_tls_verify)
            .finish()
    }
}

impl Overrides {
    /// Applies the overrides to the cluster and user the context names (as
    /// `--cluster`/`--user` pick them), as kubectl's merge does.
    ///
    /// # Errors
    /// `--certificate-authority` with `--insecure-skip-tls-verify` (kubectl
    /// refuses it too); a context, cluster or user that does not exist.
    pub fn apply(&self, kc: &mut Kubeconfig, context: &str) -> Result<(), ClusterError> {
        if self.certificate_authority.is_some() && self.insecure_skip_tls_verify {
            return Err(ClusterError(
                "specifying a root certificates file with the insecure flag is not allowed".into(),
            ));
        }
        let ctx = kc
            .contexts
            .iter()
            .find(|c| c.name == context)
            .and_then(|c| c.context.clone());
        let cluster_name = self
            .cluster
            .clone()
            .or_else(|| ctx.as_ref().map(|c| c.cluster.clone()));
        let user_name = self
            .user
            .clone()
            .or_else(|| ctx.as_ref().and_then(|c| c.user.clone()));
        let touches_cluster = self.server.is_some()
            || self.certificate_authority.is_some()
            || self.insecure_skip_tls_verify;
        if touches_cluster {
            let name = cluster_name.unwrap_or_default();
            if !kc.clusters.iter().any(|c| c.name == name) {
                kc.clusters.push(NamedCluster {
                    name: name.clone(),
                    cluster: Some(Cluster::default()),
                    other: std::collections::BTreeMap::new(),
                });
            }
            for c in kc.clusters.iter_mut().filter(|c| c.name == name) {
                let cluster = c.cluster.get_or_insert_with(Cluster::default);
                if let Some(s) = &self.server {
                    cluster.server = Some(s.clone());
                }
                if let Some(ca) = &self.certificate_authority {
                    cluster.certificate_authority = Some(ca.display().to_string());
                    cluster.certificate_authority_data = None;
                    cluster.insecure_skip_tls_verify = None;
                }
                if self.insecure_skip_tls_verify {
                    cluster.insecure_skip_tls_verify = Some(true);
                    cluster.certificate_authority = None;
                    cluster.certificate_authority_data = None;
                }
            }
        }
        let touches_user = self.token.is_some()
            || self.impersonate.is_some()
            || !self.impersonate_groups.is_empty();
        if touches_user {
            let name = user_name.unwrap_or_default();
            if !kc.auth_infos.iter().any(|u| u.name == name) {
                kc.auth_infos.push(NamedAuthInfo {
                    name: name.clone(),
                    auth_info: Some(AuthInfo::default()),
                    other: std::collections::BTreeMap::new(),
                });
            }
            for u in kc.auth_infos.iter_mut().filter(|u| u.name == name) {
                let auth = u.auth_info.get_or_insert_with(AuthInfo::default);
                if let Some(t) = &self.token {
                    // The token replaces the user's other credentials, as
                    // kubectl's --token does.
                    *auth = AuthInfo {
                        token: Some(t.clone().into()),
                        impersonate: auth.impersonate.clone(),
                        impersonate_groups: auth.impersonate_groups.clone(),
                        ..AuthInfo::default()
                    };
                }
                if let Some(who) = &self.impersonate {
                    auth.impersonate = Some(who.clone());
                }
                if !self.impersonate_groups.is_empty() {
                    auth.impersonate_groups = Some(self.impersonate_groups.clone());
                }
            }
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }
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
    /// `-l/--selector`: lists and watches ask for matching objects only.
    pub selector: Option<String>,
    /// This server's discovery cache on disk, if used.
    pub discovery_cache: Option<super::discovery::cache::Cache>,
    /// Every context of the kubeconfig, in its order (what `:ctx` offers).
    pub contexts: Vec<String>,
}

impl Connected {
    /// The kinds as this connection sees them: with a label selector,
    /// everything outside it is unseen (an owner outside the selection is
    /// unverified, never gone).
    #[must_use]
    pub fn viewed_kinds(&self, mut kinds: crate::model::KindTable) -> crate::model::KindTable {
        if let Some(sel) = &self.selector {
            kinds.mark_selection(sel);
        }
        kinds
    }
}

/// Loads the kubeconfig and builds a client.
///
/// # Errors
/// No or unreadable kubeconfig, unknown context, bad credentials format.
pub async fn connect(opts: &LiveOptions) -> Result<Connected, ClusterError> {
    let kopts = KubeConfigOptions {
        context: opts.context.clone(),
        cluster: opts.overrides.cluster.clone(),
        user: opts.overrides.user.clone(),
    };
    let read = match &opts.kubeconfig {
        Some(path) => Kubeconfig::read_from(path)
            .map_err(|e| ClusterError(format!("kubeconfig {}: {e}", path.display()))),
        None => Kubeconfig::read().map_err(|e| ClusterError(format!("kubeconfig: {e}"))),
    };
    let mut kubeconfig = match read {
        Ok(k) => k,
        // kubectl -s URL --token T works without a kubeconfig.
        Err(_) if opts.kubeconfig.is_none() && opts.overrides.server.is_some() => {
            Kubeconfig::default()
        }
        Err(e) => return Err(e),
    };
    let context = opts
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())
        .unwrap_or_default();
    if !opts.overrides.is_empty() {
        opts.overrides.apply(&mut kubeconfig, &context)?;
        if kubeconfig.contexts.is_empty() {
            // Only flags: a context made of them.
            kubeconfig.contexts.push(kube::config::NamedContext {
                name: context.clone(),
                context: Some(kube::config::Context {
                    cluster: opts.overrides.cluster.clone().unwrap_or_default(),
                    user: Some(opts.overrides.user.clone().unwrap_or_default()),
                    ..kube::config::Context::default()
                }),
                other: std::collections::BTreeMap::new(),
            });
            kubeconfig.current_context = Some(context.clone());
        }
    }
    let contexts = kubeconfig.contexts.iter().map(|c| c.name.clone()).collect();
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
    // Retried only when the server asks (client-go's rule): kube's default
    // retries of every 503 made one unavailable aggregated API hold every
    // command until `--request-timeout` (super::retry).
    let mut config = config;
    config.default_retry = false;
    // kube runs an exec credential plugin here, synchronously: on a
    // blocking thread, so that a plugin that hangs cannot stop the
    // runtime's clock and `--request-timeout` still ends the command.
    let builder = tokio::task::spawn_blocking(move || ClientBuilder::try_from(config))
        .await
        .map_err(|e| ClusterError(format!("client: {e}")))?
        .map_err(|e| ClusterError(format!("client: {}", super::error_message(&e))))?
        .with_layer(&super::retry::RetryAfterLayer);
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
        selector: opts.selector.clone().filter(|s| !s.trim().is_empty()),
        discovery_cache: opts
            .cache_dir
            .as_deref()
            .and_then(|root| super::discovery::cache::Cache::new(root, &server)),
        contexts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubeconfig() -> Kubeconfig {
        Kubeconfig::from_yaml(
            "apiVersion: v1\nkind: Config\nclusters:\n- {name: prod, cluster: {server: 'https://prod:6443', certificate-authority-data: Zm9v}}\n- {name: stage, cluster: {server: 'https://stage:6443'}}\nusers:\n- {name: admin, user: {client-certificate-data: Zm9v, client-key-data: Zm9v}}\n- {name: dev, user: {token: old}}\ncontexts:\n- {name: p, context: {cluster: prod, user: admin}}\ncurrent-context: p\n",
        )
        .expect("kubeconfig")
    }

    fn cluster<'a>(kc: &'a Kubeconfig, name: &str) -> &'a Cluster {
        kc.clusters
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.cluster.as_ref())
            .expect("cluster")
    }

    fn user<'a>(kc: &'a Kubeconfig, name: &str) -> &'a AuthInfo {
        kc.auth_infos
            .iter()
            .find(|u| u.name == name)
            .and_then(|u| u.auth_info.as_ref())
            .expect("user")
    }

    #[test]
    fn overrides_change_the_contexts_cluster_and_user_as_kubectl_does() {
        let mut kc = kubeconfig();
        Overrides {
            server: Some("https://other:6443".into()),
            insecure_skip_tls_verify: true,
            impersonate: Some("jane".into()),
            impersonate_groups: vec!["devs".into()],
            token: Some("t0k".into()),
            ..Overrides::default()
        }
        .apply(&mut kc, "p")
        .expect("applies");
        let c = cluster(&kc, "prod");
        assert_eq!(c.server.as_deref(), Some("https://other:6443"));
        assert_eq!(c.insecure_skip_tls_verify, Some(true));
        assert!(c.certificate_authority_data.is_none());
        let u = user(&kc, "admin");
        assert!(
            u.client_certificate_data.is_none(),
            "the token replaces the certificate"
        );
        assert!(u.token.is_some());
        assert_eq!(u.impersonate.as_deref(), Some("jane"));
        assert_eq!(
            u.impersonate_groups.as_deref(),
            Some(&["devs".to_string()][..])
        );
        // Nothing else changes.
        assert_eq!(
            cluster(&kc, "stage").server.as_deref(),
            Some("https://stage:6443")
        );

        // --cluster and --user pick other entries, and the overrides go there.
        let mut kc = kubeconfig();
        Overrides {
            cluster: Some("stage".into()),
            user: Some("dev".into()),
            certificate_authority: Some("/ca.crt".into()),
            impersonate: Some("bob".into()),
            ..Overrides::default()
        }
        .apply(&mut kc, "p")
        .expect("applies");
        assert_eq!(
            cluster(&kc, "stage").certificate_authority.as_deref(),
            Some("/ca.crt")
        );
        assert!(cluster(&kc, "prod").certificate_authority.is_none());
        assert_eq!(user(&kc, "dev").impersonate.as_deref(), Some("bob"));
        assert!(user(&kc, "admin").impersonate.is_none());

        let both = Overrides {
            certificate_authority: Some("/ca.crt".into()),
            insecure_skip_tls_verify: true,
            ..Overrides::default()
        };
        assert!(both.apply(&mut kubeconfig(), "p").is_err());
    }
}
