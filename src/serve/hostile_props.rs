//! Property tests of what serve stores (issue 26, item 3): strings drawn
//! from an alphabet of what kube-apiserver refuses (ESC, bidi and
//! zero-width characters, bells, newlines, spaces, capitals, slashes)
//! and of what it takes, at every length up to past the limits, sent as
//! a name, a `generateName`, a label's key or value, an annotation's
//! key and a finalizer, through a create, a merge patch and an update. A write is
//! answered 2xx exactly when kube-apiserver's rules
//! (`apimachinery/pkg/util/validation`, written out again below as the
//! oracle) take the string, and what is refused is never stored.

use std::cell::RefCell;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::Request;
use super::state::Served;
use super::tests::{send, served};

const CMS: &str = "/api/v1/namespaces/shop/configmaps";

/// `[a-z0-9]` at both ends, `[-a-z0-9]` between (a subdomain's part:
/// `IsDNS1123Subdomain`'s expression sets no length of its own to it).
fn dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    let end = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty()
        && b.first().is_some_and(end)
        && b.last().is_some_and(end)
        && b.iter().all(|c| end(c) || *c == b'-')
}

/// `IsDNS1123Subdomain`: up to 253, labels joined by dots.
fn dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(dns_label)
}

/// The name part of a qualified name, and a label's value when not
/// empty: `[A-Za-z0-9]` at both ends, `[-A-Za-z0-9_.]` between, up to 63.
fn name_part(s: &str) -> bool {
    let b = s.as_bytes();
    let end = |c: &u8| c.is_ascii_alphanumeric();
    (1..=63).contains(&b.len())
        && b.first().is_some_and(end)
        && b.last().is_some_and(end)
        && b.iter().all(|c| end(c) || matches!(c, b'-' | b'_' | b'.'))
}

/// `IsQualifiedName`: `[prefix/]name`, the prefix a DNS subdomain.
fn qualified_name(s: &str) -> bool {
    match s.split_once('/') {
        Some((prefix, name)) => !prefix.is_empty() && dns_subdomain(prefix) && name_part(name),
        None => name_part(s),
    }
}

/// `IsValidLabelValue`.
fn label_value(s: &str) -> bool {
    s.is_empty() || name_part(s)
}

#[derive(Clone, Copy, Debug)]
enum Field {
    Name,
    GenerateName,
    LabelKey,
    LabelValue,
    AnnotationKey,
    Finalizer,
}

#[derive(Clone, Copy, Debug)]
enum Write {
    Create,
    MergePatch,
    Update,
}

/// Whether kube-apiserver takes `s` in `field`.
fn valid(field: Field, s: &str) -> bool {
    match field {
        Field::Name => dns_subdomain(s),
        // Validated as a name with a trailing dash masked (1.20's
        // `maskTrailingDash` puts an `a` for the last two bytes: a prefix
        // of 254 ending in `-` is taken, as the test control plane took
        // it), and the name made of it (cut to 58, five random characters
        // after) as a name.
        Field::GenerateName => {
            let masked = match s.strip_suffix('-') {
                Some(rest) => {
                    let mut kept: Vec<char> = rest.chars().collect();
                    kept.pop();
                    format!("{}a", kept.into_iter().collect::<String>())
                }
                None => s.to_string(),
            };
            let base: String = s.chars().take(58).collect();
            !s.is_empty() && dns_subdomain(&masked) && dns_subdomain(&format!("{base}abcde"))
        }
        Field::LabelKey => qualified_name(s),
        Field::LabelValue => label_value(s),
        // Checked lowercased (`ValidateAnnotations`).
        Field::AnnotationKey => qualified_name(&s.to_lowercase()),
        // `ValidateFinalizerName`: a qualified name, as it is.
        Field::Finalizer => qualified_name(s),
    }
}

