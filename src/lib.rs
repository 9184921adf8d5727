//! ownerscope: explore Kubernetes ownership and troubleshoot stuck deletions.

pub mod app;
pub mod backend;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod keymap;
pub mod logging;
pub mod model;
pub mod runtime;
pub mod serve;
pub mod sim;
pub mod threads;
pub mod tools;
pub mod tui;
pub mod ui;
