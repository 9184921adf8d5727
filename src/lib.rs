//! ownerscope: explore Kubernetes ownership and troubleshoot stuck deletions.

pub mod model;
pub mod sim;
