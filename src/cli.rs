//! Command-line arguments.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// `--version`: the crate's version, the commit it was built from
/// (`build.rs`; `unknown` without git) and the Kubernetes API version of its
/// client (k8s-openapi's feature).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("OWNERSCOPE_COMMIT"),
    ", Kubernetes API ",
    env!("OWNERSCOPE_K8S_API"),
    ")"
);

/// Explore Kubernetes ownership and troubleshoot stuck deletions, on a live
/// cluster or on the bundled garbage-collection simulator.
#[derive(Debug, Parser)]
///
/// Without a command it opens the UI, taking the UI's flags as `ui` does
/// (`ownerscope --live -n shop`, `ownerscope -A --live --read-only`, as
/// `k9s -n shop` works); alone it opens the bundled demo.
#[command(
    name = "ownerscope",
    version = VERSION,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The UI's flags, when no command is given.
    #[command(flatten)]
    pub ui: UiArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the terminal UI on a scenario (the bundled demo by default).
    Ui(UiArgs),
    /// List the bundled scenarios.
    Scenarios(OutputArgs),
    /// Print the ownership forest of a scenario, like `kubectl tree`.
    Tree(TreeArgs),
    /// Run a scenario's steps (and an optional delete) and print the timeline.
    Simulate(SimulateArgs),
    /// Explain why an object is still there, or what will happen to it.
    Why(WhyArgs),
    /// List everything Terminating, grouped by cause, the oldest first, and
    /// what holds others up: the first command to run on an incident.
    Stuck(StuckArgs),
    /// Predict what a delete would do, before it is sent.
    Plan(PlanArgs),
    /// Write the metadata of everything listable on a live cluster as a
    /// scenario (`snapshot --live -A > cluster.json`), for offline rehearsal.
    Snapshot(SnapshotArgs),
    /// Serve a scenario as a Kubernetes API server on loopback (HTTPS, a
    /// token), for kubectl, k9s, kube-rs or `ownerscope ui --live`.
    Serve(ServeArgs),
    /// Print the script that completes ownerscope's commands, flags,
    /// scenarios and objects in a shell (`source <(ownerscope completions
    /// bash)`).
    Completions(CompletionsArgs),
    /// Write the manual page (roff) to stdout, or one page per command
    /// into a directory (`ownerscope man | man -l -`).
    Man(ManArgs),
    /// Write SVG screenshots of the UI (scripted demo) into a directory.
    #[command(hide = true)]
    Screenshots(ScreenshotsArgs),
    /// Measure frame and key-handling times on a generated cluster.
    #[command(hide = true)]
    Bench(BenchArgs),
}

/// Reading a live cluster instead of a scenario, with kubectl's flags.
#[derive(Clone, Debug, Default, Args)]
pub struct LiveArgs {
    /// Read the cluster of the kubeconfig's context instead of a scenario.
    #[arg(long)]
    pub live: bool,
    /// The kubeconfig file (default: $KUBECONFIG, then ~/.kube/config).
    #[arg(long, value_name = "PATH", requires = "live")]
    pub kubeconfig: Option<std::path::PathBuf>,
    /// The kubeconfig context (default: the current context).
    #[arg(long, requires = "live")]
    pub context: Option<String>,
    /// All namespaces (default: the namespace given with -n, else the
    /// context's namespace).
    #[arg(short = 'A', long = "all-namespaces", requires = "live")]
    pub all_namespaces: bool,
    /// How long a headless command waits for the cluster in all (kubectl's
    /// flag: `30s`, `2m`, `0` for no limit). A hanging exec plugin or a
    /// server that accepts connections and never answers ends with an
    /// error instead of hanging.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub request_timeout: std::time::Duration,
    /// The kubeconfig cluster to use (instead of the context's).
    #[arg(long, value_name = "NAME", requires = "live")]
    pub cluster: Option<String>,
    /// The kubeconfig user to use (instead of the context's).
    #[arg(long, value_name = "NAME", requires = "live")]
    pub user: Option<String>,
    /// The address of the API server (instead of the cluster's).
    #[arg(short = 's', long, value_name = "URL", requires = "live")]
    pub server: Option<String>,
    /// A bearer token (instead of the user's credentials).
    #[arg(long, value_name = "TOKEN", requires = "live", hide_env_values = true)]
    pub token: Option<String>,
    /// Act as this user (impersonation, as kubectl's --as).
    #[arg(long = "as", value_name = "USER", requires = "live")]
    pub impersonate: Option<String>,
    /// Act as a member of this group (repeat for several; with --as).
    #[arg(long = "as-group", value_name = "GROUP", requires = "impersonate")]
    pub impersonate_groups: Vec<String>,
    /// A CA certificate file to verify the server with.
    #[arg(long, value_name = "PATH", requires = "live")]
    pub certificate_authority: Option<std::path::PathBuf>,
    /// Do not verify the server's certificate (insecure).
    #[arg(long, requires = "live", conflicts_with = "certificate_authority")]
    pub insecure_skip_tls_verify: bool,
    /// Where discovery is cached, as kubectl caches it (kubectl's flag;
    /// default: $KUBECACHEDIR, else ~/.kube/cache).
    #[arg(long, value_name = "DIR", requires = "live")]
    pub cache_dir: Option<std::path::PathBuf>,
    /// Ask the server for its resource types on this run, ignoring and not
    /// writing the disk cache (env OWNERSCOPE_NO_DISCOVERY_CACHE=1).
    #[arg(long, env = "OWNERSCOPE_NO_DISCOVERY_CACHE", requires = "live")]
    pub no_discovery_cache: bool,
}

