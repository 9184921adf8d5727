//! Seeded random graphs, rehearsed like the hand-written ones, then
//! rehearsed again once their finalizers are released.
//!
//! A seed gives 3-9 objects (ConfigMaps, Secrets, now and then a
//! cluster-scoped ClusterRole, which only ever owns), each with 0-3 owner
//! references: to other objects of the graph (shared owners, cycles), to
//! the uid of an object deleted before the graph is built, or to a uid that
//! never existed (under a made-up name, or under the name of an object of
//! the graph: an owner re-created, S7). References carry `blockOwnerDeletion`
//! and `controller` at random (one controller at most, R3); some objects
//! carry the finalizer `example.com/hold`. One object is then deleted with a
//! random policy.
//!
//! The graph is built in two applies (the objects, then their references,
//! which need the objects' uids), and the cluster left quiet before the
//! snapshot: dangling references are the garbage collector's at once.
//!
//! Phase 1 compares `plan` and `simulate` with the cluster, as the
//! hand-written graphs do. Phase 2 then removes `example.com/hold` from
//! every object carrying it, for real (a JSON patch with a `test` op), and
//! in the simulation with a `removeFinalizer` step per object at 600 s
//! (the snapshot, a scenario, with `steps` added), and compares the
//! simulation's final state with the cluster's.
//!
//! A failing seed is printed with a script that builds its graph and
//! sends its DELETE (the YAML in it is what `kubectl apply` takes), so it
//! can be replayed by hand on any cluster.

use std::fmt::Write as _;

use super::*;

/// The finalizer the graphs hold objects with.
const HOLD: &str = "example.com/hold";

/// A small deterministic generator (splitmix64): the same seed, the same
/// graph, on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// In `0..n`.
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("small")
    }

    /// True `pct` percent of the time.
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    ConfigMap,
    Secret,
    ClusterRole,
}

impl Kind {
    fn api_version(self) -> &'static str {
        match self {
            Kind::ConfigMap | Kind::Secret => "v1",
            Kind::ClusterRole => "rbac.authorization.k8s.io/v1",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::ConfigMap => "ConfigMap",
            Kind::Secret => "Secret",
            Kind::ClusterRole => "ClusterRole",
        }
    }

    /// As kubectl names the resource.
    fn resource(self) -> &'static str {
        match self {
            Kind::ConfigMap => "configmap",
            Kind::Secret => "secret",
            Kind::ClusterRole => "clusterrole",
        }
    }
}

/// Where an owner reference points.
#[derive(Clone, Debug)]
enum To {
    /// An object of the graph, by index.
    Member(usize),
    /// An object created, then deleted before the references are set.
    Ghost(usize),
    /// A uid that never existed, under this kind and name.
    Never {
        kind: Kind,
        name: String,
        uid: String,
    },
}

#[derive(Clone, Debug)]
struct Ref {
    to: To,
    block: Option<bool>,
    controller: Option<bool>,
}

#[derive(Clone, Debug)]
struct Member {
    kind: Kind,
    /// `o3` (a ClusterRole: `{ns}-o3`).
    name: String,
    hold: bool,
    refs: Vec<Ref>,
}

/// One seed's graph and its DELETE.
#[derive(Clone, Debug)]
pub(crate) struct RandomGraph {
    pub(crate) seed: u64,
    members: Vec<Member>,
    ghosts: Vec<(Kind, String)>,
    /// The member deleted (or the next one still there at the snapshot).
    delete: usize,
    policy: &'static str,
}

