//! Tools around the UI that are not the UI itself: a scripted session on
//! a `TestBackend` (tests, screenshots), SVG export, the benchmark.

pub mod bench;
pub mod bench_commands;
pub mod bench_live;
pub mod bench_live_load;
pub mod bench_live_watch;
pub mod bench_load;
pub mod bench_plan;
pub mod bench_scale;
pub mod bench_serve;
pub mod generate;
pub mod screenshots;
pub mod session;
pub mod svg;
