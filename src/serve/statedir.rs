//! `serve --state-dir DIR`: what a restart keeps, as a real API server
//! keeps its CA, its token file and etcd's data. The directory (made
//! `0700`) holds the CA (`ca.crt`, `ca.key`), the users' tokens
//! (`tokens.csv`, kube-apiserver's `--token-auth-file` format) and the
//! store (`store.json`: the simulator's [`Saved`] state), each written
//! `0600` through a temporary file and a rename, never through a link.
//! Every change of the store goes to the write-ahead journal
//! ([`super::journal`]) before its request is answered; the store is
//! snapshot (and the journal it covers removed) after [`COMPACT_AFTER`]
//! records or [`SNAPSHOT_EVERY`], and when the server stops.

use std::io::{Read as _, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::http::Shared;
use super::journal;
use super::rbac::User;
use super::tls::Ca;
use super::users::{self, Account};
use crate::sim::Saved;

pub const CA_CERT: &str = "ca.crt";
pub const CA_KEY: &str = "ca.key";
pub const TOKENS: &str = "tokens.csv";
pub const STORE: &str = "store.json";

/// How often the snapshot task looks.
pub const SAVE_EVERY: Duration = Duration::from_millis(500);
/// The journal records that make a snapshot due.
pub const COMPACT_AFTER: u64 = 20_000;
/// How long a changed store waits for a snapshot, at most.
pub const SNAPSHOT_EVERY: Duration = Duration::from_secs(30);

/// What `store.json` says it is.
const FORMAT: &str = "ownerscope-serve-store/v1";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    format: String,
    saved: Saved,
    /// The last journal record the snapshot holds.
    #[serde(default)]
    journal_seq: u64,
}

/// An opened state directory.
#[derive(Debug)]
pub struct StateDir {
    path: PathBuf,
    /// Held while the store is written; set once the last save (at stop)
    /// is written, after which a late periodic save writes nothing.
    closed: Mutex<bool>,
}

