//! The certificates made at start (a CA, and a server certificate for
//! 127.0.0.1 and localhost signed by it), bearer tokens, and the
//! kubeconfig that trusts the one and sends the others.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use super::users::{Account, CLUSTER};

/// What a client needs to trust and reach the server.
pub struct Credentials {
    /// The CA certificate, PEM.
    pub ca_pem: String,
    pub tls: Arc<rustls::ServerConfig>,
}

/// A random token from the operating system's generator (through ring).
///
/// # Errors
/// The generator failed.
pub fn token() -> Result<String, String> {
    use ring::rand::SecureRandom as _;
    let mut bytes = [0u8; 24];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| "the system random generator failed".to_string())?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Makes the CA, the server certificate and the TLS configuration.
///
/// # Errors
/// Certificate generation or the TLS configuration failed.
pub fn credentials() -> Result<Credentials, String> {
    let err = |what: &str, e: &dyn std::fmt::Display| format!("{what}: {e}");
    let ca_key = KeyPair::generate().map_err(|e| err("CA key", &e))?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(|e| err("CA", &e))?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "ownerscope serve CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca_params.self_signed(&ca_key).map_err(|e| err("CA", &e))?;
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().map_err(|e| err("server key", &e))?;
    let mut params = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
        .map_err(|e| err("server certificate", &e))?;
    params
        .distinguished_name
        .push(DnType::CommonName, "ownerscope serve");
    let cert = params
        .signed_by(&key, &issuer)
        .map_err(|e| err("server certificate", &e))?;
    let chain = vec![
        CertificateDer::from(cert.der().to_vec()),
        CertificateDer::from(ca_cert.der().to_vec()),
    ];
    let private = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| err("TLS", &e))?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| err("TLS", &e))?;
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Credentials {
        ca_pem: ca_cert.pem(),
        tls: Arc::new(tls),
    })
}

/// The kubeconfig for `https://127.0.0.1:port`: a context per account,
/// the first (the admin's) current.
#[must_use]
pub fn kubeconfig(port: u16, ca_pem: &str, accounts: &[Account], namespace: &str) -> String {
    let ca = STANDARD.encode(ca_pem);
    let mut users = String::new();
    let mut contexts = String::new();
    for (i, a) in accounts.iter().enumerate() {
        // The admin's entry keeps the cluster's name; the others their own.
        let entry = if i == 0 {
            CLUSTER
        } else {
            a.user.name.as_str()
        };
        users.push_str(&format!(
            "- name: {entry}\n  user:\n    token: {}\n",
            a.token
        ));
        contexts.push_str(&format!(
            "- name: {}\n  context:\n    cluster: {CLUSTER}\n    user: {entry}\n    namespace: {namespace}\n",
            a.context
        ));
    }
    let current = accounts.first().map_or(CLUSTER, |a| a.context.as_str());
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: {CLUSTER}
  cluster:
    server: https://127.0.0.1:{port}
    certificate-authority-data: {ca}
users:
{users}contexts:
{contexts}current-context: {current}
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_made_and_tokens_differ() {
        let c = credentials().expect("made");
        assert!(c.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        assert_eq!(token().expect("token").len(), 48);
        assert_ne!(token().expect("token"), token().expect("token"));
        let restricted = super::super::users::parse_user("restricted").expect("user");
        let accounts = super::super::users::accounts(&[restricted]).expect("accounts");
        let k = kubeconfig(6443, &c.ca_pem, &accounts, "shop");
        assert!(k.contains("server: https://127.0.0.1:6443"));
        assert!(k.contains("namespace: shop"));
        assert!(k.contains("current-context: ownerscope-sim\n"), "{k}");
        assert!(k.contains("- name: restricted@ownerscope-sim\n  context:\n    cluster: ownerscope-sim\n    user: restricted\n"), "{k}");
        assert!(
            k.contains(&format!(
                "- name: restricted\n  user:\n    token: {}\n",
                accounts[1].token
            )),
            "{k}"
        );
    }
}