/// `30s`, `2m`, `1h`, `500ms` or bare seconds; `0` means no limit.
///
/// # Errors
/// Not such a duration.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let (num, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (30s, 2m, 1h, 0)"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("{s:?}: unit must be ms, s, m or h")),
    };
    if !secs.is_finite() || !(0.0..=86_400.0).contains(&secs) {
        return Err(format!("{s:?}: between 0 and 24h"));
    }
    if secs == 0.0 {
        return Ok(std::time::Duration::MAX);
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

impl LiveArgs {
    /// The connection options, with the namespace given by `-n`.
    #[must_use]
    pub fn options(&self, namespace: Option<&str>, read_only: bool) -> crate::cluster::LiveOptions {
        crate::cluster::LiveOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            namespace: namespace.map(str::to_string),
            all_namespaces: self.all_namespaces,
            read_only,
            overrides: crate::cluster::config::Overrides {
                cluster: self.cluster.clone(),
                user: self.user.clone(),
                server: self.server.clone(),
                token: self.token.clone(),
                impersonate: self.impersonate.clone(),
                impersonate_groups: self.impersonate_groups.clone(),
                certificate_authority: self.certificate_authority.clone(),
                insecure_skip_tls_verify: self.insecure_skip_tls_verify,
            },
            selector: None,
            cache_dir: if self.no_discovery_cache {
                None
            } else {
                self.cache_dir
                    .clone()
                    .or_else(crate::cluster::discovery::cache::default_root)
            },
        }
    }
}

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// Namespace to snapshot (default: the context's namespace).
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    /// Only objects whose labels match (kubectl's syntax: `app=web`,
    /// `tier!=db`, `env in (a,b)`, `!legacy`); the server filters. Owners
    /// outside the selection are not in the snapshot: references to them
    /// are unverified, never gone.
    #[arg(short = 'l', long, value_name = "SELECTOR", value_parser = parse_selector)]
    pub selector: Option<String>,
}

/// `-l/--selector`: kubectl's label selector syntax, checked here so that a
/// typo is an error before anything is read.
///
/// # Errors
/// The requirement that does not parse.
pub fn parse_selector(s: &str) -> Result<String, String> {
    crate::model::selector::Selector::parse(s)?;
    Ok(s.trim().to_string())
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A bundled scenario name or a scenario/manifest/List file.
    pub scenario: String,
    /// Port on 127.0.0.1 (default: any free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Where to write the kubeconfig (default: a private temporary file,
    /// removed on exit).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig_out: Option<std::path::PathBuf>,
    /// Virtual seconds per real second.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Start with the virtual clock stopped (requests still run the API
    /// server's rules at once; the garbage collector and the controllers
    /// wait).
    #[arg(long)]
    pub paused: bool,
    /// A user besides the admin, `NAME[:GROUP,...]` (repeatable): a token
    /// of its own and a context `NAME@ownerscope-sim` in the kubeconfig.
    /// It may do what the RBAC objects in the store grant it (the admin,
    /// in system:masters, anything).
    #[arg(long = "user", value_name = "NAME[:GROUPS]", value_parser = crate::serve::users::parse_user)]
    pub users: Vec<crate::serve::rbac::User>,
    /// Keep the CA, the users' tokens and the store (objects, resource
    /// versions, the clock, the steps run) in DIR (made 0700), and resume
    /// from it when it holds them: a restart keeps what a real API
    /// server keeps, so kubeconfigs written before still work.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<std::path::PathBuf>,
}

