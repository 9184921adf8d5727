//! The certificates made at start (a CA, and a server certificate for
//! 127.0.0.1 and localhost signed by it), bearer tokens, and the
//! kubeconfig that trusts the one and sends the others.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::pki_types::pem::PemObject as _;
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

fn err(what: &str, e: &dyn std::fmt::Display) -> String {
    format!("{what}: {e}")
}

/// The CA's parameters: the same at every start, so that a CA reloaded
/// from its key and certificate signs as the one that was made.
fn ca_params() -> Result<CertificateParams, String> {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(|e| err("CA", &e))?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "ownerscope serve CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    Ok(ca_params)
}

/// The certificate authority clients trust: made at start, or reloaded
/// (`serve --state-dir`) so that a restarted server is trusted by the
/// kubeconfigs written before.
pub struct Ca {
    /// The certificate, PEM.
    pub cert_pem: String,
    key: KeyPair,
}

/// The key is not shown.
impl std::fmt::Debug for Ca {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ca")
            .field("cert_pem", &self.cert_pem)
            .finish_non_exhaustive()
    }
}

impl Ca {
    /// A new CA.
    ///
    /// # Errors
    /// Key or certificate generation failed.
    pub fn generate() -> Result<Ca, String> {
        let key = KeyPair::generate().map_err(|e| err("CA key", &e))?;
        let cert = ca_params()?.self_signed(&key).map_err(|e| err("CA", &e))?;
        Ok(Ca {
            cert_pem: cert.pem(),
            key,
        })
    }

    /// The CA saved as [`Ca::key_pem`] and [`Ca::cert_pem`].
    ///
    /// # Errors
    /// Either does not parse.
    pub fn from_pem(cert_pem: &str, key_pem: &str) -> Result<Ca, String> {
        let key = KeyPair::from_pem(key_pem).map_err(|e| err("the CA key", &e))?;
        CertificateDer::from_pem_slice(cert_pem.as_bytes())
            .map_err(|e| err("the CA certificate", &e))?;
        Ok(Ca {
            cert_pem: cert_pem.to_string(),
            key,
        })
    }

    /// The private key, PEM (a secret).
    #[must_use]
    pub fn key_pem(&self) -> String {
        self.key.serialize_pem()
    }

    /// A new server certificate for 127.0.0.1 and localhost signed by
    /// this CA, as a chain (the certificate, then the CA's), and its key.
    ///
    /// # Errors
    /// Generation failed.
    fn server_chain(
        &self,
    ) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), String> {
        let ca_der = CertificateDer::from_pem_slice(self.cert_pem.as_bytes())
            .map_err(|e| err("the CA certificate", &e))?;
        let ca_key = KeyPair::from_pem(&self.key_pem()).map_err(|e| err("the CA key", &e))?;
        let issuer = Issuer::new(ca_params()?, ca_key);
        let key = KeyPair::generate().map_err(|e| err("server key", &e))?;
        let mut params =
            CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
                .map_err(|e| err("server certificate", &e))?;
        params
            .distinguished_name
            .push(DnType::CommonName, "ownerscope serve");
        let cert = params
            .signed_by(&key, &issuer)
            .map_err(|e| err("server certificate", &e))?;
        let chain = vec![CertificateDer::from(cert.der().to_vec()), ca_der];
        let private = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        Ok((chain, private))
    }

    /// A new server certificate signed by this CA, and the TLS
    /// configuration that presents it.
    ///
    /// # Errors
    /// Generation or the TLS configuration failed.
    pub fn credentials(&self) -> Result<Credentials, String> {
        let (chain, private) = self.server_chain()?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut tls = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| err("TLS", &e))?
            .with_no_client_auth()
            .with_single_cert(chain, private)
            .map_err(|e| err("TLS", &e))?;
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Credentials {
            ca_pem: self.cert_pem.clone(),
            tls: Arc::new(tls),
        })
    }
}

/// Makes a new CA, the server certificate and the TLS configuration.
///
/// # Errors
/// Certificate generation or the TLS configuration failed.
pub fn credentials() -> Result<Credentials, String> {
    Ca::generate()?.credentials()
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

    /// A server certificate signed by a reloaded CA verifies against the
    /// certificate saved before.
    #[test]
    fn a_reloaded_ca_signs_what_the_saved_certificate_verifies() {
        use rustls::client::danger::ServerCertVerifier as _;
        let ca = Ca::generate().expect("made");
        let again = Ca::from_pem(&ca.cert_pem, &ca.key_pem()).expect("reloaded");
        assert_eq!(again.cert_pem, ca.cert_pem);
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_slice(ca.cert_pem.as_bytes()).expect("pem"))
            .expect("root");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier =
            rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .expect("verifier");
        let name = rustls::pki_types::ServerName::try_from("127.0.0.1").expect("name");
        let verify = |chain: &[CertificateDer<'static>]| {
            verifier.verify_server_cert(
                &chain[0],
                &[],
                &name,
                &[],
                rustls::pki_types::UnixTime::now(),
            )
        };
        let (chain, _) = again.server_chain().expect("signed");
        verify(&chain).expect("the saved CA verifies the new certificate");
        let (foreign, _) = Ca::generate()
            .expect("made")
            .server_chain()
            .expect("signed");
        assert!(verify(&foreign).is_err(), "another CA's is not trusted");
        again.credentials().expect("credentials");
        assert!(Ca::from_pem("not a certificate", &ca.key_pem()).is_err());
        assert!(Ca::from_pem(&ca.cert_pem, "not a key").is_err());
    }

    #[test]
    fn credentials_are_made_and_tokens_differ() {
        let c = credentials().expect("made");
        assert!(c.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        assert_eq!(token().expect("token").len(), 48);
        assert_ne!(token().expect("token"), token().expect("token"));
        let restricted = super::super::users::parse_user("restricted").expect("user");
        let accounts =
            super::super::users::accounts(&[restricted], &Default::default()).expect("accounts");
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
