//! Logs go to a file, never to the terminal the UI owns. Off unless
//! `OWNERSCOPE_LOG` names a level or filter (`debug`, `ownerscope=trace`);
//! the file is `OWNERSCOPE_LOG_FILE`, else `ownerscope.log` in the temp dir.

use std::path::PathBuf;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// Starts file logging if asked for; keep the guard until exit so that
/// buffered lines are written.
#[must_use]
pub fn init() -> Option<WorkerGuard> {
    let filter = std::env::var("OWNERSCOPE_LOG").ok()?;
    let path = std::env::var_os("OWNERSCOPE_LOG_FILE").map_or_else(
        || std::env::temp_dir().join("ownerscope.log"),
        PathBuf::from,
    );
    let dir = path.parent().map(PathBuf::from).unwrap_or_default();
    let file = path.file_name()?.to_os_string();
    let appender = tracing_appender::rolling::never(dir, file);
    let (writer, guard) = tracing_appender::non_blocking(appender);
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(EnvFilter::new(filter))
        .try_init()
        .ok()?;
    Some(guard)
}
