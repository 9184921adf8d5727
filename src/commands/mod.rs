//! The headless commands: what they print on stdout, for people and scripts.

pub mod completions;
pub mod graph;
pub mod live;
pub mod out;
pub mod plan;
pub mod report;
pub mod scenarios;
pub mod serve;
pub mod simulate;
pub mod snapshot;
pub mod stuck;
pub mod tree;
pub mod why;

use std::fmt;

use crate::sim::scenario::{self, Target};
use crate::sim::{LoadError, Sim};

/// A command's failure, printed as `error: ...` with exit code 1.
#[derive(Debug)]
pub struct CmdError(pub String);

impl fmt::Display for CmdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CmdError {}

impl From<LoadError> for CmdError {
    fn from(e: LoadError) -> Self {
        CmdError(e.to_string())
    }
}

pub type CmdResult = Result<(), CmdError>;

/// Ends a headless command's simulator without freeing it object by
/// object: the process exits next and the OS takes the memory back at once
/// (freeing 100k objects one by one was a quarter of a load).
pub fn leave_to_exit(sim: Sim) {
    std::mem::forget(sim);
}

/// Loads a scenario into a fresh simulator.
///
/// # Errors
/// The scenario's load error.
pub fn load_sim(name_or_path: &str, seed: Option<u64>) -> Result<Sim, CmdError> {
    load(name_or_path, seed, false)
}

/// [`load_sim`] for a command that diagnoses (`why`, `stuck`): the index
/// of Events, which a diagnosis quotes, is built with the load's others.
///
/// # Errors
/// As [`load_sim`].
pub fn load_sim_to_diagnose(name_or_path: &str) -> Result<Sim, CmdError> {
    load(name_or_path, None, true)
}

fn load(name_or_path: &str, seed: Option<u64>, to_diagnose: bool) -> Result<Sim, CmdError> {
    let sc = scenario::load(name_or_path)?;
    // Deferred: `tree`, `why` and `plan` read what was loaded; whatever
    // runs the simulator gives its controllers their first look first.
    let seed = seed.unwrap_or(sc.settings.seed);
    let sim = if to_diagnose {
        Sim::load_deferred_to_diagnose(sc, seed)?
    } else {
        Sim::load_deferred(sc, seed)?
    };
    // Headless: nothing outside the simulator reads its changes.
    let sim = sim.unwatched();
    Ok(sim)
}

/// Parses `KIND/NAME` plus an optional namespace.
///
/// # Errors
/// When there is no `/`.
pub fn parse_target(typed: &str, namespace: Option<&str>) -> Result<Target, CmdError> {
    let (kind, name) = typed
        .split_once('/')
        .filter(|(k, n)| !k.is_empty() && !n.is_empty())
        .ok_or_else(|| {
            CmdError(format!(
                "{typed:?}: expected KIND/NAME, e.g. deployment/web"
            ))
        })?;
    Ok(Target {
        kind: kind.to_string(),
        namespace: namespace.map(str::to_string),
        name: name.to_string(),
    })
}

/// The positional arguments of `why` and `tree`: a scenario (not with
/// `--live`), then the object as `KIND/NAME` or `KIND NAME`.
/// Returns the scenario and the object typed as `KIND/NAME`.
///
/// # Errors
/// Too many or misplaced arguments, said with what is expected.
pub fn positionals(
    live: bool,
    args: [Option<&str>; 3],
) -> Result<(Option<String>, Option<String>), CmdError> {
    let object = |a: Option<&str>, b: Option<&str>| match (a, b) {
        (None, None) => Ok(None),
        (Some(o), None) => Ok(Some(o.to_string())),
        // `deployment web`, as kubectl takes it.
        (Some(k), Some(n)) if !k.contains('/') && !n.contains('/') => Ok(Some(format!("{k}/{n}"))),
        _ => Err(()),
    };
    let [first, second, third] = args;
    let answer = if live {
        if third.is_some() {
            Err(())
        } else {
            object(first, second).map(|o| (None, o))
        }
    } else {
        object(second, third).map(|o| (first.map(str::to_string), o))
    };
    answer.map_err(|()| {
        CmdError(if live {
            "with --live, give only the object (KIND/NAME or KIND NAME), no scenario".into()
        } else {
            "expected a scenario and an object (KIND/NAME or KIND NAME), or --live and an object"
                .into()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positionals_read_as_kubectl_takes_them() {
        let ok = |live, a: [Option<&str>; 3]| positionals(live, a).expect("reads");
        let s = |x: &str| Some(x.to_string());
        assert_eq!(ok(false, [Some("demo"), None, None]), (s("demo"), None));
        assert_eq!(
            ok(false, [Some("demo"), Some("deploy/web"), None]),
            (s("demo"), s("deploy/web"))
        );
        assert_eq!(
            ok(false, [Some("demo"), Some("deploy"), Some("web")]),
            (s("demo"), s("deploy/web"))
        );
        assert_eq!(
            ok(true, [Some("deploy"), Some("web"), None]),
            (None, s("deploy/web"))
        );
        assert_eq!(ok(true, [Some("cm/x"), None, None]), (None, s("cm/x")));
        assert_eq!(ok(true, [None, None, None]), (None, None));
        assert!(positionals(true, [Some("demo"), Some("deploy"), Some("web")]).is_err());
        assert!(positionals(true, [Some("demo"), Some("deploy/web"), None]).is_err());
        assert!(positionals(false, [Some("demo"), Some("deploy/web"), Some("x")]).is_err());
    }
}
