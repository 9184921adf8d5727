//! The live suite (`tests/live_suite`) against `ownerscope serve`: the
//! simulator behind HTTPS, started once for this binary on a scenario with
//! nothing in it, with the same two users as the control plane (`admin` in
//! `system:masters`, `restricted`). The same tests, the same assertions; a
//! difference between the targets is stated in the test that meets it.

mod live_suite;
mod live_support;

const TARGET: live_support::Target = live_support::Target::Serve;
