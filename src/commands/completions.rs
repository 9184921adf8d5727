//! `ownerscope completions SHELL` and `ownerscope man`: generated from the
//! command line's own definition (`cli::command`), so they cannot drift
//! from the flags.
//!
//! Completions are dynamic (clap_complete's `CompleteEnv`): the script
//! `completions` prints asks the binary itself, so it completes commands
//! and flags, the bundled scenarios (and files) where a scenario goes, and
//! the objects of that scenario (`why shop-demo deploy/<TAB>`), or the
//! standard kinds (`deployment/`) where the object's source is a cluster,
//! and once a kind is typed (`deploy/<TAB>`) that kind's names, read from
//! the cluster of the line's `--context`, `--kubeconfig` and `-n` as
//! kubectl completes them, within [`CLUSTER_WAIT`].

use std::ffi::OsStr;
use std::io::Write as _;

use clap_complete::engine::{
    ArgValueCompleter, CompletionCandidate, PathCompleter, ValueCompleter,
};
use clap_complete::env::{Bash, EnvCompleter, Fish, Zsh};

use super::{CmdError, CmdResult};
use crate::cli::{CompletionShell, CompletionsArgs, ManArgs};

/// The variable the registered script sets when it asks the binary.
pub const COMPLETE_VAR: &str = "COMPLETE";

/// How long a completion waits for the cluster: a shell must never hang
/// on a slow or dead server (nothing is offered then).
pub const CLUSTER_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Answers a completion request, if this run is one (`COMPLETE=bash
/// ownerscope -- ...`), and exits; otherwise returns at once. Called
/// before the arguments are parsed.
pub fn answer_if_asked() {
    clap_complete::CompleteEnv::with_factory(|| with_completers(crate::cli::command(false)))
        .var(COMPLETE_VAR)
        .complete();
}

/// Prints the script that registers the completions with a shell.
///
/// # Errors
/// Writing to stdout fails.
pub fn run(args: &CompletionsArgs) -> CmdResult {
    let shell: &dyn EnvCompleter = match args.shell {
        CompletionShell::Bash => &Bash,
        CompletionShell::Zsh => &Zsh,
        CompletionShell::Fish => &Fish,
    };
    let mut buf = Vec::new();
    shell
        .write_registration(
            COMPLETE_VAR,
            "ownerscope",
            "ownerscope",
            "ownerscope",
            &mut buf,
        )
        .map_err(|e| CmdError(format!("completions: {e}")))?;
    write_stdout(&buf)
}

/// Writes the man page: `ownerscope.1` to stdout, or with `--dir` one
/// page per command (`ownerscope.1`, `ownerscope-tree.1`, ...) into DIR.
///
/// # Errors
/// Writing fails.
pub fn man(args: &ManArgs) -> CmdResult {
    let cmd = crate::cli::command(false).disable_help_subcommand(true);
    let Some(dir) = &args.dir else {
        let mut buf = Vec::new();
        page(&cmd, &mut buf)?;
        return write_stdout(&buf);
    };
    std::fs::create_dir_all(dir).map_err(|e| CmdError(format!("{}: {e}", dir.display())))?;
    // clap_mangen names each command's page after its path
    // (`ownerscope-tree.1`); hidden commands get none.
    clap_mangen::generate_to(cmd, dir).map_err(|e| CmdError(format!("{}: {e}", dir.display())))?;
    Ok(())
}

fn page(cmd: &clap::Command, buf: &mut Vec<u8>) -> CmdResult {
    clap_mangen::Man::new(cmd.clone())
        .render(buf)
        .map_err(|e| CmdError(format!("man: {e}")))
}

fn write_stdout(buf: &[u8]) -> CmdResult {
    let mut out = std::io::stdout().lock();
    match out.write_all(buf).and_then(|()| out.flush()) {
        // `| head` is not an error.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CmdError(e.to_string())),
        _ => Ok(()),
    }
}

