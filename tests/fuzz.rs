//! Fuzzing on stable Rust: everything that parses a file (scenario YAML,
//! multi-document manifests, `kubectl get -o json` Lists, snapshots) and
//! what the commands then do with it (the simulator's steps, the tree, the
//! diagnosis and the preview of every object) must never panic or hang:
//! bad input ends in an error, nothing else.
//!
//! Inputs are the bundled scenarios mutated (bytes flipped, inserted,
//! deleted, lines duplicated or dropped, snippets of hostile shapes spliced
//! in: aliases, deep nesting, huge numbers and durations, control
//! characters, invalid UTF-8), and the same objects as JSON Lists. CI runs
//! `FUZZ_CASES` cases (default 3,000: a few seconds); a longer run:
//! `FUZZ_CASES=20000 cargo test --release --test fuzz`.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use ownerscope::model::{Policy, diagnosis, forest, preview};
use ownerscope::sim::Sim;
use ownerscope::sim::scenario::{self, BUNDLED};

/// Shapes that broke the loader before, spliced in at random places.
const HOSTILE: &[&str] = &[
    "&a [*a, *a]",
    "\n  x: &b [1,1,1,1]\n  y: [*b,*b,*b,*b]\n",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    "deletionGracePeriodSeconds: 9223372036854775807",
    "deletionGracePeriodSeconds: -9223372036854775808",
    "terminationGracePeriodSeconds: 1e300",
    "at: 1e300s",
    "at: -5s",
    "deletionTimestamp: \"9999-12-31T23:59:59Z\"",
    "name: \"\\e]0;x\\a\"",
    "uid: \"\"",
    "ownerReferences: [{kind: ConfigMap, name: a}]",
    "ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: a, uid: u, controller: true}, {apiVersion: v1, kind: Secret, name: b, uid: v, controller: true}]",
    "finalizers: [orphan, foregroundDeletion]",
    "\u{0}",
    "\t",
    "---\n",
    "{",
    "}",
    ": :",
    "- - -",
];

fn mutate(base: &[u8], ops: &[(u8, usize, u8)]) -> Vec<u8> {
    let mut v = base.to_vec();
    for &(op, at, byte) in ops {
        let len = v.len().max(1);
        let i = at % len;
        match op % 7 {
            0 if !v.is_empty() => v[i] = byte,
            1 => v.insert(i.min(v.len()), byte),
            2 if !v.is_empty() => {
                v.remove(i);
            }
            3 => {
                let s = HOSTILE[usize::from(byte) % HOSTILE.len()].as_bytes();
                let at = i.min(v.len());
                v.splice(at..at, s.iter().copied());
            }
            4 => {
                // Duplicate the line around `i`.
                let start = v[..i.min(v.len())]
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(0, |p| p + 1);
                let end = v[start..]
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(v.len(), |p| start + p + 1);
                let line: Vec<u8> = v[start..end].to_vec();
                v.splice(end..end, line);
            }
            5 => {
                let start = v[..i.min(v.len())]
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(0, |p| p + 1);
                let end = v[start..]
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(v.len(), |p| start + p + 1);
                v.drain(start..end);
            }
            _ => v.push(0xff),
        }
    }
    v
}

/// Loads the text as a user's file would be and does what the commands do
/// with it. Errors are fine; a panic fails the case.
static LOADED: AtomicUsize = AtomicUsize::new(0);

fn exercise(text: &str, pick: usize, policy: usize) {
    let Ok(sc) = scenario::parse("fuzz.yaml", text) else {
        return;
    };
    let Ok(mut sim) = Sim::new(&sc) else {
        return;
    };
    LOADED.fetch_add(1, Ordering::Relaxed);
    sim.settle(120_000);
    let graph = sim.graph();
    let _ = forest::to_text(&forest::build(graph, sim.now()));
    let objects: Vec<String> = sim.objects().map(|o| o.uid().to_string()).collect();
    if objects.is_empty() {
        return;
    }
    let uid = &objects[pick % objects.len()];
    let controllers = sim.controller_map();
    let d = diagnosis::diagnose(graph, uid, sim.now(), &controllers);
    let _ = d.lines();
    let policy = [
        None,
        Some(Policy::Background),
        Some(Policy::Foreground),
        Some(Policy::Orphan),
    ][policy % 4];
    let plan = preview::plan(graph, uid, policy, &controllers);
    let _ = plan.lines();
}

/// The bundled scenarios, and their objects as a JSON List.
fn corpus() -> Vec<String> {
    let mut out: Vec<String> = BUNDLED.iter().map(|(_, t)| (*t).to_string()).collect();
    for (name, _) in BUNDLED {
        if let Ok(sc) = scenario::bundled(name) {
            let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": sc.objects.iter().map(|o| &**o).collect::<Vec<_>>()});
            out.push(serde_json::to_string_pretty(&list).unwrap_or_default());
        }
    }
    out
}

#[test]
fn mutated_scenarios_and_lists_never_panic() {
    let cases: u32 = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let corpus = corpus();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        0..corpus.len(),
        prop::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 0..4),
        any::<usize>(),
        any::<usize>(),
    );
    let result = runner.run(&strategy, |(which, ops, pick, policy)| {
        let bytes = mutate(corpus[which].as_bytes(), &ops);
        let text = String::from_utf8_lossy(&bytes);
        exercise(&text, pick, policy);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "fuzz: {cases} inputs, {} loaded and simulated, the rest refused with an error; no panic",
        LOADED.load(Ordering::Relaxed)
    );
}
