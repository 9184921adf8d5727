//! A diagnosis in words: the headline, the waiting summary and the lines
//! `why` prints and the UI's details show.

use super::*;

impl Diagnosis {
    /// Whether this diagnosis says if the controller that removes `f`
    /// runs: its simulated controller, a workload found for it, or what
    /// holds it (a load balancer's cloud controller). Then the catalogue's
    /// `(stuck if it is not running)` would only guess beside it.
    #[must_use]
    pub fn says_if_remover_runs(&self, f: &str) -> bool {
        self.finalizers
            .iter()
            .any(|s| s.info.name == f && s.controller_online.is_some())
            || self
                .removers
                .iter()
                .any(|r| r.finalizer == f && r.runs().is_some())
            || self.held.iter().any(|h| h.finalizer == f)
    }

    /// One line: the state and the first cause.
    #[must_use]
    pub fn headline(&self) -> String {
        let cause = self.causes.first().cloned().unwrap_or_default();
        match self.terminating_seconds {
            Some(s) if s < 0 => format!("Terminating (grace period, {}s left): {cause}", -s),
            Some(s) => format!("Terminating for {}: {cause}", human_duration(s)),
            None => cause,
        }
    }

    /// What really holds a foreground deletion up: the first listed
    /// blocker (most telling first) that carries a finalizer other than the
    /// garbage collector's, with that finalizer. Removing the owner's own
    /// `foregroundDeletion` is never the fix: it lets the owner go and
    /// leaves the dependents.
    #[must_use]
    pub fn held_by(&self) -> Option<(ObjRef, String)> {
        fn walk(bs: &[Blocker]) -> Option<(ObjRef, String)> {
            for b in bs {
                if let Some(f) = b
                    .finalizers
                    .iter()
                    .find(|f| f.info.name != FOREGROUND && f.info.name != ORPHAN)
                {
                    return Some((b.object.clone(), f.info.name.clone()));
                }
                if let Some(found) = walk(&b.blocked_by) {
                    return Some(found);
                }
            }
            None
        }
        walk(&self.blockers)
    }

    /// "3 blocking dependents" or, when the tree is larger than what is
    /// listed, what it holds: "29,700 blocking dependents (29,400
    /// Terminating, 29,100 in their grace period, 300 not deleted yet;
    /// finalizer example.com/hold on 2)".
    #[must_use]
    pub fn waiting_summary(&self) -> String {
        let Some(c) = &self.waiting_on else {
            return format!("{} blocking dependents", self.blockers.len());
        };
        let noun = if c.total == 1 {
            "dependent"
        } else {
            "dependents"
        };
        let mut parts = Vec::new();
        if c.terminating > 0 {
            parts.push(format!("{} Terminating", c.terminating));
        }
        if c.in_grace > 0 {
            parts.push(format!("{} in their grace period", c.in_grace));
        }
        if c.pending > 0 {
            parts.push(format!("{} not deleted yet", c.pending));
        }
        let fins: Vec<String> = c
            .by_finalizer
            .iter()
            .map(|(f, n)| format!("finalizer {f} on {n}"))
            .collect();
        let mut out = format!("{} blocking {noun}", c.total);
        if !parts.is_empty() || !fins.is_empty() {
            out.push_str(" (");
            out.push_str(&parts.join(", "));
            if !fins.is_empty() {
                if !parts.is_empty() {
                    out.push_str("; ");
                }
                out.push_str(&fins.join(", "));
            }
            out.push(')');
        }
        out
    }

