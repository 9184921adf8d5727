//! What kube-apiserver 1.20 refuses before anything is stored, in its
//! words: metadata (`ValidateObjectMeta`: the name by its kind's rule,
//! `generateName`, label keys and values, annotation keys and their
//! 256 KiB total), ConfigMap and Secret data (1 MiB), what a Secret of a
//! type of its own must hold ([`secret`]), and `dryRun` values
//! other than `All`. Every message is upstream's (apimachinery
//! `validation.IsDNS1123Subdomain` and friends), with values quoted as Go
//! quotes them, so that an ESC or a bidi control in a name is shown
//! escaped and never reaches a terminal raw.

use serde_json::{Value, json};

mod go_diff;
mod go_value;
mod immutable;
mod secret;

use super::escalation::go_quote;
use super::status::status_value;
use super::{Request, Response};
use crate::model::KindInfo;

/// Upstream `TotalAnnotationSizeLimitB`.
pub const ANNOTATIONS_MAX: usize = 256 * 1024;
/// Upstream `MaxSecretSize`, for ConfigMaps and Secrets.
pub const DATA_MAX: usize = 1024 * 1024;

const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const QUALIFIED_MSG: &str = "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";

const CONFIG_KEY_MSG: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

fn max_len(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `s` matches `[end]([inner]*[end])?`.
fn shaped(s: &str, end: impl Fn(u8) -> bool, inner: impl Fn(u8) -> bool) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => end(f) && end(l) && b.iter().all(|&c| end(c) || inner(c)),
        _ => false,
    }
}

fn lower_digit(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

fn is_label(s: &str) -> bool {
    shaped(s, lower_digit, |c| c == b'-')
}

fn is_subdomain(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_label)
}

fn is_name_part(s: &str) -> bool {
    shaped(s, |c| c.is_ascii_alphanumeric(), |c| b"-_.".contains(&c))
}

/// Upstream `IsDNS1123Subdomain`.
fn subdomain(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len(253));
    }
    if !is_subdomain(s) {
        errs.push(SUBDOMAIN_MSG.to_string());
    }
    errs
}

/// Upstream `IsDNS1123Label`.
fn dns_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    if !is_label(s) {
        errs.push(LABEL_MSG.to_string());
    }
    errs
}

/// Upstream `IsDNS1035Label`.
fn dns1035(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    if !shaped(s, lower_digit, |c| c == b'-') || !s.as_bytes()[0].is_ascii_lowercase() {
        errs.push(DNS1035_MSG.to_string());
    }
    errs
}

/// Upstream `IsValidPathSegmentName` (RBAC objects' names).
fn path_segment(s: &str) -> Vec<String> {
    if s == "." || s == ".." {
        return vec![format!("may not be '{s}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|x| s.contains(*x))
        .map(|x| format!("may not contain '{x}'"))
        .collect()
}

/// The name rule of a kind (`ValidateObjectMeta`'s name function), given
/// whether it is a `generateName` prefix (a trailing `-` is allowed).
fn name_errors(kind: &KindInfo, name: &str, prefix: bool) -> Vec<String> {
    let masked = if prefix {
        mask_trailing_dash(name)
    } else {
        std::borrow::Cow::Borrowed(name)
    };
    let masked = if masked.is_empty() && prefix {
        "a"
    } else {
        &masked
    };
    match (kind.group.as_str(), kind.kind.as_str()) {
        ("", "Namespace") => dns_label(masked),
        ("", "Service") => dns1035(masked),
        ("rbac.authorization.k8s.io", _) | ("certificates.k8s.io", "CertificateSigningRequest") => {
            path_segment(masked)
        }
        _ => subdomain(masked),
    }
}

/// Upstream `maskTrailingDash`: a prefix ending in `-` is checked with its
/// last two bytes replaced by an `a` (`name[:len(name)-2] + "a"`), so
/// `a--` is checked as `aa` and taken. A byte left of a character cut in
/// two reads as a character no name may hold, as Go's would. A lone `-`
/// (which 1.20's mask cannot cut) is checked as nothing.
fn mask_trailing_dash(name: &str) -> std::borrow::Cow<'_, str> {
    match name.len() {
        2.. if name.ends_with('-') => {
            let mut bytes = name.as_bytes()[..name.len() - 2].to_vec();
            bytes.push(b'a');
            std::borrow::Cow::Owned(String::from_utf8_lossy(&bytes).into_owned())
        }
        _ => std::borrow::Cow::Borrowed(name.strip_suffix('-').unwrap_or(name)),
    }
}

/// Upstream `IsQualifiedName`.
fn qualified_name(s: &str) -> Vec<String> {
    let parts: Vec<&str> = s.split('/').collect();
    let (prefix, name) = match parts.as_slice() {
        [n] => (None, *n),
        [p, n] => (Some(*p), *n),
        _ => return vec![QUALIFIED_MSG.to_string()],
    };
    let mut errs = Vec::new();
    if let Some(p) = prefix {
        if p.is_empty() {
            errs.push("prefix part must be non-empty".to_string());
        } else {
            errs.extend(subdomain(p).into_iter().map(|m| format!("prefix part {m}")));
        }
    }
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len(63)));
    }
    if !name.is_empty() && !is_name_part(name) {
        errs.push(NAME_PART_MSG.to_string());
    }
    errs
}