/// Strings of what the API server refuses and takes, short and long.
fn hostile() -> impl Strategy<Value = String> {
    let chars = prop::sample::select(vec![
        'a', 'b', 'z', '0', '9', '-', '.', '_', '/', 'A', ' ', 'é', '\u{1b}', '\u{202e}',
        '\u{200b}', '\u{7}', '\n',
    ]);
    prop_oneof![
        3 => prop::collection::vec(chars, 0..12).prop_map(|v| v.into_iter().collect()),
        1 => (prop::sample::select(vec![62usize, 63, 64, 252, 253, 254, 300]),
              prop::sample::select(vec!["a", "a.", "a-"]))
            .prop_map(|(n, unit)| unit.repeat(n).chars().take(n).collect()),
    ]
}

fn field() -> impl Strategy<Value = Field> {
    prop::sample::select(vec![
        Field::Name,
        Field::GenerateName,
        Field::LabelKey,
        Field::LabelValue,
        Field::AnnotationKey,
        Field::Finalizer,
    ])
}

fn write() -> impl Strategy<Value = Write> {
    prop::sample::select(vec![Write::Create, Write::MergePatch, Write::Update])
}

/// The metadata that carries `s` in `field`.
fn metadata(field: Field, s: &str, name: &str) -> Value {
    match field {
        Field::Name => json!({"name": s}),
        Field::GenerateName => json!({"generateName": s}),
        Field::LabelKey => json!({"name": name, "labels": {s: "v"}}),
        Field::LabelValue => json!({"name": name, "labels": {"k": s}}),
        Field::AnnotationKey => json!({"name": name, "annotations": {s: "v"}}),
        Field::Finalizer => json!({"name": name, "finalizers": [s]}),
    }
}

/// Whether anything stored carries `s` where `field` would put it.
fn stored(s: &Served, field: Field, h: &str) -> bool {
    s.sim.objects().any(|o| match field {
        Field::Name | Field::GenerateName => o.name() == h,
        Field::LabelKey => o.metadata.labels.contains_key(h),
        Field::LabelValue => o.metadata.labels.get("k").is_some_and(|v| v == h),
        Field::AnnotationKey => o.metadata.annotations.contains_key(h),
        Field::Finalizer => o.metadata.finalizers.iter().any(|f| f == h),
    })
}

fn request(method: &str, path: &str, content_type: &str, body: &Value) -> Request {
    Request {
        content_type: content_type.into(),
        body: serde_json::to_vec(body).expect("json"),
        ..Request::new(method, path)
    }
}

thread_local! {
    static SERVED: RefCell<Option<(Served, usize)>> = const { RefCell::new(None) };
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_write_is_taken_exactly_when_kube_apiserver_takes_it_and_a_refused_one_is_not_stored(
        h in hostile(), field in field(), how in write()
    ) {
        // A generateName of a lone `-` makes 1.20's mask panic (no answer
        // in JSON): nothing to compare with.
        prop_assume!(!(matches!(field, Field::GenerateName) && h == "-"));
        SERVED.with(|cell| {
            let mut cell = cell.borrow_mut();
            let (s, n) = cell.get_or_insert_with(|| (served(), 0));
            *n += 1;
            // A ConfigMap of its own to patch or update, each case.
            let own = format!("target-{n}");
            let made = send(s, &request("POST", CMS, "application/json",
                &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": own}})));
            prop_assert_eq!(made.code, 201);
            // A name or generateName is written by a create only.
            let how = match field {
                Field::Name | Field::GenerateName => Write::Create,
                _ => how,
            };
            let fresh = format!("fresh-{n}");
            let meta = metadata(field, &h, if matches!(how, Write::Create) { &fresh } else { &own });
            let r = match how {
                Write::Create => send(s, &request("POST", CMS, "application/json",
                    &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}))),
                Write::MergePatch => send(s, &request("PATCH", &format!("{CMS}/{own}"),
                    "application/merge-patch+json", &json!({"metadata": meta}))),
                Write::Update => send(s, &request("PUT", &format!("{CMS}/{own}"), "application/json",
                    &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}))),
            };
            // A name taken before is taken: 409, the name was good.
            let taken = r.code == 409 && matches!(field, Field::Name) && stored(s, field, &h);
            let ok = (200..300).contains(&r.code) || taken;
            prop_assert_eq!(ok, valid(field, &h),
                "{:?} {:?} of {:?}: {} {:?}", how, field, h, r.code, r.value());
            if !ok {
                prop_assert_eq!(r.code, 422, "{:?}", r.value());
                prop_assert!(!stored(s, field, &h), "{:?} {:?} was stored", field, h);
            }
            Ok(())
        })?;
    }
}