/// The command line with a completer on each scenario and object argument.
#[must_use]
pub fn with_completers(cmd: clap::Command) -> clap::Command {
    let mut cmd = completing(cmd, "scenario", Kind::Scenario);
    for sub in ["ui", "tree", "simulate", "why", "stuck", "plan", "serve"] {
        cmd = cmd.mut_subcommand(sub, |s| completing(s, "scenario", Kind::Scenario));
    }
    for sub in ["tree", "why"] {
        cmd = cmd.mut_subcommand(sub, |s| completing(s, "object", Kind::Object));
    }
    for sub in ["simulate", "plan"] {
        cmd = cmd.mut_subcommand(sub, |s| completing(s, "delete", Kind::Object));
    }
    cmd
}

#[derive(Clone, Copy)]
enum Kind {
    Scenario,
    Object,
}

/// `id` with a completer. clap's `mut_arg` moves the argument to the end,
/// so every positional is given its place explicitly, in the order the
/// definition has them.
fn completing(mut cmd: clap::Command, id: &str, kind: Kind) -> clap::Command {
    let positionals: Vec<String> = cmd
        .get_positionals()
        .map(|a| a.get_id().to_string())
        .collect();
    cmd = cmd.mut_arg(id, |a| match kind {
        Kind::Scenario => a.add(ArgValueCompleter::new(ScenarioCompleter)),
        Kind::Object => a.add(ArgValueCompleter::new(ObjectCompleter)),
    });
    for (i, p) in positionals.iter().enumerate() {
        cmd = cmd.mut_arg(p, |a| a.index(i + 1));
    }
    cmd
}

/// The bundled scenarios, with their descriptions, then files.
#[derive(Clone, Copy)]
struct ScenarioCompleter;

impl ValueCompleter for ScenarioCompleter {
    fn complete(&self, current: &OsStr) -> Vec<CompletionCandidate> {
        // With --live the first positional of `tree` and `why` is the object.
        if reads_a_cluster(&line_words()) {
            return ObjectCompleter.complete(current);
        }
        let typed = current.to_string_lossy();
        let mut out: Vec<CompletionCandidate> = crate::sim::scenario::BUNDLED
            .iter()
            .filter(|(name, _)| name.starts_with(typed.as_ref()))
            .map(|(name, _)| {
                let about = crate::sim::scenario::bundled(name)
                    .map(|s| s.description)
                    .unwrap_or_default();
                CompletionCandidate::new(*name).help(Some(about.into()))
            })
            .collect();
        out.extend(PathCompleter::file().complete(current));
        out
    }
}

/// `KIND/NAME`: the objects of the scenario given before it on the line,
/// else the standard kinds (`deployment/`).
#[derive(Clone, Copy)]
struct ObjectCompleter;

impl ValueCompleter for ObjectCompleter {
    fn complete(&self, current: &OsStr) -> Vec<CompletionCandidate> {
        let typed = current.to_string_lossy().to_lowercase();
        object_candidates(&line_words(), &typed)
            .into_iter()
            .map(CompletionCandidate::new)
            .collect()
    }
}

/// The command line being completed: what the shell passes after `--`.
fn line_words() -> Vec<String> {
    std::env::args().skip_while(|a| a != "--").skip(1).collect()
}

/// Whether the line reads a cluster: `--live`, or the kubectl plugin.
fn reads_a_cluster(words: &[String]) -> bool {
    words
        .first()
        .is_some_and(|p| crate::cli::invoked_as_plugin(Some(OsStr::new(p))))
        || words.iter().any(|w| w == "--live")
}

/// What completes `typed`, an object, on the command line `words` (the
/// program first, the word being completed last).
#[must_use]
pub fn object_candidates(words: &[String], typed: &str) -> Vec<String> {
    if reads_a_cluster(words)
        && let Some((kind, prefix)) = typed.split_once('/')
    {
        return match cluster_line(words) {
            Some(line) => cluster_names(&line, kind, prefix, CLUSTER_WAIT),
            None => Vec::new(),
        };
    }
    let mut names: Vec<String> = match scenario_on_line(words) {
        Some(scenario) => match super::load_sim(&scenario, None) {
            Ok(sim) => sim
                .objects()
                .map(|o| format!("{}/{}", o.kind.to_lowercase(), o.name()))
                .collect(),
            Err(_) => Vec::new(),
        },
        None => crate::model::KindTable::builtin()
            .iter()
            .map(|k| format!("{}/", k.kind.to_lowercase()))
            .collect(),
    };
    names.sort();
    names.dedup();
    names.retain(|n| n.starts_with(typed));
    names
}