/// Upstream `IsValidLabelValue`.
fn label_value(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    if !s.is_empty() && !is_name_part(s) {
        errs.push(LABEL_VALUE_MSG.to_string());
    }
    errs
}

/// One `field.Error`.
struct Cause {
    field: String,
    reason: &'static str,
    message: String,
}

fn invalid_value(field: &str, value: &str, detail: &str) -> Cause {
    Cause {
        field: field.to_string(),
        reason: "FieldValueInvalid",
        message: format!("Invalid value: {}: {detail}", go_quote(value)),
    }
}

fn too_long(field: &str, max: usize) -> Cause {
    Cause {
        field: field.to_string(),
        reason: "FieldValueTooLong",
        message: format!("Too long: must have at most {max} bytes"),
    }
}

fn strings_of(v: &Value) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = v
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    out.sort_unstable();
    out
}

/// Upstream `IsConfigMapKey`: a ConfigMap's or a Secret's data key.
fn config_key(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len(253));
    }
    if s.is_empty()
        || !s
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-._".contains(&c))
    {
        errs.push(CONFIG_KEY_MSG.to_string());
    }
    match s {
        "." => errs.push("must not be '.'".into()),
        ".." => errs.push("must not be '..'".into()),
        _ if s.starts_with("..") => errs.push("must not start with '..'".into()),
        _ => {}
    }
    errs
}

/// The keys of a data field (`data[key]`), each as `IsConfigMapKey`
/// finds it; `other`: the keys a ConfigMap's other data field has, which
/// this one may not repeat.
fn data_keys(field: &str, keys: &Value, other: Option<&Value>, out: &mut Vec<Cause>) {
    for (k, _) in strings_of(keys) {
        let at = format!("{field}[{k}]");
        for m in config_key(k) {
            out.push(invalid_value(&at, k, &m));
        }
        if other.and_then(|o| o.get(k)).is_some() {
            out.push(invalid_value(
                &at,
                k,
                "duplicate of key present in binaryData",
            ));
        }
    }
}

/// The size of a base64 value once decoded.
fn decoded_len(v: &str) -> usize {
    v.trim_end_matches('=').len() * 3 / 4
}

