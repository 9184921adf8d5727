//! The offline simulator: an in-memory API server with the real deletion
//! rules, the garbage collector, simulated controllers and a virtual clock.

pub mod api;
pub mod gc;
pub mod validation;
pub mod yaml;
