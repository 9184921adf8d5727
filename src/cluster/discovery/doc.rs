//! The discovery documents as servers send them, read into one shape: the
//! classic ones (`/api`: `APIVersions`, `/apis`: `APIGroupList`,
//! `/api/v1` and `/apis/G/V`: `APIResourceList`) and aggregated discovery
//! (`APIGroupDiscoveryList`, `apidiscovery.k8s.io/v2` or `v2beta1`, 1.26+),
//! which is turned into the classic ones as client-go does (the shape
//! kubectl keeps in its disk cache). Pure: no I/O.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The Accept header of a discovery request: aggregated discovery if the
/// server has it (v2, then v2beta1), else the classic document, as kubectl
/// asks.
pub const ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

/// A list Go sends as `null` when empty: read as empty.
fn list<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

/// `{groupVersion, version}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupVersion {
    pub group_version: String,
    pub version: String,
}

/// One group of an `APIGroupList` (the core group has the empty name).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    pub name: String,
    #[serde(default, deserialize_with = "list")]
    pub versions: Vec<GroupVersion>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_version: Option<GroupVersion>,
}

impl Group {
    /// The version to list: the server's preferred one, else the first.
    #[must_use]
    pub fn preferred(&self) -> Option<&GroupVersion> {
        self.preferred_version.as_ref().or(self.versions.first())
    }

    /// Every served version, the preferred one first, then in the server's
    /// order (its priority).
    #[must_use]
    pub fn by_preference(&self) -> Vec<&GroupVersion> {
        let pref = self.preferred();
        pref.into_iter()
            .chain(self.versions.iter().filter(|v| {
                Some(v.group_version.as_str()) != pref.map(|p| p.group_version.as_str())
            }))
            .collect()
    }
}

/// `APIGroupList` (`/apis`, and kubectl's `servergroups.json` with the core
/// group first).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupList {
    #[serde(default)]
    pub kind: String,
    #[serde(default, rename = "apiVersion")]
    pub api_version: String,
    #[serde(default, deserialize_with = "list")]
    pub groups: Vec<Group>,
}

/// One resource of an `APIResourceList`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiResource {
    /// The plural (`deployments`), or `deployments/status` for a
    /// subresource.
    pub name: String,
    #[serde(default)]
    pub singular_name: String,
    #[serde(default)]
    pub namespaced: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default, deserialize_with = "list")]
    pub verbs: Vec<String>,
    #[serde(
        default,
        deserialize_with = "list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub short_names: Vec<String>,
    #[serde(
        default,
        deserialize_with = "list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub categories: Vec<String>,
}

impl ApiResource {
    #[must_use]
    pub fn can(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    #[must_use]
    pub fn is_subresource(&self) -> bool {
        self.name.contains('/')
    }
}

/// `APIResourceList` (`/api/v1`, `/apis/G/V`, kubectl's
/// `serverresources.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceList {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub api_version: String,
    pub group_version: String,
    #[serde(default, deserialize_with = "list")]
    pub resources: Vec<ApiResource>,
}

impl ResourceList {
    #[must_use]
    pub fn new(group_version: &str, resources: Vec<ApiResource>) -> Self {
        ResourceList {
            kind: "APIResourceList".into(),
            api_version: "v1".into(),
            group_version: group_version.to_string(),
            resources,
        }
    }
}

/// What a server's discovery says: every group with its versions, and the
/// resources of the versions read (the preferred ones).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// The core group first, as client-go puts it.
    pub groups: GroupList,
    /// By group version (`v1`, `apps/v1`).
    pub resources: BTreeMap<String, ResourceList>,
    /// Group versions whose discovery failed (an aggregated API whose
    /// backend is down): nothing of them can be seen.
    pub failing: Vec<String>,
    /// What the APIService of each failing group version says
    /// (`APIService v1beta1.metrics.k8s.io is not Available: ...`).
    pub why_failing: BTreeMap<String, String>,
}

impl Document {
    /// The preferred group version of every group, in the server's order.
    #[must_use]
    pub fn preferred(&self) -> Vec<String> {
        self.groups
            .groups
            .iter()
            .filter_map(|g| g.preferred().map(|v| v.group_version.clone()))
            .collect()
    }

    /// Every served group version (R79: a kind may be served only in a
    /// version that is not its group's preferred one, as CronJob is only
    /// `batch/v1beta1` on 1.20).
    #[must_use]
    pub fn served(&self) -> Vec<String> {
        self.groups
            .groups
            .iter()
            .flat_map(|g| {
                g.by_preference()
                    .into_iter()
                    .map(|v| v.group_version.clone())
            })
            .collect()
    }
}

/// `{"kind": ...}` of any answer: which document a server sent.
#[derive(Deserialize)]
struct Kind {
    #[serde(default)]
    kind: String,
}

/// What `/api` or `/apis` answered to [`ACCEPT`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Aggregated discovery: the groups with their resources.
    Aggregated(Document),
    /// `/api`'s `APIVersions`: the core group's versions.
    CoreVersions(Vec<String>),
    /// `/apis`'s `APIGroupList`.
    Groups(GroupList),
}