impl RandomGraph {
    pub(crate) fn new(seed: u64) -> RandomGraph {
        let mut rng = Rng(seed ^ 0x6F77_6E65_7273_636F);
        let n = 3 + rng.below(7);
        let mut members: Vec<Member> = (0..n)
            .map(|i| {
                let roll = rng.below(100);
                let kind = if roll < 45 {
                    Kind::ConfigMap
                } else if roll < 85 {
                    Kind::Secret
                } else {
                    Kind::ClusterRole
                };
                let name = match kind {
                    Kind::ClusterRole => format!("{{ns}}-o{i}"),
                    _ => format!("o{i}"),
                };
                Member {
                    kind,
                    name,
                    hold: rng.chance(30),
                    refs: Vec::new(),
                }
            })
            .collect();
        let mut ghosts = Vec::new();
        for i in 0..n {
            // A cluster-scoped dependent of a namespaced owner is never in
            // a namespace's snapshot (nor ever collected, R7d): the
            // ClusterRoles only own.
            if members[i].kind == Kind::ClusterRole {
                continue;
            }
            let count = match rng.below(100) {
                0..25 => 0,
                25..70 => 1,
                70..90 => 2,
                _ => 3,
            };
            let mut has_controller = false;
            let mut used = BTreeSet::new();
            for _ in 0..count {
                let roll = rng.below(100);
                let to = if roll < 80 {
                    let j = (i + 1 + rng.below(n - 1)) % n;
                    if !used.insert(j) {
                        continue;
                    }
                    To::Member(j)
                } else if roll < 90 {
                    let kind = if rng.chance(50) {
                        Kind::ConfigMap
                    } else {
                        Kind::Secret
                    };
                    ghosts.push((kind, format!("ghost{}", ghosts.len())));
                    To::Ghost(ghosts.len() - 1)
                } else {
                    let k = rng.below(n);
                    let (kind, name) = if rng.chance(50) {
                        // An owner by the name of a member, its uid not
                        // the member's (S7).
                        (members[k].kind, members[k].name.clone())
                    } else {
                        (Kind::ConfigMap, format!("nobody{k}"))
                    };
                    To::Never {
                        kind,
                        name,
                        uid: format!(
                            "00000000-0000-4000-8000-{:06x}{:06x}",
                            seed % 0xFF_FFFF,
                            rng.below(0xFF_FFFF)
                        ),
                    }
                };
                let pick = |rng: &mut Rng| match rng.below(3) {
                    0 => None,
                    1 => Some(true),
                    _ => Some(false),
                };
                let block = pick(&mut rng);
                let controller = if has_controller {
                    rng.chance(50).then_some(false)
                } else {
                    pick(&mut rng)
                };
                has_controller |= controller == Some(true);
                members[i].refs.push(Ref {
                    to,
                    block,
                    controller,
                });
            }
        }
        let delete = rng.below(n);
        let policy = ["Background", "Foreground", "Orphan"][rng.below(3)];
        RandomGraph {
            seed,
            members,
            ghosts,
            delete,
            policy,
        }
    }

    /// The objects without their references, and the ghosts.
    fn first_stage(&self, ns: &str) -> String {
        let mut docs: Vec<String> = self
            .members
            .iter()
            .map(|m| manifest(m.kind, &m.name, m.hold, &[]))
            .collect();
        docs.extend(
            self.ghosts
                .iter()
                .map(|(k, name)| manifest(*k, name, false, &[])),
        );
        docs.join("---\n").replace("{ns}", ns)
    }

    /// The objects with their references; `uid(member)` and
    /// `ghost_uid(ghost)` write an owner's uid (a shell variable in the
    /// script, the uid itself in the test).
    fn second_stage(
        &self,
        ns: &str,
        uid: &dyn Fn(usize) -> String,
        ghost_uid: &dyn Fn(usize) -> String,
    ) -> String {
        let docs: Vec<String> = self
            .members
            .iter()
            .map(|m| {
                let refs: Vec<String> = m
                    .refs
                    .iter()
                    .map(|r| {
                        let (kind, name, uid) = match &r.to {
                            To::Member(j) => {
                                let o = &self.members[*j];
                                (o.kind, o.name.clone(), uid(*j))
                            }
                            To::Ghost(g) => {
                                let (k, n) = &self.ghosts[*g];
                                (*k, n.clone(), ghost_uid(*g))
                            }
                            To::Never { kind, name, uid } => (*kind, name.clone(), uid.clone()),
                        };
                        let mut s = format!(
                            "{{apiVersion: {}, kind: {}, name: '{name}', uid: '{uid}'",
                            kind.api_version(),
                            kind.name()
                        );
                        if let Some(b) = r.block {
                            let _ = write!(s, ", blockOwnerDeletion: {b}");
                        }
                        if let Some(c) = r.controller {
                            let _ = write!(s, ", controller: {c}");
                        }
                        s.push('}');
                        s
                    })
                    .collect();
                manifest(m.kind, &m.name, m.hold, &refs)
            })
            .collect();
        docs.join("---\n").replace("{ns}", ns)
    }

