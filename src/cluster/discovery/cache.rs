//! Discovery kept on disk as kubectl keeps it, so that a second run asks
//! the server nothing about its types: `~/.kube/cache/discovery/<host_port>/`
//! (`$KUBECACHEDIR` or `--cache-dir` instead of `~/.kube/cache`), holding
//! `servergroups.json` (an `APIGroupList`, the core group first) and
//! `<group>/<version>/serverresources.json` (an `APIResourceList`; `v1/...`
//! for the core group), valid for kubectl's six hours from the file's
//! modification time (client-go's `CachedDiscoveryClient`). kubectl and
//! ownerscope read each other's files.
//!
//! Stricter than kubectl: directories are made 0700 and files 0600 (kubectl:
//! 0750 and 0660), written to a new file then renamed into place, and no
//! symbolic link is followed below the cache directory, reading or writing
//! (a link planted there would redirect the reads or the writes).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::doc::{GroupList, ResourceList};

/// client-go's TTL for kubectl's discovery cache.
pub const TTL: Duration = Duration::from_secs(6 * 60 * 60);

/// `$KUBECACHEDIR`, else `~/.kube/cache` (kubectl's default `--cache-dir`).
#[must_use]
pub fn default_root() -> Option<PathBuf> {
    std::env::var_os("KUBECACHEDIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".kube/cache")))
}

/// kubectl's `computeDiscoverCacheDir`: the server's address without its
/// scheme, every character but letters, digits, `_`, `(`, `)`, `/` and `.`
/// made `_` (`https://127.0.0.1:6443` -> `127.0.0.1_6443`). `None` for an
/// address that would climb out of the directory (`..`).
#[must_use]
pub fn host_dir(server: &str) -> Option<String> {
    let bare = server
        .replacen("https://", "", 1)
        .replacen("http://", "", 1);
    let safe: String = bare
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '(' | ')' | '/' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let parts: Vec<&str> = safe.split('/').filter(|p| !p.is_empty()).collect();
    (!parts.is_empty() && parts.iter().all(|p| *p != "." && *p != "..")).then(|| parts.join("/"))
}

/// One server's discovery cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    /// The directory the links are checked below (`~/.kube/cache`).
    root: PathBuf,
    /// `discovery/<host_port>` under `root`.
    rel: PathBuf,
    ttl: Duration,
}

impl Cache {
    /// The cache of `server` under `root` (kubectl's `--cache-dir`).
    #[must_use]
    pub fn new(root: &Path, server: &str) -> Option<Cache> {
        Some(Cache {
            root: root.to_path_buf(),
            rel: Path::new("discovery").join(host_dir(server)?),
            ttl: TTL,
        })
    }

    /// The server's directory.
    #[must_use]
    pub fn dir(&self) -> PathBuf {
        self.root.join(&self.rel)
    }

    fn groups_rel(&self) -> PathBuf {
        self.rel.join("servergroups.json")
    }

    fn resources_rel(&self, group_version: &str) -> Option<PathBuf> {
        // A group version is `v1` or `group/version`, neither part a way up.
        let ok = group_version
            .split('/')
            .all(|p| !p.is_empty() && p != "." && p != "..")
            && group_version.split('/').count() <= 2;
        ok.then(|| self.rel.join(group_version).join("serverresources.json"))
    }

    /// `servergroups.json`, if there and younger than the TTL.
    #[must_use]
    pub fn groups(&self) -> Option<GroupList> {
        self.read(&self.groups_rel())
    }

    /// `<gv>/serverresources.json`, if there and younger than the TTL.
    #[must_use]
    pub fn resources(&self, group_version: &str) -> Option<ResourceList> {
        self.read(&self.resources_rel(group_version)?)
    }

    /// Writes `servergroups.json`.
    ///
    /// # Errors
    /// The directory or the file cannot be written, or a link is in the way.
    pub fn put_groups(&self, groups: &GroupList) -> io::Result<()> {
        self.write(&self.groups_rel(), groups)
    }

    /// Writes `<gv>/serverresources.json`.
    ///
    /// # Errors
    /// As [`Cache::put_groups`]; a group version that is not one.
    pub fn put_resources(&self, list: &ResourceList) -> io::Result<()> {
        let rel = self.resources_rel(&list.group_version).ok_or_else(|| {
            io::Error::other(format!("bad group version {:?}", list.group_version))
        })?;
        self.write(&rel, list)
    }