/// Upstream `ValidateObjectMeta` (name, generateName, labels,
/// annotations), and of ConfigMaps and Secrets (`ValidateConfigMap`,
/// `ValidateSecret`) the data keys and size.
fn causes(kind: &KindInfo, obj: &Value) -> Vec<Cause> {
    let meta = &obj["metadata"];
    let mut out = Vec::new();
    if let Some(g) = meta["generateName"].as_str().filter(|g| !g.is_empty()) {
        for m in name_errors(kind, g, true) {
            out.push(invalid_value("metadata.generateName", g, &m));
        }
    }
    let name = meta["name"].as_str().unwrap_or_default();
    if !name.is_empty() {
        for m in name_errors(kind, name, false) {
            out.push(invalid_value("metadata.name", name, &m));
        }
    }
    for (k, v) in strings_of(&meta["labels"]) {
        for m in qualified_name(k) {
            out.push(invalid_value("metadata.labels", k, &m));
        }
        for m in label_value(v) {
            out.push(invalid_value("metadata.labels", v, &m));
        }
    }
    let mut total = 0;
    for (k, v) in strings_of(&meta["annotations"]) {
        for m in qualified_name(&k.to_lowercase()) {
            out.push(invalid_value("metadata.annotations", k, &m));
        }
        total += k.len() + v.len();
    }
    if total > ANNOTATIONS_MAX {
        out.push(too_long("metadata.annotations", ANNOTATIONS_MAX));
    }
    if kind.group.is_empty() && kind.kind == "ConfigMap" {
        data_keys("data", &obj["data"], Some(&obj["binaryData"]), &mut out);
        data_keys("binaryData", &obj["binaryData"], None, &mut out);
        let size: usize = strings_of(&obj["data"])
            .iter()
            .map(|(_, v)| v.len())
            .chain(
                strings_of(&obj["binaryData"])
                    .iter()
                    .map(|(_, v)| decoded_len(v)),
            )
            .sum();
        if size > DATA_MAX {
            out.push(too_long("[]", DATA_MAX));
        }
    }
    if kind.group.is_empty() && kind.kind == "Secret" {
        // `stringData` is in `data` by now (`unkept::normalize`), but a
        // check of the body as sent counts it too.
        data_keys("data", &obj["data"], None, &mut out);
        data_keys("data", &obj["stringData"], None, &mut out);
        // Values are base64: their decoded size counts.
        let size: usize = strings_of(&obj["data"])
            .iter()
            .map(|(_, v)| decoded_len(v))
            .sum::<usize>()
            + strings_of(&obj["stringData"])
                .iter()
                .map(|(_, v)| v.len())
                .sum::<usize>();
        if size > DATA_MAX {
            out.push(too_long("data", DATA_MAX));
        }
        secret::type_causes(obj, &mut out);
    }
    out
}

