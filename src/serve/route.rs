//! Request paths, as the API server lays them out: `/api/v1/...` for the
//! core group, `/apis/GROUP/VERSION/...` for the others, then
//! `[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]]`.

use crate::model::KindTable;

/// Where a request goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    Version,
    Health,
    /// `/api`: the core group's versions.
    Api,
    /// `/apis`: the groups.
    Apis,
    /// `/apis/GROUP`.
    Group(String),
    /// `/api/v1`, `/apis/GROUP/VERSION`: the resources of a version.
    Resources {
        group: String,
        version: String,
    },
    /// `/openapi/v2`, `/openapi/v3[/...]`: what follows `/openapi/`.
    OpenApi(String),
    /// A resource collection or object.
    Resource(ResourcePath),
    /// Not a path this server has.
    Unknown,
}

/// A path naming resources.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourcePath {
    pub group: String,
    pub version: String,
    /// `deployments`.
    pub plural: String,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
    /// The legacy `/watch/` path form.
    pub watch_prefix: bool,
}

/// Parses a path; `kinds` tells a namespace's subresource
/// (`namespaces/x/finalize`) from a collection in it (`namespaces/x/pods`).
#[must_use]
pub fn parse(path: &str, kinds: &KindTable) -> Route {
    // `//` inside a path, and `.` or `..` anywhere but in a name's place,
    // are no path the API server has (it does not clean paths).
    let Some(rest) = path.strip_prefix('/') else {
        return Route::Unknown;
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let segs: Vec<&str> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split('/').collect()
    };
    if segs.iter().any(|s| s.is_empty()) {
        return Route::Unknown;
    }
    match segs.as_slice() {
        ["version"] => Route::Version,
        ["healthz" | "livez" | "readyz", ..] => Route::Health,
        ["api"] => Route::Api,
        ["apis"] => Route::Apis,
        ["openapi", rest @ ..] => Route::OpenApi(rest.join("/")),
        ["apis", g] => Route::Group((*g).to_string()),
        ["api", v] => Route::Resources {
            group: String::new(),
            version: (*v).to_string(),
        },
        ["apis", g, v] => Route::Resources {
            group: (*g).to_string(),
            version: (*v).to_string(),
        },
        ["api", v, rest @ ..] => resource("", v, rest, kinds),
        ["apis", g, v, rest @ ..] => resource(g, v, rest, kinds),
        _ => Route::Unknown,
    }
}

fn resource(group: &str, version: &str, rest: &[&str], kinds: &KindTable) -> Route {
    let (watch_prefix, rest) = match rest {
        ["watch", tail @ ..] => (true, tail),
        _ => (false, rest),
    };
    let is_collection = |plural: &str| {
        kinds
            .iter()
            .any(|k| k.group == group && k.plural == plural && k.namespaced)
            || super::discovery::is_namespaced_review(group, plural)
    };
    let mut p = ResourcePath {
        group: group.to_string(),
        version: version.to_string(),
        watch_prefix,
        ..ResourcePath::default()
    };
    let tail: &[&str] = match rest {
        ["namespaces", ns, plural, tail @ ..] if is_collection(plural) => {
            p.namespace = Some((*ns).to_string());
            p.plural = (*plural).to_string();
            tail
        }
        [plural, tail @ ..] => {
            p.plural = (*plural).to_string();
            tail
        }
        [] => return Route::Unknown,
    };
    let dots = |s: &str| s == "." || s == "..";
    if dots(&p.plural) || p.namespace.as_deref().is_some_and(dots) {
        return Route::Unknown;
    }
    match tail {
        [] => {}
        [name] => p.name = Some((*name).to_string()),
        [name, sub] if dots(name) || dots(sub) => return Route::Unknown,
        [name, sub] => {
            p.name = Some((*name).to_string());
            p.subresource = Some((*sub).to_string());
        }
        _ => return Route::Unknown,
    }
    Route::Resource(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> ResourcePath {
        match parse(p, &KindTable::builtin()) {
            Route::Resource(r) => r,
            other => panic!("{p}: {other:?}"),
        }
    }

    #[test]
    fn paths_name_what_they_should() {
        let r = path("/apis/apps/v1/namespaces/shop/deployments/web");
        assert_eq!(
            (r.group.as_str(), r.plural.as_str(), r.namespace.as_deref()),
            ("apps", "deployments", Some("shop"))
        );
        assert_eq!(r.name.as_deref(), Some("web"));
        let ns = path("/api/v1/namespaces/shop");
        assert_eq!(
            (ns.plural.as_str(), ns.name.as_deref(), ns.namespace),
            ("namespaces", Some("shop"), None)
        );
        let fin = path("/api/v1/namespaces/shop/finalize");
        assert_eq!(fin.subresource.as_deref(), Some("finalize"));
        let all = path("/api/v1/pods");
        assert_eq!((all.plural.as_str(), all.name), ("pods", None));
        let w = path("/api/v1/watch/namespaces/a/configmaps");
        assert!(w.watch_prefix);
        assert_eq!(w.namespace.as_deref(), Some("a"));
        let k = KindTable::builtin();
        assert_eq!(parse("/apis", &k), Route::Apis);
        assert_eq!(parse("/nope", &k), Route::Unknown);
        assert_eq!(parse("/api/v1/a/b/c/d", &k), Route::Unknown);
        for odd in [
            "//api/v1/namespaces",
            "/api//v1/namespaces",
            "/api/v1/namespaces/../namespaces",
            "/api/v1/namespaces/x/../configmaps",
            "api/v1/pods",
        ] {
            assert_eq!(parse(odd, &k), Route::Unknown, "{odd}");
        }
        assert_eq!(parse("/api/", &k), Route::Api);
        assert_eq!(
            path("/api/v1/namespaces/x/configmaps/..").name.as_deref(),
            Some("..")
        );
    }
}