#[test]
fn the_oracle_reads_as_kube_apiservers_rules() {
    assert!(dns_subdomain("a.b-c"));
    assert!(!dns_subdomain("a..b") && !dns_subdomain("-a") && !dns_subdomain("A"));
    assert!(dns_subdomain(&"a".repeat(253)) && !dns_subdomain(&"a".repeat(254)));
    assert!(dns_subdomain(
        &[
            "a".repeat(63),
            "a".repeat(63),
            "a".repeat(63),
            "a".repeat(61)
        ]
        .join(".")
    ));
    assert!(
        qualified_name("example.com/Key_1") && !qualified_name("/k") && !qualified_name("a/b/c")
    );
    assert!(!qualified_name("EXAMPLE.com/k") && qualified_name(&"EXAMPLE.com/k".to_lowercase()));
    assert!(label_value("") && label_value("A.b") && !label_value("a ") && !label_value("a\u{1b}"));
    assert!(valid(Field::GenerateName, "web-") && valid(Field::GenerateName, "a.b"));
    assert!(!valid(Field::GenerateName, "") && !valid(Field::GenerateName, "Web-"));
    assert!(!valid(Field::GenerateName, "a.") && valid(Field::GenerateName, &"a-".repeat(127)));
}

#[test]
fn a_field_manager_too_long_or_not_printable_is_refused_in_the_api_servers_words() {
    // As the test control plane (1.20.2) answered the same creates,
    // updates and patches (`ValidateFieldManager` of their options).
    let mut s = served();
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fm"}});
    let long = "m".repeat(129);
    for (query, options, message) in [
        (
            format!("fieldManager={long}"),
            "CreateOptions",
            "fieldManager: Too long: must have at most 128 bytes".to_string(),
        ),
        (
            "fieldManager=a%1Bb".to_string(),
            "CreateOptions",
            "fieldManager: Invalid value: \"a\\x1bb\": invalid character U+001B (at position 1)"
                .to_string(),
        ),
    ] {
        let r = send(
            &mut s,
            &request("POST", &format!("{CMS}?{query}"), "application/json", &body),
        );
        assert_eq!(r.code, 422, "{query}: {:?}", r.value());
        assert_eq!(
            r.value()["message"],
            format!("{options}.meta.k8s.io \"\" is invalid: {message}")
        );
    }
    let r = send(&mut s, &request("POST", CMS, "application/json", &body));
    assert_eq!(r.code, 201);
    let put = send(
        &mut s,
        &request(
            "PUT",
            &format!("{CMS}/fm?fieldManager={long}"),
            "application/json",
            &body,
        ),
    );
    assert_eq!(put.code, 422, "{:?}", put.value());
    assert_eq!(
        put.value()["message"],
        "UpdateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: must have at most 128 bytes"
    );
    let patch = send(
        &mut s,
        &request(
            "PATCH",
            &format!("{CMS}/fm?fieldManager=a%1Bb"),
            "application/merge-patch+json",
            &json!({"metadata": {"labels": {"a": "b"}}}),
        ),
    );
    assert_eq!(patch.code, 422, "{:?}", patch.value());
    assert!(!s.sim.objects().any(|o| o.metadata.labels.contains_key("a")));
    assert_eq!(
        send(
            &mut s,
            &request(
                "POST",
                &format!("{CMS}?fieldManager="),
                "application/json",
                &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fm2"}})
            )
        )
        .code,
        201,
        "an empty one is none"
    );
}
