//! `ownerscope serve`: the simulator behind a Kubernetes API server that
//! kubectl, kube-rs and client-go can use.
//!
//! The request logic is pure: [`handler::handle`] takes a [`Request`] and
//! the [`state::Served`] simulator and answers an [`Outcome`] (a reply, or
//! a watch to stream), so it is tested without sockets or TLS. [`http`] puts
//! it behind hyper and rustls; [`tls`] makes the certificates and the
//! kubeconfig.

pub mod access;
pub mod admit;
pub mod apply;
pub mod backend;
pub mod collection;
pub mod complete;
pub mod custom_scale;
pub mod decoded;
pub mod discovery;
pub mod duplicate_fields;
pub mod echo;
pub mod escalation;
pub mod events;
pub mod field_schema;
pub mod field_validation;
pub mod handler;
pub mod http;
pub mod index;
pub mod journal;
pub mod managed;
pub mod negotiate;
pub mod openapi;
pub mod openapi_pb;
pub mod ownership;
pub mod patch;
pub mod pod_defaults;
pub mod policy;
pub mod protobuf;
pub mod query;
pub mod rbac;
pub mod read;
pub mod route;
pub mod rules_review;
pub mod run;
pub mod selector;
pub mod state;
pub mod statedir;
pub mod status;
pub mod status_subresource;
pub mod subresource;
pub mod table;
pub mod tls;
pub mod unkept;
pub mod users;
pub mod versions;
pub mod watch;
pub mod webhook_defaults;
pub mod write;

use serde_json::Value;

/// The user the kubeconfig's first context authenticates as.
pub const ADMIN: &str = "admin";

/// One HTTP request, as the handler needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// Query parameters, percent-decoded, in order.
    pub query: Vec<(String, String)>,
    pub accept: String,
    pub content_type: String,
    pub user_agent: String,
    pub body: Vec<u8>,
    /// Who the bearer token authenticated.
    pub user: rbac::User,
    /// `Impersonate-User`.
    pub impersonate_user: Option<String>,
    /// `Impersonate-Group`, each header.
    pub impersonate_groups: Vec<String>,
}

impl Request {
    /// A request from a path with an optional `?query`, by the admin (a
    /// member of `system:masters`).
    #[must_use]
    pub fn new(method: &str, path_and_query: &str) -> Request {
        let (path, query) = path_and_query
            .split_once('?')
            .unwrap_or((path_and_query, ""));
        Request {
            method: method.to_string(),
            path: path.to_string(),
            query: query::parse_query(query),
            accept: "application/json".into(),
            user: rbac::User::authenticated(ADMIN, &[rbac::MASTERS]),
            ..Request::default()
        }
    }

    /// The first value of a query parameter.
    #[must_use]
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Who sent it, as the timeline names it: the program of the
    /// User-Agent (`kubectl/v1.32.4 (linux/amd64) ...` -> `kubectl`).
    #[must_use]
    pub fn actor(&self) -> String {
        let program = self
            .user_agent
            .split(['/', ' '])
            .next()
            .unwrap_or_default()
            .trim();
        let clean: String = program
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
            .take(40)
            .collect();
        if clean.is_empty() {
            "client".to_string()
        } else {
            clean
        }
    }
}

/// One answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub code: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    /// `Warning` headers (`299 - "text"`).
    pub warnings: Vec<String>,
}

impl Response {
    /// A JSON answer.
    #[must_use]
    pub fn json(code: u16, value: &Value) -> Response {
        Response::typed(code, "application/json", value)
    }

    /// A JSON answer with a content type of its own (aggregated discovery,
    /// tables say what they are).
    #[must_use]
    pub fn typed(code: u16, content_type: &str, value: &Value) -> Response {
        Response {
            code,
            content_type: content_type.to_string(),
            body: serde_json::to_vec(value).unwrap_or_default(),
            warnings: Vec::new(),
        }
    }

    /// The body as JSON, for tests.
    #[must_use]
    pub fn value(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// What the handler decided.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Reply(Response),
    /// Stream this watch.
    Watch(Box<watch::WatchSpec>),
}

pub use state::Served;

#[cfg(test)]
mod component_fields_tests;
#[cfg(test)]
mod generation_tests;
#[cfg(test)]
mod hostile_props;
#[cfg(test)]
mod immutable_tests;
#[cfg(test)]
mod objects_tests;
#[cfg(test)]
mod template_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod unkept_tests;
#[cfg(test)]
mod written_fields_tests;