    /// A script that builds the graph in namespace `ns` and deletes its
    /// member `target` (the seed's, or the next one still there when the
    /// garbage collector took it before the DELETE).
    pub(crate) fn script(&self, ns: &str, target: usize) -> String {
        let m = &self.members[target];
        let mut s = format!(
            "# seed {}: {} objects; DELETE {} --cascade={}\nkubectl create namespace {ns}\nkubectl apply -n {ns} -f - <<'EOF'\n{}EOF\n",
            self.seed,
            self.members.len(),
            m.resource_name(ns),
            self.policy.to_ascii_lowercase(),
            self.first_stage(ns)
        );
        for (i, m) in self.members.iter().enumerate() {
            let scope = if m.kind == Kind::ClusterRole {
                String::new()
            } else {
                format!(" -n {ns}")
            };
            let _ = writeln!(
                s,
                "u{i}=$(kubectl get{scope} {} {} -o jsonpath='{{.metadata.uid}}')",
                m.kind.resource(),
                m.name.replace("{ns}", ns)
            );
        }
        for (g, (k, name)) in self.ghosts.iter().enumerate() {
            let _ = writeln!(
                s,
                "g{g}=$(kubectl get -n {ns} {} {name} -o jsonpath='{{.metadata.uid}}')",
                k.resource()
            );
        }
        for (k, name) in &self.ghosts {
            let _ = writeln!(s, "kubectl delete -n {ns} {} {name}", k.resource());
        }
        let _ = write!(
            s,
            "kubectl apply -n {ns} -f - <<EOF\n{}EOF\n",
            self.second_stage(ns, &|i| format!("$u{i}"), &|g| format!("$g{g}"))
        );
        let _ = writeln!(
            s,
            "kubectl delete{} {} {} --cascade={} --wait=false",
            if m.kind == Kind::ClusterRole {
                String::new()
            } else {
                format!(" -n {ns}")
            },
            m.kind.resource(),
            m.name.replace("{ns}", ns),
            self.policy.to_ascii_lowercase()
        );
        s
    }
}

impl Member {
    fn resource_name(&self, ns: &str) -> String {
        format!("{} {}", self.kind.resource(), self.name.replace("{ns}", ns))
    }
}

/// One object's manifest, in flow style.
fn manifest(kind: Kind, name: &str, hold: bool, refs: &[String]) -> String {
    let mut meta = format!("name: '{name}'");
    if hold {
        let _ = write!(meta, ", finalizers: [{HOLD}]");
    }
    if !refs.is_empty() {
        let _ = write!(meta, ", ownerReferences: [{}]", refs.join(", "));
    }
    format!(
        "apiVersion: {}\nkind: {}\nmetadata: {{{meta}}}\n",
        kind.api_version(),
        kind.name()
    )
}