/// The shells `completions` writes for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write `ownerscope.1` and a page per command (`ownerscope-tree.1`,
    /// ...) into this directory instead of one page to stdout.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct ScreenshotsArgs {
    /// Where to write them.
    #[arg(default_value = "screenshots")]
    pub dir: String,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Objects in the generated cluster.
    #[arg(long, default_value_t = 100_000)]
    pub objects: usize,
    /// Repetitions of each measurement (the median is reported); `--load`
    /// runs at most 9 of each (the default gives 9).
    #[arg(long, default_value_t = 30)]
    pub runs: usize,
    /// Instead of frames and keys: what each user action costs on clusters
    /// of these sizes (the preview, the diagnosis, a simulated cascade, a UI
    /// tick, a watch event), to show how each grows.
    #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
    pub scale: Option<Vec<usize>>,
    /// Instead: what opening a file of these sizes costs (a `kubectl get -o
    /// json` List and scenario YAML), against a bare parse of the same file
    /// in the same run, time and peak memory.
    #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
    pub load: Option<Vec<usize>>,
    /// Instead: the deletion preview (`plan`) of the root of a chain, a
    /// cycle and a fan-out of this many ConfigMaps (Lists as `plan FILE`
    /// loads them), Foreground and Background, each shape's median against
    /// the fan-out's in the same run.
    #[arg(long, value_name = "N")]
    pub plan_shapes: Option<usize>,
    /// With --plan-shapes: write the Lists into this directory and keep
    /// them (to time `ownerscope plan FILE` itself).
    #[arg(long, value_name = "DIR", requires = "plan_shapes")]
    pub plan_keep: Option<std::path::PathBuf>,
    /// With --load: write the generated files into this directory and keep
    /// them (to profile one load: `bench --load-one ownerscope FILE`).
    #[arg(long, value_name = "DIR", requires = "load")]
    pub load_keep: Option<std::path::PathBuf>,
    /// Instead: every headless command (`tree`, `tree -o json`, `why`,
    /// `plan`, `simulate` of a small delete) on a generated List of each
    /// of these sizes with a large cluster's shapes (Events, ReplicaSet
    /// history, thousands of namespaces, a few very wide owners), against
    /// a bare parse of the same file in the same run: CPU, wall time, peak
    /// memory. At most 15 `--runs`; give e.g. `--runs 3`.
    #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
    pub commands: Option<Vec<usize>>,
    /// With --commands: write the generated Lists into this directory and
    /// keep them.
    #[arg(long, value_name = "DIR", requires = "commands")]
    pub commands_keep: Option<std::path::PathBuf>,
    /// With --commands: every child on one core, the first this process
    /// may run on. Beside a run without it, what the work costs without
    /// a second core, and what spreading it over two costs in CPU.
    #[arg(long, requires = "commands")]
    pub commands_one_core: bool,
    /// One measured command in this process (its arguments, or `bare-json
    /// FILE`, `read-objects FILE` or `read-and-load FILE`): what
    /// `--commands` runs in its children.
    #[arg(long, num_args = 1.., allow_hyphen_values = true, value_name = "ARGS", hide = true)]
    pub command_one: Option<Vec<String>>,
    /// One measured load in this process (`bare-json`, `bare-yaml` or
    /// `ownerscope`, then the file): what `--load` runs in its children.
    #[arg(long, num_args = 2, value_names = ["WAY", "FILE"], hide = true)]
    pub load_one: Option<Vec<String>>,
    /// Instead: `tree --live -A` against the raw metadata-only list of the
    /// same objects (what `curl` fetches), on the kubeconfig's cluster, with
    /// `--objects` ConfigMaps made in namespace `ownerscope-bench` if absent
    /// (`--live-cleanup` deletes it). Each in a fresh process, interleaved.
    #[arg(long)]
    pub live: bool,
    /// `ownerscope serve` against the kubeconfig's cluster, each holding
    /// `--objects` ConfigMaps (in namespace `ownerscope-bench-serve-PID`,
    /// deleted at the end): paged lists, opening watches and writes per
    /// second, with the servers' CPU beside the wall time and their memory.
    #[arg(long, conflicts_with = "live")]
    pub serve: bool,
    /// With --serve: the two serves alone, without the kubeconfig's cluster
    /// (to compare serve's builds with each other).
    #[arg(long, requires = "serve")]
    pub serve_only: bool,
    /// With --live or --serve: the kubeconfig (default: $KUBECONFIG,
    /// ~/.kube/config).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<std::path::PathBuf>,
    /// With --live: delete the benchmark's namespace and exit.
    #[arg(long, requires = "live")]
    pub live_cleanup: bool,
    /// The raw list in this process (what `--live` runs in its children).
    #[arg(long, hide = true)]
    pub live_raw: bool,
    /// With --live: the `--objects` are ConfigMaps, Secrets and Pods with
    /// owner references, in namespaces `ownerscope-bench-sNNN` of 5,000
    /// each (made if absent); the raw list reads all three kinds.
    #[arg(long, requires = "live")]
    pub live_shapes: bool,
    /// With --live: instead of the lists, the UI's live watch (`ui --live
    /// -A` in the real loop, no terminal) on the shaped cluster of
    /// `--objects` while a writer changes a label `--live-rate` times a
    /// second: the delay from each change to its frame.
    #[arg(long, requires = "live")]
    pub live_watch: bool,
    /// With --live-shapes: write the missing objects straight into this
    /// etcd (`http://HOST:PORT`, the API server's `--etcd-servers`, no TLS)
    /// instead of creating them through the API server: tens of thousands
    /// a second rather than hundreds on a small machine. For a test
    /// control plane only.
    #[arg(long, value_name = "URL", requires = "live_shapes")]
    pub live_etcd: Option<String>,
    /// With --live-watch: changes a second.
    #[arg(long, default_value_t = 1_000, requires = "live_watch")]
    pub live_rate: usize,
    /// With --live-watch: seconds of changes.
    #[arg(long, default_value_t = 30, requires = "live_watch")]
    pub live_seconds: u64,
    /// The UI benchmark's parts to run (default: all): `app` (frames and
    /// keys on the App), `watch` (a watch stream), `loop` (keys through the
    /// real loop), `cascade` (the delete dialog and a cascade through the
    /// loop), `widget` (tui-tree-widget for comparison), `arrival` (a
    /// kind's first list arriving after the first tree, through the loop).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "PART,...")]
    pub part: Vec<BenchPart>,
}

