//! Logs go to a file, never to the terminal the UI owns. Off unless
//! `OWNERSCOPE_LOG` names a level or filter (`debug`, `ownerscope=trace`);
//! the file is `OWNERSCOPE_LOG_FILE`, else `ownerscope.log` in the user's
//! state directory (`$XDG_STATE_HOME/ownerscope`, else
//! `~/.local/state/ownerscope`). Logs can hold object names and server
//! messages: the directory is made private (0700), the file is created
//! private (0600), and a symbolic link in its place is refused rather than
//! followed (a link planted in a shared directory would otherwise redirect
//! the writes).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// Where logs go when `OWNERSCOPE_LOG_FILE` does not say.
#[must_use]
pub fn default_path() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(state.join("ownerscope").join("ownerscope.log"))
}

/// Opens the log file for appending: private, never through a link.
///
/// # Errors
/// The directory or the file cannot be made, or the path is a link.
pub fn open_log(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Starts file logging if asked for; keep the guard until exit so that
/// buffered lines are written.
#[must_use]
pub fn init() -> Option<WorkerGuard> {
    init_with(None)
}

/// As [`init`], logging at `default` when `OWNERSCOPE_LOG` says nothing
/// (`serve` logs its requests unless told otherwise).
#[must_use]
pub fn init_with(default: Option<&str>) -> Option<WorkerGuard> {
    let filter = std::env::var("OWNERSCOPE_LOG")
        .ok()
        .or_else(|| default.map(str::to_string))?;
    let path = std::env::var_os("OWNERSCOPE_LOG_FILE")
        .map(PathBuf::from)
        .or_else(default_path)?;
    let file = match open_log(&path) {
        Ok(f) => f,
        Err(e) => {
            // Before the UI takes the terminal: say why there is no log.
            eprintln!("ownerscope: not logging to {}: {e}", path.display());
            return None;
        }
    };
    let (writer, guard) = tracing_appender::non_blocking(file);
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(EnvFilter::new(filter))
        .try_init()
        .ok()?;
    Some(guard)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ownerscope-log-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn the_log_is_private_in_a_private_directory() {
        let d = dir("private");
        let path = d.join("state/ownerscope.log");
        drop(open_log(&path).expect("opens"));
        let mode = |p: &Path| std::fs::metadata(p).expect("exists").permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&d.join("state")), 0o700);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_link_in_its_place_is_refused() {
        let d = dir("link");
        std::fs::create_dir_all(&d).expect("dir");
        let target = d.join("elsewhere");
        std::fs::write(&target, "untouched").expect("target");
        let path = d.join("ownerscope.log");
        std::os::unix::fs::symlink(&target, &path).expect("link");
        assert!(open_log(&path).is_err(), "a link is not followed");
        assert_eq!(
            std::fs::read_to_string(&target).expect("target"),
            "untouched"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
