//! The pure domain model: object metadata, kinds, the ownership graph and
//! what is derived from it. No I/O, no async, no terminal.

pub mod badges;
pub mod blockers;
pub mod cloud;
pub mod diagnosis;
pub mod events;
pub mod fields;
pub mod finalizers;
pub mod forest;
pub mod graph;
pub mod kept;
pub mod kinds;
pub mod nodes;
pub mod object;
pub mod preview;
pub mod relations;
pub mod remover;
pub mod repeat_delete;
pub mod selector;
pub mod stuck;
pub mod unkept;
pub mod volumes;
pub mod webhooks;
pub mod wording;
pub mod workload;
pub mod yaml_text;

pub use graph::{Names, OwnershipGraph, RefStatus, Taken};
pub use kinds::{DefaultPolicy, KindInfo, KindTable, Partial, Unlisted};
pub use object::{
    FOREGROUND, ORPHAN, ObjRef, Object, ObjectMeta, OwnerReference, Policy, Uid, group_of,
    version_of,
};