/// A part of the UI benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BenchPart {
    App,
    Watch,
    Loop,
    Cascade,
    Widget,
    /// A kind's first list arriving after the first tree (a live
    /// cluster's large kinds).
    Arrival,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Output {
    #[default]
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PolicyArg {
    Background,
    Foreground,
    Orphan,
}

impl From<PolicyArg> for crate::model::Policy {
    fn from(p: PolicyArg) -> Self {
        match p {
            PolicyArg::Background => crate::model::Policy::Background,
            PolicyArg::Foreground => crate::model::Policy::Foreground,
            PolicyArg::Orphan => crate::model::Policy::Orphan,
        }
    }
}

#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    pub output: Output,
}

#[derive(Debug, Default, Args)]
pub struct UiArgs {
    /// A bundled scenario name or a scenario/manifest/List file.
    #[arg(conflicts_with = "live")]
    pub scenario: Option<String>,
    /// Refuse every action that would change something.
    #[arg(long)]
    pub read_only: bool,
    #[command(flatten)]
    pub live: LiveArgs,
    /// Namespace scope with --live (default: the context's namespace).
    #[arg(short = 'n', long = "namespace", requires = "live")]
    pub namespace: Option<String>,
    /// With --live: watch only objects whose labels match (kubectl's
    /// syntax); the server filters. Owners outside the selection show as
    /// unverified, never gone.
    #[arg(short = 'l', long, value_name = "SELECTOR", requires = "live", value_parser = parse_selector)]
    pub selector: Option<String>,
    /// Leave the mouse to the terminal (select and copy text); `m` toggles.
    #[arg(long)]
    pub no_mouse: bool,
    /// Also serve the simulator to kubectl (as `ownerscope serve`): delete
    /// from kubectl, watch it here. The status line shows the
    /// `export KUBECONFIG=...` to use.
    #[arg(long, conflicts_with = "live")]
    pub serve: bool,
    /// With --serve: the port on 127.0.0.1 (default: any free one).
    #[arg(long, requires = "serve", default_value_t = 0)]
    pub port: u16,
    /// With --serve: where to write the kubeconfig (default: a private
    /// temporary file, removed on exit).
    #[arg(long, requires = "serve", value_name = "PATH")]
    pub kubeconfig_out: Option<std::path::PathBuf>,
}

