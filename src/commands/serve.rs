//! `ownerscope serve`: see [`crate::serve`].

use super::{CmdError, CmdResult};
use crate::cli::ServeArgs;
use crate::serve::run::{ServeOptions, run as serve};

/// Runs the server until interrupted.
///
/// # Errors
/// As [`crate::serve::run::run`].
pub fn run(args: &ServeArgs) -> CmdResult {
    serve(&ServeOptions {
        scenario: args.scenario.clone(),
        port: args.port,
        kubeconfig_out: args.kubeconfig_out.clone(),
        speed: args.speed,
        paused: args.paused,
        users: args.users.clone(),
        state_dir: args.state_dir.clone(),
    })
    .map_err(CmdError)
}

/// The backend of `ui SCENARIO --serve`: the server started, the UI on its
/// simulator.
///
/// # Errors
/// As [`crate::serve::run::start`].
pub fn ui_backend(
    args: &crate::cli::UiArgs,
) -> Result<crate::serve::backend::ServedBackend, CmdError> {
    let started = crate::serve::run::start(&ServeOptions {
        scenario: args
            .scenario
            .clone()
            .unwrap_or_else(|| crate::sim::scenario::DEMO.to_string()),
        port: args.port,
        kubeconfig_out: args.kubeconfig_out.clone(),
        speed: 1.0,
        paused: false,
        users: Vec::new(),
        state_dir: None,
    })
    .map_err(CmdError)?;
    Ok(crate::serve::backend::ServedBackend::new(started))
}