    /// No component below the root is a link.
    fn no_links(&self, rel: &Path) -> io::Result<()> {
        let mut p = self.root.clone();
        for c in rel.components() {
            p.push(c);
            match fs::symlink_metadata(&p) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(io::Error::other(format!(
                        "{} is a symbolic link: not followed",
                        p.display()
                    )));
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn read<T: DeserializeOwned>(&self, rel: &Path) -> Option<T> {
        let fresh = || -> io::Result<Option<T>> {
            self.no_links(rel)?;
            let mut f = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW)
                .open(self.root.join(rel))?;
            let age = SystemTime::now()
                .duration_since(f.metadata()?.modified()?)
                .unwrap_or_default();
            if age > self.ttl {
                return Ok(None);
            }
            let mut text = String::new();
            f.read_to_string(&mut text)?;
            Ok(serde_json::from_str(&text).ok())
        };
        match fresh() {
            Ok(v) => v,
            Err(e) => {
                if e.kind() != io::ErrorKind::NotFound {
                    tracing::debug!("discovery cache {}: {e}", rel.display());
                }
                None
            }
        }
    }

    fn write<T: Serialize>(&self, rel: &Path, value: &T) -> io::Result<()> {
        let path = self.root.join(rel);
        let dir = path
            .parent()
            .ok_or_else(|| io::Error::other("no directory"))?;
        let rel_dir = rel.parent().unwrap_or(Path::new(""));
        self.no_links(rel_dir)?;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        // Made meanwhile by someone else as a link: still refused.
        self.no_links(rel_dir)?;
        let text = serde_json::to_vec(value).map_err(io::Error::other)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let mut f: File = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)?;
        let written = f.write_all(&text).and_then(|()| f.sync_all());
        drop(f);
        // rename replaces a link in the file's place, it never writes
        // through it.
        let done = written.and_then(|()| fs::rename(&tmp, &path));
        if done.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::cluster::discovery::doc::{ApiResource, GroupList};

    fn root(tag: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("ownerscope-dcache-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).expect("temp dir");
        d
    }

    fn list() -> ResourceList {
        ResourceList::new(
            "example.com/v1",
            vec![ApiResource {
                name: "databases".into(),
                kind: "Database".into(),
                short_names: vec!["db".into()],
                ..ApiResource::default()
            }],
        )
    }

    #[test]
    fn the_host_directory_is_kubectls() {
        assert_eq!(
            host_dir("https://127.0.0.1:6443").as_deref(),
            Some("127.0.0.1_6443")
        );
        assert_eq!(
            host_dir("https://api.example.com/k8s/clusters/c-1").as_deref(),
            Some("api.example.com/k8s/clusters/c_1")
        );
        assert_eq!(host_dir("https://x/../../etc"), None);
        assert_eq!(host_dir(""), None);
    }

    #[test]
    fn files_are_private_read_back_and_expire() {
        let r = root("rw");
        let c = Cache::new(&r, "https://127.0.0.1:6443").expect("cache");
        assert!(c.resources("example.com/v1").is_none());
        c.put_resources(&list()).expect("written");
        c.put_groups(&GroupList::default()).expect("written");
        assert_eq!(c.resources("example.com/v1"), Some(list()));
        assert!(c.groups().is_some());
        let file = r.join("discovery/127.0.0.1_6443/example.com/v1/serverresources.json");
        let mode = |p: &Path| fs::metadata(p).expect("there").permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(&r.join("discovery/127.0.0.1_6443/example.com")), 0o700);
        // Older than the TTL: not used.
        let old = SystemTime::now() - TTL - Duration::from_secs(60);
        File::options()
            .write(true)
            .open(&file)
            .and_then(|f| f.set_modified(old))
            .expect("mtime");
        assert!(c.resources("example.com/v1").is_none());
        assert!(c.resources("../x").is_none());
        assert!(
            c.put_resources(&ResourceList::new("a/../..", vec![]))
                .is_err()
        );
        let _ = fs::remove_dir_all(&r);
    }

    #[test]
    fn links_are_never_followed() {
        let r = root("links");
        let c = Cache::new(&r, "https://h:1").expect("cache");
        let elsewhere = r.join("elsewhere");
        fs::create_dir_all(elsewhere.join("v1")).expect("dir");
        fs::create_dir_all(r.join("discovery")).expect("dir");
        std::os::unix::fs::symlink(&elsewhere, r.join("discovery/h_1")).expect("link");
        assert!(c.put_resources(&ResourceList::new("v1", vec![])).is_err());
        assert!(!elsewhere.join("v1/serverresources.json").exists());
        // A file planted elsewhere and linked in: not read.
        fs::remove_file(r.join("discovery/h_1")).expect("unlink");
        fs::create_dir_all(r.join("discovery/h_1")).expect("dir");
        fs::write(elsewhere.join("groups.json"), "{\"groups\":[]}").expect("file");
        std::os::unix::fs::symlink(
            elsewhere.join("groups.json"),
            r.join("discovery/h_1/servergroups.json"),
        )
        .expect("link");
        assert!(c.groups().is_none());
        // Writing replaces the link itself, the target is untouched.
        c.put_groups(&GroupList::default()).expect("written");
        assert!(
            !fs::symlink_metadata(r.join("discovery/h_1/servergroups.json"))
                .expect("there")
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            fs::read_to_string(elsewhere.join("groups.json")).expect("kept"),
            "{\"groups\":[]}"
        );
        let _ = fs::remove_dir_all(&r);
    }
}