impl UiArgs {
    /// What clap cannot say once a scenario is given: `-n` and `-l` are
    /// for a live cluster.
    ///
    /// # Errors
    /// `-n` or `-l` without `--live`.
    pub fn check(&self) -> Result<(), String> {
        if self.live.live {
            return Ok(());
        }
        if self.selector.is_some() {
            return Err(
                "-l/--selector needs --live (on a scenario: `ownerscope tree SCENARIO -l ...`)"
                    .into(),
            );
        }
        if self.namespace.is_some() {
            return Err("-n/--namespace needs --live".into());
        }
        Ok(())
    }
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// A bundled scenario name or a scenario/manifest/List file (not with
    /// --live).
    #[arg(required_unless_present = "live", value_name = "SCENARIO")]
    pub scenario: Option<String>,
    /// One object's tree (KIND/NAME, or KIND NAME): its dependents down and
    /// its owners up, as `kubectl tree` shows it.
    #[arg(value_name = "KIND/NAME")]
    pub object: Option<String>,
    /// The name, when the kind and the name are given apart.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    #[command(flatten)]
    pub live: LiveArgs,
    /// Namespace scope with --live (default: the context's namespace); the
    /// object's namespace with KIND/NAME.
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    /// Only objects whose labels match (kubectl's syntax: `app=web`,
    /// `tier!=db`, `env in (a,b)`, `!legacy`); with --live the server
    /// filters. An owner outside the selection is not drawn: its
    /// dependents are roots marked `?unverified`, never `owner-gone`.
    #[arg(short = 'l', long, value_name = "SELECTOR", value_parser = parse_selector)]
    pub selector: Option<String>,
    /// Show the state after running the scenario's steps up to this many
    /// seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub at: Option<f64>,
    /// Output format: text, json (scripts), dot (Graphviz) or mermaid (a
    /// picture for a ticket or a wiki).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    pub output: TreeOutput,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// A bundled scenario name or a scenario/manifest/List file.
    pub scenario: String,
    /// Delete this object at t=0 (KIND/NAME, e.g. deployment/web).
    #[arg(long, value_name = "KIND/NAME")]
    pub delete: Option<String>,
    /// Namespace of the object to delete.
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    /// Propagation policy of the delete (default: the kind's default);
    /// `--cascade` as kubectl spells it; any case.
    #[arg(long, value_enum, alias = "cascade", ignore_case = true)]
    pub policy: Option<PolicyArg>,
    #[command(flatten)]
    pub grace: GraceArgs,
    /// Stop at this virtual time even if things still change.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600.0, value_parser = parse_seconds)]
    pub until: f64,
    /// Run exactly this long instead, as a cluster left alone that long:
    /// CronJob schedules that fall due meanwhile start their Jobs (a run
    /// otherwise stops once only the next schedule is left).
    #[arg(long = "for", value_name = "SECONDS", value_parser = parse_seconds, conflicts_with = "until")]
    pub run_for: Option<f64>,
    /// Seed for uids and the garbage collector's worker order.
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Debug, Args)]
pub struct WhyArgs {
    /// A bundled scenario name or a scenario/manifest/List file (not with
    /// --live).
    #[arg(value_name = "SCENARIO")]
    pub scenario: String,
    /// The object (KIND/NAME, or KIND NAME as kubectl takes it); with
    /// --live it is the only argument.
    pub object: Option<String>,
    /// The name, when the kind and the name are given apart (`why demo
    /// deployment web`).
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// The object's namespace (with --live also the scope listed).
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub live: LiveArgs,
    /// Look after running the scenario's steps up to this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub at: Option<f64>,
    /// Output format: text, json (scripts), markdown (a report to paste
    /// into a ticket: the answer, the blocker chain, the fixes in order,
    /// the commands, the evidence) or dot (the blocker chain, for
    /// Graphviz).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    pub output: WhyOutput,
}

/// `tree -o`: a terminal, a script, or a picture of the graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum TreeOutput {
    #[default]
    Text,
    Json,
    /// Graphviz: `tree ... -o dot | dot -Tsvg > tree.svg`.
    Dot,
    /// A Mermaid flowchart, drawn by GitHub, GitLab and most wikis.
    Mermaid,
}

/// `why -o`: a terminal, a script, a ticket, a picture of the chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum WhyOutput {
    #[default]
    Text,
    Json,
    Markdown,
    /// The blocker chain for Graphviz: `why ... -o dot | dot -Tsvg`.
    Dot,
}

/// `stuck -o`: a terminal, a script, a ticket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum StuckOutput {
    #[default]
    Text,
    Json,
    Markdown,
}

/// A pod's grace period, as kubectl's `delete` takes it.
#[derive(Debug, Default, Args)]
pub struct GraceArgs {
    /// Seconds a pod gets to stop (its own terminationGracePeriodSeconds
    /// by default); 0 with --force deletes it at once, without its kubelet.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub grace_period: Option<i64>,
    /// With --grace-period 0 (implied): delete a pod at once, without its
    /// kubelet's confirmation, as `kubectl delete --force` does. If its
    /// node still runs it, a StatefulSet identity can run twice.
    #[arg(long)]
    pub force: bool,
}

impl GraceArgs {
    /// The request's gracePeriodSeconds.
    ///
    /// # Errors
    /// `--grace-period 0` without `--force`, as kubectl refuses it.
    pub fn seconds(&self) -> Result<Option<i64>, String> {
        match (self.grace_period, self.force) {
            (Some(0), false) => Err(
                "--grace-period 0 deletes a pod without its kubelet: add --force to mean it (as kubectl asks)".into(),
            ),
            (None, true) => Ok(Some(0)),
            (g, _) => Ok(g),
        }
    }
}

