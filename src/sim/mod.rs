//! The offline simulator: an in-memory API server with the real deletion
//! rules, the garbage collector, simulated controllers and a virtual clock.

pub mod api;
pub mod controllers;
pub mod engine;
pub mod gc;
pub mod progress;
pub mod scenario;
pub mod timeline;
pub mod validation;
pub mod yaml;

pub use api::{ApiResponse, ApiServer, Caller, Change, DeleteOptions, Key, Preconditions};
pub use engine::{Saved, Sim};
pub use scenario::{LoadError, Scenario, Target};
pub use timeline::{Entry, Timeline, What};
