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
    })
    .map_err(CmdError)
}