#[derive(Debug, Args)]
pub struct StuckArgs {
    /// A bundled scenario name, a scenario/manifest/List file, or a
    /// snapshot (not with --live).
    #[arg(required_unless_present = "live", conflicts_with = "live")]
    pub scenario: Option<String>,
    /// The namespace to look in (with --live; everything of a file
    /// otherwise, or of the whole cluster with -A).
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub live: LiveArgs,
    /// Look after running the scenario's steps up to this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub at: Option<f64>,
    /// Output format: text, json (scripts) or markdown (a ticket).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    pub output: StuckOutput,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// A bundled scenario name or a scenario/manifest/List file.
    #[arg(required_unless_present = "live", conflicts_with = "live")]
    pub scenario: Option<String>,
    /// The object to delete (KIND/NAME).
    #[arg(long, value_name = "KIND/NAME")]
    pub delete: String,
    /// The object's namespace (with --live also the scope listed).
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub live: LiveArgs,
    /// Propagation policy (default: the kind's default, as the API server
    /// would apply it to a request without one); `--cascade` as kubectl
    /// spells it; any case.
    #[arg(long, value_enum, alias = "cascade", ignore_case = true)]
    pub policy: Option<PolicyArg>,
    #[command(flatten)]
    pub grace: GraceArgs,
    /// Plan against the state after running the scenario's steps up to this
    /// many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub at: Option<f64>,
    /// Output format: text, json (scripts) or markdown (a change ticket).
    #[arg(short = 'o', long = "output", value_enum, default_value_t)]
    pub output: StuckOutput,
}

/// The longest virtual time `--at` and `--until` reach: 30 days, well past
/// any scenario, and a bound on the work of getting there.
pub const MAX_SECONDS: f64 = 30.0 * 24.0 * 3600.0;

/// `--at` and `--until`: virtual seconds, finite, not negative, at most
/// [`MAX_SECONDS`].
///
/// # Errors
/// Not a number, not finite, negative or too large: said so.
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !v.is_finite() {
        return Err(format!("{s:?} is not a finite number of seconds"));
    }
    if v < 0.0 {
        return Err(format!("{s:?}: seconds cannot be negative"));
    }
    if v > MAX_SECONDS {
        return Err(format!(
            "{s:?}: at most {MAX_SECONDS} seconds (30 days of virtual time)"
        ));
    }
    Ok(v)
}

/// Seconds as typed to virtual milliseconds.
#[must_use]
pub fn seconds_to_ms(s: f64) -> u64 {
    if s.is_finite() && s > 0.0 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let ms = (s * 1000.0).round() as u64;
        ms
    } else {
        0
    }
}

/// The name kubectl finds a plugin by: `kubectl ownerscope ...` runs the
/// first `kubectl-ownerscope` on `PATH` (a link to this binary, or krew's).
pub const PLUGIN_NAME: &str = "kubectl-ownerscope";

/// Whether the program was started as the kubectl plugin: argv[0] is a
/// file named `kubectl-ownerscope` (krew's link, a link on `PATH`, or a
/// copy), with or without an extension (`.exe`).
#[must_use]
pub fn invoked_as_plugin(argv0: Option<&std::ffi::OsStr>) -> bool {
    argv0
        .map(std::path::Path::new)
        .and_then(std::path::Path::file_stem)
        .is_some_and(|s| s == PLUGIN_NAME)
}

/// The commands that read a cluster with `--live`: as a plugin, they do
/// by default (someone who types `kubectl ownerscope` means their cluster).
const LIVE_COMMANDS: &[&str] = &["ui", "tree", "why", "stuck", "plan", "snapshot"];
/// The other commands, which take no `--live`.
const OTHER_COMMANDS: &[&str] = &[
    "scenarios",
    "simulate",
    "serve",
    "completions",
    "man",
    "help",
    "screenshots",
    "bench",
];
/// kubectl's flags (and ours) that take a value as the next argument, so
/// that the value is not taken for the command.
const FLAGS_WITH_VALUE: &[&str] = &[
    "-n",
    "--namespace",
    "--context",
    "--kubeconfig",
    "--cluster",
    "--user",
    "-s",
    "--server",
    "--token",
    "--as",
    "--as-group",
    "--certificate-authority",
    "--request-timeout",
    "--cache-dir",
    "-l",
    "--selector",
    "-o",
    "--output",
];