/// Reads the answer of `/api` or `/apis`.
///
/// # Errors
/// Not JSON, or not one of the three documents.
pub fn parse_answer(body: &str) -> Result<Answer, String> {
    let kind: Kind = serde_json::from_str(body).map_err(|e| format!("not JSON: {e}"))?;
    match kind.kind.as_str() {
        "APIGroupDiscoveryList" => {
            let list: aggregated::List =
                serde_json::from_str(body).map_err(|e| format!("APIGroupDiscoveryList: {e}"))?;
            Ok(Answer::Aggregated(list.into_document()))
        }
        "APIVersions" => {
            #[derive(Deserialize)]
            struct Versions {
                #[serde(default, deserialize_with = "list")]
                versions: Vec<String>,
            }
            let v: Versions =
                serde_json::from_str(body).map_err(|e| format!("APIVersions: {e}"))?;
            Ok(Answer::CoreVersions(v.versions))
        }
        "APIGroupList" => serde_json::from_str(body)
            .map(Answer::Groups)
            .map_err(|e| format!("APIGroupList: {e}")),
        other => Err(format!("unexpected discovery document kind {other:?}")),
    }
}

/// Reads an `APIResourceList`.
///
/// # Errors
/// Not JSON, or not such a list.
pub fn parse_resources(body: &str) -> Result<ResourceList, String> {
    serde_json::from_str(body).map_err(|e| format!("APIResourceList: {e}"))
}

/// The core group as client-go adds it to the group list, from `/api`'s
/// versions.
#[must_use]
pub fn core_group(versions: &[String]) -> Group {
    let gvs: Vec<GroupVersion> = versions
        .iter()
        .map(|v| GroupVersion {
            group_version: v.clone(),
            version: v.clone(),
        })
        .collect();
    Group {
        name: String::new(),
        preferred_version: gvs.first().cloned(),
        versions: gvs,
    }
}

/// `group/version`, or `version` for the core group.
pub use crate::model::object::api_version_of as group_version;

/// Aggregated discovery (KEP-3352), read leniently: unknown fields
/// ignored, absent lists empty.
mod aggregated {
    use serde::Deserialize;

    use super::{ApiResource, Document, Group, GroupVersion, ResourceList, list};

    #[derive(Deserialize)]
    pub struct List {
        #[serde(default, deserialize_with = "list")]
        items: Vec<GroupDiscovery>,
    }

    #[derive(Deserialize, Default)]
    struct Meta {
        #[serde(default)]
        name: String,
    }

    #[derive(Deserialize)]
    struct GroupDiscovery {
        #[serde(default)]
        metadata: Meta,
        /// In the server's order of preference.
        #[serde(default, deserialize_with = "list")]
        versions: Vec<VersionDiscovery>,
    }

    #[derive(Deserialize)]
    struct VersionDiscovery {
        #[serde(default)]
        version: String,
        #[serde(default, deserialize_with = "list")]
        resources: Vec<ResourceDiscovery>,
        /// `Stale`: this version's discovery failed on the server.
        #[serde(default)]
        freshness: String,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct ResourceDiscovery {
        #[serde(default)]
        resource: String,
        #[serde(default)]
        response_kind: Option<ResponseKind>,
        #[serde(default)]
        scope: String,
        #[serde(default)]
        singular_resource: String,
        #[serde(default, deserialize_with = "list")]
        verbs: Vec<String>,
        #[serde(default, deserialize_with = "list")]
        short_names: Vec<String>,
        #[serde(default, deserialize_with = "list")]
        categories: Vec<String>,
    }

    #[derive(Deserialize, Default)]
    struct ResponseKind {
        #[serde(default)]
        group: String,
        #[serde(default)]
        version: String,
        #[serde(default)]
        kind: String,
    }