    /// The full answer, as lines of text.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![self.headline()];
        // Every cause, and the fixes, first: what an on-call engineer
        // reads before the details.
        if self.causes.len() > 1 {
            out.push("Causes:".into());
            for c in &self.causes {
                out.push(format!("  - {c}"));
            }
        }
        out.push(String::new());
        if let (Some(ts), Some(s)) = (self.terminating_since, self.terminating_seconds) {
            // A pod's grace period puts the timestamp ahead: `(in 29s)`.
            out.push(format!(
                "deletionTimestamp {ts} ({})",
                super::super::badges::relative(s)
            ));
        }
        if !self.finalizers.is_empty() {
            out.push(if self.terminating_since.is_some() {
                "Finalizers still present:".into()
            } else {
                "Finalizers (they act only once the object is deleted):".into()
            });
            for f in &self.finalizers {
                out.push(format!("  {}: {}", f.info.name, f.info.meaning));
                out.push(format!(
                    "    removed by: {}",
                    f.info
                        .removed_by_where(self.says_if_remover_runs(&f.info.name))
                ));
                let refused = self.webhooks.iter().any(|h| h.backend.is_down());
                match f.controller_online {
                    Some(true) if refused => out.push(
                        "    controller: online (simulated); its removal is refused by an admission webhook (below)".into(),
                    ),
                    Some(true) => out.push("    controller: online (simulated); it will remove it".into()),
                    Some(false) if self.terminating_since.is_none() => out.push(
                        "    controller: OFFLINE (simulated); a DELETE would leave the object Terminating until it is back online".into(),
                    ),
                    Some(false) => out.push(
                        "    controller: OFFLINE (simulated); nothing removes it until it is back online or the finalizer is removed by hand".into(),
                    ),
                    None => {}
                }
                if f.info.name == FOREGROUND {
                    if self.blockers.is_empty() && self.partial.is_partial() {
                        out.push(format!(
                            "    no blocking dependent visible; you cannot list {}, so it may be waiting on one of those",
                            unlisted_names(&self.partial)
                        ));
                    } else if self.blockers.is_empty() {
                        out.push("    no blocking dependent left".into());
                    } else {
                        out.push(format!("    waiting on {}:", self.waiting_summary()));
                        for b in &self.blockers {
                            blocker_lines(b, 6, &mut out);
                        }
                        if self.more_blockers > 0 {
                            out.push(format!("      … and {} more", self.more_blockers));
                        }
                    }
                }
                if f.info.name == ORPHAN && !self.releasing.is_empty() {
                    out.push(format!("    releasing: {}", self.releasing.join(", ")));
                }
            }
        }
        if !self.webhooks.is_empty() {
            out.push("Admission webhooks called for the UPDATE that removes a finalizer (failurePolicy Fail):".into());
            for h in &self.webhooks {
                let (state, detail) = match &h.backend {
                    crate::model::webhooks::Backend::Up(s) => ("answering", s),
                    crate::model::webhooks::Backend::Down(s) => ("NOT ANSWERING", s),
                    crate::model::webhooks::Backend::Unknown(s) => ("not known", s),
                };
                out.push(format!(
                    "  {} ({}) at {}: {state}: {detail}",
                    h.webhook.name,
                    h.webhook.configuration_ref(),
                    h.webhook.address()
                ));
            }
        }
        for u in &self.unread {
            out.push(format!("Not read: {u}"));
        }
        if !self.events.is_empty() {
            out.push("Warning Events on it, newest first:".into());
            for e in &self.events {
                out.push(format!("  {}", e.sentence()));
            }
        }
        if let Some(ns) = &self.namespace {
            out.push(format!(
                "Namespace phase {}, spec.finalizers [{}]",
                ns.phase,
                ns.spec_finalizers.join(", ")
            ));
            for c in &ns.conditions {
                out.push(format!(
                    "  {}={} {}: {}",
                    c.kind, c.status, c.reason, c.message
                ));
            }
            if ns.remaining.is_empty() && self.partial.is_partial() {
                out.push("  no content seen (some of it cannot be listed: see above)".into());
            } else if ns.remaining.is_empty() {
                out.push("  no content left".into());
            } else {
                out.push(format!(
                    "  remaining content ({}): {}",
                    ns.remaining.len(),
                    ns.remaining.join(", ")
                ));
            }
            for (f, objs) in &ns.remaining_by_finalizer {
                out.push(format!("  held by finalizer {f}: {}", objs.join(", ")));
            }
        }
        if !self.blocks.is_empty() {
            out.push(format!(
                "It blocks the foreground deletion of {}",
                self.blocks.join(", ")
            ));
        }
        if !self.owners.is_empty() {
            out.push("Owners:".into());
            for o in &self.owners {
                let r = &o.reference;
                let mut flags = Vec::new();
                if r.is_controller() {
                    flags.push("controller");
                }
                if r.blocks() {
                    flags.push("blockOwnerDeletion");
                }
                let state = o.owner_state.as_deref().unwrap_or(o.status.label());
                out.push(format!(
                    "  {}/{} [{}]: {}",
                    r.kind,
                    r.name,
                    if flags.is_empty() {
                        "-".to_string()
                    } else {
                        flags.join(" ")
                    },
                    state
                ));
            }
        }
        if let Fate::Protected { dropped, .. } = &self.fate
            && !dropped.is_empty()
        {
            out.push(format!(
                "The garbage collector will remove the references to {}",
                dropped.join(", ")
            ));
        }
        out
    }
}

fn blocker_lines(b: &Blocker, indent: usize, out: &mut Vec<String>) {
    let pad = " ".repeat(indent);
    out.push(format!(
        "{pad}{}/{}: {}",
        b.object.kind, b.object.name, b.state
    ));
    for f in &b.finalizers {
        let who = match f.controller_online {
            Some(true) => "its controller is online and will remove it".to_string(),
            Some(false) => "its controller is OFFLINE: nothing removes it".to_string(),
            None => format!("removed by {}", f.info.removed_by),
        };
        out.push(format!("{pad}  finalizer {}: {who}", f.info.name));
    }
    if let Some(g) = b.grace_left {
        out.push(format!("{pad}  grace period: {g}s left"));
    }
    if let Some(s) = &b.stranded {
        out.extend(s.explanation.iter().map(|l| format!("{pad}  {l}")));
    }
    if !b.other_owners.is_empty() {
        out.push(format!(
            "{pad}  also owned by {}",
            b.other_owners.join(", ")
        ));
    }
    for c in &b.blocked_by {
        blocker_lines(c, indent + 4, out);
    }
    if b.more > 0 {
        out.push(format!("{pad}    … and {} more", b.more));
    }
}
