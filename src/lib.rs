//! ownerscope: explore Kubernetes ownership and troubleshoot stuck deletions.

pub mod backend;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod model;
pub mod sim;