/// What a command line that reads a cluster says of where: kubectl's
/// connection flags and the namespace scope.
#[derive(Debug, PartialEq)]
pub struct ClusterLine {
    pub options: crate::cluster::LiveOptions,
}

/// The cluster a line reads, parsed as the command itself would parse it
/// (as the kubectl plugin too: `kubectl ownerscope why -n shop ...`), the
/// word being completed included; `None` for a line that does not parse
/// or reads no cluster.
#[must_use]
pub fn cluster_line(words: &[String]) -> Option<ClusterLine> {
    use crate::cli::{Cli, Command};
    use clap::Parser as _;
    let args: Vec<std::ffi::OsString> = words.iter().map(Into::into).collect();
    let args = if crate::cli::invoked_as_plugin(args.first().map(std::ffi::OsString::as_os_str)) {
        crate::cli::plugin_args(args)
    } else {
        args
    };
    let cli = Cli::try_parse_from(args).ok()?;
    let (live, namespace) = match cli.command? {
        Command::Tree(a) => (a.live, a.namespace),
        Command::Why(a) => (a.live, a.namespace),
        Command::Plan(a) => (a.live, a.namespace),
        _ => return None,
    };
    live.live.then(|| ClusterLine {
        options: live.options(namespace.as_deref(), true),
    })
}