impl StateDir {
    /// Opens `path`, making it (`0700`) if it is not there.
    ///
    /// # Errors
    /// It is a link or not a directory, others may read it, or it cannot be
    /// made.
    pub fn open(path: &Path) -> Result<StateDir, String> {
        let shown = path.display();
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::DirBuilder::new()
                    .mode(0o700)
                    .create(path)
                    .map_err(|e| format!("--state-dir {shown}: {e}"))?;
            }
            Err(e) => return Err(format!("--state-dir {shown}: {e}")),
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!(
                    "--state-dir {shown}: a symbolic link (give the directory itself)"
                ));
            }
            Ok(m) if !m.is_dir() => {
                return Err(format!("--state-dir {shown}: not a directory"));
            }
            Ok(m) if m.permissions().mode() & 0o077 != 0 => {
                return Err(format!(
                    "--state-dir {shown}: others may read it (it holds the CA key and the tokens: chmod 700 it)"
                ));
            }
            Ok(_) => {}
        }
        Ok(StateDir {
            path: path.to_path_buf(),
            closed: Mutex::new(false),
        })
    }

    /// The directory.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// A file's text, `None` when it is not there.
    fn read(&self, name: &str) -> Result<Option<String>, String> {
        let path = self.file(name);
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path);
        let mut f = match opened {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return Err(format!("{}: a symbolic link, not read", path.display()));
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let mut text = String::new();
        f.read_to_string(&mut text)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Some(text))
    }

    /// Writes a file whole (`0600`): a temporary file beside it, renamed
    /// over it, so that a reader never sees half of it.
    fn write(&self, name: &str, text: &str) -> Result<(), String> {
        let path = self.file(name);
        let tmp = self.file(&format!(".{name}.tmp"));
        let fail = |e: std::io::Error| format!("writing {}: {e}", path.display());
        match std::fs::remove_file(&tmp) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(fail(e)),
            _ => {}
        }
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
            .map_err(fail)?;
        f.write_all(text.as_bytes()).map_err(fail)?;
        f.sync_all().map_err(fail)?;
        std::fs::rename(&tmp, &path).map_err(fail)?;
        journal::sync_dir(&self.path)
    }

    /// The CA saved here, or a new one, saved.
    ///
    /// # Errors
    /// One of its two files without the other; either does not parse or
    /// cannot be written.
    pub fn ca(&self) -> Result<Ca, String> {
        match (self.read(CA_CERT)?, self.read(CA_KEY)?) {
            (Some(cert), Some(key)) => Ca::from_pem(&cert, &key).map_err(|e| {
                format!(
                    "{} and {}: {e}",
                    self.file(CA_CERT).display(),
                    self.file(CA_KEY).display()
                )
            }),
            (None, None) => {
                let ca = Ca::generate()?;
                self.write(CA_KEY, &ca.key_pem())?;
                self.write(CA_CERT, &ca.cert_pem)?;
                Ok(ca)
            }
            (Some(_), None) | (None, Some(_)) => Err(format!(
                "{}: {CA_CERT} and {CA_KEY} go together; one is missing",
                self.path.display()
            )),
        }
    }

    /// The admin and `users`, with the tokens saved here for their names
    /// (new users get new ones); saved.
    ///
    /// # Errors
    /// `tokens.csv` does not parse or cannot be written.
    pub fn accounts(&self, users: &[User]) -> Result<Vec<Account>, String> {
        let kept = match self.read(TOKENS)? {
            Some(text) => users::parse_tokens_csv(&text)
                .map_err(|e| format!("{}: {e}", self.file(TOKENS).display()))?,
            None => Default::default(),
        };
        let accounts = users::accounts(users, &kept)?;
        self.write(TOKENS, &users::tokens_csv(&accounts))?;
        Ok(accounts)
    }

    /// The store saved here, if any, with the journal's records after
    /// the snapshot applied ([`journal::replay`]), and the last record's
    /// number.
    ///
    /// # Errors
    /// It is not a store this program wrote (the field named), or its
    /// journal is not one.
    pub fn saved(&self) -> Result<Option<(Saved, u64)>, String> {
        let Some(text) = self.read(STORE)? else {
            return Ok(None);
        };
        let shown = self.file(STORE).display().to_string();
        let file: StoreFile =
            serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(&text))
                .map_err(|e| format!("{shown}: not a saved store ({e})"))?;
        if file.format != FORMAT {
            return Err(format!(
                "{shown}: format {:?}, this program reads {FORMAT:?}",
                file.format
            ));
        }
        journal::replay(&self.path, file.saved, file.journal_seq).map(Some)
    }

    /// Writes the store, holding the journal up to record `seq`, unless
    /// the last save was written already.
    ///
    /// # Errors
    /// It cannot be written.
    pub fn save(&self, saved: Saved, seq: u64, last: bool) -> Result<(), String> {
        let mut closed = self.closed.lock().unwrap_or_else(PoisonError::into_inner);
        if *closed {
            return Ok(());
        }
        let text = serde_json::to_string(&StoreFile {
            format: FORMAT.to_string(),
            saved,
            journal_seq: seq,
        })
        .map_err(|e| format!("{}: {e}", self.file(STORE).display()))?;
        self.write(STORE, &text)?;
        *closed = last;
        Ok(())
    }

    /// Snapshots the served store now (when the server stops: the last
    /// save): the journal up to the snapshot is written, the snapshot
    /// written, and the journal it covers removed. Returns the last
    /// record it holds.
    ///
    /// # Errors
    /// It cannot be written.
    pub fn save_now(&self, shared: &Shared, last: bool) -> Result<u64, String> {
        let (saved, seq) = {
            let mut served = shared.lock();
            shared.hand_over(&mut served);
            let seq = served.journal_seq();
            if let Some(j) = shared.journal() {
                j.rotate(seq + 1);
            }
            (served.sim.saved(), seq)
        };
        if let Some(j) = shared.journal() {
            j.flush()?;
        }
        self.save(saved, seq, last)?;
        if let Some(j) = shared.journal() {
            j.compacted(seq)?;
        }
        Ok(seq)
    }
}