/// The 422 for `causes` (upstream `NewInvalid`).
fn invalid(kind: &KindInfo, name: &str, causes: &[Cause]) -> Response {
    let qualified = if kind.group.is_empty() {
        kind.kind.clone()
    } else {
        format!("{}.{}", kind.kind, kind.group)
    };
    let mut lines: Vec<String> = Vec::new();
    for c in causes {
        let line = format!("{}: {}", c.field, c.message);
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    let joined = if lines.len() == 1 {
        lines.remove(0)
    } else {
        format!("[{}]", lines.join(", "))
    };
    let message = format!("{qualified} {} is invalid: {joined}", go_quote(name));
    let details = json!({
        "name": name, "group": kind.group, "kind": kind.kind,
        "causes": causes.iter().map(|c| json!({"reason": c.reason, "message": c.message, "field": c.field})).collect::<Vec<_>>(),
    });
    Response::json(422, &status_value(422, &message, Some(details)))
}

/// Whether an update of `kind` is checked against the stored object
/// ([`validate_update`]).
#[must_use]
pub fn checks_update(kind: &KindInfo) -> bool {
    kind.group.is_empty() && matches!(kind.kind.as_str(), "ConfigMap" | "Secret")
}

/// What an update may not change of a ConfigMap or a Secret
/// (`ValidateConfigMapUpdate`, `ValidateSecretUpdate`): a Secret's
/// `type`; once `immutable` is set, `immutable` itself and the data.
fn update_causes(kind: &KindInfo, new: &Value, old: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    if !checks_update(kind) {
        return out;
    }
    let forbidden = |field: &str| Cause {
        field: field.to_string(),
        reason: "FieldValueForbidden",
        message: "Forbidden: field is immutable when `immutable` is set".into(),
    };
    let secret = kind.kind == "Secret";
    if secret && new["type"] != old["type"] {
        let shown = new["type"].as_str().unwrap_or_default();
        out.push(invalid_value("type", shown, "field is immutable"));
    }
    if old["immutable"] == true {
        if new["immutable"] != true {
            out.push(forbidden("immutable"));
        }
        let empty = |v: &Value| v.as_object().is_none_or(serde_json::Map::is_empty);
        let fields: &[&str] = if secret {
            &["data"]
        } else {
            &["data", "binaryData"]
        };
        for f in fields {
            if new[*f] != old[*f] && !(empty(&new[*f]) && empty(&old[*f])) {
                out.push(forbidden(f));
            }
        }
    }
    out
}

/// Checks the object a create would store.
///
/// # Errors
/// The 422 kube-apiserver answers.
pub fn validate(kind: &KindInfo, obj: &Value) -> Result<(), Response> {
    validate_update(kind, obj, None)
}

/// Checks the object a create (`old` `None`) or an update would store
/// over `old`.
///
/// # Errors
/// The 422 kube-apiserver answers.
pub fn validate_update(kind: &KindInfo, obj: &Value, old: Option<&Value>) -> Result<(), Response> {
    let mut found = causes(kind, obj);
    if let Some(old) = old {
        // Upstream checks the metadata first, then what the update may
        // not change, then the object as a create would.
        let meta = found
            .iter()
            .take_while(|c| c.field.starts_with("metadata."))
            .count();
        let update = update_causes(kind, obj, old);
        found.splice(meta..meta, update);
    }
    if found.is_empty() {
        return Ok(());
    }
    let name = obj["metadata"]["name"].as_str().unwrap_or_default();
    Err(invalid(kind, name, &found))
}

/// Checks what a client's update of the object (not of its status) may
/// not change ([`immutable`]): `new` and `old` whole, as the API server
/// holds them, defaults set.
///
/// # Errors
/// The 422 kube-apiserver answers.
pub fn validate_immutable(kind: &KindInfo, new: &Value, old: &Value) -> Result<(), Response> {
    if !immutable::checks(kind) {
        return Ok(());
    }
    let found = immutable::causes(kind, new, old);
    if found.is_empty() {
        return Ok(());
    }
    let name = new["metadata"]["name"].as_str().unwrap_or_default();
    Err(invalid(kind, name, &found))
}

/// Checks what a write of the object's `status` subresource may not
/// change ([`immutable`]): `new` and `old` whole.
///
/// # Errors
/// The 422 kube-apiserver answers.
pub fn validate_status_update(kind: &KindInfo, new: &Value, old: &Value) -> Result<(), Response> {
    let found = immutable::status_causes(kind, new, old);
    if found.is_empty() {
        return Ok(());
    }
    let name = new["metadata"]["name"].as_str().unwrap_or_default();
    Err(invalid(kind, name, &found))
}

/// `dryRun` values other than `All` (upstream's options validation):
/// `options` is `CreateOptions`, `UpdateOptions`, `PatchOptions` or
/// `DeleteOptions`.
///
/// # Errors
/// Its 422.
pub fn dry_run_values(req: &Request, options: &str) -> Result<(), Response> {
    let values: Vec<&str> = req
        .query
        .iter()
        .filter(|(k, _)| k == "dryRun")
        .map(|(_, v)| v.as_str())
        .collect();
    dry_run_list(&values, options)?;
    if options == "DeleteOptions" {
        return Ok(());
    }
    field_manager(req.param("fieldManager").unwrap_or_default(), options)
}

/// Whether `c` is printable as Go's `unicode.IsPrint` has it: no control
/// or format character (bidi marks, zero-width spaces), no space but ' '.
fn printable(c: char) -> bool {
    let format = matches!(c,
        '\u{ad}' | '\u{600}'..='\u{605}' | '\u{61c}' | '\u{6dd}' | '\u{70f}' | '\u{180e}'
        | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}');
    c == ' ' || !(c.is_control() || c.is_whitespace() || format)
}

/// Upstream `ValidateFieldManager` of a create's, update's or patch's
/// options: at most 128 bytes, every character printable; empty is none.
///
/// # Errors
/// Its 422.
pub fn field_manager(manager: &str, options: &str) -> Result<(), Response> {
    let mut causes = Vec::new();
    if manager.len() > 128 {
        causes.push((
            "FieldValueTooLong",
            "Too long: must have at most 128 bytes".to_string(),
        ));
    }
    for (i, c) in manager.char_indices() {
        if !printable(c) {
            causes.push((
                "FieldValueInvalid",
                format!(
                    "Invalid value: {}: invalid character U+{:04X} (at position {i})",
                    go_quote(manager),
                    u32::from(c)
                ),
            ));
        }
    }
    if causes.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = causes
        .iter()
        .map(|(_, m)| format!("fieldManager: {m}"))
        .collect();
    let all = match shown.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    let message = format!("{options}.meta.k8s.io \"\" is invalid: {all}");
    let details = json!({
        "group": "meta.k8s.io", "kind": options,
        "causes": causes.iter().map(|(reason, m)| json!({"reason": reason, "message": m, "field": "fieldManager"})).collect::<Vec<_>>(),
    });
    Err(Response::json(
        422,
        &status_value(422, &message, Some(details)),
    ))
}

/// As [`dry_run_values`], for values from wherever they came (a
/// DELETE's may be in its `DeleteOptions` body).
///
/// # Errors
/// Its 422.
pub fn dry_run_list(values: &[&str], options: &str) -> Result<(), Response> {
    if values.iter().all(|v| *v == "All") {
        return Ok(());
    }
    let shown: Vec<String> = values.iter().map(|v| go_quote(v)).collect();
    let cause = format!(
        "Unsupported value: []string{{{}}}: supported values: \"All\"",
        shown.join(", ")
    );
    Err(unsupported_option(options, "dryRun", &cause))
}

/// The 422 of an option `field` of `options` (`CreateOptions`, ...) with a
/// value it does not support (`cause`: `Unsupported value: ...`).
#[must_use]
pub fn unsupported_option(options: &str, field: &str, cause: &str) -> Response {
    let message = format!("{options}.meta.k8s.io \"\" is invalid: {field}: {cause}");
    let details = json!({
        "group": "meta.k8s.io", "kind": options,
        "causes": [{"reason": "FieldValueNotSupported", "message": cause, "field": field}],
    });
    Response::json(422, &status_value(422, &message, Some(details)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KindTable;

    pub(super) fn kind(group: &str, k: &str) -> KindInfo {
        KindTable::builtin()
            .iter()
            .find(|x| x.group == group && x.kind == k)
            .cloned()
            .expect("kind")
    }

    fn message(kind: &KindInfo, obj: Value) -> String {
        validate(kind, &obj).expect_err("refused").value()["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The messages kube-apiserver 1.20 answered the same objects with
    /// (sent to the test control plane).
    #[test]
    fn refusals_read_as_kube_apiservers() {
        let cm = kind("", "ConfigMap");
        assert_eq!(
            message(&cm, json!({"metadata": {"name": "a\u{1b}b"}})),
            format!(
                "ConfigMap \"a\\x1bb\" is invalid: metadata.name: Invalid value: \"a\\x1bb\": {SUBDOMAIN_MSG}"
            )
        );
        assert!(message(&cm, json!({"metadata": {"name": "a\u{202e}b"}})).starts_with("ConfigMap \"a\\u202eb\" is invalid: metadata.name: Invalid value: \"a\\u202eb\": a lowercase RFC"));
        assert!(
            message(&cm, json!({"metadata": {"name": "a\u{200b}b"}}))
                .starts_with("ConfigMap \"a\\u200bb\" is invalid")
        );
        let long = "a".repeat(300);
        assert!(
            message(&cm, json!({"metadata": {"name": long}}))
                .ends_with("\": must be no more than 253 characters")
        );
        let labels = json!({"metadata": {"name": "lk", "labels": {"a\u{1b}": "x", "b": "y".repeat(70)}, "annotations": {"Bad Key": "v"}}});
        assert_eq!(
            message(&cm, labels),
            format!(
                "ConfigMap \"lk\" is invalid: [metadata.labels: Invalid value: \"a\\x1b\": {NAME_PART_MSG}, metadata.labels: Invalid value: \"{}\": must be no more than 63 characters, metadata.annotations: Invalid value: \"Bad Key\": {NAME_PART_MSG}]",
                "y".repeat(70)
            )
        );
        assert_eq!(
            message(
                &cm,
                json!({"metadata": {"name": "big", "annotations": {"k": "x".repeat(300 * 1024)}}})
            ),
            "ConfigMap \"big\" is invalid: metadata.annotations: Too long: must have at most 262144 bytes"
        );
        assert_eq!(
            message(
                &cm,
                json!({"metadata": {"name": "bigdata"}, "data": {"k": "x".repeat(1536 * 1024)}})
            ),
            "ConfigMap \"bigdata\" is invalid: []: Too long: must have at most 1048576 bytes"
        );
        let secret = kind("", "Secret");
        let b64 = "eHh4".repeat(1100 * 1024 / 3);
        assert_eq!(
            message(
                &secret,
                json!({"metadata": {"name": "bigsec"}, "data": {"k": b64}})
            ),
            "Secret \"bigsec\" is invalid: data: Too long: must have at most 1048576 bytes"
        );
        let ns = kind("", "Namespace");
        assert!(
            message(&ns, json!({"metadata": {"name": "a".repeat(70)}}))
                .ends_with(": must be no more than 63 characters")
        );
        // generateName: the prefix, then the name made of it.
        let m = message(
            &cm,
            json!({"metadata": {"name": "a\u{1b}bltkjn", "generateName": "a\u{1b}b"}}),
        );
        assert!(m.starts_with("ConfigMap \"a\\x1bbltkjn\" is invalid: [metadata.generateName: Invalid value: \"a\\x1bb\": a lowercase RFC 1123 subdomain"), "{m}");
        // RBAC names are path segments: what a URL segment holds is fine.
        let role = kind("rbac.authorization.k8s.io", "ClusterRole");
        assert!(validate(&role, &json!({"metadata": {"name": "system:controller:x"}})).is_ok());
        assert!(
            message(&role, json!({"metadata": {"name": "a/b"}})).ends_with("may not contain '/'")
        );
        assert!(validate(&cm, &json!({"metadata": {"generateName": "web-", "name": "web-x2b4c", "labels": {"app.kubernetes.io/name": "web", "e": ""}}})).is_ok());
        // maskTrailingDash: the last two bytes of a prefix ending in `-`
        // become an `a`: `a--` is checked as `aa` and taken, `a-` as `a`,
        // `a.-` as `aa` (1.20 then refuses only the name made of it,
        // `a.-9rnj6`); `-a-` as `-a`, refused; `é-` as half of `é` then
        // `a`, refused. As the test control plane answered each.
        for (prefix, taken) in [
            ("a--", true),
            ("a-", true),
            ("ab-", true),
            ("a.-", true),
            ("-a-", false),
            ("é-", false),
        ] {
            let got = validate(
                &cm,
                &json!({"metadata": {"generateName": prefix, "name": "x"}}),
            );
            assert_eq!(got.is_ok(), taken, "{prefix}: {got:?}");
        }
    }

    /// As the test control plane answered the same ConfigMap and Secret.
    #[test]
    fn data_keys_are_checked_as_kube_apiserver_checks_them() {
        let cm = kind("", "ConfigMap");
        let bad = json!({"metadata": {"name": "bad"},
                         "data": {"a b": "1", "..x": "2", ".": "3", "ok-key_1.x": "4"},
                         "binaryData": {"a b": "eA=="}});
        assert_eq!(
            message(&cm, bad),
            format!(
                "ConfigMap \"bad\" is invalid: [data[.]: Invalid value: \".\": must not be '.', data[..x]: Invalid value: \"..x\": must not start with '..', data[a b]: Invalid value: \"a b\": {CONFIG_KEY_MSG}, data[a b]: Invalid value: \"a b\": duplicate of key present in binaryData, binaryData[a b]: Invalid value: \"a b\": {CONFIG_KEY_MSG}]"
            )
        );
        let long = "k".repeat(254);
        assert!(
            message(
                &cm,
                json!({"metadata": {"name": "l"}, "data": {long.clone(): ""}})
            )
            .ends_with("\": must be no more than 253 characters")
        );
        let fine = json!({"metadata": {"name": "l"}, "data": {"k".repeat(253): "", "..": null}});
        assert_eq!(
            message(&cm, fine),
            "ConfigMap \"l\" is invalid: data[..]: Invalid value: \"..\": must not be '..'"
        );
        let secret = kind("", "Secret");
        assert_eq!(
            message(
                &secret,
                json!({"metadata": {"name": "bad2"}, "data": {"a/b": "eA=="}})
            ),
            format!(
                "Secret \"bad2\" is invalid: data[a/b]: Invalid value: \"a/b\": {CONFIG_KEY_MSG}"
            )
        );
    }

    #[test]
    fn dry_run_is_all_or_refused() {
        assert!(dry_run_values(&Request::new("POST", "/x?dryRun=All"), "CreateOptions").is_ok());
        assert!(dry_run_values(&Request::new("POST", "/x"), "CreateOptions").is_ok());
        let r = dry_run_list(&["Some"], "DeleteOptions").expect_err("refused");
        assert_eq!(
            r.value()["message"],
            "DeleteOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"Some\"}: supported values: \"All\""
        );
        for v in ["Some", "true", "all", ""] {
            let r = dry_run_values(
                &Request::new("POST", &format!("/x?dryRun={v}")),
                "CreateOptions",
            )
            .expect_err("refused");
            assert_eq!(r.code, 422);
            assert_eq!(
                r.value()["message"],
                format!(
                    "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{{\"{v}\"}}: supported values: \"All\""
                )
            );
        }
    }
}