/// The arguments of `kubectl ownerscope ...` as ownerscope reads them:
/// `--live` added to the commands that read a cluster (unless given, or
/// the UI is asked for a scenario by name), and kubectl's flags given
/// before the command (`kubectl ownerscope -n shop tree`, as kubectl
/// users type them) moved after it. `args[0]` is the program.
#[must_use]
pub fn plugin_args(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut it = args.into_iter();
    let program = it.next().unwrap_or_else(|| PLUGIN_NAME.into());
    let rest: Vec<std::ffi::OsString> = it.collect();
    let text = |a: &std::ffi::OsString| a.to_str().map(str::to_string).unwrap_or_default();
    // The first argument that is neither a flag nor a flag's value.
    let mut i = 0;
    let mut first_positional = None;
    while i < rest.len() {
        let a = text(&rest[i]);
        if a == "--" {
            break;
        }
        if !a.starts_with('-') {
            first_positional = Some(i);
            break;
        }
        i += if FLAGS_WITH_VALUE.contains(&a.as_str()) {
            2
        } else {
            1
        };
    }
    let asks_help_or_version = |xs: &[std::ffi::OsString]| {
        xs.iter()
            .any(|a| matches!(text(a).as_str(), "-h" | "--help" | "-V" | "--version"))
    };
    let has_live = rest.iter().any(|a| text(a) == "--live");
    let mut out = vec![program];
    match first_positional.map(|p| (p, text(&rest[p]))) {
        Some((p, command))
            if LIVE_COMMANDS.contains(&command.as_str())
                || OTHER_COMMANDS.contains(&command.as_str()) =>
        {
            out.push(rest[p].clone());
            if LIVE_COMMANDS.contains(&command.as_str()) && !has_live {
                out.push("--live".into());
            }
            out.extend(rest[..p].iter().cloned());
            out.extend(rest[p + 1..].iter().cloned());
        }
        // The UI: `kubectl ownerscope`, `kubectl ownerscope -n shop`; with
        // a scenario named (`kubectl ownerscope shop-demo`) the simulator.
        Some(_) => out.extend(rest),
        None => {
            if !has_live && !asks_help_or_version(&rest) {
                out.push("--live".into());
            }
            out.extend(rest);
        }
    }
    out
}