/// Snapshots the store when [`COMPACT_AFTER`] journal records have come,
/// or [`SNAPSHOT_EVERY`] after a change, until the task is dropped.
pub async fn keep(shared: Arc<Shared>, dir: Arc<StateDir>) {
    let mut every = tokio::time::interval(SAVE_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut written = shared.lock().journal_seq();
    let mut since = std::time::Instant::now();
    loop {
        every.tick().await;
        let seq = shared.lock().journal_seq();
        let due =
            seq >= written + COMPACT_AFTER || (seq > written && since.elapsed() >= SNAPSHOT_EVERY);
        if !due {
            continue;
        }
        let (s, d) = (Arc::clone(&shared), Arc::clone(&dir));
        match tokio::task::spawn_blocking(move || d.save_now(&s, false)).await {
            Ok(Ok(seq)) => {
                written = seq;
                since = std::time::Instant::now();
            }
            Ok(Err(e)) => tracing::warn!("{e}"),
            Err(e) => tracing::warn!("saving the store: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Sim, scenario};

    /// A directory of its own for a test, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let p = std::env::temp_dir()
                .join(format!("ownerscope-statedir-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir(&p).expect("scratch");
            Scratch(p)
        }
        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn private(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .expect("there")
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn what_is_saved_comes_back_and_stays_private() {
        let root = Scratch::new("saved");
        let path = root.path().join("state");
        let dir = StateDir::open(&path).expect("made");
        assert_eq!(private(&path), 0o700);
        let ca = dir.ca().expect("made");
        let user = users::parse_user("restricted").expect("user");
        let accounts = dir.accounts(std::slice::from_ref(&user)).expect("made");
        let sim = Sim::new(&scenario::bundled("deployment").expect("bundled")).expect("sim");
        assert_eq!(dir.saved().expect("none yet"), None);
        dir.save(sim.saved(), 0, false).expect("saved");
        for f in [CA_CERT, CA_KEY, TOKENS, STORE] {
            assert_eq!(private(&path.join(f)), 0o600, "{f}");
        }

        let again = StateDir::open(&path).expect("opened");
        assert_eq!(again.ca().expect("reloaded").cert_pem, ca.cert_pem);
        assert_eq!(again.accounts(&[user]).expect("kept"), accounts);
        assert_eq!(again.saved().expect("read"), Some((sim.saved(), 0)));
        again.save(sim.saved(), 0, true).expect("the last save");
        let mut later = sim.saved();
        later.now_ms += 1;
        again.save(later, 0, false).expect("skipped");
        assert_eq!(
            again.saved().expect("read"),
            Some((sim.saved(), 0)),
            "after the last, nothing"
        );
    }

    #[test]
    fn a_foreign_or_unsafe_state_dir_is_refused_by_name() {
        let root = Scratch::new("refused");
        let path = root.path().join("state");
        let dir = StateDir::open(&path).expect("made");
        std::fs::write(path.join(STORE), "{\"format\": \"x\"}").expect("written");
        let err = dir.saved().expect_err("foreign");
        assert!(
            err.contains("store.json") && err.contains("not a saved store"),
            "{err}"
        );
        std::fs::write(path.join(STORE), "[1, 2]").expect("written");
        assert!(dir.saved().expect_err("foreign").contains("store.json"));

        std::fs::write(path.join(TOKENS), "just-a-token\n").expect("written");
        let err = dir.accounts(&[]).expect_err("bad tokens");
        assert!(err.contains("tokens.csv: line 1"), "{err}");

        std::fs::write(path.join(CA_CERT), "-----BEGIN CERTIFICATE-----\n").expect("written");
        assert!(dir.ca().expect_err("alone").contains("one is missing"));
        std::fs::write(path.join(CA_KEY), "garbage").expect("written");
        assert!(dir.ca().expect_err("garbage").contains("ca.crt and"));

        std::fs::remove_file(path.join(CA_KEY)).expect("removed");
        std::os::unix::fs::symlink(root.path().join("elsewhere"), path.join(CA_KEY)).expect("link");
        assert!(dir.ca().expect_err("link").contains("symbolic link"));

        let link = root.path().join("link");
        std::os::unix::fs::symlink(&path, &link).expect("link");
        assert!(
            StateDir::open(&link)
                .expect_err("link")
                .contains("symbolic link")
        );
        let open = root.path().join("open");
        std::fs::create_dir(&open).expect("made");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert!(
            StateDir::open(&open)
                .expect_err("open")
                .contains("chmod 700")
        );
        let file = root.path().join("file");
        std::fs::write(&file, "").expect("written");
        assert!(
            StateDir::open(&file)
                .expect_err("file")
                .contains("not a directory")
        );
    }
}