/// The graph's ConfigMaps, Secrets and ClusterRoles as listed.
fn raw(ns: &str) -> Vec<Value> {
    let mut all = items(&kubectl(
        &["get", "-n", ns, "configmaps,secrets", "-o", "json"],
        None,
    ));
    let prefix = format!("{ns}-");
    all.extend(
        items(&kubectl(&["get", "clusterroles", "-o", "json"], None))
            .into_iter()
            .filter(|o| {
                o["metadata"]["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with(&prefix))
            }),
    );
    all
}

/// The graph's objects, by uid (its kinds only: lighter than
/// [`objects`], read every 3 s by a dozen rehearsals at once).
fn listed(ns: &str) -> BTreeMap<String, Seen> {
    seen_all(raw(ns))
}

/// The uid of each (kind, name) the graph's namespace and its
/// ClusterRoles hold.
fn uids(ns: &str) -> BTreeMap<(String, String), String> {
    raw(ns)
        .iter()
        .map(|o| {
            (
                (
                    o["kind"].as_str().unwrap_or_default().to_string(),
                    o["metadata"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                ),
                o["metadata"]["uid"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect()
}

/// Builds the graph in `ns`.
fn build(g: &RandomGraph, ns: &str) -> Result<(), String> {
    try_kubectl(&["apply", "-n", ns, "-f", "-"], Some(&g.first_stage(ns)))
        .map_err(|e| format!("kubectl apply: {e}"))?;
    let known = uids(ns);
    let uid_of = |k: Kind, name: &str| {
        known
            .get(&(k.name().to_string(), name.replace("{ns}", ns)))
            .cloned()
            .unwrap_or_default()
    };
    let member_uids: Vec<String> = g.members.iter().map(|m| uid_of(m.kind, &m.name)).collect();
    let ghost_uids: Vec<String> = g.ghosts.iter().map(|(k, n)| uid_of(*k, n)).collect();
    if member_uids.iter().chain(&ghost_uids).any(String::is_empty) {
        return Err(format!("an object of the graph was not created: {known:?}"));
    }
    for (k, name) in &g.ghosts {
        try_kubectl(&["delete", "-n", ns, k.resource(), name], None)
            .map_err(|e| format!("deleting {name}: {e}"))?;
    }
    let second = g.second_stage(ns, &|i| member_uids[i].clone(), &|i| ghost_uids[i].clone());
    try_kubectl(&["apply", "-n", ns, "-f", "-"], Some(&second))
        .map_err(|e| format!("kubectl apply: {e}"))?;
    Ok(())
}

/// Removes `example.com/hold` from the object, failing rather than
/// clobbering if its finalizers changed meanwhile (retried).
fn release(ns: &str, seen: &Seen, finalizers: &[String]) -> Result<(), String> {
    let (_, name) = seen.who.split_once('/').expect("kind/name");
    let Some(i) = finalizers.iter().position(|f| f == HOLD) else {
        return Ok(());
    };
    let patch = format!(
        r#"[{{"op":"test","path":"/metadata/finalizers/{i}","value":"{HOLD}"}},{{"op":"remove","path":"/metadata/finalizers/{i}"}}]"#
    );
    let mut args = vec!["patch", &seen.resource, name, "--type=json", "-p", &patch];
    if !seen.cluster {
        args.extend(["-n", ns]);
    }
    try_kubectl(&args, None).map(|_| ())
}

/// The finalizers of each object of the graph holding `example.com/hold`.
fn held(ns: &str) -> Vec<(Seen, Vec<String>)> {
    let mut out = Vec::new();
    let all = raw(ns);
    for o in all {
        let finalizers: Vec<String> = o["metadata"]["finalizers"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if finalizers.iter().any(|f| f == HOLD) {
            let seen = seen_all(vec![o]).into_values().next();
            if let Some(seen) = seen {
                out.push((seen, finalizers));
            }
        }
    }
    out
}

/// The snapshot as a scenario whose steps remove `example.com/hold` from
/// every object carrying it, at 600 s.
fn with_release_steps(snapshot: &Value) -> Value {
    let mut sc = snapshot.clone();
    let steps: Vec<Value> = snapshot["objects"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|o| {
            o["metadata"]["finalizers"]
                .as_array()
                .is_some_and(|f| f.iter().any(|f| f == HOLD))
        })
        .map(|o| {
            let mut target = serde_json::json!({
                "kind": o["kind"],
                "name": o["metadata"]["name"],
                "finalizer": HOLD,
            });
            if let Some(ns) = o["metadata"]["namespace"].as_str() {
                target["namespace"] = ns.into();
            }
            serde_json::json!({"at": "600s", "removeFinalizer": target})
        })
        .collect();
    sc["steps"] = steps.into();
    sc
}

/// Rehearses one seed in `ns`: phase 1, then phase 2.
pub(crate) fn rehearse(g: &RandomGraph) -> Result<(), String> {
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, &format!("seed{}", g.seed)));
    let mut target = g.delete;
    let result = rehearse_in(g, &ns, &mut target);
    cleanup(&rt, &client, &ns);
    for suffix in ["", "-released"] {
        let _ = std::fs::remove_file(
            std::env::temp_dir().join(format!("ownerscope-rehearsal-{ns}{suffix}.json")),
        );
    }
    result.map_err(|e| {
        format!(
            "{e}\n--- seed {} reproduced:\n{}",
            g.seed,
            g.script("seed-repro", target)
        )
    })
}

fn rehearse_in(g: &RandomGraph, ns: &str, chosen: &mut usize) -> Result<(), String> {
    build(g, ns)?;
    // Dangling references are the garbage collector's at once: snapshot
    // what it leaves.
    let before = quiet(&|| listed(ns), false, 0);
    let admin = env().admin.to_str().expect("path").to_string();
    let snap = ownerscope(&["snapshot", "--live", "--kubeconfig", &admin, "-n", ns]);
    if !snap.status.success() {
        return Err(format!(
            "snapshot: {}",
            String::from_utf8_lossy(&snap.stderr)
        ));
    }
    let file = std::env::temp_dir().join(format!("ownerscope-rehearsal-{ns}.json"));
    std::fs::write(&file, &snap.stdout).expect("snapshot file");
    let snapshot: Value = serde_json::from_slice(&snap.stdout).map_err(|e| e.to_string())?;
    let released = std::env::temp_dir().join(format!("ownerscope-rehearsal-{ns}-released.json"));
    std::fs::write(&released, with_release_steps(&snapshot).to_string()).expect("scenario file");
    // A namespace's snapshot carries the cluster-scoped objects its
    // objects use: a ClusterRole that owns nothing there is not in it, and
    // not compared.
    let in_snapshot: BTreeSet<String> = snapshot["objects"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|o| o["metadata"]["uid"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let before: BTreeMap<String, Seen> = before
        .into_iter()
        .filter(|(uid, s)| !s.cluster || in_snapshot.contains(uid))
        .collect();
    // The target, or the next member still there and in the snapshot.
    let Some(k) = (0..g.members.len())
        .map(|k| (g.delete + k) % g.members.len())
        .find(|&k| {
            let m = &g.members[k];
            let who = format!("{}/{}", m.kind.name(), m.name.replace("{ns}", ns));
            before.values().any(|s| s.who == who)
        })
    else {
        // The garbage collector took the whole graph (dangling references)
        // before the DELETE: nothing left to rehearse.
        eprintln!("seed {}: every object is gone before the DELETE", g.seed);
        return Ok(());
    };
    *chosen = k;
    let m = &g.members[*chosen];
    let (kind, name, cluster) = (
        m.kind,
        m.name.replace("{ns}", ns),
        m.kind == Kind::ClusterRole,
    );
    let target = format!("{}/{name}", kind.resource());
    let policy = g.policy.to_ascii_lowercase();
    let mut args = vec![
        "plan",
        file.to_str().expect("path"),
        "--delete",
        &target,
        "-o",
        "json",
        "--policy",
        &policy,
    ];
    if !cluster {
        args.extend(["-n", ns]);
    }
    let plan = ownerscope(&args);
    if !plan.status.success() {
        return Err(format!("plan: {}", String::from_utf8_lossy(&plan.stderr)));
    }
    let plan: Value = serde_json::from_slice(&plan.stdout).map_err(|e| e.to_string())?;
    let prediction = predicted(&plan);
    let sim_ns = (!cluster).then_some(ns);
    let sim1 = simulated(
        ns,
        sim_ns,
        file.to_str().expect("path"),
        &target,
        Some(g.policy),
    )?;
    let sim2 = simulated(
        ns,
        sim_ns,
        released.to_str().expect("path"),
        &target,
        Some(g.policy),
    )?;

    let mut del = vec![
        "delete".to_string(),
        kind.resource().to_string(),
        name.clone(),
        format!("--cascade={policy}"),
        "--wait=false".into(),
    ];
    if !cluster {
        del.extend(["-n".into(), ns.to_string()]);
    }
    let del: Vec<&str> = del.iter().map(String::as_str).collect();
    kubectl(&del, None);
    let after1 = quiet(&|| listed(ns), false, 0);
    let mut disagreements = Vec::new();
    for (uid, seen) in &before {
        let real = fate(uid, seen, &after1);
        if !prediction.accepts(uid, seen, real) {
            disagreements.push(format!(
                "{}: predicted {:?}, real {real:?}",
                seen.who,
                prediction.said(uid, seen)
            ));
        }
        let sim = fate(uid, seen, &sim1);
        if real != sim && !prediction.either(uid, seen, real, sim) {
            disagreements.push(format!("{}: simulated {sim:?}, real {real:?}", seen.who));
        }
    }
    // Phase 2: the finalizers released, for real and in the simulation.
    for (seen, finalizers) in held(ns) {
        let mut tries = 0;
        let mut current = finalizers;
        while let Err(e) = release(ns, &seen, &current) {
            tries += 1;
            if tries > 5 {
                return Err(format!("releasing {}: {e}", seen.who));
            }
            std::thread::sleep(Duration::from_millis(300));
            current = held(ns)
                .into_iter()
                .find(|(s, _)| s.who == seen.who)
                .map(|(_, f)| f)
                .unwrap_or_default();
        }
    }
    let after2 = quiet(&|| listed(ns), false, 0);
    for (uid, seen) in &before {
        let real = fate(uid, seen, &after2);
        let sim = fate(uid, seen, &sim2);
        if real != sim && !prediction.either(uid, seen, real, sim) {
            disagreements.push(format!(
                "{}: once released, simulated {sim:?}, real {real:?}",
                seen.who
            ));
        }
    }
    if disagreements.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "DELETE {target} --cascade={policy}: {}\n  plan: {plan}",
            disagreements.join("; ")
        ))
    }
}

/// Releases whatever still holds an object, deletes the namespace and the
/// graph's ClusterRoles.
fn cleanup(rt: &tokio::runtime::Runtime, client: &kube::Client, ns: &str) {
    for seen in listed(ns).values().filter(|s| s.held) {
        let (_, n) = seen.who.split_once('/').expect("kind/name");
        let mut args = vec![
            "patch",
            &seen.resource,
            n,
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":null}}"#,
        ];
        if !seen.cluster {
            args.extend(["-n", ns]);
        }
        let _ = try_kubectl(&args, None);
    }
    rt.block_on(delete_namespace(client, ns));
    for seen in listed(ns).values().filter(|s| s.cluster) {
        let (_, n) = seen.who.split_once('/').expect("kind/name");
        let _ = try_kubectl(
            &[
                "delete",
                &seen.resource,
                n,
                "--ignore-not-found",
                "--wait=false",
            ],
            None,
        );
    }
}

/// The seeds to rehearse: `OWNERSCOPE_REHEARSAL_SEEDS` (`0..500`, `17`,
/// `3,17,40..60`), else the fixed CI seeds.
pub(crate) fn seeds() -> Vec<u64> {
    let Ok(spec) = std::env::var("OWNERSCOPE_REHEARSAL_SEEDS") else {
        return (0..CI_SEEDS).collect();
    };
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once("..") {
            Some((a, b)) => {
                let a: u64 = a
                    .parse()
                    .expect("OWNERSCOPE_REHEARSAL_SEEDS: a number before ..");
                let b: u64 = b
                    .parse()
                    .expect("OWNERSCOPE_REHEARSAL_SEEDS: a number after ..");
                out.extend(a..b);
            }
            None => out.push(part.parse().expect("OWNERSCOPE_REHEARSAL_SEEDS: a number")),
        }
    }
    out
}

/// How many seeds every CI run rehearses (`0..CI_SEEDS`).
const CI_SEEDS: u64 = 30;

#[test]
fn random_graphs_rehearsed_match_the_real_control_plane() {
    let _g = shared();
    let graphs: Vec<RandomGraph> = seeds().into_iter().map(RandomGraph::new).collect();
    // Each failing seed is printed as soon as it is known: a long range
    // runs for a while.
    let results = in_parallel(
        &graphs,
        |g| format!("seed {}", g.seed),
        |g| {
            let r = rehearse(g);
            if let Err(e) = &r {
                eprintln!("seed {} disagrees: {e}\n", g.seed);
            }
            r
        },
    );
    let failures: Vec<&String> = results
        .iter()
        .filter_map(|(_, r)| r.as_ref().err())
        .collect();
    eprintln!(
        "rehearsal: {}/{} random graphs agree with the real control plane, before and after their finalizers are released",
        graphs.len() - failures.len(),
        graphs.len()
    );
    assert!(
        failures.is_empty(),
        "{} seeds disagree (printed above)",
        failures.len()
    );
}

#[test]
fn the_same_seed_gives_the_same_graph() {
    let a = RandomGraph::new(7).script("ns", 0);
    assert_eq!(a, RandomGraph::new(7).script("ns", 0));
    assert_ne!(a, RandomGraph::new(8).script("ns", 0));
    // Every seed's graph is between 3 and 9 objects, with references that
    // never point at the object itself, one controller at most each.
    for seed in 0..2000 {
        let g = RandomGraph::new(seed);
        assert!((3..=9).contains(&g.members.len()), "seed {seed}");
        for (i, m) in g.members.iter().enumerate() {
            assert!(
                m.refs
                    .iter()
                    .all(|r| !matches!(r.to, To::Member(j) if j == i))
            );
            assert!(m.refs.iter().filter(|r| r.controller == Some(true)).count() <= 1);
        }
    }
}