/// The command line definition, named as it was invoked: `kubectl
/// ownerscope` in usage and help when run as the kubectl plugin.
#[must_use]
pub fn command(plugin: bool) -> clap::Command {
    use clap::CommandFactory as _;
    let cmd = Cli::command();
    if plugin {
        cmd.bin_name("kubectl ownerscope")
            .display_name("kubectl ownerscope")
    } else {
        cmd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("ownerscope").chain(args.iter().copied()))
    }

    fn plugin(args: &[&str]) -> Vec<String> {
        plugin_args(
            std::iter::once("/home/me/.krew/bin/kubectl-ownerscope")
                .chain(args.iter().copied())
                .map(std::ffi::OsString::from)
                .collect(),
        )
        .into_iter()
        .skip(1)
        .map(|a| a.into_string().expect("utf-8"))
        .collect()
    }

    #[test]
    fn as_a_kubectl_plugin_it_reads_the_cluster_with_kubectls_flags() {
        assert!(invoked_as_plugin(Some("/x/kubectl-ownerscope".as_ref())));
        assert!(invoked_as_plugin(Some("kubectl-ownerscope.exe".as_ref())));
        assert!(!invoked_as_plugin(Some("/usr/bin/ownerscope".as_ref())));
        assert!(!invoked_as_plugin(None));
        // Live by default, for the commands that read a cluster.
        assert_eq!(
            plugin(&["tree", "-n", "shop"]),
            ["tree", "--live", "-n", "shop"]
        );
        assert_eq!(
            plugin(&["why", "deploy/web"]),
            ["why", "--live", "deploy/web"]
        );
        assert_eq!(plugin(&[]), ["--live"]);
        assert_eq!(plugin(&["-n", "shop"]), ["--live", "-n", "shop"]);
        // kubectl's flags before the command move after it.
        assert_eq!(
            plugin(&["-n", "shop", "--context", "prod", "--as=jane", "stuck"]),
            [
                "stuck",
                "--live",
                "-n",
                "shop",
                "--context",
                "prod",
                "--as=jane"
            ]
        );
        // A flag's value is not taken for the command.
        assert_eq!(
            plugin(&["--as", "tree", "tree"]),
            ["tree", "--live", "--as", "tree"]
        );
        // Given, not doubled; offline commands untouched; help and version.
        assert_eq!(
            plugin(&["plan", "--live", "--delete", "cm/x"]),
            ["plan", "--live", "--delete", "cm/x"]
        );
        assert_eq!(
            plugin(&["simulate", "deployment"]),
            ["simulate", "deployment"]
        );
        assert_eq!(plugin(&["--version"]), ["--version"]);
        assert_eq!(plugin(&["shop-demo"]), ["shop-demo"]);
        // What it gives parses, named as kubectl shows it.
        let parsed = |args: &[&str]| {
            let argv: Vec<std::ffi::OsString> = std::iter::once("kubectl-ownerscope")
                .chain(args.iter().copied())
                .map(Into::into)
                .collect();
            command(true).try_get_matches_from(plugin_args(argv))
        };
        let m = parsed(&["-n", "shop", "--as", "jane", "tree", "deploy", "web"]).expect("parses");
        let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&m).expect("cli");
        let Some(Command::Tree(t)) = cli.command else {
            panic!("tree");
        };
        assert!(t.live.live);
        assert_eq!(t.namespace.as_deref(), Some("shop"));
        assert_eq!(t.live.impersonate.as_deref(), Some("jane"));
        let help = command(true).render_usage().to_string();
        assert!(help.contains("kubectl ownerscope"), "{help}");
    }

    #[test]
    fn the_uis_flags_work_without_the_ui_command() {
        let cli = parse(&["--live", "-n", "shop"]).expect("parses");
        assert!(cli.command.is_none());
        assert!(cli.ui.live.live);
        assert_eq!(cli.ui.namespace.as_deref(), Some("shop"));
        let cli = parse(&["-A", "--live", "--read-only"]).expect("parses");
        assert!(cli.ui.live.all_namespaces && cli.ui.read_only);
        // Alone: the demo; a scenario name: that scenario.
        let cli = parse(&[]).expect("parses");
        assert!(cli.command.is_none() && cli.ui.scenario.is_none() && !cli.ui.live.live);
        let cli = parse(&["stuck-owner"]).expect("parses");
        assert_eq!(cli.ui.scenario.as_deref(), Some("stuck-owner"));
        // The subcommands are untouched, and do not mix with the UI's flags.
        assert!(matches!(
            parse(&["tree", "shop-demo"]).expect("parses").command,
            Some(Command::Tree(_))
        ));
        assert!(parse(&["--live", "tree", "shop-demo"]).is_err());
        assert!(parse(&["-n", "shop"]).is_err(), "-n needs --live");
    }

    #[test]
    fn kubectls_connection_flags_parse() {
        let cli = parse(&[
            "tree",
            "--live",
            "--as",
            "jane",
            "--as-group",
            "devs",
            "--as-group",
            "ops",
            "--token",
            "t0k",
            "-s",
            "https://10.0.0.1:6443",
            "--user",
            "u",
            "--cluster",
            "c",
            "--certificate-authority",
            "/ca.crt",
            "-l",
            "app=web,tier!=db",
        ])
        .expect("parses");
        let Some(Command::Tree(t)) = cli.command else {
            panic!("tree");
        };
        let o = t.live.options(None, true).overrides;
        assert_eq!(o.impersonate.as_deref(), Some("jane"));
        assert_eq!(o.impersonate_groups, ["devs", "ops"]);
        assert_eq!(o.token.as_deref(), Some("t0k"));
        assert_eq!(o.server.as_deref(), Some("https://10.0.0.1:6443"));
        assert_eq!(
            (o.user.as_deref(), o.cluster.as_deref()),
            (Some("u"), Some("c"))
        );
        assert_eq!(t.selector.as_deref(), Some("app=web,tier!=db"));
        assert!(
            !format!("{o:?}").contains("t0k"),
            "a token is never printed"
        );
        // kubectl refuses these too.
        assert!(
            parse(&[
                "tree",
                "--live",
                "--insecure-skip-tls-verify",
                "--certificate-authority",
                "x"
            ])
            .is_err()
        );
        assert!(
            parse(&["tree", "--live", "--as-group", "devs"]).is_err(),
            "--as-group needs --as"
        );
        assert!(
            parse(&["tree", "shop-demo", "--token", "t"]).is_err(),
            "needs --live"
        );
        assert!(parse(&["tree", "shop-demo", "-l", "app in (a"]).is_err());
        for args in [
            &["ui", "shop-demo", "-l", "app=web"][..],
            &["ui", "-n", "x"],
            &["-l", "a=b"],
        ] {
            let refused = match parse(args) {
                Err(_) => true,
                Ok(
                    Cli {
                        command: Some(Command::Ui(u)),
                        ..
                    }
                    | Cli { ui: u, .. },
                ) => u.check().is_err(),
            };
            assert!(refused, "{args:?}: -n and -l need --live");
        }
        let cli = parse(&["--live", "-l", "app=web"]).expect("parses");
        assert!(cli.ui.check().is_ok());
    }

    #[test]
    fn tree_takes_an_object_as_kubectl_does() {
        for args in [
            &["tree", "shop-demo", "deploy/web"][..],
            &["tree", "shop-demo", "deploy", "web"],
            &["tree", "--live", "deployment.v1.apps/web"],
            &["tree", "--live", "deploy", "web"],
        ] {
            assert!(parse(args).is_ok(), "{args:?}");
        }
    }
}
