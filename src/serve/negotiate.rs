//! Which form the client asked for in `Accept`: the object, a table
//! (`as=Table`, what `kubectl get` prints), metadata only
//! (`as=PartialObjectMetadata[List]`, what the live backend watches), or
//! aggregated discovery (`as=APIGroupDiscoveryList`).

/// The form of an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Full,
    Table,
    Meta,
    /// Aggregated discovery, `apidiscovery.k8s.io` version `v2` or `v2beta1`.
    Discovery(&'static str),
}

/// The content type a table is sent with.
pub const TABLE_TYPE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

/// Picks the first form of `accept` this server can give; `None` when it
/// can give none (only protobuf asked for, say).
#[must_use]
pub fn form(accept: &str) -> Option<Form> {
    if accept.trim().is_empty() {
        return Some(Form::Full);
    }
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let media = parts.next().unwrap_or_default().to_ascii_lowercase();
        let mut as_ = "";
        let mut g = "";
        let mut v = "";
        for p in parts {
            match p.split_once('=') {
                Some(("as", x)) => as_ = x,
                Some(("g", x)) => g = x,
                Some(("v", x)) => v = x,
                _ => {}
            }
        }
        if !matches!(media.as_str(), "application/json" | "application/*" | "*/*") {
            continue;
        }
        match (as_, g) {
            ("", _) => return Some(Form::Full),
            ("Table", "meta.k8s.io") if v == "v1" || v == "v1beta1" => return Some(Form::Table),
            ("PartialObjectMetadata" | "PartialObjectMetadataList", "meta.k8s.io")
                if v == "v1" || v == "v1beta1" =>
            {
                return Some(Form::Meta);
            }
            ("APIGroupDiscoveryList", "apidiscovery.k8s.io") if v == "v2" => {
                return Some(Form::Discovery("v2"));
            }
            ("APIGroupDiscoveryList", "apidiscovery.k8s.io") if v == "v2beta1" => {
                return Some(Form::Discovery("v2beta1"));
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_are_picked_in_the_clients_order() {
        assert_eq!(
            form(
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
            ),
            Some(Form::Table)
        );
        assert_eq!(
            form("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
            Some(Form::Meta)
        );
        assert_eq!(
            form(
                "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
            ),
            Some(Form::Discovery("v2"))
        );
        assert_eq!(
            form("application/vnd.kubernetes.protobuf, */*"),
            Some(Form::Full)
        );
        assert_eq!(form("application/vnd.kubernetes.protobuf"), None);
        assert_eq!(form("application/json;as=Nope;g=x;v=y"), None);
        assert_eq!(form(""), Some(Form::Full));
    }
}
