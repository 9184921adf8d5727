//! Query strings: decoding, and the options of a list or a watch.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::selector::FieldSelector;
use crate::model::selector::Selector;

/// `a=b&c=%2Fd` -> `[("a","b"),("c","/d")]`; `+` is a space.
#[must_use]
pub fn parse_query(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// Percent-decoding of a query's part; `+` is a space; a malformed
/// escape is kept as written.
#[must_use]
pub fn decode(s: &str) -> String {
    percent(s, true)
}

/// Percent-decoding of a path, as Go's `URL.Path` (which kube-apiserver
/// routes by) decodes it: `%2F` too is a `/`; `+` stays.
#[must_use]
pub fn decode_path(s: &str) -> String {
    percent(s, false)
}

fn percent(s: &str, plus_is_space: bool) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' if plus_is_space => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz");
                if let Ok(b) = u8::from_str_radix(hex, 16) {
                    out.push(b);
                    i += 3;
                    continue;
                }
                out.push(b'%');
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a list or watch asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListOptions {
    pub labels: Selector,
    pub fields: FieldSelector,
    pub limit: Option<usize>,
    /// Where the previous page stopped: the `namespace/name` of its last item.
    pub after: Option<String>,
    /// How many items the pages before held (for `remainingItemCount`).
    pub listed: usize,
    pub watch: bool,
    pub resource_version: Option<String>,
    pub bookmarks: bool,
    pub timeout_seconds: Option<u64>,
    /// A table's rows carry no object (`includeObject=None`).
    pub include_object: Option<String>,
}

impl ListOptions {
    /// Reads the options; a malformed one is said as the API server says it.
    ///
    /// # Errors
    /// A selector that does not parse, a bad limit or continue token.
    pub fn from_query(q: &[(String, String)]) -> Result<ListOptions, String> {
        let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        let mut o = ListOptions {
            labels: Selector::parse(get("labelSelector").unwrap_or(""))?,
            fields: FieldSelector::parse(get("fieldSelector").unwrap_or(""))?,
            ..ListOptions::default()
        };
        if let Some(l) = get("limit").filter(|l| !l.is_empty()) {
            let n: i64 = l
                .parse()
                .map_err(|_| format!("invalid value {l:?} for limit"))?;
            o.limit = usize::try_from(n).ok().filter(|n| *n > 0);
        }
        if let Some(c) = get("continue").filter(|c| !c.is_empty()) {
            let (after, listed) = decode_continue(c).ok_or_else(|| {
                "continue key is not valid: the continue token is malformed".to_string()
            })?;
            (o.after, o.listed) = (Some(after), listed);
        }
        o.watch = matches!(get("watch"), Some("true" | "1"));
        o.resource_version = get("resourceVersion")
            .filter(|v| !v.is_empty())
            .map(str::to_string);
        o.bookmarks = matches!(get("allowWatchBookmarks"), Some("true" | "1"));
        o.timeout_seconds = get("timeoutSeconds").and_then(|t| t.parse().ok());
        o.include_object = get("includeObject").map(str::to_string);
        Ok(o)
    }
}

/// The `continue` token for a page that ended at `key`, `listed` items
/// having been listed with it.
#[must_use]
pub fn encode_continue(key: &str, listed: usize) -> String {
    STANDARD.encode(
        serde_json::json!({"v": "ownerscope/1", "start": key, "listed": listed}).to_string(),
    )
}

fn decode_continue(token: &str) -> Option<(String, usize)> {
    let raw = STANDARD.decode(token).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&raw).ok()?;
    let listed = v["listed"].as_u64().and_then(|n| usize::try_from(n).ok());
    Some((v["start"].as_str()?.to_string(), listed.unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode() {
        assert_eq!(
            parse_query("labelSelector=app%3Dweb&watch=true&x"),
            vec![
                ("labelSelector".into(), "app=web".into()),
                ("watch".into(), "true".into()),
                ("x".into(), String::new())
            ]
        );
        assert_eq!(decode("a%zz%"), "a%zz%");
        assert_eq!(decode("%2"), "%2");
        assert_eq!(
            decode_path("/api/v1/namespaces/a%2Fconfig%6Daps/c+1"),
            "/api/v1/namespaces/a/configmaps/c+1"
        );
    }

    #[test]
    fn options_read_and_refuse() {
        let q = parse_query("limit=2&continue=&resourceVersion=0&allowWatchBookmarks=true");
        let o = ListOptions::from_query(&q).expect("parses");
        assert_eq!(o.limit, Some(2));
        assert!(o.bookmarks);
        let tok = encode_continue("shop/web", 7);
        let o = ListOptions::from_query(&[("continue".into(), tok)]).expect("parses");
        assert_eq!(o.after.as_deref(), Some("shop/web"));
        assert_eq!(o.listed, 7);
        assert!(ListOptions::from_query(&[("continue".into(), "!!".into())]).is_err());
        assert!(ListOptions::from_query(&[("limit".into(), "x".into())]).is_err());
    }
}