/// The names of kind `kind` (as typed: `deploy`, `cm`, `databases.example.com`)
/// that start with `prefix`, as `kind/name`, in the line's namespace (every
/// namespace with `-A`; a cluster-scoped kind's whatever `-n` is), read
/// with one metadata list. Nothing when the kind is unknown or anything
/// fails or takes longer than `wait`.
#[must_use]
pub fn cluster_names(
    line: &ClusterLine,
    kind: &str,
    prefix: &str,
    wait: std::time::Duration,
) -> Vec<String> {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    let opts = line.options.clone();
    let kind_word = kind.to_string();
    let found = rt.block_on(async move {
        tokio::time::timeout(wait, async move {
            let conn = crate::cluster::connect(&opts).await.ok()?;
            let d = crate::cluster::discovery::discover(&conn).await.ok()?;
            let info = d.kinds.resolve(&kind_word).first().copied()?.clone();
            let ar = crate::cluster::actions::api_resource(&info);
            let api: kube::Api<kube::core::DynamicObject> = match &conn.scope {
                crate::cluster::Scope::Namespace(ns) if info.namespaced => {
                    kube::Api::namespaced_with(conn.client.clone(), ns, &ar)
                }
                _ => kube::Api::all_with(conn.client.clone(), &ar),
            };
            let list = api
                .list_metadata(&kube::api::ListParams::default().limit(1000))
                .await
                .ok()?;
            Some(
                list.items
                    .into_iter()
                    .filter_map(|o| o.metadata.name)
                    .collect::<Vec<String>>(),
            )
        })
        .await
        .ok()
        .flatten()
    });
    // An exec credential plugin may still run on a blocking thread: the
    // shell is not kept waiting for it.
    rt.shutdown_background();
    let mut out: Vec<String> = found
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .map(|n| format!("{kind}/{n}"))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The scenario a `tree`, `why`, `plan`, `simulate` or `stuck` line names:
/// its first positional after the command, unless `--live` (or as the
/// kubectl plugin).
fn scenario_on_line(words: &[String]) -> Option<String> {
    if reads_a_cluster(words) {
        return None;
    }
    let mut it = words.iter().skip(1).take(words.len().saturating_sub(2));
    let command = it.find(|w| !w.starts_with('-'))?;
    if !["tree", "why", "plan", "simulate", "stuck", "ui"].contains(&command.as_str()) {
        return None;
    }
    let mut skip_value = false;
    for w in it {
        if skip_value {
            skip_value = false;
        } else if w.starts_with('-') {
            // Flags of these commands that take a value as the next word.
            skip_value = !w.contains('=')
                && [
                    "-n",
                    "--namespace",
                    "--delete",
                    "--policy",
                    "--cascade",
                    "--at",
                    "--until",
                    "--seed",
                    "-o",
                    "--output",
                    "-l",
                    "--selector",
                    "--grace-period",
                ]
                .contains(&w.as_str());
        } else {
            return Some(w.clone());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn objects_complete_from_the_scenario_on_the_line_else_kinds() {
        let c = object_candidates(&line("ownerscope why shop-demo deploy"), "deployment/");
        assert_eq!(c, ["deployment/web"]);
        let c = object_candidates(
            &line("ownerscope plan -n shop shop-demo --policy orphan --delete con"),
            "configmap/w",
        );
        assert_eq!(c, ["configmap/web-cache"]);
        // A cluster: the kinds.
        let c = object_candidates(&line("ownerscope why --live dep"), "dep");
        assert_eq!(c, ["deployment/"]);
        let c = object_candidates(&line("kubectl-ownerscope why dep"), "dep");
        assert_eq!(c, ["deployment/"]);
        // Nothing to load: nothing offered, nothing fails.
        assert!(object_candidates(&line("ownerscope why no-such-file.yaml x"), "").is_empty());
    }

    #[test]
    fn a_cluster_line_is_read_as_the_command_reads_it() {
        let l = cluster_line(&line(
            "ownerscope why --live --context prod --kubeconfig /k/config -n shop deploy/we",
        ))
        .expect("a cluster line");
        assert_eq!(l.options.context.as_deref(), Some("prod"));
        assert_eq!(l.options.kubeconfig, Some("/k/config".into()));
        assert_eq!(l.options.namespace.as_deref(), Some("shop"));
        assert!(!l.options.all_namespaces);
        assert!(l.options.read_only, "completion only reads");
        // As the kubectl plugin: live without --live, kubectl's flags.
        let l = cluster_line(&line("kubectl-ownerscope tree -A --as jane cm/x"))
            .expect("the plugin reads its cluster");
        assert!(l.options.all_namespaces);
        assert_eq!(l.options.overrides.impersonate.as_deref(), Some("jane"));
        let l = cluster_line(&line(
            "ownerscope plan --live -n web --policy orphan --delete deployment/w",
        ))
        .expect("plan");
        assert_eq!(l.options.namespace.as_deref(), Some("web"));
        // A scenario's line, another command, or a line that does not parse.
        for no in [
            "ownerscope why shop-demo deploy/x",
            "ownerscope simulate shop-demo --delete deploy/x",
            "ownerscope why --live --no-such-flag deploy/x",
        ] {
            assert!(cluster_line(&line(no)).is_none(), "{no}");
        }
    }

    #[test]
    fn a_server_that_never_answers_completes_nothing_within_the_wait() {
        // It accepts the connection and says nothing.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let held = std::thread::spawn(move || {
            let conn = listener.accept();
            std::thread::sleep(std::time::Duration::from_secs(5));
            drop(conn);
        });
        let words = line(&format!(
            "ownerscope why --live -s https://127.0.0.1:{port} --token t --insecure-skip-tls-verify --no-discovery-cache deploy/w"
        ));
        let t = std::time::Instant::now();
        assert!(object_candidates(&words, "deploy/w").is_empty());
        let took = t.elapsed();
        assert!(
            took >= CLUSTER_WAIT - std::time::Duration::from_millis(100)
                && took < CLUSTER_WAIT + std::time::Duration::from_secs(1),
            "{took:?}"
        );
        // Refused at once: nothing, at once.
        drop(held);
        let t = std::time::Instant::now();
        let words = line(
            "ownerscope why --live -s https://127.0.0.1:1 --token t --no-discovery-cache deploy/w",
        );
        assert!(object_candidates(&words, "deploy/w").is_empty());
        assert!(t.elapsed() < CLUSTER_WAIT, "{:?}", t.elapsed());
    }

    #[test]
    fn every_scenario_and_object_argument_has_a_completer() {
        let mut cmd = with_completers(crate::cli::command(false));
        // clap's own checks of the definition (positional order...).
        cmd.build();
        let has = |a: &clap::Arg| a.get::<ArgValueCompleter>().is_some();
        for sub in ["ui", "tree", "simulate", "why", "stuck", "plan", "serve"] {
            let s = cmd.find_subcommand(sub).expect(sub);
            let a = s
                .get_arguments()
                .find(|a| a.get_id() == "scenario")
                .expect("scenario");
            assert!(has(a), "{sub}");
        }
    }
}