    impl List {
        /// The classic documents it stands for, as client-go converts it.
        pub fn into_document(self) -> Document {
            let mut doc = Document::default();
            doc.groups.kind = "APIGroupList".into();
            doc.groups.api_version = "v1".into();
            for g in self.items {
                let name = g.metadata.name;
                let mut group = Group {
                    name: name.clone(),
                    ..Group::default()
                };
                for v in g.versions {
                    let gv = super::group_version(&name, &v.version);
                    group.versions.push(GroupVersion {
                        group_version: gv.clone(),
                        version: v.version.clone(),
                    });
                    if v.freshness == "Stale" {
                        doc.failing.push(gv);
                        continue;
                    }
                    let resources = v
                        .resources
                        .into_iter()
                        .map(|r| {
                            let rk = r.response_kind.unwrap_or_default();
                            ApiResource {
                                name: r.resource,
                                singular_name: r.singular_resource,
                                namespaced: r.scope == "Namespaced",
                                // Only where it differs from the group version's.
                                group: if rk.group == name {
                                    String::new()
                                } else {
                                    rk.group
                                },
                                version: if rk.version == v.version {
                                    String::new()
                                } else {
                                    rk.version
                                },
                                kind: rk.kind,
                                verbs: r.verbs,
                                short_names: r.short_names,
                                categories: r.categories,
                            }
                        })
                        .collect();
                    doc.resources
                        .insert(gv.clone(), ResourceList::new(&gv, resources));
                }
                group.preferred_version = group.versions.first().cloned();
                doc.groups.groups.push(group);
            }
            doc
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_documents_are_read_with_names_and_preferences() {
        let Ok(Answer::CoreVersions(v)) = parse_answer(
            r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}"#,
        ) else {
            panic!("APIVersions");
        };
        assert_eq!(
            core_group(&v).preferred().map(|g| g.group_version.as_str()),
            Some("v1")
        );
        let Ok(Answer::Groups(groups)) = parse_answer(
            r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[
              {"name":"autoscaling","versions":[{"groupVersion":"autoscaling/v1","version":"v1"},
                {"groupVersion":"autoscaling/v2beta1","version":"v2beta1"}],
               "preferredVersion":{"groupVersion":"autoscaling/v1","version":"v1"}},
              {"name":"example.com","versions":[{"groupVersion":"example.com/v2","version":"v2"}]}]}"#,
        ) else {
            panic!("APIGroupList");
        };
        let doc = Document {
            groups,
            ..Document::default()
        };
        assert_eq!(doc.preferred(), ["autoscaling/v1", "example.com/v2"]);
        let list = parse_resources(
            r#"{"kind":"APIResourceList","groupVersion":"example.com/v2","resources":[
              {"name":"databases","singularName":"database","namespaced":true,"kind":"Database",
               "verbs":["get","list","watch"],"shortNames":["db"],"categories":["all"],"storageVersionHash":"x"},
              {"name":"databases/status","singularName":"","namespaced":true,"kind":"Database","verbs":["get"]}]}"#,
        )
        .expect("list");
        let db = &list.resources[0];
        assert_eq!(
            (
                db.singular_name.as_str(),
                db.namespaced,
                db.can("list"),
                db.can("delete")
            ),
            ("database", true, true, false)
        );
        assert_eq!(
            (db.short_names.as_slice(), db.categories.as_slice()),
            (&["db".to_string()][..], &["all".to_string()][..])
        );
        assert!(list.resources[1].is_subresource());
        // Go's empty lists are `null`.
        let empty = parse_resources(r#"{"groupVersion":"x/v1","resources":[{"name":"xs","kind":"X","verbs":null,"shortNames":null}]}"#)
            .expect("nulls");
        assert!(empty.resources[0].verbs.is_empty());
        assert!(parse_resources(r#"{"groupVersion":"x/v1","resources":null}"#).is_ok());
    }

    #[test]
    fn aggregated_discovery_becomes_the_classic_documents() {
        let body = r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[
          {"metadata":{"name":"example.com"},"versions":[
            {"version":"v2","freshness":"Current","resources":[
              {"resource":"databases","responseKind":{"group":"example.com","version":"v2","kind":"Database"},
               "scope":"Namespaced","singularResource":"database","verbs":["list","watch"],
               "shortNames":["db"],"categories":["all"],
               "subresources":[{"subresource":"status","verbs":["get"]}]}]},
            {"version":"v1","freshness":"Current","resources":[
              {"resource":"databases","responseKind":{"group":"example.com","version":"v1","kind":"Database"},
               "scope":"Namespaced","singularResource":"database","verbs":["list"]}]}]},
          {"metadata":{"name":"metrics.k8s.io"},"versions":[{"version":"v1beta1","freshness":"Stale"}]},
          {"metadata":{"name":"rbac.authorization.k8s.io"},"versions":[{"version":"v1","resources":[
              {"resource":"clusterroles","responseKind":{"group":"rbac.authorization.k8s.io","version":"v1","kind":"ClusterRole"},
               "scope":"Cluster","singularResource":"clusterrole","verbs":["list"]}]}]}]}"#;
        let Ok(Answer::Aggregated(doc)) = parse_answer(body) else {
            panic!("aggregated");
        };
        // The first version listed is the preferred one.
        assert_eq!(
            doc.preferred(),
            [
                "example.com/v2",
                "metrics.k8s.io/v1beta1",
                "rbac.authorization.k8s.io/v1"
            ]
        );
        assert_eq!(doc.failing, ["metrics.k8s.io/v1beta1"]);
        let db = &doc.resources["example.com/v2"].resources[0];
        assert_eq!(db.kind, "Database");
        assert!(db.namespaced && db.group.is_empty() && db.version.is_empty());
        assert_eq!(
            (db.short_names[0].as_str(), db.categories[0].as_str()),
            ("db", "all")
        );
        assert_eq!(db.singular_name, "database");
        let cr = &doc.resources["rbac.authorization.k8s.io/v1"].resources[0];
        assert!(!cr.namespaced);
        assert_eq!(doc.resources["example.com/v2"].kind, "APIResourceList");
    }

    #[test]
    fn bad_documents_are_errors() {
        assert!(parse_answer("<html>").is_err());
        assert!(parse_answer(r#"{"kind":"Status"}"#).is_err());
        assert!(parse_answer(r#"{"kind":"APIGroupList","groups":7}"#).is_err());
        assert!(parse_resources(r#"{"kind":"APIResourceList"}"#).is_err());
    }
}
